/* SPDX-License-Identifier: MIT */
/*
 * SONiC's PFC watchdog (sonic-utilities @ 691b1bbc pfcwd/main.py and config/main.py; sonic-swss
 * @ e6b0c5b5 orchagent/pfcwdorch.{h,cpp}; sonic-buildimage sonic-pfcwd.yang @ 9701fa53).
 *
 * Read: `show pfcwd config`: a row per port with a PFC_WD entry (ACTION, DETECTION TIME,
 * RESTORATION TIME, and HISTORY since sonic-utilities c0838d7f6, 2025-08-04), missing fields
 * printed as CONFIG_DESCRIPTION's defaults (drop, N/A, infinite, disable), and "Changed
 * polling interval to Nms" when PFC_WD|GLOBAL has POLL_INTERVAL and some port has a row.
 * CONFIG_DB (the driver's read) adds what the table cannot say: the priorities the
 * watchdog covers (PORT_QOS_MAP pfcwd_sw_enable: orchagent registers exactly those TCs,
 * pfcwdorch.cpp getLosslessTcsForPort()), whether a row leaves the action to orchagent
 * (no field: drop, createEntry()), and the poll interval when no row prints it
 * (no POLL_INTERVAL: PFC_WD_POLL_MSECS, 100 ms, orchdaemon.cpp).
 *
 * Write, after the driver's GCU patch (which writes pfcwd_sw_enable with the policy's
 * priorities, and removes POLL_INTERVAL where a restore puts the default back):
 *   sudo pfcwd stop PORTS...             `config pfcwd stop` takes no ports and stops every one
 *   sudo config pfcwd interval MS        100-1000 since #4306 (older images: 3000); refused by
 *                                        the CLI above any configured detection/restoration
 *   sudo config pfcwd start [--action A] [--restoration-time R] PORTS... D
 *                                        detection 100-5000, restoration 100-60000; the row is
 *                                        written anew (#4393), so every member the policy does
 *                                        not name is passed as the switch has it
 * Ports with the same settings share one start. A port whose covered priorities change
 * is started again, so that orchagent registers the new ones. The checkpoint taken before
 * the patch undoes all of it (`config rollback` restores CONFIG_DB).
 */
#include <ctype.h>

#include "drivers/switch/switch.h"
#include "drivers/switch/switch_internal.h"

#define PFCWD_SHOW "show pfcwd config"
#define PFC_WD_POLL_MSECS 100           /* sonic-swss orchdaemon.cpp */
#define DETECT_MIN 100                  /* pfcwdorch.h PFC_WD_DETECTION_TIME_MIN/_MAX; pfcwd/main.py IntRange */
#define DETECT_MAX 5000
#define RESTORE_MIN 100                 /* PFC_WD_RESTORATION_TIME_MIN/_MAX */
#define RESTORE_MAX 60000
#define POLL_MIN 100                    /* config/main.py interval IntRange(100, 1000) */
#define POLL_MAX 1000

static const json_t *row(const json_t *db, const char *table, const char *key)
{
        return switch_member(switch_member(db, table), key);
}

static const char *fld(const json_t *db, const char *table, const char *key, const char *f)
{
        return json_string_value(switch_member(row(db, table, key), f));
}

/* ---- parsing ---- */

struct wd_row {
        char port[STATE_NAME_MAX];
        uint8_t action;
        uint32_t detection_ms, restoration_ms;
};

static int wd_action(const char *s)
{
        int a = state_wd_action_from_name(s);

        return a == STATE_WD_ERRDISABLE || a == STATE_WD_NODROP ? -EINVAL : a;
}

/* "Ethernet0  drop  600  600  disable" (or without HISTORY). */
static int table_row(const char *text, bool history, struct wd_row *ret)
{
        char line[512], *w[6], *save = NULL;
        int n = 0, a;
        uint64_t d, r = 0;

        snprintf(line, sizeof(line), "%s", text);
        for (char *t = strtok_r(line, " \t", &save); t && n < 6; t = strtok_r(NULL, " \t", &save))
                w[n++] = t;
        if (n != (history ? 5 : 4) || strlen(w[0]) >= sizeof(ret->port) || (a = wd_action(w[1])) < 0 ||
            switch_parse_uint(w[2], 0, UINT32_MAX, &d) < 0 ||
            (strcmp(w[3], "infinite") && switch_parse_uint(w[3], 1, UINT32_MAX, &r) < 0))
                return -EINVAL;
        snprintf(ret->port, sizeof(ret->port), "%s", w[0]);
        ret->action = (uint8_t)a;
        ret->detection_ms = (uint32_t)d;
        ret->restoration_ms = (uint32_t)r;
        return 0;
}

