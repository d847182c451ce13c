/* SPDX-License-Identifier: MIT */
/* The etcd backend of the store: versioned records, compare-and-swap writes, reads. */
#include <stdarg.h>
#include <time.h>

#include "controller/store/store_etcd_internal.h"

#define TXN_RECORDS_MAX 100             /* etcd refuses more than 128 operations per txn by default */
#define TXN_BYTES_MAX (1u << 20)        /* ... and requests over 1.5 MiB (--max-request-bytes) */
#define ID_ATTEMPTS 50

/* ---- writes ---- */

/* After a failed compare: did our own earlier attempt (timed out, then retried) land after all? */
static int verify_own(struct etcd_store *s, const struct etcd_pending *p, unsigned n, struct errbuf *e)
{
        char leader[ETCD_KEYLEN];

        if (s->fence_rev) {
                struct etcd_reply r;
                bool ok;

                etcd_store_key(s, leader, sizeof(leader), "leader");
                if (etcd_call(s->c, "/v3/kv/range", etcd_range_req(leader, NULL, 0, false), ETCD_REPLY_RANGE,
                              &r, e) < 0)
                        return -ESTALE;
                ok = r.n_kvs == 1 && r.kvs[0].create_rev == s->fence_rev;
                etcd_reply_done(&r);
                if (!ok)
                        return errbuf_set(e, ESTALE, s->base.where, "leadership lost: the leader key is no longer "
                                          "ours; this controller stops acting");
        }
        for (unsigned i = 0; i < n; i++) {
                struct etcd_reply r;
                bool same;

                if (etcd_call(s->c, "/v3/kv/range", etcd_range_req(p[i].key, NULL, 0, false), ETCD_REPLY_RANGE,
                              &r, e) < 0)
                        return -ESTALE;
                same = r.n_kvs == 1 && streq(r.kvs[0].value, p[i].value);
                if (same)
                        etcd_cache_put(s, p[i].key, r.kvs[0].mod_rev);
                etcd_reply_done(&r);
                if (!same)
                        return errbuf_set(e, ESTALE, s->base.where, "%s was changed by another controller; "
                                          "nothing more is written", p[i].key);
        }
        return 0;
}

/* One txn: every record compared on its known revision (and the fence), then put. */
static int write_chunk(struct etcd_store *s, const struct etcd_pending *p, unsigned n, struct errbuf *e)
{
        json_t *cmp = json_array(), *ops = json_array(), *fence;
        struct etcd_reply r;
        int rc;

        if (s->fence_rev && etcd_lease_lost(&s->base)) {
                json_decref(cmp);
                json_decref(ops);
                return errbuf_set(e, ESTALE, s->base.where, "leadership lost: the lease was not renewed in time; "
                                  "this controller stops acting");
        }
        fence = etcd_fence_cmp(s);
        if (fence)
                json_array_append_new(cmp, fence);
        for (unsigned i = 0; i < n; i++) {
                long long rev = etcd_cache_get(s, p[i].key);

                json_array_append_new(cmp, etcd_cmp(p[i].key, rev ? "MOD" : "CREATE", rev));
                json_array_append_new(ops, etcd_put_op(p[i].key, p[i].value, 0));
        }
        rc = etcd_call(s->c, "/v3/kv/txn", json_pack("{s:o, s:o}", "compare", cmp, "success", ops),
                       ETCD_REPLY_TXN, &r, e);
        if (rc < 0)
                return rc;
        etcd_saw(s, r.revision);
        if (r.succeeded) {
                for (unsigned i = 0; i < n; i++)
                        etcd_cache_put(s, p[i].key, r.revision);
                s->base.writes++;
        }
        rc = r.succeeded ? 0 : verify_own(s, p, n, e);
        etcd_reply_done(&r);
        return rc;
}

/* Records for one write, in order: several txns when they do not fit in one. */
struct records {
        struct etcd_pending *p;
        unsigned n, cap;
};

static void records_free(struct records *rs)
{
        for (unsigned i = 0; i < rs->n; i++)
                free(rs->p[i].value);
        free(rs->p);
        *rs = (struct records) { 0 };
}

