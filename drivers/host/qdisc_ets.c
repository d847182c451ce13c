/* SPDX-License-Identifier: MIT */
/* The "qdisc" driver: ets and ecn of a switch port through tc ets + red qdiscs (see qdisc_ets.h). */
#include <fnmatch.h>
#include <linux/rtnetlink.h>

#include "drivers/host/dcb_nl.h"
#include "drivers/host/host_io.h"
#include "drivers/host/link.h"
#include "drivers/host/qdisc_ets.h"
#include "drivers/host/qdisc_tree.h"
#include "drivers/host/sysfs.h"
#include "policies/state/field.h"

#define DEFAULT_RATE_BPS (10ull * 1000 * 1000 * 1000 / 8)      /* 10 Gbit/s when the port reports no speed */
#ifndef TC_RED_NODROP
#define TC_RED_NODROP 8
#endif

struct tc_kmod_roots qdisc_driver_kmod;

uint32_t driver_env_qdisc_parent(const struct driver_env *env, const char *name)
{
        for (unsigned i = 0; i < env->n_qdisc_parents && i < DRIVER_QDISC_PARENTS_MAX; i++)
                if (fnmatch(env->qdisc_parents[i].glob, name, 0) == 0)
                        return env->qdisc_parents[i].parent;
        return TC_H_ROOT;
}

static uint32_t parent_of(const struct target *t)
{
        return t->env ? driver_env_qdisc_parent(t->env, t->name) : TC_H_ROOT;
}

static int where(const struct target *t, struct errbuf *e, int r)
{
        return link_rtnl_where(t, e, r);
}

static int qdisc_caps(struct target *t, uint32_t *ret_fields, struct errbuf *e)
{
        enum tc_kmod_answer ets, red;

        struct tc_kmod_roots roots = qdisc_driver_kmod;

        *ret_fields = 0;
        if (!t->env || !t->env->switch_role)
                return 0;
        if (!roots.sys && t->env->sysfs_root[0])
                roots.sys = t->env->sysfs_root;         /* the agent's sysfs_root: SYS/module/sch_ets */
        ets = tc_kmod_have(&roots, "sch_ets", "CONFIG_NET_SCH_ETS", NULL, 0);
        red = tc_kmod_have(&roots, "sch_red", "CONFIG_NET_SCH_RED", NULL, 0);
        if (ets != TC_KMOD_ABSENT)
                *ret_fields |= STATE_BIT(STATE_FIELD_ETS);
        if (ets != TC_KMOD_ABSENT && red != TC_KMOD_ABSENT)
                *ret_fields |= STATE_BIT(STATE_FIELD_ECN);
        return 0;
}

/* The request's rtnetlink handle (*ret_own: one of our own when the target has none) and the tree. */
static int open_read(struct target *t, struct nl **ret_nl, struct nl **ret_own, struct qdisc_tree *tree,
                     struct errbuf *e)
{
        int r = driver_rtnl(t, ret_nl, ret_own, e);

        if (r >= 0)
                r = qdisc_tree_read(*ret_nl, t->ifindex, parent_of(t), tree, e);
        if (r < 0) {
                nl_close(*ret_own);
                *ret_own = NULL;
                return where(t, e, r);
        }
        return 0;
}

static int qdisc_read(struct target *t, uint32_t fields, struct state *ret, struct errbuf *e)
{
        _cleanup_nl_ struct nl *own = NULL;
        _cleanup_free_ struct qdisc_tree *tree = malloc(sizeof(*tree));
        struct nl *nl;
        int r;

        if (!(fields & QDISC_FIELDS))
                return 0;
        if (!tree)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        r = open_read(t, &nl, &own, tree, e);
        if (r < 0)
                return r;
        qdisc_tree_to_state(tree, fields, ret);
        return 0;
}

/* ---- sync: make the tree say what `d` says for `fields` (dry: only find what would be refused) ---- */

struct sync {
        struct target *t;
        struct nl *nl, *own;                    /* own: opened here (the target has no request io) */
        struct qdisc_tree tree;
        const struct state *d;
        uint32_t fields;
        bool replace;                           /* a foreign qdisc at the attach point may go */
        bool dry;
        struct errbuf *e;
        /* the port's DCB (mlxsw: what scheduling it has without a root qdisc, and PFC) */
        bool has_dcb;
        struct dcb_nl_ieee dcb;
        bool has_root_ets;                      /* the root's options once synced */
        struct tc_ets_opts root_ets;
};

