/* SPDX-License-Identifier: MIT */
/* Inside agent/txn; not for other modules. */
#pragma once

#include <stdbool.h>

#include "agent/txn/txn.h"

/*
 * Helpers shared by the transaction's files; not for other modules. Layers, each
 * calling only those below it:
 *   txn_ops.c (entry points) → txn.c (forward path) → txn_restore.c (the way back)
 *   → txn_verify.c (probes, gate), txn_switch.c (switch timers), txn_record.c (journal
 *   records and barriers), txn_json.c (result JSON) → txn_env.c (environment, request
 *   defaults, result)
 */

/* ---- txn.c ---- */

/* The half of a transaction that needs no journal, done ahead by txn_prepare() (txn_apply_file.c). */
struct txn_prepared {
        bool done;
        int r;                          /* what it returned; < 0: the result says why */
        struct txn_switch_envs armed;   /* switch targets' timers, disarmed when the transaction ends */
        char *changes;                  /* the change list as the journal keeps it (txn_changes_text, owned) */
        struct journal_snapshot *rows;  /* [n_rows]: each target's snapshot as the journal keeps it (owned) */
        unsigned n_rows;
        bool idle;                      /* the journal had nothing unfinished under this lock: none pending */
};

/*
 * txn_run()'s first half, which needs no journal: switch targets' timers armed, the
 * plan read and checked (plan_read, plan_check), the probe pinned, the change list
 * and every target's snapshot as the journal will keep them. txn_run() does it itself
 * after checking that no change is pending; `apply` does it ahead, while its journal
 * opens, and txn_run_prepared() then checks for a pending change before writing anything.
 * Only for plans without switch targets (whose sessions a pending change may hold).
 * Kept in *prep until txn_run_prepared() ends; txn_unprepare() drops it when the plan
 * is made again instead (res->changes, which it set, stays with the result). Returns
 * what txn_run() would have (its error in res).
 */
int txn_prepare(struct txn_env *env, const char *kind, const struct policy_verify *verify, struct plan *p,
                struct txn_prepared *prep, struct txn_result *res);
void txn_unprepare(struct plan *p, struct txn_prepared *prep);
/* txn_run() over a first half done ahead (prep->done), or not yet (then it does it). */
int txn_run_prepared(struct txn_env *env, const struct txn_request *req, const char *policy_json,
                     const struct policy_verify *verify, unsigned confirm_timeout_s, struct plan *p,
                     struct txn_prepared *prep, struct txn_result *res);
/* txn_apply() over the policy's plan already built and maybe prepared (prep may be NULL). Frees the plan. */
int txn_apply_prepared(struct txn_env *env, const struct txn_request *req, const struct policy *p,
                       int confirm_timeout_s, struct plan *plan, struct txn_prepared *prep, struct txn_result *ret);
/* req, or the defaults (txn_request_init) when NULL; kind: req's, else this one. Into *buf. */
const struct txn_request *txn_request_of(const struct txn_request *req, const char *kind, struct txn_request *buf);

/* ---- txn.c ---- */

/*
 * The caller's precondition (req->expect_revision, -1: none; NULL req: none): the
 * node's current revision is the one it names; else result "precondition_failed"
 * (exit 2, res->current_revision) and -ESTALE. Under the lock, before anything is done.
 */
int txn_check_expected(struct txn_env *env, const struct txn_request *req, struct txn_result *res);

/* ---- txn_record.c ---- */

/* Journal state s for res->tx, then the crash point of that step. */
int txn_step(struct txn_env *env, struct txn_result *res, enum txn_state s,
             const struct journal_result *jr);
/*
 * The write-ahead barrier (journal.h, docs/design.md "Write-ahead discipline"): what
 * the transaction recorded so far made durable before its next side effect — the
 * first device write, a probe, a settling wait, a switch's commit, the answer.
 * txn_record_final() ends with one. 0 or -errno in res->error.
 */
int txn_barrier(struct txn_env *env, struct txn_result *res);
/* A device write starts (what): nothing recorded may be unflushed (journal_side_effect). */
int txn_side_effect(struct txn_env *env, const char *what, struct txn_result *res);
/* The crash point of a step just journaled (what is recorded so far flushed first). */
void txn_crashpoint(struct txn_env *env, const char *step);
void txn_finish(struct txn_result *res, enum txn_state s, int exit_code, const char *result);
/* Record a final state with the result's fields (error, probes, restored_by), then the barrier of the end. */
int txn_record_final(struct txn_env *env, struct txn_result *res, enum txn_state s,
                     int exit_code, const char *result);
/* The canonical JSON text of a value (caller frees). */
char *txn_json_text(const json_t *j);
/* The probe runs and the gate's verdict as JSON text, NULL when no probe ran (caller frees). */
char *txn_probe_json_text(const struct txn_result *res);

/* ---- txn_restore.c ---- */

