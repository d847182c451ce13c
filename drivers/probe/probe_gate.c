/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <stdarg.h>

#include "drivers/probe/probe_gate.h"

static const char *const verdict_names[PROBE_GATE_VERDICT_MAX] = {
        [PROBE_GATE_PASS] = "pass",
        [PROBE_GATE_FAIL_REGRESSION] = "regression",
        [PROBE_GATE_FAIL_MIN_GBPS] = "below_min_gbps",
        [PROBE_GATE_FAIL_POST_PROBE] = "post_probe_failed",
        [PROBE_GATE_FAIL_NO_BASELINE] = "no_baseline",
        [PROBE_GATE_FAIL_MISMATCH] = "probe_mismatch",
        [PROBE_GATE_INCONCLUSIVE] = "inconclusive",
        [PROBE_GATE_FAIL_LOSSY_CLASS] = "lossy_class",
};

const char *probe_gate_verdict_name(enum probe_gate_verdict v)
{
        return v < PROBE_GATE_VERDICT_MAX ? verdict_names[v] : "unknown";
}

static int decide(struct probe_gate_report *r, enum probe_gate_verdict v, const char *fmt, ...) _printf_(3, 4);

static int decide(struct probe_gate_report *r, enum probe_gate_verdict v, const char *fmt, ...)
{
        va_list ap;

        r->verdict = v;
        va_start(ap, fmt);
        vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
        va_end(ap);
        return v == PROBE_GATE_PASS ? 0 : -EIO;
}

static int judge_rate(const struct probe_gate_params *g, struct probe_gate_report *r)
{
        double floor_regr = r->baseline_ok ? r->baseline_gbps * (1.0 - g->max_regression_pct / 100.0) : 0.0;

        r->threshold_gbps = fmax(floor_regr, g->min_gbps);
        if (r->baseline_ok && r->baseline_gbps > 0)
                r->change_pct = (r->post_gbps - r->baseline_gbps) / r->baseline_gbps * 100.0;
        if (r->baseline_ok && r->post_gbps < floor_regr)
                return decide(r, PROBE_GATE_FAIL_REGRESSION,
                              "post-change rate %.3f Gb/s is %.1f%% below the baseline %.3f Gb/s "
                              "(at most %.1f%% allowed)", r->post_gbps, -r->change_pct, r->baseline_gbps,
                              g->max_regression_pct);
        if (g->min_gbps > 0 && r->post_gbps < g->min_gbps)
                return decide(r, PROBE_GATE_FAIL_MIN_GBPS, "post-change rate %.3f Gb/s is below min_gbps %.3f",
                              r->post_gbps, g->min_gbps);
        if (!r->baseline_ok)
                return decide(r, PROBE_GATE_PASS, "post-change rate %.3f Gb/s; no baseline, gated on min_gbps "
                              "%.3f and probe success only", r->post_gbps, g->min_gbps);
        return decide(r, PROBE_GATE_PASS, "post-change rate %.3f Gb/s is within %.1f%% of the baseline %.3f Gb/s "
                      "(change %+.1f%%)", r->post_gbps, g->max_regression_pct, r->baseline_gbps, r->change_pct);
}

int probe_gate_evaluate(const struct probe_gate_params *g, const struct probe_measurement *baseline,
                        const struct probe_measurement *post, struct probe_gate_report *ret)
{
        struct probe_gate_report r = { .baseline_gbps = NAN, .post_gbps = NAN, .change_pct = NAN,
                                       .threshold_gbps = NAN, .rode_priority = -1 };
        char diff[256];
        int k;

        r.baseline_ok = baseline && baseline->ok && isfinite(baseline->median_gbps);
        if (r.baseline_ok)
                r.baseline_gbps = baseline->median_gbps;
        if (post && post->ok && isfinite(post->median_gbps))
                r.post_gbps = post->median_gbps;
        if (isnan(r.post_gbps))
                k = decide(&r, PROBE_GATE_FAIL_POST_PROBE, "post-change probe failed: %s",
                           post && post->error[0] ? post->error : "not measured");
        else if (!r.baseline_ok && !g->skip_gate_without_baseline)
                k = decide(&r, PROBE_GATE_FAIL_NO_BASELINE, "baseline probe failed (%s) and the policy fails closed",
                           baseline && baseline->error[0] ? baseline->error : "not measured");
        else if (r.baseline_ok && probe_path_diff(&baseline->path, &post->path, diff, sizeof(diff)))
                k = decide(&r, PROBE_GATE_FAIL_MISMATCH, "baseline and post-change probes ran on different paths "
                           "(%s): their rates are not compared", diff);
        else
                k = judge_rate(g, &r);
        *ret = r;
        return k;
}

json_t *probe_gate_report_to_json(const struct probe_gate_params *g, const struct probe_gate_report *r)
{
        json_t *o = json_pack("{s:s, s:s, s:b, s:o, s:o, s:o, s:o, s:f, s:f}",
                              "verdict", probe_gate_verdict_name(r->verdict), "reason", r->reason,
                              "baseline_ok", r->baseline_ok, "baseline_gbps", probe_json_gbps(r->baseline_gbps),
                              "post_gbps", probe_json_gbps(r->post_gbps),
                              "threshold_gbps", probe_json_gbps(r->threshold_gbps),
                              "change_pct", probe_json_gbps(r->change_pct),
                              "max_regression_pct", g->max_regression_pct, "min_gbps", g->min_gbps);

        if (o && r->rode[0]) {
                json_object_set_new(o, "rode_priority",
                                    r->rode_priority >= 0 ? json_integer(r->rode_priority) : json_null());
                json_object_set_new(o, "rode", json_string(r->rode));
        }
        return o;
}

json_t *probe_gate_to_json(const struct probe_gate_params *g, const struct probe_measurement *baseline,
                           const struct probe_measurement *post, const struct probe_gate_report *r)
{
        json_t *gate = probe_gate_report_to_json(g, r);

        return json_pack("{s:o, s:o, s:o}", "baseline", baseline ? probe_measurement_to_json(baseline) : json_null(),
                         "post", post ? probe_measurement_to_json(post) : json_null(), "gate", gate);
}
