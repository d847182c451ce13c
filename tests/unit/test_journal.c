/* SPDX-License-Identifier: MIT */
/* The journal against a real SQLite file in a temporary state directory. */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sqlite3.h>
#include <sys/wait.h>

#include "agent/journal/journal.h"
#include "agent/txn/txn.h"

static char dir[64];

static struct journal *open_fresh(void)
{
        struct errbuf e = { 0 };
        struct journal *j = NULL;
        char cmd[128];

        if (dir[0]) {
                snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
                CU_ASSERT_EQUAL(system(cmd), 0);
        }
        snprintf(dir, sizeof(dir), "/tmp/nettune-journal.XXXXXX");
        CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
        CU_ASSERT_EQUAL_FATAL(journal_open(dir, &j, &e), 0);
        return j;
}

static void cleanup_dir(void)
{
        char cmd[128];

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        CU_ASSERT_EQUAL(system(cmd), 0);
        dir[0] = '\0';
}

static void test_state_names(void)
{
        for (int s = 0; s < TXN_STATE_MAX; s++)
                CU_ASSERT_EQUAL(journal_state_from_name(journal_state_name(s)), s);
        CU_ASSERT_EQUAL(journal_state_from_name("bogus"), -EINVAL);
        CU_ASSERT_TRUE(journal_state_final(TXN_COMMITTED));
        CU_ASSERT_TRUE(journal_state_final(TXN_FAILED));
        CU_ASSERT_FALSE(journal_state_final(TXN_PENDING_CONFIRM));
}

static void test_lifecycle(void)
{
        struct journal *j = open_fresh();
        struct errbuf e = { 0 };
        struct journal_snapshot snap = { .target = "vA", .kind = 0, .fields = 1,
                                         .state_json = (char *)"{\"mtu\":1500}" };
        struct journal_snapshot *rows = NULL;
        struct journal_result done = { .result = "committed", .exit_code = 0 };
        struct journal_tx t;
        char *steps = NULL, *pj = NULL;
        int64_t tx = 0, rev = 0, rtx = 0;
        unsigned n = 0;

        CU_ASSERT_EQUAL(journal_begin(j, "apply", "p1", "{\"p\":1}", "[]", &tx, &e), 0);
        CU_ASSERT(tx > 0);
        CU_ASSERT_EQUAL(journal_snapshot(j, tx, &snap, 1, &e), 0);
        CU_ASSERT_EQUAL(journal_load_snapshots(j, tx, &rows, &n, &e), 0);
        CU_ASSERT_EQUAL_FATAL(n, 1);
        CU_ASSERT_STRING_EQUAL(rows[0].target, "vA");
        CU_ASSERT_STRING_EQUAL(rows[0].state_json, "{\"mtu\":1500}");
        journal_snapshots_free(rows, n);
        CU_ASSERT_EQUAL(journal_revision(j, 0, &rev, &rtx, &pj, &e), -ENOENT);
        CU_ASSERT_EQUAL(journal_record(j, tx, TXN_APPLYING, NULL, &e), 0);
        CU_ASSERT_EQUAL(journal_get(j, tx, &t, &e), 0);
        CU_ASSERT_EQUAL(t.state, TXN_APPLYING);
        CU_ASSERT_EQUAL(t.finished_ms, 0);
        journal_tx_done(&t);
        CU_ASSERT_EQUAL(journal_record(j, tx, TXN_COMMITTED, &done, &e), 0);
        CU_ASSERT_EQUAL(journal_get(j, tx, &t, &e), 0);
        CU_ASSERT_EQUAL(t.state, TXN_COMMITTED);
        CU_ASSERT_STRING_EQUAL(t.result, "committed");
        CU_ASSERT(t.finished_ms >= t.started_ms);
        journal_tx_done(&t);
        CU_ASSERT_EQUAL(journal_revision(j, 0, &rev, &rtx, &pj, &e), 0);
        CU_ASSERT_EQUAL(rtx, tx);
        CU_ASSERT_STRING_EQUAL(pj, "{\"p\":1}");
        free(pj);
        CU_ASSERT_EQUAL(journal_steps_json(j, tx, &steps, &e), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(steps, "\"snapshotted\""));
        CU_ASSERT_PTR_NOT_NULL(strstr(steps, "\"committed\""));
        free(steps);
        CU_ASSERT_EQUAL(journal_record(j, 999, TXN_APPLYING, NULL, &e), -ENOENT);
        CU_ASSERT_EQUAL(journal_get(j, 999, &t, &e), -ENOENT);
        journal_close(j);
        cleanup_dir();
}

