/* SPDX-License-Identifier: MIT */
/* nettunectl drift [--selector KEY=VALUE]...: scan the fleet (GET /v1/drift), store the scan. */
#include <stdio.h>
#include <time.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/fleet/fleet.h"
#include "controller/rollout/rollout.h"
#include "policies/state/state_text.h"

/* --selector EXPR... and --heal (nothing else). */
static int parse_args(struct ctl *c, struct ctl_selector *only, bool *heal)
{
        for (int a = 0; a < c->argc; a++) {
                int r = ctl_take_selector(c, &a, only);

                if (r < 0)
                        return r;
                if (r == 0 && streq(c->argv[a], "--heal"))
                        *heal = true;
                else if (r == 0)
                        return ctl_bad_arg(c, c->argv[a]);
        }
        return 0;
}

/*
 * One answer as it comes: its node's line of the scan (a few hundred bytes), and the
 * agent's report only when it found drift (in sync, the report says nothing more).
 */
static void scan_node(const struct http_req *q, unsigned i, void *ud)
{
        struct drift_scan *scan = ud;
        struct drift_node *d = &scan->nodes[i];
        struct reply_drift rd = { 0 };
        struct errbuf e = { 0 };

        snprintf(d->name, sizeof(d->name), "%s", ((const struct inventory_node *)q->user)->name);
        if (q->err < 0 || q->status != 200) {
                if (q->err < 0)
                        http_req_error(q, d->error, sizeof(d->error));
                else
                        reply_error_text(q->status, q->resp, q->resp_len, d->error, sizeof(d->error));
        } else if (reply_parse_drift(q->resp, q->resp_len, &rd, &e) < 0) {
                snprintf(d->error, sizeof(d->error), "invalid answer: %.200s", e.msg);
        } else {
                d->reached = true;
                d->drifted = rd.drifted;
                d->report = rd.drifted ? json_dumps(rd.doc, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
                reply_drift_done(&rd);
        }
        scan->n_unreachable += !d->reached;
        scan->n_drifted += d->drifted;
}

/*
 * What the agent says of its drift, line by line: "  vA mtu: 1500 (committed: 9000)",
 * and the policy that owns the field where the agent names it (layers).
 */
static void print_changes(const json_t *rep)
{
        char from[256], to[256], owner[128];
        size_t i;
        json_t *ch;

        json_array_foreach(json_object_get(rep, "changes"), i, ch) {
                const json_t *o = json_object_get(ch, "owner");

                owner[0] = '\0';
                if (o)
                        snprintf(owner, sizeof(owner), " by policy '%s' revision %lld",
                                 json_string_value(json_object_get(o, "policy")),
                                 (long long)json_integer_value(json_object_get(o, "revision")));
                printf("  %s %s: %s (committed: %s)%s\n", json_string_value(json_object_get(ch, "target")),
                       json_string_value(json_object_get(ch, "key")),
                       state_text_value("", json_object_get(ch, "from"), from, sizeof(from)),
                       state_text_value("", json_object_get(ch, "to"), to, sizeof(to)), owner);
        }
}

static void print_text(const struct drift_scan *s)
{
        for (unsigned i = 0; i < s->n_nodes; i++) {
                const struct drift_node *d = &s->nodes[i];
                json_t *rep;

                if (!d->reached && !strncmp(d->error, "unreachable", 11)) {
                        printf("%s: %s\n", d->name, d->error);      /* "unreachable (...)", said once */
                        continue;
                }
                printf("%s: %s%s%s\n", d->name, !d->reached ? "unreachable" : d->drifted ? "drift" : "in sync",
                       d->error[0] ? ": " : "", d->error);
                rep = d->drifted && d->report ? json_loads(d->report, 0, NULL) : NULL;
                print_changes(rep);
                json_decref(rep);
        }
        printf("drift scan %lld: %u node%s, %u drifted, %u unreachable\n", s->id, s->n_nodes,
               s->n_nodes == 1 ? "" : "s", s->n_drifted, s->n_unreachable);
}

/* The scan as JSON; "report" is the agent's answer for a node that found drift (null otherwise). */
static void print_json(const struct drift_scan *s)
{
        json_t *nodes = json_array(), *j;

        for (unsigned i = 0; i < s->n_nodes; i++) {
                const struct drift_node *d = &s->nodes[i];
                json_t *rep = d->report ? json_loads(d->report, 0, NULL) : NULL;

                json_array_append_new(nodes, json_pack("{s:s, s:b, s:b, s:o?, s:s?}", "name", d->name,
                                                       "reached", d->reached, "drifted", d->drifted,
                                                       "report", rep, "error", d->error[0] ? d->error : NULL));
        }
        j = json_pack("{s:I, s:o, s:i, s:i, s:i, s:o}", "scan", (json_int_t)s->id, "at", output_time_json(s->at),
                      "nodes_scanned", (int)s->n_nodes, "drifted", (int)s->n_drifted,
                      "unreachable", (int)s->n_unreachable, "nodes", nodes);
        output_json(j);
        json_decref(j);
}

int ctl_drift_scan(struct ctl *c, const struct inventory_node *const *sel, unsigned n, struct drift_scan *ret,
                   struct errbuf *e)
{
        struct drift_scan scan = { .at = (long long)time(NULL), .n_nodes = n, .nodes = calloc(n + 1, sizeof(*scan.nodes)) };
        struct ctl_query_each each = { .fn = scan_node, .ud = &scan };
        int r = scan.nodes ? ctl_query_each(c, sel, n, "GET", "/v1/drift", NULL, &each, NULL) : -ENOMEM;

        if (r < 0) {
                ctl_drift_scan_free(&scan);
                return errbuf_set(e, -r, "", "cannot query the agents: %s", strerror(-r));
        }
        r = store_drift_save(c->store, &scan, e);
        if (r < 0) {
                ctl_drift_scan_free(&scan);
                return r;
        }
        *ret = scan;
        return 0;
}

void ctl_drift_scan_free(struct drift_scan *scan)
{
        for (unsigned i = 0; scan->nodes && i < scan->n_nodes; i++)
                free(scan->nodes[i].report);
        free(scan->nodes);
        scan->nodes = NULL;
}

int ctl_cmd_drift(struct ctl *c)
{
        _cleanup_free_ const struct inventory_node **sel = NULL;
        struct ctl_selector only = { 0 };
        struct drift_scan scan;
        struct errbuf e = { 0 };
        bool heal = false;
        unsigned n;
        int r;

        if (parse_args(c, &only, &heal) < 0)
                return OUTCOME_INVALID;
        if ((r = ctl_need_inventory(c)) > 0 || (r = ctl_select_only(c, NULL, &only, &sel, &n)) > 0)
                return r;
        if ((r = ctl_need_http(c)) > 0 || (r = ctl_need_store(c)) > 0)
                return r;
        if (ctl_drift_scan(c, sel, n, &scan, &e) < 0)
                return ctl_fail(&e);
        if (c->json)
                print_json(&scan);
        else
                print_text(&scan);
        r = heal && scan.n_drifted ? ctl_drift_heal(c, &scan) : -1;     /* healed: the rollouts' exit code */
        ctl_drift_scan_free(&scan);
        if (r >= 0)
                return r;
        return scan.n_drifted ? OUTCOME_ROLLED_BACK : scan.n_unreachable ? OUTCOME_RUNTIME : OUTCOME_OK;
}
