/* SPDX-License-Identifier: MIT */
/*
 * nettunectl state [--selector KEY=VALUE]... [--columns NAME,... | --wide]: the fleet's live knobs in one table.
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

struct column {
        const char *name;               /* --columns NAME */
        const char *title;
        bool wide;                      /* shown with --wide (or named in --columns) */
        /* The cell from a row's state (st) and the drifted keys of the row; "" when the row has no value. */
        void (*text)(const json_t *st, const json_t *keys, char *buf, size_t size);
        const char *member;             /* text NULL: this member of the state, as state_text prints it */
};

static void col_pfc(const json_t *st, const json_t *keys, char *buf, size_t size);
static void col_cable(const json_t *st, const json_t *keys, char *buf, size_t size);
static void col_watchdog(const json_t *st, const json_t *keys, char *buf, size_t size);
static void col_dcqcn(const json_t *st, const json_t *keys, char *buf, size_t size);
static void col_ecn(const json_t *st, const json_t *keys, char *buf, size_t size);
static void col_roce_tos(const json_t *st, const json_t *keys, char *buf, size_t size);
static void col_nccl_tc(const json_t *st, const json_t *keys, char *buf, size_t size);
static void col_buffers(const json_t *st, const json_t *keys, char *buf, size_t size);

/* The columns, in this order; a column no row has is left out. POLICY is the node's, not a row's. */
static const struct column knobs[] = {
        { .name = "mtu", .title = "MTU", .member = "mtu" },
        { .name = "trust", .title = "TRUST", .member = "trust" },
        { .name = "dscp", .title = "DSCP->PRIO", .member = "dscp_to_priority" },
        { .name = "pfc", .title = "PFC", .text = col_pfc },
        { .name = "cable", .title = "CABLE", .text = col_cable },
        { .name = "watchdog", .title = "WATCHDOG", .text = col_watchdog },
        { .name = "ets", .title = "ETS", .member = "ets" },
        { .name = "host_ecn", .title = "HOST_ECN", .member = "host_ecn" },
        { .name = "dcqcn", .title = "DCQCN", .wide = true, .text = col_dcqcn },
        { .name = "ecn", .title = "ECN", .text = col_ecn },
        { .name = "roce_tos", .title = "ROCE_TOS", .text = col_roce_tos },
        { .name = "nccl_tc", .title = "NCCL_TC", .text = col_nccl_tc },
        { .name = "buffers", .title = "BUFFERS", .wide = true, .text = col_buffers },
        { .name = "policy", .title = "POLICY" },
};

#define COL_POLICY (ARRAY_SIZE(knobs) - 1)

struct view {
        const struct inventory_node *node;
        json_t *targets;                /* [{name, kind, state, drifted: [field]}], or NULL: unreachable */
        json_t *changes;                /* the drift's [{target, field, key, from, to}] */
        const char *policy;             /* borrowed from the state answer */
        long long revision;             /* its newest committed revision, 0 unknown */
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

/*
 * The fields (keys: the keys, without a switch port's "ports.P." prefix) of changes
 * drifted on target (and, on a switch, its port).
 */
static json_t *drifted_of(const json_t *changes, const char *target, const char *port, bool keys)
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
                if (keys)
                        json_array_append_new(out, json_string(port ? key + strlen(prefix) : key));
                else
                        json_array_append(out, f);
        }
        return out;
}

static json_t *drifted_fields(const json_t *changes, const char *target, const char *port)
{
        return drifted_of(changes, target, port, false);
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
                        json_array_append_new(v->targets, json_pack("{s:s, s:s, s:o, s:o, s:o}", "name", name,
                                                                    "kind", "interface", "state", copy, "drifted",
                                                                    drifted_fields(v->changes, name, NULL),
                                                                    "drifted_keys",
                                                                    drifted_of(v->changes, name, NULL, true)));
                        continue;
                }
                json_object_foreach(ports, port, ps)
                        json_array_append_new(v->targets, json_pack("{s:s, s:s, s:s, s:O, s:o, s:o}", "name",
                                                                    name, "kind", "switch", "port", port, "state",
                                                                    ps, "drifted",
                                                                    drifted_fields(v->changes, name, port),
                                                                    "drifted_keys",
                                                                    drifted_of(v->changes, name, port, true)));
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
        v->revision = json_integer_value(json_object_get(v->answer, "revision"));
        v->targets = json_array();
        add_rows(v, json_object_get(v->answer, "targets"));
}

