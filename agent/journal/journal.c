/* SPDX-License-Identifier: MIT */
#include <assert.h>
#include <ctype.h>
#include <sys/stat.h>
#include <time.h>

#include "agent/journal/journal_internal.h"
#include "common/statedir.h"
#include "policies/json/jsonw.h"

/*
 * The open batch: every write is a record of it (journal.h, "Write-ahead"), one SQLite
 * transaction begun by its first record without an fsync of its own; what its records
 * hold decides how journal_barrier() makes it durable.
 */
struct batch {
        unsigned records;               /* records since the last barrier */
        bool way_back;                  /* a snapshot (SNAPSHOTTED, APPLYING): into the database file */
        bool run_end;                   /* a final state or pending confirmation: the run's end, into the file */
        bool sync;                      /* a record recovery reads: beyond APPLIED and VERIFYING */
        int64_t begun;                  /* a transaction began: the marker names it in flight (0: none) */
        char *kind, *policy, *changes;  /* what the marker says of it (owned) */
        int64_t ended;                  /* a transaction ended: the marker clears it (0: none) */
};

struct journal {
        struct db db;
        char dir[DB_PATH_MAX];          /* the state directory, when its marker is kept (journal_open) */
        struct batch batch;
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

static const char schema_v1[] =
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

/* Columns added after the first release: a journal from before gets them here. */
static int add_missing_columns(struct db *d, struct errbuf *e)
{
        if (db_has_column(d, "transactions", "restores_json"))
                return 0;
        return db_exec(d, "ALTER TABLE transactions ADD COLUMN restores_json TEXT", e);
}

/* What a transaction does to the layers when it commits (journal_set_layer). */
static int add_layer_columns(struct db *d, struct errbuf *e)
{
        int r = 0;

        if (!db_has_column(d, "transactions", "layer"))
                r = db_exec(d, "ALTER TABLE transactions ADD COLUMN layer TEXT", e);
        if (r >= 0 && !db_has_column(d, "transactions", "layer_prev"))
                r = db_exec(d, "ALTER TABLE transactions ADD COLUMN layer_prev INTEGER", e);
        return r;
}

static int add_request_hash(struct db *d, struct errbuf *e)
{
        if (db_has_column(d, "transactions", "request_hash"))
                return 0;
        return db_exec(d, "ALTER TABLE transactions ADD COLUMN request_hash TEXT", e);
}

static const struct db_migration migrations[] = {
        { .sql = schema_v1 },
        { .fn = add_missing_columns },
        { .sql = "ALTER TABLE transactions ADD COLUMN idempotency_key TEXT;"
                 "CREATE INDEX IF NOT EXISTS transactions_idempotency_key ON transactions(idempotency_key);" },
        { .sql = "ALTER TABLE transactions ADD COLUMN saves_json TEXT" },
        /* journal_unfinished() without reading the whole history; the rollback's latency */
        { .sql = "CREATE INDEX IF NOT EXISTS transactions_unfinished ON transactions(id)"
                 " WHERE state NOT IN ('committed', 'rolled_back', 'failed');"
                 "ALTER TABLE transactions ADD COLUMN rollback_ms REAL;"
                 "CREATE INDEX IF NOT EXISTS transactions_rollbacks ON transactions(rollback_ms)"
                 " WHERE rollback_ms IS NOT NULL" },
        /* One row per transaction for its snapshot (one B-tree insert, not two per target), in order. */
        { .sql = "CREATE TABLE IF NOT EXISTS snapshot_sets ("
                 " tx INTEGER PRIMARY KEY REFERENCES transactions(id), rows_json TEXT NOT NULL);"
                 "INSERT OR IGNORE INTO snapshot_sets (tx, rows_json)"
                 " SELECT tx, json_group_array(json_object('fields', fields, 'kind', kind, 'state', json(state_json),"
                 " 'target', target)) FROM (SELECT * FROM snapshots ORDER BY tx, rowid) GROUP BY tx;"
                 "DROP TABLE snapshots;" },
        /*
         * The change list apart from the row every step rewrites: a state change then
         * writes a row of a few hundred bytes, not one with kilobytes of overflow pages.
         */
        { .sql = "CREATE TABLE IF NOT EXISTS transaction_changes ("
                 " tx INTEGER PRIMARY KEY REFERENCES transactions(id), changes_json TEXT NOT NULL);"
                 "INSERT OR IGNORE INTO transaction_changes (tx, changes_json)"
                 " SELECT id, changes_json FROM transactions WHERE changes_json IS NOT NULL;"
                 "ALTER TABLE transactions DROP COLUMN changes_json;" },
        /* Only keyed transactions (the API's) in the key's index: a CLI apply writes one page less. */
        { .sql = "DROP INDEX IF EXISTS transactions_idempotency_key;"
                 "CREATE INDEX transactions_idempotency_key ON transactions(idempotency_key)"
                 " WHERE idempotency_key IS NOT NULL;" },
        /*
         * Layers (journal_layers.c): every version of every layer, and the value each
         * field had before nettune first took it. A journal from before opens as one
         * layer (its newest committed policy); the values before come from its oldest
         * snapshots.
         */
        { .sql = "CREATE TABLE IF NOT EXISTS layer_versions (id INTEGER PRIMARY KEY AUTOINCREMENT,"
                 " rev INTEGER NOT NULL, name TEXT NOT NULL, policy_json TEXT, prev INTEGER NOT NULL DEFAULT 0);"
                 "CREATE INDEX IF NOT EXISTS layer_versions_name ON layer_versions(name, id);"
                 "INSERT INTO layer_versions (rev, name, policy_json, prev)"
                 " SELECT rev, json_extract(policy_json, '$.metadata.name'), policy_json, 0 FROM revisions"
                 " WHERE policy_json IS NOT NULL AND json_valid(policy_json)"
                 " AND rev = (SELECT MAX(rev) FROM revisions);"
                 "CREATE TABLE IF NOT EXISTS originals ("
                 " kind INTEGER NOT NULL, target TEXT NOT NULL, field INTEGER NOT NULL, tx INTEGER NOT NULL,"
                 " state_json TEXT NOT NULL, PRIMARY KEY (kind, target, field));"
                 "INSERT OR IGNORE INTO originals (kind, target, field, tx, state_json)"
                 " WITH RECURSIVE bits(b) AS (VALUES(0) UNION ALL SELECT b + 1 FROM bits WHERE b < 30)"
                 " SELECT json_extract(r.value, '$.kind'), json_extract(r.value, '$.target'), bits.b, s.tx,"
                 " json_extract(r.value, '$.state') FROM snapshot_sets s, json_each(s.rows_json) r, bits"
                 " WHERE (json_extract(r.value, '$.fields') >> bits.b) & 1 ORDER BY s.tx, r.key, bits.b;" },
        { .fn = add_layer_columns },
        /* The digest of the keyed request (operation, parameters, body): one key means one request. */
        { .fn = add_request_hash },
};

/* The statements a transaction writes with, prepared once per connection (db_cached; journal_warm). */
static const char sql_step[] = "INSERT INTO steps (tx, state, at_ms) VALUES (?, ?, ?)";
static const char sql_begin_tx[] = "INSERT INTO transactions (kind, policy_name, policy_json, state,"
                                   " started_ms, idempotency_key, request_hash) VALUES (?, ?, ?, 'planned', ?, ?, ?)";
static const char sql_changes[] = "INSERT INTO transaction_changes (tx, changes_json) VALUES (?, ?)";
static const char sql_revision[] = "INSERT INTO revisions (tx, policy_json, committed_ms)"
                                   " SELECT id, policy_json, ? FROM transactions WHERE id = ?";
static const char sql_record[] = "UPDATE transactions SET state = ?1,"
        " result = COALESCE(?2, result), exit_code = CASE WHEN ?2 IS NULL THEN exit_code ELSE ?3 END,"
        " error = COALESCE(?4, error),"
        " probe_json = COALESCE(?6, probe_json), restored_by = COALESCE(?7, restored_by),"
        " confirm_deadline_ms = CASE WHEN ?8 > 0 THEN ?8 ELSE confirm_deadline_ms END,"
        " restores_json = COALESCE(?11, restores_json), saves_json = COALESCE(?12, saves_json),"
        " rollback_ms = COALESCE(?13, rollback_ms),"
        " finished_ms = ?9 WHERE id = ?10";
/* journal_unfinished()'s query (journal_read.c): warmed with the writes' statements. */
const char journal_sql_unfinished[] = "SELECT id FROM transactions WHERE state NOT IN"
                                     " ('committed', 'rolled_back', 'failed') ORDER BY id";
static const char sql_snapshot[] = "INSERT OR REPLACE INTO snapshot_sets (tx, rows_json) VALUES (?, ?)";

bool journal_key_valid(const char *key)
{
        size_t n = key ? strlen(key) : 0;

        if (n == 0 || n >= JOURNAL_KEY_MAX)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!isalnum((unsigned char)key[i]) && !strchr("._:-", key[i]))
                        return false;
        return true;
}

