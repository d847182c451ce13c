/* SPDX-License-Identifier: MIT */
/* state_diff: every field kind, unsupported fields, switch ports, text and JSON renderings. */
#include <CUnit/CUnit.h>

#include "common/util.h"
#include "policies/state/diff.h"
#include "policies/state/field.h"

static struct state want, live;

static int setup(void)
{
        state_init(&want);
        state_init(&live);
        return 0;
}

static void reset(void)
{
        setup();
}

static const struct diff_entry *find(const struct diff *d, const char *key)
{
        for (unsigned i = 0; i < d->n; i++)
                if (streq(d->entries[i].key, key))
                        return &d->entries[i];
        return NULL;
}

/* Exactly one entry for key, with these from/to. */
static void expect(const struct diff *d, const char *key, const char *from, const char *to)
{
        const struct diff_entry *e = find(d, key);

        CU_ASSERT_PTR_NOT_NULL_FATAL(e);
        CU_ASSERT_STRING_EQUAL(e->from, from);
        CU_ASSERT_STRING_EQUAL(e->to, to);
}

static void test_equal_is_empty(void)
{
        struct diff d;

        reset();
        want.present = live.present = STATE_BIT(STATE_FIELD_MTU) | STATE_BIT(STATE_FIELD_TRUST);
        want.mtu = live.mtu = 9000;
        live.pfc_enabled = 0xff;        /* not managed: ignored */
        CU_ASSERT_EQUAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT(diff_empty(&d));
        CU_ASSERT_EQUAL(d.fields, 0);
        diff_done(&d);
}

static void test_scalars(void)
{
        struct diff d;

        reset();
        want.present = live.present = STATE_BIT(STATE_FIELD_MTU) | STATE_BIT(STATE_FIELD_TRUST) |
                                      STATE_BIT(STATE_FIELD_PFC);
        live.mtu = 1500;
        want.mtu = 9000;
        live.trust = STATE_TRUST_PCP;
        want.trust = STATE_TRUST_DSCP;
        live.pfc_enabled = 1u << 3;
        want.pfc_enabled = (1u << 3) | (1u << 4);
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 3);
        expect(&d, "mtu", "1500", "9000");
        expect(&d, "trust", "pcp", "dscp");
        expect(&d, "pfc.priorities", "[3]", "[3,4]");
        CU_ASSERT_EQUAL(d.fields, want.present);
        diff_done(&d);
}

static void test_dscp_exact_table(void)
{
        struct diff d;

        reset();
        want.present = live.present = STATE_BIT(STATE_FIELD_DSCP_MAP);
        want.dscp_prio[26] = 3;
        live.dscp_prio[26] = 4;
        live.dscp_prio[10] = 1;         /* not in the policy: must be removed */
        want.dscp_prio[48] = 6;         /* not live: must be added */
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 3);
        expect(&d, "dscp_to_priority.26", "4", "3");
        expect(&d, "dscp_to_priority.10", "1", "unset");
        expect(&d, "dscp_to_priority.48", "unset", "6");
        diff_done(&d);
}

static void test_ets(void)
{
        struct diff d;

        reset();
        want.present = live.present = STATE_BIT(STATE_FIELD_ETS);
        for (unsigned i = 0; i < 8; i++) {
                want.ets.prio_tc[i] = (uint8_t)i;
                want.ets.tc_tsa[i] = live.ets.tc_tsa[i] = STATE_TSA_STRICT;
        }
        want.ets.tc_tsa[0] = want.ets.tc_tsa[3] = STATE_TSA_ETS;
        want.ets.tc_bw_pct[0] = want.ets.tc_bw_pct[3] = 50;
        live.ets.tc_tsa[7] = STATE_TSA_VENDOR;
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 3);
        expect(&d, "ets.priority_to_tc", "[0,0,0,0,0,0,0,0]", "[0,1,2,3,4,5,6,7]");
        expect(&d, "ets.tc_bandwidth_pct", "[0,0,0,0,0,0,0,0]", "[50,0,0,50,0,0,0,0]");
        expect(&d, "ets.tc_tsa", "[strict,strict,strict,strict,strict,strict,strict,vendor]",
               "[ets,strict,strict,ets,strict,strict,strict,strict]");
        diff_done(&d);
}

