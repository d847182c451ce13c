/* SPDX-License-Identifier: MIT */
/* The transaction's journal writes: each state change, and the final result. */
#include "agent/txn/txn_internal.h"

void txn_crashpoint(struct txn_env *env, const char *step)
{
        struct errbuf e = { 0 };

        /* A crash test stops here: the journal as this step leaves it, so the group's writes so far commit first. */
        if (env->grouped && crashpoint_armed(step)) {
                env->grouped = false;
                journal_group_commit(env->journal, &e);
        }
        crashpoint(step);
}

void txn_group_begin(struct txn_env *env, bool durable, struct txn_result *res)
{
        struct errbuf e = { 0 };

        /* Cannot open one: each write commits on its own, as without a group. */
        if (!env->grouped && journal_group_begin(env->journal, durable, &e) >= 0)
                env->grouped = true;
}

int txn_group_end(struct txn_env *env, struct txn_result *res)
{
        if (!env->grouped)
                return 0;
        env->grouped = false;
        return journal_group_commit(env->journal, &res->error);
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
        return txn_step(env, res, s, &jr);
}
