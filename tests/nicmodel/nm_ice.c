/* SPDX-License-Identifier: MIT */
/*
 * Intel E810 (ice) as its dcbnl_rtnl_ops see it, from
 * drivers/net/ethernet/intel/ice/ice_dcb_nl.c and ice_dcb_lib.c. The driver
 * keeps two configurations: local_dcbx_cfg (what the port runs) and
 * desired_dcbx_cfg (where dcbnl edits are staged); ice_pf_dcb_cfg() commits
 * desired to local and answers ICE_DCB_HW_CHG_RST (0) for a change, which the
 * callers follow with ice_dcbnl_devreset() (dev_close/dev_open: a link flap
 * before the SET returns), or ICE_DCB_NO_HW_CHG (1) for none.
 *
 * Variants: "" (the firmware LLDP agent is off: DCBX in software, host mode,
 * ice_dcb_sw_dflt_cfg() with willing ETS and the FCoE APP entry), "fw-lldp"
 * (the firmware's LLDP agent owns DCBX: every dcbnl SET is refused),
 * "cee-dscp" (DCBX host + CEE while the port is in DSCP mode with DSCP 26 on
 * priority 3: the state v5.16-rc's setdcbx left, which set dcbx_cap before its
 * DSCP check; from v5.16 no setdcbx leaves it), "switchdev" (the Tx scheduler
 * tree exported to devlink-rate, as ice_repr_set_tx_topology() does for VF
 * representors in switchdev mode: a root node and a VF leaf, nothing set),
 * "custom-tx" (the same with the VF's tx_max set through devlink-rate:
 * ice_enable_custom_tx() set is_custom_tx_enabled).
 *
 * Refusals the kernel sources add after the driver's first DCB code, modelled:
 * the fixed DSCP check of ice_dcbnl_setdcbx() ("ice: Fix problems with DSCP QoS
 * implementation", v5.16: in DSCP mode every DCBX change is refused and dcbx_cap
 * kept) with setets' `if (!bwcfg) tcbwtable[0] = 100`; "ice: enforce no DCB
 * config changing when in bond" (v6.6: a port of a bond refuses every setter,
 * "DCB changes not allowed when in a bond"); "ice: Prevent DCB coexistence with
 * Custom Tx scheduler" (v6.2: ice_pf_dcb_cfg() answers -EBUSY for a
 * configuration of more than one TC once is_custom_tx_enabled is set, and tears
 * the devlink-rate tree down otherwise).
 * The model follows the driver with desired_dcbx_cfg initialised from
 * local_dcbx_cfg by ice_dcb_sw_dflt_cfg() (upstream fix "init desired_dcbx_cfg
 * from local_dcbx_cfg").
 */
#include "common/util.h"
#include "tests/nicmodel/nicmodel.h"

#define HW_CHG_RST 0                    /* ICE_DCB_HW_CHG_RST */
#define NO_HW_CHG 1                     /* ICE_DCB_NO_HW_CHG */
#define HW_CHG 2                        /* ICE_DCB_HW_CHG */
#define MAX_APPS 64                     /* ICE_DCBX_MAX_APPS */
#define DSCP_NUM_VAL 64                 /* ICE_DSCP_NUM_VAL */
#define BYTES_PER_DSCP_VAL 8            /* ICE_BYTES_PER_DSCP_VAL */
#define TSA_ETS 2                       /* ICE_IEEE_TSA_ETS */
#define MODE_VLAN 0                     /* ICE_QOS_MODE_VLAN */
#define MODE_DSCP 1                     /* ICE_QOS_MODE_DSCP */
#define APP_SEL_ETHTYPE 1
#define ETH_P_FCOE 0x8906
#define MAXTC 8                         /* hw->func_caps.common_cap.maxtc */

struct ice_ets_cfg {
        uint8_t willing, cbs, maxtcs;
        uint8_t prio_table[8], tcbwtable[8], tsatable[8];
};

struct ice_app {
        uint16_t prot_id;
        uint8_t priority, selector;
};

