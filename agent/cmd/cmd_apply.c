/* SPDX-License-Identifier: MIT */
/* Commands that change or report transactions: apply, rollback, confirm, history, drift. */
#include <getopt.h>
#include <pthread.h>
#include <time.h>

#include "agent/cmd/cmd.h"
#include "agent/txn/txn.h"
#include "common/log.h"
#include "common/progress.h"
#include "common/thread.h"

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

/*
 * A journal being opened (SQLite reads its WAL back and its schema): `apply` opens
 * it while the policy, the lock and the plan's first half run beside it (plan_ahead).
 */
struct opening {
        const char *state_dir;
        struct journal *journal;
        struct errbuf e;
        int r;
        bool warm;                      /* and prepare the statements of a transaction (apply) */
        /*
         * list: and then, once the caller holds the node's lock (locked 1; -1: it never
         * will), list the unfinished transactions (listed, n_unfinished): none under the
         * lock, and neither recovery nor the check for a pending change has anything to do.
         */
        bool list;
        pthread_mutex_t mu;
        pthread_cond_t cv;
        int locked;
        bool listed;
        unsigned n_unfinished;
};

static void *open_journal(void *arg)
{
        struct opening *o = arg;
        _cleanup_free_ int64_t *ids = NULL;
        struct errbuf e = { 0 };
        int locked;

        o->r = journal_open(o->state_dir, &o->journal, &o->e);
        if (o->r >= 0 && o->warm)
                journal_warm(o->journal);
        if (o->r < 0 || !o->list)
                return NULL;
        pthread_mutex_lock(&o->mu);
        while (!o->locked)
                pthread_cond_wait(&o->cv, &o->mu);
        locked = o->locked;
        pthread_mutex_unlock(&o->mu);
        if (locked > 0)
                o->listed = journal_unfinished(o->journal, &ids, &o->n_unfinished, &e) >= 0;
        return NULL;
}

/* Tell the opener whether the lock is held (held) or never will be. */
static void opening_locked(struct opening *o, bool held)
{
        pthread_mutex_lock(&o->mu);
        o->locked = held ? 1 : -1;
        pthread_cond_signal(&o->cv);
        pthread_mutex_unlock(&o->mu);
}

/* No switch among the targets: the plan's first half may run before the journal is there. */
static bool hosts_only(const struct plan *plan)
{
        for (unsigned i = 0; i < plan->n; i++)
                if (plan->v[i].t.kind == TARGET_SWITCH)
                        return false;
        return true;
}

/* apply's first half, beside the journal's opening: the policy, the lock, the plan read. */
struct ahead {
        struct cli *c;
        const char *file;
        struct session *s;
        struct plan *plan;
        struct txn_result *res;
        struct opening *o;              /* told when the lock is held, or never will be */
        struct policy *p;               /* out: the policy */
        int r;                          /* out: what plan_for_policy() returned (its error in res) */
        int rc;                         /* out: an exit code when the policy or the lock failed (e says why) */
        struct errbuf e;
};

static void *plan_ahead(void *arg)
{
        struct ahead *a = arg;
        struct session *s = a->s;

        if (policy_load_file(a->file, &a->p, &a->e) < 0)
                a->rc = OUTCOME_INVALID;
        else if (txlock_acquire(a->c->config.state_dir, false, &s->env.lock_fd, &a->e) < 0)
                a->rc = OUTCOME_RUNTIME;
        opening_locked(a->o, s->env.lock_fd >= 0);
        if (a->rc)
                return NULL;
        a->r = plan_for_policy(a->plan, a->p, 0, &a->res->error);
        if (a->r >= 0 && hosts_only(a->plan))
                txn_prepare(&s->env, "apply", &a->p->verify, a->plan, a->res);
        return NULL;
}

/* A session without its journal yet: the environment, progress lines on a terminal. */
static void session_init(struct cli *c, struct session *s)
{
        memset(s, 0, sizeof(*s));
        txn_env_init(&s->env, &c->config, NULL);
        progress_init(&s->progress, progress_mode_for(STDERR_FILENO, false, c->json, false), stderr);
        if (s->progress.mode != PROGRESS_OFF)
                s->env.progress = &s->progress;
}

