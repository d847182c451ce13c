/* SPDX-License-Identifier: MIT */
/* Policy parser and validator: valid documents, error paths and texts, canonical round trip. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "policies/json/jsonv.h"
#include "policies/policy/policy.h"

#define HEAD "{\"apiVersion\":\"nettune/v1\",\"kind\":\"Policy\",\"metadata\":{\"name\":\"t\"}," \
             "\"targets\":{\"interfaces\":[\"eth0\"]},"

static const char full_policy[] =
        "{\"apiVersion\":\"nettune/v1\",\"kind\":\"Policy\","
        "\"metadata\":{\"name\":\"roce-lossless\",\"labels\":{\"team\":\"fabric\"}},"
        "\"selector\":{\"role\":\"gpu\"},"
        "\"targets\":{\"interfaces\":[\"ens1f0np0\",\"ens2*\"],\"switches\":[\"leaf*\"]},"
        "\"spec\":{\"mtu\":9000,\"trust\":\"dscp\",\"dscp_to_priority\":{\"26\":3,\"48\":6},"
        "\"pfc\":{\"priorities\":[3],\"cable_length_m\":40,\"watchdog\":{\"detection_ms\":200,\"restoration_ms\":400,\"action\":\"drop\"},"
        "\"nic_stall_timeout_ms\":\"auto\"},"
        "\"buffers\":{\"prio_to_buffer\":[0,0,0,1,0,0,0,0],"
        "\"buffer_size_bytes\":[130944,65536,0,0,0,0,0,0]},"
        "\"ets\":{\"priority_to_tc\":[0,1,2,3,4,5,6,7],\"tc_bandwidth_pct\":[50,0,0,50,0,0,0,0],"
        "\"tc_tsa\":[\"ets\",\"strict\",\"strict\",\"ets\",\"strict\",\"strict\",\"strict\",\"strict\"]},"
        "\"ecn\":{\"queues\":[3,4],\"min_threshold_bytes\":150000,\"max_threshold_bytes\":1500000,"
        "\"mark_probability_pct\":100},"
        "\"host_ecn\":{\"priorities\":[3],\"reaction_point\":true,\"notification_point\":true,"
        "\"cnp_dscp\":48,\"cnp_priority\":6},\"roce_tos\":106,\"nccl\":{\"ib_tc\":\"auto\",\"ib_sl\":3}},"
        "\"verify\":{\"probe\":\"auto\",\"peer\":\"10.0.0.2:18515\",\"duration_ms\":3000,"
        "\"message_size\":65536,\"max_regression_pct\":20,\"min_gbps\":1.5,\"settle_ms\":3000},"
        "\"commit\":{\"confirm_timeout_s\":60}}";

static struct policy *parse_ok(const char *doc)
{
        struct policy *p = NULL;
        struct errbuf e = { .where = "" };
        int r = policy_parse_buffer(doc, strlen(doc), "t.json", &p, &e);

        if (r < 0)
                fprintf(stderr, "unexpected error: %s: %s\n", e.where, e.msg);
        CU_ASSERT_EQUAL(r, 0);
        return p;
}

/* Parse must fail with exactly this "where: msg" and leave *ret untouched. */
static void parse_bad(const char *doc, const char *expect)
{
        struct policy *sentinel = (struct policy *)&sentinel, *p = sentinel;
        struct errbuf e = { .where = "" };
        char buf[ERRBUF_STR_MAX];
        int r = policy_parse_buffer(doc, strlen(doc), "t.json", &p, &e);

        CU_ASSERT_EQUAL(r, -EINVAL);
        CU_ASSERT_PTR_EQUAL(p, sentinel);
        errbuf_str(&e, buf, sizeof(buf));
        if (strcmp(buf, expect))
                fprintf(stderr, "\n  got:    %s\n  wanted: %s\n", buf, expect);
        CU_ASSERT_STRING_EQUAL(buf, expect);
}

