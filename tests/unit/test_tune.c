/* SPDX-License-Identifier: MIT */
/*
 * `nettunectl tune`'s search against simulated response curves (the share of the
 * ceiling a threshold gives), the verdict on a trial, the report and the plot.
 */
#include <CUnit/CUnit.h>
#include <math.h>

#include "controller/svg/svg.h"
#include "controller/tune/tune.h"

/* A fabric whose share of the ceiling rises with the threshold: 0.55 at 0, 0.95 at 40 kB x ln 9 = 87.9 kB. */
static double curve(uint32_t x)
{
        return 1.0 - 0.45 * exp(-(double)x / 40000.0);
}

#define CURVE_TARGET_X 87889.0

/* The same with +-4% of deterministic noise and the dip Linux RED showed in the lab (24-48 kB at 100%). */
static double noisy(uint32_t x)
{
        double n = sin((double)x * 12.9898) * 43758.5453;

        n -= floor(n);
        return curve(x) * (0.96 + 0.08 * n) - (x > 20000 && x < 50000 ? 0.3 : 0);
}

struct sim {
        struct tune_search s;
        uint32_t tried[TUNE_TRIALS_MAX];
        bool held[TUNE_TRIALS_MAX];
        unsigned n;
};

static void run(struct sim *m, const struct tune_search_opts *o, double (*f)(uint32_t), double target)
{
        uint32_t v;

        memset(m, 0, sizeof(*m));
        tune_search_init(&m->s, o);
        while (tune_search_next(&m->s, &v) == 1) {
                CU_ASSERT_FATAL(m->n < TUNE_TRIALS_MAX);
                m->tried[m->n] = v;
                m->held[m->n] = f(v) >= target;
                tune_search_judge(&m->s, v, m->held[m->n]);
                m->n++;
        }
}

/* The lowest value that held every time it was tried (tried again and failed: disproved). */
static uint32_t lowest_held(const struct sim *m)
{
        uint32_t best = 0;

        for (unsigned i = 0; i < m->n; i++) {
                bool always = true;

                for (unsigned k = 0; k < m->n; k++)
                        always &= m->tried[k] != m->tried[i] || m->held[k];
                if (always && (!best || m->tried[i] < best))
                        best = m->tried[i];
        }
        return best;
}

static struct tune_search_opts ecn_opts(uint32_t start, bool holds, unsigned max_trials)
{
        return (struct tune_search_opts){ .start = start, .start_holds = holds, .floor = TUNE_ECN_FLOOR_BYTES,
                                          .ceiling = 67108864 / TUNE_ECN_MAX_RATIO, .growth = TUNE_GROWTH,
                                          .resolution = TUNE_RESOLUTION, .max_trials = max_trials, .quantum = 500 };
}

/* From the seed's 3 kB: grow 12k, 48k, 192k (holds), then bisect down to within 25% of the true point. */
static void test_grow_then_bisect(void)
{
        struct tune_search_opts o = ecn_opts(3000, false, 8);
        struct sim m;
        uint32_t c;

        run(&m, &o, curve, 0.95);
        c = tune_search_chosen(&m.s);
        CU_ASSERT_EQUAL(m.tried[0], 12000);
        CU_ASSERT_EQUAL(m.tried[1], 48000);
        CU_ASSERT_EQUAL(m.tried[2], 192000);
        CU_ASSERT(m.n <= 8);
        CU_ASSERT(c >= CURVE_TARGET_X && c <= CURVE_TARGET_X * TUNE_RESOLUTION);
        CU_ASSERT_EQUAL(c, lowest_held(&m));
        CU_ASSERT(curve(c) >= 0.95);
        CU_ASSERT_EQUAL(m.s.phase, TUNE_PHASE_DONE);
        CU_ASSERT_PTR_NOT_NULL(strstr(m.s.why_done, "within the resolution"));
}

/* Thresholds that already hold: bisect down towards the floor for shorter queues. */
static void test_start_holds_bisects_down(void)
{
        struct tune_search_opts o = ecn_opts(1500000, true, 8);
        struct sim m;
        uint32_t c;

        run(&m, &o, curve, 0.95);
        c = tune_search_chosen(&m.s);
        CU_ASSERT(m.n > 0 && m.tried[0] < 1500000);
        CU_ASSERT(c >= CURVE_TARGET_X && c < 1500000);
        CU_ASSERT(curve(c) >= 0.95);
        for (unsigned i = 0; i < m.n; i++)
                CU_ASSERT(m.tried[i] < 1500000);
}

