/* SPDX-License-Identifier: MIT */
/* JSON text as jansson's json_dumps() writes it, written faster (see jsonw.h). */
#include <stdint.h>

#include "common/util.h"
#include "policies/json/jsonw.h"


static void put(struct jsonw_out *o, const char *s, size_t n)
{
        if (o->failed)
                return;
        if (o->len + n + 1 > o->size) {
                size_t size = o->size ? o->size : 256;
                char *b;

                while (o->len + n + 1 > size)
                        size *= 2;
                b = realloc(o->buf, size);
                if (!b) {
                        o->failed = true;
                        return;
                }
                o->buf = b;
                o->size = size;
        }
        memcpy(o->buf + o->len, s, n);
        o->len += n;
}

static void indent(struct jsonw_out *o, size_t flags, unsigned depth, bool space)
{
        static const char spaces[] = "                                ";
        unsigned n = (unsigned)(flags & 0x1f) * depth;

        if (flags & 0x1f) {
                put(o, "\n", 1);
                for (; n > 0; n -= n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1)
                        put(o, spaces, n < sizeof(spaces) - 1 ? n : sizeof(spaces) - 1);
        } else if (space && !(flags & JSON_COMPACT)) {
                put(o, " ", 1);
        }
}

/* jansson's escapes: \\ \" \b \f \n \r \t, \u00XX for other control characters; UTF-8 as it is. */
static void string(struct jsonw_out *o, const char *s, size_t len)
{
        static const char hex[] = "0123456789ABCDEF";
        size_t run = 0;

        put(o, "\"", 1);
        for (size_t i = 0; i < len; i++) {
                unsigned char c = (unsigned char)s[i];
                char esc[6] = { '\\', 0 };
                size_t n = 2;

                if (c >= 0x20 && c != '"' && c != '\\')
                        continue;
                put(o, s + run, i - run);
                run = i + 1;
                switch (c) {
                case '"': esc[1] = '"'; break;
                case '\\': esc[1] = '\\'; break;
                case '\b': esc[1] = 'b'; break;
                case '\f': esc[1] = 'f'; break;
                case '\n': esc[1] = 'n'; break;
                case '\r': esc[1] = 'r'; break;
                case '\t': esc[1] = 't'; break;
                default:
                        memcpy(esc, "\\u00", 4);
                        esc[4] = hex[c >> 4];
                        esc[5] = hex[c & 15];
                        n = 6;
                }
                put(o, esc, n);
        }
        put(o, s + run, len - run);
        put(o, "\"", 1);
}

struct key {
        const char *s;
        size_t len;
        json_t *v;
};

static int by_key(const void *a, const void *b)
{
        const struct key *x = a, *y = b;
        int r = memcmp(x->s, y->s, x->len < y->len ? x->len : y->len);

        return r ? r : (x->len > y->len) - (x->len < y->len);
}

/* Objects are small: insertion sort (qsort allocates and merges). */
static void sort_keys(struct key *k, size_t n)
{
        if (n > 32) {
                qsort(k, n, sizeof(*k), by_key);
                return;
        }
        for (size_t i = 1; i < n; i++) {
                struct key x = k[i];
                size_t j = i;

                for (; j > 0 && by_key(&k[j - 1], &x) > 0; j--)
                        k[j] = k[j - 1];
                k[j] = x;
        }
}

static void value(struct jsonw_out *o, const json_t *j, size_t flags, unsigned depth);

static void object(struct jsonw_out *o, const json_t *j, size_t flags, unsigned depth)
{
        size_t n = json_object_size(j), i = 0;
        struct key small[16], *keys = n <= ARRAY_SIZE(small) ? small : malloc(n * sizeof(*keys));
        void *it;

        put(o, "{", 1);
        if (!n) {
                put(o, "}", 1);
                return;
        }
        if (!keys) {
                o->failed = true;
                return;
        }
        for (it = json_object_iter((json_t *)j); it && i < n; it = json_object_iter_next((json_t *)j, it), i++)
                keys[i] = (struct key){ json_object_iter_key(it), json_object_iter_key_len(it),
                                        json_object_iter_value(it) };
        if (flags & JSON_SORT_KEYS)
                sort_keys(keys, i);
        indent(o, flags, depth + 1, false);
        for (size_t k = 0; k < i; k++) {
                string(o, keys[k].s, keys[k].len);
                put(o, flags & JSON_COMPACT ? ":" : ": ", flags & JSON_COMPACT ? 1 : 2);
                value(o, keys[k].v, flags, depth + 1);
                if (k + 1 < i) {
                        put(o, ",", 1);
                        indent(o, flags, depth + 1, true);
                } else {
                        indent(o, flags, depth, false);
                }
        }
        put(o, "}", 1);
        if (keys != small)
                free(keys);
}