static uint64_t port_rate(const struct target *t)
{
        char path[512];
        unsigned mbit = 0;

        snprintf(path, sizeof(path), "%s/class/net/%s/speed", t->env ? t->env->sysfs_root : "/sys", t->name);
        if (sysfs_read_uint(path, &mbit) < 0 || mbit == 0 || mbit > 10000000)
                return DEFAULT_RATE_BPS;
        return (uint64_t)mbit * 1000000 / 8;
}

static int send_req(struct sync *s, struct nlmsghdr *nlh, const char *what)
{
        int r = tc_nl_talk(s->nl, nlh, what, s->e);

        if (r == -ENOENT && strstr(nl_last_extack(s->nl), "kind is unknown"))
                return errbuf_set(s->e, EOPNOTSUPP, NULL, "%s: this kernel has no such qdisc (kernel: %s); nothing "
                                  "of the rest was sent", what, nl_last_extack(s->nl));
        return r;
}

static int refuse_foreign(struct sync *s)
{
        char name[48], p[16];

        if (s->tree.root != STATE_QDISC_FOREIGN || s->replace)
                return 0;
        return errbuf_set(s->e, EOPNOTSUPP, NULL, "the qdisc '%s' at %s was not created by nettune; nettune replaces it only "
                          "when the policy says ecn.replace_root_qdisc: true (a rollback cannot put it back); "
                          "nothing was changed", qdisc_tree_name(&s->tree.top, name, sizeof(name)),
                          tc_nl_handle_str(s->tree.parent, p, sizeof(p)));
}

/* A DCB ETS (dcbnl's ieee_ets) as a policy's ets. */
static void ets_of_dcb(const struct ieee_ets *k, struct state_ets *ret)
{
        memset(ret, 0, sizeof(*ret));
        for (unsigned i = 0; i < STATE_TC_COUNT; i++) {
                ret->prio_tc[i] = k->prio_tc[i] & 7;
                ret->tc_tsa[i] = k->tc_tsa[i] == IEEE_8021QAZ_TSA_STRICT ? STATE_TSA_STRICT :
                                 k->tc_tsa[i] == IEEE_8021QAZ_TSA_ETS ? STATE_TSA_ETS : STATE_TSA_VENDOR;
                ret->tc_bw_pct[i] = k->tc_tsa[i] == IEEE_8021QAZ_TSA_ETS ? k->tc_tx_bw[i] : 0;
        }
}

/*
 * The root's options: the policy's ets, else what our tree has, else the port's
 * scheduling as it is without a root qdisc, so that the tree changes nothing but
 * ECN: the port's DCB ETS where the port has one (mlxsw programs the same
 * registers from DCB ETS and from a root qdisc, spectrum_dcb.c and
 * spectrum_qdisc.c), else what the port does with no qdisc - every priority in
 * traffic class 0 (mlxsw_sp_port_ets_init(); software: one FIFO), all strict.
 */
static int root_opts(struct sync *s, bool want_ets, struct tc_ets_opts *ret)
{
        static const uint8_t tc0[STATE_PRIO_COUNT] = { 0 };
        struct state_ets st;
        int r;

        if (want_ets)
                return qdisc_ets_from_state(&s->d->ets, ret, s->e);
        if (s->tree.root == STATE_QDISC_NETTUNE) {
                *ret = s->tree.top.ets;
                return 0;
        }
        if (!s->has_dcb || !s->dcb.has_ets) {
                qdisc_ets_default(tc0, ret);
                return 0;
        }
        ets_of_dcb(&s->dcb.ets, &st);
        r = qdisc_ets_from_state(&st, ret, s->e);
        if (r < 0)
                errbuf_prefix(s->e, "ecn needs nettune's ets qdisc at the root, which takes the port's scheduling over "
                              "from its DCB ETS, and a tc ets qdisc cannot express that ETS (give the port a DCB "
                              "ETS whose strict classes are the highest)");
        return r;
}

/* The traffic class priority p goes to under the root's options (band b carries class 7 - b). */
static unsigned tc_of(const struct tc_ets_opts *o, unsigned p)
{
        return QDISC_ETS_BANDS - 1 - (o->priomap[p] & 7);
}

