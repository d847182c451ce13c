/* SPDX-License-Identifier: MIT */
/* The transaction's forward path: plan, probe, snapshot, apply the delta, read back, verify, commit. */
#include <time.h>

#include "common/outcome.h"
#include "agent/txn/txn_internal.h"
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
static int apply_all(struct txn_env *env, struct plan *p, struct txn_result *res)
{
        struct errbuf queued = { 0 }, *e = &res->error;
        int r, k;

        r = txn_side_effect(env, "the first device write", res);
        if (r < 0)
                return r;
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
static int nothing_to_do(struct txn_env *env, const struct txn_request *req, const char *name,
                         const char *policy_json, struct txn_result *res)
{
        _cleanup_free_ char *newest = NULL;
        int r;

        txn_finish(res, TXN_COMMITTED, OUTCOME_OK, "nothing_to_do");
        r = journal_revision(env->journal, 0, NULL, NULL, &newest, &res->error);
        if (r < 0 && r != -ENOENT)
                return r;
        if (!req->layer && (!policy_json || (newest && streq(newest, policy_json))))
                return 0;
        r = journal_begin_keyed(env->journal, req->kind, name, policy_json, "[]", req->idempotency_key,
                                req->key_hash, &res->tx, &res->error);
        if (r >= 0 && req->layer)
                r = journal_set_layer(env->journal, res->tx, req->layer, req->layer_prev, &res->error);
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
        /* Before the measurement: the transaction is known (PLANNED) while it measures. */
        r = txn_barrier(env, res);
        if (r < 0) {
                res->tx = 0;            /* its begin went with the batch */
                txn_finish(res, TXN_PLANNED, OUTCOME_RUNTIME, "failed");
                return r;
        }
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
static int verify_post(struct txn_env *env, const struct policy_verify *v, struct plan *p, struct txn_result *res)
{
        int r;

        if (!v || v->probe == POLICY_PROBE_NONE)
                return 0;
        r = txn_post_phase(env, v, res);
        if (r < 0 && !res->post.error[0])
                errbuf_str(&res->error, res->post.error, sizeof(res->post.error));
        r = txn_gate(v, res);
        if (txn_gate_class(p, res) >= 0 && r >= 0)
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
 * still takes writes (a checkpoint that failed); a barrier that was rolled back took
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

/* A switch's pending change committed (a side effect): what is recorded so far first. */
static int commit_sessions(struct txn_env *env, struct plan *p, struct txn_result *res)
{
        int r;

        if (!txn_has_sessions(p))
                return 0;
        r = txn_barrier(env, res);
        if (r >= 0)
                r = txn_side_effect(env, "a switch's commit", res);
        return r < 0 ? r : txn_commit_sessions(p, &res->error);
}

/* From the snapshot on: anything that fails restores what was touched. */
static int change_and_verify(struct txn_env *env, const struct policy_verify *v, unsigned confirm_timeout_s,
                             struct plan *p, struct txn_result *res)
{
        const char *by = "error";
        int code = OUTCOME_RUNTIME, r;

        /*
         * The barrier before the first device write: the snapshot, and with it the way
         * back, is durable before anything is touched — committed, and copied from the
         * WAL into the journal's file (a journal that loses its WAL later still has it,
         * and recovery restores from it).
         */
        if ((r = txn_step(env, res, TXN_APPLYING, NULL)) < 0 || (r = txn_barrier(env, res)) < 0)
                return unjournaled(env, res, r);
        if (apply_all(env, p, res) < 0)
                goto restore;
        crashpoint("applied-drivers");
        if (read_back(p, &res->error) < 0) {
                by = "readback";
                goto restore;
        }
        crashpoint_after_apply();
        if (txn_step(env, res, TXN_APPLIED, NULL) < 0)
                goto restore;
        /* Settling is for the post-change probe: without one there is nothing to wait for. */
        if (v && v->present && v->probe != POLICY_PROBE_NONE && v->settle_ms) {
                if (txn_barrier(env, res) < 0)
                        goto restore;
                sleep_ms(v->settle_ms);
        }
        /* Before the post-change measurement: APPLIED and VERIFYING recorded. */
        if (txn_step(env, res, TXN_VERIFYING, NULL) < 0 ||
            (v && v->probe != POLICY_PROBE_NONE && txn_barrier(env, res) < 0))
                goto restore;
        if (verify_post(env, v, p, res) < 0) {
                by = "gate";
                code = OUTCOME_ROLLED_BACK;
                goto restore;
        }
        if (commit_sessions(env, p, res) < 0)
                goto restore;
        txn_switch_note_saves(res, p);
        if (finish_ok(env, confirm_timeout_s, res) < 0 && res->state != TXN_PENDING_CONFIRM)
                goto restore;
        /* The end is durable before anyone hears of it; should its barrier fail, the change goes back. */
        if (txn_barrier(env, res) < 0)
                goto restore;
        return 0;
restore:
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

int txn_check_expected(struct txn_env *env, const struct txn_request *req, struct txn_result *res)
{
        int64_t expect = req ? req->expect_revision : -1;
        int64_t rev = 0, tx = 0;
        struct journal_tx t = { 0 };
        struct errbuf e = { 0 };
        int r;

        if (expect < 0)
                return 0;
        r = journal_revision(env->journal, 0, &rev, &tx, NULL, &e);
        if (r == -ENOENT) {
                rev = tx = 0;
        } else if (r < 0) {
                res->error = e;
                txn_finish(res, TXN_PLANNED, OUTCOME_RUNTIME, "failed");
                return r;
        }
        if (rev == expect)
                return 0;
        res->current_revision = rev;
        txn_finish(res, TXN_PLANNED, OUTCOME_INVALID, "precondition_failed");
        if (!rev)
                return errbuf_set(&res->error, ESTALE, "$.expect_revision", "no revision is committed on this node, not "
                                  "the expected %lld; nothing was changed", (long long)expect);
        if (journal_get(env->journal, tx, &t, &e) < 0)
                t.kind[0] = '\0';
        r = errbuf_set(&res->error, ESTALE, "$.expect_revision", "the current revision is %lld (transaction %lld%s%s), "
                       "not the expected %lld; nothing was changed", (long long)rev, (long long)tx,
                       t.kind[0] ? ", " : "", t.kind, (long long)expect);
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

int txn_run(struct txn_env *env, const struct txn_request *req, const char *policy_json,
            const struct policy_verify *verify, unsigned confirm_timeout_s, struct plan *p, struct txn_result *res)
{
        struct txn_prepared prep = { 0 };

        return txn_run_prepared(env, req, policy_json, verify, confirm_timeout_s, p, &prep, res);
}

int txn_run_prepared(struct txn_env *env, const struct txn_request *req, const char *policy_json,
                     const struct policy_verify *verify, unsigned confirm_timeout_s, struct plan *p,
                     struct txn_prepared *prep, struct txn_result *res)
{
        const char *kind = req->kind;
        bool ahead = prep->done;
        struct policy_verify ungated;
        int r;

        /*
         * rollback --no-gate: the restore runs without its probes and gate (the fabric may be
         * on fire). A fleet rollback's own peer: the gate measures against it instead.
         */
        if (verify && (req->no_gate || (req->probe_peer && req->probe_peer[0]))) {
                ungated = *verify;
                if (req->no_gate)
                        ungated.probe = POLICY_PROBE_NONE;
                else
                        snprintf(ungated.peer, sizeof(ungated.peer), "%s", req->probe_peer);
                verify = &ungated;
        }

        /*
         * Prepared ahead (apply, while its journal opened), it only read: is the node busy
         * now? Unless the journal had nothing unfinished once this lock was held (idle).
         */
        r = prep->idle ? 0 : busy(env, res);
        if (r >= 0)
                r = txn_check_expected(env, req, res);
        if (r < 0)
                goto out;
        r = ahead ? prep->r : txn_prepare(env, kind, verify, p, prep, res);
        if (r < 0)
                goto out;
        if (p->n_changes == 0) {
                r = nothing_to_do(env, req, p->policy, policy_json, res);
                goto out;
        }
        r = journal_begin_keyed(env->journal, kind, p->policy, policy_json, prep->changes, req->idempotency_key,
                                req->key_hash, &res->tx, &res->error);
        if (r >= 0 && req->layer)
                r = journal_set_layer(env->journal, res->tx, req->layer, req->layer_prev, &res->error);
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
        if (txn_barrier(env, res) < 0 && r >= 0)
                r = -EIO;
        plan_close(p);
        txn_unprepare(p, prep);
        return r;
}
