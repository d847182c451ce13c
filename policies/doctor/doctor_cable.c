/* SPDX-License-Identifier: MIT */
/*
 * Across the cable, before a change (doctor.h, doctor_cable_check): doctor's path
 * rules (the rows of doctor_rules[] that need a path: mtu_mismatch, trust_mismatch,
 * dscp_map_mismatch, pfc_priority_mismatch, cnp_priority_mismatch) run twice over the
 * fleet's facts — as they are, and with the policy's fields put over every target its
 * rollout's nodes manage (state_merge: what applying them would leave). A finding of
 * the second run that the first did not have is what the change breaks, when both
 * ends declare an intent (else a path that becomes inconsistent against an end left at
 * its defaults: noted); one both runs have is a path inconsistent already. A code the
 * policy waives (checks.allow) is none of them. The same checks as doctor's, not a copy: one engine judges before and after.
 */
#include "policies/doctor/doctor.h"
#include "policies/state/field.h"

static bool in_rollout(const char *const *nodes, unsigned n, const char *name)
{
        for (unsigned i = 0; i < n; i++)
                if (streq(nodes[i], name))
                        return true;
        return false;
}

/* Does a node of the rollout manage port `port` of switch `sw` (its configuration lists it)? */
static bool port_changes(const struct doctor_facts *f, const char *const *nodes, unsigned n, const char *sw,
                         const char *port)
{
        for (unsigned i = 0; i < f->n_nodes; i++) {
                const struct doctor_node *nd = &f->nodes[i];

                if (nd->error[0] || !in_rollout(nodes, n, nd->name))
                        continue;
                for (unsigned s = 0; s < nd->n_switches; s++)
                        for (unsigned k = 0; streq(nd->switches[s].name, sw) && k < nd->switches[s].n_ports; k++)
                                if (streq(nd->switches[s].ports[k].name, port))
                                        return true;
        }
        return false;
}

/* The policy's fields over one place's live state, as applying them would leave it: an optional field the
 * place does not have (host_ecn with optional, on a NIC without its knobs) is left out, as the plan leaves it. */
static void merge_one(struct state *live, const struct state *spec)
{
        uint32_t skip = field_optional(spec, spec->present) & ~live->present;

        state_merge(live, spec, spec->present & ~skip);
}

/* The merged intent: the policy's fields over every target the rollout's nodes manage (every copy of a port). */
static void merge(struct doctor_facts *f, const struct policy *pol, const char *const *nodes, unsigned n)
{

        for (unsigned i = 0; i < f->n_nodes; i++) {
                struct doctor_node *nd = &f->nodes[i];

                if (nd->error[0])
                        continue;
                for (unsigned k = 0; in_rollout(nodes, n, nd->name) && k < nd->n_ifs; k++)
                        if (policy_targets_interface(pol, nd->ifs[k].name))
                                merge_one(&nd->ifs[k].st, &pol->spec);
                for (unsigned s = 0; s < nd->n_switches; s++) {
                        struct doctor_switch *sw = &nd->switches[s];

                        if (sw->error[0] || !policy_targets_switch(pol, sw->name))
                                continue;
                        for (unsigned k = 0; k < sw->n_ports; k++)
                                if (port_changes(f, nodes, n, sw->name, sw->ports[k].name))
                                        merge_one(&sw->ports[k].st, &pol->spec);
                }
        }
}

/* Every path rule over f into r. */
static void path_rules(const struct doctor_facts *f, const struct doctor_params *p, struct doctor_report *r)
{
        for (unsigned i = 0; i < doctor_rules_n; i++)
                if (doctor_rules[i].needs_path)
                        doctor_rules[i].check(&doctor_rules[i], f, p, r);
}

/* The evidence that tells one finding of a rule on a path from another (dscp_map_mismatch: per DSCP). */
static double instance(const struct doctor_finding *x)
{
        for (unsigned i = 0; i < x->n_ev; i++)
                if (x->ev[i].is_num && (streq(x->ev[i].key, "dscp") || streq(x->ev[i].key, "cnp_dscp")))
                        return x->ev[i].num;
        return -1;
}

static bool same(const struct doctor_finding *a, const struct doctor_finding *b)
{
        if (a->rule != b->rule || a->n_ports != b->n_ports || instance(a) != instance(b))
                return false;
        for (unsigned i = 0; i < a->n_ports; i++)
                if (!streq(a->ports[i], b->ports[i]))
                        return false;
        return true;
}

static bool found_in(const struct doctor_report *r, const struct doctor_finding *x)
{
        for (unsigned i = 0; i < r->n; i++)
                if (same(&r->v[i], x))
                        return true;
        return false;
}

