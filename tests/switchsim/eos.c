/* SPDX-License-Identifier: MIT */
/*
 * EOS subset (EOS configuration guide: configure session, QoS; running-config forms
 * as AVD writes them, tests/data/switch/avd_intended_qos.cfg). The running config is
 * kept in the shape of `show running-config | json`:
 * {"cmds": {"interface Ethernet1": {"cmds": {...}}, ...}}.
 * One exec may carry several lines (as `Cli -c` does):
 *   configure session NAME / interface X / mtu N / [no] switchport / qos trust dscp|cos /
 *   service-profile NAME / priority-flow-control on / no priority-flow-control /
 *   priority-flow-control priority N no-drop|drop / tx-queue N | uc-tx-queue N /
 *   random-detect ecn minimum-threshold A UNIT maximum-threshold B UNIT
 *   [max-mark-probability P] [weight W] / qos profile NAME (same sub-lines) /
 *   qos map dscp D... to traffic-class T [drop-precedence P] /
 *   priority-flow-control all off / no ... / exit / commit | commit timer HH:MM:SS | abort | end
 * and standalone: configure session NAME commit|abort, show running-config | json,
 * show configuration sessions | json, copy running-config startup-config, and
 * show interfaces | json (the data plane, traffic.c, in the members napalm's mocked
 * vEOS output has: interfaceStatus, bandwidth, mtu, interfaceCounters with discards and
 * rxPause/txPause), show priority-flow-control counters | json (interfaceCounters with
 * rxFrames/txFrames: every priority's PFC frames together, the shape Arista's ANTA tests
 * read) and show qos interfaces ecn counters queue | json (intfQueueCounters,
 * queueCounters "0"-"7" as strings; "-" for a queue whose tx-queue has no
 * `random-detect ecn count`: the line that allocates the counter). A reboot loads
 * startup-config.
 *
 * Variants (--variant), each from the AVD sample configuration:
 *   drop-precedence   `qos map dscp 18 20 22 26 28 30 34 36 38 to traffic-class 4
 *                     drop-precedence 2`
 *   service-profile   `qos profile roce` (qos trust dscp, tx-queue 3 random-detect ecn
 *                     320 kbytes / 320 kbytes, max-mark-probability 90) applied to the
 *                     second port with `service-profile roce`
 *   uc-tx-queue       the ports' queues are unicast queues (7280R/Jericho): uc-tx-queue 3
 *                     with random-detect ecn on the first port
 *   pfc-all-off       global `priority-flow-control all off`
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/switch/switch.h"
#include "tests/switchsim/sim.h"

#define EOS_MTU_MIN 68
#define EOS_MTU_MAX 9214

json_t *eos_init(json_t *ports, const json_t *st)
{
        json_t *run = json_object(), *cmds = sim_obj(run, "cmds"), *p;
        size_t i;

        json_array_foreach(ports, i, p) {
                char key[96];
                json_t *intf;
                snprintf(key, sizeof(key), "interface %s", json_string_value(p));
                intf = json_pack("{s:{s:n,s:n}}", "cmds", "mtu 1500", "qos trust cos");
                if (i == 1 && sim_variant(st, "service-profile"))
                        json_object_set_new(json_object_get(intf, "cmds"), "service-profile roce", json_null());
                if (i == 0 && sim_variant(st, "uc-tx-queue"))
                        json_object_set_new(json_object_get(intf, "cmds"), "uc-tx-queue 3", json_pack("{s:{s:n}}", "cmds",
                                            "random-detect ecn minimum-threshold 320 kbytes maximum-threshold 320 kbytes "
                                            "max-mark-probability 90"));
                json_object_set_new(cmds, key, intf);
        }
        json_object_set_new(cmds, "qos map dscp 8 9 10 11 12 13 14 15 to traffic-class 1", json_null());
        if (sim_variant(st, "drop-precedence"))
                json_object_set_new(cmds, "qos map dscp 18 20 22 26 28 30 34 36 38 to traffic-class 4 drop-precedence 2",
                                    json_null());
        if (sim_variant(st, "service-profile"))
                json_object_set_new(cmds, "qos profile roce", json_pack("{s:{s:n,s:{s:{s:n}}}}", "cmds",
                                    "qos trust dscp", "tx-queue 3", "cmds",
                                    "random-detect ecn minimum-threshold 320 kbytes maximum-threshold 320 kbytes "
                                    "max-mark-probability 90"));
        if (sim_variant(st, "pfc-all-off"))
                json_object_set_new(cmds, "priority-flow-control all off", json_null());
        return json_pack("{s:o,s:O,s:{},s:n}", "running", run, "startup", run, "sessions", "timer");
}

/* Remove every line of node starting with prefix. */
void eos_del_prefix(json_t *node, const char *prefix)
{
        json_t *cmds = json_object_get(node, "cmds"), *v;
        const char *k;
        void *tmp;

        json_object_foreach_safe(cmds, tmp, k, v)
                if (!strncmp(k, prefix, strlen(prefix)))
                        json_object_del(cmds, k);
}

