/* SPDX-License-Identifier: MIT */
/* Wave planning: canary, N vs P% wave sizes, failure-budget arithmetic, halting. */
#include <CUnit/CUnit.h>

#include "controller/rollout/rollout.h"

static unsigned plan(unsigned canary, const char *size, unsigned n, unsigned *waves)
{
        struct rollout_opts o;

        rollout_opts_defaults(&o);
        o.canary = canary;
        CU_ASSERT_EQUAL_FATAL(rollout_count_parse(size, &o.wave_size), 0);
        return rollout_plan(&o, n, waves);
}

static void test_count_parse(void)
{
        struct rollout_count c;

        CU_ASSERT_EQUAL(rollout_count_parse("5", &c), 0);
        CU_ASSERT_EQUAL(c.value, 5);
        CU_ASSERT_FALSE(c.pct);
        CU_ASSERT_EQUAL(rollout_count_parse("25%", &c), 0);
        CU_ASSERT_EQUAL(c.value, 25);
        CU_ASSERT_TRUE(c.pct);
        CU_ASSERT_EQUAL(rollout_count_parse("0%", &c), 0);
        CU_ASSERT_EQUAL(rollout_count_parse("101%", &c), -ERANGE);
        CU_ASSERT_EQUAL(rollout_count_parse("-1", &c), -EINVAL);
        CU_ASSERT_EQUAL(rollout_count_parse("5x", &c), -EINVAL);
        CU_ASSERT_EQUAL(rollout_count_parse("%", &c), -EINVAL);
        CU_ASSERT_EQUAL(rollout_count_parse("", &c), -EINVAL);
        CU_ASSERT_EQUAL(rollout_count_parse("5%%", &c), -EINVAL);
        CU_ASSERT_EQUAL(rollout_count_parse("99999999999", &c), -ERANGE);
}

static void test_wave_size(void)
{
        CU_ASSERT_EQUAL(rollout_wave_size((struct rollout_count) { 25, true }, 20), 5);
        CU_ASSERT_EQUAL(rollout_wave_size((struct rollout_count) { 25, true }, 21), 6);    /* rounds up */
        CU_ASSERT_EQUAL(rollout_wave_size((struct rollout_count) { 1, true }, 20), 1);
        CU_ASSERT_EQUAL(rollout_wave_size((struct rollout_count) { 0, true }, 20), 1);     /* never 0 */
        CU_ASSERT_EQUAL(rollout_wave_size((struct rollout_count) { 100, true }, 7), 7);
        CU_ASSERT_EQUAL(rollout_wave_size((struct rollout_count) { 3, false }, 20), 3);
        CU_ASSERT_EQUAL(rollout_wave_size((struct rollout_count) { 0, false }, 20), 1);
}

static void test_budget(void)
{
        CU_ASSERT_EQUAL(rollout_budget((struct rollout_count) { 10, true }, 5), 0);        /* rounds down */
        CU_ASSERT_EQUAL(rollout_budget((struct rollout_count) { 10, true }, 20), 2);
        CU_ASSERT_EQUAL(rollout_budget((struct rollout_count) { 10, true }, 29), 2);
        CU_ASSERT_EQUAL(rollout_budget((struct rollout_count) { 100, true }, 29), 29);
        CU_ASSERT_EQUAL(rollout_budget((struct rollout_count) { 3, false }, 2), 3);
        CU_ASSERT_EQUAL(rollout_budget((struct rollout_count) { 0, false }, 200), 0);
}

static void test_plan_canary_then_waves(void)
{
        unsigned w[20];
        unsigned n = plan(1, "25%", 20, w);

        /* canary 1, then waves of 5 over the 19 left: 5,5,5,4 */
        CU_ASSERT_EQUAL(n, 5);
        CU_ASSERT_EQUAL(w[0], 0);
        CU_ASSERT_EQUAL(w[1], 1);
        CU_ASSERT_EQUAL(w[5], 1);
        CU_ASSERT_EQUAL(w[6], 2);
        CU_ASSERT_EQUAL(w[15], 3);
        CU_ASSERT_EQUAL(w[16], 4);
        CU_ASSERT_EQUAL(w[19], 4);
}

