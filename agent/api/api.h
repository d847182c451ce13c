/* SPDX-License-Identifier: MIT */
/*
 * agent/api: the agent's HTTPS API (docs/api.md). Owns the routes and who may call
 * them (api.c: one table, roles per endpoint), the routes through a transaction
 * (api_txn.c: plan, apply, rollback, confirm), the reads (api_read.c), the probe
 * (api_probe.c), the fabric endpoints (api_fabric.c), the answers they all build
 * (api_reply.c) and the Prometheus metrics (metrics.c). Calls go one way: api.c ->
 * the route files -> api_reply.c; api_txn.c and api_read.c -> metrics.c.
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
#include "policies/doctor/doctor.h"

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
/*
 * The exposition text; caller frees. interfaces: names whose NIC counters to export;
 * switch_globs: the configured switches (fnmatch) whose PFC watchdog counters to read
 * (one SSH session each, bounded by its timeouts).
 */
char *metrics_render(struct journal *j, const struct agent_config *c, char (*interfaces)[STATE_NAME_MAX],
                     unsigned n_interfaces, char (*switch_globs)[STATE_NAME_MAX], unsigned n_switch_globs);

/*
 * serve's counter sampler (drivers/host/sampler.h, every counters.sample_ms): over the
 * committed policy's interfaces, started at serve's start and opened again when
 * that set changes (the next /metrics or GET /v1/counters finds it changed).
 * api_sampler_sync: the committed interfaces now; metrics_sampler_close at the end.
 */
int api_sampler_sync(struct api *a, struct errbuf *e);
int metrics_sampler_sync(const struct agent_config *c, char (*interfaces)[STATE_NAME_MAX], unsigned n,
                         struct errbuf *e);
void metrics_sampler_close(void);
/* GET /v1/counters: the sampler's period, its counters' peaks and means, the bursts it kept. New reference. */
json_t *metrics_sampler_json(void);
/* One burst as JSON ("start" as 2026-12-08T12:00:01.230Z). New reference. */
json_t *metrics_burst_json(const char *ifname, const struct doctor_burst *b);
