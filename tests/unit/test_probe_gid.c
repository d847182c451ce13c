/* SPDX-License-Identifier: MIT */
/* RoCE GID selection over a fake sysfs tree (class/infiniband/DEV/ports/N/gids, gid_attrs/types). */
#include <CUnit/CUnit.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/stat.h>

#include "drivers/probe/probe_gid.h"

static char root[64];

/* Suite setup runs outside any test: plain return codes, no CU_ASSERT here. */
static int put(const char *rel, const char *text)
{
        char path[512], cmd[600];
        FILE *f;

        snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s/%s')\"", root, rel);
        if (system(cmd) != 0)
                return -1;
        snprintf(path, sizeof(path), "%s/%s", root, rel);
        f = fopen(path, "we");
        if (!f)
                return -1;
        fprintf(f, "%s\n", text);
        return fclose(f);
}

static int gid(const char *dev, int idx, const char *g, const char *type)
{
        char rel[256];

        snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/1/gids/%d", dev, idx);
        if (put(rel, g) < 0)
                return -1;
        if (!type)
                return 0;
        snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/1/gid_attrs/types/%d", dev, idx);
        return put(rel, type);
}

static int setup(void)
{
        snprintf(root, sizeof(root), "/tmp/nettune-gid.XXXXXX");
        if (!mkdtemp(root))
                return -1;
        if (gid("mlx5_0", 0, "fe80:0000:0000:0000:0200:00ff:fe00:0001", "IB/RoCE v1") < 0 ||
            gid("mlx5_0", 1, "fe80:0000:0000:0000:0200:00ff:fe00:0001", "RoCE v2") < 0 ||
            gid("mlx5_0", 2, "0000:0000:0000:0000:0000:ffff:0a00:0001", "IB/RoCE v1") < 0 ||
            gid("mlx5_0", 3, "0000:0000:0000:0000:0000:ffff:0a00:0001", "RoCE v2") < 0 ||
            gid("mlx5_0", 4, "0000:0000:0000:0000:0000:0000:0000:0000", NULL) < 0 ||
            gid("mlx5_0", 5, "0000:0000:0000:0000:0000:ffff:0a00:0063", "RoCE v2") < 0 ||
            gid("rxe0", 0, "fe80:0000:0000:0000:0200:00ff:fe00:0002", "IB/RoCE v1") < 0 ||
            gid("rxe0", 1, "0000:0000:0000:0000:0000:ffff:0a4d:0002", "RoCE v2") < 0 ||
            gid("rxe1", 0, "0000:0000:0000:0000:0000:ffff:0a4d:0003", "IB/RoCE v1") < 0)
                return -1;
        return 0;
}

static int teardown(void)
{
        char cmd[128];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
        return system(cmd) == 0 ? 0 : -1;
}

static struct sockaddr_storage v4(const char *a)
{
        struct sockaddr_storage ss = { .ss_family = AF_INET };

        inet_pton(AF_INET, a, &((struct sockaddr_in *)&ss)->sin_addr);
        return ss;
}

static void test_v2_preferred(void)
{
        struct sockaddr_storage a = v4("10.0.0.1");
        struct probe_gid g = { .index = 99 };
        struct errbuf e = { .msg = "" };

        CU_ASSERT_EQUAL_FATAL(probe_gid_find(root, NULL, (struct sockaddr *)&a, &g, &e), 0);
        CU_ASSERT_STRING_EQUAL(g.device, "mlx5_0");
        CU_ASSERT_EQUAL(g.port, 1);
        CU_ASSERT_EQUAL(g.index, 3);
        CU_ASSERT_TRUE(g.rocev2);
        CU_ASSERT_EQUAL(g.gid[10], 0xff);
        CU_ASSERT_EQUAL(g.gid[15], 1);
}