struct wd_table {
        unsigned n;
        struct wd_row rows[STATE_PORTS_MAX];
        bool poll_known;
        uint32_t poll_ms;
};

static int poll_line(const char *line, struct wd_table *t)
{
        uint64_t ms;
        char num[16];
        size_t k = 0;

        line += strlen("Changed polling interval to ");
        while (isdigit((unsigned char)line[k]) && k + 1 < sizeof(num)) {
                num[k] = line[k];
                k++;
        }
        num[k] = '\0';
        if (strncmp(line + k, "ms", 2) || switch_parse_uint(num, 1, UINT32_MAX, &ms) < 0)
                return -EINVAL;
        t->poll_known = true;
        t->poll_ms = (uint32_t)ms;
        return 0;
}

static int parse_table(const char *text, const char *where, struct wd_table *t, struct errbuf *e)
{
        char line[512];
        bool header = false, history = false;
        const char *p = text ? text : "";

        memset(t, 0, sizeof(*t));
        while (*p) {
                size_t n = strcspn(p, "\n"), k = 0;
                int r = 0;

                snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), p);
                p += n + (p[n] == '\n');
                while (line[k] == ' ')
                        k++;
                if (!line[k] || line[k] == '-' || !strncmp(line + k, "BIG_RED_SWITCH status is ", 25))
                        continue;
                if (!strncmp(line + k, "Changed polling interval to ", 28))
                        r = poll_line(line + k, t);
                else if (!strncmp(line + k, "PORT ", 5)) {
                        header = true;
                        history = strstr(line, "HISTORY") != NULL;
                } else if (!header || t->n >= STATE_PORTS_MAX)
                        r = -EINVAL;
                else
                        r = table_row(line + k, history, &t->rows[t->n++]);
                if (r < 0)
                        return errbuf_set(e, EBADMSG, where, "'" PFCWD_SHOW "': cannot read '%.80s'; not an output "
                                          "nettune knows", line + k);
        }
        if (!header)
                return errbuf_set(e, EBADMSG, where, "'" PFCWD_SHOW "' printed no PORT/ACTION table");
        return 0;
}

static void unit_wd(const struct wd_table *t, const json_t *db, const char *port, uint32_t poll, bool poll_dflt,
                    struct state *u)
{
        const char *mask = fld(db, "PORT_QOS_MAP", port, "pfcwd_sw_enable");
        struct state_pfc_wd *w = &u->pfc_wd;
        uint64_t bits = 0;

        *w = (struct state_pfc_wd){ .has = STATE_WD_POLL, .poll_ms = poll, .dflt = poll_dflt ? STATE_WD_POLL : 0 };
        if (mask)
                switch_parse_list(mask, 7, &bits);
        w->prios = (uint8_t)bits;
        for (unsigned i = 0; i < t->n; i++) {
                if (!streq(t->rows[i].port, port))
                        continue;
                w->enabled = true;
                w->has |= STATE_WD_DETECTION | STATE_WD_RESTORATION | STATE_WD_ACTION;
                w->detection_ms = t->rows[i].detection_ms;
                w->restoration_ms = t->rows[i].restoration_ms;
                w->action = t->rows[i].action;
                if (!fld(db, "PFC_WD", port, "action"))
                        w->dflt |= STATE_WD_ACTION;
        }
        u->present |= STATE_BIT(STATE_FIELD_PFC_WATCHDOG);
}

int switch_sonic_parse_pfcwd(const char *text, const char *where, const struct switch_config *sw, const json_t *db,
                             struct state *units, struct errbuf *e)
{
        struct wd_table *t = malloc(sizeof(*t));
        const char *gp = fld(db, "PFC_WD", "GLOBAL", "POLL_INTERVAL");
        uint64_t poll = PFC_WD_POLL_MSECS;
        bool dflt = true;
        int r;

        if (!t)
                return errbuf_set(e, ENOMEM, where, "out of memory");
        r = parse_table(text, where, t, e);
        if (r >= 0 && t->poll_known) {
                poll = t->poll_ms;
                dflt = false;
        } else if (r >= 0 && gp && switch_parse_uint(gp, 1, UINT32_MAX, &poll) >= 0) {
                dflt = false;   /* the table prints the interval only when some port has a row */
        }
        for (unsigned i = 0; r >= 0 && i < sw->n_ports && i < STATE_PORTS_MAX; i++)
                unit_wd(t, db, sw->ports[i], (uint32_t)poll, dflt, &units[i]);
        free(t);
        return r;
}

