/* SPDX-License-Identifier: MIT */
/* The probe request body (POST /v1/probe): defaults, every field, and each rejection's exact message. */
#include <CUnit/CUnit.h>

#include "drivers/probe/probe_request.h"

static void test_good(void)
{
        static const char full[] = "{\"peer\":\"[fe80::1]:18515\",\"mode\":\"tcp\",\"duration_ms\":100,\"runs\":15}";
        static const char min[] = "{\"peer\":\"10.0.0.2:18515\"}";
        struct probe_request r;
        struct errbuf e = { 0 };

        CU_ASSERT_EQUAL_FATAL(probe_request_parse(min, strlen(min), &r, &e), 0);
        CU_ASSERT_STRING_EQUAL(r.params.peer, "10.0.0.2:18515");
        CU_ASSERT_EQUAL(r.mode, PROBE_MODE_AUTO);
        CU_ASSERT_EQUAL(r.runs, 1);
        CU_ASSERT_EQUAL(r.params.duration_ms, 3000);
        CU_ASSERT_EQUAL(r.params.message_size, 65536);
        CU_ASSERT_EQUAL_FATAL(probe_request_parse(full, strlen(full), &r, &e), 0);
        CU_ASSERT_STRING_EQUAL(r.params.peer, "[fe80::1]:18515");
        CU_ASSERT_EQUAL(r.mode, PROBE_MODE_TCP);
        CU_ASSERT_EQUAL(r.runs, 15);
        CU_ASSERT_EQUAL(r.params.duration_ms, 100);
        CU_ASSERT_EQUAL(r.params.traffic_class, -1);    /* no dscp: the TOS is left */
        CU_ASSERT_EQUAL(r.params.priority, -1);
}

static void test_class(void)
{
        static const char body[] = "{\"peer\":\"10.0.0.2:18515\",\"dscp\":26,\"priority\":3,\"streams\":8,"
                                   "\"message_size\":4096,\"interface\":\"ens1f0np0\"}";
        struct probe_request r;
        struct errbuf e = { 0 };

        CU_ASSERT_EQUAL_FATAL(probe_request_parse(body, strlen(body), &r, &e), 0);
        CU_ASSERT_EQUAL(r.params.traffic_class, 104);
        CU_ASSERT_EQUAL(r.params.priority, 3);
        CU_ASSERT_EQUAL(r.params.streams, 8);
        CU_ASSERT_EQUAL(r.params.message_size, 4096);
        CU_ASSERT_STRING_EQUAL(r.params.netdev, "ens1f0np0");
}

static const struct {
        const char *body, *where, *msg;
} bad[] = {
        { "{}", "$", "missing required key 'peer'" },
        { "{\"peer\":\"h:1\",\"x\":1}", "$", "unknown key 'x'" },
        { "{\"peer\":7}", "$.peer", "expected string, found integer" },
        { "{\"peer\":\"nohost\"}", "$.peer", "peer 'nohost' is not host:port" },
        { "{\"peer\":\"h:1\",\"mode\":\"rdma\"}", "$.mode", "mode 'rdma' is not one of 'auto', 'verbs', 'tcp'" },
        { "{\"peer\":\"h:1\",\"runs\":16}", "$.runs", "runs 16 out of range 1-15" },
        { "{\"peer\":\"h:1\",\"duration_ms\":99}", "$.duration_ms", "duration_ms 99 out of range 100-60000" },
        { "{\"peer\":\"h:1\",\"duration_ms\":60000,\"runs\":15}", "$.runs",
          "runs 15 x duration_ms 60000 is 900000 ms of traffic, at most 60000 in one request" },
        { "{\"peer\":\"h:1\",\"duration_ms\":20001,\"runs\":3}", "$.runs",
          "runs 3 x duration_ms 20001 is 60003 ms of traffic, at most 60000 in one request" },
        { "{\"peer\":\"h:1\",\"runs\":1.5}", "$.runs", "expected integer, found number" },
        { "{\"peer\":\"h:1\",\"peer\":\"h:2\"}", "request body:1:20", "$.peer: duplicate key 'peer'" },
        { "", "request body", "document is empty" },
        { "{\"peer\":\"h:1\",\"dscp\":64}", "$.dscp", "dscp 64 out of range 0-63" },
        { "{\"peer\":\"h:1\",\"priority\":8}", "$.priority", "priority 8 out of range 0-7" },
        { "{\"peer\":\"h:1\",\"streams\":17}", "$.streams", "streams 17 out of range 1-16" },
        { "{\"peer\":\"h:1\",\"interface\":\"a b\"}", "$.interface",
          "interface 'a b' has character ' '; allowed: letters, digits and '-_.@+'" },
};

static void test_bad(void)
{
        for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
                struct probe_request r = { .runs = 99 };
                struct errbuf e = { 0 };

                CU_ASSERT_EQUAL(probe_request_parse(bad[i].body, strlen(bad[i].body), &r, &e), -EINVAL);
                CU_ASSERT_EQUAL(r.runs, 99);            /* untouched */
                if (strcmp(e.where, bad[i].where) || strcmp(e.msg, bad[i].msg))
                        fprintf(stderr, "case %zu: got '%s' '%s'\n", i, e.where, e.msg);
                CU_ASSERT_STRING_EQUAL(e.where, bad[i].where);
                CU_ASSERT_STRING_EQUAL(e.msg, bad[i].msg);
        }
}

int suite_probe_request(void);
int suite_probe_request(void)
{
        CU_pSuite s = CU_add_suite("probe_request", NULL, NULL);

        if (!s ||
            !CU_add_test(s, "good", test_good) ||
            !CU_add_test(s, "bad", test_bad) ||
            !CU_add_test(s, "class", test_class))
                return -1;
        return 0;
}