/* struct ice_dcbx_cfg, laid out without padding: the driver compares it with memcmp(). */
struct ice_cfg {
        uint64_t dscp_mapped;
        uint32_t numapps;
        struct ice_app app[MAX_APPS];
        struct ice_ets_cfg etscfg, etsrec;
        uint8_t pfc_willing, pfc_mbc, pfccap, pfcena;
        uint8_t pfc_mode;
        uint8_t dcbx_mode;
        uint8_t dscp_map[DSCP_NUM_VAL];
};

_Static_assert(sizeof(struct ice_cfg) == 8 + 4 + 4 * MAX_APPS + 2 * 27 + 6 + DSCP_NUM_VAL,
               "struct ice_cfg has padding");

struct ice {
        struct ice_cfg local, desired;
        uint8_t dcbx_cap;               /* pf->dcbx_cap */
        bool fw_lldp_agent;             /* ICE_FLAG_FW_LLDP_AGENT */
        bool is_sw_lldp;
        bool custom_tx;                 /* port_info->is_custom_tx_enabled */
        unsigned n_rates;               /* the devlink-rate objects exported (ice_traverse_tx_tree()) */
        struct nm_rate rates[2];
};

static struct ice *P(const struct nm_dev *d)
{
        return d->priv;
}

/* ice_dcbnl_devreset(): dev_close() + dev_open(): carrier is off before the SET returns. */
static void devreset(struct nm *m, struct nm_dev *d)
{
        nm_flap(m, d, 0);
}

/* ice_dcb_get_num_tc(): contiguous TCs used by the priority table (1 if not contiguous). */
static unsigned num_tc(const struct ice_cfg *c)
{
        unsigned used = 0, n = 0;
        bool gap = false;

        for (int i = 0; i < 8; i++)
                used |= 1u << c->etscfg.prio_table[i];
        for (int i = 0; i < 8; i++) {
                if (used & (1u << i)) {
                        if (gap)
                                return 1;
                        n++;
                } else {
                        gap = true;
                }
        }
        return n ? n : 1;
}

/* ice_dcb_bwchk() */
static int bwchk(struct ice_cfg *c)
{
        unsigned n = num_tc(c), total = 0;

        if (n == 1) {
                c->etscfg.tcbwtable[0] = 100;
                return 0;
        }
        for (unsigned i = 0; i < n; i++)
                total += c->etscfg.tcbwtable[i];
        if (!total)
                c->etscfg.tcbwtable[0] = 100;
        else if (total != 100)
                return -EINVAL;
        return 0;
}

/*
 * ice_pf_dcb_cfg(): commit new to local; 0 (HW_CHG_RST) after a change, NO_HW_CHG when equal.
 * More than one TC: -EBUSY under the custom Tx scheduler, else the devlink-rate tree is
 * torn down (ice_tear_down_devlink_rate_tree()) - both before the no-change shortcut.
 */
static int pf_dcb_cfg(struct nm *m, struct nm_dev *d, struct ice_cfg *new)
{
        struct ice *p = P(d);
        int ret = p->is_sw_lldp ? NO_HW_CHG : HW_CHG_RST;

        if (num_tc(new) > 1) {
                if (p->custom_tx) {
                        nm_logf(m, "%s: Custom Tx scheduler feature enabled, can't configure DCB", d->name);
                        return -EBUSY;
                }
                p->n_rates = 0;
        }
        if (!memcmp(new, &p->local, sizeof(*new)))
                return ret;
        if (bwchk(new))
                return -EINVAL;
        if (nm_fault(d, NM_OP_FWCFG) < 0) {
                nm_logf(m, "%s: Set DCB Config failed", d->name);     /* ice_set_dcb_cfg(): local kept */
                return -EIO;
        }
        p->local = *new;
        p->local.etsrec = p->local.etscfg;
        new->etsrec = p->local.etscfg;
        return 0;                       /* ice_set_dcb_cfg() and ice_query_port_ets() succeeded */
}

