/* SPDX-License-Identifier: MIT */
/*
 * nettunectl state [--selector KEY=VALUE]...: the fleet's live knobs in one table.
 * Every selected node is asked at once for its live state (GET /v1/state: the
 * targets of the policy it last committed, every field read) and its drift
 * (GET /v1/drift); one row per node and interface (or switch port), one column
 * per knob, as `nettune-agent state` writes each value (policies/state/state_text.h).
 * A cell that differs from what the node committed is marked '*' and the
 * differences are listed below. Read only; nothing is stored.
 */
#include <stdio.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/fleet/fleet.h"
#include "controller/rollout/rollout.h"
#include "policies/state/state_text.h"

#define CELL_MAX 160

/* The columns, in this order; a column nobody has is left out. */
static const struct { const char *key, *title; } knobs[] = {
        { "mtu", "MTU" }, { "trust", "TRUST" }, { "dscp_to_priority", "DSCP->PRIO" }, { "pfc", "PFC" },
        { "ets", "ETS" }, { "host_ecn", "HOST_ECN" }, { "ecn", "ECN" },
};

struct view {
        const struct inventory_node *node;
        json_t *targets;                /* [{name, kind, state, drifted: [field]}], or NULL: unreachable */
        json_t *changes;                /* the drift's [{target, field, key, from, to}] */
        const char *policy;             /* borrowed from the state answer */
        json_t *answer;
        char error[300];
        bool unreached;                 /* the request failed before an answer: error says how */
};

static void answer_error(const struct http_req *q, char *buf, size_t size)
{
        if (q->err < 0)
                http_req_error(q, buf, size);
        else
                reply_error_text(q->status, q->resp, q->resp_len, buf, size);
}

/* The fields of changes drifted on target (and, on a switch, its port). */
static json_t *drifted_fields(const json_t *changes, const char *target, const char *port)
{
        json_t *out = json_array(), *ch;
        char prefix[160];
        size_t i;

        snprintf(prefix, sizeof(prefix), "ports.%s.", port ? port : "");
        json_array_foreach(changes, i, ch) {
                const char *key = json_string_value(json_object_get(ch, "key"));
                json_t *f = json_object_get(ch, "field");

                if (!streq(json_string_value(json_object_get(ch, "target")), target) || !key || !f)
                        continue;
                if (port ? strncmp(key, prefix, strlen(prefix)) != 0 : !strncmp(key, "ports.", 6))
                        continue;
                json_array_append(out, f);
        }
        return out;
}

/* One row per interface, one per switch port. */
static void add_rows(struct view *v, const json_t *targets)
{
        size_t i;
        json_t *t;

        json_array_foreach(targets, i, t) {
                const char *name = json_string_value(json_object_get(t, "name"));
                json_t *st = json_object_get(t, "state"), *ports = json_object_get(st, "ports"), *ps;
                const char *port;

                if (!name || !json_is_object(st))
                        continue;
                if (!json_is_object(ports)) {
                        json_t *copy = json_deep_copy(st);

                        state_text_ets_shares(copy);
                        json_array_append_new(v->targets, json_pack("{s:s, s:s, s:o, s:o}", "name", name, "kind",
                                                                    "interface", "state", copy, "drifted",
                                                                    drifted_fields(v->changes, name, NULL)));
                        continue;
                }
                json_object_foreach(ports, port, ps)
                        json_array_append_new(v->targets, json_pack("{s:s, s:s, s:s, s:O, s:o}", "name", name,
                                                                    "kind", "switch", "port", port, "state", ps,
                                                                    "drifted",
                                                                    drifted_fields(v->changes, name, port)));
        }
}

/* A node's GET /v1/state answer, as it comes (kept parsed: its rows are made with its drift). */
static void take_state(const struct http_req *q, unsigned i, void *ud)
{
        struct view *v = (struct view *)ud + i;
        struct errbuf e = { 0 };

        v->node = q->user;
        if (q->err < 0 || q->status != 200) {
                answer_error(q, v->error, sizeof(v->error));
                v->unreached = q->err < 0;
        } else if (reply_load(q->resp, q->resp_len, &v->answer, &e) < 0 ||
                   !json_is_array(json_object_get(v->answer, "targets"))) {
                snprintf(v->error, sizeof(v->error), "invalid answer to GET /v1/state: %.200s",
                         e.msg[0] ? e.msg : "no \"targets\" array");
        }
}

