/* SPDX-License-Identifier: MIT */
/* Layers (journal.h): the versions of each committed layer, and each field's value before nettune took it. */
#include "agent/journal/journal_internal.h"

/* The fields each target of tx's snapshot had, for every field first taken now. */
static const char sql_originals[] =
        "INSERT OR IGNORE INTO originals (kind, target, field, tx, state_json)"
        " WITH RECURSIVE bits(b) AS (VALUES(0) UNION ALL SELECT b + 1 FROM bits WHERE b < 30)"
        " SELECT json_extract(r.value, '$.kind'), json_extract(r.value, '$.target'), bits.b, s.tx,"
        " json_extract(r.value, '$.state') FROM snapshot_sets s, json_each(s.rows_json) r, bits"
        " WHERE s.tx = ?1 AND (json_extract(r.value, '$.fields') >> bits.b) & 1";

/*
 * With no layer committed, nettune owns no field: the values kept from an earlier
 * ownership are stale (the operator may have changed them since), and this
 * snapshot's are the values before nettune takes them again.
 */
static const char sql_originals_stale[] =
        "DELETE FROM originals WHERE NOT EXISTS (SELECT 1 FROM layer_versions v WHERE v.policy_json IS NOT NULL"
        " AND v.rev = (SELECT MAX(rev) FROM layer_versions w WHERE w.name = v.name))";

int journal_originals_record(struct db *d, int64_t tx, struct errbuf *e)
{
        sqlite3_stmt *st;
        int r = db_cached(d, sql_originals_stale, &st, e);

        if (r < 0)
                return r;
        r = db_step_done(d, st, e);
        db_uncache(d, sql_originals_stale, st);
        if (r < 0)
                return r;
        r = db_cached(d, sql_originals, &st, e);
        if (r < 0)
                return r;
        sqlite3_bind_int64(st, 1, tx);
        r = db_step_done(d, st, e);
        db_uncache(d, sql_originals, st);
        return r;
}

/*
 * The commit of tx, its revision just added: the new version of its layer. The
 * layer is the transaction's `layer` or its policy's name, its policy when that is
 * the layer's (else the layer goes); prev its `layer_prev` or the layer's current
 * version (when that one is not a removal).
 */
static const char sql_layer_commit[] =
        "INSERT INTO layer_versions (rev, name, policy_json, prev)"
        " SELECT v.rev, v.name, CASE WHEN json_valid(t.policy_json)"
        "  AND json_extract(t.policy_json, '$.metadata.name') = v.name THEN t.policy_json END,"
        "  COALESCE(t.layer_prev, (SELECT w.id FROM layer_versions w WHERE w.name = v.name"
        "   AND w.policy_json IS NOT NULL AND w.id = (SELECT MAX(id) FROM layer_versions x WHERE x.name = v.name)), 0)"
        " FROM transactions t, (SELECT (SELECT MAX(rev) FROM revisions WHERE tx = ?1) AS rev,"
        "   COALESCE((SELECT layer FROM transactions WHERE id = ?1),"
        "    (SELECT json_extract(policy_json, '$.metadata.name') FROM transactions"
        "     WHERE id = ?1 AND json_valid(policy_json))) AS name) v"
        " WHERE t.id = ?1 AND t.kind <> 'enforce' AND v.name IS NOT NULL AND v.name <> '*' AND v.rev IS NOT NULL";

/* The current version of every layer, and the version each had at revision ?2 (layer '*': back to then). */
#define CURRENT "(SELECT * FROM layer_versions c WHERE c.id = (SELECT MAX(id) FROM layer_versions x" \
                " WHERE x.name = c.name) AND c.policy_json IS NOT NULL)"
#define AT_REV "(SELECT * FROM layer_versions a WHERE a.id = (SELECT MAX(id) FROM layer_versions x" \
               " WHERE x.name = a.name AND x.rev <= ?2) AND a.policy_json IS NOT NULL)"
