/* SPDX-License-Identifier: MIT */
/*
 * The strings diff entries carry, and the two diff helpers every comparator uses
 * (field_internal.h): the bottom of the field table's files. field.c, field_pfc.c and
 * field_headroom.c call it; it calls only diff.c.
 */
#include <stdarg.h>

#include "common/util.h"
#include "policies/state/field_internal.h"

const char *fmt_u(char *buf, size_t size, unsigned long x)
{
        char num[24];

        strcopy(buf, size, fmt_ulong(num, x));
        return buf;
}

const char *fmt_bool(bool b)
{
        return b ? "true" : "false";
}

const char *fmt_bits(char *buf, size_t size, unsigned bits)
{
        size_t o = snprintf(buf, size, "[");

        for (unsigned i = 0; i < 8; i++)
                if (bits & (1u << i))
                        o += snprintf(buf + o, size - o, "%s%u", o > 1 ? "," : "", i);
        snprintf(buf + o, size - o, "]");
        return buf;
}

const char *keyf(char *key, const char *prefix, const char *fmt, ...)
{
        size_t n = (size_t)snprintf(key, DIFF_KEY_MAX, "%s", prefix);
        va_list ap;

        if (n < DIFF_KEY_MAX) {
                va_start(ap, fmt);
                vsnprintf(key + n, DIFF_KEY_MAX - n, fmt, ap);
                va_end(ap);
        }
        return key;
}

int diff_u(struct diff *d, enum state_field f, const char *key, unsigned long from, unsigned long to)
{
        char a[24], b[24];

        if (from == to)
                return 0;
        return diff_add(d, f, key, fmt_u(a, sizeof(a), from), fmt_u(b, sizeof(b), to));
}

int diff_opt(struct diff *d, enum state_field f, const char *key, bool live_has,
                    const char *from, const char *to)
{
        if (live_has && streq(from, to))
                return 0;
        return diff_add(d, f, key, live_has ? from : "unset", to);
}
