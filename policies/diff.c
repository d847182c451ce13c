/* SPDX-License-Identifier: MIT */
/* The diff container (see diff.h): entries, and their text and JSON renderings. The comparators and
 * the walk over the fields are the field table's (field.c), which calls this file, never the other way. */
#include <jansson.h>

#include "common/util.h"
#include "policies/diff.h"

int diff_add(struct diff *d, enum state_field f, const char *key, const char *from, const char *to)
{
        struct diff_entry *e;

        /* Full at every power of two: most targets differ in one field (an entry is 452 bytes). */
        if ((d->n & (d->n - 1)) == 0) {
                size_t cap = d->n ? d->n * 2 : 1;
                struct diff_entry *n = realloc(d->entries, cap * sizeof(*n));

                if (!n)
                        return -ENOMEM;
                d->entries = n;
        }
        e = &d->entries[d->n++];
        e->field = f;
        strcopy(e->key, sizeof(e->key), key);
        strcopy(e->from, sizeof(e->from), from);
        strcopy(e->to, sizeof(e->to), to);
        d->fields |= STATE_BIT(f);
        return 0;
}

void diff_done(struct diff *d)
{
        if (!d)
                return;
        free(d->entries);
        *d = (struct diff){ 0 };
}

char *diff_to_text(const struct diff *d)
{
        size_t size = 1, o = 0;
        char *s;

        for (unsigned i = 0; i < d->n; i++)
                size += strlen(d->entries[i].key) + strlen(d->entries[i].from) + strlen(d->entries[i].to) + 10;
        s = malloc(size);
        if (!s)
                return NULL;
        s[0] = '\0';
        for (unsigned i = 0; i < d->n; i++)
                o += snprintf(s + o, size - o, "  %s: %s -> %s\n", d->entries[i].key, d->entries[i].from,
                              d->entries[i].to);
        return s;
}

json_t *diff_to_json(const struct diff *d)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < d->n; i++) {
                const struct diff_entry *e = &d->entries[i];
                json_t *o = json_pack("{s:s,s:s,s:s,s:s}", "field", state_field_name(e->field), "key", e->key,
                                      "from", e->from, "to", e->to);

                if (!o || json_array_append_new(a, o) < 0) {
                        json_decref(a);
                        return NULL;
                }
        }
        return a;
}
