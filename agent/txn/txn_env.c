/* SPDX-License-Identifier: MIT */
/* The transaction's environment, a request's defaults and the result: the lowest layer of txn*.c. */
#include "common/outcome.h"
#include "agent/txn/txn_internal.h"

void txn_env_init(struct txn_env *env, const struct agent_config *c, struct journal *j)
{
        memset(env, 0, sizeof(*env));
        env->config = c;
        env->journal = j;
        env->lock_fd = -1;
        env->plan = (struct plan_env){ .config = c };
        env->hooks.probe = txn_probe_default;
}

void txn_request_init(struct txn_request *req)
{
        *req = (struct txn_request){ .expect_revision = -1 };
}

const struct txn_request *txn_request_of(const struct txn_request *req, const char *kind, struct txn_request *buf)
{
        if (req)
                *buf = *req;
        else
                txn_request_init(buf);
        if (!buf->kind)
                buf->kind = kind;
        return buf;
}

void txn_plan_init(const struct txn_env *env, struct plan *ret)
{
        plan_init(ret, &env->plan);
}

void txn_result_init(struct txn_result *r)
{
        memset(r, 0, sizeof(*r));
        r->exit_code = OUTCOME_RUNTIME;
}

void txn_rollback_name_gate(struct txn_result *res, const char *policy)
{
        char text[POLICY_NAME_MAX + 128];

        if (!(res->baseline.ran && !res->baseline.ok) && !(res->post.ran && !res->post.ok) &&
            !streq(res->restored_by, "gate"))
                return;
        snprintf(text, sizeof(text), " (a rollback is gated by the verify settings of the revision it returns "
                 "to: policy '%s')", policy);
        errbuf_suffix(&res->error, text);
}

void txn_result_done(struct txn_result *r)
{
        if (!r)
                return;
        free(r->changes);
        r->changes = NULL;
        r->n_changes = 0;
        json_decref(r->restores);
        json_decref(r->saves);
        json_decref(r->notes);
        r->restores = r->saves = r->notes = NULL;
}