static void test_full(void)
{
        struct policy *p = parse_ok(full_policy);

        if (!p)
                return;
        CU_ASSERT_STRING_EQUAL(p->name, "roce-lossless");
        CU_ASSERT_EQUAL(p->n_labels, 1);
        CU_ASSERT_STRING_EQUAL(p->selector[0].key, "role");
        CU_ASSERT_EQUAL(p->n_interfaces, 2);
        CU_ASSERT_STRING_EQUAL(p->switches[0], "leaf*");
        CU_ASSERT_EQUAL(p->spec.present, STATE_ALL_FIELDS);
        CU_ASSERT_EQUAL(p->spec.cable_len_m, 40);
        /* nccl.ib_tc "auto" is the policy's roce_tos */
        CU_ASSERT(p->spec.nccl.tc_auto);
        CU_ASSERT_EQUAL(p->spec.nccl.value[STATE_NCCL_IB_TC], 106);
        CU_ASSERT_EQUAL(p->spec.nccl.value[STATE_NCCL_IB_SL], 3);
        CU_ASSERT_EQUAL(p->spec.nccl.has, 3);
        CU_ASSERT_EQUAL(p->spec.buffers.prio_buffer[3], 1);
        CU_ASSERT_EQUAL(p->spec.buffers.size[1], 65536);
        CU_ASSERT_EQUAL(p->spec.mtu, 9000);
        CU_ASSERT_EQUAL(p->spec.trust, STATE_TRUST_DSCP);
        CU_ASSERT_EQUAL(p->spec.dscp_prio[26], 3);
        CU_ASSERT_EQUAL(p->spec.dscp_prio[48], 6);
        CU_ASSERT_EQUAL(p->spec.dscp_prio[0], STATE_DSCP_UNMAPPED);
        CU_ASSERT_EQUAL(p->spec.pfc_enabled, 1u << 3);
        CU_ASSERT(p->spec.pfc_wd.enabled);
        CU_ASSERT_EQUAL(p->spec.pfc_wd.prios, 1u << 3);
        CU_ASSERT_EQUAL(p->spec.pfc_wd.has, STATE_WD_DETECTION | STATE_WD_RESTORATION | STATE_WD_ACTION);
        CU_ASSERT_EQUAL(p->spec.pfc_wd.restoration_ms, 400);
        CU_ASSERT_EQUAL(p->spec.nic_stall_ms, STATE_NIC_STALL_AUTO);
        CU_ASSERT_EQUAL(p->spec.ets.tc_bw_pct[3], 50);
        CU_ASSERT_EQUAL(p->spec.ets.tc_tsa[1], STATE_TSA_STRICT);
        CU_ASSERT_EQUAL(p->spec.ecn.queues, (1u << 3) | (1u << 4));
        CU_ASSERT(p->spec.ecn.q[4].enabled);
        CU_ASSERT_EQUAL(p->spec.ecn.q[4].max_bytes, 1500000);
        CU_ASSERT_EQUAL(p->spec.host_ecn.rp_enabled, 1u << 3);
        CU_ASSERT_EQUAL(p->spec.host_ecn.np_enabled, 1u << 3);
        CU_ASSERT(p->spec.host_ecn.has_cnp);
        CU_ASSERT_EQUAL(p->spec.host_ecn.cnp_dscp, 48);
        CU_ASSERT_EQUAL(p->spec.roce_tos, 106);
        CU_ASSERT(p->verify.present);
        CU_ASSERT_EQUAL(p->verify.probe, POLICY_PROBE_AUTO);
        CU_ASSERT_EQUAL(p->verify.runs, 3);
        CU_ASSERT_DOUBLE_EQUAL(p->verify.min_gbps, 1.5, 1e-9);
        CU_ASSERT_EQUAL(p->confirm_timeout_s, 60);
        policy_free(p);
}

static void test_minimal_defaults(void)
{
        struct policy *p = parse_ok(HEAD "\"spec\":{}}");

        if (!p)
                return;
        CU_ASSERT_EQUAL(p->spec.present, 0);
        CU_ASSERT_FALSE(p->verify.present);
        CU_ASSERT_EQUAL(p->verify.probe, POLICY_PROBE_NONE);
        CU_ASSERT_EQUAL(p->verify.duration_ms, 3000);
        CU_ASSERT_EQUAL(p->verify.on_baseline_failure, POLICY_BASELINE_FAIL);
        CU_ASSERT_EQUAL(p->confirm_timeout_s, 0);
        policy_free(p);

        p = parse_ok(HEAD "\"spec\":{\"pfc\":{\"priorities\":[]},\"ecn\":{\"queues\":[2],\"enabled\":false}}}");
        if (!p)
                return;
        CU_ASSERT_EQUAL(p->spec.present, STATE_BIT(STATE_FIELD_PFC) | STATE_BIT(STATE_FIELD_ECN));
        CU_ASSERT_EQUAL(p->spec.pfc_enabled, 0);
        CU_ASSERT_FALSE(p->spec.ecn.q[2].enabled);
        policy_free(p);
}

