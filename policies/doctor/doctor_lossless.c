/* SPDX-License-Identifier: MIT */
/*
 * doctor's rules of the lossless class (policies/policy/lossless.h) on live state: each
 * device against itself — a host NIC, a switch port, a Linux switch's port — with
 * the same rules plan and validate use, and what only live state and traffic show:
 *
 *   roce_tos_lossy           the RDMA default ToS (roce_tos >> 2) rides a priority without
 *                            PFC, on the host's own classification and on its switch port's
 *   rdma_on_lossy_priority   the share of the RoCE bytes (mlx5 rx/tx_vport_rdma_*_bytes, bnxt_re tx/rx_bytes) that
 *                            the lossless priorities' bytes (rx/tx_prioN_bytes) can hold, per
 *                            direction, under --class-share (99%)
 *   roce_mode_v1             an RDMA port rdma_cm keeps on RoCE v1 (no IP header: no DSCP) where
 *                            the host classifies by DSCP or sets a default ToS
 *   nccl_tc_lossy            NCCL's traffic class (NCCL_IB_TC in its file; 0 when unset) rides a
 *                            priority without PFC on a RoCE host
 *
 * ecn_queue_not_lossless, and a lossless priority without DCQCN, are
 * ecn_disabled_on_lossless_queue here (doctor_rules.c): one finding for one fault.
 * The check functions are rows of doctor_rules[] (declared in doctor.h).
 */
#include <math.h>
#include <stdarg.h>

#include "policies/doctor/doctor.h"
#include "policies/state/field.h"
#include "policies/policy/lossless.h"

struct device {
        const char *manager;            /* the node that read it */
        const char *owner;              /* the switch, or the host node */
        const char *name;               /* the port or the interface */
        bool sw;                        /* a switch port (findings grouped per switch) */
        const struct state *st;
        bool linux_port;                /* a port of a switch-role node (owner is the node) */
};

/* The device's own RoCE DSCP is roce_tos_lossy's: the class rules use doctor's --roce-dscp. */
static void device_check(const struct device *d, const struct doctor_params *p, struct lossless_report *ret)
{
        struct lossless_ctx c = { .document = false, .roce_dscp = p->roce_dscp, .roce_dscp_path = "--roce-dscp",
                                  .allow = LOSSLESS_BIT(LOSSLESS_ECN_QUEUE) };
        struct state s = *d->st;

        s.present &= ~STATE_BIT(STATE_FIELD_ROCE_TOS);
        lossless_check(&s, &c, ret);
}

static const char *fix_of(enum lossless_code c)
{
        switch (c) {
        case LOSSLESS_PFC_UNMAPPED:
                return "map the DSCP meant for that priority to it, or take PFC off it (policy dscp_to_priority, pfc)";
        case LOSSLESS_ROCE_LOSSY:
                return "make that priority lossless (policy pfc), or map the RoCE DSCP to the lossless priority "
                       "(policy dscp_to_priority)";
        case LOSSLESS_HOST_ECN:
                return "enable DCQCN on the lossless priorities only (policy host_ecn)";
        case LOSSLESS_CNP_DSCP:
                return "map the CNP DSCP to the CNP priority (policy dscp_to_priority), or send CNPs on the priority "
                       "the map gives them (policy host_ecn)";
        default:
                return "give the class a share under ets, or make it strict (policy ets)";
        }
}

/* The code's text without its "code: " prefix. */
static const char *text_of(const struct lossless_violation *v)
{
        const char *code = lossless_code_name(v->code);

        return strncmp(v->msg, code, strlen(code)) ? v->msg : v->msg + strlen(code) + 2;
}

