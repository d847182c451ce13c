/* SPDX-License-Identifier: MIT */
/*
 * agent/txn: a plan applied to this node as one transaction, and the way back.
 *
 * Owns the transaction's state machine (txn_ops.c entry points, txn.c forward path,
 * txn_restore.c restore, txn_verify.c probes and gate, txn_switch.c switch timers,
 * txn_record.c journal records and barriers, txn_json.c results, txn_env.c environment and request), the
 * confirm watchdog (txn_watchdog.c), rollback to a revision (txn_rollback_to.c), the
 * one-transaction-per-node lock (txlock.c), drift (drift.c: the plan of the newest
 * committed policy), the journal's transactions as JSON (txn_history.c: history and one
 * transaction, for the command line and the API), apply of a policy file in one call
 * (txn_apply_file.c) and the test-only crash points (crashpoint.c).
 *
 * May call: agent/plan, agent/journal, agent/measure, agent/config, drivers (not
 * drivers/host: the request's queued writes go through driver_io_flush),
 * drivers/switch, drivers/probe, policies/, common/. Called by agent/api and agent/cmd.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "agent/config/config.h"
#include "agent/journal/journal.h"
#include "agent/measure/measure.h"
#include "agent/plan/plan.h"
#include "common/errbuf.h"
#include "common/outcome.h"
#include "drivers/driver.h"
#include "drivers/probe/probe_gate.h"
#include "policies/policy/layers.h"
#include "policies/policy/policy.h"

/*
 * The transaction: one plan (plan.h) applied to this node's targets as a whole.
 *
 *   plan: read live, diff, check → (nothing to do: exit 0) → baseline probe →
 *   snapshot (journal) → the delta through the drivers → read back → settle →
 *   post probe + regression gate → commit | pending confirmation
 *   any failure → restore the snapshot through the drivers → read back again
 *
 * States PLANNED → SNAPSHOTTED → APPLYING → APPLIED → VERIFYING →
 * (PENDING_CONFIRM) → COMMITTED | RESTORING → ROLLED_BACK (FAILED when the
 * restore itself fails). Each arrow is a journal record, made durable by a barrier
 * before the next side effect (journal.h). The caller holds the node's transaction
 * lock (txn_lock).
 */



#define TXN_PROBE_RUNS_MAX 15

struct txn_probe {
        bool ran;                       /* a measurement was attempted */
        bool ok;                        /* and produced a rate */
        char mode[8];                   /* "tcp", "verbs" */
        struct probe_path path;         /* what the measurement ran on (the gate compares them) */
        double gbps;                    /* median of the runs */
        unsigned n_runs;
        double runs[TXN_PROBE_RUNS_MAX];
        char error[256];
        struct measure_load load;       /* the CPU load seen while measuring */
        unsigned attempts;              /* post: measurements taken (more than 1: re-measured, on_inconclusive retry) */
};

struct txn_env;

/* One change the transaction makes: a difference of one of its targets. */
struct txn_change {
        char target[64];
        struct diff_entry d;
};

/* How the transaction measures; the default (txn_env_init) uses the probe engines. Unit tests put a fake here. */
struct txn_hooks {
        /* Measure the pinned probe: fill ret (all runs, median, path). phase "baseline" or "post". */
        int (*probe)(struct txn_env *env, const struct plan_probe *pin, const char *phase,
                     struct txn_probe *ret, struct errbuf *e);
};

/* Per-transaction driver settings of switch targets (the armed commit-confirm timer). */
struct txn_switch_envs {
        unsigned n;
        struct driver_env *envs;
        const struct driver_env **saved;        /* the targets' own env pointers */
};

/* Where transactions run: the node's configuration, journal, lock and drivers, the same for every request. */
struct txn_env {
        const struct agent_config *config;
        struct journal *journal;        /* owned by whoever opened it */
        struct plan_env plan;           /* where plans find targets and drivers (tests: fakes) */
        struct txn_hooks hooks;
        int lock_fd;                    /* -1 when the lock is not held */
        bool no_watchdog;               /* serve: the daemon's timer handles confirm deadlines */
        struct progress *progress;      /* the probes' runs as they end (apply on a terminal); NULL = none */
};

/*
 * What one request asks of its transaction besides the policy: its caller's options
 * (the API's query and body, the command line) and, for the transactions the entry
 * points make themselves, what they are (a rollback, a layer's change). Entry points
 * take it as `req`; NULL is txn_request_init()'s defaults. Never kept past the call.
 */