/* Did a key equal to `key`, or under it ("key." prefix), drift? */
static bool drifted(const json_t *keys, const char *key)
{
        size_t i, n = strlen(key);
        json_t *k;

        json_array_foreach(keys, i, k) {
                const char *s = json_string_value(k);

                if (s && !strncmp(s, key, n) && (s[n] == '\0' || s[n] == '.'))
                        return true;
        }
        return false;
}

/* The cell's text, then '*' when the key drifted. */
static void mark(const json_t *keys, const char *key, char *buf, size_t size)
{
        if (buf[0] && drifted(keys, key))
                strcat2(buf, size, buf, "*");
}

/* One member as `nettune-agent state` writes it ("" when absent), a full DSCP map's zeros left unsaid. */
static void member(const json_t *st, const char *key, char *buf, size_t size)
{
        const json_t *v = json_object_get(st, key);
        char *cut;

        buf[0] = '\0';
        if (!v)
                return;
        state_text_value(key, v, buf, size - 1);
        if ((cut = strstr(buf, " (the rest 0)")))
                *cut = '\0';
}

/* Bytes in decimal units: "900B", "150KB", "1.5MB", "146.5KB". */
static const char *bytes(long long b, char *buf, size_t size)
{
        if (b < 1000)
                snprintf(buf, size, "%lldB", b);
        else if (b < 1000000)
                snprintf(buf, size, b % 1000 ? "%.1fKB" : "%.0fKB", (double)b / 1000);
        else
                snprintf(buf, size, b % 100000 ? "%.2fMB" : "%.1fMB", (double)b / 1e6);
        return buf;
}

static void col_pfc(const json_t *st, const json_t *keys, char *buf, size_t size)
{
        const json_t *pfc = json_object_get(st, "pfc");

        buf[0] = '\0';
        if (json_object_get(pfc, "priorities"))
                state_text_value("pfc", pfc, buf, size - 1);
        mark(keys, "pfc.priorities", buf, size);
}

static void col_cable(const json_t *st, const json_t *keys, char *buf, size_t size)
{
        const json_t *m = json_object_get(json_object_get(st, "pfc"), "cable_length_m");

        buf[0] = '\0';
        if (json_is_integer(m))
                snprintf(buf, size - 1, "%lldm", (long long)json_integer_value(m));
        mark(keys, "pfc.cable_length_m", buf, size);
}

/* A switch's watchdog ("on 200/400ms drop", "off"), a NIC's stall guard ("stall 100ms", "stall off"). */
static void col_watchdog(const json_t *st, const json_t *keys, char *buf, size_t size)
{
        const json_t *pfc = json_object_get(st, "pfc"), *wd = json_object_get(pfc, "watchdog"),
                     *stall = json_object_get(pfc, "nic_stall_timeout_ms");
        size_t o = 0;

        buf[0] = '\0';
        if (json_is_object(wd) && !json_is_true(json_object_get(wd, "enabled")))
                o += (size_t)snprintf(buf, size - 1, "off");
        else if (json_is_object(wd))
                o += (size_t)snprintf(buf, size - 1, "on %lld/%lldms %s",
                                      (long long)json_integer_value(json_object_get(wd, "detection_ms")),
                                      (long long)json_integer_value(json_object_get(wd, "restoration_ms")),
                                      json_string_value(json_object_get(wd, "action")) ?
                                      json_string_value(json_object_get(wd, "action")) : "");
        if (o < size - 1)
                mark(keys, "pfc.watchdog", buf, size);
        o = strlen(buf);
        if (json_is_integer(stall) && o < size - 1)
                snprintf(buf + o, size - 1 - o, json_integer_value(stall) ? "%sstall %lldms" : "%sstall off",
                         o ? " " : "", (long long)json_integer_value(stall));
        else if (json_is_string(stall) && o < size - 1)
                snprintf(buf + o, size - 1 - o, "%sstall %s", o ? " " : "", json_string_value(stall));
        if (json_object_get(pfc, "nic_stall_timeout_ms"))
                mark(keys, "pfc.nic_stall_timeout_ms", buf, size);
}

/* The NIC's DCQCN parameters, "rp_ai_rate=5 rp_hai_rate=50 ..." (sorted). */
static void col_dcqcn(const json_t *st, const json_t *keys, char *buf, size_t size)
{
        const json_t *d = json_object_get(json_object_get(st, "host_ecn"), "dcqcn");
        const char *k;
        json_t *v;
        size_t o = 0;
        const char *names[64];
        unsigned n = 0;

        buf[0] = '\0';
        if (!json_is_object(d))
                return;
        json_object_foreach((json_t *)d, k, v)
                if (n < ARRAY_SIZE(names))
                        names[n++] = k;
        for (unsigned i = 1; i < n; i++)        /* insertion sort: a handful of names */
                for (unsigned j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
                        const char *t = names[j];

                        names[j] = names[j - 1];
                        names[j - 1] = t;
                }
        for (unsigned i = 0; i < n && o < size - 1; i++)
                o += (size_t)snprintf(buf + o, size - 1 - o, "%s%s=%lld", o ? " " : "", names[i],
                                      (long long)json_integer_value(json_object_get(d, names[i])));
        if (!n)
                snprintf(buf, size - 1, "none");
        mark(keys, "host_ecn.dcqcn", buf, size);
}

