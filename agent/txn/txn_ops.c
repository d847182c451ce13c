/* SPDX-License-Identifier: MIT */
/* Entry points around the core: lock + recovery, apply, rollback, confirm. */
#include "common/outcome.h"
#include "agent/txn/txn.h"
#include "agent/txn/txn_internal.h"
#include "common/log.h"

int txn_lock_recovering(struct txn_env *env, bool wait, struct errbuf *e)
{
        int r = txlock_acquire(env->config->state_dir, wait, &env->lock_fd, e);

        if (r < 0)
                return r;
        r = txn_recover(env, e);
        if (r < 0)
                txn_unlock(env);
        return r;
}

int txn_lock(struct txn_env *env, bool wait, struct errbuf *e)
{
        int r = txn_lock_recovering(env, wait, e);

        return r < 0 ? r : 0;
}

void txn_unlock(struct txn_env *env)
{
        txlock_release(env->lock_fd);
        env->lock_fd = -1;
}

static int recover_one(struct txn_env *env, int64_t id, struct errbuf *e)
{
        struct journal_tx t;
        struct txn_result res;
        const char *by = "recovery";
        int r = journal_get(env->journal, id, &t, e);

        if (r < 0)
                return r;
        if (t.state == TXN_PENDING_CONFIRM) {
                if (t.confirm_deadline_ms > journal_now_ms()) {
                        journal_tx_done(&t);
                        return 0;
                }
                by = "confirm-timeout";
        }
        if (t.state == TXN_PENDING_CONFIRM)
                log_warn("transaction %lld was not confirmed in time; restoring its snapshot", (long long)id);
        else
                log_warn("transaction %lld was interrupted in state %s; restoring its snapshot",
                         (long long)id, journal_state_name(t.state));
        journal_tx_done(&t);
        txn_result_init(&res);
        if (t.state == TXN_PLANNED) {
                /* Nothing was touched before the snapshot. */
                res.tx = id;
                snprintf(res.restored_by, sizeof(res.restored_by), "%s", by);
                errbuf_set(&res.error, EINTR, NULL, "interrupted before anything was changed");
                r = txn_record_final(env, &res, TXN_ROLLED_BACK, OUTCOME_RUNTIME, "rolled_back");
        } else {
                r = txn_restore_tx(env, id, by, &res);
        }
        txn_result_done(&res);
        return r < 0 ? r : 1;
}

int txn_recover(struct txn_env *env, struct errbuf *e)
{
        _cleanup_free_ int64_t *ids = NULL;
        unsigned n = 0;
        int r, count = 0;

        r = journal_unfinished(env->journal, &ids, &n, e);
        if (r < 0)
                return r;
        for (unsigned i = 0; i < n; i++) {
                r = recover_one(env, ids[i], e);
                if (r < 0)
                        log_err("transaction %lld: recovery failed; see 'history'", (long long)ids[i]);
                else
                        count += r;
        }
        return count;
}

int txn_recover_due(struct txn_env *env)
{
        _cleanup_free_ int64_t *ids = NULL;
        struct errbuf e = { 0 };
        unsigned n = 0;
        bool due = false;
        int r;

        if (journal_unfinished(env->journal, &ids, &n, &e) < 0)
                return 0;
        for (unsigned i = 0; i < n && !due; i++) {
                struct journal_tx t;

                if (journal_get(env->journal, ids[i], &t, &e) < 0)
                        continue;
                due = t.state != TXN_PENDING_CONFIRM || t.confirm_deadline_ms <= journal_now_ms();
                journal_tx_done(&t);
        }
        if (!due)
                return 0;
        /* Only when no transaction runs: taking the lock recovers (an in-flight one keeps it). */
        r = txlock_acquire(env->config->state_dir, false, &env->lock_fd, &e);
        if (r < 0)
                return 0;
        r = txn_recover(env, &e);
        txn_unlock(env);
        return r;
}