static int count_rows(const char *sql)
{
        char path[128];
        sqlite3 *db = NULL;
        sqlite3_stmt *st = NULL;
        int n = -1;

        snprintf(path, sizeof(path), "%s/journal.db", dir);
        if (sqlite3_open(path, &db) == SQLITE_OK && sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
                n = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
        sqlite3_close(db);
        return n;
}

/*
 * A journal from before snapshot sets and the change list's own table (schema 5):
 * its per-target rows become one set per transaction, in order; its change lists move.
 */
static void test_schema5_migration(void)
{
        struct journal *j = open_fresh();
        struct journal_snapshot *rows = NULL;
        struct errbuf e = { 0 };
        struct journal_tx t;
        int64_t tx1 = 0, tx2 = 0;
        unsigned n = 0;
        char path[128], sql[2048];
        sqlite3 *db = NULL;

        CU_ASSERT_EQUAL_FATAL(journal_begin(j, "apply", "p1", "{}", "[]", &tx1, &e), 0);
        CU_ASSERT_EQUAL_FATAL(journal_begin(j, "apply", "p2", "{}", "[]", &tx2, &e), 0);
        journal_close(j);
        snprintf(path, sizeof(path), "%s/journal.db", dir);
        snprintf(sql, sizeof(sql),
                 "DROP TABLE snapshot_sets; DROP TABLE transaction_changes;"
                 "ALTER TABLE transactions ADD COLUMN changes_json TEXT;"
                 "UPDATE transactions SET changes_json = '[{\"target\":\"vB\"}]' WHERE id = %lld;"
                 "UPDATE transactions SET changes_json = '[]' WHERE id = %lld;"
                 "CREATE TABLE snapshots (tx INTEGER NOT NULL REFERENCES transactions(id), target TEXT NOT NULL,"
                 " kind INTEGER NOT NULL, fields INTEGER NOT NULL, state_json TEXT NOT NULL,"
                 " PRIMARY KEY (tx, target, kind));"
                 "INSERT INTO snapshots VALUES (%lld, 'vB', 0, 1, '{\"mtu\":9000}'),"
                 " (%lld, 'leaf1', 1, 3, '{\"ports\":{\"swp1\":{\"mtu\":9216,\"ecn\":{\"queue3\":{\"enabled\":true}}}}}'),"
                 " (%lld, 'vA', 0, 1, '{\"mtu\":1500}'), (%lld, 'vA', 0, 1, '{\"mtu\":4200}');"
                 "PRAGMA user_version = 5;", (long long)tx2, (long long)tx1, (long long)tx2, (long long)tx2,
                 (long long)tx2, (long long)tx1);
        CU_ASSERT_EQUAL_FATAL(sqlite3_open(path, &db), SQLITE_OK);
        CU_ASSERT_EQUAL(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
        sqlite3_close(db);

        CU_ASSERT_EQUAL_FATAL(journal_open(dir, &j, &e), 0);
        CU_ASSERT_EQUAL(journal_load_snapshots(j, tx2, &rows, &n, &e), 0);
        CU_ASSERT_EQUAL_FATAL(n, 3);
        CU_ASSERT_STRING_EQUAL(rows[0].target, "vB");
        CU_ASSERT_STRING_EQUAL(rows[0].state_json, "{\"mtu\":9000}");
        CU_ASSERT_STRING_EQUAL(rows[1].target, "leaf1");
        CU_ASSERT_EQUAL(rows[1].kind, 1);
        CU_ASSERT_EQUAL(rows[1].fields, 3);
        CU_ASSERT_STRING_EQUAL(rows[1].state_json, "{\"ports\":{\"swp1\":{\"ecn\":{\"queue3\":{\"enabled\":true}},\"mtu\":9216}}}");
        CU_ASSERT_STRING_EQUAL(rows[2].target, "vA");
        CU_ASSERT_STRING_EQUAL(rows[2].state_json, "{\"mtu\":1500}");
        journal_snapshots_free(rows, n);
        CU_ASSERT_EQUAL(journal_load_snapshots(j, tx1, &rows, &n, &e), 0);
        CU_ASSERT_EQUAL_FATAL(n, 1);
        CU_ASSERT_STRING_EQUAL(rows[0].state_json, "{\"mtu\":4200}");
        journal_snapshots_free(rows, n);
        CU_ASSERT_EQUAL(journal_load_snapshots(j, 999, &rows, &n, &e), 0);
        CU_ASSERT_EQUAL(n, 0);
        CU_ASSERT_EQUAL_FATAL(journal_get(j, tx2, &t, &e), 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t.changes_json);
        CU_ASSERT_STRING_EQUAL(t.changes_json, "[{\"target\":\"vB\"}]");
        journal_tx_done(&t);
        CU_ASSERT_EQUAL_FATAL(journal_get(j, tx1, &t, &e), 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(t.changes_json);
        CU_ASSERT_STRING_EQUAL(t.changes_json, "[]");
        journal_tx_done(&t);
        journal_close(j);
        CU_ASSERT_EQUAL(count_rows("SELECT count(*) FROM sqlite_master WHERE name = 'snapshots'"), 0);
        CU_ASSERT_EQUAL(count_rows("SELECT count(*) FROM snapshot_sets"), 2);
        CU_ASSERT_EQUAL(count_rows("SELECT count(*) FROM pragma_table_info('transactions') WHERE name = 'changes_json'"), 0);
        cleanup_dir();
}

/* What a crash leaves behind is visible to the next process. */
static void test_durable_unfinished(void)
{
        struct journal *j = open_fresh();
        struct errbuf e = { 0 };
        struct journal_result pend = { .result = "pending_confirm", .exit_code = 4, .confirm_deadline_ms = 42 };
        struct journal_tx *list = NULL;
        int64_t a = 0, b = 0, c = 0, *ids = NULL;
        unsigned n = 0;

        CU_ASSERT_EQUAL(journal_begin(j, "apply", "a", "{}", NULL, &a, &e), 0);
        CU_ASSERT_EQUAL(journal_record(j, a, TXN_ROLLED_BACK, NULL, &e), 0);
        CU_ASSERT_EQUAL(journal_begin(j, "apply", "b", "{}", NULL, &b, &e), 0);
        CU_ASSERT_EQUAL(journal_record(j, b, TXN_PENDING_CONFIRM, &pend, &e), 0);
        CU_ASSERT_EQUAL(journal_begin(j, "apply", "c", "{}", NULL, &c, &e), 0);
        CU_ASSERT_EQUAL(journal_record(j, c, TXN_APPLYING, NULL, &e), 0);
        journal_close(j);

        CU_ASSERT_EQUAL_FATAL(journal_open(dir, &j, &e), 0);
        CU_ASSERT_EQUAL(journal_unfinished(j, &ids, &n, &e), 0);
        CU_ASSERT_EQUAL_FATAL(n, 2);
        CU_ASSERT_EQUAL(ids[0], b);
        CU_ASSERT_EQUAL(ids[1], c);
        free(ids);
        CU_ASSERT_EQUAL(journal_list(j, 2, &list, &n, &e), 0);
        CU_ASSERT_EQUAL_FATAL(n, 2);
        CU_ASSERT_EQUAL(list[0].id, c);
        CU_ASSERT_EQUAL(list[1].id, b);
        CU_ASSERT_EQUAL(list[1].confirm_deadline_ms, 42);
        CU_ASSERT_EQUAL(list[1].exit_code, 4);
        for (unsigned i = 0; i < n; i++)
                journal_tx_done(&list[i]);
        free(list);
        journal_close(j);
        cleanup_dir();
}

static void test_bad_dir(void)
{
        struct errbuf e = { 0 };
        struct journal *j = NULL;

        CU_ASSERT(journal_open("/proc/nonexistent/x", &j, &e) < 0);
        CU_ASSERT_PTR_NULL(j);
        CU_ASSERT(e.msg[0] != '\0');
}

static unsigned mode_of(const char *path)
{
        struct stat st;

        return lstat(path, &st) < 0 ? 0xffff : (unsigned)(st.st_mode & 07777);
}

/* The state directory is private: 0700 when created, journal.db 0600, nothing followed through a link. */
static void test_state_dir_safety(void)
{
        struct errbuf e = { 0 };
        struct journal *j = NULL;
        char sub[128], db[160], lock[160], cmd[512];
        int fd = -1;

        journal_close(open_fresh());    /* a clean parent */
        snprintf(sub, sizeof(sub), "%s/state", dir);
        snprintf(db, sizeof(db), "%s/journal.db", sub);
        snprintf(lock, sizeof(lock), "%s/lock", sub);
        CU_ASSERT_EQUAL_FATAL(journal_open(sub, &j, &e), 0);
        journal_close(j);
        CU_ASSERT_EQUAL(mode_of(sub), 0700);
        CU_ASSERT_EQUAL(mode_of(db), 0600);
        /* a journal.db left world-readable by an older version becomes 0600 */
        CU_ASSERT_EQUAL(chmod(db, 0644), 0);
        CU_ASSERT_EQUAL_FATAL(journal_open(sub, &j, &e), 0);
        journal_close(j);
        CU_ASSERT_EQUAL(mode_of(db), 0600);
        /* the lock: 0600, and never through a link */
        CU_ASSERT_EQUAL_FATAL(txlock_acquire(sub, false, &fd, &e), 0);
        txlock_release(fd);
        CU_ASSERT_EQUAL(mode_of(lock), 0600);
        CU_ASSERT_EQUAL(unlink(lock), 0);
        CU_ASSERT_EQUAL(symlink("/tmp/nettune-not-a-lock", lock), 0);
        fd = -1;
        CU_ASSERT_EQUAL(txlock_acquire(sub, false, &fd, &e), -ELOOP);
        CU_ASSERT_EQUAL(fd, -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "symbolic link"));
        CU_ASSERT_EQUAL(access("/tmp/nettune-not-a-lock", F_OK), -1);
        CU_ASSERT_EQUAL(unlink(lock), 0);
        /* journal.db through a link: refused */
        snprintf(cmd, sizeof(cmd), "mv '%s' '%s/elsewhere.db' && ln -s '%s/elsewhere.db' '%s'", db, dir, dir, db);
        CU_ASSERT_EQUAL(system(cmd), 0);
        j = NULL;
        CU_ASSERT_EQUAL(journal_open(sub, &j, &e), -ELOOP);
        CU_ASSERT_PTR_NULL(j);
        CU_ASSERT_EQUAL(unlink(db), 0);
        /* a group- or world-writable directory: refused, for the journal and the lock */
        CU_ASSERT_EQUAL(chmod(sub, 0770), 0);
        CU_ASSERT_EQUAL(journal_open(sub, &j, &e), -EPERM);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "mode 0770"));
        CU_ASSERT_EQUAL(chmod(sub, 0707), 0);
        CU_ASSERT_EQUAL(txlock_acquire(sub, false, &fd, &e), -EPERM);
        CU_ASSERT_EQUAL(access(db, F_OK), -1);  /* nothing was created */
        /* another user's directory: refused to that user; root may use it (an operator's CLI
         * next to the service) and hands what it creates to the directory's owner */
        CU_ASSERT_EQUAL(chmod(sub, 0700), 0);
        if (geteuid() == 0) {
                struct stat st;
                pid_t pid;
                int status = -1;

                CU_ASSERT_EQUAL_FATAL(chmod(dir, 0711), 0);
                pid = fork();
                CU_ASSERT_FATAL(pid >= 0);
                if (pid == 0) {
                        if (setgid(65534) < 0 || setuid(65534) < 0)
                                _exit(2);
                        _exit(journal_open(sub, &j, &e) == -EPERM && strstr(e.msg, "owned by uid 0") ? 0 : 1);
                }
                CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
                CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
                CU_ASSERT_EQUAL(access(db, F_OK), -1);
                CU_ASSERT_EQUAL_FATAL(chown(sub, 65534, 65534), 0);
                CU_ASSERT_EQUAL_FATAL(journal_open(sub, &j, &e), 0);
                journal_close(j);
                CU_ASSERT(stat(db, &st) == 0 && st.st_uid == 65534);
        }
        cleanup_dir();
}

