/* SPDX-License-Identifier: MIT */
/*
 * The durable transaction journal: SQLite in <state_dir>/journal.db (WAL,
 * synchronous=FULL). Every state change of a transaction is a record, made durable
 * by the barrier before the next side effect (journal_barrier, "Write-ahead
 * discipline" below), so a restarted agent knows exactly what may have been touched
 * and restores it from the snapshot. The snapshot is checkpointed into journal.db
 * itself (the WAL emptied) before the first device change, and so is the end of
 * every run: a WAL lost, emptied or torn later costs at most the transaction that
 * was unfinished, whose snapshot the file has. A damaged file is found by journal_check (PRAGMA
 * quick_check) and salvaged by journal_recover (journal_recover.c).
 *
 * Tables: transactions (one row per transaction: policy, state, result, probe
 * runs, error), steps (every state a transaction entered, with its time),
 * snapshots (per target: state_to_json() of the before-state), revisions
 * (committed policies), layer_versions (each committed version of each layer: the
 * layers drift compares against) and originals (each field's value before nettune
 * first took it). A journal made
 * before a column existed gets it added when opened (ALTER TABLE ... ADD COLUMN).
 *
 * May call: drivers/, policies/, common/. Called by agent/txn, agent/doctor, agent/api,
 * agent/cmd.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/errbuf.h"
#include "policies/policy/policy.h"

enum txn_state {
        TXN_PLANNED,
        TXN_SNAPSHOTTED,
        TXN_APPLYING,
        TXN_APPLIED,
        TXN_VERIFYING,
        TXN_PENDING_CONFIRM,
        TXN_COMMITTED,
        TXN_RESTORING,
        TXN_ROLLED_BACK,
        TXN_FAILED,             /* a restore itself failed: needs an operator */
        TXN_STATE_MAX,
};

/* "planned", "snapshotted", ... "failed"; "unknown" when out of range. */
const char *journal_state_name(enum txn_state s);
int journal_state_from_name(const char *name);  /* enum value or -EINVAL */
/* COMMITTED, ROLLED_BACK, FAILED */
bool journal_state_final(enum txn_state s);

struct journal;

#define JOURNAL_FILE "journal.db"
/* What a damaged journal's message says to do (docs/operations.md, "A damaged journal"). */
#define JOURNAL_RECOVER_HINT "stop the agent and run 'nettune-agent --config FILE journal-recover' " \
        "(docs/operations.md, \"A damaged journal\")"

/*
 * Open (create) <state_dir>/journal.db; creates state_dir (0700) if missing. A file
 * SQLite finds damaged is -EBADMSG, the message naming JOURNAL_RECOVER_HINT. A
 * journal that is missing, or empty with no WAL, where the state directory's marker
 * (JOURNAL_MARKER, written when a journal is first opened) records that one existed
 * is lost, not new: -ENODATA, the message naming the transaction the marker recorded
 * in flight, the interfaces it may have left changed, and the recovery.
 */
int journal_open(const char *state_dir, struct journal **ret, struct errbuf *e);

#define JOURNAL_MARKER "journal.marker"
/*
 * Was the journal of state_dir lost (see journal_open)? 1 with what the marker
 * recorded in flight in what, else 0.
 */
int journal_lost(const char *state_dir, char *what, size_t size);
/*
 * The recovery of a lost journal (the agent stopped, the caller holds the lock): the
 * marker is kept as journal.marker.lost-<ms> (its path in kept); the next open starts
 * a new journal and a new marker. 0 or -errno.
 */
int journal_marker_forget(const char *state_dir, char *kept, size_t size, struct errbuf *e);
void journal_close(struct journal *j);           /* accepts NULL */

/*
 * PRAGMA quick_check: 0 when the journal's pages and indexes are sound, else -EBADMSG
 * with what SQLite found and JOURNAL_RECOVER_HINT (serve refuses to start on it).
 */
int journal_check(struct journal *j, struct errbuf *e);

/* What journal_recover() kept of a damaged journal. */
struct journal_recovery {
        char damaged[256];              /* where the damaged file went: journal.db.damaged-<ms> */
        unsigned long long rows[8];     /* rows copied, per table of journal_recover_tables */
        unsigned long long lost[8];     /* rows of each table after the first one that could not be read */
        unsigned n_tables;
        bool unreadable;                /* nothing could be read: an empty journal took its place */
};
extern const char *const journal_recover_tables[];

