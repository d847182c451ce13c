/* SPDX-License-Identifier: MIT */
/*
 * ConnectX (mlx5_core) as its dcbnl_rtnl_ops see it, from
 * drivers/net/ethernet/mellanox/mlx5/core/en_dcbnl.c and port.c. Firmware
 * registers (QTCT prio->tc, QETCR tc group and bandwidth, PFCC, QPTS trust,
 * QPDPM dscp->prio, DCBX_PARAM) are kept apart from the driver's cached state
 * (priv->dcbx, priv->dcbx_dp), as the driver keeps them.
 *
 * Variants: "" (firmware-managed DCBX, PCP trust, firmware DSCP table
 * dscp >> 3), "host" (DCBX already in host mode), "dscp" (the port trusts DSCP
 * at driver load: 64 APP entries from the firmware table); with "+" any of
 * "no-stall-detect" (a device without MLX5_CAP_DEBUG stall_detect: no PFC stall
 * prevention tunable, no pause storm counters) and "storm-name-blank" (a kernel whose
 * en_stats.c spelled "tx_pause_storm_warning_events " with a trailing space, @ 9ac669fc).
 *
 * PFC stall prevention (en_ethtool.c mlx5e_get_/mlx5e_set_pfc_prevention_tout(), port.c
 * mlx5_set_port_stall_watermark()): the PFCC critical and minor stall watermarks. The
 * factory critical watermark of 8000 ms is a firmware default that only NVIDIA community
 * material names (with minor the driver's own 85%); a stall of the receive path (control
 * "stall DEV on|off") makes the NIC send pause on its PFC priorities, one frame a
 * millisecond in this model, until the critical watermark: then it stops sending pause
 * until the stall ends (a critical watermark of 0 never stops it). The minor watermark
 * counts tx_pause_storm_warning_events, the critical one tx_pause_storm_error_events
 * (en_stats.c pport_pfc_stall_stats_desc: device_stall_minor/critical_watermark_cnt).
 * at driver load: 64 APP entries from the firmware table).
 *
 * With a debugfs root, mlx5_ib's congestion parameters
 * (drivers/infiniband/hw/mlx5/cong.c): DEBUGFS/mlx5/PCI/cc_params/NAME, mode 0600
 * (mlx5_ib_init_cong_debugfs()), the firmware's values (QUERY_CONG_PARAMS on every
 * read: get_param()). A write (set_param(): kstrtou32 base 0, no range check) is
 * masked to the firmware field's width by MLX5_SET, and writing np_cnp_prio also
 * writes cnp_prio_mode 0 (mlx5_ib_set_cc_param_mask_val()). The files are plain
 * files here: the model takes in what was written at its next tick (before every
 * request), in cong.c's field order when two knobs were written between two ticks.
 * There are no per-priority enables upstream: the firmware's NV ROCE_CC_PRIO_MASK
 * (default 255, DCQCN on every priority) is what runs, and nothing reads it back.
 */
#include <fcntl.h>
#include <sys/stat.h>

#include "common/util.h"
#include "drivers/host/sysfs.h"
#include "tests/nicmodel/nm_mlx5.h"

#define MAX_TC 7                        /* mlx5_max_tc(): 8 traffic classes */
#define MAX_BW_ALLOC 100                /* MLX5E_MAX_BW_ALLOC */
#define VENDOR_TC_GROUP 7               /* MLX5E_VENDOR_TC_GROUP_NUM */
#define LOWEST_PRIO_GROUP 0             /* MLX5E_LOWEST_PRIO_GROUP */
#define TRUST_PCP 1                     /* MLX5_QPTS_TRUST_PCP */
#define TRUST_DSCP 2                    /* MLX5_QPTS_TRUST_DSCP */
#define DEFAULT_CABLE_LEN 7             /* MLX5E_DEFAULT_CABLE_LEN */
#define MAX_CABLE_LENGTH 1000

/*
 * cc_params as mlx5_ib_dbg_cc_name[] names them (v5.7-v6.3: 20 names; the
 * rtt_resp_* pair of later kernels needs MLX5_CAP_ROCE(roce_cc_general)), with the
 * width of the firmware field (mlx5_ifc.h cong_control_r_roce_ecn_rp/np) and the
 * firmware default of an untouched ConnectX (mlxconfig q: ROCE_CC_*_P1 values;
 * np_cnp_prio_mode is not in that dump: 0, which makes CNP_802P_PRIO the one used).
 */
