/* SPDX-License-Identifier: MIT */
/* The transaction's forward path: read, diff, probe, snapshot, apply, verify, commit. */
#include <time.h>

#include "cli.h"
#include "crashpoint.h"
#include "diff.h"
#include "state_json.h"
#include "txn.h"
#include "txn_internal.h"

int txn_step(struct txn_env *env, struct txn_result *res, enum txn_state s,
             const struct journal_result *jr)
{
        int r = journal_record(env->journal, res->tx, s, jr, &res->error);

        if (r < 0)
                return r;
        res->state = s;
        crashpoint(journal_state_name(s));
        return 0;
}

void txn_finish(struct txn_result *res, enum txn_state s, int exit_code, const char *result)
{
        res->state = s;
        res->exit_code = exit_code;
        snprintf(res->result, sizeof(res->result), "%s", result);
}

static int open_sessions(struct txn_target *tg, unsigned n, struct errbuf *e)
{
        for (unsigned i = 0; i < n; i++)
                for (unsigned d = 0; d < tg[i].n_drivers; d++) {
                        const struct driver_ops *ops = tg[i].drivers[d];
                        int r;

                        if (!ops->open || tg[i].opened[d])
                                continue;
                        r = ops->open(&tg[i].t, e);
                        if (r < 0)
                                return r;
                        tg[i].opened[d] = true;
                }
        return 0;
}

void txn_close_sessions(struct txn_target *tg, unsigned n)
{
        for (unsigned i = 0; i < n; i++)
                for (unsigned d = 0; d < tg[i].n_drivers; d++)
                        if (tg[i].opened[d] && tg[i].drivers[d]->close) {
                                tg[i].drivers[d]->close(&tg[i].t);
                                tg[i].opened[d] = false;
                        }
}

int txn_commit_sessions(struct txn_target *tg, unsigned n, struct errbuf *e)
{
        for (unsigned i = 0; i < n; i++)
                for (unsigned d = 0; d < tg[i].n_drivers; d++)
                        if (tg[i].opened[d] && tg[i].drivers[d]->commit) {
                                int r = tg[i].drivers[d]->commit(&tg[i].t, e);

                                if (r < 0)
                                        return r;
                        }
        return 0;
}

/* Read `want` fields of one target (those its drivers serve) into *live. */
int txn_read_target(struct txn_target *t, uint32_t want, struct state *live, struct errbuf *e)
{
        state_init(live);
        for (unsigned d = 0; d < t->n_drivers; d++) {
                const struct driver_ops *ops = t->drivers[d];
                uint32_t f = t->fields[d] & want;
                bool temporary = ops->open && !t->opened[d];    /* a read outside a transaction */
                int r;

                if (!f)
                        continue;
                if (temporary && (r = ops->open(&t->t, e)) < 0)
                        return r;
                r = ops->read(&t->t, f, live, e);
                if (temporary && ops->close)
                        ops->close(&t->t);
                if (r < 0)
                        return r;
        }
        return 0;
}

int txn_read_live(struct txn_target *targets, unsigned n, struct state *live, struct errbuf *e)
{
        for (unsigned i = 0; i < n; i++) {
                int r = txn_read_target(&targets[i], targets[i].desired.present, &live[i], e);

                if (r < 0)
                        return r;
        }
        return 0;
}

static uint32_t served_fields(const struct txn_target *t)
{
        uint32_t f = 0;

        for (unsigned d = 0; d < t->n_drivers; d++)
                f |= t->fields[d];
        return f;
}

/* Refuse fields no driver of a target can serve, before anything is touched. */
static int check_caps(const struct txn_target *tg, unsigned n, struct errbuf *e)
{
        for (unsigned i = 0; i < n; i++) {
                uint32_t missing = tg[i].desired.present & ~served_fields(&tg[i]);
                const struct target *t = &tg[i].t;
                char where[128];

                if (!missing)
                        continue;
                snprintf(where, sizeof(where), "%s '%s'", t->kind == TARGET_SWITCH ? "switch" : "interface", t->name);
                for (int f = 0; f < STATE_FIELD_MAX; f++)
                        if (missing & STATE_BIT(f))
                                return errbuf_set(e, EOPNOTSUPP, where, "does not support '%s' here%s%s%s",
                                                  state_field_name(f), t->kernel_driver[0] ? " (kernel driver '" : "",
                                                  t->kernel_driver, t->kernel_driver[0] ? "')" : "");
        }
        return 0;
}

static int apply_all(struct txn_target *tg, unsigned n, const uint32_t *changed, struct errbuf *e)
{
        for (unsigned i = 0; i < n; i++)
                for (unsigned d = 0; d < tg[i].n_drivers; d++) {
                        uint32_t f = tg[i].fields[d] & changed[i];
                        int r;

                        if (!f)
                                continue;
                        tg[i].touched = true;
                        r = tg[i].drivers[d]->apply(&tg[i].t, &tg[i].desired, f, e);
                        if (r < 0)
                                return r;
                }
        return 0;
}