/* Its GET /v1/drift answer: the node's rows, the drifted cells marked. */
static void take_drift(const struct http_req *q, unsigned i, void *ud)
{
        struct view *v = (struct view *)ud + i;
        struct reply_drift rd = { 0 };
        struct errbuf e = { 0 };

        if (q->err < 0 || q->status != 200) {      /* the first failure says how; either unreached says so */
                if (!v->error[0])
                        answer_error(q, v->error, sizeof(v->error));
                v->unreached |= q->err < 0;
                return;
        }
        if (v->error[0])
                return;
        if (reply_parse_drift(q->resp, q->resp_len, &rd, &e) < 0) {
                snprintf(v->error, sizeof(v->error), "invalid answer to GET /v1/drift: %.200s", e.msg);
                return;
        }
        v->changes = json_incref(json_object_get(rd.doc, "changes"));
        if (!json_is_array(v->changes)) {
                json_decref(v->changes);
                v->changes = json_array();
        }
        reply_drift_done(&rd);
        v->policy = json_string_value(json_object_get(v->answer, "policy"));
        v->targets = json_array();
        add_rows(v, json_object_get(v->answer, "targets"));
}

static bool has_field(const json_t *fields, const char *key)
{
        size_t i;
        json_t *f;

        json_array_foreach(fields, i, f)
                if (streq(json_string_value(f), key))
                        return true;
        return false;
}

/* A cell as the table shows it: the agent's line, a full DSCP map's zeros left unsaid. */
static const char *cell(const json_t *row, const char *key, char *buf, size_t size)
{
        const json_t *v = json_object_get(json_object_get(row, "state"), key);
        char *cut;

        if (!v)
                return snprintf(buf, size, "-"), buf;
        state_text_value(key, v, buf, size - 1);
        if ((cut = strstr(buf, " (the rest 0)")))
                *cut = '\0';
        if (has_field(json_object_get(row, "drifted"), key))
                strcat2(buf, size, buf, "*");
        return buf;
}

struct layout {
        bool used[ARRAY_SIZE(knobs)];
        int width[ARRAY_SIZE(knobs)];
        int node_w, target_w;
};

static void row_target(const json_t *row, char *buf, size_t size)
{
        const char *port = json_string_value(json_object_get(row, "port"));

        snprintf(buf, size, "%s%s%s", json_string_value(json_object_get(row, "name")), port ? ":" : "",
                 port ? port : "");
}

static void measure(const struct view *v, unsigned n, struct layout *l)
{
        char buf[CELL_MAX];

        *l = (struct layout){ .node_w = 4, .target_w = 6 };
        for (size_t k = 0; k < ARRAY_SIZE(knobs); k++)
                l->width[k] = (int)strlen(knobs[k].title);
        for (unsigned i = 0; i < n; i++) {
                size_t r;
                json_t *row;

                if ((int)strlen(v[i].node->name) > l->node_w)
                        l->node_w = (int)strlen(v[i].node->name);
                json_array_foreach(v[i].targets, r, row) {
                        row_target(row, buf, sizeof(buf));
                        if ((int)strlen(buf) > l->target_w)
                                l->target_w = (int)strlen(buf);
                        for (size_t k = 0; k < ARRAY_SIZE(knobs); k++) {
                                if (!json_object_get(json_object_get(row, "state"), knobs[k].key))
                                        continue;
                                l->used[k] = true;
                                cell(row, knobs[k].key, buf, sizeof(buf));
                                if ((int)strlen(buf) > l->width[k])
                                        l->width[k] = (int)strlen(buf);
                        }
                }
        }
}

/* "  CELL" padded to width, after line[0..*o). */
static void column(char *line, size_t size, size_t *o, int width, const char *text)
{
        if (*o < size)
                *o += (size_t)snprintf(line + *o, size - *o, "  %-*s", width, text);
}

/* The line without the padding of its last column. */
static void end_line(char *line, size_t size, size_t o)
{
        if (o >= size)
                o = size - 1;
        while (o > 0 && line[o - 1] == ' ')
                o--;
        line[o] = '\0';
        printf("%s\n", line);
}

static void print_table(const struct view *v, unsigned n)
{
        struct layout l;
        char buf[CELL_MAX], line[1024];
        size_t o;

        measure(v, n, &l);
        o = (size_t)snprintf(line, sizeof(line), "%-*s  %-*s", l.node_w, "NODE", l.target_w, "TARGET");
        for (size_t k = 0; k < ARRAY_SIZE(knobs); k++)
                if (l.used[k])
                        column(line, sizeof(line), &o, l.width[k], knobs[k].title);
        end_line(line, sizeof(line), o);
        for (unsigned i = 0; i < n; i++) {
                size_t r;
                json_t *row;

                if (!v[i].targets) {    /* "unreachable: cannot connect (...)", "error: HTTP 500 ..." */
                        printf("%-*s  %s: %s\n", l.node_w, v[i].node->name, v[i].unreached ? "unreachable" : "error",
                               v[i].error);
                        continue;
                }
                if (!json_array_size(v[i].targets))
                        printf("%-*s  -  nothing committed\n", l.node_w, v[i].node->name);
                json_array_foreach(v[i].targets, r, row) {
                        row_target(row, buf, sizeof(buf));
                        o = (size_t)snprintf(line, sizeof(line), "%-*s  %-*s", l.node_w, v[i].node->name,
                                             l.target_w, buf);
                        for (size_t k = 0; k < ARRAY_SIZE(knobs); k++)
                                if (l.used[k])
                                        column(line, sizeof(line), &o, l.width[k],
                                               cell(row, knobs[k].key, buf, sizeof(buf)));
                        end_line(line, sizeof(line), o);
                }
        }
}

