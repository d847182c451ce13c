/* SPDX-License-Identifier: MIT */
/* The SQLite backend of the store: schema, writes, and its vtable. */
#include <time.h>
#include <unistd.h>

#include "controller/store/store_sqlite_internal.h"

static const char schema_v1[] =
        "CREATE TABLE IF NOT EXISTS rollouts ("
        " id INTEGER PRIMARY KEY AUTOINCREMENT, kind TEXT NOT NULL, policy_name TEXT NOT NULL,"
        " policy_doc TEXT, args TEXT, opts TEXT NOT NULL, state TEXT NOT NULL,"
        " created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, exit_code INTEGER NOT NULL,"
        " message TEXT NOT NULL DEFAULT '');"
        "CREATE TABLE IF NOT EXISTS waves ("
        " rollout_id INTEGER NOT NULL REFERENCES rollouts(id), idx INTEGER NOT NULL,"
        " state TEXT NOT NULL, started_at INTEGER NOT NULL, deadline INTEGER NOT NULL,"
        " PRIMARY KEY (rollout_id, idx));"
        "CREATE TABLE IF NOT EXISTS nodes ("
        " rollout_id INTEGER NOT NULL REFERENCES rollouts(id), seq INTEGER NOT NULL,"
        " name TEXT NOT NULL, url TEXT NOT NULL, wave INTEGER NOT NULL, state TEXT NOT NULL,"
        " tx TEXT NOT NULL, exit_code INTEGER NOT NULL, changes INTEGER NOT NULL,"
        " baseline_gbps REAL, post_gbps REAL, error TEXT NOT NULL, updated_at INTEGER NOT NULL,"
        " PRIMARY KEY (rollout_id, name));"
        "CREATE TABLE IF NOT EXISTS drift_scans ("
        " id INTEGER PRIMARY KEY AUTOINCREMENT, at INTEGER NOT NULL, nodes INTEGER NOT NULL,"
        " drifted INTEGER NOT NULL, unreachable INTEGER NOT NULL);"
        "CREATE TABLE IF NOT EXISTS drift_nodes ("
        " scan_id INTEGER NOT NULL REFERENCES drift_scans(id), name TEXT NOT NULL,"
        " reached INTEGER NOT NULL, drifted INTEGER NOT NULL, report TEXT, error TEXT NOT NULL,"
        " PRIMARY KEY (scan_id, name));";

static const struct db_migration migrations[] = {
        { .sql = schema_v1 },
        { .sql = STORE_LEASE_SCHEMA },
        { .sql = "ALTER TABLE nodes ADD COLUMN ikey TEXT NOT NULL DEFAULT ''" },
        { .sql = "ALTER TABLE nodes ADD COLUMN confirm_deadline_ms INTEGER NOT NULL DEFAULT 0;"
                 "ALTER TABLE nodes ADD COLUMN not_after_ms INTEGER NOT NULL DEFAULT 0" },
        /* Rollouts recorded before: the revisions are not known (-1). */
        { .sql = "ALTER TABLE nodes ADD COLUMN pre_rev INTEGER NOT NULL DEFAULT -1;"
                 "ALTER TABLE nodes ADD COLUMN rev INTEGER NOT NULL DEFAULT 0;"
                 "ALTER TABLE nodes ADD COLUMN undo_tx TEXT NOT NULL DEFAULT '';"
                 "ALTER TABLE nodes ADD COLUMN grp TEXT NOT NULL DEFAULT ''" },
};

static const struct store_ops sqlite_ops;

static int exec(struct sqlite_store *s, const char *sql, struct errbuf *e)
{
        if (sqlite3_exec(s->db.h, sql, NULL, NULL, NULL) != SQLITE_OK)
                return sqlite_fail(s, e, "cannot update the database");
        return 0;
}

int sqlite_store_open(const char *path, struct store **ret, struct errbuf *e)
{
        struct sqlite_store *s = calloc(1, sizeof(*s));
        int r;

        if (!s)
                return errbuf_set(e, ENOMEM, path, "out of memory");
        s->base.ops = &sqlite_ops;
        snprintf(s->base.where, sizeof(s->base.where), "%s", path);
        r = db_open(&s->db, path, "the database", DB_CREATE, 5000, e);
        if (r >= 0)
                r = db_migrate(&s->db, migrations, ARRAY_SIZE(migrations), e);
        if (r < 0) {
                sqlite_store_close(s);
                return r;
        }
        *ret = &s->base;
        return 0;
}

