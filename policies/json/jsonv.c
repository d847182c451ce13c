/* SPDX-License-Identifier: MIT */
/* The generic table walker and the path stack (see jsonv.h). */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "common/cli.h"
#include "policies/json/jsonv.h"

static const char *const type_names[JSONV_TYPE_MAX] = {
        [JSONV_ANY] = "any value",
        [JSONV_OBJECT] = "object",
        [JSONV_ARRAY] = "array",
        [JSONV_STRING] = "string",
        [JSONV_INTEGER] = "integer",
        [JSONV_NUMBER] = "number",
        [JSONV_BOOL] = "boolean",
};

void jsonv_init(struct jsonv *v, const char *file, struct errbuf *e)
{
        memset(v, 0, sizeof(*v));
        v->file = file;
        v->e = e;
        strcpy(v->path, "$");
}

static bool plain_key(const char *key)
{
        if (!*key)
                return false;
        for (const char *p = key; *p; p++)
                if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-')
                        return false;
        return true;
}

static void push_text(struct jsonv *v, const char *text)
{
        size_t len = strlen(v->path);

        if (v->depth < JSONV_DEPTH_MAX)
                v->mark[v->depth] = len;
        v->depth++;
        snprintf(v->path + len, sizeof(v->path) - len, "%s", text);
}

void jsonv_push_key(struct jsonv *v, const char *key)
{
        char text[JSONV_PATH_MAX], q[80];

        if (plain_key(key))
                snprintf(text, sizeof(text), ".%s", key);
        else
                snprintf(text, sizeof(text), "['%s']", jsonv_quote(key, q, sizeof(q)));
        push_text(v, text);
}

void jsonv_push_index(struct jsonv *v, size_t index)
{
        char text[32];

        snprintf(text, sizeof(text), "[%zu]", index);
        push_text(v, text);
}

void jsonv_pop(struct jsonv *v)
{
        if (v->depth == 0)
                return;
        v->depth--;
        if (v->depth < JSONV_DEPTH_MAX)
                v->path[v->mark[v->depth]] = '\0';
}

/* "FILE:LINE:COL: $.path" of a YAML document: the member hint_key names, else the node, else its parent's. */
static bool jsonv_where(const struct jsonv *v, char *buf, size_t size)
{
        unsigned line = 0, col = 0;
        struct jsonv up = *v;
        bool found = false;

        if (!v->locs)
                return false;
        if (v->hint_key) {
                jsonv_push_key(&up, v->hint_key);
                found = jsonv_locs_find(v->locs, up.path, &line, &col);
                jsonv_pop(&up);
        }
        while (!found && !(found = jsonv_locs_find(v->locs, up.path, &line, &col)) && up.depth)
                jsonv_pop(&up);
        if (!found)
                return false;
        snprintf(buf, size, "%s:%u:%u: %.*s", v->file, line, col, (int)(size > 40 ? size - 40 : 0), v->path);
        return true;
}

int jsonv_error(struct jsonv *v, const char *fmt, ...)
{
        char where[sizeof(v->e->where)];
        va_list ap;

        if (!v->e)
                return -EINVAL;
        if (v->file && jsonv_where(v, where, sizeof(where)))
                ;
        else if (v->file)
                snprintf(where, sizeof(where), "%s: %s", v->file, v->path);
        else
                snprintf(where, sizeof(where), "%s", v->path);
        v->hint_key = NULL;
        snprintf(v->e->where, sizeof(v->e->where), "%s", where);
        va_start(ap, fmt);
        vsnprintf(v->e->msg, sizeof(v->e->msg), fmt, ap);
        va_end(ap);
        return -EINVAL;
}

const char *jsonv_type_name(const json_t *j)
{
        switch (json_typeof(j)) {
        case JSON_OBJECT: return "object";
        case JSON_ARRAY: return "array";
        case JSON_STRING: return "string";
        case JSON_INTEGER: return "integer";
        case JSON_REAL: return "number";
        case JSON_TRUE:
        case JSON_FALSE: return "boolean";
        default: return "null";
        }
}

