/* SPDX-License-Identifier: MIT */
/*
 * `nettunectl serve`'s own Prometheus endpoint: GET /metrics (plain HTTP, text
 * format 0.0.4) on the configured address, answered from counters the serve
 * loop updates. Read-only; anything else is 404.
 */
#pragma once

#include <stdatomic.h>

#include "common/errbuf.h"

struct serve_counters {
        atomic_int leader;                              /* 1 while this replica leads */
        atomic_ullong leader_changes;                   /* times it became leader */
        atomic_ullong rollouts_run;                     /* rollouts it drove to an end */
        atomic_ullong rollouts_failed;                  /* of those, not exit 0 */
        atomic_ullong rollouts_interrupted;             /* stopped acting mid-rollout (leadership lost) */
        atomic_ullong drift_scans;
        atomic_uint drift_nodes, drift_drifted, drift_unreachable;     /* the newest scan */
        atomic_ullong enforce_rollouts;
        atomic_ullong store_writes;
        atomic_llong last_scan_at;                      /* unix seconds */
};

struct serve_metrics;

/* listen: "ADDR:PORT" (IPv4 or [IPv6]). */
int serve_metrics_start(const char *listen, struct serve_counters *c, struct serve_metrics **ret, struct errbuf *e);
void serve_metrics_stop(struct serve_metrics *m);       /* accepts NULL */
/* The text served, for tests; caller frees. */
char *serve_metrics_render(struct serve_counters *c);