int txn_apply_prepared(struct txn_env *env, const struct txn_request *req, const struct policy *p,
                       int confirm_timeout_s, struct plan *plan, struct txn_prepared *prep, struct txn_result *ret)
{
        _cleanup_free_ char *json = policy_to_json(p);
        struct txn_prepared none = { 0 };
        struct txn_request own;
        struct intent in = { 0 };
        int r;

        req = txn_request_of(req, "apply", &own);
        /* Layers: a field another layer owns is refused; a change among layers plans the merged intent. */
        if (env->journal && !streq(req->kind, "enforce")) {
                r = intent_load(env->journal, &in, &ret->error);
                if (r >= 0)
                        r = intent_conflict(env, &in, p, &ret->error);
                if (r >= 0 && intent_is_layered(&in, p)) {
                        if (prep)
                                txn_unprepare(plan, prep);
                        plan_free(plan);
                        txn_result_done(ret);
                        txn_result_init(ret);
                        txn_plan_init(env, plan);
                        prep = NULL;
                        r = intent_change_plan(env, &in, p->name, p, plan, &ret->error);
                }
                intent_free(&in);
                if (r < 0) {
                        if (prep)
                                txn_unprepare(plan, prep);
                        plan_free(plan);
                        txn_finish(ret, TXN_PLANNED, outcome_of_errno(r), "refused");
                        return r;
                }
        }
        r = json ? txn_run_prepared(env, req, json, &p->verify,
                                    confirm_timeout_s >= 0 ? (unsigned)confirm_timeout_s : p->confirm_timeout_s,
                                    plan, prep ? prep : &none, ret)
                 : -ENOMEM;
        plan_free(plan);
        return r;
}

int txn_apply(struct txn_env *env, const struct txn_request *req, const struct policy *p, int confirm_timeout_s,
              struct txn_result *ret)
{
        struct plan plan;
        int r;

        txn_plan_init(env, &plan);
        r = plan_for_policy(&plan, p, 0, &ret->error);
        if (r < 0) {
                txn_finish(ret, TXN_PLANNED, outcome_of_errno(r), "refused");
                plan_free(&plan);
                return r;
        }
        return txn_apply_prepared(env, req, p, confirm_timeout_s, &plan, NULL, ret);
}

int txn_rollback(struct txn_env *env, const struct txn_request *req, struct txn_result *ret)
{
        _cleanup_free_ char *json = NULL;
        struct policy *prev = NULL;
        struct txn_request own;
        int64_t last_tx = 0;
        struct plan plan;
        int r;

        req = txn_request_of(req, "rollback", &own);
        r = txn_check_expected(env, req, ret);
        if (r < 0)
                return r;
        r = txn_rollback_layers(env, req, ret);
        if (r != 0)
                return r < 0 ? r : 0;
        r = journal_revision(env->journal, 0, NULL, &last_tx, NULL, &ret->error);
        if (r == -ENOENT) {
                txn_finish(ret, TXN_PLANNED, OUTCOME_INVALID, "refused");
                return errbuf_set(&ret->error, ENOENT, NULL, "nothing to roll back: no committed revision");
        }
        txn_plan_init(env, &plan);
        /* The revision before the newest: its verify settings gate the way back (none: no probe). */
        if (r >= 0)
                r = journal_committed_policy(env->journal, -1, &prev, &json, &ret->error);
        if (r == -ENOENT)
                r = 0;
        if (r >= 0)
                r = txn_plan_from_snapshot(env, last_tx, &plan, &ret->error);
        if (r >= 0) {
                snprintf(plan.policy, sizeof(plan.policy), "%s", prev ? prev->name : "");
                r = txn_run(env, req, json, prev ? &prev->verify : NULL, 0, &plan, ret);
                if (prev)
                        txn_rollback_name_gate(ret, prev->name);
        } else {
                txn_finish(ret, TXN_PLANNED, OUTCOME_RUNTIME, "failed");
        }
        plan_free(&plan);
        policy_free(prev);
        return r;
}

/*
 * A confirm too late for the transaction's deadline or for the caller's not_after_ms:
 * restore, say why. A not_after_ms before the transaction even started cannot be a
 * deadline the caller missed: it is the caller's cancel (the controller halting a
 * wave sends not_after_ms 1), journaled as restored_by "cancelled".
 */
