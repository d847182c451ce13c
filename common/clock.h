/* SPDX-License-Identifier: MIT */
/*
 * The clocks, read one way everywhere. Monotonic for durations, deadlines and
 * rates (never jumps with the wall clock); the wall clock (CLOCK_REALTIME) only for
 * times another process or machine reads: journal rows, a rollout's records, a
 * fabric run's agreed start.
 */
#pragma once

#include <stdint.h>
#include <time.h>

/* Milliseconds on the monotonic clock. */
static inline int64_t clock_mono_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Nanoseconds on the monotonic clock (the counter sampler's 10 ms periods). */
static inline int64_t clock_mono_ns(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Seconds on the monotonic clock, to the nanosecond. */
static inline double clock_mono_s(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Milliseconds since the epoch. */
static inline int64_t clock_wall_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Seconds since the epoch, to the nanosecond. */
static inline double clock_wall_s(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}