/* A target nothing reaches: every trial fails, nothing is chosen, the budget bounds the trials. */
static void test_nothing_holds(void)
{
        struct tune_search_opts o = ecn_opts(3000, false, 5);
        struct sim m;

        run(&m, &o, curve, 1.5);
        CU_ASSERT_EQUAL(m.n, 5);
        CU_ASSERT_EQUAL(tune_search_chosen(&m.s), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(m.s.why_done, "no value held"));
        o.max_trials = 32;
        run(&m, &o, curve, 1.5);
        CU_ASSERT(m.n < 32);
        CU_ASSERT_EQUAL(m.tried[m.n - 1], o.ceiling);
        CU_ASSERT_PTR_NOT_NULL(strstr(m.s.why_done, "up to the ceiling"));
}

/* A budget of 3: the growth phase's first holding value stands. */
static void test_budget(void)
{
        struct tune_search_opts o = ecn_opts(3000, false, 3);
        struct sim m;

        run(&m, &o, curve, 0.95);
        CU_ASSERT_EQUAL(m.n, 3);
        CU_ASSERT_EQUAL(tune_search_chosen(&m.s), 192000);
        CU_ASSERT_PTR_NOT_NULL(strstr(m.s.why_done, "budget is spent; the lowest value that held stands"));
}

/* Noise and a dip: whatever the curve does, the answer is the lowest value that held, and it held. */
static void test_noisy_lowest_held(void)
{
        for (uint32_t start = 1000; start < 400000; start = start * 3 / 2) {
                struct tune_search_opts o = ecn_opts(start, noisy(start) >= 0.95, 10);
                struct sim m;
                uint32_t c;

                run(&m, &o, noisy, 0.95);
                c = tune_search_chosen(&m.s);
                CU_ASSERT(m.n <= 10);
                if (o.start_holds) {
                        CU_ASSERT(c == lowest_held(&m) || (!lowest_held(&m) && c == start));
                } else {
                        CU_ASSERT_EQUAL(c, lowest_held(&m));
                }
                if (c && c != start) {
                        CU_ASSERT(noisy(c) >= 0.95);
                }
                for (unsigned i = 0; i < m.n; i++)
                        CU_ASSERT(m.tried[i] >= o.floor && m.tried[i] <= o.ceiling && m.tried[i] % 500 == 0);
        }
}


/* The winner is tried again: a value that held by chance once is disproved, the search goes on above it. */
static void test_verify_disproves_a_lucky_hold(void)
{
        struct tune_search_opts o = ecn_opts(3000, false, 12);
        struct tune_search s;
        unsigned tries_48k = 0, n = 0;
        uint32_t v, tried[16];

        tune_search_init(&s, &o);
        while (n < 16 && tune_search_next(&s, &v) == 1) {
                bool held = curve(v) >= 0.95;

                if (v == 48000 && tries_48k++ == 0)
                        held = true;            /* a lucky measurement: the true share is 0.87 */
                tried[n++] = v;
                tune_search_judge(&s, v, held);
        }
        CU_ASSERT_EQUAL(tries_48k, 2);                  /* held once, tried again, failed */
        CU_ASSERT_EQUAL(s.disproved, 48000);
        CU_ASSERT(s.verified);
        CU_ASSERT(tune_search_chosen(&s) >= CURVE_TARGET_X && tune_search_chosen(&s) <= CURVE_TARGET_X * TUNE_RESOLUTION);
        CU_ASSERT_EQUAL(tried[n - 1], tune_search_chosen(&s));  /* the last trial: the winner again */
        CU_ASSERT_PTR_NOT_NULL(strstr(s.why_done, "and held again"));
}

/* A verification the budget cannot afford: the winner stands, said to be tried once only. */
static void test_verify_out_of_budget(void)
{
        struct tune_search_opts o = ecn_opts(3000, false, 6);
        struct sim m;

        run(&m, &o, curve, 0.95);
        CU_ASSERT_EQUAL(m.n, 6);
        CU_ASSERT(!m.s.verified);
        CU_ASSERT(tune_search_chosen(&m.s) > 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(m.s.why_done, "not tried again"));
}

