/* SPDX-License-Identifier: MIT */
/*
 * Inside controller/store; not for other modules: the SQLite backend, shared by
 * store_sqlite.c (schema, writes), store_sqlite_query.c (reads) and
 * store_sqlite_lease.c (the rollout lease).
 */
#pragma once

#include "common/db.h"
#include "controller/store/store_internal.h"

struct store_beat;

struct sqlite_store {
        struct store base;              /* first: the interface's handle */
        struct db db;
        bool lease_held;                /* store_lease_take succeeded, not yet released */
        struct store_lease lease;       /* ours, while lease_held */
        struct store_beat *beat;        /* the heartbeat thread, while lease_held */
};

#define STORE_LEASE_SCHEMA \
        "CREATE TABLE IF NOT EXISTS lease (" \
        " id INTEGER PRIMARY KEY CHECK (id = 1), rollout_id INTEGER NOT NULL, pid INTEGER NOT NULL," \
        " host TEXT NOT NULL, started_at INTEGER NOT NULL, heartbeat INTEGER NOT NULL);"

static inline struct sqlite_store *sqlite_of(struct store *s)
{
        return (struct sqlite_store *)s;
}

int sqlite_lease_note_rollout(struct sqlite_store *s, long long rollout_id, struct errbuf *e);

static inline int sqlite_fail(struct sqlite_store *s, struct errbuf *e, const char *what)
{
        return db_fail(&s->db, e, what);
}

void sqlite_store_close(struct sqlite_store *s);
int sqlite_rollout_load(struct sqlite_store *s, long long id, struct rollout_rec **ret, struct errbuf *e);
int sqlite_rollout_list(struct sqlite_store *s, unsigned limit,
                        int (*cb)(const struct rollout_rec *r, void *userdata), void *userdata,
                        struct errbuf *e);
int sqlite_drift_save(struct sqlite_store *s, struct drift_scan *scan, struct errbuf *e);
int sqlite_drift_last(struct sqlite_store *s, struct drift_scan *ret, struct errbuf *e);
int sqlite_lease_take(struct sqlite_store *s, const struct store_lease *me, struct store_lease *ret_holder,
                      struct errbuf *e);
int sqlite_lease_get(struct sqlite_store *s, struct store_lease *ret, struct errbuf *e);
int sqlite_lease_release(struct sqlite_store *s, struct errbuf *e);
