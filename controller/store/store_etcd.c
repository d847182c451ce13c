/* SPDX-License-Identifier: MIT */
/* The etcd backend of the store: versioned records, compare-and-swap writes, reads. */
#include <stdarg.h>
#include <time.h>

#include "controller/store/store_internal.h"

#define TXN_RECORDS_MAX 100             /* etcd refuses more than 128 operations per txn by default */
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

static int flush(struct etcd_store *s, struct etcd_pending *p, unsigned n, struct errbuf *e)
{
        int rc = 0;

        for (unsigned i = 0; rc >= 0 && i < n; i += TXN_RECORDS_MAX)
                rc = write_chunk(s, p + i, n - i < TXN_RECORDS_MAX ? n - i : TXN_RECORDS_MAX, e);
        return rc;
}

static void pending_clear(struct etcd_store *s)
{
        for (unsigned i = 0; i < s->n_pending; i++)
                free(s->pending[i].value);
        s->n_pending = 0;
}

/* Write one record now, or queue it until commit (a later value of the same key replaces it). */
static int put_record(struct etcd_store *s, const char *key, char *value, struct errbuf *e)
{
        struct etcd_pending one;
        int rc;

        if (!value)
                return errbuf_set(e, ENOMEM, s->base.where, "out of memory");
        if (!s->batching) {
                snprintf(one.key, sizeof(one.key), "%s", key);
                one.value = value;
                rc = flush(s, &one, 1, e);
                free(value);
                return rc;
        }
        for (unsigned i = 0; i < s->n_pending; i++)
                if (streq(s->pending[i].key, key)) {
                        free(s->pending[i].value);
                        s->pending[i].value = value;
                        return 0;
                }
        if (s->n_pending == s->cap_pending) {
                unsigned cap = s->cap_pending ? s->cap_pending * 2 : 64;
                struct etcd_pending *more = realloc(s->pending, cap * sizeof(*more));

                if (!more) {
                        free(value);
                        return errbuf_set(e, ENOMEM, s->base.where, "out of memory");
                }
                s->pending = more;
                s->cap_pending = cap;
        }
        snprintf(s->pending[s->n_pending].key, ETCD_KEYLEN, "%s", key);
        s->pending[s->n_pending++].value = value;
        return 0;
}

static int op_begin(struct store *base, struct errbuf *e)
{
        struct etcd_store *s = etcd_of(base);

        pending_clear(s);
        s->batching = true;
        return 0;
}

static int op_commit(struct store *base, struct errbuf *e)
{
        struct etcd_store *s = etcd_of(base);
        int rc = flush(s, s->pending, s->n_pending, e);

        pending_clear(s);
        s->batching = false;
        return rc;
}

static void rollout_key(const struct etcd_store *s, long long id, char *buf, size_t size)
{
        etcd_store_key(s, buf, size, "rollout/%020lld", id);
}

static int op_rollout_update(struct store *base, struct rollout_rec *r, struct errbuf *e)
{
        struct etcd_store *s = etcd_of(base);
        char key[ETCD_KEYLEN];

        r->updated_at = (long long)time(NULL);
        rollout_key(s, r->id, key, sizeof(key));
        return put_record(s, key, store_record_rollout(r, s->by), e);
}

static int op_wave_update(struct store *base, const struct rollout_rec *r, unsigned wave, struct errbuf *e)
{
        struct etcd_store *s = etcd_of(base);
        char key[ETCD_KEYLEN];

        etcd_store_key(s, key, sizeof(key), "wave/%020lld/%06u", r->id, wave);
        return put_record(s, key, store_record_wave(r, wave, s->by), e);
}

