/* SPDX-License-Identifier: MIT */
/*
 * Wave planning: canary (by order or by label), N vs P% wave sizes, waves within the
 * groups of a label, failure budgets (of the rollout, or per group), halting, and how
 * long an apply may take.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>

#include "controller/rollout/rollout.h"

#define NODES_MAX 40

/*
 * n nodes "n00".. with labels: rack r(i / per_rack) when per_rack > 0, and
 * canary=true on the nodes listed in canaries (a string of 'x' and '.').
 */
static const struct inventory_node *const *fleet(unsigned n, unsigned per_rack, const char *canaries)
{
        static struct inventory_node nodes[NODES_MAX];
        static struct policy_label labels[NODES_MAX][3];
        static const struct inventory_node *ptrs[NODES_MAX];

        for (unsigned i = 0; i < n && i < NODES_MAX; i++) {
                struct inventory_node *x = &nodes[i];

                *x = (struct inventory_node) { .n_labels = 0, .labels = labels[i] };
                snprintf(x->name, sizeof(x->name), "n%02u", i);
                snprintf(x->url, sizeof(x->url), "https://10.0.0.%u:7440", i + 1);
                snprintf(x->labels[x->n_labels].key, POLICY_LABEL_MAX, "role");
                snprintf(x->labels[x->n_labels++].value, POLICY_LABEL_MAX, "gpu");
                if (per_rack) {
                        snprintf(x->labels[x->n_labels].key, POLICY_LABEL_MAX, "rack");
                        snprintf(x->labels[x->n_labels++].value, POLICY_LABEL_MAX, "r%u", i / per_rack);
                }
                if (canaries && i < strlen(canaries) && canaries[i] == 'x') {
                        snprintf(x->labels[x->n_labels].key, POLICY_LABEL_MAX, "canary");
                        snprintf(x->labels[x->n_labels++].value, POLICY_LABEL_MAX, "true");
                }
                ptrs[i] = x;
        }
        return ptrs;
}

static char groups[NODES_MAX][STORE_LABEL_MAX];

