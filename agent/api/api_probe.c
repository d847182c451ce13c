/* SPDX-License-Identifier: MIT */
/* POST /v1/probe: one measurement to a peer's responder, as the API's client asks. */
#include <jansson.h>

#include "agent/api/api_internal.h"
#include "agent/measure/measure.h"
#include "drivers/probe/probe.h"
#include "drivers/probe/probe_request.h"

void api_probe(struct api *a, const struct http_request *req, const char *rest, struct http_response *resp)
{
        _cleanup_free_ struct probe_measurement *m = calloc(1, sizeof(*m));
        struct measure_info busy;
        struct measure_span span;
        struct measure_load load;
        struct probe_request pr;
        struct errbuf e = { 0 };
        json_t *j;

        if (!m) {
                http_error(resp, 500, "internal", NULL, "out of memory");
                return;
        }
        if (probe_request_parse(req->body, req->body_len, &pr, &e) < 0) {
                api_reply_invalid(resp, &e, "");
                return;
        }
        if (probe_params_check(&pr.params, &e) < 0) {
                http_error(resp, 400, "invalid", "$.peer", "%s", e.msg);
                return;
        }
        /* The node's one measurement: refused at once while another runs, never queued. */
        if (measure_claim("probe", measure_ends_ms(pr.runs, pr.params.duration_ms), NULL, &busy) < 0) {
                api_reply_busy(resp, &busy);
                return;
        }
        measure_begin(&span);
        probe_measure(&pr.params, pr.mode, pr.runs, m, &e);
        measure_end(&span, &load);
        measure_release();
        j = probe_measurement_to_json(m);
        if (j)
                json_object_set_new(j, "gbps", m->ok ? json_real(m->median_gbps) : json_null());
        api_reply_json(resp, m->ok ? 200 : 502, j);
}
