/* SPDX-License-Identifier: MIT */
/*
 * Leadership on etcd: one key, PREFIX/leader, attached to a lease of TTL
 * seconds that a thread keeps alive every TTL/3. Whoever creates the key
 * (compare create_revision == 0) leads; its create_revision fences every later
 * write (store_etcd.c). The leader acts only while its own clock says the lease
 * is valid: a keepalive sent at T that etcd answers with TTL makes the lease
 * valid until T + TTL less a margin, which is never later than etcd's own expiry
 * (etcd counts from when it received the keepalive). So a leader that cannot
 * reach etcd, or is stopped, stops acting before etcd lets the key go and a
 * follower can create it.
 */
#include <time.h>

#include "controller/store/store_etcd_internal.h"

#define LEASE_MARGIN_MS 500

struct etcd_keepalive {
        pthread_t thread;
        pthread_mutex_t lock;
        pthread_cond_t cond;
        bool stop;
        struct etcd_store *s;
        struct etcd_client *c;          /* its own connection */
};

static unsigned ttl_of(const struct etcd_store *s)
{
        return s->base.lease_ttl_s ? s->base.lease_ttl_s : 5;
}

static void extend(struct etcd_store *s, long long sent_ms, long long ttl_s)
{
        long long until = sent_ms + ttl_s * 1000 - LEASE_MARGIN_MS;

        if (until > atomic_load(&s->valid_until_ms))
                atomic_store(&s->valid_until_ms, until);
}

static void keepalive_once(struct etcd_keepalive *k)
{
        char body[64];
        struct etcd_reply r;
        struct errbuf e = { 0 };
        long long sent = etcd_now_ms();

        snprintf(body, sizeof(body), "%lld", k->s->lease_id);
        if (etcd_call(k->c, "/v3/lease/keepalive", json_pack("{s:s}", "ID", body), ETCD_REPLY_KEEPALIVE, &r, &e) < 0)
                return;                 /* the next round tries again; the deadline decides */
        if (r.ttl > 0)
                extend(k->s, sent, r.ttl);
        else
                atomic_store(&k->s->valid_until_ms, 0);         /* etcd says the lease is gone */
        etcd_reply_done(&r);
}

static void *keepalive_main(void *userdata)
{
        struct etcd_keepalive *k = userdata;
        unsigned period_ms = ttl_of(k->s) * 1000 / 3;

        pthread_mutex_lock(&k->lock);
        while (!k->stop) {
                struct timespec until;

                clock_gettime(CLOCK_REALTIME, &until);
                until.tv_sec += period_ms / 1000;
                until.tv_nsec += (long)(period_ms % 1000) * 1000000;
                if (until.tv_nsec >= 1000000000) {
                        until.tv_sec++;
                        until.tv_nsec -= 1000000000;
                }
                pthread_cond_timedwait(&k->cond, &k->lock, &until);
                if (k->stop)
                        break;
                pthread_mutex_unlock(&k->lock);
                keepalive_once(k);
                pthread_mutex_lock(&k->lock);
        }
        pthread_mutex_unlock(&k->lock);
        return NULL;
}

static void keepalive_stop(struct etcd_store *s)
{
        struct etcd_keepalive *k = s->ka;

        if (!k)
                return;
        pthread_mutex_lock(&k->lock);
        k->stop = true;
        pthread_cond_signal(&k->cond);
        pthread_mutex_unlock(&k->lock);
        pthread_join(k->thread, NULL);
        etcd_client_free(k->c);
        pthread_cond_destroy(&k->cond);
        pthread_mutex_destroy(&k->lock);
        free(k);
        s->ka = NULL;
}

static int keepalive_start(struct etcd_store *s, struct errbuf *e)
{
        struct etcd_keepalive *k = calloc(1, sizeof(*k));
        int rc;

        if (!k)
                return errbuf_set(e, ENOMEM, s->base.where, "out of memory");
        k->s = s;
        rc = etcd_client_clone(s->c, ttl_of(s) * 1000 / 3, &k->c, e);
        if (rc < 0) {
                free(k);
                return rc;
        }
        pthread_mutex_init(&k->lock, NULL);
        pthread_cond_init(&k->cond, NULL);
        if (pthread_create(&k->thread, NULL, keepalive_main, k) != 0) {
                etcd_client_free(k->c);
                pthread_cond_destroy(&k->cond);
                pthread_mutex_destroy(&k->lock);
                free(k);
                return errbuf_set(e, EAGAIN, s->base.where, "cannot start the lease keepalive");
        }
        s->ka = k;
        return 0;
}

json_t *etcd_fence_cmp(struct etcd_store *s)
{
        char leader[ETCD_KEYLEN];

        if (!s->fence_rev)
                return NULL;
        etcd_store_key(s, leader, sizeof(leader), "leader");
        return etcd_cmp(leader, "CREATE", s->fence_rev);
}

bool etcd_lease_lost(struct store *base)
{
        struct etcd_store *s = etcd_of(base);

        return s->fence_rev && etcd_now_ms() >= atomic_load(&s->valid_until_ms);
}

