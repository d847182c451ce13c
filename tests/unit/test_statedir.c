/* SPDX-License-Identifier: MIT */
/* The state directory: created when missing; files root creates in a directory that
 * another user owns belong to that user (so the service running as it can open them). */
#include <CUnit/CUnit.h>
#include <sys/stat.h>

#include "common/statedir.h"

static void test_owner_follows_directory(void)
{
        char dir[] = "/tmp/nettune-statedir.XXXXXX", sub[64], path[128];
        struct errbuf e = { 0 };
        struct stat st;
        int fd;

        CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
        snprintf(sub, sizeof(sub), "%s/state", dir);
        fd = statedir_open(sub, "lock", path, sizeof(path), &e);        /* creates the directory */
        CU_ASSERT_FATAL(fd >= 0);
        close(fd);
        CU_ASSERT(stat(sub, &st) == 0 && (st.st_mode & 07777) == 0700);
        CU_ASSERT(stat(path, &st) == 0 && (st.st_mode & 07777) == 0600);
        if (geteuid() == 0) {
                /* a service user's directory: root's new file goes to that user */
                CU_ASSERT_FATAL(chown(sub, 65534, 65534) == 0);
                fd = statedir_open(sub, "journal.db", path, sizeof(path), &e);
                CU_ASSERT_FATAL(fd >= 0);
                close(fd);
                CU_ASSERT(stat(path, &st) == 0 && st.st_uid == 65534 && st.st_gid == 65534);
                /* an existing file of root's is handed over too */
                snprintf(path, sizeof(path), "%s/lock", sub);
                fd = statedir_open(sub, "lock", path, sizeof(path), &e);
                CU_ASSERT_FATAL(fd >= 0);
                close(fd);
                CU_ASSERT(stat(path, &st) == 0 && st.st_uid == 65534);
        }
        snprintf(path, sizeof(path), "rm -rf '%s'", dir);
        CU_ASSERT(system(path) == 0);
        CU_ASSERT(statedir_open("/proc/nettune-no-such-dir", "lock", path, sizeof(path), &e) < 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "cannot create state directory"));
}

int suite_statedir(void);
int suite_statedir(void)
{
        CU_pSuite s = CU_add_suite("statedir", NULL, NULL);

        if (!s || !CU_add_test(s, "owner_follows_directory", test_owner_follows_directory))
                return -1;
        return 0;
}