/* A verdict the search did not ask for changes nothing. */
static void test_judge_only_pending(void)
{
        struct tune_search_opts o = ecn_opts(3000, false, 8);
        struct tune_search s;
        uint32_t v;

        tune_search_init(&s, &o);
        CU_ASSERT_EQUAL(tune_search_next(&s, &v), 1);
        tune_search_judge(&s, v + 500, true);
        CU_ASSERT_EQUAL(tune_search_chosen(&s), 0);
        tune_search_judge(&s, v, true);
        CU_ASSERT_EQUAL(tune_search_chosen(&s), v);
}

static struct tune_trial trial(double gbps, double pauses, double drops)
{
        struct tune_trial t = { .m = { .ok = true, .n_runs = 3, .n_ok = 3, .gbps = gbps } };

        t.m.c.pauses_known = pauses >= 0;
        t.m.c.pauses_ps = pauses;
        t.m.c.drops_known = drops >= 0;
        t.m.c.drops_ps = drops;
        return t;
}

static void test_trial_verdict(void)
{
        struct tune_judge j = { .target = 0.95, .max_pause_pps = 100, .max_drop_pps = 10, .max_regression_pct = 25,
                                .storm_pause_pps = 1000 };
        struct tune_trial t;
        char why[320];

        t = trial(0.0192, -1, -1);
        CU_ASSERT(tune_trial_judge(&j, 0.0200, &t));
        CU_ASSERT(fabs(t.share - 0.96) < 1e-9);
        t = trial(0.0180, 0, 0);
        CU_ASSERT(!tune_trial_judge(&j, 0.0200, &t));
        CU_ASSERT_PTR_NOT_NULL(strstr(t.why, "0.900 of the ceiling, below the target 0.950"));
        t = trial(0.0199, 150, 0);
        CU_ASSERT(!tune_trial_judge(&j, 0.0200, &t));
        CU_ASSERT_PTR_NOT_NULL(strstr(t.why, "150.0 pause frames/s (at most 100)"));
        t = trial(0.0199, 0, 11);
        CU_ASSERT(!tune_trial_judge(&j, 0.0200, &t));
        CU_ASSERT_PTR_NOT_NULL(strstr(t.why, "drops/s"));
        t = trial(0.0199, -1, -1);
        CU_ASSERT(!tune_trial_judge(&j, NAN, &t));
        /* the gate: a quarter below the baseline, or a pause storm */
        t = trial(0.0100, 0, 0);
        CU_ASSERT(tune_trial_gated(&j, 0.0140, &t, why, sizeof(why)));
        CU_ASSERT_PTR_NOT_NULL(strstr(why, "below the baseline"));
        t = trial(0.0110, 0, 0);
        CU_ASSERT(!tune_trial_gated(&j, 0.0140, &t, why, sizeof(why)));
        t = trial(0.0190, 2000, 0);
        CU_ASSERT(tune_trial_gated(&j, 0.0140, &t, why, sizeof(why)));
        CU_ASSERT_PTR_NOT_NULL(strstr(why, "pause storm"));
        t.m.ok = false;
        CU_ASSERT(tune_trial_gated(&j, 0.0140, &t, why, sizeof(why)));
}


/* A run as the lab's ECN story makes one: the baseline, four trials, the lowest that held chosen. */
static void lab_run(struct tune *t)
{
        static const uint32_t v[] = { 12000, 48000, 24000, 34000 };
        static const double share[] = { 0.70, 0.99, 0.90, 0.96 };

        tune_init(t, TUNE_ECN);
        snprintf(t->subject, sizeof(t->subject), "leaf1");
        t->ceiling_gbps = 0.0191;
        t->baseline = trial(0.0115, -1, -1);
        snprintf(t->baseline.label, sizeof(t->baseline.label), "baseline");
        t->baseline.value = 3000;
        t->baseline.max_bytes = 15000;
        t->baseline.probability_pct = 100;
        tune_trial_judge(&t->judge, t->ceiling_gbps, &t->baseline);
        for (unsigned i = 0; i < 4; i++) {
                struct tune_trial *x = &t->trials[t->n_trials++];

                *x = trial(share[i] * t->ceiling_gbps, i * 10.0, 0);
                snprintf(x->label, sizeof(x->label), "%u", i + 1);
                x->value = v[i];
                x->max_bytes = v[i] * 10;
                x->probability_pct = 10;
                x->outcome = TUNE_OUT_REVERTED;
                tune_trial_judge(&t->judge, t->ceiling_gbps, x);
        }
        t->chosen = 3;
}

