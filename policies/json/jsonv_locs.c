/* SPDX-License-Identifier: MIT */
/*
 * Where each node of a document stood in its text, by JSON path (jsonv.h: jsonv_locs).
 * A hash index over the paths (open addressing, FNV-1a, at most half full): a find or an
 * add costs the same whether the document holds ten nodes or a hundred thousand, so a
 * YAML document is read in time linear in its size.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policies/json/jsonv.h"

struct jsonv_loc {
        char *path;
        uint32_t hash;
        unsigned line, col;
};

struct jsonv_locs {
        struct jsonv_loc *v;            /* in the order they were added */
        size_t n, cap;
        size_t *slot;                   /* index into v plus one; 0: empty */
        size_t nslot;                   /* a power of two, at least twice n */
        size_t probes;                  /* slots looked at, for jsonv_locs_probes() */
};

#define LOCS_SLOTS_MIN 128

static uint32_t path_hash(const char *s)
{
        uint32_t h = 2166136261u;

        for (; *s; s++)
                h = (h ^ (unsigned char)*s) * 16777619u;
        return h;
}

void jsonv_locs_free(struct jsonv_locs *l)
{
        if (!l)
                return;
        for (size_t i = 0; i < l->n; i++)
                free(l->v[i].path);
        free(l->v);
        free(l->slot);
        free(l);
}

/* The slot of path, or the empty slot where it would go. */
static size_t lookup(struct jsonv_locs *l, const char *path, uint32_t h)
{
        size_t mask = l->nslot - 1, i = h & mask;

        for (;; i = (i + 1) & mask) {
                size_t k = l->slot[i];

                l->probes++;
                if (!k || (l->v[k - 1].hash == h && streq(l->v[k - 1].path, path)))
                        return i;
        }
}

bool jsonv_locs_find(const struct jsonv_locs *cl, const char *path, unsigned *ret_line, unsigned *ret_col)
{
        struct jsonv_locs *l = (struct jsonv_locs *)cl;  /* only the probe count changes */
        size_t k;

        if (!l || !l->nslot)
                return false;
        k = l->slot[lookup(l, path, path_hash(path))];
        if (!k)
                return false;
        *ret_line = l->v[k - 1].line;
        *ret_col = l->v[k - 1].col;
        return true;
}

size_t jsonv_locs_probes(const struct jsonv_locs *l)
{
        return l ? l->probes : 0;
}

struct jsonv_locs *jsonv_locs_new(void)
{
        return calloc(1, sizeof(struct jsonv_locs));
}

static int grow_index(struct jsonv_locs *l)
{
        size_t nslot = l->nslot ? l->nslot * 2 : LOCS_SLOTS_MIN;
        size_t *slot = calloc(nslot, sizeof(*slot));

        if (!slot)
                return -ENOMEM;
        free(l->slot);
        l->slot = slot;
        l->nslot = nslot;
        for (size_t i = 0; i < l->n; i++) {
                size_t j = l->v[i].hash & (nslot - 1);

                while (slot[j])
                        j = (j + 1) & (nslot - 1);
                slot[j] = i + 1;
        }
        return 0;
}

/* A path added twice keeps its first position. */
int jsonv_locs_add(struct jsonv_locs *l, const char *path, unsigned line, unsigned col)
{
        uint32_t h = path_hash(path);
        size_t at;
        char *p;

        if ((l->n + 1) * 2 > l->nslot && grow_index(l) < 0)
                return -ENOMEM;
        at = lookup(l, path, h);
        if (l->slot[at])
                return 0;
        if (l->n == l->cap) {
                size_t cap = l->cap ? l->cap * 2 : 64;
                struct jsonv_loc *more = realloc(l->v, cap * sizeof(*more));

                if (!more)
                        return -ENOMEM;
                l->v = more;
                l->cap = cap;
        }
        p = strdup(path);
        if (!p)
                return -ENOMEM;
        l->v[l->n++] = (struct jsonv_loc){ .path = p, .hash = h, .line = line, .col = col };
        l->slot[at] = l->n;
        return 0;
}