static bool type_ok(const json_t *j, enum jsonv_type t)
{
        switch (t) {
        case JSONV_ANY: return true;
        case JSONV_OBJECT: return json_is_object(j);
        case JSONV_ARRAY: return json_is_array(j);
        case JSONV_STRING: return json_is_string(j);
        case JSONV_INTEGER: return json_is_integer(j);
        case JSONV_NUMBER: return json_is_number(j);
        case JSONV_BOOL: return json_is_boolean(j);
        default: return false;
        }
}

int jsonv_check_type(struct jsonv *v, const json_t *j, enum jsonv_type t)
{
        if (type_ok(j, t))
                return 0;
        return jsonv_error(v, "expected %s, found %s", type_names[t], jsonv_type_name(j));
}

const char *jsonv_quote(const char *s, char *buf, size_t size)
{
        size_t o = 0, n = 0;

        for (; *s && o + 8 < size; s++) {
                unsigned char c = (unsigned char)*s;

                if (n++ == 48) {
                        o += snprintf(buf + o, size - o, "...");
                        break;
                }
                if (c < 0x20 || c == 0x7f)
                        o += snprintf(buf + o, size - o, "\\x%02x", c);
                else if (c == '\'' || c == '\\')
                        o += snprintf(buf + o, size - o, "\\%c", c);
                else
                        buf[o++] = (char)c;
        }
        if (size)
                buf[o < size ? o : size - 1] = '\0';
        return buf;
}

static const struct jsonv_field *find_field(const struct jsonv_field *fields, const char *key)
{
        for (const struct jsonv_field *f = fields; f->key; f++)
                if (streq(f->key, key))
                        return f;
        return NULL;
}

static void store_uint(void *obj, const struct jsonv_field *f, unsigned long long x)
{
        char *p = (char *)obj + f->offset;

        switch (f->size) {
        case 1: { uint8_t t = (uint8_t)x; memcpy(p, &t, 1); break; }
        case 2: { uint16_t t = (uint16_t)x; memcpy(p, &t, 2); break; }
        case 4: { uint32_t t = (uint32_t)x; memcpy(p, &t, 4); break; }
        case 8: { uint64_t t = x; memcpy(p, &t, 8); break; }
        default: break;
        }
}

static int field_integer(struct jsonv *v, const struct jsonv_field *f, const json_t *j, void *obj)
{
        const char *what = f->what ? f->what : f->key;
        long long x;
        int r;

        r = jsonv_int(v, j, what, f->min, f->max, &x);
        if (r < 0)
                return r;
        if (obj && f->size)
                store_uint(obj, f, (unsigned long long)x);
        return 0;
}

static int field_number(struct jsonv *v, const struct jsonv_field *f, const json_t *j, void *obj)
{
        const char *what = f->what ? f->what : f->key;
        double x = json_number_value(j);

        if ((f->min || f->max) && !(x >= (double)f->min && x <= (double)f->max))
                return jsonv_error(v, "%s %g out of range %lld-%lld", what, x, f->min, f->max);
        if (obj && f->size == sizeof(double))
                memcpy((char *)obj + f->offset, &x, sizeof(x));
        return 0;
}

int jsonv_enum(struct jsonv *v, const json_t *j, const char *what, const char *const *names,
               unsigned *ret)
{
        const char *s;
        char list[256], q[80];
        size_t o = 0;
        int r = jsonv_check_type(v, j, JSONV_STRING);

        if (r < 0)
                return r;
        s = json_string_value(j);
        for (unsigned i = 0; names[i]; i++)
                if (streq(names[i], s)) {
                        *ret = i;
                        return 0;
                }
        list[0] = '\0';
        for (size_t i = 0; names[i] && o < sizeof(list); i++)
                o += snprintf(list + o, sizeof(list) - o, "%s'%s'", i ? ", " : "", names[i]);
        return jsonv_error(v, "%s '%s' is not one of %s", what, jsonv_quote(s, q, sizeof(q)), list);
}

static int field_enum(struct jsonv *v, const struct jsonv_field *f, const json_t *j, void *obj)
{
        unsigned x;
        int r = jsonv_enum(v, j, f->what ? f->what : f->key, f->names, &x);

        if (r >= 0 && obj && f->size)
                store_uint(obj, f, x);
        return r;
}