static const char sql_layers_back_out[] =
        "INSERT INTO layer_versions (rev, name, policy_json, prev)"
        " SELECT (SELECT MAX(rev) FROM revisions WHERE tx = ?1), cur.name, NULL, cur.id FROM " CURRENT " cur"
        " WHERE cur.name NOT IN (SELECT name FROM " AT_REV ")";
static const char sql_layers_back_in[] =
        "INSERT INTO layer_versions (rev, name, policy_json, prev)"
        " SELECT (SELECT MAX(rev) FROM revisions WHERE tx = ?1), at.name, at.policy_json, COALESCE(cur.id, 0)"
        " FROM " AT_REV " at LEFT JOIN " CURRENT " cur ON cur.name = at.name"
        " WHERE cur.id IS NULL OR cur.policy_json IS NOT at.policy_json";

static int layer_step(struct db *d, const char *sql, int64_t tx, int64_t rev, struct errbuf *e)
{
        sqlite3_stmt *st;
        int r = db_cached(d, sql, &st, e);

        if (r < 0)
                return r;
        sqlite3_bind_int64(st, 1, tx);
        sqlite3_bind_int64(st, 2, rev);
        r = db_step_done(d, st, e);
        db_uncache(d, sql, st);
        return r;
}

int journal_layer_commit(struct db *d, int64_t tx, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int64_t back = 0;
        int r = db_prepare(d, "SELECT layer_prev FROM transactions WHERE id = ? AND layer = '*' AND kind <> 'enforce'",
                           &st, e);

        if (r >= 0) {
                sqlite3_bind_int64(st, 1, tx);
                r = db_step_row(d, st, e);
                if (r > 0)
                        back = sqlite3_column_int64(st, 0);
        }
        if (r < 0)
                return r;
        if (r > 0) {    /* every layer back to revision `back` */
                r = layer_step(d, sql_layers_back_out, tx, back, e);
                return r < 0 ? r : layer_step(d, sql_layers_back_in, tx, back, e);
        }
        return layer_step(d, sql_layer_commit, tx, 0, e);
}

void journal_layers_free(struct journal_layer *v, unsigned n)
{
        for (unsigned i = 0; v && i < n; i++)
                free(v[i].policy_json);
        free(v);
}

static void layer_from_row(sqlite3_stmt *st, struct journal_layer *l)
{
        memset(l, 0, sizeof(*l));
        l->rev = sqlite3_column_int64(st, 0);
        db_col_copy(st, 1, l->name, sizeof(l->name));
        l->policy_json = db_col_dup(st, 2);
        l->prev = sqlite3_column_int64(st, 3);
        l->id = sqlite3_column_int64(st, 4);
}

int journal_layers_at(struct journal *j, int64_t rev, struct journal_layer **ret, unsigned *ret_n, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        struct journal_layer *v = NULL;
        unsigned n = 0;
        int r = db_prepare(journal_db(j), rev > 0 ?
                           "SELECT rev, name, policy_json, prev, id FROM layer_versions v"
                           " WHERE id = (SELECT MAX(id) FROM layer_versions w WHERE w.name = v.name AND w.rev <= ?)"
                           " AND policy_json IS NOT NULL ORDER BY id" :
                           "SELECT rev, name, policy_json, prev, id FROM layer_versions v"
                           " WHERE id = (SELECT MAX(id) FROM layer_versions w WHERE w.name = v.name)"
                           " AND policy_json IS NOT NULL ORDER BY id", &st, e);

        if (r >= 0 && rev > 0)
                sqlite3_bind_int64(st, 1, rev);

        while (r >= 0 && (r = db_step_row(journal_db(j), st, e)) > 0) {
                struct journal_layer *nv = realloc(v, (n + 1) * sizeof(*v));

                if (!nv) {
                        r = errbuf_set(e, ENOMEM, NULL, "out of memory");
                        break;
                }
                v = nv;
                layer_from_row(st, &v[n++]);
        }
        if (r < 0) {
                journal_layers_free(v, n);
                return r;
        }
        *ret = v;
        *ret_n = n;
        return 0;
}

