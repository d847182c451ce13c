/* SPDX-License-Identifier: MIT */
/*
 * The switch driver behind every dialect: one SSH session per transaction
 * (open), read every port, check the vendor's limits and the dialect's rules,
 * write only the delta the plan computed as one native transaction, commit and
 * save it to the startup configuration, restore (native abort or rollback of
 * our own pending change first — adopted from the ledger after a crash —, then
 * read again and write the snapshot back where the native path fell short, and
 * save that), close.
 */
#include <stdarg.h>
#include <time.h>

#include "drivers/switch/switch.h"
#include "drivers/switch/switch_internal.h"
#include "policies/state/field.h"

extern const struct switch_dialect switch_nvue_dialect;
extern const struct switch_dialect switch_sonic_dialect;
extern const struct switch_dialect switch_eos_dialect;

const struct switch_dialect *const switch_dialects[] = {
        &switch_nvue_dialect,
        &switch_sonic_dialect,
        &switch_eos_dialect,
        NULL,
};

const struct switch_dialect *switch_dialect_find(const char *name)
{
        for (const struct switch_dialect *const *d = switch_dialects; *d; d++)
                if (streq((*d)->name, name))
                        return *d;
        return NULL;
}

static const char *const save_names[SWITCH_SAVE_MAX] = {
        [SWITCH_SAVE_NONE] = "none",
        [SWITCH_SAVE_SAVED] = "saved",
        [SWITCH_SAVE_NOT_DURABLE] = "not-durable",
};

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

enum switch_save switch_last_save(const struct target *t, const char **ret_how)
{
        const struct switch_session *s = t && t->kind == TARGET_SWITCH ? sess(t) : NULL;

        if (ret_how)
                *ret_how = s ? s->save_how : "";
        return s ? s->save : SWITCH_SAVE_NONE;
}

const char *switch_save_name(enum switch_save v)
{
        return (unsigned)v < SWITCH_SAVE_MAX ? save_names[v] : "unknown";
}

static void session_free(struct switch_session *s)
{
        if (!s)
                return;
        ssh_session_close(s->ssh);
        json_decref(s->native);
        json_decref(s->extra);
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
        s->t = t;
        s->base_rev = -1;
        snprintf(s->where, sizeof(s->where), "switch '%s' (%s)", t->sw->name, d->name);
        snprintf(s->txid, sizeof(s->txid), "nettune-%ld-%d-%u", (long)time(NULL), (int)getpid(), ++counter);
        r = switch_session_connect(s, e);
        if (r < 0) {
                session_free(s);
                return r;
        }
        *ret = s;
        return 0;
}

/* The target's session, or a temporary one (*tmp) for calls outside open/close. */
static int session_get(struct target *t, struct switch_session **tmp, struct switch_session **ret,
                       struct errbuf *e)
{
        const struct switch_dialect *d = t->sw ? switch_dialect_find(t->sw->dialect) : NULL;
        int r;

        *tmp = NULL;
        if (sess(t)) {
                *ret = sess(t);
                (*ret)->t = t;          /* the request's io (notes, policy) comes with the target */
                return 0;
        }
        if (!d)
                return errbuf_set(e, EINVAL, t->name, "switch '%s' has no known dialect", t->name);
        r = session_new(d, t, tmp, e);
        if (r < 0)
                return r;
        *ret = *tmp;
        return 0;
}

static int drv_caps(struct target *t, uint32_t *ret, struct errbuf *e)
{
        if (t->kind != TARGET_SWITCH || !t->sw || !switch_dialect_find(t->sw->dialect))
                return errbuf_set(e, EOPNOTSUPP, t->name, "switch '%s': unknown dialect", t->name);
        *ret = SWITCH_FIELDS;
        return 0;
}

/* Every port's state, fresh from the switch: units[0..n_ports). */
static int read_units(struct switch_session *s, struct state *units, struct errbuf *e)
{
        for (unsigned i = 0; i < s->sw->n_ports; i++)
                state_init(&units[i]);
        return s->d->read(s, units, e);
}