/* The attribute `name` of the element of class `cls` with data-value `value`, or NAN. */
static double attr(const char *svg, const char *cls, uint32_t value, const char *name)
{
        char key[96], at[32];
        const char *p = svg, *end, *a;

        snprintf(key, sizeof(key), "class=\"%s", cls);
        while ((p = strstr(p, key))) {
                char val[32];

                end = strchr(p, '>');
                snprintf(val, sizeof(val), "data-value=\"%u\"", value);
                a = strstr(p, val);
                if (a && a < end) {
                        snprintf(at, sizeof(at), " %s=\"", name);
                        a = strstr(p, at);
                        return a && a < end ? strtod(a + strlen(at), NULL) : NAN;
                }
                p = end;
        }
        return NAN;
}

static unsigned count(const char *svg, const char *needle)
{
        unsigned n = 0;

        for (const char *p = svg; (p = strstr(p, needle)); p++)
                n++;
        return n;
}

static void test_plot_points(void)
{
        struct tune t;
        char *svg;
        double y_target, y_held, y_low;

        lab_run(&t);
        CU_ASSERT(!t.baseline.held && t.trials[1].held && t.trials[3].held && !t.trials[2].held);
        svg = tune_plot_svg(&t);
        CU_ASSERT_FATAL(svg != NULL);
        CU_ASSERT_EQUAL(count(svg, "class=\"share"), 5);                /* the baseline and four trials */
        CU_ASSERT_EQUAL(count(svg, "class=\"share held\""), 2);
        CU_ASSERT_EQUAL(count(svg, "class=\"share baseline"), 1);
        CU_ASSERT_EQUAL(count(svg, "class=\"pause\""), 4);             /* the baseline read no pauses */
        CU_ASSERT_EQUAL(count(svg, "class=\"chosen\" data-trial=\"4\" data-value=\"34000\""), 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(svg, "class=\"target\" data-share=\"0.950\""));
        /* x follows log(value), y the share: higher share is higher up (smaller y) */
        CU_ASSERT(attr(svg, "share", 12000, "cx") < attr(svg, "share", 24000, "cx"));
        CU_ASSERT(attr(svg, "share", 24000, "cx") < attr(svg, "share", 48000, "cx"));
        CU_ASSERT(fabs((attr(svg, "share", 24000, "cx") - attr(svg, "share", 12000, "cx")) -
                       (attr(svg, "share", 48000, "cx") - attr(svg, "share", 24000, "cx"))) < 0.2);
        y_held = attr(svg, "share", 48000, "cy");
        y_low = attr(svg, "share", 12000, "cy");
        y_target = attr(svg, "chosen", 34000, "cy");
        CU_ASSERT(y_held < y_target && y_target < y_low);
        CU_ASSERT(fabs(attr(svg, "chosen", 34000, "cx") - attr(svg, "share", 34000, "cx")) < 0.01);
        CU_ASSERT(attr(svg, "pause", 48000, "y") < attr(svg, "pause", 12000, "y"));   /* 10/s above 0/s */
        free(svg);
}

/*
 * The axes read: a run with at most one pause frame a second still gets distinct
 * right-axis ticks (they once read "0 0 0 1 1"); the baseline's runs are the noise
 * band; doctor's ECN floor at the ceiling's rate is drawn. NETTUNE_TUNE_SVG=FILE
 * keeps the picture (tests/integration/svg-pictures.sh renders it).
 */
