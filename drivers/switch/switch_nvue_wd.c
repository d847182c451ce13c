/* SPDX-License-Identifier: MIT */
/*
 * NVUE's PFC watchdog (Cumulus Linux 5.12 QoS chapter, "PFC Watchdog", CumulusNetworks/docs @
 * 0d9c2379 content/cumulus-linux-512/Layer-1-and-Switch-Ports/Quality-of-Service/_index.md;
 * CL 5.6 What's New, "New Commands"; the CL 5.19 QoS page @ 16b8323f, still a draft with
 * REVIEW comments, for recovery-interval).
 *
 * What NVUE has: per port `nv set interface swp1 qos pfc-watchdog state enable` (off:
 * `nv unset interface swp1 qos pfc-watchdog`), on every traffic class of the port's lossless
 * switch priorities (no per-priority choice); switch-wide `nv set qos pfc-watchdog
 * polling-interval 100-5000` (ms, default 100) and `robustness 1-1000` (polls, default 3):
 * a storm is mitigated after robustness polling intervals; the mitigation drops ("stops
 * processing received pause frames ... and discards new incoming packets to this egress
 * queue"), the only action; the queue is given back after one polling interval without a
 * pause frame, and from 5.19 after `recovery-interval` 1-1000 such intervals (default 2).
 *
 * So a policy maps as: detection_ms = robustness x polling-interval (the switch's current
 * interval unless poll_interval_ms is declared: a multiple of it, or refused), action drop
 * (forward and alert refused), restoration_ms = recovery-interval x polling-interval on 5.19
 * and later, exactly one polling interval before (anything else refused). The settings are
 * switch-wide: a new polling interval must keep the detection (and restoration) of every
 * managed port whose policy does not name them, or it is refused; other ports that run the
 * watchdog are named in a note.
 *
 * Read: the applied views the driver reads already (`nv show --applied qos -o json`:
 * "pfc-watchdog" {polling-interval as a duration "0:00:00.100000" or ms, robustness,
 * recovery-interval}; `nv show --applied interface -o json`: qos pfc-watchdog state per port)
 * and `nv show system -o json` (product-release: whether recovery-interval exists).
 */
#include <ctype.h>
#include <stdarg.h>

#include "drivers/switch/switch.h"
#include "drivers/switch/switch_internal.h"

#define NV_WD "qos pfc-watchdog"
#define NV_SYSTEM "nv show system -o json"
#define POLL_DEFAULT 100                /* NVREF: polling-interval default 100 ms */
#define ROBUST_DEFAULT 3                /* robustness default 3 */
#define RECOVERY_DEFAULT 2              /* 5.19 draft: recovery-interval default 2 */
#define POLL_MIN 100
#define POLL_MAX 5000
#define COUNT_MIN 1                     /* robustness, recovery-interval */
#define COUNT_MAX 1000

/* ---- parsing ---- */

/* "100", 100 or the duration NVUE shows, "0:00:00.100000" (H:MM:SS.ffffff), in ms. */
static int duration_ms(const json_t *v, uint64_t *ret)
{
        const char *s = json_string_value(v);
        unsigned h, m;
        double sec;
        char tail;

        if (json_is_integer(v) || (s && !strchr(s, ':')))
                return switch_json_uint(v, UINT32_MAX, ret);
        if (!s || sscanf(s, "%u:%u:%lf%c", &h, &m, &sec, &tail) != 3 || m > 59 || sec < 0 || sec >= 60)
                return -EINVAL;
        *ret = (uint64_t)((h * 3600.0 + m * 60.0 + sec) * 1000 + 0.5);
        return 0;
}

/* "5.19.0" -> 519; 0 when not a release number. */
static unsigned release_of(const char *text)
{
        json_t *j = json_loads(text ? text : "", 0, NULL);
        const char *r = json_string_value(switch_member(j, "product-release"));
        unsigned major = 0, minor = 0, v = 0;

        if (r && sscanf(r, "%u.%u", &major, &minor) == 2 && minor < 100)
                v = major * 100 + minor;
        json_decref(j);
        return v;
}

