/* SPDX-License-Identifier: MIT */
/* SQLite: open with the agreed pragmas, statements, transactions, schema versions. */
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>

#include "common/db.h"

/* What SQLite's error means for the caller: ENOSPC, EROFS, EBADMSG (a damaged file), else the system's errno or EIO. */
static int errno_of(struct db *d)
{
        int code = d->h ? sqlite3_extended_errcode(d->h) : SQLITE_MISUSE;
        int sys = d->h ? sqlite3_system_errno(d->h) : 0;

        switch (code & 0xff) {
        case SQLITE_FULL:
                return ENOSPC;
        case SQLITE_READONLY:
                return EROFS;
        case SQLITE_CORRUPT:
        case SQLITE_NOTADB:
                return EBADMSG;
        case SQLITE_IOERR:
        case SQLITE_CANTOPEN:
                return sys == ENOSPC || sys == EROFS || sys == EDQUOT || sys == EACCES ? sys : EIO;
        default:
                return EIO;
        }
}

int db_fail(struct db *d, struct errbuf *e, const char *what)
{
        int err = errno_of(d);
        const char *why = err == ENOSPC || err == EDQUOT ? " (no space left on its file system)" :
                          err == EROFS ? " (its file system is read-only)" :
                          err == EACCES ? " (permission denied)" :
                          err == EBADMSG ? " (the file is damaged)" : "";

        return errbuf_set(e, err, d->path, "%s: %s%s", what, d->h ? sqlite3_errmsg(d->h) : "not open", why);
}

/*
 * SQLite syncs the directory after the first sync of every WAL it opens with
 * SQLITE_OPEN_CREATE (for the new file's directory entry): once per process even
 * when the WAL is there already (DB_KEEP_WAL). This VFS is the default one but
 * opens an existing WAL without CREATE, so that only a new WAL costs that fsync.
 */
#define WAL_VFS "nettune-wal"
static sqlite3_vfs wal_vfs;
static sqlite3_vfs *wal_base;

static int wal_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *f, int flags, int *ret_flags)
{
        if ((flags & SQLITE_OPEN_WAL) && (flags & SQLITE_OPEN_CREATE) && name && access(name, F_OK) == 0) {
                int r = wal_base->xOpen(wal_base, name, f, flags & ~SQLITE_OPEN_CREATE, ret_flags);

                if (r != SQLITE_CANTOPEN)
                        return r;       /* gone in between (another process checkpointed it away): create it */
        }
        return wal_base->xOpen(wal_base, name, f, flags, ret_flags);
}

static void wal_vfs_register(void)
{
        wal_base = sqlite3_vfs_find(NULL);
        if (!wal_base)
                return;
        wal_vfs = *wal_base;            /* pAppData too: the default VFS finds its locking style there */
        wal_vfs.zName = WAL_VFS;
        wal_vfs.pNext = NULL;
        wal_vfs.xOpen = wal_open;
        if (sqlite3_vfs_register(&wal_vfs, 0) != SQLITE_OK)
                wal_base = NULL;
}

/*
 * The file itself: created 0600, never through a symlink. Other failures (a
 * missing directory) are left to sqlite3_open_v2, which names them.
 */
static int create_file(const char *path, const char *noun, struct errbuf *e)
{
        int fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);

        if (fd < 0 && errno == ELOOP)
                return errbuf_set(e, EIO, path, "cannot open %s: it is a symbolic link", noun);
        if (fd >= 0)
                close(fd);
        return 0;
}

int db_open(struct db *d, const char *path, const char *noun, unsigned flags, int busy_ms,
            struct errbuf *e)
{
        int oflags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_NOFOLLOW;
        int r;

