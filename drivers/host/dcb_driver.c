/* SPDX-License-Identifier: MIT */
/*
 * The "dcb" driver: trust, dscp_to_priority, pfc and ets of a host interface
 * over dcbnl (IEEE 802.1Qaz). Every change is a read-modify-write of the whole
 * kernel struct; every SET's in-band result is checked; DCBX is put in host +
 * IEEE mode first; a running lldpad is refused; a PFC change that flaps the link
 * is followed by a bounded wait for carrier before anything reads back.
 */
#include <linux/rtnetlink.h>

#include "dcb_app.h"
#include "dcb_driver.h"
#include "dcb_lldpad.h"
#include "dcb_nl.h"
#include "link_rtnl.h"

#define DCB_FIELDS (STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_DSCP_MAP) | \
                    STATE_BIT(STATE_FIELD_PFC) | STATE_BIT(STATE_FIELD_ETS))
#define DCBX_WANTED (DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE)

const char *dcb_driver_proc_root = "/proc";

static const char *kdrv(const struct target *t)
{
        return t->kernel_driver[0] ? t->kernel_driver : "unknown";
}

/* The request's handle (or an own one, *own) and the IEEE configuration; unsupported = the clear message. */
static int dcb_open_get(struct target *t, struct nl **ret_nl, struct nl **own, struct dcb_nl_ieee *cur,
                        struct errbuf *e)
{
        int r;

        r = driver_rtnl(t, ret_nl, own, e);
        if (r < 0)
                return link_rtnl_where(t, e, r);
        r = dcb_nl_get(*ret_nl, t->name, cur, e);
        if (r == -EOPNOTSUPP) {
                char why[sizeof(e->msg)];

                snprintf(why, sizeof(why), "%s", e->msg);
                return errbuf_set(e, EOPNOTSUPP, NULL,
                                  "interface '%s' (driver %s) does not support DCB (%s)",
                                  t->name, kdrv(t), why);
        }
        return r < 0 ? link_rtnl_where(t, e, r) : 0;
}

static int dcb_caps(struct target *t, uint32_t *ret_fields, struct errbuf *e)
{
        _cleanup_nl_ struct nl *own = NULL;
        struct dcb_nl_ieee cur;
        struct nl *nl;
        uint32_t f;
        int r;

        r = dcb_open_get(t, &nl, &own, &cur, e);
        if (r == -EOPNOTSUPP) {
                *ret_fields = 0;
                return 0;
        }
        if (r < 0)
                return r;
        f = STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_DSCP_MAP);
        if (cur.has_pfc && cur.pfc.pfc_cap > 0)
                f |= STATE_BIT(STATE_FIELD_PFC);
        if (cur.has_ets && cur.ets.ets_cap > 0)
                f |= STATE_BIT(STATE_FIELD_ETS);
        *ret_fields = f;
        return 0;
}

static uint8_t tsa_from_kernel(uint8_t tsa)
{
        return tsa == IEEE_8021QAZ_TSA_STRICT ? STATE_TSA_STRICT :
               tsa == IEEE_8021QAZ_TSA_ETS ? STATE_TSA_ETS : STATE_TSA_VENDOR;
}

static void ets_to_state(const struct ieee_ets *k, struct state_ets *s)
{
        for (unsigned i = 0; i < STATE_TC_COUNT; i++) {
                s->prio_tc[i] = k->prio_tc[i];
                s->tc_bw_pct[i] = k->tc_tx_bw[i];
                s->tc_tsa[i] = tsa_from_kernel(k->tc_tsa[i]);
        }
}

