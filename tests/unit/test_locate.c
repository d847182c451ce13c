/* SPDX-License-Identifier: MIT */
/* nettunectl locate: its schedule (bounded load per node) and its judgement (what explains the slow pairs). */
#include <CUnit/CUnit.h>
#include <math.h>

#include "controller/fabric/fabric.h"

#define NODES 16
#define RACKS 4

static const char *names[NODES], *racks[NODES];
static char name_buf[NODES][16], rack_buf[NODES][8];

/* 16 nodes, node i in rack (i % 4): the lab of tests/integration/ctl-racks.inc. */
static void lab(struct locate *l)
{
        struct locate_opts o;
        struct errbuf e = { .msg = "" };

        locate_opts_default(&o);
        for (unsigned i = 0; i < NODES; i++) {
                snprintf(name_buf[i], sizeof(name_buf[i]), "node%03u", i + 1);
                snprintf(rack_buf[i], sizeof(rack_buf[i]), "r%u", i % RACKS);
                names[i] = name_buf[i];
                racks[i] = rack_buf[i];
        }
        CU_ASSERT_EQUAL_FATAL(locate_init(l, &o, NODES, names, racks, NULL, &e), 0);
}

/* A round where every pair runs at 1 Gb/s but those f() slows to 0.01. */
static void round_of(struct locate *l, bool (*slow)(const struct locate *, const struct locate_pair *))
{
        for (unsigned k = 0; k < l->n_pairs; k++)
                locate_take(l, k, slow && slow(l, &l->pairs[k]) ? 0.01 : 1.0 + 0.01 * (k % 7), 0.05, NULL);
        locate_round_end(l);
}

static unsigned node_of(const char *name)
{
        return (unsigned)atoi(name + 4) - 1;
}

static void test_schedule(void)
{
        struct locate l;
        unsigned out[NODES] = { 0 }, in[NODES] = { 0 }, inside = 0, across = 0;

        lab(&l);
        CU_ASSERT_EQUAL(l.n_groups, RACKS);
        for (unsigned k = 0; k < l.n_pairs; k++) {
                const struct locate_pair *p = &l.pairs[k];

                out[p->src]++;
                in[p->dst]++;
                CU_ASSERT_NOT_EQUAL(p->src, p->dst);
                CU_ASSERT_EQUAL(p->cross, l.group[p->src] != l.group[p->dst]);
                inside += !p->cross;
                across += p->cross;
        }
        /* a ring inside each rack, a ring of racks each way: three out per node, bounded in */
        for (unsigned i = 0; i < NODES; i++) {
                CU_ASSERT_EQUAL(out[i], 3);
                CU_ASSERT(in[i] >= 1 && in[i] <= 1 + LOCATE_CROSS_IN_MAX);
        }
        CU_ASSERT_EQUAL(inside, NODES);
        CU_ASSERT_EQUAL(across, 2 * NODES);
        locate_free(&l);
}

static bool toward_node5(const struct locate *l, const struct locate_pair *p)
{
        return p->dst == 5;
}

static void test_node(void)
{
        struct locate l;

        lab(&l);
        round_of(&l, toward_node5);
        CU_ASSERT_TRUE(locate_needs_round(&l));
        round_of(&l, toward_node5);
        CU_ASSERT_FALSE(locate_needs_round(&l));
        locate_judge(&l);
        CU_ASSERT_EQUAL_FATAL(l.n_suspects, 1);
        CU_ASSERT_EQUAL(l.suspects[0].kind, LOCATE_NODE);
        CU_ASSERT_EQUAL(l.suspects[0].node, 5);
        CU_ASSERT_EQUAL(l.suspects[0].side, LOCATE_RX);
        CU_ASSERT_TRUE(l.suspects[0].high);
        CU_ASSERT(l.suspects[0].slow >= 2 && l.suspects[0].slow == l.suspects[0].of);
        CU_ASSERT(l.suspects[0].peers_gbps > 0.9 && l.suspects[0].gbps < 0.02);
        locate_free(&l);
}