/*
 * Salvage <state_dir>/journal.db (the agent stopped, the caller holds the lock): every
 * row that can still be read goes into a fresh journal, table by table in row order,
 * which then takes its place; the damaged file (with its -wal and -shm) is kept as
 * journal.db.damaged-<ms>. Unfinished transactions whose snapshots survived are
 * restored by the next lock holder as after any crash.
 */
int journal_recover(const char *state_dir, struct journal_recovery *ret, struct errbuf *e);

/* A new transaction in state PLANNED. kind: "apply", "rollback", "enforce". */
int journal_begin(struct journal *j, const char *kind, const char *policy_name,
                  const char *policy_json, const char *changes_json, int64_t *ret_tx,
                  struct errbuf *e);

/*
 * The controller's idempotency key of one node step (POST /v1/apply?idempotency_key=K):
 * 1-63 characters of [A-Za-z0-9._:-]. A transaction records the key of the request
 * that started it; journal_find_key answers "did this node already act on K?".
 */
#define JOURNAL_KEY_MAX 64
bool journal_key_valid(const char *key);
/*
 * journal_begin with the request's idempotency key (NULL: none) and the digest of
 * the request it came with (key_hash, JOURNAL_HASH_MAX - 1 hex digits: its operation,
 * parameters and body; NULL: none), so that the same key with another request is
 * told apart from a second copy of the same one.
 */
#define JOURNAL_HASH_MAX 65
int journal_begin_keyed(struct journal *j, const char *kind, const char *policy_name,
                        const char *policy_json, const char *changes_json, const char *key,
                        const char *key_hash, int64_t *ret_tx, struct errbuf *e);
/* The newest transaction recorded with key; -ENOENT when there is none. */
int journal_find_key(struct journal *j, const char *key, int64_t *ret_tx, struct errbuf *e);

struct journal_snapshot {
        char target[64];
        int kind;                       /* enum target_kind */
        uint32_t fields;                /* STATE_BIT() of the fields snapshotted */
        char *state_json;               /* state_to_json() text; owned */
};

/* Store the before-state of every target and enter SNAPSHOTTED, atomically. */
int journal_snapshot(struct journal *j, int64_t tx, const struct journal_snapshot *rows,
                     unsigned n, struct errbuf *e);
/* Rows of tx in insertion order; caller frees with journal_snapshots_free. */
int journal_load_snapshots(struct journal *j, int64_t tx, struct journal_snapshot **ret,
                           unsigned *ret_n, struct errbuf *e);
void journal_snapshots_free(struct journal_snapshot *rows, unsigned n);

/* Optional columns written with a state change; NULL/0 members are left as they are. */
struct journal_result {
        const char *result;             /* "committed", "rolled_back", "failed", "pending_confirm", "nothing_to_do" */
        int exit_code;                  /* written when result is set */
        const char *error;
        const char *probe_json;         /* {"baseline":{...},"post":{...}} with every run */
        const char *restored_by;        /* "gate", "readback", "error", "confirm-timeout", "cancelled", "recovery", "operator" */
        const char *restores_json;      /* how each target was restored: [{target, kind, method}] */
        const char *saves_json;         /* whether each switch a commit wrote saved it: [{target, saved, how}] */
        int64_t confirm_deadline_ms;    /* PENDING_CONFIRM: wall clock, ms since the epoch */
        double rollback_ms;             /* > 0: the way back took this long (decision to last target read back) */
};

/*
 * Enter state s (and record the step's time), writing the non-NULL members of r.
 * Entering COMMITTED also records a new revision with the transaction's policy.
 */
int journal_record(struct journal *j, int64_t tx, enum txn_state s,
                   const struct journal_result *r, struct errbuf *e);