static void test_plan_absolute_and_edges(void)
{
        unsigned w[10];

        CU_ASSERT_EQUAL(plan(2, "3", 10, w), 4);           /* 2 | 3 | 3 | 2 */
        CU_ASSERT_EQUAL(w[1], 0);
        CU_ASSERT_EQUAL(w[2], 1);
        CU_ASSERT_EQUAL(w[9], 3);
        CU_ASSERT_EQUAL(plan(0, "4", 10, w), 3);           /* no canary: 4 | 4 | 2 */
        CU_ASSERT_EQUAL(w[0], 0);
        CU_ASSERT_EQUAL(w[4], 1);
        CU_ASSERT_EQUAL(plan(5, "1", 3, w), 1);            /* canary larger than the fleet */
        CU_ASSERT_EQUAL(w[2], 0);
        CU_ASSERT_EQUAL(plan(1, "100%", 1, w), 1);
        CU_ASSERT_EQUAL(plan(1, "100%", 0, w), 0);
        CU_ASSERT_EQUAL(plan(1, "100%", 4, w), 2);         /* canary | the rest */
}

static void test_should_halt(void)
{
        struct rollout_opts o;

        rollout_opts_defaults(&o);
        CU_ASSERT_TRUE(rollout_should_halt(&o, 20, true, 1, 1));     /* canary: any failure */
        CU_ASSERT_FALSE(rollout_should_halt(&o, 20, true, 0, 0));
        CU_ASSERT_TRUE(rollout_should_halt(&o, 20, false, 1, 1));    /* default budget 0 */
        o.max_unavailable = (struct rollout_count) { 10, true };     /* 2 of 20 */
        CU_ASSERT_FALSE(rollout_should_halt(&o, 20, false, 1, 2));
        CU_ASSERT_TRUE(rollout_should_halt(&o, 20, false, 1, 3));    /* counts every wave */
        CU_ASSERT_TRUE(rollout_should_halt(&o, 20, true, 1, 1));     /* canary ignores the budget */
        o.max_unavailable = (struct rollout_count) { 1, false };
        CU_ASSERT_FALSE(rollout_should_halt(&o, 20, false, 1, 1));
        CU_ASSERT_TRUE(rollout_should_halt(&o, 20, false, 2, 2));
}

static void test_state_names(void)
{
        for (int s = 0; s < RNODE_STATE_MAX; s++)
                CU_ASSERT_EQUAL(rnode_state_from_name(rnode_state_name(s)), s);
        for (int s = 0; s < ROLLOUT_STATE_MAX; s++)
                CU_ASSERT_EQUAL(rollout_state_from_name(rollout_state_name(s)), s);
        for (int s = 0; s < RWAVE_STATE_MAX; s++)
                CU_ASSERT_EQUAL(rwave_state_from_name(rwave_state_name(s)), s);
        CU_ASSERT_EQUAL(rnode_state_from_name("bogus"), -EINVAL);
        CU_ASSERT_FALSE(rnode_state_final(RNODE_PENDING));
        CU_ASSERT_TRUE(rnode_state_final(RNODE_COMMITTED));
}

int suite_rollout(void);
int suite_rollout(void)
{
        CU_pSuite s = CU_add_suite("rollout", NULL, NULL);

        if (!s ||
            !CU_add_test(s, "count_parse", test_count_parse) ||
            !CU_add_test(s, "wave_size", test_wave_size) ||
            !CU_add_test(s, "budget", test_budget) ||
            !CU_add_test(s, "plan_canary_then_waves", test_plan_canary_then_waves) ||
            !CU_add_test(s, "plan_absolute_and_edges", test_plan_absolute_and_edges) ||
            !CU_add_test(s, "should_halt", test_should_halt) ||
            !CU_add_test(s, "state_names", test_state_names))
                return -1;
        return 0;
}
