/* SPDX-License-Identifier: MIT */
/*
 * Roll back to an earlier committed revision: its canonical policy is applied
 * again as a full, gated transaction of kind "rollback" (resolve, diff,
 * baseline, snapshot, apply, read back, post probe and gate with that
 * revision's own verify settings). Fields the revision does not manage are left
 * as they are. With layers, every layer goes back to what it was at that revision:
 * one taken out since comes back, one committed since goes, and a revision that took
 * the last layer out takes every layer out (each field back to its value before
 * nettune).
 */
#include "common/outcome.h"
#include "agent/txn/txn_internal.h"

static int refuse(struct txn_result *ret, int64_t rev, const char *why)
{
        txn_finish(ret, TXN_PLANNED, OUTCOME_INVALID, "refused");
        return errbuf_set(&ret->error, ENOENT, NULL, "revision %lld %s; nothing was changed", (long long)rev, why);
}

/* Every layer back to revision rev: one transaction over the intent then and now. */
static int back_to(struct txn_env *env, const struct txn_request *req, int64_t rev, const struct policy *p,
                   struct txn_result *ret)
{
        _cleanup_free_ char *json = policy_to_json(p);
        struct txn_request back = *req;
        struct intent now, then;
        struct plan plan;
        int r;

        txn_plan_init(env, &plan);
        r = intent_load(env->journal, &now, &ret->error);
        if (r < 0) {
                txn_finish(ret, TXN_PLANNED, OUTCOME_RUNTIME, "failed");
                return r;
        }
        r = intent_load_at(env->journal, rev, &then, &ret->error);
        if (r >= 0)
                r = json ? intent_back_plan(env, &now, &then, &plan, &ret->error)
                         : errbuf_set(&ret->error, ENOMEM, NULL, "out of memory");
        if (r < 0) {
                txn_finish(ret, TXN_PLANNED, outcome_of_errno(r), "refused");
        } else {
                snprintf(plan.policy, sizeof(plan.policy), "%s", p->name);
                back.kind = "rollback";
                back.layer = "*";               /* every layer as it was at rev */
                back.layer_prev = rev;
                r = txn_run(env, &back, json, &p->verify, 0, &plan, ret);
        }
        plan_free(&plan);
        intent_free(&then);
        intent_free(&now);
        return r;
}

int txn_rollback_to(struct txn_env *env, const struct txn_request *req, int64_t rev, struct txn_result *ret)
{
        struct txn_request own;
        struct policy *p = NULL;
        int64_t since = 0;
        int r;

        if (rev <= 0)
                return refuse(ret, rev, "does not exist: revisions are numbered from 1");
        req = txn_request_of(req, "rollback", &own);
        own.kind = "rollback";          /* whatever the caller's: a revision applied again is a rollback */
        r = txn_check_expected(env, req, ret);
        if (r < 0)
                return r;
        r = journal_committed_policy(env->journal, rev, &p, NULL, &ret->error);
        if (r == -ENOENT)
                return refuse(ret, rev, "does not exist: no committed revision has that number");
        if (r >= 0 && !p && journal_layers_since(env->journal, &since, &ret->error) >= 0 && since > 0 &&
            rev >= since && journal_committed_policy(env->journal, 0, &p, NULL, &ret->error) >= 0 && p) {
                /* a revision that took the last layer out: going back to it takes every layer out,
                 * gated by the verify settings of the newest committed policy, the one it undoes */
                r = back_to(env, req, rev, p, ret);
                txn_rollback_name_gate(ret, p->name);
                policy_free(p);
                return r;
        }
        if (r >= 0 && !p)
                return refuse(ret, rev, "has no policy (it undid the first one): there is nothing to apply");
        if (r < 0) {
                txn_finish(ret, TXN_PLANNED, OUTCOME_RUNTIME, "failed");
                return r;
        }
        r = journal_layers_since(env->journal, &since, &ret->error);
        if (r >= 0 && since > 0 && rev >= since) {
                r = back_to(env, req, rev, p, ret);
                txn_rollback_name_gate(ret, p->name);
                policy_free(p);
                return r;
        }
        r = txn_apply(env, req, p, 0, ret);
        txn_rollback_name_gate(ret, p->name);
        policy_free(p);
        return r;
}
