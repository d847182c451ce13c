/* SPDX-License-Identifier: MIT */
/* The SQLite backend: reading rollouts back, and drift scans. */
#include <time.h>

#include "controller/store/store_sqlite_internal.h"

static void copy_text(char *dst, size_t size, sqlite3_stmt *st, int col)
{
        db_col_copy(st, col, dst, size);
}

#define ROLLOUT_COLS "id, kind, policy_name, policy_doc, args, opts, state, created_at, updated_at," \
        " exit_code, message"

static int row_to_rollout(sqlite3_stmt *st, struct rollout_rec *r)
{
        int state;

        r->id = sqlite3_column_int64(st, 0);
        copy_text(r->kind, sizeof(r->kind), st, 1);
        copy_text(r->policy_name, sizeof(r->policy_name), st, 2);
        r->policy_doc = db_col_dup(st, 3);
        r->args = db_col_dup(st, 4);
        if (rollout_opts_from_json((const char *)sqlite3_column_text(st, 5), &r->opts) < 0)
                return -EINVAL;
        state = rollout_state_from_name((const char *)sqlite3_column_text(st, 6));
        if (state < 0)
                return -EINVAL;
        r->state = (enum rollout_state)state;
        r->created_at = sqlite3_column_int64(st, 7);
        r->updated_at = sqlite3_column_int64(st, 8);
        r->exit_code = sqlite3_column_int(st, 9);
        copy_text(r->message, sizeof(r->message), st, 10);
        return 0;
}

static int count_rows(struct sqlite_store *s, const char *sql, long long id, unsigned *ret, struct errbuf *e)
{
        sqlite3_stmt *st;

        if (sqlite3_prepare_v2(s->db.h, sql, -1, &st, NULL) != SQLITE_OK)
                return sqlite_fail(s, e, "cannot read the database");
        sqlite3_bind_int64(st, 1, id);
        if (sqlite3_step(st) != SQLITE_ROW) {
                sqlite3_finalize(st);
                return sqlite_fail(s, e, "cannot read the database");
        }
        *ret = (unsigned)sqlite3_column_int(st, 0);
        sqlite3_finalize(st);
        return 0;
}

static int load_waves(struct sqlite_store *s, struct rollout_rec *r, struct errbuf *e)
{
        sqlite3_stmt *st;
        int rc = count_rows(s, "SELECT count(*) FROM waves WHERE rollout_id=?", r->id, &r->n_waves, e);

        if (rc < 0)
                return rc;
        r->waves = calloc(r->n_waves + 1, sizeof(*r->waves));
        if (!r->waves)
                return errbuf_set(e, ENOMEM, s->db.path, "out of memory");
        if (sqlite3_prepare_v2(s->db.h, "SELECT idx, state, started_at, deadline FROM waves"
                               " WHERE rollout_id=? ORDER BY idx", -1, &st, NULL) != SQLITE_OK)
                return sqlite_fail(s, e, "cannot read the database");
        sqlite3_bind_int64(st, 1, r->id);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
                int i = sqlite3_column_int(st, 0);
                int state = rwave_state_from_name((const char *)sqlite3_column_text(st, 1));

                if (i < 0 || (unsigned)i >= r->n_waves || state < 0)
                        break;
                r->waves[i].state = (enum rwave_state)state;
                r->waves[i].started_at = sqlite3_column_int64(st, 2);
                r->waves[i].deadline = sqlite3_column_int64(st, 3);
        }
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
                return errbuf_set(e, EIO, s->db.path, "rollout %lld: malformed wave rows", r->id);
        return 0;
}

