/* SPDX-License-Identifier: MIT */
/*
 * Arista EOS. Read: `show running-config | json` ({"cmds": {line: null | {"cmds": ...}}}).
 * Apply: one exec carrying `configure session TX`, the changed lines, and
 * `commit timer HH:MM:SS` (or `commit`). Commit: `configure session TX commit`;
 * abort: `configure session TX abort`; the switch reverts by itself when the
 * commit timer expires. A timed session of ours an interrupted agent left
 * behind (`show configuration sessions | json`) is aborted before a restore. Per configured port: `mtu` (68-9214; no line = 1500),
 * `qos trust dscp|cos` (no line = cos), `priority-flow-control on` +
 * `priority-flow-control priority N no-drop`, `tx-queue N` /
 * `random-detect ecn minimum-threshold A UNIT maximum-threshold B UNIT
 * max-mark-probability P` (written in bytes; kbytes = 1024 B, mbytes = 1024 KB;
 * segments and milliseconds have no byte value: the queue is rewritten).
 * Global `qos map dscp D... to traffic-class T`.
 */
#include "switch.h"

#define EOS_DEFAULT_MTU 1500

struct port_view {
        uint32_t mtu;
        bool dscp, pfc_on;
        uint8_t pfc;
        struct state_ecn ecn;
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

static int ecn_line(const char *line, struct state_ecn_queue *q)
{
        char buf[SWITCH_LINE_MAX], *w[16];
        int n;
        uint64_t p = 100;

        snprintf(buf, sizeof(buf), "%s", line);
        n = split(buf, w, 16);
        if (n < 8 || !streq(w[0], "random-detect") || !streq(w[1], "ecn") ||
            !streq(w[2], "minimum-threshold") || !streq(w[5], "maximum-threshold"))
                return -EINVAL;
        int r = threshold(w[3], w[4], &q->min_bytes);
        if (r >= 0)
                r = threshold(w[6], w[7], &q->max_bytes);
        if (r < 0)
                return r;
        for (int i = 8; i + 1 < n; i += 2)
                if (streq(w[i], "max-mark-probability") && switch_parse_uint(w[i + 1], 1, 100, &p) < 0)
                        return -EINVAL;
        q->probability_pct = (uint8_t)p;
        q->enabled = true;
        return 0;
}

static void queue_view(const char *key, json_t *node, struct port_view *v)
{
        uint64_t q;
        const char *line;
        json_t *x;

        if (switch_parse_uint(key + strlen("tx-queue "), 0, 7, &q) < 0)
                return;
        json_object_foreach(json_object_get(node, "cmds"), line, x) {
                if (strncmp(line, "random-detect ecn ", 18) || strncmp(line + 18, "minimum", 7))
                        continue;
                /* A queue whose thresholds have no byte value (segments, milliseconds) reads as
                 * marking but not enabled in bytes: it differs from any policy and is rewritten. */
                if (ecn_line(line, &v->ecn.q[q]) < 0)
                        v->ecn.q[q] = (struct state_ecn_queue){ 0 };
                v->ecn.queues |= (uint8_t)(1u << q);
        }
}

static void port_view(json_t *intf, struct port_view *v)
{
        const char *line;
        json_t *x;
        uint64_t n;

        memset(v, 0, sizeof(*v));
        v->mtu = EOS_DEFAULT_MTU;
        json_object_foreach(json_object_get(intf, "cmds"), line, x) {
                if (!strncmp(line, "mtu ", 4) && switch_parse_uint(line + 4, 0, 65535, &n) == 0)
                        v->mtu = (uint32_t)n;
                else if (streq(line, "qos trust dscp"))
                        v->dscp = true;
                else if (streq(line, "priority-flow-control on"))
                        v->pfc_on = true;
                else if (!strncmp(line, "priority-flow-control priority ", 31) && strstr(line, " no-drop") &&
                         line[31] >= '0' && line[31] <= '7' && line[32] == ' ')
                        v->pfc |= (uint8_t)(1u << (line[31] - '0'));
                else if (!strncmp(line, "tx-queue ", 9))
                        queue_view(line, x, v);
        }
        if (!v->pfc_on)
                v->pfc = 0;
}

static int dscp_line(const char *line, struct state *ret)
{
        char buf[SWITCH_LINE_MAX], *w[80];
        int n;
        uint64_t d, tc;

        snprintf(buf, sizeof(buf), "%s", line);
        n = split(buf, w, 80);
        if (n < 7 || !streq(w[n - 3], "to") || !streq(w[n - 2], "traffic-class") ||
            switch_parse_uint(w[n - 1], 0, 7, &tc) < 0)
                return -EINVAL;
        for (int i = 3; i < n - 3; i++) {
                if (switch_parse_uint(w[i], 0, 63, &d) < 0)
                        return -EINVAL;
                ret->dscp_prio[d] = (uint8_t)tc;
        }
        return 0;
}

static int parse_ports(json_t *cmds, const char *where, const struct switch_config *sw, struct state *units,
                       struct errbuf *e)
{
        char key[STATE_NAME_MAX + 16];