void sqlite_store_close(struct sqlite_store *s)
{
        if (!s)
                return;
        sqlite_lease_release(s, NULL);
        db_close(&s->db);
        store_log_free(&s->base);
        free(s);
}

static int prepare(struct sqlite_store *s, const char *sql, sqlite3_stmt **ret, struct errbuf *e)
{
        if (sqlite3_prepare_v2(s->db.h, sql, -1, ret, NULL) != SQLITE_OK)
                return sqlite_fail(s, e, "cannot prepare a query");
        return 0;
}

static int step_done(struct sqlite_store *s, sqlite3_stmt *st, struct errbuf *e)
{
        if (sqlite3_step(st) != SQLITE_DONE)
                return sqlite_fail(s, e, "cannot write to the database");
        return 0;
}

static int insert_rollout(struct sqlite_store *s, struct rollout_rec *r, struct errbuf *e)
{
        _cleanup_free_ char *opts = rollout_opts_to_json(&r->opts);
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int rc;

        if (!opts)
                return errbuf_set(e, ENOMEM, s->db.path, "out of memory");
        rc = prepare(s, "INSERT INTO rollouts (kind, policy_name, policy_doc, args, opts, state,"
                     " created_at, updated_at, exit_code, message) VALUES (?,?,?,?,?,?,?,?,?,?)", &st, e);
        if (rc < 0)
                return rc;
        sqlite3_bind_text(st, 1, r->kind, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, r->policy_name, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 3, r->policy_doc, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 4, r->args, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 5, opts, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 6, rollout_state_name(r->state), -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 7, r->created_at);
        sqlite3_bind_int64(st, 8, r->updated_at);
        sqlite3_bind_int(st, 9, r->exit_code);
        sqlite3_bind_text(st, 10, r->message, -1, SQLITE_STATIC);
        rc = step_done(s, st, e);
        if (rc >= 0)
                r->id = sqlite3_last_insert_rowid(s->db.h);
        return rc;
}

static int insert_wave(struct sqlite_store *s, const struct rollout_rec *r, unsigned i, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int rc = prepare(s, "INSERT INTO waves (rollout_id, idx, state, started_at, deadline)"
                         " VALUES (?,?,?,?,?)", &st, e);

        if (rc < 0)
                return rc;
        sqlite3_bind_int64(st, 1, r->id);
        sqlite3_bind_int(st, 2, (int)i);
        sqlite3_bind_text(st, 3, rwave_state_name(r->waves[i].state), -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, r->waves[i].started_at);
        sqlite3_bind_int64(st, 5, r->waves[i].deadline);
        return step_done(s, st, e);
}

static const char sql_node_insert[] =
        "INSERT INTO nodes (state, tx, exit_code, changes, baseline_gbps, post_gbps,"
        " error, updated_at, ikey, confirm_deadline_ms, not_after_ms, pre_rev, rev, undo_tx,"
        " rollout_id, name, seq, url, wave, grp)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
static const char sql_node_update[] =
        "UPDATE nodes SET state=?, tx=?, exit_code=?, changes=?, baseline_gbps=?,"
        " post_gbps=?, error=?, updated_at=?, ikey=?, confirm_deadline_ms=?, not_after_ms=?,"
        " pre_rev=?, rev=?, undo_tx=?"
        " WHERE rollout_id=? AND name=?";

/* One node's row (a statement prepared once per connection: a rollout writes thousands). */
static int write_node(struct sqlite_store *s, const struct rollout_rec *r, const struct rnode *n,
                      bool insert, long long now, struct errbuf *e)
{
        const char *sql = insert ? sql_node_insert : sql_node_update;
        sqlite3_stmt *st;
        int rc = db_cached(&s->db, sql, &st, e);

        if (rc < 0)
                return rc;
        sqlite3_bind_text(st, 1, rnode_state_name(n->state), -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, n->tx, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, n->exit_code);
        sqlite3_bind_int(st, 4, (int)n->changes);
        db_bind_real(st, 5, n->baseline_gbps);
        db_bind_real(st, 6, n->post_gbps);
        sqlite3_bind_text(st, 7, n->error, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 8, now);
        sqlite3_bind_text(st, 9, n->key, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 10, n->confirm_deadline_ms);
        sqlite3_bind_int64(st, 11, n->not_after_ms);
        sqlite3_bind_int64(st, 12, n->pre_rev);
        sqlite3_bind_int64(st, 13, n->rev);
        sqlite3_bind_text(st, 14, n->undo_tx, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 15, r->id);
        sqlite3_bind_text(st, 16, n->name, -1, SQLITE_STATIC);
        if (insert) {
                sqlite3_bind_int(st, 17, (int)(n - r->nodes));
                sqlite3_bind_text(st, 18, n->url, -1, SQLITE_STATIC);
                sqlite3_bind_int(st, 19, (int)n->wave);
                sqlite3_bind_text(st, 20, n->group, -1, SQLITE_STATIC);
        }
        rc = db_step_done(&s->db, st, e);
        db_uncache(&s->db, sql, st);
        return rc;
}