static void test_errors(void)
{
        static const struct { const char *doc, *expect; } cases[] = {
                { "", "t.json: document is empty" },
                { "{", "t.json:1:1: string or '}' expected near end of file" },
                { "[1]", "t.json: $: expected object, found array" },
                { HEAD "\"spec\":{\"mtu\":67}}", "t.json: $.spec.mtu: mtu 67 out of range 68-9978" },
                { HEAD "\"spec\":{\"mtu\":9979}}", "t.json: $.spec.mtu: mtu 9979 out of range 68-9978" },
                { HEAD "\"spec\":{\"mtu\":\"9000\"}}", "t.json: $.spec.mtu: expected integer, found string" },
                { HEAD "\"spec\":{\"mtu\":9000.5}}", "t.json: $.spec.mtu: expected integer, found number" },
                { HEAD "\"spec\":{\"foo\":1}}", "t.json: $.spec: unknown key 'foo'" },
                { HEAD "\"spec\":{\"pfc\":{\"priorities\":[3,9]}}}",
                  "t.json: $.spec.pfc.priorities[1]: priority 9 out of range 0-7" },
                { HEAD "\"spec\":{\"pfc\":{\"priorities\":[3,3]}}}",
                  "t.json: $.spec.pfc.priorities[1]: duplicate priority 3" },
                { HEAD "\"spec\":{\"dscp_to_priority\":{\"x\":1}}}",
                  "t.json: $.spec.dscp_to_priority: dscp key 'x' is not an integer 0-63" },
                { HEAD "\"spec\":{\"dscp_to_priority\":{\"64\":1}}}",
                  "t.json: $.spec.dscp_to_priority: dscp key '64' is not an integer 0-63" },
                { HEAD "\"spec\":{\"dscp_to_priority\":{\"26\":8}}}",
                  "t.json: $.spec.dscp_to_priority.26: priority 8 out of range 0-7" },
                { HEAD "\"spec\":{\"ets\":{\"priority_to_tc\":[0,1,2,3,4,5,6,7],"
                  "\"tc_bandwidth_pct\":[50,0,0,40,0,0,0,0],\"tc_tsa\":[\"ets\",\"strict\",\"strict\",\"ets\","
                  "\"strict\",\"strict\",\"strict\",\"strict\"]}}}",
                  "t.json: $.spec.ets.tc_bandwidth_pct: tc_bandwidth_pct of ets classes sums to 90, expected 100" },
                { HEAD "\"spec\":{\"ecn\":{\"queues\":[3],\"min_threshold_bytes\":2000,\"max_threshold_bytes\":1000}}}",
                  "t.json: $.spec.ecn: min_threshold_bytes 2000 is greater than max_threshold_bytes 1000" },
                { HEAD "\"spec\":{},\"verify\":{\"probe\":\"tcp\"}}",
                  "t.json: $.verify: missing required key 'peer' (probe 'tcp' needs a peer)" },
                { HEAD "\"spec\":{},\"verify\":{\"probe\":\"tcp\",\"peer\":\"h:0\"}}",
                  "t.json: $.verify.peer: peer port 0 out of range 1-65535" },
                { HEAD "\"spec\":{\"trust\":\"cos\"}}",
                  "t.json: $.spec.trust: trust 'cos' is not one of 'pcp', 'dscp'" },
                { "{\"apiVersion\":\"nettune/v2\"}",
                  "t.json: $.apiVersion: apiVersion 'nettune/v2' is not supported, expected 'nettune/v1'" },
                { "{\"apiVersion\":\"nettune/v1\",\"kind\":\"Policy\"}", "t.json: $: missing required key 'metadata'" },
                { "{\"a\":1,\"a\":2}", "t.json:1:10: $.a: duplicate key 'a'" },
                { HEAD "\"spec\":{\"pfc\":{\"priorities\":[1],\"priorities\":[2]}}}",
                  "t.json:1:145: $.spec.pfc.priorities: duplicate key 'priorities'" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
                parse_bad(cases[i].doc, cases[i].expect);
}

static void test_targets(void)
{
        struct policy *p;

        parse_bad("{\"apiVersion\":\"nettune/v1\",\"kind\":\"Policy\",\"metadata\":{\"name\":\"t\"},"
                  "\"targets\":{\"interfaces\":[\"abcdefghijklmnop\"]},\"spec\":{}}",
                  "t.json: $.targets.interfaces[0]: interface name 'abcdefghijklmnop' is 16 characters, longer than 15");
        parse_bad("{\"apiVersion\":\"nettune/v1\",\"kind\":\"Policy\",\"metadata\":{\"name\":\"t\"},"
                  "\"targets\":{\"interfaces\":[\"eth[0\"]},\"spec\":{}}",
                  "t.json: $.targets.interfaces[0]: interface name 'eth[0' has an unclosed '['");
        parse_bad("{\"apiVersion\":\"nettune/v1\",\"kind\":\"Policy\",\"metadata\":{\"name\":\"t\"},"
                  "\"targets\":{},\"spec\":{}}",
                  "t.json: $.targets: no interface and no switch given; a policy needs at least one target");
        p = parse_ok("{\"apiVersion\":\"nettune/v1\",\"kind\":\"Policy\",\"metadata\":{\"name\":\"t\"},"
                     "\"targets\":{\"interfaces\":[\"ens[12]f*\"],\"switches\":[\"leaf?\"]},\"spec\":{}}");
        if (!p)
                return;
        CU_ASSERT(policy_targets_interface(p, "ens1f0np0"));
        CU_ASSERT_FALSE(policy_targets_interface(p, "ens3f0"));
        CU_ASSERT(policy_targets_switch(p, "leaf1"));
        CU_ASSERT_FALSE(policy_targets_switch(p, "leaf12"));
        policy_free(p);
}

static void test_selects(void)
{
        struct policy *p = parse_ok(full_policy);
        struct policy_label gpu[] = { { "rack", "r1" }, { "role", "gpu" } };
        struct policy_label cpu[] = { { "role", "cpu" } };

        if (!p)
                return;
        CU_ASSERT(policy_selects(p, gpu, 2));
        CU_ASSERT_FALSE(policy_selects(p, cpu, 1));
        CU_ASSERT_FALSE(policy_selects(p, NULL, 0));
        p->n_selector = 0;
        CU_ASSERT(policy_selects(p, NULL, 0));
        policy_free(p);
}

static bool state_same(const struct state *a, const struct state *b)
{
        if (a->present != b->present || a->mtu != b->mtu || a->trust != b->trust ||
            memcmp(a->dscp_prio, b->dscp_prio, sizeof(a->dscp_prio)) || a->pfc_enabled != b->pfc_enabled ||
            memcmp(&a->ets, &b->ets, sizeof(a->ets)) || a->ecn.queues != b->ecn.queues)
                return false;
        for (unsigned q = 0; q < STATE_TC_COUNT; q++)
                if ((a->ecn.queues & (1u << q)) &&
                    (a->ecn.q[q].enabled != b->ecn.q[q].enabled || a->ecn.q[q].min_bytes != b->ecn.q[q].min_bytes ||
                     a->ecn.q[q].max_bytes != b->ecn.q[q].max_bytes ||
                     a->ecn.q[q].probability_pct != b->ecn.q[q].probability_pct))
                        return false;
        if (memcmp(&a->pfc_wd, &b->pfc_wd, sizeof(a->pfc_wd)) || a->nic_stall_ms != b->nic_stall_ms)
                return false;
        return a->host_ecn.prios == b->host_ecn.prios && a->host_ecn.rp_enabled == b->host_ecn.rp_enabled &&
               a->host_ecn.np_enabled == b->host_ecn.np_enabled && a->host_ecn.has_cnp == b->host_ecn.has_cnp &&
               a->host_ecn.cnp_dscp == b->host_ecn.cnp_dscp && a->host_ecn.cnp_prio == b->host_ecn.cnp_prio;
}

static bool policy_same(const struct policy *a, const struct policy *b)
{
        return streq(a->name, b->name) && a->n_labels == b->n_labels &&
               !memcmp(a->labels, b->labels, sizeof(a->labels[0]) * a->n_labels) &&
               a->n_selector == b->n_selector &&
               !memcmp(a->selector, b->selector, sizeof(a->selector[0]) * a->n_selector) &&
               a->n_interfaces == b->n_interfaces && a->n_switches == b->n_switches &&
               !memcmp(a->interfaces, b->interfaces, sizeof(a->interfaces[0]) * a->n_interfaces) &&
               !memcmp(a->switches, b->switches, sizeof(a->switches[0]) * a->n_switches) &&
               state_same(&a->spec, &b->spec) && a->verify.present == b->verify.present &&
               a->verify.probe == b->verify.probe && streq(a->verify.peer, b->verify.peer) &&
               a->verify.duration_ms == b->verify.duration_ms && a->verify.message_size == b->verify.message_size &&
               a->verify.max_regression_pct == b->verify.max_regression_pct &&
               a->verify.min_gbps == b->verify.min_gbps && a->verify.settle_ms == b->verify.settle_ms &&
               a->verify.runs == b->verify.runs && a->verify.on_baseline_failure == b->verify.on_baseline_failure &&
               a->verify.dscp == b->verify.dscp && a->verify.streams == b->verify.streams &&
               streq(a->verify.device, b->verify.device) && a->confirm_timeout_s == b->confirm_timeout_s;
}

static void round_trip(const char *doc)
{
        struct policy *a = parse_ok(doc), *b = NULL;
        char *s1 = a ? policy_to_json(a) : NULL, *s2 = NULL;

        CU_ASSERT_PTR_NOT_NULL_FATAL(s1);
        b = parse_ok(s1);
        CU_ASSERT_PTR_NOT_NULL_FATAL(b);
        CU_ASSERT(policy_same(a, b));
        s2 = policy_to_json(b);
        CU_ASSERT_STRING_EQUAL(s1, s2);
        free(s1);
        free(s2);
        policy_free(a);
        policy_free(b);
}

static void test_round_trip(void)
{
        round_trip(full_policy);
        round_trip(HEAD "\"spec\":{}}");
        round_trip(HEAD "\"spec\":{\"ecn\":{\"queues\":[0,7],\"enabled\":false,\"min_threshold_bytes\":5}}}");
        round_trip(HEAD "\"spec\":{\"host_ecn\":{\"priorities\":[1,2],\"reaction_point\":false}},"
               "\"verify\":{\"probe\":\"none\",\"runs\":15,\"on_baseline_failure\":\"skip_gate\",\"min_gbps\":0.1}}");
        round_trip(HEAD "\"spec\":{},\"verify\":{\"peer\":\"10.0.0.2:1\",\"dscp\":0,\"streams\":16,"
               "\"device\":\"ens1f0np0\"}}");
}

/*
 * spec.pfc.watchdog and spec.pfc.nic_stall_timeout_ms: the members given are managed, the
 * others not; the watchdog covers the pfc priorities; the canonical form keeps them apart.
 */
static void test_pfc_storm(void)
{
        struct policy *p = parse_ok(HEAD "\"spec\":{\"pfc\":{\"priorities\":[3,4],\"watchdog\":"
                                    "{\"detection_ms\":300,\"poll_interval_ms\":100},\"nic_stall_timeout_ms\":0}}}");
        char *s = p ? policy_to_json(p) : NULL;

        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        CU_ASSERT_EQUAL(p->spec.present, STATE_BIT(STATE_FIELD_PFC) | STATE_BIT(STATE_FIELD_PFC_WATCHDOG) |
                                         STATE_BIT(STATE_FIELD_NIC_STALL));
        CU_ASSERT_EQUAL(p->spec.pfc_wd.prios, (1u << 3) | (1u << 4));
        CU_ASSERT_EQUAL(p->spec.pfc_wd.has, STATE_WD_DETECTION | STATE_WD_POLL);
        CU_ASSERT_EQUAL(p->spec.nic_stall_ms, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"detection_ms\": 300"));
        CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"enabled\": true"));
        CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"poll_interval_ms\": 100"));
        CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"nic_stall_timeout_ms\": 0"));
        CU_ASSERT_PTR_NULL(strstr(s, "\"action\""));
        free(s);
        policy_free(p);
        round_trip(HEAD "\"spec\":{\"pfc\":{\"priorities\":[3],\"watchdog\":{\"enabled\":false}}}}");
        round_trip(HEAD "\"spec\":{\"pfc\":{\"priorities\":[],\"nic_stall_timeout_ms\":8000}}}");
        round_trip(HEAD "\"spec\":{\"pfc\":{\"priorities\":[3],\"watchdog\":{\"detection_ms\":10,"
               "\"restoration_ms\":60000,\"action\":\"alert\",\"poll_interval_ms\":5}}}}");
        parse_bad(HEAD "\"spec\":{\"pfc\":{\"priorities\":[3],\"watchdog\":{\"detection_ms\":60001}}}}",
                  "t.json: $.spec.pfc.watchdog.detection_ms: detection_ms 60001 out of range 10-60000");
        parse_bad(HEAD "\"spec\":{\"pfc\":{\"priorities\":[3],\"watchdog\":{\"detection_ms\":100,"
                  "\"poll_interval_ms\":4}}}}",
                  "t.json: $.spec.pfc.watchdog.poll_interval_ms: poll_interval_ms 4 out of range 5-30000");
        parse_bad(HEAD "\"spec\":{\"pfc\":{\"priorities\":[3],\"nic_stall_timeout_ms\":79}}}",
                  "t.json: $.spec.pfc.nic_stall_timeout_ms: nic_stall_timeout_ms 79 out of range 80-8000 (0 turns "
                  "stall prevention off, \"auto\" leaves the timeout to the driver)");
        parse_bad(HEAD "\"spec\":{\"pfc\":{\"priorities\":[3],\"nic_stall_timeout_ms\":8001}}}",
                  "t.json: $.spec.pfc.nic_stall_timeout_ms: nic_stall_timeout_ms 8001 out of range 80-8000 (0 turns "
                  "stall prevention off, \"auto\" leaves the timeout to the driver)");
}

