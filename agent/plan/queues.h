/* SPDX-License-Identifier: MIT */
/*
 * The per-queue counters of nettune's qdisc tree on a switch port (agent role
 * "switch"): ECN marks, RED drops (early, queue limit, other), every drop, and the
 * backlog, from the red qdiscs' TCA_STATS2 / tc_red_xstats. For `state` (JSON and
 * text) and /metrics. An interface without nettune's tree has no queues.
 */
#pragma once

#include <jansson.h>
#include <stdio.h>

#include "agent/config/config.h"
#include "drivers/driver.h"

struct qdisc_queue_stats;
/* The queues of nettune's tree on t (switch role only): q[0..return), at most STATE_TC_COUNT. */
unsigned queues_read(const struct target *t, struct qdisc_queue_stats *q);

/* [{queue, ecn, marked, early_drops, limit_drops, other_drops, drops, backlog_bytes, backlog_packets,
 *   sent_bytes, sent_packets}], [] when there are none (or they cannot be read). */
json_t *queues_json(const struct target *t);

/* "  queue 0 (ecn): marked 1240, drops 3 (early 0, limit 3, other 0), backlog 0 bytes / 0 packets". */
void queues_print(const json_t *queues);

/* The Prometheus families nettune_queue_* for every interface of this namespace (switch role only). */
void queues_render_metrics(FILE *f, const struct agent_config *c);
