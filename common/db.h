/* SPDX-License-Identifier: MIT */
/*
 * The one SQLite helper of the agent's journal and the controller's store.
 *
 * db_open creates the file 0600 (never through a symlink: O_NOFOLLOW, then
 * SQLITE_OPEN_NOFOLLOW), and sets the agreed pragmas on the connection: WAL,
 * synchronous=FULL, foreign keys, a busy timeout. Statements are prepared with
 * db_prepare and always finalized by their owner (the _cleanup_stmt_ attribute);
 * db_step_* never finalize. A statement a connection runs again and again comes
 * from db_cached and goes back with db_uncache (prepared once per connection).
 * db_txn runs a function inside BEGIN IMMEDIATE ... COMMIT and rolls back when it
 * fails; inside a transaction already open (db_begin ... db_commit: several writes
 * made durable by one commit), it runs in a savepoint that is rolled back alone
 * when the function fails. db_migrate brings the schema to the
 * newest version (PRAGMA user_version), one step at a time, each in its own
 * transaction.
 */
#pragma once

#include <pthread.h>
#include <sqlite3.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/errbuf.h"

#define DB_PATH_MAX 512
#define DB_CACHE_MAX 24

struct db {
        sqlite3 *h;
        char path[DB_PATH_MAX];
        bool lazy;                      /* the open transaction commits without fsync (db_begin_lazy) */
        int autocheckpoint;             /* WAL pages that start a checkpoint (DB_KEEP_WAL), 0: SQLite's own */
        int busy_ms;                    /* how long a lock of another process is waited for */
        pthread_mutex_t cache_lock;
        struct db_cached {
                const char *sql;        /* the statement's text, a string literal: its address is the key */
                sqlite3_stmt *st;       /* NULL while a caller has it */
        } cache[DB_CACHE_MAX];
};

enum {
        DB_CREATE = 1u << 0,            /* create the file (0600) when missing */
        /*
         * A short-lived process writing a little: keep the WAL when the connection
         * closes instead of checkpointing it into the file then (two fsyncs and a
         * copy each time); it is checkpointed once it holds DB_WAL_PAGES pages. The
         * next opener reads back at most that much.
         */
        DB_KEEP_WAL = 1u << 1,
};
#define DB_WAL_PAGES 128

/*
 * Open path; `noun` names it in messages ("cannot open <noun>: ..."). On failure
 * d->h is NULL and e says why (-EIO, or -errno of the file creation).
 */
int db_open(struct db *d, const char *path, const char *noun, unsigned flags, int busy_ms,
            struct errbuf *e);
void db_close(struct db *d);            /* accepts a closed or zeroed handle */

/*
 * e := "<path>: <what>: <sqlite's message>[: why]"; returns -ENOSPC (disk full), -EROFS
 * (read-only file system), -EBADMSG (a damaged file), else the system's errno or -EIO.
 */
int db_fail(struct db *d, struct errbuf *e, const char *what);

/*
 * Copy the whole WAL into the database file, sync it and empty the WAL
 * (SQLITE_CHECKPOINT_TRUNCATE, waiting for readers of other processes with the busy
 * timeout, for statements of this connection on other threads to end): what the
 * file holds then survives the loss or corruption of the WAL, and the WAL never
 * holds frames older than the file's pages. -EBUSY when a reader held it.
 */
int db_checkpoint(struct db *d, struct errbuf *e);

/* One or more statements without results. */
int db_exec(struct db *d, const char *sql, struct errbuf *e);
int db_prepare(struct db *d, const char *sql, sqlite3_stmt **ret, struct errbuf *e);
/*
 * The connection's prepared statement for sql (a string literal), ready to bind;
 * give it back with db_uncache (reset, bindings cleared), never finalize it. Two
 * threads asking at once get two statements.
 */
int db_cached(struct db *d, const char *sql, sqlite3_stmt **ret, struct errbuf *e);
void db_uncache(struct db *d, const char *sql, sqlite3_stmt *st);
/*
 * Prepare sqls[0..n) (the callers' own static strings) and the statements of
 * db_txn()/db_begin()/db_commit() into the cache ahead of their first use: a
 * process that opens its database on one thread while another plans. Best effort.
 */
void db_warm(struct db *d, const char *const *sqls, unsigned n);

/* Step a statement expected to finish (INSERT/UPDATE/DELETE): 0 or -EIO. */
int db_step_done(struct db *d, sqlite3_stmt *st, struct errbuf *e);
/* Step a query: 1 row, 0 done, -EIO. */
int db_step_row(struct db *d, sqlite3_stmt *st, struct errbuf *e);

static inline void db_finalizep(sqlite3_stmt **s)
{
        sqlite3_finalize(*s);
}
#define _cleanup_stmt_ _cleanup_(db_finalizep)

/* Bind helpers: text NULL binds NULL; a NaN real binds NULL. The text is not copied. */
void db_bind_text(sqlite3_stmt *st, int i, const char *s);
void db_bind_real(sqlite3_stmt *st, int i, double v);

/* Column helpers: a copy (NULL for SQL NULL, caller frees); into a buffer ("" for NULL); NaN for NULL. */
char *db_col_dup(sqlite3_stmt *st, int col);
void db_col_copy(sqlite3_stmt *st, int col, char *buf, size_t size);
double db_col_real(sqlite3_stmt *st, int col);

/* Transactions. db_rollback never fails (nothing to report). */
int db_begin(struct db *d, struct errbuf *e);           /* BEGIN IMMEDIATE */
/*
 * The same for writes nothing waits on: their commit does not fsync (synchronous=
 * OFF for it, and no automatic checkpoint); the next durable commit, or
 * db_checkpoint(), makes them durable too. A crash of the process loses nothing; a
 * power loss may lose them, never more.
 */
int db_begin_lazy(struct db *d, struct errbuf *e);
int db_commit(struct db *d, struct errbuf *e);          /* COMMIT; rolls back when it fails */
/*
 * The lazy commits so far made durable at once: the WAL synced (one fsync, what a
 * commit of db_begin() makes), without copying it into the database file.
 */
int db_sync_wal(struct db *d, struct errbuf *e);
void db_rollback(struct db *d);
/* fn inside BEGIN IMMEDIATE ... COMMIT; ROLLBACK when fn or the commit fails. Inside a transaction: a savepoint. */
int db_txn(struct db *d, int (*fn)(struct db *d, void *ud, struct errbuf *e), void *ud,
           struct errbuf *e);

/* One schema step: SQL, or a function (for steps SQL cannot say, e.g. "add a column if missing"). */
struct db_migration {
        const char *sql;
        int (*fn)(struct db *d, struct errbuf *e);
};

/*
 * Run steps[v..n-1] where v is the file's user_version, each with the bump of
 * user_version in one transaction. Steps must be idempotent over files made
 * before versions were recorded (CREATE TABLE IF NOT EXISTS, column checks).
 */
int db_migrate(struct db *d, const struct db_migration *steps, unsigned n, struct errbuf *e);
/* The file's user_version. */
int db_version(struct db *d, int *ret, struct errbuf *e);
/* Does table.column exist? */
bool db_has_column(struct db *d, const char *table, const char *column);
