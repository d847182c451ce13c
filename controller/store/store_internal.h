/* SPDX-License-Identifier: MIT */
/*
 * Inside controller/store; not for other modules: the backend vtable and what every
 * backend shares (the records noted since the last barrier, records as JSON:
 * store_record.c). Each backend has its own on top: store_sqlite_internal.h,
 * store_etcd_internal.h.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "common/errbuf.h"
#include "controller/store/store.h"

/*
 * The store vtable: one per backend (store_sqlite.c, store_etcd.c), like the
 * driver vtable. store.c dispatches; a backend embeds `struct store` first in its
 * own handle. Every member is required.
 */


/* Records of one rollout to write: its rollout record, waves and nodes (indices, ascending). */
struct store_dirty {
        bool rollout;
        const unsigned *waves;
        unsigned n_waves;
        const unsigned *nodes;
        unsigned n_nodes;
};

struct store_ops {
        const char *name;
        void (*close)(struct store *s);
        int (*rollout_create)(struct store *s, struct rollout_rec *r, struct errbuf *e);
        /* Write the records d names, each as it is in r now, durably and together (store_barrier). */
        int (*write)(struct store *s, const struct rollout_rec *r, const struct store_dirty *d, struct errbuf *e);
        int (*rollout_load)(struct store *s, long long id, struct rollout_rec **ret, struct errbuf *e);
        int (*rollout_list)(struct store *s, unsigned limit,
                            int (*cb)(const struct rollout_rec *r, void *userdata), void *userdata,
                            struct errbuf *e);
        int (*drift_save)(struct store *s, struct drift_scan *scan, struct errbuf *e);
        int (*drift_last)(struct store *s, struct drift_scan *ret, struct errbuf *e);
        int (*lease_take)(struct store *s, const struct store_lease *me, struct store_lease *ret_holder,
                          struct errbuf *e);
        int (*lease_get)(struct store *s, struct store_lease *ret, struct errbuf *e);
        int (*lease_release)(struct store *s, struct errbuf *e);
        bool (*lease_lost)(struct store *s);
        int (*wait_change)(struct store *s, unsigned timeout_ms, struct errbuf *e);
        /*
         * Optional (store_publish): write the records d names where other readers see
         * them, not durably; sync makes every such write durable (store_barrier, when
         * nothing else is to be written). NULL: records wait for the barrier.
         */
        int (*write_visible)(struct store *s, const struct rollout_rec *r, const struct store_dirty *d,
                             struct errbuf *e);
        int (*sync)(struct store *s, struct errbuf *e);
        /* Optional: a rollout's hold (store_hold_get/set), as JSON text. NULL: -EOPNOTSUPP. */
        int (*hold_get)(struct store *s, long long id, char **ret, struct errbuf *e);
        int (*hold_set)(struct store *s, long long id, const char *doc, struct errbuf *e);
};

/* What was noted of one rollout since the last barrier (store.c): each record once. */
struct store_noted {
        const struct rollout_rec *r;
        unsigned n_nodes_of, n_waves_of;        /* r's counts when it was taken */
        bool rollout;
        unsigned *waves, n_waves;       /* indices noted, in order of arrival */
        unsigned *nodes, n_nodes;
        unsigned char *wave_in, *node_in;       /* one byte per wave / node: noted already */
};

/* The write-ahead log of a handle (store_record_*, store_barrier): the rollouts noted, usually one. */
struct store_log {
        struct store_noted *of;
        unsigned n, cap;
        int err;                        /* a record that could not be noted: the next barrier returns it */
        char why[STORE_ERR_MAX];
        unsigned published;             /* records written visibly (store_publish) and not yet synced */
};

struct store {
        const struct store_ops *ops;
        char where[STORE_SPEC_MAX];
        unsigned long long writes;
        unsigned lease_ttl_s;           /* etcd: TTL of the leader lease (store_set_lease_ttl) */
        struct store_log log;
};

