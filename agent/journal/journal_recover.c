/* SPDX-License-Identifier: MIT */
/*
 * A damaged journal (a torn page, a WAL lost with a checkpoint half done): every row
 * that can still be read goes into a fresh journal, table by table in row order, and
 * the fresh journal takes its place; the damaged one is kept beside it. A table read
 * that meets a damaged page goes on after it where SQLite lets it (rows further on,
 * found by their rowid), and says that rows were lost.
 */
#include <fcntl.h>
#include <time.h>

#include "agent/journal/journal_internal.h"

#define RECOVERING JOURNAL_FILE ".recovering"
#define RESUME_TRIES 24                 /* seeks past a damaged page, each twice as far */

const char *const journal_recover_tables[] = {
        "transactions", "steps", "transaction_changes", "snapshot_sets", "revisions", "layer_versions",
        "originals", NULL,
};

/* "INSERT INTO t (c1, ...) VALUES (?, ...)" for the columns of the old row that the new table has. */
static int insert_sql(struct db *to, const char *table, sqlite3_stmt *from, char *sql, size_t size, int *map)
{
        size_t used = (size_t)snprintf(sql, size, "INSERT OR IGNORE INTO %s (", table);
        int n = 0;

        for (int i = 1; i < sqlite3_column_count(from) && used < size; i++) {
                const char *name = sqlite3_column_name(from, i);

                map[i] = 0;
                if (!name || !db_has_column(to, table, name))
                        continue;
                map[i] = ++n;
                used += (size_t)snprintf(sql + used, size - used, "%s%s", n > 1 ? ", " : "", name);
        }
        for (int i = 0; i < n && used < size; i++)
                used += (size_t)snprintf(sql + used, size - used, "%s", i ? ", ?" : ") VALUES (?");
        if (used < size)
                used += (size_t)snprintf(sql + used, size - used, "%s", n ? ")" : ") VALUES ()");
        return used < size && n > 0 ? 0 : -E2BIG;
}

/* Copy the rows of one query (rowid first) into table; *last is the last rowid copied. */
static int copy_rows(sqlite3 *from, struct db *to, const char *table, long long after, long long *last,
                     unsigned long long *count)
{
        char q[160], sql[1024];
        int map[64] = { 0 }, r;
        sqlite3_stmt *src = NULL, *dst = NULL;

        snprintf(q, sizeof(q), "SELECT rowid, * FROM %s WHERE rowid > %lld ORDER BY rowid", table, after);
        if (sqlite3_prepare_v2(from, q, -1, &src, NULL) != SQLITE_OK)
                return -EBADMSG;
        while ((r = sqlite3_step(src)) == SQLITE_ROW) {
                if (!dst && (sqlite3_column_count(src) > 64 || insert_sql(to, table, src, sql, sizeof(sql), map) < 0 ||
                             sqlite3_prepare_v2(to->h, sql, -1, &dst, NULL) != SQLITE_OK))
                        break;
                for (int i = 1; i < sqlite3_column_count(src); i++)
                        if (map[i])
                                sqlite3_bind_value(dst, map[i], sqlite3_column_value(src, i));
                if (sqlite3_step(dst) == SQLITE_DONE)
                        (*count)++;
                sqlite3_reset(dst);
                *last = sqlite3_column_int64(src, 0);
        }
        sqlite3_finalize(dst);
        sqlite3_finalize(src);
        return r == SQLITE_DONE ? 0 : -EBADMSG;
}

/* One table: from its start, and past each damaged page as far as SQLite can seek. */
static void copy_table(sqlite3 *from, struct db *to, const char *table, unsigned long long *count,
                       unsigned long long *lost)
{
        long long last = 0, skip = 1;

        if (copy_rows(from, to, table, 0, &last, count) >= 0)
                return;
        (*lost)++;
        for (unsigned t = 0; t < RESUME_TRIES; t++) {
                long long before = last;

                if (copy_rows(from, to, table, last + skip, &last, count) >= 0)
                        return;         /* read to the end past the damage */
                skip = last != before ? 1 : skip * 2;
        }
}

