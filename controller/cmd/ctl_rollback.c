/* SPDX-License-Identifier: MIT */
/*
 * nettunectl rollback [--to REV] [--rollout ID] [--selector KEY=VALUE]...: POST
 * /v1/rollback across the fleet, recorded as a rollout of kind "rollback".
 * Without --to each agent undoes its newest committed revision; with --to REV
 * each agent applies its committed revision REV again ({"to": REV}).
 * --rollout ID limits it to the nodes that rollout changed and committed.
 */
#include <jansson.h>
#include <stdio.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/rollout/rollout.h"

#define REV_MAX 2147483647u

struct rollback_args {
        unsigned to;                    /* 0: undo the newest revision */
        unsigned rollout;
        struct ctl_selector sel;        /* --selector (--label) */
};

static int parse_args(struct ctl *c, struct rollback_args *a)
{
        for (int i = 0; i < c->argc; i++) {
                const char *o = c->argv[i], *v = i + 1 < c->argc ? c->argv[i + 1] : NULL;
                int r = ctl_take_selector(c, &i, &a->sel);

                if (r < 0)
                        return r;
                if (r > 0)
                        continue;
                if (streq(o, "--to") && v) {
                        if (ctl_parse_uint("--to", v, 1, REV_MAX, &a->to) < 0)
                                return -EINVAL;
                } else if (streq(o, "--rollout") && v) {
                        if (ctl_parse_uint("--rollout", v, 1, 2000000000, &a->rollout) < 0)
                                return -EINVAL;
                } else {
                        return ctl_bad_arg(c, o);
                }
                i++;
        }
        return 0;
}

/* Nodes to roll back: labels match and, with --rollout, that rollout committed a change there. */
static int pick(struct ctl *c, const struct rollback_args *a, const struct inventory_node **sel, unsigned *ret_n)
{
        struct rollout_rec *src = NULL;
        struct errbuf e = { 0 };
        unsigned n = 0;

        if (a->rollout && store_rollout_load(c->store, a->rollout, &src, &e) < 0) {
                char buf[1100];

                log_err("%s; nothing was changed", errbuf_str(&e, buf, sizeof(buf)));
                return -EINVAL;
        }
        for (unsigned i = 0; i < c->inv->n_nodes; i++) {
                const struct inventory_node *node = &c->inv->nodes[i];
                bool ok = ctl_labels_match(a->sel.labels, a->sel.n, node);

                if (ok && src) {
                        ok = false;
                        for (unsigned k = 0; k < src->n_nodes; k++)
                                ok |= streq(src->nodes[k].name, node->name) &&
                                      src->nodes[k].state == RNODE_COMMITTED && src->nodes[k].changes > 0;
                }
                if (ok)
                        sel[n++] = node;
        }
        rollout_rec_free(src);
        *ret_n = n;
        return 0;
}

static bool want_all(const struct rollout_rec *r, const struct rnode *n, void *ud)
{
        return true;
}

static int run(struct ctl *c, const struct rollback_args *a, const struct inventory_node **sel, unsigned n)
{
        struct rollout_opts o = { .canary = 0, .wave_size = { 100, true }, .fabric_neighbours = -1 };
        _cleanup_free_ char *body = NULL;
        struct rollout_run_env env;
        struct rollout_rec *r;
        struct errbuf e = { 0 };
        char name[64];
        unsigned ok = 0;
        int rc;

        if (a->to) {
                body = malloc(32);
                if (body)
                        snprintf(body, 32, "{\"to\":%u}", a->to);
                snprintf(name, sizeof(name), "rollback to %u", a->to);
        } else {
                body = strdup("{}");
                snprintf(name, sizeof(name), "rollback");
        }
        r = body ? rollout_rec_new("rollback", name, NULL, body, &o, sel, n) : NULL;
        if (!r)
                return log_err("out of memory"), OUTCOME_RUNTIME;
        rc = store_rollout_create(c->store, r, &e);
        ctl_run_env(c, &env);
        if (rc >= 0)
                rc = rollout_run_rollback(&env, r, want_all, NULL, body, &e);
        for (unsigned i = 0; rc >= 0 && i < r->n_nodes; i++) {
                if (r->nodes[i].state != RNODE_ROLLED_BACK) {
                        r->nodes[i].state = RNODE_FAILED;
                        rc = store_node_update(c->store, r, &r->nodes[i], &e);
                }
                ok += r->nodes[i].state == RNODE_ROLLED_BACK;
        }
        r->waves[0].state = RWAVE_DONE;
        r->state = ROLLOUT_COMPLETED;
        r->exit_code = ok == n ? OUTCOME_OK : OUTCOME_RUNTIME;
        snprintf(r->message, sizeof(r->message), "%u of %u nodes rolled back", ok, n);
        if (rc >= 0)
                rc = store_wave_update(c->store, r, 0, &e);
        if (rc >= 0)
                rc = store_rollout_update(c->store, r, &e);
        if (rc >= 0)
                output_rollout(r, c->json);
        rc = rc < 0 ? ctl_fail(&e) : r->exit_code;
        rollout_rec_free(r);
        return rc;
}

int ctl_cmd_rollback(struct ctl *c)
{
        _cleanup_free_ const struct inventory_node **sel = NULL;
        struct rollback_args a = { 0 };
        unsigned n = 0;
        int rc;

        if (parse_args(c, &a) < 0)
                return OUTCOME_INVALID;
        if ((rc = ctl_need_store(c)) > 0 || (rc = ctl_need_http(c)) > 0 || (rc = ctl_need_lease(c, 0)) > 0)
                return rc;
        sel = calloc(c->inv->n_nodes + 1, sizeof(*sel));
        if (!sel || pick(c, &a, sel, &n) < 0)
                return OUTCOME_INVALID;
        if (n == 0) {
                log_err("rollback: no node matches; nothing was changed");
                return OUTCOME_INVALID;
        }
        if (!cli_confirm(c->yes, "roll back %u node%s (%s%s%s%s%s%s)%s?", n, n == 1 ? "" : "s", sel[0]->name,
                         n > 1 ? ", " : "", n > 1 ? sel[1]->name : "", n > 2 ? ", " : "", n > 2 ? sel[2]->name : "",
                         n > 3 ? ", ..." : "", a.to ? ", each to its committed revision --to names" : "")) {
                log_err("rollback: not confirmed; nothing was changed");
                return OUTCOME_INVALID;
        }
        return run(c, &a, sel, n);
}