/* ice_dcb_sw_dflt_cfg(): local zeroed, then the software default committed. */
static int sw_dflt_cfg(struct nm *m, struct nm_dev *d, bool ets_willing)
{
        struct ice *p = P(d);
        struct ice_cfg c;
        int r;

        memset(&c, 0, sizeof(c));
        memset(&p->local, 0, sizeof(p->local));
        c.etscfg.willing = ets_willing;
        c.etscfg.maxtcs = MAXTC;
        c.etscfg.tcbwtable[0] = 100;
        c.etscfg.tsatable[0] = TSA_ETS;
        c.etsrec = c.etscfg;
        c.etsrec.willing = 0;
        c.pfc_willing = 1;
        c.pfccap = MAXTC;
        c.numapps = 1;
        c.app[0] = (struct ice_app){ .selector = APP_SEL_ETHTYPE, .priority = 3, .prot_id = ETH_P_FCOE };
        r = pf_dcb_cfg(m, d, &c);
        if (r)
                return r;
        p->desired = p->local;
        return 0;
}

/* ice_dcbnl_getets(); reco_prio_tc copies etscfg's table, as the driver does. */
static int ice_getets(struct nm *m, struct nm_dev *d, struct ieee_ets *ets)
{
        const struct ice_cfg *c = &P(d)->local;

        ets->willing = c->etscfg.willing;
        ets->ets_cap = c->etscfg.maxtcs;
        ets->cbs = c->etscfg.cbs;
        memcpy(ets->tc_tx_bw, c->etscfg.tcbwtable, 8);
        memcpy(ets->tc_rx_bw, c->etscfg.tcbwtable, 8);
        memcpy(ets->tc_tsa, c->etscfg.tsatable, 8);
        memcpy(ets->prio_tc, c->etscfg.prio_table, 8);
        memcpy(ets->tc_reco_bw, c->etsrec.tcbwtable, 8);
        memcpy(ets->tc_reco_tsa, c->etsrec.tsatable, 8);
        memcpy(ets->reco_prio_tc, c->etscfg.prio_table, 8);
        return 0;
}

static bool sw_ieee(const struct ice *p)
{
        return !(p->dcbx_cap & DCB_CAP_DCBX_LLD_MANAGED) && (p->dcbx_cap & DCB_CAP_DCBX_VER_IEEE);
}

/* `if (pf->lag && pf->lag->bonded)` in every setter (v6.6). */
static bool bonded(struct nm *m, const struct nm_dev *d)
{
        if (!nm_in_bond(m, d))
                return false;
        nm_logf(m, "%s: DCB changes not allowed when in a bond", d->name);
        return true;
}

/* ice_dcbnl_setets(): in DSCP mode the priority table cannot change; NO_HW_CHG is answered as 0. */
static int ice_setets(struct nm *m, struct nm_dev *d, struct ieee_ets *ets)
{
        struct ice *p = P(d);
        struct ice_cfg *c = &p->desired;
        unsigned bwcfg = 0, bwrec = 0;
        int err;

        if (!sw_ieee(p))
                return -EINVAL;
        if (bonded(m, d))
                return -EINVAL;
        c->etscfg.willing = ets->willing;
        c->etscfg.cbs = ets->cbs;
        for (int i = 0; i < 8; i++) {
                c->etscfg.tcbwtable[i] = ets->tc_tx_bw[i];
                bwcfg += ets->tc_tx_bw[i];
                c->etscfg.tsatable[i] = ets->tc_tsa[i];
                if (c->pfc_mode == MODE_VLAN) {
                        c->etscfg.prio_table[i] = ets->prio_tc[i];
                        c->etsrec.prio_table[i] = ets->reco_prio_tc[i];
                }
                c->etsrec.tcbwtable[i] = ets->tc_reco_bw[i];
                bwrec += ets->tc_reco_bw[i];
                c->etsrec.tsatable[i] = ets->tc_reco_tsa[i];
        }
        if (bwchk(c))
                return -EINVAL;
        c->etscfg.maxtcs = MAXTC;
        if (!bwcfg)
                c->etscfg.tcbwtable[0] = 100;
        if (!bwrec)
                c->etsrec.tcbwtable[0] = 100;
        err = pf_dcb_cfg(m, d, c);
        if (err == HW_CHG_RST)
                devreset(m, d);
        if (err == NO_HW_CHG)
                err = HW_CHG_RST;
        return err;
}