static const struct cc_param {
        const char *name;
        unsigned bits;
        uint32_t dflt;
} cc_params[] = {
        { "rp_clamp_tgt_rate", 1, 0 }, { "rp_clamp_tgt_rate_ati", 1, 1 }, { "rp_time_reset", 32, 300 },
        { "rp_byte_reset", 32, 32767 }, { "rp_threshold", 32, 1 }, { "rp_ai_rate", 32, 5 },
        { "rp_max_rate", 32, 0 }, { "rp_hai_rate", 32, 50 }, { "rp_min_dec_fac", 32, 50 },
        { "rp_min_rate", 32, 1 }, { "rp_rate_to_set_on_first_cnp", 32, 0 }, { "rp_dce_tcp_g", 32, 1019 },
        { "rp_dce_tcp_rtt", 32, 1 }, { "rp_rate_reduce_monitor_period", 32, 4 },
        { "rp_initial_alpha_value", 32, 1023 }, { "rp_gd", 32, 11 }, { "np_min_time_between_cnps", 32, 4 },
        { "np_cnp_dscp", 6, 48 }, { "np_cnp_prio", 3, 6 }, { "np_cnp_prio_mode", 1, 0 },
};
#define CC_N (sizeof(cc_params) / sizeof(cc_params[0]))
#define CC_PRIO 18                      /* np_cnp_prio */
#define CC_PRIO_MODE 19                 /* np_cnp_prio_mode */

struct mlx5 {
        /* firmware */
        uint8_t prio_tc[8];
        uint8_t tc_group[8];
        uint8_t tc_bw[8];
        uint8_t pfc_en;
        uint8_t trust_state;
        uint8_t dscp2prio[64];
        bool dcbx_host;                 /* DCBX_PARAM version_oper == HOST (else AUTO) */
        /* driver */
        uint8_t tc_tsa[8];              /* priv->dcbx.tc_tsa */
        uint8_t cap;                    /* priv->dcbx.cap */
        unsigned dscp_app_cnt;          /* priv->dcbx.dscp_app_cnt */
        uint32_t cable_len;
        /* PFC stall prevention: PFCC device_stall_critical/minor_watermark, the capability, a stall */
        bool stall_detect;              /* MLX5_CAP_PCAM_FEATURE(pfcc_mask) && MLX5_CAP_DEBUG(stall_detect) */
        bool storm_name_blank;          /* the old stats string with a trailing space */
        uint16_t stall_critical, stall_minor;
        bool stalled;
        uint64_t stall_since_ms;
        uint64_t warn_events, err_events;
        uint64_t tx_pause[8];           /* pause frames sent, per priority */
        /* firmware congestion parameters and their debugfs directory ("" without debugfs) */
        uint32_t cc[CC_N];
        char cc_dir[320];
        struct nm_mlx5_pb pb;           /* port receive buffers (nm_mlx5_buffer.c) */
};

static struct mlx5 *P(const struct nm_dev *d)
{
        return d->priv;
}

/* mlx5e_build_tc_group() */
static void build_tc_group(const struct ieee_ets *ets, uint8_t *tc_group)
{
        bool any_ets = false, ets_zero_bw = false;
        int strict_group = LOWEST_PRIO_GROUP;

        for (int i = 0; i <= MAX_TC; i++)
                if (ets->tc_tsa[i] == IEEE_8021QAZ_TSA_ETS) {
                        any_ets = true;
                        if (!ets->tc_tx_bw[i])
                                ets_zero_bw = true;
                }
        if (any_ets)
                strict_group++;
        if (ets_zero_bw)
                strict_group++;
        for (int i = 0; i <= MAX_TC; i++) {
                switch (ets->tc_tsa[i]) {
                case IEEE_8021QAZ_TSA_VENDOR: tc_group[i] = VENDOR_TC_GROUP; break;
                case IEEE_8021QAZ_TSA_STRICT: tc_group[i] = (uint8_t)strict_group++; break;
                case IEEE_8021QAZ_TSA_ETS:
                        tc_group[i] = LOWEST_PRIO_GROUP;
                        if (ets->tc_tx_bw[i] && ets_zero_bw)
                                tc_group[i] = LOWEST_PRIO_GROUP + 1;
                        break;
                default: break;         /* the driver leaves tc_group[i] as it was on its stack */
                }
        }
}