static void device_finding(struct doctor_report *r, const struct doctor_rule *rule, const struct device *d,
                           const struct lossless_violation *v)
{
        struct doctor_finding *x;
        char group[160];

        snprintf(group, sizeof(group), "%s/%s/%s", d->owner, d->sw ? "" : d->name, v->key);
        if ((x = doctor_finding_group(r, rule, group))) {
                doctor_finding_node(x, d->manager);
                doctor_finding_port(x, d->owner, d->name);
                doctor_ev_max(x, "ports", x->n_ports);
                return;
        }
        if (!(x = doctor_finding_add(r, rule)))
                return;
        snprintf(x->group, sizeof(x->group), "%s", group);
        doctor_finding_node(x, d->manager);
        doctor_finding_port(x, d->owner, d->name);
        snprintf(x->summary, sizeof(x->summary), "%.63s%s%.63s: %.400s", d->owner, d->sw ? "" : " ",
                 d->sw ? "" : d->name, text_of(v));
        doctor_ev_str(x, "instance", "%s", v->key);
        doctor_ev_str(x, "path", "%.150s", v->where);
        if (d->sw)
                doctor_ev_num(x, "ports", 1);
        snprintf(x->fix, sizeof(x->fix), "%s", fix_of(v->code));
}

/* One code over every device: hosts' RoCE interfaces, switch ports (once each), Linux switches' ports. */
static void each_device(const struct doctor_facts *f, void (*fn)(const struct device *, void *), void *ctx)
{
        for (unsigned i = 0; i < f->n_nodes; i++) {
                const struct doctor_node *n = &f->nodes[i];

                for (unsigned k = 0; !n->error[0] && k < n->n_ifs; k++) {
                        struct device d = { n->name, n->name, n->ifs[k].name, n->switch_role, &n->ifs[k].st,
                                           n->switch_role };

                        if (n->switch_role || doctor_iface_roce(&n->ifs[k]))
                                fn(&d, ctx);
                }
                for (unsigned s = 0; !n->error[0] && s < n->n_switches; s++) {
                        const struct doctor_switch *sw = &n->switches[s];

                        for (unsigned k = 0; !sw->error[0] && k < sw->n_ports; k++) {
                                struct device d = { n->name, sw->name, sw->ports[k].name, true, &sw->ports[k].st,
                                                   false };

                                if (doctor_port_first(f, i, sw->name, sw->ports[k].name))
                                        fn(&d, ctx);
                        }
                }
        }
}

struct class_ctx {
        enum lossless_code code;
        const struct doctor_rule *rule;
        const struct doctor_params *p;
        struct doctor_report *r;
        struct lossless_report *lr;
};

static void class_device(const struct device *d, void *data)
{
        struct class_ctx *c = data;

        device_check(d, c->p, c->lr);
        for (unsigned i = 0; i < c->lr->n; i++) {
                const struct lossless_violation *v = &c->lr->v[i];

                /* a lossless priority without DCQCN: ecn_disabled_on_lossless_queue says it */
                if (v->code == c->code && !(v->code == LOSSLESS_HOST_ECN && !strncmp(v->key, "off", 3)))
                        device_finding(c->r, c->rule, d, v);
        }
}

static void check_class(const struct doctor_rule *rule, const struct doctor_facts *f,
                        const struct doctor_params *p, struct doctor_report *r,
                        enum lossless_code code)
{
        struct lossless_report *lr = malloc(sizeof(*lr));
        struct class_ctx c = { code, rule, p, r, lr };

        if (lr && c.rule)
                each_device(f, class_device, &c);
        free(lr);
}

void doctor_check_pfc_unmapped(const struct doctor_rule *rule, const struct doctor_facts *f,
                               const struct doctor_params *p, struct doctor_report *r)
{
        check_class(rule, f, p, r, LOSSLESS_PFC_UNMAPPED);
}

void doctor_check_roce_lossy(const struct doctor_rule *rule, const struct doctor_facts *f,
                             const struct doctor_params *p, struct doctor_report *r)
{
        check_class(rule, f, p, r, LOSSLESS_ROCE_LOSSY);
}

void doctor_check_host_ecn(const struct doctor_rule *rule, const struct doctor_facts *f,
                           const struct doctor_params *p, struct doctor_report *r)
{
        check_class(rule, f, p, r, LOSSLESS_HOST_ECN);
}