/* ice_dcbnl_getpfc() */
static int ice_getpfc(struct nm *m, struct nm_dev *d, struct ieee_pfc *pfc)
{
        const struct ice_cfg *c = &P(d)->local;

        pfc->pfc_cap = c->pfccap;
        pfc->pfc_en = c->pfcena;
        pfc->mbc = c->pfc_mbc;
        pfc->delay = 0;                 /* PRTDCB_GENC PFCLDA */
        return 0;
}

/* ice_dcbnl_setpfc() */
static int ice_setpfc(struct nm *m, struct nm_dev *d, struct ieee_pfc *pfc)
{
        struct ice *p = P(d);
        int err;

        if (!sw_ieee(p))
                return -EINVAL;
        if (bonded(m, d))
                return -EINVAL;
        p->desired.pfccap = pfc->pfc_cap ? pfc->pfc_cap : MAXTC;
        p->desired.pfcena = pfc->pfc_en;
        err = pf_dcb_cfg(m, d, &p->desired);
        if (err == HW_CHG_RST)
                devreset(m, d);
        if (err == NO_HW_CHG)
                err = HW_CHG_RST;
        return err;
}

static uint8_t ice_getdcbx(struct nm *m, struct nm_dev *d)
{
        return P(d)->dcbx_cap;          /* ice_dcbnl_getdcbx() */
}

/*
 * ice_dcbnl_setdcbx() as fixed in v5.16: never with the firmware agent, never CEE+IEEE,
 * HOST required; not in a bond (v6.6); in DSCP mode no change at all ("DSCP
 * configuration is not DCBx negotiated"), dcbx_cap kept.
 */
static uint8_t ice_setdcbx(struct nm *m, struct nm_dev *d, uint8_t mode)
{
        struct ice *p = P(d);

        if (p->fw_lldp_agent)
                return NO_HW_CHG;
        if ((mode & DCB_CAP_DCBX_LLD_MANAGED) ||
            ((mode & DCB_CAP_DCBX_VER_IEEE) && (mode & DCB_CAP_DCBX_VER_CEE)) || !(mode & DCB_CAP_DCBX_HOST))
                return NO_HW_CHG;
        if (mode == p->dcbx_cap)
                return NO_HW_CHG;
        if (bonded(m, d))
                return NO_HW_CHG;
        if (p->local.pfc_mode == MODE_DSCP)
                return NO_HW_CHG;
        p->dcbx_cap = mode;
        p->local.dcbx_mode = mode & DCB_CAP_DCBX_VER_CEE ? 1 : 2;      /* ICE_DCBX_MODE_CEE, _IEEE */
        nm_logf(m, "%s: DCBx mode = 0x%x", d->name, mode);
        return HW_CHG_RST;
}

/* The switch to L3 DSCP mode in ice_dcbnl_setapp(): default DSCP QoS values, ETS reset. */
static void enter_dscp_mode(struct ice_cfg *c)
{
        c->pfc_mode = MODE_DSCP;
        c->etscfg.willing = 0;
        c->pfccap = MAXTC;
        c->pfc_willing = 0;
        for (int i = 0; i < MAXTC; i++)
                for (int j = 0; j < BYTES_PER_DSCP_VAL; j++)
                        c->dscp_map[i * MAXTC + j] = (uint8_t)i;
        c->etscfg.tcbwtable[0] = 100;
        c->etscfg.tsatable[0] = TSA_ETS;
        c->etscfg.prio_table[0] = 0;
        for (int i = 1; i < MAXTC; i++) {
                c->etscfg.tcbwtable[i] = 0;
                c->etscfg.tsatable[i] = TSA_ETS;
                c->etscfg.prio_table[i] = (uint8_t)i;
        }
}

/*
 * ice_dcbnl_setapp(): DSCP only; a DSCP that already has a user mapping is refused
 * ("already user mapped") after the core list took it (it is deleted again); the
 * first one switches the port to DSCP mode. Answers 0 after a change (and a
 * devreset), else NO_HW_CHG (1) - also when ice_pf_dcb_cfg() failed.
 */