        for (unsigned i = 0; i < sw->n_ports && i < STATE_PORTS_MAX; i++) {
                json_t *intf;
                struct port_view v;

                snprintf(key, sizeof(key), "interface %s", sw->ports[i]);
                intf = json_object_get(cmds, key);
                if (!intf)
                        return errbuf_set(e, ENODEV, where, "port '%s' does not exist on the switch", sw->ports[i]);
                port_view(intf, &v);
                units[i].mtu = v.mtu;
                units[i].trust = v.dscp ? STATE_TRUST_DSCP : STATE_TRUST_PCP;
                units[i].pfc_enabled = v.pfc;
                units[i].ecn = v.ecn;
                units[i].present |= STATE_BIT(STATE_FIELD_MTU) | STATE_BIT(STATE_FIELD_TRUST) |
                                    STATE_BIT(STATE_FIELD_PFC) | STATE_BIT(STATE_FIELD_ECN);
        }
        return 0;
}

int switch_eos_parse(const char *text, const char *where, const struct switch_config *sw,
                     struct state *units, struct errbuf *e)
{
        json_error_t err;
        json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &err), *cmds = json_object_get(j, "cmds"), *x;
        const char *line;
        struct state map;
        int r = 0;

        if (!json_is_object(cmds)) {
                json_decref(j);
                return errbuf_set(e, EBADMSG, where, "'show running-config | json' printed invalid JSON "
                                  "(line %d column %d: %s)", err.line, err.column, j ? "no \"cmds\" object" : err.text);
        }
        /* `qos map dscp` is global: every port reads it. */
        state_init(&map);
        map.present = STATE_BIT(STATE_FIELD_DSCP_MAP);
        json_object_foreach(cmds, line, x)
                if (!strncmp(line, "qos map dscp ", 13) && dscp_line(line, &map) < 0 && r == 0)
                        r = errbuf_set(e, EBADMSG, where, "cannot parse '%.120s'", line);
        if (r >= 0)
                r = parse_ports(cmds, where, sw, units, e);
        json_decref(j);
        if (r >= 0)
                switch_units_fill(units, sw->n_ports, &map, map.present);
        return r;
}

static int eos_read(struct switch_session *s, struct state *units, struct errbuf *e)
{
        _cleanup_free_ char *out = NULL;
        int r = switch_run(s, "show running-config | json", NULL, &out, e);

        return r < 0 ? r : switch_eos_parse(out, s->where, s->sw, units, e);
}

static void render_port(struct switch_cmds *c, const char *port, const struct state *want, uint32_t delta)
{
        switch_cmds_add(c, "interface %s", port);
        if (delta & STATE_BIT(STATE_FIELD_MTU))
                switch_cmds_add(c, "   mtu %u", want->mtu);
        if (delta & STATE_BIT(STATE_FIELD_TRUST))
                switch_cmds_add(c, "   qos trust %s", want->trust == STATE_TRUST_DSCP ? "dscp" : "cos");
        if (delta & STATE_BIT(STATE_FIELD_PFC)) {
                switch_cmds_add(c, want->pfc_enabled ? "   priority-flow-control on" : "   no priority-flow-control");
                for (unsigned p = 0; p < STATE_PRIO_COUNT; p++)
                        switch_cmds_add(c, want->pfc_enabled & (1u << p) ? "   priority-flow-control priority %u no-drop"
                                                                       : "   no priority-flow-control priority %u", p);
        }
        for (unsigned q = 0; (delta & STATE_BIT(STATE_FIELD_ECN)) && q < STATE_TC_COUNT; q++) {
                const struct state_ecn_queue *x = &want->ecn.q[q];
                switch_cmds_add(c, "   tx-queue %u", q);
                if (want->ecn.queues & (1u << q))
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
        for (unsigned i = 0; i < ch->n_units; i++)
                if (ch->delta[i] & ~STATE_BIT(STATE_FIELD_DSCP_MAP))
                        render_port(c, s->sw->ports[i], &ch->desired[i], ch->delta[i]);
        /* The DSCP map is global: written from the first port's view. */
        if (ch->fields & STATE_BIT(STATE_FIELD_DSCP_MAP))
                render_dscp(c, &ch->live[0], &ch->desired[0]);
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

static int eos_abort(struct switch_session *s, struct errbuf *e)
{
        if (!s->timer)
                return -EOPNOTSUPP;
        return switch_runf(s, NULL, e, "configure session %s abort", s->txid);
}

/* A session of ours ("nettune-...") an interrupted agent left with a running commit timer. */
static int eos_adopt(struct switch_session *s, struct errbuf *e)
{
        _cleanup_free_ char *out = NULL;
        json_t *j, *v;
        const char *name;
        int r = switch_run(s, "show configuration sessions | json", NULL, &out, e);

        if (r < 0)
                return r;
        j = json_loads(out, 0, NULL);
        json_object_foreach(json_object_get(j, "sessions"), name, v) {
                const char *st = json_string_value(json_object_get(v, "state"));

                if (!st || !streq(st, "pendingCommitTimer") || strncmp(name, "nettune-", 8) ||
                    strlen(name) >= sizeof(s->txid))
                        continue;
                snprintf(s->txid, sizeof(s->txid), "%s", name);
                s->pending = s->timer = true;
                break;
        }
        json_decref(j);
        return 0;
}

const struct switch_dialect switch_eos_dialect = {
        .name = "eos",
        .lim = { .mtu_min = 68, .mtu_max = 9214, .thr_min = 1, .thr_max = UINT32_MAX },
        .read = eos_read,
        .apply = eos_apply,
        .commit = eos_commit,
        .abort = eos_abort,
        .adopt = eos_adopt,
};
