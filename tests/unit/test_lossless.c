/* SPDX-License-Identifier: MIT */
/*
 * The lossless class (policies/policy/lossless.h) over documents and live states: each
 * rule at its boundary, what a document leaves out against what a device does not
 * describe, the paths of declared and live fields, waivers, and state_merge (the
 * state a change leaves) that the plan judges.
 */
#include <CUnit/CUnit.h>

#include "policies/state/field.h"
#include "policies/policy/lossless.h"

/* A consistent lossless class on priority 3: DSCP 26 -> 3, 48 -> 6, ECN on queue 3, DCQCN on 3. */
static void lossless3(struct state *s)
{
        state_init(s);
        s->present = STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_DSCP_MAP) | STATE_BIT(STATE_FIELD_PFC) |
                     STATE_BIT(STATE_FIELD_ETS) | STATE_BIT(STATE_FIELD_ECN) | STATE_BIT(STATE_FIELD_HOST_ECN);
        s->trust = STATE_TRUST_DSCP;
        s->dscp_prio[26] = 3;
        s->dscp_prio[48] = 6;
        s->pfc_enabled = 1u << 3;
        for (unsigned i = 0; i < 8; i++) {
                s->ets.prio_tc[i] = (uint8_t)i;
                s->ets.tc_tsa[i] = STATE_TSA_STRICT;
        }
        s->ets.tc_tsa[0] = s->ets.tc_tsa[3] = STATE_TSA_ETS;
        s->ets.tc_bw_pct[0] = s->ets.tc_bw_pct[3] = 50;
        s->ecn.queues = 1u << 3;
        s->ecn.q[3] = (struct state_ecn_queue){ true, 150000, 1500000, 100 };
        s->host_ecn = (struct state_host_ecn){ .prios = 1u << 3, .rp_enabled = 1u << 3, .np_enabled = 1u << 3,
                                               .has_cnp = true, .cnp_dscp = 48, .cnp_prio = 6 };
}

static struct lossless_ctx doc(const struct state *s)
{
        return (struct lossless_ctx){ .document = true, .declared = s->present, .roce_dscp = -1 };
}

static struct lossless_ctx live(void)
{
        return (struct lossless_ctx){ .document = false, .declared = 0, .roce_dscp = -1 };
}

static unsigned codes(const struct lossless_report *r)
{
        unsigned bits = 0;

        for (unsigned i = 0; i < r->n; i++)
                bits |= LOSSLESS_BIT(r->v[i].code);
        return bits;
}

static void test_consistent(void)
{
        struct lossless_report r;
        struct lossless_ctx c;
        struct state s;

        lossless3(&s);
        s.present |= STATE_BIT(STATE_FIELD_ROCE_TOS);
        s.roce_tos = 106;
        c = doc(&s);
        lossless_check(&s, &c, &r);
        CU_ASSERT_EQUAL(r.n, 0);
        c = live();
        lossless_check(&s, &c, &r);
        CU_ASSERT_EQUAL(r.n, 0);
}

/* Each rule at its boundary, in a document. */
static void test_each_rule(void)
{
        struct lossless_report r;
        struct lossless_ctx c;
        struct state s;

        lossless3(&s);
        s.pfc_enabled = 1u << 4;                /* PFC on 4: nothing maps there; 3's queue marks, 4's does not */
        c = doc(&s);
        lossless_check(&s, &c, &r);
        CU_ASSERT_EQUAL(codes(&r), LOSSLESS_BIT(LOSSLESS_PFC_UNMAPPED) | LOSSLESS_BIT(LOSSLESS_ECN_QUEUE) |
                                   LOSSLESS_BIT(LOSSLESS_HOST_ECN));
        CU_ASSERT_STRING_EQUAL(r.v[0].where, "$.spec.pfc.priorities[0]");
        CU_ASSERT_STRING_EQUAL(r.v[0].key, "p4");
        CU_ASSERT_PTR_NOT_NULL(strstr(r.v[0].msg, "$.spec.dscp_to_priority.26 = 3"));

        lossless3(&s);
        s.present |= STATE_BIT(STATE_FIELD_ROCE_TOS);
        s.roce_tos = 192;                       /* DSCP 48: priority 6, lossy */
        c = doc(&s);
        lossless_check(&s, &c, &r);
        CU_ASSERT_EQUAL(codes(&r), LOSSLESS_BIT(LOSSLESS_ROCE_LOSSY));
        CU_ASSERT_STRING_EQUAL(r.v[0].where, "$.spec.dscp_to_priority.48");
        CU_ASSERT_PTR_NOT_NULL(strstr(r.v[0].msg, "$.spec.roce_tos 192 >> 2"));

        lossless3(&s);
        s.ecn.q[3].enabled = false;
        c = doc(&s);
        lossless_check(&s, &c, &r);
        CU_ASSERT_EQUAL(codes(&r), LOSSLESS_BIT(LOSSLESS_ECN_QUEUE));
        CU_ASSERT_STRING_EQUAL(r.v[0].where, "$.spec.ecn.enabled");

        lossless3(&s);
        s.host_ecn.cnp_prio = 5;
        c = doc(&s);
        lossless_check(&s, &c, &r);
        CU_ASSERT_EQUAL(codes(&r), LOSSLESS_BIT(LOSSLESS_CNP_DSCP));

        lossless3(&s);
        s.ets.tc_bw_pct[0] = 100;
        s.ets.tc_bw_pct[3] = 0;
        c = doc(&s);
        lossless_check(&s, &c, &r);
        CU_ASSERT_EQUAL(codes(&r), LOSSLESS_BIT(LOSSLESS_TC_BANDWIDTH));
        CU_ASSERT_STRING_EQUAL(r.v[0].where, "$.spec.ets.tc_bandwidth_pct[3]");
        s.ets.tc_tsa[3] = STATE_TSA_STRICT;     /* strict with 0%: served first, not starved */
        lossless_check(&s, &c, &r);
        CU_ASSERT_EQUAL(r.n, 0);

        /* verify.dscp stands for the RoCE DSCP only without roce_tos */
        lossless3(&s);
        c = doc(&s);
        c.roce_dscp = 48;
        c.roce_dscp_path = "$.verify.dscp";
        lossless_check(&s, &c, &r);
        CU_ASSERT_EQUAL(codes(&r), LOSSLESS_BIT(LOSSLESS_ROCE_LOSSY));
        CU_ASSERT_PTR_NOT_NULL(strstr(r.v[0].msg, "($.verify.dscp)"));
        s.present |= STATE_BIT(STATE_FIELD_ROCE_TOS);
        s.roce_tos = 104;
        lossless_check(&s, &c, &r);
        CU_ASSERT_EQUAL(r.n, 0);
}