/* mlx5e_build_tc_tx_bw(): a strict or vendor TC gets 100%, the firmware's "no limit". */
static void build_tc_tx_bw(const struct ieee_ets *ets, uint8_t *tc_tx_bw)
{
        int zero_bw_share = 0, last_zero = -1, n_zero = 0;

        for (int i = 0; i <= MAX_TC; i++)
                if (ets->tc_tsa[i] == IEEE_8021QAZ_TSA_ETS && !ets->tc_tx_bw[i]) {
                        n_zero++;
                        last_zero = i;
                }
        if (n_zero)
                zero_bw_share = MAX_BW_ALLOC / n_zero;
        for (int i = 0; i <= MAX_TC; i++) {
                switch (ets->tc_tsa[i]) {
                case IEEE_8021QAZ_TSA_VENDOR:
                case IEEE_8021QAZ_TSA_STRICT: tc_tx_bw[i] = MAX_BW_ALLOC; break;
                case IEEE_8021QAZ_TSA_ETS:
                        tc_tx_bw[i] = ets->tc_tx_bw[i] ? ets->tc_tx_bw[i] : (uint8_t)zero_bw_share;
                        break;
                default: break;
                }
        }
        if (last_zero != -1)
                tc_tx_bw[last_zero] += MAX_BW_ALLOC % n_zero;
}

/* mlx5e_dcbnl_ieee_setets_core(): prio_tc, tc groups, bandwidth into firmware; the TSA cached. */
static void setets_core(struct mlx5 *p, const struct ieee_ets *ets)
{
        uint8_t group[8], bw[8];

        memcpy(group, p->tc_group, sizeof(group));
        memcpy(bw, p->tc_bw, sizeof(bw));
        build_tc_group(ets, group);
        build_tc_tx_bw(ets, bw);
        memcpy(p->prio_tc, ets->prio_tc, 8);
        memcpy(p->tc_group, group, 8);
        memcpy(p->tc_bw, bw, 8);
        memcpy(p->tc_tsa, ets->tc_tsa, 8);
}

/* mlx5e_dcbnl_ieee_getets(): reads firmware; a TC below 100% is reported ETS, group 7 vendor. */
static int mlx5_getets(struct nm *m, struct nm_dev *d, struct ieee_ets *ets)
{
        struct mlx5 *p = P(d);
        bool group6 = false, zero_bw_ets = false;

        ets->ets_cap = MAX_TC + 1;
        for (int i = 0; i < ets->ets_cap; i++) {
                ets->prio_tc[i] = p->prio_tc[i];
                ets->tc_tx_bw[i] = p->tc_bw[i];
                if (p->tc_bw[i] < MAX_BW_ALLOC && p->tc_group[i] == LOWEST_PRIO_GROUP + 1)
                        zero_bw_ets = true;
                if (p->tc_group[i] == VENDOR_TC_GROUP - 1)
                        group6 = true;
        }
        if (zero_bw_ets)
                for (int i = 0; i < ets->ets_cap; i++)
                        if (p->tc_group[i] == LOWEST_PRIO_GROUP)
                                ets->tc_tx_bw[i] = 0;
        for (int i = 0; i < ets->ets_cap; i++) {
                if (ets->tc_tx_bw[i] < MAX_BW_ALLOC)
                        p->tc_tsa[i] = IEEE_8021QAZ_TSA_ETS;
                else if (p->tc_group[i] == VENDOR_TC_GROUP && !group6)
                        p->tc_tsa[i] = IEEE_8021QAZ_TSA_VENDOR;
        }
        memcpy(ets->tc_tsa, p->tc_tsa, sizeof(ets->tc_tsa));
        return 0;
}

/* mlx5e_dbcnl_validate_ets() + mlx5e_dcbnl_ieee_setets() */
static int mlx5_setets(struct nm *m, struct nm_dev *d, struct ieee_ets *ets)
{
        bool have_ets = false;
        int sum = 0;

        for (int i = 0; i < 8; i++)
                if (ets->prio_tc[i] >= 8)
                        return -EINVAL;
        for (int i = 0; i < 8; i++)
                if (ets->tc_tsa[i] == IEEE_8021QAZ_TSA_ETS) {
                        have_ets = true;
                        sum += ets->tc_tx_bw[i];
                }
        if (have_ets && sum != 100)
                return -EINVAL;
        setets_core(P(d), ets);
        return 0;
}

/* mlx5e_dcbnl_ieee_getmaxrate(): no limit configured. */
static int mlx5_getmaxrate(struct nm *m, struct nm_dev *d, struct ieee_maxrate *r)
{
        memset(r->tc_maxrate, 0, sizeof(r->tc_maxrate));
        return 0;
}

/* mlx5e_dcbnl_ieee_getpfc() */
static int mlx5_getpfc(struct nm *m, struct nm_dev *d, struct ieee_pfc *pfc)
{
        pfc->pfc_cap = MAX_TC + 1;
        pfc->delay = (uint16_t)P(d)->cable_len;         /* MLX5_BUFFER_SUPPORTED */
        pfc->pfc_en = P(d)->pfc_en;
        return 0;
}