/* Append key = value (value taken; NULL: out of memory). */
static int records_add(struct etcd_store *s, struct records *rs, const char *key, char *value, struct errbuf *e)
{
        if (!value)
                return errbuf_set(e, ENOMEM, s->base.where, "out of memory");
        if (rs->n == rs->cap) {
                unsigned cap = rs->cap ? rs->cap * 2 : 16;
                struct etcd_pending *more = realloc(rs->p, cap * sizeof(*more));

                if (!more) {
                        free(value);
                        return errbuf_set(e, ENOMEM, s->base.where, "out of memory");
                }
                rs->p = more;
                rs->cap = cap;
        }
        snprintf(rs->p[rs->n].key, ETCD_KEYLEN, "%s", key);
        rs->p[rs->n++].value = value;
        return 0;
}

/* Write them all: as many in each txn as etcd takes (TXN_RECORDS_MAX records, TXN_BYTES_MAX bytes). */
static int flush(struct etcd_store *s, const struct records *rs, struct errbuf *e)
{
        int rc = 0;

        for (unsigned i = 0; rc >= 0 && i < rs->n;) {
                size_t bytes = 0;
                unsigned k = 0;

                while (i + k < rs->n && k < TXN_RECORDS_MAX &&
                       (k == 0 || bytes + strlen(rs->p[i + k].value) + ETCD_KEYLEN <= TXN_BYTES_MAX))
                        bytes += strlen(rs->p[i + k++].value) + ETCD_KEYLEN;
                rc = write_chunk(s, rs->p + i, k, e);
                i += k;
        }
        return rc;
}

/* Write one record now. */
static int put_record(struct etcd_store *s, const char *key, char *value, struct errbuf *e)
{
        struct records rs = { 0 };
        int rc = records_add(s, &rs, key, value, e);

        if (rc >= 0)
                rc = flush(s, &rs, e);
        records_free(&rs);
        return rc;
}

static void rollout_key(const struct etcd_store *s, long long id, char *buf, size_t size)
{
        etcd_store_key(s, buf, size, "rollout/%020lld", id);
}

static int add_wave(struct etcd_store *s, struct records *rs, const struct rollout_rec *r, unsigned w,
                    struct errbuf *e)
{
        char key[ETCD_KEYLEN];

        etcd_store_key(s, key, sizeof(key), "wave/%020lld/%06u", r->id, w);
        return records_add(s, rs, key, store_json_wave(r, w, s->by), e);
}

/* The record holding node i: its chunk (of nodes in ascending order, added once), or its own. */
static int add_node(struct etcd_store *s, struct records *rs, const struct rollout_rec *r, unsigned i,
                    long long *last_chunk, struct errbuf *e)
{
        char key[ETCD_KEYLEN];

        if (!r->chunk_nodes) {
                etcd_store_key(s, key, sizeof(key), "node/%020lld/%06u", r->id, i);
                return records_add(s, rs, key, store_json_node(r, &r->nodes[i], s->by), e);
        }
        if ((long long)(i / r->chunk_nodes) == *last_chunk)
                return 0;
        *last_chunk = i / r->chunk_nodes;
        etcd_store_key(s, key, sizeof(key), "chunk/%020lld/%06u", r->id, i / r->chunk_nodes);
        return records_add(s, rs, key, store_json_chunk(r, i / r->chunk_nodes, s->by), e);
}

/* A batch's records: node chunks and waves first, the rollout record last. */
static int op_write(struct store *base, const struct rollout_rec *r, const struct store_dirty *d, struct errbuf *e)
{
        struct etcd_store *s = etcd_of(base);
        struct records rs = { 0 };
        long long last = -1;
        char key[ETCD_KEYLEN];
        int rc = 0;

        for (unsigned i = 0; rc >= 0 && i < d->n_nodes; i++)
                rc = add_node(s, &rs, r, d->nodes[i], &last, e);
        for (unsigned i = 0; rc >= 0 && i < d->n_waves; i++)
                rc = add_wave(s, &rs, r, d->waves[i], e);
        if (rc >= 0 && d->rollout) {
                rollout_key(s, r->id, key, sizeof(key));
                rc = records_add(s, &rs, key, store_json_rollout(r, s->by), e);
        }
        if (rc >= 0)
                rc = flush(s, &rs, e);
        records_free(&rs);
        return rc;
}

/*
 * The next id of a counter (compare-and-swap on its mod_revision). exact > 0:
 * that id or -EEXIST when the counter is past it (nothing written).
 */
