/* SPDX-License-Identifier: MIT */
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
#pragma once

#include <jansson.h>

#include "controller/store/etcd_reply.h"

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
