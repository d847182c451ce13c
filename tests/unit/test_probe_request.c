/* SPDX-License-Identifier: MIT */
/* The probe request body (POST /v1/probe): defaults, every field, and each rejection's exact message. */
#include <CUnit/CUnit.h>

#include "probe_request.h"

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
        { "{\"peer\":\"h:1\",\"runs\":1.5}", "$.runs", "expected integer, found number" },
        { "{\"peer\":\"h:1\",\"peer\":\"h:2\"}", "request body:1:20", "$.peer: duplicate key 'peer'" },
        { "", "request body", "document is empty" },
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
            !CU_add_test(s, "bad", test_bad))
                return -1;
        return 0;
}
