/* SPDX-License-Identifier: MIT */
/* The API's answers: a JSON document, or an error from an errbuf or an errno (api_internal.h). */
#include <jansson.h>

#include "agent/api/api_internal.h"
#include "common/outcome.h"

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
