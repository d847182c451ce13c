/* SPDX-License-Identifier: MIT */
/* The SQLite helper on real files: mode 0600, no symlinks, pragmas, transactions, migrations. */
#include <CUnit/CUnit.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/db.h"

static char dir[64];

static int setup(void)
{
        snprintf(dir, sizeof(dir), "/tmp/nettune-db-XXXXXX");
        return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void)
{
        char cmd[128];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        return system(cmd) == 0 ? 0 : -1;
}

static int query_int(struct db *d, const char *sql)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;

        if (db_prepare(d, sql, &st, NULL) < 0 || db_step_row(d, st, NULL) != 1)
                return -1;
        return sqlite3_column_int(st, 0);
}

static void test_open_mode_pragmas(void)
{
        struct db d;
        struct errbuf e = { 0 };
        struct stat sb;
        char path[128];
        _cleanup_stmt_ sqlite3_stmt *st = NULL;

        snprintf(path, sizeof(path), "%s/a.db", dir);
        CU_ASSERT_EQUAL_FATAL(db_open(&d, path, "the test database", DB_CREATE, 1000, &e), 0);
        CU_ASSERT_EQUAL(stat(path, &sb), 0);
        CU_ASSERT_EQUAL(sb.st_mode & 0777, 0600);
        CU_ASSERT_EQUAL(query_int(&d, "PRAGMA synchronous"), 2);        /* FULL */
        CU_ASSERT_EQUAL(query_int(&d, "PRAGMA foreign_keys"), 1);
        CU_ASSERT_EQUAL(db_prepare(&d, "PRAGMA journal_mode", &st, &e), 0);
        CU_ASSERT_EQUAL(db_step_row(&d, st, &e), 1);
        CU_ASSERT_STRING_EQUAL((const char *)sqlite3_column_text(st, 0), "wal");
        sqlite3_finalize(st);
        st = NULL;
        db_close(&d);
        db_close(&d);                   /* twice is harmless */
}

static void test_refuses_symlink(void)
{
        struct db d;
        struct errbuf e = { 0 };
        char target[128], link[128];

        snprintf(target, sizeof(target), "%s/target.db", dir);
        snprintf(link, sizeof(link), "%s/link.db", dir);
        CU_ASSERT_EQUAL_FATAL(symlink(target, link), 0);
        CU_ASSERT_EQUAL(db_open(&d, link, "the test database", DB_CREATE, 1000, &e), -EIO);
        CU_ASSERT_PTR_NULL(d.h);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "symbolic link"));
        CU_ASSERT_EQUAL(access(target, F_OK), -1);      /* nothing was created through it */
        /* an existing file behind a link is refused by SQLite too */
        CU_ASSERT_EQUAL(db_open(&d, target, "the test database", DB_CREATE, 1000, &e), 0);
        db_close(&d);
        CU_ASSERT(db_open(&d, link, "the test database", 0, 1000, &e) < 0);
}

static int failing_step(struct db *d, void *ud, struct errbuf *e)
{
        int r = db_exec(d, "INSERT INTO t VALUES (2)", e);

        return r < 0 ? r : errbuf_set(e, EINVAL, NULL, "refused on purpose");
}

static int counting_fn(struct db *d, struct errbuf *e)
{
        return db_exec(d, "INSERT INTO t VALUES (100)", e);
}

static void test_txn_and_migrate(void)
{
        static const struct db_migration steps[] = {
                { .sql = "CREATE TABLE IF NOT EXISTS t (v INTEGER)" },
                { .fn = counting_fn },
        };
        struct db d;
        struct errbuf e = { 0 };
        char path[128];
        int v = -1;

        snprintf(path, sizeof(path), "%s/m.db", dir);
        CU_ASSERT_EQUAL_FATAL(db_open(&d, path, "the test database", DB_CREATE, 1000, &e), 0);
        CU_ASSERT_EQUAL(db_version(&d, &v, &e), 0);
        CU_ASSERT_EQUAL(v, 0);
        CU_ASSERT_EQUAL(db_migrate(&d, steps, 1, &e), 0);
        CU_ASSERT_EQUAL(db_version(&d, &v, &e), 0);
        CU_ASSERT_EQUAL(v, 1);
        CU_ASSERT_EQUAL(db_migrate(&d, steps, 2, &e), 0);
        CU_ASSERT_EQUAL(db_migrate(&d, steps, 2, &e), 0);       /* nothing left to do */
        CU_ASSERT_EQUAL(query_int(&d, "SELECT count(*) FROM t WHERE v = 100"), 1);
        CU_ASSERT_TRUE(db_has_column(&d, "t", "v"));
        CU_ASSERT_FALSE(db_has_column(&d, "t", "w"));
        /* a failing function rolls back what it wrote */
        CU_ASSERT_EQUAL(db_txn(&d, failing_step, NULL, &e), -EINVAL);
        CU_ASSERT_STRING_EQUAL(e.msg, "refused on purpose");
        CU_ASSERT_EQUAL(query_int(&d, "SELECT count(*) FROM t WHERE v = 2"), 0);
        CU_ASSERT_TRUE(sqlite3_get_autocommit(d.h));
        db_close(&d);
}

static int inserting_step(struct db *d, void *ud, struct errbuf *e)
{
        static const char sql[] = "INSERT INTO g VALUES (?)";
        sqlite3_stmt *st;
        int r = db_cached(d, sql, &st, e);

        if (r < 0)
                return r;
        sqlite3_bind_int(st, 1, *(int *)ud);
        r = db_step_done(d, st, e);
        db_uncache(d, sql, st);
        return r;
}