static int field_string(struct jsonv *v, const struct jsonv_field *f, const json_t *j, void *obj)
{
        const char *what = f->what ? f->what : f->key;

        if ((f->flags & JSONV_NONEMPTY) && json_string_length(j) == 0)
                return jsonv_error(v, "%s must not be empty", what);
        if (f->names)
                return field_enum(v, f, j, obj);
        if (!obj || !f->size)
                return 0;
        return jsonv_string(v, j, what, (char *)obj + f->offset, f->size);
}

static int field_container(struct jsonv *v, const struct jsonv_field *f, const json_t *j)
{
        const char *what = f->what ? f->what : f->key;
        size_t n = json_is_object(j) ? json_object_size(j) : json_array_size(j);

        if ((f->flags & JSONV_NONEMPTY) && n == 0)
                return jsonv_error(v, "%s must not be empty", what);
        return 0;
}

static int field_value(struct jsonv *v, const struct jsonv_field *f, const json_t *j, void *obj)
{
        int r = jsonv_check_type(v, j, f->type);

        if (r < 0)
                return r;
        switch (f->type) {
        case JSONV_INTEGER: r = field_integer(v, f, j, obj); break;
        case JSONV_NUMBER: r = field_number(v, f, j, obj); break;
        case JSONV_STRING: r = field_string(v, f, j, obj); break;
        case JSONV_BOOL:
                if (obj && f->size == sizeof(bool))
                        *(bool *)((char *)obj + f->offset) = json_is_true(j);
                break;
        case JSONV_OBJECT:
        case JSONV_ARRAY: r = field_container(v, f, j); break;
        default: break;
        }
        if (r < 0 || !f->parse)
                return r;
        return f->parse(v, j, obj);
}

/* "unknown key 'mtuu' (did you mean 'mtu'?)": the closest key of the table when it is a typo. */
static int unknown_key(struct jsonv *v, const struct jsonv_field *fields, const char *key)
{
        struct cli_suggest s;
        const char *best;
        char q[80];

        cli_suggest_init(&s, key);
        for (const struct jsonv_field *f = fields; f->key; f++)
                cli_suggest_offer(&s, f->key);
        best = cli_suggest_best(&s);
        v->hint_key = key;
        if (best)
                return jsonv_error(v, "unknown key '%s' (did you mean '%s'?)", jsonv_quote(key, q, sizeof(q)), best);
        return jsonv_error(v, "unknown key '%s'", jsonv_quote(key, q, sizeof(q)));
}

int jsonv_object(struct jsonv *v, const json_t *j, const struct jsonv_field *fields, void *obj)
{
        const char *key;
        json_t *val;
        int r;

        r = jsonv_check_type(v, j, JSONV_OBJECT);
        if (r < 0)
                return r;
        json_object_foreach((json_t *)j, key, val) {
                const struct jsonv_field *f = find_field(fields, key);

                if (!f)
                        return unknown_key(v, fields, key);
                jsonv_push_key(v, key);
                r = field_value(v, f, val, obj);
                jsonv_pop(v);
                if (r < 0)
                        return r;
        }
        for (const struct jsonv_field *f = fields; f->key; f++)
                if ((f->flags & JSONV_REQUIRED) && !json_object_get(j, f->key))
                        return jsonv_error(v, "missing required key '%s'", f->key);
        return 0;
}

int jsonv_int(struct jsonv *v, const json_t *j, const char *what, long long min, long long max,
              long long *ret)
{
        long long x;
        int r = jsonv_check_type(v, j, JSONV_INTEGER);

        if (r < 0)
                return r;
        x = json_integer_value(j);
        if ((min || max) && (x < min || x > max))
                return jsonv_error(v, "%s %lld out of range %lld-%lld", what, x, min, max);
        *ret = x;
        return 0;
}

int jsonv_string(struct jsonv *v, const json_t *j, const char *what, char *buf, size_t size)
{
        size_t len;
        char q[80];
        int r = jsonv_check_type(v, j, JSONV_STRING);

        if (r < 0)
                return r;
        len = json_string_length(j);
        if (len >= size)
                return jsonv_error(v, "%s '%s' is %zu bytes, longer than %zu", what,
                                   jsonv_quote(json_string_value(j), q, sizeof(q)), len, size - 1);
        memcpy(buf, json_string_value(j), len + 1);
        return 0;
}
