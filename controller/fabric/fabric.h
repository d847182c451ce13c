/* SPDX-License-Identifier: MIT */
/*
 * controller/fabric: the fabric probe — patterns and nccl-tests' figures (fabric.c,
 * pure), the agents' answers (fabric_reply.c, fabric_take.c), clocks, one agreed start
 * and the fan-out (fabric_run.c), text and JSON (fabric_report.c).
 *
 * May call: controller/fleet, drivers/probe (the flows' wire format), policies/, common/.
 * Called by controller/rollout (verify.fabric) and controller/cmd (probe, doctor).
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "common/errbuf.h"
#include "common/progress.h"
#include "controller/fleet/fleet.h"
#include "drivers/probe/probe.h"
#include "drivers/probe/probe_flows.h"

/*
 * The fabric probe's patterns and figures: which node sends to which, and what the
 * measured flows say about the collective. Pure: no I/O (fabric_run.c sends the
 * flows, fabric_report.c renders the result).
 *
 * Patterns over nodes 0..n-1 (in inventory order), every flow at once:
 *   ring      i -> (i+1) mod n: one flow out and one in per node (n flows)
 *   incast    every node but the receiver -> the receiver (n-1 flows)
 *   alltoall  every ordered pair i -> j, i != j (n(n-1) flows)
 *
 * Figures, with nccl-tests' definitions (doc/PERFORMANCE.md there): a collective's
 * bus bandwidth (busbw) is the rate of the bottleneck link each rank has, the
 * figure to compare with the hardware; its algorithm bandwidth is size / time,
 * algbw = busbw / factor, factor = 2(n-1)/n for all-reduce and (n-1)/n for all-to-all.
 *   ring      the hops run at once as in every step of a ring all-reduce, so the
 *             slowest hop is the bottleneck: busbw = slowest hop, algbw =
 *             busbw * n / (2(n-1)) (equivalently busbw = algbw * 2(n-1)/n)
 *   incast    goodput at the receiver (the sum of its flows) and that divided by
 *             the receiver's link rate
 *   alltoall  per-node receive rate (the sum of a node's incoming flows): minimum
 *             and median; busbw = the minimum, algbw = busbw * n / (n-1)
 * The gate compares one collective figure: ring busbw, incast goodput, all-to-all
 * minimum per-node receive rate.
 */



#define FABRIC_NODES_MAX 1024
#define FABRIC_DURATION_DEFAULT_MS 2000u
#define FABRIC_ERR_MAX 320

enum fabric_pattern {
        FABRIC_RING,
        FABRIC_INCAST,
        FABRIC_ALLTOALL,
        FABRIC_PATTERN_MAX,
};

struct fabric_opts {
        enum fabric_pattern pattern;
        unsigned duration_ms;           /* of every flow, 100-60000 */
        enum probe_mode mode;           /* auto, verbs, tcp */
        int dscp;                       /* 0-63, -1 = the kernel's default class */
        int priority;                   /* SO_PRIORITY / verbs SL 0-7, -1 = left */
        unsigned streams;               /* TCP streams / verbs QPs per flow, 1-16 */
        unsigned receiver;              /* incast: the receiving node's index */
};

struct fabric_node {
        char name[INVENTORY_NAME_MAX];
        char url[INVENTORY_URL_MAX];
        /* What the node said of itself (GET /v1/fabric). */
        bool reached;
        char address[PROBE_PEER_MAX];   /* its responder, "HOST:PORT"; "" = none advertised */
        char interface[32];             /* the interface holding that address, "" = unknown */
        unsigned max_clients;           /* responder sessions at once */
        double link_gbps;               /* that interface's speed, NAN = unknown */
        double skew_ms;                 /* its clock minus the controller's, NAN = not compared */
        double skew_err_ms;             /* +- (half the round trip of the comparison) */
        /* Outcome. */
        char error[FABRIC_ERR_MAX];     /* "" or why this node failed the probe */
        unsigned n_in, n_out;           /* flows of the pattern into and out of it */
        unsigned rx_ok;                 /* incoming flows measured */
        double rx_gbps;                 /* their sum */
};

struct fabric_flow {
        unsigned src, dst;              /* node indexes */
        bool ok;
        double gbps;                    /* the receiver's view; NAN when not measured */
        char mode[8];                   /* as run: "verbs", "tcp"; "" = unknown */
        long long late_ms;              /* started this long after the agreed start (its node's clock) */
        int dscp;                       /* as reported for the data path, -1 = not reported */
        double rtt_ms;                  /* the flow's base round trip as its sender's kernel saw it, 0 = unknown */
        char error[FABRIC_ERR_MAX];
};

struct fabric {
        struct fabric_opts o;
        unsigned n_nodes, n_flows;
        struct fabric_node *nodes;      /* owned */
        struct fabric_flow *flows;      /* owned */
        long long start_at_ms;          /* the agreed start, controller's wall clock; 0 = not started */
        long long lead_ms;              /* how far ahead of the requests it was set */
};