/* How each target was restored survives the journal, with restored_by, and later records keep it. */
static void test_restores_roundtrip(void)
{
        static const char restores[] =
                "[{\"target\":\"vA\",\"kind\":\"link\",\"method\":\"snapshot\"},"
                "{\"target\":\"sw1\",\"kind\":\"switch\",\"method\":\"rollback-to-revision\"}]";
        struct journal *j = open_fresh();
        struct journal_result rb = { .result = "rolled_back", .exit_code = 1, .restored_by = "gate",
                                     .restores_json = restores };
        struct errbuf e = { 0 };
        struct journal_tx t;
        int64_t tx = 0, other = 0;

        CU_ASSERT_EQUAL(journal_begin(j, "apply", "p1", "{\"p\":1}", "[]", &tx, &e), 0);
        CU_ASSERT_EQUAL(journal_begin(j, "apply", "p2", "{\"p\":2}", "[]", &other, &e), 0);
        CU_ASSERT_EQUAL(journal_get(j, tx, &t, &e), 0);
        CU_ASSERT_PTR_NULL(t.restores_json);
        journal_tx_done(&t);
        CU_ASSERT_EQUAL(journal_record(j, tx, TXN_RESTORING, NULL, &e), 0);
        CU_ASSERT_EQUAL(journal_record(j, tx, TXN_ROLLED_BACK, &rb, &e), 0);
        CU_ASSERT_EQUAL(journal_get(j, tx, &t, &e), 0);
        CU_ASSERT_EQUAL(t.state, TXN_ROLLED_BACK);
        CU_ASSERT_STRING_EQUAL(t.restored_by, "gate");
        CU_ASSERT_PTR_NOT_NULL_FATAL(t.restores_json);
        CU_ASSERT_STRING_EQUAL(t.restores_json, restores);
        journal_tx_done(&t);
        /* a later state change without restores_json leaves it as it was */
        CU_ASSERT_EQUAL(journal_record(j, tx, TXN_FAILED, &(struct journal_result) { .error = "x" }, &e), 0);
        CU_ASSERT_EQUAL(journal_get(j, tx, &t, &e), 0);
        CU_ASSERT_STRING_EQUAL(t.restores_json ? t.restores_json : "", restores);
        journal_tx_done(&t);
        /* another transaction is untouched */
        CU_ASSERT_EQUAL(journal_get(j, other, &t, &e), 0);
        CU_ASSERT_PTR_NULL(t.restores_json);
        journal_tx_done(&t);
        journal_close(j);
        /* and it is durable: a fresh open reads the same text */
        CU_ASSERT_EQUAL_FATAL(journal_open(dir, &j, &e), 0);
        CU_ASSERT_EQUAL(journal_get(j, tx, &t, &e), 0);
        CU_ASSERT_STRING_EQUAL(t.restores_json ? t.restores_json : "", restores);
        journal_tx_done(&t);
        journal_close(j);
        cleanup_dir();
}

