/* SPDX-License-Identifier: MIT */
/* The regression gate: median, thresholds, and every failure mode. */
#include <CUnit/CUnit.h>
#include <math.h>

#include "drivers/probe/probe_gate.h"

static struct probe_measurement meas(const double *rates, unsigned n, int fail_at)
{
        struct probe_measurement m = { .mode = PROBE_MODE_TCP };

        for (unsigned i = 0; i < n; i++) {
                m.n_runs++;
                if ((int)i == fail_at) {
                        m.run_error[i] = -ECONNREFUSED;
                        snprintf(m.error, sizeof(m.error), "cannot connect to probe server");
                        continue;
                }
                m.runs[i].gbps = rates[i];
                m.n_ok++;
        }
        m.ok = m.n_ok == n;
        m.median_gbps = m.ok ? probe_median(rates, n) : NAN;
        return m;
}

static void test_median(void)
{
        const double odd[] = { 9.0, 1.0, 5.0 }, even[] = { 4.0, 1.0, 3.0, 2.0 }, one[] = { 7.5 };

        CU_ASSERT_DOUBLE_EQUAL(probe_median(odd, 3), 5.0, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(probe_median(even, 4), 2.5, 1e-12);
        CU_ASSERT_DOUBLE_EQUAL(probe_median(one, 1), 7.5, 1e-12);
        CU_ASSERT_TRUE(isnan(probe_median(one, 0)));
        CU_ASSERT_DOUBLE_EQUAL(odd[0], 9.0, 0);     /* input untouched */
}

static void test_pass_and_regression(void)
{
        const double base[] = { 10.0, 11.0, 9.0 }, ok[] = { 8.5, 8.1, 9.0 }, bad[] = { 7.9, 8.0, 7.0 };
        struct probe_gate_params g = { .max_regression_pct = 20 };
        struct probe_measurement b = meas(base, 3, -1), p = meas(ok, 3, -1);
        struct probe_gate_report r;

        CU_ASSERT_EQUAL(probe_gate_evaluate(&g, &b, &p, &r), 0);
        CU_ASSERT_EQUAL(r.verdict, PROBE_GATE_PASS);
        CU_ASSERT_DOUBLE_EQUAL(r.threshold_gbps, 8.0, 1e-9);
        CU_ASSERT_DOUBLE_EQUAL(r.change_pct, -15.0, 1e-9);

        p = meas(bad, 3, -1);   /* median 7.9 < 10 * 0.8 */
        CU_ASSERT_EQUAL(probe_gate_evaluate(&g, &b, &p, &r), -EIO);
        CU_ASSERT_EQUAL(r.verdict, PROBE_GATE_FAIL_REGRESSION);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.reason, "21.0% below the baseline 10.000"));
        CU_ASSERT_STRING_EQUAL(probe_gate_verdict_name(r.verdict), "regression");

        /* exactly at the threshold passes */
        const double edge[] = { 8.0 };
        p = meas(edge, 1, -1);
        CU_ASSERT_EQUAL(probe_gate_evaluate(&g, &b, &p, &r), 0);
        /* 0% allowed: any drop fails, an improvement passes */
        g.max_regression_pct = 0;
        CU_ASSERT_EQUAL(probe_gate_evaluate(&g, &b, &p, &r), -EIO);
        const double up[] = { 12.0 };
        p = meas(up, 1, -1);
        CU_ASSERT_EQUAL(probe_gate_evaluate(&g, &b, &p, &r), 0);
}

static void test_min_gbps(void)
{
        const double base[] = { 10.0 }, post[] = { 9.5 };
        struct probe_gate_params g = { .max_regression_pct = 20, .min_gbps = 9.8 };
        struct probe_measurement b = meas(base, 1, -1), p = meas(post, 1, -1);
        struct probe_gate_report r;

        CU_ASSERT_EQUAL(probe_gate_evaluate(&g, &b, &p, &r), -EIO);
        CU_ASSERT_EQUAL(r.verdict, PROBE_GATE_FAIL_MIN_GBPS);
        CU_ASSERT_DOUBLE_EQUAL(r.threshold_gbps, 9.8, 1e-9);
        g.min_gbps = 0;
        CU_ASSERT_EQUAL(probe_gate_evaluate(&g, &b, &p, &r), 0);
}

