/* SPDX-License-Identifier: MIT */
/* Shared between store.c (schema, writes) and store_query.c (reads). Not for other files. */
#pragma once

#include "store.h"

struct store {
        sqlite3 *db;
        char path[512];
};

static inline int store_db_fail(struct store *s, struct errbuf *e, const char *what)
{
        return errbuf_set(e, EIO, s->path, "%s: %s", what, sqlite3_errmsg(s->db));
}
