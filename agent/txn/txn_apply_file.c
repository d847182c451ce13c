/* SPDX-License-Identifier: MIT */
/*
 * `apply FILE` in one call, with the journal opened beside the policy's plan.
 *
 * Opening the journal is the longer of apply's two first steps (SQLite reads its
 * schema and its WAL back, and the statements of a transaction are prepared); up to
 * the snapshot nothing needs it. So a helper thread reads the policy, takes the
 * node's lock and does the plan's first half (txn_prepare: read, check, change list,
 * snapshot rows) while this thread opens the journal, then lists what is unfinished
 * once the lock is held. Nothing unfinished: no recovery, no pending check. Should
 * the lock's recovery restore an interrupted transaction, the plan is made again,
 * from the node as that left it.
 */
#include <pthread.h>

#include "agent/txn/txn_internal.h"
#include "common/log.h"
#include "common/outcome.h"
#include "common/thread.h"
#include "common/util.h"

/* The journal being opened, and what it tells the planner's side once the lock is held. */
struct opening {
        const char *state_dir;
        struct journal *journal;
        struct errbuf e;
        int r;
        pthread_mutex_t mu;
        pthread_cond_t cv;
        int locked;                     /* 1: the lock is held; -1: it never will be */
        bool listed;                    /* the unfinished transactions were listed under the lock */
        unsigned n_unfinished;
};

/* The other half: the policy, the lock and the plan read, beside the opening. */
struct ahead {
        const struct agent_config *cfg;
        const char *file;
        struct txn_env *env;
        struct plan *plan;
        struct txn_prepared *prep;
        struct txn_result *res;
        struct opening *o;
        struct policy *p;               /* out: the policy */
        int r;                          /* out: what plan_for_policy() returned (its error in res) */
        enum outcome failed;            /* out: the policy or the lock failed (e says why) */
        struct errbuf e;
};

static void opening_locked(struct opening *o, bool held)
{
        pthread_mutex_lock(&o->mu);
        o->locked = held ? 1 : -1;
        pthread_cond_signal(&o->cv);
        pthread_mutex_unlock(&o->mu);
}

static void open_journal(struct opening *o)
{
        _cleanup_free_ int64_t *ids = NULL;
        struct errbuf e = { 0 };
        int locked;

        o->r = journal_open(o->state_dir, &o->journal, &o->e);
        if (o->r < 0)
                return;
        journal_warm(o->journal);
        pthread_mutex_lock(&o->mu);
        while (!o->locked)
                pthread_cond_wait(&o->cv, &o->mu);
        locked = o->locked;
        pthread_mutex_unlock(&o->mu);
        if (locked > 0)
                o->listed = journal_unfinished(o->journal, &ids, &o->n_unfinished, &e) >= 0;
}

/* No switch among the targets: the plan's first half may run before the journal is there. */
static bool hosts_only(const struct plan *plan)
{
        for (unsigned i = 0; i < plan->n; i++)
                if (plan->v[i].t.kind == TARGET_SWITCH)
                        return false;
        return true;
}

static void *plan_ahead(void *arg)
{
        struct ahead *a = arg;

        if (policy_load_file(a->file, &a->p, &a->e) < 0)
                a->failed = OUTCOME_INVALID;
        else if (txlock_acquire(a->cfg->state_dir, false, &a->env->lock_fd, &a->e) < 0)
                a->failed = OUTCOME_RUNTIME;
        opening_locked(a->o, a->env->lock_fd >= 0);
        if (a->failed)
                return NULL;
        a->r = plan_for_policy(a->plan, a->p, 0, &a->res->error);
        if (a->r >= 0 && hosts_only(a->plan))
                txn_prepare(a->env, "apply", &a->p->verify, a->plan, a->prep, a->res);
        return NULL;
}

/* Could not start: nothing was changed, e says why. */
static enum outcome not_started(struct txn_result *ret, enum outcome o, const struct errbuf *e)
{
        ret->error = *e;
        ret->result[0] = '\0';
        ret->exit_code = o;
        return o;
}

/* The journal is open and the lock held: recover what is unfinished, then apply. */
static enum outcome run(struct txn_env *env, struct opening *o, struct ahead *a, int confirm_timeout_s)
{
        struct errbuf e = { 0 };

        if (!o->listed || o->n_unfinished > 0) {
                int recovered = txn_recover(env, &e);

                if (recovered < 0) {
                        txn_unprepare(a->plan, a->prep);
                        plan_free(a->plan);
                        return not_started(a->res, OUTCOME_RUNTIME, &e);
                }
                if (recovered > 0) {
                        txn_unprepare(a->plan, a->prep);
                        plan_free(a->plan);
                        txn_result_done(a->res);
                        txn_result_init(a->res);
                        txn_plan_init(env, a->plan);
                        a->r = plan_for_policy(a->plan, a->p, 0, &a->res->error);
                }
        } else {
                a->prep->idle = true;
        }
        if (a->r < 0) {
                txn_unprepare(a->plan, a->prep);
                plan_free(a->plan);
                txn_finish(a->res, TXN_PLANNED, outcome_of_errno(a->r), "refused");
                return a->res->exit_code;
        }
        txn_apply_prepared(env, NULL, a->p, confirm_timeout_s, a->plan, a->prep, a->res);
        return a->res->exit_code;
}

enum outcome txn_apply_file(const struct agent_config *cfg, const char *file, int confirm_timeout_s,
                            struct progress *progress, struct txn_result *ret)
{
        struct opening o = { .state_dir = cfg->state_dir, .mu = PTHREAD_MUTEX_INITIALIZER,
                             .cv = PTHREAD_COND_INITIALIZER };
        struct txn_prepared prep = { 0 };
        struct txn_env env;
        struct plan plan;
        struct ahead a;
        pthread_t planner;
        enum outcome rc;
        bool threaded;

        txn_env_init(&env, cfg, NULL);
        env.progress = progress;
        txn_plan_init(&env, &plan);
        a = (struct ahead){ .cfg = cfg, .file = file, .env = &env, .plan = &plan, .prep = &prep, .res = ret, .o = &o };
        threaded = thread_start_beside(&planner, plan_ahead, &a) == 0;
        if (!threaded)
                plan_ahead(&a);
        open_journal(&o);
        if (threaded)
                pthread_join(planner, NULL);
        env.journal = o.journal;
        if (a.failed) {
                txn_unprepare(&plan, &prep);
                plan_free(&plan);
                rc = not_started(ret, a.failed, &a.e);
        } else if (o.r < 0) {
                txn_unprepare(&plan, &prep);
                plan_free(&plan);
                rc = not_started(ret, OUTCOME_RUNTIME, &o.e);
        } else {
                rc = run(&env, &o, &a, confirm_timeout_s);
        }
        policy_free(a.p);
        txn_unlock(&env);
        journal_close(o.journal);
        return rc;
}