/* The priorities with PFC once the change is done: the policy's, else the port's DCB PFC. */
static uint8_t pfc_after(const struct sync *s)
{
        if (state_has(s->d, STATE_FIELD_PFC))
                return s->d->pfc_enabled;
        return s->has_dcb && s->dcb.has_pfc ? s->dcb.pfc.pfc_en : 0;
}

/* Traffic class tc carries a priority with PFC: its RED must not drop what is not ECN-capable. */
static bool lossless_tc(const struct sync *s, unsigned tc)
{
        uint8_t pfc = pfc_after(s);

        for (unsigned p = 0; s->has_root_ets && p < STATE_PRIO_COUNT; p++)
                if ((pfc & (1u << p)) && tc_of(&s->root_ets, p) == tc)
                        return true;
        return false;
}

/* Traffic class tc carries some priority under the root's options. */
static bool tc_used(const struct sync *s, unsigned tc)
{
        for (unsigned p = 0; s->has_root_ets && p < STATE_PRIO_COUNT; p++)
                if (tc_of(&s->root_ets, p) == tc)
                        return true;
        return false;
}

/*
 * mlxsw: an offloaded root qdisc moves the port's headroom to TC mode
 * (spectrum_qdisc.c mlxsw_sp_qdisc_create(): hdroom.mode = MLXSW_SP_HDROOM_MODE_TC),
 * where a priority fills the buffer dcbnl_setbuffer gave it (buffer 0 until then) and
 * no buffer holds the cable's delay (spectrum_buffers.c
 * mlxsw_sp_hdroom_bufs_reset_sizes()). A PFC priority then needs spec.buffers.
 */
static void note_headroom_mode(const struct sync *s)
{
        uint8_t pfc = pfc_after(s);
        char list[32] = "";
        size_t n = 0;

        if (strncmp(s->t->kernel_driver, "mlxsw", 5) || !pfc || state_has(s->d, STATE_FIELD_BUFFERS))
                return;
        for (unsigned p = 0; p < STATE_PRIO_COUNT; p++)
                if (pfc & (1u << p))
                        n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%u", n ? "," : "", p);
        driver_note(s->t, "interface '%s': nettune's root ets qdisc puts this Spectrum port's headroom in TC mode "
                    "(mlxsw_sp_qdisc_create()): priorities fill buffer 0 and no buffer holds the cable's delay; "
                    "PFC priorities %s need spec.buffers", s->t->name, list);
}

static int sync_root(struct sync *s, bool want_ets, bool need_tree)
{
        struct tc_ets_opts o;
        struct nlmsghdr *nlh;
        bool ours = s->tree.root == STATE_QDISC_NETTUNE;
        int r;

        if (!need_tree && !want_ets)
                return 0;
        r = root_opts(s, want_ets, &o);
        if (r < 0)
                return r;
        s->root_ets = o;
        s->has_root_ets = true;
        if (ours && qdisc_ets_equal(&o, &s->tree.top.ets))
                return 0;
        r = refuse_foreign(s);
        if (r >= 0 && s->dry && !ours)
                note_headroom_mode(s);
        if (r < 0 || s->dry)
                return r;
        nlh = tc_nl_request(s->nl, ours ? TC_NL_CHANGE : TC_NL_REPLACE, s->t->ifindex, s->tree.parent,
                            QDISC_ETS_HANDLE);
        if (tc_nl_put_ets(nlh, &o) < 0)
                return errbuf_set(s->e, EMSGSIZE, NULL, "ets request too large");
        r = send_req(s, nlh, ours ? "change nettune's ets qdisc" : "create nettune's ets qdisc");
        if (r < 0)
                return r;
        s->tree.root = STATE_QDISC_NETTUNE;
        s->tree.top.ets = o;
        if (!ours)
                memset(s->tree.has_child, 0, sizeof(s->tree.has_child));
        return 0;
}

static bool red_equal(const struct tc_qdisc *q, const struct state_ecn_queue *w, bool nodrop)
{
        return q->red.qth_min == w->min_bytes && q->red.qth_max == w->max_bytes &&
               tc_red_pct(q->red.max_p) == w->probability_pct && (q->red.flags & TC_RED_ECN) &&
               !(q->red.flags & TC_RED_NODROP) == !nodrop;
}