int journal_open_named(const char *state_dir, const char *name, struct journal **ret, struct errbuf *e)
{
        struct journal *j;
        char path[DB_PATH_MAX];
        int r;

        j = calloc(1, sizeof(*j));
        if (!j)
                return -ENOMEM;
        /* Created here rather than by SQLite: it then belongs to the directory's owner,
         * and SQLite gives its -wal and -shm files the owner of the database file. */
        r = statedir_open(state_dir, name, path, sizeof(path), e);
        if (r < 0) {
                free(j);
                return r;
        }
        close(r);
        r = db_open(&j->db, path, "journal", DB_CREATE | DB_KEEP_WAL, 10000, e);
        if (r >= 0)
                r = db_migrate(&j->db, migrations, ARRAY_SIZE(migrations), e);
        if (r < 0) {
                journal_close(j);
                return r;
        }
        *ret = j;
        return 0;
}

int journal_open(const char *state_dir, struct journal **ret, struct errbuf *e)
{
        int r = journal_marker_check(state_dir, e);

        if (r >= 0)
                r = journal_open_named(state_dir, JOURNAL_FILE, ret, e);
        if (r == -EBADMSG)
                errbuf_suffix(e, "; " JOURNAL_RECOVER_HINT);
        if (r >= 0 && (r = journal_marker_create(state_dir, e)) < 0) {
                journal_close(*ret);
                *ret = NULL;
        }
        if (r >= 0)
                snprintf((*ret)->dir, sizeof((*ret)->dir), "%s", state_dir);
        return r;
}

