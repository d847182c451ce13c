/* SPDX-License-Identifier: MIT */
#include "agent/txn/txn.h"
#include "agent/txn/txn_internal.h"

int drift_check(struct txn_env *env, struct plan *ret, struct policy **ret_policy, struct errbuf *e)
{
        struct policy *p = NULL;
        int r;

        txn_plan_init(env, ret);
        r = journal_committed_policy(env->journal, 0, &p, NULL, e);
        if (r == -ENOENT || (r >= 0 && !p))
                return errbuf_set(e, ENOENT, NULL, "no committed policy to compare with");
        if (r >= 0)
                r = plan_for_policy(ret, p, 0, e);
        if (r >= 0)
                r = plan_read(ret, e);
        plan_close(ret);
        if (r < 0 || !ret_policy)
                policy_free(p);
        else
                *ret_policy = p;
        return r < 0 ? r : (int)ret->n_changes;
}