void eos_set_line(json_t *node, const char *prefix, const char *line)
{
        eos_del_prefix(node, prefix);
        json_object_set_new(sim_obj(node, "cmds"), line, json_null());
}

/* "qos map dscp D... to traffic-class T [drop-precedence P]"; *dp = 0 when none (P is 0-2, kept as P + 1). */
static int parse_dscps(char **w, int n, int *to_idx, uint64_t *bits, uint64_t *tc, unsigned *dp)
{
        uint64_t v;

        *bits = 0;
        *dp = 0;
        for (int i = 3; i < n; i++) {
                if (!strcmp(w[i], "to")) {
                        if (i + 3 > n || strcmp(w[i + 1], "traffic-class") || switch_parse_uint(w[i + 2], 0, 7, tc) < 0)
                                return -1;
                        if (i + 3 < n && (i + 5 != n || strcmp(w[i + 3], "drop-precedence") ||
                                          switch_parse_uint(w[i + 4], 0, 2, &v) < 0))
                                return -1;
                        if (i + 3 < n)
                                *dp = (unsigned)v + 1;
                        *to_idx = i;
                        return *bits ? 0 : -1;
                }
                if (switch_parse_uint(w[i], 0, 63, &v) < 0)
                        return -1;
                *bits |= UINT64_C(1) << v;
        }
        return -1;
}

/* Keep "qos map dscp ... to traffic-class T [drop-precedence P]" lines normalised: one per class and precedence. */
static void dscp_map_edit(json_t *root, uint64_t bits, int tc, unsigned dp, bool add)
{
        json_t *cmds = sim_obj(root, "cmds"), *v;
        uint64_t per[8][4] = { { 0 } };
        const char *k;
        void *tmp;

        json_object_foreach_safe(cmds, tmp, k, v) {
                char buf[512], *w[80];
                int n, idx;
                uint64_t b, t;
                unsigned d;
                snprintf(buf, sizeof(buf), "%s", k);
                n = sim_split(buf, w, 80);
                if (n > 3 && !strcmp(w[0], "qos") && !strcmp(w[1], "map") && !strcmp(w[2], "dscp") &&
                    parse_dscps(w, n, &idx, &b, &t, &d) == 0) {
                        per[t][d] |= b;
                        json_object_del(cmds, k);
                }
        }
        for (int t = 0; t < 8; t++)
                for (int d = 0; d < 4; d++)
                        per[t][d] &= ~bits;
        if (add)
                per[tc][dp] |= bits;
        for (int t = 0; t < 8; t++)
                for (int d = 0; d < 4; d++) {
                        char line[512] = "qos map dscp";
                        size_t off = strlen(line);
                        if (!per[t][d])
                                continue;
                        for (int c = 0; c < 64; c++)
                                if (per[t][d] & (UINT64_C(1) << c))
                                        off += (size_t)snprintf(line + off, sizeof(line) - off, " %d", c);
                        off += (size_t)snprintf(line + off, sizeof(line) - off, " to traffic-class %d", t);
                        if (d)
                                snprintf(line + off, sizeof(line) - off, " drop-precedence %d", d - 1);
                        json_object_set_new(cmds, line, json_null());
                }
}

