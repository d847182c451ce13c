/* SPDX-License-Identifier: MIT */
/*
 * Broadcom NetXtreme-C/E (bnxt_en) as its dcbnl_rtnl_ops see it, from
 * drivers/net/ethernet/broadcom/bnxt/bnxt_dcb.c. The driver caches the last
 * IEEE ETS and PFC it set (bp->ieee_ets, bp->ieee_pfc) and programs the
 * firmware with HWRM commands (QUEUE_COS2BW_CFG, QUEUE_PRI2COS_CFG,
 * QUEUE_PFCENABLE_CFG, QUEUE_DSCP2PRI_CFG), one TC per CoS queue through
 * bp->tc_to_qidx (the identity at probe, bnxt_hwrm_queue_qportcfg()).
 *
 * bnxt_queue_remap(): a PFC change that makes a TC lossless whose queue lacks
 * the lossless profile (!BNXT_LLQ) reassigns the queues, lossless TCs first, and
 * closes and reopens the NIC (bnxt_close_nic()/bnxt_open_nic(): a link flap
 * before the reply; a failure there is only a netdev_warn, the rc is overwritten
 * by the HWRM send that follows). The firmware reports each queue's profile in
 * HWRM_QUEUE_QPORTCFG and no default layout is published: the model's choice is
 * queues 1 and 2 lossless (max_lltc 2), the others lossy.
 *
 * In host DCBX mode nothing is read back from the firmware until the host set
 * it: getets/getpfc answer the all-zero configuration, and the model takes the
 * firmware's power-on state to be that configuration (one TC, strict, no PFC).
 * The dump shows the firmware only for TCs some priority maps to.
 *
 * Variants (bnxt_dcb_init()): "" (a PF with host LLDP: DCB_CAP_DCBX_HOST |
 * VER_IEEE, 0x09), "fw-lldp" (the firmware LLDP and DCBX agents: LLD_MANAGED |
 * VER_IEEE, 0x0a, every SET refused), "lldp-only" (a PF whose firmware runs the
 * LLDP agent without the DCBX agent: VER_IEEE only, 0x08), "vf" (a VF: 0x08, and
 * no DSCP map, bnxt_hwrm_queue_dscp_qcaps() is skipped). At 0x08 every IEEE SET
 * is refused with -EINVAL and setdcbx refuses host mode.
 *
 * With a debugfs root, bnxt_re's congestion control (drivers/infiniband/hw/bnxt_re/
 * debugfs.c, 656dff55da19, bnxt_re_debugfs_add_pdev()): DEBUGFS/bnxt_re/PCI/cc_config/
 * NAME, a file of mode 0400 per GEN0 parameter (bnxt_re_cc_gen0_name[]), which root
 * writes all the same (debugfs checks no mode bits against CAP_DAC_OVERRIDE). A read
 * queries the firmware (bnxt_re_cc_config_get() -> bnxt_qplib_query_cc_param()); a write
 * (bnxt_re_cc_config_set(): kstrtou32 base 0, shorter than 16 bytes) modifies one
 * parameter (bnxt_re_fill_gen0_ext0(), one bit of the modify mask). At load the driver
 * turns congestion control on with ECN-capable marking (main.c bnxt_re_setup_cc():
 * enable 1, tos_ecn 1); the other values are the model's (no published defaults). As
 * for mlx5's cc_params the files are plain: the model takes in what was written at
 * its next tick. Not modelled: 656dff55da19 alone refuses every write (-EINVAL, its
 * inverted CC_CONFIG_GEN0_EXT0 test, fixed after it), and reads of tx_queue and
 * inactivity_cp fail (-EINVAL: map_cc_config_offset_gen0_ext0() has no case for them).
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "common/util.h"
#include "drivers/host/sysfs.h"
#include "tests/nicmodel/nicmodel.h"

/* bnxt_re_cc_gen0_name[] (debugfs.c), in CMDQ_MODIFY_ROCE_CC_MODIFY_MASK bit order */
static const char *const cc_names[] = { "enable_cc", "g", "num_phase_per_state", "init_cr", "init_tr", "tos_ecn",
                                        "tos_dscp", "alt_vlan_pcp", "alt_vlan_dscp", "rtt", "cc_mode", "tcp_cp",
                                        "tx_queue", "inactivity_cp" };