static int ice_setapp(struct nm *m, struct nm_dev *d, struct dcb_app *app)
{
        struct ice *p = P(d);
        struct ice_cfg *c = &p->desired;
        int ret;

        if (app->selector != IEEE_8021QAZ_APP_SEL_DSCP)
                return -EINVAL;
        if (p->dcbx_cap & DCB_CAP_DCBX_LLD_MANAGED) {
                nm_logf(m, "%s: can't do DSCP QoS when FW DCB agent active", d->name);
                return -EINVAL;
        }
        if (!(p->dcbx_cap & DCB_CAP_DCBX_VER_IEEE))
                return -EINVAL;
        if (app->protocol >= DSCP_NUM_VAL)
                return -EINVAL;
        if (bonded(m, d))
                return -EINVAL;
        if (app->priority >= MAXTC)
                return -EINVAL;
        ret = nm_dcb_ieee_setapp(m, d, app);
        if (ret)
                return ret;
        if (c->dscp_mapped & (1ull << app->protocol)) {
                nm_logf(m, "%s: DSCP value 0x%04X already user mapped", d->name, app->protocol);
                nm_dcb_ieee_delapp(m, d, app);
                return -EINVAL;
        }
        c->dscp_mapped |= 1ull << app->protocol;
        if (p->local.pfc_mode == MODE_VLAN)
                enter_dscp_mode(c);
        c->dscp_map[app->protocol] = app->priority;
        if (c->numapps >= MAX_APPS) {
                /* new_cfg->app[new_cfg->numapps++] has no bound: the real driver writes past app[]. */
                m->n_corrupt++;
                nm_logf(m, "%s: ice_dcbnl_setapp writes app[%u], past ICE_DCBX_MAX_APPS (%d)",
                        d->name, c->numapps, MAX_APPS);
        } else {
                c->app[c->numapps++] = (struct ice_app){ .prot_id = app->protocol, .priority = app->priority,
                                                         .selector = app->selector };
        }
        ret = pf_dcb_cfg(m, d, c);
        if (ret == HW_CHG_RST)
                devreset(m, d);
        else
                ret = NO_HW_CHG;
        return ret;
}

/*
 * ice_dcbnl_delapp(): the core entry, then the driver's copy; a DSCP value goes
 * back to its default (dscp % 8); deleting the last DSCP mapping switches the
 * port back to VLAN mode with ice_dcb_sw_dflt_cfg() (ETS and PFC to defaults).
 * A non-DSCP entry answers ICE_DCB_HW_CHG (2); "no change" is answered as 2 too.
 */
static int ice_delapp(struct nm *m, struct nm_dev *d, struct dcb_app *app)
{
        struct ice *p = P(d);
        struct ice_cfg *c = &p->desired;
        const struct ice_cfg *old = &p->local;
        unsigned i;
        int ret;

        if (p->dcbx_cap & DCB_CAP_DCBX_LLD_MANAGED)
                return -EINVAL;
        if (bonded(m, d))
                return -EINVAL;
        ret = nm_dcb_ieee_delapp(m, d, app);
        if (ret)
                return ret;
        for (i = 0; i < c->numapps; i++)
                if (app->selector == c->app[i].selector && app->protocol == c->app[i].prot_id &&
                    app->priority == c->app[i].priority) {
                        c->app[i] = (struct ice_app){ 0 };
                        break;
                }
        if (i == c->numapps)
                return -EINVAL;
        c->numapps--;
        for (unsigned j = i; j < c->numapps; j++)
                c->app[j] = old->app[j + 1];
        if (app->selector != IEEE_8021QAZ_APP_SEL_DSCP)
                return HW_CHG;
        c->dscp_mapped &= ~(1ull << app->protocol);
        c->dscp_map[app->protocol] = (uint8_t)(app->protocol % BYTES_PER_DSCP_VAL);
        if (!c->dscp_mapped && c->pfc_mode == MODE_DSCP) {
                c->pfc_mode = MODE_VLAN;
                nm_logf(m, "%s: Switched QoS to L2 VLAN mode", d->name);
                ret = sw_dflt_cfg(m, d, true);
        } else {
                ret = pf_dcb_cfg(m, d, c);
        }
        if (ret == HW_CHG_RST)
                devreset(m, d);
        if (ret == NO_HW_CHG)
                ret = HW_CHG;
        return ret;
}

