/* SPDX-License-Identifier: MIT */
/*
 * EOS's PFC watchdog: `priority-flow-control pause watchdog ...`. The EOS manual was not
 * available; every form here comes from Arista's own configuration generator (AVD
 * @ 3cac535c: intended/configs/qos.cfg lines 75-77 and 275-278, templates eos/qos-profiles.j2
 * and eos/priority-flow-control.j2; schema priority_flow_control.schema.yml @ 32666f05 and
 * qos_profiles.schema.yml @ 095c8687) and is unverified against a switch:
 *   per port (AVD writes them in a qos profile that ports take with service-profile; nettune
 *   writes them on the managed interface, where the same lines apply):
 *     priority-flow-control pause watchdog                    the watchdog on
 *     priority-flow-control pause watchdog port action drop|notify-only
 *     priority-flow-control pause watchdog port timer timeout T polling-interval P|auto
 *         recovery-time R [forced]                            seconds, T and R with 2 decimals,
 *                                                             P with 3; all three together
 *   switch-wide:
 *     priority-flow-control pause watchdog default timeout T | recovery-time R |
 *         polling-interval P
 *     priority-flow-control pause watchdog action drop|no-drop|errdisable|notify-only
 *         (a qos profile's action "overrides the default error-disable action"; the
 *         schema's own values are drop and no-drop: "Action on stuck queue", the
 *         default "errdisabled"; no-drop reads back as its own action, never written)
 *     priority-flow-control pause watchdog override action drop
 *         ("Override configured action on stuck queue to drop": the switch-wide action,
 *         so a port without an action of its own reads back drop; whether it also
 *         overrides a port's own action the sources do not say, and nettune does not
 *         assume it)
 *     any other switch-wide watchdog line is not nettune's: left alone, not read
 * A policy maps as detection_ms -> timeout, restoration_ms -> recovery-time, poll_interval_ms
 * -> polling-interval (of the port's timer: nettune never writes the switch-wide defaults,
 * they apply to ports it does not manage), action drop -> drop, alert -> notify-only,
 * forward refused (no documented form). A port timer needs all three times: a member the
 * policy does not name is written as the port has it (its timer, else the switch-wide
 * default), and refused when neither says. Ranges (third-party, unverified): timeout and
 * recovery-time 0.01-60 s, polling-interval 0.005-30 s and at most half the smaller of the
 * two (else EOS picks an automatic interval). The watchdog covers the port's no-drop
 * priorities (which queues EOS watches is not documented in the sources).
 */
#include <math.h>

#include "drivers/switch/switch.h"
#include "drivers/switch/switch_internal.h"

#define WD "priority-flow-control pause watchdog"
#define TIME_MIN 10                     /* ms: 0.01 s */
#define TIME_MAX 60000
#define POLL_MIN 5                      /* 0.005 s */
#define POLL_MAX 30000

struct eos_wd {
        bool on_set, on;
        bool timer;                     /* a port timer line */
        uint32_t timeout, poll, recovery;
        bool poll_auto;
        bool action_set;
        uint8_t action;
        bool override_drop;             /* switch-wide: "override action drop" */
        bool action_unknown;            /* switch-wide: an action line of a value not known here */
};

/* Seconds with decimals ("0.05", "10.001", "1") in ms; -EINVAL otherwise. */
static int seconds_ms(const char *s, uint32_t *ret)
{
        char *end;
        double v = strtod(s, &end);

        if (end == s || *end || v < 0 || v > 1e6 || s[0] == '-' || s[0] == '+')
                return -EINVAL;
        *ret = (uint32_t)lround(v * 1000);
        return 0;
}

static int action_of(const char *s)
{
        return streq(s, "drop") ? STATE_WD_DROP : streq(s, "notify-only") ? STATE_WD_ALERT :
               streq(s, "errdisable") ? STATE_WD_ERRDISABLE : streq(s, "no-drop") ? STATE_WD_NODROP : -EINVAL;
}

