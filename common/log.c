/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdarg.h>

#include "common/log.h"
#include "common/progress.h"

static enum log_level max_level = LOG_LEVEL_INFO;
static const char *log_prefix = "nettune";
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

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
        pthread_mutex_unlock(&log_lock);
}
