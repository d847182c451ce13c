/* SPDX-License-Identifier: MIT */
/*
 * The body of a probe request from outside (the agent's POST /v1/probe):
 *
 *   {"peer": "HOST:PORT", "mode": "auto|verbs|tcp", "duration_ms": 100-60000, "runs": 1-15,
 *    "dscp": 0-63, "priority": 0-7, "streams": 1-16, "message_size": 1-16777216, "interface": NAME}
 *
 * peer is required; runs x duration_ms is at most PROBE_REQUEST_TRAFFIC_MAX_MS (one
 * request holds the node's measurement slot that long at most). Checked with the shared table-driven validator: unknown keys,
 * duplicate keys, wrong types and ranges are errors naming the JSON path
 * (where = "$.runs", msg = "runs 0 out of range 1-15"). Pure: no name lookups,
 * no sockets (probe_params_check() resolves the peer afterwards).
 */
#pragma once

#include <stddef.h>

#include "drivers/probe/probe.h"

#define PROBE_REQUEST_BODY_MAX 4096
#define PROBE_REQUEST_DURATION_MIN_MS 100
#define PROBE_REQUEST_DURATION_MAX_MS 60000
#define PROBE_REQUEST_TRAFFIC_MAX_MS 60000      /* runs x duration_ms of one request */

struct probe_request {
        struct probe_params params;     /* probe_params_init() with peer and duration_ms set */
        enum probe_mode mode;           /* default auto */
        unsigned runs;                  /* default 1 */
        int dscp;                       /* -1: TOS left (params.traffic_class = dscp << 2 otherwise) */
};

/* -EINVAL with e filled for anything but a valid request; *ret written only on success. */
int probe_request_parse(const char *body, size_t len, struct probe_request *ret, struct errbuf *e);