/* The controller's idempotency key: journaled with the transaction, found again, validated. */
/* A journal emptied (or removed) while its marker says one existed is lost, not new; without the marker it is new. */
static void test_lost_journal(void)
{
        struct journal *j = open_fresh();
        struct errbuf e = { 0 };
        char path[128], what[512], kept[512];
        int64_t tx = 0;

        CU_ASSERT_EQUAL_FATAL(journal_begin(j, "apply", "p1", "{}", "[{\"target\":\"vA\"},{\"target\":\"vA\"},"
                                            "{\"target\":\"leaf1\"}]", &tx, &e), 0);
        journal_close(j);
        CU_ASSERT_EQUAL(journal_lost(dir, what, sizeof(what)), 0);
        snprintf(path, sizeof(path), "%s/journal.db", dir);
        CU_ASSERT_EQUAL_FATAL(truncate(path, 0), 0);
        snprintf(path, sizeof(path), "%s/journal.db-wal", dir);
        unlink(path);
        CU_ASSERT_EQUAL(journal_lost(dir, what, sizeof(what)), 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(what, "apply of policy 'p1'), which may have left changed: 'vA', 'leaf1'"));
        j = NULL;
        CU_ASSERT_EQUAL(journal_open(dir, &j, &e), -ENODATA);
        CU_ASSERT_PTR_NULL(j);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "the journal is lost: it is empty (0 bytes, no WAL)"));
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "journal-recover"));
        snprintf(path, sizeof(path), "%s/journal.db", dir);
        CU_ASSERT_EQUAL(unlink(path), 0);
        CU_ASSERT_EQUAL(journal_open(dir, &j, &e), -ENODATA);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "the journal is lost: it is missing"));
        /* the recovery: the marker kept beside, then a new journal (and marker) */
        CU_ASSERT_EQUAL_FATAL(journal_marker_forget(dir, kept, sizeof(kept), &e), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(kept, "/journal.marker.lost-"));
        CU_ASSERT_EQUAL(access(kept, F_OK), 0);
        CU_ASSERT_EQUAL_FATAL(journal_open(dir, &j, &e), 0);
        journal_close(j);
        CU_ASSERT_EQUAL(journal_lost(dir, what, sizeof(what)), 0);
        cleanup_dir();
}

