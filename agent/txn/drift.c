/* SPDX-License-Identifier: MIT */
/* Drift: the live state against the node's intent, the merge of its committed layers; enforcement of it. */
#include "agent/txn/txn.h"
#include "agent/txn/txn_internal.h"

int drift_check(struct txn_env *env, struct plan *ret, struct errbuf *e)
{
        struct intent in;
        int r;

        txn_plan_init(env, ret);
        r = intent_load(env->journal, &in, e);
        if (r >= 0 && !in.n)
                r = errbuf_set(e, ENOENT, NULL, "no committed policy to compare with");
        if (r >= 0)
                r = intent_plan(env, &in, ret, e);
        if (r >= 0)
                r = plan_read(ret, e);
        plan_close(ret);
        intent_free(&in);
        return r < 0 ? r : (int)ret->n_changes;
}

int txn_enforce(struct txn_env *env, struct txn_result *ret)
{
        _cleanup_free_ char *json = NULL;
        struct intent in;
        struct plan plan;
        int r;

        txn_plan_init(env, &plan);
        r = intent_load(env->journal, &in, &ret->error);
        if (r >= 0 && !in.n)
                r = errbuf_set(&ret->error, ENOENT, NULL, "no committed policy to enforce");
        /* the revision an enforcement records keeps the newest committed policy, as before layers */
        if (r >= 0)
                r = journal_revision(env->journal, 0, NULL, NULL, &json, &ret->error);
        if (r >= 0)
                r = intent_plan(env, &in, &plan, &ret->error);
        if (r >= 0)
                r = txn_run(env, "enforce", json, NULL, 0, &plan, ret);
        else
                txn_finish(ret, TXN_PLANNED, outcome_of_errno(r), "refused");
        plan_free(&plan);
        intent_free(&in);
        return r;
}