void doctor_check_cnp_dscp(const struct doctor_rule *rule, const struct doctor_facts *f,
                           const struct doctor_params *p, struct doctor_report *r)
{
        check_class(rule, f, p, r, LOSSLESS_CNP_DSCP);
}

void doctor_check_tc_bandwidth(const struct doctor_rule *rule, const struct doctor_facts *f,
                               const struct doctor_params *p, struct doctor_report *r)
{
        check_class(rule, f, p, r, LOSSLESS_TC_BANDWIDTH);
}

/* ---- what the proposal fixes of the class ---- */

struct fixed_ctx {
        const struct doctor_params *p;
        struct doctor_report *r;
        struct state spec;              /* the proposal's spec as its document writes it */
        struct lossless_report *lr;
        bool *covered, *broken;         /* [r->n]: a device of the finding proposed; one still breaks it */
};

/* The device is a target of the proposal: a switch it names, or a Linux switch port it names. */
static bool proposed(const struct doctor_proposal *pr, const struct device *d)
{
        if (!pr->n_targets || pr->linux_ports != d->linux_port)
                return false;
        for (unsigned i = 0; i < pr->n_targets; i++)
                if (streq(pr->targets[i], d->linux_port ? d->name : d->owner))
                        return true;
        return false;
}

/* A row of the class: its findings are device_finding()'s, grouped "owner/[name]/key". */
static bool class_rule(const struct doctor_rule *rule)
{
        return rule->check == doctor_check_pfc_unmapped || rule->check == doctor_check_roce_lossy ||
               rule->check == doctor_check_host_ecn || rule->check == doctor_check_cnp_dscp ||
               rule->check == doctor_check_tc_bandwidth;
}

/* Every switch port (and Linux switch port) of a class finding: as the proposal leaves it, or as it is. */
static void fixed_device(const struct device *d, void *data)
{
        struct fixed_ctx *c = data;
        struct doctor_report *r = c->r;
        struct state s = *d->st;
        struct device merged = *d;
        bool prop = proposed(&r->prop, d);
        char prefix[160];

        if (!d->sw)
                return;
        if (prop)
                state_merge(&s, &c->spec, c->spec.present);
        merged.st = &s;
        device_check(&merged, c->p, c->lr);
        snprintf(prefix, sizeof(prefix), "%s//", d->owner);
        for (unsigned i = 0; i < r->n; i++) {
                const struct doctor_finding *x = &r->v[i];

                if (!class_rule(x->rule) || strncmp(x->group, prefix, strlen(prefix)))
                        continue;
                c->covered[i] |= prop;
                for (unsigned k = 0; k < c->lr->n; k++)
                        c->broken[i] |= streq(lossless_code_name(c->lr->v[k].code), x->rule->code) &&
                                        streq(c->lr->v[k].key, x->group + strlen(prefix));
        }
}

/*
 * A class finding on switch ports is fixed by the proposal when every port it groups,
 * with the proposal put over the ports it covers (state_merge, as applying it would),
 * no longer breaks that rule at that instance: PFC put back on the RoCE priority fixes
 * roce_priority_lossy though no rule of that code proposed anything.
 */
void doctor_lossless_fixed(const struct doctor_facts *f, const struct doctor_params *p, struct doctor_report *r)
{
        struct fixed_ctx c = { p, r, r->prop.spec, malloc(sizeof(*c.lr)), calloc(r->n + 1, sizeof(bool)),
                               calloc(r->n + 1, sizeof(bool)) };

        if (c.lr && c.covered && c.broken && r->prop.n_targets) {
                if (state_has(&c.spec, STATE_FIELD_ECN) && state_has(&c.spec, STATE_FIELD_PFC))
                        c.spec.ecn.queues |= c.spec.pfc_enabled;        /* as document() writes it */
                each_device(f, fixed_device, &c);
                for (unsigned i = 0; i < r->n; i++)
                        r->v[i].fixed |= c.covered[i] && !c.broken[i];
        }
        free(c.broken);
        free(c.covered);
        free(c.lr);
}

