/* SPDX-License-Identifier: MIT */
/* nettunectl plan POLICY [--selector KEY=VALUE]...: every selected agent's diff, concurrently, and a fleet summary. */
#include <stdio.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/fleet/fleet.h"
#include "controller/rollout/rollout.h"
#include "policies/policy/policy.h"
#include "policies/state/state.h"
#include "policies/state/state_text.h"

struct plan_sum {
        unsigned changing, unchanged, unreachable, invalid;
        unsigned field_nodes[STATE_FIELD_MAX];
        json_t *notes;                  /* the agents' notes, each with the nodes that say it */
};

/* A node that answered 4xx refuses the policy: invalid there (outcome_of_http_status), with the path it names. */
static json_t *node_refuses(const struct http_req *q, struct plan_sum *s)
{
        const struct inventory_node *n = q->user;
        char path[128], msg[300], why[400];

        s->invalid++;
        reply_error_path(q->resp, q->resp_len, path, sizeof(path));
        if (!reply_error_message(q->resp, q->resp_len, msg, sizeof(msg))[0])
                reply_error_text(q->status, q->resp, q->resp_len, msg, sizeof(msg));
        snprintf(why, sizeof(why), "%s%s%.250s", path, path[0] ? ": " : "", msg);
        return json_pack("{s:s, s:b, s:b, s:s, s:s?}", "name", n->name, "reached", 1, "invalid", 1, "error", why,
                         "path", path[0] ? path : NULL);
}

static json_t *node_result(const struct http_req *q, struct plan_sum *s)
{
        const struct inventory_node *n = q->user;
        struct reply_plan p = { 0 };
        struct errbuf e = { 0 };
        char why[400];

        if (q->err == 0 && outcome_of_http_status((int)q->status) == OUTCOME_INVALID)
                return node_refuses(q, s);
        if (q->err < 0 || q->status != 200 || reply_parse_plan(q->resp, q->resp_len, &p, &e) < 0) {
                if (q->err < 0)
                        http_req_error(q, why, sizeof(why));
                else if (q->status != 200)
                        reply_error_text(q->status, q->resp, q->resp_len, why, sizeof(why));
                else
                        snprintf(why, sizeof(why), "invalid answer: %.200s", e.msg);
                s->unreachable++;
                return json_pack("{s:s, s:b, s:s}", "name", n->name, "reached", 0, "error", why);
        }
        if (p.n_changes) {
                s->changing++;
                for (int f = 0; f < STATE_FIELD_MAX; f++)
                        s->field_nodes[f] += !!(p.fields & STATE_BIT(f));
        } else {
                s->unchanged++;
        }
        if (s->notes)
                rollout_notes_add(s->notes, n->name, p.notes);
        return json_pack("{s:s, s:b, s:o, s:o}", "name", n->name, "reached", 1, "changes", p.changes, "notes",
                         p.notes ? p.notes : json_array());
}

static json_t *summary_json(const struct plan_sum *s, unsigned n)
{
        json_t *fields = json_object();

        for (int f = 0; f < STATE_FIELD_MAX; f++)
                if (s->field_nodes[f])
                        json_object_set_new(fields, state_field_name(f), json_integer(s->field_nodes[f]));
        return json_pack("{s:i, s:i, s:i, s:i, s:i, s:o}", "selected", (int)n, "changing", (int)s->changing,
                         "unchanged", (int)s->unchanged, "unreachable", (int)s->unreachable,
                         "invalid", (int)s->invalid, "fields", fields);
}

static const char *str_of(const json_t *o, const char *k)
{
        const char *v = json_string_value(json_object_get(o, k));

        return v ? v : "?";
}