/* desired ⊆ live for every target after the apply. */
static int read_back(struct txn_target *tg, unsigned n, struct state *live, struct errbuf *e)
{
        int r = txn_read_live(tg, n, live, e);

        if (r < 0)
                return r;
        for (unsigned i = 0; i < n; i++) {
                struct diff d = { 0 };

                r = state_diff(&tg[i].desired, &live[i], &d);
                if (r < 0)
                        return r;
                if (!diff_empty(&d)) {
                        r = errbuf_set(e, EIO, NULL, "read-back of %s '%s' differs: %s is %s, expected %s",
                                       tg[i].t.kind == TARGET_SWITCH ? "switch" : "interface", tg[i].t.name,
                                       d.entries[0].key, d.entries[0].from, d.entries[0].to);
                        diff_done(&d);
                        return r;
                }
                diff_done(&d);
        }
        return 0;
}

static int save_snapshot(struct txn_env *env, struct txn_target *tg, const struct state *live,
                         unsigned n, struct txn_result *res)
{
        struct journal_snapshot *rows = calloc(n ? n : 1, sizeof(*rows));
        int r = 0;

        if (!rows)
                return -ENOMEM;
        for (unsigned i = 0; i < n && r >= 0; i++) {
                json_t *j;

                tg[i].before = live[i];
                j = state_to_json(&live[i]);
                snprintf(rows[i].target, sizeof(rows[i].target), "%s", tg[i].t.name);
                rows[i].kind = tg[i].t.kind;
                rows[i].fields = live[i].present;
                rows[i].state_json = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
                json_decref(j);
                if (!rows[i].state_json)
                        r = -ENOMEM;
        }
        if (r >= 0)
                r = journal_snapshot(env->journal, res->tx, rows, n, &res->error);
        journal_snapshots_free(rows, n);
        if (r >= 0) {
                res->state = TXN_SNAPSHOTTED;
                crashpoint("snapshotted");
        }
        return r;
}

static void sleep_ms(unsigned ms)
{
        struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

        while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
                ;
}

static int changes_of(struct txn_target *tg, const struct state *live, unsigned n,
                      uint32_t *changed, struct txn_result *res, unsigned *ret_n)
{
        for (unsigned i = 0; i < n; i++) {
                struct diff d = { 0 };
                int r = state_diff(&tg[i].desired, &live[i], &d);

                if (r < 0)
                        return r;
                changed[i] = d.fields;
                diff_done(&d);
        }
        return txn_diff_json(tg, live, n, &res->changes, ret_n);
}

/* Live state already matches: no device change; record the policy as a revision if it is new. */
static int nothing_to_do(struct txn_env *env, const char *kind, const char *name,
                         const char *policy_json, struct txn_result *res)
{
        _cleanup_free_ char *newest = NULL;
        int r;

        txn_finish(res, TXN_COMMITTED, EXIT_OK, "nothing_to_do");
        r = journal_revision(env->journal, 0, NULL, NULL, &newest, &res->error);
        if (r < 0 && r != -ENOENT)
                return r;
        if (!policy_json || (newest && streq(newest, policy_json)))
                return 0;
        r = journal_begin_keyed(env->journal, kind, name, policy_json, "[]", env->idempotency_key,
                                &res->tx, &res->error);
        if (r >= 0)
                r = txn_record_final(env, res, TXN_COMMITTED, EXIT_OK, "nothing_to_do");
        return r;
}

/* Baseline probe; 0 = go on, <0 = abort (recorded, nothing touched). */
static int baseline(struct txn_env *env, const struct policy_verify *v, struct txn_result *res)
{
        char buf[1100];
        int r;

        if (!v || v->probe == POLICY_PROBE_NONE)
                return 0;
        r = txn_probe_phase(env, v, "baseline", &res->baseline, &res->error);
        if (r >= 0)
                return 0;
        if (v->on_baseline_failure == POLICY_BASELINE_SKIP_GATE)
                return 0;
        errbuf_str(&res->error, buf, sizeof(buf));
        errbuf_set(&res->error, -r, NULL, "baseline probe failed: %s; nothing was changed", buf);
        txn_record_final(env, res, TXN_ROLLED_BACK, EXIT_RUNTIME, "aborted");
        return r;
}

/* Post probe and gate; 0 = pass, -EIO = regression (res->error says why). */
static int verify_post(struct txn_env *env, const struct policy_verify *v, struct txn_result *res)
{
        int r;

        if (!v || v->probe == POLICY_PROBE_NONE)
                return 0;
        r = txn_probe_phase(env, v, "post", &res->post, &res->error);
        if (r < 0 && !res->post.error[0])
                errbuf_str(&res->error, res->post.error, sizeof(res->post.error));
        if (txn_gate(v, res) >= 0)
                return 0;
        return errbuf_set(&res->error, EIO, NULL, "verification failed: %s; the change was rolled back",
                          res->gate.reason);
}