/* The backends' close: free what store.c keeps (the records noted). */
void store_log_free(struct store *s);

int sqlite_store_open(const char *path, struct store **ret, struct errbuf *e);
int etcd_store_open(const char *spec, const struct store_tls *tls, struct store **ret, struct errbuf *e);


/*
 * Rollouts, waves, node results, drift scans and the leader record as JSON
 * documents: the values the etcd backend keeps (one key per record, so each has
 * its own mod_revision) and that `store migrate` carries over. Parsing is strict
 * (jsonv tables: unknown keys, types, ranges, string lengths), since a record
 * read back from a shared store is outside input. Pure: jansson and the library.
 *
 *   rollout  {"v":1,"id","kind","policy_name","policy_doc","args","opts":{...},"state",
 *             "created_at","updated_at","exit_code","message","n_nodes","n_waves","by",
 *             "node_chunk" (nodes per chunk record; absent or 0: a record per node)}
 *   wave     {"v":1,"idx","state","started_at","deadline","by"}
 *   node     {"v":1,"seq","name","url","wave","state","tx","exit_code","changes",
 *             "baseline_gbps","post_gbps","error","key","confirm_deadline_ms","not_after_ms",
 *             "pre_rev","rev","undo_tx","group","updated_at","by"}
 *   chunk    {"v":1,"chunk","updated_at","nodes":[node members less v, updated_at, by],"by"}
 *   drift    {"v":1,"id","at","nodes","drifted","unreachable","details":[{name,reached,drifted,error,report}],"by"}
 *   leader   {"v":1,"pid","host","started_at","rollout_id"}
 * "by" names the controller that wrote the record ("host:pid").
 */


#define STORE_RECORD_MAX (POLICY_DOC_MAX + 65536)       /* bytes of one record */
#define STORE_BY_MAX 300

/* New JSON texts (caller frees); NULL on ENOMEM. */
char *store_json_rollout(const struct rollout_rec *r, const char *by);
char *store_json_wave(const struct rollout_rec *r, unsigned idx, const char *by);
char *store_json_node(const struct rollout_rec *r, const struct rnode *n, const char *by);
/*
 * Nodes [chunk x r->chunk_nodes, +r->chunk_nodes) of r in one record (etcd keeps a
 * rollout's nodes so, a few hundred a key, so that a wave's results are one txn):
 *   {"v":1,"chunk","updated_at","nodes":[{seq,name,url,wave,state,...} in order],"by"}
 */
char *store_json_chunk(const struct rollout_rec *r, unsigned chunk, const char *by);
char *store_json_drift(const struct drift_scan *scan, const char *by);
char *store_json_lease(const struct store_lease *l);

/*
 * The rollout record into a new rollout_rec (nodes and waves allocated, zeroed,
 * every node's exit_code -1 and gbps NaN, to be filled by the wave and node
 * records). `where` names the record in messages.
 */
int store_json_parse_rollout(const char *text, size_t len, const char *where, struct rollout_rec **ret,
                               struct errbuf *e);
/* A wave / node record into r (its idx / seq must be in range). */
int store_json_parse_wave(const char *text, size_t len, const char *where, struct rollout_rec *r,
                            struct errbuf *e);
int store_json_parse_node(const char *text, size_t len, const char *where, struct rollout_rec *r,
                            struct errbuf *e);
/* A chunk record into r (r->chunk_nodes set): every node of that chunk, in order, each once. */
int store_json_parse_chunk(const char *text, size_t len, const char *where, unsigned chunk,
                             struct rollout_rec *r, struct errbuf *e);
/* A drift record's counts (no nodes). */
int store_json_parse_drift(const char *text, size_t len, const char *where, struct drift_scan *ret,
                             struct errbuf *e);
int store_json_parse_lease(const char *text, size_t len, const char *where, struct store_lease *ret,
                             struct errbuf *e);
