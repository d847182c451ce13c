/* SPDX-License-Identifier: MIT */
#include <stdarg.h>

#include "common/errbuf.h"

int errbuf_set(struct errbuf *e, int err, const char *where, const char *fmt, ...)
{
        va_list ap;

        if (!e)
                return err > 0 ? -err : err;
        snprintf(e->where, sizeof(e->where), "%s", where ? where : "");
        va_start(ap, fmt);
        vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
        va_end(ap);
        return err > 0 ? -err : err;
}

void errbuf_prefix(struct errbuf *e, const char *fmt, ...)
{
        char head[256], old[sizeof(e->msg)];
        va_list ap;

        if (!e)
                return;
        va_start(ap, fmt);
        vsnprintf(head, sizeof(head), fmt, ap);
        va_end(ap);
        memcpy(old, e->msg, sizeof(old));
        if (snprintf(e->msg, sizeof(e->msg), "%s: %s", head, old) >= (int)sizeof(e->msg))
                memcpy(e->msg + sizeof(e->msg) - 4, "...", 4);      /* say it was cut */
}

void errbuf_suffix(struct errbuf *e, const char *text)
{
        size_t n;

        if (!e)
                return;
        n = strlen(e->msg);
        if (n < sizeof(e->msg))
                snprintf(e->msg + n, sizeof(e->msg) - n, "%s", text);
}

const char *errbuf_str(const struct errbuf *e, char *buf, size_t size)
{
        int n;

        if (e->where[0])
                n = snprintf(buf, size, "%s: %s", e->where, e->msg);
        else
                n = snprintf(buf, size, "%s", e->msg);
        if (n >= (int)size && size >= 4)
                memcpy(buf + size - 4, "...", 4);
        return buf;
}