#define CC_N ARRAY_SIZE(cc_names)
#define CC_MTIME_MODEL 1                /* the model's own writes: a write by anyone else changes the mtime */

#define ENOTSUPP 524                    /* the kernel-internal errno bnxt_ets_validate() returns */

struct bnxt {
        uint8_t dcbx_cap;
        bool vf, lldp_agent;            /* BNXT_VF(bp), bp->fw_cap & BNXT_FW_CAP_LLDP_AGENT */
        uint8_t tc_to_qidx[8];
        bool llq[8];                    /* BNXT_LLQ(bp->q_info[q].queue_profile) */
        uint8_t max_tc, max_lltc, max_dscp_value;
        bool has_ets, has_pfc;
        struct ieee_ets ieee_ets;       /* bp->ieee_ets */
        struct ieee_pfc ieee_pfc;       /* bp->ieee_pfc */
        uint8_t num_tc;                 /* netdev_get_num_tc() */
        /* firmware */
        uint8_t pri2cos[8];             /* priority -> TC (queue) */
        uint8_t cos_tsa[8];             /* per TC: IEEE TSA (strict or ets) */
        uint8_t cos_bw[8];
        uint8_t pfc_pri_mask;
        bool dscp_valid[64];            /* QUEUE_DSCP2PRI_CFG mask 0x3f, or cleared with mask 0 */
        uint8_t dscp_pri[64];
        /* bnxt_re: the firmware's GEN0 congestion control parameters, their debugfs directory */
        uint32_t cc[CC_N];
        char cc_dir[320];
};

static struct bnxt *P(const struct nm_dev *d)
{
        return d->priv;
}

static bool host_ieee(const struct bnxt *p)
{
        return (p->dcbx_cap & DCB_CAP_DCBX_VER_IEEE) && (p->dcbx_cap & DCB_CAP_DCBX_HOST);
}

/* bnxt_dcbnl_ieee_getets(): nothing cached in host mode = only ets_cap. */
static int bnxt_getets(struct nm *m, struct nm_dev *d, struct ieee_ets *ets)
{
        const struct bnxt *p = P(d);

        ets->ets_cap = p->max_tc;
        if (!p->has_ets) {
                if (p->dcbx_cap & DCB_CAP_DCBX_HOST)
                        return 0;
                /* bnxt_hwrm_queue_cos2bw_qcfg() + bnxt_hwrm_queue_pri2cos_qcfg() */
                for (int tc = 0; tc < p->max_tc && tc < 8; tc++) {
                        ets->tc_tsa[tc] = p->cos_tsa[tc];
                        if (p->cos_tsa[tc] == IEEE_8021QAZ_TSA_ETS)
                                ets->tc_tx_bw[tc] = p->cos_bw[tc];
                }
                memcpy(ets->prio_tc, p->pri2cos, 8);
                return 0;
        }
        ets->cbs = p->ieee_ets.cbs;
        memcpy(ets->tc_tx_bw, p->ieee_ets.tc_tx_bw, 8);
        memcpy(ets->tc_rx_bw, p->ieee_ets.tc_rx_bw, 8);
        memcpy(ets->tc_tsa, p->ieee_ets.tc_tsa, 8);
        memcpy(ets->prio_tc, p->ieee_ets.prio_tc, 8);
        return 0;
}

