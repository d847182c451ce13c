/* SPDX-License-Identifier: MIT */
/* The transaction's journal records (each state change, the final result) and its barriers. */
#include "agent/txn/txn_internal.h"

void txn_crashpoint(struct txn_env *env, const char *step)
{
        struct errbuf e = { 0 };

        /* A crash test stops here: the journal as this step leaves it, so what is recorded so far is flushed first. */
        if (crashpoint_armed(step))
                journal_barrier(env->journal, &e);
        crashpoint(step);
}

int txn_barrier(struct txn_env *env, struct txn_result *res)
{
        return journal_barrier(env->journal, &res->error);
}

int txn_side_effect(struct txn_env *env, const char *what, struct txn_result *res)
{
        return journal_side_effect(env->journal, what, &res->error);
}

int txn_step(struct txn_env *env, struct txn_result *res, enum txn_state s,
             const struct journal_result *jr)
{
        int r = journal_record(env->journal, res->tx, s, jr, &res->error);

        if (r < 0)
                return r;
        res->state = s;
        if (s == TXN_COMMITTED) {
                struct errbuf ignored = { 0 };
                int64_t rev = 0, tx = 0;

                /* For the answer: a caller that knows the revision need not ask GET /v1/transactions/T. */
                if (journal_revision(env->journal, 0, &rev, &tx, NULL, &ignored) >= 0 && tx == res->tx)
                        res->rev = rev;
        }
        txn_crashpoint(env, journal_state_name(s));
        return 0;
}

void txn_finish(struct txn_result *res, enum txn_state s, int exit_code, const char *result)
{
        res->state = s;
        res->exit_code = exit_code;
        snprintf(res->result, sizeof(res->result), "%s", result);
}

int txn_record_final(struct txn_env *env, struct txn_result *res, enum txn_state s,
                     int exit_code, const char *result)
{
        _cleanup_free_ char *probe = txn_probe_json_text(res);
        _cleanup_free_ char *restores = txn_json_text(res->restores);
        char err[ERRBUF_STR_MAX] = "";
        int r;
        struct journal_result jr = {
                .result = result, .exit_code = exit_code, .probe_json = probe,
                .restored_by = res->restored_by[0] ? res->restored_by : NULL,
                .restores_json = restores, .rollback_ms = res->rollback_ms,
        };

        if (res->error.msg[0])
                jr.error = errbuf_str(&res->error, err, sizeof(err));
        txn_finish(res, s, exit_code, result);
        if (!res->tx)
                return 0;
        r = txn_step(env, res, s, &jr);
        /* The end of the run: durable before anyone hears of it. */
        return r < 0 ? r : txn_barrier(env, res);
}
