/* SPDX-License-Identifier: MIT */
/* tls.allowed_clients patterns: exact names and "*.suffix". */
#include <CUnit/CUnit.h>

#include "http_internal.h"

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

int suite_http_auth(void);
int suite_http_auth(void)
{
        CU_pSuite s = CU_add_suite("http_auth", NULL, NULL);

        if (!s || !CU_add_test(s, "name_matches", test_name_matches))
                return -1;
        return 0;
}