static void test_ecn(void)
{
        struct diff d;

        reset();
        want.present = live.present = STATE_BIT(STATE_FIELD_ECN);
        want.ecn.queues = (1u << 3) | (1u << 5);
        want.ecn.q[3] = want.ecn.q[5] = (struct state_ecn_queue){ true, 150000, 1500000, 100 };
        live.ecn.queues = 1u << 3;
        live.ecn.q[3] = (struct state_ecn_queue){ true, 100000, 1500000, 50 };
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        expect(&d, "ecn.queue3.min_threshold_bytes", "100000", "150000");
        expect(&d, "ecn.queue3.mark_probability_pct", "50", "100");
        CU_ASSERT_PTR_NULL(find(&d, "ecn.queue3.max_threshold_bytes"));
        CU_ASSERT_PTR_NULL(find(&d, "ecn.queue3.enabled"));
        expect(&d, "ecn.queue5.enabled", "unset", "true");
        expect(&d, "ecn.queue5.max_threshold_bytes", "unset", "1500000");
        CU_ASSERT_EQUAL(d.n, 6);
        diff_done(&d);

        /* Disabling a queue compares only the enable. */
        want.ecn.queues = 1u << 3;
        want.ecn.q[3] = (struct state_ecn_queue){ .enabled = false };
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 1);
        expect(&d, "ecn.queue3.enabled", "true", "false");
        diff_done(&d);

        /* Disabling a queue that does not mark (or that the target does not describe) is no change. */
        live.ecn.q[3].enabled = false;
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 0);
        diff_done(&d);
        live.ecn.queues = 0;
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 0);
        diff_done(&d);

        /* Only listed queues are managed: a marking queue the policy does not list is no change. */
        want.ecn.queues = 1u << 3;
        live.ecn.q[3] = (struct state_ecn_queue){ true, 100000, 1500000, 50 };
        want.ecn.q[3] = live.ecn.q[3];
        live.ecn.queues = (1u << 0) | (1u << 3);
        live.ecn.q[0] = (struct state_ecn_queue){ true, 40000, 200000, 100 };
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 0);
        CU_ASSERT_EQUAL(d.fields, 0);
        diff_done(&d);

        /* A listed queue that is there but does not mark: enabled false -> true, thresholds unset. */
        live.ecn.q[3].enabled = false;
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        expect(&d, "ecn.queue3.enabled", "false", "true");
        expect(&d, "ecn.queue3.min_threshold_bytes", "unset", "100000");
        CU_ASSERT_EQUAL(d.n, 4);
        diff_done(&d);
}

static void test_host_ecn(void)
{
        struct diff d;

        reset();
        want.present = live.present = STATE_BIT(STATE_FIELD_HOST_ECN);
        want.host_ecn = (struct state_host_ecn){ .prios = 1u << 3, .rp_enabled = 1u << 3, .np_enabled = 1u << 3,
                                                 .has_cnp = true, .cnp_dscp = 48, .cnp_prio = 6 };
        live.host_ecn = (struct state_host_ecn){ .prios = 0xff, .rp_enabled = 0, .np_enabled = 1u << 3 };
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 3);
        expect(&d, "host_ecn.priority3.reaction_point", "false", "true");
        expect(&d, "host_ecn.cnp_dscp", "unset", "48");
        expect(&d, "host_ecn.cnp_priority", "unset", "6");
        diff_done(&d);
}

static void test_unsupported(void)
{
        struct diff d;

        reset();
        want.present = STATE_BIT(STATE_FIELD_PFC) | STATE_BIT(STATE_FIELD_MTU);
        want.pfc_enabled = 1u << 3;
        want.mtu = 9000;
        live.present = STATE_BIT(STATE_FIELD_MTU);
        live.mtu = 9000;
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 1);
        expect(&d, "pfc", "unsupported", "{\"priorities\":[3]}");
        CU_ASSERT_EQUAL(d.entries[0].field, STATE_FIELD_PFC);
        CU_ASSERT_EQUAL(d.fields, STATE_BIT(STATE_FIELD_PFC));
        diff_done(&d);
}

