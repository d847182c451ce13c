/* SPDX-License-Identifier: MIT */
/*
 * The regression gate: compare the post-change measurement with the baseline.
 *
 * Fail when the post probe itself failed, when the two measurements did not run
 * on the same path (mode, peer, interface, RDMA device, GID, DSCP, priority,
 * streams, message size: their rates are not comparable), when post < baseline *
 * (1 - max_regression_pct/100), or when post < min_gbps (min_gbps 0 = no floor).
 * When the baseline could not be measured, the policy decides: fail closed
 * (default) or gate only on min_gbps and on the post probe succeeding.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>

#include "drivers/probe/probe.h"

enum probe_gate_verdict {
        PROBE_GATE_PASS,
        PROBE_GATE_FAIL_REGRESSION,     /* post below baseline * (1 - pct) */
        PROBE_GATE_FAIL_MIN_GBPS,       /* post below the floor */
        PROBE_GATE_FAIL_POST_PROBE,     /* the post measurement failed */
        PROBE_GATE_FAIL_NO_BASELINE,    /* baseline failed and the policy fails closed */
        PROBE_GATE_FAIL_MISMATCH,       /* baseline and post ran on different paths: no comparison */
        PROBE_GATE_INCONCLUSIVE,        /* the two were measured under loads too different to compare (set by the caller) */
        PROBE_GATE_FAIL_LOSSY_CLASS,    /* the post probe rode a priority without PFC where the port has some (set by the caller) */
        PROBE_GATE_VERDICT_MAX,
};

struct probe_gate_params {
        double max_regression_pct;      /* 0-100 */
        double min_gbps;                /* 0 = no floor */
        bool skip_gate_without_baseline; /* policy on_baseline_failure "skip_gate" */
};

struct probe_gate_report {
        enum probe_gate_verdict verdict;
        bool baseline_ok;
        double baseline_gbps;           /* median, NAN when not measured */
        double post_gbps;               /* median, NAN when not measured */
        double threshold_gbps;          /* the lowest passing post rate */
        double change_pct;              /* (post - baseline) / baseline * 100, NAN when unknown */
        char reason[512];               /* one line: why it passed or failed */
        /* The class the post probe rode, judged by the caller after the change (agent/plan plan_probe_rode): */
        int rode_priority;              /* -1: not judged */
        char rode[160];                 /* how that priority follows, or why it was not judged; "" not asked */
};

const char *probe_gate_verdict_name(enum probe_gate_verdict v);

/* Decide. baseline may be NULL (not measured). Always fills *ret; returns 0 on pass, -EIO on fail. */
int probe_gate_evaluate(const struct probe_gate_params *g, const struct probe_measurement *baseline,
                        const struct probe_measurement *post, struct probe_gate_report *ret);

/* {"verdict","reason","baseline_ok","baseline_gbps","post_gbps","threshold_gbps","change_pct",
 *  "max_regression_pct","min_gbps"[,"rode_priority","rode"]}: the decision alone ("rode_priority"
 *  null when not judged; both only when the class was asked). New reference. */
json_t *probe_gate_report_to_json(const struct probe_gate_params *g, const struct probe_gate_report *r);

/* {"baseline":{...},"post":{...},"gate":{"verdict","reason",...}} for the journal. New reference. */
json_t *probe_gate_to_json(const struct probe_gate_params *g, const struct probe_measurement *baseline,
                           const struct probe_measurement *post, const struct probe_gate_report *r);