/*
 * Several writes in one commit: each db_txn inside db_begin ... db_commit is a
 * savepoint (a failing one is undone alone); a lazy transaction commits at
 * synchronous=NORMAL and the connection is back to FULL after it; cached statements
 * are prepared once. The WAL stays when the connection closes (DB_KEEP_WAL).
 */
static void test_groups_and_cache(void)
{
        struct db d;
        struct errbuf e = { 0 };
        char path[128], wal[160];
        int v;

        snprintf(path, sizeof(path), "%s/g.db", dir);
        snprintf(wal, sizeof(wal), "%s-wal", path);
        CU_ASSERT_EQUAL_FATAL(db_open(&d, path, "the test database", DB_CREATE | DB_KEEP_WAL, 1000, &e), 0);
        CU_ASSERT_EQUAL(db_exec(&d, "CREATE TABLE g (v INTEGER); CREATE TABLE t (v INTEGER)", &e), 0);
        CU_ASSERT_EQUAL_FATAL(db_begin(&d, &e), 0);
        v = 1;
        CU_ASSERT_EQUAL(db_txn(&d, inserting_step, &v, &e), 0);
        CU_ASSERT_EQUAL(db_txn(&d, failing_step, NULL, &e), -EINVAL);  /* its insert is undone, not the group */
        v = 2;
        CU_ASSERT_EQUAL(db_txn(&d, inserting_step, &v, &e), 0);
        CU_ASSERT_FALSE(sqlite3_get_autocommit(d.h));                   /* still one open transaction */
        CU_ASSERT_EQUAL(db_commit(&d, &e), 0);
        CU_ASSERT_EQUAL(query_int(&d, "SELECT count(*) FROM g"), 2);
        CU_ASSERT_EQUAL(query_int(&d, "SELECT count(*) FROM t WHERE v = 2"), 0);
        CU_ASSERT_EQUAL_FATAL(db_begin_lazy(&d, &e), 0);
        CU_ASSERT_EQUAL(query_int(&d, "PRAGMA synchronous"), 0);        /* OFF inside */
        v = 3;
        CU_ASSERT_EQUAL(db_txn(&d, inserting_step, &v, &e), 0);
        CU_ASSERT_EQUAL(db_commit(&d, &e), 0);
        CU_ASSERT_EQUAL(query_int(&d, "PRAGMA synchronous"), 2);        /* FULL again */
        CU_ASSERT_EQUAL(query_int(&d, "SELECT sum(v) FROM g"), 6);
        db_close(&d);
        CU_ASSERT_EQUAL(access(wal, F_OK), 0);                          /* kept for the next process */
        CU_ASSERT_EQUAL_FATAL(db_open(&d, path, "the test database", DB_KEEP_WAL, 1000, &e), 0);
        CU_ASSERT_EQUAL(query_int(&d, "SELECT sum(v) FROM g"), 6);      /* read back from it */
        db_close(&d);
}

/* A checkpoint copies the WAL into the file: what was committed survives the WAL's loss. */
static void test_checkpoint_survives_wal_loss(void)
{
        struct db d;
        struct errbuf e = { 0 };
        char path[128], wal[160], shm[160];
        int v = 7;

        snprintf(path, sizeof(path), "%s/c.db", dir);
        snprintf(wal, sizeof(wal), "%s-wal", path);
        snprintf(shm, sizeof(shm), "%s-shm", path);
        CU_ASSERT_EQUAL_FATAL(db_open(&d, path, "the test database", DB_CREATE | DB_KEEP_WAL, 1000, &e), 0);
        CU_ASSERT_EQUAL(db_exec(&d, "CREATE TABLE g (v INTEGER); CREATE TABLE t (v INTEGER)", &e), 0);
        CU_ASSERT_EQUAL_FATAL(db_begin_lazy(&d, &e), 0);
        CU_ASSERT_EQUAL(db_txn(&d, inserting_step, &v, &e), 0);
        CU_ASSERT_EQUAL(db_commit(&d, &e), 0);
        CU_ASSERT_EQUAL(db_checkpoint(&d, &e), 0);
        CU_ASSERT_EQUAL(query_int(&d, "PRAGMA synchronous"), 2);        /* FULL again */
        v = 8;
        CU_ASSERT_EQUAL(db_txn(&d, inserting_step, &v, &e), 0);        /* after the checkpoint: in the WAL only */
        db_close(&d);
        CU_ASSERT_EQUAL(unlink(wal), 0);
        unlink(shm);
        CU_ASSERT_EQUAL_FATAL(db_open(&d, path, "the test database", DB_KEEP_WAL, 1000, &e), 0);
        CU_ASSERT_EQUAL(query_int(&d, "SELECT sum(v) FROM g"), 7);      /* the checkpointed row, not the later one */
        db_close(&d);
}

int suite_db(void);
int suite_db(void)
{
        CU_pSuite s = CU_add_suite("db", setup, teardown);

        if (!s ||
            !CU_add_test(s, "open_mode_pragmas", test_open_mode_pragmas) ||
            !CU_add_test(s, "refuses_symlink", test_refuses_symlink) ||
            !CU_add_test(s, "txn_and_migrate", test_txn_and_migrate) ||
            !CU_add_test(s, "groups_and_cache", test_groups_and_cache) ||
            !CU_add_test(s, "checkpoint_survives_wal_loss", test_checkpoint_survives_wal_loss))
                return -1;
        return 0;
}