/* "q3 150KB-1.5MB 100%, q4 off": each queue with its '*' when a key of that queue drifted. */
static void col_ecn(const json_t *st, const json_t *keys, char *buf, size_t size)
{
        const json_t *e = json_object_get(st, "ecn");
        char key[32], lo[24], hi[24];
        size_t o = 0;

        buf[0] = '\0';
        if (!json_is_object(e))
                return;
        for (unsigned q = 0; q < 8 && o < size - 2; q++) {
                const json_t *x;

                snprintf(key, sizeof(key), "queue%u", q);
                if (!(x = json_object_get(e, key)))
                        continue;
                if (!json_is_true(json_object_get(x, "enabled")))
                        o += (size_t)snprintf(buf + o, size - 2 - o, "%sq%u off", o ? ", " : "", q);
                else
                        o += (size_t)snprintf(buf + o, size - 2 - o, "%sq%u %s-%s %lld%%", o ? ", " : "", q,
                                              bytes(json_integer_value(json_object_get(x, "min_threshold_bytes")),
                                                    lo, sizeof(lo)),
                                              bytes(json_integer_value(json_object_get(x, "max_threshold_bytes")),
                                                    hi, sizeof(hi)),
                                              (long long)json_integer_value(json_object_get(x, "mark_probability_pct")));
                snprintf(key, sizeof(key), "ecn.queue%u", q);
                if (o < size - 2 && drifted(keys, key))
                        o += (size_t)snprintf(buf + o, size - o, "*");
        }
        if (!o)
                snprintf(buf, size, "none");
}

static void col_roce_tos(const json_t *st, const json_t *keys, char *buf, size_t size)
{
        const json_t *t = json_object_get(st, "roce_tos");

        buf[0] = '\0';
        if (json_is_integer(t))
                snprintf(buf, size - 1, "%lld (dscp %lld)", (long long)json_integer_value(t),
                         (long long)json_integer_value(t) >> 2);
        mark(keys, "roce_tos", buf, size);
}

static void col_nccl_tc(const json_t *st, const json_t *keys, char *buf, size_t size)
{
        const json_t *tc = json_object_get(json_object_get(st, "nccl"), "ib_tc");

        buf[0] = '\0';
        if (json_is_integer(tc))
                snprintf(buf, size - 1, "%lld", (long long)json_integer_value(tc));
        else if (tc)
                state_text_value("ib_tc", tc, buf, size - 1);
        mark(keys, "nccl", buf, size);
}

/* "b0 127.9KB b1 19.2KB prio 0,0,0,1,0,0,0,0": the buffers that have a size, then priority to buffer. */
static void col_buffers(const json_t *st, const json_t *keys, char *buf, size_t size)
{
        const json_t *b = json_object_get(st, "buffers"), *sz = json_object_get(b, "buffer_size_bytes"),
                     *pb = json_object_get(b, "prio_to_buffer");
        char one[24];
        size_t o = 0, i;
        json_t *x;

        buf[0] = '\0';
        if (!json_is_object(b))
                return;
        json_array_foreach(sz, i, x)
                if (json_integer_value(x) && o < size - 1)
                        o += (size_t)snprintf(buf + o, size - 1 - o, "%sb%zu %s", o ? " " : "", i,
                                              bytes(json_integer_value(x), one, sizeof(one)));
        json_array_foreach(pb, i, x)
                if (o < size - 1)
                        o += (size_t)snprintf(buf + o, size - 1 - o, "%s%lld", i ? "," : o ? " prio " : "prio ",
                                              (long long)json_integer_value(x));
        mark(keys, "buffers", buf, size);
}

