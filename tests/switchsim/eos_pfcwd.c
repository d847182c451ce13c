/* SPDX-License-Identifier: MIT */
/*
 * EOS's PFC watchdog lines as Arista's configuration generator writes them (AVD @ 3cac535c:
 * intended/configs/qos.cfg; schema priority_flow_control.schema.yml, qos_profiles.schema.yml),
 * the EOS manual not being available (drivers/switch/switch_eos_wd.c says the same):
 *   interface or qos profile:  priority-flow-control pause watchdog
 *                              priority-flow-control pause watchdog port action drop|notify-only
 *                              priority-flow-control pause watchdog port timer timeout T
 *                                  polling-interval P|auto recovery-time R [forced]
 *   global:                    priority-flow-control pause watchdog default timeout|recovery-time|
 *                                  polling-interval S
 *                              priority-flow-control pause watchdog action drop|errdisable|notify-only
 *                              priority-flow-control pause watchdog override action drop
 * Seconds: timeout and recovery-time 0.01-60, polling-interval 0.005-30 (a third-party write-up,
 * unverified). `no` removes the line. The storm machine (watchdog.c): timeout and
 * recovery-time in polls; `auto` polls at half the shorter of the two (that write-up:
 * "polling-interval <= min(timeout, recovery-time) / 2"); error-disable drops and never gives
 * the queue back; a port whose times nobody set is not watched (EOS's defaults are not in
 * the sources). `show priority-flow-control counters watchdog | json`: per interface and
 * transmit queue stuckCount and recoveryCount, an interface listed after its first event (the
 * shape of a third-party health check's parser; no EOS sample was found).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/switchsim/sim.h"

#define WD "priority-flow-control pause watchdog"

static int secs(const char *s, double lo, double hi, double *ret)
{
        char *end;
        double v = strtod(s, &end);

        if (end == s || *end || v < lo || v > hi)
                return -1;
        *ret = v;
        return 0;
}

static int set(json_t *node, const char *prefix, const char *line)
{
        eos_set_line(node, prefix, line);
        return 0;
}

/* "timeout T polling-interval P|auto recovery-time R [forced]" (w from "timeout") */
static int timer_ok(char **w, int n)
{
        double v;

        return (n == 6 || (n == 7 && !strcmp(w[6], "forced"))) && !strcmp(w[0], "timeout") &&
               !secs(w[1], 0.01, 60, &v) && !strcmp(w[2], "polling-interval") &&
               (!strcmp(w[3], "auto") || !secs(w[3], 0.005, 30, &v)) && !strcmp(w[4], "recovery-time") &&
               !secs(w[5], 0.01, 60, &v);
}

int eos_wd_line(json_t *node, char **w, int n, bool no, const char *line, bool global)
{
        double v;

        if (n < 3 || strcmp(w[0], "priority-flow-control") || strcmp(w[1], "pause") || strcmp(w[2], "watchdog"))
                return -1;
        if (no && n == 3 && !global)    /* the watchdog off: its own line goes, the port's times stay */
                return json_object_del(sim_obj(node, "cmds"), WD), 0;
        if (no && n >= 5 && (!strcmp(w[4], "action") || !strcmp(w[4], "timer")))
                return eos_del_prefix(node, !strcmp(w[4], "action") ? WD " port action" : WD " port timer"), 0;
        if (no)
                return eos_del_prefix(node, line), 0;
        if (n == 3 && !global)
                return set(node, WD "\x01", WD);        /* a prefix no other line has: only this one goes */
        if (!global && n >= 5 && !strcmp(w[3], "port") && !strcmp(w[4], "action"))
                return n == 6 && (!strcmp(w[5], "drop") || !strcmp(w[5], "notify-only")) ?
                               set(node, WD " port action", line) : -1;
        if (!global && n >= 5 && !strcmp(w[3], "port") && !strcmp(w[4], "timer"))
                return timer_ok(w + 5, n - 5) ? set(node, WD " port timer", line) : -1;
        if (global && n == 6 && !strcmp(w[3], "default")) {
                char prefix[96];

                if ((!strcmp(w[4], "timeout") || !strcmp(w[4], "recovery-time")) && secs(w[5], 0.01, 60, &v))
                        return -1;
                if (!strcmp(w[4], "polling-interval") && secs(w[5], 0.005, 30, &v))
                        return -1;
                if (strcmp(w[4], "timeout") && strcmp(w[4], "recovery-time") && strcmp(w[4], "polling-interval"))
                        return -1;
                snprintf(prefix, sizeof(prefix), WD " default %s ", w[4]);
                return set(node, prefix, line);
        }
        if (global && n == 5 && !strcmp(w[3], "action"))
                return !strcmp(w[4], "drop") || !strcmp(w[4], "no-drop") || !strcmp(w[4], "errdisable") ||
                       !strcmp(w[4], "notify-only") ? set(node, WD " action ", line) : -1;
        if (global && n == 6 && !strcmp(w[3], "override") && !strcmp(w[4], "action") && !strcmp(w[5], "drop"))
                return set(node, WD " override", line);
        return -1;
}

struct wd_lines {
        bool on, override_drop;
        const char *action;
        double timeout, poll, recovery;         /* seconds; 0: not set; poll -1: auto */
};