static int ecn_line(char **w, int n)
{
        static const char *const units[] = { "segments", "bytes", "kbytes", "mbytes", "milliseconds" };
        uint64_t a, b, p;
        bool ua = false, ub = false;

        if (n < 8 || strcmp(w[2], "minimum-threshold") || strcmp(w[5], "maximum-threshold"))
                return -1;
        if (switch_parse_uint(w[3], 1, UINT32_MAX, &a) < 0 || switch_parse_uint(w[6], 1, UINT32_MAX, &b) < 0)
                return -1;
        for (size_t i = 0; i < ARRAY_SIZE(units); i++) {
                ua |= !strcmp(w[4], units[i]);
                ub |= !strcmp(w[7], units[i]);
        }
        if (!ua || !ub || (!strcmp(w[4], w[7]) && b < a))
                return -1;
        for (int i = 8; i < n; i += 2) {
                if (i + 1 >= n)
                        return -1;
                if (!strcmp(w[i], "max-mark-probability") && switch_parse_uint(w[i + 1], 1, 100, &p) == 0)
                        continue;
                if (!strcmp(w[i], "weight") && switch_parse_uint(w[i + 1], 0, 15, &p) == 0)
                        continue;
                return -1;
        }
        return 0;
}

struct mode {
        json_t *root;           /* session config */
        json_t *intf;           /* interface node or NULL */
        json_t *queue;          /* tx-queue node or NULL */
};

static int queue_line(struct mode *m, char **w, int n, bool no, const char *line)
{
        if (n == 3 && !strcmp(w[0], "random-detect") && !strcmp(w[1], "ecn") && !strcmp(w[2], "count")) {
                if (no)
                        json_object_del(sim_obj(m->queue, "cmds"), "random-detect ecn count");
                else
                        json_object_set_new(sim_obj(m->queue, "cmds"), "random-detect ecn count", json_null());
                return 0;
        }
        if (n >= 2 && !strcmp(w[0], "random-detect") && !strcmp(w[1], "ecn")) {
                if (no)
                        return eos_del_prefix(m->queue, "random-detect ecn"), 0;
                if (ecn_line(w, n) < 0)
                        return -1;
                eos_set_line(m->queue, "random-detect ecn ", line);
                return 0;
        }
        return -1;
}

static int intf_line(struct mode *m, char **w, int n, bool no, const char *line)
{
        uint64_t v;
        char prefix[64];

        if (n >= 2 && !strcmp(w[0], "priority-flow-control") && !strcmp(w[1], "pause"))
                return eos_wd_line(m->intf, w, n, no, line, false);     /* eos_pfcwd.c */

        if (!strcmp(w[0], "mtu")) {
                if (no)
                        return eos_del_prefix(m->intf, "mtu "), 0;
                if (n != 2 || switch_parse_uint(w[1], EOS_MTU_MIN, EOS_MTU_MAX, &v) < 0)
                        return -1;
                return eos_set_line(m->intf, "mtu ", line), 0;
        }
        if (n >= 2 && !strcmp(w[0], "qos") && !strcmp(w[1], "trust")) {
                if (no)
                        return eos_del_prefix(m->intf, "qos trust"), 0;
                if (n != 3 || (strcmp(w[2], "dscp") && strcmp(w[2], "cos")))
                        return -1;
                return eos_set_line(m->intf, "qos trust ", line), 0;
        }
        /* `no priority-flow-control` shows in the running-config (AVD ethernet-interfaces.cfg, Ethernet3). */
        if (!strcmp(w[0], "priority-flow-control") && n == 2 && !strcmp(w[1], "on")) {
                if (no)
                        return -1;
                eos_del_prefix(m->intf, "no priority-flow-control");
                return eos_set_line(m->intf, "priority-flow-control on", line), 0;
        }
        if (!strcmp(w[0], "priority-flow-control") && n == 1 && no) {
                eos_del_prefix(m->intf, "priority-flow-control on");
                return eos_set_line(m->intf, "no priority-flow-control", "no priority-flow-control"), 0;
        }
        if (!strcmp(w[0], "switchport") && n == 1) {
                if (no)
                        return eos_set_line(m->intf, "no switchport", "no switchport"), 0;
                return eos_del_prefix(m->intf, "no switchport"), 0;
        }
        if (!strcmp(w[0], "service-profile") && n == 2) {
                if (no)
                        return eos_del_prefix(m->intf, "service-profile "), 0;
                return eos_set_line(m->intf, "service-profile ", line), 0;
        }
        if (!strcmp(w[0], "priority-flow-control") && n >= 3 && !strcmp(w[1], "priority")) {
                if (switch_parse_uint(w[2], 0, 7, &v) < 0)
                        return -1;
                snprintf(prefix, sizeof(prefix), "priority-flow-control priority %s ", w[2]);
                if (no)
                        return eos_del_prefix(m->intf, prefix), 0;
                if (n != 4 || (strcmp(w[3], "no-drop") && strcmp(w[3], "drop")))
                        return -1;
                return eos_set_line(m->intf, prefix, line), 0;
        }
        if ((!strcmp(w[0], "tx-queue") || !strcmp(w[0], "uc-tx-queue")) && n == 2 &&
            switch_parse_uint(w[1], 0, 7, &v) == 0) {
                char key[32];
                snprintf(key, sizeof(key), "%s %s", w[0], w[1]);
                if (no)
                        return json_object_del(sim_obj(m->intf, "cmds"), key), 0;
                m->queue = sim_obj(sim_obj(m->intf, "cmds"), key);
                sim_obj(m->queue, "cmds");
                return 0;
        }
        return -1;
}

