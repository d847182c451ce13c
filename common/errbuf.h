/* SPDX-License-Identifier: MIT */
/*
 * A structured error: where (a JSON path, an interface, a switch) and what.
 * Library code (policies/, drivers/) fills one and returns -errno; the program
 * prints it once.
 */
#pragma once

#include "common/util.h"

struct errbuf {
        char where[256];   /* "$.spec.pfc.priorities[1]", "interface 'vA'", or "" */
        char msg[768];     /* lowercase, no trailing full stop */
};

/* Room for errbuf_str()'s "where: msg" and a short prefix a program adds before
 * printing it: the size of every buffer such a line is formatted into. */
#define ERRBUF_STR_MAX 1100

/* Set where and message. Either may be NULL/empty. Returns -err for tail calls. */
int errbuf_set(struct errbuf *e, int err, const char *where, const char *fmt, ...) _printf_(4, 5);

/* Prefix the existing message with "text: ". */
void errbuf_prefix(struct errbuf *e, const char *fmt, ...) _printf_(2, 3);

/* Append text to the message. */
void errbuf_suffix(struct errbuf *e, const char *text);

/* Format "where: msg" (or just msg) into buf. */
const char *errbuf_str(const struct errbuf *e, char *buf, size_t size);

static inline void errbuf_clear(struct errbuf *e)
{
        if (e) {
                e->where[0] = '\0';
                e->msg[0] = '\0';
        }
}
