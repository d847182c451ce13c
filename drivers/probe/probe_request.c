/* SPDX-License-Identifier: MIT */
/* The body of a probe request from outside (see probe_request.h). */
#include "drivers/probe/probe_request.h"
#include "policies/json/jsonv.h"

/* Indexes are enum probe_mode values. */
static const char *const mode_names[] = { "auto", "verbs", "tcp", NULL };

static int check_peer(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_check_hostport(v, "peer", json_string_value(j));
}

static int check_netdev(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_check_chars(v, "interface", json_string_value(j), "-_.@+");
}

static const struct jsonv_field request_fields[] = {
        { .key = "peer", .type = JSONV_STRING, .flags = JSONV_REQUIRED | JSONV_NONEMPTY,
          JSONV_MEMBER(struct probe_request, params.peer), .parse = check_peer },
        JSONV_ENUM("mode", struct probe_request, mode, mode_names, 0),
        JSONV_UINT("duration_ms", struct probe_request, params.duration_ms, PROBE_REQUEST_DURATION_MIN_MS,
                   PROBE_REQUEST_DURATION_MAX_MS),
        JSONV_UINT("runs", struct probe_request, runs, 1, PROBE_RUNS_MAX),
        JSONV_UINT("dscp", struct probe_request, dscp, 0, 63),
        JSONV_UINT("priority", struct probe_request, params.priority, 0, 7),
        JSONV_UINT("streams", struct probe_request, params.streams, 1, PROBE_STREAMS_MAX),
        JSONV_UINT("message_size", struct probe_request, params.message_size, PROBE_MESSAGE_MIN, PROBE_MESSAGE_MAX),
        { .key = "interface", .type = JSONV_STRING, .flags = JSONV_NONEMPTY,
          JSONV_MEMBER(struct probe_request, params.netdev), .parse = check_netdev },
        { 0 },
};

int probe_request_parse(const char *body, size_t len, struct probe_request *ret, struct errbuf *e)
{
        struct probe_request req = { .mode = PROBE_MODE_AUTO, .runs = 1, .dscp = -1 };
        json_auto_t *root = NULL;
        struct jsonv v;
        int r;

        probe_params_init(&req.params);
        r = jsonv_parse(body, len, "request body", PROBE_REQUEST_BODY_MAX, &root, e);
        if (r < 0)
                return r;
        jsonv_init(&v, NULL, e);
        r = jsonv_object(&v, root, request_fields, &req);
        if (r < 0)
                return r;
        if ((uint64_t)req.runs * req.params.duration_ms > PROBE_REQUEST_TRAFFIC_MAX_MS) {
                jsonv_push_key(&v, "runs");
                r = jsonv_error(&v, "runs %u x duration_ms %u is %llu ms of traffic, at most %u in one request",
                                req.runs, req.params.duration_ms,
                                (unsigned long long)req.runs * req.params.duration_ms, PROBE_REQUEST_TRAFFIC_MAX_MS);
                jsonv_pop(&v);
                return r;
        }
        if (req.dscp >= 0)
                req.params.traffic_class = req.dscp << 2;
        *ret = req;
        return 0;
}