/*
 * The watchdog: off compares only whether it runs; on compares that it runs, its
 * priorities and the members the policy declares (the rest are not managed).
 */
static void test_pfc_watchdog(void)
{
        struct diff d;

        reset();
        want.present = live.present = STATE_BIT(STATE_FIELD_PFC_WATCHDOG);
        want.pfc_wd = (struct state_pfc_wd){ .enabled = true, .prios = 0x08, .has = STATE_WD_DETECTION | STATE_WD_ACTION,
                                             .detection_ms = 200, .action = STATE_WD_DROP };
        live.pfc_wd = (struct state_pfc_wd){ .enabled = false, .has = STATE_WD_POLL, .poll_ms = 100 };
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 4);
        expect(&d, "pfc.watchdog.enabled", "false", "true");
        expect(&d, "pfc.watchdog.priorities", "unset", "[3]");
        expect(&d, "pfc.watchdog.detection_ms", "unset", "200");
        expect(&d, "pfc.watchdog.action", "unset", "drop");
        diff_done(&d);

        /* running with other times and a poll the policy does not name: only what it names differs */
        live.pfc_wd = (struct state_pfc_wd){ .enabled = true, .prios = 0x18, .has = 0x0f, .detection_ms = 400,
                                             .restoration_ms = 0, .action = STATE_WD_DROP, .poll_ms = 1000 };
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 2);
        expect(&d, "pfc.watchdog.priorities", "[3,4]", "[3]");
        expect(&d, "pfc.watchdog.detection_ms", "400", "200");
        diff_done(&d);
        want.pfc_wd.has |= STATE_WD_RESTORATION;
        want.pfc_wd.restoration_ms = 400;
        want.pfc_wd.prios = 0x18;
        want.pfc_wd.detection_ms = 400;
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 1);
        expect(&d, "pfc.watchdog.restoration_ms", "none", "400");
        diff_done(&d);

        /* turned off by a policy: only whether it runs */
        want.pfc_wd = (struct state_pfc_wd){ .enabled = false };
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 1);
        expect(&d, "pfc.watchdog.enabled", "true", "false");
        diff_done(&d);
        live.pfc_wd.enabled = false;
        CU_ASSERT(state_matches(&want, &live));

        /* a snapshot of a port without a watchdog: its coverage and the switch-wide poll come back too */
        want.pfc_wd = (struct state_pfc_wd){ .enabled = false, .prios = 0x18, .has = STATE_WD_POLL,
                                             .dflt = STATE_WD_POLL, .poll_ms = 100 };
        live.pfc_wd = (struct state_pfc_wd){ .enabled = true, .prios = 0x08, .has = 0x0f, .detection_ms = 200,
                                             .restoration_ms = 400, .poll_ms = 200 };
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 3);
        expect(&d, "pfc.watchdog.enabled", "true", "false");
        expect(&d, "pfc.watchdog.priorities", "[3]", "[3,4]");
        expect(&d, "pfc.watchdog.poll_interval_ms", "200", "100");
        diff_done(&d);
}

/* "auto" is met by what the device reads back for it; without that knowledge it differs. */
static void test_nic_stall(void)
{
        struct diff d;

        reset();
        want.present = live.present = STATE_BIT(STATE_FIELD_NIC_STALL);
        want.nic_stall_ms = STATE_NIC_STALL_AUTO;
        live.nic_stall_ms = 8000;
        live.nic_stall_auto_ms = 100;
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 1);
        expect(&d, "pfc.nic_stall_timeout_ms", "8000", "auto");
        diff_done(&d);
        live.nic_stall_ms = 100;
        CU_ASSERT(state_matches(&want, &live));
        live.nic_stall_auto_ms = 0;
        CU_ASSERT_FALSE(state_matches(&want, &live));
        want.nic_stall_ms = 100;
        CU_ASSERT(state_matches(&want, &live));
        /* unsupported: the whole desired value */
        live.present = 0;
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        expect(&d, "pfc.nic_stall_timeout_ms", "unsupported", "100");
        diff_done(&d);
        want.present = STATE_BIT(STATE_FIELD_PFC_WATCHDOG);
        want.pfc_wd = (struct state_pfc_wd){ .enabled = true, .prios = 0x08, .has = STATE_WD_DETECTION,
                                             .detection_ms = 200 };
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        expect(&d, "pfc.watchdog", "unsupported", "{\"detection_ms\":200,\"enabled\":true,\"priorities\":[3]}");
        diff_done(&d);
}

