/* SPDX-License-Identifier: MIT */
/*
 * nettunectl rollback --rollout ID [--force] | --policy NAME | --to REV [--selector EXPR]...:
 * POST /v1/rollback across the fleet, recorded as a rollout of kind "rollback". It
 * says what it undoes: bare, it changes nothing, exits 2 and lists the newest rollouts.
 *
 * --rollout ID: every node rollout ID touched goes back to the revision it had
 * before that rollout (rollout_run_restore: restored, already there, refused,
 * failed); a node something else changed since is refused unless --force.
 * --policy NAME: every selected node that holds layer NAME (GET /v1/intent) returns
 * it to its previous version, or takes it out when it has none ({"policy": NAME}).
 * --to REV: each agent applies its committed revision REV again ({"to": REV}).
 * Every rollback carries expect_revision, the node's current revision as its
 * history said just before.
 *
 * --no-gate --reason TEXT: for the day the fabric is on fire, each agent restores
 * without its verification probe and gate (?no_gate=true; the agents answer it to
 * operate-role clients only, as every rollback); who asked (the OS user, the client
 * certificate's CN) and why are recorded with the rollback, as apply records them.
 */
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/rollout/rollout.h"

#define REV_MAX 2147483647u

struct rollback_args {
        unsigned to;                    /* 0: not given */
        const char *policy;             /* --policy NAME: that layer back to its previous version */
        unsigned rollout;
        bool force;
        bool no_gate;                   /* --no-gate: restored without the verification probe and gate */
        char reason[STORE_ERR_MAX];     /* --reason TEXT */
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
                if (streq(o, "--no-gate")) {
                        a->no_gate = true;
                        continue;
                }
                if (streq(o, "--reason") && v) {
                        size_t len = strlen(v);

                        for (size_t k = 0; k < len; k++)
                                if ((unsigned char)v[k] < 0x20 || v[k] == 0x7f)
                                        len = 0;
                        if (len == 0 || len >= sizeof(a->reason)) {
                                log_err("--reason '%.80s': expected one line of 1-%zu printable characters; nothing "
                                        "was changed", v, sizeof(a->reason) - 1);
                                return -EINVAL;
                        }
                        memcpy(a->reason, v, len + 1);
                        i++;
                        continue;
                }
                if (streq(o, "--to") && v) {
                        if (ctl_parse_uint("--to", v, 1, REV_MAX, &a->to) < 0)
                                return -EINVAL;
                } else if (streq(o, "--policy") && v) {
                        a->policy = v;
                } else if (streq(o, "--rollout") && v) {
                        if (ctl_parse_uint("--rollout", v, 1, 2000000000, &a->rollout) < 0)
                                return -EINVAL;
                } else {
                        return ctl_bad_arg(c, o);
                }
                i++;
        }
        if (a->policy && (a->to || a->rollout || a->force)) {
                log_err("rollback: --policy NAME returns one layer to its previous version on each node; --to and "
                        "--rollout say another way back: give one of them; nothing was changed");
                return -EINVAL;
        }
        if (a->to && (a->rollout || a->force)) {
                log_err("rollback: --to REV applies one revision number on every node; --rollout ID%s goes back to "
                        "each node's own revision before that rollout: give one of them; nothing was changed",
                        a->force ? " (with --force)" : "");
                return -EINVAL;
        }
        if (a->no_gate && !a->reason[0]) {
                log_err("rollback --no-gate: give --reason TEXT too (why the agents restore without their gate is "
                        "recorded with who asked); nothing was changed");
                return -EINVAL;
        }
        return 0;
}

/* Who asked and why (--reason, and always with --no-gate): recorded with the rollback, as apply records them. */
static void record_who(struct ctl *c, const struct rollback_args *a, struct rollout_opts *o)
{
        if (!a->no_gate && !a->reason[0])
                return;
        ctl_who(c, NULL, o);
        snprintf(o->reason, sizeof(o->reason), "%s", a->reason);
}

/* The newest rollouts, one line each, for a bare rollback's refusal. */
static int newest_row(const struct rollout_rec *r, void *ud)
{
        unsigned *n = ud;

        fprintf(stderr, "  %-6lld %-9s %-10s %-24s %s\n", r->id, r->kind, rollout_state_name(r->state),
                r->policy_name, r->message);
        (*n)++;
        return 0;
}

/*
 * A bare rollback would not say what it undoes (each node's own newest revision,
 * whatever rollout or layer made it): refused, exit 2, with the newest rollouts to
 * choose from.
 */
