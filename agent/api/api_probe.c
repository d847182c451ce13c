/* SPDX-License-Identifier: MIT */
/* POST /v1/probe: one measurement to a peer's responder, as the API's client asks. */
#include <jansson.h>

#include "agent/api/api_internal.h"
#include "agent/measure/measure.h"
#include "drivers/probe/probe.h"
#include "drivers/probe/probe_request.h"

void api_probe(struct api *a, const struct http_request *req, const char *rest, struct http_response *resp)
{
        struct probe_measurement *m = NULL;
        struct probe_request pr;
        struct errbuf e = { 0 };

        if (probe_request_parse(req->body, req->body_len, &pr, &e) < 0) {
                api_reply_invalid(resp, &e, "");
                return;
        }
        if (probe_params_check(&pr.params, &e) < 0) {
                http_error(resp, 400, "invalid", "$.peer", "%s", e.msg);
                return;
        }
        m = calloc(1, sizeof(*m));
        if (!m) {
                http_error(resp, 500, "internal", NULL, "out of memory");
                return;
        }
        {
                struct measure_span span;
                struct measure_load load;

                measure_begin(&span);
                probe_measure(&pr.params, pr.mode, pr.runs, m, &e);
                measure_end(&span, &load);
        }
        {
                json_t *j = probe_measurement_to_json(m);

                if (j)
                        json_object_set_new(j, "gbps", m->ok ? json_real(m->median_gbps) : json_null());
                api_reply_json(resp, m->ok ? 200 : 502, j);
        }
        free(m);
}