static bool into_rack2(const struct locate *l, const struct locate_pair *p)
{
        return p->cross && l->group[p->dst] == 2;
}

static void test_uplink(void)
{
        struct locate l;
        json_t *j;

        lab(&l);
        round_of(&l, into_rack2);
        round_of(&l, into_rack2);
        locate_judge(&l);
        CU_ASSERT_EQUAL_FATAL(l.n_suspects, 1);
        CU_ASSERT_EQUAL(l.suspects[0].kind, LOCATE_UPLINK);
        CU_ASSERT_STRING_EQUAL(l.groups[l.suspects[0].group], "r2");
        CU_ASSERT_EQUAL(l.suspects[0].side, LOCATE_RX);
        /* the report names it with its evidence */
        j = locate_to_json(&l);
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_array_get(json_object_get(j, "suspects"), 0),
                                                                 "name")), "r2");
        CU_ASSERT_TRUE(json_is_false(json_object_get(j, "clean")));
        json_decref(j);
        locate_free(&l);
}

/* Noise: one pair slow in the first round only is never named; one pair slow twice is a path. */
static unsigned noisy;
static bool one_pair(const struct locate *l, const struct locate_pair *p)
{
        return (unsigned)(p - l->pairs) == noisy;
}

static void test_noise_and_path(void)
{
        struct locate l;

        lab(&l);
        noisy = 7;
        round_of(&l, one_pair);
        CU_ASSERT_TRUE(locate_needs_round(&l));
        round_of(&l, NULL);
        locate_judge(&l);
        CU_ASSERT_EQUAL(l.n_suspects, 0);
        CU_ASSERT_EQUAL(l.n_slow, 0);
        locate_free(&l);

        lab(&l);
        round_of(&l, one_pair);
        round_of(&l, one_pair);
        locate_judge(&l);
        CU_ASSERT_EQUAL_FATAL(l.n_suspects, 1);
        CU_ASSERT_EQUAL(l.suspects[0].kind, LOCATE_PATH);
        CU_ASSERT_FALSE(l.suspects[0].high);
        CU_ASSERT_EQUAL(l.suspects[0].node, l.pairs[7].src);
        CU_ASSERT_EQUAL(l.suspects[0].peer, l.pairs[7].dst);
        locate_free(&l);
}

/* A clean fleet: one round, nothing named; refusals name what is wrong. */
static void test_clean_and_refusals(void)
{
        struct locate l;
        struct locate_opts o;
        struct errbuf e = { .msg = "" };
        const char *bad[NODES];

        lab(&l);
        round_of(&l, NULL);
        CU_ASSERT_FALSE(locate_needs_round(&l));
        locate_judge(&l);
        CU_ASSERT_EQUAL(l.n_suspects, 0);
        CU_ASSERT(l.bytes > 0);
        locate_free(&l);

        locate_opts_default(&o);
        memcpy(bad, racks, sizeof(bad));
        bad[9] = "";
        CU_ASSERT_EQUAL(locate_init(&l, &o, NODES, names, bad, NULL, &e), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "node 'node010' has no label 'rack'"));
        /* one node per rack, each in a plane of its own: no pair */
        {
                const char *planes[2] = { "a", "b" };

                CU_ASSERT_EQUAL(locate_init(&l, &o, 2, names, racks, planes, &e), -EINVAL);
                CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "no pair of nodes to probe"));
        }
        CU_ASSERT_EQUAL(node_of("node010"), 9);
}

int suite_locate(void);
int suite_locate(void)
{
        CU_pSuite s = CU_add_suite("locate", NULL, NULL);

        if (!s || !CU_add_test(s, "schedule", test_schedule) || !CU_add_test(s, "node", test_node) ||
            !CU_add_test(s, "uplink", test_uplink) || !CU_add_test(s, "noise_and_path", test_noise_and_path) ||
            !CU_add_test(s, "clean_and_refusals", test_clean_and_refusals))
                return -1;
        return 0;
}