/* ---- roce_tos_lossy ---- */

struct tos_ctx {
        const struct doctor_rule *rule;
        struct doctor_report *r;
};

/* The finding's summary (cut at its size, "..." not needed: the evidence holds the numbers). */
static void _printf_(2, 3) summaryf(struct doctor_finding *x, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(x->summary, sizeof(x->summary), fmt, ap);
        va_end(ap);
}

/* MLNX_OFED's global traffic class on one of the state's RDMA ports, -1 none: it overrides every QP's own. */
static int ofed_global(const struct state *s)
{
        for (unsigned i = 0; i < s->roce.n_ports && i < STATE_RDMA_PORTS_MAX; i++)
                if (s->roce.ports[i].has_ofed && s->roce.ports[i].ofed_tclass != STATE_TCLASS_UNSET)
                        return s->roce.ports[i].ofed_tclass;
        return -1;
}

/* Who a roce_tos reaches on this interface: rdma_cm's users, or every application under MLNX_OFED's override. */
static const char *tos_senders(const struct state *s)
{
        return ofed_global(s) >= 0 ? "every RDMA application (MLNX_OFED's global traffic_class overrides their own)"
                                   : "rdma_cm applications without a ToS of their own (perftest -R, NVMe-oF, rping; "
                                     "not NCCL, which takes NCCL_IB_TC)";
}

static void tos_fix(struct doctor_finding *x, unsigned tos)
{
        doctor_ev_num(x, "roce_tos", tos);
        doctor_ev_num(x, "dscp", tos >> 2);
        snprintf(x->fix, sizeof(x->fix), "set the RDMA default ToS to the lossless class (policy roce_tos: the "
                 "lossless DSCP << 2, 106 for DSCP 26 with ECT(0)), or make DSCP %u's priority lossless", tos >> 2);
}

/* The host's own classification: its map and PFC (a host without DCB classifies nothing here). */
static void tos_host(const struct device *d, void *data)
{
        struct tos_ctx *c = data;
        struct lossless_ctx lc = { .document = false, .roce_dscp = -1 };
        struct lossless_violation v;
        struct doctor_finding *x;
        char path[48];

        if (d->sw || !state_has(d->st, STATE_FIELD_ROCE_TOS))
                return;
        snprintf(path, sizeof(path), "roce_tos (live: %u)", d->st->roce_tos);
        if (!lossless_dscp_lossy(d->st, &lc, d->st->roce_tos >> 2, path, &v) || !(x = doctor_finding_add(c->r, c->rule)))
                return;
        doctor_finding_node(x, d->manager);
        doctor_finding_port(x, d->owner, d->name);
        summaryf(x, "%.63s %.63s: %s: %.320s", d->owner, d->name, tos_senders(d->st),
                 text_of(&v));
        tos_fix(x, d->st->roce_tos);
}

/* Along the path: the switch port's map and PFC, whether or not the host has DCB. */
static void tos_path(const struct doctor_path *p, void *data)
{
        struct tos_ctx *c = data;
        struct lossless_ctx lc = { .document = false, .roce_dscp = -1 };
        const struct state *h = &p->iface->st;
        struct lossless_violation v;
        struct doctor_finding *x;
        char path[96];

        if (!state_has(h, STATE_FIELD_ROCE_TOS))
                return;
        snprintf(path, sizeof(path), "%s's roce_tos %u", p->iface->name, h->roce_tos);
        if (!lossless_dscp_lossy(p->port_st, &lc, h->roce_tos >> 2, path, &v) ||
            !(x = doctor_finding_path(c->r, c->rule, p)))
                return;
        summaryf(x, "%.63s %.63s: DSCP %u for %s; on port %.63s of %.63s "
                 "%.160s", p->node->name, p->iface->name, h->roce_tos >> 2, tos_senders(h),
                 p->linux_port ? p->linux_port->name : p->port->name, p->sw_name, text_of(&v));
        tos_fix(x, h->roce_tos);
}