/* A switch is one state per port: each port's differences under its own prefix. */
static void test_switch_ports(void)
{
        static const char *const names[] = { "swp1", "swp2", "swp3" };
        static const uint32_t mtus[] = { 9216, 1500, 9000 };
        struct diff d = { 0 };

        reset();
        want.present = live.present = STATE_BIT(STATE_FIELD_MTU) | STATE_BIT(STATE_FIELD_TRUST);
        want.mtu = 9216;
        for (unsigned i = 0; i < 3; i++) {
                char prefix[32];

                live.mtu = mtus[i];
                live.trust = i == 2 ? STATE_TRUST_PCP : STATE_TRUST_DSCP;
                want.trust = STATE_TRUST_DSCP;
                snprintf(prefix, sizeof(prefix), "ports.%s.", names[i]);
                CU_ASSERT_EQUAL_FATAL(diff_append(&d, prefix, &want, &live), 0);
        }
        CU_ASSERT_EQUAL(d.n, 3);
        expect(&d, "ports.swp2.mtu", "1500", "9216");
        expect(&d, "ports.swp3.mtu", "9000", "9216");
        expect(&d, "ports.swp3.trust", "pcp", "dscp");
        CU_ASSERT_EQUAL(d.fields, STATE_BIT(STATE_FIELD_MTU) | STATE_BIT(STATE_FIELD_TRUST));
        diff_done(&d);
}

/* A strict class has no bandwidth share: mlx5 reports 100 for it (mlx5e_build_tc_tx_bw()), which is no difference. */
static void test_ets_strict_bandwidth_ignored(void)
{
        struct diff d;

        reset();
        want.present = live.present = STATE_BIT(STATE_FIELD_ETS);
        for (unsigned tc = 0; tc < 8; tc++) {
                want.ets.tc_tsa[tc] = live.ets.tc_tsa[tc] = tc == 3 ? STATE_TSA_ETS : STATE_TSA_STRICT;
                live.ets.tc_bw_pct[tc] = tc == 3 ? 50 : 100;
                want.ets.tc_bw_pct[tc] = tc == 3 ? 50 : 0;
        }
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 0);
        diff_done(&d);
        live.ets.tc_bw_pct[3] = 40;             /* an ets class's share still counts */
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 1);
        CU_ASSERT_STRING_EQUAL(d.entries[0].key, "ets.tc_bandwidth_pct");
        diff_done(&d);
}