/* verify.dscp absent means derived, never 0; streams defaults to 1 and is written out. */
static void test_verify_class(void)
{
        struct policy *p = parse_ok(HEAD "\"spec\":{},\"verify\":{\"peer\":\"10.0.0.2:1\"}}");
        char *s = p ? policy_to_json(p) : NULL;

        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        CU_ASSERT_EQUAL(p->verify.dscp, -1);
        CU_ASSERT_EQUAL(p->verify.streams, 1);
        CU_ASSERT_STRING_EQUAL(p->verify.device, "");
        CU_ASSERT_PTR_NULL(strstr(s, "\"dscp\""));
        CU_ASSERT_PTR_NULL(strstr(s, "\"device\""));
        CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"streams\": 1"));
        free(s);
        policy_free(p);
}

/* verify.fabric: defaults, the canonical form, a verify of the fabric alone, the class of its traffic. */
static void test_fabric(void)
{
        struct policy *p = parse_ok(HEAD "\"spec\":{},\"verify\":{\"fabric\":{\"pattern\":\"incast\"}}}");
        char *s = p ? policy_to_json(p) : NULL;
        int dscp, prio;

        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        CU_ASSERT_TRUE(p->verify.fabric.present);
        CU_ASSERT_EQUAL(p->verify.fabric.pattern, POLICY_FABRIC_INCAST);
        CU_ASSERT_EQUAL(p->verify.fabric.duration_ms, 2000);
        CU_ASSERT_EQUAL(p->verify.fabric.max_regression_pct, 20);
        CU_ASSERT_EQUAL(p->verify.fabric.mode, POLICY_PROBE_AUTO);
        CU_ASSERT_EQUAL(p->verify.fabric.neighbours, 0);
        CU_ASSERT_EQUAL(p->verify.fabric.dscp, -1);
        CU_ASSERT_EQUAL(p->verify.fabric.streams, 1);
        CU_ASSERT_EQUAL(p->verify.probe, POLICY_PROBE_NONE);    /* the fabric alone: nothing per node */
        CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"pattern\": \"incast\""));
        CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"neighbours\": 0"));
        CU_ASSERT_PTR_NULL(strstr(s, "\"dscp\""));
        policy_fabric_class(p, &dscp, &prio);
        CU_ASSERT(dscp == -1 && prio == -1);                    /* no map, no verify.dscp: the kernel's class */
        free(s);
        policy_free(p);
        round_trip(HEAD "\"spec\":{},\"verify\":{\"fabric\":{\"pattern\":\"ring\",\"duration_ms\":100,"
               "\"max_regression_pct\":0,\"mode\":\"verbs\",\"neighbours\":64,\"dscp\":63,\"streams\":16}}}");
        /* an explicit probe still needs its peer */
        parse_bad(HEAD "\"spec\":{},\"verify\":{\"probe\":\"tcp\",\"fabric\":{\"pattern\":\"ring\"}}}",
                  "t.json: $.verify: missing required key 'peer' (probe 'tcp' needs a peer)");

        /* the class: the policy's lossless DSCP, else verify.dscp, else verify.fabric.dscp wins */
        p = parse_ok(HEAD "\"spec\":{\"dscp_to_priority\":{\"26\":3,\"48\":6},\"pfc\":{\"priorities\":[3]}},"
                     "\"verify\":{\"fabric\":{\"pattern\":\"ring\"}}}");
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        policy_fabric_class(p, &dscp, &prio);
        CU_ASSERT(dscp == 26 && prio == 3);
        p->verify.dscp = 48;
        policy_fabric_class(p, &dscp, &prio);
        CU_ASSERT(dscp == 48 && prio == 6);
        p->verify.fabric.dscp = 10;
        policy_fabric_class(p, &dscp, &prio);
        CU_ASSERT(dscp == 10 && prio == -1);                    /* the map says nothing of DSCP 10 */
        policy_free(p);
}

