/* SPDX-License-Identifier: MIT */
/*
 * The API's routes: one table of who may call what (the client's role) and what a
 * request is (a read, or a change), walked by api_handle.
 */
#include <jansson.h>
#include <pthread.h>
#include <time.h>

#include "agent/api/api_internal.h"
#include "agent/measure/measure.h"
#include "common/log.h"
#include "common/version.h"

static void api_health(struct api *a, const struct http_request *req, const char *rest, struct http_response *resp)
{
        struct measure_info m;
        bool measuring = measure_running(&m);
        json_t *sw = json_array();

        /* the switches this agent manages: a controller sends a policy's switch part here */
        for (unsigned i = 0; sw && i < a->config->n_switches; i++)
                json_array_append_new(sw, json_string(a->config->switches[i].name));
        api_reply_json(resp, 200, json_pack("{s:s, s:s, s:s, s:s, s:o, s:o}", "status", "ok", "version",
                                            NETTUNE_VERSION, "client", req->client, "role",
                                            http_role_name(req->role), "measuring",
                                            measuring ? measure_info_to_json(&m) : json_null(), "switches",
                                            sw ? sw : json_null()));
}

/*
 * What a route is while a bandwidth measurement runs: answered (reads; a confirm,
 * which is never held back), or a change refused at once with 409 busy naming the
 * measurement. Nothing waits.
 */
enum while_measuring {
        ANSWER,
        REFUSE,
};

/* The query parameters a route takes (any other is 400 naming it): at most ROUTE_QUERY_MAX. */
#define ROUTE_QUERY_MAX 6
#define QUERY(...) { __VA_ARGS__ }
#define NO_QUERY { NULL }

struct route {
        const char *method;
        const char *path;               /* exact, or with prefix: what follows is rest */
        bool prefix;
        enum http_role role;            /* the least role that may call it */
        enum while_measuring measuring;
        api_route_fn *fn;
        const char *query[ROUTE_QUERY_MAX];
};

/* Every route, and the query parameters each takes (docs/api.md, "Query strings"). */
static const struct route routes[] = {
        { "GET", "/v1/health", false, HTTP_ROLE_READ, ANSWER, api_health, NO_QUERY },
        { "GET", "/metrics", false, HTTP_ROLE_READ, ANSWER, api_metrics, NO_QUERY },
        { "GET", "/v1/state", false, HTTP_ROLE_READ, ANSWER, api_state, NO_QUERY },
        { "GET", "/v1/drift", false, HTTP_ROLE_READ, ANSWER, api_drift, NO_QUERY },
        { "GET", "/v1/doctor", false, HTTP_ROLE_READ, ANSWER, api_doctor, QUERY("window_s") },
        { "GET", "/v1/history", false, HTTP_ROLE_READ, ANSWER, api_history, NO_QUERY },
        { "GET", "/v1/transactions/", true, HTTP_ROLE_READ, ANSWER, api_transaction, NO_QUERY },
        { "POST", "/v1/plan", false, HTTP_ROLE_OPERATE, REFUSE, api_plan, QUERY("compare") },
        { "POST", "/v1/apply", false, HTTP_ROLE_OPERATE, REFUSE, api_apply,
          QUERY("confirm_timeout_s", "idempotency_key", "expect_revision") },
        { "POST", "/v1/confirm/", true, HTTP_ROLE_OPERATE, ANSWER, api_confirm, NO_QUERY },
        { "POST", "/v1/rollback", false, HTTP_ROLE_OPERATE, REFUSE, api_rollback,
          QUERY("idempotency_key", "expect_revision", "no_gate") },
        { "POST", "/v1/probe", false, HTTP_ROLE_OPERATE, REFUSE, api_probe, NO_QUERY },
        { "GET", "/v1/fabric", false, HTTP_ROLE_OPERATE, ANSWER, api_fabric_info, NO_QUERY },
        { "GET", "/v1/counters", false, HTTP_ROLE_READ, ANSWER, api_counters, NO_QUERY },
        { "POST", "/v1/fabric/flows", false, HTTP_ROLE_OPERATE, REFUSE, api_fabric_flows, NO_QUERY },
        { "GET", "/v1/intent", false, HTTP_ROLE_READ, ANSWER, api_intent, NO_QUERY },
        { "POST", "/v1/remove", false, HTTP_ROLE_OPERATE, REFUSE, api_remove,
          QUERY("confirm_timeout_s", "idempotency_key", "expect_revision") },
};