static unsigned plan(unsigned canary, const char *size, unsigned n, unsigned *waves)
{
        struct rollout_opts o;

        rollout_opts_defaults(&o);
        o.canary = canary;
        CU_ASSERT_EQUAL_FATAL(rollout_count_parse(size, &o.wave_size), 0);
        return rollout_plan_nodes(&o, fleet(n, 0, NULL), n, waves, groups);
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

/* A record of n nodes in racks of per_rack, planned with o; node i in state states[i] ('c' committed, 'f' failed). */
static struct rollout_rec *rec(const struct rollout_opts *o, unsigned n, unsigned per_rack, const char *states)
{
        struct rollout_rec *r = rollout_rec_new("apply", "p", "{}", NULL, o, fleet(n, per_rack, NULL), n);

        for (unsigned i = 0; r && states && i < n && states[i]; i++)
                r->nodes[i].state = states[i] == 'f' ? RNODE_FAILED : states[i] == 'c' ? RNODE_COMMITTED :
                                    RNODE_PLANNED;
        return r;
}

static void test_over_budget(void)
{
        struct rollout_opts o;
        struct rollout_rec *r;

        rollout_opts_defaults(&o);
        o.wave_size = (struct rollout_count) { 5, false };
        r = rec(&o, 20, 0, "f");
        CU_ASSERT_TRUE(rollout_over_budget(r, 0));              /* canary: any failure */
        rollout_rec_free(r);
        r = rec(&o, 20, 0, "c");
        CU_ASSERT_FALSE(rollout_over_budget(r, 0));
        rollout_rec_free(r);
        r = rec(&o, 20, 0, "cf");
        CU_ASSERT_TRUE(rollout_over_budget(r, 1));              /* default budget 0 */
        rollout_rec_free(r);
        o.max_unavailable = (struct rollout_count) { 10, true };     /* 2 of 20 */
        r = rec(&o, 20, 0, "ccfcccf");
        CU_ASSERT_FALSE(rollout_over_budget(r, 1));
        rollout_rec_free(r);
        r = rec(&o, 20, 0, "cfcccfcccccf");
        CU_ASSERT_TRUE(rollout_over_budget(r, 2));              /* counts every wave */
        rollout_rec_free(r);
        r = rec(&o, 20, 0, "f");
        CU_ASSERT_TRUE(rollout_over_budget(r, 0));              /* the canary ignores the budget */
        rollout_rec_free(r);
        o.canary = 0;
        r = rec(&o, 20, 0, "f");
        CU_ASSERT_FALSE(rollout_over_budget(r, 0));             /* no canary: wave 1 is within the budget */
        rollout_rec_free(r);
}

/* --max-unavailable per group: each rack's failures against its own share. */
static void test_over_budget_per_group(void)
{
        struct rollout_opts o;
        struct rollout_rec *r;

        rollout_opts_defaults(&o);
        o.canary = 0;
        snprintf(o.wave_by, sizeof(o.wave_by), "rack");
        o.max_unavailable = (struct rollout_count) { 1, false };
        /* racks of 4: one failure in each of r0 and r1 is within budget... */
        r = rec(&o, 12, 4, "fcccfccc");
        CU_ASSERT_FALSE(rollout_over_budget(r, 1));
        rollout_rec_free(r);
        /* ...two in one rack are not, even though the rollout as a whole tolerated 1 x 3 racks */
        r = rec(&o, 12, 4, "cccccffc");
        CU_ASSERT_TRUE(rollout_over_budget(r, 1));
        rollout_rec_free(r);
        /* a percentage is of each group: 25% of a rack of 4 tolerates 1, of a rack of 3 none */
        o.max_unavailable = (struct rollout_count) { 25, true };
        r = rec(&o, 7, 4, "cccfccf");
        CU_ASSERT_TRUE(rollout_over_budget(r, 1));              /* r1 has 3 nodes: budget 0 */
        rollout_rec_free(r);
        r = rec(&o, 7, 4, "cccfccc");
        CU_ASSERT_FALSE(rollout_over_budget(r, 0));
        rollout_rec_free(r);
}

/* The canary chosen by label: the example inventory's "canary": "true" node, wherever it is. */
static void test_plan_canary_selector(void)
{
        unsigned w[NODES_MAX];
        struct rollout_opts o;
        struct errbuf e = { 0 };
        unsigned n;

        rollout_opts_defaults(&o);
        o.wave_size = (struct rollout_count) { 4, false };
        snprintf(o.canary_selector, sizeof(o.canary_selector), "canary=true");
        n = rollout_plan_nodes(&o, fleet(9, 0, "....x...."), 9, w, groups);
        CU_ASSERT_EQUAL(n, 3);                                  /* n04 | n00-n03 | n05-n08 */
        CU_ASSERT_EQUAL(w[4], 0);
        CU_ASSERT_EQUAL(w[0], 1);
        CU_ASSERT_EQUAL(w[3], 1);
        CU_ASSERT_EQUAL(w[5], 2);
        CU_ASSERT_EQUAL(w[8], 2);
        /* several match: at most --canary of them (1 by default), in inventory order */
        n = rollout_plan_nodes(&o, fleet(9, 0, ".x.x.x..."), 9, w, groups);
        CU_ASSERT_EQUAL(w[1], 0);
        CU_ASSERT_EQUAL(w[3], 1);
        o.canary = 2;
        n = rollout_plan_nodes(&o, fleet(9, 0, ".x.x.x..."), 9, w, groups);
        CU_ASSERT_EQUAL(w[1], 0);
        CU_ASSERT_EQUAL(w[3], 0);
        CU_ASSERT_EQUAL(w[5], 1);
        CU_ASSERT_EQUAL(w[0], 1);
        /* every pair of the selector must match */
        snprintf(o.canary_selector, sizeof(o.canary_selector), "canary=true,role=gpu");
        CU_ASSERT_EQUAL(rollout_plan_check(&o, fleet(9, 0, "x........"), 9, &e), 0);
        snprintf(o.canary_selector, sizeof(o.canary_selector), "canary=true,role=cpu");
        CU_ASSERT_EQUAL(rollout_plan_check(&o, fleet(9, 0, "x........"), 9, &e), -EINVAL);
        CU_ASSERT_STRING_EQUAL(e.msg, "'canary=true,role=cpu' matches none of the 9 selected nodes");
        CU_ASSERT_STRING_EQUAL(e.where, "--canary-selector");
        /* with no match (an enforce rollout of a few drifted nodes) the first node is the canary */
        n = rollout_plan_nodes(&o, fleet(9, 0, NULL), 9, w, groups);
        CU_ASSERT_EQUAL(w[0], 0);
        CU_ASSERT_EQUAL(w[1], 0);                               /* --canary 2 */
        CU_ASSERT_EQUAL(w[2], 1);
        o.canary = 0;
        snprintf(o.canary_selector, sizeof(o.canary_selector), "canary=true");
        CU_ASSERT_EQUAL(rollout_plan_check(&o, fleet(9, 0, "x........"), 9, &e), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "--canary 0 asks for none"));
        /* the selector's syntax */
        CU_ASSERT_EQUAL(rollout_selector_parse("canary=true", &e), 0);
        CU_ASSERT_EQUAL(rollout_selector_parse("canary=true,rack=r1", &e), 0);
        CU_ASSERT_EQUAL(rollout_selector_parse("canary", &e), -EINVAL);
        CU_ASSERT_EQUAL(rollout_selector_parse("=true", &e), -EINVAL);
        CU_ASSERT_EQUAL(rollout_selector_parse("a=b=c", &e), -EINVAL);
        CU_ASSERT_EQUAL(rollout_selector_parse(",", &e), -EINVAL);
        CU_ASSERT_EQUAL(rollout_selector_parse("", &e), -EINVAL);
}