/* ice_change_mtu(): ice_down() + ice_up() on a running netdev. */
static int ice_change_mtu(struct nm *m, struct nm_dev *d, uint32_t mtu)
{
        nm_flap(m, d, 0);
        return 0;
}

/* The exported tree of ice_devlink_rate_init_tx_topology(): a root node and one VF's leaf. */
static void export_tx_tree(struct ice *p, uint64_t vf_tx_max)
{
        p->n_rates = 2;
        p->rates[0] = (struct nm_rate){ .node = true, .name = "node_1" };
        p->rates[1] = (struct nm_rate){ .port_index = 2, .parent = "node_1", .tx_max = vf_tx_max };
}

/* The state v5.16-rc left: DSCP mode (DSCP 26 on priority 3), then setdcbx(HOST | CEE) took effect. */
static void cee_in_dscp_mode(struct nm *m, struct nm_dev *d)
{
        struct ice *p = P(d);
        struct ice_cfg *c = &p->local;
        struct dcb_app app = { .selector = IEEE_8021QAZ_APP_SEL_DSCP, .protocol = 26, .priority = 3 };

        enter_dscp_mode(c);
        c->dscp_mapped |= 1ull << app.protocol;
        c->dscp_map[app.protocol] = app.priority;
        c->app[c->numapps++] = (struct ice_app){ .prot_id = app.protocol, .priority = app.priority,
                                                 .selector = app.selector };
        c->etsrec = c->etscfg;
        c->dcbx_mode = 1;               /* ICE_DCBX_MODE_CEE */
        p->desired = *c;
        nm_dcb_ieee_setapp(m, d, &app);
        p->dcbx_cap = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_CEE;
}

/* ice_init_pf_dcb() */
static int ice_init(struct nm *m, struct nm_dev *d, const char *variant)
{
        static const char *const variants[] = { "", "fw-lldp", "cee-dscp", "switchdev", "custom-tx" };
        struct ice *p = P(d);
        bool known = false;

        for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); i++)
                known |= streq(variant, variants[i]);
        if (!known)
                return -EINVAL;
        d->min_mtu = 68;
        d->max_mtu = 9702;              /* ICE_MAX_MTU */
        p->fw_lldp_agent = streq(variant, "fw-lldp");
        p->is_sw_lldp = !p->fw_lldp_agent;
        sw_dflt_cfg(m, d, true);
        /* ice_dcb_get_mode(): HOST in software mode, LLD_MANAGED with the firmware agent */
        p->dcbx_cap = (p->fw_lldp_agent ? DCB_CAP_DCBX_LLD_MANAGED : DCB_CAP_DCBX_HOST) | DCB_CAP_DCBX_VER_IEEE;
        if (streq(variant, "cee-dscp"))
                cee_in_dscp_mode(m, d);
        if (streq(variant, "switchdev") || streq(variant, "custom-tx"))
                export_tx_tree(p, streq(variant, "custom-tx") ? 125000000 : 0);    /* 1 Gbit/s */
        p->custom_tx = streq(variant, "custom-tx");
        return 0;
}

static unsigned ice_rates(struct nm *m, const struct nm_dev *d, struct nm_rate *v, unsigned max)
{
        const struct ice *p = P(d);
        unsigned n = p->n_rates < max ? p->n_rates : max;

        memcpy(v, p->rates, n * sizeof(*v));
        return n;
}

static void dump_ets(FILE *f, const char *label, const struct ice_ets_cfg *e)
{
        fprintf(f, "  %s willing %u cbs %u maxtcs %u", label, e->willing, e->cbs, e->maxtcs);
        nm_dump_u8s(f, "prio", e->prio_table, 8);
        nm_dump_u8s(f, "tcbw", e->tcbwtable, 8);
        nm_dump_u8s(f, "tsa", e->tsatable, 8);
        fprintf(f, "\n");
}