/* Every query parameter is one the route takes: 0, or 400 naming the first that is not. */
static int check_query(const struct route *r, const struct http_request *req, struct http_response *resp)
{
        for (unsigned i = 0; i < req->n_query; i++) {
                const char *key = req->query[i].key;
                char takes[160] = "";
                size_t used = 0;
                bool known = false;

                for (unsigned k = 0; k < ROUTE_QUERY_MAX && r->query[k]; k++) {
                        known |= streq(r->query[k], key);
                        if (used < sizeof(takes))
                                used += (size_t)snprintf(takes + used, sizeof(takes) - used, "%s%s", k ? ", " : "",
                                                         r->query[k]);
                }
                if (known)
                        continue;
                http_error(resp, 400, "invalid", key, "unknown query parameter '%.80s' of %s %s (it takes %s)%s", key,
                           r->method, r->path, takes[0] ? takes : "none",
                           streq(r->method, "POST") ? "; nothing was changed" : "");
                return -EINVAL;
        }
        return 0;
}

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

static struct log_limit refusals = LOG_LIMIT_INIT("api", "refused request(s)", 10);

/*
 * Reads while a measurement runs are answered at once, but each client (certificate
 * subject) gets at most one answer per API_PACE_MS: a client that asks back to back
 * cannot make the agent's own work compete with the probe it judges. A read that
 * would wait longer than API_PACE_WAIT_MAX_MS for its turn is answered 429.
 */
#define API_PACE_MS 100
#define API_PACE_WAIT_MAX_MS 1000
#define API_PACE_CLIENTS 64

static struct {
        pthread_mutex_t lock;
        struct { char client[128]; int64_t next_ms; } v[API_PACE_CLIENTS];
} pace = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The client's turn: how long to wait for it (ms, 0: now); -1 when longer than the most a read waits. */
static int64_t pace_turn(const char *client, int64_t now)
{
        unsigned slot = 0;
        int64_t wait;

        pthread_mutex_lock(&pace.lock);
        for (unsigned i = 0; i < API_PACE_CLIENTS; i++) {
                if (streq(pace.v[i].client, client)) {
                        slot = i;
                        break;
                }
                if (pace.v[i].next_ms < pace.v[slot].next_ms)       /* else the least recent one */
                        slot = i;
        }
        if (!streq(pace.v[slot].client, client)) {
                snprintf(pace.v[slot].client, sizeof(pace.v[slot].client), "%s", client);
                pace.v[slot].next_ms = 0;
        }
        wait = pace.v[slot].next_ms > now ? pace.v[slot].next_ms - now : 0;
        if (wait <= API_PACE_WAIT_MAX_MS)
                pace.v[slot].next_ms = now + wait + API_PACE_MS;
        pthread_mutex_unlock(&pace.lock);
        return wait <= API_PACE_WAIT_MAX_MS ? wait : -1;
}

static void sleep_ms(int64_t ms)
{
        struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

        while (ms > 0 && nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

/*
 * 0 when the read may be answered (after its turn), or -EAGAIN with a 429 in resp,
 * given after API_PACE_MS too: a client that asks again at once, on every connection
 * it has, gets one refusal per connection and API_PACE_MS, not as many as it can send.
 */
static int pace_read(const struct http_request *req, const struct measure_info *m, struct http_response *resp)
{
        int64_t wait = pace_turn(req->client, measure_now_ms());

        sleep_ms(wait < 0 ? API_PACE_MS : wait);
        if (wait < 0) {
                http_error(resp, 429, "too_many_requests", NULL, "too many requests from '%s' while the node measures "
                           "(%s, due to end at %lld): one every %d ms; retry later", req->client, m->id,
                           (long long)m->ends_ms, API_PACE_MS);
                return -EAGAIN;
        }
        return 0;
}

void api_handle(void *userdata, const struct http_request *req, struct http_response *resp)
{
        struct api *a = userdata;
        const char *rest = "";
        const struct route *r = route_of(req->method, req->url, &rest);
        struct measure_info m;

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
        if (check_query(r, req, resp) < 0)
                return;
        if (r->measuring == REFUSE && measure_running(&m)) {
                api_reply_busy(resp, &m);
                return;
        }
        if (r->role == HTTP_ROLE_READ && measure_running(&m) && pace_read(req, &m, resp) < 0)
                return;
        r->fn(a, req, rest, resp);
}