/* Waves by label: never two racks in one wave; a percentage of each rack. */
static void test_plan_wave_by(void)
{
        unsigned w[NODES_MAX];
        struct rollout_opts o;
        struct errbuf e = { 0 };
        unsigned n;

        rollout_opts_defaults(&o);
        snprintf(o.wave_by, sizeof(o.wave_by), "rack");
        o.wave_size = (struct rollout_count) { 50, true };
        /* 12 nodes in racks of 4: canary n00 | r0: n01-n02 | n03 | r1: 2 | 2 | r2: 2 | 2 */
        n = rollout_plan_nodes(&o, fleet(12, 4, NULL), 12, w, groups);
        CU_ASSERT_EQUAL(n, 7);
        CU_ASSERT_EQUAL(w[0], 0);
        CU_ASSERT_EQUAL(w[1], 1);
        CU_ASSERT_EQUAL(w[2], 1);
        CU_ASSERT_EQUAL(w[3], 2);
        CU_ASSERT_EQUAL(w[4], 3);
        CU_ASSERT_EQUAL(w[6], 4);
        CU_ASSERT_EQUAL(w[11], 6);
        CU_ASSERT_STRING_EQUAL(groups[0], "r0");
        CU_ASSERT_STRING_EQUAL(groups[11], "r2");
        for (unsigned i = 1; i < 12; i++)
                for (unsigned k = 1; k < 12; k++)
                        if (w[i] == w[k] && !streq(groups[i], groups[k]))
                                CU_FAIL("a wave mixes two racks");
        /* a whole rack per wave (100%), no canary */
        o.canary = 0;
        o.wave_size = (struct rollout_count) { 100, true };
        n = rollout_plan_nodes(&o, fleet(12, 4, NULL), 12, w, groups);
        CU_ASSERT_EQUAL(n, 3);
        CU_ASSERT_EQUAL(w[3], 0);
        CU_ASSERT_EQUAL(w[4], 1);
        CU_ASSERT_EQUAL(w[8], 2);
        /* groups follow the order of their first node: interleaved racks still one per wave */
        {
                const struct inventory_node *const *f = fleet(6, 1, NULL);     /* racks r0..r5 */
                const struct inventory_node *mixed[6] = { f[0], f[1], f[0], f[1], f[2], f[2] };

                n = rollout_plan_nodes(&o, mixed, 6, w, groups);
                CU_ASSERT_EQUAL(n, 3);
                CU_ASSERT_EQUAL(w[0], 0);
                CU_ASSERT_EQUAL(w[2], 0);
                CU_ASSERT_EQUAL(w[1], 1);
                CU_ASSERT_EQUAL(w[3], 1);
                CU_ASSERT_EQUAL(w[5], 2);
        }
        /* every node needs the label: the missing ones are named */
        CU_ASSERT_EQUAL(rollout_plan_check(&o, fleet(3, 0, NULL), 3, &e), -EINVAL);
        CU_ASSERT_STRING_EQUAL(e.where, "--wave-by");
        CU_ASSERT_STRING_EQUAL(e.msg, "3 selected nodes have no label 'rack' ('n00', 'n01', 'n02'): every node of "
                               "the rollout needs one");
        CU_ASSERT_EQUAL(rollout_plan_check(&o, fleet(12, 4, NULL), 12, &e), 0);
}