void doctor_check_roce_tos(const struct doctor_rule *rule, const struct doctor_facts *f,
                           const struct doctor_params *p, struct doctor_report *r)
{
        struct tos_ctx c = { rule, r };

        if (!c.rule)
                return;
        each_device(f, tos_host, &c);
        doctor_each_path(f, tos_path, &c);
}

/* ---- rdma_on_lossy_priority ---- */

/*
 * One direction's rates of a kind at a priority: the mlx5 names start with it
 * (en_stats.c: "rx_prio3_bytes", "tx_vport_rdma_unicast_bytes").
 */
static double dir_sum(const struct doctor_rates *rt, enum doctor_counter kind, int prio, const char *dir, bool *known)
{
        double sum = 0;

        for (unsigned i = 0; i < rt->n; i++) {
                const struct doctor_rate *x = &rt->v[i];

                if (x->kind != kind || (prio != DOCTOR_PRIO_ANY && x->prio != prio) || strncmp(x->name, dir, 2))
                        continue;
                sum += x->per_s;
                if (known)
                        *known = true;
        }
        return sum;
}

struct class_share {
        double rdma, lossless, top;     /* bytes/s of one direction */
        int top_prio;                   /* the busiest priority without PFC, -1 none */
        double share;                   /* of the RoCE bytes, at most what the lossless priorities carried */
        bool judged;                    /* the NIC counts both, and RoCE ran at least rdma_min_bytes_per_s */
};

static struct class_share share_of(const struct doctor_rates *rt, uint8_t pfc, const char *dir,
                                   const struct doctor_params *p)
{
        struct class_share c = { .top_prio = -1 };
        bool known = false;

        c.rdma = dir_sum(rt, DOCTOR_RDMA_BYTES, DOCTOR_PRIO_ANY, dir, NULL);
        for (int q = 0; q < STATE_PRIO_COUNT; q++) {
                double b = dir_sum(rt, DOCTOR_PRIO_BYTES, q, dir, &known);

                if (pfc & (1u << q))
                        c.lossless += b;
                else if (b > c.top) {
                        c.top = b;
                        c.top_prio = q;
                }
        }
        c.judged = known && c.rdma >= p->rdma_min_bytes_per_s;
        c.share = c.rdma > 0 ? fmin(1.0, c.lossless / c.rdma) : 1.0;
        return c;
}

static void rdma_lossy(struct tos_ctx *c, const struct doctor_params *p, const struct doctor_node *n,
                       const struct doctor_iface *ifc)
{
        uint8_t pfc = state_has(&ifc->st, STATE_FIELD_PFC) ? ifc->st.pfc_enabled : 0;
        struct class_share tx = share_of(&ifc->rates, pfc, "tx", p), rx = share_of(&ifc->rates, pfc, "rx", p);
        const struct class_share *w;
        const char *wdir;
        struct doctor_finding *x;
        char prio[48] = "";

        /* the lossless priorities' bytes bound the RoCE bytes that can have ridden them, per direction */
        if (!(tx.judged && tx.share < p->class_share) && !(rx.judged && rx.share < p->class_share))
                return;
        w = tx.judged && (!rx.judged || tx.share <= rx.share) ? &tx : &rx;
        wdir = w == &tx ? "sent" : "received";
        if (!(x = doctor_finding_add(c->r, c->rule)))
                return;
        if (w->top_prio >= 0)
                snprintf(prio, sizeof(prio), "; priority %d, without PFC, carried %.0f", w->top_prio, w->top);
        doctor_finding_node(x, n->name);
        doctor_finding_port(x, n->name, ifc->name);
        snprintf(x->summary, sizeof(x->summary), "%s %s: %.1f%% of the RoCE bytes %s rode lossless priorities (%.0f of "
                 "%.0f bytes/s%s), under %.4g%%; tx %.1f%%, rx %.1f%%", n->name, ifc->name, 100 * w->share, wdir,
                 fmin(w->lossless, w->rdma), w->rdma, prio, 100 * p->class_share,
                 tx.judged ? 100 * tx.share : 100.0, rx.judged ? 100 * rx.share : 100.0);
        doctor_ev_num(x, "rdma_bytes_per_s", round(tx.rdma + rx.rdma));
        doctor_ev_num(x, "lossless_bytes_per_s", round(fmin(tx.lossless, tx.rdma) + fmin(rx.lossless, rx.rdma)));
        if (tx.judged)
                doctor_ev_num(x, "tx_class_share_pct", round(1000 * tx.share) / 10);
        if (rx.judged)
                doctor_ev_num(x, "rx_class_share_pct", round(1000 * rx.share) / 10);
        if (w->top_prio >= 0) {
                doctor_ev_num(x, "priority", w->top_prio);
                doctor_ev_num(x, "priority_bytes_per_s", round(w->top));
        }
        snprintf(x->fix, sizeof(x->fix), "send RoCE on the lossless class: NCCL through NCCL_IB_TC (policy nccl.ib_tc), "
                 "rdma_cm applications through the RDMA default ToS (policy roce_tos), any application through "
                 "MLNX_OFED's global traffic_class; other verbs applications set their own ToS (perftest --tos)");
}

