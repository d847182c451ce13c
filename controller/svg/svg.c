/* SPDX-License-Identifier: MIT */
/* The SVG writer every picture of nettunectl uses (svg.h). */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "controller/svg/svg.h"

static bool grow(struct svg *s, size_t need)
{
        char *b;
        size_t cap;

        if (s->oom)
                return false;
        if (s->len + need < s->cap)
                return true;
        cap = s->cap ? s->cap : 8192;
        while (cap <= s->len + need)
                cap *= 2;
        b = realloc(s->buf, cap);
        if (!b) {
                s->oom = true;
                return false;
        }
        s->buf = b;
        s->cap = cap;
        return true;
}

static void vput(struct svg *s, const char *fmt, va_list ap)
{
        va_list aq;
        int n;

        va_copy(aq, ap);
        n = vsnprintf(NULL, 0, fmt, aq);
        va_end(aq);
        if (n < 0 || !grow(s, (size_t)n + 1))
                return;
        vsnprintf(s->buf + s->len, s->cap - s->len, fmt, ap);
        s->len += (size_t)n;
}

void svg_put(struct svg *s, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vput(s, fmt, ap);
        va_end(ap);
}

void svg_esc(struct svg *s, const char *text)
{
        for (const char *p = text; p && *p; p++) {
                const char *e = *p == '&' ? "&amp;" : *p == '<' ? "&lt;" : *p == '>' ? "&gt;" :
                                *p == '"' ? "&quot;" : *p == '\'' ? "&apos;" : NULL;

                if (e)
                        svg_put(s, "%s", e);
                else if ((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t')
                        svg_put(s, " ");        /* not allowed in XML 1.0 */
                else
                        svg_put(s, "%c", *p);
        }
}

void svg_begin(struct svg *s, int width, int height, const char *title, const char *desc)
{
        svg_put(s, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" "
                "version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, "
                "Arial, sans-serif\" role=\"img\" aria-labelledby=\"title desc\">\n<title id=\"title\">", width,
                height, width, height);
        svg_esc(s, title);
        svg_put(s, "</title>\n<desc id=\"desc\">");
        svg_esc(s, desc);
        svg_put(s, "</desc>\n<rect id=\"page\" width=\"100%%\" height=\"100%%\" fill=\"#FFFFFF\"/>\n");
}

void svg_text(struct svg *s, double x, double y, const char *attrs, const char *fmt, ...)
{
        char buf[1024];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);
        svg_put(s, "<text x=\"%.1f\" y=\"%.1f\"%s%s%s>", x, y, strstr(attrs, "font-size") ? "" : " font-size=\"12\"",
                *attrs ? " " : "", attrs);
        svg_esc(s, buf);
        svg_put(s, "</text>\n");
}

char *svg_end(struct svg *s)
{
        char *doc;

        svg_put(s, "</svg>\n");
        if (s->oom) {
                free(s->buf);
                doc = NULL;
        } else {
                doc = s->buf;
        }
        *s = (struct svg){ 0 };
        return doc;
}

unsigned svg_ticks(double lo, double hi, unsigned want, double *ret, double *ret_step)
{
        static const double steps[] = { 1, 2, 5, 10 };
        double span, mag, step = 1;
        unsigned n = 0;

        if (!isfinite(lo) || !isfinite(hi) || hi <= lo)
                hi = lo + 1;
        if (want < 2)
                want = 2;
        span = (hi - lo) / (want - 1);
        mag = pow(10, floor(log10(span)));
        for (size_t i = 0; i < ARRAY_SIZE(steps); i++) {
                step = steps[i] * mag;
                if (step >= span)
                        break;
        }
        for (double v = ceil(lo / step - 1e-9) * step; v <= hi + step * 1e-9 && n < SVG_TICKS_MAX; v += step)
                ret[n++] = fabs(v) < step * 1e-9 ? 0 : v;
        *ret_step = step;
        return n;
}

void svg_tick_label(double v, double step, char *buf, size_t size)
{
        int decimals = 0;

        if (fabs(v) >= 1e6 && step >= 1e5) {
                svg_tick_label(v / 1e6, step / 1e6, buf, size);
                strncat(buf, "M", size - strlen(buf) - 1);
                return;
        }
        if (fabs(v) >= 1e4 && step >= 1e3) {
                svg_tick_label(v / 1e3, step / 1e3, buf, size);
                strncat(buf, "k", size - strlen(buf) - 1);
                return;
        }
        for (double s = step; decimals < 6 && fabs(s - round(s)) > 1e-9 * fmax(1, fabs(s)); s *= 10)
                decimals++;
        snprintf(buf, size, "%.*f", decimals, v);
}

int svg_write(const char *path, const char *doc)
{
        size_t len = strlen(doc), off = 0;
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644), r = 0;

        if (fd < 0)
                return -errno;
        while (off < len && r == 0) {
                ssize_t n = write(fd, doc + off, len - off);

                if (n < 0 && errno != EINTR)
                        r = -errno;
                else if (n > 0)
                        off += (size_t)n;
        }
        if (close(fd) < 0 && r == 0)
                r = -errno;
        return r;
}