/* The drift below the table, as the agents say it: "node002 vB mtu: 1500 (committed: 9000)". */
static void print_drift(const struct view *v, unsigned n, unsigned drifted, unsigned unreachable)
{
        char from[CELL_MAX], to[CELL_MAX];

        if (drifted)
                printf("\ndrift (* above):\n");
        for (unsigned i = 0; i < n; i++) {
                size_t k;
                json_t *ch;

                json_array_foreach(v[i].changes, k, ch)
                        printf("  %s %s %s: %s (committed: %s)\n", v[i].node->name,
                               json_string_value(json_object_get(ch, "target")),
                               json_string_value(json_object_get(ch, "key")),
                               state_text_value("", json_object_get(ch, "from"), from, sizeof(from)),
                               state_text_value("", json_object_get(ch, "to"), to, sizeof(to)));
        }
        printf("state: %u node%s, %u drifted, %u unreachable\n", n, n == 1 ? "" : "s", drifted, unreachable);
}

static void print_json(const struct view *v, unsigned n, unsigned drifted, unsigned unreachable)
{
        json_t *nodes = json_array(), *j;

        for (unsigned i = 0; i < n; i++)
                json_array_append_new(nodes, json_pack("{s:s, s:b, s:s?, s:s?, s:O?, s:O?}", "name", v[i].node->name,
                                                       "reached", v[i].targets != NULL, "policy", v[i].policy,
                                                       "error", v[i].error[0] ? v[i].error : NULL,
                                                       "targets", v[i].targets, "drift", v[i].changes));
        j = json_pack("{s:o, s:{s:i, s:i, s:i}}", "nodes", nodes, "summary", "nodes", (int)n, "drifted",
                      (int)drifted, "unreachable", (int)unreachable);
        output_json(j);
        json_decref(j);
}

static int show(struct ctl *c, const struct inventory_node **sel, unsigned n)
{
        struct view *v = calloc(n + 1, sizeof(*v));
        /* Both questions over one connection per node (the last nodes asked first the second time). */
        struct ctl_query_each st = { .fn = take_state, .ud = v, .flags = CTL_QUERY_KEEP },
                              dr = { .fn = take_drift, .ud = v, .flags = CTL_QUERY_REVERSE };
        unsigned drifted = 0, unreachable = 0;
        int r = v ? ctl_query_each(c, sel, n, "GET", "/v1/state", NULL, &st, NULL) : -ENOMEM;

        if (r >= 0)
                r = ctl_query_each(c, sel, n, "GET", "/v1/drift", NULL, &dr, NULL);
        for (unsigned i = 0; r >= 0 && i < n; i++) {
                unreachable += !v[i].targets;
                drifted += json_array_size(v[i].changes) > 0;
        }
        if (r < 0) {
                log_err("state: cannot query the agents: %s", strerror(-r));
        } else if (c->json) {
                print_json(v, n, drifted, unreachable);
        } else {
                print_table(v, n);
                print_drift(v, n, drifted, unreachable);
        }
        for (unsigned i = 0; v && i < n; i++) {
                json_decref(v[i].targets);
                json_decref(v[i].changes);
                json_decref(v[i].answer);
        }
        free(v);
        return r < 0 || (!drifted && unreachable) ? OUTCOME_RUNTIME : drifted ? OUTCOME_ROLLED_BACK : OUTCOME_OK;
}

int ctl_cmd_state(struct ctl *c)
{
        _cleanup_free_ const struct inventory_node **sel = NULL;
        struct ctl_selector only = { 0 };
        unsigned n = 0;
        int r;

        for (int i = 0; i < c->argc; i++) {
                r = ctl_take_selector(c, &i, &only);
                if (r < 0)
                        return OUTCOME_INVALID;
                if (r == 0)
                        return ctl_bad_arg(c, c->argv[i]), OUTCOME_INVALID;
        }
        if ((r = ctl_need_inventory(c)) > 0 || (r = ctl_select_only(c, NULL, &only, &sel, &n)) > 0 ||
            (r = ctl_need_http(c)) > 0)
                return r;
        return show(c, sel, n);
}
