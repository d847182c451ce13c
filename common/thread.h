/* SPDX-License-Identifier: MIT */
/*
 * Short helper threads that must run beside their creator, not after it. Woken on
 * the creator's CPU (the scheduler's wake-affine choice), a helper started just
 * before a burst of work runs only once its creator blocks: the two take turns
 * instead of overlapping. These pin the helper to another CPU the process may use
 * (none: it is started as any thread is).
 */
#pragma once

#include <pthread.h>
#include <stdbool.h>

/* pthread_create() on another CPU than the caller's; detached when t is NULL. 0 or an errno value. */
int thread_start_beside(pthread_t *t, void *(*fn)(void *), void *arg);
