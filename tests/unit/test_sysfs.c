/* SPDX-License-Identifier: MIT */
/* Small sysfs attribute files: lines, strict decimal values, writes; on real files in a temp dir. */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>

#include "drivers/host/sysfs.h"

static char dir[64];

static int setup(void)
{
        snprintf(dir, sizeof(dir), "/tmp/nettune-sysfs.XXXXXX");
        return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void)
{
        char cmd[128];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        return system(cmd) == 0 ? 0 : -1;
}

/* Write text to DIR/name; the path into buf. */
static const char *put(const char *name, const char *text, char *buf, size_t size)
{
        FILE *f;

        snprintf(buf, size, "%s/%s", dir, name);
        f = fopen(buf, "we");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        fputs(text, f);
        fclose(f);
        return buf;
}

static void test_read(void)
{
        char path[128], line[16];
        uint64_t v = 7;
        unsigned u = 7;

        CU_ASSERT_EQUAL(sysfs_read_line(put("a", "fe80::1\nmore\n", path, sizeof(path)), line, sizeof(line)), 0);
        CU_ASSERT_STRING_EQUAL(line, "fe80::1");
        CU_ASSERT_EQUAL(sysfs_read_u64(put("b", "18446744073709551615\n", path, sizeof(path)), &v), 0);
        CU_ASSERT_EQUAL(v, UINT64_MAX);
        CU_ASSERT_EQUAL(sysfs_read_uint(put("c", "150000", path, sizeof(path)), &u), 0);
        CU_ASSERT_EQUAL(u, 150000);
        u = 7;
        CU_ASSERT_EQUAL(sysfs_read_uint(put("d", "4294967296\n", path, sizeof(path)), &u), -EBADMSG);
        CU_ASSERT_EQUAL(sysfs_read_uint(put("e", "-1\n", path, sizeof(path)), &u), -EBADMSG);
        CU_ASSERT_EQUAL(sysfs_read_uint(put("f", "12 x\n", path, sizeof(path)), &u), -EBADMSG);
        CU_ASSERT_EQUAL(sysfs_read_uint(put("g", "", path, sizeof(path)), &u), -EBADMSG);
        CU_ASSERT_EQUAL(u, 7);                  /* untouched on failure */
        snprintf(path, sizeof(path), "%s/missing", dir);
        CU_ASSERT_EQUAL(sysfs_read_uint(path, &u), -ENOENT);
}

static void test_write(void)
{
        char path[128];
        unsigned u = 0;

        put("w", "1\n", path, sizeof(path));
        CU_ASSERT_EQUAL(sysfs_write_uint(path, 4000000000u), 0);
        CU_ASSERT_EQUAL(sysfs_read_uint(path, &u), 0);
        CU_ASSERT_EQUAL(u, 4000000000u);
        snprintf(path, sizeof(path), "%s/nodir/x", dir);
        CU_ASSERT_EQUAL(sysfs_write_uint(path, 1), -ENOENT);
}

int suite_sysfs(void);
int suite_sysfs(void)
{
        CU_pSuite s = CU_add_suite("sysfs", setup, teardown);

        if (!s ||
            !CU_add_test(s, "read", test_read) ||
            !CU_add_test(s, "write", test_write))
                return -1;
        return 0;
}
