/* SPDX-License-Identifier: MIT */
/* Array helpers of the validator: bounded integer lists, bitmaps, string lists, arrays of objects. */
#include "policies/json/jsonv.h"

/* Between min_n and max_n elements; `what` names one element ("element", "switch"). */
static int check_count_of(struct jsonv *v, const json_t *j, const char *what, const char *whats, size_t min_n,
                          size_t max_n)
{
        size_t n = json_array_size(j);

        if (min_n == max_n && n != min_n)
                return jsonv_error(v, "expected %zu %s, found %zu", min_n, min_n == 1 ? what : whats, n);
        if (n < min_n)
                return jsonv_error(v, "expected at least %zu %s, found %zu", min_n, min_n == 1 ? what : whats, n);
        if (n > max_n)
                return jsonv_error(v, "expected at most %zu %s, found %zu", max_n, max_n == 1 ? what : whats, n);
        return 0;
}

static int check_count(struct jsonv *v, const json_t *j, size_t min_n, size_t max_n)
{
        return check_count_of(v, j, "element", "elements", min_n, max_n);
}

int jsonv_object_array(struct jsonv *v, const json_t *j, const char *what, const char *whats, size_t min_n,
                       size_t max_n, int (*fn)(struct jsonv *v, const json_t *el, size_t i, void *ctx), void *ctx)
{
        size_t i;
        json_t *el;
        int r;

        r = jsonv_check_type(v, j, JSONV_ARRAY);
        if (r >= 0)
                r = check_count_of(v, j, what, whats, min_n, max_n);
        json_array_foreach(j, i, el) {
                if (r < 0)
                        break;
                jsonv_push_index(v, i);
                r = jsonv_check_type(v, el, JSONV_OBJECT);
                if (r >= 0)
                        r = fn(v, el, i, ctx);
                jsonv_pop(v);
        }
        return r;
}

int jsonv_int_array(struct jsonv *v, const json_t *j, const char *what, long long min, long long max,
                    size_t min_n, size_t max_n, unsigned flags, long long *out, size_t *ret_n)
{
        size_t i;
        json_t *el;
        int r;

        r = jsonv_check_type(v, j, JSONV_ARRAY);
        if (r < 0)
                return r;
        r = check_count(v, j, min_n, max_n);
        if (r < 0)
                return r;
        json_array_foreach(j, i, el) {
                jsonv_push_index(v, i);
                r = jsonv_int(v, el, what, min, max, &out[i]);
                for (size_t k = 0; r >= 0 && (flags & JSONV_UNIQUE) && k < i; k++)
                        if (out[k] == out[i])
                                r = jsonv_error(v, "duplicate %s %lld", what, out[i]);
                jsonv_pop(v);
                if (r < 0)
                        return r;
        }
        *ret_n = json_array_size(j);
        return 0;
}

int jsonv_bitmap_array(struct jsonv *v, const json_t *j, const char *what, unsigned max_bit,
                       unsigned flags, unsigned long long *ret_bits)
{
        long long vals[64];
        unsigned long long bits = 0;
        size_t n;
        int r;

        if (max_bit > 63)
                return -EINVAL;
        r = jsonv_int_array(v, j, what, 0, max_bit, (flags & JSONV_NONEMPTY) ? 1 : 0, max_bit + 1,
                            flags | JSONV_UNIQUE, vals, &n);
        if (r < 0)
                return r;
        for (size_t i = 0; i < n; i++)
                bits |= 1ull << vals[i];
        *ret_bits = bits;
        return 0;
}

static int string_element(struct jsonv *v, const json_t *el, const char *what, char *out, size_t stride,
                          size_t i, int (*check)(struct jsonv *v, const char *s))
{
        char q[80];
        int r;

        r = jsonv_string(v, el, what, out + i * stride, stride);
        if (r < 0)
                return r;
        if (json_string_length(el) == 0)
                return jsonv_error(v, "%s must not be empty", what);
        if (check) {
                r = check(v, out + i * stride);
                if (r < 0)
                        return r;
        }
        for (size_t k = 0; k < i; k++)
                if (streq(out + k * stride, out + i * stride))
                        return jsonv_error(v, "duplicate %s '%s'", what,
                                           jsonv_quote(out + i * stride, q, sizeof(q)));
        return 0;
}

int jsonv_string_array(struct jsonv *v, const json_t *j, const char *what, size_t max_n,
                       char *out, size_t stride, size_t *ret_n,
                       int (*check)(struct jsonv *v, const char *s))
{
        size_t i;
        json_t *el;
        int r;

        r = jsonv_check_type(v, j, JSONV_ARRAY);
        if (r < 0)
                return r;
        r = check_count(v, j, 0, max_n);
        if (r < 0)
                return r;
        json_array_foreach(j, i, el) {
                jsonv_push_index(v, i);
                r = string_element(v, el, what, out, stride, i, check);
                jsonv_pop(v);
                if (r < 0)
                        return r;
        }
        *ret_n = json_array_size(j);
        return 0;
}
