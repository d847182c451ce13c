/* SPDX-License-Identifier: MIT */
/*
 * Arista EOS (EOS configuration guide, QoS chapter; running-config forms as AVD's
 * eos_cli_config_gen writes them: tests/data/switch/avd_intended_qos.cfg).
 *
 * Read: `show running-config | json` ({"cmds": {line: null | {"cmds": ...}}}). Per
 * port, as EOS applies it: the lines of the `qos profile` the interface names with
 * `service-profile NAME`, overridden knob by knob by the interface's own lines:
 *   mtu N (no line: 1500; the IP MTU of routed traffic — bridged frames are limited
 *          by `l2 mtu`, which nettune does not manage), qos trust dscp|cos (none: cos),
 *   priority-flow-control on | no priority-flow-control,
 *   priority-flow-control priority N no-drop|drop,
 *   tx-queue N or uc-tx-queue N (7280R/Jericho unicast queues) with
 *   random-detect ecn minimum-threshold A U maximum-threshold B U
 *   [max-mark-probability P] [weight W] (bytes, kbytes = 1024 B, mbytes = 1024 KB;
 *   segments and milliseconds have no byte value: such a queue is rewritten in bytes).
 * Global: `qos map dscp D... to traffic-class T [drop-precedence P]` (the DSCP map
 * every port reads; drop precedence is not a nettune knob) and `priority-flow-control
 * all off` (PFC off on every port whatever the interfaces say).
 *
 * Write: one exec with `configure session TX`, interface lines for the delta only
 * (the queue keyword the port already uses), global `qos map dscp` lines for the
 * code points that differ, then `commit timer HH:MM:SS` (or `commit`). Commit:
 * `configure session TX commit`; save: `copy running-config startup-config`; abort:
 * `configure session TX abort`; the switch reverts by itself when the commit timer
 * expires. Someone else's session with a pending commit timer makes check refuse.
 */
#include "drivers/switch/switch.h"

#define EOS_DEFAULT_MTU 1500
#define EOS_SHOW "show running-config | json"
#define EOS_SESSIONS "show configuration sessions | json"

/* What one block of lines (an interface or a qos profile) says; *_set: it says it at all. */
struct eos_view {
        bool mtu_set, trust_set, pfc_on_set, uc, routed;
        uint32_t mtu;
        bool dscp, pfc_on;
        uint8_t prio_set, prio_nodrop, ecn_set;
        struct state_ecn_queue q[STATE_TC_COUNT];
};

