/* SPDX-License-Identifier: MIT */
/* GET /v1/doctor[?window_s=S]: this node's doctor facts over one window, as JSON (agent/doctor collects). */
#include <math.h>
#include <stdlib.h>

#include "agent/api/api_internal.h"
#include "agent/doctor/doctor_collect.h"

void api_doctor(struct api *a, const struct http_request *req, const char *rest, struct http_response *resp)
{
        const char *w = http_query(req, "window_s");
        struct doctor_collect_opts o = { .window_s = 10, .journal = a->journal };
        struct doctor_node n;
        struct errbuf e = { 0 };
        json_t *node;
        char *end;

        if (w) {
                o.window_s = strtod(w, &end);
                if (*end || end == w || !isfinite(o.window_s) || o.window_s < 0.1 || o.window_s > DOCTOR_WINDOW_MAX_S) {
                        http_error(resp, 400, "invalid", "window_s", "window_s '%.40s' out of range 0.1-%d", w,
                                   DOCTOR_WINDOW_MAX_S);
                        return;
                }
        }
        if (doctor_collect(a->config, &o, &n, &e) < 0) {
                http_error(resp, 500, "runtime", e.where, "%s", e.msg);
                return;
        }
        node = doctor_node_to_json(&n);
        doctor_node_free(&n);
        if (!node) {
                http_error(resp, 500, "internal", NULL, "out of memory");
                return;
        }
        resp->status = 200;
        resp->body = json_dumps(node, JSON_COMPACT | JSON_SORT_KEYS);
        resp->content_type = "application/json";
        json_decref(node);
}