/* "timeout T polling-interval P|auto recovery-time R [forced]" */
static int timer_line(const char *rest, struct eos_wd *w)
{
        char buf[256], *t[8], *save = NULL;
        int n = 0;

        snprintf(buf, sizeof(buf), "%s", rest);
        for (char *x = strtok_r(buf, " ", &save); x && n < 8; x = strtok_r(NULL, " ", &save))
                t[n++] = x;
        if ((n != 6 && n != 7) || !streq(t[0], "timeout") || !streq(t[2], "polling-interval") ||
            !streq(t[4], "recovery-time") || (n == 7 && !streq(t[6], "forced")) || seconds_ms(t[1], &w->timeout) < 0 ||
            seconds_ms(t[5], &w->recovery) < 0)
                return -EINVAL;
        w->poll_auto = streq(t[3], "auto");
        if (!w->poll_auto && seconds_ms(t[3], &w->poll) < 0)
                return -EINVAL;
        w->timer = true;
        return 0;
}

/* The watchdog lines of one block (an interface or a qos profile); *ret_bad the line it cannot read. */
static int block_wd(const json_t *block, struct eos_wd *w, const char **ret_bad)
{
        const char *line;
        json_t *x;
        int r = 0, a;

        json_object_foreach(switch_member(block, "cmds"), line, x) {
                if (streq(line, WD) || streq(line, "no " WD)) {
                        w->on_set = true;
                        w->on = streq(line, WD);
                } else if (!strncmp(line, WD " port action ", strlen(WD " port action "))) {
                        a = action_of(line + strlen(WD " port action "));
                        r = a < 0 || a == STATE_WD_ERRDISABLE || a == STATE_WD_NODROP ? -EINVAL : 0;
                        w->action = (uint8_t)a;
                        w->action_set = true;
                } else if (!strncmp(line, WD " port timer ", strlen(WD " port timer "))) {
                        r = timer_line(line + strlen(WD " port timer "), w);
                }
                if (r < 0) {
                        *ret_bad = line;
                        return -EINVAL;
                }
        }
        return 0;
}

/*
 * The switch-wide lines: the defaults a port without its own timer or action runs with.
 * A line of a form not named above (a later EOS's, or a value the sources do not give)
 * is not nettune's and is skipped; only a malformed time of a form it reads fails.
 */
static int global_wd(const json_t *cmds, struct eos_wd *g, uint8_t *has, const char **ret_bad)
{
        const char *line;
        json_t *x;
        uint32_t v;

        json_object_foreach((json_t *)cmds, line, x) {
                const char *p;
                int r = 0;

                if (!strncmp(line, WD " default ", strlen(WD " default "))) {
                        p = line + strlen(WD " default ");
                        if (!strncmp(p, "timeout ", 8) && (r = seconds_ms(p + 8, &v)) >= 0)
                                g->timeout = v, *has |= STATE_WD_DETECTION;
                        else if (!strncmp(p, "recovery-time ", 14) && (r = seconds_ms(p + 14, &v)) >= 0)
                                g->recovery = v, *has |= STATE_WD_RESTORATION;
                        else if (!strncmp(p, "polling-interval ", 17) && (r = seconds_ms(p + 17, &v)) >= 0)
                                g->poll = v, *has |= STATE_WD_POLL;
                } else if (!strncmp(line, WD " action ", strlen(WD " action "))) {
                        int a = action_of(line + strlen(WD " action "));

                        g->action = a >= 0 ? (uint8_t)a : 0;
                        g->action_set = a >= 0;
                        g->action_unknown = a < 0;      /* not nettune's: the ports' default action unknown */
                } else if (streq(line, WD " override action drop")) {
                        g->override_drop = true;
                }
                if (r < 0) {
                        *ret_bad = line;
                        return -EINVAL;
                }
        }
        return 0;
}

