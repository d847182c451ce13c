/* SPDX-License-Identifier: MIT */
/*
 * One node's part of a fabric probe: several flows, each a probe (tcp or verbs)
 * to a peer's responder, all started at one absolute time and run concurrently,
 * one thread per flow. The controller plans the pattern (ring, incast,
 * all-to-all) and gives each node its flows and the start time in the node's own
 * wall clock; the responders on the other ends apply their admission rules
 * (probe_server.h) to every flow as to any probe.
 *
 * The request body (the agent's POST /v1/fabric/flows):
 *
 *   {"start_at_ms": MS, "duration_ms": 100-60000,
 *    "flows": [{"id": 0-1000000, "peer": "HOST:PORT", "mode": "auto|verbs|tcp", "dscp": 0-63,
 *               "priority": 0-7, "streams": 1-16, "message_size": 1-16777216, "interface": NAME}, ...]}
 *
 * start_at_ms (ms since the epoch, this node's clock) and at least one flow are
 * required, at most PROBE_FLOWS_MAX; ids are unique. Checked with the shared
 * table-driven validator (errors name the JSON path: "$.flows[2].dscp").
 */
#pragma once

#include <jansson.h>
#include <stdint.h>

#include "drivers/probe/probe.h"

#define PROBE_FLOWS_MAX 16              /* flows per node and request (PROBE_SERVER_CLIENTS_MAX on the other end) */
#define PROBE_FLOWS_ID_MAX 1000000
#define PROBE_FLOWS_BODY_MAX 16384
#define PROBE_FLOWS_TIMEOUT_MS 5000u    /* connect and handshake bound of a flow */
#define PROBE_FLOWS_AHEAD_MAX_MS 60000  /* a start further ahead than this is refused */

struct probe_flow {
        /* What to run (probe_flows_request_parse fills these). */
        unsigned id;
        enum probe_mode mode;
        struct probe_params params;     /* peer, duration, class, streams, message size, interface */
        /* What happened (probe_flows_run). */
        bool ran;                       /* the probe was started (pinning succeeded) */
        struct probe_path path;         /* as pinned; mode auto resolved */
        struct probe_result result;     /* meaningful when err is 0 */
        int err;                        /* 0 or -errno */
        char error[512];                /* "" or why it failed */
        int64_t started_ms, ended_ms;   /* wall clock: when the probe was started and ended */
};

struct probe_flows {
        int64_t start_at_ms;            /* wall clock (CLOCK_REALTIME), ms since the epoch */
        unsigned duration_ms;
        unsigned n;
        struct probe_flow v[PROBE_FLOWS_MAX];
};

/* -EINVAL with e filled (where = "$.flows[1].peer") for anything but a valid body; *ret written only on success. */
int probe_flows_request_parse(const char *body, size_t len, struct probe_flows *ret, struct errbuf *e);

/* The wall clock in ms since the epoch. */
int64_t probe_flows_now_ms(void);

/*
 * Run every flow of f: pin each (route, mode, device: probe_pin), wait for
 * f->start_at_ms, then run them all at once, each once. A flow that cannot be
 * pinned or fails is recorded in its entry and does not stop the others.
 * Returns how many flows succeeded, or -errno when no thread could be started.
 */
int probe_flows_run(struct probe_flows *f, struct errbuf *e);

/* [{"id","peer","ok","mode","gbps","bytes","seconds","streams","started_ms","ended_ms","path","dscp","priority","error"}]. New reference. */
json_t *probe_flows_to_json(const struct probe_flows *f);
