/* SPDX-License-Identifier: MIT */
/* nettunectl drift [--label KEY=VALUE]...: scan the fleet (GET /v1/drift), store the scan. */
#include <stdio.h>
#include <time.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/fleet/fleet.h"
#include "controller/rollout/rollout.h"

/* Keep only nodes carrying every --label KEY=VALUE. */
static int filter_labels(struct ctl *c, const struct inventory_node **sel, unsigned *n)
{
        unsigned k = 0;

        for (int a = 0; a < c->argc; a++)
                if (!streq(c->argv[a], "--label") || a + 1 >= c->argc || !strchr(c->argv[a + 1], '=')) {
                        log_err("drift: unexpected argument '%s'; usage: nettunectl drift [--label KEY=VALUE]...",
                                c->argv[a]);
                        return -EINVAL;
                } else {
                        a++;
                }
        for (unsigned i = 0; i < *n; i++) {
                bool ok = true;

                for (int a = 1; a < c->argc; a += 2) {
                        char key[POLICY_LABEL_MAX];
                        const char *eq = strchr(c->argv[a], '=');

                        snprintf(key, sizeof(key), "%.*s", (int)(eq - c->argv[a]), c->argv[a]);
                        ok &= inventory_node_has_label(sel[i], key, eq + 1);
                }
                if (ok)
                        sel[k++] = sel[i];
        }
        *n = k;
        return 0;
}

static void scan_node(const struct http_req *q, struct drift_node *d, struct drift_scan *scan)
{
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
                d->report = json_dumps(rd.doc, JSON_COMPACT | JSON_SORT_KEYS);
                reply_drift_done(&rd);
        }
        scan->n_unreachable += !d->reached;
        scan->n_drifted += d->drifted;
}

static void print_scan(const struct drift_scan *s, bool json)
{
        json_t *nodes = json_array(), *j;

        for (unsigned i = 0; i < s->n_nodes; i++) {
                const struct drift_node *d = &s->nodes[i];
                json_t *rep = d->report ? json_loads(d->report, 0, NULL) : NULL;

                if (!json) {
                        printf("%s: %s%s%s\n", d->name, !d->reached ? "unreachable" : d->drifted ? "drift" : "in sync",
                               d->error[0] ? ": " : "", d->error);
                        if (d->drifted && d->report)
                                printf("  %s\n", d->report);
                }
                json_array_append_new(nodes, json_pack("{s:s, s:b, s:b, s:o?, s:s?}", "name", d->name,
                                                       "reached", d->reached, "drifted", d->drifted,
                                                       "report", rep, "error", d->error[0] ? d->error : NULL));
        }
        if (!json)
                printf("drift scan %lld: %u node%s, %u drifted, %u unreachable\n", s->id, s->n_nodes,
                       s->n_nodes == 1 ? "" : "s", s->n_drifted, s->n_unreachable);
        j = json_pack("{s:I, s:I, s:i, s:i, s:i, s:o}", "scan", (json_int_t)s->id, "at", (json_int_t)s->at,
                      "nodes_scanned", (int)s->n_nodes, "drifted", (int)s->n_drifted,
                      "unreachable", (int)s->n_unreachable, "nodes", nodes);
        if (json)
                output_json(j);
        json_decref(j);
}

int ctl_drift_scan(struct ctl *c, const struct inventory_node *const *sel, unsigned n, struct drift_scan *ret,
                   struct errbuf *e)
{
        struct drift_scan scan = { .at = (long long)time(NULL) };
        struct http_req *reqs = NULL;
        int r = ctl_query(c, sel, n, "GET", "/v1/drift", NULL, &reqs);

        if (r < 0)
                return errbuf_set(e, -r, "", "cannot query the agents: %s", strerror(-r));
        scan.nodes = calloc(n + 1, sizeof(*scan.nodes));
        scan.n_nodes = n;
        for (unsigned i = 0; scan.nodes && i < n; i++)
                scan_node(&reqs[i], &scan.nodes[i], &scan);
        ctl_query_free(reqs, n);
        r = scan.nodes ? store_drift_save(c->store, &scan, e) : errbuf_set(e, ENOMEM, "", "out of memory");
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
        struct drift_scan scan;
        struct errbuf e = { 0 };
        unsigned n;
        int r;

        if ((r = ctl_need_http(c)) > 0 || (r = ctl_need_store(c)) > 0)
                return r;
        if (ctl_select(c, NULL, &sel, &n) < 0 || filter_labels(c, sel, &n) < 0)
                return OUTCOME_INVALID;
        if (ctl_drift_scan(c, sel, n, &scan, &e) < 0)
                return ctl_fail(&e);
        print_scan(&scan, c->json);
        ctl_drift_scan_free(&scan);
        return scan.n_drifted ? OUTCOME_ROLLED_BACK : scan.n_unreachable ? OUTCOME_RUNTIME : OUTCOME_OK;
}
