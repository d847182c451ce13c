/* SPDX-License-Identifier: MIT */
/* The transaction's forward path: plan, probe, snapshot, apply the delta, read back, verify, commit. */
#include <time.h>

#include "common/outcome.h"
#include "agent/txn/txn_internal.h"
#include "drivers/host/host_io.h"
#include "policies/state/diff.h"
#include "policies/state/field.h"
#include "policies/json/jsonw.h"
#include "policies/state/state_json.h"

/* The delta of every target through the drivers that own it, in registry order. */
static int apply_each(struct plan *p, struct errbuf *e)
{
        for (unsigned i = 0; i < p->n; i++) {
                struct plan_target *pt = &p->v[i];
                _cleanup_free_ uint32_t *delta = calloc(pt->n_units ? pt->n_units : 1, sizeof(*delta));

                if (!delta)
                        return errbuf_set(e, ENOMEM, NULL, "out of memory");
                for (unsigned r = 0; r < pt->n_routes; r++) {
                        struct driver_change c;
                        int k;

                        plan_change(pt, r, delta, &c);
                        if (!c.fields)
                                continue;
                        pt->touched = true;
                        k = pt->routes[r].ops->apply(&pt->t, &c, e);
                        if (k < 0)
                                return k;
                }
        }
        return 0;
}

/*
 * apply_each() with the writes a driver may queue (link MTUs that wait for no
 * carrier) sent together at the end, their ACKs checked in one loop; a request
 * that any driver sends before then sends them first, so the order holds. A refused
 * queued write is the first failure in that order.
 */
static int apply_all(struct plan *p, struct errbuf *e)
{
        struct errbuf queued = { 0 };
        int r, k;

        p->io.batch = true;
        r = apply_each(p, e);
        p->io.batch = false;
        k = driver_io_flush(&p->io, &queued);
        if (k < 0)
                *e = queued;
        return k < 0 ? k : r;
}

