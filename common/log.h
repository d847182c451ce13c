/* SPDX-License-Identifier: MIT */
/* Diagnostics for programs (agent/, controller/): always stderr. Library code never logs. */
#pragma once

#include <pthread.h>

#include "common/util.h"

enum log_level { LOG_LEVEL_ERR, LOG_LEVEL_WARN, LOG_LEVEL_INFO, LOG_LEVEL_DEBUG, LOG_LEVEL_MAX };

void log_set_level(enum log_level level);
void log_set_prefix(const char *prefix);   /* e.g. "nettune-agent" */
void log_msg(enum log_level level, const char *fmt, ...) _printf_(2, 3);

/*
 * A program's tap on its own diagnostics (NULL: none): fn sees every message
 * log_msg prints, after it is printed, as one line without the prefix. nettunectl's
 * --output json makes its error object from it.
 */
void log_set_tap(void (*fn)(enum log_level level, const char *msg, void *ud), void *ud);

#define log_err(...) log_msg(LOG_LEVEL_ERR, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_LEVEL_WARN, __VA_ARGS__)
#define log_info(...) log_msg(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...) log_msg(LOG_LEVEL_DEBUG, __VA_ARGS__)

/*
 * Lines a peer can cause (refused clients), at most per_second a second; the rest
 * are counted and summed up in one line when the next second's first one comes:
 * "<prefix>: 12 more <noun> were not logged".
 */
struct log_limit {
        pthread_mutex_t lock;
        const char *prefix, *noun;
        unsigned per_second;
        long long second;
        unsigned count, suppressed;
};
#define LOG_LIMIT_INIT(prefix, noun, per_second) \
        { PTHREAD_MUTEX_INITIALIZER, (prefix), (noun), (per_second), 0, 0, 0 }

/* A warning "<prefix>: <message>" unless this second's lines are used up. */
void log_limited(struct log_limit *l, const char *fmt, ...) _printf_(2, 3);