/* An open native session (a switch) is there to commit: a side effect after the read-back. */
bool txn_has_sessions(const struct plan *p);
/* Commit every open native session. */
int txn_commit_sessions(struct plan *p, struct errbuf *e);
/*
 * Restore every touched (or, all=true, every) target of p from ->before, best
 * effort: every target and every driver is tried, each failure is named; then
 * read back. Records ROLLED_BACK with exit_code, or FAILED (exit 3) naming what
 * could not be restored.
 */
int txn_restore_targets(struct txn_env *env, struct plan *p, bool all, const char *restored_by, int exit_code,
                        struct txn_result *res);
/* A plan of tx's snapshot rows: desired = before = the snapshot. */
int txn_plan_from_snapshot(struct txn_env *env, int64_t tx, struct plan *p, struct errbuf *e);

/* ---- txn_verify.c ---- */

/* Measure one phase ("baseline", "post") of transaction tx's pinned probe into *ret (the node's measurement while it runs). */
int txn_probe_phase(struct txn_env *env, int64_t tx, const struct plan_probe *pin, const char *phase,
                    struct txn_probe *ret, struct errbuf *e);
/*
 * The post-change measurement; with on_inconclusive "retry" measured again (at most
 * TXN_LOAD_RETRIES more times) while the agent's load differs from the baseline's.
 */
#define TXN_LOAD_RETRIES 2
int txn_post_phase(struct txn_env *env, const struct policy_verify *v, struct txn_result *res);
/*
 * drivers/probe/probe_gate.c over res->baseline and res->post: fills res->gate; 0 pass,
 * -EIO fail. Verdict "inconclusive" (fail) when both were measured under the agent's
 * own loads that differ beyond MEASURE_LOAD_DELTA_MAX.
 */
int txn_gate(const struct policy_verify *v, struct txn_result *res);
/*
 * After txn_gate: which priority the post probe rode on its interface as the change
 * left it (plan_probe_rode). A probe whose traffic rode a priority without PFC on a
 * port that has PFC priorities proves nothing of the lossless class: verdict
 * "lossy_class", -EIO; on the way back (a rollback: p->lossless.refuse is false,
 * never refused for the class) the gate's reason says so and its verdict stands. Not
 * judged (no PFC, trust dscp with an unreadable map): the gate's "rode" says why and
 * its verdict stands.
 */
int txn_gate_class(struct plan *p, struct txn_result *res);
/* The default probe hook: probe_measure_pinned() of the pinned probe. */
int txn_probe_default(struct txn_env *env, const struct plan_probe *pin, const char *phase,
                      struct txn_probe *ret, struct errbuf *e);

/* ---- txn_watchdog.c ---- */

/* Detached child that restores tx at its deadline unless confirmed. */
int txn_spawn_watchdog(struct txn_env *env, int64_t tx, struct errbuf *e);

/* ---- txn_env.c ---- */

/*
 * A rollback gated by the verify settings of the revision it returns to (policy names
 * that revision's policy): when its probe failed or its gate restored, the error says
 * whose settings they were, not the change it undoes.
 */
void txn_rollback_name_gate(struct txn_result *res, const char *policy);

/* ---- txn_switch.c: switch targets in a transaction ---- */

/* Seconds of the vendor commit-confirm timer: read-back, settle and post probe plus a margin. */
unsigned txn_switch_timer_s(const struct txn_env *env, const struct policy_verify *v);
/* Point every switch target at a copy of its settings with the timer set; disarm puts them back. */
int txn_switch_arm(struct plan *p, unsigned timer_s, struct txn_switch_envs *ret);
void txn_switch_disarm(struct plan *p, struct txn_switch_envs *a);
/* Append {target, kind, method} for a target just restored (r: the restore's result) to res->restores. */
void txn_switch_note_restore(struct txn_result *res, const struct plan_target *pt, int r);
/* Append {target, saved, how} for every switch the commit just wrote to res->saves. */
void txn_switch_note_saves(struct txn_result *res, const struct plan *p);


/*
 * Test-only hooks, no-ops in production.
 *
 * Crash points. With NETTUNE_CRASH_AT=<step> in the environment the
 * process kills itself with SIGKILL right after the journal has durably recorded
 * <step> ("planned", "snapshotted", "applying", "applied", "verifying",
 * "pending_confirm", "committed", "restoring", "rolled_back", or "applied-drivers":
 * after the drivers wrote, before the journal records APPLIED). Crash-recovery
 * tests use it to stop a transaction at every step. Unset in production: a no-op.
 */


void crashpoint(const char *step);
/* Whether crashpoint(step) is the one that kills. */
bool crashpoint_armed(const char *step);

/*
 * NETTUNE_TEST_HOOK_AFTER_APPLY=<shell command>: run between the apply and the
 * post-change probe (tests use it to break the data path and watch the gate).
 */
void crashpoint_after_apply(void);

/* ---- txn_layers.c ---- */

/*
 * A bare rollback with layers committed: one layer back to its previous version (1),
 * several refused (exit 2, < 0); 0 when nothing is layered (the snapshot's way back).
 */
int txn_rollback_layers(struct txn_env *env, const struct txn_request *req, struct txn_result *ret);
