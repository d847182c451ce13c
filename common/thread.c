/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <sched.h>

#include "common/thread.h"

int thread_start_beside(pthread_t *t, void *(*fn)(void *), void *arg)
{
        pthread_attr_t attr;
        cpu_set_t allowed, other;
        pthread_t detached;
        int self = sched_getcpu(), r;

        if (pthread_attr_init(&attr) != 0)
                return EAGAIN;
        CPU_ZERO(&other);
        if (self >= 0 && sched_getaffinity(0, sizeof(allowed), &allowed) == 0)
                for (int cpu = 0; cpu < CPU_SETSIZE && !CPU_COUNT(&other); cpu++)
                        if (cpu != self && CPU_ISSET(cpu, &allowed))
                                CPU_SET(cpu, &other);
        if (CPU_COUNT(&other))
                pthread_attr_setaffinity_np(&attr, sizeof(other), &other);
        if (!t)
                pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        r = pthread_create(t ? t : &detached, &attr, fn, arg);
        pthread_attr_destroy(&attr);
        return r;
}