static int next_id(struct etcd_store *s, const char *name, long long exact, long long *ret, struct errbuf *e)
{
        char key[ETCD_KEYLEN], val[32];

        etcd_store_key(s, key, sizeof(key), "meta/%s", name);
        for (int attempt = 0; attempt < ID_ATTEMPTS; attempt++) {
                struct etcd_reply r;
                long long cur = 1, rev = 0;
                json_t *cmp;
                int rc = etcd_call(s->c, "/v3/kv/range", etcd_range_req(key, NULL, 0, false), ETCD_REPLY_RANGE,
                                   &r, e);

                if (rc < 0)
                        return rc;
                if (r.n_kvs == 1) {
                        char *end;

                        cur = strtoll(r.kvs[0].value, &end, 10);
                        rev = r.kvs[0].mod_rev;
                        if (*end || cur < 1) {
                                etcd_reply_done(&r);
                                return errbuf_set(e, EBADMSG, key, "not a counter");
                        }
                }
                etcd_reply_done(&r);
                if (exact > 0 && cur > exact)
                        return errbuf_set(e, EEXIST, s->base.where, "rollout %lld exists already", exact);
                if (exact > 0)
                        cur = exact;
                snprintf(val, sizeof(val), "%lld", cur + 1);
                cmp = etcd_cmp(key, rev ? "MOD" : "CREATE", rev);
                rc = etcd_call(s->c, "/v3/kv/txn", json_pack("{s:[o], s:[o]}", "compare", cmp, "success",
                                                             etcd_put_op(key, val, 0)), ETCD_REPLY_TXN, &r, e);
                if (rc < 0)
                        return rc;
                etcd_saw(s, r.revision);
                if (r.succeeded) {
                        s->base.writes++;
                        etcd_reply_done(&r);
                        *ret = cur;
                        return 0;
                }
                etcd_reply_done(&r);
        }
        return errbuf_set(e, EBUSY, key, "too many controllers took ids at once; try again");
}

/*
 * Waves and nodes first (ETCD_CHUNK_NODES nodes a record), the rollout record last:
 * a reader sees a rollout only once it is complete. An id given (r->id > 0: store
 * migrate) is kept.
 */
static int op_rollout_create(struct store *base, struct rollout_rec *r, struct errbuf *e)
{
        struct etcd_store *s = etcd_of(base);
        struct records rs = { 0 };
        long long id = 0, last = -1;
        char key[ETCD_KEYLEN];
        int rc = next_id(s, "next_rollout", r->id, &id, e);

        if (rc < 0)
                return rc;
        r->id = id;
        r->chunk_nodes = ETCD_CHUNK_NODES;
        s->lease.rollout_id = id;
        for (unsigned i = 0; rc >= 0 && i < r->n_waves; i++)
                rc = add_wave(s, &rs, r, i, e);
        for (unsigned i = 0; rc >= 0 && i < r->n_nodes; i++)
                rc = add_node(s, &rs, r, i, &last, e);
        if (rc >= 0)
                rc = flush(s, &rs, e);
        records_free(&rs);
        if (rc < 0)
                return rc;
        rollout_key(s, r->id, key, sizeof(key));
        return put_record(s, key, store_json_rollout(r, s->by), e);
}

/* ---- reads ---- */

static int range_prefix(struct etcd_store *s, const char *prefix, long long limit, bool descend,
                        struct etcd_reply *ret, struct errbuf *e)
{
        char end[ETCD_KEYLEN];
        int rc;

        etcd_prefix_end(prefix, end, sizeof(end));
        rc = etcd_call(s->c, "/v3/kv/range", etcd_range_req(prefix, end, limit, descend), ETCD_REPLY_RANGE, ret, e);
        if (rc >= 0)
                etcd_saw(s, ret->revision);
        return rc;
}

/* "chunk/<id>/000012" -> 12. */
static int key_index(const char *key, unsigned *ret)
{
        const char *slash = strrchr(key, '/');
        char *end;
        unsigned long v;

        if (!slash || !slash[1])
                return -EINVAL;
        v = strtoul(slash + 1, &end, 10);
        if (*end || v > INVENTORY_NODES_MAX)
                return -EINVAL;
        *ret = (unsigned)v;
        return 0;
}

/* One record under wave/, node/ or chunk/ into r. */
static int load_kv(struct etcd_store *s, struct rollout_rec *r, const char *kind, const struct etcd_kv *kv,
                   unsigned want_idx, struct errbuf *e)
{
        unsigned idx;

        if (streq(kind, "wave"))
                return store_json_parse_wave(kv->value, kv->value_len, kv->key, r, e);
        if (streq(kind, "node"))
                return store_json_parse_node(kv->value, kv->value_len, kv->key, r, e);
        if (key_index(kv->key, &idx) < 0 || idx != want_idx)
                return errbuf_set(e, EIO, kv->key, "rollout %lld: chunk record %u missing", r->id, want_idx);
        return store_json_parse_chunk(kv->value, kv->value_len, kv->key, idx, r, e);
}