static int refuse_bare(struct ctl *c)
{
        struct errbuf e = { 0 };
        unsigned n = 0;

        log_err("rollback: say what to undo: --rollout ID (every node it touched, back to its revision before it), "
                "--policy NAME (one layer back to its previous version) or --to REV; nothing was changed");
        if (ctl_need_store(c) > 0)
                return OUTCOME_INVALID;
        fprintf(stderr, "the newest rollouts:\n");
        if (store_rollout_list(c->store, 5, newest_row, &n, &e) < 0)
                fprintf(stderr, "  (the store cannot be read: %s)\n", e.msg);
        else if (n == 0)
                fprintf(stderr, "  none\n");
        return OUTCOME_INVALID;
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
        char name[64], args[96];
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
        snprintf(args, sizeof(args), "{\"rollout\":%lld,\"force\":%s%s}", src->id, a->force ? "true" : "false",
                 a->no_gate ? ",\"no_gate\":true" : "");
        record_who(c, a, &o);
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

/* --policy NAME: the selected nodes that hold that layer (the others named, left out); exit code or 0. */
static int holders(struct ctl *c, const struct rollback_args *a, const struct inventory_node **sel, unsigned *n)
{
        char without[1024];
        int r;

        for (const char *p = a->policy; *p || p == a->policy; p++)
                if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-') ||
                    strlen(a->policy) >= POLICY_NAME_MAX) {
                        log_err("rollback --policy '%.80s': not a policy name (a DNS label); nothing was changed",
                                a->policy);
                        return OUTCOME_INVALID;
                }
        r = ctl_layer_holders(c, a->policy, sel, n, false, without, sizeof(without));
        if (r < 0)
                return r == -EHOSTUNREACH ? OUTCOME_RUNTIME : (log_err("cannot query the agents: %s", strerror(-r)),
                                                                OUTCOME_RUNTIME);
        if (*n == 0) {
                log_err("rollback --policy %s: no selected node has policy '%s' committed; nothing was changed",
                        a->policy, a->policy);
                return OUTCOME_INVALID;
        }
        if (without[0] && !c->quiet && !c->json)
                fprintf(stderr, "rollback: policy '%s' is not committed on %s: left out\n", a->policy, without);
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
        char name[96], body[160];
        unsigned n = 0;
        int rc;

        if (!sel || pick(c, a, sel, &n) < 0)
                return OUTCOME_RUNTIME;
        if (n == 0) {
                log_err("rollback: no node matches; nothing was changed");
                return OUTCOME_INVALID;
        }
        if (a->policy && (rc = holders(c, a, sel, &n)) > 0)
                return rc;
        if (!confirmed(c, sel, n, "%s%s%s", a->to ? "each to its committed revision --to names" :
                       a->policy ? "policy '" : "", a->policy ? a->policy : "",
                       a->policy ? "' to its previous version" : ""))
                return OUTCOME_INVALID;
        if (a->policy)
                snprintf(body, sizeof(body), "{\"policy\":\"%s\"%s}", a->policy,
                         a->no_gate ? ",\"no_gate\":true" : "");
        else if (a->to)
                snprintf(body, sizeof(body), "{\"to\":%u%s}", a->to, a->no_gate ? ",\"no_gate\":true" : "");
        else
                snprintf(body, sizeof(body), "{%s}", a->no_gate ? "\"no_gate\":true" : "");
        record_who(c, a, &o);
        if (a->policy)
                snprintf(name, sizeof(name), "rollback of policy %s", a->policy);
        else
                snprintf(name, sizeof(name), a->to ? "rollback to %u" : "rollback", a->to);
        r = rollout_rec_new("rollback", name, NULL, body, &o, sel, n);
        if (!r)
                return log_err("out of memory"), OUTCOME_RUNTIME;
        rc = store_rollout_create(c->store, r, &e);
        ctl_run_env(c, &env);
        if (rc >= 0)
                rc = a->policy ? rollout_run_rollback_policy(&env, r, a->policy, &e) :
                                 rollout_run_rollback(&env, r, a->to, &e);
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
        if (!a.rollout && !a.policy && !a.to)
                return refuse_bare(c);
        if ((rc = ctl_need_store(c)) > 0 || (rc = ctl_need_http(c)) > 0 || (rc = ctl_need_lease(c, 0)) > 0)
                return rc;
        if (a.force && !a.rollout) {
                log_err("rollback --force: only with --rollout ID (a node changed since that rollout is refused "
                        "without it); nothing was changed");
                return OUTCOME_INVALID;
        }
        return a.rollout ? by_rollout(c, &a) : plain(c, &a);
}