/*
 * mlx5e_dcbnl_ieee_setpfc(): a new pfc_en is written to PFCC and the port is
 * toggled (mlx5_toggle_port_link: PAOS down, then up). The SET returns at once;
 * carrier drops when the firmware's PORT_CHANGE event arrives, after the reply.
 * delay is the cable length in metres, taken when 1-999 and new, silently ignored
 * otherwise (MLX5E_MAX_CABLE_LENGTH), but stored whoever owns the buffers. In manual
 * buffer mode (SW_OWNED where the firmware is asked, never when it says UNKNOWN) both
 * recompute the lossless buffers; a refusal there puts the cable length back, not
 * the PFC. Elsewhere xoff stays where the last recompute left it until a setbuffer
 * that changes something recomputes it from the stored cable length.
 */
static int mlx5_setpfc(struct nm *m, struct nm_dev *d, struct ieee_pfc *pfc)
{
        struct mlx5 *p = P(d);
        uint32_t old_cable_len = p->cable_len, changed = 0;
        uint8_t curr_pfc_en = p->pfc_en;
        int ret = 0;

        if (pfc->pfc_en != p->pfc_en) {
                p->pfc_en = pfc->pfc_en;
                nm_flap(m, d, m->flap_delay_ms);
                changed |= NM_MLX5_BUFFER_PFC;
        }
        if (pfc->delay && pfc->delay < MAX_CABLE_LENGTH && pfc->delay != p->cable_len) {
                p->cable_len = pfc->delay;
                changed |= NM_MLX5_BUFFER_CABLE_LEN;
        }
        if (nm_mlx5_pb_recompute(&p->pb)) {     /* manual_buffer, or mlx5_query_port_buffer_ownership() SW_OWNED */
                struct nm_mlx5_port port = { .cable_len = p->cable_len, .fw_pfc_en = p->pfc_en };

                ret = nm_mlx5_pb_config(m, d, &p->pb, &port, changed,
                                        (changed & NM_MLX5_BUFFER_PFC) ? pfc->pfc_en : curr_pfc_en, NULL, NULL);
        }
        if (ret && (changed & NM_MLX5_BUFFER_CABLE_LEN))
                p->cable_len = old_cable_len;
        return ret;
}

/* mlx5e_dcbnl_getbuffer() (MLX5_BUFFER_SUPPORTED: PCAM has PBMC and PPTB). */
static int mlx5_getbuffer(struct nm *m, struct nm_dev *d, struct dcbnl_buffer *b)
{
        nm_mlx5_pb_get(&P(d)->pb, b);
        return 0;
}

static int mlx5_setbuffer(struct nm *m, struct nm_dev *d, struct dcbnl_buffer *b)
{
        struct mlx5 *p = P(d);
        struct nm_mlx5_port port = { .cable_len = p->cable_len, .fw_pfc_en = p->pfc_en };

        return nm_mlx5_pb_set(m, d, &p->pb, &port, b);
}

static uint8_t mlx5_getdcbx(struct nm *m, struct nm_dev *d)
{
        return P(d)->cap;               /* mlx5e_dcbnl_getdcbx() */
}

/* mlx5e_dcbnl_setdcbx(): 0 hands DCBX back to the firmware (AUTO); HOST takes it. */
static uint8_t mlx5_setdcbx(struct nm *m, struct nm_dev *d, uint8_t mode)
{
        struct mlx5 *p = P(d);

        if (mode & DCB_CAP_DCBX_LLD_MANAGED)
                return 1;
        if (!mode) {
                if (!p->dcbx_host)
                        return 0;
                p->dcbx_host = false;   /* mlx5e_dcbnl_set_dcbx_mode(AUTO) */
                p->cap &= (uint8_t)~DCB_CAP_DCBX_HOST;
                return 0;
        }
        if (!(mode & DCB_CAP_DCBX_HOST))
                return 1;
        p->dcbx_host = true;            /* mlx5e_dcbnl_switch_to_host_mode() */
        p->cap = mode;
        return 0;
}

/* mlx5e_dcbnl_ieee_setapp(): DSCP only; the first entry switches the port to DSCP trust; replaces in place. */
static int mlx5_setapp(struct nm *m, struct nm_dev *d, struct dcb_app *app)
{
        struct mlx5 *p = P(d);
        struct dcb_app temp;
        bool is_new;
        int err;

        if (app->selector != IEEE_8021QAZ_APP_SEL_DSCP || app->protocol >= 64)
                return -EINVAL;
        temp = (struct dcb_app){ .selector = IEEE_8021QAZ_APP_SEL_DSCP, .protocol = app->protocol,
                                 .priority = p->dscp2prio[app->protocol] };
        if (!p->dscp_app_cnt)
                p->trust_state = TRUST_DSCP;            /* mlx5e_set_trust_state() */
        if (app->priority != p->dscp2prio[app->protocol])
                p->dscp2prio[app->protocol] = app->priority;    /* mlx5e_set_dscp2prio() */
        is_new = nm_dcb_ieee_delapp(m, d, &temp) != 0;
        err = nm_dcb_ieee_setapp(m, d, app);
        if (err)
                return err;
        if (is_new)
                p->dscp_app_cnt++;
        return 0;
}

