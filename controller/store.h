/* SPDX-License-Identifier: MIT */
/*
 * The controller's durable state in SQLite (WAL, synchronous=FULL): rollouts,
 * their waves, every node's result with probe figures, and drift scans. The
 * rollout engine writes a row before each side effect (journal first), so a
 * controller that dies mid-rollout can be resumed from these rows.
 */
#pragma once

#include <sqlite3.h>
#include <stdbool.h>

#include "errbuf.h"
#include "inventory.h"
#include "rollout.h"

#define STORE_TX_MAX 64
#define STORE_ERR_MAX 256
#define STORE_KIND_MAX 16

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
};

struct rwave {
        enum rwave_state state;
        long long started_at;                   /* unix seconds, 0 = not started */
        long long deadline;                     /* when unconfirmed nodes revert by themselves */
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

int store_open(const char *path, struct store **ret, struct errbuf *e);
void store_close(struct store *s);

/* Insert a new rollout with its waves and nodes; sets r->id. */
int store_rollout_create(struct store *s, struct rollout_rec *r, struct errbuf *e);
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

/* Group writes into one transaction (one fsync). */
int store_begin(struct store *s, struct errbuf *e);
int store_commit(struct store *s, struct errbuf *e);
