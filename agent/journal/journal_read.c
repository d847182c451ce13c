/* SPDX-License-Identifier: MIT */
/* The journal's queries: transactions, snapshots, steps, revisions. */
#include "agent/journal/journal_internal.h"
#include "policies/json/jsonw.h"

static int prepare(struct journal *j, const char *sql, sqlite3_stmt **ret, struct errbuf *e)
{
        return db_prepare(journal_db(j), sql, ret, e);
}

static int read_error(struct journal *j, struct errbuf *e)
{
        return db_fail(journal_db(j), e, "cannot read");
}

void journal_tx_done(struct journal_tx *t)
{
        if (!t)
                return;
        free(t->policy_json);
        free(t->error);
        free(t->changes_json);
        free(t->probe_json);
        free(t->restores_json);
        free(t->saves_json);
        t->policy_json = t->error = t->changes_json = t->probe_json = t->restores_json = t->saves_json = NULL;
}

#define TX_COLUMNS "id, kind, policy_name, policy_json, state, result, exit_code, error," \
        " (SELECT changes_json FROM transaction_changes WHERE transaction_changes.tx = transactions.id), probe_json, restored_by, started_ms, finished_ms, confirm_deadline_ms, restores_json," \
        " (SELECT MAX(rev) FROM revisions WHERE revisions.tx = transactions.id), idempotency_key, saves_json," \
        " rollback_ms, request_hash"

static void tx_from_row(sqlite3_stmt *st, struct journal_tx *t)
{
        char state[32];
        int s;

        memset(t, 0, sizeof(*t));
        t->id = sqlite3_column_int64(st, 0);
        db_col_copy(st, 1, t->kind, sizeof(t->kind));
        db_col_copy(st, 2, t->policy_name, sizeof(t->policy_name));
        t->policy_json = db_col_dup(st, 3);
        db_col_copy(st, 4, state, sizeof(state));
        s = journal_state_from_name(state);
        t->state = s < 0 ? TXN_FAILED : (enum txn_state)s;
        db_col_copy(st, 5, t->result, sizeof(t->result));
        t->exit_code = sqlite3_column_int(st, 6);
        t->error = db_col_dup(st, 7);
        t->changes_json = db_col_dup(st, 8);
        t->probe_json = db_col_dup(st, 9);
        db_col_copy(st, 10, t->restored_by, sizeof(t->restored_by));
        t->started_ms = sqlite3_column_int64(st, 11);
        t->finished_ms = sqlite3_column_int64(st, 12);
        t->confirm_deadline_ms = sqlite3_column_int64(st, 13);
        t->restores_json = db_col_dup(st, 14);
        t->rev = sqlite3_column_int64(st, 15);
        db_col_copy(st, 16, t->idempotency_key, sizeof(t->idempotency_key));
        t->saves_json = db_col_dup(st, 17);
        t->rollback_ms = sqlite3_column_double(st, 18);
        db_col_copy(st, 19, t->key_hash, sizeof(t->key_hash));
}

int journal_find_key(struct journal *j, const char *key, int64_t *ret_tx, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int r = prepare(j, "SELECT id FROM transactions WHERE idempotency_key = ? ORDER BY id DESC LIMIT 1", &st, e);

        if (r < 0)
                return r;
        sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
        r = db_step_row(journal_db(j), st, e);
        if (r == 0)
                return -ENOENT;
        if (r < 0)
                return r;
        *ret_tx = sqlite3_column_int64(st, 0);
        return 0;
}

int journal_get(struct journal *j, int64_t tx, struct journal_tx *ret, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int r = prepare(j, "SELECT " TX_COLUMNS " FROM transactions WHERE id = ?", &st, e);

        if (r < 0)
                return r;
        sqlite3_bind_int64(st, 1, tx);
        r = sqlite3_step(st);
        if (r == SQLITE_DONE)
                return errbuf_set(e, ENOENT, NULL, "no transaction %lld", (long long)tx);
        if (r != SQLITE_ROW)
                return read_error(j, e);
        tx_from_row(st, ret);
        return 0;
}