/* A rollout's end: state, exit code and message from its nodes. */
static void test_end_state(void)
{
        struct rollout_opts o;
        struct rollout_rec *r;

        rollout_opts_defaults(&o);
        o.wave_size = (struct rollout_count) { 5, false };
        r = rec(&o, 6, 0, "cccccc");
        rollout_end_state(r, false, "");
        CU_ASSERT_EQUAL(r->state, ROLLOUT_COMPLETED);
        CU_ASSERT_EQUAL(r->exit_code, 0);
        CU_ASSERT_STRING_EQUAL(r->message, "6 committed, 0 failed (budget 0)");
        rollout_rec_free(r);
        /* halted by a gate: rolled back, exit 1 */
        r = rec(&o, 6, 0, "cf");
        r->nodes[1].exit_code = 1;
        r->nodes[2].state = RNODE_CANCELLED;
        for (unsigned i = 3; i < 6; i++)
                r->nodes[i].state = RNODE_SKIPPED;
        rollout_end_state(r, true, "");
        CU_ASSERT_EQUAL(r->state, ROLLOUT_HALTED);
        CU_ASSERT_EQUAL(r->exit_code, 1);
        CU_ASSERT_STRING_EQUAL(r->message, "halted: 1 node failed (budget 0); 0 rolled back, 1 cancelled, 0 reverted, "
                               "3 skipped");
        rollout_rec_free(r);
        /* every failure a node's refusal of the policy and nothing changed: invalid, exit 2 */
        o.canary = 0;
        r = rec(&o, 3, 0, "f");
        r->nodes[0].exit_code = 2;
        r->nodes[1].state = r->nodes[2].state = RNODE_SKIPPED;
        rollout_end_state(r, true, "");
        CU_ASSERT_EQUAL(r->exit_code, 2);
        rollout_rec_free(r);
        /* the budget per group, in the message */
        snprintf(o.wave_by, sizeof(o.wave_by), "rack");
        o.max_unavailable = (struct rollout_count) { 1, false };
        r = rec(&o, 8, 4, "fcccfccc");
        rollout_end_state(r, false, "");
        CU_ASSERT_EQUAL(r->exit_code, 3);
        CU_ASSERT_STRING_EQUAL(r->message, "6 committed, 2 failed (budget 1 per 'rack')");
        rollout_rec_free(r);
}