static int copy_all(const char *old_path, struct journal *fresh, struct journal_recovery *ret)
{
        sqlite3 *from = NULL, *to = journal_db(fresh)->h;
        struct db *fresh_db = journal_db(fresh);
        unsigned i;

        if (sqlite3_open_v2(old_path, &from, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW, NULL) != SQLITE_OK) {
                sqlite3_close_v2(from);
                ret->unreadable = true;
                return 0;
        }
        sqlite3_busy_timeout(from, 10000);
        sqlite3_exec(to, "PRAGMA foreign_keys=OFF; BEGIN IMMEDIATE", NULL, NULL, NULL);
        for (i = 0; journal_recover_tables[i]; i++)
                copy_table(from, fresh_db, journal_recover_tables[i], &ret->rows[i], &ret->lost[i]);
        ret->n_tables = i;
        sqlite3_close_v2(from);
        if (sqlite3_exec(to, "COMMIT; PRAGMA foreign_keys=ON", NULL, NULL, NULL) != SQLITE_OK)
                return db_fail(journal_db(fresh), NULL, "COMMIT");
        ret->unreadable = true;
        for (i = 0; i < ret->n_tables; i++)
                ret->unreadable &= ret->rows[i] == 0;
        return 0;
}

/* rename(2) of DIR/FROM to DIR/TO when FROM exists; then the directory's entries are made durable by the caller. */
static int move(const char *dir, const char *from, const char *to, struct errbuf *e)
{
        char a[512], b[512];

        snprintf(a, sizeof(a), "%s/%s", dir, from);
        snprintf(b, sizeof(b), "%s/%s", dir, to);
        if (rename(a, b) < 0 && errno != ENOENT)
                return errbuf_set(e, errno, a, "cannot rename to '%s': %s; the damaged journal is still in place",
                                  b, strerror(errno));
        return 0;
}

static void sync_dir(const char *dir)
{
        int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

        if (fd >= 0) {
                fsync(fd);
                close(fd);
        }
}

/* The fresh journal, whole in its file (no WAL left beside it), takes the damaged one's place. */
static int swap_in(const char *dir, struct journal_recovery *ret, struct errbuf *e)
{
        static const char *const tails[] = { "", "-wal", "-shm" };
        struct timespec ts;
        char damaged[128], from[160], to[160];
        int r = 0;

        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(damaged, sizeof(damaged), JOURNAL_FILE ".damaged-%lld",
                 (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
        for (unsigned i = 0; i < ARRAY_SIZE(tails) && r >= 0; i++) {
                snprintf(from, sizeof(from), JOURNAL_FILE "%s", tails[i]);
                snprintf(to, sizeof(to), "%s%s", damaged, tails[i]);
                r = move(dir, from, to, e);
        }
        if (r >= 0)
                r = move(dir, RECOVERING, JOURNAL_FILE, e);
        sync_dir(dir);
        snprintf(ret->damaged, sizeof(ret->damaged), "%s/%s", dir, damaged);
        return r;
}

int journal_recover(const char *state_dir, struct journal_recovery *ret, struct errbuf *e)
{
        static const char *const leftovers[] = { RECOVERING, RECOVERING "-wal", RECOVERING "-shm" };
        struct journal *fresh = NULL;
        char old_path[512], path[512];
        int r;

        memset(ret, 0, sizeof(*ret));
        snprintf(old_path, sizeof(old_path), "%s/%s", state_dir, JOURNAL_FILE);
        for (unsigned i = 0; i < ARRAY_SIZE(leftovers); i++) {
                snprintf(path, sizeof(path), "%s/%s", state_dir, leftovers[i]);
                unlink(path);
        }
        r = journal_open_named(state_dir, RECOVERING, &fresh, e);
        if (r >= 0)
                r = copy_all(old_path, fresh, ret);
        if (r >= 0 && sqlite3_wal_checkpoint_v2(journal_db(fresh)->h, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL) !=
            SQLITE_OK)
                r = db_fail(journal_db(fresh), e, "checkpoint");
        journal_close(fresh);
        if (r >= 0)
                r = swap_in(state_dir, ret, e);
        for (unsigned i = 1; i < ARRAY_SIZE(leftovers); i++) {  /* the WAL and index of the checkpointed copy */
                snprintf(path, sizeof(path), "%s/%s", state_dir, leftovers[i]);
                unlink(path);
        }
        return r;
}
