/* SPDX-License-Identifier: MIT */
/* The etcd backend's keys, the store revision it saw and the mod_revision of every record it read or wrote. */
#include <stdarg.h>
#include <time.h>

#include "controller/store/store_etcd_internal.h"

long long etcd_now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void etcd_store_key(const struct etcd_store *s, char *buf, size_t size, const char *fmt, ...)
{
        int n = snprintf(buf, size, "%s/", s->prefix);
        va_list ap;

        va_start(ap, fmt);
        if (n > 0 && (size_t)n < size)
                vsnprintf(buf + n, size - (size_t)n, fmt, ap);
        va_end(ap);
}

void etcd_saw(struct etcd_store *s, long long rev)
{
        if (rev > s->last_rev)
                s->last_rev = rev;
}

/* ---- key -> mod_revision of every record this handle read or wrote ---- */

static size_t hash(const char *k)
{
        size_t h = 1469598103934665603ull;

        while (*k)
                h = (h ^ (unsigned char)*k++) * 1099511628211ull;
        return h;
}

static struct revcache_entry *cache_slot(struct revcache_entry *t, size_t cap, const char *key)
{
        for (size_t i = hash(key) & (cap - 1);; i = (i + 1) & (cap - 1))
                if (!t[i].key || streq(t[i].key, key))
                        return &t[i];
}

static int cache_grow(struct etcd_store *s)
{
        size_t cap = s->cache_cap ? s->cache_cap * 2 : 1024;
        struct revcache_entry *t = calloc(cap, sizeof(*t));

        if (!t)
                return -ENOMEM;
        for (size_t i = 0; i < s->cache_cap; i++)
                if (s->cache[i].key)
                        *cache_slot(t, cap, s->cache[i].key) = s->cache[i];
        free(s->cache);
        s->cache = t;
        s->cache_cap = cap;
        return 0;
}

void etcd_cache_put(struct etcd_store *s, const char *key, long long rev)
{
        struct revcache_entry *x;

        if ((s->cache_n + 1) * 2 > s->cache_cap && cache_grow(s) < 0)
                return;                 /* uncached: the next write of it fails its compare (safe) */
        x = cache_slot(s->cache, s->cache_cap, key);
        if (!x->key) {
                x->key = strdup(key);
                if (!x->key)
                        return;
                s->cache_n++;
        }
        x->rev = rev;
}

long long etcd_cache_get(const struct etcd_store *s, const char *key)
{
        return s->cache_cap ? cache_slot(s->cache, s->cache_cap, key)->rev : 0;
}