/* An apply waits at least as long as the policy's own measurements and settle time. */
static void test_apply_timeout(void)
{
        static const char measured[] =
                "{\"apiVersion\":\"nettune/v1\",\"kind\":\"Policy\",\"metadata\":{\"name\":\"p\"},"
                "\"targets\":{\"interfaces\":[\"eth0\"]},\"spec\":{\"mtu\":9000},"
                "\"verify\":{\"probe\":\"tcp\",\"peer\":\"10.0.0.9:18515\",\"duration_ms\":3000,\"runs\":3,"
                "\"settle_ms\":5000,\"on_inconclusive\":\"fail\"}}";
        static const char unmeasured[] =
                "{\"apiVersion\":\"nettune/v1\",\"kind\":\"Policy\",\"metadata\":{\"name\":\"p\"},"
                "\"targets\":{\"interfaces\":[\"eth0\"]},\"spec\":{\"mtu\":9000},"
                "\"verify\":{\"probe\":\"none\",\"settle_ms\":5000}}";

        /* baseline and post: 2 x (3 x 3 s + 2 s), settle 5 s, devices 10 s */
        CU_ASSERT_EQUAL(rollout_policy_time_ms(measured), 2 * (9000 + 2000) + 5000 + 10000);
        CU_ASSERT_EQUAL(rollout_apply_timeout_ms(measured, 5), 37000);       /* --timeout 5 is raised */
        CU_ASSERT_EQUAL(rollout_apply_timeout_ms(measured, 60), 60000);      /* a longer one is kept */
        CU_ASSERT_EQUAL(rollout_policy_time_ms(unmeasured), 10000);          /* probe none: no settle either */
        CU_ASSERT_EQUAL(rollout_apply_timeout_ms("not json", 5), 10000);
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


/* Identical changes on numbered ports of one target collapse into ranges; the rest keep their lines. */
static void test_changes_text(void)
{
        json_t *ch = json_array();
        char *text, *buf = NULL;
        size_t size = 0;
        FILE *f;

        for (int p = 1; p <= 64; p++) {
                char key[64];

                if (p == 9)
                        continue;
                snprintf(key, sizeof(key), "ports.swp%d.trust", p);
                json_array_append_new(ch, json_pack("{s:s, s:s, s:s, s:s, s:s}", "target", "leaf1", "field", "trust",
                                                    "key", key, "from", "pcp", "to", "dscp"));
        }
        json_array_append_new(ch, json_pack("{s:s, s:s, s:s, s:s, s:s}", "target", "leaf1", "field", "trust", "key",
                                            "ports.swp9.trust", "from", "dscp", "to", "dscp2"));
        json_array_append_new(ch, json_pack("{s:s, s:s, s:s, s:i, s:i}", "target", "nt0", "field", "mtu", "key", "mtu",
                                            "from", 1500, "to", 9000));
        text = rollout_changes_text(ch, "  ");
        CU_ASSERT_STRING_EQUAL(text, "  leaf1 swp1-8,10-64: trust pcp -> dscp\n"
                                     "  leaf1 ports.swp9.trust: dscp -> dscp2\n"
                                     "  nt0 mtu: 1500 -> 9000\n");
        f = open_memstream(&buf, &size);
        rollout_diff_print(f, (const char *[]) { "a", "b", "c" }, (const char *[]) { text, NULL, text }, 3, 20);
        fclose(f);
        CU_ASSERT_PTR_NOT_NULL(strstr(buf, "a, c (2 nodes):\n  leaf1 swp1-8,10-64"));
        CU_ASSERT_PTR_NOT_NULL(strstr(buf, "1 node is already as the policy asks\n"));
        free(buf);
        free(text);
        json_decref(ch);
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
            !CU_add_test(s, "over_budget", test_over_budget) ||
            !CU_add_test(s, "over_budget_per_group", test_over_budget_per_group) ||
            !CU_add_test(s, "plan_canary_selector", test_plan_canary_selector) ||
            !CU_add_test(s, "plan_wave_by", test_plan_wave_by) ||
            !CU_add_test(s, "apply_timeout", test_apply_timeout) ||
            !CU_add_test(s, "end_state", test_end_state) ||
            !CU_add_test(s, "state_names", test_state_names) ||
            !CU_add_test(s, "changes_text", test_changes_text))
                return -1;
        return 0;
}
