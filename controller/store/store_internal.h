/* SPDX-License-Identifier: MIT */
/*
 * Inside controller/store; not for other modules: the backend vtable, the SQLite
 * backend's handle, records as JSON (store_record.c), the etcd v3 client (etcd.c) and
 * its replies (etcd_reply.c), the etcd backend's keys and lease.
 */
#pragma once

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/db.h"
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


/* The SQLite backend, shared by store_sqlite.c (schema, writes), store_sqlite_query.c (reads)
 * and store_sqlite_lease.c (the rollout lease). Not for other files. */


struct store_beat;

struct sqlite_store {
        struct store base;              /* first: the interface's handle */
        struct db db;
        bool lease_held;                /* store_lease_take succeeded, not yet released */
        struct store_lease lease;       /* ours, while lease_held */
        struct store_beat *beat;        /* the heartbeat thread, while lease_held */
};

#define STORE_LEASE_SCHEMA \
        "CREATE TABLE IF NOT EXISTS lease (" \
        " id INTEGER PRIMARY KEY CHECK (id = 1), rollout_id INTEGER NOT NULL, pid INTEGER NOT NULL," \
        " host TEXT NOT NULL, started_at INTEGER NOT NULL, heartbeat INTEGER NOT NULL);"

static inline struct sqlite_store *sqlite_of(struct store *s)
{
        return (struct sqlite_store *)s;
}

int sqlite_lease_note_rollout(struct sqlite_store *s, long long rollout_id, struct errbuf *e);

static inline int sqlite_fail(struct sqlite_store *s, struct errbuf *e, const char *what)
{
        return db_fail(&s->db, e, what);
}

void sqlite_store_close(struct sqlite_store *s);
int sqlite_rollout_load(struct sqlite_store *s, long long id, struct rollout_rec **ret, struct errbuf *e);
int sqlite_rollout_list(struct sqlite_store *s, unsigned limit,
                        int (*cb)(const struct rollout_rec *r, void *userdata), void *userdata,
                        struct errbuf *e);
int sqlite_drift_save(struct sqlite_store *s, struct drift_scan *scan, struct errbuf *e);
int sqlite_drift_last(struct sqlite_store *s, struct drift_scan *ret, struct errbuf *e);
int sqlite_lease_take(struct sqlite_store *s, const struct store_lease *me, struct store_lease *ret_holder,
                      struct errbuf *e);
int sqlite_lease_get(struct sqlite_store *s, struct store_lease *ret, struct errbuf *e);
int sqlite_lease_release(struct sqlite_store *s, struct errbuf *e);


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


/*
 * Replies of etcd's v3 JSON gateway, parsed strictly like any outside input:
 * bounded sizes and counts, the expected types, base64 keys and values decoded
 * and bounded, 64-bit numbers as the gateway writes them (decimal strings; plain
 * integers are accepted too) and never negative. Members the gateway leaves out
 * when they hold their default (false, 0, empty) read as that default.
 *
 *   range      {"header":{"revision":"N"},"kvs":[{key,value,create_revision,mod_revision,version,lease}],"count":"N","more":true}
 *   put        {"header":{...}}
 *   txn        {"header":{...},"succeeded":true,"responses":[{"response_put":{...}}|{"response_range":{...}}]}
 *   lease      {"header":{...},"ID":"N","TTL":"N"}  (keepalive: wrapped in {"result":{...}})
 *   watch      {"result":{"header":{...},"created":true,"canceled":false,"events":[{"type":"DELETE","kv":{...}}]}}
 *   error      {"error":"...","code":N,"message":"..."}
 *
 * Pure: jansson and the library only (a libFuzzer harness drives it).
 */



#define ETCD_KEY_MAX 4096               /* bytes of a decoded key */
#define ETCD_VALUE_MAX (4u << 20)       /* bytes of a decoded value */
#define ETCD_KVS_MAX 100000             /* kvs in one reply (all ranges of a txn together) */
#define ETCD_REPLY_MAX (64u << 20)      /* bytes of one reply body */

enum etcd_reply_kind {
        ETCD_REPLY_RANGE,
        ETCD_REPLY_PUT,
        ETCD_REPLY_TXN,
        ETCD_REPLY_LEASE,               /* grant / revoke */
        ETCD_REPLY_KEEPALIVE,
        ETCD_REPLY_WATCH,               /* one message of the stream */
        ETCD_REPLY_KIND_MAX,
};