/* Fill `fields` from a GET; fields the device did not report stay absent. */
static void to_state(const struct dcb_nl_ieee *cur, uint32_t fields, struct state *ret)
{
        if ((fields & STATE_BIT(STATE_FIELD_PFC)) && cur->has_pfc) {
                ret->pfc_enabled = cur->pfc.pfc_en;
                ret->present |= STATE_BIT(STATE_FIELD_PFC);
        }
        if ((fields & STATE_BIT(STATE_FIELD_ETS)) && cur->has_ets) {
                ets_to_state(&cur->ets, &ret->ets);
                ret->present |= STATE_BIT(STATE_FIELD_ETS);
        }
        if (fields & (STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_DSCP_MAP))) {
                struct state s;

                dcb_app_read(cur, &s);
                if (fields & STATE_BIT(STATE_FIELD_TRUST)) {
                        ret->trust = s.trust;
                        ret->present |= STATE_BIT(STATE_FIELD_TRUST);
                }
                if (fields & STATE_BIT(STATE_FIELD_DSCP_MAP)) {
                        memcpy(ret->dscp_prio, s.dscp_prio, sizeof(ret->dscp_prio));
                        ret->present |= STATE_BIT(STATE_FIELD_DSCP_MAP);
                }
        }
}

static int dcb_read(struct target *t, uint32_t fields, struct state *ret, struct errbuf *e)
{
        _cleanup_nl_ struct nl *own = NULL;
        struct dcb_nl_ieee cur;
        struct nl *nl;
        int r;

        if (!(fields & DCB_FIELDS))
                return 0;
        r = dcb_open_get(t, &nl, &own, &cur, e);
        if (r < 0)
                return r;
        to_state(&cur, fields, ret);
        return 0;
}

/* ---- apply ---- */

static bool wants(const struct state *d, uint32_t fields, enum state_field f)
{
        return (fields & STATE_BIT(f)) && state_has(d, f);
}

static int check_lldpad(struct target *t, struct errbuf *e)
{
        pid_t pid = 0;

        if (dcb_lldpad_find(dcb_driver_proc_root, &pid) <= 0)
                return 0;
        return errbuf_set(e, EBUSY, NULL,
                          "interface '%s': lldpad (pid %d) is running and owns DCB; "
                          "stop it or leave DCB fields out of the policy; nothing was changed",
                          t->name, (int)pid);
}

static int ensure_host_ieee(struct nl *nl, struct target *t, const struct dcb_nl_ieee *cur,
                            struct errbuf *e)
{
        if (!cur->has_dcbx || (cur->dcbx & DCBX_WANTED) == DCBX_WANTED)
                return 0;
        return dcb_nl_set_dcbx(nl, t->name, DCBX_WANTED, e);
}

static int ets_from_state(const struct state_ets *s, struct ieee_ets *k, struct errbuf *e)
{
        for (unsigned i = 0; i < STATE_TC_COUNT; i++) {
                if (s->tc_tsa[i] == STATE_TSA_VENDOR)
                        return errbuf_set(e, EINVAL, NULL, "ets: tc %u: tsa 'vendor' cannot be set", i);
                k->prio_tc[i] = s->prio_tc[i];
                k->tc_tx_bw[i] = s->tc_bw_pct[i];
                k->tc_tsa[i] = s->tc_tsa[i] == STATE_TSA_ETS ? IEEE_8021QAZ_TSA_ETS : IEEE_8021QAZ_TSA_STRICT;
        }
        k->willing = 0;
        return 0;
}

static int apply_ets(struct nl *nl, struct target *t, const struct dcb_nl_ieee *cur,
                     const struct state *d, struct errbuf *e)
{
        struct ieee_ets ets = cur->ets;
        struct state_ets live;
        int r;

        ets_to_state(&cur->ets, &live);
        if (!memcmp(&live, &d->ets, sizeof(live)) && cur->ets.willing == 0)
                return 0;
        r = ets_from_state(&d->ets, &ets, e);
        return r < 0 ? r : dcb_nl_set_ets(nl, t->name, &ets, e);
}

static int apply_pfc(struct nl *nl, struct target *t, const struct dcb_nl_ieee *cur,
                     const struct state *d, struct errbuf *e)
{
        struct ieee_pfc pfc = cur->pfc;
        struct link_info l;
        int r;

        if (cur->pfc.pfc_en == d->pfc_enabled)
                return 0;
        r = link_rtnl_get(nl, t->ifindex, t->name, &l, e);
        if (r < 0)
                return r;
        pfc.pfc_en = d->pfc_enabled;
        r = dcb_nl_set_pfc(nl, t->name, &pfc, e);
        if (r < 0 || !(l.flags & IFF_LOWER_UP))
                return r;
        /* mlx5 toggles the port link on a PFC change: wait for carrier before reading back. */
        return link_rtnl_wait_carrier(nl, l.ifindex, t->env ? t->env->settle_ms : 0, e);
}