static int sqlite_rollout_create(struct sqlite_store *s, struct rollout_rec *r, struct errbuf *e)
{
        int rc = exec(s, "BEGIN IMMEDIATE", e);

        if (rc < 0)
                return rc;
        rc = insert_rollout(s, r, e);
        if (rc >= 0)
                rc = sqlite_lease_note_rollout(s, r->id, e);
        for (unsigned i = 0; rc >= 0 && i < r->n_waves; i++)
                rc = insert_wave(s, r, i, e);
        for (unsigned i = 0; rc >= 0 && i < r->n_nodes; i++)
                rc = write_node(s, r, &r->nodes[i], true, r->created_at, e);
        if (rc < 0) {
                db_rollback(&s->db);
                return rc;
        }
        return exec(s, "COMMIT", e);
}

static int write_rollout(struct sqlite_store *s, const struct rollout_rec *r, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int rc = prepare(s, "UPDATE rollouts SET state=?, updated_at=?, exit_code=?, message=?"
                         " WHERE id=?", &st, e);

        if (rc < 0)
                return rc;
        sqlite3_bind_text(st, 1, rollout_state_name(r->state), -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, r->updated_at);
        sqlite3_bind_int(st, 3, r->exit_code);
        sqlite3_bind_text(st, 4, r->message, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, r->id);
        return step_done(s, st, e);
}

static int write_wave(struct sqlite_store *s, const struct rollout_rec *r, unsigned wave, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int rc = prepare(s, "UPDATE waves SET state=?, started_at=?, deadline=? WHERE rollout_id=? AND idx=?",
                         &st, e);

        if (rc < 0)
                return rc;
        sqlite3_bind_text(st, 1, rwave_state_name(r->waves[wave].state), -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, r->waves[wave].started_at);
        sqlite3_bind_int64(st, 3, r->waves[wave].deadline);
        sqlite3_bind_int64(st, 4, r->id);
        sqlite3_bind_int(st, 5, (int)wave);
        return step_done(s, st, e);
}

/*
 * The records noted in one transaction: one fsync for all of them (store_barrier), or
 * none (lazy: store_publish; the next durable commit covers it).
 */
static int sqlite_write(struct sqlite_store *s, const struct rollout_rec *r, const struct store_dirty *d,
                        bool lazy, struct errbuf *e)
{
        long long now = (long long)time(NULL);
        int rc = lazy ? db_begin_lazy(&s->db, e) : db_begin(&s->db, e);

        if (rc < 0)
                return rc;
        if (d->rollout)
                rc = write_rollout(s, r, e);
        for (unsigned i = 0; rc >= 0 && i < d->n_waves; i++)
                rc = write_wave(s, r, d->waves[i], e);
        for (unsigned i = 0; rc >= 0 && i < d->n_nodes; i++)
                rc = write_node(s, r, &r->nodes[d->nodes[i]], false, now, e);
        if (rc < 0) {
                db_rollback(&s->db);
                return rc;
        }
        rc = db_commit(&s->db, e);
        if (rc >= 0)
                s->base.writes++;
        return rc;
}

/*
 * A durable commit (this write, in autocommit, fsyncs the WAL) makes every lazy commit
 * before it durable too (common/db.h).
 */
static const char sql_touch[] = "UPDATE rollouts SET updated_at = updated_at WHERE id = (SELECT MAX(id) FROM rollouts)";

static int op_sync(struct store *s, struct errbuf *e)
{
        return exec(sqlite_of(s), sql_touch, e);
}

/* The vtable: the interface's handle is the first member of ours. */
static void op_close(struct store *s)
{
        sqlite_store_close(sqlite_of(s));
}

static int op_rollout_create(struct store *s, struct rollout_rec *r, struct errbuf *e)
{
        return sqlite_rollout_create(sqlite_of(s), r, e);
}

static int op_write(struct store *s, const struct rollout_rec *r, const struct store_dirty *d, struct errbuf *e)
{
        return sqlite_write(sqlite_of(s), r, d, false, e);
}

