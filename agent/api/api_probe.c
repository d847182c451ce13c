/* SPDX-License-Identifier: MIT */
/* POST /v1/probe: one measurement to a peer's responder, as the API's client asks. */
#include <jansson.h>

#include "agent/api/api_internal.h"
#include "agent/measure/measure.h"
#include "common/log.h"
#include "drivers/probe/probe_net.h"
#include "drivers/probe/probe.h"
#include "drivers/probe/probe_request.h"

static struct log_limit peer_refusals = LOG_LIMIT_INIT("api", "refused probe peer(s)", 10);
static struct log_limit peer_silences = LOG_LIMIT_INIT("api", "probe peer(s) that never answered", 10);

int api_peer_allowed(struct api *a, const struct http_request *req, const char *hostport, const char *path,
                     struct http_response *resp)
{
        struct probe_cidr cidrs[CONFIG_PROBE_ALLOW_MAX];
        struct probe_peers peers;
        char why[256];

        config_probe_peers(a->config, cidrs, &peers);
        if (probe_peer_check(&peers, hostport, why, sizeof(why)) >= 0)
                return 0;
        log_limited(&peer_refusals, "refused probe traffic for client '%s' to %s", req->client, why);
        http_error(resp, 403, "forbidden", path, "peer refused; nothing was sent");
        return -EACCES;
}

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
        if (api_peer_allowed(a, req, pr.params.peer, "$.peer", resp) < 0)
                return;
        pr.params.opaque = true;        /* a peer that never answered: one answer, one timing (probe.h) */
        /* The node's one measurement: refused at once while another runs, never queued. */
        if (measure_claim("probe", measure_ends_ms(pr.runs, pr.params.duration_ms), NULL, &busy) < 0) {
                api_reply_busy(resp, &busy);
                return;
        }
        measure_begin(&span);
        probe_measure(&pr.params, pr.mode, pr.runs, m, &e);
        measure_end(&span, &load);
        measure_release();
        measure_give_back();
        if (m->unanswered)
                log_limited(&peer_silences, "probe for client '%s': %s: %s", req->client, pr.params.peer, m->cause);
        j = probe_measurement_to_json(m);
        if (j) {
                json_object_set_new(j, "gbps", m->ok ? json_real(m->median_gbps) : json_null());
                json_object_set_new(j, "rtt_ms", probe_json_rtt(probe_measurement_rtt_ms(m)));
        }
        api_reply_json(resp, m->ok ? 200 : 502, j);
}
