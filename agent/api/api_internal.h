/* SPDX-License-Identifier: MIT */
/* Inside agent/api; not for other modules. */
#pragma once

#include "agent/api/api.h"

/* ---- api_reply.c: the answers (the bottom of the module: it calls nothing of it) ---- */

/* Answer with a JSON document (takes j; NULL: 500 out of memory). */
void api_reply_json(struct http_response *resp, int status, json_t *j);
void api_reply_errbuf(struct http_response *resp, int status, const char *code, const struct errbuf *e);
/* A failed call's errno as its HTTP status (common/outcome.h) and code. */
void api_reply_errno(struct http_response *resp, int r, const struct errbuf *e);
/* 400 for a body the validator refused: "path" is the JSON path (or FILE:LINE:COL of a syntax error). */
void api_reply_invalid(struct http_response *resp, const struct errbuf *e, const char *tail);

/* ---- api_fabric.c ---- */

/*
 * The agent's part of a fabric probe (docs/api.md, "Fabric probe"):
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


void fabric_info(const struct api *a, struct http_response *resp);
void fabric_flows(const struct api *a, const struct http_request *req, struct http_response *resp);