int journal_list(struct journal *j, unsigned limit, struct journal_tx **ret, unsigned *ret_n,
                 struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        struct journal_tx *rows;
        unsigned n = 0;
        int r = prepare(j, "SELECT " TX_COLUMNS " FROM transactions ORDER BY id DESC LIMIT ?", &st, e);

        if (r < 0)
                return r;
        rows = calloc(limit ? limit : 1, sizeof(*rows));
        if (!rows)
                return -ENOMEM;
        sqlite3_bind_int(st, 1, (int)limit);
        while (n < limit && (r = sqlite3_step(st)) == SQLITE_ROW)
                tx_from_row(st, &rows[n++]);
        if (n < limit && r != SQLITE_DONE) {
                for (unsigned i = 0; i < n; i++)
                        journal_tx_done(&rows[i]);
                free(rows);
                return read_error(j, e);
        }
        *ret = rows;
        *ret_n = n;
        return 0;
}

int journal_unfinished(struct journal *j, int64_t **ret_ids, unsigned *ret_n, struct errbuf *e)
{
        struct db *d = journal_db(j);
        sqlite3_stmt *st;
        int64_t *ids = NULL;
        unsigned n = 0;
        int r = db_cached(d, journal_sql_unfinished, &st, e);

        if (r < 0)
                return r;
        while ((r = sqlite3_step(st)) == SQLITE_ROW) {
                int64_t *more = realloc(ids, (n + 1) * sizeof(*ids));

                if (!more) {
                        db_uncache(d, journal_sql_unfinished, st);
                        free(ids);
                        return -ENOMEM;
                }
                ids = more;
                ids[n++] = sqlite3_column_int64(st, 0);
        }
        if (r != SQLITE_DONE) {
                r = read_error(j, e);
                db_uncache(d, journal_sql_unfinished, st);
                free(ids);
                return r;
        }
        db_uncache(d, journal_sql_unfinished, st);
        *ret_ids = ids;
        *ret_n = n;
        return 0;
}

void journal_snapshots_free(struct journal_snapshot *rows, unsigned n)
{
        if (!rows)
                return;
        for (unsigned i = 0; i < n; i++)
                free(rows[i].state_json);
        free(rows);
}

/* The rows of one snapshot set (journal.c's snapshot_text()); -EBADMSG when the text is not that shape. */
static int snapshot_rows(const char *text, struct journal_snapshot **ret, unsigned *ret_n)
{
        json_auto_t *arr = json_loads(text, 0, NULL);
        struct journal_snapshot *rows;
        size_t i;
        json_t *o;

        if (!json_is_array(arr))
                return -EBADMSG;
        rows = calloc(json_array_size(arr) ? json_array_size(arr) : 1, sizeof(*rows));
        if (!rows)
                return -ENOMEM;
        json_array_foreach(arr, i, o) {
                const char *target = json_string_value(json_object_get(o, "target"));
                const json_t *state = json_object_get(o, "state");

                if (!target || !json_is_integer(json_object_get(o, "kind")) ||
                    !json_is_integer(json_object_get(o, "fields")) || !state) {
                        journal_snapshots_free(rows, i);
                        return -EBADMSG;
                }
                snprintf(rows[i].target, sizeof(rows[i].target), "%s", target);
                rows[i].kind = (int)json_integer_value(json_object_get(o, "kind"));
                rows[i].fields = (uint32_t)json_integer_value(json_object_get(o, "fields"));
                rows[i].state_json = jsonw_dumps(state, JSON_COMPACT | JSON_SORT_KEYS);
                if (!rows[i].state_json) {
                        journal_snapshots_free(rows, i);
                        return -ENOMEM;
                }
        }
        *ret = rows;
        *ret_n = (unsigned)json_array_size(arr);
        return 0;
}