static void test_canonical_text(void)
{
        struct policy *p = parse_ok(HEAD "\"spec\":{\"mtu\":1500}}");
        char *s = p ? policy_to_json(p) : NULL;

        CU_ASSERT_PTR_NOT_NULL_FATAL(s);
        /* sorted keys, defaults explicit */
        CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"commit\": {\n    \"confirm_timeout_s\": 0\n  }"));
        CU_ASSERT(strstr(s, "\"apiVersion\"") < strstr(s, "\"commit\""));
        CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"selector\": {}"));
        CU_ASSERT_PTR_NULL(strstr(s, "\"verify\""));
        free(s);
        policy_free(p);
}

static void test_limits(void)
{
        size_t len = POLICY_DOC_MAX + 1;
        char *big = malloc(len);
        struct policy *p = NULL;
        struct errbuf e = { .where = "" };

        CU_ASSERT_PTR_NOT_NULL_FATAL(big);
        memset(big, ' ', len);
        CU_ASSERT_EQUAL(policy_parse_buffer(big, len, "big.json", &p, &e), -EINVAL);
        CU_ASSERT_STRING_EQUAL(e.msg, "document is 1048577 bytes, larger than the limit of 1048576 bytes");
        CU_ASSERT_PTR_NULL(p);
        free(big);
        CU_ASSERT_EQUAL(policy_load_file("/nonexistent/p.json", &p, &e), -ENOENT);
        CU_ASSERT_STRING_EQUAL(e.where, "/nonexistent/p.json");
        CU_ASSERT_STRING_EQUAL(e.msg, "cannot read: no such file or directory");
}

