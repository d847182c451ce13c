/* SPDX-License-Identifier: MIT */
/*
 * A switch session's primitives every dialect and the switch driver call: one
 * command over the session's SSH connection (reconnecting once a dropped session
 * is noticed), its failure named by the switch and the command's first line of
 * output; the session's notes and its policy's name. The bottom of
 * drivers/switch/ above ssh_session.c: switch_txn.c and the dialects' files call
 * it, it calls none of them.
 */
#include <stdarg.h>
#include <time.h>

#include "drivers/switch/switch.h"
#include "drivers/switch/switch_internal.h"

void switch_note(struct switch_session *s, const char *fmt, ...)
{
        char text[DRIVER_NOTE_MAX];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(text, sizeof(text), fmt, ap);
        va_end(ap);
        driver_note(s->t, "%s: %s", s->where, text);
}

const char *switch_policy(const struct switch_session *s)
{
        return s->t && s->t->io ? s->t->io->policy : "";
}

/* Errors from ssh_session name the connection; make them name the switch. */
static void rewhere(struct switch_session *s, struct errbuf *e)
{
        char old[sizeof(e->where)];

        snprintf(old, sizeof(old), "%s", e->where);
        snprintf(e->where, sizeof(e->where), "%s", s->where);
        if (*old)
                errbuf_prefix(e, "%s", old);
}

int64_t switch_now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int switch_session_connect(struct switch_session *s, struct errbuf *e)
{
        const struct switch_config *sw = s->sw;
        struct ssh_options o = {
                .host = sw->host, .port = sw->port, .user = sw->user, .key = sw->key,
                .known_hosts = sw->known_hosts, .connect_timeout_ms = sw->connect_timeout_ms,
                .command_timeout_ms = sw->command_timeout_ms,
        };
        int r;

        ssh_session_close(s->ssh);
        s->ssh = NULL;
        r = ssh_session_open(&o, &s->ssh, e);
        if (r < 0)
                rewhere(s, e);
        return r;
}

static void first_line(const char *text, char *buf, size_t size)
{
        size_t n = 0;

        while (text && (*text == '\n' || *text == ' '))
                text++;
        for (; text && *text && *text != '\n' && n + 1 < size; text++)
                buf[n++] = (*text >= 0x20 && *text < 0x7f) ? *text : '?';
        buf[n] = '\0';
}

int switch_run(struct switch_session *s, const char *cmd, const char *input, char **ret_out,
               struct errbuf *e)
{
        struct ssh_result res;
        char why[200];
        int r;

        if (!ssh_session_alive(s->ssh)) {
                r = switch_session_connect(s, e);
                if (r < 0)
                        return r;
        }
        r = ssh_session_exec(s->ssh, cmd, input, &res, e);
        if (r < 0) {
                rewhere(s, e);
                return r;
        }
        if (res.exit_status != 0) {
                first_line(res.err_len ? res.err : res.out, why, sizeof(why));
                errbuf_set(e, EREMOTEIO, s->where, "'%.120s' failed with exit status %d: '%s'", cmd,
                           res.exit_status, why);
                ssh_result_done(&res);
                return -EREMOTEIO;
        }
        if (ret_out)
                *ret_out = TAKE_PTR(res.out);
        ssh_result_done(&res);
        return 0;
}

int switch_runf(struct switch_session *s, char **ret_out, struct errbuf *e, const char *fmt, ...)
{
        char cmd[SWITCH_CMD_MAX];
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vsnprintf(cmd, sizeof(cmd), fmt, ap);
        va_end(ap);
        if (n < 0 || (size_t)n >= sizeof(cmd))
                return errbuf_set(e, E2BIG, s->where, "command too long");
        return switch_run(s, cmd, NULL, ret_out, e);
}
