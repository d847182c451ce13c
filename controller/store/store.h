/* SPDX-License-Identifier: MIT */
/*
 * The controller's durable state: rollouts, their waves, every node's result
 * with probe figures, and drift scans. The rollout engine writes a record before
 * each side effect (journal first), so a controller that dies mid-rollout can be
 * resumed from these records.
 *
 * One interface, two backends (store_internal.h has the vtable):
 *   sqlite:PATH (or a bare PATH, `--db FILE`)  one file, WAL, synchronous=FULL; the
 *       zero-setup default (store_sqlite*.c)
 *   etcd://HOST:PORT[,HOST:PORT...]/PREFIX     etcd v3 through its JSON gateway, keys
 *       under PREFIX, every record versioned and every state change a compare-and-swap
 *       on its mod_revision, fenced by the leader key (store_etcd*.c)
 *
 * May call: controller/fleet, policies/, common/. Called by controller/rollout,
 * controller/tune and controller/cmd.
 */
#pragma once

#include <stdbool.h>

#include "common/errbuf.h"
#include "controller/fleet/fleet.h"

#define STORE_TX_MAX 64
#define STORE_ERR_MAX 256
#define STORE_KIND_MAX 16
#define STORE_KEY_MAX 64                        /* a node step's idempotency key */
#define STORE_SPEC_MAX 1024
#define STORE_TIME_MS_MAX 253402300799999LL    /* ms since the epoch: the end of year 9999 */
#define STORE_REV_MAX 2147483647LL              /* an agent's revision numbers */
#define STORE_LABEL_MAX 64                      /* a label key or value, as policies and inventories spell them */
#define STORE_SELECTOR_MAX 200                  /* --canary-selector K=V[,K=V...] */

/* The records' vocabulary: what a rollout was asked to do, and the states of a rollout, its waves and its nodes. */
struct rollout_count {
        unsigned value;
        bool pct;               /* value is a percentage 0-100 */
};

enum rollout_halt_scope {
        ROLLOUT_HALT_WAVE,      /* on halt, revert the failing wave only */
        ROLLOUT_HALT_ALL,       /* on halt, also roll back every earlier (committed) wave */
        ROLLOUT_HALT_MAX,
};

struct rollout_opts {
        unsigned canary;                        /* nodes in the canary wave (default 1) */
        struct rollout_count wave_size;         /* default 25% */
        struct rollout_count max_unavailable;   /* default 0 */
        unsigned confirm_timeout_s;             /* an unconfirmed change is restored by its agent after this */
        enum rollout_halt_scope halt_scope;
        bool no_confirm;                        /* leave every node pending: `confirm ID` later */
        int fabric_neighbours;                  /* --fabric-neighbours K; -1 = verify.fabric.neighbours */
        char canary_selector[STORE_SELECTOR_MAX];       /* --canary-selector: "K=V[,K=V...]", "" = the first nodes */
        char wave_by[STORE_LABEL_MAX];          /* --wave-by: waves never mix this label's values; "" = none */
        int max_regression_pct;                 /* --max-regression-pct: the policy's verify overridden; -1 = not */
        unsigned probe_duration_ms;             /* --probe-duration-ms: likewise; 0 = not */
        bool skip_unreachable;                  /* --skip-unreachable: nodes the pre-flight could not reach left out */
        /* Who asked for it and why, and what exactly (recorded, shown by status and history; "" = not said): */
        char reason[STORE_ERR_MAX];             /* --reason TEXT */
        char user[STORE_LABEL_MAX * 2];         /* the OS user that ran nettunectl ("root (sudo: alice)") */
        char cert_cn[STORE_LABEL_MAX * 2];      /* the CN of the client certificate it presented to the agents */
        char policy_sha256[80];                 /* "sha256:HEX" of the document sent to the agents */
        char selector[STORE_SELECTOR_MAX];      /* --selector, each one as given, joined by "; " */
        unsigned wave_interval_s;               /* --wave-interval: the soak after a wave, before the next
                                                   one's fabric baseline; 0 = none */
        bool promote_manual;                    /* --promote manual: each wave after the first waits for
                                                   `nettunectl promote ID` */
};

/*
 * Node states, as stored: what the node's agent really did, as it said so (an
 * answer, or asked afterwards: GET /v1/transactions/TX, GET /v1/history), never
 * what it is expected to do.
 */