        *d = (struct db) { 0 };
        pthread_mutex_init(&d->cache_lock, NULL);
        snprintf(d->path, sizeof(d->path), "%s", path);
        if (flags & DB_CREATE) {
                r = create_file(path, noun, e);
                if (r < 0)
                        return r;
                oflags |= SQLITE_OPEN_CREATE;
        }
        if (flags & DB_KEEP_WAL) {
                static pthread_once_t once = PTHREAD_ONCE_INIT;

                pthread_once(&once, wal_vfs_register);
        }
        if (sqlite3_open_v2(path, &d->h, oflags, (flags & DB_KEEP_WAL) && wal_base ? WAL_VFS : NULL) != SQLITE_OK) {
                r = errbuf_set(e, EIO, path, "cannot open %s: %s", noun,
                               d->h ? sqlite3_errmsg(d->h) : "out of memory");
                db_close(d);
                return r;
        }
        sqlite3_busy_timeout(d->h, busy_ms);
        d->busy_ms = busy_ms;
        r = db_exec(d, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON;", e);
        if (r >= 0 && (flags & DB_KEEP_WAL)) {
                sqlite3_db_config(d->h, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
                sqlite3_wal_autocheckpoint(d->h, DB_WAL_PAGES);
                d->autocheckpoint = DB_WAL_PAGES;
        }
        if (r < 0)
                db_close(d);
        return r;
}

void db_close(struct db *d)
{
        if (!d)
                return;
        for (unsigned i = 0; i < DB_CACHE_MAX; i++) {
                sqlite3_finalize(d->cache[i].st);
                d->cache[i] = (struct db_cached){ 0 };
        }
        sqlite3_close_v2(d->h);         /* a statement still open closes it when finalized */
        d->h = NULL;
}

int db_exec(struct db *d, const char *sql, struct errbuf *e)
{
        char *msg = NULL;
        int r;

        if (sqlite3_exec(d->h, sql, NULL, NULL, &msg) == SQLITE_OK)
                return 0;
        r = errbuf_set(e, errno_of(d), d->path, "%s", msg ? msg : sqlite3_errmsg(d->h));
        sqlite3_free(msg);
        return r;
}

int db_prepare(struct db *d, const char *sql, sqlite3_stmt **ret, struct errbuf *e)
{
        if (sqlite3_prepare_v2(d->h, sql, -1, ret, NULL) != SQLITE_OK)
                return db_fail(d, e, "cannot prepare statement");
        return 0;
}

int db_cached(struct db *d, const char *sql, sqlite3_stmt **ret, struct errbuf *e)
{
        sqlite3_stmt *st = NULL;

        pthread_mutex_lock(&d->cache_lock);
        for (unsigned i = 0; i < DB_CACHE_MAX && !st; i++)
                if (d->cache[i].sql == sql && d->cache[i].st) {
                        st = d->cache[i].st;
                        d->cache[i].st = NULL;
                }
        pthread_mutex_unlock(&d->cache_lock);
        if (st) {
                *ret = st;
                return 0;
        }
        if (sqlite3_prepare_v3(d->h, sql, -1, SQLITE_PREPARE_PERSISTENT, ret, NULL) != SQLITE_OK)
                return db_fail(d, e, "cannot prepare statement");
        return 0;
}

void db_uncache(struct db *d, const char *sql, sqlite3_stmt *st)
{
        struct db_cached *slot = NULL;

        if (!st)
                return;
        sqlite3_reset(st);
        sqlite3_clear_bindings(st);
        pthread_mutex_lock(&d->cache_lock);
        for (unsigned i = 0; i < DB_CACHE_MAX && !slot; i++)
                if (d->cache[i].sql == sql && !d->cache[i].st)
                        slot = &d->cache[i];
        for (unsigned i = 0; i < DB_CACHE_MAX && !slot; i++)
                if (!d->cache[i].sql)
                        slot = &d->cache[i];
        if (slot)
                *slot = (struct db_cached){ sql, st };
        pthread_mutex_unlock(&d->cache_lock);
        if (!slot)
                sqlite3_finalize(st);           /* the cache is full: prepared again next time */
}

int db_step_done(struct db *d, sqlite3_stmt *st, struct errbuf *e)
{
        if (sqlite3_step(st) != SQLITE_DONE)
                return db_fail(d, e, "cannot write");
        return 0;
}

int db_step_row(struct db *d, sqlite3_stmt *st, struct errbuf *e)
{
        int rc = sqlite3_step(st);

        if (rc == SQLITE_ROW)
                return 1;
        if (rc == SQLITE_DONE)
                return 0;
        return db_fail(d, e, "cannot read");
}

void db_bind_text(sqlite3_stmt *st, int i, const char *s)
{
        if (s)
                sqlite3_bind_text(st, i, s, -1, SQLITE_STATIC);
        else
                sqlite3_bind_null(st, i);
}

void db_bind_real(sqlite3_stmt *st, int i, double v)
{
        if (isnan(v))
                sqlite3_bind_null(st, i);
        else
                sqlite3_bind_double(st, i, v);
}

char *db_col_dup(sqlite3_stmt *st, int col)
{
        const unsigned char *t = sqlite3_column_text(st, col);

        return t ? strdup((const char *)t) : NULL;
}

void db_col_copy(sqlite3_stmt *st, int col, char *buf, size_t size)
{
        const unsigned char *t = sqlite3_column_text(st, col);

        snprintf(buf, size, "%s", t ? (const char *)t : "");
}

double db_col_real(sqlite3_stmt *st, int col)
{
        return sqlite3_column_type(st, col) == SQLITE_NULL ? NAN : sqlite3_column_double(st, col);
}

/* Statements the transactions below run again and again: prepared once (db_cached). */
static const char sql_begin[] = "BEGIN IMMEDIATE", sql_commit[] = "COMMIT", sql_rollback[] = "ROLLBACK",
                  sql_savepoint[] = "SAVEPOINT db_txn", sql_release[] = "RELEASE db_txn",
                  sql_rollback_to[] = "ROLLBACK TO db_txn";

/* Run one cached statement without results; e may be NULL. */
static int run(struct db *d, const char *sql, struct errbuf *e)
{
        sqlite3_stmt *st;
        int r = db_cached(d, sql, &st, e);

        if (r < 0)
                return r;
        r = sqlite3_step(st) == SQLITE_DONE ? 0 : db_fail(d, e, sql);
        db_uncache(d, sql, st);
        return r;
}

/*
 * synchronous=FULL (every commit fsyncs) or OFF (none does, and checkpoints sync
 * nothing). Never from a cached statement: SQLite applies this pragma when the
 * statement is prepared, not each time it runs.
 */
static int set_synchronous(struct db *d, bool full, struct errbuf *e)
{
        return db_exec(d, full ? "PRAGMA synchronous=FULL" : "PRAGMA synchronous=OFF", e);
}

void db_warm(struct db *d, const char *const *sqls, unsigned n)
{
        static const char *const own[] = { sql_begin, sql_commit, sql_savepoint, sql_release };
        sqlite3_stmt *st;

        for (unsigned i = 0; i < n + ARRAY_SIZE(own); i++) {
                const char *sql = i < n ? sqls[i] : own[i - n];

                if (db_cached(d, sql, &st, NULL) >= 0)
                        db_uncache(d, sql, st);
        }
}

int db_begin(struct db *d, struct errbuf *e)
{
        return run(d, sql_begin, e);
}

static void end_lazy(struct db *d);

int db_begin_lazy(struct db *d, struct errbuf *e)
{
        int r = set_synchronous(d, false, e);

        /* No checkpoint while nothing syncs (the WAL first, then the file: db_checkpoint does both). */
        if (r >= 0 && d->autocheckpoint)
                sqlite3_wal_autocheckpoint(d->h, 0);
        if (r >= 0)
                r = db_begin(d, e);
        d->lazy = true;
        if (r < 0)
                end_lazy(d);
        return r;
}

/* Back to fsync at every commit after a lazy transaction. */
static void end_lazy(struct db *d)
{
        if (d->lazy) {
                d->lazy = false;
                set_synchronous(d, true, NULL);
                if (d->autocheckpoint)
                        sqlite3_wal_autocheckpoint(d->h, d->autocheckpoint);
        }
}

int db_commit(struct db *d, struct errbuf *e)
{
        int r = run(d, sql_commit, e);

        if (r < 0)
                db_rollback(d);
        end_lazy(d);
        return r;
}

void db_rollback(struct db *d)
{
        if (!sqlite3_get_autocommit(d->h))
                run(d, sql_rollback, NULL);
        end_lazy(d);
}

/* fn inside the transaction already open: a savepoint, rolled back alone when fn fails. */
static int savepoint(struct db *d, int (*fn)(struct db *d, void *ud, struct errbuf *e), void *ud,
                     struct errbuf *e)
{
        int r = run(d, sql_savepoint, e);

        if (r < 0)
                return r;
        r = fn(d, ud, e);
        if (r < 0) {
                run(d, sql_rollback_to, NULL);
                run(d, sql_release, NULL);
                return r;
        }
        return run(d, sql_release, e);
}

int db_txn(struct db *d, int (*fn)(struct db *d, void *ud, struct errbuf *e), void *ud,
           struct errbuf *e)
{
        int r;

        if (!sqlite3_get_autocommit(d->h))
                return savepoint(d, fn, ud, e);
        r = db_begin(d, e);

        if (r < 0)
                return r;
        r = fn(d, ud, e);
        if (r < 0) {
                db_rollback(d);
                return r;
        }
        return db_commit(d, e);
}

int db_version(struct db *d, int *ret, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int r = db_prepare(d, "PRAGMA user_version", &st, e);

        if (r >= 0)
                r = db_step_row(d, st, e);
        if (r == 0)
                r = db_fail(d, e, "cannot read the schema version");
        if (r < 0)
                return r;
        *ret = sqlite3_column_int(st, 0);
        return 0;
}

bool db_has_column(struct db *d, const char *table, const char *column)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;

        if (sqlite3_prepare_v2(d->h, "SELECT count(*) FROM pragma_table_info(?) WHERE name = ?", -1, &st,
                               NULL) != SQLITE_OK)
                return false;
        sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
        return sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
}

int db_migrate(struct db *d, const struct db_migration *steps, unsigned n, struct errbuf *e)
{
        char bump[64];
        int v, r = db_version(d, &v, e);

        for (unsigned i = v < 0 ? 0 : (unsigned)v; r >= 0 && i < n; i++) {
                r = db_begin(d, e);
                if (r >= 0)
                        r = db_version(d, &v, e);       /* another process may have done it */
                if (r >= 0 && v > (int)i) {
                        db_rollback(d);
                        continue;
                }
                if (r >= 0)
                        r = steps[i].sql ? db_exec(d, steps[i].sql, e) : steps[i].fn(d, e);
                snprintf(bump, sizeof(bump), "PRAGMA user_version = %u", i + 1);
                if (r >= 0)
                        r = db_exec(d, bump, e);
                if (r < 0) {
                        db_rollback(d);
                        break;
                }
                r = db_commit(d, e);
        }
        return r;
}

/* fsync one of the connection's files (SQLITE_FCNTL_FILE_POINTER: the database, _JOURNAL_POINTER: the WAL). */
static int sync_file(struct db *d, int op, struct errbuf *e)
{
        sqlite3_file *f = NULL;

        if (sqlite3_file_control(d->h, "main", op, &f) != SQLITE_OK)
                return errbuf_set(e, EIO, d->path, "checkpoint: cannot reach the file to sync it");
        if (!f || !f->pMethods)
                return 0;               /* not open: nothing to sync */
        if (f->pMethods->xSync(f, SQLITE_SYNC_NORMAL) != SQLITE_OK)
                return errbuf_set(e, errno ? errno : EIO, d->path, "checkpoint: fsync: %s",
                                  strerror(errno ? errno : EIO));
        return 0;
}

int db_sync_wal(struct db *d, struct errbuf *e)
{
        return sync_file(d, SQLITE_FCNTL_JOURNAL_POINTER, e);
}

#define CHECKPOINT_LOCKED_TRIES 5000   /* 1 ms apart: another thread's statement on this connection ends */

/* SQLITE_CHECKPOINT_TRUNCATE, again while a statement of this connection (another thread's read) is open. */
static int checkpoint_truncate(struct db *d)
{
        struct timespec ms = { 0, 1000000 };
        int r = SQLITE_LOCKED;

        for (unsigned i = 0; i < CHECKPOINT_LOCKED_TRIES && r == SQLITE_LOCKED; i++) {
                if (i)
                        nanosleep(&ms, NULL);
                r = sqlite3_wal_checkpoint_v2(d->h, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
        }
        return r;
}

/*
 * The syncs SQLite would make, made here once each: with synchronous=OFF for the
 * copy, the WAL is synced first (so that a copy torn by a power loss is made again
 * from it), the pages copied, the database file synced; then the WAL is emptied, so
 * that it never holds frames the file has already (a WAL torn later could otherwise
 * bring back older ones of them over the file's newer pages).
 */
int db_checkpoint(struct db *d, struct errbuf *e)
{
        int r = set_synchronous(d, false, e);

        if (r >= 0)
                r = sync_file(d, SQLITE_FCNTL_JOURNAL_POINTER, e);
        if (r >= 0) {
                int k = checkpoint_truncate(d);

                if (k == SQLITE_BUSY)
                        r = errbuf_set(e, EBUSY, d->path, "checkpoint: a reader of another process held the WAL "
                                       "for %d ms", d->busy_ms);
                else if (k != SQLITE_OK)
                        r = db_fail(d, e, "checkpoint");
        }
        if (r >= 0)
                r = sync_file(d, SQLITE_FCNTL_FILE_POINTER, e);
        set_synchronous(d, true, NULL);
        return r;
}