/*
 * The session over the journal o opened (or failed to) and, when lock is set, the
 * lock (which recovers first). *ret_recovered: how many interrupted transactions
 * the recovery restored.
 */
static int session_adopt(struct cli *c, struct session *s, struct opening *o, bool lock, int *ret_recovered)
{
        char buf[1100];
        int r = o->r;

        session_init(c, s);
        s->journal = s->env.journal = o->journal;
        *ret_recovered = 0;
        if (r >= 0 && lock)
                r = *ret_recovered = txn_lock_recovering(&s->env, false, &o->e);
        if (r < 0) {
                fprintf(stderr, "%s: %s; nothing was changed\n", c->prog, errbuf_str(&o->e, buf, sizeof(buf)));
                journal_close(s->journal);
                s->journal = NULL;
                return OUTCOME_RUNTIME;
        }
        return 0;
}

/* Open the journal and, when lock is set, take the lock (which recovers first). */
static int session_open(struct cli *c, struct session *s, bool lock)
{
        struct opening o = { .state_dir = c->config.state_dir };
        int recovered;

        open_journal(&o);
        return session_adopt(c, s, &o, lock, &recovered);
}

static int want_help(struct cli *c, const char *usage)
{
        for (int i = 1; i < c->argc; i++)
                if (streq(c->argv[i], "--help") || streq(c->argv[i], "-h")) {
                        printf("%s", usage);
                        return 1;
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
        char buf[1100];

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
                        printf(", probe %.2f -> %.2f Gbit/s", r->baseline.gbps, r->post.gbps);
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

static const char apply_usage[] =
        "usage: nettune-agent apply POLICY [--confirm-timeout S]\n"
        "apply POLICY as one transaction: snapshot, apply, read back, probe, commit or roll back.\n"
        "  --confirm-timeout S  leave the change pending (exit 4) and restore it after S seconds\n"
        "                       unless 'nettune-agent confirm TX' comes first\n";

static int parse_uint_opt(struct cli *c, const char *opt, const char *v, unsigned max, int *ret)
{
        char *end;
        unsigned long n;

        errno = 0;
        n = strtoul(v, &end, 10);
        if (errno || end == v || *end || n > max || v[0] == '-') {
                fprintf(stderr, "%s: %s '%s': expected an integer 0-%u; nothing was changed\n", c->prog, opt, v, max);
                return -EINVAL;
        }
        *ret = (int)n;
        return 0;
}

int cmd_apply(struct cli *c)
{
        struct opening o = { .state_dir = c->config.state_dir, .warm = true, .mu = PTHREAD_MUTEX_INITIALIZER,
                             .cv = PTHREAD_COND_INITIALIZER };
        struct policy *p = NULL;
        struct errbuf e = { 0 };
        struct session s;
        struct txn_result res;
        struct plan plan;
        struct ahead a;
        pthread_t planner;
        const char *file = NULL;
        int confirm = -1, rc = 0, r = 0;
        bool threaded;
        char buf[1100];

        if (want_help(c, apply_usage))
                return OUTCOME_OK;
        for (int i = 1; i < c->argc; i++) {
                if (streq(c->argv[i], "--confirm-timeout") && i + 1 < c->argc) {
                        if (parse_uint_opt(c, "--confirm-timeout", c->argv[++i], 86400, &confirm) < 0)
                                return OUTCOME_INVALID;
                } else if (!file && c->argv[i][0] != '-') {
                        file = c->argv[i];
                } else {
                        fprintf(stderr, "%s: apply: unexpected argument '%s'\n%s", c->prog, c->argv[i], apply_usage);
                        return OUTCOME_INVALID;
                }
        }
        if (!file) {
                fprintf(stderr, "%s", apply_usage);
                return OUTCOME_INVALID;
        }
        /*
         * The policy, the lock and the plan's first half go to a thread of their own,
         * beside this one, which opens the journal meanwhile (SQLite reads its schema
         * and its WAL back: the longer of the two), then lists what is unfinished once
         * the lock is held: up to the snapshot nothing needs the journal. Should the
         * lock's recovery then restore an interrupted transaction, the plan is made
         * again, from the node as that left it.
         */
        session_init(c, &s);
        txn_result_init(&res);
        plan_init(&plan, &s.env.plan);
        a = (struct ahead){ .c = c, .file = file, .s = &s, .plan = &plan, .res = &res, .o = &o };
        o.list = true;
        threaded = thread_start_beside(&planner, plan_ahead, &a) == 0;
        if (!threaded)
                plan_ahead(&a);
        open_journal(&o);
        if (threaded)
                pthread_join(planner, NULL);
        p = a.p;
        r = a.r;
        rc = a.rc;
        if (rc)
                fprintf(stderr, "%s: %s; nothing was changed\n", c->prog, errbuf_str(&a.e, buf, sizeof(buf)));
        s.journal = s.env.journal = o.journal;
        if (!rc && o.r < 0) {
                fprintf(stderr, "%s: %s; nothing was changed\n", c->prog, errbuf_str(&o.e, buf, sizeof(buf)));
                rc = OUTCOME_RUNTIME;
        }
        /* Nothing unfinished under the lock: nothing to recover, nothing pending. */
        if (!rc && o.listed && o.n_unfinished == 0) {
                s.env.prep.idle = true;
        } else if (!rc) {
                int recovered = txn_recover(&s.env, &e);

                if (recovered < 0) {
                        fprintf(stderr, "%s: %s; nothing was changed\n", c->prog, errbuf_str(&e, buf, sizeof(buf)));
                        rc = OUTCOME_RUNTIME;
                } else if (recovered > 0) {
                        txn_unprepare(&s.env, &plan);
                        plan_free(&plan);
                        txn_result_done(&res);
                        txn_result_init(&res);
                        txn_plan_init(&s.env, &plan);
                        r = plan_for_policy(&plan, p, 0, &res.error);
                }
        }
        if (!rc) {
                txn_apply_plan(&s.env, p, confirm, &plan, r, &res);
                rc = print_result(c, &res);
        } else {
                txn_unprepare(&s.env, &plan);
                plan_free(&plan);
        }
        txn_result_done(&res);
        policy_free(p);
        session_done(&s);
        return rc;
}

static const char rollback_usage[] =
        "usage: nettune-agent rollback [--to REV]\n"
        "undo the newest committed revision as a full, verified transaction.\n"
        "  --to REV  apply committed revision REV (the REV column of 'history') again instead\n";

/* --to REV or --to=REV: *ret = REV; 0 when not given. */
static int parse_rollback_args(struct cli *c, int64_t *ret)
{
        const char *v = NULL;
        char *end;
        long long n;

        *ret = 0;
        if (c->argc == 1)
                return 0;
        if (c->argc == 3 && streq(c->argv[1], "--to"))
                v = c->argv[2];
        else if (c->argc == 2 && !strncmp(c->argv[1], "--to=", 5))
                v = c->argv[1] + 5;
        if (!v) {
                fprintf(stderr, "%s: rollback: unexpected argument '%s'; %snothing was changed\n", c->prog,
                        c->argv[1], "usage: nettune-agent rollback [--to REV]; ");
                return -EINVAL;
        }
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
        struct session s;
        struct txn_result res;
        int64_t rev;
        int rc;

        if (want_help(c, rollback_usage))
                return OUTCOME_OK;
        if (parse_rollback_args(c, &rev) < 0)
                return OUTCOME_INVALID;
        rc = session_open(c, &s, true);
        if (rc)
                return rc;
        txn_result_init(&res);
        if (rev)
                txn_rollback_to(&s.env, rev, &res);
        else
                txn_rollback(&s.env, &res);
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

        if (want_help(c, "usage: nettune-agent confirm TX\nkeep a change applied with --confirm-timeout.\n"))
                return OUTCOME_OK;
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