struct nv_wd {
        uint32_t poll_ms, robustness, recovery;
        bool poll_set, robust_set, recovery_set;
        unsigned release;               /* 519 for 5.19; 0 unknown */
};

static int globals(const json_t *qos, const char *where, struct nv_wd *g, struct errbuf *e)
{
        const json_t *wd = switch_member(qos, "pfc-watchdog"), *v;
        uint64_t x;

        g->poll_ms = POLL_DEFAULT;
        g->robustness = ROBUST_DEFAULT;
        g->recovery = RECOVERY_DEFAULT;
        if (wd && !json_is_object(wd))
                return errbuf_set(e, EBADMSG, where, "'nv show --applied qos -o json': pfc-watchdog is not an object");
        if ((v = switch_member(wd, "polling-interval"))) {
                if (duration_ms(v, &x) < 0 || !x || x > UINT32_MAX)
                        return errbuf_set(e, EBADMSG, where, "'nv show --applied qos -o json': pfc-watchdog "
                                          "polling-interval is not a duration");
                g->poll_ms = (uint32_t)x;
                g->poll_set = true;
        }
        if ((v = switch_member(wd, "robustness"))) {
                if (switch_json_uint(v, UINT32_MAX, &x) < 0 || !x)
                        return errbuf_set(e, EBADMSG, where, "'nv show --applied qos -o json': pfc-watchdog "
                                          "robustness is not a number");
                g->robustness = (uint32_t)x;
                g->robust_set = true;
        }
        if ((v = switch_member(wd, "recovery-interval"))) {
                if (switch_json_uint(v, UINT32_MAX, &x) < 0 || !x)
                        return errbuf_set(e, EBADMSG, where, "'nv show --applied qos -o json': pfc-watchdog "
                                          "recovery-interval is not a number");
                g->recovery = (uint32_t)x;
                g->recovery_set = true;
        }
        return 0;
}

/* A port's `qos pfc-watchdog`: the object set (the 5.12 form) or state enable/enabled. */
static int port_on(const json_t *ifa, const char *port, bool *ret)
{
        const json_t *wd = switch_member(switch_member(switch_member(ifa, port), "qos"), "pfc-watchdog");
        const char *st = json_string_value(switch_member(wd, "state"));

        *ret = false;
        if (!wd)
                return 0;
        if (!json_is_object(wd))
                return -EINVAL;
        if (!st || streq(st, "enable") || streq(st, "enabled"))
                *ret = true;
        else if (!streq(st, "disable") && !streq(st, "disabled"))
                return -EINVAL;
        return 0;
}

static void unit_wd(const struct nv_wd *g, bool on, struct state *u)
{
        struct state_pfc_wd *w = &u->pfc_wd;

        *w = (struct state_pfc_wd){
                .enabled = on, .prios = u->pfc_enabled, .action = STATE_WD_DROP, .poll_ms = g->poll_ms,
                .detection_ms = g->robustness * g->poll_ms,
                .has = STATE_WD_DETECTION | STATE_WD_ACTION | STATE_WD_POLL,
                .dflt = STATE_WD_ACTION | (g->poll_set ? 0 : STATE_WD_POLL) |
                        (g->robust_set || g->poll_set ? 0 : STATE_WD_DETECTION),
        };
        if (g->release >= 519 || g->recovery_set) {
                w->restoration_ms = g->recovery * g->poll_ms;
                w->has |= STATE_WD_RESTORATION;
                w->dflt |= g->recovery_set || g->poll_set ? 0 : STATE_WD_RESTORATION;
        } else if (g->release) {
                w->restoration_ms = g->poll_ms;         /* one polling interval without pause, fixed */
                w->has |= STATE_WD_RESTORATION;
                w->dflt |= STATE_WD_RESTORATION;
        }
        u->present |= STATE_BIT(STATE_FIELD_PFC_WATCHDOG);
}