static void unit_wd(const struct eos_wd *pw, const struct eos_wd *g, uint8_t ghas, struct state *u)
{
        struct state_pfc_wd *w = &u->pfc_wd;

        uint8_t dflt_action = g->override_drop ? STATE_WD_DROP : g->action_set ? g->action : STATE_WD_ERRDISABLE;

        *w = (struct state_pfc_wd){ .enabled = pw->on && u->pfc_enabled, .prios = u->pfc_enabled,
                                    .action = pw->action_set ? pw->action : dflt_action,
                                    .has = STATE_WD_ACTION, .dflt = pw->action_set ? 0 : STATE_WD_ACTION };
        if (!pw->action_set && !g->override_drop && g->action_unknown)
                w->has = 0, w->dflt = 0, w->action = 0; /* the switch-wide action is one nettune cannot name */
        if (pw->timer) {
                w->detection_ms = pw->timeout;
                w->restoration_ms = pw->recovery;
                w->has |= STATE_WD_DETECTION | STATE_WD_RESTORATION | (pw->poll_auto ? 0 : STATE_WD_POLL);
                w->poll_ms = pw->poll;
        } else {
                /* the switch-wide defaults, where configured: a restore takes the port timer away */
                w->detection_ms = g->timeout;
                w->restoration_ms = g->recovery;
                w->poll_ms = g->poll;
                w->has |= ghas;
                w->dflt |= STATE_WD_DETECTION | STATE_WD_RESTORATION | STATE_WD_POLL;  /* no port timer */
        }
        u->present |= STATE_BIT(STATE_FIELD_PFC_WATCHDOG);
}

int switch_eos_parse_wd(const char *text, const char *where, const struct switch_config *sw, struct state *units,
                        struct errbuf *e)
{
        json_t *j = json_loads(text ? text : "", 0, NULL), *cmds = switch_member(j, "cmds");
        struct eos_wd g = { 0 };
        const char *bad = NULL;
        uint8_t ghas = 0;
        int r = cmds ? global_wd(cmds, &g, &ghas, &bad) : -EINVAL;

        for (unsigned i = 0; r >= 0 && i < sw->n_ports && i < STATE_PORTS_MAX; i++) {
                char key[STATE_NAME_MAX + 16];
                const json_t *intf, *prof = NULL;
                const char *line;
                struct eos_wd pw = { 0 }, own = { 0 };
                json_t *x;

                snprintf(key, sizeof(key), "interface %s", sw->ports[i]);
                intf = switch_member(cmds, key);
                json_object_foreach(switch_member(intf, "cmds"), line, x)
                        if (!strncmp(line, "service-profile ", 16)) {
                                snprintf(key, sizeof(key), "qos profile %.40s", line + 16);
                                prof = switch_member(cmds, key);
                        }
                r = block_wd(prof, &pw, &bad);
                if (r >= 0)
                        r = block_wd(intf, &own, &bad);
                /* the interface's own lines over its profile's, line by line */
                if (own.on_set)
                        pw.on = own.on, pw.on_set = true;
                if (own.action_set)
                        pw.action = own.action, pw.action_set = true;
                if (own.timer)
                        pw.timer = true, pw.timeout = own.timeout, pw.poll = own.poll, pw.poll_auto = own.poll_auto,
                        pw.recovery = own.recovery;
                if (r >= 0)
                        unit_wd(&pw, &g, ghas, &units[i]);
        }
        if (r < 0)      /* before the document goes: the line is one of its keys */
                errbuf_set(e, EBADMSG, where, "'show running-config | json': cannot read '%.120s'",
                           bad ? bad : "the document");
        json_decref(j);
        return r < 0 ? -EBADMSG : 0;
}

/* ---- check ---- */

static int two_decimals(const struct switch_session *s, const char *port, const char *member, uint32_t ms,
                        struct errbuf *e)
{
        if (ms % 10 == 0)
                return 0;
        return errbuf_set(e, EOPNOTSUPP, s->where, "port '%s': pfc.watchdog.%s %u: EOS takes it in seconds with two "
                          "decimals (10 ms steps); nothing was changed", port, member, ms);
}

