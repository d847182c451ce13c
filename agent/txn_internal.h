/* SPDX-License-Identifier: MIT */
/* Helpers shared by the transaction's files (txn*.c); not for other modules. */
#pragma once

#include "txn.h"

/* Journal state s for res->tx, then the crash point of that step. */
int txn_step(struct txn_env *env, struct txn_result *res, enum txn_state s,
             const struct journal_result *jr);
void txn_finish(struct txn_result *res, enum txn_state s, int exit_code, const char *result);
/* Record a final state with the result's fields (error, probes, restored_by). */
int txn_record_final(struct txn_env *env, struct txn_result *res, enum txn_state s,
                     int exit_code, const char *result);
void txn_close_sessions(struct txn_target *tg, unsigned n);
int txn_commit_sessions(struct txn_target *tg, unsigned n, struct errbuf *e);
int txn_read_target(struct txn_target *t, uint32_t want, struct state *live, struct errbuf *e);
/* Restore every (touched, or all when all=true) target from ->before, read back,
 * and record ROLLED_BACK with exit_code, or FAILED (exit 3) when the restore fails. */
int txn_restore_targets(struct txn_env *env, struct txn_target *tg, unsigned n, bool all,
                        const char *restored_by, int exit_code, struct txn_result *res);
/* Measure and gate. */
int txn_probe_phase(struct txn_env *env, const struct policy_verify *v, const char *phase,
                    struct txn_probe *ret, struct errbuf *e);
/* drivers/probe/probe_gate.c over res->baseline and res->post: fills res->gate; 0 pass, -EIO fail. */
int txn_gate(const struct policy_verify *v, struct txn_result *res);
/* Detached child that restores tx at its deadline unless confirmed. */
int txn_spawn_watchdog(struct txn_env *env, int64_t tx, struct errbuf *e);
/* The canonical JSON text of a value (caller frees). */
char *txn_json_text(const json_t *j);
char *txn_probe_json_text(const struct txn_result *res);
/* NETTUNE_TEST_HOOK_AFTER_APPLY (test-only): a shell command run between apply and post probe. */
void txn_run_test_hook(void);
/* Targets of tx rebuilt from its snapshot rows: ->before = ->desired = the snapshot. Caller frees. */
int txn_targets_from_snapshot(struct txn_env *env, int64_t tx, struct txn_target **ret,
                              unsigned *ret_n, struct errbuf *e);

/* ---- txn_switch.c: switch targets in a transaction ---- */

/* Per-transaction driver settings of switch targets (the armed commit-confirm timer). */
struct txn_switch_envs {
        unsigned n;
        struct driver_env *envs;
        const struct driver_env **saved;        /* the targets' own env pointers */
};
/* Seconds of the vendor commit-confirm timer: read-back, settle and post probe plus a margin. */
unsigned txn_switch_timer_s(const struct txn_env *env, const struct policy_verify *v);
/* Point every switch target at a copy of its settings with the timer set; disarm puts them back. */
int txn_switch_arm(struct txn_target *tg, unsigned n, unsigned timer_s, struct txn_switch_envs *ret);
void txn_switch_disarm(struct txn_target *tg, struct txn_switch_envs *a);
/* Append {target, kind, method} for a target just restored (r: the restore's result) to res->restores. */
void txn_switch_note_restore(struct txn_result *res, const struct txn_target *t, int r);
