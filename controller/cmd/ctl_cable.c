/* SPDX-License-Identifier: MIT */
/*
 * The fleet pre-flight across the cable (plan and apply): every agent's doctor facts
 * (GET /v1/doctor, the shortest window: only the configuration is judged), then
 * doctor's path rules on the merged intent of both ends of every known path
 * (doctor_cable_check): a change that makes a consistent path inconsistent is refused,
 * naming both ends and the rule; a path inconsistent already is a note. Nothing is
 * changed by it.
 */
#include <stdio.h>

#include "common/log.h"
#include "controller/cmd/ctl_internal.h"
#include "controller/rollout/rollout.h"
#include "policies/doctor/doctor.h"

/*
 * The lossless class's fields the path rules relate: a policy without any of them is
 * not judged across the cable (an MTU-only policy neither: mtu_mismatch is judged with
 * the class, not alone).
 */
#define CABLE_FIELDS (STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_DSCP_MAP) | STATE_BIT(STATE_FIELD_PFC) | \
                      STATE_BIT(STATE_FIELD_HOST_ECN))
#define CABLE_WINDOW_S 0.1

/* "node001:ens1f0" -> "node001" */
static void node_of(const char *end, char *buf, size_t size)
{
        snprintf(buf, size, "%.*s", (int)strcspn(end, ":"), end);
}

static void add_note(json_t *notes, const char *node, const char *fmt, ...) _printf_(3, 4);
static void add_note(json_t *notes, const char *node, const char *fmt, ...)
{
        char text[900];
        json_t *one;
        va_list ap;

        if (!notes)
                return;
        va_start(ap, fmt);
        vsnprintf(text, sizeof(text), fmt, ap);
        va_end(ap);
        one = json_pack("[s]", text);
        if (one)
                rollout_notes_add(notes, node, one);
        json_decref(one);
}

static json_t *item_json(const struct doctor_cable_item *it)
{
        return json_pack("{s:s, s:s, s:[s, s], s:s, s:s}", "code", it->code, "severity",
                         doctor_severity_name(it->severity), "ends", it->ends[0], it->ends[1], "summary", it->summary,
                         "fix", it->fix);
}

int ctl_cable_preflight(struct ctl *c, const char *what, const struct policy *p,
                        const struct inventory_node *const *sel, unsigned n, json_t *notes, json_t **ret_refused)
{
        _cleanup_free_ const struct inventory_node **all = NULL;
        _cleanup_free_ const char **names = NULL;
        struct doctor_facts f;
        struct doctor_params params;
        struct doctor_cable cable = { 0 };
        char node[DOCTOR_NAME_MAX];
        int r;

        if (ret_refused)
                *ret_refused = NULL;
        if (!(p->spec.present & CABLE_FIELDS) || n == 0 || !c->inv || c->inv->n_nodes == 0)
                return 0;
        all = calloc(c->inv->n_nodes, sizeof(*all));
        names = calloc(n, sizeof(*names));
        if (!all || !names)
                return -ENOMEM;
        for (unsigned i = 0; i < c->inv->n_nodes; i++)
                all[i] = &c->inv->nodes[i];
        for (unsigned i = 0; i < n; i++)
                names[i] = sel[i]->name;
        doctor_facts_init(&f);
        doctor_params_default(&params);
        if ((r = ctl_doctor_collect(c, CABLE_WINDOW_S, all, c->inv->n_nodes, &f)) < 0) {
                doctor_facts_free(&f);
                return r;
        }
        for (unsigned i = 0; i < f.n_nodes; i++)
                if (f.nodes[i].error[0])
                        add_note(notes, f.nodes[i].name, "across the cable: not collected (%s): the paths through "
                                 "it are not checked", f.nodes[i].error);
        r = doctor_cable_check(&f, p, names, n, &params, &cable);
        doctor_facts_free(&f);
        if (r < 0)
                return r;
        for (unsigned i = 0; i < cable.n_already; i++) {
                const struct doctor_cable_item *it = &cable.already[i];

                node_of(it->ends[0], node, sizeof(node));
                add_note(notes, node, "across the cable: %s <-> %s is inconsistent already (%s): %s", it->ends[0],
                         it->ends[1], it->code, it->summary);
        }
        for (unsigned i = 0; i < cable.n_undeclared; i++) {
                const struct doctor_cable_item *it = &cable.undeclared[i];

                node_of(it->ends[0], node, sizeof(node));
                add_note(notes, node, "across the cable: %s <-> %s becomes inconsistent (%s), not refused: an end "
                         "declares no intent of its own (no committed policy): %s", it->ends[0], it->ends[1],
                         it->code, it->summary);
        }
        if (cable.n_broken && ret_refused && (*ret_refused = json_array()))
                for (unsigned i = 0; i < cable.n_broken; i++)
                        json_array_append_new(*ret_refused, item_json(&cable.broken[i]));
        for (unsigned i = 0; i < cable.n_broken; i++) {
                const struct doctor_cable_item *it = &cable.broken[i];

                log_err("%s: across the cable: %s <-> %s: %s: %s (fix: %s)", what, it->ends[0], it->ends[1], it->code,
                        it->summary, it->fix);
        }
        if (cable.n_broken)
                log_err("%s: the change breaks %u rule%s across the cable (a policy that means it lists the code "
                        "in $.checks.allow); no node was changed", what, cable.n_broken, cable.n_broken == 1 ? "" : "s");
        r = cable.n_broken ? -EINVAL : 0;
        doctor_cable_free(&cable);
        return r;
}