static int check_port(const struct switch_session *s, const struct driver_change *c, unsigned u, struct errbuf *e)
{
        const struct state_pfc_wd *w = &c->desired[u].pfc_wd;
        const char *port = s->sw->ports[u];
        struct state_pfc_wd t;
        int r = 0;

        switch_wd_target(c, u, &t);
        if (!t.enabled)
                return 0;
        if ((w->has & STATE_WD_ACTION) && w->action == STATE_WD_FORWARD)
                return errbuf_set(e, EOPNOTSUPP, s->where, "port '%s': pfc.watchdog.action forward: EOS's watchdog "
                                  "drops, error-disables or only notifies; nothing was changed", port);
        if (!(t.has & STATE_WD_RESTORATION) || !t.restoration_ms)
                return errbuf_set(e, EOPNOTSUPP, s->where, "port '%s': EOS's port timer sets timeout, polling-interval "
                                  "and recovery-time together and the switch has no recovery-time to keep; give "
                                  "restoration_ms; nothing was changed", port);
        r = switch_wd_range(s, port, "detection_ms", t.detection_ms, TIME_MIN, TIME_MAX, "timeout", e);
        if (r >= 0)
                r = switch_wd_range(s, port, "restoration_ms", t.restoration_ms, TIME_MIN, TIME_MAX, "recovery-time", e);
        if (r >= 0 && (t.has & STATE_WD_POLL))
                r = switch_wd_range(s, port, "poll_interval_ms", t.poll_ms, POLL_MIN, POLL_MAX, "polling-interval", e);
        if (r >= 0)
                r = two_decimals(s, port, "detection_ms", t.detection_ms, e);
        if (r >= 0)
                r = two_decimals(s, port, "restoration_ms", t.restoration_ms, e);
        if (r >= 0 && (t.has & STATE_WD_POLL) &&
            2 * t.poll_ms > (t.detection_ms < t.restoration_ms ? t.detection_ms : t.restoration_ms))
                r = errbuf_set(e, EOPNOTSUPP, s->where, "port '%s': pfc.watchdog.poll_interval_ms %u is more than half "
                               "of the shorter of timeout and recovery-time (EOS then picks its own interval); "
                               "nothing was changed", port, t.poll_ms);
        return r;
}

int eos_wd_check(const struct switch_session *s, const struct driver_change *c, struct errbuf *e)
{
        int r = 0;

        for (unsigned u = 0; u < c->n_units && r >= 0; u++)
                if (switch_wd_changed(c, u))
                        r = check_port(s, c, u, e);
        return r;
}

/* ---- render: lines inside the port's interface block ---- */

static const char *secs(char *buf, size_t size, uint32_t ms)
{
        int n = snprintf(buf, size, "%u.%03u", ms / 1000, ms % 1000);

        while (n > 1 && buf[n - 1] == '0')
                buf[--n] = '\0';
        if (n > 1 && buf[n - 1] == '.')
                buf[--n] = '\0';
        return buf;
}

void eos_wd_render_port(struct switch_cmds *cmds, const struct driver_change *c, unsigned u)
{
        const struct state_pfc_wd *l = &c->live[u].pfc_wd;
        struct state_pfc_wd t;
        char a[16], p[16], r[16];

        if (!switch_wd_changed(c, u))
                return;
        switch_wd_target(c, u, &t);
        if (t.enabled != l->enabled)
                switch_cmds_add(cmds, "   %s" WD, t.enabled ? "" : "no ");
        if (!t.enabled && !c->desired[u].pfc_wd.has)
                return;         /* a policy's off; a snapshot's off puts its port lines back too */
        if ((t.dflt & STATE_WD_ACTION) && !(l->dflt & STATE_WD_ACTION))
                switch_cmds_add(cmds, "   no " WD " port action");
        else if (!(t.dflt & STATE_WD_ACTION) && (t.has & STATE_WD_ACTION) &&
                 (t.action != l->action || (l->dflt & STATE_WD_ACTION)))
                switch_cmds_add(cmds, "   " WD " port action %s", t.action == STATE_WD_ALERT ? "notify-only" : "drop");
        if ((t.dflt & STATE_WD_DETECTION) && !(l->dflt & STATE_WD_DETECTION))
                switch_cmds_add(cmds, "   no " WD " port timer");
        else if (!(t.dflt & STATE_WD_DETECTION) && (t.has & STATE_WD_DETECTION) &&
                 (t.detection_ms != l->detection_ms || t.restoration_ms != l->restoration_ms ||
                  (t.has & STATE_WD_POLL) != (l->has & STATE_WD_POLL) || t.poll_ms != l->poll_ms ||
                  (l->dflt & STATE_WD_DETECTION)))
                switch_cmds_add(cmds, "   " WD " port timer timeout %s polling-interval %s recovery-time %s",
                                secs(a, sizeof(a), t.detection_ms),
                                t.has & STATE_WD_POLL ? secs(p, sizeof(p), t.poll_ms) : "auto",
                                secs(r, sizeof(r), t.restoration_ms));
}
