/* SPDX-License-Identifier: MIT */
/*
 * The API's routes: one table of who may call what (the client's role) and what a
 * request is (a read, or a change), walked by api_handle.
 */
#include <jansson.h>

#include "agent/api/api_internal.h"
#include "agent/measure/measure.h"
#include "common/log.h"
#include "common/version.h"

static void api_health(struct api *a, const struct http_request *req, const char *rest, struct http_response *resp)
{
        api_reply_json(resp, 200, json_pack("{s:s, s:s, s:s, s:s}", "status", "ok", "version", NETTUNE_VERSION,
                                            "client", req->client, "role", http_role_name(req->role)));
}

struct route {
        const char *method;
        const char *path;               /* exact, or with prefix: what follows is rest */
        bool prefix;
        enum http_role role;            /* the least role that may call it */
        api_route_fn *fn;
};

static const struct route routes[] = {
        { "GET", "/v1/health", false, HTTP_ROLE_READ, api_health },
        { "GET", "/metrics", false, HTTP_ROLE_READ, api_metrics },
        { "GET", "/v1/state", false, HTTP_ROLE_READ, api_state },
        { "GET", "/v1/drift", false, HTTP_ROLE_READ, api_drift },
        { "GET", "/v1/doctor", false, HTTP_ROLE_READ, api_doctor },
        { "GET", "/v1/history", false, HTTP_ROLE_READ, api_history },
        { "GET", "/v1/transactions/", true, HTTP_ROLE_READ, api_transaction },
        { "POST", "/v1/plan", false, HTTP_ROLE_OPERATE, api_plan },
        { "POST", "/v1/apply", false, HTTP_ROLE_OPERATE, api_apply },
        { "POST", "/v1/confirm/", true, HTTP_ROLE_OPERATE, api_confirm },
        { "POST", "/v1/rollback", false, HTTP_ROLE_OPERATE, api_rollback },
        { "POST", "/v1/probe", false, HTTP_ROLE_OPERATE, api_probe },
        { "GET", "/v1/fabric", false, HTTP_ROLE_OPERATE, api_fabric_info },
        { "POST", "/v1/fabric/flows", false, HTTP_ROLE_OPERATE, api_fabric_flows },
};

static const struct route *route_of(const char *method, const char *url, const char **ret_rest)
{
        for (size_t i = 0; i < ARRAY_SIZE(routes); i++) {
                const struct route *r = &routes[i];
                size_t n = strlen(r->path);

                if (!streq(r->method, method) || (r->prefix ? strncmp(url, r->path, n) != 0 : !streq(url, r->path)))
                        continue;
                *ret_rest = r->prefix ? url + n : "";
                return r;
        }
        return NULL;
}

static struct log_limit refusals = LOG_LIMIT_INIT("api", "refused request(s)", 5);

/* While the agent measures bandwidth, everything but health waits for it (the gate compares like with like). */
#define API_QUIET_WAIT_MS 60000

void api_handle(void *userdata, const struct http_request *req, struct http_response *resp)
{
        struct api *a = userdata;
        const char *rest = "";
        const struct route *r = route_of(req->method, req->url, &rest);

        if (!r) {
                http_error(resp, 404, "not_found", NULL, "no route %s '%.200s'", req->method, req->url);
                return;
        }
        if (req->role < r->role) {
                log_limited(&refusals, "refused %s %.200s from client '%s': it has the role %s, %s is needed",
                            req->method, req->url, req->client, http_role_name(req->role), http_role_name(r->role));
                http_error(resp, 403, "forbidden", NULL, "client certificate '%s' has the role %s; %s %.200s needs %s; "
                           "nothing was changed", req->client, http_role_name(req->role), req->method, req->url,
                           http_role_name(r->role));
                return;
        }
        if (r->fn != api_health && !measure_wait_quiet(API_QUIET_WAIT_MS)) {
                http_error(resp, 503, "measuring", NULL, "a bandwidth measurement is still running after %d s; retry later",
                           API_QUIET_WAIT_MS / 1000);
                return;
        }
        r->fn(a, req, rest, resp);
}
