/* SPDX-License-Identifier: MIT */
/* Commands that change the node: apply, rollback, remove, confirm, and the detached confirm watchdog. */
#include <getopt.h>
#include <time.h>

#include "agent/cmd/cmd.h"
#include "agent/txn/txn.h"
#include "common/log.h"
#include "common/progress.h"

struct session {
        struct journal *journal;
        struct txn_env env;
        struct progress progress;       /* the probes' runs on a terminal (env.progress) */
};

static void session_done(struct session *s)
{
        txn_unlock(&s->env);
        journal_close(s->journal);
}

/* A session of a command that changes the node: the journal and, when lock is set, the lock (which recovers first). */
static int session_open(struct cli *c, struct session *s, bool lock)
{
        struct errbuf e = { 0 };
        char buf[ERRBUF_STR_MAX];
        int r;

        memset(s, 0, sizeof(*s));
        txn_env_init(&s->env, &c->config, NULL);
        progress_init(&s->progress, progress_mode_for(STDERR_FILENO, false, c->json, false), stderr);
        if (s->progress.mode != PROGRESS_OFF)
                s->env.progress = &s->progress;
        r = journal_open(c->config.state_dir, &s->journal, &e);
        s->env.journal = s->journal;
        if (r >= 0 && lock)
                r = txn_lock_recovering(&s->env, false, &e);
        if (r < 0) {
                fprintf(stderr, "%s: %s; nothing was changed\n", c->prog, errbuf_str(&e, buf, sizeof(buf)));
                journal_close(s->journal);
                s->journal = s->env.journal = NULL;
                return OUTCOME_RUNTIME;
        }
        return 0;
}

static void print_changes(const struct txn_result *r)
{
        for (unsigned i = 0; i < r->n_changes; i++)
                printf("  %s %s: %s -> %s\n", r->changes[i].target, r->changes[i].d.key, r->changes[i].d.from,
                       r->changes[i].d.to);
}

/* What the plan wants the reader to know, as `plan` prints it. */
static void print_notes(const json_t *notes)
{
        size_t i;
        json_t *o;

        json_array_foreach(notes, i, o)
                printf("note: %s\n", json_string_value(o));
}

/* "; restored switch 'leaf1' by vendor-abort, interface 'vA' by driver-reapply" */
static void print_restores(const json_t *restores)
{
        size_t i;
        json_t *o;

        json_array_foreach(restores, i, o)
                printf("%s %s '%s' by %s", i ? "," : "; restored", json_string_value(json_object_get(o, "kind")),
                       json_string_value(json_object_get(o, "target")),
                       json_string_value(json_object_get(o, "method")));
}

static int print_result(struct cli *c, const struct txn_result *r)
{
        char buf[ERRBUF_STR_MAX];

        for (unsigned i = 0; i < r->pin.n_warnings; i++)
                fprintf(stderr, "%s: warning: %s\n", c->prog, r->pin.warnings[i]);
        if (c->json) {
                json_t *j = txn_result_to_json(r);

                json_dumpf(j, stdout, JSON_INDENT(2) | JSON_SORT_KEYS);
                putchar('\n');
                json_decref(j);
        } else {
                if (r->tx)
                        printf("transaction %lld: %s", (long long)r->tx, r->result);
                else
                        printf("%s", r->result);
                if (r->restored_by[0])
                        printf(" (restored by %s)", r->restored_by);
                print_restores(r->restores);
                if (r->baseline.ok || r->post.ok)
                        printf(", probe %.2f -> %.2f Gb/s", r->baseline.gbps, r->post.gbps);
                if (r->state == TXN_PENDING_CONFIRM)
                        printf("; confirm with 'nettune-agent confirm %lld' within %lld s",
                               (long long)r->tx, (long long)((r->confirm_deadline_ms - journal_now_ms() + 999) / 1000));
                putchar('\n');
                if (r->baseline.ran || r->post.ran)
                        printf("  probe: %s\n", plan_probe_str(&r->pin, buf, sizeof(buf)));
                print_changes(r);
                print_notes(r->notes);
        }
        if (r->error.msg[0])
                fprintf(stderr, "%s: %s%s\n", c->prog, errbuf_str(&r->error, buf, sizeof(buf)),
                        r->exit_code == OUTCOME_INVALID && !strstr(r->error.msg, "nothing was changed") ?
                        "; nothing was changed" : "");
        return r->exit_code;
}

