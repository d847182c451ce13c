/* SPDX-License-Identifier: MIT */
/* SQLite persistence of rollouts, waves, node results and drift scans. */
#include <jansson.h>
#include <math.h>
#include <time.h>

#include "store_internal.h"

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
};

static int exec(struct store *s, const char *sql, struct errbuf *e)
{
        if (sqlite3_exec(s->db.h, sql, NULL, NULL, NULL) != SQLITE_OK)
                return store_db_fail(s, e, "cannot update the database");
        return 0;
}

int store_open(const char *path, struct store **ret, struct errbuf *e)
{
        struct store *s = calloc(1, sizeof(*s));
        int r;

        if (!s)
                return errbuf_set(e, ENOMEM, path, "out of memory");
        r = db_open(&s->db, path, "the database", DB_CREATE, 5000, e);
        if (r >= 0)
                r = db_migrate(&s->db, migrations, ARRAY_SIZE(migrations), e);
        if (r < 0) {
                store_close(s);
                return r;
        }
        *ret = s;
        return 0;
}

void store_close(struct store *s)
{
        if (!s)
                return;
        store_lease_release(s, NULL);
        db_close(&s->db);
        free(s);
}

static int prepare(struct store *s, const char *sql, sqlite3_stmt **ret, struct errbuf *e)
{
        if (sqlite3_prepare_v2(s->db.h, sql, -1, ret, NULL) != SQLITE_OK)
                return store_db_fail(s, e, "cannot prepare a query");
        return 0;
}

static int step_done(struct store *s, sqlite3_stmt *st, struct errbuf *e)
{
        if (sqlite3_step(st) != SQLITE_DONE)
                return store_db_fail(s, e, "cannot write to the database");
        return 0;
}

char *rollout_opts_to_json(const struct rollout_opts *o)
{
        json_t *j = json_pack("{s:i, s:i, s:b, s:i, s:b, s:i, s:s, s:b}",
                              "canary", (json_int_t)o->canary,
                              "wave_size", (json_int_t)o->wave_size.value, "wave_size_pct", o->wave_size.pct,
                              "max_unavailable", (json_int_t)o->max_unavailable.value,
                              "max_unavailable_pct", o->max_unavailable.pct,
                              "confirm_timeout_s", (json_int_t)o->confirm_timeout_s,
                              "rollback_on_halt", o->halt_scope == ROLLOUT_HALT_ALL ? "all" : "wave",
                              "no_confirm", o->no_confirm);
        char *text = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;

        json_decref(j);
        return text;
}

int rollout_opts_from_json(const char *text, struct rollout_opts *ret)
{
        json_int_t canary, ws, mu, ct;
        int wsp, mup, nc;
        const char *scope;
        json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, NULL);
        int r = -EINVAL;

        if (j && json_unpack(j, "{s:I, s:I, s:b, s:I, s:b, s:I, s:s, s:b}", "canary", &canary,
                             "wave_size", &ws, "wave_size_pct", &wsp, "max_unavailable", &mu,
                             "max_unavailable_pct", &mup, "confirm_timeout_s", &ct,
                             "rollback_on_halt", &scope, "no_confirm", &nc) == 0 &&
            canary >= 0 && ws >= 0 && mu >= 0 && ct >= 0) {
                *ret = (struct rollout_opts) {
                        .canary = (unsigned)canary,
                        .wave_size = { (unsigned)ws, wsp },
                        .max_unavailable = { (unsigned)mu, mup },
                        .confirm_timeout_s = (unsigned)ct,
                        .halt_scope = streq(scope, "all") ? ROLLOUT_HALT_ALL : ROLLOUT_HALT_WAVE,
                        .no_confirm = nc,
                };
                r = 0;
        }
        json_decref(j);
        return r;
}

static int insert_rollout(struct store *s, struct rollout_rec *r, struct errbuf *e)
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

static int insert_wave(struct store *s, const struct rollout_rec *r, unsigned i, struct errbuf *e)
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

static int write_node(struct store *s, const struct rollout_rec *r, const struct rnode *n,
                      bool insert, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int rc = prepare(s, insert ?
                         "INSERT INTO nodes (state, tx, exit_code, changes, baseline_gbps, post_gbps,"
                         " error, updated_at, rollout_id, name, seq, url, wave) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)" :
                         "UPDATE nodes SET state=?, tx=?, exit_code=?, changes=?, baseline_gbps=?,"
                         " post_gbps=?, error=?, updated_at=? WHERE rollout_id=? AND name=?", &st, e);

        if (rc < 0)
                return rc;
        sqlite3_bind_text(st, 1, rnode_state_name(n->state), -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, n->tx, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, n->exit_code);
        sqlite3_bind_int(st, 4, (int)n->changes);
        db_bind_real(st, 5, n->baseline_gbps);
        db_bind_real(st, 6, n->post_gbps);
        sqlite3_bind_text(st, 7, n->error, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 8, (long long)time(NULL));
        sqlite3_bind_int64(st, 9, r->id);
        sqlite3_bind_text(st, 10, n->name, -1, SQLITE_STATIC);
        if (insert) {
                sqlite3_bind_int(st, 11, (int)(n - r->nodes));
                sqlite3_bind_text(st, 12, n->url, -1, SQLITE_STATIC);
                sqlite3_bind_int(st, 13, (int)n->wave);
        }
        return step_done(s, st, e);
}

int store_rollout_create(struct store *s, struct rollout_rec *r, struct errbuf *e)
{
        int rc = exec(s, "BEGIN IMMEDIATE", e);

        if (rc < 0)
                return rc;
        rc = insert_rollout(s, r, e);
        if (rc >= 0)
                rc = store_lease_note_rollout(s, r->id, e);
        for (unsigned i = 0; rc >= 0 && i < r->n_waves; i++)
                rc = insert_wave(s, r, i, e);
        for (unsigned i = 0; rc >= 0 && i < r->n_nodes; i++)
                rc = write_node(s, r, &r->nodes[i], true, e);
        if (rc < 0) {
                db_rollback(&s->db);
                return rc;
        }
        return exec(s, "COMMIT", e);
}

int store_rollout_update(struct store *s, struct rollout_rec *r, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int rc = prepare(s, "UPDATE rollouts SET state=?, updated_at=?, exit_code=?, message=?"
                         " WHERE id=?", &st, e);

        if (rc < 0)
                return rc;
        r->updated_at = (long long)time(NULL);
        sqlite3_bind_text(st, 1, rollout_state_name(r->state), -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, r->updated_at);
        sqlite3_bind_int(st, 3, r->exit_code);
        sqlite3_bind_text(st, 4, r->message, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 5, r->id);
        return step_done(s, st, e);
}

int store_wave_update(struct store *s, const struct rollout_rec *r, unsigned wave, struct errbuf *e)
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

int store_node_update(struct store *s, const struct rollout_rec *r, const struct rnode *n, struct errbuf *e)
{
        return write_node(s, r, n, false, e);
}

int store_begin(struct store *s, struct errbuf *e)
{
        return exec(s, "BEGIN IMMEDIATE", e);
}

int store_commit(struct store *s, struct errbuf *e)
{
        int r = exec(s, "COMMIT", e);

        if (r < 0)
                db_rollback(&s->db);
        return r;
}