static int load_children(struct etcd_store *s, struct rollout_rec *r, const char *kind, struct errbuf *e)
{
        char prefix[ETCD_KEYLEN];
        struct etcd_reply rep;
        unsigned want = streq(kind, "wave") ? r->n_waves : streq(kind, "node") ? r->n_nodes :
                        (r->n_nodes + r->chunk_nodes - 1) / r->chunk_nodes;
        int rc;

        etcd_store_key(s, prefix, sizeof(prefix), "%s/%020lld/", kind, r->id);
        rc = range_prefix(s, prefix, 0, false, &rep, e);
        if (rc < 0)
                return rc;
        if (rep.n_kvs != want)
                rc = errbuf_set(e, EIO, s->base.where, "rollout %lld: %u %s records, expected %u", r->id,
                                rep.n_kvs, kind, want);
        for (unsigned i = 0; rc >= 0 && i < rep.n_kvs; i++) {
                rc = load_kv(s, r, kind, &rep.kvs[i], i, e);
                etcd_cache_put(s, rep.kvs[i].key, rep.kvs[i].mod_rev);
        }
        etcd_reply_done(&rep);
        return rc;
}

static int op_rollout_load(struct store *base, long long id, struct rollout_rec **ret, struct errbuf *e)
{
        struct etcd_store *s = etcd_of(base);
        struct rollout_rec *r = NULL;
        struct etcd_reply rep;
        char key[ETCD_KEYLEN];
        int rc;

        if (id > 0) {
                rollout_key(s, id, key, sizeof(key));
                rc = etcd_call(s->c, "/v3/kv/range", etcd_range_req(key, NULL, 0, false), ETCD_REPLY_RANGE, &rep, e);
        } else {
                etcd_store_key(s, key, sizeof(key), "rollout/");
                rc = range_prefix(s, key, 1, true, &rep, e);
        }
        if (rc < 0)
                return rc;
        etcd_saw(s, rep.revision);
        if (rep.n_kvs == 0)
                rc = id > 0 ? errbuf_set(e, ENOENT, s->base.where, "no rollout %lld", id) :
                              errbuf_set(e, ENOENT, s->base.where, "no rollouts yet");
        else
                rc = store_json_parse_rollout(rep.kvs[0].value, rep.kvs[0].value_len, rep.kvs[0].key, &r, e);
        if (rc >= 0)
                etcd_cache_put(s, rep.kvs[0].key, rep.kvs[0].mod_rev);
        etcd_reply_done(&rep);
        if (rc >= 0)
                rc = load_children(s, r, "wave", e);
        if (rc >= 0)
                rc = load_children(s, r, r->chunk_nodes ? "chunk" : "node", e);
        if (rc < 0) {
                rollout_rec_free(r);
                return rc;
        }
        *ret = r;
        return 0;
}

static int op_rollout_list(struct store *base, unsigned limit, int (*cb)(const struct rollout_rec *r, void *ud),
                           void *ud, struct errbuf *e)
{
        struct etcd_store *s = etcd_of(base);
        struct etcd_reply rep = { 0 };
        char prefix[ETCD_KEYLEN];
        int rc;

        etcd_store_key(s, prefix, sizeof(prefix), "rollout/");
        rc = range_prefix(s, prefix, limit, true, &rep, e);
        for (unsigned i = 0; rc >= 0 && i < rep.n_kvs; i++) {
                struct rollout_rec *r = NULL;

                rc = store_json_parse_rollout(rep.kvs[i].value, rep.kvs[i].value_len, rep.kvs[i].key, &r, e);
                if (rc < 0)
                        break;
                free(r->nodes);
                free(r->waves);
                r->nodes = NULL;
                r->waves = NULL;
                r->n_nodes = r->n_waves = 0;
                rc = cb(r, ud);
                rollout_rec_free(r);
        }
        etcd_reply_done(&rep);
        return rc;
}

static int op_drift_save(struct store *base, struct drift_scan *scan, struct errbuf *e)
{
        struct etcd_store *s = etcd_of(base);
        char key[ETCD_KEYLEN];
        long long id;
        int rc = next_id(s, "next_drift", 0, &id, e);

        if (rc < 0)
                return rc;
        scan->id = id;
        etcd_store_key(s, key, sizeof(key), "drift/%020lld", id);
        return put_record(s, key, store_json_drift(scan, s->by), e);
}

