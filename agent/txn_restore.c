/* SPDX-License-Identifier: MIT */
/* The transaction's way back: restore a snapshot, verify the restore, record it. */
#include "cli.h"
#include "crashpoint.h"
#include "diff.h"
#include "log.h"
#include "state_json.h"
#include "txn_internal.h"

int txn_record_final(struct txn_env *env, struct txn_result *res, enum txn_state s,
                     int exit_code, const char *result)
{
        _cleanup_free_ char *probe = txn_probe_json_text(res);
        _cleanup_free_ char *restores = txn_json_text(res->restores);
        char err[1100] = "";
        struct journal_result jr = {
                .result = result, .exit_code = exit_code, .probe_json = probe,
                .restored_by = res->restored_by[0] ? res->restored_by : NULL,
                .restores_json = restores,
        };

        if (res->error.msg[0])
                jr.error = errbuf_str(&res->error, err, sizeof(err));
        txn_finish(res, s, exit_code, result);
        if (!res->tx)
                return 0;
        return txn_step(env, res, s, &jr);
}

/* Append "text" to acc ("; " between), keeping the first errno in *first. */
static void note_failure(struct errbuf *acc, int *first, int r, const char *text)
{
        size_t len = strlen(acc->msg);

        if (!*first)
                *first = r;
        if (len && len + 2 < sizeof(acc->msg))
                memcpy(acc->msg + len, "; ", 3);
        len = strlen(acc->msg);
        strncat(acc->msg, text, sizeof(acc->msg) - len - 1);
}

/* Best effort: every driver restores what it can; every failure is kept in acc. */
static int restore_target(struct txn_target *t, struct errbuf *acc)
{
        int first = 0;

        for (unsigned d = t->n_drivers; d-- > 0;) {
                uint32_t f = t->fields[d] & t->before.present;
                struct errbuf e = { 0 };
                char buf[1100];
                int r;

                if (!f)
                        continue;
                r = t->drivers[d]->restore(&t->t, &t->before, f, &e);
                if (r < 0)
                        note_failure(acc, &first, r, errbuf_str(&e, buf, sizeof(buf)));
        }
        return first;
}

/* before ⊆ live for every target restored; every difference left is named in acc. */
static int verify_restore(struct txn_target *tg, unsigned n, bool all, struct errbuf *acc)
{
        int first = 0;

        for (unsigned i = 0; i < n; i++) {
                const char *kind = tg[i].t.kind == TARGET_SWITCH ? "switch" : "interface";
                struct state live;
                struct diff d = { 0 };
                struct errbuf e = { 0 };
                char buf[1100];
                int r;

                if (!all && !tg[i].touched)
                        continue;
                r = txn_read_target(&tg[i], tg[i].before.present, &live, &e);
                if (r >= 0)
                        r = state_diff(&tg[i].before, &live, &d);
                if (r < 0) {
                        snprintf(buf, sizeof(buf), "%s '%s' cannot be read back: %s", kind, tg[i].t.name, e.msg);
                        note_failure(acc, &first, r, buf);
                        continue;
                }
                for (unsigned k = 0; k < d.n; k++) {
                        snprintf(buf, sizeof(buf), "%s '%s' still differs: %s is %s, snapshot has %s", kind,
                                 tg[i].t.name, d.entries[k].key, d.entries[k].from, d.entries[k].to);
                        note_failure(acc, &first, -EIO, buf);
                }
                diff_done(&d);
        }
        return first;
}