static void test_idempotency_key(void)
{
        struct journal *j = open_fresh();
        struct errbuf e = { 0 };
        struct journal_tx t;
        int64_t tx = 0, plain = 0, found = 0;

        CU_ASSERT_TRUE(journal_key_valid("7-0-3-9f2c1a7e"));
        CU_ASSERT_TRUE(journal_key_valid("r1.w2:n3"));
        CU_ASSERT_FALSE(journal_key_valid(""));
        CU_ASSERT_FALSE(journal_key_valid("a b"));
        CU_ASSERT_FALSE(journal_key_valid("a/b"));
        CU_ASSERT_FALSE(journal_key_valid("0123456789012345678901234567890123456789012345678901234567890123"));
        CU_ASSERT_EQUAL(journal_find_key(j, "k-1", &found, &e), -ENOENT);
        CU_ASSERT_EQUAL(journal_begin(j, "apply", "p0", "{}", "[]", &plain, &e), 0);
        CU_ASSERT_EQUAL(journal_begin_keyed(j, "apply", "p1", "{}", "[]", "k-1", "ab12", &tx, &e), 0);
        CU_ASSERT_EQUAL(journal_find_key(j, "k-1", &found, &e), 0);
        CU_ASSERT_EQUAL(found, tx);
        CU_ASSERT_EQUAL(journal_find_key(j, "k-2", &found, &e), -ENOENT);
        CU_ASSERT_EQUAL(journal_get(j, tx, &t, &e), 0);
        CU_ASSERT_STRING_EQUAL(t.idempotency_key, "k-1");
        CU_ASSERT_STRING_EQUAL(t.key_hash, "ab12");             /* the keyed request's digest, journaled with it */
        journal_tx_done(&t);
        CU_ASSERT_EQUAL(journal_get(j, plain, &t, &e), 0);
        CU_ASSERT_STRING_EQUAL(t.idempotency_key, "");
        CU_ASSERT_STRING_EQUAL(t.key_hash, "");
        journal_tx_done(&t);
        journal_close(j);
        cleanup_dir();
}

