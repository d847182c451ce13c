/* SPDX-License-Identifier: MIT */
/*
 * The agents' answers of a fabric probe (GET /v1/fabric, POST /v1/fabric/flows),
 * validated like any outside input: bounded JSON, the expected types and ranges,
 * bounded strings and counts; unknown keys are ignored (newer agents may add some).
 * -EBADMSG with e saying what is wrong ("$.flows[2].gbps: expected a number").
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "controller/fabric/fabric.h"
#include "controller/fleet/fleet_http.h"
#include "drivers/probe/probe_flows.h"

struct fabric_info_reply {
        long long now_ms;               /* the agent's wall clock */
        char address[PROBE_PEER_MAX];   /* "" = none advertised */
        char interface[32];
        unsigned max_clients;           /* 1-16 */
        long speed_mbps;                /* 0 = unknown */
};

struct fabric_flow_reply {
        unsigned id;
        bool ok;
        double gbps;                    /* NAN when not ok */
        char mode[8];                   /* "verbs", "tcp", "auto" (never pinned) */
        long long started_ms, ended_ms; /* the agent's wall clock; 0 = never started */
        int dscp;                       /* -1 = not reported */
        char error[FABRIC_ERR_MAX];
};

struct fabric_flows_reply {
        long long start_at_ms;
        unsigned n;
        struct fabric_flow_reply v[PROBE_FLOWS_MAX];
};

int fabric_reply_info(const char *body, size_t len, struct fabric_info_reply *ret, struct errbuf *e);
int fabric_reply_flows(const char *body, size_t len, struct fabric_flows_reply *ret, struct errbuf *e);

/* fabric_take.c: the answers into the fabric. */

/*
 * One node's answer to GET /v1/fabric into n: its responder, link and clock (skew
 * from a request sent at t0_ms and answered at t1_ms, our wall clock; the round
 * with the shorter trip wins). Not reached, with n->error saying why, otherwise.
 */
void fabric_take_info(struct fabric_node *n, const struct http_req *q, double t0_ms, double t1_ms);

/*
 * Node i's answer to POST /v1/fabric/flows into f: each reported flow's result (a
 * flow that started later than fabric_late_tolerance_ms() after the agreed start
 * fails); a refused start (409), no answer in time (timeout_ms) or an invalid
 * answer fails the node and its flows by name; flows it did not report fail.
 */
void fabric_take_flows(struct fabric *f, unsigned i, const struct http_req *q, unsigned timeout_ms);