static void scan(const json_t *node, struct wd_lines *l, bool global)
{
        const char *k;
        json_t *v;

        json_object_foreach(json_object_get(node, "cmds"), k, v) {
                char buf[256], *w[12], *save = NULL;
                int n = 0;

                snprintf(buf, sizeof(buf), "%s", k);
                for (char *t = strtok_r(buf, " ", &save); t && n < 12; t = strtok_r(NULL, " ", &save))
                        w[n++] = t;
                if (n < 3 || strcmp(w[0], "priority-flow-control") || strcmp(w[1], "pause"))
                        continue;
                if (!global && n == 3)
                        l->on = true;
                else if (n == 6 && !strcmp(w[3], "port") && !strcmp(w[4], "action"))
                        l->action = strstr(k, "notify-only") ? "notify-only" : "drop";
                else if (!global && n >= 11 && !strcmp(w[4], "timer")) {
                        l->timeout = atof(w[6]);
                        l->poll = strcmp(w[8], "auto") ? atof(w[8]) : -1;
                        l->recovery = atof(w[10]);
                } else if (global && n == 6 && !strcmp(w[3], "default")) {
                        double x = atof(w[5]);
                        if (!strcmp(w[4], "timeout"))
                                l->timeout = x;
                        else if (!strcmp(w[4], "recovery-time"))
                                l->recovery = x;
                        else
                                l->poll = x;
                } else if (global && n == 5 && !strcmp(w[3], "action"))
                        l->action = strstr(k, "notify-only") ? "notify-only" : strstr(k, "errdisable") ? "errdisable" :
                                    strstr(k, "no-drop") ? "no-drop" : "drop";
                else if (global && n == 6 && !strcmp(w[3], "override"))
                        l->override_drop = true;        /* AVD: "Override configured action on stuck queue to drop" */
        }
}

/* Is PFC on with priority prio no-drop on the port (its lines over its service-profile's)? */
static bool nodrop(const json_t *cmds, const json_t *intf, const json_t *prof, unsigned prio)
{
        char key[48];
        const json_t *blocks[2] = { prof, intf };
        bool on = false, nd = false;

        snprintf(key, sizeof(key), "priority-flow-control priority %u ", prio);
        for (int b = 0; b < 2; b++) {
                const char *k;
                json_t *v;

                json_object_foreach(json_object_get(blocks[b], "cmds"), k, v) {
                        if (!strcmp(k, "priority-flow-control on") || !strcmp(k, "no priority-flow-control"))
                                on = !strcmp(k, "priority-flow-control on");
                        else if (!strncmp(k, key, strlen(key)))
                                nd = !strcmp(k + strlen(key), "no-drop");
                }
        }
        return on && nd && !json_object_get(cmds, "priority-flow-control all off");
}

void eos_wd_config(const struct sim *s, const char *port, unsigned prio, struct sim_wd *ret)
{
        const json_t *cmds = json_object_get(json_object_get(s->d, "running"), "cmds"), *intf, *prof = NULL;
        struct wd_lines g = { 0 }, p = { 0 }, own = { 0 };
        char key[96];
        const char *k;
        json_t *v;
        double poll;

        snprintf(key, sizeof(key), "interface %s", port);
        intf = json_object_get(cmds, key);
        json_object_foreach(json_object_get(intf, "cmds"), k, v)
                if (!strncmp(k, "service-profile ", 16)) {
                        snprintf(key, sizeof(key), "qos profile %s", k + 16);
                        prof = json_object_get(cmds, key);
                }
        scan(json_object_get(s->d, "running"), &g, true);
        if (g.override_drop)
                g.action = "drop";
        p = g;
        p.on = false;
        scan(prof, &p, false);
        scan(intf, &own, false);
        p.on |= own.on;
        if (own.action)
                p.action = own.action;
        if (own.timeout)
                p.timeout = own.timeout, p.poll = own.poll, p.recovery = own.recovery;
        if (!p.on || !p.timeout || !p.recovery || !nodrop(cmds, intf, prof, prio))
                return;
        poll = p.poll > 0 ? p.poll : fmin(p.timeout, p.recovery) / 2;
        ret->on = true;
        ret->poll_s = poll;
        ret->detect_polls = (unsigned)ceil(p.timeout / poll - 1e-9);
        ret->restore_polls = p.action && !strcmp(p.action, "errdisable") ? 0 : (unsigned)ceil(p.recovery / poll - 1e-9);
        /* no-drop: the stuck queue stays no-drop, nothing dropped (as notify-only, counted) */
        ret->action = !p.action || !strcmp(p.action, "drop") || !strcmp(p.action, "errdisable") ? SIM_WD_DROP
                                                                                                 : SIM_WD_ALERT;
        if (!p.action)
                ret->restore_polls = 0; /* the default action error-disables the port */
}

int eos_wd_counters(struct sim *s)
{
        json_t *out = json_object(), *ifs = sim_obj(out, "interfaces"), *p;
        size_t i;

        json_array_foreach(json_object_get(s->st, "ports"), i, p) {
                json_t *qs = NULL;

                for (unsigned q = 0; q < 8; q++) {
                        struct sim_wd_stats st;
                        char k[4];

                        sim_wd_stats(s->st, json_string_value(p), q, &st);
                        if (!st.detected && !st.restored)
                                continue;
                        if (!qs)
                                qs = sim_obj(sim_obj(ifs, json_string_value(p)), "txQueues");
                        snprintf(k, sizeof(k), "%u", q);
                        json_object_set_new(qs, k, json_pack("{s:I,s:I}", "stuckCount", (json_int_t)st.detected,
                                                             "recoveryCount", (json_int_t)st.restored));
                }
        }
        sim_print_json(out);
        json_decref(out);
        return 0;
}
