/* SPDX-License-Identifier: MIT */
/*
 * agent/api: the agent's HTTPS API (docs/api.md): the routes (api.c), the fabric
 * endpoints (api_fabric.c), the answers both build (api_reply.c) and the Prometheus
 * metrics (metrics.c). Calls go one way: api.c -> api_fabric.c, metrics.c, api_reply.c;
 * api_fabric.c -> api_reply.c.
 *
 * May call: agent/txn, agent/doctor, agent/plan, agent/journal, agent/measure,
 * agent/http, agent/config, drivers/, policies/, common/. Called by agent/cmd (serve).
 */
#pragma once

#include <jansson.h>

#include "agent/config/config.h"
#include "agent/http/http.h"
#include "agent/journal/journal.h"
#include "agent/txn/txn.h"

/* The agent's HTTP API (docs/api.md): routes over the transaction, journal and probes. */



struct api {
        const struct agent_config *config;
        struct journal *journal;        /* shared, serialised by SQLite */
};

/* http_handler_t: userdata is a struct api. */
void api_handle(void *userdata, const struct http_request *req, struct http_response *resp);


/* The agent's Prometheus metrics (GET /metrics). Thread-safe; never waits on a transaction. */



/* Count a finished transaction (result, rollbacks, last probe rate). */
void metrics_record(const struct txn_result *r);
/* Replace the drift gauges with the differences per field of a read plan. */
void metrics_set_drift(const struct plan *p);
/* The exposition text; caller frees. interfaces: names whose NIC counters to export. */
char *metrics_render(struct journal *j, const struct agent_config *c, char (*interfaces)[STATE_NAME_MAX],
                     unsigned n_interfaces);