static void test_render(void)
{
        struct diff d;
        char *text;
        json_t *j;

        reset();
        want.present = live.present = STATE_BIT(STATE_FIELD_MTU) | STATE_BIT(STATE_FIELD_TRUST);
        live.mtu = 1500;
        want.mtu = 9000;
        want.trust = STATE_TRUST_DSCP;
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        text = diff_to_text(&d);
        CU_ASSERT_STRING_EQUAL(text, "  mtu: 1500 -> 9000\n  trust: pcp -> dscp\n");
        free(text);
        j = diff_to_json(&d);
        CU_ASSERT_EQUAL(json_array_size(j), 2);
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_array_get(j, 1), "field")), "trust");
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_array_get(j, 0), "to")), 9000);   /* typed */
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_array_get(j, 1), "to")), "dscp");
        json_decref(j);
        /* the values' JSON: integers, booleans and lists of integers as they stand, the rest strings */
        CU_ASSERT_EQUAL(diff_value_kind("9000"), DIFF_VALUE_INTEGER);
        CU_ASSERT_EQUAL(diff_value_kind("-1"), DIFF_VALUE_INTEGER);
        CU_ASSERT_EQUAL(diff_value_kind("010"), DIFF_VALUE_STRING);
        CU_ASSERT_EQUAL(diff_value_kind("true"), DIFF_VALUE_BOOLEAN);
        CU_ASSERT_EQUAL(diff_value_kind("[3,4]"), DIFF_VALUE_INTEGERS);
        CU_ASSERT_EQUAL(diff_value_kind("[]"), DIFF_VALUE_INTEGERS);
        CU_ASSERT_EQUAL(diff_value_kind("[3,]"), DIFF_VALUE_STRING);
        CU_ASSERT_EQUAL(diff_value_kind("[48:5,26:3]"), DIFF_VALUE_STRING);
        CU_ASSERT_EQUAL(diff_value_kind("[ets,strict]"), DIFF_VALUE_STRING);
        CU_ASSERT_EQUAL(diff_value_kind("unset"), DIFF_VALUE_STRING);
        CU_ASSERT_EQUAL(diff_value_kind("0x09"), DIFF_VALUE_STRING);
        diff_done(&d);
        diff_done(&d);          /* idempotent */
        text = diff_to_text(&d);
        CU_ASSERT_STRING_EQUAL(text, "");
        free(text);
}

static void test_many_entries(void)
{
        struct diff d;

        reset();
        want.present = live.present = STATE_BIT(STATE_FIELD_DSCP_MAP);
        for (unsigned i = 0; i < STATE_DSCP_COUNT; i++)
                want.dscp_prio[i] = i % 8;
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        /* more than a few code points: one entry per change, the code points grouped */
        CU_ASSERT_EQUAL(d.n, 8);
        expect(&d, "dscp_to_priority.{7,15,23,31,39,47,55,63}", "unset", "7");
        diff_done(&d);
        for (unsigned i = 0; i < STATE_DSCP_COUNT; i++)
                live.dscp_prio[i] = 0;
        live.dscp_prio[27] = 3;
        memset(want.dscp_prio, STATE_DSCP_UNMAPPED, sizeof(want.dscp_prio));
        want.dscp_prio[26] = 3;
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 3);
        expect(&d, "dscp_to_priority.{0-25,28-63}", "0", "unset");
        diff_done(&d);
}

/* A policy's map on a host NIC: code points it does not list at priority 0, one entry for them. */
static void test_dscp_unlisted_zero(void)
{
        struct diff d;

        reset();
        want.present = live.present = STATE_BIT(STATE_FIELD_DSCP_MAP);
        want.dscp_unlisted_zero = true;
        want.dscp_prio[26] = 3;
        live.dcb.present = true;
        for (unsigned i = 0; i < STATE_DSCP_COUNT; i++)
                live.dscp_prio[i] = (uint8_t)(i >> 3);          /* a firmware default */
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 1);
        expect(&d, "dscp_to_priority.others", "55 code points not at priority 0", "0");
        diff_done(&d);
        for (unsigned i = 0; i < STATE_DSCP_COUNT; i++)
                live.dscp_prio[i] = i == 26 ? 3 : 0;
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT(diff_empty(&d));
        diff_done(&d);
        /* not a host NIC (a switch reads no DCB device): the map compares as listed */
        live.dcb.present = false;
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 1);
        expect(&d, "dscp_to_priority.{0-25,27-63}", "0", "unset");
        diff_done(&d);
}