int switch_nvue_parse_wd(const char *qos_text, const char *ifs_text, const char *system_text, const char *where,
                         const struct switch_config *sw, struct state *units, struct errbuf *e)
{
        json_t *qos = json_loads(qos_text ? qos_text : "", 0, NULL), *ifa = json_loads(ifs_text ? ifs_text : "", 0, NULL);
        struct nv_wd g = { .release = release_of(system_text) };
        int r = qos && ifa ? globals(qos, where, &g, e)
                           : errbuf_set(e, EBADMSG, where, "the applied qos or interface view is not JSON");

        for (unsigned i = 0; r >= 0 && i < sw->n_ports && i < STATE_PORTS_MAX; i++) {
                bool on;

                if (port_on(ifa, sw->ports[i], &on) < 0)
                        r = errbuf_set(e, EBADMSG, where, "'nv show --applied interface -o json': port '%s': qos "
                                       "pfc-watchdog state is neither enable nor disable", sw->ports[i]);
                else
                        unit_wd(&g, on, &units[i]);
        }
        json_decref(qos);
        json_decref(ifa);
        return r;
}

int nvue_wd_read(struct switch_session *s, const char *qos, const char *ifs, struct state *units, struct errbuf *e)
{
        _cleanup_free_ char *sys = NULL;
        struct errbuf ignore;
        unsigned release;

        if (switch_run(s, NV_SYSTEM, NULL, &sys, &ignore) < 0 && !ssh_session_alive(s->ssh))
                return switch_run(s, NV_SYSTEM, NULL, NULL, e);
        release = release_of(sys);
        if (!release)
                switch_note(s, "'" NV_SYSTEM "' names no product-release: restoration_ms cannot be mapped here");
        if (s->extra)
                json_object_set_new(s->extra, "release", json_integer(release));
        return switch_nvue_parse_wd(qos, ifs, sys, s->where, s->sw, units, e);
}

/* ---- the switch-wide settings a change writes ---- */

struct nv_plan {
        bool any;                       /* some port's watchdog changes */
        uint32_t poll;                  /* the polling interval after the change */
        bool poll_write, poll_unset;
        uint32_t robustness;
        bool robust_write, robust_unset;
        uint32_t recovery;
        bool recovery_write, recovery_unset;
        unsigned release;
};

static int refuse(const struct switch_session *s, struct errbuf *e, const char *fmt, ...) _printf_(3, 4);
static int refuse(const struct switch_session *s, struct errbuf *e, const char *fmt, ...)
{
        char msg[400];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        return errbuf_set(e, EOPNOTSUPP, s->where, "%s; nothing was changed", msg);
}

/*
 * A time in polling intervals: t = n x poll with n in 1-1000, else refused naming the member
 * (one the policy does not name is the port's own, which a new polling interval must keep).
 */
static int in_polls(const struct switch_session *s, const char *port, const char *member, const char *knob,
                    uint32_t t, uint32_t poll, bool named, uint32_t *ret, struct errbuf *e)
{
        if (!poll || t % poll || t / poll < COUNT_MIN || t / poll > COUNT_MAX)
                return refuse(s, e, "port '%s': pfc.watchdog.%s %u%s is not 1-1000 polling intervals of %u ms: NVUE "
                              "counts it as %s x polling-interval%s", port, member, t,
                              named ? "" : " (the port's own)", poll, knob,
                              named ? "" : "; give it in the policy, or a polling interval that divides it");
        *ret = t / poll;
        return 0;
}

/* The polling interval after the change: declared, or the switch's. */
static int plan_poll(const struct switch_session *s, const struct driver_change *c, struct nv_plan *p,
                     struct errbuf *e)
{
        uint32_t now = switch_wd_poll_now(c), ms;
        bool dflt = false;

        p->poll = now ? now : POLL_DEFAULT;
        if (!switch_wd_poll_change(c, &ms, &dflt))
                return 0;
        if (!dflt && (ms < POLL_MIN || ms > POLL_MAX))
                return errbuf_set(e, ERANGE, s->where, "pfc.watchdog.poll_interval_ms %u is outside nvue's %u-%u "
                                  "(nv set qos pfc-watchdog polling-interval); nothing was changed", ms, POLL_MIN,
                                  POLL_MAX);
        p->poll = dflt ? POLL_DEFAULT : ms;
        p->poll_write = !dflt;
        p->poll_unset = dflt;
        return 0;
}