static void test_post_probe_failed(void)
{
        const double base[] = { 10.0 }, post[] = { 10.0, 10.0, 10.0 };
        struct probe_gate_params g = { .max_regression_pct = 20 };
        struct probe_measurement b = meas(base, 1, -1), p = meas(post, 3, 1);
        struct probe_gate_report r;

        CU_ASSERT_FALSE(p.ok);
        CU_ASSERT_EQUAL(probe_gate_evaluate(&g, &b, &p, &r), -EIO);
        CU_ASSERT_EQUAL(r.verdict, PROBE_GATE_FAIL_POST_PROBE);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.reason, "cannot connect"));
        CU_ASSERT_EQUAL(probe_gate_evaluate(&g, &b, NULL, &r), -EIO);
        CU_ASSERT_EQUAL(r.verdict, PROBE_GATE_FAIL_POST_PROBE);
}

static void test_no_baseline(void)
{
        const double base[] = { 10.0 }, post[] = { 3.0 };
        struct probe_gate_params g = { .max_regression_pct = 20 };
        struct probe_measurement b = meas(base, 1, 0), p = meas(post, 1, -1);
        struct probe_gate_report r;

        /* fail closed by default */
        CU_ASSERT_EQUAL(probe_gate_evaluate(&g, &b, &p, &r), -EIO);
        CU_ASSERT_EQUAL(r.verdict, PROBE_GATE_FAIL_NO_BASELINE);
        CU_ASSERT_FALSE(r.baseline_ok);
        CU_ASSERT_EQUAL(probe_gate_evaluate(&g, NULL, &p, &r), -EIO);
        /* policy says skip: only min_gbps and the post probe count */
        g.skip_gate_without_baseline = true;
        CU_ASSERT_EQUAL(probe_gate_evaluate(&g, &b, &p, &r), 0);
        CU_ASSERT_EQUAL(r.verdict, PROBE_GATE_PASS);
        CU_ASSERT_TRUE(isnan(r.change_pct));
        g.min_gbps = 5;
        CU_ASSERT_EQUAL(probe_gate_evaluate(&g, &b, &p, &r), -EIO);
        CU_ASSERT_EQUAL(r.verdict, PROBE_GATE_FAIL_MIN_GBPS);
}

static void test_json(void)
{
        const double base[] = { 10.0, 12.0, 11.0 }, post[] = { 5.0, 5.0 };
        struct probe_gate_params g = { .max_regression_pct = 20 };
        struct probe_measurement b = meas(base, 3, -1), p = meas(post, 2, 1);
        struct probe_gate_report r;
        json_t *j;

        probe_gate_evaluate(&g, &b, &p, &r);
        j = probe_gate_to_json(&g, &b, &p, &r);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j);
        CU_ASSERT_EQUAL(json_array_size(json_object_get(json_object_get(j, "baseline"), "runs")), 3);
        CU_ASSERT_DOUBLE_EQUAL(json_real_value(json_object_get(json_object_get(j, "baseline"), "median_gbps")),
                               11.0, 1e-9);
        CU_ASSERT_TRUE(json_is_null(json_object_get(json_object_get(j, "post"), "median_gbps")));
        CU_ASSERT_PTR_NOT_NULL(json_object_get(json_array_get(json_object_get(json_object_get(j, "post"), "runs"), 1),
                                               "error"));
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_object_get(j, "gate"), "verdict")),
                               "post_probe_failed");
        json_decref(j);
}

static struct probe_path path_of(enum probe_mode mode)
{
        struct probe_path p = { .mode = mode, .gid_index = -1, .dscp = 26, .priority = 3, .streams = 1,
                                .message_size = 65536 };

