/* SPDX-License-Identifier: MIT */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "agent/measure/measure.h"
#include "common/util.h"

static pthread_mutex_t quiet_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t quiet_done = PTHREAD_COND_INITIALIZER;
static unsigned measuring;              /* measurements running in this process */

static long long mono_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

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

void measure_begin(struct measure_span *s)
{
        pid_t tid = (pid_t)syscall(SYS_gettid);

        memset(s, 0, sizeof(*s));
        pthread_mutex_lock(&quiet_lock);
        measuring++;
        pthread_mutex_unlock(&quiet_lock);
        errno = 0;
        s->nice = getpriority(PRIO_PROCESS, (id_t)tid);
        s->raised = errno == 0 && setpriority(PRIO_PROCESS, (id_t)tid, s->nice - MEASURE_NICE_BOOST) == 0;
        host_cpu(&s->host_busy, &s->host_total);
        getrusage(RUSAGE_SELF, &s->self);
        getrusage(RUSAGE_THREAD, &s->thread);
        s->wall_ms = mono_ms();
}

void measure_end(struct measure_span *s, struct measure_load *ret)
{
        unsigned long long busy = 0, total = 0;
        struct rusage self, thread;
        long long wall_ms = mono_ms() - s->wall_ms;
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
        pthread_mutex_lock(&quiet_lock);
        measuring--;
        pthread_cond_broadcast(&quiet_done);
        pthread_mutex_unlock(&quiet_lock);
}

bool measure_wait_quiet(unsigned max_ms)
{
        struct timespec until;
        bool quiet;

        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_sec += max_ms / 1000;
        until.tv_nsec += (long)(max_ms % 1000) * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
                until.tv_sec++;
                until.tv_nsec -= 1000000000L;
        }
        pthread_mutex_lock(&quiet_lock);
        while (measuring && pthread_cond_timedwait(&quiet_done, &quiet_lock, &until) == 0)
                ;
        quiet = measuring == 0;
        pthread_mutex_unlock(&quiet_lock);
        return quiet;
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