/* bnxt_ets_validate(): strict or ETS only (else -ENOTSUPP), ETS bandwidth at most 100. */
static int ets_validate(const struct bnxt *p, const struct ieee_ets *ets, uint8_t *tc)
{
        int total = 0;
        uint8_t max = 0;

        for (int i = 0; i < 8; i++) {
                if (ets->prio_tc[i] > p->max_tc)
                        return -EINVAL;
                if (ets->prio_tc[i] > max)
                        max = ets->prio_tc[i];
                if ((ets->tc_tx_bw[i] || ets->tc_tsa[i]) && i > p->max_tc)
                        return -EINVAL;
                switch (ets->tc_tsa[i]) {
                case IEEE_8021QAZ_TSA_STRICT: break;
                case IEEE_8021QAZ_TSA_ETS: total += ets->tc_tx_bw[i]; break;
                default: return -ENOTSUPP;
                }
        }
        if (total > 100)
                return -EINVAL;
        *tc = max >= p->max_tc ? p->max_tc : (uint8_t)(max + 1);
        return 0;
}

/* bnxt_setup_mq_tc(): a new TC count closes and reopens the NIC (a link flap before the reply). */
static void setup_mq_tc(struct nm *m, struct nm_dev *d, uint8_t tc)
{
        struct bnxt *p = P(d);
        uint8_t want = tc > 1 ? tc : 0;

        if (p->num_tc == want)
                return;
        p->num_tc = want;
        nm_flap(m, d, 0);
}

/* bnxt_dcbnl_ieee_setets(): COS2BW for TCs below max_tc, PRI2COS for every priority, then cache. */
static int bnxt_setets(struct nm *m, struct nm_dev *d, struct ieee_ets *ets)
{
        struct bnxt *p = P(d);
        uint8_t max_tc = 0;
        int rc;

        if (!host_ieee(p))
                return -EINVAL;
        rc = ets_validate(p, ets, &max_tc);
        if (rc)
                return rc;
        if (!p->has_ets) {
                memset(&p->ieee_ets, 0, sizeof(p->ieee_ets));
                memset(p->ieee_ets.prio_tc, IEEE_8021QAZ_MAX_TCS, 8);
                p->has_ets = true;
        }
        setup_mq_tc(m, d, max_tc);
        for (int i = 0; i < max_tc; i++) {                      /* bnxt_hwrm_queue_cos2bw_cfg() */
                p->cos_tsa[i] = ets->tc_tsa[i] == IEEE_8021QAZ_TSA_STRICT ? IEEE_8021QAZ_TSA_STRICT :
                                                                            IEEE_8021QAZ_TSA_ETS;
                p->cos_bw[i] = ets->tc_tsa[i] == IEEE_8021QAZ_TSA_STRICT ? 0 : ets->tc_tx_bw[i];
        }
        memcpy(p->pri2cos, ets->prio_tc, 8);                    /* bnxt_hwrm_queue_pri2cos_cfg() */
        p->ieee_ets = *ets;
        return 0;
}

/* bnxt_dcbnl_ieee_getpfc() */
static int bnxt_getpfc(struct nm *m, struct nm_dev *d, struct ieee_pfc *pfc)
{
        const struct bnxt *p = P(d);

        pfc->pfc_cap = p->max_lltc;
        if (!p->has_pfc)
                return 0;
        pfc->pfc_en = p->ieee_pfc.pfc_en;
        pfc->mbc = p->ieee_pfc.mbc;
        pfc->delay = p->ieee_pfc.delay;
        return 0;
}

/* bnxt_queue_remap(): lossless TCs onto lossless queues first, the rest after; the NIC closed and reopened. */
static void queue_remap(struct nm *m, struct nm_dev *d, unsigned lltc_mask)
{
        struct bnxt *p = P(d);
        unsigned qmap = 0, j = 0;

        for (unsigned i = 0; i < p->max_tc && j < 8;) {
                if (lltc_mask & (1u << i)) {
                        if (p->llq[j]) {
                                p->tc_to_qidx[i] = (uint8_t)j;
                                qmap |= 1u << j;
                                i++;
                        }
                        j++;
                        continue;
                }
                i++;
        }
        j = 0;
        for (unsigned i = 0; i < p->max_tc; i++) {
                if (lltc_mask & (1u << i))
                        continue;
                while (j < 8 && (qmap & (1u << j)))
                        j++;
                p->tc_to_qidx[i] = (uint8_t)(j < 8 ? j : 0);
                qmap |= 1u << j;
                j++;
        }
        nm_logf(m, "%s: bnxt_queue_remap: lossless TCs 0x%02x; NIC closed and reopened", d->name, lltc_mask);
        nm_flap(m, d, 0);
}