static int split(char *line, char **w, int max)
{
        int n = 0;

        for (char *save = NULL, *t = strtok_r(line, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
                if (n >= max)
                        return -1;
                w[n++] = t;
        }
        return n;
}

static int threshold(const char *num, const char *unit, uint32_t *ret)
{
        uint64_t v, f;

        if (switch_parse_uint(num, 0, UINT32_MAX, &v) < 0)
                return -EINVAL;
        if (streq(unit, "bytes"))
                f = 1;
        else if (streq(unit, "kbytes"))
                f = 1024;
        else if (streq(unit, "mbytes"))
                f = 1024 * 1024;
        else
                return -EOPNOTSUPP;     /* segments, milliseconds: no fixed byte value */
        if (v * f > UINT32_MAX)
                return -ERANGE;
        *ret = (uint32_t)(v * f);
        return 0;
}

/* "random-detect ecn minimum-threshold A U maximum-threshold B U [max-mark-probability P] [weight W]" */
static int ecn_line(const char *line, struct state_ecn_queue *q)
{
        char buf[SWITCH_LINE_MAX], *w[16];
        uint64_t p = 100, x;
        int n, r;

        snprintf(buf, sizeof(buf), "%s", line);
        n = split(buf, w, 16);
        if (n < 8 || !streq(w[2], "minimum-threshold") || !streq(w[5], "maximum-threshold"))
                return -EINVAL;
        r = threshold(w[3], w[4], &q->min_bytes);
        if (r >= 0)
                r = threshold(w[6], w[7], &q->max_bytes);
        for (int i = 8; r >= 0 && i + 1 < n; i += 2)
                if (streq(w[i], "max-mark-probability") && switch_parse_uint(w[i + 1], 1, 100, &p) < 0)
                        r = -EINVAL;
                else if (streq(w[i], "weight") && switch_parse_uint(w[i + 1], 0, 15, &x) < 0)
                        r = -EINVAL;
        if (r == -EOPNOTSUPP) {
                /* Marks, but in units without a byte value: differs from any policy, rewritten in bytes. */
                *q = (struct state_ecn_queue){ .enabled = true };
                return 0;
        }
        if (r < 0)
                return r;
        q->probability_pct = (uint8_t)p;
        q->enabled = true;
        return 0;
}

static int queue_view(const char *key, json_t *node, struct eos_view *v)
{
        bool uc = !strncmp(key, "uc-tx-queue ", 12);
        const char *line;
        json_t *x;
        uint64_t q;

        if (switch_parse_uint(key + (uc ? 12 : 9), 0, 7, &q) < 0)
                return -EINVAL;
        v->uc |= uc;
        json_object_foreach(switch_member(node, "cmds"), line, x) {
                if (strncmp(line, "random-detect ecn minimum-threshold ", 36))
                        continue;       /* random-detect ecn count, drop lines, bandwidth, ... */
                if (ecn_line(line, &v->q[q]) < 0)
                        return -EINVAL;
                v->ecn_set |= (uint8_t)(1u << q);
        }
        return 0;
}

/* One block's lines; -EINVAL with *ret_bad the line it cannot read. */
static int view_of(json_t *block, struct eos_view *v, const char **ret_bad)
{
        const char *line;
        json_t *x;
        uint64_t n;

        memset(v, 0, sizeof(*v));
        json_object_foreach(switch_member(block, "cmds"), line, x) {
                int r = 0;

                if (!strncmp(line, "mtu ", 4)) {
                        r = switch_parse_uint(line + 4, 0, 65535, &n);
                        v->mtu = (uint32_t)n;
                        v->mtu_set = true;
                } else if (streq(line, "no switchport")) {
                        v->routed = true;
                } else if (streq(line, "qos trust dscp") || streq(line, "qos trust cos")) {
                        v->dscp = streq(line, "qos trust dscp");
                        v->trust_set = true;
                } else if (streq(line, "priority-flow-control on") || streq(line, "no priority-flow-control")) {
                        v->pfc_on = streq(line, "priority-flow-control on");
                        v->pfc_on_set = true;
                } else if (!strncmp(line, "priority-flow-control priority ", 31)) {
                        unsigned p = (unsigned)(line[31] - '0');
                        if (line[31] < '0' || line[31] > '7' || line[32] != ' ' ||
                            (!streq(line + 33, "no-drop") && !streq(line + 33, "drop")))
                                r = -EINVAL;
                        else {
                                v->prio_set |= (uint8_t)(1u << p);
                                if (streq(line + 33, "no-drop"))
                                        v->prio_nodrop |= (uint8_t)(1u << p);
                        }
                } else if (!strncmp(line, "tx-queue ", 9) || !strncmp(line, "uc-tx-queue ", 12)) {
                        r = queue_view(line, x, v);
                }
                if (r < 0) {
                        *ret_bad = line;
                        return -EINVAL;
                }
        }
        return 0;
}

/* The interface's view over its service-profile's: what EOS applies to the port. */
static void overlay(struct eos_view *v, const struct eos_view *intf)
{
        if (intf->mtu_set)
                v->mtu = intf->mtu, v->mtu_set = true;
        if (intf->trust_set)
                v->dscp = intf->dscp, v->trust_set = true;
        if (intf->pfc_on_set)
                v->pfc_on = intf->pfc_on, v->pfc_on_set = true;
        v->prio_nodrop = (uint8_t)((v->prio_nodrop & ~intf->prio_set) | intf->prio_nodrop);
        v->prio_set |= intf->prio_set;
        for (unsigned q = 0; q < STATE_TC_COUNT; q++)
                if (intf->ecn_set & (1u << q))
                        v->q[q] = intf->q[q];
        v->ecn_set |= intf->ecn_set;
        v->uc |= intf->uc;
        v->routed = intf->routed;
}

/* What `port` is made of: *ret the effective view, *ret_intf its own lines. */
static int port_views(json_t *cmds, const char *port, const char *where, struct eos_view *ret,
                      struct eos_view *ret_intf, struct errbuf *e)
{
        char key[STATE_NAME_MAX + 16];
        const char *bad = NULL, *line, *prof = NULL;
        json_t *intf, *x;

        snprintf(key, sizeof(key), "interface %s", port);
        intf = switch_member(cmds, key);
        if (!intf)
                return errbuf_set(e, ENODEV, where, "port '%s' does not exist on the switch (no '%s' in '" EOS_SHOW "')",
                                  port, key);
        json_object_foreach(switch_member(intf, "cmds"), line, x)
                if (!strncmp(line, "service-profile ", 16))
                        prof = line + 16;
        memset(ret, 0, sizeof(*ret));
        if (prof) {
                snprintf(key, sizeof(key), "qos profile %.40s", prof);
                if (!switch_member(cmds, key))
                        return errbuf_set(e, EBADMSG, where, "port '%s' names service-profile '%s', which the "
                                          "running-config does not have", port, prof);
                if (view_of(switch_member(cmds, key), ret, &bad) < 0)
                        return errbuf_set(e, EBADMSG, where, "%s: cannot read '%.120s'", key, bad);
        }
        if (view_of(intf, ret_intf, &bad) < 0)
                return errbuf_set(e, EBADMSG, where, "interface %s: cannot read '%.120s'", port, bad);
        overlay(ret, ret_intf);
        return 0;
}

/* "qos map dscp D... to traffic-class T [drop-precedence P]" */
static int dscp_line(const char *line, struct state *ret)
{
        char buf[SWITCH_LINE_MAX], *w[80];
        int n, end;
        uint64_t d, tc, dp;

        snprintf(buf, sizeof(buf), "%s", line);
        n = split(buf, w, 80);
        end = n >= 2 && streq(w[n - 2], "drop-precedence") ? n - 2 : n;
        if (end < n && switch_parse_uint(w[n - 1], 0, 2, &dp) < 0)
                return -EINVAL;
        if (end < 7 || !streq(w[end - 3], "to") || !streq(w[end - 2], "traffic-class") ||
            switch_parse_uint(w[end - 1], 0, 7, &tc) < 0)
                return -EINVAL;
        for (int i = 3; i < end - 3; i++) {
                if (switch_parse_uint(w[i], 0, 63, &d) < 0)
                        return -EINVAL;
                ret->dscp_prio[d] = (uint8_t)tc;
        }
        return 0;
}

static void unit_of(const struct eos_view *v, bool pfc_all_off, struct state *u)
{
        u->mtu = v->mtu_set ? v->mtu : EOS_DEFAULT_MTU;
        u->trust = v->trust_set && v->dscp ? STATE_TRUST_DSCP : STATE_TRUST_PCP;
        u->pfc_enabled = v->pfc_on && !pfc_all_off ? v->prio_nodrop : 0;
        switch_ecn_all_queues(u);
        for (unsigned q = 0; q < STATE_TC_COUNT; q++)
                u->ecn.q[q] = (v->ecn_set & (1u << q)) ? v->q[q] : (struct state_ecn_queue){ 0 };
        u->present |= SWITCH_FIELDS;
}

static int parse_cmds(const char *text, const char *where, json_t **ret, struct errbuf *e)
{
        json_error_t err;
        json_t *j = json_loads(text ? text : "", JSON_REJECT_DUPLICATES, &err);

        if (!j) {
                return errbuf_set(e, EBADMSG, where, "'" EOS_SHOW "' printed invalid JSON (line %d column %d: %s)",
                                  err.line, err.column, err.text);
        }
        if (!json_is_object(switch_member(j, "cmds"))) {
                json_decref(j);
                return errbuf_set(e, EBADMSG, where, "'" EOS_SHOW "': no object 'cmds'; not an output nettune knows");
        }
        *ret = j;
        return 0;
}

int switch_eos_parse(const char *text, const char *where, const struct switch_config *sw,
                     struct state *units, struct errbuf *e)
{
        json_t *j = NULL, *cmds, *x;
        struct state map;
        const char *line;
        bool all_off;
        int r = parse_cmds(text, where, &j, e);

        if (r < 0)
                return r;
        cmds = switch_member(j, "cmds");
        all_off = switch_member(cmds, "priority-flow-control all off") != NULL;
        /* `qos map dscp` is global: every port reads it. */
        state_init(&map);
        map.present = STATE_BIT(STATE_FIELD_DSCP_MAP);
        json_object_foreach(cmds, line, x)
                if (r >= 0 && !strncmp(line, "qos map dscp ", 13) && dscp_line(line, &map) < 0)
                        r = errbuf_set(e, EBADMSG, where, "cannot read '%.120s'", line);
        for (unsigned i = 0; r >= 0 && i < sw->n_ports && i < STATE_PORTS_MAX; i++) {
                struct eos_view v, own;

                r = port_views(cmds, sw->ports[i], where, &v, &own, e);
                if (r >= 0)
                        unit_of(&v, all_off, &units[i]);
        }
        if (r >= 0)
                switch_units_fill(units, sw->n_ports, &map, map.present);
        json_decref(j);
        return r;
}

static int eos_read(struct switch_session *s, struct state *units, struct errbuf *e)
{
        _cleanup_free_ char *out = NULL;
        json_t *j = NULL;
        int r = switch_run(s, EOS_SHOW, NULL, &out, e);

        if (r >= 0)
                r = switch_eos_parse(out, s->where, s->sw, units, e);
        if (r >= 0)
                r = parse_cmds(out, s->where, &j, e);
        if (r >= 0) {
                json_decref(s->native);
                s->native = j;
        }
        return r;
}

/* ---- check ---- */

static int check_foreign(struct switch_session *s, struct errbuf *e)
{
        _cleanup_free_ char *out = NULL;
        const char *name;
        json_t *j, *v;
        int r = switch_run(s, EOS_SESSIONS, NULL, &out, e);

        if (r < 0)
                return r;
        j = json_loads(out, 0, NULL);
        json_object_foreach(switch_member(j, "sessions"), name, v)
                if (streq(json_string_value(switch_member(v, "state")), "pendingCommitTimer") && !streq(name, s->txid)) {
                        r = errbuf_set(e, EBUSY, s->where, "configuration session '%s' awaits its commit timer and "
                                       "nettune did not make it; commit or abort it first; nothing was changed", name);
                        break;
                }
        json_decref(j);
        return r;
}

static int check_port(struct switch_session *s, const struct driver_change *c, unsigned u, bool all_off,
                      struct errbuf *e)
{
        const char *port = s->sw->ports[u];
        struct eos_view v, own;
        uint8_t qs = switch_ecn_changed(c, u);
        int r = port_views(switch_member(s->native, "cmds"), port, s->where, &v, &own, e);

        if (r < 0)
                return r;
        if ((c->delta[u] & STATE_BIT(STATE_FIELD_PFC)) && c->desired[u].pfc_enabled && all_off)
                return errbuf_set(e, EOPNOTSUPP, s->where, "'priority-flow-control all off' is configured: PFC is off "
                                  "on every port whatever the interfaces say; nettune does not change it; nothing was "
                                  "changed");
        for (unsigned q = 0; q < STATE_TC_COUNT; q++)
                if ((qs & (1u << q)) && !c->desired[u].ecn.q[q].enabled && !(own.ecn_set & (1u << q)))
                        return errbuf_set(e, EOPNOTSUPP, s->where, "port '%s': ECN on queue %u comes from its "
                                          "service-profile; an interface line cannot remove it; nothing was changed",
                                          port, q);
        if ((c->delta[u] & STATE_BIT(STATE_FIELD_MTU)) && !v.routed)
                switch_note(s, "port '%s' is a switchport: 'mtu' is the IP MTU of routed traffic; bridged frames are "
                            "limited by 'l2 mtu', which nettune does not manage", port);
        return 0;
}

/*
 * EOS has no cable length to give: its PFC is `priority-flow-control priority N
 * no-drop` per interface (AVD eos_cli_config_gen ethernet_interfaces: priority and
 * no_drop only), and where headroom can be set at all it is bytes or cells of a
 * Trident MMU queue profile (`platform trident mmu queue profile`), not a length.
 */
static int check_cable(struct switch_session *s, const struct driver_change *c, struct errbuf *e)
{
        if (!(c->fields & STATE_BIT(STATE_FIELD_CABLE_LEN)))
                return 0;
        return errbuf_set(e, EOPNOTSUPP, s->where, "EOS has no cable length to set (no cable-length or PFC "
                          "headroom command; Trident platforms size headroom in bytes of an MMU queue profile); "
                          "leave pfc.cable_length_m out of the policy for this switch; nothing was changed");
}

static int eos_check(struct switch_session *s, const struct driver_change *c, struct errbuf *e)
{
        bool all_off = switch_member(switch_member(s->native, "cmds"), "priority-flow-control all off") != NULL;
        int r = check_cable(s, c, e);

        for (unsigned u = 0; r >= 0 && u < c->n_units; u++)
                if (c->delta[u])
                        r = check_port(s, c, u, all_off, e);
        if (r >= 0 && !s->pending)
                r = check_foreign(s, e);
        return r;
}

/* ---- apply ---- */

static void render_pfc(struct switch_cmds *c, const struct eos_view *v, const struct state *want,
                       const struct state *live)
{
        uint8_t w = want->pfc_enabled, l = live->pfc_enabled;

        if (w && !v->pfc_on)
                switch_cmds_add(c, "   priority-flow-control on");
        for (unsigned p = 0; p < STATE_PRIO_COUNT; p++)
                if ((w & ~l) & (1u << p))
                        switch_cmds_add(c, "   priority-flow-control priority %u no-drop", p);
                else if ((l & ~w) & (1u << p))
                        switch_cmds_add(c, "   priority-flow-control priority %u drop", p);
}

static void render_port(struct switch_cmds *c, const struct switch_session *s, const struct driver_change *ch,
                        unsigned u)
{
        const struct state *want = &ch->desired[u], *live = &ch->live[u];
        uint32_t delta = ch->delta[u] & ~STATE_BIT(STATE_FIELD_DSCP_MAP);
        uint8_t qs = switch_ecn_changed(ch, u);
        struct eos_view v, own;
        struct errbuf ignore;

        if (!delta || port_views(switch_member(s->native, "cmds"), s->sw->ports[u], s->where, &v, &own, &ignore) < 0)
                return;
        switch_cmds_add(c, "interface %s", s->sw->ports[u]);
        if (delta & STATE_BIT(STATE_FIELD_MTU))
                switch_cmds_add(c, "   mtu %u", want->mtu);
        if ((delta & STATE_BIT(STATE_FIELD_TRUST)) && want->trust != live->trust)
                switch_cmds_add(c, "   qos trust %s", want->trust == STATE_TRUST_DSCP ? "dscp" : "cos");
        if (delta & STATE_BIT(STATE_FIELD_PFC))
                render_pfc(c, &v, want, live);
        for (unsigned q = 0; q < STATE_TC_COUNT; q++) {
                const struct state_ecn_queue *x = &want->ecn.q[q];

                if (!(qs & (1u << q)))
                        continue;
                switch_cmds_add(c, "   %s %u", v.uc ? "uc-tx-queue" : "tx-queue", q);
                if (x->enabled)
                        switch_cmds_add(c, "      random-detect ecn minimum-threshold %u bytes maximum-threshold "
                                        "%u bytes max-mark-probability %u", x->min_bytes, x->max_bytes,
                                        x->probability_pct);
                else
                        switch_cmds_add(c, "      no random-detect ecn");
                switch_cmds_add(c, "   exit");
        }
        switch_cmds_add(c, "exit");
}

static void render_dscp(struct switch_cmds *c, const struct state *live, const struct state *want)
{
        for (unsigned d = 0; d < STATE_DSCP_COUNT; d++)
                if (want->dscp_prio[d] == STATE_DSCP_UNMAPPED && live->dscp_prio[d] != STATE_DSCP_UNMAPPED)
                        switch_cmds_add(c, "no qos map dscp %u to traffic-class %u", d, live->dscp_prio[d]);
        for (unsigned tc = 0; tc < 8; tc++) {
                char line[SWITCH_LINE_MAX] = "";
                size_t off = 0;
                for (unsigned d = 0; d < STATE_DSCP_COUNT; d++)
                        if (want->dscp_prio[d] == tc && live->dscp_prio[d] != tc)
                                off += (size_t)snprintf(line + off, sizeof(line) - off, " %u", d);
                if (off)
                        switch_cmds_add(c, "qos map dscp%s to traffic-class %u", line, tc);
        }
}

static char *join(const struct switch_cmds *c)
{
        size_t len = 1;
        char *out, *p;

        for (unsigned i = 0; i < c->n; i++)
                len += strlen(c->line[i]) + 1;
        out = p = malloc(len);
        if (!out)
                return NULL;
        for (unsigned i = 0; i < c->n; i++)
                p += sprintf(p, "%s%s", c->line[i], i + 1 < c->n ? "\n" : "");
        *p = '\0';
        return out;
}

static int eos_apply(struct switch_session *s, const struct driver_change *ch, unsigned confirm_s,
                     struct errbuf *e)
{
        struct switch_cmds *c = switch_cmds_new();
        _cleanup_free_ char *script = NULL;
        int r;

        if (!c)
                return errbuf_set(e, ENOMEM, s->where, "out of memory");
        switch_cmds_add(c, "configure session %s", s->txid);
        for (unsigned u = 0; u < ch->n_units; u++)
                render_port(c, s, ch, u);
        /* The DSCP map is global: every port reads the same one. */
        for (unsigned u = 0; u < ch->n_units; u++)
                if (ch->delta[u] & STATE_BIT(STATE_FIELD_DSCP_MAP)) {
                        render_dscp(c, &ch->live[u], &ch->desired[u]);
                        break;
                }
        if (confirm_s)
                switch_cmds_add(c, "commit timer %02u:%02u:%02u", confirm_s / 3600, confirm_s / 60 % 60,
                                confirm_s % 60);
        else
                switch_cmds_add(c, "commit");
        script = c->overflow ? NULL : join(c);
        switch_cmds_free(c);
        if (!script)
                return errbuf_set(e, E2BIG, s->where, "change too large for one session; nothing was changed");
        r = switch_run(s, script, NULL, NULL, e);
        if (r < 0 && ssh_session_alive(s->ssh)) {
                struct errbuf ignore;
                switch_runf(s, NULL, &ignore, "configure session %s abort", s->txid);
                errbuf_suffix(e, "; the session was aborted, nothing was changed");
                return r;
        }
        s->pending = s->timer = confirm_s > 0;
        s->timer_s = confirm_s;
        return r;
}

static int eos_commit(struct switch_session *s, struct errbuf *e)
{
        return switch_runf(s, NULL, e, "configure session %s commit", s->txid);
}

static int eos_save(struct switch_session *s, struct errbuf *e)
{
        int r = switch_run(s, "copy running-config startup-config", NULL, NULL, e);

        if (r < 0)
                return r;
        snprintf(s->save_how, sizeof(s->save_how), "copy running-config startup-config");
        return 1;
}

static int eos_abort(struct switch_session *s, struct errbuf *e)
{
        if (!s->timer)
                return -EOPNOTSUPP;
        return switch_runf(s, NULL, e, "configure session %s abort", s->txid);
}

/* Our session (the ledger names it) an interrupted agent left with a running commit timer. */
static int eos_adopt(struct switch_session *s, const struct switch_own *own, struct errbuf *e)
{
        _cleanup_free_ char *out = NULL;
        json_t *j, *v;
        int r = switch_run(s, EOS_SESSIONS, NULL, &out, e);

        if (r < 0)
                return r;
        j = json_loads(out, 0, NULL);
        v = switch_member(switch_member(j, "sessions"), own->txid);
        if (streq(json_string_value(switch_member(v, "state")), "pendingCommitTimer")) {
                snprintf(s->txid, sizeof(s->txid), "%s", own->txid);
                s->pending = s->timer = true;
        }
        json_decref(j);
        return 0;
}

const struct switch_dialect switch_eos_dialect = {
        .name = "eos",
        .lim = { .mtu_min = 68, .mtu_max = 9214, .thr_min = 1, .thr_max = UINT32_MAX },
        .read = eos_read,
        .check = eos_check,
        .apply = eos_apply,
        .commit = eos_commit,
        .save = eos_save,
        .abort = eos_abort,
        .adopt = eos_adopt,
};
