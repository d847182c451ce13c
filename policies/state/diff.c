/* SPDX-License-Identifier: MIT */
/* The diff container (see diff.h): entries, and their text and JSON renderings. The comparators and
 * the walk over the fields are the field table's (field.c), which calls this file, never the other way. */
#include <jansson.h>

#include "common/util.h"
#include "policies/state/diff.h"

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
                json_t *o = json_pack("{s:s,s:s,s:o,s:o}", "field", state_field_name(e->field), "key", e->key,
                                      "from", diff_value_json(e->from), "to", diff_value_json(e->to));

                if (!o || json_array_append_new(a, o) < 0) {
                        json_decref(a);
                        return NULL;
                }
        }
        return a;
}

/* -?(0|[1-9][0-9]*), at most 18 digits: what jansson writes for that integer. */
static bool integer_text(const char *s, size_t n)
{
        size_t i = n && s[0] == '-';

        if (i == n || n - i > 18 || (s[i] == '0' && n - i > 1))
                return false;
        for (; i < n; i++)
                if (s[i] < '0' || s[i] > '9')
                        return false;
        return true;
}

enum diff_value_kind diff_value_kind(const char *text)
{
        size_t n = strlen(text);

        if (integer_text(text, n))
                return DIFF_VALUE_INTEGER;
        if (streq(text, "true") || streq(text, "false"))
                return DIFF_VALUE_BOOLEAN;
        if (n < 2 || text[0] != '[' || text[n - 1] != ']')
                return DIFF_VALUE_STRING;
        for (size_t i = 1, start = 1; i < n; i++)      /* "[]" or "[1,2,3]", compact */
                if (text[i] == ',' || text[i] == ']') {
                        if ((i > start || text[i] == ',' || n > 2) && !integer_text(text + start, i - start))
                                return DIFF_VALUE_STRING;
                        start = i + 1;
                }
        return DIFF_VALUE_INTEGERS;
}

json_t *diff_value_json(const char *text)
{
        switch (diff_value_kind(text)) {
        case DIFF_VALUE_INTEGER: return json_integer(strtoll(text, NULL, 10));
        case DIFF_VALUE_BOOLEAN: return json_boolean(streq(text, "true"));
        case DIFF_VALUE_INTEGERS: return json_loads(text, 0, NULL);
        default: return json_string(text);
        }
}