/* bnxt_hwrm_queue_pfc_cfg(): needs an ETS set first; at most max_lltc lossless TCs; a remap when a queue is lossy. */
static int bnxt_setpfc(struct nm *m, struct nm_dev *d, struct ieee_pfc *pfc)
{
        struct bnxt *p = P(d);
        unsigned tc_mask = 0, pri_mask = 0, lltc = 0;

        if (!host_ieee(p))
                return -EINVAL;
        if (!p->has_pfc) {
                memset(&p->ieee_pfc, 0, sizeof(p->ieee_pfc));
                p->has_pfc = true;
        }
        if (!p->has_ets)
                return -EINVAL;
        for (unsigned i = 0; i < p->max_tc; i++) {
                for (unsigned pri = 0; pri < 8; pri++)
                        if ((pfc->pfc_en & (1u << pri)) && p->ieee_ets.prio_tc[pri] == i) {
                                pri_mask |= 1u << pri;
                                tc_mask |= 1u << i;
                        }
                if (tc_mask & (1u << i))
                        lltc++;
        }
        if (lltc > p->max_lltc)
                return -EINVAL;
        for (unsigned i = 0; i < p->max_tc; i++)
                if ((tc_mask & (1u << i)) && !p->llq[p->tc_to_qidx[i]]) {
                        queue_remap(m, d, tc_mask);
                        break;
                }
        p->pfc_pri_mask = (uint8_t)pri_mask;
        p->ieee_pfc = *pfc;
        return 0;
}

/* bnxt_dcbnl_ieee_dscp_app_prep() */
static int dscp_prep(const struct bnxt *p, const struct dcb_app *app)
{
        if (app->selector != IEEE_8021QAZ_APP_SEL_DSCP)
                return 0;
        if (!p->max_dscp_value)
                return -ENOTSUPP;
        return app->protocol > p->max_dscp_value ? -EINVAL : 0;
}

/* The checks ieee_setapp and ieee_delapp both start with. */
static int app_checks(const struct bnxt *p, const struct dcb_app *app)
{
        return !host_ieee(p) ? -EINVAL : dscp_prep(p, app);
}

/* bnxt_dcbnl_ieee_setapp(): the core list, then QUEUE_DSCP2PRI_CFG with mask 0x3f. */
static int bnxt_setapp(struct nm *m, struct nm_dev *d, struct dcb_app *app)
{
        struct bnxt *p = P(d);
        int rc = app_checks(p, app);

        if (rc)
                return rc;
        rc = nm_dcb_ieee_setapp(m, d, app);
        if (rc)
                return rc;
        if (app->selector == IEEE_8021QAZ_APP_SEL_DSCP) {
                p->dscp_valid[app->protocol] = true;
                p->dscp_pri[app->protocol] = app->priority;
        }
        return 0;
}

/*
 * bnxt_dcbnl_ieee_delapp(): the core list, then QUEUE_DSCP2PRI_CFG with mask 0,
 * which clears the firmware's entry for that DSCP whatever priority it holds: a
 * remap done as "add new, delete old" leaves the new entry in the kernel list and
 * none in the firmware.
 */
static int bnxt_delapp(struct nm *m, struct nm_dev *d, struct dcb_app *app)
{
        struct bnxt *p = P(d);
        int rc = app_checks(p, app);

        if (rc)
                return rc;
        rc = nm_dcb_ieee_delapp(m, d, app);
        if (rc)
                return rc;
        if (app->selector == IEEE_8021QAZ_APP_SEL_DSCP) {
                p->dscp_valid[app->protocol] = false;
                p->dscp_pri[app->protocol] = 0;
        }
        return 0;
}