static int op_node_update(struct store *base, const struct rollout_rec *r, const struct rnode *n, struct errbuf *e)
{
        struct etcd_store *s = etcd_of(base);
        char key[ETCD_KEYLEN];

        etcd_store_key(s, key, sizeof(key), "node/%020lld/%06u", r->id, (unsigned)(n - r->nodes));
        return put_record(s, key, store_record_node(r, n, s->by), e);
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
 * Waves and nodes first, the rollout record last: a reader sees a rollout only
 * once it is complete. An id given (r->id > 0: store migrate) is kept.
 */
static int op_rollout_create(struct store *base, struct rollout_rec *r, struct errbuf *e)
{
        struct etcd_store *s = etcd_of(base);
        long long id = 0;
        char key[ETCD_KEYLEN];
        int rc = next_id(s, "next_rollout", r->id, &id, e);

        if (rc < 0)
                return rc;
        r->id = id;
        s->lease.rollout_id = id;
        rc = op_begin(base, e);
        for (unsigned i = 0; rc >= 0 && i < r->n_waves; i++)
                rc = op_wave_update(base, r, i, e);
        for (unsigned i = 0; rc >= 0 && i < r->n_nodes; i++)
                rc = op_node_update(base, r, &r->nodes[i], e);
        rc = rc < 0 ? rc : op_commit(base, e);
        pending_clear(s);
        s->batching = false;
        if (rc < 0)
                return rc;
        rollout_key(s, r->id, key, sizeof(key));
        return put_record(s, key, store_record_rollout(r, s->by), e);
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

static int load_children(struct etcd_store *s, struct rollout_rec *r, const char *kind, struct errbuf *e)
{
        char prefix[ETCD_KEYLEN];
        struct etcd_reply rep;
        unsigned want = streq(kind, "wave") ? r->n_waves : r->n_nodes;
        int rc;

        etcd_store_key(s, prefix, sizeof(prefix), "%s/%020lld/", kind, r->id);
        rc = range_prefix(s, prefix, 0, false, &rep, e);
        if (rc < 0)
                return rc;
        if (rep.n_kvs != want)
                rc = errbuf_set(e, EIO, s->base.where, "rollout %lld: %u %s records, expected %u", r->id,
                                rep.n_kvs, kind, want);
        for (unsigned i = 0; rc >= 0 && i < rep.n_kvs; i++) {
                struct etcd_kv *kv = &rep.kvs[i];

                rc = streq(kind, "wave") ? store_record_parse_wave(kv->value, kv->value_len, kv->key, r, e) :
                                           store_record_parse_node(kv->value, kv->value_len, kv->key, r, e);
                etcd_cache_put(s, kv->key, kv->mod_rev);
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
                rc = store_record_parse_rollout(rep.kvs[0].value, rep.kvs[0].value_len, rep.kvs[0].key, &r, e);
        if (rc >= 0)
                etcd_cache_put(s, rep.kvs[0].key, rep.kvs[0].mod_rev);
        etcd_reply_done(&rep);
        if (rc >= 0)
                rc = load_children(s, r, "wave", e);
        if (rc >= 0)
                rc = load_children(s, r, "node", e);
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

                rc = store_record_parse_rollout(rep.kvs[i].value, rep.kvs[i].value_len, rep.kvs[i].key, &r, e);
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
        return put_record(s, key, store_record_drift(scan, s->by), e);
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
        rc = rep.n_kvs ? store_record_parse_drift(rep.kvs[0].value, rep.kvs[0].value_len, rep.kvs[0].key, ret, e) :
                         errbuf_set(e, ENOENT, s->base.where, "no drift scans yet");
        etcd_reply_done(&rep);
        return rc;
}

static void op_close(struct store *base)
{
        struct etcd_store *s = etcd_of(base);

        etcd_lease_release(base, NULL);
        pending_clear(s);
        free(s->pending);
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
        .rollout_update = op_rollout_update,
        .wave_update = op_wave_update,
        .node_update = op_node_update,
        .rollout_load = op_rollout_load,
        .rollout_list = op_rollout_list,
        .drift_save = op_drift_save,
        .drift_last = op_drift_last,
        .begin = op_begin,
        .commit = op_commit,
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