int cmd_apply(struct cli *c)
{
        struct txn_result res;
        struct progress pg;
        const char *file = NULL;
        int confirm = -1, rc;
        unsigned timeout;
        char buf[ERRBUF_STR_MAX];

        for (int i = 1; i < c->argc; i++) {
                const char *v = cli_opt_value(c, &i, "--confirm-timeout");

                if (v) {
                        if (cli_parse_uint(c, "--confirm-timeout", v, 0, 86400, &timeout) < 0)
                                return OUTCOME_INVALID;
                        confirm = (int)timeout;
                } else if (!file && c->argv[i][0] != '-') {
                        file = c->argv[i];
                } else {
                        return cli_bad_arg(c, c->argv[i]), OUTCOME_INVALID;
                }
        }
        if (!file) {
                fprintf(stderr, "%s apply: no policy file given; see '%s apply --help'\n", c->prog, c->prog);
                return OUTCOME_INVALID;
        }
        if (!cli_confirm(c->yes, "apply '%s' to this node (see 'nettune-agent plan %s')?", file, file)) {
                fprintf(stderr, "%s: apply: not confirmed; nothing was changed\n", c->prog);
                return OUTCOME_INVALID;
        }
        progress_init(&pg, progress_mode_for(STDERR_FILENO, false, c->json, false), stderr);
        txn_result_init(&res);
        rc = txn_apply_file(&c->config, file, confirm, pg.mode != PROGRESS_OFF ? &pg : NULL, &res);
        if (res.result[0])
                rc = print_result(c, &res);
        else
                fprintf(stderr, "%s: %s; nothing was changed\n", c->prog, errbuf_str(&res.error, buf, sizeof(buf)));
        txn_result_done(&res);
        return rc;
}

/*
 * --to REV or --to=REV: *ret = REV; 0 when not given. --policy NAME: *ret_policy (one of
 * them, or neither). --no-gate: *ret_no_gate.
 */
static int parse_rollback_args(struct cli *c, int64_t *ret, const char **ret_policy, bool *ret_no_gate)
{
        const char *v = NULL;
        char *end;
        long long n;

        *ret = 0;
        *ret_policy = NULL;
        *ret_no_gate = false;
        for (int i = 1; i < c->argc; i++) {
                const char *o = c->argv[i];

                if (streq(o, "--no-gate"))
                        *ret_no_gate = true;
                else if ((streq(o, "--policy") || streq(o, "--to")) && i + 1 < c->argc && !v && !*ret_policy)
                        *(streq(o, "--to") ? &v : ret_policy) = c->argv[++i];
                else if (!strncmp(o, "--policy=", 9) && !v && !*ret_policy)
                        *ret_policy = o + 9;
                else if (!strncmp(o, "--to=", 5) && !v && !*ret_policy)
                        v = o + 5;
                else
                        return cli_bad_arg(c, o);
        }
        if (!v)
                return 0;
        errno = 0;
        n = strtoll(v, &end, 10);
        if (errno || end == v || *end || n <= 0) {
                fprintf(stderr, "%s: rollback --to '%s': expected a revision number 1 or more; nothing was changed\n",
                        c->prog, v);
                return -EINVAL;
        }
        *ret = n;
        return 0;
}

int cmd_rollback(struct cli *c)
{
        struct txn_request req;
        struct session s;
        struct txn_result res;
        const char *policy;
        int64_t rev;
        bool no_gate;
        int rc;

        if (parse_rollback_args(c, &rev, &policy, &no_gate) < 0)
                return OUTCOME_INVALID;
        if (!(rev ? cli_confirm(c->yes, "roll this node back to its revision %lld%s?", (long long)rev,
                                no_gate ? " without its gate" : "")
                  : policy ? cli_confirm(c->yes, "roll policy '%s' back to its previous version%s?", policy,
                                         no_gate ? " without its gate" : "")
                  : cli_confirm(c->yes, "roll this node back, undoing its newest committed revision%s?",
                                no_gate ? " without its gate" : ""))) {
                fprintf(stderr, "%s: rollback: not confirmed; nothing was changed\n", c->prog);
                return OUTCOME_INVALID;
        }
        rc = session_open(c, &s, true);
        if (rc)
                return rc;
        txn_result_init(&res);
        txn_request_init(&req);
        req.no_gate = no_gate;          /* --no-gate: no verification probe, no gate */
        if (rev)
                txn_rollback_to(&s.env, &req, rev, &res);
        else if (policy)
                txn_rollback_policy(&s.env, &req, policy, &res);
        else
                txn_rollback(&s.env, &req, &res);
        rc = print_result(c, &res);
        txn_result_done(&res);
        session_done(&s);
        return rc;
}