static int sync_queue(struct sync *s, unsigned tc)
{
        const struct state_ecn_queue *w = &s->d->ecn.q[tc];
        bool want = (s->d->ecn.queues & (1u << tc)) && w->enabled;
        const struct tc_qdisc *red = qdisc_tree_red(&s->tree, tc);
        struct tc_red_params p;
        struct nlmsghdr *nlh;
        char what[64];
        bool nodrop;

        if (qdisc_tree_foreign_child(&s->tree, tc)) {
                char name[48];

                if (!want)
                        return 0;       /* not ours and not needed: left alone */
                return errbuf_set(s->e, EOPNOTSUPP, NULL, "queue %u: band %u of nettune's ets qdisc holds the qdisc '%s' "
                                  "that nettune did not create; nothing was changed", tc, QDISC_ETS_BANDS - 1 - tc,
                                  qdisc_tree_name(&s->tree.child[tc], name, sizeof(name)));
        }
        if (!want && !red)
                return 0;
        /* RED on a lossless class marks and never early-drops: PFC keeps its queue from overflowing */
        nodrop = want && lossless_tc(s, tc);
        if (want && red && red_equal(red, w, nodrop))
                return 0;
        if (want && tc_red_eval(w->min_bytes, w->max_bytes, w->probability_pct, true, port_rate(s->t), &p) < 0)
                return errbuf_set(s->e, EINVAL, NULL, "queue %u: no RED parameters for min %u, max %u bytes, %u%%",
                                  tc, w->min_bytes, w->max_bytes, w->probability_pct);
        if (nodrop)
                p.flags |= TC_RED_NODROP;
        if (want && s->dry && !tc_used(s, tc))
                driver_note(s->t, "interface '%s': ecn queue %u carries no traffic: no priority maps to traffic "
                            "class %u in the port's scheduling (nettune leaves it as it is when the policy has no "
                            "ets); map a priority to it", s->t->name, tc, tc);
        if (s->dry)
                return 0;
        if (!want) {
                nlh = tc_nl_request(s->nl, TC_NL_DEL, s->t->ifindex, QDISC_BAND_CLASS(tc), QDISC_RED_HANDLE(tc));
                snprintf(what, sizeof(what), "delete the red qdisc of queue %u", tc);
        } else {
                nlh = tc_nl_request(s->nl, red ? TC_NL_CHANGE : TC_NL_REPLACE, s->t->ifindex, QDISC_BAND_CLASS(tc),
                                    QDISC_RED_HANDLE(tc));
                if (tc_nl_put_red(nlh, &p) < 0)
                        return errbuf_set(s->e, EMSGSIZE, NULL, "red request too large");
                snprintf(what, sizeof(what), "%s the red qdisc of queue %u", red ? "change" : "add", tc);
        }
        return send_req(s, nlh, what);
}

/* The fields of `d` that differ from the live tree. */
static uint32_t differing(struct sync *s)
{
        struct state live, want;
        struct diff d = { 0 };
        uint32_t f = 0;

        state_init(&live);
        qdisc_tree_to_state(&s->tree, s->fields, &live);
        want = *s->d;
        want.present &= s->fields;
        if (state_diff(&want, &live, &d) < 0)
                return s->fields & s->d->present;      /* out of memory: treat all as changed */
        f = d.fields;
        diff_done(&d);
        return f;
}

static int sync_run(struct sync *s)
{
        uint32_t f = differing(s);
        bool want_ets = f & STATE_BIT(STATE_FIELD_ETS), want_ecn = f & STATE_BIT(STATE_FIELD_ECN);
        int r;

        if (!want_ets && !want_ecn)
                return 0;
        r = sync_root(s, want_ets, want_ecn);
        for (unsigned tc = 0; r >= 0 && want_ecn && tc < STATE_TC_COUNT; tc++)
                r = sync_queue(s, tc);
        return r;
}

static int sync_open(struct sync *s, struct target *t, const struct state *d, uint32_t fields, struct errbuf *e)
{
        struct errbuf pe = { 0 };
        int r;

        *s = (struct sync){ .t = t, .d = d, .fields = fields & QDISC_FIELDS & d->present, .e = e,
                            .replace = d->ecn.replace_root_qdisc };
        r = open_read(t, &s->nl, &s->own, &s->tree, e);
        if (r >= 0)     /* a port without DCB (a software link) has the kernel's default scheduling */
                s->has_dcb = dcb_nl_get(s->nl, t->name, &s->dcb, &pe) == 0;
        if (r >= 0 && s->tree.root == STATE_QDISC_NETTUNE) {
                s->root_ets = s->tree.top.ets;
                s->has_root_ets = true;
        }
        return r;
}