int sonic_wd_read(struct switch_session *s, struct state *units, struct errbuf *e)
{
        _cleanup_free_ char *out = NULL;
        struct errbuf why = { 0 };
        char buf[300];

        if (switch_run(s, PFCWD_SHOW, NULL, &out, &why) < 0) {
                if (!ssh_session_alive(s->ssh)) {
                        *e = why;
                        return -EIO;
                }
                switch_note(s, "the PFC watchdog is not read: %s", errbuf_str(&why, buf, sizeof(buf)));
                return 0;       /* the field stays unsupported here */
        }
        return switch_sonic_parse_pfcwd(out, s->where, s->sw, s->native, units, e);
}

/* ---- check ---- */

/* A row rewritten by `config pfcwd start` or stopped: the port's watchdog changes. */
static bool restart(const struct driver_change *c, unsigned u, const struct state_pfc_wd *t)
{
        const struct state_pfc_wd *l = &c->live[u].pfc_wd;

        return t->enabled && (!l->enabled || t->detection_ms != l->detection_ms || t->restoration_ms != l->restoration_ms ||
                              t->action != l->action || (t->dflt & STATE_WD_ACTION) != (l->dflt & STATE_WD_ACTION) ||
                              t->prios != l->prios);
}

static int check_port(const struct switch_session *s, const struct driver_change *c, unsigned u, struct errbuf *e)
{
        const struct state_pfc_wd *w = &c->desired[u].pfc_wd, *l = &c->live[u].pfc_wd;
        const char *port = s->sw->ports[u];
        struct state_pfc_wd t;
        int r = 0;

        switch_wd_target(c, u, &t);
        if (!t.enabled)
                return 0;
        if (w->has & STATE_WD_DETECTION)
                r = switch_wd_range(s, port, "detection_ms", w->detection_ms, DETECT_MIN, DETECT_MAX,
                                    "config pfcwd start", e);
        if (r >= 0 && (w->has & STATE_WD_RESTORATION))
                r = switch_wd_range(s, port, "restoration_ms", w->restoration_ms, RESTORE_MIN, RESTORE_MAX,
                                    "config pfcwd start --restoration-time", e);
        if (r >= 0 && restart(c, u, &t) && l->enabled && !l->restoration_ms && !(w->has & STATE_WD_RESTORATION))
                r = errbuf_set(e, EOPNOTSUPP, s->where, "port '%s': its watchdog never restores by itself (no "
                               "restoration_time) and 'config pfcwd start' always writes one; give restoration_ms; "
                               "nothing was changed", port);
        return r;
}

/* A watchdog looks once per poll: every row must stay at or above the interval (sonic-pfcwd.yang `must`; the CLI). */
static int check_poll(const struct switch_session *s, const struct driver_change *c, struct errbuf *e)
{
        uint32_t poll = switch_wd_poll_now(c), ms;
        bool dflt = false, managed;
        const char *k;
        json_t *v;

        if (switch_wd_poll_change(c, &ms, &dflt)) {
                if (!dflt && (ms < POLL_MIN || ms > POLL_MAX))
                        return errbuf_set(e, ERANGE, s->where, "pfc.watchdog.poll_interval_ms %u is outside sonic's "
                                          "%u-%u (config pfcwd interval); nothing was changed", ms, POLL_MIN, POLL_MAX);
                poll = dflt ? PFC_WD_POLL_MSECS : ms;
        }
        json_object_foreach(switch_member(s->native, "PFC_WD"), k, v) {
                uint64_t d = 0, r = 0;
                struct state_pfc_wd t = { 0 };

                managed = false;
                for (unsigned u = 0; u < c->n_units; u++)
                        if (streq(s->sw->ports[u], k) && (managed = true))
                                switch_wd_target(c, u, &t);
                if (streq(k, "GLOBAL") || (managed && !t.enabled))
                        continue;
                if (managed) {
                        d = t.detection_ms;
                        r = t.restoration_ms;
                } else {
                        switch_json_uint(switch_member(v, "detection_time"), UINT32_MAX, &d);
                        switch_json_uint(switch_member(v, "restoration_time"), UINT32_MAX, &r);
                }
                if ((d && d < poll) || (r && r < poll))
                        return errbuf_set(e, EINVAL, s->where, "port '%s'%s: its watchdog's %s %llu ms is below the "
                                          "poll interval %u ms; a watchdog looks once per poll; nothing was changed", k,
                                          managed ? "" : " (not managed by this policy)",
                                          d && d < poll ? "detection time" : "restoration time",
                                          (unsigned long long)(d && d < poll ? d : r), poll);
        }
        return 0;
}

int sonic_wd_check(const struct switch_session *s, const struct driver_change *c, struct errbuf *e)
{
        bool any = false;
        int r = 0;

        for (unsigned u = 0; u < c->n_units && r >= 0; u++)
                if (switch_wd_changed(c, u)) {
                        any = true;
                        r = check_port(s, c, u, e);
                }
        return r >= 0 && any ? check_poll(s, c, e) : r;
}