int journal_check(struct journal *j, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        char report[400] = "";
        size_t used = 0;
        int r = db_prepare(&j->db, "PRAGMA quick_check(5)", &st, e);

        while (r >= 0 && (r = db_step_row(&j->db, st, e)) > 0) {
                const char *line = (const char *)sqlite3_column_text(st, 0);

                if (line && used < sizeof(report))
                        used += (size_t)snprintf(report + used, sizeof(report) - used, "%s%s", used ? "; " : "",
                                                 line);
        }
        for (char *p = report; *p; p++)         /* SQLite's lines, on one line */
                if (*p == '\n')
                        *p = ' ';
        if (r < 0) {
                if (r == -EBADMSG)
                        errbuf_suffix(e, "; " JOURNAL_RECOVER_HINT);
                return r;
        }
        if (streq(report, "ok"))
                return 0;
        return errbuf_set(e, EBADMSG, j->db.path, "the journal is damaged (quick_check: %s); %s", report,
                          JOURNAL_RECOVER_HINT);
}

static void batch_reset(struct batch *b)
{
        free(b->kind);
        free(b->policy);
        free(b->changes);
        *b = (struct batch){ 0 };
}

void journal_close(struct journal *j)
{
        if (!j)
                return;
        journal_barrier(j, NULL);       /* the end: nothing recorded is left behind */
        batch_reset(&j->batch);
        db_close(&j->db);
        free(j);
}