/* Strict classes' bandwidth is the driver's business (mlx5 reports 100); willing is compared. */
static void test_ets_bandwidth_of_ets_classes(void)
{
        struct diff d;

        reset();
        want.present = live.present = STATE_BIT(STATE_FIELD_ETS);
        for (unsigned i = 0; i < 8; i++) {
                want.ets.prio_tc[i] = live.ets.prio_tc[i] = (uint8_t)i;
                want.ets.tc_tsa[i] = live.ets.tc_tsa[i] = STATE_TSA_STRICT;
                live.ets.tc_bw_pct[i] = 100;
        }
        want.ets.tc_tsa[0] = want.ets.tc_tsa[3] = live.ets.tc_tsa[0] = live.ets.tc_tsa[3] = STATE_TSA_ETS;
        want.ets.tc_bw_pct[0] = want.ets.tc_bw_pct[3] = live.ets.tc_bw_pct[0] = live.ets.tc_bw_pct[3] = 50;
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT(diff_empty(&d));
        CU_ASSERT(state_ets_equal(&want.ets, &live.ets));
        diff_done(&d);
        live.ets.tc_bw_pct[3] = 40;
        live.ets.willing = true;
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 2);
        expect(&d, "ets.tc_bandwidth_pct", "[50,0,0,40,0,0,0,0]", "[50,0,0,50,0,0,0,0]");
        expect(&d, "ets.willing", "true", "false");
        diff_done(&d);
}

/* A snapshot's device detail is compared with the live one: DCBX mode, APP entries as a set. */
static void test_dcb_device(void)
{
        struct diff d;

        reset();
        want.present = live.present = STATE_BIT(STATE_FIELD_PFC);
        want.dcb.present = live.dcb.present = true;
        want.dcb.has_dcbx = live.dcb.has_dcbx = true;
        want.dcb.dcbx = 0x0c;
        live.dcb.dcbx = 0x09;
        want.dcb.has_apps = live.dcb.has_apps = true;
        want.dcb.n_apps = live.dcb.n_apps = 2;
        want.dcb.apps[0] = live.dcb.apps[1] = (struct state_dcb_app){ 26, 3 };
        want.dcb.apps[1] = live.dcb.apps[0] = (struct state_dcb_app){ 48, 6 };
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 1);
        expect(&d, "dcb_device.dcbx", "host+ieee (0x09)", "cee+ieee (0x0c)");
        CU_ASSERT_EQUAL(d.entries[0].field, STATE_FIELD_PFC);  /* filed under a field the snapshot has */
        diff_done(&d);
        live.dcb.dcbx = 0x0c;
        live.dcb.apps[0].prio = 5;
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        expect(&d, "dcb_device.dscp_apps", "[48:5,26:3]", "[26:3,48:6]");
        diff_done(&d);
        /* a policy carries no device detail: nothing to compare */
        want.dcb.present = false;
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT(diff_empty(&d));
        diff_done(&d);
        /* ... but a DCB change it makes switches a DCBX that is not host + IEEE first: the plan lists it */
        want.pfc_enabled = 1u << 3;
        live.pfc_enabled = 0;
        live.dcb.dcbx = 0x04;
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 2);
        expect(&d, "dcb_device.dcbx", "cee (0x04)", "host+ieee (0x09)");
        CU_ASSERT_EQUAL(d.entries[1].field, STATE_FIELD_PFC);
        diff_done(&d);
        live.dcb.dcbx = 0x09;           /* host + IEEE already: only the field */
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 1);
        diff_done(&d);
}

/* pfc.cable_length_m (and the raw delay of a snapshot), buffers.prio_to_buffer, buffers.buffer_size_bytes. */
static void test_headroom_fields(void)
{
        struct diff d;

        reset();
        want.present = live.present = STATE_BIT(STATE_FIELD_CABLE_LEN) | STATE_BIT(STATE_FIELD_BUFFERS);
        want.cable_len_m = 40;
        live.cable_len_m = 7;
        want.buffers.prio_buffer[3] = 1;
        want.buffers.size[0] = live.buffers.size[0] = 130944;
        want.buffers.size[1] = 65536;
        live.buffers.total = 524288;    /* read back only: never compared */
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 3);
        expect(&d, "pfc.cable_length_m", "7", "40");
        expect(&d, "buffers.prio_to_buffer", "[0,0,0,0,0,0,0,0]", "[0,0,0,1,0,0,0,0]");
        expect(&d, "buffers.buffer_size_bytes", "[130944,0,0,0,0,0,0,0]", "[130944,65536,0,0,0,0,0,0]");
        CU_ASSERT_EQUAL(d.fields, STATE_BIT(STATE_FIELD_CABLE_LEN) | STATE_BIT(STATE_FIELD_BUFFERS));
        diff_done(&d);
        /* a snapshot's raw ieee_pfc.delay (mlxsw counts bits) is put back exactly */
        live.cable_len_m = 40;
        live.buffers = want.buffers;
        want.dcb = (struct state_dcb_device){ .present = true, .has_pfc_delay = true, .pfc_delay = 40404 };
        live.dcb = (struct state_dcb_device){ .present = true, .has_pfc_delay = true, .pfc_delay = 40405 };
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 1);
        expect(&d, "dcb_device.pfc_delay", "40405", "40404");
        diff_done(&d);
        /* a policy carries no raw delay: only the metres count */
        want.dcb.present = false;
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT(diff_empty(&d));
        diff_done(&d);
}

