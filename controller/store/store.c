/* SPDX-License-Identifier: MIT */
/* The store interface: every call dispatched to the backend that opened the store. */
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

/* ---- the write-ahead log: records noted (no I/O), made durable at a barrier ---- */

static void noted_free(struct store_noted *x)
{
        free(x->waves);
        free(x->nodes);
        free(x->wave_in);
        free(x->node_in);
        *x = (struct store_noted) { 0 };
}

void store_log_free(struct store *s)
{
        struct store_log *l = &s->log;

        for (unsigned i = 0; i < l->n; i++)
                noted_free(&l->of[i]);
        free(l->of);
        *l = (struct store_log) { 0 };
}

static unsigned noted_count(const struct store_noted *x)
{
        return x->rollout + x->n_waves + x->n_nodes;
}

unsigned store_unflushed(const struct store *s)
{
        unsigned n = s->log.published;

        for (unsigned i = 0; i < s->log.n; i++)
                n += noted_count(&s->log.of[i]);
        return n;
}

static void noted_clear(struct store_noted *x)
{
        for (unsigned i = 0; i < x->n_waves; i++)
                x->wave_in[x->waves[i]] = 0;
        for (unsigned i = 0; i < x->n_nodes; i++)
                x->node_in[x->nodes[i]] = 0;
        x->rollout = false;
        x->n_waves = x->n_nodes = 0;
}

static int cmp_unsigned(const void *a, const void *b)
{
        unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

        return x < y ? -1 : x > y;
}

/* What was noted of one rollout as the backend takes it: indices ascending. */
static struct store_dirty noted_dirty(struct store_noted *x)
{
        qsort(x->waves, x->n_waves, sizeof(*x->waves), cmp_unsigned);
        qsort(x->nodes, x->n_nodes, sizeof(*x->nodes), cmp_unsigned);
        return (struct store_dirty) { .rollout = x->rollout, .waves = x->waves, .n_waves = x->n_waves,
                                      .nodes = x->nodes, .n_nodes = x->n_nodes };
}

/* A record that cannot be noted: the next barrier says so (the first such error). */
static void log_fail(struct store *s, int err, long long id, const char *what)
{
        if (s->log.err)
                return;
        s->log.err = -err;
        snprintf(s->log.why, sizeof(s->log.why), "rollout %lld: %s", id, what);
}

/*
 * The entry of rollout r, taken on its first record. An entry of the same address
 * with other counts is another rollout_rec (the one before was freed after its
 * barrier): taken afresh.
 */
static struct store_noted *log_of(struct store *s, const struct rollout_rec *r)
{
        struct store_log *l = &s->log;
        struct store_noted *x = NULL;

        for (unsigned i = 0; i < l->n; i++)
                if (l->of[i].r == r) {
                        x = &l->of[i];
                        if (x->n_nodes_of == r->n_nodes && x->n_waves_of == r->n_waves)
                                return x;
                        noted_free(x);
                        break;
                }
        if (!x) {
                if (l->n == l->cap) {
                        unsigned cap = l->cap ? l->cap * 2 : 2;
                        struct store_noted *more = realloc(l->of, cap * sizeof(*more));

                        if (!more)
                                goto nomem;
                        l->of = more;
                        l->cap = cap;
                }
                x = &l->of[l->n++];
                *x = (struct store_noted) { 0 };
        }
        x->waves = calloc(r->n_waves + 1, sizeof(*x->waves));
        x->nodes = calloc(r->n_nodes + 1, sizeof(*x->nodes));
        x->wave_in = calloc(r->n_waves + 1, 1);
        x->node_in = calloc(r->n_nodes + 1, 1);
        if (!x->waves || !x->nodes || !x->wave_in || !x->node_in) {
                noted_free(x);
                l->n--;
                goto nomem;
        }
        x->r = r;
        x->n_nodes_of = r->n_nodes;
        x->n_waves_of = r->n_waves;
        return x;
nomem:
        log_fail(s, ENOMEM, r->id, "out of memory noting a record");
        return NULL;
}

void store_record_rollout(struct store *s, struct rollout_rec *r)
{
        struct store_noted *x = log_of(s, r);

        r->updated_at = (long long)time(NULL);
        if (x)
                x->rollout = true;
}

void store_record_wave(struct store *s, const struct rollout_rec *r, unsigned wave)
{
        struct store_noted *x;

        if (wave >= r->n_waves) {
                log_fail(s, EINVAL, r->id, "a record of a wave it does not have");
                return;
        }
        x = log_of(s, r);
        if (x && !x->wave_in[wave]) {
                x->wave_in[wave] = 1;
                x->waves[x->n_waves++] = wave;
        }
}

void store_record_node(struct store *s, const struct rollout_rec *r, const struct rnode *n)
{
        struct store_noted *x;
        unsigned i;

        if (n < r->nodes || n >= r->nodes + r->n_nodes) {
                log_fail(s, EINVAL, r->id, "a record of a node that is not one of its own");
                return;
        }
        i = (unsigned)(n - r->nodes);
        x = log_of(s, r);
        if (x && !x->node_in[i]) {
                x->node_in[i] = 1;
                x->nodes[x->n_nodes++] = i;
        }
}

void store_publish(struct store *s)
{
        struct store_log *l = &s->log;

        if (!s->ops->write_visible)
                return;
        for (unsigned i = 0; i < l->n; i++) {
                struct store_noted *x = &l->of[i];
                unsigned k = noted_count(x);
                struct store_dirty d;
                struct errbuf e = { 0 };

                if (k == 0)
                        continue;
                d = noted_dirty(x);
                if (s->ops->write_visible(s, x->r, &d, &e) < 0)
                        continue;               /* kept: the barrier writes them */
                noted_clear(x);
                l->published += k;
        }
}

int store_barrier(struct store *s, struct errbuf *e)
{
        struct store_log *l = &s->log;
        bool wrote = false;
        int rc = 0;

        if (l->err) {
                rc = errbuf_set(e, -l->err, s->where, "%s", l->why);
                goto out;
        }
        for (unsigned i = 0; rc >= 0 && i < l->n; i++) {
                struct store_noted *x = &l->of[i];
                struct store_dirty d;

                if (noted_count(x) == 0)
                        continue;
                d = noted_dirty(x);
                rc = s->ops->write(s, x->r, &d, e);
                wrote = rc >= 0;
        }
        /* A durable write makes the visible ones before it durable too (common/db.h); else a sync does. */
        if (rc >= 0 && l->published && !wrote && s->ops->sync)
                rc = s->ops->sync(s, e);
out:
        /* Written or dropped: the caller stops on a failure, and a rollout_rec noted may be freed next. */
        for (unsigned i = 0; i < l->n; i++)
                noted_free(&l->of[i]);
        l->n = 0;
        l->published = 0;
        l->err = 0;
        return rc;
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

