/* SPDX-License-Identifier: MIT */
/*
 * nettunectl rollback [--rollout ID [--force]] [--to REV] [--label KEY=VALUE]...:
 * POST /v1/rollback across the fleet, recorded as a rollout of kind "rollback".
 *
 * --rollout ID: every node rollout ID touched goes back to the revision it had
 * before that rollout (rollout_run_restore: restored, already there, refused,
 * failed); a node something else changed since is refused unless --force. Without
 * --rollout and --to, after a rollout that halted (the newest one, or the one the
 * newest rollback went back from) it means --rollout of that rollout; otherwise each
 * agent undoes its newest committed revision, and with --to REV each agent applies
 * its committed revision REV again ({"to": REV}). Every rollback carries
 * expect_revision, the node's current revision as its history said just before.
 */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/rollout/rollout.h"

#define REV_MAX 2147483647u

struct rollback_args {
        unsigned to;                    /* 0: undo the newest revision */
        unsigned rollout;
        bool force;
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
                if (streq(o, "--force")) {
                        a->force = true;
                        continue;
                }
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
        if (a->to && (a->rollout || a->force)) {
                log_err("rollback: --to REV applies one revision number on every node; --rollout ID%s goes back to "
                        "each node's own revision before that rollout: give one of them; nothing was changed",
                        a->force ? " (with --force)" : "");
                return -EINVAL;
        }
        return 0;
}

/* The rollout a rollback record went back from ({"rollout": ID} in its args), 0 when it was a plain one. */
static long long source_of(const struct rollout_rec *r)
{
        json_t *j = r->args ? json_loads(r->args, 0, NULL) : NULL;
        json_int_t id = json_integer_value(json_object_get(j, "rollout"));

        json_decref(j);
        return streq(r->kind, "rollback") && id > 0 ? (long long)id : 0;
}

/*
 * A plain rollback after a halted rollout is a rollback by that rollout: the newest
 * rollout halted, or the newest is a rollback by rollout (run again, it changes
 * nothing where the first one finished). A tune trial ends halted by design (its
 * change cancelled, never a revision): after one, a plain rollback stays plain.
 */
static void implied_rollout(struct ctl *c, struct rollback_args *a)
{
        struct rollout_rec *r = NULL;
        long long src;

        if (a->to || a->rollout || store_rollout_load(c->store, 0, &r, NULL) < 0)
                return;
        src = source_of(r);
        if (!src && r->state == ROLLOUT_HALTED && !streq(r->kind, "rollback") && !streq(r->kind, "tune"))
                src = r->id;
        if (src > 0 && src <= 2000000000) {
                a->rollout = (unsigned)src;
                if (!c->quiet && !c->json)
                        fprintf(stderr, "rollback: rollout %lld %s: its nodes go back to their revisions before it "
                                "(as --rollout %lld)\n", src, src == r->id ? "halted" : "was rolled back last", src);
        }
        rollout_rec_free(r);
}

static bool labels_match(struct ctl *c, const struct rollback_args *a, const char *name)
{
        const struct inventory_node *node = inventory_find(c->inv, name);

        return a->sel.n == 0 || (node && ctl_labels_match(a->sel.labels, a->sel.n, node));
}

/* A node the rollout may have changed: its apply was sent (a key journaled) or it names a transaction. */
static bool touched(const struct rnode *n)
{
        return n->state != RNODE_PLANNED && n->state != RNODE_SKIPPED && (n->key[0] || n->tx[0]);
}

static int rollback_src(struct ctl *c, const struct rollback_args *a, struct rollout_rec **ret)
{
        struct errbuf e = { 0 };
        char buf[ERRBUF_STR_MAX];

        if (store_rollout_load(c->store, a->rollout, ret, &e) < 0) {
                log_err("%s; nothing was changed", errbuf_str(&e, buf, sizeof(buf)));
                return -EINVAL;
        }
        if (streq((*ret)->kind, "rollback") || (*ret)->state == ROLLOUT_RUNNING || (*ret)->state == ROLLOUT_PENDING) {
                log_err("rollback --rollout %u: rollout %u is %s (%s)%s; nothing was changed", a->rollout, a->rollout,
                        rollout_state_name((*ret)->state), (*ret)->kind, streq((*ret)->kind, "rollback") ?
                        ": a rollback is not rolled back by rollout" : (*ret)->state == ROLLOUT_PENDING ?
                        ": 'nettunectl halt ID' cancels its pending changes" :
                        ": finish it with 'nettunectl apply --resume ID' or stop it with 'nettunectl halt ID' first");
                rollout_rec_free(*ret);
                *ret = NULL;
                return -EINVAL;
        }
        return 0;
}

/* On a terminal: "roll back 3 nodes (gpu1, gpu2, gpu3, ...)[, what]?" (--yes: yes; no terminal: yes). */
static bool confirmed(struct ctl *c, const struct inventory_node *const *sel, unsigned n, const char *fmt, ...)
        _printf_(4, 5);
static bool confirmed(struct ctl *c, const struct inventory_node *const *sel, unsigned n, const char *fmt, ...)
{
        char what[160];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(what, sizeof(what), fmt, ap);
        va_end(ap);
        if (cli_confirm(c->yes, "roll back %u node%s (%s%s%s%s%s%s)%s%s?", n, n == 1 ? "" : "s", sel[0]->name,
                        n > 1 ? ", " : "", n > 1 ? sel[1]->name : "", n > 2 ? ", " : "", n > 2 ? sel[2]->name : "",
                        n > 3 ? ", ..." : "", what[0] ? ", " : "", what))
                return true;
        log_err("rollback: not confirmed; nothing was changed");
        return false;
}