static int finish_ok(struct txn_env *env, unsigned confirm_timeout_s, struct txn_result *res)
{
        struct journal_result jr = { .result = "pending_confirm", .exit_code = EXIT_PENDING };
        _cleanup_free_ char *probe = txn_probe_json_text(res);

        jr.probe_json = probe;
        if (confirm_timeout_s == 0) {
                jr.result = "committed";
                jr.exit_code = EXIT_OK;
                if (txn_step(env, res, TXN_COMMITTED, &jr) < 0)
                        return -EIO;
                txn_finish(res, TXN_COMMITTED, EXIT_OK, "committed");
                return 0;
        }
        jr.confirm_deadline_ms = journal_now_ms() + (int64_t)confirm_timeout_s * 1000;
        if (txn_step(env, res, TXN_PENDING_CONFIRM, &jr) < 0)
                return -EIO;
        res->confirm_deadline_ms = jr.confirm_deadline_ms;
        txn_finish(res, TXN_PENDING_CONFIRM, EXIT_PENDING, "pending_confirm");
        if (!env->no_watchdog && txn_spawn_watchdog(env, res->tx, &res->error) < 0)
                return -EIO;
        return 0;
}

/* From the snapshot on: anything that fails restores what was touched. */
static int change_and_verify(struct txn_env *env, const struct policy_verify *v, unsigned confirm_timeout_s,
                             struct txn_target *tg, unsigned n, struct state *live,
                             const uint32_t *changed, struct txn_result *res)
{
        const char *by = "error";
        int code = EXIT_RUNTIME;

        if (txn_step(env, res, TXN_APPLYING, NULL) < 0)
                goto restore;
        if (apply_all(tg, n, changed, &res->error) < 0)
                goto restore;
        crashpoint("applied-drivers");
        if (read_back(tg, n, live, &res->error) < 0) {
                by = "readback";
                goto restore;
        }
        if (txn_step(env, res, TXN_APPLIED, NULL) < 0)
                goto restore;
        /* Settling is for the post-change probe: without one there is nothing to wait for. */
        if (v && v->present && v->probe != POLICY_PROBE_NONE && v->settle_ms)
                sleep_ms(v->settle_ms);
        if (txn_step(env, res, TXN_VERIFYING, NULL) < 0)
                goto restore;
        txn_run_test_hook();
        if (verify_post(env, v, res) < 0) {
                by = "gate";
                code = EXIT_ROLLED_BACK;
                goto restore;
        }
        if (txn_commit_sessions(tg, n, &res->error) < 0)
                goto restore;
        if (finish_ok(env, confirm_timeout_s, res) < 0 && res->state != TXN_PENDING_CONFIRM)
                goto restore;
        return 0;
restore:
        return txn_restore_targets(env, tg, n, false, by, code, res);
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

int txn_run(struct txn_env *env, const char *kind, const char *policy_name, const char *policy_json,
            const struct policy_verify *verify, unsigned confirm_timeout_s,
            struct txn_target *tg, unsigned n, struct txn_result *res)
{
        _cleanup_free_ struct state *live = calloc(n ? n : 1, sizeof(*live));
        _cleanup_free_ uint32_t *changed = calloc(n ? n : 1, sizeof(*changed));
        _cleanup_free_ char *changes = NULL;
        struct txn_switch_envs armed = { 0 };
        unsigned n_changes = 0;
        int r;

        if (!live || !changed)
                return -ENOMEM;
        r = check_no_pending(env, res);
        if (r < 0) {
                txn_finish(res, TXN_PLANNED, EXIT_RUNTIME, "busy");
                return r;
        }
        r = check_caps(tg, n, &res->error);
        if (r < 0) {
                txn_finish(res, TXN_PLANNED, EXIT_INVALID, "refused");
                return r;
        }
        /* Switches apply with their native commit-confirm timer; the gate's pass commits it. */
        r = txn_switch_arm(tg, n, txn_switch_timer_s(env, verify), &armed);
        if (r >= 0)
                r = open_sessions(tg, n, &res->error);
        if (r >= 0)
                r = txn_read_live(tg, n, live, &res->error);
        if (r >= 0)
                r = changes_of(tg, live, n, changed, res, &n_changes);
        if (r < 0) {
                txn_finish(res, TXN_PLANNED, EXIT_RUNTIME, "failed");
                goto out;
        }
        if (n_changes == 0) {
                r = nothing_to_do(env, kind, policy_name, policy_json, res);
                goto out;
        }
        changes = txn_json_text(res->changes);
        r = journal_begin_keyed(env->journal, kind, policy_name, policy_json, changes, env->idempotency_key,
                                &res->tx, &res->error);
        if (r < 0) {
                txn_finish(res, TXN_PLANNED, EXIT_RUNTIME, "failed");
                goto out;
        }
        crashpoint("planned");
        r = baseline(env, verify, res);
        if (r < 0)
                goto out;
        r = save_snapshot(env, tg, live, n, res);
        if (r < 0) {
                txn_record_final(env, res, TXN_ROLLED_BACK, EXIT_RUNTIME, "aborted");
                goto out;
        }
        r = change_and_verify(env, verify, confirm_timeout_s, tg, n, live, changed, res);
out:
        txn_close_sessions(tg, n);
        txn_switch_disarm(tg, &armed);
        return r;
}
