/* SPDX-License-Identifier: MIT */
/* The store interface: every call dispatched to the backend that opened the store. */
#include <limits.h>
#include <time.h>

#include "controller/store/store_internal.h"

void store_close(struct store *s)
{
        if (s)
                s->ops->close(s);
}

const char *store_kind(const struct store *s)
{
        return s->ops->name;
}

const char *store_where(const struct store *s)
{
        return s->where;
}

void store_set_lease_ttl(struct store *s, unsigned ttl_s)
{
        s->lease_ttl_s = ttl_s;
}

unsigned long long store_writes(const struct store *s)
{
        return s->writes;
}

int store_rollout_create(struct store *s, struct rollout_rec *r, struct errbuf *e)
{
        return s->ops->rollout_create(s, r, e);
}

/* ---- batches: the records of one rollout collected, each once, written together ---- */

void store_batch_free(struct store *s)
{
        struct store_batch *b = &s->batch;

        free(b->waves);
        free(b->nodes);
        free(b->wave_in);
        free(b->node_in);
        *b = (struct store_batch) { .depth = b->depth };
}

unsigned store_batch_pending(const struct store *s)
{
        return s->batch.r ? s->batch.rollout + s->batch.n_waves + s->batch.n_nodes : 0;
}

static int cmp_unsigned(const void *a, const void *b)
{
        unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

        return x < y ? -1 : x > y;
}

/* Write what the batch collected; on success it is empty again (and still bound to its rollout). */
static int batch_write(struct store *s, struct errbuf *e)
{
        struct store_batch *b = &s->batch;
        struct store_dirty d;
        int r;

        if (!b->r || (!b->rollout && !b->n_waves && !b->n_nodes))
                return 0;
        qsort(b->waves, b->n_waves, sizeof(*b->waves), cmp_unsigned);
        qsort(b->nodes, b->n_nodes, sizeof(*b->nodes), cmp_unsigned);
        d = (struct store_dirty) { .rollout = b->rollout, .waves = b->waves, .n_waves = b->n_waves,
                                   .nodes = b->nodes, .n_nodes = b->n_nodes };
        r = s->ops->write(s, b->r, &d, e);
        if (r < 0)
                return r;
        for (unsigned i = 0; i < b->n_waves; i++)
                b->wave_in[b->waves[i]] = 0;
        for (unsigned i = 0; i < b->n_nodes; i++)
                b->node_in[b->nodes[i]] = 0;
        b->rollout = false;
        b->n_waves = b->n_nodes = 0;
        return 0;
}

/* The batch takes rollout r: what it holds of another is written first. */
static int batch_bind(struct store *s, const struct rollout_rec *r, struct errbuf *e)
{
        struct store_batch *b = &s->batch;
        int rc;

        if (b->r == r && b->n_nodes_of == r->n_nodes && b->n_waves_of == r->n_waves)
                return 0;
        rc = batch_write(s, e);
        if (rc < 0)
                return rc;
        store_batch_free(s);
        b->waves = calloc(r->n_waves + 1, sizeof(*b->waves));
        b->nodes = calloc(r->n_nodes + 1, sizeof(*b->nodes));
        b->wave_in = calloc(r->n_waves + 1, 1);
        b->node_in = calloc(r->n_nodes + 1, 1);
        if (!b->waves || !b->nodes || !b->wave_in || !b->node_in) {
                store_batch_free(s);
                return errbuf_set(e, ENOMEM, s->where, "out of memory");
        }
        b->r = r;
        b->n_nodes_of = r->n_nodes;
        b->n_waves_of = r->n_waves;
        return 0;
}

/* Collect one record (a batch is open), or write it at once. */
static int update(struct store *s, const struct rollout_rec *r, bool rollout, unsigned wave, unsigned node,
                  struct errbuf *e)
{
        struct store_batch *b = &s->batch;
        int rc;

        if (!b->depth) {
                struct store_dirty d = { .rollout = rollout, .waves = &wave, .n_waves = wave != UINT_MAX,
                                         .nodes = &node, .n_nodes = node != UINT_MAX };

                return s->ops->write(s, r, &d, e);
        }
        rc = batch_bind(s, r, e);
        if (rc < 0)
                return rc;
        b->rollout |= rollout;
        if (wave != UINT_MAX && !b->wave_in[wave]) {
                b->wave_in[wave] = 1;
                b->waves[b->n_waves++] = wave;
        }
        if (node != UINT_MAX && !b->node_in[node]) {
                b->node_in[node] = 1;
                b->nodes[b->n_nodes++] = node;
        }
        return 0;
}

int store_rollout_update(struct store *s, struct rollout_rec *r, struct errbuf *e)
{
        r->updated_at = (long long)time(NULL);
        return update(s, r, true, UINT_MAX, UINT_MAX, e);
}

