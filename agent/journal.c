/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <time.h>

#include "journal_internal.h"
#include "state_dir.h"

struct journal {
        sqlite3 *db;
        char path[512];
};

static const char *const state_names[TXN_STATE_MAX] = {
        [TXN_PLANNED] = "planned",
        [TXN_SNAPSHOTTED] = "snapshotted",
        [TXN_APPLYING] = "applying",
        [TXN_APPLIED] = "applied",
        [TXN_VERIFYING] = "verifying",
        [TXN_PENDING_CONFIRM] = "pending_confirm",
        [TXN_COMMITTED] = "committed",
        [TXN_RESTORING] = "restoring",
        [TXN_ROLLED_BACK] = "rolled_back",
        [TXN_FAILED] = "failed",
};

static const char schema[] =
        "CREATE TABLE IF NOT EXISTS transactions ("
        " id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL,"
        " policy_name TEXT NOT NULL, policy_json TEXT, state TEXT NOT NULL,"
        " result TEXT NOT NULL DEFAULT '', exit_code INTEGER NOT NULL DEFAULT -1,"
        " error TEXT, changes_json TEXT, probe_json TEXT,"
        " restored_by TEXT NOT NULL DEFAULT '', started_ms INTEGER NOT NULL,"
        " finished_ms INTEGER NOT NULL DEFAULT 0, confirm_deadline_ms INTEGER NOT NULL DEFAULT 0,"
        " restores_json TEXT);"
        "CREATE TABLE IF NOT EXISTS steps ("
        " tx INTEGER NOT NULL REFERENCES transactions(id), state TEXT NOT NULL, at_ms INTEGER NOT NULL);"
        "CREATE TABLE IF NOT EXISTS snapshots ("
        " tx INTEGER NOT NULL REFERENCES transactions(id), target TEXT NOT NULL,"
        " kind INTEGER NOT NULL, fields INTEGER NOT NULL, state_json TEXT NOT NULL,"
        " PRIMARY KEY (tx, target, kind));"
        "CREATE TABLE IF NOT EXISTS revisions ("
        " rev INTEGER PRIMARY KEY AUTOINCREMENT, tx INTEGER NOT NULL REFERENCES transactions(id),"
        " policy_json TEXT, committed_ms INTEGER NOT NULL);";

static void finalizep(sqlite3_stmt **s)
{
        sqlite3_finalize(*s);
}
#define _cleanup_stmt_ _cleanup_(finalizep)

const char *journal_state_name(enum txn_state s)
{
        return (unsigned)s < TXN_STATE_MAX ? state_names[s] : "unknown";
}

int journal_state_from_name(const char *name)
{
        for (int s = 0; s < TXN_STATE_MAX; s++)
                if (streq(state_names[s], name))
                        return s;
        return -EINVAL;
}

bool journal_state_final(enum txn_state s)
{
        return s == TXN_COMMITTED || s == TXN_ROLLED_BACK || s == TXN_FAILED;
}

int64_t journal_now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int db_error(struct journal *j, struct errbuf *e, const char *what)
{
        return errbuf_set(e, EIO, j->path, "%s: %s", what, sqlite3_errmsg(j->db));
}

static int exec_sql(struct journal *j, const char *sql, struct errbuf *e)
{
        char *msg = NULL;
        int r;

        if (sqlite3_exec(j->db, sql, NULL, NULL, &msg) == SQLITE_OK)
                return 0;
        r = errbuf_set(e, EIO, j->path, "%s", msg ? msg : sqlite3_errmsg(j->db));
        sqlite3_free(msg);
        return r;
}

static int prepare(struct journal *j, const char *sql, sqlite3_stmt **ret, struct errbuf *e)
{
        if (sqlite3_prepare_v2(j->db, sql, -1, ret, NULL) != SQLITE_OK)
                return db_error(j, e, "cannot prepare statement");
        return 0;
}

static int step_done(struct journal *j, sqlite3_stmt *s, struct errbuf *e)
{
        if (sqlite3_step(s) != SQLITE_DONE)
                return db_error(j, e, "cannot write");
        return 0;
}

/* Columns added after the first release: a journal from before gets them here. */
static int add_missing_columns(struct journal *j, struct errbuf *e)
{
        sqlite3_stmt *st = NULL;

        if (sqlite3_prepare_v2(j->db, "SELECT restores_json FROM transactions LIMIT 0", -1, &st, NULL) == SQLITE_OK) {
                sqlite3_finalize(st);
                return 0;
        }
        return exec_sql(j, "ALTER TABLE transactions ADD COLUMN restores_json TEXT", e);
}

