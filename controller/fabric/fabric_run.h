/* SPDX-License-Identifier: MIT */
/*
 * Running a fabric probe across nodes (the pattern and its figures: fabric.h):
 *
 *   1. GET /v1/fabric from every node, twice (the first round also opens the TLS
 *      connections): where its responder is, how many sessions it takes, its link
 *      speed, and its wall clock, compared with ours over the round with the
 *      shorter round trip (skew = its clock - ours, +- half the round trip);
 *   2. fabric_check: nothing is sent when a node is unreachable, advertises no
 *      responder, or would get more flows than its responder takes;
 *   3. one agreed start, lead_ms ahead (1 s plus twice the longest round trip plus
 *      2 ms per node), given to each node in its own clock, and POST
 *      /v1/fabric/flows to every node that sends (never retried);
 *   4. each node's answer fills its flows; a node that refused the start, did not
 *      answer within lead + duration + FABRIC_FINISH_SLACK_MS, or a flow that
 *      started later than fabric_late_tolerance_ms() after the agreed start,
 *      fails by name.
 */
#pragma once

#include "controller/fabric/fabric.h"
#include "controller/fleet/fleet_http.h"
#include "common/progress.h"

#define FABRIC_LEAD_MIN_MS 1000
#define FABRIC_LEAD_MAX_MS 30000
#define FABRIC_FINISH_SLACK_MS 45000u   /* a flow's own bounds (probe_flows.h) end well within it */

struct fabric_env {
        struct http_client *http;
        unsigned timeout_s;             /* per request of the info rounds */
        enum progress_mode progress;
};

/*
 * f from fabric_init() with every node's name and url set. Returns 0 when the
 * flows were sent (some may have failed: fabric_compute says), or -errno with e
 * filled when nothing was run (-EHOSTUNREACH, -EINVAL from fabric_check).
 */
int fabric_run(const struct fabric_env *env, struct fabric *f, struct errbuf *e);

/* The longest a fabric_run of these options may take, in ms (for callers that hold deadlines). */
unsigned fabric_run_bound_ms(const struct fabric_opts *o, unsigned n_nodes, unsigned timeout_s);