static void test_other_device(void)
{
        struct sockaddr_storage a = v4("10.77.0.2");
        struct probe_gid g;
        struct errbuf e = { .msg = "" };

        CU_ASSERT_EQUAL_FATAL(probe_gid_find(root, "", (struct sockaddr *)&a, &g, &e), 0);
        CU_ASSERT_STRING_EQUAL(g.device, "rxe0");
        CU_ASSERT_EQUAL(g.index, 1);

        /* only a v1 entry: taken, since nothing better exists */
        a = v4("10.77.0.3");
        CU_ASSERT_EQUAL_FATAL(probe_gid_find(root, "", (struct sockaddr *)&a, &g, &e), 0);
        CU_ASSERT_STRING_EQUAL(g.device, "rxe1");
        CU_ASSERT_FALSE(g.rocev2);
}

static void test_ipv6(void)
{
        struct sockaddr_storage ss = { .ss_family = AF_INET6 };
        struct probe_gid g;
        struct errbuf e = { .msg = "" };

        inet_pton(AF_INET6, "fe80::200:ff:fe00:1", &((struct sockaddr_in6 *)&ss)->sin6_addr);
        CU_ASSERT_EQUAL_FATAL(probe_gid_find(root, NULL, (struct sockaddr *)&ss, &g, &e), 0);
        CU_ASSERT_STRING_EQUAL(g.device, "mlx5_0");
        CU_ASSERT_EQUAL(g.index, 1);
}

static void test_device_only(void)
{
        struct probe_gid g;
        struct errbuf e = { .msg = "" };

        CU_ASSERT_EQUAL_FATAL(probe_gid_find(root, "mlx5_0", NULL, &g, &e), 0);
        CU_ASSERT_EQUAL(g.index, 3);   /* first RoCE v2 IPv4-mapped entry */
        CU_ASSERT_EQUAL(probe_gid_find(root, "rxe1", NULL, &g, &e), -ENODEV);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "'rxe1' has no RoCE v2 IPv4 GID"));
}

static void test_not_found(void)
{
        struct sockaddr_storage a = v4("192.0.2.9");
        struct probe_gid g = { .index = 77 };
        struct errbuf e = { .msg = "" };

        CU_ASSERT_EQUAL(probe_gid_find(root, NULL, (struct sockaddr *)&a, &g, &e), -ENODEV);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "'192.0.2.9'"));
        CU_ASSERT_EQUAL(g.index, 77);
        a = v4("10.0.0.1");
        CU_ASSERT_EQUAL(probe_gid_find(root, "rxe0", (struct sockaddr *)&a, &g, &e), -ENODEV);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "'rxe0' has no GID for local address '10.0.0.1'"));
        CU_ASSERT_EQUAL(probe_gid_find(root, "mlx9", (struct sockaddr *)&a, &g, &e), -ENODEV);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "'mlx9' not found"));
        CU_ASSERT_EQUAL(probe_gid_find("/nonexistent", NULL, (struct sockaddr *)&a, &g, &e), -ENODEV);
        CU_ASSERT_EQUAL(probe_gid_find(root, NULL, NULL, &g, &e), -EINVAL);
        CU_ASSERT_TRUE(probe_gid_any_device(root));
        CU_ASSERT_FALSE(probe_gid_any_device("/nonexistent"));
}

static void test_parse(void)
{
        uint8_t g[16];

        CU_ASSERT_EQUAL(probe_gid_parse("0000:0000:0000:0000:0000:ffff:0a00:0001", g), 0);
        CU_ASSERT_EQUAL(g[12], 10);
        CU_ASSERT_EQUAL(probe_gid_parse("not a gid", g), -EINVAL);
        CU_ASSERT_EQUAL(probe_gid_parse("", g), -EINVAL);
}

int suite_probe_gid(void);
int suite_probe_gid(void)
{
        CU_pSuite s = CU_add_suite("probe_gid", setup, teardown);

        if (!s ||
            !CU_add_test(s, "v2_preferred", test_v2_preferred) ||
            !CU_add_test(s, "other_device", test_other_device) ||
            !CU_add_test(s, "ipv6", test_ipv6) ||
            !CU_add_test(s, "device_only", test_device_only) ||
            !CU_add_test(s, "not_found", test_not_found) ||
            !CU_add_test(s, "parse", test_parse))
                return -1;
        return 0;
}
