/* SPDX-License-Identifier: MIT */
/*
 * Running the doctor: every row of doctor_rules[] over the facts, each check given its
 * own row, then what the proposal fixes of the lossless class, the findings sorted
 * (severity, then table order). The top of the doctor's files: it calls the table
 * (doctor_rules.c), the class (doctor_lossless.c) and the report (doctor_report.c),
 * and nothing calls back into it.
 */
#include "policies/doctor/doctor.h"

/* The rules a missing path leaves unchecked, named once. */
static void path_rules(char *buf, size_t size)
{
        size_t o = 0;

        buf[0] = '\0';
        for (unsigned i = 0; i < doctor_rules_n && o < size; i++)
                if (doctor_rules[i].needs_path)
                        o += (size_t)snprintf(buf + o, size - o, "%s%s", o ? ", " : "", doctor_rules[i].code);
}

static void collection_notes(const struct doctor_facts *f, struct doctor_report *r)
{
        char rules[256];

        path_rules(rules, sizeof(rules));
        for (unsigned i = 0; i < f->n_nodes; i++) {
                const struct doctor_node *n = &f->nodes[i];

                r->n_nodes++;
                if (n->error[0]) {
                        doctor_report_note(r, "%s: not collected: %s", n->name, n->error);
                        continue;
                }
                r->n_collected++;
                for (unsigned k = 0; k < n->n_notes; k++)
                        doctor_report_note(r, "%s: %s", n->name, n->notes[k]);
                for (unsigned s = 0; s < n->n_switches; s++)
                        if (n->switches[s].error[0])
                                doctor_report_note(r, "%s: switch '%s' could not be read: %s", n->name,
                                                   n->switches[s].name, n->switches[s].error);
                for (unsigned k = 0; !n->switch_role && k < n->n_ifs; k++) {
                        struct doctor_path p;
                        char why[DOCTOR_NOTE_MAX];

                        if (doctor_iface_roce(&n->ifs[k]) && doctor_path(f, n, &n->ifs[k], &p, why, sizeof(why)) <= 0)
                                doctor_report_note(r, "%s %s: path unknown (%s); not checked: %s", n->name,
                                                   n->ifs[k].name, why, rules);
                }
        }
}

static unsigned rule_index(const struct doctor_rule *rule)
{
        return (unsigned)(rule - doctor_rules);
}

static int finding_cmp(const void *a, const void *b)
{
        const struct doctor_finding *x = a, *y = b;

        if (x->severity != y->severity)
                return x->severity > y->severity ? -1 : 1;
        if (x->rule != y->rule)
                return rule_index(x->rule) < rule_index(y->rule) ? -1 : 1;
        return strcmp(x->ports[0], y->ports[0]);
}

/*
 * The policies committed on the nodes that manage the proposal's targets (facts:
 * node.policy, "a, b" when several): the proposal lists them in metadata.overrides,
 * so that it may declare the fields they own (docs/policy-reference.md, "Layers and owners").
 */
static void proposal_overrides(const struct doctor_facts *f, struct doctor_proposal *pr)
{
        for (unsigned i = 0; i < f->n_nodes; i++) {
                const struct doctor_node *n = &f->nodes[i];
                bool manages = false;
                char names[sizeof(n->policy)], *save = NULL;

                for (unsigned k = 0; k < pr->n_nodes; k++)
                        manages |= streq(pr->nodes[k], n->name);
                if (!manages || !n->policy[0])
                        continue;
                snprintf(names, sizeof(names), "%s", n->policy);
                for (char *t = strtok_r(names, ", ", &save); t; t = strtok_r(NULL, ", ", &save)) {
                        bool have = false;

                        for (unsigned k = 0; k < pr->n_overrides; k++)
                                have |= streq(pr->overrides[k], t);
                        if (!have && pr->n_overrides < POLICY_OVERRIDES_MAX)
                                snprintf(pr->overrides[pr->n_overrides++], DOCTOR_NAME_MAX, "%s", t);
                }
        }
}

int doctor_run(const struct doctor_facts *f, const struct doctor_params *p, struct doctor_report *r)
{
        collection_notes(f, r);
        for (unsigned i = 0; i < doctor_rules_n; i++)
                doctor_rules[i].check(&doctor_rules[i], f, p, r);
        doctor_lossless_fixed(f, p, r);
        proposal_overrides(f, &r->prop);
        if (r->n)
                qsort(r->v, r->n, sizeof(*r->v), finding_cmp);
        return 0;
}