struct fabric_figures {
        bool complete;                  /* every flow was measured */
        unsigned n_ok, n_failed;
        int slowest;                    /* flow index of the slowest measured flow, -1 = none */
        double slowest_gbps, median_gbps, sum_gbps;     /* over the measured flows */
        double busbw, algbw;            /* ring, alltoall (NAN otherwise) */
        double rx_min, rx_median;       /* alltoall: per-node receive rates */
        int rx_min_node;                /* -1 = none */
        double goodput, link_gbps, link_ratio;  /* incast (link_* NAN when the link rate is unknown) */
        double figure;                  /* what the gate compares, NAN = not measured */
        const char *figure_name;        /* "busbw", "goodput", "min_rx_gbps" */
};

const char *fabric_pattern_name(enum fabric_pattern p);
int fabric_pattern_from_string(const char *s, enum fabric_pattern *ret);
void fabric_opts_defaults(struct fabric_opts *o);

/*
 * Lay out the pattern over n nodes: f->nodes (names left for the caller) and
 * f->flows. -EINVAL with e filled for fewer than 2 nodes, more than
 * FABRIC_NODES_MAX, or an incast receiver out of range. fabric_free releases.
 */
int fabric_init(struct fabric *f, const struct fabric_opts *o, unsigned n, struct errbuf *e);
void fabric_free(struct fabric *f);

/*
 * Replace f's flows with n (src, dst) pairs of node indexes: a schedule of the
 * caller's (nettunectl locate's rounds). The nodes' counts, results and errors start
 * again; what the info rounds learnt of them (reached, responder, clock) stays.
 * -EINVAL with e filled for an index out of range or a node paired with itself.
 */
int fabric_set_pairs(struct fabric *f, const unsigned (*pairs)[2], unsigned n, struct errbuf *e);

/*
 * Before anything is sent: every node was reached and advertises its responder,
 * no responder gets more flows at once than its sessions (max_clients), no node
 * sends more than PROBE_FLOWS_MAX. -EHOSTUNREACH (a node not reached) or -EINVAL
 * with e naming the nodes.
 */
int fabric_check(const struct fabric *f, struct errbuf *e);

/* How late a flow may start after the agreed start before it does not count: max(500 ms, duration / 5). */
long long fabric_late_tolerance_ms(unsigned duration_ms);

/* Fail node i and its outgoing flows that have no result of their own, by name. */
void fabric_fail_node(struct fabric *f, unsigned i, const char *fmt, ...) _printf_(3, 4);

/* The first failed flow as "A -> B: why" into buf; "not measured" when none failed. Returns the text. */
const char *fabric_first_failure(const struct fabric *f, char *buf, size_t size);

/* Per-node receive rates and the pattern's figures from the flows. */
void fabric_compute(struct fabric *f, struct fabric_figures *ret);

enum fabric_verdict {
        FABRIC_PASS,
        FABRIC_FAIL_REGRESSION,         /* post figure below baseline * (1 - pct) */
        FABRIC_FAIL_POST,               /* the post measurement is incomplete */
        FABRIC_FAIL_BASELINE,           /* the baseline is incomplete: nothing to compare with */
        FABRIC_FAIL_MISMATCH,           /* the two ran in different modes: not comparable */
        FABRIC_VERDICT_MAX,
};

struct fabric_gate_report {
        enum fabric_verdict verdict;
        double baseline, post, threshold, change_pct;   /* NAN when unknown */
        char reason[640];
};

const char *fabric_verdict_name(enum fabric_verdict v);

/* Compare two runs of one pattern over the same nodes. Always fills *ret; 0 on pass, -EIO on fail. */
int fabric_gate_evaluate(double max_regression_pct, const struct fabric *base, const struct fabric_figures *bf,
                         const struct fabric *post, const struct fabric_figures *pf, struct fabric_gate_report *ret);

/* fabric_report.c: the whole run as JSON (new reference) and as text. */
json_t *fabric_to_json(const struct fabric *f, const struct fabric_figures *g);
json_t *fabric_gate_to_json(double max_regression_pct, const struct fabric_gate_report *r);
void fabric_print_text(FILE *out, const struct fabric *f, const struct fabric_figures *g);


/*
 * The agents' answers of a fabric probe (GET /v1/fabric, POST /v1/fabric/flows),
 * validated like any outside input: bounded JSON, the expected types and ranges,
 * bounded strings and counts; unknown keys are ignored (newer agents may add some).
 * -EBADMSG with e saying what is wrong ("$.flows[2].gbps: expected a number").
 */



struct fabric_info_reply {
        long long now_ms;               /* the agent's wall clock */
        char address[PROBE_PEER_MAX];   /* "" = none advertised */
        char interface[32];
        unsigned max_clients;           /* 1-16 */
        long speed_mbps;                /* 0 = unknown */
};

