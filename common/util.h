/* SPDX-License-Identifier: MIT */
/*
 * Small shared helpers: cleanup attributes, array sizes, string compare.
 *
 * May call: no other module (common/ uses libc, SQLite and libdl only). Called by every
 * module.
 */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* src into dst[size] (size > 0), cut to fit and terminated: snprintf(dst, size, "%s", src) without the formatting. */
static inline void strcopy(char *dst, size_t size, const char *src)
{
        size_t n = strnlen(src, size - 1);

        memcpy(dst, src, n);
        dst[n] = '\0';
}

/* x in decimal into buf (24 bytes hold any 64-bit value): snprintf's "%lu" without the formatting. Returns buf. */
static inline char *fmt_ulong(char *buf, unsigned long long x)
{
        char tmp[24];
        size_t n = 0;

        do
                tmp[n++] = (char)('0' + x % 10);
        while ((x /= 10) != 0);
        for (size_t i = 0; i < n; i++)
                buf[i] = tmp[n - 1 - i];
        buf[n] = '\0';
        return buf;
}

/* a then b into dst[size] (size > 0), cut to fit: snprintf(dst, size, "%s%s", a, b); a may be dst. Returns dst. */
static inline char *strcat2(char *dst, size_t size, const char *a, const char *b)
{
        size_t n = strnlen(a, size - 1);

        memmove(dst, a, n);
        strcopy(dst + n, size - n, b);
        return dst;
}

static inline bool streq(const char *a, const char *b)
{
        return a && b && strcmp(a, b) == 0;
}

static inline void freep(void *p)
{
        free(*(void **)p);
}

static inline void closep(int *fd)
{
        if (*fd >= 0) {
                int saved = errno;
                close(*fd);
                errno = saved;
        }
}

static inline void fclosep(FILE **f)
{
        if (*f)
                fclose(*f);
}

#define _cleanup_(f) __attribute__((cleanup(f)))
#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Take ownership out of a cleanup variable: return it and leave NULL/-1 behind. */
#define TAKE_PTR(p) ({ __typeof__(p) _t = (p); (p) = NULL; _t; })
#define TAKE_FD(fd) ({ int _t = (fd); (fd) = -1; _t; })

#define _unused_ __attribute__((unused))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
