/* SPDX-License-Identifier: MIT */
/*
 * nettunectl probe --pattern ring|incast|alltoall [--selector KEY=VALUE]...
 *   [--duration-ms N] [--mode auto|verbs|tcp] [--dscp D] [--priority P] [--streams N] [--receiver NAME]:
 * a fabric probe across the selected nodes (controller/fabric/fabric.h) and its report.
 * Exit 0 when every flow was measured, 3 when a node or flow failed (named in the
 * report), 2 for invalid input (nothing was run).
 */
#include <stdio.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/fabric/fabric.h"
#include "controller/rollout/rollout.h"

struct probe_args {
        struct fabric_opts o;
        const char *receiver;
        struct ctl_selector sel;        /* --selector (--label) */
        bool pattern;                   /* --pattern given */
};

static int parse_mode(const char *v, struct probe_args *a)
{
        if (!v || probe_mode_from_string(v, &a->o.mode) < 0) {
                log_err("--mode '%s': expected 'auto', 'verbs' or 'tcp'; nothing was run", v ? v : "");
                return -EINVAL;
        }
        return 0;
}

static int parse_one(void *ctx, const char *o, const char *v)
{
        struct probe_args *a = ctx;
        unsigned u;

        if (streq(o, "--pattern")) {
                a->pattern = v && fabric_pattern_from_string(v, &a->o.pattern) >= 0;
                if (a->pattern)
                        return 0;
                log_err("--pattern '%s': expected 'ring', 'incast' or 'alltoall'; nothing was run", v ? v : "");
                return -EINVAL;
        }
        if (streq(o, "--duration-ms"))
                return ctl_parse_uint(o, v, 100, 60000, &a->o.duration_ms);
        if (streq(o, "--streams"))
                return ctl_parse_uint(o, v, 1, PROBE_STREAMS_MAX, &a->o.streams);
        if (streq(o, "--dscp")) {
                if (ctl_parse_uint(o, v, 0, 63, &u) < 0)
                        return -EINVAL;
                a->o.dscp = (int)u;
                return 0;
        }
        if (streq(o, "--priority")) {
                if (ctl_parse_uint(o, v, 0, 7, &u) < 0)
                        return -EINVAL;
                a->o.priority = (int)u;
                return 0;
        }
        if (streq(o, "--mode"))
                return parse_mode(v, a);
        if (streq(o, "--receiver") && v) {
                a->receiver = v;
                return 0;
        }
        return 1;               /* not an option of probe */
}

static int parse_args(struct ctl *c, struct probe_args *a)
{
        fabric_opts_defaults(&a->o);
        if (ctl_take_options(c, &a->sel, parse_one, a) < 0)
                return -EINVAL;
        if (!a->pattern) {
                log_err("probe: --pattern ring|incast|alltoall is required; nothing was run");
                return -EINVAL;
        }
        if (a->receiver && a->o.pattern != FABRIC_INCAST) {
                log_err("probe: --receiver is for --pattern incast; nothing was run");
                return -EINVAL;
        }
        return 0;
}

/* The selected nodes into f (in inventory order), the incast receiver resolved. */
static int lay_out(struct ctl *c, struct probe_args *a, struct fabric *f)
{
        _cleanup_free_ unsigned *idx = calloc(c->inv->n_nodes + 1, sizeof(*idx));
        struct errbuf e = { 0 };
        unsigned n = 0;

        if (!idx)
                return -ENOMEM;
        for (unsigned i = 0; i < c->inv->n_nodes; i++)
                if (ctl_labels_match(a->sel.labels, a->sel.n, &c->inv->nodes[i])) {
                        if (a->receiver && streq(a->receiver, c->inv->nodes[i].name))
                                a->o.receiver = n;
                        idx[n++] = i;
                }
        if (a->receiver && (a->o.receiver >= n || !streq(c->inv->nodes[idx[a->o.receiver]].name, a->receiver))) {
                log_err("--receiver '%s' is not one of the %u selected nodes; nothing was run", a->receiver, n);
                return -EINVAL;
        }
        if (fabric_init(f, &a->o, n, &e) < 0) {
                log_err("%s; nothing was run", e.msg);
                return -EINVAL;
        }
        for (unsigned k = 0; k < n; k++) {
                snprintf(f->nodes[k].name, sizeof(f->nodes[k].name), "%s", c->inv->nodes[idx[k]].name);
                snprintf(f->nodes[k].url, sizeof(f->nodes[k].url), "%s", c->inv->nodes[idx[k]].url);
        }
        return 0;
}

int ctl_cmd_probe(struct ctl *c)
{
        struct probe_args a = { 0 };
        struct fabric f = { 0 };
        struct fabric_figures g;
        struct errbuf e = { 0 };
        struct fabric_env env;
        int r;

        if (parse_args(c, &a) < 0)
                return OUTCOME_INVALID;
        if ((r = ctl_need_http(c)) > 0)
                return r;
        if (lay_out(c, &a, &f) < 0)
                return OUTCOME_INVALID;
        env = (struct fabric_env) { .http = c->http, .timeout_s = c->timeout_s, .progress = c->progress };
        r = fabric_run(&env, &f, &e);
        if (r < 0) {
                log_err("%s", e.msg);
                fabric_free(&f);
                return outcome_of_errno(r);
        }
        fabric_compute(&f, &g);
        if (c->json) {
                json_t *j = fabric_to_json(&f, &g);

                output_json(j);
                json_decref(j);
        } else {
                fabric_print_text(stdout, &f, &g);
        }
        fabric_free(&f);
        return g.complete ? OUTCOME_OK : OUTCOME_RUNTIME;
}