static bool port_known(struct sim *s, const char *name)
{
        size_t i;
        json_t *p;

        json_array_foreach(json_object_get(s->st, "ports"), i, p)
                if (!strcmp(json_string_value(p), name))
                        return true;
        return false;
}

static int global_line(struct sim *s, struct mode *m, char **w, int n, bool no, const char *line)
{
        uint64_t bits, tc;
        unsigned dp;
        int idx;

        if (n >= 2 && !strcmp(w[0], "priority-flow-control") && !strcmp(w[1], "pause"))
                return eos_wd_line(m->root, w, n, no, line, true);

        if (n == 3 && !strcmp(w[0], "qos") && !strcmp(w[1], "profile") && !no) {
                char key[96];
                snprintf(key, sizeof(key), "qos profile %s", w[2]);
                m->intf = sim_obj(sim_obj(m->root, "cmds"), key);       /* the same sub-lines as an interface */
                sim_obj(m->intf, "cmds");
                return 0;
        }
        if (n == 3 && !strcmp(w[0], "priority-flow-control") && !strcmp(w[1], "all") && !strcmp(w[2], "off")) {
                if (no)
                        json_object_del(sim_obj(m->root, "cmds"), "priority-flow-control all off");
                else
                        json_object_set_new(sim_obj(m->root, "cmds"), "priority-flow-control all off", json_null());
                return 0;
        }
        if (!strcmp(w[0], "interface") && n == 2 && !no) {
                char key[96];
                if (!port_known(s, w[1]))
                        return -1;
                snprintf(key, sizeof(key), "interface %s", w[1]);
                m->intf = sim_obj(sim_obj(m->root, "cmds"), key);
                sim_obj(m->intf, "cmds");
                return 0;
        }
        if (n > 3 && !strcmp(w[0], "qos") && !strcmp(w[1], "map") && !strcmp(w[2], "dscp")) {
                if (parse_dscps(w, n, &idx, &bits, &tc, &dp) < 0)
                        return -1;
                dscp_map_edit(m->root, bits, (int)tc, dp, !no);
                return 0;
        }
        return -1;
}