/* ---- render: what the GCU patch carries, and the watchdog commands after it ---- */

bool sonic_wd_cover(const struct driver_change *c, unsigned u, uint8_t *ret_prios)
{
        struct state_pfc_wd t;

        if (!switch_wd_changed(c, u))
                return false;
        switch_wd_target(c, u, &t);
        *ret_prios = t.prios;
        return (t.enabled || c->desired[u].pfc_wd.has) && t.prios != c->live[u].pfc_wd.prios;
}

bool sonic_wd_touches(const struct driver_change *c, unsigned u)
{
        struct state_pfc_wd t;

        if (!switch_wd_changed(c, u))
                return false;
        switch_wd_target(c, u, &t);
        return restart(c, u, &t) || (!t.enabled && c->live[u].pfc_wd.enabled);
}

static void add_port(char *list, size_t size, const char *port)
{
        size_t n = strlen(list);

        snprintf(list + n, size - n, "%s%s", n ? " " : "", port);
}

/* `config pfcwd start` for every port with the settings of unit first, then those done. */
static void render_start(struct switch_cmds *cmds, const struct switch_session *s, const struct driver_change *c,
                         unsigned first, const struct state_pfc_wd *targets, bool *done)
{
        const struct state_pfc_wd *t = &targets[first];
        char ports[SWITCH_LINE_MAX] = "", opts[96] = "";

        for (unsigned u = first; u < c->n_units; u++) {
                const struct state_pfc_wd *x = &targets[u];

                if (done[u] || !restart(c, u, x) || x->detection_ms != t->detection_ms || x->has != t->has ||
                    x->restoration_ms != t->restoration_ms || x->action != t->action ||
                    (x->dflt & STATE_WD_ACTION) != (t->dflt & STATE_WD_ACTION))
                        continue;
                done[u] = true;
                add_port(ports, sizeof(ports), s->sw->ports[u]);
        }
        if ((t->has & STATE_WD_ACTION) && !(t->dflt & STATE_WD_ACTION))
                snprintf(opts, sizeof(opts), " --action %s", state_wd_action_name(t->action));
        if ((t->has & STATE_WD_RESTORATION) && t->restoration_ms)
                snprintf(opts + strlen(opts), sizeof(opts) - strlen(opts), " --restoration-time %u", t->restoration_ms);
        switch_cmds_add(cmds, "sudo config pfcwd start%s %s %u", opts, ports, t->detection_ms);
}

static void render(struct switch_cmds *cmds, const struct switch_session *s, const struct driver_change *c)
{
        struct state_pfc_wd t[STATE_PORTS_MAX];
        bool done[STATE_PORTS_MAX] = { false }, dflt = false, poll = false;
        char stop[SWITCH_LINE_MAX] = "";
        uint32_t ms = 0;
        int up;

        for (unsigned u = 0; u < c->n_units && u < STATE_PORTS_MAX; u++) {
                switch_wd_target(c, u, &t[u]);
                if (switch_wd_changed(c, u) && !t[u].enabled && c->live[u].pfc_wd.enabled)
                        add_port(stop, sizeof(stop), s->sw->ports[u]);
                done[u] = !switch_wd_changed(c, u);
        }
        if (*stop)
                switch_cmds_add(cmds, "sudo pfcwd stop %s", stop);
        poll = switch_wd_poll_change(c, &ms, &dflt) && !dflt;   /* the default comes back through the patch */
        up = poll && ms > switch_wd_poll_now(c);        /* a longer poll after the longer times, a shorter one before */
        if (poll && !up)
                switch_cmds_add(cmds, "sudo config pfcwd interval %u", ms);
        for (unsigned u = 0; u < c->n_units && u < STATE_PORTS_MAX; u++)
                if (!done[u] && restart(c, u, &t[u]))
                        render_start(cmds, s, c, u, t, done);
        if (poll && up)
                switch_cmds_add(cmds, "sudo config pfcwd interval %u", ms);
}

int sonic_wd_apply(struct switch_session *s, const struct driver_change *c, struct errbuf *e)
{
        struct switch_cmds *cmds;
        int r = 0;

        if (!(c->fields & STATE_BIT(STATE_FIELD_PFC_WATCHDOG)))
                return 0;
        cmds = switch_cmds_new();
        if (!cmds)
                return errbuf_set(e, ENOMEM, s->where, "out of memory");
        render(cmds, s, c);
        if (cmds->overflow)
                r = errbuf_set(e, E2BIG, s->where, "too many watchdog commands");
        for (unsigned i = 0; i < cmds->n && r >= 0; i++)
                r = switch_run(s, cmds->line[i], NULL, NULL, e);
        switch_cmds_free(cmds);
        return r;
}
