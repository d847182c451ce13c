/* SPDX-License-Identifier: MIT */
/*
 * controller/tune: `nettunectl tune` — the settings a fabric needs, found by measured
 * canary trials instead of chosen by a person.
 *
 *   the search   (tune_search.c, pure) which value to try next: grow geometrically
 *                from where the device is until a trial holds the target share of
 *                the ceiling with pause and drop rates under their bounds, then
 *                bisect between the highest value that failed and the lowest that
 *                held, down to the lowest value that still holds it; that value is
 *                tried once more and has to hold again
 *   the trials   (tune_run.c) each trial an ordinary transaction with commit-confirm
 *                on the scope under test only (the switch's managing node, or the
 *                canary hosts), recorded as a rollout of kind "tune" in the store;
 *                measured (tune_measure.c) with the fabric probe over the pattern's
 *                nodes and the counters doctor reads (marks, CNPs, pauses, drops);
 *                gated against the baseline; then cancelled (the agent restores its
 *                snapshot) unless it is the one kept
 *   the report   (tune_report.c) every trial as text and JSON, the winner as a
 *                validated policy for `nettunectl apply`, and (tune_plot.c) an SVG
 *                of the share of the ceiling and the pause rate against the value
 *
 * Safety is the agents': nothing is confirmed during the search, so a tune that
 * dies (Ctrl-C, kill -9, a lost connection) leaves every change pending, and each
 * agent's confirm timer restores it. tune never rolls out beyond its scope: the
 * winner is a policy file.
 *
 * May call: controller/rollout, controller/fabric, controller/store, controller/model, controller/fleet,
 * controller/svg (the plot), policies/, common/. Called by controller/cmd (ctl_tune.c).
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/errbuf.h"
#include "controller/fabric/fabric.h"
#include "controller/fleet/fleet.h"
#include "controller/store/store.h"
#include "policies/doctor/doctor.h"

#define TUNE_TRIALS_MAX 32              /* --max-trials at most */
#define TUNE_TRIALS_DEFAULT 8
#define TUNE_RUNS_MAX 9                 /* fabric probe runs per measurement (the median counts) */
#define TUNE_SCOPE_MAX 64               /* nodes a trial changes */
#define TUNE_PORTS_MAX 64
#define TUNE_GROWTH 4.0                 /* the growth phase multiplies the value by this */
#define TUNE_RESOLUTION 1.25            /* bisection stops once the highest failing and the lowest
                                           holding value are within this factor */
#define TUNE_ECN_MAX_RATIO 10u          /* max_threshold_bytes = ratio x min (Cumulus RoCE: 150000/1500000) */
#define TUNE_ECN_FLOOR_BYTES 1500u      /* the smallest min threshold tried: one MTU-sized frame */

enum tune_kind {
        TUNE_ECN,                       /* a switch queue's ECN thresholds */
        TUNE_DCQCN,                     /* one DCQCN parameter of the canary hosts' NICs */
        TUNE_KIND_MAX,
};

/* ---- the search (tune_search.c) ---- */

struct tune_search_opts {
        uint32_t start;                 /* where the device is (0: unknown, the floor is used) */
        bool start_holds;               /* the baseline, measured there, holds the target */
        uint32_t floor, ceiling;        /* bounds of the values tried */
        double growth;                  /* TUNE_GROWTH */
        double resolution;              /* TUNE_RESOLUTION */
        unsigned max_trials;
        uint32_t quantum;               /* values are rounded to multiples of it (ECN: 500 bytes) */
};

enum tune_phase {
        TUNE_PHASE_GROW,
        TUNE_PHASE_BISECT,
        TUNE_PHASE_VERIFY,              /* the winner once more: it has to hold again */
        TUNE_PHASE_DONE,
        TUNE_PHASE_MAX,
};