/* One configuration line in the current mode. */
static int config_line(struct sim *s, struct mode *m, char *line)
{
        char buf[512], *w[80];
        bool no = false;
        int n;

        while (*line == ' ')
                line++;
        snprintf(buf, sizeof(buf), "%s", line);
        n = sim_split(buf, w, 80);
        if (n <= 0 || !strcmp(w[0], "!"))
                return 0;
        if (!strcmp(w[0], "exit")) {
                if (m->queue)
                        m->queue = NULL;
                else
                        m->intf = NULL;
                return 0;
        }
        if (!strcmp(w[0], "no")) {
                no = true;
                memmove(w, w + 1, sizeof(w[0]) * (size_t)--n);
                line += 3;
                if (n <= 0)
                        return -1;
        }
        if (m->queue && queue_line(m, w, n, no, line) == 0)
                return 0;
        if (m->intf && intf_line(m, w, n, no, line) == 0)
                return 0;
        /* Like EOS, a line not valid in a sub-mode is tried in the modes above. */
        m->queue = NULL;
        if (m->intf && intf_line(m, w, n, no, line) == 0)
                return 0;
        m->intf = NULL;
        return global_line(s, m, w, n, no, line);
}

static void prune_empty(json_t *node)
{
        json_t *cmds = json_object_get(node, "cmds"), *v;
        const char *k;
        void *tmp;

        json_object_foreach_safe(cmds, tmp, k, v) {
                if (!json_is_object(v))
                        continue;
                prune_empty(v);
                if ((!strncmp(k, "tx-queue", 8) || !strncmp(k, "uc-tx-queue", 11)) &&
                    json_object_size(json_object_get(v, "cmds")) == 0)
                        json_object_del(cmds, k);
        }
}

static int parse_hms(const char *t, double *ret)
{
        unsigned h, m, sec;

        if (sscanf(t, "%u:%u:%u", &h, &m, &sec) != 3 || m > 59 || sec > 59 || h + m + sec == 0)
                return -1;
        *ret = h * 3600.0 + m * 60.0 + sec;
        return 0;
}

static int commit(struct sim *s, const char *name, json_t *session, const char *timer)
{
        double secs = 0;

        if (json_is_object(json_object_get(s->d, "timer")))
                return sim_fail("%% Cannot commit: session '%s' has a pending commit timer",
                                json_string_value(json_object_get(json_object_get(s->d, "timer"), "session")));
        if (timer && parse_hms(timer, &secs) < 0)
                return sim_fail("%% Invalid input (commit timer hh:mm:ss)");
        prune_empty(session);
        if (secs > 0)
                json_object_set_new(s->d, "timer", json_pack("{s:s,s:f,s:O}", "session", name,
                                                             "deadline", sim_now() + secs, "rollback",
                                                             json_object_get(s->d, "running")));
        json_object_set(s->d, "running", session);
        json_object_del(json_object_get(s->d, "sessions"), name);
        s->mutated = true;
        return 0;
}

