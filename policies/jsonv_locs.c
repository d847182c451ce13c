/* SPDX-License-Identifier: MIT */
/* Where each node of a document stood in its text, by JSON path (jsonv.h: jsonv_locs). */
#include <stdlib.h>
#include <string.h>

#include "policies/jsonv.h"

struct jsonv_loc {
        char *path;
        unsigned line, col;
};

struct jsonv_locs {
        struct jsonv_loc *v;
        size_t n, cap;
};

void jsonv_locs_free(struct jsonv_locs *l)
{
        if (!l)
                return;
        for (size_t i = 0; i < l->n; i++)
                free(l->v[i].path);
        free(l->v);
        free(l);
}

bool jsonv_locs_find(const struct jsonv_locs *l, const char *path, unsigned *ret_line, unsigned *ret_col)
{
        for (size_t i = 0; l && i < l->n; i++)
                if (streq(l->v[i].path, path)) {
                        *ret_line = l->v[i].line;
                        *ret_col = l->v[i].col;
                        return true;
                }
        return false;
}

struct jsonv_locs *jsonv_locs_new(void)
{
        return calloc(1, sizeof(struct jsonv_locs));
}

int jsonv_locs_add(struct jsonv_locs *l, const char *path, unsigned line, unsigned col)
{
        char *p;

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
        l->v[l->n++] = (struct jsonv_loc){ p, line, col };
        return 0;
}
