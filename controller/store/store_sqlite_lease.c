/* SPDX-License-Identifier: MIT */
/*
 * The rollout lease: one row per database naming the controller that drives a
 * rollout (pid, host, start, heartbeat). Taken in one BEGIN IMMEDIATE
 * transaction; a thread with its own connection refreshes the heartbeat every
 * STORE_LEASE_BEAT_S while it is held. A lease whose owner is gone (same host,
 * the pid no longer runs) or whose heartbeat is older than STORE_LEASE_STALE_S
 * is taken over.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "controller/store/store_sqlite_internal.h"

struct store_beat {
        pthread_t thread;
        pthread_mutex_t lock;
        pthread_cond_t cond;
        bool stop;
        struct db db;
        struct store_lease me;
};


void store_lease_self(struct store_lease *ret, long long rollout_id)
{
        *ret = (struct store_lease) { .rollout_id = rollout_id, .pid = getpid(), .started_at = time(NULL) };
        if (gethostname(ret->host, sizeof(ret->host) - 1) < 0)
                snprintf(ret->host, sizeof(ret->host), "localhost");
        ret->heartbeat = ret->started_at;
}

/* A zombie still answers kill(pid, 0): look at its state too. */
static bool pid_gone(long long pid)
{
        char path[64], buf[512];
        FILE *f;
        char *p;

        if (pid <= 0 || (kill((pid_t)pid, 0) < 0 && errno == ESRCH))
                return true;
        snprintf(path, sizeof(path), "/proc/%lld/stat", pid);
        f = fopen(path, "re");
        if (!f)
                return false;
        p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
        fclose(f);
        return p && (p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X'));
}

bool store_lease_stale(const struct store_lease *l, long long now)
{
        struct store_lease self;

        store_lease_self(&self, 0);
        if (streq(l->host, self.host) && pid_gone(l->pid))
                return true;
        return l->heartbeat + STORE_LEASE_STALE_S < now;
}

static int read_row(struct sqlite_store *s, struct store_lease *ret, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;
        int rc;

        if (sqlite3_prepare_v2(s->db.h, "SELECT rollout_id, pid, host, started_at, heartbeat FROM lease"
                               " WHERE id = 1", -1, &st, NULL) != SQLITE_OK)
                return sqlite_fail(s, e, "cannot read the rollout lease");
        rc = sqlite3_step(st);
        if (rc == SQLITE_ROW) {
                *ret = (struct store_lease) {
                        .rollout_id = sqlite3_column_int64(st, 0), .pid = sqlite3_column_int64(st, 1),
                        .started_at = sqlite3_column_int64(st, 3), .heartbeat = sqlite3_column_int64(st, 4),
                };
                db_col_copy(st, 2, ret->host, sizeof(ret->host));
        }
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
                return sqlite_fail(s, e, "cannot read the rollout lease");
        return rc == SQLITE_ROW ? 1 : 0;
}

static int write_row(struct sqlite_store *s, const struct store_lease *l, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;

        if (sqlite3_prepare_v2(s->db.h, "INSERT OR REPLACE INTO lease (id, rollout_id, pid, host, started_at,"
                               " heartbeat) VALUES (1,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
                return sqlite_fail(s, e, "cannot take the rollout lease");
        sqlite3_bind_int64(st, 1, l->rollout_id);
        sqlite3_bind_int64(st, 2, l->pid);
        sqlite3_bind_text(st, 3, l->host, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 4, l->started_at);
        sqlite3_bind_int64(st, 5, l->heartbeat);
        return sqlite3_step(st) == SQLITE_DONE ? 0 : sqlite_fail(s, e, "cannot take the rollout lease");
}

static bool same_owner(const struct store_lease *a, const struct store_lease *b)
{
        return a->pid == b->pid && streq(a->host, b->host);
}

static void beat_once(struct store_beat *b)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;

        if (sqlite3_prepare_v2(b->db.h, "UPDATE lease SET heartbeat = ? WHERE id = 1 AND pid = ? AND host = ?",
                               -1, &st, NULL) != SQLITE_OK)
                return;
        sqlite3_bind_int64(st, 1, (long long)time(NULL));
        sqlite3_bind_int64(st, 2, b->me.pid);
        sqlite3_bind_text(st, 3, b->me.host, -1, SQLITE_STATIC);
        sqlite3_step(st);
}

static void *beat_main(void *userdata)
{
        struct store_beat *b = userdata;
        struct timespec until;

        pthread_mutex_lock(&b->lock);
        while (!b->stop) {
                clock_gettime(CLOCK_REALTIME, &until);
                until.tv_sec += STORE_LEASE_BEAT_S;
                pthread_cond_timedwait(&b->cond, &b->lock, &until);
                if (b->stop)
                        break;
                beat_once(b);
        }
        pthread_mutex_unlock(&b->lock);
        return NULL;
}

static void beat_stop(struct store_beat *b)
{
        if (!b)
                return;
        pthread_mutex_lock(&b->lock);
        b->stop = true;
        pthread_cond_signal(&b->cond);
        pthread_mutex_unlock(&b->lock);
        pthread_join(b->thread, NULL);
        db_close(&b->db);
        pthread_cond_destroy(&b->cond);
        pthread_mutex_destroy(&b->lock);
        free(b);
}

static int beat_start(struct sqlite_store *s, const struct store_lease *me, struct errbuf *e)
{
        struct store_beat *b = calloc(1, sizeof(*b));

        if (!b)
                return errbuf_set(e, ENOMEM, s->db.path, "out of memory");
        b->me = *me;
        pthread_mutex_init(&b->lock, NULL);
        pthread_cond_init(&b->cond, NULL);
        if (db_open(&b->db, s->db.path, "the database", 0, 2000, NULL) < 0 ||
            pthread_create(&b->thread, NULL, beat_main, b) != 0) {
                db_close(&b->db);
                pthread_cond_destroy(&b->cond);
                pthread_mutex_destroy(&b->lock);
                free(b);
                return errbuf_set(e, EIO, s->db.path, "cannot start the rollout lease heartbeat");
        }
        s->beat = b;
        return 0;
}

static int take_locked(struct sqlite_store *s, const struct store_lease *me, struct store_lease *ret_holder,
                       struct errbuf *e)
{
        struct store_lease cur;
        int rc = read_row(s, &cur, e);

        if (rc > 0 && !same_owner(&cur, me) && !store_lease_stale(&cur, (long long)time(NULL))) {
                *ret_holder = cur;
                return -EBUSY;
        }
        return rc < 0 ? rc : write_row(s, me, e);
}

int sqlite_lease_take(struct sqlite_store *s, const struct store_lease *me, struct store_lease *ret_holder,
                     struct errbuf *e)
{
        int rc;

        if (sqlite3_exec(s->db.h, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
                return sqlite_fail(s, e, "cannot take the rollout lease");
        rc = take_locked(s, me, ret_holder, e);
        if (rc < 0) {
                db_rollback(&s->db);
                return rc;
        }
        if (sqlite3_exec(s->db.h, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
                rc = sqlite_fail(s, e, "cannot take the rollout lease");
                db_rollback(&s->db);
                return rc;
        }
        beat_stop(s->beat);
        s->beat = NULL;
        s->lease = *me;
        s->lease_held = true;
        return beat_start(s, me, e);
}

/* Called inside store_rollout_create's transaction once the new rollout has an id. */
int sqlite_lease_note_rollout(struct sqlite_store *s, long long rollout_id, struct errbuf *e)
{
        char sql[256];

        if (!s->lease_held)
                return 0;
        s->lease.rollout_id = rollout_id;
        snprintf(sql, sizeof(sql), "UPDATE lease SET rollout_id = %lld WHERE id = 1 AND pid = %lld",
                 rollout_id, s->lease.pid);
        if (sqlite3_exec(s->db.h, sql, NULL, NULL, NULL) != SQLITE_OK)
                return sqlite_fail(s, e, "cannot update the rollout lease");
        return 0;
}

int sqlite_lease_get(struct sqlite_store *s, struct store_lease *ret, struct errbuf *e)
{
        int rc = read_row(s, ret, e);

        return rc < 0 ? rc : rc == 0 ? -ENOENT : 0;
}

int sqlite_lease_release(struct sqlite_store *s, struct errbuf *e)
{
        _cleanup_stmt_ sqlite3_stmt *st = NULL;

        if (!s || !s->lease_held)
                return 0;
        beat_stop(s->beat);
        s->beat = NULL;
        s->lease_held = false;
        if (sqlite3_prepare_v2(s->db.h, "DELETE FROM lease WHERE id = 1 AND pid = ? AND host = ?",
                               -1, &st, NULL) != SQLITE_OK)
                return sqlite_fail(s, e, "cannot release the rollout lease");
        sqlite3_bind_int64(st, 1, s->lease.pid);
        sqlite3_bind_text(st, 2, s->lease.host, -1, SQLITE_STATIC);
        return sqlite3_step(st) == SQLITE_DONE ? 0 : sqlite_fail(s, e, "cannot release the rollout lease");
}
