/* SPDX-License-Identifier: MIT */
/*
 * The store vtable: one per backend (store_sqlite.c, store_etcd.c), like the
 * driver vtable. store.c dispatches; a backend embeds `struct store` first in its
 * own handle. Every member is required.
 */
#pragma once

#include "controller/store/store.h"

struct store_ops {
        const char *name;
        void (*close)(struct store *s);
        int (*rollout_create)(struct store *s, struct rollout_rec *r, struct errbuf *e);
        int (*rollout_update)(struct store *s, struct rollout_rec *r, struct errbuf *e);
        int (*wave_update)(struct store *s, const struct rollout_rec *r, unsigned wave, struct errbuf *e);
        int (*node_update)(struct store *s, const struct rollout_rec *r, const struct rnode *n,
                           struct errbuf *e);
        int (*rollout_load)(struct store *s, long long id, struct rollout_rec **ret, struct errbuf *e);
        int (*rollout_list)(struct store *s, unsigned limit,
                            int (*cb)(const struct rollout_rec *r, void *userdata), void *userdata,
                            struct errbuf *e);
        int (*drift_save)(struct store *s, struct drift_scan *scan, struct errbuf *e);
        int (*drift_last)(struct store *s, struct drift_scan *ret, struct errbuf *e);
        int (*begin)(struct store *s, struct errbuf *e);
        int (*commit)(struct store *s, struct errbuf *e);
        int (*lease_take)(struct store *s, const struct store_lease *me, struct store_lease *ret_holder,
                          struct errbuf *e);
        int (*lease_get)(struct store *s, struct store_lease *ret, struct errbuf *e);
        int (*lease_release)(struct store *s, struct errbuf *e);
        bool (*lease_lost)(struct store *s);
        int (*wait_change)(struct store *s, unsigned timeout_ms, struct errbuf *e);
};

struct store {
        const struct store_ops *ops;
        char where[STORE_SPEC_MAX];
        unsigned long long writes;
        unsigned lease_ttl_s;           /* etcd: TTL of the leader lease (store_set_lease_ttl) */
};

int sqlite_store_open(const char *path, struct store **ret, struct errbuf *e);
int etcd_store_open(const char *spec, const struct store_tls *tls, struct store **ret, struct errbuf *e);