/* mlx5e_dcbnl_ieee_delapp(): the entry must match the firmware value; the value goes to 0; the last one -> PCP. */
static int mlx5_delapp(struct nm *m, struct nm_dev *d, struct dcb_app *app)
{
        struct mlx5 *p = P(d);
        int err;

        if (app->selector != IEEE_8021QAZ_APP_SEL_DSCP || app->protocol >= 64)
                return -EINVAL;
        if (!p->dscp_app_cnt)
                return -ENOENT;
        if (app->priority != p->dscp2prio[app->protocol])
                return -ENOENT;
        err = nm_dcb_ieee_delapp(m, d, app);
        if (err)
                return err;
        p->dscp2prio[app->protocol] = 0;
        p->dscp_app_cnt--;
        if (!p->dscp_app_cnt)
                p->trust_state = TRUST_PCP;
        return 0;
}

static int mlx5_change_mtu(struct nm *m, struct nm_dev *d, uint32_t mtu)
{
        return 0;                       /* mlx5e_change_mtu(): channels reopen, the link stays up */
}

/* ---- PFC stall prevention ---- */

#define PFC_PREVENTION_TOUT 3           /* ETHTOOL_PFC_PREVENTION_TOUT */
#define PREVEN_AUTO 0xffff              /* PFC_STORM_PREVENTION_AUTO */
#define PREVEN_AUTO_MSEC 100            /* MLX5E_PFC_PREVEN_AUTO_TOUT_MSEC */
#define PREVEN_MAX_MSEC 8000            /* MLX5E_PFC_PREVEN_TOUT_MAX_MSEC */
#define PREVEN_MIN_MSEC 80              /* MLX5E_PFC_PREVEN_TOUT_MIN_MSEC */
#define PREVEN_MINOR_PCT 85             /* MLX5E_PFC_PREVEN_MINOR_PRECENT */

/* mlx5e_get_tunable() -> mlx5e_get_pfc_prevention_tout(): the critical watermark as PFCC holds it. */
static int mlx5_get_tunable(struct nm *m, struct nm_dev *d, uint32_t id, uint16_t *v)
{
        if (id != PFC_PREVENTION_TOUT)
                return -EINVAL;
        if (!P(d)->stall_detect)
                return -EOPNOTSUPP;
        *v = P(d)->stall_critical;
        return 0;
}

/* mlx5e_set_pfc_prevention_tout(): auto is 100 ms; 80-8000 or 0; minor = max(80, 85% of critical). */
static int mlx5_set_tunable(struct nm *m, struct nm_dev *d, uint32_t id, uint16_t v)
{
        struct mlx5 *p = P(d);
        uint16_t critical = v == PREVEN_AUTO ? PREVEN_AUTO_MSEC : v;
        unsigned minor = critical * PREVEN_MINOR_PCT / 100;

        if (id != PFC_PREVENTION_TOUT)
                return -EINVAL;
        if (!p->stall_detect)
                return -EOPNOTSUPP;
        if (critical && (critical > PREVEN_MAX_MSEC || critical < PREVEN_MIN_MSEC)) {
                nm_logf(m, "%s: mlx5e_set_pfc_prevention_tout: pfc prevention tout not in range (%d-%d)", d->name,
                        PREVEN_MIN_MSEC, PREVEN_MAX_MSEC);
                return -EINVAL;
        }
        p->stall_critical = critical;
        p->stall_minor = (uint16_t)(minor > PREVEN_MIN_MSEC ? minor : PREVEN_MIN_MSEC); /* MLX5E_DEVICE_STALL_MINOR_WATERMARK */
        return 0;
}

/* How far a running stall got: pause sent until the critical watermark, events at each watermark. */
static void stall_now(const struct mlx5 *p, uint64_t now, uint64_t *ret_paused_ms, bool *ret_warn, bool *ret_err)
{
        uint64_t elapsed = p->stalled && now > p->stall_since_ms ? now - p->stall_since_ms : 0;

        *ret_warn = p->stalled && p->stall_critical && elapsed >= p->stall_minor;
        *ret_err = p->stalled && p->stall_critical && elapsed >= p->stall_critical;
        *ret_paused_ms = *ret_err ? p->stall_critical : elapsed;
}