/*
 * After a change: every qdisc of nettune's tree must be offloaded where the port
 * offloads (a switch ASIC driver, mlxsw; or any qdisc of the tree reads offloaded).
 * A driver that refuses an offload only logs it (mlxsw: dev_err, no extack) and the
 * kernel runs the qdisc in software, so TCA_HW_OFFLOAD 0 is the one sign: the
 * change fails naming the port and the class, and the transaction restores.
 */
static int check_offload(struct sync *s)
{
        _cleanup_free_ struct qdisc_tree *t = malloc(sizeof(*t));
        bool expect = !strncmp(s->t->kernel_driver, "mlxsw", 5);
        char h[16];
        int r;

        if (!t)
                return errbuf_set(s->e, ENOMEM, NULL, "out of memory");
        r = qdisc_tree_read(s->nl, s->t->ifindex, s->tree.parent, t, s->e);
        if (r < 0 || t->root != STATE_QDISC_NETTUNE)
                return r;
        expect |= t->top.offloaded;
        for (unsigned tc = 0; tc < STATE_TC_COUNT; tc++)
                expect |= qdisc_tree_red(t, tc) && qdisc_tree_red(t, tc)->offloaded;
        if (!expect)
                return 0;
        if (!t->top.offloaded)
                return errbuf_set(s->e, EIO, NULL, "interface '%s' (driver %s): nettune's ets qdisc %s is not "
                                  "offloaded: the switch ASIC did not take it and the kernel runs it in software "
                                  "only (mlxsw offloads a root ets of at most 8 bands; with hw-tc-offload off, "
                                  "ethtool -k %s, nothing offloads)", s->t->name, s->t->kernel_driver,
                                  tc_nl_handle_str(QDISC_ETS_HANDLE, h, sizeof(h)), s->t->name);
        for (unsigned tc = 0; tc < STATE_TC_COUNT; tc++) {
                const struct tc_qdisc *q = qdisc_tree_red(t, tc);

                if (!q || q->offloaded)
                        continue;
                return errbuf_set(s->e, EIO, NULL, "interface '%s' (driver %s): the red qdisc of traffic class %u "
                                  "(%s, min %u, max %u bytes) is not offloaded: the switch ASIC refused it and "
                                  "the kernel runs it in software only; mlxsw says why only in the kernel log "
                                  "(mlxsw_sp_qdisc_red_check_params(): min above max, a zero threshold, or a max "
                                  "above the shared buffer, devlink sb show)", s->t->name, s->t->kernel_driver, tc,
                                  tc_nl_handle_str(q->handle, h, sizeof(h)), q->red.qth_min, q->red.qth_max);
        }
        return 0;
}

static int delete_tree(struct sync *s)
{
        struct nlmsghdr *nlh;

        if (s->tree.root != STATE_QDISC_NETTUNE || s->dry)
                return 0;
        nlh = tc_nl_request(s->nl, TC_NL_DEL, s->t->ifindex, s->tree.parent, QDISC_ETS_HANDLE);
        return send_req(s, nlh, "delete nettune's ets qdisc");
}

/*
 * A snapshot (state.qdisc set) is put back as it says: the default (our tree goes)
 * or our own tree. A foreign qdisc nettune replaced cannot be recreated: a restore
 * removes our tree and fails naming it; an apply of such a snapshot (rollback to an
 * earlier revision) fails before it changes anything. A policy (state.qdisc
 * unknown) is synced.
 */
static int put_back(struct sync *s, bool restoring)
{
        const struct state *d = s->d;
        struct tc_qdisc was = { .handle = d->qdisc.handle };
        char name[48];
        int r = 0;

        switch (d->qdisc.root) {
        case STATE_QDISC_DEFAULT:
                return delete_tree(s);
        case STATE_QDISC_FOREIGN:
                snprintf(was.kind, sizeof(was.kind), "%s", d->qdisc.kind);
                qdisc_tree_name(&was, name, sizeof(name));
                if (!restoring)
                        return errbuf_set(s->e, EOPNOTSUPP, NULL, "the state to return to had the qdisc '%s' that "
                                          "nettune replaced, and nettune cannot recreate it; nothing was changed",
                                          name);
                r = delete_tree(s);
                if (r < 0)
                        return r;
                return errbuf_set(s->e, EOPNOTSUPP, NULL, "the qdisc '%s' that nettune replaced cannot be put back: "
                                  "nettune's tree was removed and the kernel's default qdisc is there now; recreate "
                                  "'%s' by hand", name, name);
        default:
                return sync_run(s);
        }
}