static uint8_t bnxt_getdcbx(struct nm *m, struct nm_dev *d)
{
        return P(d)->dcbx_cap;          /* bnxt_dcbnl_getdcbx() */
}

/* bnxt_dcbnl_setdcbx(): no change under the firmware agent; host mode never on a VF or beside the LLDP agent, IEEE only. */
static uint8_t bnxt_setdcbx(struct nm *m, struct nm_dev *d, uint8_t mode)
{
        struct bnxt *p = P(d);

        if (p->dcbx_cap & DCB_CAP_DCBX_LLD_MANAGED)
                return 1;
        if (mode & DCB_CAP_DCBX_HOST) {
                if (p->vf || p->lldp_agent)
                        return 1;
                if ((mode & DCB_CAP_DCBX_VER_CEE) || !(mode & DCB_CAP_DCBX_VER_IEEE))
                        return 1;
        }
        if (mode == p->dcbx_cap)
                return 0;
        p->dcbx_cap = mode;
        return 0;
}

/* bnxt_change_mtu(): bnxt_close_nic() + bnxt_open_nic(). */
static int bnxt_change_mtu(struct nm *m, struct nm_dev *d, uint32_t mtu)
{
        nm_flap(m, d, 0);
        return 0;
}

/* bnxt_dcb_init() */
static int bnxt_init(struct nm *m, struct nm_dev *d, const char *variant)
{
        struct bnxt *p = P(d);

        if (*variant && !streq(variant, "fw-lldp") && !streq(variant, "lldp-only") && !streq(variant, "vf"))
                return -EINVAL;
        d->min_mtu = 60;                /* ETH_ZLEN */
        d->max_mtu = 9500;              /* BNXT_MAX_MTU */
        p->max_tc = 8;
        p->max_lltc = 2;
        p->vf = streq(variant, "vf");
        p->lldp_agent = streq(variant, "fw-lldp") || streq(variant, "lldp-only");
        p->max_dscp_value = p->vf ? 0 : 63;     /* bnxt_hwrm_queue_dscp_qcaps(): 6 DSCP bits, not on a VF */
        for (int q = 0; q < 8; q++)
                p->tc_to_qidx[q] = (uint8_t)q;
        p->llq[1] = p->llq[2] = true;
        p->dcbx_cap = DCB_CAP_DCBX_VER_IEEE;
        if (!p->vf && !p->lldp_agent)
                p->dcbx_cap |= DCB_CAP_DCBX_HOST;
        else if (streq(variant, "fw-lldp"))     /* BNXT_FW_CAP_DCBX_AGENT */
                p->dcbx_cap |= DCB_CAP_DCBX_LLD_MANAGED;
        return 0;
}

static void bnxt_dump(struct nm *m, const struct nm_dev *d, FILE *f)
{
        const struct bnxt *p = P(d);
        struct ieee_ets ets = { 0 };
        struct ieee_pfc pfc = { 0 };
        uint8_t used = 0;

        bnxt_getets(m, (struct nm_dev *)d, &ets);
        bnxt_getpfc(m, (struct nm_dev *)d, &pfc);
        fprintf(f, "  dcbx cap 0x%02x num_tc %u\n  ets", p->dcbx_cap, p->num_tc);
        nm_dump_u8s(f, "prio_tc", ets.prio_tc, 8);
        nm_dump_u8s(f, "tc_tsa", ets.tc_tsa, 8);
        nm_dump_u8s(f, "tc_tx_bw", ets.tc_tx_bw, 8);
        fprintf(f, "\n  pfc en 0x%02x\n  firmware pri2cos", pfc.pfc_en);
        for (int i = 0; i < 8; i++) {
                fprintf(f, "%s%u", i ? "," : " ", p->pri2cos[i]);
                used |= (uint8_t)(1u << p->pri2cos[i]);
        }
        for (int tc = 0; tc < 8; tc++)
                if (used & (1u << tc))
                        fprintf(f, " tc%d %s/%u", tc, p->cos_tsa[tc] == IEEE_8021QAZ_TSA_ETS ? "ets" : "strict",
                                p->cos_bw[tc]);
        fprintf(f, " pfc 0x%02x\n  firmware dscp2pri", p->pfc_pri_mask);
        for (int i = 0; i < 64; i++) {
                if (p->dscp_valid[i])
                        fprintf(f, "%s%u", i ? "," : " ", p->dscp_pri[i]);
                else
                        fprintf(f, "%s-", i ? "," : " ");
        }
        fprintf(f, "\n");
}