static void ice_dump(struct nm *m, const struct nm_dev *d, FILE *f)
{
        const struct ice *p = P(d);
        const struct ice_cfg *c = &p->local;

        fprintf(f, "  dcbx cap 0x%02x lldp %s mode %s\n", p->dcbx_cap, p->fw_lldp_agent ? "firmware" : "software",
                c->pfc_mode == MODE_DSCP ? "dscp" : "vlan");
        dump_ets(f, "etscfg", &c->etscfg);
        dump_ets(f, "etsrec", &c->etsrec);
        fprintf(f, "  pfc willing %u cap %u en 0x%02x mbc %u\n", c->pfc_willing, c->pfccap, c->pfcena, c->pfc_mbc);
        fprintf(f, "  cfg-apps");
        for (unsigned i = 0; i < c->numapps && i < MAX_APPS; i++)
                fprintf(f, " %u:%u:%u", c->app[i].selector, c->app[i].prot_id, c->app[i].priority);
        fprintf(f, "\n");
        if (c->pfc_mode == MODE_DSCP) {
                fprintf(f, "  dscp_mapped 0x%016llx", (unsigned long long)c->dscp_mapped);
                nm_dump_u8s(f, "dscp_map", c->dscp_map, DSCP_NUM_VAL);
                fprintf(f, "\n");
        }
        if (memcmp(&p->desired, &p->local, sizeof(p->local)))
                fprintf(f, "  desired_dcbx_cfg differs from local_dcbx_cfg\n");
        if (p->n_rates || p->custom_tx)
                fprintf(f, "  devlink-rate objects %u custom_tx %s\n", p->n_rates, p->custom_tx ? "on" : "off");
}

/*
 * ice's flaps are a software bounce: ice_dcbnl_devreset() is dev_close() + dev_open()
 * and a new MTU ice_down() + ice_up(); the PHY stays up unless the private flag
 * link-down-on-close is set (ice_down()/ice_stop(): ice_force_phys_link_state()), so
 * carrier comes back as soon as the VSI is up again and the firmware reports the
 * link (ice_up_complete()). A fraction of a second in the model; no figure is
 * published.
 */
static unsigned ice_link_up_ms(const struct nm_dev *d)
{
        return 200;
}

/* infiniband/hw/irdma/verbs.c irdma_hw_stat_names */
static const char *const hw_counters[] = { "RxECNMrkd", "cnpHandled", "cnpIgnored", "cnpSent", NULL };

/*
 * ethtool -S (ice_ethtool.c ice_get_strings(), ICE_MAX_USER_PRIORITY): the per-priority
 * flow control counters of the port, every priority, XON and XOFF frames sent and
 * received (GLPRT_PXONTXC/PXOFFTXC, PXONRXC/PXOFFRXC); no pause duration. A burst
 * (nm_pause.c) counts its XOFF frames and the one XON that ends it.
 */
static unsigned ice_stats(struct nm *m, struct nm_dev *d, char (*names)[NM_GSTRING_LEN], uint64_t *vals,
                          unsigned max)
{
        unsigned n = 0;

        for (unsigned tx = 2; tx-- > 0;)
                for (unsigned i = 0; i < 8 && n + 2 <= max; i++) {
                        uint64_t f, us, t;

                        nm_pause_now(d, tx, i, &f, &us, &t);
                        snprintf(names[n], NM_GSTRING_LEN, "%s_priority_%u_xon.nic", tx ? "tx" : "rx", i);
                        vals[n++] = t;
                        snprintf(names[n], NM_GSTRING_LEN, "%s_priority_%u_xoff.nic", tx ? "tx" : "rx", i);
                        vals[n++] = f;
                }
        return n;
}

const struct nm_driver nm_ice = {
        .name = "ice",
        .kernel_driver = "ice",
        .rdma_prefix = "irdma",
        .hw_counters = hw_counters,
        .priv_size = sizeof(struct ice),
        .init = ice_init,
        .has_dcbnl = true,
        .getets = ice_getets,
        .setets = ice_setets,
        .getpfc = ice_getpfc,
        .setpfc = ice_setpfc,
        .setapp = ice_setapp,
        .delapp = ice_delapp,
        .getdcbx = ice_getdcbx,
        .setdcbx = ice_setdcbx,
        .change_mtu = ice_change_mtu,
        .dump = ice_dump,
        .link_up_ms = ice_link_up_ms,
        .rates = ice_rates,
        .stats = ice_stats,
};