struct tune_search {
        struct tune_search_opts o;
        enum tune_phase phase;
        uint32_t lo;                    /* the highest value known to fail (the start when it fails) */
        uint32_t hi;                    /* the lowest value that held, 0 = none yet */
        uint32_t pending;               /* the value handed out and not yet judged, 0 = none */
        unsigned n_trials;
        unsigned n_held;                /* values that held, not yet disproved */
        uint32_t held[TUNE_TRIALS_MAX];
        bool verified;                  /* hi held a second time */
        uint32_t disproved;             /* the last value that held once and not when verified, 0 = none */
        char why_done[160];             /* how the search ended */
};

void tune_search_init(struct tune_search *s, const struct tune_search_opts *o);
/* The next value to try into *ret: 1; 0 when the search is over (why_done says why). */
int tune_search_next(struct tune_search *s, uint32_t *ret);
/* The verdict on the value tune_search_next gave. */
void tune_search_judge(struct tune_search *s, uint32_t value, bool held);
/*
 * The lowest value that held (the start when it held and nothing lower did), 0 = none.
 * When the trials ran out before it was tried again, s->verified is false.
 */
uint32_t tune_search_chosen(const struct tune_search *s);
const char *tune_phase_name(enum tune_phase p);

/* ---- what a trial is and what it measured ---- */

struct tune_counters {
        bool marks_known, cnps_known, pauses_known, drops_known;
        double marks_ps;                /* CE marks on the queue under test, per second, summed over its ports */
        double cnps_ps;                 /* CNPs sent by the pattern's notification points */
        double pauses_ps;               /* pause frames sent and received: the scope's ports and the pattern's NICs */
        double drops_ps;                /* discards and WRED drops: the same places */
        double window_s;                /* the counters' window */
};

struct tune_measure {
        bool ok;                        /* every run measured every flow */
        unsigned n_runs, n_ok;
        double run_gbps[TUNE_RUNS_MAX]; /* the pattern's figure per run */
        double gbps;                    /* their median */
        const char *figure_name;        /* "goodput", "busbw", "min_rx_gbps" */
        struct tune_counters c;
        double rtt_ms;                  /* the largest base round trip of the pattern's flows, 0 unknown */
        char error[320];                /* the first failure, "" when ok */
};

enum tune_outcome {
        TUNE_OUT_NONE,                  /* a measurement without a change (the baseline) */
        TUNE_OUT_REVERTED,              /* measured, then cancelled: its agents restored their snapshots */
        TUNE_OUT_GATE,                  /* reverted by its gate: worse than the baseline, or pauses/drops above a storm */
        TUNE_OUT_REFUSED,               /* an agent refused or rolled it back itself (its own probe gate); nothing kept */
        TUNE_OUT_CONFIRMED,             /* kept (--keep): confirmed on the scope */
        TUNE_OUT_UNKNOWN,               /* an agent could not say what became of it (its confirm timer restores it) */
        TUNE_OUT_MAX,
};

struct tune_trial {
        char label[16];                 /* "ceiling", "baseline", "1".."N", "keep" */
        enum tune_phase phase;          /* the search's phase that asked for it (verify: the winner again) */
        uint32_t value;                 /* ECN: min_threshold_bytes; DCQCN: the parameter's value */
        uint32_t max_bytes;             /* ECN: max_threshold_bytes */
        uint8_t probability_pct;        /* ECN */
        bool marking_off;               /* the ceiling trial: ECN off on the queue */
        struct tune_measure m;
        double pair_gbps;               /* --paired: the ceiling measured right after it, NAN none */
        long long pair_rollout;         /* that measurement's trial (marking off), 0 = none */
        enum tune_outcome pair_outcome;
        double share;                   /* m.gbps / the ceiling (its pair's when paired), NAN unknown */
        bool held;                      /* the target share with pauses and drops under their bounds */
        enum tune_outcome outcome;
        long long rollout;              /* its rollout in the store, 0 = none */
        char why[320];                  /* why it held or not, how it ended */
};

const char *tune_outcome_name(enum tune_outcome o);

/* The bounds a trial is judged by. */
struct tune_judge {
        double target;                  /* share of the ceiling, 0-1 (--target-pct / 100) */
        double max_pause_pps;           /* pause frames/s allowed (--max-pause-pps) */
        double max_drop_pps;            /* drops/s allowed (--max-drop-pps) */
        double max_regression_pct;      /* the gate: a trial this far below the baseline is reverted by it */
        double storm_pause_pps;         /* the gate: pauses/s that count as a storm (doctor's pause_storm) */
};

