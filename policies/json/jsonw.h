/* SPDX-License-Identifier: MIT */
/*
 * JSON text byte for byte as jansson's json_dumps()/json_dumpf() write it for the
 * flags nettune uses (JSON_INDENT(n), JSON_COMPACT, JSON_SORT_KEYS, JSON_ENCODE_ANY),
 * in a fraction of the time: one growing buffer instead of a callback per piece, no
 * loop check (nettune builds trees, never graphs). Other flags go to jansson. Reals
 * are jansson's own digits. For large outputs: `state` of a thousand interfaces,
 * the journal's snapshots and change lists.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

/* As json_dumps(): a new string (caller frees) or NULL. */
char *jsonw_dumps(const json_t *j, size_t flags);
/* As json_dumpf(): 0 or -1. */
int jsonw_dumpf(const json_t *j, FILE *f, size_t flags);

/*
 * A document written piece by piece, the same bytes as the whole tree dumped at
 * once: a long listing dumps each element as it is made and frees it. flags as
 * above (JSON_INDENT, JSON_COMPACT, JSON_SORT_KEYS only).
 */
struct jsonw_out {
        char *buf;                      /* owned; NUL-terminated after jsonw_finish() */
        size_t len, size;
        bool failed;                    /* out of memory, or a value this writer cannot write */
};
/* Literal text: punctuation, a key ("\"name\": "). */
void jsonw_raw(struct jsonw_out *o, const char *s);
/* What separates the members of a container at depth (the newline and indentation, or a space). */
void jsonw_newline(struct jsonw_out *o, size_t flags, unsigned depth, bool after_comma);
/* A string value as json_string() keeps it: invalid UTF-8 fails the document, as jansson refuses it. */
void jsonw_string(struct jsonw_out *o, const char *s);
/* j as it is written at depth of a document. */
void jsonw_value(struct jsonw_out *o, const json_t *j, size_t flags, unsigned depth);
/* The text (caller frees; o is empty again), or NULL when writing failed (o's buffer is freed then). */
char *jsonw_finish(struct jsonw_out *o);