static int op_drift_last(struct store *base, struct drift_scan *ret, struct errbuf *e)
{
        struct etcd_store *s = etcd_of(base);
        struct etcd_reply rep;
        char prefix[ETCD_KEYLEN];
        int rc;

        etcd_store_key(s, prefix, sizeof(prefix), "drift/");
        rc = range_prefix(s, prefix, 1, true, &rep, e);
        if (rc < 0)
                return rc;
        rc = rep.n_kvs ? store_json_parse_drift(rep.kvs[0].value, rep.kvs[0].value_len, rep.kvs[0].key, ret, e) :
                         errbuf_set(e, ENOENT, s->base.where, "no drift scans yet");
        etcd_reply_done(&rep);
        return rc;
}

static void op_close(struct store *base)
{
        struct etcd_store *s = etcd_of(base);

        etcd_lease_release(base, NULL);
        store_log_free(base);
        for (size_t i = 0; i < s->cache_cap; i++)
                free(s->cache[i].key);
        free(s->cache);
        etcd_client_free(s->c);
        free(s);
}

static const struct store_ops etcd_ops = {
        .name = "etcd",
        .close = op_close,
        .rollout_create = op_rollout_create,
        .write = op_write,
        .rollout_load = op_rollout_load,
        .rollout_list = op_rollout_list,
        .drift_save = op_drift_save,
        .drift_last = op_drift_last,
        .lease_take = etcd_lease_take,
        .lease_get = etcd_lease_get,
        .lease_release = etcd_lease_release,
        .lease_lost = etcd_lease_lost,
        .wait_change = etcd_wait_change,
};

/* "etcd://HOST:PORT[,HOST:PORT...]/PREFIX": endpoints and a prefix of [A-Za-z0-9._/-]. */
static int parse_spec(struct etcd_store *s, const char *spec, struct errbuf *e)
{
        const char *rest = spec + strlen("etcd://"), *slash = strchr(rest, '/');
        size_t plen;

        if (!slash || slash == rest)
                return errbuf_set(e, EINVAL, "--store", "'%s': expected etcd://HOST:PORT[,HOST:PORT...]/PREFIX", spec);
        snprintf(s->endpoints, sizeof(s->endpoints), "%.*s", (int)(slash - rest), rest);
        while (slash[1] == '/')
                slash++;
        plen = strlen(slash);
        while (plen > 1 && slash[plen - 1] == '/')
                plen--;
        if (plen <= 1 || plen >= sizeof(s->prefix) - 40)
                return errbuf_set(e, EINVAL, "--store", "'%s': the PREFIX must be 1-%zu characters", spec,
                                  sizeof(s->prefix) - 42);
        for (size_t i = 1; i < plen; i++)
                if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-/", slash[i]))
                        return errbuf_set(e, EINVAL, "--store", "'%s': the PREFIX may hold only letters, digits "
                                          "and . _ - /", spec);
        snprintf(s->prefix, sizeof(s->prefix), "%.*s", (int)plen, slash);
        return 0;
}

int etcd_store_open(const char *spec, const struct store_tls *tls, struct store **ret, struct errbuf *e)
{
        struct etcd_store *s = calloc(1, sizeof(*s));
        char host[256] = "localhost";
        int rc;

        if (!s)
                return errbuf_set(e, ENOMEM, spec, "out of memory");
        s->base.ops = &etcd_ops;
        snprintf(s->base.where, sizeof(s->base.where), "%s", spec);
        rc = parse_spec(s, spec, e);
        if (rc >= 0 && tls && tls->ca) {
                snprintf(s->ca, sizeof(s->ca), "%s", tls->ca);
                snprintf(s->cert, sizeof(s->cert), "%s", tls->cert ? tls->cert : "");
                snprintf(s->key, sizeof(s->key), "%s", tls->key ? tls->key : "");
                s->tls = (struct etcd_tls) { s->ca, s->cert[0] ? s->cert : NULL, s->key[0] ? s->key : NULL };
        }
        if (rc >= 0)
                rc = etcd_client_new(s->endpoints, &s->tls, 5000, &s->c, e);
        if (rc < 0) {
                free(s);
                return rc;
        }
        gethostname(host, sizeof(host) - 1);
        snprintf(s->by, sizeof(s->by), "%s:%d", host, (int)getpid());
        *ret = &s->base;
        return 0;
}
