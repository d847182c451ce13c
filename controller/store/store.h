/* SPDX-License-Identifier: MIT */
/*
 * The controller's durable state: rollouts, their waves, every node's result
 * with probe figures (the model: controller/model/model.h), and drift scans. The rollout engine writes a record before
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
 * May call: controller/model, controller/fleet, policies/, common/. Called by
 * controller/rollout, controller/tune and controller/cmd.
 */
#pragma once

#include <stdbool.h>

#include "common/errbuf.h"
#include "controller/fleet/fleet.h"
#include "controller/model/model.h"

/* The model's sizes, by the store's names for them (its callers use both). */
#define STORE_TX_MAX ROLLOUT_TX_MAX
#define STORE_ERR_MAX ROLLOUT_ERR_MAX
#define STORE_KIND_MAX ROLLOUT_KIND_MAX
#define STORE_KEY_MAX ROLLOUT_KEY_MAX
#define STORE_SPEC_MAX 1024
#define STORE_TIME_MS_MAX 253402300799999LL    /* ms since the epoch: the end of year 9999 */
#define STORE_REV_MAX 2147483647LL              /* an agent's revision numbers */
#define STORE_LABEL_MAX ROLLOUT_LABEL_MAX
#define STORE_SELECTOR_MAX ROLLOUT_SELECTOR_MAX

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
/* Load a rollout (id > 0) or the newest one (id 0), freed with rollout_rec_free. -ENOENT if there is none. */
int store_rollout_load(struct store *s, long long id, struct rollout_rec **ret, struct errbuf *e);

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
 * The write-ahead discipline: record, then barrier. A caller that changed a record of
 * rollout r in memory (its own state, a wave, a node) says so with store_record_*: no
 * I/O, nothing can fail there (a record of something that is not r's is an error the
 * next barrier returns). store_barrier makes every record noted since the last barrier
 * durable, each as it is in memory then and each once however often it was noted,
 * before the caller's next side effect: a fan-out of requests, a long wait, an answer,
 * the end. How records batch is the store's: SQLite, one transaction (one fsync) per
 * rollout noted; etcd, one txn, or as few as etcd's request limits allow (at most 100
 * records and 1 MiB in each). The caller keeps each rollout_rec it noted alive until
 * the barrier. A failed barrier says why in e and drops what was noted: the caller
 * stops, and what a crash or a failed write loses its agents still say on resume
 * (rollout_reconcile.h).
 *
 * store_publish: the records noted so far made visible to other readers where that is
 * cheap, not durable (SQLite: committed without an fsync, which the next barrier's
 * covers; etcd: nothing, they wait for the barrier). The rollout engine publishes each
 * answer of a fan-out as it comes, so that `status` and an operator's `halt` see a
 * wave's progress while it runs. A failed publish keeps the records for the barrier.
 *
 * store_unflushed: records noted or published and not yet made durable. The rollout
 * engine asserts it is 0 when a fan-out starts (a debug build: without NDEBUG).
 */
void store_record_rollout(struct store *s, struct rollout_rec *r);     /* also sets r->updated_at to now */
void store_record_wave(struct store *s, const struct rollout_rec *r, unsigned wave);
void store_record_node(struct store *s, const struct rollout_rec *r, const struct rnode *n);
int store_barrier(struct store *s, struct errbuf *e);
void store_publish(struct store *s);
unsigned store_unflushed(const struct store *s);

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

