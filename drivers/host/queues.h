/* SPDX-License-Identifier: MIT */
/*
 * The per-queue counters of nettune's qdisc tree on a switch port (agent role
 * "switch"): ECN marks, RED drops (early, queue limit, other), every drop, and the
 * backlog, from the red qdiscs' TCA_STATS2 / tc_red_xstats (qdisc_ets.c). Read for
 * `state` (JSON; agent/cmd prints it as text), /metrics (agent/api) and doctor's
 * facts. An interface without nettune's tree has no queues.
 */
#pragma once

#include <jansson.h>
#include <stdint.h>

#include "drivers/driver.h"
#include "drivers/host/qdisc_ets.h"

/* The queues of nettune's tree on t (switch role only): q[0..return), at most STATE_TC_COUNT. */
unsigned queues_read(const struct target *t, struct qdisc_queue_stats *q);
/* The same for the link `name` (ifindex) of env, no target needed: /metrics walks every link. */
unsigned queues_read_link(const struct driver_env *env, const char *name, int ifindex, struct qdisc_queue_stats *q);
/* The rate of the htb class t's tree attaches under (qdisc_parents), Mbit/s; 0 = the root, or not a shaper. */
uint32_t queues_shaper_mbps(const struct target *t);

/* [{queue, ecn, marked, early_drops, limit_drops, other_drops, drops, backlog_bytes, backlog_packets,
 *   sent_bytes, sent_packets}], [] when there are none (or they cannot be read). */
json_t *queues_json(const struct target *t);