struct txn_request {
        const char *kind;               /* journal kind: NULL = the entry point's own ("apply", "rollback", ...) */
        const char *idempotency_key;    /* the request's key, journaled with the transaction, or NULL */
        const char *key_hash;           /* the digest of the keyed request, journaled with it, or NULL */
        /*
         * The caller's precondition: the node's current revision (the newest committed
         * rev, 0 when none) must be this one, checked under the lock before anything
         * is done; -1: none. Refused: result "precondition_failed", -ESTALE.
         */
        int64_t expect_revision;
        const char *layer;              /* the layer the transaction changes (journal_set_layer); NULL: its policy's */
        int64_t layer_prev;             /* > 0: the previous version the layer's new one names (rollback --policy) */
        bool no_gate;                   /* rollback --no-gate: no verification probe and no gate (its caller
                                           records who asked and why) */
        const char *probe_peer;         /* a fleet rollback's probe peer for this node ("host:port", the
                                           controller spreads them over the fleet's responders); NULL: verify's */
};

struct txn_result {
        int64_t tx;                     /* 0: nothing was journaled */
        enum txn_state state;
        int exit_code;                  /* enum outcome */
        char result[32];                /* "committed", "rolled_back", "failed", "pending_confirm", "nothing_to_do", "refused" */
        char restored_by[32];           /* "" or "gate", "readback", "error", "confirm-timeout", "cancelled", "recovery" */
        struct errbuf error;
        struct txn_change *changes;     /* [n_changes]: what the plan changes (owned) */
        unsigned n_changes;
        struct plan_probe pin;          /* the probe both measurements run (pinned in the plan phase) */
        struct txn_probe baseline, post;
        bool gated;                     /* the regression gate ran: gate_params and gate are set */
        struct probe_gate_params gate_params;
        struct probe_gate_report gate;  /* drivers/probe/probe_gate.c's verdict on baseline and post */
        int64_t confirm_deadline_ms;
        json_t *restores;               /* [{target, kind, method}] of every restored target, or NULL (owned) */
        json_t *saves;                  /* [{target, saved, how}] of every switch the commit wrote, or NULL (owned) */
        json_t *notes;                  /* what the plan wants the reader to know (plan "notes"), or NULL (owned) */
        double rollback_ms;             /* the way back: from the decision to restore to the last target read back */
        int64_t current_revision;       /* a refused precondition: the node's current revision (0: none) */
        int64_t rev;                    /* committed: the revision the commit recorded (0: not known) */
};

void txn_env_init(struct txn_env *env, const struct agent_config *c, struct journal *j);
/* No key, no precondition, the entry point's kind, the policy's layer. */
void txn_request_init(struct txn_request *req);
void txn_result_init(struct txn_result *r);
/* [{target, field, key, from, to}] of r->changes; NULL on ENOMEM. */
json_t *txn_changes_json(const struct txn_result *r);
/* The same as JSON text, as the journal keeps it (compact, keys sorted; caller frees); NULL on ENOMEM. */
char *txn_changes_text(const struct txn_result *r);
void txn_result_done(struct txn_result *r);
/* {tx, rev (committed), state, result, exit_code, changes, probe:{baseline_gbps, post_gbps, baseline:{...}, post:{...},
 *  gate:{verdict, reason, ...} when the gate ran}, restored_by, error} */
json_t *txn_result_to_json(const struct txn_result *r);

/*
 * Take the node's transaction lock and then restore whatever an interrupted
 * transaction left behind (and expired confirmations). -EBUSY when another
 * transaction holds the lock (wait=false).
 */
int txn_lock(struct txn_env *env, bool wait, struct errbuf *e);
/* The same, returning how many transactions the recovery restored (>= 0) on success. */
int txn_lock_recovering(struct txn_env *env, bool wait, struct errbuf *e);
void txn_unlock(struct txn_env *env);

/* Finish interrupted transactions; returns how many were restored. Needs the lock. */
int txn_recover(struct txn_env *env, struct errbuf *e);
/*
 * Without the lock: when the journal holds a transaction that is due — a pending
 * confirmation past its deadline, or one interrupted in flight — and no transaction
 * runs (the lock is free), recover; returns how many were restored. For commands and
 * timers that would not take the lock otherwise (serve's timer, history, drift).
 */
int txn_recover_due(struct txn_env *env);

/* Apply a policy. confirm_timeout_s < 0: use the policy's commit.confirm_timeout_s. */
int txn_apply(struct txn_env *env, const struct txn_request *req, const struct policy *p, int confirm_timeout_s,
              struct txn_result *ret);
/*
 * `apply FILE` in one call: the policy file read, the node's lock taken (recovering
 * an interrupted transaction first), the journal opened, the policy applied, the
 * journal closed and the lock released. The journal opens beside the policy's plan
 * (txn_apply_file.c: SQLite reads its schema and WAL back while the policy is read,
 * the lock taken and the plan's first half done). progress: the probes' runs on a
 * terminal, or NULL. Returns the outcome; when no transaction could start (an invalid
 * policy, a held lock, a journal that cannot be opened or recovered) ret->result is
 * empty and ret->error says why: nothing was changed.
 */
