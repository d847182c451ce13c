/* SPDX-License-Identifier: MIT */
/* A state member in one line, as both programs' `state` print it (policies/state/state_text.h). */
#include <CUnit/CUnit.h>

#include "policies/state/state_text.h"

static void line_is(const char *key, const char *json, const char *want)
{
        json_t *v = json_loads(json, JSON_DECODE_ANY, NULL);
        char buf[512];

        CU_ASSERT_PTR_NOT_NULL_FATAL(v);
        state_text_value(key, v, buf, sizeof(buf));
        if (strcmp(buf, want))
                fprintf(stderr, "\n  %s: got '%s', want '%s'\n", key, buf, want);
        CU_ASSERT_STRING_EQUAL(buf, want);
        json_decref(v);
}

static void test_dscp(void)
{
        char full[2048];
        size_t o = (size_t)snprintf(full, sizeof(full), "{");

        /* a live map of all 64 DSCPs, written in JSON's string order: numeric order, zeros folded */
        for (unsigned d = 0; d < 64; d++)
                o += (size_t)snprintf(full + o, sizeof(full) - o, "%s\"%u\": %u", d ? ", " : "", d,
                                      d == 26 ? 3 : d == 48 ? 6 : d == 10 ? 1 : 0);
        snprintf(full + o, sizeof(full) - o, "}");
        line_is("dscp_to_priority", full, "10:1 26:3 48:6 (the rest 0)");
        line_is("dscp_to_priority", "{\"48\": 6, \"26\": 3}", "26:3 48:6");      /* a policy's: as listed */
        line_is("dscp_to_priority", "{\"8\": 0}", "8:0");
        line_is("dscp_to_priority", "{}", "none");
}

static void test_others(void)
{
        line_is("pfc", "{\"priorities\": [3, 4]}", "3,4");
        line_is("pfc", "{\"priorities\": []}", "none");
        line_is("ets", "{\"priority_to_tc\": [0,0,0,1,0,0,0,0], \"tc_bandwidth_pct\": [50,50,100,100,0,0,0,0],"
                       " \"tc_tsa\": [\"ets\",\"ets\",\"strict\",\"strict\",\"strict\",\"strict\",\"strict\",\"strict\"]}",
                "tc 0,0,0,1,0,0,0,0 bw 50,50,s,s,s,s,s,s");
        line_is("host_ecn", "{\"priority3\": {\"reaction_point\": true, \"notification_point\": true},"
                            " \"priority4\": {\"reaction_point\": true, \"notification_point\": false},"
                            " \"cnp_dscp\": 48, \"cnp_priority\": 6}", "rp 3,4 np 3 cnp 48/6");
        line_is("ecn", "{\"queue3\": {\"enabled\": true, \"min_threshold_bytes\": 150000, \"max_threshold_bytes\": 1500000,"
                       " \"mark_probability_pct\": 100}, \"queue4\": {\"enabled\": false, \"min_threshold_bytes\": 0,"
                       " \"max_threshold_bytes\": 0, \"mark_probability_pct\": 0}}", "q3 150000-1500000 100%, q4 off");
        line_is("dcb_device", "{\"dcbx\": 9, \"dscp_apps\": [[26, 3], [48, 6]], \"trust_table\": [5, 255]}",
                "dcbx host+ieee (0x09), apps 26:3 48:6, trust 5,255");
        line_is("mtu", "9000", "9000");
        line_is("trust", "\"dscp\"", "dscp");
        line_is("", "[1, 2]", "[1,2]");
}

static void test_dcbx_and_shares(void)
{
        char buf[64];
        json_t *st = json_loads("{\"ets\": {\"tc_bandwidth_pct\": [50, 100, 50], \"tc_tsa\": [\"ets\", \"strict\", \"ets\"]}}",
                                0, NULL);

        CU_ASSERT_STRING_EQUAL(state_dcbx_names(0x09, buf, sizeof(buf)), "host+ieee");
        CU_ASSERT_STRING_EQUAL(state_dcbx_names(0x06, buf, sizeof(buf)), "lld-managed+cee");
        CU_ASSERT_STRING_EQUAL(state_dcbx_names(0, buf, sizeof(buf)), "none");
        CU_ASSERT_STRING_EQUAL(state_dcbx_names(0x21, buf, sizeof(buf)), "host+0x20");
        /* a strict class has no share: it reads 0, as the plan compares it */
        state_text_ets_shares(st);
        CU_ASSERT_EQUAL(json_integer_value(json_array_get(json_object_get(json_object_get(st, "ets"),
                                                                          "tc_bandwidth_pct"), 1)), 0);
        CU_ASSERT_EQUAL(json_integer_value(json_array_get(json_object_get(json_object_get(st, "ets"),
                                                                          "tc_bandwidth_pct"), 2)), 50);
        json_decref(st);
}

int suite_state_text(void);
int suite_state_text(void)
{
        CU_pSuite s = CU_add_suite("state_text", NULL, NULL);

        if (!s || !CU_add_test(s, "dscp", test_dscp) || !CU_add_test(s, "others", test_others) ||
            !CU_add_test(s, "dcbx_and_shares", test_dcbx_and_shares))
                return -1;
        return 0;
}
