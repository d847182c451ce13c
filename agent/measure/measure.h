/* SPDX-License-Identifier: MIT */
/*
 * agent/measure: what surrounds every bandwidth measurement of the agent.
 *
 * Owns the measurement span (measure.c: the API held back while a probe runs, the
 * load seen during it) and probe runs as a progress line (probe_progress.c).
 *
 * May call: drivers/probe, common/. Called by agent/txn, agent/api, agent/cmd.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>

#include "common/progress.h"
#include "drivers/probe/probe.h"

/*
 * Around every bandwidth measurement of the agent: its other work is held back
 * and the load it saw is recorded, so that a gate decision compares like with like.
 *
 *   - while a measurement runs, API requests other than health wait for it to end
 *     (measure_wait_quiet);
 *   - the measuring thread runs 5 nice levels above its usual priority where the
 *     agent may raise it (CAP_SYS_NICE), and goes back after;
 *   - the load during the measurement is recorded: the host's CPU busy share
 *     (/proc/stat), the agent's CPU use besides the measuring thread
 *     (getrusage RUSAGE_SELF minus RUSAGE_THREAD) and the 1-minute load average.
 *
 * Two measurements are comparable when the agent's other CPU use differed by at
 * most MEASURE_LOAD_DELTA_MAX points of one CPU; the host's share is reported, not
 * judged (other tenants come and go on a node, and this is about our own load).
 */


#define MEASURE_LOAD_DELTA_MAX 20.0     /* % of one CPU */
#define MEASURE_NICE_BOOST 5

struct measure_load {
        bool measured;
        double host_busy_pct;           /* all CPUs: share not idle, 0-100 */
        double agent_cpu_pct;           /* the agent besides the measuring thread, % of one CPU */
        double loadavg_1m;
        bool priority_raised;           /* the measuring thread ran MEASURE_NICE_BOOST levels higher */
};

/* State between begin and end; on the measuring thread's stack. */
struct measure_span {
        long long wall_ms;
        unsigned long long host_busy, host_total;
        struct rusage self, thread;
        int nice;
        bool raised;
};

/* The calling thread is about to measure. Never fails: what cannot be read is left out. */
void measure_begin(struct measure_span *s);
/* The measurement ended: put the priority back, fill *ret. */
void measure_end(struct measure_span *s, struct measure_load *ret);

/* API: wait while a measurement runs, at most max_ms. true when none runs (any more). */
bool measure_wait_quiet(unsigned max_ms);

/* Do two loads differ beyond MEASURE_LOAD_DELTA_MAX? *ret_delta: the difference (post - base). */
bool measure_loads_differ(const struct measure_load *base, const struct measure_load *post, double *ret_delta);


/*
 * Probe runs as a progress line on a terminal (common/progress.h), for `probe` and
 * the transaction's baseline and post-change measurements:
 *   baseline probe: 10.0.0.2:18515 (tcp): 2/3 runs done, run 2: 9.41 Gb/s
 */


/* Begin the line on pg and set *ret to report each run of the measurement there (mode: as pinned). */
void probe_progress_begin(struct progress *pg, const char *tag, const struct probe_params *p,
                          enum probe_mode mode, unsigned runs, struct probe_observer *ret);

/* The measurement is over: its median (or that it failed) on the line, then end it. */
void probe_progress_end(struct progress *pg, const struct probe_measurement *m);