static int op_write_visible(struct store *s, const struct rollout_rec *r, const struct store_dirty *d,
                            struct errbuf *e)
{
        return sqlite_write(sqlite_of(s), r, d, true, e);
}

static int op_rollout_load(struct store *s, long long id, struct rollout_rec **ret, struct errbuf *e)
{
        return sqlite_rollout_load(sqlite_of(s), id, ret, e);
}

static int op_rollout_list(struct store *s, unsigned limit, int (*cb)(const struct rollout_rec *r, void *ud),
                           void *ud, struct errbuf *e)
{
        return sqlite_rollout_list(sqlite_of(s), limit, cb, ud, e);
}

static int op_drift_save(struct store *s, struct drift_scan *scan, struct errbuf *e)
{
        return sqlite_drift_save(sqlite_of(s), scan, e);
}

static int op_drift_last(struct store *s, struct drift_scan *ret, struct errbuf *e)
{
        return sqlite_drift_last(sqlite_of(s), ret, e);
}

static int op_lease_take(struct store *s, const struct store_lease *me, struct store_lease *ret_holder,
                         struct errbuf *e)
{
        return sqlite_lease_take(sqlite_of(s), me, ret_holder, e);
}

static int op_lease_get(struct store *s, struct store_lease *ret, struct errbuf *e)
{
        return sqlite_lease_get(sqlite_of(s), ret, e);
}

static int op_lease_release(struct store *s, struct errbuf *e)
{
        return sqlite_lease_release(sqlite_of(s), e);
}

/* One host, one file: a held lease stays valid until released (the heartbeat keeps it fresh). */
static bool op_lease_lost(struct store *s)
{
        return false;
}

/* No change notification in SQLite: whoever waits polls. */
static int op_wait_change(struct store *s, unsigned timeout_ms, struct errbuf *e)
{
        usleep(timeout_ms * 1000u);
        return 0;
}

/* Holds live in a table of their own, made on first use (no migration: older databases have none). */
#define HOLDS_TABLE "CREATE TABLE IF NOT EXISTS holds (rollout_id INTEGER PRIMARY KEY, doc TEXT NOT NULL)"

static int op_hold_get(struct store *s, long long id, char **ret, struct errbuf *e)
{
        struct sqlite_store *q = sqlite_of(s);
        sqlite3_stmt *st;
        int rc;

        if (exec(q, HOLDS_TABLE, e) < 0)
                return -EIO;
        if (sqlite3_prepare_v2(q->db.h, "SELECT doc FROM holds WHERE rollout_id = ?", -1, &st, NULL) != SQLITE_OK)
                return sqlite_fail(q, e, "cannot read the database");
        sqlite3_bind_int64(st, 1, id);
        rc = sqlite3_step(st);
        *ret = rc == SQLITE_ROW ? strdup((const char *)sqlite3_column_text(st, 0)) : NULL;
        sqlite3_finalize(st);
        if (rc == SQLITE_ROW && !*ret)
                return errbuf_set(e, ENOMEM, q->db.path, "out of memory");
        return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : sqlite_fail(q, e, "cannot read the database");
}

static int op_hold_set(struct store *s, long long id, const char *doc, struct errbuf *e)
{
        struct sqlite_store *q = sqlite_of(s);
        sqlite3_stmt *st;
        int rc;

        if (exec(q, HOLDS_TABLE, e) < 0)
                return -EIO;
        if (sqlite3_prepare_v2(q->db.h, "INSERT OR REPLACE INTO holds (rollout_id, doc) VALUES (?, ?)", -1, &st,
                               NULL) != SQLITE_OK)
                return sqlite_fail(q, e, "cannot update the database");
        sqlite3_bind_int64(st, 1, id);
        sqlite3_bind_text(st, 2, doc, -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
        sqlite3_finalize(st);
        return rc == SQLITE_DONE ? 0 : sqlite_fail(q, e, "cannot update the database");
}

static const struct store_ops sqlite_ops = {
        .name = "sqlite",
        .close = op_close,
        .rollout_create = op_rollout_create,
        .write = op_write,
        .rollout_load = op_rollout_load,
        .rollout_list = op_rollout_list,
        .drift_save = op_drift_save,
        .drift_last = op_drift_last,
        .lease_take = op_lease_take,
        .lease_get = op_lease_get,
        .lease_release = op_lease_release,
        .lease_lost = op_lease_lost,
        .wait_change = op_wait_change,
        .write_visible = op_write_visible,
        .sync = op_sync,
        .hold_get = op_hold_get,
        .hold_set = op_hold_set,
};
