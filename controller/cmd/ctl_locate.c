/* SPDX-License-Identifier: MIT */
/*
 * nettunectl locate [--selector KEY=VALUE]... [--by LABEL] [--plane LABEL] [--duration-ms N]
 *   [--slow-pct PCT] [--mode auto|verbs|tcp] [--dscp D] [--priority P]:
 * where in the selected nodes the fabric is slow (controller/fabric/locate.h): the
 * pairs of a bounded schedule measured against their peers, the suspects named with
 * their evidence. Exit 0 no suspect, 1 suspects, 2 invalid input (nothing was run),
 * 3 a node could not be probed.
 */
#include <math.h>
#include <stdio.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/fabric/fabric.h"
#include "controller/rollout/rollout.h"

struct locate_args {
        struct locate_opts o;
        struct ctl_selector sel;        /* --selector (--label) */
        bool plane;
};

static int parse_num(const char *opt, const char *v, double min, double max, double *ret)
{
        char *end;
        double d = strtod(v, &end);

        if (!*v || *end || !isfinite(d) || d < min || d > max) {
                log_err("locate: %s '%s': expected a number in %g-%g; nothing was run", opt, v, min, max);
                return -EINVAL;
        }
        *ret = d;
        return 0;
}

static int parse_label(const char *opt, const char *v, char *buf, size_t size)
{
        if (!*v || strlen(v) >= size || strpbrk(v, "=, ")) {
                log_err("locate: %s '%s': expected a label key (at most %zu characters, no '=', ',' or space); "
                        "nothing was run", opt, v, size - 1);
                return -EINVAL;
        }
        snprintf(buf, size, "%s", v);
        return 0;
}

static int parse_one(void *ctx, const char *o, const char *v)
{
        struct locate_args *a = ctx;
        unsigned u;

        if (streq(o, "--by"))
                return parse_label(o, v, a->o.by, sizeof(a->o.by));
        if (streq(o, "--plane")) {
                a->plane = true;
                return parse_label(o, v, a->o.plane, sizeof(a->o.plane));
        }
        if (streq(o, "--duration-ms"))
                return ctl_parse_uint(o, v, 100, 60000, &a->o.duration_ms);
        if (streq(o, "--slow-pct"))
                return parse_num(o, v, 1, 95, &a->o.slow_pct);
        if (streq(o, "--mode")) {
                if (probe_mode_from_string(v, &a->o.mode) >= 0)
                        return 0;
                log_err("locate: --mode '%s': expected 'auto', 'verbs' or 'tcp'; nothing was run", v);
                return -EINVAL;
        }
        if (streq(o, "--dscp") || streq(o, "--priority")) {
                if (ctl_parse_uint(o, v, 0, streq(o, "--dscp") ? 63 : 7, &u) < 0)
                        return -EINVAL;
                *(streq(o, "--dscp") ? &a->o.dscp : &a->o.priority) = (int)u;
                return 0;
        }
        return 1;               /* not an option of locate */
}

static int parse_args(struct ctl *c, struct locate_args *a)
{
        locate_opts_default(&a->o);
        return ctl_take_options(c, &a->sel, parse_one, a);
}

/* The value of label key on node n, "" when it has none. */
static const char *label_of(const struct inventory_node *n, const char *key)
{
        for (unsigned k = 0; k < n->n_labels; k++)
                if (streq(n->labels[k].key, key))
                        return n->labels[k].value;
        return "";
}

/* The selected nodes into l (inventory order) and their agents' URLs into *ret_urls. */
static int lay_out(struct ctl *c, struct locate_args *a, struct locate *l, const char ***ret_urls)
{
        unsigned n = 0, cap = c->inv->n_nodes + 1;
        _cleanup_free_ const char **names = calloc(cap, sizeof(*names));
        _cleanup_free_ const char **rack = calloc(cap, sizeof(*rack));
        _cleanup_free_ const char **plane = calloc(cap, sizeof(*plane));
        const char **urls = calloc(cap, sizeof(*urls));
        struct errbuf e = { 0 };

        if (!names || !rack || !plane || !urls) {
                free(urls);
                return -ENOMEM;
        }
        for (unsigned i = 0; i < c->inv->n_nodes; i++) {
                const struct inventory_node *x = &c->inv->nodes[i];

                if (!ctl_labels_match(a->sel.labels, a->sel.n, x))
                        continue;
                names[n] = x->name;
                urls[n] = x->url;
                rack[n] = label_of(x, a->o.by);
                plane[n++] = label_of(x, a->o.plane);
        }
        if (n < 2) {
                log_err("locate: %u node%s selected, at least 2 are needed; nothing was run", n, n == 1 ? "" : "s");
                free(urls);
                return -EINVAL;
        }
        if (locate_init(l, &a->o, n, names, rack, a->plane ? plane : NULL, &e) < 0) {
                log_err("locate: %s", e.msg);
                free(urls);
                return -EINVAL;
        }
        *ret_urls = urls;
        return 0;
}

int ctl_cmd_locate(struct ctl *c)
{
        struct locate_args a = { 0 };
        struct locate l = { 0 };
        struct errbuf e = { 0 };
        struct fabric_env env;
        const char **urls = NULL;
        int r;

        if (parse_args(c, &a) < 0)
                return OUTCOME_INVALID;
        if ((r = ctl_need_http(c)) > 0)
                return r;
        if (lay_out(c, &a, &l, &urls) < 0)
                return OUTCOME_INVALID;
        env = (struct fabric_env){ .http = c->http, .timeout_s = c->timeout_s, .progress = c->progress };
        r = locate_run(&env, &l, urls, &e);
        free(urls);
        if (r < 0) {
                log_err("locate: %s", e.msg);
                locate_free(&l);
                return outcome_of_errno(r);
        }
        if (c->json) {
                json_t *j = locate_to_json(&l);

                output_json(j);
                json_decref(j);
        } else {
                locate_print_text(stdout, &l);
        }
        r = l.n_suspects ? OUTCOME_ROLLED_BACK /* 1: suspects, as doctor exits 1 on findings */ : OUTCOME_OK;
        locate_free(&l);
        return r;
}
