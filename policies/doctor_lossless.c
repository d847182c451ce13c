/* SPDX-License-Identifier: MIT */
/*
 * doctor's rules of the lossless class (policies/lossless.h) on live state: each
 * device against itself — a host NIC, a switch port, a Linux switch's port — with
 * the same rules plan and validate use, and what only live state and traffic show:
 *
 *   roce_tos_lossy           the RDMA default ToS (roce_tos >> 2) rides a priority without
 *                            PFC, on the host's own classification and on its switch port's
 *   rdma_on_lossy_priority   RoCE bytes counted (mlx5 rx/tx_vport_rdma_*_bytes) outrun by far
 *                            the bytes of the lossless priorities (rx/tx_prioN_bytes)
 *
 * ecn_queue_not_lossless, and a lossless priority without DCQCN, are
 * ecn_disabled_on_lossless_queue here (doctor_rules.c): one finding for one fault.
 * The check functions are rows of doctor_rules[] (declared in doctor.h).
 */
#include <math.h>

#include "policies/doctor.h"
#include "policies/lossless.h"

struct device {
        const char *manager;            /* the node that read it */
        const char *owner;              /* the switch, or the host node */
        const char *name;               /* the port or the interface */
        bool sw;                        /* a switch port (findings grouped per switch) */
        const struct state *st;
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
                        struct device d = { n->name, n->name, n->ifs[k].name, n->switch_role, &n->ifs[k].st };

                        if (n->switch_role || doctor_iface_roce(&n->ifs[k]))
                                fn(&d, ctx);
                }
                for (unsigned s = 0; !n->error[0] && s < n->n_switches; s++) {
                        const struct doctor_switch *sw = &n->switches[s];

                        for (unsigned k = 0; !sw->error[0] && k < sw->n_ports; k++) {
                                struct device d = { n->name, sw->name, sw->ports[k].name, true, &sw->ports[k].st };

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

static void check_class(const struct doctor_facts *f, const struct doctor_params *p, struct doctor_report *r,
                        enum lossless_code code)
{
        struct lossless_report *lr = malloc(sizeof(*lr));
        struct class_ctx c = { code, doctor_rule_find(lossless_code_name(code)), p, r, lr };

        if (lr && c.rule)
                each_device(f, class_device, &c);
        free(lr);
}

void doctor_check_pfc_unmapped(const struct doctor_facts *f, const struct doctor_params *p, struct doctor_report *r)
{
        check_class(f, p, r, LOSSLESS_PFC_UNMAPPED);
}

void doctor_check_roce_lossy(const struct doctor_facts *f, const struct doctor_params *p, struct doctor_report *r)
{
        check_class(f, p, r, LOSSLESS_ROCE_LOSSY);
}

void doctor_check_host_ecn(const struct doctor_facts *f, const struct doctor_params *p, struct doctor_report *r)
{
        check_class(f, p, r, LOSSLESS_HOST_ECN);
}

void doctor_check_cnp_dscp(const struct doctor_facts *f, const struct doctor_params *p, struct doctor_report *r)
{
        check_class(f, p, r, LOSSLESS_CNP_DSCP);
}

void doctor_check_tc_bandwidth(const struct doctor_facts *f, const struct doctor_params *p, struct doctor_report *r)
{
        check_class(f, p, r, LOSSLESS_TC_BANDWIDTH);
}

/* ---- roce_tos_lossy ---- */

struct tos_ctx {
        const struct doctor_rule *rule;
        struct doctor_report *r;
};

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
        snprintf(x->summary, sizeof(x->summary), "%.63s %.63s: RDMA connections without a ToS of their own: %.320s", d->owner,
                 d->name, text_of(&v));
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
        snprintf(x->summary, sizeof(x->summary), "%.63s %.63s sends RDMA connections without a ToS of their own "
                 "with DSCP %u; on port %.63s of %.63s %.160s", p->node->name, p->iface->name, h->roce_tos >> 2,
                 p->linux_port ? p->linux_port->name : p->port->name, p->sw_name, text_of(&v));
        tos_fix(x, h->roce_tos);
}

void doctor_check_roce_tos(const struct doctor_facts *f, const struct doctor_params *p, struct doctor_report *r)
{
        struct tos_ctx c = { doctor_rule_find("roce_tos_lossy"), r };

        if (!c.rule)
                return;
        each_device(f, tos_host, &c);
        doctor_each_path(f, tos_path, &c);
}

/* ---- rdma_on_lossy_priority ---- */

static void rdma_lossy(struct tos_ctx *c, const struct doctor_params *p, const struct doctor_node *n,
                       const struct doctor_iface *ifc)
{
        const struct doctor_rates *rt = &ifc->rates;
        uint8_t pfc = state_has(&ifc->st, STATE_FIELD_PFC) ? ifc->st.pfc_enabled : 0;
        double rdma = doctor_rate_sum(rt, DOCTOR_RDMA_BYTES, DOCTOR_PRIO_ANY, NULL), lossless = 0, top = 0;
        bool known = false, k;
        int top_prio = -1;
        struct doctor_finding *x;

        for (int q = 0; q < STATE_PRIO_COUNT; q++) {
                double b = doctor_rate_sum(rt, DOCTOR_PRIO_BYTES, q, &k);

                known |= k;
                if (pfc & (1u << q))
                        lossless += b;
                else if (b > top) {
                        top = b;
                        top_prio = q;
                }
        }
        /* at least half the RoCE bytes cannot have ridden a lossless priority */
        if (!known || rdma < p->rdma_min_bytes_per_s || lossless >= rdma / 2 || top_prio < 0 ||
            !(x = doctor_finding_add(c->r, c->rule)))
                return;
        doctor_finding_node(x, n->name);
        doctor_finding_port(x, n->name, ifc->name);
        snprintf(x->summary, sizeof(x->summary), "%s %s: %.0f RoCE bytes/s, but its lossless priorities carry %.0f "
                 "bytes/s: RoCE rides priority %d (%.0f bytes/s), which has no PFC", n->name, ifc->name, rdma,
                 lossless, top_prio, top);
        doctor_ev_num(x, "rdma_bytes_per_s", round(rdma));
        doctor_ev_num(x, "lossless_bytes_per_s", round(lossless));
        doctor_ev_num(x, "priority", top_prio);
        doctor_ev_num(x, "priority_bytes_per_s", round(top));
        snprintf(x->fix, sizeof(x->fix), "send RoCE on the lossless class: the RDMA default ToS (policy roce_tos) for "
                 "rdma_cm applications, the applications' own ToS or service level for the others");
}

void doctor_check_rdma_lossy(const struct doctor_facts *f, const struct doctor_params *p, struct doctor_report *r)
{
        struct tos_ctx c = { doctor_rule_find("rdma_on_lossy_priority"), r };

        for (unsigned i = 0; c.rule && i < f->n_nodes; i++)
                for (unsigned k = 0; !f->nodes[i].error[0] && !f->nodes[i].switch_role && k < f->nodes[i].n_ifs; k++)
                        rdma_lossy(&c, p, &f->nodes[i], &f->nodes[i].ifs[k]);
}
