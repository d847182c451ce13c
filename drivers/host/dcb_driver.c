/* SPDX-License-Identifier: MIT */
/*
 * The "dcb" driver: trust, dscp_to_priority, pfc and ets of a host interface
 * over dcbnl (IEEE 802.1Qaz).
 *
 *   - Every change is a read-modify-write of the whole kernel struct; every SET's
 *     in-band result is checked (1 and 2 are ice's success codes: read back).
 *   - A policy puts DCBX in host + IEEE mode first; a running lldpad is refused;
 *     a port whose DCBX the firmware's LLDP agent owns is refused clearly.
 *   - Order: APP table (and trust table), then ETS, then PFC, re-reading between
 *     them - entering or leaving DSCP mode resets ice's ETS and PFC
 *     (ice_dcbnl_setapp, ice_dcbnl_delapp -> ice_dcb_sw_dflt_cfg).
 *   - After a change the link may flap (mlx5 PFC, ice devreset, bnxt TC count):
 *     the carrier edge and the RDMA ports are waited for (link.h).
 *   - A snapshot (state.dcb present) is restored exactly: its APP entries, its
 *     trust table, its raw TSA values (vendor included), its ETS willing bit and,
 *     last, its DCBX mode.
 */
#include <linux/rtnetlink.h>

#include "drivers/host/dcb_app.h"
#include "drivers/host/dcb_driver.h"
#include "drivers/host/dcb_lldpad.h"
#include "drivers/host/dcb_nl.h"
#include "drivers/host/dcb_refuse.h"
#include "drivers/host/host_io.h"
#include "drivers/host/link.h"

#define DCB_FIELDS (STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_DSCP_MAP) | \
                    STATE_BIT(STATE_FIELD_PFC) | STATE_BIT(STATE_FIELD_ETS))
#define APP_FIELDS (STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_DSCP_MAP))
#define DCBX_WANTED (DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE)
#define APP_ROUNDS 8

const char *dcb_driver_proc_root = "/proc";

static const char *kdrv(const struct target *t)
{
        return t->kernel_driver[0] ? t->kernel_driver : "unknown";
}

/*
 * A request of many interfaces asks every link of the namespace at once, the first
 * time one is asked for (its capability probes), unless the namespace has far more
 * links than the request has interfaces. 0 when that was not done.
 */
static int prefetch(struct target *t, struct nl *nl, struct errbuf *e)
{
        struct driver_io *io = t->io;
        struct host_io *h = host_io_find(io);
        _cleanup_free_ char (*names)[16] = NULL;
        _cleanup_free_ bool *software = NULL;
        const struct link_info *l;
        unsigned n = 0;
        int r;

        if (!h || h->dcb || io->n_targets[TARGET_INTERFACE] < 2 || nl != h->rtnl)
                return 0;
        r = link_cache_links(io, nl, &l, &n, e);
        if (r < 0 || n > 2 * io->n_targets[TARGET_INTERFACE] + 8)
                return r;
        names = calloc(n ? n : 1, sizeof(*names));
        software = calloc(n ? n : 1, sizeof(*software));
        if (!names || !software)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        for (unsigned i = 0; i < n; i++) {
                strcopy(names[i], sizeof(names[i]), l[i].name);
                software[i] = link_cache_software(io, &l[i]);
        }
        return dcb_cache_fill(nl, (const char (*)[16])names, software, n, &h->dcb, e);
}

/* dcb_nl_get(), answered from the request's batch when it can. */
static int get_ieee(struct target *t, struct nl *nl, struct dcb_nl_ieee *cur, struct errbuf *e)
{
        struct errbuf pe = { 0 };

        /* A batch that failed as a whole leaves each interface to ask on its own. */
        if (prefetch(t, nl, &pe) >= 0 && host_io_find(t->io)) {
                int r = dcb_cache_get(host_io_find(t->io)->dcb, nl, t->name, cur, e);

                if (r <= 0)
                        return r;
        }
        return dcb_nl_get(nl, t->name, cur, e);
}