/* roce_tos: a policy's value against every place of every port; a snapshot port by port. */
static void test_roce_tos(void)
{
        struct diff d;

        reset();
        want.present = live.present = STATE_BIT(STATE_FIELD_ROCE_TOS);
        want.roce_tos = 106;
        live.roce.n_ports = 2;
        live.roce.ports[0] = (struct state_rdma_port){ "mlx5_0", 1, true, 0, true, STATE_TCLASS_UNSET, 0 };
        live.roce.ports[1] = (struct state_rdma_port){ "rxe0", 1, true, 106, false, 0, 0 };
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 2);
        expect(&d, "roce_tos.mlx5_0/1", "0", "106");
        expect(&d, "roce_tos.mlx5_0/1.traffic_class", "unset", "106");
        CU_ASSERT_EQUAL(d.entries[0].field, STATE_FIELD_ROCE_TOS);
        diff_done(&d);
        /* the snapshot: each port back as it was, the OFED value unset again, a port that is gone named */
        want.roce = live.roce;
        want.roce.ports[0].cm_tos = 0;
        live.roce.ports[0].cm_tos = 106;
        live.roce.ports[0].ofed_tclass = 106;
        live.roce.n_ports = 1;
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT_EQUAL(d.n, 3);
        expect(&d, "roce_tos.mlx5_0/1", "106", "0");
        expect(&d, "roce_tos.mlx5_0/1.traffic_class", "106", "unset");
        expect(&d, "roce_tos.rxe0/1", "absent", "106");
        diff_done(&d);
        live.roce = want.roce;
        CU_ASSERT_EQUAL_FATAL(state_diff(&want, &live, &d), 0);
        CU_ASSERT(diff_empty(&d));
        diff_done(&d);
}

int suite_diff(void);
int suite_diff(void)
{
        CU_pSuite s = CU_add_suite("diff", setup, NULL);

        if (!s || !CU_add_test(s, "equal_is_empty", test_equal_is_empty) || !CU_add_test(s, "scalars", test_scalars) ||
            !CU_add_test(s, "dscp_exact_table", test_dscp_exact_table) || !CU_add_test(s, "ets", test_ets) ||
            !CU_add_test(s, "ecn", test_ecn) || !CU_add_test(s, "host_ecn", test_host_ecn) ||
            !CU_add_test(s, "unsupported", test_unsupported) || !CU_add_test(s, "switch_ports", test_switch_ports) ||
            !CU_add_test(s, "ets_strict_bandwidth_ignored", test_ets_strict_bandwidth_ignored) ||
            !CU_add_test(s, "render", test_render) || !CU_add_test(s, "many_entries", test_many_entries) ||
            !CU_add_test(s, "dscp_unlisted_zero", test_dscp_unlisted_zero) ||
            !CU_add_test(s, "ets_bandwidth_of_ets_classes", test_ets_bandwidth_of_ets_classes) ||
            !CU_add_test(s, "dcb_device", test_dcb_device) ||
            !CU_add_test(s, "headroom_fields", test_headroom_fields) ||
            !CU_add_test(s, "pfc_watchdog", test_pfc_watchdog) || !CU_add_test(s, "nic_stall", test_nic_stall) ||
            !CU_add_test(s, "roce_tos", test_roce_tos))
                return -1;
        return 0;
}