struct etcd_kv {
        char *key;                      /* owned, NUL-terminated (keys are text here) */
        char *value;                    /* owned, NUL-terminated; value_len excludes the NUL */
        size_t value_len;
        int64_t create_rev, mod_rev, version, lease;
        bool deleted;                   /* a watch event of type DELETE */
};

struct etcd_reply {
        int64_t revision;               /* header.revision: the store's revision after this request */
        bool succeeded;                 /* txn: the compares held */
        int64_t count;                  /* range: keys in the range (may exceed n_kvs with a limit) */
        bool more;
        unsigned n_kvs;                 /* range kvs; txn: the kvs of every response_range; watch: events */
        struct etcd_kv *kvs;            /* owned */
        unsigned n_responses;           /* txn: responses */
        int64_t id, ttl;                /* lease: ID and TTL (TTL 0 or absent: the lease is gone) */
        bool created, canceled;         /* watch */
};

/* body[0..len) of one reply of `kind`. On error e says what and where ("$.kvs[2].key: ..."). */
int etcd_reply_parse(enum etcd_reply_kind kind, const char *body, size_t len, struct etcd_reply *ret,
                     struct errbuf *e);
void etcd_reply_done(struct etcd_reply *r);

/* An error answer {"error"/"message", "code"} as "message (code N)"; fallback "HTTP N". */
const char *etcd_reply_error(long status, const char *body, size_t len, char *buf, size_t size);

/* Standard base64 (RFC 4648 with padding). Encode: caller frees. Decode: NUL-terminated, at most max bytes. */
char *etcd_b64_encode(const void *data, size_t len);
int etcd_b64_decode(const char *s, size_t len, size_t max, char **ret, size_t *ret_len);


/*
 * A small etcd v3 client over the JSON gateway (POST /v3/kv/range, /v3/kv/put,
 * /v3/kv/txn, /v3/lease/grant, /v3/lease/keepalive, /v3/lease/revoke,
 * /v3/watch) with libcurl: several endpoints (the next one is tried when one
 * does not answer or answers "unavailable"), mTLS when CA, certificate and key
 * are given, a timeout per call, replies parsed by etcd_reply.c.
 *
 * One handle is used by one thread at a time (it keeps one connection); threads
 * that call concurrently (the lease keepalive, a watch) take their own with
 * etcd_client_clone.
 */



#define ETCD_ENDPOINTS_MAX 16

struct etcd_tls {
        const char *ca, *cert, *key;    /* all NULL: plain HTTP */
};

struct etcd_client;

/* endpoints: "HOST:PORT[,HOST:PORT...]". */
int etcd_client_new(const char *endpoints, const struct etcd_tls *tls, unsigned timeout_ms,
                    struct etcd_client **ret, struct errbuf *e);
int etcd_client_clone(const struct etcd_client *c, unsigned timeout_ms, struct etcd_client **ret,
                      struct errbuf *e);
void etcd_client_free(struct etcd_client *c);

/*
 * POST path with the JSON request (taken: decref'd here), parse the reply as
 * kind. -EREMOTEIO with etcd's message when etcd refused, -ETIMEDOUT /
 * -ECONNREFUSED when no endpoint answered.
 */
int etcd_call(struct etcd_client *c, const char *path, json_t *req, enum etcd_reply_kind kind,
              struct etcd_reply *ret, struct errbuf *e);

/* Requests and txn members (new references, NULL on ENOMEM). Keys and values are text. */
json_t *etcd_key(const char *key);                                      /* base64 string */
json_t *etcd_range_req(const char *key, const char *range_end, long long limit, bool descend);
json_t *etcd_put_op(const char *key, const char *value, long long lease);       /* {"request_put":...} */
json_t *etcd_range_op(const char *key);                                         /* {"request_range":...} */
json_t *etcd_delete_op(const char *key);                                        /* {"request_delete_range":...} */
/* compare target CREATE / MOD / LEASE (field create_revision / mod_revision / lease) EQUAL value. */
json_t *etcd_cmp(const char *key, const char *target, long long value);