/* The request's handle (or an own one, *own) and the IEEE configuration; unsupported = the clear message. */
int dcb_open_get(struct target *t, struct nl **ret_nl, struct nl **own, struct dcb_nl_ieee *cur,
                        struct errbuf *e)
{
        int r;

        r = driver_rtnl(t, ret_nl, own, e);
        if (r < 0)
                return link_rtnl_where(t, e, r);
        r = get_ieee(t, *ret_nl, cur, e);
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

        /* Not dcb_open_get(): a device without DCB is no error here, its message would be thrown away. */
        r = driver_rtnl(t, &nl, &own, e);
        if (r >= 0)
                r = get_ieee(t, nl, &cur, e);
        if (r == -EOPNOTSUPP) {
                *ret_fields = 0;
                return 0;
        }
        if (r < 0)
                return link_rtnl_where(t, e, r);
        f = APP_FIELDS;
        if (cur.has_pfc && cur.pfc.pfc_cap > 0)
                f |= STATE_BIT(STATE_FIELD_PFC);
        if (cur.has_ets && cur.ets.ets_cap > 0)
                f |= STATE_BIT(STATE_FIELD_ETS);
        *ret_fields = f;
        return 0;
}

/* ---- kernel <-> state ---- */

/* IEEE 802.1Qaz TSA codes; any other value a driver reports is taken as vendor. */
static uint8_t tsa_from_kernel(uint8_t tsa)
{
        switch (tsa) {
        case IEEE_8021QAZ_TSA_STRICT: return STATE_TSA_STRICT;
        case IEEE_8021QAZ_TSA_CB_SHAPER: return STATE_TSA_CBS;
        case IEEE_8021QAZ_TSA_ETS: return STATE_TSA_ETS;
        default: return STATE_TSA_VENDOR;
        }
}

static uint8_t tsa_to_kernel(uint8_t tsa)
{
        switch (tsa) {
        case STATE_TSA_STRICT: return IEEE_8021QAZ_TSA_STRICT;
        case STATE_TSA_CBS: return IEEE_8021QAZ_TSA_CB_SHAPER;
        case STATE_TSA_ETS: return IEEE_8021QAZ_TSA_ETS;
        default: return IEEE_8021QAZ_TSA_VENDOR;
        }
}

static void ets_to_state(const struct ieee_ets *k, struct state_ets *s)
{
        for (unsigned i = 0; i < STATE_TC_COUNT; i++) {
                s->prio_tc[i] = k->prio_tc[i];
                s->tc_bw_pct[i] = k->tc_tx_bw[i];
                s->tc_tsa[i] = tsa_from_kernel(k->tc_tsa[i]);
        }
        s->willing = k->willing;
}