/*
 * bnxt's flaps are a software bounce: bnxt_close_nic() + bnxt_open_nic(bp, ...,
 * link_re_init false) turn carrier off (bnxt_tx_disable()) and on again
 * (bnxt_tx_enable() when bp->link_info.link_up) without retraining the PHY. A
 * fraction of a second in the model; no figure is published.
 */
static unsigned bnxt_link_up_ms(const struct nm_dev *d)
{
        return 200;
}

/*
 * infiniband/hw/bnxt_re/hw_counters.c bnxt_re_stat_descs[] since "bnxt_re: Expose the
 * missing hw counters" (2023-07, ~6.6): some of the congestion ones.
 */
/* ---- bnxt_re debugfs cc_config ---- */

static int cc_show(const struct bnxt *p, unsigned i)
{
        char path[400], text[16];
        struct timespec t[2] = { { .tv_sec = CC_MTIME_MODEL }, { .tv_sec = CC_MTIME_MODEL } };
        int r;

        snprintf(path, sizeof(path), "%s/%s", p->cc_dir, cc_names[i]);
        snprintf(text, sizeof(text), "%u\n", p->cc[i]);      /* bnxt_re_cc_config_get(): "%d\n" */
        (void)chmod(path, 0600);                /* the model rewrites its own 0400 file */
        r = nm_write_file(path, text, 0400);
        if (r >= 0 && chmod(path, 0400) < 0)
                r = -errno;
        if (r >= 0 && utimensat(AT_FDCWD, path, t, 0) < 0)
                r = -errno;
        return r;
}

static int bnxt_debugfs_create(struct nm *m, struct nm_dev *d)
{
        struct bnxt *p = P(d);
        char pci[32];
        int r;

        nm_bdf(d, pci, sizeof(pci));
        snprintf(p->cc_dir, sizeof(p->cc_dir), "%s/bnxt_re/%s/cc_config", m->debugfs_root, pci);
        if ((r = nm_mkdirs(p->cc_dir, 0755)) < 0)
                return r;
        p->cc[0] = p->cc[5] = 1;                /* bnxt_re_setup_cc(): enable, tos_ecn */
        for (unsigned i = 0; i < CC_N; i++)
                if ((r = cc_show(p, i)) < 0)
                        return r;
        return 0;
}

/* Every file written since the last tick: bnxt_re_cc_config_set() for it, then the firmware's value shown. */
static void bnxt_files_tick(struct nm *m, struct nm_dev *d)
{
        struct bnxt *p = P(d);

        for (unsigned i = 0; p->cc_dir[0] && i < CC_N; i++) {
                char path[400], line[32] = "";
                struct stat st;
                unsigned long v;
                char *end;

                snprintf(path, sizeof(path), "%s/%s", p->cc_dir, cc_names[i]);
                if (sysfs_read_line(path, line, sizeof(line)) < 0 || stat(path, &st) < 0)
                        continue;
                v = strtoul(line, &end, 0);     /* kstrtou32(buf, 0) */
                if (st.st_mtim.tv_sec == CC_MTIME_MODEL || end == line || v > UINT32_MAX)
                        continue;
                p->cc[i] = (uint32_t)v;
                nm_logf(m, "%s: cc_config %s = %u", d->name, cc_names[i], p->cc[i]);
                (void)cc_show(p, i);
        }
}