enum rnode_state {
        RNODE_PLANNED,          /* not yet sent */
        RNODE_APPLYING,         /* apply sent, no answer recorded */
        RNODE_PENDING,          /* applied and verified, waiting for confirmation */
        RNODE_COMMITTED,        /* its agent committed it: confirmed (or nothing to do) */
        RNODE_FAILED,           /* the agent refused or rolled back (verification failed), or its restore failed */
        RNODE_UNREACHABLE,      /* no answer to the apply, and its agent could not be asked what it did */
        RNODE_ROLLED_BACK,      /* committed, then rolled back by the controller after a halt */
        RNODE_REVERTED,         /* its agent restored the pending change: its confirm deadline passed, or a
                                   confirm came after the deadline it carried */
        RNODE_SKIPPED,          /* never sent: the rollout halted first */
        RNODE_CANCELLED,        /* pending when its wave halted: the controller cancelled it, its agent restored it */
        RNODE_UNKNOWN,          /* a confirm or cancel got no answer and its agent could not be asked until
                                   after its deadline: committed or restored, nobody can say */
        /* Of a rollback by rollout (`rollback --rollout ID`): */
        RNODE_RESTORED,         /* its agent restored its revision from before that rollout (a gated transaction) */
        RNODE_ALREADY_THERE,    /* it was at that revision already: left alone */
        RNODE_REFUSED,          /* something committed there since that rollout: left alone (--force restores it) */
        RNODE_STATE_MAX,
};

enum rollout_state {
        ROLLOUT_RUNNING,
        ROLLOUT_COMPLETED,      /* every wave passed (some nodes may have failed within budget) */
        ROLLOUT_HALTED,         /* failures exceeded the budget: reverted */
        ROLLOUT_PENDING,        /* --no-confirm: waiting for `confirm ID` */
        ROLLOUT_ABORTED,        /* gave up (e.g. an interrupted wave that could not be redone) */
        ROLLOUT_STATE_MAX,
};

enum rwave_state {
        RWAVE_PLANNED,
        RWAVE_APPLYING,         /* applies sent */
        RWAVE_PASSED,           /* verdict: within budget; confirmations may be outstanding */
        RWAVE_DONE,             /* every node of the wave is final */
        RWAVE_HALTED,           /* verdict: over budget */
        RWAVE_STATE_MAX,
};

void rollout_opts_defaults(struct rollout_opts *o);

const char *rnode_state_name(enum rnode_state s);
int rnode_state_from_name(const char *s);
const char *rollout_state_name(enum rollout_state s);
int rollout_state_from_name(const char *s);
const char *rwave_state_name(enum rwave_state s);
int rwave_state_from_name(const char *s);
/* Final: nothing more will happen to a node in this state. */
bool rnode_state_final(enum rnode_state s);

struct rnode {
        char name[INVENTORY_NAME_MAX];
        char url[INVENTORY_URL_MAX];
        unsigned wave;
        enum rnode_state state;
        char tx[STORE_TX_MAX];                  /* agent transaction id, "" = none */
        int exit_code;                          /* the agent's exit_code, -1 = none */
        unsigned changes;                       /* changes the agent made */
        double baseline_gbps, post_gbps;        /* NAN = not measured */
        char error[STORE_ERR_MAX];
        char key[STORE_KEY_MAX];                /* idempotency key of its apply, "" = none sent */
        long long confirm_deadline_ms;          /* pending: when its agent restores it (the agent's clock,
                                                   from the apply answer), 0 = unknown */
        long long not_after_ms;                 /* its confirm's not_after_ms: no confirm of ours commits
                                                   after it, 0 = none sent */
        long long pre_rev;                      /* its agent's current revision before this rollout changed it
                                                   (GET /v1/history: the newest committed transaction's rev;
                                                   0 = none yet); -1 = not recorded (not reached yet, or an
                                                   older controller) */
        long long rev;                          /* the revision its change committed as, 0 = none known */
        char undo_tx[STORE_TX_MAX];             /* the agent transaction that put it back at pre_rev after this
                                                   rollout (a halt's rollback, `rollback --rollout`), "" = none */
        char group[STORE_LABEL_MAX];            /* its value of opts.wave_by, "" = none */
};

struct rwave {
        enum rwave_state state;
        long long started_at;                   /* unix seconds, 0 = not started */
        long long deadline;                     /* unix seconds: applying: when its pending nodes are restored at the
                                                   latest; passed: the end of its confirm window */
};

