/* SPDX-License-Identifier: MIT */
/*
 * Inside controller/store; not for other modules: the etcd backend (store_etcd*.c),
 * its v3 client (etcd.c) and that client's replies (etcd_reply.c).
 */
#pragma once

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "controller/store/store_internal.h"

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