/* The end of the range of every key that starts with prefix (prefix with its last byte + 1). */
void etcd_prefix_end(const char *prefix, char *buf, size_t size);

/*
 * Watch [key, range_end) from start_rev until the first event or timeout_ms
 * (then 0 with *ret_changed false). *ret_rev: the revision of the last event.
 */
int etcd_watch(struct etcd_client *c, const char *key, const char *range_end, long long start_rev,
               unsigned timeout_ms, bool *ret_changed, long long *ret_rev, struct errbuf *e);

/* The endpoint that answered last ("HOST:PORT"), for messages. */
const char *etcd_endpoint(const struct etcd_client *c);


/*
 * The etcd backend (store_etcd.c: records, CAS writes, reads; store_etcd_lease.c:
 * the leader key, its lease and keepalive, fencing, watch). Not for other files.
 *
 * Keys under PREFIX:
 *   PREFIX/meta/next_rollout, PREFIX/meta/next_drift      id counters
 *   PREFIX/rollout/<id, 20 digits>                         the rollout record
 *   PREFIX/wave/<id>/<idx, 6 digits>                       one per wave
 *   PREFIX/chunk/<id>/<k, 6 digits>                        nodes k x ETCD_CHUNK_NODES.. (k+1) x
 *                                                          ETCD_CHUNK_NODES - 1, in one record
 *   PREFIX/node/<id>/<seq, 6 digits>                       one per node: rollouts of older controllers
 *   PREFIX/drift/<id>                                      one per drift scan
 *   PREFIX/leader                                          the leader (attached to its lease)
 *
 * Every write is one txn whose compares are: each record's mod_revision as this
 * handle last read or wrote it (create_revision 0 for a new record) and, while
 * this handle leads, the leader key's create_revision (fencing: a controller
 * whose lease expired can no longer write). A failed compare is -ESTALE.
 */



#define ETCD_KEYLEN 300
/*
 * Nodes per chunk record: a wave's results are rewritten as the chunks they fall in,
 * so a wave of 2,500 nodes is about 11 records, one txn (a node is some 300 bytes).
 */
#define ETCD_CHUNK_NODES 256

struct revcache_entry {
        char *key;
        long long rev;
};

struct etcd_pending {
        char key[ETCD_KEYLEN];
        char *value;                    /* owned */
};

struct etcd_keepalive;

struct etcd_store {
        struct store base;              /* first: the interface's handle */
        struct etcd_client *c;
        char endpoints[STORE_SPEC_MAX];
        struct etcd_tls tls;
        char ca[512], cert[512], key[512];
        char prefix[200];
        char by[STORE_BY_MAX];          /* "host:pid", written into every record */
        long long last_rev;             /* newest store revision this handle saw */

        struct revcache_entry *cache;   /* key -> mod_revision, open addressing */
        size_t cache_cap, cache_n;

        /* leadership (TTL: base.lease_ttl_s) */
        long long lease_id;
        long long fence_rev;            /* create_revision of our leader key; 0: not leading */
        struct store_lease lease;
        _Atomic long long valid_until_ms;       /* monotonic: act only before this */
        struct etcd_keepalive *ka;
};

static inline struct etcd_store *etcd_of(struct store *s)
{
        return (struct etcd_store *)s;
}

void etcd_store_key(const struct etcd_store *s, char *buf, size_t size, const char *fmt, ...) _printf_(4, 5);
void etcd_cache_put(struct etcd_store *s, const char *key, long long rev);
long long etcd_cache_get(const struct etcd_store *s, const char *key);
void etcd_saw(struct etcd_store *s, long long rev);
long long etcd_now_ms(void);

/* Lease and leadership (store_etcd_lease.c). */
int etcd_lease_take(struct store *s, const struct store_lease *me, struct store_lease *ret_holder, struct errbuf *e);
int etcd_lease_get(struct store *s, struct store_lease *ret, struct errbuf *e);
int etcd_lease_release(struct store *s, struct errbuf *e);
bool etcd_lease_lost(struct store *s);
int etcd_wait_change(struct store *s, unsigned timeout_ms, struct errbuf *e);
/* The fencing compare for a txn while leading (NULL when not leading). */
json_t *etcd_fence_cmp(struct etcd_store *s);