/* A cell as the table shows it ("-" where the row has no value). */
static const char *cell(const struct view *v, const json_t *row, size_t k, char *buf, size_t size)
{
        if (k == COL_POLICY) {
                if (v->policy && v->revision)
                        snprintf(buf, size, "%s@%lld", v->policy, v->revision);
                else
                        snprintf(buf, size, "%s", v->policy ? v->policy : "-");
                return buf;
        }
        if (knobs[k].text) {
                knobs[k].text(json_object_get(row, "state"), json_object_get(row, "drifted_keys"), buf, size);
        } else {
                member(json_object_get(row, "state"), knobs[k].member, buf, size);
                mark(json_object_get(row, "drifted_keys"), knobs[k].member, buf, size);
        }
        if (!buf[0])
                snprintf(buf, size, "-");
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

/* Which columns: --columns NAME,... (those, in the table's order), else every one that is not wide (--wide: all). */
struct want {
        bool named;
        bool on[ARRAY_SIZE(knobs)];
};

static void measure(const struct view *v, unsigned n, const struct want *w, struct layout *l)
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
                                if (!w->on[k] || !strcmp(cell(&v[i], row, k, buf, sizeof(buf)), "-"))
                                        continue;
                                l->used[k] = true;
                                if ((int)strlen(buf) > l->width[k])
                                        l->width[k] = (int)strlen(buf);
                        }
                }
        }
        for (size_t k = 0; w->named && k < ARRAY_SIZE(knobs); k++)
                l->used[k] |= w->on[k];         /* named: shown even where no row has it */
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

static void print_table(const struct view *v, unsigned n, const struct want *w)
{
        struct layout l;
        char buf[CELL_MAX], line[2048];
        size_t o;

        measure(v, n, w, &l);
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
                                               cell(&v[i], row, k, buf, sizeof(buf)));
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
                json_array_append_new(nodes, json_pack("{s:s, s:b, s:s?, s:o?, s:s?, s:O?, s:O?}", "name",
                                                       v[i].node->name, "reached", v[i].targets != NULL, "policy",
                                                       v[i].policy, "revision",
                                                       v[i].revision ? json_integer(v[i].revision) : NULL,
                                                       "error", v[i].error[0] ? v[i].error : NULL,
                                                       "targets", v[i].targets, "drift", v[i].changes));
        j = json_pack("{s:o, s:{s:i, s:i, s:i}}", "nodes", nodes, "summary", "nodes", (int)n, "drifted",
                      (int)drifted, "unreachable", (int)unreachable);
        output_json(j);
        json_decref(j);
}

static int show(struct ctl *c, const struct inventory_node **sel, unsigned n, const struct want *w)
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
                print_table(v, n, w);
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

/* --columns mtu,pfc,...: the names of knobs[]; -EINVAL (said) for an unknown one. */
static int parse_columns(const char *v, struct want *w)
{
        char buf[512], *save = NULL;

        snprintf(buf, sizeof(buf), "%s", v);
        w->named = true;
        for (char *t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
                size_t k = 0;

                while (k < ARRAY_SIZE(knobs) && !streq(knobs[k].name, t))
                        k++;
                if (k == ARRAY_SIZE(knobs)) {
                        log_err("state: --columns: unknown column '%s'; the columns are mtu, trust, dscp, pfc, "
                                "cable, watchdog, ets, host_ecn, dcqcn, ecn, roce_tos, nccl_tc, buffers, policy", t);
                        return -EINVAL;
                }
                w->on[k] = true;
        }
        return 0;
}

int ctl_cmd_state(struct ctl *c)
{
        _cleanup_free_ const struct inventory_node **sel = NULL;
        struct ctl_selector only = { 0 };
        struct want w = { 0 };
        const char *columns = NULL;
        bool wide = false;
        unsigned n = 0;
        int r;

        for (int i = 0; i < c->argc; i++) {
                r = ctl_take_selector(c, &i, &only);
                if (r < 0)
                        return OUTCOME_INVALID;
                if (r > 0)
                        continue;
                if (streq(c->argv[i], "--wide"))
                        wide = true;
                else if (streq(c->argv[i], "--columns") && i + 1 < c->argc)
                        columns = c->argv[++i];
                else
                        return ctl_bad_arg(c, c->argv[i]), OUTCOME_INVALID;
        }
        if (columns && wide) {
                log_err("state: --columns names the columns; --wide shows every one: give one of them");
                return OUTCOME_INVALID;
        }
        if (columns && parse_columns(columns, &w) < 0)
                return OUTCOME_INVALID;
        for (size_t k = 0; !columns && k < ARRAY_SIZE(knobs); k++)
                w.on[k] = wide || !knobs[k].wide;
        if ((r = ctl_need_inventory(c)) > 0 || (r = ctl_select_only(c, NULL, &only, &sel, &n)) > 0 ||
            (r = ctl_need_http(c)) > 0)
                return r;
        return show(c, sel, n, &w);
}