/* Fill `fields` from a GET; fields the device did not report stay absent. The device detail comes along. */
static void to_state(const struct target *t, const struct dcb_nl_ieee *cur, uint32_t fields, struct state *ret)
{
        if ((fields & STATE_BIT(STATE_FIELD_PFC)) && cur->has_pfc) {
                ret->pfc_enabled = cur->pfc.pfc_en;
                ret->present |= STATE_BIT(STATE_FIELD_PFC);
        }
        if ((fields & STATE_BIT(STATE_FIELD_ETS)) && cur->has_ets) {
                ets_to_state(&cur->ets, &ret->ets);
                ret->present |= STATE_BIT(STATE_FIELD_ETS);
        }
        if (fields & APP_FIELDS) {
                struct state s;

                state_init(&s);
                dcb_app_read(cur, dcb_quirks_for(t->kernel_driver), &s);
                if (fields & STATE_BIT(STATE_FIELD_TRUST)) {
                        ret->trust = s.trust;
                        ret->present |= STATE_BIT(STATE_FIELD_TRUST);
                }
                if (fields & STATE_BIT(STATE_FIELD_DSCP_MAP)) {
                        memcpy(ret->dscp_prio, s.dscp_prio, sizeof(ret->dscp_prio));
                        ret->present |= STATE_BIT(STATE_FIELD_DSCP_MAP);
                }
                ret->dcb = s.dcb;
        }
        ret->dcb.present = true;
        ret->dcb.has_dcbx = cur->has_dcbx;
        ret->dcb.dcbx = cur->dcbx;
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
        to_state(t, &cur, fields, ret);
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

/* Host + IEEE DCBX before any DCB write; a firmware LLDP agent that owns DCBX is named. */
static int ensure_host_ieee(struct nl *nl, struct target *t, const struct dcb_nl_ieee *cur, struct errbuf *e)
{
        int r;

        if (!cur->has_dcbx || (cur->dcbx & DCBX_WANTED) == DCBX_WANTED)
                return 0;
        if (cur->dcbx & DCB_CAP_DCBX_LLD_MANAGED)
                return errbuf_set(e, EBUSY, NULL,
                                  "interface '%s' (driver %s): DCBX is managed by the NIC firmware's LLDP agent "
                                  "(dcbx 0x%02x); hand DCBX to the host first (ice: ethtool --set-priv-flags %s "
                                  "fw-lldp-agent off)", t->name, kdrv(t), cur->dcbx, t->name);
        r = dcb_nl_set_dcbx(nl, t->name, DCBX_WANTED, e);
        if (r < 0)
                errbuf_prefix(e, "switching DCBX from 0x%02x to host + IEEE (0x%02x)", cur->dcbx, DCBX_WANTED);
        return r;
}

/* The snapshot's DCBX mode, last. A mode without HOST is the firmware's: give DCBX back with 0. */
static int restore_dcbx(struct nl *nl, struct target *t, const struct state *snap, struct errbuf *e)
{
        uint8_t want = snap->dcb.dcbx, now = 0;
        int r = dcb_nl_get_dcbx(nl, t->name, &now, e);

        if (r < 0 || now == want)
                return r;
        if (want & DCB_CAP_DCBX_HOST) {
                r = dcb_nl_set_dcbx(nl, t->name, want, e);
        } else {
                /* mlx5e_dcbnl_setdcbx(): the version bits are kept from the last host mode set */
                (void)dcb_nl_set_dcbx(nl, t->name, want | DCB_CAP_DCBX_HOST, e);
                r = dcb_nl_set_dcbx(nl, t->name, 0, e);
        }
        if (r >= 0)
                r = dcb_nl_get_dcbx(nl, t->name, &now, e);
        if (r >= 0 && now != want)
                r = errbuf_set(e, EIO, NULL, "dcbx mode is 0x%02x after the restore, the snapshot has 0x%02x", now, want);
        return r;
}

static void ets_from_state(const struct state *d, const struct ieee_ets *cur, struct ieee_ets *k)
{
        bool snapshot = d->dcb.present;

        *k = *cur;
        for (unsigned i = 0; i < STATE_TC_COUNT; i++) {
                k->prio_tc[i] = d->ets.prio_tc[i];
                k->tc_tsa[i] = tsa_to_kernel(d->ets.tc_tsa[i]);
                /* a policy's strict class has no share; a snapshot's bandwidth is put back as read */
                k->tc_tx_bw[i] = snapshot || d->ets.tc_tsa[i] == STATE_TSA_ETS ? d->ets.tc_bw_pct[i] : 0;
        }
        k->willing = d->ets.willing;
}

static int apply_ets(struct nl *nl, struct target *t, const struct dcb_nl_ieee *cur,
                     const struct state *d, bool *changed, struct errbuf *e)
{
        struct ieee_ets ets;
        struct state_ets live;

        ets_to_state(&cur->ets, &live);
        if (state_ets_equal(&d->ets, &live))
                return 0;
        ets_from_state(d, &cur->ets, &ets);
        *changed = true;
        return dcb_nl_set_ets(nl, t->name, &ets, e);
}

static int apply_pfc(struct nl *nl, struct target *t, const struct dcb_nl_ieee *cur,
                     const struct state *d, bool *changed, struct errbuf *e)
{
        struct ieee_pfc pfc = cur->pfc;

        if (cur->pfc.pfc_en == d->pfc_enabled)
                return 0;
        pfc.pfc_en = d->pfc_enabled;
        *changed = true;
        return dcb_nl_set_pfc(nl, t->name, &pfc, e);
}

static bool trust_differs(const struct dcb_nl_ieee *cur, const struct dcb_app_target *tg)
{
        return tg->set_trust && (cur->n_trust != tg->n_trust || memcmp(cur->trust, tg->trust, tg->n_trust));
}

/* One round: every planned request in order; a positive in-band result ends it (re-read). */
static int app_round(struct nl *nl, struct target *t, const struct dcb_nl_ieee *cur, const uint8_t *map,
                     const struct dcb_quirks *q, struct errbuf *e)
{
        _cleanup_free_ struct dcb_app_step *steps = calloc(DCB_APP_STEPS_MAX, sizeof(*steps));
        unsigned n;

        if (!steps)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        n = dcb_app_plan(cur, map, q, steps, DCB_APP_STEPS_MAX);
        for (unsigned i = 0; i < n; i++) {
                int r = dcb_nl_apps(nl, t->name, steps[i].cmd, steps[i].apps, steps[i].n, e);

                if (r != 0)
                        return r;
        }
        return 0;
}

/* The APP table to its target, re-reading after every round until nothing differs. */
static int apply_apps(struct nl *nl, struct target *t, struct dcb_nl_ieee *cur, const struct state *d,
                      uint32_t fields, bool *changed, struct errbuf *e)
{
        const struct dcb_quirks *q = dcb_quirks_for(t->kernel_driver);
        struct dcb_app_target tg;
        unsigned last = 0;
        int r;

        r = dcb_app_target(d, fields, cur, q, &tg, e);
        for (unsigned round = 0; r >= 0; round++) {
                unsigned left = dcb_app_distance(cur, tg.map);
                char what[512];

                if (!left)
                        break;
                if (round >= APP_ROUNDS || (round && left >= last)) {
                        dcb_app_describe(cur, tg.map, what, sizeof(what));
                        return errbuf_set(e, EIO, NULL, "dscp_to_priority: the driver did not take %u code "
                                          "point(s): %s", left, what);
                }
                last = left;
                *changed = true;
                r = app_round(nl, t, cur, tg.map, q, e);
                if (r >= 0)
                        r = dcb_nl_get(nl, t->name, cur, e);
        }
        if (r >= 0 && trust_differs(cur, &tg)) {
                *changed = true;
                r = dcb_nl_set_trust(nl, t->name, tg.trust, tg.n_trust, e);
                if (r >= 0)
                        r = dcb_nl_get(nl, t->name, cur, e);
        }
        return r;
}

/* What this apply will write (no write at all: no DCBX switch, no wait). */
static bool needs_write(const struct target *t, const struct dcb_nl_ieee *cur, const struct state *d,
                        uint32_t fields)
{
        struct dcb_app_target tg;
        struct errbuf ignore;
        struct state_ets live;

        if (fields & APP_FIELDS) {
                if (dcb_app_target(d, fields, cur, dcb_quirks_for(t->kernel_driver), &tg, &ignore) < 0)
                        return true;    /* apply will say why */
                if (dcb_app_distance(cur, tg.map) || trust_differs(cur, &tg))
                        return true;
        }
        if (wants(d, fields, STATE_FIELD_ETS) && cur->has_ets) {
                ets_to_state(&cur->ets, &live);
                if (!state_ets_equal(&d->ets, &live))
                        return true;
        }
        return wants(d, fields, STATE_FIELD_PFC) && cur->has_pfc && cur->pfc.pfc_en != d->pfc_enabled;
}

/* Append one part's failure to e as "PART: message"; *first keeps the first errno. */
static void note(struct errbuf *e, int *first, int r, const char *part, const struct errbuf *pe)
{
        size_t len = strlen(e->msg);

        if (r >= 0)
                return;
        if (!*first)
                *first = r;
        snprintf(e->msg + len, sizeof(e->msg) - len, "%s%s: %s", len ? "; " : "", part, pe->msg);
}

/*
 * APP table, ETS, PFC in that order, re-reading between them. A restore
 * (best_effort) goes on after a part fails and reports every failed part; an
 * apply stops at the first (the transaction restores).
 */
static int apply_fields(struct nl *nl, struct target *t, struct dcb_nl_ieee *cur, const struct state *d,
                        uint32_t fields, bool best_effort, bool *changed, struct errbuf *e)
{
        struct errbuf pe = { 0 };
        int first = 0, r;

        errbuf_clear(e);
        if (fields & APP_FIELDS) {
                r = apply_apps(nl, t, cur, d, fields, changed, &pe);
                note(e, &first, r, wants(d, fields, STATE_FIELD_DSCP_MAP) ? "dscp_to_priority" : "trust", &pe);
                if (r < 0 && (!best_effort || dcb_nl_get(nl, t->name, cur, &pe) < 0))
                        return first;
        }
        if (wants(d, fields, STATE_FIELD_ETS)) {
                r = cur->has_ets ? apply_ets(nl, t, cur, d, changed, &pe) :
                    errbuf_set(&pe, EOPNOTSUPP, NULL, "the device reports no ets configuration");
                note(e, &first, r, "ets", &pe);
                if (r < 0 && !best_effort)
                        return first;
                if ((r = dcb_nl_get(nl, t->name, cur, &pe)) < 0) {
                        note(e, &first, r, "ets", &pe);
                        return first;
                }
        }
        if (wants(d, fields, STATE_FIELD_PFC)) {
                r = cur->has_pfc ? apply_pfc(nl, t, cur, d, changed, &pe) :
                    errbuf_set(&pe, EOPNOTSUPP, NULL, "the device reports no pfc configuration");
                note(e, &first, r, "pfc", &pe);
        }
        return first;
}

static int dcb_change(struct target *t, const struct state *d, uint32_t fields, bool best_effort,
                      struct errbuf *e)
{
        _cleanup_nl_ struct nl *own = NULL;
        struct dcb_nl_ieee cur;
        struct link_wait w;
        struct nl *nl;
        bool changed = false;
        int r;

        fields &= DCB_FIELDS & d->present;
        if (!fields)
                return 0;
        r = check_lldpad(t, e);
        if (r < 0)
                return r;
        /* Every SET is a read-modify-write of the kernel's whole struct: read it once more. */
        r = dcb_open_get(t, &nl, &own, &cur, e);
        if (r < 0)
                return r;
        if (needs_write(t, &cur, d, fields)) {
                r = ensure_host_ieee(nl, t, &cur, e);
                if (r >= 0)
                        r = dcb_nl_get(nl, t->name, &cur, e);
                if (r >= 0)
                        r = link_wait_begin(nl, t, &w, e);
                if (r >= 0)
                        r = apply_fields(nl, t, &cur, d, fields, best_effort, &changed, e);
                /* the link may be flapping now: let it come back before anything reads or measures */
                if (changed) {
                        struct errbuf e2 = { 0 };
                        int k = link_wait_end(nl, t, &w, r < 0 ? &e2 : e);

                        if (r >= 0)
                                r = k;
                }
        }
        if ((r >= 0 || best_effort) && d->dcb.present && d->dcb.has_dcbx) {
                struct errbuf pe = { 0 };
                int k = restore_dcbx(nl, t, d, r < 0 ? &pe : e);

                if (k < 0 && r < 0)
                        note(e, &(int){ 0 }, k, "dcbx", &pe);
                if (r >= 0)
                        r = k;
        }
        return r < 0 ? link_rtnl_where(t, e, r) : 0;
}

/* What the apply would do, for the drivers' own refusals (dcb_refuse.h); tg NULL: the APP table stays. */
static void refuse_plan(const struct dcb_nl_ieee *cur, const struct state *d, uint32_t fields,
                        const struct dcb_app_target *tg, struct dcb_refuse_plan *p)
{
        memset(p, 0, sizeof(*p));
        p->set_dcbx = cur->has_dcbx && (cur->dcbx & DCBX_WANTED) != DCBX_WANTED;
        for (unsigned i = 0; tg && i < STATE_DSCP_COUNT; i++)
                p->dscp_after |= tg->map[i] != STATE_DSCP_UNMAPPED;
        for (unsigned i = 0; !tg && i < cur->n_apps; i++)
                p->dscp_after |= cur->apps[i].selector == IEEE_8021QAZ_APP_SEL_DSCP;
        memcpy(p->prio_tc_after, wants(d, fields, STATE_FIELD_ETS) ? d->ets.prio_tc : cur->ets.prio_tc, 8);
        if (wants(d, fields, STATE_FIELD_PFC) && cur->has_pfc)
                p->pfc_gain = d->pfc_enabled & (uint8_t)~cur->pfc.pfc_en;
}

/*
 * What apply would refuse, before anything is touched: a running lldpad, a DCBX the
 * NIC firmware's LLDP agent owns, a trust mode the DSCP APP table cannot express
 * with the desired map, and what a driver refuses in its own state (dcb_refuse.h:
 * an ice port in a bond, in DSCP mode, under the custom Tx scheduler; bnxt_en at
 * DCBX 0x08).
 */
static int dcb_check(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        _cleanup_nl_ struct nl *own = NULL;
        const struct state *d = &c->desired[0];
        uint32_t fields = c->fields & DCB_FIELDS & d->present;
        struct dcb_app_target tg;
        struct dcb_nl_ieee cur;
        struct nl *nl;
        int r;

        if (!fields)
                return 0;
        r = check_lldpad(t, e);
        if (r >= 0)
                r = dcb_open_get(t, &nl, &own, &cur, e);
        if (r >= 0 && cur.has_dcbx && (cur.dcbx & DCB_CAP_DCBX_LLD_MANAGED) && needs_write(t, &cur, d, fields))
                r = ensure_host_ieee(nl, t, &cur, e);   /* refuses without writing: the firmware owns DCBX */
        if (r >= 0 && (fields & APP_FIELDS))
                r = dcb_app_target(d, fields, &cur, dcb_quirks_for(t->kernel_driver), &tg, e);
        if (r >= 0 && needs_write(t, &cur, d, fields)) {
                struct dcb_refuse_plan p;

                refuse_plan(&cur, d, fields, (fields & APP_FIELDS) ? &tg : NULL, &p);
                r = dcb_refuse_check(t, nl, &cur, &p, e);
        }
        if (r < 0 && !e->where[0])
                link_rtnl_where(t, e, r);
        if (r < 0)
                errbuf_suffix(e, "; nothing was changed");
        return r;
}

static int dcb_apply(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        return dcb_change(t, &c->desired[0], c->delta[0], false, e);
}

/* Best effort: every part it can, every failure named; the snapshot's device detail (DCBX mode) last. */
static int dcb_restore(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        return dcb_change(t, &c->desired[0], c->delta[0], true, e);
}

const struct driver_ops dcb_driver = {
        .name = "dcb",
        .kind = TARGET_INTERFACE,
        .fields = DCB_FIELDS,
        .caps = dcb_caps,
        .check = dcb_check,
        .read = dcb_read,
        .apply = dcb_apply,
        .restore = dcb_restore,
};
