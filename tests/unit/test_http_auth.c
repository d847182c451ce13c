/* SPDX-License-Identifier: MIT */
/* tls.allowed_clients patterns: exact names and "*.suffix". */
#include <CUnit/CUnit.h>

#include <string.h>

#include "agent/http/http.h"
#include "agent/http/http_internal.h"

static void test_name_matches(void)
{
        CU_ASSERT_TRUE(http_auth_name_matches("nettune-controller", "nettune-controller"));
        CU_ASSERT_TRUE(http_auth_name_matches("Ctl.Example.COM", "ctl.example.com"));     /* DNS: any case */
        CU_ASSERT_FALSE(http_auth_name_matches("nettune-controller", "nettune-controller2"));
        CU_ASSERT_FALSE(http_auth_name_matches("ctl", "ctl.example.com"));
        CU_ASSERT_TRUE(http_auth_name_matches("*.ops.test", "ctl1.ops.test"));
        CU_ASSERT_TRUE(http_auth_name_matches("*.ops.test", "a.b.ops.test"));            /* any depth */
        CU_ASSERT_FALSE(http_auth_name_matches("*.ops.test", "ops.test"));               /* a label is needed */
        CU_ASSERT_FALSE(http_auth_name_matches("*.ops.test", ".ops.test"));
        CU_ASSERT_FALSE(http_auth_name_matches("*.ops.test", "badops.test"));            /* a label boundary */
        CU_ASSERT_FALSE(http_auth_name_matches("*.ops.test", "ctl1.ops.test.evil"));
        CU_ASSERT_FALSE(http_auth_name_matches("*.ops.test", ""));
}

/* A zero deadline would shut every connection as it is accepted: refused before anything listens. */
static void test_zero_timeouts_refused(void)
{
        struct http_options o = { .listen = "127.0.0.1:0", .insecure_loopback = true, .max_body = 1024,
                                  .timeout_s = 30, .header_timeout_s = 0 };
        struct http_server *s = NULL;
        struct errbuf e = { 0 };

        CU_ASSERT_EQUAL(http_start(&o, &s, &e), -EINVAL);
        CU_ASSERT_PTR_NULL(s);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "timeouts must be at least 1 s"));
        o.header_timeout_s = 5;
        o.timeout_s = 0;
        CU_ASSERT_EQUAL(http_start(&o, &s, &e), -EINVAL);
        CU_ASSERT_PTR_NULL(s);
}

int suite_http_auth(void);
int suite_http_auth(void)
{
        CU_pSuite s = CU_add_suite("http_auth", NULL, NULL);

        if (!s || !CU_add_test(s, "name_matches", test_name_matches) ||
            !CU_add_test(s, "zero_timeouts_refused", test_zero_timeouts_refused))
                return -1;
        return 0;
}
