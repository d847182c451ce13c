/* SPDX-License-Identifier: MIT */
/* The store interface: every call dispatched to the backend that opened the store. */
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

int store_rollout_update(struct store *s, struct rollout_rec *r, struct errbuf *e)
{
        return s->ops->rollout_update(s, r, e);
}

int store_wave_update(struct store *s, const struct rollout_rec *r, unsigned wave, struct errbuf *e)
{
        return s->ops->wave_update(s, r, wave, e);
}

int store_node_update(struct store *s, const struct rollout_rec *r, const struct rnode *n, struct errbuf *e)
{
        return s->ops->node_update(s, r, n, e);
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

int store_begin(struct store *s, struct errbuf *e)
{
        return s->ops->begin(s, e);
}

int store_commit(struct store *s, struct errbuf *e)
{
        return s->ops->commit(s, e);
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