/*
 * One switch-wide count (robustness, recovery-interval): every port needs the same. *n is
 * what the first port needed (0: none yet); *unset: every port wants the device's default.
 */
static int one_count(const struct switch_session *s, const char *port, const char *knob, uint32_t want, uint32_t *n,
                     const char **first, struct errbuf *e)
{
        if (*n && *n != want)
                return refuse(s, e, "%s is switch-wide on NVUE: port '%s' needs %u and port '%s' %u", knob, *first, *n,
                              port, want);
        *n = want;
        *first = port;
        return 0;
}

static int plan_restore(const struct switch_session *s, const char *port, const struct state_pfc_wd *w,
                        const struct state_pfc_wd *t, struct nv_plan *p, const char **first, struct errbuf *e)
{
        uint32_t n = 0;
        int r;

        if (p->release && p->release < 519) {
                /* not a setting there: one polling interval, whatever it is */
                if (!(w->has & STATE_WD_RESTORATION) || t->restoration_ms == p->poll)
                        return 0;
                return refuse(s, e, "port '%s': pfc.watchdog.restoration_ms %u: before Cumulus Linux 5.19 NVUE gives "
                              "the queue back after one polling interval without pause (%u ms here)", port,
                              t->restoration_ms, p->poll);
        }
        if (!p->release)
                return refuse(s, e, "port '%s': pfc.watchdog.restoration_ms: the switch names no release, so whether "
                              "it has recovery-interval (Cumulus Linux 5.19) is not known", port);
        r = in_polls(s, port, "restoration_ms", "recovery-interval", t->restoration_ms, p->poll,
                     (w->has & STATE_WD_RESTORATION) != 0, &n, e);
        if (r >= 0)
                r = one_count(s, port, "recovery-interval", n, &p->recovery, first, e);
        p->recovery_unset |= (t->dflt & STATE_WD_RESTORATION) != 0;
        return r;
}

/*
 * A port that runs the watchdog after the change keeps the times its policy does not name
 * (its live ones) and gets the ones it names, in polling intervals of the new poll.
 */
static int plan_port(const struct switch_session *s, const struct driver_change *c, unsigned u, struct nv_plan *p,
                     const char **first_r, const char **first_d, struct errbuf *e)
{
        const struct state_pfc_wd *w = &c->desired[u].pfc_wd, *l = &c->live[u].pfc_wd;
        const char *port = s->sw->ports[u];
        struct state_pfc_wd t;
        uint32_t n = 0;
        int r;

        switch_wd_target(c, u, &t);
        if (!t.enabled && !w->has)
                return 0;       /* off; an off with members is a snapshot: its switch-wide settings come back */
        if (t.enabled && (w->has & STATE_WD_ACTION) && w->action != STATE_WD_DROP)
                return refuse(s, e, "port '%s': pfc.watchdog.action %s: NVUE's watchdog drops (it stops processing "
                              "pause and discards the queue's packets) and has no other action", port,
                              state_wd_action_name(w->action));
        if (t.enabled && strncmp(port, "swp", 3))
                return refuse(s, e, "port '%s': NVUE runs the PFC watchdog on physical swp ports only", port);
        r = in_polls(s, port, "detection_ms", "robustness", t.detection_ms, p->poll, (w->has & STATE_WD_DETECTION) != 0,
                     &n, e);
        if (r >= 0)
                r = one_count(s, port, "robustness", n, &p->robustness, first_d, e);
        p->robust_unset |= (t.dflt & STATE_WD_DETECTION) != 0;
        if (r >= 0 && (t.has & STATE_WD_RESTORATION) && (l->enabled || (w->has & STATE_WD_RESTORATION)) &&
            !(!t.enabled && (t.dflt & STATE_WD_RESTORATION) && p->release < 519))
                r = plan_restore(s, port, w, &t, p, first_r, e);
        return r;
}