/* Transactions another connection (another process: a second agent, recovery) can read. */
static int rows_seen_elsewhere(void)
{
        char path[128];
        sqlite3 *h = NULL;
        sqlite3_stmt *st = NULL;
        int n = -1;

        snprintf(path, sizeof(path), "%s/journal.db", dir);
        if (sqlite3_open_v2(path, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
            sqlite3_prepare_v2(h, "SELECT COUNT(*) FROM transactions", -1, &st, NULL) == SQLITE_OK &&
            sqlite3_step(st) == SQLITE_ROW)
                n = sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
        sqlite3_close(h);
        return n;
}

/*
 * Write-ahead: a record is buffered (this handle reads it, no one else does) until a
 * barrier; a process killed between record and barrier loses only what was not
 * flushed; and a device write that starts with a record unflushed is caught.
 */
static void test_barrier(void)
{
        struct journal *j = open_fresh();
        struct errbuf e = { 0 };
        struct journal_tx t;
        int64_t tx = 0, lost = 0, *ids = NULL;
        unsigned n = 0;
        int status = 0;
        pid_t pid;

        CU_ASSERT_EQUAL_FATAL(journal_begin(j, "apply", "p1", "{}", "[]", &tx, &e), 0);
        CU_ASSERT_EQUAL(journal_record(j, tx, TXN_SNAPSHOTTED, NULL, &e), 0);
        CU_ASSERT_EQUAL(journal_unflushed(j), 2);
        CU_ASSERT_EQUAL(journal_get(j, tx, &t, &e), 0);         /* this handle reads its own records */
        CU_ASSERT_EQUAL(t.state, TXN_SNAPSHOTTED);
        journal_tx_done(&t);
        CU_ASSERT_EQUAL(rows_seen_elsewhere(), 0);              /* nobody else does yet */
        CU_ASSERT_EQUAL(journal_barrier(j, &e), 0);
        CU_ASSERT_EQUAL(journal_unflushed(j), 0);
        CU_ASSERT_EQUAL(rows_seen_elsewhere(), 1);
        CU_ASSERT_EQUAL(journal_barrier(j, &e), 0);             /* nothing recorded: nothing to do */
        journal_close(j);

        /* Killed between a record and its barrier: the next process finds what was flushed, no more. */
        pid = fork();
        CU_ASSERT_FATAL(pid >= 0);
        if (pid == 0) {
                struct journal *c = NULL;

                if (journal_open(dir, &c, &e) < 0 || journal_record(c, tx, TXN_APPLYING, NULL, &e) < 0 ||
                    journal_barrier(c, &e) < 0 || journal_begin(c, "apply", "p2", "{}", "[]", &lost, &e) < 0)
                        _exit(1);
                raise(SIGKILL);
        }
        CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
        CU_ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
        CU_ASSERT_EQUAL_FATAL(journal_open(dir, &j, &e), 0);
        CU_ASSERT_EQUAL(journal_unfinished(j, &ids, &n, &e), 0);
        CU_ASSERT_EQUAL_FATAL(n, 1);
        CU_ASSERT_EQUAL(ids[0], tx);
        free(ids);
        CU_ASSERT_EQUAL(journal_get(j, tx, &t, &e), 0);
        CU_ASSERT_EQUAL(t.state, TXN_APPLYING);
        journal_tx_done(&t);

        /* A side effect with a record unflushed. */
        pid = fork();
        CU_ASSERT_FATAL(pid >= 0);
        if (pid == 0) {
                struct journal *c = NULL;

                if (!freopen("/dev/null", "w", stderr) || journal_open(dir, &c, &e) < 0 ||
                    journal_record(c, tx, TXN_APPLIED, NULL, &e) < 0)
                        _exit(1);
                journal_side_effect(c, "a device write", &e);
                _exit(journal_unflushed(c) == 0 ? 0 : 2);
        }
        CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
#ifdef NETTUNE_DEBUG_BARRIER
        CU_ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);     /* the debug build's assertion */
#else
        CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);          /* else: flushed before it */
#endif
        CU_ASSERT_EQUAL(journal_side_effect(j, "a device write", &e), 0);       /* nothing unflushed here */
        journal_close(j);
        cleanup_dir();
}

int suite_journal(void);
int suite_journal(void)
{
        CU_pSuite s = CU_add_suite("journal", NULL, NULL);

        if (!s ||
            !CU_add_test(s, "state_names", test_state_names) ||
            !CU_add_test(s, "lifecycle", test_lifecycle) ||
            !CU_add_test(s, "schema5_migration", test_schema5_migration) ||
            !CU_add_test(s, "durable_unfinished", test_durable_unfinished) ||
            !CU_add_test(s, "bad_dir", test_bad_dir) ||
            !CU_add_test(s, "state_dir_safety", test_state_dir_safety) ||
            !CU_add_test(s, "restores_roundtrip", test_restores_roundtrip) ||
            !CU_add_test(s, "idempotency_key", test_idempotency_key) ||
            !CU_add_test(s, "lost_journal", test_lost_journal) ||
            !CU_add_test(s, "barrier", test_barrier))
                return -1;
        return 0;
}