/* journal.db: a regular file of ours, mode 0600, never through a symbolic link. */
static int create_private(const char *state_dir, struct errbuf *e)
{
        _cleanup_close_ int fd = state_dir_open(state_dir, "journal.db", O_RDWR | O_CREAT, 0600, e);
        struct stat st;

        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0)
                return errbuf_set(e, errno, state_dir, "cannot read journal.db: %s", strerror(errno));
        if (!S_ISREG(st.st_mode) || st.st_uid != geteuid())
                return errbuf_set(e, EPERM, state_dir, "journal.db is not a regular file owned by the agent's user; refusing it");
        if ((st.st_mode & 077) && fchmod(fd, 0600) < 0)
                return errbuf_set(e, errno, state_dir, "cannot make journal.db private (0600): %s", strerror(errno));
        return 0;
}

int journal_open(const char *state_dir, struct journal **ret, struct errbuf *e)
{
        struct journal *j;
        int r;

        r = state_dir_prepare(state_dir, e);
        if (r >= 0)
                r = create_private(state_dir, e);
        if (r < 0)
                return r;
        j = calloc(1, sizeof(*j));
        if (!j)
                return -ENOMEM;
        snprintf(j->path, sizeof(j->path), "%s/journal.db", state_dir);
        if (sqlite3_open_v2(j->path, &j->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                            SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
                r = errbuf_set(e, EIO, j->path, "cannot open journal: %s",
                               j->db ? sqlite3_errmsg(j->db) : "out of memory");
                journal_close(j);
                return r;
        }
        sqlite3_busy_timeout(j->db, 10000);
        r = exec_sql(j, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;", e);
        if (r >= 0)
                r = exec_sql(j, schema, e);
        if (r >= 0)
                r = add_missing_columns(j, e);
        if (r < 0) {
                journal_close(j);
                return r;
        }
        *ret = j;
        return 0;
}

void journal_close(struct journal *j)
{
        if (!j)
                return;
        sqlite3_close(j->db);
        free(j);
}

static int add_step(struct journal *j, int64_t tx, enum txn_state s, int64_t now, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int r = prepare(j, "INSERT INTO steps (tx, state, at_ms) VALUES (?, ?, ?)", &st, e);

        if (r < 0)
                return r;
        sqlite3_bind_int64(st, 1, tx);
        sqlite3_bind_text(st, 2, journal_state_name(s), -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, now);
        return step_done(j, st, e);
}

/* Run fn inside BEGIN IMMEDIATE ... COMMIT; roll back when it fails. */
static int in_txn(struct journal *j, int (*fn)(struct journal *, const void *, struct errbuf *),
                  const void *arg, struct errbuf *e)
{
        int r = exec_sql(j, "BEGIN IMMEDIATE", e);

        if (r < 0)
                return r;
        r = fn(j, arg, e);
        if (r >= 0)
                r = exec_sql(j, "COMMIT", e);
        if (r < 0)
                sqlite3_exec(j->db, "ROLLBACK", NULL, NULL, NULL);
        return r;
}

struct begin_args {
        const char *kind, *name, *json, *changes;
        int64_t *ret_tx;
};

static int do_begin(struct journal *j, const void *arg, struct errbuf *e)
{
        const struct begin_args *a = arg;
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int64_t now = journal_now_ms();
        int r = prepare(j, "INSERT INTO transactions (kind, policy_name, policy_json, changes_json, state, started_ms)"
                        " VALUES (?, ?, ?, ?, 'planned', ?)", &st, e);

        if (r < 0)
                return r;
        sqlite3_bind_text(st, 1, a->kind, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, a->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, a->json, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, a->changes, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, now);
        r = step_done(j, st, e);
        if (r < 0)
                return r;
        *a->ret_tx = sqlite3_last_insert_rowid(j->db);
        return add_step(j, *a->ret_tx, TXN_PLANNED, now, e);
}

int journal_begin(struct journal *j, const char *kind, const char *policy_name,
                  const char *policy_json, const char *changes_json, int64_t *ret_tx,
                  struct errbuf *e)
{
        struct begin_args a = { kind, policy_name ? policy_name : "", policy_json, changes_json, ret_tx };

        return in_txn(j, do_begin, &a, e);
}

struct record_args {
        int64_t tx;
        enum txn_state s;
        const struct journal_result *r;
};

static int add_revision(struct journal *j, int64_t tx, int64_t now, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int r = prepare(j, "INSERT INTO revisions (tx, policy_json, committed_ms)"
                        " SELECT id, policy_json, ? FROM transactions WHERE id = ?", &st, e);

        if (r < 0)
                return r;
        sqlite3_bind_int64(st, 1, now);
        sqlite3_bind_int64(st, 2, tx);
        return step_done(j, st, e);
}

static int do_record(struct journal *j, const void *arg, struct errbuf *e)
{
        static const struct journal_result none = { 0 };
        const struct record_args *a = arg;
        const struct journal_result *res = a->r ? a->r : &none;
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int64_t now = journal_now_ms();
        int r = prepare(j, "UPDATE transactions SET state = ?1,"
                        " result = COALESCE(?2, result), exit_code = CASE WHEN ?2 IS NULL THEN exit_code ELSE ?3 END,"
                        " error = COALESCE(?4, error), changes_json = COALESCE(?5, changes_json),"
                        " probe_json = COALESCE(?6, probe_json), restored_by = COALESCE(?7, restored_by),"
                        " confirm_deadline_ms = CASE WHEN ?8 > 0 THEN ?8 ELSE confirm_deadline_ms END,"
                        " restores_json = COALESCE(?11, restores_json),"
                        " finished_ms = ?9 WHERE id = ?10", &st, e);

        if (r < 0)
                return r;
        sqlite3_bind_text(st, 1, journal_state_name(a->s), -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, res->result, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, res->exit_code);
        sqlite3_bind_text(st, 4, res->error, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, res->changes_json, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 6, res->probe_json, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 7, res->restored_by, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 8, res->confirm_deadline_ms);
        sqlite3_bind_int64(st, 9, journal_state_final(a->s) ? now : 0);
        sqlite3_bind_int64(st, 10, a->tx);
        sqlite3_bind_text(st, 11, res->restores_json, -1, SQLITE_STATIC);
        r = step_done(j, st, e);
        if (r < 0)
                return r;
        if (sqlite3_changes(j->db) != 1)
                return errbuf_set(e, ENOENT, j->path, "no transaction %lld", (long long)a->tx);
        r = add_step(j, a->tx, a->s, now, e);
        if (r >= 0 && a->s == TXN_COMMITTED)
                r = add_revision(j, a->tx, now, e);
        return r;
}

int journal_record(struct journal *j, int64_t tx, enum txn_state s,
                   const struct journal_result *r, struct errbuf *e)
{
        struct record_args a = { tx, s, r };

        return in_txn(j, do_record, &a, e);
}

struct snapshot_args {
        int64_t tx;
        const struct journal_snapshot *rows;
        unsigned n;
};

static int do_snapshot(struct journal *j, const void *arg, struct errbuf *e)
{
        const struct snapshot_args *a = arg;
        struct record_args rec = { a->tx, TXN_SNAPSHOTTED, NULL };

        for (unsigned i = 0; i < a->n; i++) {
                _cleanup_stmt_ sqlite3_stmt *st = NULL;
                int r = prepare(j, "INSERT OR REPLACE INTO snapshots (tx, target, kind, fields, state_json)"
                                " VALUES (?, ?, ?, ?, ?)", &st, e);

                if (r < 0)
                        return r;
                sqlite3_bind_int64(st, 1, a->tx);
                sqlite3_bind_text(st, 2, a->rows[i].target, -1, SQLITE_STATIC);
                sqlite3_bind_int(st, 3, a->rows[i].kind);
                sqlite3_bind_int64(st, 4, a->rows[i].fields);
                sqlite3_bind_text(st, 5, a->rows[i].state_json, -1, SQLITE_STATIC);
                r = step_done(j, st, e);
                if (r < 0)
                        return r;
        }
        return do_record(j, &rec, e);
}

int journal_snapshot(struct journal *j, int64_t tx, const struct journal_snapshot *rows,
                     unsigned n, struct errbuf *e)
{
        struct snapshot_args a = { tx, rows, n };

        return in_txn(j, do_snapshot, &a, e);
}

/* The reading side (journal_read.c) reaches the handle through these. */
sqlite3 *journal_db(struct journal *j)
{
        return j->db;
}

const char *journal_path(struct journal *j)
{
        return j->path;
}