void doctor_check_rdma_lossy(const struct doctor_rule *rule, const struct doctor_facts *f,
                             const struct doctor_params *p, struct doctor_report *r)
{
        struct tos_ctx c = { rule, r };

        for (unsigned i = 0; c.rule && i < f->n_nodes; i++)
                for (unsigned k = 0; !f->nodes[i].error[0] && !f->nodes[i].switch_role && k < f->nodes[i].n_ifs; k++)
                        rdma_lossy(&c, p, &f->nodes[i], &f->nodes[i].ifs[k]);
}

/* ---- nccl_tc_lossy ---- */

/* NCCL's traffic class on a RoCE host: NCCL_IB_TC of its file, 0 unset; -1 no file, or overridden. */
static int nccl_tc(const struct doctor_iface *ifc)
{
        const struct state *s = &ifc->st;

        /* no file at all: whether NCCL runs here is not known (a job may bring its own NCCL_CONF_FILE) */
        if (!ifc->rdma || !state_has(s, STATE_FIELD_NCCL) || !s->nccl.exists || ofed_global(s) >= 0)
                return -1;
        return s->nccl.has & (1u << STATE_NCCL_IB_TC) ? s->nccl.value[STATE_NCCL_IB_TC] : 0;
}

static void nccl_fix(struct doctor_finding *x, int tc)
{
        doctor_ev_num(x, "nccl_ib_tc", tc);
        doctor_ev_num(x, "dscp", tc >> 2);
        snprintf(x->fix, sizeof(x->fix), "give NCCL the lossless class: policy nccl.ib_tc (\"auto\": the policy's "
                 "roce_tos; 106 for DSCP 26 with ECT(0)), or make DSCP %d's priority lossless", tc >> 2);
}

static const char *nccl_what(const struct doctor_iface *ifc, char *buf, size_t size)
{
        if (ifc->st.nccl.has & (1u << STATE_NCCL_IB_TC))
                snprintf(buf, size, "NCCL_IB_TC %u in NCCL's file", ifc->st.nccl.value[STATE_NCCL_IB_TC]);
        else
                snprintf(buf, size, "no NCCL_IB_TC in NCCL's file (NCCL sends traffic class 0)");
        return buf;
}

static void nccl_path(const struct doctor_path *p, void *data)
{
        struct tos_ctx *c = data;
        struct lossless_ctx lc = { .document = false, .roce_dscp = -1 };
        struct lossless_violation v;
        struct doctor_finding *x;
        int tc = nccl_tc(p->iface);
        char path[96], what[96];

        if (tc < 0)
                return;
        snprintf(path, sizeof(path), "%s's NCCL traffic class %d", p->iface->name, tc);
        if (!lossless_dscp_lossy(p->port_st, &lc, (unsigned)tc >> 2, path, &v) ||
            !(x = doctor_finding_path(c->r, c->rule, p)))
                return;
        summaryf(x, "%.63s %.63s: DSCP %d for NCCL (%s); on port %.63s of %.63s "
                 "%.160s", p->node->name, p->iface->name, tc >> 2, nccl_what(p->iface, what, sizeof(what)),
                 p->linux_port ? p->linux_port->name : p->port->name, p->sw_name, text_of(&v));
        nccl_fix(x, tc);
}