static void test_plot_axes(void)
{
        static const double base_runs[] = { 11.0, 11.5, 12.1 };
        const char *keep = getenv("NETTUNE_TUNE_SVG");
        char labels[SVG_TICKS_MAX][16];
        unsigned n = 0;
        struct tune t;
        const char *p;
        char *svg;

        lab_run(&t);
        t.ceiling_gbps = 19.1;
        t.baseline.m.gbps = 11.5;
        t.baseline.m.n_runs = 3;
        memcpy(t.baseline.m.run_gbps, base_runs, sizeof(base_runs));
        tune_trial_judge(&t.judge, t.ceiling_gbps, &t.baseline);
        for (unsigned i = 0; i < t.n_trials; i++) {
                t.trials[i].m.gbps *= 1000;
                t.trials[i].m.c.pauses_ps = i * 0.3;
                tune_trial_judge(&t.judge, t.ceiling_gbps, &t.trials[i]);
        }
        svg = tune_plot_svg(&t);
        CU_ASSERT_FATAL(svg != NULL);
        for (p = svg; (p = strstr(p, "class=\"ptick-label\"")) && n < SVG_TICKS_MAX; p++) {
                const char *gt = strchr(p, '>');

                CU_ASSERT_FATAL(gt != NULL);
                snprintf(labels[n], sizeof(labels[n]), "%.*s", (int)strcspn(gt + 1, "<"), gt + 1);
                for (unsigned k = 0; k < n; k++)
                        CU_ASSERT_STRING_NOT_EQUAL(labels[k], labels[n]);
                n++;
        }
        CU_ASSERT(n >= 3);
        CU_ASSERT_PTR_NOT_NULL(strstr(svg, "class=\"noise\" data-share-lo=\"0.5759\" data-share-hi=\"0.6335\""));
        CU_ASSERT_PTR_NOT_NULL(strstr(svg, "class=\"doctor-floor\" data-bytes=\"28650\""));  /* 1500 B/Gb/s x 19.1 */
        CU_ASSERT_PTR_NOT_NULL(strstr(svg, "ECN min_threshold_bytes, bytes"));
        CU_ASSERT_PTR_NOT_NULL(strstr(svg, "<title id=\"title\">tune ecn: leaf1"));
        if (keep)
                CU_ASSERT_EQUAL(svg_write(keep, svg), 0);
        free(svg);
}

/* The report as JSON: every trial, and the chosen one the lowest that held. */
static void test_report_json(void)
{
        struct tune t;
        json_t *j;

        lab_run(&t);
        j = tune_to_json(&t);
        CU_ASSERT_FATAL(j != NULL);
        CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "trials")), 4);
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(j, "chosen"), "min_threshold_bytes")), 34000);
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(j, "chosen"), "max_threshold_bytes")), 340000);
        CU_ASSERT(json_is_true(json_object_get(j, "all_ended")));
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_object_get(j, "baseline"), "outcome")), "measured");
        json_decref(j);
}

/*
 * The verdict on a finished search: no ECN mark in any trial is no signal (the issue's
 * run wrote 3000/30000 after zero marks everywhere), a best value below doctor's floor
 * is no winner either; both say why and end as a failure (exit 3), nothing chosen.
 */
static void test_verdict_needs_signal_and_floor(void)
{
        struct doctor_params dp;
        struct tune t;

        doctor_params_default(&dp);
        /* the lab's run, 1 Gb/s ports, no round trip measured: floor 1500 B per Gb/s */
        lab_run(&t);
        t.port_mbps = 1000;
        for (unsigned i = 0; i < t.n_trials; i++)
                t.trials[i].m.c.marks_known = true;             /* counted, and zero everywhere */
        CU_ASSERT_FALSE(tune_verdict(&t, &dp));
        CU_ASSERT_TRUE(t.no_winner);
        CU_ASSERT_PTR_NULL(tune_chosen(&t));
        CU_ASSERT_PTR_NOT_NULL(strstr(t.end, "no signal"));
        /* marks in one trial: the signal is there, 34000 is above the 1500 B floor */
        lab_run(&t);
        t.port_mbps = 1000;
        t.trials[2].m.c.marks_known = true;
        t.trials[2].m.c.marks_ps = 120;
        CU_ASSERT_TRUE(tune_verdict(&t, &dp));
        CU_ASSERT_FALSE(t.no_winner);
        CU_ASSERT_EQUAL(tune_chosen(&t)->value, 34000);
        CU_ASSERT_EQUAL(t.floor_min, 1500);
        /* 100 Gb/s ports and a 12 us round trip the flows measured: floor 150000, 34000 is below it */
        t.port_mbps = 100000;
        t.trials[0].m.rtt_ms = 0.012;
        CU_ASSERT_DOUBLE_EQUAL(tune_rtt_ms(&t), 0.012, 1e-9);
        CU_ASSERT_FALSE(tune_verdict(&t, &dp));
        CU_ASSERT_EQUAL(t.floor_min, 150000);
        CU_ASSERT_TRUE(t.no_winner);
        CU_ASSERT_PTR_NULL(tune_chosen(&t));
        CU_ASSERT_PTR_NOT_NULL(strstr(t.end, "below doctor's floor 150000"));
        CU_ASSERT_PTR_NOT_NULL(strstr(t.end, "trial 4"));
        /* DCQCN: no queue of its own to read marks on, no ECN floor: the chosen trial stands */
        lab_run(&t);
        t.kind = TUNE_DCQCN;
        CU_ASSERT_TRUE(tune_verdict(&t, &dp));
        CU_ASSERT_FALSE(t.no_winner);
}