        snprintf(p.peer, sizeof(p.peer), "10.77.0.2:18515");
        snprintf(p.source, sizeof(p.source), "10.77.0.1");
        snprintf(p.netdev, sizeof(p.netdev), "va");
        if (mode == PROBE_MODE_VERBS) {
                snprintf(p.device, sizeof(p.device), "rxe0");
                p.gid_index = 1;
                snprintf(p.gid, sizeof(p.gid), "::ffff:10.77.0.1");
        }
        return p;
}

/* Measurements on different paths are never compared, whatever their rates. */
static void test_path_mismatch(void)
{
        const double base[] = { 0.4, 0.4, 0.4 }, post[] = { 9.0, 9.0, 9.0 };
        struct probe_gate_params g = { .max_regression_pct = 20 };
        struct probe_measurement b = meas(base, 3, -1), p = meas(post, 3, -1);
        struct probe_gate_report r;
        json_t *j;

        b.path = path_of(PROBE_MODE_VERBS);
        p.path = path_of(PROBE_MODE_VERBS);
        CU_ASSERT_EQUAL(probe_gate_evaluate(&g, &b, &p, &r), 0);        /* same path: compared, and better */
        p.path = path_of(PROBE_MODE_TCP);
        CU_ASSERT_EQUAL(probe_gate_evaluate(&g, &b, &p, &r), -EIO);
        CU_ASSERT_EQUAL(r.verdict, PROBE_GATE_FAIL_MISMATCH);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.reason, "mode: 'verbs' vs 'tcp'"));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.reason, "not compared"));
        j = probe_gate_report_to_json(&g, &r);
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "verdict")), "probe_mismatch");
        json_decref(j);
        /* every part of the path counts */
        p.path = path_of(PROBE_MODE_VERBS);
        p.path.gid_index = 3;
        CU_ASSERT_EQUAL(probe_gate_evaluate(&g, &b, &p, &r), -EIO);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.reason, "gid index: 1 vs 3"));
        p.path = path_of(PROBE_MODE_VERBS);
        p.path.dscp = 0;
        CU_ASSERT_EQUAL(probe_gate_evaluate(&g, &b, &p, &r), -EIO);
        CU_ASSERT_PTR_NOT_NULL(strstr(r.reason, "dscp: 26 vs 0"));
        p.path = path_of(PROBE_MODE_VERBS);
        snprintf(p.path.device, sizeof(p.path.device), "rxe1");
        CU_ASSERT_EQUAL(probe_gate_evaluate(&g, &b, &p, &r), -EIO);
        /* a failed post probe is that, not a mismatch; no baseline: nothing to compare */
        p = meas(post, 3, 1);
        p.path = path_of(PROBE_MODE_TCP);
        probe_gate_evaluate(&g, &b, &p, &r);
        CU_ASSERT_EQUAL(r.verdict, PROBE_GATE_FAIL_POST_PROBE);
        g.skip_gate_without_baseline = true;
        b = meas(base, 3, 0);
        p = meas(post, 3, -1);
        p.path = path_of(PROBE_MODE_TCP);
        CU_ASSERT_EQUAL(probe_gate_evaluate(&g, &b, &p, &r), 0);
}

int suite_probe_gate(void);
int suite_probe_gate(void)
{
        CU_pSuite s = CU_add_suite("probe_gate", NULL, NULL);

        if (!s ||
            !CU_add_test(s, "median", test_median) ||
            !CU_add_test(s, "pass_and_regression", test_pass_and_regression) ||
            !CU_add_test(s, "min_gbps", test_min_gbps) ||
            !CU_add_test(s, "post_probe_failed", test_post_probe_failed) ||
            !CU_add_test(s, "no_baseline", test_no_baseline) ||
            !CU_add_test(s, "json", test_json) ||
            !CU_add_test(s, "path_mismatch", test_path_mismatch))
                return -1;
        return 0;
}