enum outcome txn_apply_file(const struct agent_config *cfg, const char *file, int confirm_timeout_s,
                            struct progress *progress, struct txn_result *ret);
/*
 * Undo the newest committed revision (restore its snapshot), gated like an apply.
 * With layers: the one committed layer back to its previous version (txn_rollback_policy);
 * more than one is refused (exit 2, result "refused", -EINVAL) naming them.
 */
int txn_rollback(struct txn_env *env, const struct txn_request *req, struct txn_result *ret);
/*
 * Layer `name` back to its previous version, or taken out when it has none, as one
 * transaction over the merged intent. Not committed: exit 2, -ENOENT, nothing touched.
 */
int txn_rollback_policy(struct txn_env *env, const struct txn_request *req, const char *name, struct txn_result *ret);
/*
 * Take layer `name` out as one transaction (kind "remove"): the fields it owned go to
 * the layer below, or to their value before nettune took them. Not committed: exit 2.
 */
int txn_remove(struct txn_env *env, const struct txn_request *req, const char *name, struct txn_result *ret);
/*
 * txn_remove left pending confirmation for confirm_timeout_s (> 0; 0: committed at
 * once), as an apply with a confirm timeout: POST /v1/remove, a controller's remove rollout.
 */
int txn_remove_confirm(struct txn_env *env, const struct txn_request *req, const char *name,
                       unsigned confirm_timeout_s, struct txn_result *ret);
/*
 * Back to committed revision rev (journal_tx.rev), gated like an apply with that
 * revision's verify settings, journaled as kind "rollback": every layer as it was
 * then (one committed since goes, one taken out since comes back). A revision from
 * before the journal knew layers: its canonical policy applied again. No such
 * revision (or one without a policy): exit_code OUTCOME_INVALID, result "refused",
 * -ENOENT; nothing is touched.
 */
int txn_rollback_to(struct txn_env *env, const struct txn_request *req, int64_t rev, struct txn_result *ret);
/*
 * Confirm a pending transaction. A confirm processed after the transaction's
 * confirm_deadline_ms, or (not_after_ms > 0) after not_after_ms — the deadline the
 * caller recorded for it — restores the snapshot at once instead (result
 * rolled_back, -ETIME, the error says which deadline passed): a change its owner gave
 * up on never commits. Confirming a committed transaction again succeeds.
 */
int txn_confirm(struct txn_env *env, int64_t tx, int64_t not_after_ms, struct txn_result *ret);
/* Restore tx from its snapshot (recovery, confirm timeout); records why. */
int txn_restore_tx(struct txn_env *env, int64_t tx, const char *restored_by, struct txn_result *ret);

/*
 * The core, shared by apply and rollback: run the transaction over a plan whose
 * targets and desired states are built (not read yet). policy_json (canonical)
 * becomes the revision; req->kind (not NULL) is its journal kind.
 */
int txn_run(struct txn_env *env, const struct txn_request *req, const char *policy_json,
            const struct policy_verify *verify, unsigned confirm_timeout_s, struct plan *p, struct txn_result *ret);


/* A plan over this env's targets and drivers (plan_init with env->plan). */
void txn_plan_init(const struct txn_env *env, struct plan *ret);


/*
 * One transaction at a time per node: an flock(2) on <state_dir>/lock taken by
 * every command that may change state (CLI apply/rollback/confirm, the serve
 * daemon's workers, the confirm watchdog), so CLI and daemon exclude each other.
 */



/* wait=false: -EBUSY at once when another process holds it. Writes *ret_fd on success. */
int txlock_acquire(const char *state_dir, bool wait, int *ret_fd, struct errbuf *e);
void txlock_release(int fd);    /* accepts -1 */


/* Drift: live state against the node's intent (the merge of its committed layers), managed fields only. */



/*
 * Compare: *ret is the intent's plan, read (plan_free it in every case), every field
 * with its owner. Returns the number of differences, -ENOENT when nothing is committed.
 */
int drift_check(struct txn_env *env, struct plan *ret, struct errbuf *e);
/*
 * serve's enforcement: the intent's plan applied as one transaction (kind "enforce",
 * no probe), every field a second writer holds (below) left alone.
 */
int txn_enforce(struct txn_env *env, struct txn_result *ret);

/*
 * A second writer: since a person last acted (a committed apply, remove or rollback),
 * enforcement restored the same field of a target `second_writer.restores` times (3)
 * within `second_writer.window_s` (600 s): something else writes it. Enforcement stops
 * restoring it; drift, doctor and /metrics report it until a person acts.
 */
