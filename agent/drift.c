/* SPDX-License-Identifier: MIT */
#include "drift.h"
#include "txn_internal.h"

int drift_check(struct txn_env *env, json_t **ret_changes, struct policy **ret_policy, struct errbuf *e)
{
        _cleanup_free_ char *json = NULL;
        _cleanup_free_ struct txn_target *tg = NULL;
        _cleanup_free_ struct state *live = NULL;
        struct policy *p = NULL;
        unsigned n = 0, count = 0;
        int r;

        r = journal_revision(env->journal, 0, NULL, NULL, &json, e);
        if (r == -ENOENT || (r >= 0 && !json))
                return errbuf_set(e, ENOENT, NULL, "no committed policy to compare with");
        if (r >= 0)
                r = policy_parse_buffer(json, strlen(json), "committed revision", &p, e);
        if (r >= 0)
                r = env->hooks.resolve(env, p, &tg, &n, e);
        if (r >= 0 && !(live = calloc(n ? n : 1, sizeof(*live))))
                r = -ENOMEM;
        if (r >= 0)
                r = txn_read_live(tg, n, live, e);
        if (r >= 0)
                r = txn_diff_json(tg, live, n, ret_changes, &count);
        if (r < 0 || !ret_policy)
                policy_free(p);
        else
                *ret_policy = p;
        return r < 0 ? r : (int)count;
}