static void test_jsonv_paths(void)
{
        struct errbuf e = { .where = "" };
        struct jsonv v;
        char q[80];

        jsonv_init(&v, NULL, &e);
        jsonv_push_key(&v, "spec");
        jsonv_push_key(&v, "a b");
        jsonv_push_index(&v, 3);
        CU_ASSERT_STRING_EQUAL(v.path, "$.spec['a b'][3]");
        jsonv_pop(&v);
        jsonv_pop(&v);
        CU_ASSERT_STRING_EQUAL(v.path, "$.spec");
        CU_ASSERT_EQUAL(jsonv_error(&v, "x %d", 1), -EINVAL);
        CU_ASSERT_STRING_EQUAL(e.where, "$.spec");
        CU_ASSERT_STRING_EQUAL(jsonv_quote("a\nb'", q, sizeof(q)), "a\\x0ab\\'");
}

/* A document read whole whatever its source: a file sized up front, a pipe grown as it comes, the limit kept. */
static void test_read_file(void)
{
        char path[] = "/tmp/nettune-read.XXXXXX", fifo[64], *buf = NULL, *big = malloc(20001);
        struct errbuf e = { 0 };
        size_t len = 0;
        int fd = mkstemp(path);
        pid_t pid;

        CU_ASSERT_PTR_NOT_NULL_FATAL(big);
        CU_ASSERT_FATAL(fd >= 0);
        for (int i = 0; i < 20000; i++)
                big[i] = (char)('a' + i % 26);
        big[20000] = '\0';
        CU_ASSERT_EQUAL(write(fd, big, 20000), 20000);
        close(fd);
        CU_ASSERT_EQUAL(jsonv_read_file(path, 1u << 20, &buf, &len, &e), 0);
        CU_ASSERT_EQUAL(len, 20000);
        CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
        CU_ASSERT_STRING_EQUAL(buf, big);
        free(buf);
        buf = NULL;
        CU_ASSERT_EQUAL(jsonv_read_file(path, 19999, &buf, &len, &e), -EINVAL);
        CU_ASSERT_PTR_NULL(buf);
        unlink(path);

        snprintf(fifo, sizeof(fifo), "%s.fifo", path);
        CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
        for (unsigned i = 0; i < 2; i++) {
                size_t max = i == 0 ? 1u << 20 : 19999;

                pid = fork();
                CU_ASSERT_FATAL(pid >= 0);
                if (pid == 0) {
                        int w = open(fifo, O_WRONLY);

                        _exit(w >= 0 && write(w, big, 20000) == 20000 ? 0 : 1);
                }
                len = 0;
                if (max > 20000) {
                        CU_ASSERT_EQUAL(jsonv_read_file(fifo, max, &buf, &len, &e), 0);
                        CU_ASSERT_EQUAL(len, 20000);
                        CU_ASSERT_STRING_EQUAL(buf ? buf : "", big);
                } else {
                        CU_ASSERT_EQUAL(jsonv_read_file(fifo, max, &buf, &len, &e), -EINVAL);
                        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "larger than the limit of 19999 bytes"));
                }
                free(buf);
                buf = NULL;
                waitpid(pid, NULL, 0);
        }
        unlink(fifo);
        free(big);
}

