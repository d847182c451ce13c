/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdarg.h>
#include <time.h>

#include "common/log.h"
#include "common/progress.h"

static enum log_level max_level = LOG_LEVEL_INFO;
static const char *log_prefix = "nettune";
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static void (*log_tap)(enum log_level level, const char *msg, void *ud);
static void *log_tap_ud;

void log_set_tap(void (*fn)(enum log_level level, const char *msg, void *ud), void *ud)
{
        log_tap = fn;
        log_tap_ud = ud;
}

void log_set_level(enum log_level level)
{
        max_level = level;
}

void log_set_prefix(const char *prefix)
{
        log_prefix = prefix;
}

void log_msg(enum log_level level, const char *fmt, ...)
{
        static const char *const names[LOG_LEVEL_MAX] = { "error", "warning", "", "debug" };
        va_list ap;

        if (level > max_level)
                return;
        pthread_mutex_lock(&log_lock);
        progress_clear_line();          /* a live status line would run into the message */
        fprintf(stderr, "%s: ", log_prefix);
        if (names[level][0])
                fprintf(stderr, "%s: ", names[level]);
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
        if (log_tap) {
                char msg[2048];

                va_start(ap, fmt);
                vsnprintf(msg, sizeof(msg), fmt, ap);
                va_end(ap);
                log_tap(level, msg, log_tap_ud);
        }
        pthread_mutex_unlock(&log_lock);
}

void log_limited(struct log_limit *l, const char *fmt, ...)
{
        struct timespec ts;
        unsigned suppressed = 0;
        char msg[512];
        va_list ap;
        bool show;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        pthread_mutex_lock(&l->lock);
        if ((long long)ts.tv_sec != l->second) {
                suppressed = l->suppressed;
                l->second = (long long)ts.tv_sec;
                l->count = l->suppressed = 0;
        }
        show = l->count++ < l->per_second;
        if (!show)
                l->suppressed++;
        pthread_mutex_unlock(&l->lock);
        if (suppressed)
                log_warn("%s: %u more %s were not logged", l->prefix, suppressed, l->noun);
        if (!show)
                return;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        log_warn("%s: %s", l->prefix, msg);
}