static int mlx5_stall(struct nm *m, struct nm_dev *d, bool on)
{
        struct mlx5 *p = P(d);
        uint64_t paused;
        bool warn, err;

        if (on == p->stalled)
                return 0;
        if (!on) {
                stall_now(p, nm_now_ms(), &paused, &warn, &err);
                for (int i = 0; i < 8; i++)
                        if (p->pfc_en & (1u << i))
                                p->tx_pause[i] += paused;
                p->warn_events += warn;
                p->err_events += err;
        }
        p->stalled = on;
        p->stall_since_ms = nm_now_ms();
        return 0;
}

/*
 * ethtool -S (en_stats.c): per-priority pause of the PFC priorities (mlx5e_grp_per_prio_pfc: only
 * those with PFC on), the stall events.
 */
static unsigned mlx5_stats(struct nm *m, struct nm_dev *d, char (*names)[NM_GSTRING_LEN], uint64_t *vals, unsigned max)
{
        const struct mlx5 *p = P(d);
        uint64_t paused;
        bool warn, err;
        unsigned n = 0;

        stall_now(p, nm_now_ms(), &paused, &warn, &err);
        /* pport_per_prio_pfc_stats_desc, in its order; pause bursts from nm_pause.c */
        for (int i = 0; i < 8 && n + 5 <= max; i++) {
                uint64_t rf, rus, rt, tf, tus, tt;

                if (!(p->pfc_en & (1u << i)))
                        continue;
                nm_pause_now(d, false, (unsigned)i, &rf, &rus, &rt);
                nm_pause_now(d, true, (unsigned)i, &tf, &tus, &tt);
                snprintf(names[n], NM_GSTRING_LEN, "rx_prio%d_pause", i);
                vals[n++] = rf;
                snprintf(names[n], NM_GSTRING_LEN, "rx_prio%d_pause_duration", i);
                vals[n++] = rus;
                snprintf(names[n], NM_GSTRING_LEN, "tx_prio%d_pause", i);
                vals[n++] = p->tx_pause[i] + paused + tf;
                snprintf(names[n], NM_GSTRING_LEN, "tx_prio%d_pause_duration", i);
                vals[n++] = tus;
                snprintf(names[n], NM_GSTRING_LEN, "rx_prio%d_pause_transition", i);
                vals[n++] = rt;
        }
        if (p->stall_detect && n + 2 <= max) {
                snprintf(names[n], NM_GSTRING_LEN, "%s", p->storm_name_blank ? "tx_pause_storm_warning_events "
                                                                              : "tx_pause_storm_warning_events");
                vals[n++] = p->warn_events + warn;
                snprintf(names[n], NM_GSTRING_LEN, "tx_pause_storm_error_events");
                vals[n++] = p->err_events + err;
        }
        return n;
}

/* mlx5e_dcbnl_initialize() at driver load, then mlx5e_dcbnl_init_app(). */
static int mlx5_init(struct nm *m, struct nm_dev *d, const char *variants)
{
        struct mlx5 *p = P(d);
        struct ieee_ets ets = { .ets_cap = MAX_TC + 1 };
        char variant[16];

        snprintf(variant, sizeof(variant), "%.*s", (int)strcspn(variants, "+"), variants);
        for (const char *w = strchr(variants, '+'); w; w = strchr(w + 1, '+'))
                if (strncmp(w + 1, "no-stall-detect", 15) && strncmp(w + 1, "storm-name-blank", 16) &&
                    strncmp(w + 1, "fw-owner", 8) && strncmp(w + 1, "owner-unknown", 13) && strncmp(w + 1, "sbcam", 5))
                        return -EINVAL;
        if (*variant && !streq(variant, "host") && !streq(variant, "dscp"))
                return -EINVAL;
        p->stall_detect = !nm_variant_has(variants, "no-stall-detect");
        p->storm_name_blank = nm_variant_has(variants, "storm-name-blank");
        p->stall_critical = 8000;
        p->stall_minor = 8000 * PREVEN_MINOR_PCT / 100;
        d->min_mtu = 68;
        d->max_mtu = 9978;
        p->trust_state = streq(variant, "dscp") ? TRUST_DSCP : TRUST_PCP;
        for (unsigned i = 0; i < 64; i++)
                p->dscp2prio[i] = (uint8_t)(i >> 3);    /* the firmware's default QPDPM */
        p->dcbx_host = streq(variant, "host") || streq(variant, "dscp");
        p->cap = DCB_CAP_DCBX_VER_CEE | DCB_CAP_DCBX_VER_IEEE | (p->dcbx_host ? DCB_CAP_DCBX_HOST : 0);
        p->cable_len = DEFAULT_CABLE_LEN;
        /* "+fw-owner", "+owner-unknown": a kernel with 451d2849ea66 (nm_mlx5.h); "+sbcam": the cell from SBCAM */
        nm_mlx5_pb_init(&p->pb, nm_variant_has(variants, "fw-owner") ? NM_MLX5_OWNER_FW :
                                nm_variant_has(variants, "owner-unknown") ? NM_MLX5_OWNER_UNKNOWN : NM_MLX5_OWNER_FLAG,
                        nm_variant_has(variants, "sbcam") ? 256 : 128);
        /* mlx5e_ets_init(): every TC vendor at 100%, prio 0 on TC1 and prio 1 on TC0 */
        for (int i = 0; i < ets.ets_cap; i++) {
                ets.tc_tx_bw[i] = MAX_BW_ALLOC;
                ets.tc_tsa[i] = IEEE_8021QAZ_TSA_VENDOR;
                ets.prio_tc[i] = (uint8_t)i;
        }
        ets.prio_tc[0] = 1;
        ets.prio_tc[1] = 0;
        setets_core(p, &ets);
        /* mlx5e_dcbnl_dscp_app(INIT): in DSCP trust, one APP entry per code point from the firmware table */
        if (p->trust_state == TRUST_DSCP) {
                for (unsigned i = 0; i < 64; i++) {
                        struct dcb_app a = { IEEE_8021QAZ_APP_SEL_DSCP, p->dscp2prio[i], (uint16_t)i };

                        nm_dcb_ieee_setapp(m, d, &a);
                }
                p->dscp_app_cnt = 64;
        }
        return 0;
}

