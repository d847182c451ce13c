/* SPDX-License-Identifier: MIT */
/* Shared between store.c (schema, writes) and store_query.c (reads). Not for other files. */
#pragma once

#include "db.h"
#include "store.h"

struct store_beat;

struct store {
        struct db db;
        bool lease_held;                /* store_lease_take succeeded, not yet released */
        struct store_lease lease;       /* ours, while lease_held */
        struct store_beat *beat;        /* the heartbeat thread, while lease_held */
};

#define STORE_LEASE_SCHEMA \
        "CREATE TABLE IF NOT EXISTS lease (" \
        " id INTEGER PRIMARY KEY CHECK (id = 1), rollout_id INTEGER NOT NULL, pid INTEGER NOT NULL," \
        " host TEXT NOT NULL, started_at INTEGER NOT NULL, heartbeat INTEGER NOT NULL);"

int store_lease_note_rollout(struct store *s, long long rollout_id, struct errbuf *e);

static inline int store_db_fail(struct store *s, struct errbuf *e, const char *what)
{
        return db_fail(&s->db, e, what);
}