static void array(struct jsonw_out *o, const json_t *j, size_t flags, unsigned depth)
{
        size_t n = json_array_size(j);

        put(o, "[", 1);
        if (!n) {
                put(o, "]", 1);
                return;
        }
        indent(o, flags, depth + 1, false);
        for (size_t i = 0; i < n; i++) {
                value(o, json_array_get(j, i), flags, depth + 1);
                if (i + 1 < n) {
                        put(o, ",", 1);
                        indent(o, flags, depth + 1, true);
                } else {
                        indent(o, flags, depth, false);
                }
        }
        put(o, "]", 1);
}

static void value(struct jsonw_out *o, const json_t *j, size_t flags, unsigned depth)
{
        char num[32];
        char *real;

        switch (json_typeof(j)) {
        case JSON_NULL: put(o, "null", 4); break;
        case JSON_TRUE: put(o, "true", 4); break;
        case JSON_FALSE: put(o, "false", 5); break;
        case JSON_INTEGER: {
                json_int_t v = json_integer_value(j);

                if (v < 0)
                        put(o, "-", 1);
                fmt_ulong(num, v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v);
                put(o, num, strlen(num));
                break;
        }
        case JSON_REAL:                 /* jansson's own digits */
                real = json_dumps(j, JSON_ENCODE_ANY | (flags & ~(size_t)JSON_INDENT(0x1f)));
                if (real)
                        put(o, real, strlen(real));
                else
                        o->failed = true;
                free(real);
                break;
        case JSON_STRING: string(o, json_string_value(j), json_string_length(j)); break;
        case JSON_ARRAY: array(o, j, flags, depth); break;
        case JSON_OBJECT: object(o, j, flags, depth); break;
        default: o->failed = true;
        }
}

/* The flags this writer knows; others go to jansson. */
#define KNOWN (JSON_INDENT(0x1f) | JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY)

char *jsonw_dumps(const json_t *j, size_t flags)
{
        struct jsonw_out o = { 0 };

        if (flags & ~(size_t)KNOWN)
                return json_dumps(j, flags);
        if (!j || (!(flags & JSON_ENCODE_ANY) && !json_is_object(j) && !json_is_array(j)))
                return NULL;
        value(&o, j, flags, 0);
        return jsonw_finish(&o);
}

int jsonw_dumpf(const json_t *j, FILE *f, size_t flags)
{
        _cleanup_free_ char *s = jsonw_dumps(j, flags);

        return s && fputs(s, f) >= 0 ? 0 : -1;
}

void jsonw_raw(struct jsonw_out *o, const char *s)
{
        put(o, s, strlen(s));
}

void jsonw_newline(struct jsonw_out *o, size_t flags, unsigned depth, bool after_comma)
{
        indent(o, flags, depth, after_comma);
}

/* RFC 3629 UTF-8: no overlong forms, no surrogates, nothing above U+10FFFF (jansson's utf8_check_string). */
static bool utf8_valid(const unsigned char *s, size_t len)
{
        size_t i = 0;

        while (i < len) {
                unsigned char c = s[i];
                unsigned n, cp;

                if (c < 0x80) {
                        i++;
                        continue;
                }
                if (c >= 0xc2 && c <= 0xdf)
                        n = 1, cp = c & 0x1f;
                else if (c >= 0xe0 && c <= 0xef)
                        n = 2, cp = c & 0x0f;
                else if (c >= 0xf0 && c <= 0xf4)
                        n = 3, cp = c & 0x07;
                else
                        return false;
                for (unsigned k = 1; k <= n; k++) {
                        if (i + k >= len || (s[i + k] & 0xc0) != 0x80)
                                return false;
                        cp = cp << 6 | (s[i + k] & 0x3f);
                }
                if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
                    (cp >= 0xd800 && cp <= 0xdfff))
                        return false;
                i += n + 1;
        }
        return true;
}

void jsonw_string(struct jsonw_out *o, const char *s)
{
        size_t len = strlen(s);

        if (utf8_valid((const unsigned char *)s, len))
                string(o, s, len);
        else
                o->failed = true;
}

void jsonw_value(struct jsonw_out *o, const json_t *j, size_t flags, unsigned depth)
{
        if (flags & ~(size_t)(JSON_INDENT(0x1f) | JSON_COMPACT | JSON_SORT_KEYS))
                o->failed = true;
        else if (j)
                value(o, j, flags, depth);
        else
                o->failed = true;
}

char *jsonw_finish(struct jsonw_out *o)
{
        char *buf;

        put(o, "", 0);
        if (o->failed) {
                free(o->buf);
                *o = (struct jsonw_out){ .failed = true };
                return NULL;
        }
        o->buf[o->len] = '\0';
        buf = o->buf;
        /* A text kept for long (a journal row) holds only itself, not the room it was written in. */
        if (o->size - o->len > 256) {
                char *fit = realloc(buf, o->len + 1);

                if (fit)
                        buf = fit;
        }
        *o = (struct jsonw_out){ 0 };
        return buf;
}