static void print_text(const json_t *nodes, const struct plan_sum *s, unsigned n)
{
        size_t i;
        json_t *node;
        char *text;

        printf("plan: %u node%s selected: %u changing, %u unchanged, %u unreachable, %u invalid\n", n,
               n == 1 ? "" : "s", s->changing, s->unchanged, s->unreachable, s->invalid);
        for (int f = 0; f < STATE_FIELD_MAX; f++)
                if (s->field_nodes[f])
                        printf("  %-18s changes on %u node%s\n", state_field_name(f), s->field_nodes[f],
                               s->field_nodes[f] == 1 ? "" : "s");
        json_array_foreach(nodes, i, node) {
                const json_t *changes = json_object_get(node, "changes");

                if (!json_is_true(json_object_get(node, "reached"))) {
                        const char *why = str_of(node, "error");

                        printf("%s: %s%s\n", str_of(node, "name"), strncmp(why, "unreachable", 11) ? "unreachable: " : "",
                               why);
                        continue;
                }
                if (json_is_true(json_object_get(node, "invalid"))) {
                        printf("%s: invalid: %s\n", str_of(node, "name"), str_of(node, "error"));
                        continue;
                }
                printf("%s: %zu change%s\n", str_of(node, "name"), json_array_size(changes),
                       json_array_size(changes) == 1 ? "" : "s");
                if (json_is_string(json_object_get(node, "part")))     /* one profile for hosts and switches */
                        printf("  carries: %s\n", str_of(node, "part"));
                text = rollout_changes_text(changes, "  ");     /* the same change on many ports: one line */
                if (text)
                        printf("%s", text);
                free(text);
        }
}

/*
 * A policy with switch targets: each node asked with its part (ctl_parts.c), its
 * answer marked with what it carries ("part": "hosts, switch leaf1"). *ret_n: nodes.
 */
/* The parts of a policy with switch targets, each to its nodes; *ret_sel: every node that carries one. */
static int plan_parts(struct ctl *c, const struct policy *p, const char *doc, const struct ctl_selector *only,
                      struct plan_sum *s, json_t *nodes, const struct inventory_node ***ret_sel, unsigned *ret_n)
{
        struct ctl_parts pp;
        json_t **out;
        int r = ctl_parts_make(c, p, doc, only, &pp);

        if (r < 0)
                return r == -EHOSTUNREACH ? OUTCOME_RUNTIME : OUTCOME_INVALID;
        if (pp.n == 0) {
                log_err("plan: the policy's selector and switches name no node of '%s'; nothing was changed",
                        c->inventory_path);
                ctl_parts_free(&pp);
                return OUTCOME_INVALID;
        }
        out = calloc(pp.n + 1, sizeof(*out));
        for (unsigned d = 0; out && d < pp.n_docs; d++) {
                const struct inventory_node **sel = calloc(pp.n + 1, sizeof(*sel));
                unsigned *idx = calloc(pp.n + 1, sizeof(*idx)), k = 0;
                struct http_req *reqs = NULL;

                for (unsigned i = 0; sel && idx && i < pp.n; i++)
                        if (pp.doc_of[i] == d) {
                                idx[k] = i;
                                sel[k++] = pp.nodes[i];
                        }
                r = sel && idx ? ctl_query(c, sel, k, "POST", "/v1/plan", pp.docs[d], &reqs) : -ENOMEM;
                for (unsigned i = 0; r >= 0 && i < k; i++) {
                        out[idx[i]] = node_result(&reqs[i], s);
                        json_object_set_new(out[idx[i]], "part", json_string(pp.what[idx[i]]));
                }
                if (r >= 0)
                        ctl_query_free(reqs, k);
                free(sel);
                free(idx);
                if (r < 0)
                        break;
        }
        for (unsigned i = 0; out && i < pp.n; i++)
                if (out[i])
                        json_array_append_new(nodes, out[i]);
        *ret_n = pp.n;
        *ret_sel = calloc(pp.n + 1, sizeof(**ret_sel));
        for (unsigned i = 0; *ret_sel && i < pp.n; i++)
                (*ret_sel)[i] = pp.nodes[i];
        free(out);
        ctl_parts_free(&pp);
        if (!out || r < 0) {
                log_err("cannot query the agents: %s", strerror(out ? -r : ENOMEM));
                return OUTCOME_RUNTIME;
        }
        return 0;
}