int txn_restore_targets(struct txn_env *env, struct txn_target *tg, unsigned n, bool all,
                        const char *restored_by, int exit_code, struct txn_result *res)
{
        struct errbuf e2 = { 0 }, e3 = { 0 };
        char buf[1100];
        int r = 0;

        snprintf(res->restored_by, sizeof(res->restored_by), "%s", restored_by);
        /* The journal must say RESTORING even if writing it fails: restore anyway. */
        txn_step(env, res, TXN_RESTORING, NULL);
        for (unsigned i = 0; i < n; i++) {
                int k;

                if (!all && !tg[i].touched)
                        continue;
                k = restore_target(&tg[i], &e2);
                txn_switch_note_restore(res, &tg[i], k);
                if (k < 0 && r == 0)
                        r = k;
        }
        if (txn_commit_sessions(tg, n, &e3) < 0) {
                errbuf_str(&e3, buf, sizeof(buf));
                note_failure(&e2, &r, -EIO, buf);
        }
        /* Whatever failed on the way, read back and name every difference left. */
        errbuf_clear(&e3);
        if (verify_restore(tg, n, all, &e3) < 0)
                note_failure(&e2, &r, -EIO, e3.msg);
        if (r < 0) {
                char why[1100];

                errbuf_str(&res->error, buf, sizeof(buf));
                errbuf_str(&e2, why, sizeof(why));
                errbuf_set(&res->error, -r, NULL, "%s%sRESTORE FAILED: %s; the node is in an unknown state, check it by hand",
                           buf, buf[0] ? "; " : "", why);
                log_err("transaction %lld: %s", (long long)res->tx, res->error.msg);
                txn_record_final(env, res, TXN_FAILED, EXIT_RUNTIME, "failed");
                return r;
        }
        txn_record_final(env, res, TXN_ROLLED_BACK, exit_code, "rolled_back");
        return 0;
}

/* Targets of tx rebuilt from its snapshot rows, with ->before and ->desired = the snapshot. */
int txn_targets_from_snapshot(struct txn_env *env, int64_t tx, struct txn_target **ret,
                              unsigned *ret_n, struct errbuf *e)
{
        struct journal_snapshot *rows = NULL;
        struct txn_target *tg;
        unsigned n = 0;
        int r = journal_load_snapshots(env->journal, tx, &rows, &n, e);

        if (r < 0)
                return r;
        tg = calloc(n ? n : 1, sizeof(*tg));
        if (!tg) {
                journal_snapshots_free(rows, n);
                return -ENOMEM;
        }
        for (unsigned i = 0; i < n && r >= 0; i++) {
                json_t *j = json_loads(rows[i].state_json, JSON_REJECT_DUPLICATES, NULL);

                r = env->hooks.resolve_one(env, rows[i].kind, rows[i].target, rows[i].fields, &tg[i], e);
                if (r >= 0 && !j)
                        r = errbuf_set(e, EIO, rows[i].target, "snapshot of transaction %lld is not valid JSON",
                                       (long long)tx);
                if (r >= 0)
                        r = state_from_json(j, &tg[i].before, e);
                tg[i].desired = tg[i].before;
                json_decref(j);
        }
        journal_snapshots_free(rows, n);
        if (r < 0) {
                free(tg);
                return r;
        }
        *ret = tg;
        *ret_n = n;
        return 0;
}

int txn_restore_tx(struct txn_env *env, int64_t tx, const char *restored_by, struct txn_result *res)
{
        _cleanup_free_ struct txn_target *tg = NULL;
        unsigned n = 0;
        int r;

        res->tx = tx;
        r = txn_targets_from_snapshot(env, tx, &tg, &n, &res->error);
        if (r < 0) {
                snprintf(res->restored_by, sizeof(res->restored_by), "%s", restored_by);
                errbuf_prefix(&res->error, "cannot restore transaction %lld", (long long)tx);
                txn_record_final(env, res, TXN_FAILED, EXIT_RUNTIME, "failed");
                return r;
        }
        for (unsigned i = 0; i < n; i++)
                for (unsigned d = 0; d < tg[i].n_drivers; d++)
                        if (tg[i].drivers[d]->open && tg[i].drivers[d]->open(&tg[i].t, &res->error) >= 0)
                                tg[i].opened[d] = true;
        r = txn_restore_targets(env, tg, n, true, restored_by,
                                streq(restored_by, "operator") ? EXIT_OK : EXIT_ROLLED_BACK, res);
        txn_close_sessions(tg, n);
        return r;
}
