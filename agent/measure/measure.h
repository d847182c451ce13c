/* SPDX-License-Identifier: MIT */
/*
 * agent/measure: what surrounds every bandwidth measurement of the agent.
 *
 * Owns the node's measurement slot and the measurement span (measure.c: one
 * measurement at a time, what runs now and until when, the load seen during it) and
 * probe runs as a progress line (probe_progress.c).
 *
 * May call: drivers/probe, common/. Called by agent/txn, agent/api, agent/cmd.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>

#include <jansson.h>

#include "common/progress.h"
#include "drivers/probe/probe.h"

/*
 * Around every bandwidth measurement of the agent: one at a time, its other work
 * kept small, and the load it saw recorded, so that a gate decision compares like
 * with like.
 *
 *   - the slot: a measurement the API runs for a client (POST /v1/probe, a fabric
 *     run from its request to its end) claims it (measure_claim) and is refused while
 *     another measurement or a transaction of this process runs; a transaction
 *     enters (measure_txn_enter) only while no such measurement runs, and its own
 *     baseline and post-change probes are the slot's (measure_begin_as). Nobody
 *     waits: whoever is refused learns what runs and until when (struct
 *     measure_info), and the API answers 409 busy with it;
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
        bool noted;                     /* measure_begin_as: the slot names it */
        long long wall_ms;
        unsigned long long host_busy, host_total;
        struct rusage self, thread;
        int nice;
        bool raised;
};

/* The calling thread is about to measure (a measurement that claimed the slot). Never fails: what cannot be read is left out. */
void measure_begin(struct measure_span *s);
/* The same for a transaction's phase: it is the slot's measurement until measure_end (id "tx-TX-PHASE"). */
void measure_begin_as(struct measure_span *s, int64_t tx, const char *phase, int64_t ends_ms);
/* The measurement ended: put the priority back, fill *ret. */
void measure_end(struct measure_span *s, struct measure_load *ret);
/*
 * A long-lived process after a measurement: the heap's free pages back to the kernel
 * (the probe buffers are their own mappings, gone already), so that its memory does
 * not stay at the largest measurement it ran.
 */
void measure_give_back(void);

/* What runs in the slot: an id, a kind, and when it began and is due to end (wall clock, ms since the epoch). */
struct measure_info {
        char id[48];                    /* "tx-12-baseline", "probe-3", "fabric-2"; "" for a transaction */
        char kind[16];                  /* "baseline", "post", "probe", "fabric"; "transaction" */
        int64_t started_ms, ends_ms;    /* ends_ms 0: not known (a transaction) */
};

/* Connects and handshakes counted per run in a measurement's ends_ms. */
#define MEASURE_RUN_SLACK_MS 2000

/* When a measurement of runs x duration_ms starting now is due to end. */
int64_t measure_ends_ms(unsigned runs, unsigned duration_ms);
/* Wall clock, ms since the epoch. */
int64_t measure_now_ms(void);

/*
 * Claim the slot for a measurement of the API (kind "probe" or "fabric", due to end
 * at ends_ms): 0 with *ret (may be NULL) naming it ("probe-3"); -EBUSY with *ret_busy
 * saying what runs (a measurement, or a transaction: kind "transaction").
 */
int measure_claim(const char *kind, int64_t ends_ms, struct measure_info *ret, struct measure_info *ret_busy);
void measure_release(void);
/* A transaction of this process begins / ends: -EBUSY with *ret_busy while an API measurement holds the slot. */
int measure_txn_enter(struct measure_info *ret_busy);
void measure_txn_leave(void);
/* Is a measurement running now (the API's, or a transaction's probe)? *ret (may be NULL) says which. */
bool measure_running(struct measure_info *ret);
/* {id, kind, started_ms, ends_ms}; NULL on ENOMEM. */
json_t *measure_info_to_json(const struct measure_info *m);

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