static int plan(struct ctl *c, const char *file, const char *doc, const struct policy *p,
                const struct ctl_selector *only)
{
        _cleanup_free_ const struct inventory_node **sel = NULL;
        struct http_req *reqs = NULL;
        struct plan_sum s = { .notes = json_array() };
        json_t *nodes, *refused = NULL;
        unsigned n = 0;
        int r;

        if (p->n_switches) {
                nodes = json_array();
                r = plan_parts(c, p, doc, only, &s, nodes, &sel, &n);
                if (r > 0) {
                        json_decref(nodes);
                        json_decref(s.notes);
                        return r;
                }
                goto report;
        }
        r = ctl_select_only(c, p, only, &sel, &n);
        if (r > 0 || (r = ctl_query(c, sel, n, "POST", "/v1/plan", doc, &reqs)) < 0) {
                json_decref(s.notes);
                if (r > 0)
                        return r;
                log_err("cannot query the agents: %s", strerror(-r));
                return OUTCOME_RUNTIME;
        }
        nodes = json_array();
        for (unsigned i = 0; i < n; i++)
                json_array_append_new(nodes, node_result(&reqs[i], &s));
        ctl_query_free(reqs, n);
report:
        /* across the cable: only a policy every reached node accepts */
        r = 0;
        if (!s.invalid && sel && (r = ctl_cable_preflight(c, file, p, sel, n, s.notes, &refused)) < 0 &&
            r != -EINVAL) {
                log_err("%s: across the cable: %s", file, strerror(-r));
                s.unreachable++;
        }
        if (c->json) {
                json_t *j = json_pack("{s:s, s:o, s:O, s:O, s:o}", "policy", p->name, "summary", summary_json(&s, n),
                                      "nodes", nodes, "notes", s.notes, "cable_refused",
                                      refused ? refused : json_array());

                output_json(j);
                json_decref(j);
        } else {
                print_text(nodes, &s, n);
                rollout_notes_print(stdout, s.notes);   /* each note once, with the nodes that say it */
                json_decref(refused);
        }
        json_decref(nodes);
        json_decref(s.notes);
        return s.invalid || r == -EINVAL ? OUTCOME_INVALID : s.unreachable ? OUTCOME_RUNTIME : OUTCOME_OK;
}

int ctl_cmd_plan(struct ctl *c)
{
        _cleanup_free_ char *doc = NULL;
        struct ctl_selector only = { 0 };
        struct policy *p = NULL;
        struct errbuf e = { 0 };
        const char *file = NULL;
        char buf[ERRBUF_STR_MAX];
        size_t len;
        int r;

        for (int i = 0; i < c->argc; i++) {
                r = ctl_take_selector(c, &i, &only);
                if (r < 0)
                        return OUTCOME_INVALID;
                if (r == 0 && (file || c->argv[i][0] == '-'))
                        return ctl_bad_arg(c, c->argv[i]), OUTCOME_INVALID;
                if (r == 0)
                        file = c->argv[i];
        }
        if (!file) {
                log_err("plan: no policy file given; see 'nettunectl plan --help'");
                return OUTCOME_INVALID;
        }
        if (ctl_read_file(file, POLICY_DOC_MAX, &doc, &len) < 0)
                return OUTCOME_INVALID;
        if (policy_parse_buffer(doc, len, file, &p, &e) < 0 || ctl_policy_json(file, &doc, &len, &e) < 0) {
                log_err("%s", errbuf_str(&e, buf, sizeof(buf)));
                policy_free(p);
                return OUTCOME_INVALID;
        }
        r = ctl_need_http(c);
        if (r == 0)
                r = plan(c, file, doc, p, &only);
        policy_free(p);
        return r;
}
