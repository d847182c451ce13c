/* SPDX-License-Identifier: MIT */
/*
 * The API's answers (a JSON document, or an error from an errbuf or an errno) and the
 * pieces of a request every route reads: a transaction id, a policy body, the
 * transaction environment. The bottom of agent/api: it calls nothing of the module.
 */
#include <jansson.h>

#include "agent/api/api_internal.h"
#include "agent/measure/measure.h"
#include "common/outcome.h"
#include "policies/policy/policy.h"

void api_reply_json(struct http_response *resp, int status, json_t *j)
{
        if (!j) {
                http_error(resp, 500, "internal", NULL, "out of memory");
                return;
        }
        resp->status = status;
        resp->body = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
        resp->content_type = "application/json";
        json_decref(j);
}

void api_reply_busy(struct http_response *resp, const struct measure_info *m)
{
        char msg[512];

        if (streq(m->kind, "transaction")) {
                http_error(resp, 409, "busy", NULL, "a transaction is running on this node; retry after it; "
                           "nothing was changed");
                return;
        }
        snprintf(msg, sizeof(msg), "a bandwidth measurement is running (%s, due to end at %lld, in %lld ms); retry "
                 "after it; nothing was changed", m->id, (long long)m->ends_ms,
                 (long long)(m->ends_ms > measure_now_ms() ? m->ends_ms - measure_now_ms() : 0));
        api_reply_json(resp, 409, json_pack("{s:{s:s, s:s, s:s, s:o}}", "error", "code", "busy", "message", msg,
                                            "path", "", "measurement", measure_info_to_json(m)));
}

void api_reply_errbuf(struct http_response *resp, int status, const char *code, const struct errbuf *e)
{
        http_error(resp, status, code, e->where, "%s", e->msg);
}

void api_reply_errno(struct http_response *resp, int r, const struct errbuf *e)
{
        int status = outcome_http_status(r);

        api_reply_errbuf(resp, status, status == 400 ? "invalid" : status == 409 ? "busy" : "runtime", e);
}

void api_reply_invalid(struct http_response *resp, const struct errbuf *e, const char *tail)
{
        const char *path = strchr(e->where, '$');

        http_error(resp, 400, "invalid", path ? path : e->where, "%s%s", e->msg, tail);
}

/*
 * A transaction id from the URL path as sent: a decimal number, digits only, no
 * sign, no leading zero, no escapes, at most INT64_MAX. 0 and a 404 otherwise.
 */
int64_t api_tx_of(const char *id, struct http_response *resp)
{
        size_t n = strspn(id, "0123456789");
        int64_t tx = 0;

        for (size_t i = 0; i < n && n == strlen(id) && id[0] != '0' && tx >= 0; i++)
                tx = tx > (INT64_MAX - (id[i] - '0')) / 10 ? -1 : tx * 10 + (id[i] - '0');
        if (n == 0 || n != strlen(id) || id[0] == '0' || tx <= 0) {
                http_error(resp, 404, "not_found", NULL, "no transaction '%.40s': a transaction id is a decimal number",
                           id);
                return 0;
        }
        return tx;
}

struct policy *api_parse_policy(const struct http_request *req, struct http_response *resp)
{
        struct errbuf e = { 0 };
        struct policy *p = NULL;
        char where[300];
        const char *path;

        if (policy_parse_buffer(req->body, req->body_len, "request body", &p, &e) >= 0)
                return p;
        /* where is "request body: $.x" or "request body:L:C": keep the JSON path for "path". */
        snprintf(where, sizeof(where), "%s", e.where);
        path = strstr(where, "$") ? strstr(where, "$") : where;
        http_error(resp, 400, "invalid", path, "%s; nothing was changed", e.msg);
        return NULL;
}

void api_env_init(struct api *a, struct txn_env *env)
{
        txn_env_init(env, a->config, a->journal);
        env->no_watchdog = true;
}
