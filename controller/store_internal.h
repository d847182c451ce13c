/* SPDX-License-Identifier: MIT */
/* Shared between store.c (schema, writes) and store_query.c (reads). Not for other files. */
#pragma once

#include "store.h"

struct store_beat;

struct store {
        sqlite3 *db;
        char path[512];
        bool lease_held;                /* store_lease_take succeeded, not yet released */
        struct store_lease lease;       /* ours, while lease_held */
        struct store_beat *beat;        /* the heartbeat thread, while lease_held */
};

int store_lease_note_rollout(struct store *s, long long rollout_id, struct errbuf *e);

static inline int store_db_fail(struct store *s, struct errbuf *e, const char *what)
{
        return errbuf_set(e, EIO, s->path, "%s: %s", what, sqlite3_errmsg(s->db));
}
