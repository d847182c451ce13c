/* SPDX-License-Identifier: MIT */
/*
 * The generic switch driver flow behind every dialect: one SSH session per
 * transaction (open), read, apply only the delta as one native transaction,
 * commit, restore (native abort or rollback first, then verify against the
 * snapshot, then write the snapshot back if the native path fell short), close.
 */
#include <stdarg.h>
#include <time.h>

#include "switch.h"

static const char *const method_names[SWITCH_RESTORE_MAX] = {
        [SWITCH_RESTORE_NONE] = "none",
        [SWITCH_RESTORE_VENDOR_ABORT] = "vendor-abort",
        [SWITCH_RESTORE_VENDOR_TIMER] = "vendor-timer",
        [SWITCH_RESTORE_CHECKPOINT] = "checkpoint-rollback",
        [SWITCH_RESTORE_DRIVER] = "driver-reapply",
        [SWITCH_RESTORE_FAILED] = "failed",
};

static struct switch_session *sess(const struct target *t)
{
        return (struct switch_session *)t->session;
}

const char *switch_restore_method_name(enum switch_restore_method m)
{
        return (unsigned)m < SWITCH_RESTORE_MAX ? method_names[m] : "unknown";
}

enum switch_restore_method switch_restore_method(const struct target *t)
{
        return t && t->kind == TARGET_SWITCH && sess(t) ? sess(t)->restore_method : SWITCH_RESTORE_NONE;
}

const char *switch_last_restore_method(const struct target *t)
{
        return switch_restore_method_name(switch_restore_method(t));
}

