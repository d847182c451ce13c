/* SPDX-License-Identifier: MIT */
#include <stdarg.h>
#include <sys/ioctl.h>

#include "common/progress.h"

#define PROGRESS_COLUMNS_DEFAULT 80u

/* Where a status line is on screen now (NULL: none): what progress_clear_line() erases.
 * Not a pointer to the struct: a caller may drop its progress without ending it. */
static FILE *live_out;

enum progress_mode progress_mode_for(int fd, bool quiet, bool json, bool lines)
{
        const char *term = getenv("TERM");

        if (quiet || json)
                return PROGRESS_OFF;
        if (isatty(fd) && !streq(term, "dumb"))
                return PROGRESS_TTY;
        return lines ? PROGRESS_LINES : PROGRESS_OFF;
}

static unsigned terminal_columns(FILE *out)
{
        struct winsize ws = { 0 };

        if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
                return ws.ws_col;
        return PROGRESS_COLUMNS_DEFAULT;
}

void progress_init(struct progress *p, enum progress_mode mode, FILE *out)
{
        *p = (struct progress) { .mode = mode, .out = out ? out : stderr };
        if (p->mode == PROGRESS_TTY)
                p->columns = terminal_columns(p->out);
}

static void vformat(char *buf, size_t size, const char *fmt, va_list ap)
{
        buf[0] = '\0';
        if (fmt)
                vsnprintf(buf, size, fmt, ap);
}

/* Cut s to at most max bytes without splitting a UTF-8 sequence. */
static void cut(char *s, size_t max)
{
        size_t n = strlen(s);

        if (n <= max)
                return;
        while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
                max--;
        s[max] = '\0';
}

static void draw(struct progress *p)
{
        char line[512];
        int n;

        n = snprintf(line, sizeof(line), "%s: %s%s%u/%u %s%s done", p->tag, p->label, p->label[0] ? ": " : "",
                     p->done, p->total, p->unit, p->total == 1 ? "" : "s");
        if (n > 0 && (size_t)n < sizeof(line) && p->failed)
                n += snprintf(line + n, sizeof(line) - (size_t)n, ", %u failed", p->failed);
        if (n > 0 && (size_t)n < sizeof(line) && p->note[0])
                snprintf(line + n, sizeof(line) - (size_t)n, ", %s", p->note);
        cut(line, p->columns - 1);
        fprintf(p->out, "\r\033[K%s", line);
        fflush(p->out);
        live_out = p->out;
}

void progress_begin(struct progress *p, const char *tag, unsigned total, const char *unit,
                    const char *label_fmt, ...)
{
        va_list ap;

        snprintf(p->tag, sizeof(p->tag), "%s", tag ? tag : "");
        snprintf(p->unit, sizeof(p->unit), "%s", unit ? unit : "item");
        va_start(ap, label_fmt);
        vformat(p->label, sizeof(p->label), label_fmt, ap);
        va_end(ap);
        p->note[0] = '\0';
        p->total = total;
        p->done = p->failed = 0;
        if (p->mode == PROGRESS_TTY) {
                draw(p);
        } else if (p->mode == PROGRESS_LINES) {
                fprintf(p->out, "%s: %s%s%u %s%s\n", p->tag, p->label, p->label[0] ? ": " : "", total,
                        p->unit, total == 1 ? "" : "s");
                fflush(p->out);
        }
}

void progress_item(struct progress *p, bool failed, const char *fmt, ...)
{
        char text[512];
        va_list ap;

        p->done++;
        p->failed += failed;
        if (p->mode == PROGRESS_TTY) {
                draw(p);
        } else if (p->mode == PROGRESS_LINES) {
                va_start(ap, fmt);
                vformat(text, sizeof(text), fmt, ap);
                va_end(ap);
                fprintf(p->out, "%s: %s\n", p->tag, text);
                fflush(p->out);
        }
}

void progress_note(struct progress *p, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vformat(p->note, sizeof(p->note), fmt, ap);
        va_end(ap);
}

void progress_end(struct progress *p)
{
        if (p->mode != PROGRESS_TTY)
                return;
        draw(p);
        fputc('\n', p->out);
        fflush(p->out);
        live_out = NULL;
}

void progress_clear_line(void)
{
        if (!live_out)
                return;
        fputs("\r\033[K", live_out);
        fflush(live_out);
        live_out = NULL;
}