static int by_rollout(struct ctl *c, const struct rollback_args *a)
{
        struct rollout_opts o = { .canary = 0, .wave_size = { 100, true }, .fabric_neighbours = -1,
                                  .max_regression_pct = -1 };
        struct rollout_rec *src = NULL, *r = NULL;
        struct inventory_node *nodes = NULL;
        const struct inventory_node **ptrs = NULL;
        struct rollout_run_env env;
        struct errbuf e = { 0 };
        char name[64], args[64];
        unsigned n = 0;
        int rc = rollback_src(c, a, &src);

        if (rc < 0)
                return OUTCOME_INVALID;
        nodes = calloc(src->n_nodes + 1, sizeof(*nodes));
        ptrs = calloc(src->n_nodes + 1, sizeof(*ptrs));
        for (unsigned i = 0; nodes && ptrs && i < src->n_nodes; i++) {
                if (!touched(&src->nodes[i]) || !labels_match(c, a, src->nodes[i].name))
                        continue;
                snprintf(nodes[n].name, sizeof(nodes[n].name), "%s", src->nodes[i].name);
                snprintf(nodes[n].url, sizeof(nodes[n].url), "%s", src->nodes[i].url);
                ptrs[n] = &nodes[n];
                n++;
        }
        snprintf(name, sizeof(name), "rollback of rollout %lld", src->id);
        snprintf(args, sizeof(args), "{\"rollout\":%lld,\"force\":%s}", src->id, a->force ? "true" : "false");
        if (nodes && ptrs && n == 0) {
                log_err("rollback --rollout %lld: it changed no node%s; nothing was changed", src->id,
                        a->sel.n ? " with those labels" : "");
                rc = OUTCOME_INVALID;
                goto out;
        }
        if (nodes && ptrs && !confirmed(c, ptrs, n, "each to where rollout %lld found it", src->id)) {
                rc = OUTCOME_INVALID;
                goto out;
        }
        r = nodes && ptrs ? rollout_rec_new("rollback", name, NULL, args, &o, ptrs, n) : NULL;
        rc = r ? store_rollout_create(c->store, r, &e) : errbuf_set(&e, ENOMEM, "", "out of memory");
        ctl_run_env(c, &env);
        if (rc >= 0)
                rc = rollout_run_restore(&env, r, src, a->force, &e);
        if (rc >= 0)
                output_rollout(r, c->json);
        rc = rc < 0 ? ctl_fail(&e) : rc;
out:
        rollout_rec_free(r);
        rollout_rec_free(src);
        free(nodes);
        free(ptrs);
        return rc;
}

/* Nodes of a plain rollback: every inventory node the labels match. */
static int pick(struct ctl *c, const struct rollback_args *a, const struct inventory_node **sel, unsigned *ret_n)
{
        unsigned n = 0;

        for (unsigned i = 0; i < c->inv->n_nodes; i++)
                if (ctl_labels_match(a->sel.labels, a->sel.n, &c->inv->nodes[i]))
                        sel[n++] = &c->inv->nodes[i];
        *ret_n = n;
        return 0;
}

static int plain(struct ctl *c, const struct rollback_args *a)
{
        struct rollout_opts o = { .canary = 0, .wave_size = { 100, true }, .fabric_neighbours = -1,
                                  .max_regression_pct = -1 };
        _cleanup_free_ const struct inventory_node **sel = calloc(c->inv->n_nodes + 1, sizeof(*sel));
        struct rollout_run_env env;
        struct rollout_rec *r;
        struct errbuf e = { 0 };
        char name[64], body[32];
        unsigned n = 0;
        int rc;

        if (!sel || pick(c, a, sel, &n) < 0)
                return OUTCOME_RUNTIME;
        if (n == 0) {
                log_err("rollback: no node matches; nothing was changed");
                return OUTCOME_INVALID;
        }
        if (!confirmed(c, sel, n, "%s", a->to ? "each to its committed revision --to names" : ""))
                return OUTCOME_INVALID;
        snprintf(body, sizeof(body), a->to ? "{\"to\":%u}" : "{}", a->to);
        snprintf(name, sizeof(name), a->to ? "rollback to %u" : "rollback", a->to);
        r = rollout_rec_new("rollback", name, NULL, body, &o, sel, n);
        if (!r)
                return log_err("out of memory"), OUTCOME_RUNTIME;
        rc = store_rollout_create(c->store, r, &e);
        ctl_run_env(c, &env);
        if (rc >= 0)
                rc = rollout_run_rollback(&env, r, a->to, &e);
        if (rc >= 0)
                output_rollout(r, c->json);
        rc = rc < 0 ? ctl_fail(&e) : rc;
        rollout_rec_free(r);
        return rc;
}

int ctl_cmd_rollback(struct ctl *c)
{
        struct rollback_args a = { 0 };
        int rc;

        if (parse_args(c, &a) < 0)
                return OUTCOME_INVALID;
        if ((rc = ctl_need_store(c)) > 0 || (rc = ctl_need_http(c)) > 0 || (rc = ctl_need_lease(c, 0)) > 0)
                return rc;
        implied_rollout(c, &a);
        if (a.force && !a.rollout) {
                log_err("rollback --force: only with --rollout ID (a node changed since that rollout is refused "
                        "without it); nothing was changed");
                return OUTCOME_INVALID;
        }
        return a.rollout ? by_rollout(c, &a) : plain(c, &a);
}