/* Judge t against the ceiling: sets share, held and why. Returns held. */
bool tune_trial_judge(const struct tune_judge *j, double ceiling_gbps, struct tune_trial *t);
/* Would its own gate revert it (worse than the baseline, or a pause storm)? why[0..size) says so. */
bool tune_trial_gated(const struct tune_judge *j, double baseline_gbps, const struct tune_trial *t, char *why,
                      size_t size);

/* ---- a tune run as a whole: what was asked, what happened (tune_report.c, tune_plot.c) ---- */

struct tune {
        enum tune_kind kind;
        char subject[INVENTORY_NAME_MAX];       /* ECN: the switch; DCQCN: the parameter's name */
        unsigned queue;                         /* ECN */
        int param;                              /* DCQCN: enum state_dcqcn_param */
        struct tune_judge judge;
        struct tune_search search;
        struct fabric_opts pattern;             /* the measurement */
        unsigned runs;                          /* fabric probe runs per measurement */
        unsigned confirm_timeout_s;             /* a trial's confirm timeout, 0 = from the measurement's bounds */
        unsigned n_pattern;                     /* the pattern's nodes (the first TUNE_SCOPE_MAX named) */
        char pattern_nodes[TUNE_SCOPE_MAX][INVENTORY_NAME_MAX];
        unsigned n_scope;
        char scope[TUNE_SCOPE_MAX][INVENTORY_NAME_MAX];         /* nodes the trials change */
        unsigned n_ports;                       /* ECN on a switch-role node: its ports under test */
        char ports[TUNE_PORTS_MAX][DOCTOR_NAME_MAX];
        bool linux_switch;                      /* the switch is a switch-role node (its ports are interfaces) */
        char interfaces[64];                    /* DCQCN: the canary hosts' NICs (a glob) */
        uint8_t probability_pct;                /* ECN: kept from the queue (or --probability-pct) */
        uint32_t max_ratio;                     /* ECN: max = ratio x min */
        double ceiling_gbps;                    /* NAN until measured */
        bool ceiling_is_port;                   /* the port rate, not a measured figure */
        bool ceiling_given;                     /* --ceiling GBPS */
        bool paired;                            /* --paired: every measurement's ceiling measured right after it */
        struct tune_trial ceiling;              /* the ceiling trial (marking off), when measured */
        struct tune_trial baseline;             /* the original values, measured */
        unsigned n_trials;
        struct tune_trial trials[TUNE_TRIALS_MAX];
        int chosen;                             /* index into trials, -1 = none (-2: the baseline) */
        bool lossless;                          /* ECN: the queue carries a PFC priority on the ports under test:
                                                   its marking stays on, the ceiling is its highest thresholds */
        uint32_t port_mbps;                     /* ECN: what the ports under test drain at (lowest), 0 unknown */
        uint32_t floor_min;                     /* ECN: doctor's floor of min_threshold_bytes (tune_verdict), 0 none */
        bool no_winner;                         /* the search's best was not taken (no signal, below the floor): exit 3 */
        char end[320];                          /* how it ended, one line */
        char out_path[512];                     /* the winner's policy, "" = not written */
        unsigned n_overrides;                   /* the layers committed on the scope, which every trial (and the
                                                   winner) lists in metadata.overrides: a trial is meant to win */
        char overrides[POLICY_OVERRIDES_MAX][POLICY_NAME_MAX];
};

void tune_init(struct tune *t, enum tune_kind kind);
/* The trial whose value was chosen (the baseline or one of trials[]), NULL = none. */
const struct tune_trial *tune_chosen(const struct tune *t);
/* Every trial that changed something ended confirmed or reverted (none pending, none unknown)? */
bool tune_all_ended(const struct tune *t);