static int add_step(struct db *d, int64_t tx, enum txn_state s, int64_t now, struct errbuf *e)
{
        sqlite3_stmt *st;
        int r = db_cached(d, sql_step, &st, e);

        if (r < 0)
                return r;
        sqlite3_bind_int64(st, 1, tx);
        sqlite3_bind_text(st, 2, journal_state_name(s), -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 3, now);
        r = db_step_done(d, st, e);
        db_uncache(d, sql_step, st);
        return r;
}

struct begin_args {
        const char *kind, *name, *json, *changes, *key, *key_hash;
        int64_t *ret_tx;
};

static int do_begin(struct db *d, void *arg, struct errbuf *e)
{
        const struct begin_args *a = arg;
        int64_t now = journal_now_ms();
        sqlite3_stmt *st;
        int r = db_cached(d, sql_begin_tx, &st, e);

        if (r < 0)
                return r;
        sqlite3_bind_text(st, 1, a->kind, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, a->name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, a->json, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, now);
        db_bind_text(st, 5, a->key);
        db_bind_text(st, 6, a->key ? a->key_hash : NULL);
        r = db_step_done(d, st, e);
        db_uncache(d, sql_begin_tx, st);
        if (r < 0)
                return r;
        *a->ret_tx = sqlite3_last_insert_rowid(d->h);
        if (a->changes) {
                r = db_cached(d, sql_changes, &st, e);
                if (r < 0)
                        return r;
                sqlite3_bind_int64(st, 1, *a->ret_tx);
                sqlite3_bind_text(st, 2, a->changes, -1, SQLITE_STATIC);
                r = db_step_done(d, st, e);
                db_uncache(d, sql_changes, st);
                if (r < 0)
                        return r;
        }
        return add_step(d, *a->ret_tx, TXN_PLANNED, now, e);
}

/* fn as one record of the open batch, which the first record begins: a savepoint, undone alone when fn fails. */
static int record(struct journal *j, int (*fn)(struct db *d, void *arg, struct errbuf *e), void *arg,
                  struct errbuf *e)
{
        int r = sqlite3_get_autocommit(j->db.h) ? db_begin_lazy(&j->db, e) : 0;

        if (r >= 0)
                r = db_txn(&j->db, fn, arg, e);
        if (r >= 0)
                j->batch.records++;
        return r;
}

/* What a record of state s asks of the barrier after it. */
static void batch_note(struct batch *b, enum txn_state s)
{
        if (s == TXN_SNAPSHOTTED || s == TXN_APPLYING)
                b->way_back = true;
        else if (journal_state_final(s) || s == TXN_PENDING_CONFIRM)
                b->run_end = true;
        else if (s != TXN_APPLIED && s != TXN_VERIFYING)
                b->sync = true;         /* APPLIED and VERIFYING: recovery restores as from APPLYING */
}

int journal_begin(struct journal *j, const char *kind, const char *policy_name,
                  const char *policy_json, const char *changes_json, int64_t *ret_tx,
                  struct errbuf *e)
{
        return journal_begin_keyed(j, kind, policy_name, policy_json, changes_json, NULL, NULL, ret_tx, e);
}

int journal_begin_keyed(struct journal *j, const char *kind, const char *policy_name,
                        const char *policy_json, const char *changes_json, const char *key,
                        const char *key_hash, int64_t *ret_tx, struct errbuf *e)
{
        struct begin_args a = { kind, policy_name ? policy_name : "", policy_json, changes_json,
                                key && key[0] ? key : NULL, key_hash && key_hash[0] ? key_hash : NULL, ret_tx };
        struct batch *b = &j->batch;
        int r = record(j, do_begin, &a, e);

        if (r < 0)
                return r;
        batch_note(b, TXN_PLANNED);
        if (j->dir[0]) {                /* the marker, written by the barrier */
                free(b->kind);
                free(b->policy);
                free(b->changes);
                b->begun = *ret_tx;
                b->kind = strdup(kind);
                b->policy = strdup(a.name);
                b->changes = changes_json ? strdup(changes_json) : NULL;
        }
        return 0;
}

struct record_args {
        int64_t tx;
        enum txn_state s;
        const struct journal_result *r;
};

