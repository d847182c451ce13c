/* SPDX-License-Identifier: MIT */
/*
 * The etcd backend (store_etcd.c: records, CAS writes, reads; store_etcd_lease.c:
 * the leader key, its lease and keepalive, fencing, watch). Not for other files.
 *
 * Keys under PREFIX:
 *   PREFIX/meta/next_rollout, PREFIX/meta/next_drift      id counters
 *   PREFIX/rollout/<id, 20 digits>                         the rollout record
 *   PREFIX/wave/<id>/<idx, 6 digits>                       one per wave
 *   PREFIX/node/<id>/<seq, 6 digits>                       one per node
 *   PREFIX/drift/<id>                                      one per drift scan
 *   PREFIX/leader                                          the leader (attached to its lease)
 *
 * Every write is one txn whose compares are: each record's mod_revision as this
 * handle last read or wrote it (create_revision 0 for a new record) and, while
 * this handle leads, the leader key's create_revision (fencing: a controller
 * whose lease expired can no longer write). A failed compare is -ESTALE.
 */
#pragma once

#include <pthread.h>
#include <stdatomic.h>

#include "controller/store/etcd.h"
#include "controller/store/store_backend.h"
#include "controller/store/store_record.h"

#define ETCD_KEYLEN 300

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

        bool batching;
        struct etcd_pending *pending;
        unsigned n_pending, cap_pending;

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