/*
 * Write-ahead discipline. Every write above (journal_begin*, journal_snapshot,
 * journal_record, journal_set_layer) is a record: buffered in the journal's open
 * batch — one SQLite transaction, begun by the first record, no I/O of its own — and
 * read back at once through this handle, by no one else. journal_barrier() makes
 * the batch durable as one commit; the caller calls it at each side-effect boundary:
 * before the first device write, before a measurement or a settling wait, before a
 * confirm wait, before answering, at the end (journal_close makes one too). The
 * journal decides how durable from what the batch holds:
 *   - the way back (SNAPSHOTTED, APPLYING) and the end of a run (a final state,
 *     PENDING_CONFIRM): committed, then copied into the database file
 *     (db_checkpoint: the WAL synced, copied, the file synced), so that a WAL lost or
 *     torn later costs at most the unfinished transaction; for the way back this
 *     must succeed, for the end a WAL synced will do;
 *   - any other record recovery reads (PLANNED, RESTORING, a layer): the WAL synced;
 *   - APPLIED and VERIFYING alone: committed without an fsync (a power loss that
 *     drops them leaves APPLYING, which recovery restores the same way); the next
 *     barrier that syncs carries them.
 * A barrier that fails leaves nothing of its batch (the commit rolled back), or, for
 * the way back's copy into the file, the batch committed but not copied: -EIO,
 * -ENOSPC, -EBUSY.
 */
int journal_barrier(struct journal *j, struct errbuf *e);
/* Records not yet made durable by a barrier. */
unsigned journal_unflushed(const struct journal *j);
/*
 * A side effect (a device write) starts: no record may wait unflushed. Built with
 * NETTUNE_DEBUG_BARRIER (the Makefile's default; make check) an unflushed record is
 * an assertion failure: a barrier is missing before `what`. Without it, the records
 * are made durable here (journal_barrier), so the side effect still comes after them.
 */
int journal_side_effect(struct journal *j, const char *what, struct errbuf *e);
/* Give the connection's cached pages back (an idle daemon); nothing is lost but speed. */
void journal_release_memory(struct journal *j);
/* Prepare the statements a transaction writes with, ahead of it (apply opens its journal on a thread). */
void journal_warm(struct journal *j);

struct journal_tx {
        int64_t id;
        char kind[16];
        char policy_name[64];
        char *policy_json;              /* owned */
        enum txn_state state;
        char result[32];
        int exit_code;
        char *error;                    /* owned, may be NULL */
        char *changes_json;             /* owned, may be NULL */
        char *probe_json;               /* owned, may be NULL */
        char restored_by[32];
        char *restores_json;            /* owned, may be NULL: [{target, kind, method}] */
        char *saves_json;               /* owned, may be NULL: [{target, saved, how}] */
        int64_t started_ms;
        int64_t finished_ms;            /* 0 while not final */
        int64_t confirm_deadline_ms;
        int64_t rev;                    /* the revision its commit recorded, 0 when none */
        char idempotency_key[JOURNAL_KEY_MAX];  /* "" when the request carried none */
        char key_hash[JOURNAL_HASH_MAX];        /* the keyed request's digest; "" when none was journaled */
        double rollback_ms;             /* the way back, from the decision to restore to the last target read back; 0: none */
};

void journal_tx_done(struct journal_tx *t);     /* frees the owned members */
/* -ENOENT when there is no such transaction. */
int journal_get(struct journal *j, int64_t tx, struct journal_tx *ret, struct errbuf *e);
/* Newest first, at most limit rows. Caller frees each with journal_tx_done, then the array. */
int journal_list(struct journal *j, unsigned limit, struct journal_tx **ret, unsigned *ret_n,
                 struct errbuf *e);
/* Ids of transactions that are not final (in-flight or pending confirmation), oldest first. */
int journal_unfinished(struct journal *j, int64_t **ret_ids, unsigned *ret_n, struct errbuf *e);
/* Steps of tx as a JSON array text [{"state":"planned","at_ms":N},...]; caller frees. */
int journal_steps_json(struct journal *j, int64_t tx, char **ret, struct errbuf *e);

/*
 * Every rollback latency the journal recorded, counted into buckets: counts[i] of
 * those <= bounds_ms[i] (cumulative, as Prometheus histograms are), *ret_n of them
 * in all, *ret_sum_ms their sum.
 */
int journal_rollback_histogram(struct journal *j, const double *bounds_ms, unsigned n_bounds, uint64_t *counts,
                               uint64_t *ret_n, double *ret_sum_ms, struct errbuf *e);