static int row_to_node(sqlite3_stmt *st, const struct rollout_rec *r, struct rnode *n)
{
        int state = rnode_state_from_name((const char *)sqlite3_column_text(st, 3));
        int wave = sqlite3_column_int(st, 2);

        if (state < 0 || wave < 0 || (unsigned)wave >= r->n_waves)
                return -EINVAL;
        copy_text(n->name, sizeof(n->name), st, 0);
        copy_text(n->url, sizeof(n->url), st, 1);
        n->wave = (unsigned)wave;
        n->state = (enum rnode_state)state;
        copy_text(n->tx, sizeof(n->tx), st, 4);
        n->exit_code = sqlite3_column_int(st, 5);
        n->changes = (unsigned)sqlite3_column_int(st, 6);
        n->baseline_gbps = db_col_real(st, 7);
        n->post_gbps = db_col_real(st, 8);
        copy_text(n->error, sizeof(n->error), st, 9);
        copy_text(n->key, sizeof(n->key), st, 10);
        n->confirm_deadline_ms = sqlite3_column_int64(st, 11);
        n->not_after_ms = sqlite3_column_int64(st, 12);
        n->pre_rev = sqlite3_column_int64(st, 13);
        n->rev = sqlite3_column_int64(st, 14);
        copy_text(n->undo_tx, sizeof(n->undo_tx), st, 15);
        copy_text(n->group, sizeof(n->group), st, 16);
        return 0;
}

static int load_nodes(struct sqlite_store *s, struct rollout_rec *r, struct errbuf *e)
{
        sqlite3_stmt *st;
        unsigned i = 0;
        int rc = count_rows(s, "SELECT count(*) FROM nodes WHERE rollout_id=?", r->id, &r->n_nodes, e);

        if (rc < 0)
                return rc;
        r->nodes = calloc(r->n_nodes + 1, sizeof(*r->nodes));
        if (!r->nodes)
                return errbuf_set(e, ENOMEM, s->db.path, "out of memory");
        if (sqlite3_prepare_v2(s->db.h, "SELECT name, url, wave, state, tx, exit_code, changes,"
                               " baseline_gbps, post_gbps, error, ikey, confirm_deadline_ms, not_after_ms,"
                               " pre_rev, rev, undo_tx, grp FROM nodes WHERE rollout_id=? ORDER BY seq",
                               -1, &st, NULL) != SQLITE_OK)
                return sqlite_fail(s, e, "cannot read the database");
        sqlite3_bind_int64(st, 1, r->id);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW && i < r->n_nodes)
                if (row_to_node(st, r, &r->nodes[i++]) < 0)
                        break;
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE || i != r->n_nodes)
                return errbuf_set(e, EIO, s->db.path, "rollout %lld: malformed node rows", r->id);
        return 0;
}

int sqlite_rollout_load(struct sqlite_store *s, long long id, struct rollout_rec **ret, struct errbuf *e)
{
        struct rollout_rec *r = calloc(1, sizeof(*r));
        sqlite3_stmt *st;
        int rc;

        if (!r)
                return errbuf_set(e, ENOMEM, s->db.path, "out of memory");
        rc = sqlite3_prepare_v2(s->db.h, id > 0 ? "SELECT " ROLLOUT_COLS " FROM rollouts WHERE id=?" :
                                "SELECT " ROLLOUT_COLS " FROM rollouts ORDER BY id DESC LIMIT 1", -1, &st, NULL);
        if (rc != SQLITE_OK) {
                free(r);
                return sqlite_fail(s, e, "cannot read the database");
        }
        if (id > 0)
                sqlite3_bind_int64(st, 1, id);
        rc = sqlite3_step(st);
        if (rc != SQLITE_ROW)
                rc = rc == SQLITE_DONE ? (id > 0 ? errbuf_set(e, ENOENT, s->db.path, "no rollout %lld", id) :
                                          errbuf_set(e, ENOENT, s->db.path, "no rollouts yet")) :
                     sqlite_fail(s, e, "cannot read the database");
        else if (row_to_rollout(st, r) < 0)
                rc = errbuf_set(e, EIO, s->db.path, "rollout %lld: malformed row", r->id);
        else
                rc = 0;
        sqlite3_finalize(st);
        if (rc >= 0)
                rc = load_waves(s, r, e);
        if (rc >= 0)
                rc = load_nodes(s, r, e);
        if (rc < 0) {
                rollout_rec_free(r);
                return rc;
        }
        *ret = r;
        return 0;
}

int sqlite_rollout_list(struct sqlite_store *s, unsigned limit,
                       int (*cb)(const struct rollout_rec *r, void *userdata), void *userdata,
                       struct errbuf *e)
{
        sqlite3_stmt *st;
        int rc;