static int drv_read(struct target *t, uint32_t fields, struct state *ret, struct errbuf *e)
{
        _cleanup_free_ struct state *units = calloc(STATE_PORTS_MAX, sizeof(*units));
        struct switch_session *s, *tmp;
        int r;

        if (!units)
                return errbuf_set(e, ENOMEM, t->name, "out of memory");
        r = session_get(t, &tmp, &s, e);
        if (r < 0)
                return r;
        r = read_units(s, units, e);
        for (unsigned i = 0; r >= 0 && i < s->sw->n_ports; i++)
                state_copy_fields(&ret[i], &units[i], fields & SWITCH_FIELDS);
        session_free(tmp);
        return r;
}

/* Vendor limits, then the dialect's own checks (which may need the session's last read). */
static int check_in(struct switch_session *s, const struct driver_change *c, struct errbuf *e)
{
        int r = switch_check_limits(s->d, s->sw, c, e);

        if (r >= 0 && s->d->check && c->fields)
                r = s->d->check(s, c, e);
        return r;
}

static int drv_check(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        _cleanup_free_ struct state *units = NULL;
        struct switch_session *s, *tmp;
        int r;

        r = session_get(t, &tmp, &s, e);
        if (r < 0)
                return r;
        /* A temporary session has read nothing yet: the dialect's checks need what the switch holds. */
        if (tmp && s->d->check && !(units = calloc(STATE_PORTS_MAX, sizeof(*units))))
                r = errbuf_set(e, ENOMEM, t->name, "out of memory");
        if (r >= 0 && units)
                r = read_units(s, units, e);
        if (r >= 0)
                r = check_in(s, c, e);
        session_free(tmp);
        return r;
}

/* Save what was written (after a commit, or a restore that wrote the switch). */
static int save_in(struct switch_session *s, struct errbuf *e)
{
        int r;

        if (!s->dirty)
                return 0;
        s->save_how[0] = '\0';
        r = s->d->save(s, e);
        if (r < 0)
                return r;
        s->save = r > 0 ? SWITCH_SAVE_SAVED : SWITCH_SAVE_NOT_DURABLE;
        s->dirty = false;
        return 0;
}

/* Confirm our pending change (if any) and save what was written. */
static int commit_in(struct switch_session *s, struct errbuf *e)
{
        int r = 0;

        if (s->pending) {
                r = s->d->commit(s, e);
                if (r < 0)
                        return r;
                s->pending = s->timer = false;
                switch_ledger_clear(s);
        }
        return save_in(s, e);
}

static int apply_in(struct switch_session *s, const struct driver_change *c, unsigned confirm_s,
                    struct errbuf *e)
{
        struct switch_own own = { .base_rev = -1 };
        unsigned before;
        int r;

        s->apply_commands = 0;
        r = check_in(s, c, e);
        if (r < 0 || !c->fields)
                return r;
        /* The ledger names the change before the switch can hold it (a crash after this adopts it). */
        snprintf(own.txid, sizeof(own.txid), "%s", s->txid);
        r = switch_ledger_write(s, &own, e);
        if (r < 0)
                return r;
        before = ssh_session_commands(s->ssh);
        s->timer_end_ms = 0;
        s->unanswered = false;
        r = s->d->apply(s, c, confirm_s, e);
        s->apply_commands = ssh_session_commands(s->ssh) - before;
        /* The switch took an answered apply before it answered: its timer ends at the latest timer_s from now. */
        if (s->timer && !s->unanswered && !s->timer_end_ms)
                s->timer_end_ms = switch_now_ms() + (int64_t)s->timer_s * 1000;
        if (r >= 0)
                s->dirty = true;
        /* Nothing of ours is left on the switch: no record (a staged edit keeps it, for the undo). */
        if (!s->pending && !s->staged)
                switch_ledger_clear(s);
        return r;
}

static int drv_apply(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        struct switch_session *s, *tmp;
        unsigned confirm_s = t->env ? t->env->confirm_timeout_s : 0;
        int r;

        /* What the vendor cannot express never reaches it: check before connecting. */
        r = switch_check_limits(switch_dialect_find(t->sw->dialect), t->sw, c, e);
        if (r < 0)
                return r;
        r = session_get(t, &tmp, &s, e);
        if (r < 0)
                return r;
        /* A temporary session cannot be confirmed later: no timer, committed and saved at once. */
        r = apply_in(s, c, tmp ? 0 : confirm_s, e);
        if (tmp && r >= 0)
                r = commit_in(tmp, e);
        session_free(tmp);
        return r;
}

static int drv_commit(struct target *t, struct errbuf *e)
{
        struct switch_session *s = sess(t);

        return s ? commit_in(s, e) : 0;
}