int store_wave_update(struct store *s, const struct rollout_rec *r, unsigned wave, struct errbuf *e)
{
        if (wave >= r->n_waves)
                return errbuf_set(e, EINVAL, s->where, "rollout %lld has no wave %u", r->id, wave + 1);
        return update(s, r, false, wave, UINT_MAX, e);
}

int store_node_update(struct store *s, const struct rollout_rec *r, const struct rnode *n, struct errbuf *e)
{
        if (n < r->nodes || n >= r->nodes + r->n_nodes)
                return errbuf_set(e, EINVAL, s->where, "not a node of rollout %lld", r->id);
        return update(s, r, false, UINT_MAX, (unsigned)(n - r->nodes), e);
}

int store_begin(struct store *s, struct errbuf *e)
{
        s->batch.depth++;
        return 0;
}

int store_commit(struct store *s, struct errbuf *e)
{
        int r = batch_write(s, e);

        if (s->batch.depth > 0 && --s->batch.depth == 0)
                store_batch_free(s);
        return r;
}

int store_answers_begin(struct store *s, struct errbuf *e)
{
        if (!s->ops->lazy_begin)
                return store_begin(s, e);
        return s->answers++ == 0 ? s->ops->lazy_begin(s, e) : 0;
}

int store_answers_end(struct store *s, struct errbuf *e)
{
        if (!s->ops->lazy_begin)
                return store_commit(s, e);
        if (s->answers == 0 || --s->answers > 0)
                return 0;
        return s->ops->lazy_end(s, e);
}

int store_rollout_load(struct store *s, long long id, struct rollout_rec **ret, struct errbuf *e)
{
        return s->ops->rollout_load(s, id, ret, e);
}

int store_rollout_list(struct store *s, unsigned limit,
                       int (*cb)(const struct rollout_rec *r, void *userdata), void *userdata,
                       struct errbuf *e)
{
        return s->ops->rollout_list(s, limit, cb, userdata, e);
}

int store_drift_save(struct store *s, struct drift_scan *scan, struct errbuf *e)
{
        return s->ops->drift_save(s, scan, e);
}

int store_drift_last(struct store *s, struct drift_scan *ret, struct errbuf *e)
{
        return s->ops->drift_last(s, ret, e);
}

int store_hold_get(struct store *s, long long id, struct store_hold *ret, struct errbuf *e)
{
        struct store_hold h = { 0 };
        char *doc = NULL;
        json_t *j;
        json_int_t promoted = 0, at = 0;
        int paused = 0, rc;
        const char *by = "";

        if (!s->ops->hold_get)
                return errbuf_set(e, EOPNOTSUPP, s->where, "a %s store keeps no pause or promotion", s->ops->name);
        rc = s->ops->hold_get(s, id, &doc, e);
        if (rc < 0 || !doc) {
                if (rc >= 0)
                        *ret = h;
                return rc;
        }
        j = json_loads(doc, JSON_REJECT_DUPLICATES, NULL);
        free(doc);
        if (!j || json_unpack(j, "{s:b, s:I, s:s, s:I}", "paused", &paused, "promoted", &promoted, "by", &by,
                              "at", &at) < 0 || promoted < 0 || promoted > 1000000 || strlen(by) >= sizeof(h.by)) {
                json_decref(j);
                return errbuf_set(e, EINVAL, s->where, "rollout %lld: its hold record is not valid", id);
        }
        h.paused = paused;
        h.promoted = (unsigned)promoted;
        snprintf(h.by, sizeof(h.by), "%s", by);
        h.at = at;
        json_decref(j);
        *ret = h;
        return 0;
}

int store_hold_set(struct store *s, long long id, const struct store_hold *h, struct errbuf *e)
{
        json_t *j;
        char *doc;
        int rc;

        if (!s->ops->hold_set)
                return errbuf_set(e, EOPNOTSUPP, s->where, "a %s store keeps no pause or promotion", s->ops->name);
        j = json_pack("{s:b, s:I, s:s, s:I}", "paused", h->paused, "promoted", (json_int_t)h->promoted, "by", h->by,
                      "at", (json_int_t)h->at);
        doc = j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        json_decref(j);
        if (!doc)
                return errbuf_set(e, ENOMEM, s->where, "out of memory");
        rc = s->ops->hold_set(s, id, doc, e);
        free(doc);
        return rc;
}

int store_lease_take(struct store *s, const struct store_lease *me, struct store_lease *ret_holder,
                     struct errbuf *e)
{
        return s->ops->lease_take(s, me, ret_holder, e);
}

int store_lease_get(struct store *s, struct store_lease *ret, struct errbuf *e)
{
        return s->ops->lease_get(s, ret, e);
}

int store_lease_release(struct store *s, struct errbuf *e)
{
        return s ? s->ops->lease_release(s, e) : 0;
}

bool store_lease_lost(struct store *s)
{
        return s->ops->lease_lost(s);
}

int store_wait_change(struct store *s, unsigned timeout_ms, struct errbuf *e)
{
        return s->ops->wait_change(s, timeout_ms, e);
}

