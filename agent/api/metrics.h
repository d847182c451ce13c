/* SPDX-License-Identifier: MIT */
/* The agent's Prometheus metrics (GET /metrics). Thread-safe; never waits on a transaction. */
#pragma once

#include <jansson.h>

#include "agent/config/config.h"
#include "agent/journal/journal.h"
#include "agent/txn/txn.h"

/* Count a finished transaction (result, rollbacks, last probe rate). */
void metrics_record(const struct txn_result *r);
/* Replace the drift gauges with the differences per field of a read plan. */
void metrics_set_drift(const struct plan *p);
/* The exposition text; caller frees. interfaces: names whose NIC counters to export. */
char *metrics_render(struct journal *j, const struct agent_config *c, char (*interfaces)[STATE_NAME_MAX],
                     unsigned n_interfaces);