int journal_layers(struct journal *j, struct journal_layer **ret, unsigned *ret_n, struct errbuf *e)
{
        return journal_layers_at(j, 0, ret, ret_n, e);
}

int journal_layers_since(struct journal *j, int64_t *ret_rev, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int r = db_prepare(journal_db(j), "SELECT COALESCE(MIN(rev), 0) FROM layer_versions", &st, e);

        if (r >= 0 && (r = db_step_row(journal_db(j), st, e)) > 0)
                *ret_rev = sqlite3_column_int64(st, 0);
        return r < 0 ? r : 0;
}

int journal_layer_version(struct journal *j, int64_t id, struct journal_layer *ret, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int r = db_prepare(journal_db(j), "SELECT rev, name, policy_json, prev, id FROM layer_versions WHERE id = ?",
                           &st, e);

        if (r < 0)
                return r;
        sqlite3_bind_int64(st, 1, id);
        r = db_step_row(journal_db(j), st, e);
        if (r < 0)
                return r;
        if (r == 0)
                return errbuf_set(e, ENOENT, NULL, "no layer version %lld", (long long)id);
        layer_from_row(st, ret);
        return 0;
}

int journal_layer_set(struct db *d, int64_t tx, const char *layer, int64_t prev, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int r = db_prepare(d, "UPDATE transactions SET layer = ?, layer_prev = ? WHERE id = ?", &st, e);

        if (r < 0)
                return r;
        db_bind_text(st, 1, layer);
        if (prev > 0)
                sqlite3_bind_int64(st, 2, prev);
        else
                sqlite3_bind_null(st, 2);
        sqlite3_bind_int64(st, 3, tx);
        return db_step_done(d, st, e);
}

int journal_original(struct journal *j, int kind, const char *target, int field, char **ret_state_json,
                     int64_t *ret_tx, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int r = db_prepare(journal_db(j), "SELECT state_json, tx FROM originals WHERE kind = ? AND target = ? AND "
                           "field = ?", &st, e);

        if (r < 0)
                return r;
        sqlite3_bind_int(st, 1, kind);
        db_bind_text(st, 2, target);
        sqlite3_bind_int(st, 3, field);
        r = db_step_row(journal_db(j), st, e);
        if (r < 0)
                return r;
        if (r == 0)
                return -ENOENT;
        *ret_state_json = db_col_dup(st, 0);
        if (ret_tx)
                *ret_tx = sqlite3_column_int64(st, 1);
        return *ret_state_json ? 0 : errbuf_set(e, ENOMEM, NULL, "out of memory");
}

void journal_enforcements_free(struct journal_enforcement *v, unsigned n)
{
        for (unsigned i = 0; v && i < n; i++)
                free(v[i].changes_json);
        free(v);
}

int journal_enforcements(struct journal *j, struct journal_enforcement **ret, unsigned *ret_n, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        struct journal_enforcement *v = NULL;
        unsigned n = 0;
        int r = db_prepare(journal_db(j),
                           "SELECT t.started_ms, c.changes_json FROM transactions t"
                           " JOIN transaction_changes c ON c.tx = t.id"
                           " WHERE t.kind = 'enforce' AND t.state = 'committed' AND t.id > COALESCE("
                           "  (SELECT MAX(id) FROM transactions WHERE kind <> 'enforce' AND state = 'committed'), 0)"
                           " ORDER BY t.id", &st, e);

        while (r >= 0 && (r = db_step_row(journal_db(j), st, e)) > 0) {
                struct journal_enforcement *nv = realloc(v, (n + 1) * sizeof(*v));

                if (!nv) {
                        r = errbuf_set(e, ENOMEM, NULL, "out of memory");
                        break;
                }
                v = nv;
                v[n].at_ms = sqlite3_column_int64(st, 0);
                v[n++].changes_json = db_col_dup(st, 1);
        }
        if (r < 0) {
                journal_enforcements_free(v, n);
                return r;
        }
        *ret = v;
        *ret_n = n;
        return 0;
}