/* A rule applies only where every field it relates is there; trust pcp leaves the DSCP rules out. */
static void test_fields_declared(void)
{
        struct lossless_report r;
        struct lossless_ctx c;
        struct state s;

        lossless3(&s);
        s.present = STATE_BIT(STATE_FIELD_ECN);         /* an ECN-only document: nothing to relate */
        s.ecn.q[3].enabled = false;
        c = doc(&s);
        lossless_check(&s, &c, &r);
        CU_ASSERT_EQUAL(r.n, 0);
        lossless3(&s);
        s.trust = STATE_TRUST_PCP;
        s.pfc_enabled = 1u << 4;
        s.ecn.queues |= 1u << 4;
        s.ecn.q[4] = s.ecn.q[3];
        s.host_ecn.prios = s.host_ecn.rp_enabled = s.host_ecn.np_enabled = 1u << 4;
        s.present |= STATE_BIT(STATE_FIELD_ROCE_TOS);
        s.roce_tos = 104;
        c = doc(&s);
        lossless_check(&s, &c, &r);
        CU_ASSERT_EQUAL(r.n, 0);
}

/* A document's unlisted entries are absent; a device's undescribed ones are unknown. */
static void test_document_vs_live(void)
{
        struct lossless_report r;
        struct lossless_ctx c;
        struct state s;

        lossless3(&s);
        s.host_ecn.prios = s.host_ecn.rp_enabled = s.host_ecn.np_enabled = 0;  /* mlx5 debugfs: CNP knobs only */
        c = doc(&s);
        lossless_check(&s, &c, &r);
        CU_ASSERT_EQUAL(codes(&r), LOSSLESS_BIT(LOSSLESS_HOST_ECN));
        c = live();
        lossless_check(&s, &c, &r);
        CU_ASSERT_EQUAL(r.n, 0);

        /* live: DCQCN on every priority (MLNX_OFED's default), PFC on 3 */
        lossless3(&s);
        s.host_ecn.prios = s.host_ecn.rp_enabled = s.host_ecn.np_enabled = 0xff;
        c = live();
        lossless_check(&s, &c, &r);
        CU_ASSERT_EQUAL(r.n, 7);
        CU_ASSERT(lossless_has(&r, LOSSLESS_HOST_ECN, "on0") && lossless_has(&r, LOSSLESS_HOST_ECN, "on7"));
        CU_ASSERT_FALSE(lossless_has(&r, LOSSLESS_HOST_ECN, "on3"));
        CU_ASSERT_STRING_EQUAL(r.v[0].where, "host_ecn.priorities (live: [0,1,2,3,4,5,6,7])");

        /* a map a device leaves partly to its defaults: the unmapped PFC priority cannot be judged */
        lossless3(&s);
        s.pfc_enabled = (1u << 3) | (1u << 4);
        s.ecn.queues = 0xff;
        for (unsigned q = 0; q < 8; q++)
                s.ecn.q[q] = (struct state_ecn_queue){ true, 150000, 1500000, 100 };
        s.host_ecn.prios = s.host_ecn.rp_enabled = s.host_ecn.np_enabled = (1u << 3) | (1u << 4);
        c = live();
        lossless_check(&s, &c, &r);
        CU_ASSERT_EQUAL(r.n, 0);
        /* ... unless the policy's map was programmed over a host NIC's DCB: every code point known */
        s.dscp_unlisted_zero = true;
        s.dcb.present = true;
        lossless_check(&s, &c, &r);
        CU_ASSERT_EQUAL(codes(&r), LOSSLESS_BIT(LOSSLESS_PFC_UNMAPPED));
        CU_ASSERT_STRING_EQUAL(r.v[0].where, "pfc.priorities (live: [3,4])");
}