static int confirm_late(struct txn_env *env, int64_t tx, const struct journal_tx *t, int64_t not_after_ms,
                        int64_t now, struct txn_result *ret)
{
        bool cancel = not_after_ms > 0 && not_after_ms < t->started_ms && t->confirm_deadline_ms > now;
        char why[160];

        if (cancel)
                snprintf(why, sizeof(why), "its caller cancelled it (not_after_ms %lld lies before the transaction "
                         "started)", (long long)not_after_ms);
        else if (t->confirm_deadline_ms <= now)
                snprintf(why, sizeof(why), "its confirm deadline %lld passed %lld ms before the confirm",
                         (long long)t->confirm_deadline_ms, (long long)(now - t->confirm_deadline_ms));
        else
                snprintf(why, sizeof(why), "the confirm came %lld ms after the caller's not_after_ms %lld",
                         (long long)(now - not_after_ms), (long long)not_after_ms);
        log_warn("transaction %lld: confirm refused: %s; restoring its snapshot", (long long)tx, why);
        errbuf_set(&ret->error, ETIME, NULL, "%s", why);        /* journaled with the restore */
        txn_restore_tx(env, tx, cancel ? "cancelled" : "confirm-timeout", ret);
        txn_finish(ret, ret->state, OUTCOME_ROLLED_BACK, journal_state_name(ret->state));
        if (cancel)
                return errbuf_set(&ret->error, ETIME, NULL, "transaction %lld was not confirmed: %s; the change was %s",
                                  (long long)tx, why, ret->state == TXN_ROLLED_BACK ? "rolled back" :
                                  "not restored (RESTORE FAILED)");
        return errbuf_set(&ret->error, ETIME, NULL, "transaction %lld was not confirmed in time: %s; the change was %s",
                          (long long)tx, why, ret->state == TXN_ROLLED_BACK ? "rolled back" : "not restored (RESTORE FAILED)");
}

/*
 * The node's current pending transaction: the newest unfinished one, when it is
 * pending. *ret 0 when there is none.
 */
static int current_pending(struct txn_env *env, int64_t *ret, struct errbuf *e)
{
        _cleanup_free_ int64_t *ids = NULL;
        struct journal_tx t;
        unsigned n = 0;
        int r = journal_unfinished(env->journal, &ids, &n, e);

        *ret = 0;
        if (r < 0 || n == 0)
                return r;
        r = journal_get(env->journal, ids[n - 1], &t, e);
        if (r < 0)
                return r;
        if (t.state == TXN_PENDING_CONFIRM)
                *ret = t.id;
        journal_tx_done(&t);
        return 0;
}

int txn_confirm(struct txn_env *env, int64_t tx, int64_t not_after_ms, struct txn_result *ret)
{
        int64_t now = journal_now_ms(), current = 0;
        struct journal_tx t;
        int r = journal_get(env->journal, tx, &t, &ret->error);

        ret->tx = tx;
        if (r < 0) {
                txn_finish(ret, TXN_PLANNED, outcome_of_errno(r), "refused");
                return r;
        }
        ret->state = t.state;
        /* A confirm or cancel acts only on the node's current pending transaction: any other changes nothing. */
        if (t.state == TXN_PENDING_CONFIRM && (current_pending(env, &current, &ret->error) < 0 || current != tx)) {
                journal_tx_done(&t);
                txn_finish(ret, TXN_PENDING_CONFIRM, OUTCOME_ROLLED_BACK, "not_current");
                if (!current) {
                        char why[sizeof(ret->error.msg)];

                        snprintf(why, sizeof(why), "%s", ret->error.msg);
                        return errbuf_set(&ret->error, EIO, NULL, "transaction %lld: cannot tell the node's current "
                                          "pending transaction: %s; nothing was changed", (long long)tx, why);
                }
                return errbuf_set(&ret->error, ESTALE, NULL, "transaction %lld is not the node's current pending "
                                  "transaction (%lld is); nothing was changed", (long long)tx, (long long)current);
        }
        if (t.state == TXN_PENDING_CONFIRM && (t.confirm_deadline_ms <= now || (not_after_ms > 0 && now > not_after_ms))) {
                r = confirm_late(env, tx, &t, not_after_ms, now, ret);
                journal_tx_done(&t);
                return r;
        }
        journal_tx_done(&t);
        if (t.state == TXN_COMMITTED) {
                txn_finish(ret, TXN_COMMITTED, OUTCOME_OK, "committed");
                return 0;
        }
        if (t.state == TXN_PENDING_CONFIRM && ret->state == TXN_PENDING_CONFIRM) {
                struct journal_result jr = { .result = "committed", .exit_code = OUTCOME_OK };

                r = txn_step(env, ret, TXN_COMMITTED, &jr);
                if (r >= 0)
                        r = txn_barrier(env, ret);      /* before the answer */
                if (r < 0) {
                        ret->state = TXN_PENDING_CONFIRM;
                        return r;
                }
                txn_finish(ret, TXN_COMMITTED, OUTCOME_OK, "committed");
                return 0;
        }
        txn_finish(ret, ret->state, OUTCOME_ROLLED_BACK, journal_state_name(ret->state));
        if (ret->state == TXN_ROLLED_BACK)
                return errbuf_set(&ret->error, ESTALE, NULL, "transaction %lld already rolled back", (long long)tx);
        return errbuf_set(&ret->error, EINVAL, NULL, "transaction %lld is %s, not pending confirmation",
                          (long long)tx, journal_state_name(ret->state));
}