unsigned switch_last_apply_commands(const struct target *t)
{
        return t && t->kind == TARGET_SWITCH && sess(t) ? sess(t)->apply_commands : 0;
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

static int connect_session(struct switch_session *s, struct errbuf *e)
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

static void session_free(struct switch_session *s)
{
        if (!s)
                return;
        ssh_session_close(s->ssh);
        json_decref(s->native);
        json_decref(s->saved);
        free(s);
}

static int session_new(const struct switch_dialect *d, struct target *t, struct switch_session **ret,
                       struct errbuf *e)
{
        static unsigned counter;
        struct switch_session *s;
        int r;

        if (t->kind != TARGET_SWITCH || !t->sw)
                return errbuf_set(e, EINVAL, t->name, "not a switch target");
        s = calloc(1, sizeof(*s));
        if (!s)
                return errbuf_set(e, ENOMEM, t->name, "out of memory");
        s->d = d;
        s->sw = t->sw;
        s->env = t->env;
        snprintf(s->where, sizeof(s->where), "switch '%s' (%s)", t->sw->name, d->name);
        snprintf(s->txid, sizeof(s->txid), "nettune-%ld-%d-%u", (long)time(NULL), (int)getpid(), ++counter);
        r = connect_session(s, e);
        if (r < 0) {
                session_free(s);
                return r;
        }
        *ret = s;
        return 0;
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
                r = connect_session(s, e);
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

/* The target's session, or a temporary one (*tmp) for calls outside open/close. */
static int session_get(const struct switch_dialect *d, struct target *t, struct switch_session **tmp,
                       struct switch_session **ret, struct errbuf *e)
{
        *tmp = NULL;
        if (sess(t)) {
                *ret = sess(t);
                return 0;
        }
        int r = session_new(d, t, tmp, e);
        if (r < 0)
                return r;
        *ret = *tmp;
        return 0;
}

int switch_drv_caps(const struct switch_dialect *d, struct target *t, uint32_t *ret, struct errbuf *e)
{
        /* Not this dialect: routing goes on to the next driver; not an error to report. */
        if (t->kind != TARGET_SWITCH || !t->sw || !streq(t->sw->dialect, d->name))
                return (void)e, -EOPNOTSUPP;
        *ret = SWITCH_FIELDS;
        return 0;
}

static void copy_fields(const struct state *from, uint32_t fields, struct state *to)
{
        fields &= from->present;
        if (fields & STATE_BIT(STATE_FIELD_MTU)) {
                to->n_ports = from->n_ports;
                memcpy(to->ports, from->ports, sizeof(to->ports));
                to->mtu = from->mtu;
        }
        if (fields & STATE_BIT(STATE_FIELD_TRUST))
                to->trust = from->trust;
        if (fields & STATE_BIT(STATE_FIELD_DSCP_MAP))
                memcpy(to->dscp_prio, from->dscp_prio, sizeof(to->dscp_prio));
        if (fields & STATE_BIT(STATE_FIELD_PFC))
                to->pfc_enabled = from->pfc_enabled;
        if (fields & STATE_BIT(STATE_FIELD_ECN))
                to->ecn = from->ecn;
        to->present |= fields;
}

static int read_all(struct switch_session *s, struct state *ret, struct errbuf *e)
{
        state_init(ret);
        s->mixed = 0;
        return s->d->read(s, ret, e);
}

int switch_drv_read(const struct switch_dialect *d, struct target *t, uint32_t fields, struct state *ret,
                    struct errbuf *e)
{
        struct switch_session *s, *tmp;
        struct state live;
        int r;

        r = session_get(d, t, &tmp, &s, e);
        if (r < 0)
                return r;
        r = read_all(s, &live, e);
        if (r >= 0)
                copy_fields(&live, fields & SWITCH_FIELDS, ret);
        session_free(tmp);
        return r;
}

static int apply_in(struct switch_session *s, const struct state *desired_in, uint32_t fields,
                    unsigned confirm_s, struct errbuf *e)
{
        struct state desired, live;
        uint32_t delta;
        unsigned before;
        int r;

        switch_expand_desired(s->sw, desired_in, &desired);
        r = switch_validate(s->d, s->sw, &desired, fields, e);
        if (r < 0)
                return r;
        fields &= desired.present & SWITCH_FIELDS;
        r = read_all(s, &live, e);
        if (r < 0)
                return r;
        delta = switch_state_delta(&live, &desired, fields) | (s->mixed & fields);
        if (s->d->validate) {
                r = s->d->validate(s, &live, &desired, delta, e);
                if (r < 0)
                        return r;
        }
        s->apply_commands = 0;
        if (!delta)
                return 0;
        before = ssh_session_commands(s->ssh);
        r = s->d->apply(s, &live, &desired, delta, confirm_s, e);
        s->apply_commands = ssh_session_commands(s->ssh) - before;
        return r;
}

int switch_drv_apply(const struct switch_dialect *d, struct target *t, const struct state *desired,
                     uint32_t fields, struct errbuf *e)
{
        struct switch_session *s, *tmp;
        unsigned confirm_s = t->env ? t->env->confirm_timeout_s : 0;
        int r;

        /* Check before connecting: what the vendor cannot express never reaches it. */
        struct state expanded;
        switch_expand_desired(t->sw, desired, &expanded);
        r = switch_validate(d, t->sw, &expanded, fields, e);
        if (r < 0)
                return r;
        r = session_get(d, t, &tmp, &s, e);
        if (r < 0)
                return r;
        /* A temporary session cannot be confirmed later: no timer then. */
        r = apply_in(s, desired, fields, tmp ? 0 : confirm_s, e);
        if (tmp && tmp->pending && r >= 0)
                r = d->commit(tmp, e);
        session_free(tmp);
        return r;
}

int switch_drv_commit(const struct switch_dialect *d, struct target *t, struct errbuf *e)
{
        struct switch_session *s = sess(t);
        int r;

        if (!s || !s->pending)
                return 0;
        r = d->commit(s, e);
        if (r >= 0)
                s->pending = s->timer = false;
        return r;
}

/* The native undo of a pending change. Returns 1 when it ran, 0 when there was none. */
static int native_undo(struct switch_session *s, struct errbuf *e)
{
        int r;

        if (!s->pending)
                return 0;
        r = s->d->abort(s, e);
        if (r == -EOPNOTSUPP)
                return 0;
        if (r < 0)
                return r;
        s->pending = s->timer = false;
        return 1;
}

static int unreachable(struct switch_session *s, int r, struct errbuf *e)
{
        if (s->pending && s->timer) {
                s->restore_method = SWITCH_RESTORE_VENDOR_TIMER;
                errbuf_prefix(e, "cannot reach the switch to undo the change; its commit timer reverts it "
                              "within %u s", s->timer_s);
                return r;
        }
        s->restore_method = SWITCH_RESTORE_FAILED;
        errbuf_prefix(e, "cannot restore");
        return r;
}

static int restore_in(struct switch_session *s, const struct state *snapshot, uint32_t fields,
                      struct errbuf *e)
{
        struct state live;
        int r;

        s->restore_method = SWITCH_RESTORE_NONE;
        fields &= snapshot->present & SWITCH_FIELDS;
        if (!ssh_session_alive(s->ssh) && (r = connect_session(s, e)) < 0)
                return unreachable(s, r, e);
        if (!s->pending && s->d->adopt && (r = s->d->adopt(s, e)) < 0 && !ssh_session_alive(s->ssh))
                return unreachable(s, r, e);
        r = native_undo(s, e);
        if (r < 0 && !ssh_session_alive(s->ssh))
                return unreachable(s, r, e);
        if (r > 0 && s->restore_method == SWITCH_RESTORE_NONE)
                s->restore_method = SWITCH_RESTORE_VENDOR_ABORT;   /* the dialect may say more */
        r = read_all(s, &live, e);
        if (r < 0)
                return unreachable(s, r, e);
        if (switch_state_equal(&live, snapshot, fields) && !(s->mixed & fields))
                return 0;
        /* The native path fell short (or there was none): write the snapshot back. */
        s->pending = s->timer = false;
        r = apply_in(s, snapshot, fields, 0, e);
        if (r >= 0)
                r = read_all(s, &live, e);
        if (r >= 0 && !switch_state_equal(&live, snapshot, fields))
                r = errbuf_set(e, EIO, s->where, "read back after restore differs from the snapshot");
        s->restore_method = r < 0 ? SWITCH_RESTORE_FAILED : SWITCH_RESTORE_DRIVER;
        return r;
}

int switch_drv_restore(const struct switch_dialect *d, struct target *t, const struct state *snapshot,
                       uint32_t fields, struct errbuf *e)
{
        struct switch_session *s, *tmp;
        int r;

        r = session_get(d, t, &tmp, &s, e);
        if (r < 0)
                return r;
        r = restore_in(s, snapshot, fields, e);
        session_free(tmp);
        return r;
}

int switch_drv_open(const struct switch_dialect *d, struct target *t, struct errbuf *e)
{
        struct switch_session *s;
        int r;

        if (sess(t))
                return 0;
        r = session_new(d, t, &s, e);
        if (r < 0)
                return r;
        t->session = (struct driver_session *)s;
        return 0;
}

void switch_drv_close(struct target *t)
{
        if (!t || t->kind != TARGET_SWITCH)
                return;
        session_free(sess(t));
        t->session = NULL;
}
