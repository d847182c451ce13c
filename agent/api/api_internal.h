/* SPDX-License-Identifier: MIT */
/* Inside agent/api; not for other modules. */
#pragma once

#include "agent/api/api.h"
#include "agent/txn/txn.h"

/* ---- api_reply.c: the answers (the bottom of the module: it calls nothing of it) ---- */

/* Answer with a JSON document (takes j; NULL: 500 out of memory). */
void api_reply_json(struct http_response *resp, int status, json_t *j);
void api_reply_errbuf(struct http_response *resp, int status, const char *code, const struct errbuf *e);
/* A failed call's errno as its HTTP status (common/outcome.h) and code. */
void api_reply_errno(struct http_response *resp, int r, const struct errbuf *e);
/* 400 for a body the validator refused: "path" is the JSON path (or FILE:LINE:COL of a syntax error). */
void api_reply_invalid(struct http_response *resp, const struct errbuf *e, const char *tail);

/*
 * 409 busy naming what runs: a measurement ({"error": {..., "measurement": {id, kind,
 * started_ms, ends_ms}}}, docs/api.md "Limits") or a transaction of this node.
 */
struct measure_info;
void api_reply_busy(struct http_response *resp, const struct measure_info *m);

/* A transaction id from the URL path as sent (digits only); 0 and a 404 when it is not one. */
int64_t api_tx_of(const char *id, struct http_response *resp);
/* The request body as a policy; NULL and a 400 naming the JSON path when it is not one. */
struct policy *api_parse_policy(const struct http_request *req, struct http_response *resp);
/* A transaction environment for the API (serve's timer handles confirm deadlines). */
void api_env_init(struct api *a, struct txn_env *env);

/*
 * A route: rest is what follows a prefix route's path ("12" of /v1/confirm/12), ""
 * otherwise. The routes answer into resp; api.c decides who may call which.
 */
typedef void api_route_fn(struct api *a, const struct http_request *req, const char *rest,
                          struct http_response *resp);

/* ---- api_txn.c: through a transaction (or its plan) ---- */
api_route_fn api_plan, api_apply, api_rollback, api_confirm, api_remove;

/* ---- api_read.c: reads ---- */
api_route_fn api_state, api_drift, api_history, api_transaction, api_metrics, api_intent, api_counters;

/* ---- api_doctor.c: GET /v1/doctor[?window_s=S], this node's facts for nettunectl doctor (agent/doctor) ---- */
api_route_fn api_doctor;

/* ---- api_probe.c ---- */
api_route_fn api_probe;
/*
 * May this agent send probe traffic to hostport (probe.peers)? 0, or -EACCES with a
 * 403 "peer refused" naming path in resp (the reason goes to the log, rate-limited).
 */
int api_peer_allowed(struct api *a, const struct http_request *req, const char *hostport, const char *path,
                     struct http_response *resp);

/*
 * ---- api_fabric.c: the agent's part of a fabric probe (docs/api.md, "Fabric probe") ----
 *
 *   GET  /v1/fabric        this node's clock and responder: what a controller needs
 *                          to plan a pattern (where peers reach the responder, how
 *                          many sessions it takes, the link behind it and its speed)
 *   POST /v1/fabric/flows  this node's flows of a pattern, started together at an
 *                          absolute time of this node's clock (probe_flows.h)
 *
 * One fabric run at a time per node (409 busy); a start that has already passed
 * is refused (409 late), one further ahead than PROBE_FLOWS_AHEAD_MAX_MS is 400.
 */
api_route_fn api_fabric_info, api_fabric_flows;