/* On a lossless queue the first trial (the ceiling) keeps marking on, at the search's highest thresholds. */
static void test_lossless_ceiling(void)
{
        struct tune t;
        struct tune_trial c;
        struct errbuf e = { 0 };
        char *doc = NULL;

        lab_run(&t);
        t.probability_pct = 100;                        /* kept from the queue */
        t.search.o.ceiling = POLICY_ECN_BYTES_MAX / t.max_ratio;
        tune_ceiling_trial(&t, &c, "ceiling");
        CU_ASSERT_TRUE(c.marking_off);                  /* a lossy queue: marking off */
        t.lossless = true;
        tune_ceiling_trial(&t, &c, "ceiling");
        CU_ASSERT_FALSE(c.marking_off);
        CU_ASSERT_EQUAL(c.value, POLICY_ECN_BYTES_MAX / t.max_ratio);
        CU_ASSERT_EQUAL(c.max_bytes, POLICY_ECN_BYTES_MAX / t.max_ratio * t.max_ratio);
        CU_ASSERT_EQUAL_FATAL(tune_policy(&t, &c, NULL, 0, "tune-leaf1-ceiling", &doc, &e), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(doc, "\"enabled\": true"));
        free(doc);
}

/* The winner as a policy: the queue's ECN on the switch-role node's ports, parsed back. */
static void test_policy_document(void)
{
        struct policy_label sel[] = { { "role", "switch" } };
        struct tune t;
        struct errbuf e = { 0 };
        char *doc = NULL;

        lab_run(&t);
        t.linux_switch = true;
        t.n_ports = 2;
        snprintf(t.ports[0], sizeof(t.ports[0]), "swp1");
        snprintf(t.ports[1], sizeof(t.ports[1]), "swp5");
        CU_ASSERT_EQUAL_FATAL(tune_policy(&t, &t.trials[3], sel, 1, "tune-leaf1-ecn", &doc, &e), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(doc, "\"min_threshold_bytes\": 34000"));
        CU_ASSERT_PTR_NOT_NULL(strstr(doc, "\"interfaces\": [\n      \"swp1\",\n      \"swp5\""));
        CU_ASSERT_PTR_NOT_NULL(strstr(doc, "\"role\": \"switch\""));
        free(doc);
        t.kind = TUNE_DCQCN;
        t.param = STATE_DCQCN_RP_AI_RATE;
        snprintf(t.interfaces, sizeof(t.interfaces), "ens*np*");
        t.trials[3].value = 40;
        CU_ASSERT_EQUAL_FATAL(tune_policy(&t, &t.trials[3], sel, 1, "tune-rp-ai-rate", &doc, &e), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(doc, "\"dcqcn\": {\n        \"rp_ai_rate\": 40"));
        free(doc);
}

int suite_tune(void)
{
        CU_pSuite s = CU_add_suite("tune", NULL, NULL);

        if (!s || !CU_add_test(s, "grow_then_bisect", test_grow_then_bisect) ||
            !CU_add_test(s, "start_holds_bisects_down", test_start_holds_bisects_down) ||
            !CU_add_test(s, "nothing_holds", test_nothing_holds) || !CU_add_test(s, "budget", test_budget) ||
            !CU_add_test(s, "noisy_lowest_held", test_noisy_lowest_held) ||
            !CU_add_test(s, "judge_only_pending", test_judge_only_pending) ||
            !CU_add_test(s, "verify_disproves_a_lucky_hold", test_verify_disproves_a_lucky_hold) ||
            !CU_add_test(s, "verify_out_of_budget", test_verify_out_of_budget) ||
            !CU_add_test(s, "trial_verdict", test_trial_verdict) || !CU_add_test(s, "plot_points", test_plot_points) ||
            !CU_add_test(s, "plot_axes", test_plot_axes) ||
            !CU_add_test(s, "report_json", test_report_json) || !CU_add_test(s, "policy_document", test_policy_document) ||
            !CU_add_test(s, "verdict_needs_signal_and_floor", test_verdict_needs_signal_and_floor) ||
            !CU_add_test(s, "lossless_ceiling", test_lossless_ceiling))
                return -1;
        return 0;
}