/*
 * The native undo of our pending change, or of edits we staged and never applied.
 * Returns 1 when it ran, 0 when there was none. An undo that leaves the startup
 * configuration stale (NVUE with auto-save) asks for a save (dirty).
 */
static int native_undo(struct switch_session *s, struct errbuf *e)
{
        int r;

        if (!s->pending && !s->staged)
                return 0;
        r = s->d->abort(s, e);
        if (r == -EOPNOTSUPP)
                return 0;
        if (r < 0)
                return r;
        s->pending = s->timer = s->staged = s->unanswered = false;
        s->dirty = s->save_after_undo;          /* the dialect's save sees why */
        switch_ledger_clear(s);
        return 1;
}

static int unreachable(struct switch_session *s, int r, struct errbuf *e)
{
        int64_t now = switch_now_ms();

        if (s->pending && s->timer && s->unanswered) {
                /* Taken already, or later (behind the switch's lock): its timer counts from then, not from now. */
                char old[sizeof(e->msg)];

                snprintf(old, sizeof(old), "%s", e->msg);
                s->restore_method = SWITCH_RESTORE_VENDOR_TIMER;
                errbuf_set(e, r < 0 ? -r : EIO, s->where, "its apply got no answer, and the switch none since (%lld s): "
                           "the apply%s%s may have run or may run yet (behind the switch's configuration lock); when it "
                           "runs, the switch's commit timer reverts it %u s later, not %u s from now (%s on the switch "
                           "says how long is left): %s", (long long)((now - s->sent_ms) / 1000), s->rev[0] ?
                           " of revision " : "", s->rev, s->timer_s, s->timer_s, streq(s->d->name, "nvue") ?
                           "'nv config apply --confirm-status'" : "its commit timer", old);
                return r;
        }
        if (s->pending && s->timer) {
                int64_t left = s->timer_end_ms ? (s->timer_end_ms - now + 999) / 1000 : (int64_t)s->timer_s;

                s->restore_method = SWITCH_RESTORE_VENDOR_TIMER;
                errbuf_prefix(e, "cannot reach the switch to undo the change; its commit timer reverts it "
                              "within %lld s (counted from when the switch took the apply)", (long long)(left > 0 ?
                              left : 0));
                return r;
        }
        s->restore_method = SWITCH_RESTORE_FAILED;
        errbuf_prefix(e, "cannot restore");
        return r;
}

/*
 * Is the undo of an apply that got no answer to go on waiting? While the switch is
 * there but does not answer (its commands time out: busy, its configuration lock
 * held by an apply that may be nettune's), for as long as the commit timer asked
 * (at most 120 s) or three command timeouts without one, from when the apply was
 * sent. A switch that drops the connection or refuses it is unreachable at once.
 */
static bool awaited(const struct switch_session *s, int r)
{
        int64_t cmd_ms = s->sw->command_timeout_ms ? s->sw->command_timeout_ms : 30000;
        int64_t wait_ms = s->timer_s ? (int64_t)(s->timer_s < 120 ? s->timer_s : 120) * 1000 : 3 * cmd_ms;

        return s->unanswered && r == -ETIMEDOUT && switch_now_ms() < s->sent_ms + wait_ms;
}

/* A pending change of ours an interrupted session left (the ledger names it): take it over. */
static int adopt_in(struct switch_session *s, struct errbuf *e)
{
        struct switch_own own;
        int r;

        if (s->pending || !s->d->adopt || switch_ledger_read(s, &own) <= 0)
                return 0;
        r = s->d->adopt(s, &own, e);
        if (r >= 0 && !s->pending)
                switch_ledger_clear(s);         /* gone: confirmed, aborted or expired meanwhile */
        return r;
}

/* delta[i] = the fields of want[i] that live[i] lacks; returns their union (or -ENOMEM). */
static int units_delta(const struct state *want, const struct state *live, unsigned n, uint32_t *delta)
{
        uint32_t all = 0;

        for (unsigned i = 0; i < n; i++) {
                struct diff d = { 0 };

                if (state_diff(&want[i], &live[i], &d) < 0)
                        return -ENOMEM;
                delta[i] = d.fields;
                all |= d.fields;
                diff_done(&d);
        }
        return (int)all;
}