void doctor_check_nccl_tc(const struct doctor_rule *rule, const struct doctor_facts *f,
                          const struct doctor_params *p, struct doctor_report *r)
{
        struct tos_ctx c = { rule, r };

        (void)p;
        for (unsigned i = 0; c.rule && i < f->n_nodes; i++) {
                const struct doctor_node *n = &f->nodes[i];

                for (unsigned k = 0; !n->error[0] && !n->switch_role && k < n->n_ifs; k++) {
                        const struct doctor_iface *ifc = &n->ifs[k];
                        struct lossless_ctx lc = { .document = false, .roce_dscp = -1 };
                        struct lossless_violation v;
                        struct doctor_finding *x;
                        int tc = nccl_tc(ifc);
                        char path[64], what[96];

                        if (tc < 0)
                                continue;
                        snprintf(path, sizeof(path), "NCCL traffic class %d", tc);
                        if (!lossless_dscp_lossy(&ifc->st, &lc, (unsigned)tc >> 2, path, &v) ||
                            !(x = doctor_finding_add(c.r, c.rule)))
                                continue;
                        doctor_finding_node(x, n->name);
                        doctor_finding_port(x, n->name, ifc->name);
                        summaryf(x, "%.63s %.63s: NCCL: %s: %.320s", n->name, ifc->name,
                                 nccl_what(ifc, what, sizeof(what)), text_of(&v));
                        nccl_fix(x, tc);
                }
        }
        if (c.rule)
                doctor_each_path(f, nccl_path, &c);
}

/* ---- roce_mode_v1 ---- */

void doctor_check_roce_mode(const struct doctor_rule *rule, const struct doctor_facts *f,
                            const struct doctor_params *p, struct doctor_report *r)
{
        (void)p;
        for (unsigned i = 0; rule && i < f->n_nodes; i++) {
                const struct doctor_node *n = &f->nodes[i];

                for (unsigned k = 0; !n->error[0] && !n->switch_role && k < n->n_ifs; k++) {
                        const struct state *s = &n->ifs[k].st;
                        bool dscp = state_has(s, STATE_FIELD_TRUST) && s->trust == STATE_TRUST_DSCP;
                        bool tos = state_has(s, STATE_FIELD_ROCE_TOS) && s->roce_tos;

                        for (unsigned q = 0; (dscp || tos) && q < s->roce.n_ports && q < STATE_RDMA_PORTS_MAX; q++) {
                                const struct state_rdma_port *x = &s->roce.ports[q];
                                struct doctor_finding *y;

                                if (x->roce_mode != STATE_ROCE_MODE_V1 || !(y = doctor_finding_add(r, rule)))
                                        continue;
                                doctor_finding_node(y, n->name);
                                doctor_finding_port(y, n->name, n->ifs[k].name);
                                summaryf(y, "%.63s %.63s: RDMA port %s/%u is on RoCE v1 (rdma_cm default_roce_mode "
                                         "'IB/RoCE v1'): its packets carry no IP header, so no DSCP; %s", n->name,
                                         n->ifs[k].name, x->dev, x->port, tos ? "the default ToS sets nothing there"
                                         : "the DSCP classification does not see them");
                                doctor_ev_num(y, "port", x->port);
                                snprintf(y->fix, sizeof(y->fix), "put the port on RoCE v2: write 'RoCE v2' to "
                                         "rdma_cm/%s/ports/%u/default_roce_mode in configfs", x->dev, x->port);
                        }
                }
        }
}