static const char *const hw_counters[] = { "tx_cnp_pkts", "rx_cnp_pkts", "rx_ecn_marked_pkts", "rx_roce_discards",
                                           "rx_out_of_buffer", NULL };

/*
 * ethtool -S (bnxt_ethtool.c): the port's PFC frames per priority (bnxt_port_stats_arr
 * rx/tx_pfc_ena_frames_pri%u) and the extended port statistics' pause duration and
 * transitions (bnxt_port_stats_ext_arr, BNXT_RX/TX_STATS_EXT_PFC_ENTRY: pfc_pri%d_rx/tx_duration_us,
 * _transitions). A burst (nm_pause.c) moves them.
 */
static unsigned bnxt_stats(struct nm *m, struct nm_dev *d, char (*names)[NM_GSTRING_LEN], uint64_t *vals,
                           unsigned max)
{
        uint64_t f[2][8], us[2][8], t[2][8];
        unsigned n = 0;

        for (unsigned tx = 0; tx < 2; tx++)
                for (unsigned i = 0; i < 8; i++)
                        nm_pause_now(d, tx, i, &f[tx][i], &us[tx][i], &t[tx][i]);
        for (unsigned tx = 0; tx < 2; tx++)
                for (unsigned i = 0; i < 8 && n < max; i++) {
                        snprintf(names[n], NM_GSTRING_LEN, "%s_pfc_ena_frames_pri%u", tx ? "tx" : "rx", i);
                        vals[n++] = f[tx][i];
                }
        for (unsigned tx = 0; tx < 2; tx++)
                for (unsigned i = 0; i < 8 && n + 2 <= max; i++) {
                        snprintf(names[n], NM_GSTRING_LEN, "pfc_pri%u_%s_duration_us", i, tx ? "tx" : "rx");
                        vals[n++] = us[tx][i];
                        snprintf(names[n], NM_GSTRING_LEN, "pfc_pri%u_%s_transitions", i, tx ? "tx" : "rx");
                        vals[n++] = t[tx][i];
                }
        return n;
}

const struct nm_driver nm_bnxt = {
        .name = "bnxt",
        .kernel_driver = "bnxt_en",
        .rdma_prefix = "bnxt_re",
        .hw_counters = hw_counters,
        .priv_size = sizeof(struct bnxt),
        .init = bnxt_init,
        .has_dcbnl = true,
        .getets = bnxt_getets,
        .setets = bnxt_setets,
        .getpfc = bnxt_getpfc,
        .setpfc = bnxt_setpfc,
        .setapp = bnxt_setapp,
        .delapp = bnxt_delapp,
        .getdcbx = bnxt_getdcbx,
        .setdcbx = bnxt_setdcbx,
        .change_mtu = bnxt_change_mtu,
        .dump = bnxt_dump,
        .link_up_ms = bnxt_link_up_ms,
        .debugfs_create = bnxt_debugfs_create,
        .files_tick = bnxt_files_tick,
        .stats = bnxt_stats,
};

/* ---- veth: no dcbnl_ops (dcb_doit answers -EOPNOTSUPP), MTU 68..65535 (veth_setup) ---- */

static int veth_init(struct nm *m, struct nm_dev *d, const char *variant)
{
        if (*variant)
                return -EINVAL;
        d->min_mtu = 68;
        d->max_mtu = 65535;
        return 0;
}

const struct nm_driver nm_veth = {
        .name = "veth",
        .init = veth_init,
};

/* ---- bond: a software link (bond_setup(): no dcbnl_ops, MTU 68..65535), the upper of its ports ---- */

static int bond_init(struct nm *m, struct nm_dev *d, const char *variant)
{
        if (*variant)
                return -EINVAL;
        d->min_mtu = 68;
        d->max_mtu = 65535;
        return 0;
}

const struct nm_driver nm_bond = {
        .name = "bond",
        .init = bond_init,
};