static void test_waiver(void)
{
        struct lossless_report r;
        struct lossless_ctx c;
        struct state s;

        lossless3(&s);
        s.pfc_enabled = 0;                      /* lossy RoCE: ECN and DCQCN alone */
        s.present |= STATE_BIT(STATE_FIELD_ROCE_TOS);
        s.roce_tos = 106;
        c = doc(&s);
        lossless_check(&s, &c, &r);
        CU_ASSERT_EQUAL(codes(&r), LOSSLESS_BIT(LOSSLESS_ROCE_LOSSY) | LOSSLESS_BIT(LOSSLESS_HOST_ECN));
        c.allow = LOSSLESS_BIT(LOSSLESS_ROCE_LOSSY) | LOSSLESS_BIT(LOSSLESS_HOST_ECN);
        lossless_check(&s, &c, &r);
        CU_ASSERT_EQUAL(r.n, 0);
        CU_ASSERT_EQUAL(lossless_code_from_name("lossless_tc_no_bandwidth"), LOSSLESS_TC_BANDWIDTH);
        CU_ASSERT_EQUAL(lossless_code_from_name("roce_tos_lossy"), -EINVAL);
        CU_ASSERT_STRING_EQUAL(lossless_code_name(LOSSLESS_ECN_QUEUE), "ecn_queue_not_lossless");
}

/* The state a change leaves: ecn and host_ecn by their listed members, the rest whole. */
static void test_merge(void)
{
        struct state l, d, m;
        struct lossless_report rl, rm;
        struct lossless_ctx cl = live(), cm;

        lossless3(&l);
        l.ecn.queues = 0xff;
        for (unsigned q = 0; q < 8; q++)
                l.ecn.q[q] = (struct state_ecn_queue){ q == 3, q == 3 ? 150000 : 0, q == 3 ? 1500000 : 0, 100 };
        state_init(&d);
        d.present = STATE_BIT(STATE_FIELD_ECN);
        d.ecn.queues = 1u << 4;
        d.ecn.q[4] = (struct state_ecn_queue){ true, 200000, 2000000, 50 };
        m = l;
        state_merge(&m, &d, d.present);
        CU_ASSERT_EQUAL(m.ecn.queues, 0xff);
        CU_ASSERT(m.ecn.q[3].enabled && m.ecn.q[4].enabled && !m.ecn.q[5].enabled);
        CU_ASSERT_EQUAL(m.ecn.q[4].min_bytes, 200000);
        cm = (struct lossless_ctx){ .declared = d.present, .roce_dscp = -1 };
        lossless_check(&l, &cl, &rl);
        lossless_check(&m, &cm, &rm);
        CU_ASSERT_EQUAL(rl.n, 0);
        CU_ASSERT_EQUAL(rm.n, 0);               /* another queue marks too: the class holds */
        d.ecn.queues = 1u << 3;
        d.ecn.q[3] = (struct state_ecn_queue){ false, 0, 0, 0 };
        m = l;
        state_merge(&m, &d, d.present);
        lossless_check(&m, &cm, &rm);
        CU_ASSERT_EQUAL(codes(&rm), LOSSLESS_BIT(LOSSLESS_ECN_QUEUE));
        CU_ASSERT_STRING_EQUAL(rm.v[0].where, "$.spec.ecn.enabled");
        CU_ASSERT_PTR_NOT_NULL(strstr(rm.v[0].msg, "pfc.priorities (live: [3])"));

        /* host_ecn: the listed priority's enables, the CNP marking; the other priorities stay */
        l.host_ecn = (struct state_host_ecn){ .prios = 0xff, .rp_enabled = 0x08, .np_enabled = 0x08 };
        state_init(&d);
        d.present = STATE_BIT(STATE_FIELD_HOST_ECN);
        d.host_ecn = (struct state_host_ecn){ .prios = 0x10, .rp_enabled = 0x10, .np_enabled = 0,
                                              .has_cnp = true, .cnp_dscp = 48, .cnp_prio = 6 };
        m = l;
        state_merge(&m, &d, d.present);
        CU_ASSERT_EQUAL(m.host_ecn.prios, 0xff);
        CU_ASSERT_EQUAL(m.host_ecn.rp_enabled, 0x18);
        CU_ASSERT_EQUAL(m.host_ecn.np_enabled, 0x08);
        CU_ASSERT(m.host_ecn.has_cnp && m.host_ecn.cnp_prio == 6);
}

int suite_lossless(void)
{
        CU_pSuite s = CU_add_suite("lossless", NULL, NULL);

        if (!s || !CU_add_test(s, "consistent", test_consistent) || !CU_add_test(s, "each_rule", test_each_rule) ||
            !CU_add_test(s, "fields_declared", test_fields_declared) ||
            !CU_add_test(s, "document_vs_live", test_document_vs_live) || !CU_add_test(s, "waiver", test_waiver) ||
            !CU_add_test(s, "merge", test_merge))
                return -1;
        return 0;
}