struct fabric_flow_reply {
        unsigned id;
        bool ok;
        double gbps;                    /* NAN when not ok */
        char mode[8];                   /* "verbs", "tcp", "auto" (never pinned) */
        long long started_ms, ended_ms; /* the agent's wall clock; 0 = never started */
        int dscp;                       /* -1 = not reported */
        double rtt_ms;                  /* 0 = not reported */
        char error[FABRIC_ERR_MAX];
};

struct fabric_flows_reply {
        long long start_at_ms;
        unsigned n;
        struct fabric_flow_reply v[PROBE_FLOWS_MAX];
};

int fabric_reply_info(const char *body, size_t len, struct fabric_info_reply *ret, struct errbuf *e);
int fabric_reply_flows(const char *body, size_t len, struct fabric_flows_reply *ret, struct errbuf *e);

/* fabric_take.c: the answers into the fabric. */

/*
 * One node's answer to GET /v1/fabric into n: its responder, link and clock (skew
 * from a request sent at t0_ms and answered at t1_ms, our wall clock; the round
 * with the shorter trip wins). Not reached, with n->error saying why, otherwise.
 */
void fabric_take_info(struct fabric_node *n, const struct http_req *q, double t0_ms, double t1_ms);

/*
 * Node i's answer to POST /v1/fabric/flows into f: each reported flow's result (a
 * flow that started later than fabric_late_tolerance_ms() after the agreed start
 * fails); a refused start (409), no answer in time (timeout_ms) or an invalid
 * answer fails the node and its flows by name; flows it did not report fail.
 */
void fabric_take_flows(struct fabric *f, unsigned i, const struct http_req *q, unsigned timeout_ms);


/*
 * Running a fabric probe across nodes (the pattern and its figures: fabric.h):
 *
 *   1. GET /v1/fabric from every node, twice (the first round also opens the TLS
 *      connections): where its responder is, how many sessions it takes, its link
 *      speed, and its wall clock, compared with ours over the round with the
 *      shorter round trip (skew = its clock - ours, +- half the round trip);
 *   2. fabric_check: nothing is sent when a node is unreachable, advertises no
 *      responder, or would get more flows than its responder takes;
 *   3. one agreed start, lead_ms ahead (1 s plus twice the longest round trip plus
 *      2 ms per node), given to each node in its own clock, and POST
 *      /v1/fabric/flows to every node that sends (never retried);
 *   4. each node's answer fills its flows; a node that refused the start, did not
 *      answer within lead + duration + FABRIC_FINISH_SLACK_MS, or a flow that
 *      started later than fabric_late_tolerance_ms() after the agreed start,
 *      fails by name.
 */


#define FABRIC_LEAD_MIN_MS 1000
#define FABRIC_LEAD_MAX_MS 30000
#define FABRIC_FINISH_SLACK_MS 45000u   /* a flow's own bounds (probe_flows.h) end well within it */

struct fabric_env {
        struct http_client *http;
        unsigned timeout_s;             /* per request of the info rounds */
        enum progress_mode progress;
};

/*
 * f from fabric_init() with every node's name and url set. Returns 0 when the
 * flows were sent (some may have failed: fabric_compute says), or -errno with e
 * filled when nothing was run (-EHOSTUNREACH, -EINVAL from fabric_check).
 */
int fabric_run(const struct fabric_env *env, struct fabric *f, struct errbuf *e);

/*
 * fabric_run in two parts, for callers that run several schedules over the same
 * nodes: fabric_prepare (the info rounds: responders and clocks) once, then
 * fabric_flows (fabric_check, one agreed start, the flows) per schedule. Same
 * returns as fabric_run.
 */
int fabric_prepare(const struct fabric_env *env, struct fabric *f, struct errbuf *e);
int fabric_flows(const struct fabric_env *env, struct fabric *f, struct errbuf *e);

/* The longest a fabric_run of these options may take, in ms (for callers that hold deadlines). */
unsigned fabric_run_bound_ms(const struct fabric_opts *o, unsigned n_nodes, unsigned timeout_s);

/* ---- nettunectl locate (locate.h: the schedule and judgement; locate_run.c) ---- */

#include "controller/fabric/locate.h"

/*
 * Run l's rounds across its nodes (urls[i] node i's agent), then judge: the info
 * rounds once, a round of pairs, a second when the first found a slow pair. 0 with
 * l's suspects set, or -errno with e filled when no round could run (a node not
 * reached, a responder that cannot take its flows: fabric_check's words).
 */
int locate_run(const struct fabric_env *env, struct locate *l, const char *const *urls, struct errbuf *e);
json_t *locate_to_json(const struct locate *l);
void locate_print_text(FILE *out, const struct locate *l);
