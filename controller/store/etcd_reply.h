/* SPDX-License-Identifier: MIT */
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
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/errbuf.h"

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