struct rollout_rec {
        long long id;
        char kind[STORE_KIND_MAX];              /* "apply" or "rollback" */
        char policy_name[64];
        char *policy_doc;                       /* owned: the document sent to agents */
        char *args;                             /* owned: rollback request body, or NULL */
        struct rollout_opts opts;
        enum rollout_state state;
        long long created_at, updated_at;
        int exit_code;                          /* -1 while running */
        char message[STORE_ERR_MAX];
        unsigned n_nodes;
        struct rnode *nodes;                    /* owned */
        unsigned n_waves;
        struct rwave *waves;                    /* owned */
        unsigned chunk_nodes;                   /* the store's own: etcd, nodes per node record (0: one
                                                   record per node, rollouts of older controllers) */
};

struct drift_node {
        char name[INVENTORY_NAME_MAX];
        bool reached;
        bool drifted;
        char *report;                           /* owned: the agent's answer (JSON), or NULL */
        char error[STORE_ERR_MAX];
};

struct drift_scan {
        long long id;
        long long at;
        unsigned n_nodes, n_drifted, n_unreachable;
        struct drift_node *nodes;               /* owned by the caller of the scan */
};

struct store;

/* TLS material for a remote store (etcd): all NULL = plain HTTP. */
struct store_tls {
        const char *ca, *cert, *key;
};

/*
 * Open a store by its spec: "sqlite:PATH", "etcd://HOST:PORT[,...]/PREFIX", or a
 * plain PATH (SQLite). tls may be NULL.
 */
int store_open_spec(const char *spec, const struct store_tls *tls, struct store **ret, struct errbuf *e);
/* A SQLite file (what `--db FILE` opens). */
int store_open(const char *path, struct store **ret, struct errbuf *e);
void store_close(struct store *s);
/* "sqlite" or "etcd". */
const char *store_kind(const struct store *s);
/* Where it is, for messages: the file, or the etcd endpoints and prefix. */
const char *store_where(const struct store *s);

/* Insert a new rollout with its waves and nodes; sets r->id. */
int store_rollout_create(struct store *s, struct rollout_rec *r, struct errbuf *e);
/*
 * Write a record of r as it is in memory: its rollout record (updated_at set to now),
 * one wave, one node. Outside a batch each is written at once; inside one it is
 * collected (see store_begin).
 */
int store_rollout_update(struct store *s, struct rollout_rec *r, struct errbuf *e);
int store_wave_update(struct store *s, const struct rollout_rec *r, unsigned wave, struct errbuf *e);
int store_node_update(struct store *s, const struct rollout_rec *r, const struct rnode *n, struct errbuf *e);

/* Load a rollout (id > 0) or the newest one (id 0). -ENOENT if there is none. */
int store_rollout_load(struct store *s, long long id, struct rollout_rec **ret, struct errbuf *e);
void rollout_rec_free(struct rollout_rec *r);

/* Rollouts newest first, at most `limit`; the callback sees node-less records. */
int store_rollout_list(struct store *s, unsigned limit,
                       int (*cb)(const struct rollout_rec *r, void *userdata), void *userdata,
                       struct errbuf *e);

int store_drift_save(struct store *s, struct drift_scan *scan, struct errbuf *e);
/* Number of drift scans stored and the newest one's counts (for tests and status). */
int store_drift_last(struct store *s, struct drift_scan *ret, struct errbuf *e);

/*
 * What a person said to a running rollout (`nettunectl pause|resume|promote ID`),
 * apart from its records, so that whoever drives it reads it between waves: paused
 * (no further wave starts until resumed), and the highest wave promoted (with
 * --promote manual, wave W+1 starts once promoted >= W+1; waves count from 1).
 */
struct store_hold {
        bool paused;
        unsigned promoted;
        char by[STORE_LABEL_MAX * 2];           /* who said it last */
        long long at;                           /* when, unix seconds */
};
/* Read (none said yet: all zero) and write rollout id's hold. -EOPNOTSUPP: this backend keeps none. */
int store_hold_get(struct store *s, long long id, struct store_hold *ret, struct errbuf *e);
int store_hold_set(struct store *s, long long id, const struct store_hold *h, struct errbuf *e);

/* Options as JSON text and back (the store keeps them so --resume sees the same plan). */
char *rollout_opts_to_json(const struct rollout_opts *o);
int rollout_opts_from_json(const char *text, struct rollout_opts *ret);