int cmd_remove(struct cli *c)
{
        struct session s;
        struct txn_result res;
        int rc;

        if (c->argc > 2 || (c->argc == 2 && c->argv[1][0] == '-'))
                return cli_bad_arg(c, c->argv[c->argc > 2 ? 2 : 1]), OUTCOME_INVALID;
        if (c->argc != 2) {
                fprintf(stderr, "%s remove: no policy name given; see '%s remove --help'\n", c->prog, c->prog);
                return OUTCOME_INVALID;
        }
        if (!cli_confirm(c->yes, "take policy '%s' out of this node's intent?", c->argv[1])) {
                fprintf(stderr, "%s: remove: not confirmed; nothing was changed\n", c->prog);
                return OUTCOME_INVALID;
        }
        rc = session_open(c, &s, true);
        if (rc)
                return rc;
        txn_result_init(&res);
        txn_remove(&s.env, NULL, c->argv[1], &res);
        rc = print_result(c, &res);
        txn_result_done(&res);
        session_done(&s);
        return rc;
}

static int parse_tx(struct cli *c, const char *v, int64_t *ret)
{
        char *end;
        long long n;

        errno = 0;
        n = strtoll(v ? v : "", &end, 10);
        if (!v || errno || end == v || *end || n <= 0) {
                fprintf(stderr, "%s: transaction id '%s': expected a positive integer\n", c->prog, v ? v : "");
                return -EINVAL;
        }
        *ret = n;
        return 0;
}

int cmd_confirm(struct cli *c)
{
        struct session s;
        struct txn_result res;
        int64_t tx;
        int rc;

        if (c->argc > 2)
                return cli_bad_arg(c, c->argv[2]), OUTCOME_INVALID;
        if (c->argc != 2 || parse_tx(c, c->argv[1], &tx) < 0)
                return OUTCOME_INVALID;
        rc = session_open(c, &s, true);
        if (rc)
                return rc;
        txn_result_init(&res);
        txn_confirm(&s.env, tx, 0, &res);
        rc = print_result(c, &res);
        txn_result_done(&res);
        session_done(&s);
        return rc;
}

/* Sleep until the deadline, a second at most. */
static void nap_until(int64_t deadline_ms)
{
        int64_t left = deadline_ms - journal_now_ms();
        struct timespec ts = { 1, 0 };

        if (left < 1000)
                ts = (struct timespec){ 0, (long)(left > 0 ? left : 0) * 1000000L };
        nanosleep(&ts, NULL);
}

/*
 * Hidden: the detached confirm watchdog (txn_watchdog.c). Started before its
 * transaction is pending: while the transaction is still in flight, it waits for the
 * lock, which the applying process holds until it ends (taking it then recovers a
 * transaction that process left in flight). While pending: restore at the deadline.
 */
int cmd_confirm_watchdog(struct cli *c)
{
        struct session s;
        struct journal_tx t;
        struct errbuf e = { 0 };
        int64_t tx;

        if (c->argc != 2 || parse_tx(c, c->argv[1], &tx) < 0)
                return OUTCOME_INVALID;
        if (session_open(c, &s, false))
                return OUTCOME_RUNTIME;
        for (;;) {
                if (journal_get(s.journal, tx, &t, &e) < 0)
                        break;
                journal_tx_done(&t);
                if (journal_state_final(t.state))
                        break;
                if (t.state != TXN_PENDING_CONFIRM || t.confirm_deadline_ms <= journal_now_ms()) {
                        /* Blocks while the transaction runs; then recovers whatever is due. */
                        if (txn_lock(&s.env, true, &e) < 0)
                                break;
                        txn_unlock(&s.env);
                        nap_until(journal_now_ms() + 100);      /* no busy loop if recovery could not finish it */
                        continue;
                }
                /* A second at a time: a confirm, a restore by someone else or a moved deadline ends the wait. */
                nap_until(t.confirm_deadline_ms < journal_now_ms() + 1000 ? t.confirm_deadline_ms : journal_now_ms() + 1000);
        }
        session_done(&s);
        return OUTCOME_OK;
}
