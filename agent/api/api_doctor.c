/* SPDX-License-Identifier: MIT */
/* GET /v1/doctor[?window_s=S]: this node's doctor facts over one window, as JSON (agent/doctor collects). */
#include <math.h>
#include <stdlib.h>

#include "agent/api/api_internal.h"
#include "agent/doctor/doctor_collect.h"
#include "agent/txn/txn.h"

/* doctor's drift: the plan GET /v1/drift answers from (drift_check), not a comparison of its own. */
static int doctor_drift(void *ud, struct plan *ret, struct errbuf *e)
{
        struct txn_env env;

        api_env_init(ud, &env);
        return drift_check(&env, ret, e);
}

void api_doctor(struct api *a, const struct http_request *req, const char *rest, struct http_response *resp)
{
        struct doctor_second_writer sw[DOCTOR_SECOND_WRITERS_MAX];
        unsigned n_sw = second_writers_doctor(a->journal, a->config, sw, DOCTOR_SECOND_WRITERS_MAX);
        const char *w = http_query(req, "window_s");
        struct doctor_collect_opts o = { .journal = a->journal, .drift = doctor_drift, .drift_ud = a };
        struct doctor_node n;
        struct errbuf e = { 0 };
        json_t *node;
        char *end;

        o.window_s = 10;
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
        for (unsigned i = 0; i < n_sw && n.n_second_writers < DOCTOR_SECOND_WRITERS_MAX; i++)
                n.second_writers[n.n_second_writers++] = sw[i];
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
