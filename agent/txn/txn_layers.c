/* SPDX-License-Identifier: MIT */
/*
 * A layer taken out (remove) or returned to its previous version (rollback --policy),
 * each one transaction over the merged intent (intent.c); a bare rollback that would
 * not say which layer it undoes is refused.
 */
#include "common/outcome.h"
#include "agent/txn/txn_internal.h"

/* "a, b, c": the committed layers' names. */
static void layer_names(const struct intent *in, char *buf, size_t size)
{
        size_t n = 0;

        buf[0] = '\0';
        for (unsigned i = 0; i < in->n && n < size; i++)
                n += (size_t)snprintf(buf + n, size - n, "%s%s", i ? ", " : "", in->v[i].p->name);
}

static int refuse(struct txn_result *ret, int err)
{
        txn_finish(ret, TXN_PLANNED, OUTCOME_INVALID, "refused");
        return -err;
}

/* The policy the revision of a layer change records: p, else the newest layer left (none: NULL). */
static char *revision_json(const struct intent *in, const char *name, const struct policy *p)
{
        const struct policy *newest = p;
        int64_t rev = 0;

        for (unsigned i = 0; !newest && i < in->n; i++)
                if (!streq(in->v[i].p->name, name) && in->v[i].revision > rev)
                        rev = in->v[i].revision;
        for (unsigned i = 0; !newest && rev && i < in->n; i++)
                if (in->v[i].revision == rev)
                        newest = in->v[i].p;
        return newest ? policy_to_json(newest) : NULL;
}

/* Layer name becomes p (NULL: out), the new version naming prev as its previous one. */
static int layer_change(struct txn_env *env, const struct txn_request *req, struct intent *in, const char *kind,
                        const char *name, const struct policy *p, int64_t prev, unsigned confirm_timeout_s,
                        struct txn_result *ret)
{
        _cleanup_free_ char *json = revision_json(in, name, p);
        struct txn_request change = *req;
        struct plan plan;
        int r;

        txn_plan_init(env, &plan);
        if ((p || in->n > 1) && !json) {
                txn_finish(ret, TXN_PLANNED, OUTCOME_RUNTIME, "failed");
                return errbuf_set(&ret->error, ENOMEM, NULL, "out of memory");
        }
        r = intent_change_plan(env, in, name, p, &plan, &ret->error);
        if (r < 0) {
                txn_finish(ret, TXN_PLANNED, outcome_of_errno(r), "refused");
                plan_free(&plan);
                return r;
        }
        change.kind = kind;
        change.layer = name;
        change.layer_prev = prev;
        r = txn_run(env, &change, json, p ? &p->verify : NULL, confirm_timeout_s, &plan, ret);
        plan_free(&plan);
        return r;
}

static int load_layer(struct txn_env *env, const struct txn_request *req, struct intent *in, const char *name,
                      struct txn_result *ret)
{
        char names[1024];
        int r = txn_check_expected(env, req, ret);

        if (r < 0)
                return r;
        r = intent_load(env->journal, in, &ret->error);
        if (r < 0) {
                txn_finish(ret, TXN_PLANNED, OUTCOME_RUNTIME, "failed");
                return r;
        }
        if (intent_find(in, name) >= 0)
                return 0;
        layer_names(in, names, sizeof(names));
        errbuf_set(&ret->error, ENOENT, NULL, "policy '%s' is not committed here (committed: %s); nothing was changed",
                   name, in->n ? names : "none");
        r = refuse(ret, ENOENT);
        intent_free(in);
        return r;
}

int txn_remove(struct txn_env *env, const struct txn_request *req, const char *name, struct txn_result *ret)
{
        return txn_remove_confirm(env, req, name, 0, ret);
}

int txn_remove_confirm(struct txn_env *env, const struct txn_request *req, const char *name,
                       unsigned confirm_timeout_s, struct txn_result *ret)
{
        struct txn_request own;
        struct intent in;
        int r;

        req = txn_request_of(req, "remove", &own);
        r = load_layer(env, req, &in, name, ret);
        if (r < 0)
                return r;
        r = layer_change(env, req, &in, "remove", name, NULL, 0, confirm_timeout_s, ret);
        intent_free(&in);
        return r;
}

int txn_rollback_policy(struct txn_env *env, const struct txn_request *req, const char *name, struct txn_result *ret)
{
        struct journal_layer prev = { 0 };
        struct txn_request own;
        struct policy *p = NULL;
        struct intent in;
        int i, r;

        req = txn_request_of(req, "rollback", &own);
        r = load_layer(env, req, &in, name, ret);

        if (r < 0)
                return r;
        i = intent_find(&in, name);
        if (!in.prev[i]) {      /* no version before: the layer goes */
                r = layer_change(env, req, &in, "rollback", name, NULL, 0, 0, ret);
                intent_free(&in);
                return r;
        }
        r = journal_layer_version(env->journal, in.prev[i], &prev, &ret->error);
        if (r >= 0 && prev.policy_json)
                r = policy_parse_committed(prev.policy_json, strlen(prev.policy_json), "committed layer", &p,
                                           &ret->error);
        if (r >= 0) {
                r = layer_change(env, req, &in, "rollback", name, p, p ? prev.prev : 0, 0, ret);
                if (p)
                        txn_rollback_name_gate(ret, p->name);
        } else
                txn_finish(ret, TXN_PLANNED, OUTCOME_RUNTIME, "failed");
        free(prev.policy_json);
        policy_free(p);
        intent_free(&in);
        return r;
}

int txn_rollback_layers(struct txn_env *env, const struct txn_request *req, struct txn_result *ret)
{
        char names[1024], name[POLICY_NAME_MAX];
        struct intent in;
        int r = intent_load(env->journal, &in, &ret->error);

        if (r < 0 || in.n == 0) {
                intent_free(&in);
                return 0;               /* nothing layered: the newest revision's snapshot, as before layers */
        }
        if (in.n > 1) {
                layer_names(&in, names, sizeof(names));
                intent_free(&in);
                errbuf_set(&ret->error, EINVAL, NULL, "several layers are committed here (%s): say which one to roll "
                           "back with 'rollback --policy NAME'; nothing was changed", names);
                return refuse(ret, EINVAL);
        }
        snprintf(name, sizeof(name), "%s", in.v[0].p->name);
        intent_free(&in);
        r = txn_rollback_policy(env, req, name, ret);
        return r < 0 ? r : 1;
}