/*
 * The rollout lease: at most one controller drives rollouts of a database at a
 * time. The row names the owner (pid, host, start) and a heartbeat that a
 * thread of the owner refreshes every STORE_LEASE_BEAT_S. A lease is stale
 * (and is taken over) when its owner ran on this host and that pid is gone, or
 * when its heartbeat is older than STORE_LEASE_STALE_S.
 */
#define STORE_LEASE_BEAT_S 5
#define STORE_LEASE_STALE_S 60
#define STORE_HOST_MAX 256

struct store_lease {
        long long rollout_id;                   /* 0 until the new rollout has an id */
        long long pid;
        char host[STORE_HOST_MAX];
        long long started_at, heartbeat;        /* unix seconds */
};

/* This process as a lease owner (pid, hostname, now). */
void store_lease_self(struct store_lease *ret, long long rollout_id);
bool store_lease_stale(const struct store_lease *l, long long now);
/*
 * Take the lease for `me` (one BEGIN IMMEDIATE transaction) and start the
 * heartbeat; a lease of the same owner or a stale one is replaced. -EBUSY with
 * *ret_holder set when another owner holds a live lease (nothing written).
 * store_rollout_create records the new rollout's id in the lease.
 */
int store_lease_take(struct store *s, const struct store_lease *me, struct store_lease *ret_holder,
                     struct errbuf *e);
/* The current lease row; -ENOENT when none is held. */
int store_lease_get(struct store *s, struct store_lease *ret, struct errbuf *e);
/* Stop the heartbeat and delete our row; no-op when not held. store_close calls it. */
int store_lease_release(struct store *s, struct errbuf *e);

/*
 * Batches. From store_begin to its store_commit, the updates above are collected,
 * not written: each record once, however often it changed. store_commit writes what
 * was collected, every record as it is in memory then, durably and together: SQLite,
 * one transaction (one fsync); etcd, one txn, or as few as etcd's request limits
 * allow (at most 100 records and 1 MiB in each). Batches nest: an inner
 * store_commit writes what was collected so far (a barrier: the journal is durable
 * before the side effect that depends on it) and collecting goes on until the
 * outermost one. A batch holds the records of one rollout: updates of another write
 * what was collected first. The caller keeps the rollout_rec alive until the batch
 * is written. A failed write says why in e; an inner one keeps the records
 * collected (the next commit tries them again), the outermost one drops them.
 *
 * The rollout engine opens one batch for the records it journals before sending; the
 * answers of each fan-out go through store_answers_begin (below).
 */
int store_begin(struct store *s, struct errbuf *e);
int store_commit(struct store *s, struct errbuf *e);

/*
 * The answers of one fan-out (a wave's applies or rollbacks, the settling of its
 * confirms), journaled as they come and durable together at store_answers_end: what
 * a crash loses of them its agents still say (controller/rollout/rollout_reconcile.c); the requests
 * themselves were journaled before they were sent. SQLite writes each at once,
 * visible to `status` and to other readers, with one fsync at the end instead of one
 * each; etcd collects them in a batch (store_begin): one txn per 100 records. Pairs
 * nest; the outermost end makes them durable.
 */
int store_answers_begin(struct store *s, struct errbuf *e);
int store_answers_end(struct store *s, struct errbuf *e);
/* Records collected and not yet written (0 outside a batch). */
unsigned store_batch_pending(const struct store *s);

/*
 * The held lease is no longer known to be valid (etcd: the keepalive did not
 * get through within the TTL): stop acting at once. Always false for SQLite.
 */
bool store_lease_lost(struct store *s);
/*
 * Block until something under the store changed (etcd: a watch on the prefix)
 * or timeout_ms passed. SQLite sleeps. 0 or -errno.
 */
int store_wait_change(struct store *s, unsigned timeout_ms, struct errbuf *e);

/* etcd: the TTL of the leader lease a later store_lease_take grants (default 5 s). */
void store_set_lease_ttl(struct store *s, unsigned ttl_s);

/* Writes this handle made (etcd: txns and puts that succeeded), for metrics and benchmarks. */
unsigned long long store_writes(const struct store *s);

/* How many nodes of r are in each state (store_names.c). */
void rollout_rec_count_states(const struct rollout_rec *r, unsigned counts[RNODE_STATE_MAX]);