static int add_revision(struct db *d, int64_t tx, int64_t now, struct errbuf *e)
{
        sqlite3_stmt *st;
        int r = db_cached(d, sql_revision, &st, e);

        if (r < 0)
                return r;
        sqlite3_bind_int64(st, 1, now);
        sqlite3_bind_int64(st, 2, tx);
        r = db_step_done(d, st, e);
        db_uncache(d, sql_revision, st);
        return r;
}

static int do_record(struct db *d, void *arg, struct errbuf *e)
{
        static const struct journal_result none = { 0 };
        const struct record_args *a = arg;
        const struct journal_result *res = a->r ? a->r : &none;
        int64_t now = journal_now_ms();
        sqlite3_stmt *st;
        int r = db_cached(d, sql_record, &st, e);

        if (r < 0)
                return r;
        sqlite3_bind_text(st, 1, journal_state_name(a->s), -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, res->result, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, res->exit_code);
        sqlite3_bind_text(st, 4, res->error, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 6, res->probe_json, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 7, res->restored_by, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 8, res->confirm_deadline_ms);
        sqlite3_bind_int64(st, 9, journal_state_final(a->s) ? now : 0);
        sqlite3_bind_int64(st, 10, a->tx);
        sqlite3_bind_text(st, 11, res->restores_json, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 12, res->saves_json, -1, SQLITE_STATIC);
        if (res->rollback_ms > 0)
                sqlite3_bind_double(st, 13, res->rollback_ms);
        else
                sqlite3_bind_null(st, 13);
        r = db_step_done(d, st, e);
        db_uncache(d, sql_record, st);
        if (r < 0)
                return r;
        if (sqlite3_changes(d->h) != 1)
                return errbuf_set(e, ENOENT, d->path, "no transaction %lld", (long long)a->tx);
        r = add_step(d, a->tx, a->s, now, e);
        if (r >= 0 && a->s == TXN_COMMITTED)
                r = add_revision(d, a->tx, now, e);
        if (r >= 0 && a->s == TXN_COMMITTED)
                r = journal_layer_commit(d, a->tx, e);
        return r;
}

int journal_record(struct journal *j, int64_t tx, enum txn_state s,
                   const struct journal_result *r, struct errbuf *e)
{
        struct record_args a = { tx, s, r };
        int k = record(j, do_record, &a, e);

        if (k < 0)
                return k;
        batch_note(&j->batch, s);
        if (journal_state_final(s) && j->dir[0])
                j->batch.ended = tx;
        return 0;
}

/*
 * The marker after a commit: a transaction begun is named in flight, one ended is
 * cleared (one that began and ended in the same batch never was in flight for it).
 */
static void marker_update(struct journal *j)
{
        struct batch *b = &j->batch;

        if (b->begun && b->begun != b->ended)
                journal_marker_begin(j->dir, b->begun, b->kind, b->policy, b->changes);
        if (b->ended && b->begun != b->ended)
                journal_marker_end(j->dir, b->ended);
}

/*
 * Commit the batch (no fsync of its own), then make it as durable as its records
 * ask: the way back (a snapshot) and the end of a run are copied into the database
 * file (db_checkpoint: the WAL synced, copied, the file synced), so that they survive
 * the loss of the WAL — the way back must be, the end's copy is best effort and
 * falls back to the WAL synced; a record recovery reads otherwise has the WAL synced;
 * APPLIED and VERIFYING alone are left to the next barrier that syncs (a power loss
 * that drops them leaves APPLYING, which recovery restores the same way).
 */
int journal_barrier(struct journal *j, struct errbuf *e)
{
        struct batch *b = &j->batch;
        int r;

        if (sqlite3_get_autocommit(j->db.h)) {
                b->records = 0;
                return 0;               /* nothing recorded since the last barrier */
        }
        r = db_commit(&j->db, e);
        if (r >= 0 && j->dir[0])
                marker_update(j);
        if (r < 0)
                ;                       /* rolled back: nothing of it to make durable */
        else if (b->way_back)
                r = db_checkpoint(&j->db, e);
        else if (b->run_end)
                r = db_checkpoint(&j->db, NULL) < 0 ? db_sync_wal(&j->db, e) : 0;
        else if (b->sync)
                r = db_sync_wal(&j->db, e);
        batch_reset(b);
        return r;
}