        if (sqlite3_prepare_v2(s->db.h, "SELECT " ROLLOUT_COLS " FROM rollouts ORDER BY id DESC LIMIT ?",
                               -1, &st, NULL) != SQLITE_OK)
                return sqlite_fail(s, e, "cannot read the database");
        sqlite3_bind_int(st, 1, (int)limit);
        while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
                struct rollout_rec r = { 0 };
                int cr = row_to_rollout(st, &r);

                if (cr >= 0)
                        cr = cb(&r, userdata);
                free(r.policy_doc);
                free(r.args);
                if (cr < 0) {
                        sqlite3_finalize(st);
                        return cr;
                }
        }
        sqlite3_finalize(st);
        if (rc != SQLITE_DONE)
                return sqlite_fail(s, e, "cannot read the database");
        return 0;
}

static const char sql_drift_node[] =
        "INSERT INTO drift_nodes (scan_id, name, reached, drifted, report, error) VALUES (?,?,?,?,?,?)";

static int save_drift_node(struct sqlite_store *s, long long scan_id, const struct drift_node *n, struct errbuf *e)
{
        sqlite3_stmt *st;
        int rc = db_cached(&s->db, sql_drift_node, &st, e);

        if (rc < 0)
                return rc;
        sqlite3_bind_int64(st, 1, scan_id);
        sqlite3_bind_text(st, 2, n->name, -1, SQLITE_STATIC);
        sqlite3_bind_int(st, 3, n->reached);
        sqlite3_bind_int(st, 4, n->drifted);
        sqlite3_bind_text(st, 5, n->report, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 6, n->error, -1, SQLITE_STATIC);
        rc = db_step_done(&s->db, st, e);
        db_uncache(&s->db, sql_drift_node, st);
        return rc;
}

int sqlite_drift_save(struct sqlite_store *s, struct drift_scan *scan, struct errbuf *e)
{
        sqlite3_stmt *st;
        int rc = 0;

        if (db_begin(&s->db, NULL) < 0)
                return sqlite_fail(s, e, "cannot write to the database");
        if (sqlite3_prepare_v2(s->db.h, "INSERT INTO drift_scans (at, nodes, drifted, unreachable)"
                               " VALUES (?,?,?,?)", -1, &st, NULL) != SQLITE_OK) {
                rc = sqlite_fail(s, e, "cannot write to the database");
                db_rollback(&s->db);
                return rc;
        }
        sqlite3_bind_int64(st, 1, scan->at);
        sqlite3_bind_int(st, 2, (int)scan->n_nodes);
        sqlite3_bind_int(st, 3, (int)scan->n_drifted);
        sqlite3_bind_int(st, 4, (int)scan->n_unreachable);
        if (sqlite3_step(st) != SQLITE_DONE)
                rc = sqlite_fail(s, e, "cannot write to the database");
        sqlite3_finalize(st);
        if (rc >= 0)
                scan->id = sqlite3_last_insert_rowid(s->db.h);
        for (unsigned i = 0; rc >= 0 && i < scan->n_nodes; i++)
                rc = save_drift_node(s, scan->id, &scan->nodes[i], e);
        if (rc < 0) {
                db_rollback(&s->db);
                return rc;
        }
        if (db_commit(&s->db, NULL) < 0)
                return sqlite_fail(s, e, "cannot write to the database");
        return 0;
}

int sqlite_drift_last(struct sqlite_store *s, struct drift_scan *ret, struct errbuf *e)
{
        sqlite3_stmt *st;
        int rc;

        if (sqlite3_prepare_v2(s->db.h, "SELECT id, at, nodes, drifted, unreachable FROM drift_scans"
                               " ORDER BY id DESC LIMIT 1", -1, &st, NULL) != SQLITE_OK)
                return sqlite_fail(s, e, "cannot read the database");
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW)
                *ret = (struct drift_scan) {
                        .id = sqlite3_column_int64(st, 0), .at = sqlite3_column_int64(st, 1),
                        .n_nodes = (unsigned)sqlite3_column_int(st, 2),
                        .n_drifted = (unsigned)sqlite3_column_int(st, 3),
                        .n_unreachable = (unsigned)sqlite3_column_int(st, 4),
                };
        sqlite3_finalize(st);
        if (rc == SQLITE_DONE)
                return errbuf_set(e, ENOENT, s->db.path, "no drift scans yet");
        return rc == SQLITE_ROW ? 0 : sqlite_fail(s, e, "cannot read the database");
}