static int session_script(struct sim *s, char *script)
{
        char *save = NULL, *line = strtok_r(script, "\n", &save), name[64];
        json_t *sessions = sim_obj(s->d, "sessions"), *cfg;
        struct mode m = { 0 };

        if (sscanf(line, "configure session %63s", name) != 1)
                return sim_fail("%% Invalid input: start with 'configure session NAME'");
        cfg = json_object_get(sessions, name);
        if (!cfg) {
                cfg = json_deep_copy(json_object_get(s->d, "running"));
                json_object_set_new(sessions, name, cfg);
        }
        m.root = cfg;
        for (line = strtok_r(NULL, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *t = line;
                while (*t == ' ')
                        t++;
                if (!strcmp(t, "end"))
                        return 0;
                if (!strcmp(t, "abort"))
                        return json_object_del(sessions, name), 0;
                if (!strcmp(t, "commit"))
                        return commit(s, name, cfg, NULL);
                if (!strncmp(t, "commit timer ", 13))
                        return commit(s, name, cfg, t + 13);
                if (config_line(s, &m, t) < 0)
                        return sim_fail("%% Invalid input (at line '%s')", t);
        }
        return 0;
}

static int session_action(struct sim *s, const char *name, const char *action)
{
        json_t *timer = json_object_get(s->d, "timer"), *sessions = sim_obj(s->d, "sessions");
        bool timed = json_is_object(timer) &&
                     !strcmp(json_string_value(json_object_get(timer, "session")), name);

        if (!strcmp(action, "commit")) {
                if (timed) {
                        json_object_set_new(s->d, "timer", json_null());
                        s->mutated = true;
                        return 0;
                }
                if (json_object_get(sessions, name))
                        return commit(s, name, json_object_get(sessions, name), NULL);
        } else if (!strcmp(action, "abort")) {
                if (timed) {
                        json_object_set(s->d, "running", json_object_get(timer, "rollback"));
                        json_object_set_new(s->d, "timer", json_null());
                        s->mutated = true;
                        return 0;
                }
                if (json_object_get(sessions, name))
                        return json_object_del(sessions, name), 0;
        }
        return sim_fail("%% Session '%s' does not exist or has nothing to %s", name, action);
}

static int show_sessions(struct sim *s)
{
        json_t *out = json_object(), *list = sim_obj(out, "sessions"), *v, *timer = json_object_get(s->d, "timer");
        const char *k;

        json_object_foreach(json_object_get(s->d, "sessions"), k, v)
                json_object_set_new(list, k, json_pack("{s:s}", "state", "pending"));
        if (json_is_object(timer))
                json_object_set_new(list, json_string_value(json_object_get(timer, "session")),
                                    json_pack("{s:s,s:O}", "state", "pendingCommitTimer", "commitTimerExpireTime",
                                              json_object_get(timer, "deadline")));
        sim_print_json(out);
        json_decref(out);
        return 0;
}

/* The running MTU of an interface ("mtu N" under it; EOS's default 1500). */
static long long port_mtu(struct sim *s, const char *name)
{
        const char *k;
        json_t *v;
        char key[96];
        long long mtu = 1500;

        snprintf(key, sizeof(key), "interface %s", name);
        json_object_foreach(json_object_get(json_object_get(json_object_get(json_object_get(s->d, "running"), "cmds"),
                                                            key), "cmds"), k, v)
                if (!strncmp(k, "mtu ", 4))
                        mtu = atoll(k + 4);
        return mtu;
}

/* `show interfaces | json`: each configured port's link and counters. */
static int show_interfaces(struct sim *s)
{
        json_t *out = json_object(), *ifs = sim_obj(out, "interfaces"), *p;
        size_t i;

        json_array_foreach(json_object_get(s->st, "ports"), i, p) {
                const char *name = json_string_value(p), *speed;
                long long mtu = port_mtu(s, name);
                bool up;

                sim_link(s->st, name, &up, &speed);
                json_object_set_new(ifs, name, json_pack(
                        "{s:s,s:s,s:s,s:I,s:f,s:{s:I,s:I,s:{s:I},s:{s:I}}}", "name", name, "interfaceStatus",
                        up ? "connected" : "notconnect", "lineProtocolStatus", up ? "up" : "down", "mtu", mtu,
                        "bandwidth", strtod(speed, NULL) * (strchr(speed, 'G') ? 1e9 : 1e6), "interfaceCounters",
                        "inDiscards", (json_int_t)sim_counter(s->st, name, "in_discards"),
                        "outDiscards", (json_int_t)sim_counter(s->st, name, "out_discards"),
                        "inputErrorsDetail", "rxPause", (json_int_t)sim_counter(s->st, name, "link_pause_rx"),
                        "outputErrorsDetail", "txPause", (json_int_t)sim_counter(s->st, name, "link_pause_tx")));
        }
        sim_print_json(out);
        json_decref(out);
        return 0;
}

/* `show priority-flow-control counters | json`: the PFC frames of all priorities per port. */
static int show_pfc_counters(struct sim *s)
{
        json_t *out = json_object(), *ifs = sim_obj(out, "interfaceCounters"), *p;
        size_t i;

        json_array_foreach(json_object_get(s->st, "ports"), i, p) {
                uint64_t rx = 0, tx = 0;
                char name[16];

                for (unsigned q = 0; q < 8; q++) {
                        snprintf(name, sizeof(name), "pfc_rx.%u", q);
                        rx += sim_counter(s->st, json_string_value(p), name);
                        snprintf(name, sizeof(name), "pfc_tx.%u", q);
                        tx += sim_counter(s->st, json_string_value(p), name);
                }
                json_object_set_new(ifs, json_string_value(p), json_pack("{s:I,s:I}", "rxFrames", (json_int_t)rx,
                                                                         "txFrames", (json_int_t)tx));
        }
        sim_print_json(out);
        json_decref(out);
        return 0;
}

/* Does the port's tx-queue (or uc-tx-queue) q carry `random-detect ecn count`? */
static bool ecn_counted(struct sim *s, const char *port, unsigned q)
{
        char key[96], tq[32];
        json_t *intf;

        snprintf(key, sizeof(key), "interface %s", port);
        intf = json_object_get(json_object_get(json_object_get(json_object_get(s->d, "running"), "cmds"), key), "cmds");
        for (int uc = 0; uc < 2; uc++) {
                snprintf(tq, sizeof(tq), "%s %u", uc ? "uc-tx-queue" : "tx-queue", q);
                if (json_object_get(json_object_get(json_object_get(intf, tq), "cmds"), "random-detect ecn count"))
                        return true;
        }
        return false;
}

/* `show qos interfaces ecn counters queue | json`: ECN-marked packets per queue, "-" where nothing counts. */
static int show_ecn_counters(struct sim *s)
{
        json_t *out = json_object(), *ifs = sim_obj(out, "intfQueueCounters"), *p;
        size_t i;

        json_array_foreach(json_object_get(s->st, "ports"), i, p) {
                json_t *qs = sim_obj(sim_obj(ifs, json_string_value(p)), "queueCounters");
                char name[16], key[4], v[24];

                for (unsigned q = 0; q < 8; q++) {
                        snprintf(name, sizeof(name), "ecn_marked.%u", q);
                        snprintf(key, sizeof(key), "%u", q);
                        snprintf(v, sizeof(v), "%llu", (unsigned long long)sim_counter(s->st, json_string_value(p), name));
                        json_object_set_new(qs, key, json_string(ecn_counted(s, json_string_value(p), q) ? v : "-"));
                }
        }
        sim_print_json(out);
        json_decref(out);
        return 0;
}

int eos_run(struct sim *s)
{
        char name[64], action[16], *script;
        int rc;

        if (!strcmp(s->cmd, "show running-config | json")) {
                sim_print_json(json_object_get(s->d, "running"));
                return 0;
        }
        if (!strcmp(s->cmd, "show configuration sessions | json"))
                return show_sessions(s);
        if (!strcmp(s->cmd, "show interfaces | json"))
                return show_interfaces(s);
        if (!strcmp(s->cmd, "show priority-flow-control counters watchdog | json"))
                return eos_wd_counters(s);
        if (!strcmp(s->cmd, "show priority-flow-control counters | json"))
                return show_pfc_counters(s);
        if (!strcmp(s->cmd, "show qos interfaces ecn counters queue | json"))
                return show_ecn_counters(s);
        if (!strcmp(s->cmd, "copy running-config startup-config")) {
                json_object_set(s->d, "startup", json_object_get(s->d, "running"));
                s->mutated = true;
                printf("Copy completed successfully.\n");
                return 0;
        }
        if (!strchr(s->cmd, '\n') && sscanf(s->cmd, "configure session %63s %15s", name, action) == 2)
                return session_action(s, name, action);
        if (strncmp(s->cmd, "configure session ", 18))
                return sim_fail("%% Invalid input");
        script = strdup(s->cmd);
        rc = script ? session_script(s, script) : 1;
        free(script);
        return rc;
}

void eos_tick(struct sim *s)
{
        json_t *timer = json_object_get(s->d, "timer");

        if (!json_is_object(timer) || json_real_value(json_object_get(timer, "deadline")) > sim_now())
                return;
        json_object_set(s->d, "running", json_object_get(timer, "rollback"));
        json_object_set_new(s->d, "timer", json_null());
}

/* A restart: startup-config becomes the running one; sessions and commit timers are gone. */
void eos_reboot(struct sim *s)
{
        json_t *startup = json_object_get(s->d, "startup");

        if (json_is_object(startup))
                json_object_set(s->d, "running", startup);
        json_object_set_new(s->d, "sessions", json_object());
        json_object_set_new(s->d, "timer", json_null());
}