/* Write a count when it differs from what the switch has; a restore that wants the default back unsets it. */
static void settle(uint32_t want, uint32_t have, bool have_set, uint32_t dflt, bool *unset, bool *write)
{
        bool back = *unset && want == dflt;

        *unset = back && have_set;
        *write = !back && want && want != have;
}

static int plan(const struct switch_session *s, const struct driver_change *c, struct nv_plan *p, struct errbuf *e)
{
        const struct state_pfc_wd *l = c->n_units ? &c->live[0].pfc_wd : NULL;
        const char *first_r = "", *first_d = "";
        int r;

        memset(p, 0, sizeof(*p));
        p->release = (unsigned)json_integer_value(switch_member(s->extra, "release"));
        for (unsigned u = 0; u < c->n_units; u++)
                p->any |= switch_wd_changed(c, u);
        if (!p->any || !l)
                return 0;
        r = plan_poll(s, c, p, e);
        for (unsigned u = 0; u < c->n_units && r >= 0; u++)
                r = plan_port(s, c, u, p, &first_r, &first_d, e);
        if (r < 0)
                return r;
        settle(p->robustness, l->poll_ms ? l->detection_ms / l->poll_ms : 0, !(l->dflt & STATE_WD_DETECTION),
               ROBUST_DEFAULT, &p->robust_unset, &p->robust_write);
        settle(p->recovery, l->poll_ms ? l->restoration_ms / l->poll_ms : 0,
               (l->has & STATE_WD_RESTORATION) && !(l->dflt & STATE_WD_RESTORATION), RECOVERY_DEFAULT,
               &p->recovery_unset, &p->recovery_write);
        if (p->release < 519)
                p->recovery_write = p->recovery_unset = false;
        return 0;
}

int nvue_wd_check(struct switch_session *s, const struct driver_change *c, struct errbuf *e)
{
        struct nv_plan p;
        int r = plan(s, c, &p, e);

        if (r >= 0 && (p.poll_write || p.poll_unset || p.robust_write || p.robust_unset || p.recovery_write ||
                       p.recovery_unset))
                switch_note(s, "the PFC watchdog's polling-interval, robustness and recovery-interval are switch-wide: "
                            "every port that runs the watchdog gets them");
        return r;
}

/* ---- render ---- */

static void add_list(char *list, size_t size, const char *port)
{
        size_t n = strlen(list);

        snprintf(list + n, size - n, "%s%s", n ? "," : "", port);
}

void nvue_wd_render(struct switch_cmds *cmds, const struct switch_session *s, const struct driver_change *c)
{
        char on[SWITCH_LINE_MAX] = "", off[SWITCH_LINE_MAX] = "";
        struct errbuf ignore;
        struct nv_plan p;

        if (plan(s, c, &p, &ignore) < 0 || !p.any)
                return;
        if (p.poll_write)
                switch_cmds_add(cmds, "nv set " NV_WD " polling-interval %u", p.poll);
        if (p.poll_unset)
                switch_cmds_add(cmds, "nv unset " NV_WD " polling-interval");
        if (p.robust_write)
                switch_cmds_add(cmds, "nv set " NV_WD " robustness %u", p.robustness);
        if (p.robust_unset)
                switch_cmds_add(cmds, "nv unset " NV_WD " robustness");
        if (p.recovery_write)
                switch_cmds_add(cmds, "nv set " NV_WD " recovery-interval %u", p.recovery);
        if (p.recovery_unset)
                switch_cmds_add(cmds, "nv unset " NV_WD " recovery-interval");
        for (unsigned u = 0; u < c->n_units; u++) {
                bool want = c->desired[u].pfc_wd.enabled, have = c->live[u].pfc_wd.enabled;

                if (switch_wd_changed(c, u) && want != have)
                        add_list(want ? on : off, sizeof(on), s->sw->ports[u]);
        }
        if (*on)
                switch_cmds_add(cmds, "nv set interface %s " NV_WD " state enable", on);
        if (*off)
                switch_cmds_add(cmds, "nv unset interface %s " NV_WD, off);
}