/* YAML: the same policy as JSON, errors with line:column and the JSON path, typed scalars. */
static void yaml_bad(const char *doc, const char *want)
{
        struct policy *p = NULL;
        struct errbuf e = { .where = "" };
        char got[ERRBUF_STR_MAX];

        CU_ASSERT_EQUAL(policy_parse_buffer(doc, strlen(doc), "t.yaml", &p, &e), -EINVAL);
        errbuf_str(&e, got, sizeof(got));
        if (strcmp(got, want))
                fprintf(stderr, "\n  got:  %s\n  want: %s\n", got, want);
        CU_ASSERT_STRING_EQUAL(got, want);
        CU_ASSERT_PTR_NULL(p);
}

#define YHEAD "apiVersion: nettune/v1\nkind: Policy\nmetadata:\n  name: t\ntargets:\n  interfaces: [eth0]\n"

/* A YAML document of n items in one of three shapes: a list, a mapping, a list of mappings. */
static char *yaml_of(int shape, size_t n)
{
        size_t size = n * 32 + 16, len = 0;
        char *s = malloc(size);

        for (size_t i = 0; s && i < n; i++)
                len += (size_t)(shape == 0   ? snprintf(s + len, size - len, "- %zu\n", i)
                                : shape == 1 ? snprintf(s + len, size - len, "k%zu: 1\n", i)
                                             : snprintf(s + len, size - len, "- {a: %zu, b: 2}\n", i));
        return s;
}

/* Index slots looked at while reading a document of n items (every node found, then added). */
static size_t yaml_probes(int shape, size_t n)
{
        struct errbuf e = { .where = "" };
        struct jsonv_locs *locs = NULL;
        json_t *root = NULL;
        char *doc = yaml_of(shape, n);
        unsigned line = 0, col = 0;
        char path[64];
        size_t probes;

        CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
        CU_ASSERT_EQUAL_FATAL(jsonv_parse_yaml(doc, strlen(doc), "t.yaml", 1u << 24, &root, &locs, &e), 0);
        probes = jsonv_locs_probes(locs);
        /* the last item is where it stood: line n, column 1 (a key's) or 3 (a list item's) */
        snprintf(path, sizeof(path), shape == 1 ? "$.k%zu" : "$[%zu]", n - 1);
        CU_ASSERT_TRUE(jsonv_locs_find(locs, path, &line, &col));
        CU_ASSERT_EQUAL(line, n);
        CU_ASSERT_EQUAL(col, shape == 1 ? 1 : 3);
        jsonv_locs_free(locs);
        json_decref(root);
        free(doc);
        return probes;
}

/*
 * Reading YAML is linear in its size: eight times the items cost at most about eight
 * times the work (counted, not timed: a list searched end to end grew 64-fold), and
 * every node costs a few probes whatever the size (bench/ has the wall-clock figure).
 */
static void test_yaml_linear(void)
{
        for (int shape = 0; shape < 3; shape++) {
                size_t n = 2000, small = yaml_probes(shape, n), big = yaml_probes(shape, 8 * n);

                CU_ASSERT(small > 0);
                CU_ASSERT(big <= 10 * small);
                CU_ASSERT(big <= 8 * n * 3 * 8);        /* 3 nodes an item at most, 8 probes a node */
        }
}