/* Add missing entries, re-read, delete stale ones: never an empty table in between. */
static int apply_apps(struct nl *nl, struct target *t, const struct dcb_nl_ieee *cur,
                      const struct state *d, uint32_t fields, struct errbuf *e)
{
        uint8_t map[STATE_DSCP_COUNT];
        struct dcb_app apps[STATE_DSCP_COUNT];
        struct dcb_nl_ieee now;
        unsigned n;
        int r;

        r = dcb_app_target(d, fields, cur, map, e);
        if (r < 0)
                return r;
        n = dcb_app_missing(cur, map, apps, ARRAY_SIZE(apps));
        if (n && (r = dcb_nl_apps(nl, t->name, DCB_CMD_IEEE_SET, apps, n, e)) < 0)
                return r;
        r = dcb_nl_get(nl, t->name, &now, e);
        if (r < 0)
                return r;
        n = dcb_app_stale(&now, map, apps, ARRAY_SIZE(apps));
        return n ? dcb_nl_apps(nl, t->name, DCB_CMD_IEEE_DEL, apps, n, e) : 0;
}

/* What apply would refuse: a running lldpad; a trust mode the DSCP APP table cannot express with the desired map. */
static int dcb_check(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        _cleanup_nl_ struct nl *own = NULL;
        const struct state *d = &c->desired[0];
        uint32_t fields = c->fields & (STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_DSCP_MAP));
        uint8_t map[STATE_DSCP_COUNT];
        struct dcb_nl_ieee cur;
        struct nl *nl;
        int r;

        if (!(c->fields & DCB_FIELDS))
                return 0;
        r = check_lldpad(t, e);
        if (r < 0 || !(fields & d->present))
                return r;
        r = dcb_open_get(t, &nl, &own, &cur, e);
        if (r >= 0)
                r = dcb_app_target(d, fields, &cur, map, e);
        if (r < 0 && !e->where[0])
                link_rtnl_where(t, e, r);
        if (r < 0)
                errbuf_suffix(e, "; nothing was changed");
        return r;
}

static int dcb_apply(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        _cleanup_nl_ struct nl *own = NULL;
        const struct state *d = &c->desired[0];
        uint32_t fields = c->delta[0] & DCB_FIELDS & d->present;
        struct dcb_nl_ieee cur;
        struct nl *nl;
        int r;

        if (!fields)
                return 0;
        r = check_lldpad(t, e);
        if (r < 0)
                return r;
        /* Every SET is a read-modify-write of the kernel's whole struct: read it once more. */
        r = dcb_open_get(t, &nl, &own, &cur, e);
        if (r < 0)
                return r;
        r = ensure_host_ieee(nl, t, &cur, e);
        if (r >= 0 && wants(d, fields, STATE_FIELD_ETS))
                r = cur.has_ets ? apply_ets(nl, t, &cur, d, e) :
                    errbuf_set(e, EOPNOTSUPP, NULL, "the device reports no ets configuration");
        if (r >= 0 && wants(d, fields, STATE_FIELD_PFC))
                r = cur.has_pfc ? apply_pfc(nl, t, &cur, d, e) :
                    errbuf_set(e, EOPNOTSUPP, NULL, "the device reports no pfc configuration");
        if (r >= 0 && (wants(d, fields, STATE_FIELD_TRUST) || wants(d, fields, STATE_FIELD_DSCP_MAP)))
                r = apply_apps(nl, t, &cur, d, fields, e);
        return r < 0 ? link_rtnl_where(t, e, r) : 0;
}

const struct driver_ops dcb_driver = {
        .name = "dcb",
        .kind = TARGET_INTERFACE,
        .fields = DCB_FIELDS,
        .caps = dcb_caps,
        .check = dcb_check,
        .read = dcb_read,
        .apply = dcb_apply,
};