unsigned journal_unflushed(const struct journal *j)
{
        return j ? j->batch.records : 0;
}

int journal_side_effect(struct journal *j, const char *what, struct errbuf *e)
{
        if (!journal_unflushed(j))
                return 0;
#ifdef NETTUNE_DEBUG_BARRIER
        /* A record not yet durable when a side effect starts: a barrier is missing before `what`. */
        assert(!"journal: a record is unflushed when a side effect starts (a missing journal_barrier)");
        (void)what;
#endif
        return journal_barrier(j, e);
}

struct snapshot_args {
        int64_t tx;
        const struct journal_snapshot *rows;
        unsigned n;
};

/* [{"fields": F, "kind": K, "state": STATE, "target": NAME}, ...] in the rows' order. */
static char *snapshot_text(const struct journal_snapshot *rows, unsigned n)
{
        struct jsonw_out o = { 0 };
        char num[24];

        jsonw_raw(&o, "[");
        for (unsigned i = 0; i < n; i++) {
                jsonw_raw(&o, i ? ",{\"fields\":" : "{\"fields\":");
                jsonw_raw(&o, fmt_ulong(num, rows[i].fields));
                jsonw_raw(&o, ",\"kind\":");
                jsonw_raw(&o, fmt_ulong(num, (unsigned)rows[i].kind));
                jsonw_raw(&o, ",\"state\":");
                jsonw_raw(&o, rows[i].state_json);
                jsonw_raw(&o, ",\"target\":");
                jsonw_string(&o, rows[i].target);
                jsonw_raw(&o, "}");
        }
        jsonw_raw(&o, "]");
        return jsonw_finish(&o);
}

static int do_snapshot(struct db *d, void *arg, struct errbuf *e)
{
        const struct snapshot_args *a = arg;
        struct record_args rec = { a->tx, TXN_SNAPSHOTTED, NULL };
        _cleanup_free_ char *text = snapshot_text(a->rows, a->n);
        sqlite3_stmt *st;
        int r;

        if (!text)
                return errbuf_set(e, ENOMEM, d->path, "out of memory");
        r = db_cached(d, sql_snapshot, &st, e);
        if (r < 0)
                return r;
        sqlite3_bind_int64(st, 1, a->tx);
        sqlite3_bind_text(st, 2, text, -1, SQLITE_STATIC);
        r = db_step_done(d, st, e);
        db_uncache(d, sql_snapshot, st);
        if (r >= 0)
                r = journal_originals_record(d, a->tx, e);
        return r < 0 ? r : do_record(d, &rec, e);
}

int journal_snapshot(struct journal *j, int64_t tx, const struct journal_snapshot *rows,
                     unsigned n, struct errbuf *e)
{
        struct snapshot_args a = { tx, rows, n };
        int r = record(j, do_snapshot, &a, e);

        if (r >= 0)
                batch_note(&j->batch, TXN_SNAPSHOTTED);
        return r;
}

struct layer_args {
        int64_t tx, prev;
        const char *layer;
};

static int do_set_layer(struct db *d, void *arg, struct errbuf *e)
{
        const struct layer_args *a = arg;

        return journal_layer_set(d, a->tx, a->layer, a->prev, e);
}

int journal_set_layer(struct journal *j, int64_t tx, const char *layer, int64_t prev, struct errbuf *e)
{
        struct layer_args a = { tx, prev, layer };
        int r = record(j, do_set_layer, &a, e);

        if (r >= 0)
                j->batch.sync = true;
        return r;
}

void journal_warm(struct journal *j)
{
        static const char *const sqls[] = { sql_begin_tx, sql_changes, sql_step, sql_snapshot, sql_record,
                                            sql_revision, journal_sql_unfinished };

        db_warm(&j->db, sqls, ARRAY_SIZE(sqls));
}

void journal_release_memory(struct journal *j)
{
        if (j && j->db.h)
                sqlite3_db_release_memory(j->db.h);
}

/* The reading side (journal_read.c) reaches the handle through this. */
struct db *journal_db(struct journal *j)
{
        return &j->db;
}