/*
 * Committed revision `back` steps from the newest (0 = newest). *ret_policy_json
 * (caller frees) may be NULL for a revision that rolled back to before any policy.
 * -ENOENT when there is none.
 */
int journal_revision(struct journal *j, unsigned back, int64_t *ret_rev, int64_t *ret_tx,
                     char **ret_policy_json, struct errbuf *e);

/*
 * Committed revision number `rev` (1, 2, ... as journal_tx.rev shows it): its tx
 * and policy (NULL as above; caller frees). -ENOENT when there is no such revision.
 */
int journal_revision_get(struct journal *j, int64_t rev, int64_t *ret_tx, char **ret_policy_json,
                         struct errbuf *e);

/*
 * A committed revision's policy, parsed: rev > 0 is a revision number, rev <= 0
 * counts back from the newest (0 = newest). *ret_policy (caller frees) is NULL for a
 * revision without a policy (one that rolled back to before any); *ret_json (may be
 * NULL) receives its canonical text. -ENOENT when there is no such revision.
 */
int journal_committed_policy(struct journal *j, int64_t rev, struct policy **ret_policy, char **ret_json,
                             struct errbuf *e);

/*
 * Layers (policies/policy/layers.h): every committed policy is a layer by its name. A commit
 * records a new version of the transaction's layer (journal_layer_commit, inside the
 * commit): its policy, or NULL when the transaction took the layer out; an "enforce"
 * commit records none. A layer's version names its previous one (prev: the node
 * revision of the version before it, 0 when none), which `rollback --policy` returns
 * to. A journal from before layers opens with its newest committed policy as the one
 * layer.
 */
struct journal_layer {
        char name[POLICY_NAME_MAX];
        int64_t id;                     /* the version's own number */
        int64_t rev;                    /* the node revision that committed this version */
        int64_t prev;                   /* the version (id) before it, 0: none */
        char *policy_json;              /* owned; NULL: the layer was taken out */
};

void journal_layers_free(struct journal_layer *v, unsigned n);
/* The committed layers, oldest version first (caller frees with journal_layers_free). */
int journal_layers(struct journal *j, struct journal_layer **ret, unsigned *ret_n, struct errbuf *e);
/* The layers as they were at revision rev (rev <= 0: now). */
int journal_layers_at(struct journal *j, int64_t rev, struct journal_layer **ret, unsigned *ret_n, struct errbuf *e);
/* The first revision the layers know (a journal from before layers knows none before its migration); 0: none. */
int journal_layers_since(struct journal *j, int64_t *ret_rev, struct errbuf *e);
/* Layer version id; -ENOENT when there is none. */
int journal_layer_version(struct journal *j, int64_t id, struct journal_layer *ret, struct errbuf *e);
/*
 * What transaction tx does to the layers when it commits: layer is the layer it
 * changes (NULL: the one its policy names), with its policy when that is the
 * layer's, else taking it out (remove; its revision records the newest layer left);
 * layer "*": every layer back to what it was at revision prev (rollback --to);
 * prev > 0 is the previous version the new one names (a
 * rollback to an older version), else the layer's current one.
 */
int journal_set_layer(struct journal *j, int64_t tx, const char *layer, int64_t prev, struct errbuf *e);
/*
 * The value a target's field had before nettune first took it (the snapshot of the
 * first transaction that wrote it): the target's snapshot JSON (state_to_json()
 * text, every unit; caller frees) and, ret_tx not NULL, that transaction. -ENOENT
 * when nettune never took it.
 */
int journal_original(struct journal *j, int kind, const char *target, int field, char **ret_state_json,
                     int64_t *ret_tx, struct errbuf *e);

/*
 * serve's enforcement since a person last acted: the committed transactions of kind
 * "enforce" after the newest committed one of another kind, oldest first, each with
 * its change list ([{target, field, key, from, to}] text; caller frees with
 * journal_enforcements_free). What drift's second_writer finding counts.
 */
struct journal_enforcement {
        int64_t at_ms;
        char *changes_json;             /* owned, may be NULL */
};
int journal_enforcements(struct journal *j, struct journal_enforcement **ret, unsigned *ret_n, struct errbuf *e);
void journal_enforcements_free(struct journal_enforcement *v, unsigned n);

/* Wall clock in ms since the epoch. */
int64_t journal_now_ms(void);