static void mlx5_dump(struct nm *m, const struct nm_dev *d, FILE *f)
{
        const struct mlx5 *p = P(d);

        fprintf(f, "  dcbx cap 0x%02x firmware %s\n", p->cap, p->dcbx_host ? "host" : "auto");
        fprintf(f, "  ets");
        nm_dump_u8s(f, "prio_tc", p->prio_tc, 8);
        nm_dump_u8s(f, "tc_group", p->tc_group, 8);
        nm_dump_u8s(f, "tc_bw", p->tc_bw, 8);
        nm_dump_u8s(f, "tc_tsa", p->tc_tsa, 8);
        fprintf(f, "\n  pfc en 0x%02x cable_len %u\n", p->pfc_en, p->cable_len);
        nm_mlx5_pb_dump(&p->pb, f);
        /* QPDPM only classifies while the port trusts DSCP (QPTS). */
        fprintf(f, "  trust %s dscp_app_cnt %u", p->trust_state == TRUST_DSCP ? "dscp" : "pcp", p->dscp_app_cnt);
        if (p->trust_state == TRUST_DSCP)
                nm_dump_u8s(f, "dscp2prio", p->dscp2prio, 64);
        fprintf(f, "\n");
        if (p->stall_detect)
                fprintf(f, "  pfcc stall critical %u minor %u\n", p->stall_critical, p->stall_minor);
        if (!p->cc_dir[0])
                return;
        fprintf(f, "  cc_params");
        for (unsigned i = 0; i < CC_N; i++)
                fprintf(f, " %s=%u", cc_params[i].name, p->cc[i]);
        fprintf(f, "\n");
}

/* ---- debugfs cc_params (cong.c) ---- */

/*
 * The model's own writes leave the file's mtime at CC_MTIME_MODEL, so that a write
 * of the same value by anyone else is seen too: debugfs calls
 * mlx5_ib_set_cc_params() for every write, whatever it holds.
 */
#define CC_MTIME_MODEL 1
static int cc_write(const struct mlx5 *p, unsigned i)
{
        char path[400], text[16];
        struct timespec t[2] = { { .tv_sec = CC_MTIME_MODEL }, { .tv_sec = CC_MTIME_MODEL } };
        int r;

        snprintf(path, sizeof(path), "%s/%s", p->cc_dir, cc_params[i].name);
        snprintf(text, sizeof(text), "%u\n", p->cc[i]);
        r = nm_write_file(path, text, 0600);
        if (r >= 0 && utimensat(AT_FDCWD, path, t, 0) < 0)
                r = -errno;
        return r;
}

/* mlx5_ib_init_cong_debugfs(): one directory per device, a 0600 file per parameter. */
static int mlx5_debugfs_create(struct nm *m, struct nm_dev *d)
{
        struct mlx5 *p = P(d);
        char pci[32];
        int r;

        nm_bdf(d, pci, sizeof(pci));
        snprintf(p->cc_dir, sizeof(p->cc_dir), "%s/mlx5/%s/cc_params", m->debugfs_root, pci);
        if ((r = nm_mkdirs(p->cc_dir, 0755)) < 0)
                return r;
        for (unsigned i = 0; i < CC_N; i++) {
                p->cc[i] = cc_params[i].dflt;
                if ((r = cc_write(p, i)) < 0)
                        return r;
        }
        return 0;
}