/* Write the snapshot back as a change of its own, committed and saved at once. */
static int reapply(struct switch_session *s, const struct driver_change *c, struct errbuf *e)
{
        int r;

        s->pending = s->timer = false;
        r = apply_in(s, c, 0, e);
        if (r >= 0)
                r = commit_in(s, e);
        s->restore_method = r < 0 ? SWITCH_RESTORE_FAILED : SWITCH_RESTORE_DRIVER;
        return r;
}

/*
 * Native undo of our own pending change first (the switch's abort or rollback);
 * then whatever still differs from the snapshot (c->desired) is written back by
 * the driver. Someone else's pending change is never touched: the dialect's check
 * refuses the write-back instead.
 */
static int restore_in(struct switch_session *s, const struct driver_change *c, struct errbuf *e)
{
        _cleanup_free_ struct state *live = calloc(STATE_PORTS_MAX, sizeof(*live));
        uint32_t delta[STATE_PORTS_MAX];
        struct driver_change again;
        int r;

        s->restore_method = SWITCH_RESTORE_NONE;
        s->save = SWITCH_SAVE_NONE;
        if (!live)
                return errbuf_set(e, ENOMEM, s->where, "out of memory");
        r = ssh_session_alive(s->ssh) ? 0 : switch_session_connect(s, e);
        if (r < 0 && !awaited(s, r))
                return unreachable(s, r, e);
        if (r >= 0 && (r = adopt_in(s, e)) < 0 && !ssh_session_alive(s->ssh) && !awaited(s, r))
                return unreachable(s, r, e);
        r = ssh_session_alive(s->ssh) ? native_undo(s, e) : r;
        /* The session dropped under the undo: once more on a new one (the first may have done it). */
        if (r < 0 && !ssh_session_alive(s->ssh) && switch_session_connect(s, e) >= 0)
                r = native_undo(s, e);
        /* An apply without an answer: the switch, busy, may take it yet; waited for, then undone. */
        while (r < 0 && !ssh_session_alive(s->ssh) && awaited(s, r)) {
                r = switch_session_connect(s, e);
                if (r >= 0)
                        r = native_undo(s, e);
        }
        if (r < 0 && !ssh_session_alive(s->ssh))
                return unreachable(s, r, e);
        if (r == 0) {
                /* No native undo: write the snapshot back over what the transaction just read. */
                return c->fields ? reapply(s, c, e) : 0;
        }
        if (r > 0 && s->restore_method == SWITCH_RESTORE_NONE)
                s->restore_method = SWITCH_RESTORE_VENDOR_ABORT;   /* the dialect may say more */
        /* Read again: what the native undo left (or, when it failed, what there is) decides the rest. */
        r = read_units(s, live, e);
        if (r < 0)
                return unreachable(s, r, e);
        r = units_delta(c->desired, live, c->n_units, delta);
        if (r < 0)
                return errbuf_set(e, ENOMEM, s->where, "out of memory");
        /* The switch is on the snapshot: restored, whatever the undo said (saved again where it asked). */
        if (r == 0) {
                errbuf_clear(e);
                return save_in(s, e);
        }
        /* The native path fell short: write the snapshot back. */
        again = (struct driver_change){ .n_units = c->n_units, .desired = c->desired, .live = live,
                                        .delta = delta, .fields = (uint32_t)r };
        return reapply(s, &again, e);
}

static int drv_restore(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        struct switch_session *s, *tmp;
        int r;

        r = session_get(t, &tmp, &s, e);
        if (r < 0)
                return r;
        r = restore_in(s, c, e);
        session_free(tmp);
        return r;
}

static int drv_open(struct target *t, struct errbuf *e)
{
        struct switch_session *s, *tmp;
        int r;

        if (sess(t))
                return 0;
        r = session_get(t, &tmp, &s, e);
        if (r < 0)
                return r;
        t->session = (struct driver_session *)tmp;
        return 0;
}

static void drv_close(struct target *t)
{
        if (!t || t->kind != TARGET_SWITCH)
                return;
        session_free(sess(t));
        t->session = NULL;
}

const struct driver_ops switch_driver = {
        .name = "switch",
        .kind = TARGET_SWITCH,
        .fields = SWITCH_FIELDS,
        .caps = drv_caps,
        .check = drv_check,
        .read = drv_read,
        .apply = drv_apply,
        .restore = drv_restore,
        .open = drv_open,
        .commit = drv_commit,
        .close = drv_close,
};