/* desired ⊆ live for every changed target after the apply (the field table compares). */
static int read_back(struct plan *p, struct errbuf *e)
{
        for (unsigned i = 0; i < p->n; i++) {
                struct plan_target *pt = &p->v[i];
                struct diff d = { 0 };
                int r;

                if (!pt->touched)
                        continue;
                r = plan_read_target(p, i, pt->live, e);
                for (unsigned u = 0; r >= 0 && u < pt->n_units; u++) {
                        const char (*names)[STATE_NAME_MAX] = target_unit_names(&pt->t);
                        char prefix[STATE_NAME_MAX + 8] = "";

                        if (names)
                                snprintf(prefix, sizeof(prefix), "ports.%s.", names[u]);
                        if (diff_append(&d, prefix, &pt->desired[u], &pt->live[u]) < 0)
                                r = errbuf_set(e, ENOMEM, NULL, "out of memory");
                }
                if (r >= 0 && !diff_empty(&d))
                        r = errbuf_set(e, EIO, NULL, "read-back of %s '%s' differs: %s is %s, expected %s",
                                       target_kind_name(pt->t.kind), pt->t.name, d.entries[0].key, d.entries[0].from,
                                       d.entries[0].to);
                diff_done(&d);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* Every target's live state becomes its snapshot (->before), and its text the journal's row. */
static int snapshot_rows(struct plan *p, struct txn_prepared *prep)
{
        prep->rows = calloc(p->n ? p->n : 1, sizeof(*prep->rows));
        if (!prep->rows)
                return -ENOMEM;
        prep->n_rows = p->n;
        for (unsigned i = 0; i < p->n; i++) {
                struct plan_target *pt = &p->v[i];
                struct journal_snapshot *row = &prep->rows[i];
                json_t *j;

                if (!pt->before)
                        pt->before = calloc(pt->n_units ? pt->n_units : 1, sizeof(*pt->before));
                if (!pt->before)
                        return -ENOMEM;
                memcpy(pt->before, pt->live, pt->n_units * sizeof(*pt->before));
                for (unsigned u = 0; u < pt->n_units; u++)      /* the lossless class read more: not ours to keep */
                        state_keep_fields(&pt->before[u], pt->want);
                j = state_units_to_json(pt->before, target_unit_names(&pt->t), pt->n_units);
                strcopy(row->target, sizeof(row->target), pt->t.name);
                row->kind = pt->t.kind;
                row->fields = pt->want;
                row->state_json = j ? jsonw_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
                json_decref(j);
                if (!row->state_json)
                        return -ENOMEM;
        }
        return 0;
}

/* The snapshot in the journal: the way back, before anything is touched. */
static int save_snapshot(struct txn_env *env, const struct txn_prepared *prep, struct txn_result *res)
{
        int r = journal_snapshot(env->journal, res->tx, prep->rows, prep->n_rows, &res->error);

        if (r >= 0) {
                res->state = TXN_SNAPSHOTTED;
                txn_crashpoint(env, "snapshotted");
        }
        return r;
}

static void sleep_ms(unsigned ms)
{
        struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

/* Live state already matches: no device change; record the policy as a revision if it is new. */
static int nothing_to_do(struct txn_env *env, const char *kind, const char *name,
                         const char *policy_json, struct txn_result *res)
{
        _cleanup_free_ char *newest = NULL;
        int r;

        txn_finish(res, TXN_COMMITTED, OUTCOME_OK, "nothing_to_do");
        r = journal_revision(env->journal, 0, NULL, NULL, &newest, &res->error);
        if (r < 0 && r != -ENOENT)
                return r;
        if (!env->layer && (!policy_json || (newest && streq(newest, policy_json))))
                return 0;
        r = journal_begin_keyed(env->journal, kind, name, policy_json, "[]", env->idempotency_key,
                                env->key_hash,
                                &res->tx, &res->error);
        if (r >= 0 && env->layer)
                r = journal_set_layer(env->journal, res->tx, env->layer, env->layer_prev, &res->error);
        if (r >= 0)
                r = txn_record_final(env, res, TXN_COMMITTED, OUTCOME_OK, "nothing_to_do");
        return r;
}

/* Baseline probe; 0 = go on, <0 = abort (recorded, nothing touched). */
static int baseline(struct txn_env *env, const struct policy_verify *v, struct txn_result *res)
{
        char buf[ERRBUF_STR_MAX];
        int r;

        if (!v || v->probe == POLICY_PROBE_NONE)
                return 0;
        r = txn_probe_phase(env, res->tx, &res->pin, "baseline", &res->baseline, &res->error);
        if (r >= 0)
                return 0;
        if (v->on_baseline_failure == POLICY_BASELINE_SKIP_GATE)
                return 0;
        errbuf_str(&res->error, buf, sizeof(buf));
        errbuf_set(&res->error, -r, NULL, "baseline probe failed: %s; nothing was changed", buf);
        txn_record_final(env, res, TXN_ROLLED_BACK, OUTCOME_RUNTIME, "aborted");
        return r;
}

/* Post probe and gate; 0 = pass, -EIO = regression (res->error says why). */
static int verify_post(struct txn_env *env, const struct policy_verify *v, struct txn_result *res)
{
        int r;

        if (!v || v->probe == POLICY_PROBE_NONE)
                return 0;
        r = txn_post_phase(env, v, res);
        if (r < 0 && !res->post.error[0])
                errbuf_str(&res->error, res->post.error, sizeof(res->post.error));
        if (txn_gate(v, res) >= 0)
                return 0;
        return errbuf_set(&res->error, EIO, NULL, "verification failed: %s; the change was rolled back",
                          res->gate.reason);
}

static int finish_ok(struct txn_env *env, unsigned confirm_timeout_s, struct txn_result *res)
{
        struct journal_result jr = { .result = "pending_confirm", .exit_code = OUTCOME_PENDING };
        _cleanup_free_ char *probe = txn_probe_json_text(res);
        _cleanup_free_ char *saves = txn_json_text(res->saves);

        jr.probe_json = probe;
        jr.saves_json = saves;
        if (confirm_timeout_s == 0) {
                jr.result = "committed";
                jr.exit_code = OUTCOME_OK;
                if (txn_step(env, res, TXN_COMMITTED, &jr) < 0)
                        return -EIO;
                txn_finish(res, TXN_COMMITTED, OUTCOME_OK, "committed");
                return 0;
        }
        jr.confirm_deadline_ms = journal_now_ms() + (int64_t)confirm_timeout_s * 1000;
        /* The watchdog first: a pending change is never without its timer, even if we die right after. */
        if (!env->no_watchdog && txn_spawn_watchdog(env, res->tx, &res->error) < 0)
                return -EIO;
        if (txn_step(env, res, TXN_PENDING_CONFIRM, &jr) < 0)
                return -EIO;
        res->confirm_deadline_ms = jr.confirm_deadline_ms;
        txn_finish(res, TXN_PENDING_CONFIRM, OUTCOME_PENDING, "pending_confirm");
        return 0;
}

/*
 * The journal could not take the way back (its snapshot up to APPLYING, in the
 * database file) before anything was touched: the transaction ends here, nothing was
 * changed. What of it the journal holds is recorded as aborted where the journal
 * still takes writes (a checkpoint that failed); a group that was rolled back took
 * its begin with it (tx 0). The cause (disk full, read-only) is the error.
 */
static int unjournaled(struct txn_env *env, struct txn_result *res, int r)
{
        char cause[sizeof(res->error.msg)];
        struct journal_tx t;
        bool known = res->tx && journal_get(env->journal, res->tx, &t, NULL) >= 0;

        if (known)
                journal_tx_done(&t);
        errbuf_str(&res->error, cause, sizeof(cause));
        errbuf_set(&res->error, -r, NULL, "cannot write the journal before changing anything: %s; nothing was "
                   "changed", cause);
        if (known) {
                txn_record_final(env, res, TXN_ROLLED_BACK, OUTCOME_RUNTIME, "aborted");
        } else {
                res->tx = 0;
                txn_finish(res, TXN_PLANNED, OUTCOME_RUNTIME, "failed");
        }
        return r;
}

/* From the snapshot on: anything that fails restores what was touched. */
static int change_and_verify(struct txn_env *env, const struct policy_verify *v, unsigned confirm_timeout_s,
                             struct plan *p, struct txn_result *res)
{
        /* Settling is for the post-change probe: without one there is nothing to wait for. */
        bool settle = v && v->present && v->probe != POLICY_PROBE_NONE && v->settle_ms;
        /* Nothing to measure and nothing to commit elsewhere: the read-back is the last side effect. */
        bool quiet = (!v || v->probe == POLICY_PROBE_NONE) && !txn_has_sessions(p);
        const char *by = "error";
        int code = OUTCOME_RUNTIME, r;

        /*
         * The snapshot, and with it the way back, is durable before anything is touched:
         * committed, and copied from the WAL into the journal's file (a journal that
         * loses its WAL later still has it, and recovery restores from it).
         */
        if ((r = txn_step(env, res, TXN_APPLYING, NULL)) < 0 || (r = txn_group_end(env, res)) < 0 ||
            (r = journal_checkpoint(env->journal, &res->error)) < 0)
                return unjournaled(env, res, r);
        if (apply_all(p, &res->error) < 0)
                goto restore;
        crashpoint("applied-drivers");
        if (read_back(p, &res->error) < 0) {
                by = "readback";
                goto restore;
        }
        crashpoint_after_apply();
        /*
         * Recovery restores from APPLYING on: these two need no fsync of their own, the
         * end's commit carries them. A quiet transaction has nothing left to do between
         * them and that end: one commit takes APPLIED, VERIFYING and the end together,
         * without an fsync of its own: the checkpoint that ends the run makes it durable
         * (journal.h).
         */
        if (!settle)
                txn_group_begin(env, false, res);
        if (txn_step(env, res, TXN_APPLIED, NULL) < 0)
                goto restore;
        if (settle)
                sleep_ms(v->settle_ms);
        if (txn_step(env, res, TXN_VERIFYING, NULL) < 0 || (!quiet && txn_group_end(env, res) < 0))
                goto restore;
        if (verify_post(env, v, res) < 0) {
                by = "gate";
                code = OUTCOME_ROLLED_BACK;
                goto restore;
        }
        if (txn_commit_sessions(p, &res->error) < 0)
                goto restore;
        txn_switch_note_saves(res, p);
        if (finish_ok(env, confirm_timeout_s, res) < 0 && res->state != TXN_PENDING_CONFIRM)
                goto restore;
        /* The end is durable before anyone hears of it; should its commit fail, the change goes back. */
        if (txn_group_end(env, res) < 0)
                goto restore;
        return 0;
restore:
        txn_group_end(env, res);
        return txn_restore_targets(env, p, false, by, code, res);
}

/* A change pending confirmation owns the node until confirmed or restored. */
static int check_no_pending(struct txn_env *env, struct txn_result *res)
{
        _cleanup_free_ int64_t *ids = NULL;
        unsigned n = 0;
        int r = journal_unfinished(env->journal, &ids, &n, &res->error);

        if (r < 0)
                return r;
        for (unsigned i = 0; i < n; i++) {
                struct journal_tx t;

                if (journal_get(env->journal, ids[i], &t, &res->error) < 0)
                        continue;
                journal_tx_done(&t);
                if (t.state == TXN_PENDING_CONFIRM)
                        return errbuf_set(&res->error, EBUSY, NULL,
                                          "transaction %lld is pending confirmation; confirm it or let it expire first",
                                          (long long)ids[i]);
        }
        return 0;
}

/* Read, diff, check and pin the probe: anything refused here leaves the node untouched. */
static int plan_phase(struct plan *p, const char *kind, const struct policy_verify *verify, struct txn_result *res)
{
        int r = plan_read(p, &res->error);

        if (r < 0) {
                txn_finish(res, TXN_PLANNED, OUTCOME_RUNTIME, "failed");
                return r;
        }
        /* What a device refuses is invalid input for this node: exit 2, nothing touched. */
        p->lossless.refuse = !streq(kind, "rollback");  /* the way back is never refused for the lossless class */
        r = plan_check(p, &res->error);
        if (r < 0) {
                txn_finish(res, TXN_PLANNED, OUTCOME_INVALID, "refused");
                return r;
        }
        /* The way back is never refused for where its probe leaves. */
        r = plan_probe_pin(p, verify, streq(kind, "rollback") ? PLAN_PROBE_ANY_INTERFACE : 0, &res->pin, &res->error);
        if (r < 0)
                txn_finish(res, TXN_PLANNED, outcome_of_errno(r),
                           outcome_of_errno(r) == OUTCOME_INVALID ? "refused" : "failed");
        return r;
}

/* The plan's differences, target by target, as the result's change list. */
static int list_changes(const struct plan *p, struct txn_result *res)
{
        unsigned n = 0;

        free(res->changes);
        res->changes = calloc(p->n_changes ? p->n_changes : 1, sizeof(*res->changes));
        res->n_changes = 0;
        if (!res->changes)
                return -ENOMEM;
        for (unsigned i = 0; i < p->n; i++)
                for (unsigned k = 0; k < p->v[i].diff.n && n < p->n_changes; k++, n++) {
                        strcopy(res->changes[n].target, sizeof(res->changes[n].target), p->v[i].t.name);
                        res->changes[n].d = p->v[i].diff.entries[k];
                }
        res->n_changes = n;
        json_decref(res->notes);
        res->notes = p->n_notes || p->io.n_notes ? plan_notes_json(p) : NULL;
        return 0;
}

int txn_prepare(struct txn_env *env, const char *kind, const struct policy_verify *verify, struct plan *p,
                struct txn_prepared *prep, struct txn_result *res)
{
        int r;

        txn_unprepare(p, prep);
        prep->done = true;
        /* Switches apply with their native commit-confirm timer; the gate's pass commits it. */
        r = txn_switch_arm(p, txn_switch_timer_s(env, verify), &prep->armed);
        if (r < 0) {
                txn_finish(res, TXN_PLANNED, OUTCOME_RUNTIME, "failed");
                return prep->r = r;
        }
        r = plan_phase(p, kind, verify, res);
        if (r < 0)
                return prep->r = r;
        r = list_changes(p, res);
        if (r >= 0 && p->n_changes)
                prep->changes = txn_changes_text(res);
        if (r < 0 || (p->n_changes && (!prep->changes || snapshot_rows(p, prep) < 0))) {
                txn_finish(res, TXN_PLANNED, OUTCOME_RUNTIME, "failed");
                return prep->r = errbuf_set(&res->error, ENOMEM, NULL, "out of memory");
        }
        return prep->r = 0;
}

void txn_unprepare(struct plan *p, struct txn_prepared *prep)
{
        txn_switch_disarm(p, &prep->armed);
        free(prep->changes);
        journal_snapshots_free(prep->rows, prep->n_rows);
        *prep = (struct txn_prepared){ 0 };
}

int txn_check_expected(struct txn_env *env, struct txn_result *res)
{
        int64_t rev = 0, tx = 0;
        struct journal_tx t = { 0 };
        struct errbuf e = { 0 };
        int r;

        if (env->expect_revision < 0)
                return 0;
        r = journal_revision(env->journal, 0, &rev, &tx, NULL, &e);
        if (r == -ENOENT) {
                rev = tx = 0;
        } else if (r < 0) {
                res->error = e;
                txn_finish(res, TXN_PLANNED, OUTCOME_RUNTIME, "failed");
                return r;
        }
        if (rev == env->expect_revision)
                return 0;
        res->current_revision = rev;
        txn_finish(res, TXN_PLANNED, OUTCOME_INVALID, "precondition_failed");
        if (!rev)
                return errbuf_set(&res->error, ESTALE, "$.expect_revision", "no revision is committed on this node, not "
                                  "the expected %lld; nothing was changed", (long long)env->expect_revision);
        if (journal_get(env->journal, tx, &t, &e) < 0)
                t.kind[0] = '\0';
        r = errbuf_set(&res->error, ESTALE, "$.expect_revision", "the current revision is %lld (transaction %lld%s%s), "
                       "not the expected %lld; nothing was changed", (long long)rev, (long long)tx,
                       t.kind[0] ? ", " : "", t.kind, (long long)env->expect_revision);
        journal_tx_done(&t);
        return r;
}

static int busy(struct txn_env *env, struct txn_result *res)
{
        int r = check_no_pending(env, res);

        if (r < 0)
                txn_finish(res, TXN_PLANNED, OUTCOME_RUNTIME, "busy");
        return r;
}

int txn_run(struct txn_env *env, const char *kind, const char *policy_json, const struct policy_verify *verify,
            unsigned confirm_timeout_s, struct plan *p, struct txn_result *res)
{
        struct txn_prepared prep = { 0 };

        return txn_run_prepared(env, kind, policy_json, verify, confirm_timeout_s, p, &prep, res);
}

int txn_run_prepared(struct txn_env *env, const char *kind, const char *policy_json,
                     const struct policy_verify *verify, unsigned confirm_timeout_s, struct plan *p,
                     struct txn_prepared *prep, struct txn_result *res)
{
        bool ahead = prep->done;
        int r;

        /*
         * Prepared ahead (apply, while its journal opened), it only read: is the node busy
         * now? Unless the journal had nothing unfinished once this lock was held (idle).
         */
        r = prep->idle ? 0 : busy(env, res);
        if (r >= 0)
                r = txn_check_expected(env, res);
        if (r < 0)
                goto out;
        r = ahead ? prep->r : txn_prepare(env, kind, verify, p, prep, res);
        if (r < 0)
                goto out;
        if (p->n_changes == 0) {
                r = nothing_to_do(env, kind, p->policy, policy_json, res);
                goto out;
        }
        /*
         * Without a baseline probe nothing happens before the snapshot: one commit up to
         * APPLYING, without an fsync of its own: the checkpoint before the first device
         * change syncs it (the WAL, then the journal's file).
         */
        if (!verify || verify->probe == POLICY_PROBE_NONE)
                txn_group_begin(env, false, res);
        r = journal_begin_keyed(env->journal, kind, p->policy, policy_json, prep->changes, env->idempotency_key,
                                env->key_hash,
                                &res->tx, &res->error);
        if (r >= 0 && env->layer)
                r = journal_set_layer(env->journal, res->tx, env->layer, env->layer_prev, &res->error);
        if (r < 0) {
                txn_finish(res, TXN_PLANNED, OUTCOME_RUNTIME, "failed");
                goto out;
        }
        txn_crashpoint(env, "planned");
        r = baseline(env, verify, res);
        if (r < 0)
                goto out;
        r = save_snapshot(env, prep, res);
        if (r < 0) {
                txn_record_final(env, res, TXN_ROLLED_BACK, OUTCOME_RUNTIME, "aborted");
                goto out;
        }
        r = change_and_verify(env, verify, confirm_timeout_s, p, res);
out:
        if (txn_group_end(env, res) < 0 && r >= 0)
                r = -EIO;
        plan_close(p);
        txn_unprepare(p, prep);
        return r;
}
