/* SPDX-License-Identifier: MIT */
/* Field-by-field differences of a desired and a live state (see diff.h); the comparators are the field table's. */
#include <jansson.h>

#include "common/util.h"
#include "policies/diff.h"
#include "policies/field.h"
#include "policies/state_json.h"

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

/* The desired value of a whole field, compact JSON, for "unsupported" entries. */
static int add_unsupported(struct diff *d, const char *prefix, const struct state *desired, enum state_field f)
{
        struct state *one = malloc(sizeof(*one));
        char to[DIFF_VALUE_MAX] = "";
        json_t *j = NULL;
        char *s = NULL;
        int r = -ENOMEM;

        if (!one)
                return -ENOMEM;
        *one = *desired;
        one->present = STATE_BIT(f);
        j = state_to_json(one);
        /* a field kept under another's key (cable_length: "pfc": {"cable_length_m"}) shows as that */
        if (j)
                s = json_dumps(json_object_get(j, state_field_name(f)) ? json_object_get(j, state_field_name(f)) : j,
                               JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
        if (s) {
                snprintf(to, sizeof(to), "%s", s);
                if (strlen(s) >= sizeof(to))
                        memcpy(to + sizeof(to) - 4, "...", 4);
                char key[DIFF_KEY_MAX];

                snprintf(key, sizeof(key), "%s%s", prefix, state_field_name(f));
                r = diff_add(d, f, key, "unsupported", to);
        }
        free(s);
        json_decref(j);
        free(one);
        return r;
}

int diff_append(struct diff *d, const char *prefix, const struct state *desired, const struct state *live)
{
        unsigned n = d->n;
        uint32_t fields = d->fields;
        int r = 0;

        for (int f = 0; f < STATE_FIELD_MAX && r >= 0; f++) {
                if (!state_has(desired, f))
                        continue;
                if (!state_has(live, f))
                        r = add_unsupported(d, prefix, desired, f);
                else
                        r = field_table[f].diff(d, prefix, desired, live);
        }
        if (r >= 0)
                r = field_diff_dcb_device(d, prefix, desired, live);
        if (r < 0) {
                d->n = n;
                d->fields = fields;
        }
        return r;
}

int state_diff(const struct state *desired, const struct state *live, struct diff *ret)
{
        struct diff d = { 0 };
        int r = diff_append(&d, "", desired, live);

        if (r < 0) {
                diff_done(&d);
                return r;
        }
        *ret = d;
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