static int put(struct target *t, const struct state *d, uint32_t fields, bool dry, bool restoring,
               struct errbuf *e)
{
        _cleanup_free_ struct sync *s = malloc(sizeof(*s));
        int r;

        if (!s)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        if (!(fields & QDISC_FIELDS & d->present))
                return 0;
        r = sync_open(s, t, d, fields, e);
        if (r < 0)
                return r;
        s->dry = dry;
        if (d->qdisc.root != STATE_QDISC_UNKNOWN)
                s->replace = false;
        r = put_back(s, restoring);
        if (r >= 0 && !dry)
                r = check_offload(s);
        nl_close(s->own);
        return r < 0 ? where(t, e, r) : 0;
}

/* apply: a policy, or a snapshot when the transaction rolls back to an earlier revision. */
static int qdisc_apply(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        return put(t, &c->desired[0], c->delta[0], false, false, e);
}

static int qdisc_restore(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        return put(t, &c->desired[0], c->delta[0], false, true, e);
}

/*
 * mlxsw: DCB ETS and a tc ets qdisc cannot both be configured on one port (the
 * mlxsw wiki, "Queues Management"), so ets routed to another driver (DCB) while
 * ecn comes here is refused; then what put() would refuse, without writing.
 */
static int qdisc_check(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        const struct state *d = &c->desired[0];

        if ((d->present & STATE_BIT(STATE_FIELD_ETS)) && (c->fields & STATE_BIT(STATE_FIELD_ECN)) &&
            !(c->owned & STATE_BIT(STATE_FIELD_ETS)))
                return errbuf_set(e, EOPNOTSUPP, NULL, "interface '%s': ets would go through DCB and ecn through "
                                  "a tc ets qdisc, but DCB ETS and a tc ets qdisc cannot both be configured on one "
                                  "port; leave ets out of the policy (the tc ets qdisc maps priorities itself); "
                                  "nothing was changed", t->name);
        return put(t, d, c->fields, true, false, e);
}

/* ---- statistics ---- */

int qdisc_driver_shaper_rate(const struct nl_transport *nl_t, int ifindex, uint32_t parent, uint64_t *ret_Bps,
                             struct errbuf *e)
{
        _cleanup_nl_ struct nl *nl = NULL;
        int r = nl_open(nl_t, NETLINK_ROUTE, &nl, e);

        return r < 0 ? r : tc_nl_class_rate(nl, ifindex, parent, ret_Bps, e);
}

int qdisc_driver_stats(const struct nl_transport *nl_t, int ifindex, uint32_t parent,
                       struct qdisc_queue_stats *ret, unsigned max, unsigned *ret_n, struct errbuf *e)
{
        _cleanup_nl_ struct nl *nl = NULL;
        _cleanup_free_ struct qdisc_tree *tree = malloc(sizeof(*tree));
        unsigned n = 0;
        int r;

        if (!tree)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        r = nl_open(nl_t, NETLINK_ROUTE, &nl, e);
        if (r >= 0)
                r = qdisc_tree_read(nl, ifindex, parent ? parent : TC_H_ROOT, tree, e);
        if (r < 0)
                return r;
        for (unsigned tc = 0; tc < STATE_TC_COUNT && n < max; tc++) {
                const struct tc_qdisc *q = qdisc_tree_red(tree, tc);

                if (!q)
                        continue;
                ret[n++] = (struct qdisc_queue_stats){
                        .queue = tc, .ecn = (q->red.flags & TC_RED_ECN) != 0,
                        .bytes = q->stats.bytes, .packets = q->stats.packets,
                        .backlog_bytes = q->stats.backlog, .backlog_packets = q->stats.qlen,
                        .drops = q->stats.drops, .marked = q->stats.red_marked, .early = q->stats.red_early,
                        .pdrop = q->stats.red_pdrop, .other = q->stats.red_other,
                };
        }
        *ret_n = n;
        return 0;
}

const struct driver_ops qdisc_driver = {
        .name = "qdisc",
        .kind = TARGET_INTERFACE,
        .fields = QDISC_FIELDS,
        .caps = qdisc_caps,
        .check = qdisc_check,
        .read = qdisc_read,
        .apply = qdisc_apply,
        .restore = qdisc_restore,
};