/*
 * The verdict on a finished ECN search (pure; tune_run calls it): the chosen trial
 * stands only when the search saw a signal, ECN marks on the queue in some trial
 * (none: its trials could not tell one value from another), and when its value is
 * not below doctor's floor of the ports under test (their rate x the largest round trip the
 * trials' flows measured; the per-speed floor without one). Otherwise chosen becomes
 * -1, no_winner is set and end says why. Returns whether a winner stands.
 */
bool tune_verdict(struct tune *t, const struct doctor_params *p);
/*
 * The ceiling's trial into *x: marking off on the queue, or, on a lossless queue (the
 * lossless class refuses a lossless priority whose queue does not mark), marking on
 * at the highest thresholds the search may try: the least marking its rule allows.
 */
void tune_ceiling_trial(struct tune *t, struct tune_trial *x, const char *label);
/* The largest base round trip the measurements of t's trials saw, ms; 0 none. */
double tune_rtt_ms(const struct tune *t);

/* The run as JSON (new reference), and as text for people. */
json_t *tune_to_json(const struct tune *t);
void tune_print_text(FILE *out, const struct tune *t);
/*
 * The SVG: share of the ceiling (left axis, with the target as a dashed line) and
 * pause frames per second (right axis) against the value (log scale), one point per
 * trial (filled: held, hollow: not), the chosen one ringed and labelled. Every point
 * carries its figures as data-* attributes. Caller frees; NULL on ENOMEM.
 */
char *tune_plot_svg(const struct tune *t);

/*
 * The policy of one trial, or of the winner (tune_policy.c; canonical JSON, validated
 * by the policy parser): the queue's ECN on the switch (a switch-role node's ports as
 * interfaces, or targets.switches), or the DCQCN parameter of the hosts' interfaces;
 * selector labels[0..n), no verify of its own. Caller frees *ret.
 */
int tune_policy(const struct tune *t, const struct tune_trial *x, const struct policy_label *labels, unsigned n,
                const char *name, char **ret, struct errbuf *e);
/* "tune-leaf1-ecn", "tune-rp-ai-rate-3": a policy name (letters, digits, '.', '-') for a trial (label) or the winner (NULL). */
void tune_policy_name(const struct tune *t, const char *label, char *buf, size_t size);

/* ---- the trials against the fleet (tune_run.c, tune_measure.c) ---- */

struct tune_env {
        struct http_client *http;
        const struct http_tls *tls;             /* the counters' own client (a second thread) */
        struct store *store;
        unsigned timeout_s;
        enum progress_mode progress;
        const struct inventory_node *const *scope;      /* the nodes the trials change */
        unsigned n_scope;
        const struct inventory_node *const *pattern;    /* the nodes the pattern runs over */
        unsigned n_pattern;
        const struct policy_label *labels;      /* the trial policies' selector */
        unsigned n_labels;
        bool keep;                              /* apply the winner once more and confirm it on the scope */
        void (*on_trial)(const struct tune *t, const struct tune_trial *x, void *ud);   /* progress, optional */
        void *ud;
};

/* One measurement of the pattern plus the counters around it. 0, or -errno when nothing could be run. */
int tune_measure(const struct tune_env *env, const struct tune *t, struct tune_measure *ret, struct errbuf *e);

/*
 * The pre-flight of main's rollouts, before anything changes: every node of the
 * scope answers GET /v1/health and accepts a trial's policy in POST /v1/plan. 0;
 * -EINVAL a node refuses the policy, -EHOSTUNREACH one does not answer or cannot
 * plan it (e names the node), -errno libcurl failed.
 */
int tune_preflight(const struct tune_env *env, struct tune *t, struct errbuf *e);

/*
 * The whole run: the ceiling (a trial with marking off, unless t->ceiling_gbps is
 * given), the baseline, the search, and with env->keep the winner kept. Returns 0
 * (t says what happened), or -errno with e filled when it had to stop (what was
 * pending was cancelled first; whatever could not be reached is restored by its
 * agent's confirm timer).
 */
int tune_run(const struct tune_env *env, struct tune *t, struct errbuf *e);

/* Ask tune_run to stop after the step in progress (SIGINT, SIGTERM, SIGHUP): safe from a signal handler. */
void tune_request_stop(void);
