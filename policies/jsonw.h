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
#include <stdio.h>

/* As json_dumps(): a new string (caller frees) or NULL. */
char *jsonw_dumps(const json_t *j, size_t flags);
/* As json_dumpf(): 0 or -1. */
int jsonw_dumpf(const json_t *j, FILE *f, size_t flags);