static void lease_revoke(struct etcd_store *s, long long id)
{
        char body[32];
        struct etcd_reply r;

        snprintf(body, sizeof(body), "%lld", id);
        if (etcd_call(s->c, "/v3/lease/revoke", json_pack("{s:s}", "ID", body), ETCD_REPLY_LEASE, &r, NULL) >= 0)
                etcd_reply_done(&r);
}

static int grant(struct etcd_store *s, long long *ret_id, long long *ret_sent, long long *ret_ttl, struct errbuf *e)
{
        char ttl[16];
        struct etcd_reply r;
        long long sent = etcd_now_ms();
        int rc;

        snprintf(ttl, sizeof(ttl), "%u", ttl_of(s));
        rc = etcd_call(s->c, "/v3/lease/grant", json_pack("{s:s}", "TTL", ttl), ETCD_REPLY_LEASE, &r, e);
        if (rc < 0)
                return rc;
        if (r.id <= 0 || r.ttl <= 0)
                rc = errbuf_set(e, EBADMSG, s->base.where, "etcd granted no lease");
        *ret_id = r.id;
        *ret_ttl = r.ttl;
        *ret_sent = sent;
        etcd_reply_done(&r);
        return rc;
}

int etcd_lease_get(struct store *base, struct store_lease *ret, struct errbuf *e)
{
        struct etcd_store *s = etcd_of(base);
        char key[ETCD_KEYLEN];
        struct etcd_reply r;
        int rc;

        etcd_store_key(s, key, sizeof(key), "leader");
        rc = etcd_call(s->c, "/v3/kv/range", etcd_range_req(key, NULL, 0, false), ETCD_REPLY_RANGE, &r, e);
        if (rc < 0)
                return rc;
        etcd_saw(s, r.revision);
        rc = r.n_kvs ? store_json_parse_lease(r.kvs[0].value, r.kvs[0].value_len, key, ret, e) : -ENOENT;
        etcd_reply_done(&r);
        return rc;
}

int etcd_lease_take(struct store *base, const struct store_lease *me, struct store_lease *ret_holder,
                    struct errbuf *e)
{
        struct etcd_store *s = etcd_of(base);
        _cleanup_free_ char *value = store_json_lease(me);
        long long id, sent, ttl;
        char key[ETCD_KEYLEN];
        struct etcd_reply r;
        int rc;

        if (s->fence_rev && !etcd_lease_lost(base))
                return 0;                       /* ours already */
        etcd_lease_release(base, NULL);
        if (!value)
                return errbuf_set(e, ENOMEM, s->base.where, "out of memory");
        rc = grant(s, &id, &sent, &ttl, e);
        if (rc < 0)
                return rc;
        etcd_store_key(s, key, sizeof(key), "leader");
        rc = etcd_call(s->c, "/v3/kv/txn",
                       json_pack("{s:[o], s:[o], s:[o]}", "compare", etcd_cmp(key, "CREATE", 0),
                                 "success", etcd_put_op(key, value, id), "failure", etcd_range_op(key)),
                       ETCD_REPLY_TXN, &r, e);
        if (rc < 0) {
                lease_revoke(s, id);
                return rc;
        }
        etcd_saw(s, r.revision);
        if (!r.succeeded) {
                rc = r.n_kvs ? store_json_parse_lease(r.kvs[0].value, r.kvs[0].value_len, key, ret_holder, e) : 0;
                etcd_reply_done(&r);
                lease_revoke(s, id);
                return rc < 0 ? rc : -EBUSY;
        }
        s->base.writes++;
        s->lease_id = id;
        s->fence_rev = r.revision;
        s->lease = *me;
        etcd_reply_done(&r);
        atomic_store(&s->valid_until_ms, 0);
        extend(s, sent, ttl);
        return keepalive_start(s, e);
}

int etcd_lease_release(struct store *base, struct errbuf *e)
{
        struct etcd_store *s = etcd_of(base);
        char key[ETCD_KEYLEN];
        struct etcd_reply r;

        if (!s->fence_rev)
                return 0;
        keepalive_stop(s);
        etcd_store_key(s, key, sizeof(key), "leader");
        /* Delete the key only if it is still ours, then let the lease go. */
        if (etcd_call(s->c, "/v3/kv/txn", json_pack("{s:[o], s:[o]}", "compare", etcd_cmp(key, "CREATE", s->fence_rev),
                                                    "success", etcd_delete_op(key)), ETCD_REPLY_TXN, &r, e) >= 0)
                etcd_reply_done(&r);
        lease_revoke(s, s->lease_id);
        s->fence_rev = 0;
        s->lease_id = 0;
        atomic_store(&s->valid_until_ms, 0);
        return 0;
}

int etcd_wait_change(struct store *base, unsigned timeout_ms, struct errbuf *e)
{
        struct etcd_store *s = etcd_of(base);
        char prefix[ETCD_KEYLEN], end[ETCD_KEYLEN];
        bool changed = false;
        long long rev = 0;
        int rc;

        etcd_store_key(s, prefix, sizeof(prefix), "%s", "");
        etcd_prefix_end(prefix, end, sizeof(end));
        rc = etcd_watch(s->c, prefix, end, s->last_rev + 1, timeout_ms, &changed, &rev, e);
        if (rc == -ESTALE)
                return 0;               /* compacted: the caller reads everything again anyway */
        if (rc >= 0 && changed)
                etcd_saw(s, rev);
        return rc;
}