#define SECOND_WRITER_RESTORES 3
#define SECOND_WRITER_WINDOW_S 600
#define SECOND_WRITERS_MAX 32
#define SECOND_WRITER_TIMES_MAX 128
#define SECOND_WRITER_VALUES_MAX 4
struct second_writer {
        char target[STATE_NAME_MAX];
        enum state_field field;
        unsigned times;                 /* restores since a person last acted */
        int64_t at_ms[SECOND_WRITER_TIMES_MAX];  /* a ring of when */
        int64_t first_ms, last_ms;
        unsigned n_values;
        char values[SECOND_WRITER_VALUES_MAX][128];     /* the values seen (what the other writer set), JSON */
        bool detected;
};
/* The second writers the journal shows: ret[0..return), at most max; -errno. */
int second_writers_find(struct journal *j, const struct agent_config *c, struct second_writer *ret, unsigned max,
                        struct errbuf *e);
/* [{code: "second_writer", target, field, times, values_seen, first_ms, last_ms}]. */
json_t *second_writers_json(const struct second_writer *v, unsigned n);
/*
 * The same as doctor facts (policies/doctor.h), for doctor's second_writer finding:
 * ret[0..return) of at most max; 0 when none or the journal cannot say.
 */
struct doctor_second_writer;
unsigned second_writers_doctor(struct journal *j, const struct agent_config *c, struct doctor_second_writer *ret,
                               unsigned max);

/*
 * The node's intent (intent.c): its committed layers merged field by field
 * (policies/policy/layers.h, docs/policy-reference.md "Layers and owners").
 */
struct intent {
        unsigned n;
        struct layer v[LAYERS_MAX];     /* oldest version first; v[i].p owned */
        int64_t prev[LAYERS_MAX];       /* each one's previous version (journal_layer.id), 0: none */
};
int intent_load(struct journal *j, struct intent *ret, struct errbuf *e);
/* The layers as they were at revision rev. */
int intent_load_at(struct journal *j, int64_t rev, struct intent *ret, struct errbuf *e);
/* The plan of the whole intent going from `now` to `then` (rollback --to): every field either owns. */
int intent_back_plan(struct txn_env *env, const struct intent *now, const struct intent *then, struct plan *ret,
                     struct errbuf *e);
void intent_free(struct intent *in);
/* The index of layer `name`, -1 when it is not committed. */
int intent_find(const struct intent *in, const char *name);
/* The plan of the whole intent: every owned field of every target here, owners named. Nothing read yet. */
int intent_plan(struct txn_env *env, const struct intent *in, struct plan *ret, struct errbuf *e);
/*
 * Does p declare a field another layer owns here without overriding it? -EINVAL
 * naming the rule (field_owned), the field, the target, the owner and its revision.
 */
int intent_conflict(struct txn_env *env, const struct intent *in, const struct policy *p, struct errbuf *e);
/* Does applying p need the layered plan (other layers, or fields its new version releases)? */
bool intent_is_layered(const struct intent *in, const struct policy *p);
/*
 * The plan of layer `name` becoming p (NULL: taken out): the fields it owns before or
 * after, desired as the merged intent after has them, a field nobody owns after at its
 * value before nettune took it. Nothing read yet.
 */
int intent_change_plan(struct txn_env *env, const struct intent *in, const char *name, const struct policy *p,
                       struct plan *ret, struct errbuf *e);

/*
 * The plan `apply p` would run here (nothing read yet): refused with field_owned when
 * p declares a field another layer owns; the merged intent's change among layers.
 * env->journal NULL: the policy's own plan.
 */
int txn_plan_policy(struct txn_env *env, const struct policy *p, struct plan *ret, struct errbuf *e);
/*
 * [{target, kind, key, value, live, owner: {policy, revision}}] of every field of the
 * intent's plan (read), unit by unit ("ports.swp1.mtu" on a switch). NULL on ENOMEM.
 */
json_t *intent_to_json(const struct plan *p);
/* [{policy, revision}] of the committed layers. NULL on ENOMEM. */
json_t *intent_layers_json(const struct intent *in);
/*
 * `intent` (CLI and API): the intent's plan read (*ret: plan_free it in every case) and
 * *ret_doc = {"layers": [...], "fields": [...]}.
 */
int intent_read(struct txn_env *env, struct plan *ret, json_t **ret_doc, struct errbuf *e);

/* The newest `limit` transactions as a JSON array (history command and API); NULL on error. */
json_t *history_json(struct journal *j, unsigned limit, struct errbuf *e);
/*
 * One transaction as history lists it, plus "now_ms" (the agent's clock, to judge
 * confirm_deadline_ms by); NULL and -ENOENT's "no transaction N" in e when unknown.
 */
json_t *transaction_json(struct journal *j, int64_t tx, struct errbuf *e);