static void test_yaml(void)
{
        static const char doc[] = YHEAD "spec:\n  mtu: 9000\n  trust: dscp\n  dscp_to_priority: {26: 3, \"48\": 6}\n"
                                  "  pfc:\n    priorities: [3]\n# a comment\nverify:\n  probe: none\n";
        struct policy *p = NULL, *q = NULL;
        struct errbuf e = { .where = "" };
        char *json = NULL;
        size_t len;

        CU_ASSERT_EQUAL_FATAL(policy_parse_buffer(doc, sizeof(doc) - 1, "t.yaml", &p, &e), 0);
        CU_ASSERT_EQUAL(p->spec.mtu, 9000);
        CU_ASSERT_EQUAL(p->spec.dscp_prio[26], 3);
        CU_ASSERT_EQUAL(p->spec.dscp_prio[48], 6);
        CU_ASSERT_EQUAL(p->spec.pfc_enabled, 1u << 3);
        /* the agents get JSON, and it is the same policy */
        CU_ASSERT_EQUAL_FATAL(policy_doc_json(doc, sizeof(doc) - 1, "t.yaml", &json, &len, &e), 0);
        CU_ASSERT_EQUAL(json[0], '{');
        CU_ASSERT_EQUAL_FATAL(policy_parse_buffer(json, len, "t.json", &q, &e), 0);
        CU_ASSERT_EQUAL(memcmp(&p->spec, &q->spec, sizeof(p->spec)), 0);
        free(json);
        policy_free(p);
        policy_free(q);
        /* no file name: the first character says which */
        CU_ASSERT_TRUE(jsonv_is_yaml("request body", "apiVersion: x", 13));
        CU_ASSERT_FALSE(jsonv_is_yaml("request body", " {\"a\":1}", 8));
        CU_ASSERT_FALSE(jsonv_is_yaml("p.json", "apiVersion: x", 13));

        yaml_bad(YHEAD "spec:\n  mtu: 99999\n", "t.yaml:8:3: $.spec.mtu: mtu 99999 out of range 68-9978");
        yaml_bad(YHEAD "spec:\n  mtu: \"9000\"\n", "t.yaml:8:3: $.spec.mtu: expected integer, found string");
        yaml_bad(YHEAD "spec:\n  mtu: 9000.0\n", "t.yaml:8:3: $.spec.mtu: expected integer, found number");
        yaml_bad(YHEAD "spec:\n  pfc: {priorities: [3, 9]}\n",
                 "t.yaml:8:25: $.spec.pfc.priorities[1]: priority 9 out of range 0-7");
        yaml_bad(YHEAD "spec:\n  mtu: 9000\n  turst: dscp\n",
                 "t.yaml:9:3: $.spec: unknown key 'turst' (did you mean 'trust'?)");
        yaml_bad(YHEAD "spec:\n  mtu: 9000\n  mtu: 1500\n", "t.yaml:9:3: $.spec.mtu: duplicate key 'mtu'");
        yaml_bad(YHEAD "spec:\n  pfc: &p {priorities: [3]}\n  ets: *p\n",
                 "t.yaml:9:8: $.spec.ets: YAML aliases ('*p') are not supported: write the value out");
        yaml_bad(YHEAD "spec: {}\n---\nspec: {}\n", "t.yaml:8:1: a second YAML document: a file holds one policy");
        yaml_bad("- 1\n- 2\n", "t.yaml:1:1: $: expected object, found array");
        yaml_bad("# nothing\n", "t.yaml: document is empty");
        yaml_bad(YHEAD "spec:\n  mtu: !!binary AAAA\n",
                 "t.yaml:8:8: $.spec.mtu: YAML tag 'tag:yaml.org,2002:binary' is not supported");
        yaml_bad(YHEAD "spec:\n  mtu: 99999999999999999999\n", "t.yaml:8:8: $.spec.mtu: integer '99999999999999999999' out of range");
        yaml_bad(YHEAD "spec:\n  mtu: 2e900\n", "t.yaml:8:8: $.spec.mtu: number '2e900' out of range");
        yaml_bad(YHEAD "spec:\n  mtu: .inf\n", "t.yaml:8:8: $.spec.mtu: '.inf' has no JSON value");
        yaml_bad(YHEAD "spec:\n  mtu: 0x2328\n  trust: yes\n",
                 "t.yaml:9:3: $.spec.trust: trust 'yes' is not one of 'pcp', 'dscp'");      /* 0x2328 is 9000; yes is a string */
        yaml_bad(YHEAD "spec:\n  ? [a]\n  : 1\n", "t.yaml:8:5: $.spec: a key must be a string, not a list or mapping");
}

int suite_policy(void);
int suite_policy(void)
{
        CU_pSuite s = CU_add_suite("policy", NULL, NULL);

        if (!s || !CU_add_test(s, "full", test_full) || !CU_add_test(s, "minimal_defaults", test_minimal_defaults) ||
            !CU_add_test(s, "errors", test_errors) || !CU_add_test(s, "targets", test_targets) ||
            !CU_add_test(s, "selects", test_selects) || !CU_add_test(s, "round_trip", test_round_trip) ||
            !CU_add_test(s, "pfc_storm", test_pfc_storm) ||
            !CU_add_test(s, "canonical_text", test_canonical_text) || !CU_add_test(s, "fabric", test_fabric) ||
            !CU_add_test(s, "verify_class", test_verify_class) || !CU_add_test(s, "limits", test_limits) ||
            !CU_add_test(s, "jsonv_paths", test_jsonv_paths) || !CU_add_test(s, "read_file", test_read_file) ||
            !CU_add_test(s, "yaml", test_yaml) ||
            !CU_add_test(s, "yaml_linear", test_yaml_linear))
                return -1;
        return 0;
}