/* A finding that touches a node of the rollout. */
static bool touches(const struct doctor_finding *x, const char *const *nodes, unsigned n)
{
        for (unsigned i = 0; i < x->n_nodes; i++)
                if (in_rollout(nodes, n, x->nodes[i]))
                        return true;
        return false;
}

static int keep(struct doctor_cable_item **v, unsigned *n, const struct doctor_finding *x)
{
        struct doctor_cable_item *it = doctor_append(v, n, sizeof(*it));

        if (!it)
                return -ENOMEM;
        it->code = x->rule->code;
        it->severity = x->severity;
        snprintf(it->ends[0], sizeof(it->ends[0]), "%s", x->n_ports > 0 ? x->ports[0] : "");
        snprintf(it->ends[1], sizeof(it->ends[1]), "%s", x->n_ports > 1 ? x->ports[1] : "");
        snprintf(it->summary, sizeof(it->summary), "%s", x->summary);
        snprintf(it->fix, sizeof(it->fix), "%s", x->fix);
        return 0;
}

static const struct doctor_node *node_named(const struct doctor_facts *f, const char *name)
{
        for (unsigned i = 0; i < f->n_nodes; i++)
                if (streq(f->nodes[i].name, name))
                        return &f->nodes[i];
        return NULL;
}

/*
 * Does each end of the finding's path have an intent for the class — the host
 * interface a target of a committed policy (facts: managed) or of this one on a node
 * of the rollout; the switch port's managing node a committed policy, or this one
 * naming the switch (a Linux switch: its port) on a node of the rollout? An end that
 * declares nothing runs its defaults: the path is then noted, not refused.
 */
static bool both_declared(const struct doctor_facts *f, const struct policy *pol, const char *const *nodes,
                          unsigned n, const struct doctor_finding *x)
{
        const struct doctor_node *h = node_named(f, x->nodes[0]),
                                 *m = node_named(f, x->nodes[x->n_nodes > 1 ? 1 : 0]);
        const char *hif = x->n_ports > 0 ? strchr(x->ports[0], ':') : NULL,
                   *port = x->n_ports > 1 ? strchr(x->ports[1], ':') : NULL;
        char sw[DOCTOR_NAME_MAX];
        bool host = false, swd;

        if (!h || !m || !hif || !port)
                return false;
        hif++;
        snprintf(sw, sizeof(sw), "%.*s", (int)(port - x->ports[1]), x->ports[1]);
        port++;
        for (unsigned k = 0; k < h->n_ifs && !host; k++)
                if (streq(h->ifs[k].name, hif))
                        host = h->ifs[k].managed;
        host |= in_rollout(nodes, n, h->name) && policy_targets_interface(pol, hif);
        swd = m->policy[0] || (in_rollout(nodes, n, m->name) &&
                               (m->switch_role ? policy_targets_interface(pol, port) : policy_targets_switch(pol, sw)));
        return host && swd;
}

static bool waived(const struct policy *pol, const char *code)
{
        int k = policy_cable_check_from_name(code);

        return k >= 0 && (pol->checks_allow_cable & LOSSLESS_BIT(k));
}

int doctor_cable_check(struct doctor_facts *f, const struct policy *pol, const char *const *nodes, unsigned n,
                       const struct doctor_params *p, struct doctor_cable *ret)
{
        struct doctor_report before, after;
        int r = 0;

        memset(ret, 0, sizeof(*ret));
        doctor_report_init(&before);
        doctor_report_init(&after);
        path_rules(f, p, &before);
        merge(f, pol, nodes, n);
        path_rules(f, p, &after);
        for (unsigned i = 0; i < after.n && r >= 0; i++) {
                const struct doctor_finding *x = &after.v[i];

                if (!touches(x, nodes, n))
                        continue;
                if (waived(pol, x->rule->code))
                        ret->n_waived++;
                else if (found_in(&before, x))
                        r = keep(&ret->already, &ret->n_already, x);
                else if (both_declared(f, pol, nodes, n, x))
                        r = keep(&ret->broken, &ret->n_broken, x);
                else
                        r = keep(&ret->undeclared, &ret->n_undeclared, x);
        }
        doctor_report_free(&before);
        doctor_report_free(&after);
        if (r < 0)
                doctor_cable_free(ret);
        return r;
}

void doctor_cable_free(struct doctor_cable *c)
{
        if (!c)
                return;
        free(c->broken);
        free(c->already);
        free(c->undeclared);
        memset(c, 0, sizeof(*c));
}
