/* SPDX-License-Identifier: MIT */
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent/measure/measure.h"
#include "common/clock.h"
#include "common/util.h"

/* The node's measurement slot (this process). */
static struct {
        pthread_mutex_t lock;
        bool held;                      /* a measurement runs: info says which */
        bool api;                       /* ... and the API claimed it (a client's probe or fabric run) */
        struct measure_info info;
        unsigned txns;                  /* transactions of this process in flight */
        unsigned long long seq;         /* the API's measurements so far: their ids */
} slot = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The first line of /proc/stat: busy and total jiffies of all CPUs. */
static bool host_cpu(unsigned long long *busy, unsigned long long *total)
{
        unsigned long long v[8] = { 0 };
        _cleanup_fclose_ FILE *f = fopen("/proc/stat", "re");

        if (!f || fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3],
                         &v[4], &v[5], &v[6], &v[7]) != 8)
                return false;
        *total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
        *busy = *total - v[3] - v[4];   /* idle, iowait */
        return true;
}

static double loadavg_1m(void)
{
        _cleanup_fclose_ FILE *f = fopen("/proc/loadavg", "re");
        double l = 0;

        if (!f || fscanf(f, "%lf", &l) != 1)
                return 0;
        return l;
}

static long long cpu_us(const struct rusage *r)
{
        return (long long)(r->ru_utime.tv_sec + r->ru_stime.tv_sec) * 1000000 + r->ru_utime.tv_usec +
               r->ru_stime.tv_usec;
}

int64_t measure_now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t measure_ends_ms(unsigned runs, unsigned duration_ms)
{
        return measure_now_ms() + (int64_t)runs * ((int64_t)duration_ms + MEASURE_RUN_SLACK_MS);
}

int measure_claim(const char *kind, int64_t ends_ms, struct measure_info *ret, struct measure_info *ret_busy)
{
        int r = 0;

        pthread_mutex_lock(&slot.lock);
        if (slot.held || slot.txns) {
                *ret_busy = slot.held ? slot.info : (struct measure_info){ .kind = "transaction",
                                                                           .started_ms = 0, .ends_ms = 0 };
                r = -EBUSY;
        } else {
                slot.held = slot.api = true;
                slot.info = (struct measure_info){ .started_ms = measure_now_ms(), .ends_ms = ends_ms };
                snprintf(slot.info.kind, sizeof(slot.info.kind), "%s", kind);
                snprintf(slot.info.id, sizeof(slot.info.id), "%s-%llu", kind, ++slot.seq);
                if (ret)
                        *ret = slot.info;
        }
        pthread_mutex_unlock(&slot.lock);
        return r;
}

void measure_release(void)
{
        pthread_mutex_lock(&slot.lock);
        slot.held = slot.api = false;
        pthread_mutex_unlock(&slot.lock);
}

int measure_txn_enter(struct measure_info *ret_busy)
{
        int r = 0;

        pthread_mutex_lock(&slot.lock);
        if (slot.held && slot.api) {
                *ret_busy = slot.info;
                r = -EBUSY;
        } else {
                slot.txns++;
        }
        pthread_mutex_unlock(&slot.lock);
        return r;
}

void measure_txn_leave(void)
{
        pthread_mutex_lock(&slot.lock);
        if (slot.txns)
                slot.txns--;
        pthread_mutex_unlock(&slot.lock);
}

bool measure_running(struct measure_info *ret)
{
        bool held;

        pthread_mutex_lock(&slot.lock);
        held = slot.held;
        if (held && ret)
                *ret = slot.info;
        pthread_mutex_unlock(&slot.lock);
        return held;
}

json_t *measure_info_to_json(const struct measure_info *m)
{
        return json_pack("{s:s, s:s, s:I, s:o}", "id", m->id, "kind", m->kind, "started_ms", (json_int_t)m->started_ms,
                         "ends_ms", m->ends_ms ? json_integer(m->ends_ms) : json_null());
}

void measure_begin_as(struct measure_span *s, int64_t tx, const char *phase, int64_t ends_ms)
{
        measure_begin(s);
        pthread_mutex_lock(&slot.lock);
        /* The API claims nothing while a transaction runs, so the slot is free for its phases. */
        if (!slot.held) {
                slot.held = true;
                slot.api = false;
                slot.info = (struct measure_info){ .started_ms = measure_now_ms(), .ends_ms = ends_ms };
                snprintf(slot.info.kind, sizeof(slot.info.kind), "%s", phase);
                snprintf(slot.info.id, sizeof(slot.info.id), "tx-%lld-%s", (long long)tx, phase);
                s->noted = true;
        }
        pthread_mutex_unlock(&slot.lock);
}

void measure_begin(struct measure_span *s)
{
        pid_t tid = (pid_t)syscall(SYS_gettid);

        memset(s, 0, sizeof(*s));
        errno = 0;
        s->nice = getpriority(PRIO_PROCESS, (id_t)tid);
        s->raised = errno == 0 && setpriority(PRIO_PROCESS, (id_t)tid, s->nice - MEASURE_NICE_BOOST) == 0;
        host_cpu(&s->host_busy, &s->host_total);
        getrusage(RUSAGE_SELF, &s->self);
        getrusage(RUSAGE_THREAD, &s->thread);
        s->wall_ms = clock_mono_ms();
}

void measure_end(struct measure_span *s, struct measure_load *ret)
{
        unsigned long long busy = 0, total = 0;
        struct rusage self, thread;
        long long wall_ms = clock_mono_ms() - s->wall_ms;
        long long other_us;

        getrusage(RUSAGE_SELF, &self);
        getrusage(RUSAGE_THREAD, &thread);
        memset(ret, 0, sizeof(*ret));
        ret->measured = true;
        other_us = (cpu_us(&self) - cpu_us(&s->self)) - (cpu_us(&thread) - cpu_us(&s->thread));
        ret->agent_cpu_pct = wall_ms > 0 ? fmax(0, (double)other_us / 10.0 / (double)wall_ms) : 0;
        if (s->host_total && host_cpu(&busy, &total) && total > s->host_total)
                ret->host_busy_pct = (double)(busy - s->host_busy) * 100.0 / (double)(total - s->host_total);
        ret->loadavg_1m = loadavg_1m();
        ret->priority_raised = s->raised;
        if (s->raised)
                setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), s->nice);
        if (s->noted) {
                pthread_mutex_lock(&slot.lock);
                slot.held = false;
                pthread_mutex_unlock(&slot.lock);
                s->noted = false;
        }
}

void measure_give_back(void)
{
        malloc_trim(0);
}

bool measure_loads_differ(const struct measure_load *base, const struct measure_load *post, double *ret_delta)
{
        double d;

        if (!base->measured || !post->measured)
                return false;
        d = post->agent_cpu_pct - base->agent_cpu_pct;
        if (ret_delta)
                *ret_delta = d;
        return fabs(d) > MEASURE_LOAD_DELTA_MAX;
}