int journal_load_snapshots(struct journal *j, int64_t tx, struct journal_snapshot **ret,
                           unsigned *ret_n, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int r = prepare(j, "SELECT rows_json FROM snapshot_sets WHERE tx = ?", &st, e);

        if (r < 0)
                return r;
        *ret = NULL;
        *ret_n = 0;
        sqlite3_bind_int64(st, 1, tx);
        r = sqlite3_step(st);
        if (r == SQLITE_DONE)
                return 0;
        if (r != SQLITE_ROW)
                return read_error(j, e);
        r = snapshot_rows((const char *)sqlite3_column_text(st, 0), ret, ret_n);
        if (r == -EBADMSG)
                return errbuf_set(e, EBADMSG, journal_db(j)->path, "the snapshot of transaction %lld is not a list of targets",
                                  (long long)tx);
        return r;
}

int journal_steps_json(struct journal *j, int64_t tx, char **ret, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int r = prepare(j, "SELECT COALESCE(json_group_array(json_object('state', state, 'at_ms', at_ms)), '[]')"
                        " FROM (SELECT state, at_ms FROM steps WHERE tx = ? ORDER BY rowid)", &st, e);
        char *s;

        if (r < 0)
                return r;
        sqlite3_bind_int64(st, 1, tx);
        if (sqlite3_step(st) != SQLITE_ROW)
                return read_error(j, e);
        s = db_col_dup(st, 0);
        if (!s)
                return -ENOMEM;
        *ret = s;
        return 0;
}

int journal_rollback_histogram(struct journal *j, const double *bounds_ms, unsigned n_bounds, uint64_t *counts,
                               uint64_t *ret_n, double *ret_sum_ms, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        uint64_t n = 0;
        double sum = 0;
        int r = prepare(j, "SELECT rollback_ms FROM transactions WHERE rollback_ms IS NOT NULL", &st, e);

        if (r < 0)
                return r;
        memset(counts, 0, n_bounds * sizeof(*counts));
        while ((r = sqlite3_step(st)) == SQLITE_ROW) {
                double ms = sqlite3_column_double(st, 0);

                for (unsigned i = 0; i < n_bounds; i++)
                        counts[i] += ms <= bounds_ms[i];
                n++;
                sum += ms;
        }
        if (r != SQLITE_DONE)
                return read_error(j, e);
        *ret_n = n;
        *ret_sum_ms = sum;
        return 0;
}

static int revision_row(struct journal *j, sqlite3_stmt *st, int64_t *ret_rev, int64_t *ret_tx,
                        char **ret_policy_json, struct errbuf *e)
{
        int r = sqlite3_step(st);

        if (r == SQLITE_DONE)
                return -ENOENT;
        if (r != SQLITE_ROW)
                return read_error(j, e);
        if (ret_policy_json) {
                *ret_policy_json = db_col_dup(st, 2);
                if (!*ret_policy_json && sqlite3_column_type(st, 2) != SQLITE_NULL)
                        return -ENOMEM;
        }
        if (ret_rev)
                *ret_rev = sqlite3_column_int64(st, 0);
        if (ret_tx)
                *ret_tx = sqlite3_column_int64(st, 1);
        return 0;
}

int journal_revision(struct journal *j, unsigned back, int64_t *ret_rev, int64_t *ret_tx,
                     char **ret_policy_json, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int r = prepare(j, "SELECT rev, tx, policy_json FROM revisions ORDER BY rev DESC LIMIT 1 OFFSET ?",
                        &st, e);

        if (r < 0)
                return r;
        sqlite3_bind_int(st, 1, (int)back);
        return revision_row(j, st, ret_rev, ret_tx, ret_policy_json, e);
}

int journal_revision_get(struct journal *j, int64_t rev, int64_t *ret_tx, char **ret_policy_json,
                         struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int r = prepare(j, "SELECT rev, tx, policy_json FROM revisions WHERE rev = ?", &st, e);

        if (r < 0)
                return r;
        sqlite3_bind_int64(st, 1, rev);
        return revision_row(j, st, NULL, ret_tx, ret_policy_json, e);
}