static uint32_t cc_mask(unsigned i, uint32_t v)
{
        return cc_params[i].bits >= 32 ? v : v & ((1u << cc_params[i].bits) - 1);   /* MLX5_SET */
}

/* What a knob's file says now: a write since the last tick, or the firmware's own value. */
static bool cc_written(const struct mlx5 *p, unsigned i, uint32_t *ret)
{
        char path[400], line[32] = "";
        unsigned long v;
        char *end;

        struct stat st;

        snprintf(path, sizeof(path), "%s/%s", p->cc_dir, cc_params[i].name);
        if (sysfs_read_line(path, line, sizeof(line)) < 0 || stat(path, &st) < 0)
                return false;
        v = strtoul(line, &end, 0);             /* kstrtou32(base 0) */
        if (end == line || v > UINT32_MAX || (v == p->cc[i] && st.st_mtim.tv_sec == CC_MTIME_MODEL))
                return false;
        *ret = (uint32_t)v;
        return true;
}

/*
 * set_param() for every file written since the last tick (a new value, or the same
 * one: its mtime says so), in field order; each then shows the firmware's value
 * (a file is never replaced while nobody wrote it).
 */
static void mlx5_files_tick(struct nm *m, struct nm_dev *d)
{
        struct mlx5 *p = P(d);
        bool show[CC_N] = { false };
        uint32_t v;

        if (!p->cc_dir[0])
                return;
        for (unsigned i = 0; i < CC_N; i++) {
                if (!cc_written(p, i, &v))
                        continue;
                p->cc[i] = cc_mask(i, v);
                show[i] = true;         /* the firmware's value, and the model's mtime again */
                if (i == CC_PRIO && p->cc[CC_PRIO_MODE]) {
                        p->cc[CC_PRIO_MODE] = 0;        /* MLX5_IB_DBG_CC_NP_CNP_PRIO: cnp_prio_mode 0 */
                        show[CC_PRIO_MODE] = true;
                }
                nm_logf(m, "%s: cc_params %s = %u (written %u)", d->name, cc_params[i].name, p->cc[i], v);
        }
        for (unsigned i = 0; i < CC_N; i++)
                if (show[i])
                        (void)cc_write(p, i);
}

/*
 * How long the link is down after mlx5_toggle_port_link(): PAOS admin down and up
 * (port.c), so the link partner sees loss of signal and both ends run
 * auto-negotiation and link training again. No vendor document gives a figure (the
 * NVIDIA SAI "Fast Link-Up" proposal says only that reusing the last equalization
 * "can significantly reduce time of the Link-Up process"): these are conservative
 * model values, seconds at 100G and above, longer for PAM4 lanes.
 */
static unsigned mlx5_link_up_ms(const struct nm_dev *d)
{
        return d->speed_mbps <= 25000 ? 2000 : d->speed_mbps <= 50000 ? 2500 : d->speed_mbps <= 100000 ? 3000 :
               d->speed_mbps <= 200000 ? 4000 : 5000;
}

/* infiniband/hw/mlx5/counters.c */
static const char *const hw_counters[] = { "out_of_buffer", "np_cnp_sent", "np_ecn_marked_roce_packets",
                                           "rp_cnp_handled", "rp_cnp_ignored", NULL };

const struct nm_driver nm_mlx5 = {
        .name = "mlx5",
        .kernel_driver = "mlx5_core",
        .rdma_prefix = "mlx5_",
        .hw_counters = hw_counters,
        .priv_size = sizeof(struct mlx5),
        .init = mlx5_init,
        .has_dcbnl = true,
        .getets = mlx5_getets,
        .setets = mlx5_setets,
        .getmaxrate = mlx5_getmaxrate,
        .getpfc = mlx5_getpfc,
        .setpfc = mlx5_setpfc,
        .getbuffer = mlx5_getbuffer,
        .setbuffer = mlx5_setbuffer,
        .setapp = mlx5_setapp,
        .delapp = mlx5_delapp,
        .getdcbx = mlx5_getdcbx,
        .setdcbx = mlx5_setdcbx,
        .change_mtu = mlx5_change_mtu,
        .dump = mlx5_dump,
        .get_tunable = mlx5_get_tunable,
        .set_tunable = mlx5_set_tunable,
        .stats = mlx5_stats,
        .stall = mlx5_stall,
        .link_up_ms = mlx5_link_up_ms,
        .debugfs_create = mlx5_debugfs_create,
        .files_tick = mlx5_files_tick,
};
