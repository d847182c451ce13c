/* SPDX-License-Identifier: MIT */
/*
 * SONiC's PFC watchdog CLI, after sonic-utilities @ 691b1bbc (pfcwd/main.py; config/main.py
 * wraps it as `config pfcwd ...`, show/main.py as `show pfcwd ...`), on the CONFIG_DB of
 * sonic.c and the storm machine of watchdog.c:
 *   [sudo] config pfcwd start [--action|-a drop|forward|alert] [--restoration-time|-r 100-60000]
 *          [--pfc-stat-history] [--verbose] PORTS... DETECTION_TIME(100-5000)
 *   [sudo] config pfcwd stop        every port (config/main.py passes no ports)
 *   [sudo] config pfcwd interval MS (100-1000, #4306; refused above any configured time)
 *   [sudo] pfcwd start|stop [PORTS...]|interval MS   the same, stop with ports
 *   show pfcwd config [PORTS...], show pfcwd stats [-e] [--check-storm] [QUEUES...]
 * start: unknown ports -> "Failed to run command, invalid options:" and exit 1; a port
 * without PORT_QOS_MAP pfc_enable is skipped ("SKIPPED: PFC is not enabled on port: P");
 * the row is deleted and written anew (#4393) with detection_time, restoration_time
 * (2 x detection, with a message, when not given), action only when given (orchagent's
 * default is drop), pfc_stat_history kept unless --pfc-stat-history enables it.
 * Variant "pfcwd-no-history": an image before #3779 (2025-08-04): no HISTORY column and
 * no pfc_stat_history field.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/switch/switch.h"
#include "tests/switchsim/sim.h"

#define PFC_WD_POLL_MSECS 100           /* sonic-swss orchdaemon.cpp: no GLOBAL POLL_INTERVAL */

static json_t *db_of(const struct sim *s)
{
        return json_object_get(s->d, "db");
}

static json_t *wd_row(const struct sim *s, const char *key)
{
        return json_object_get(json_object_get(db_of(s), "PFC_WD"), key);
}

static const char *field(const json_t *row, const char *f)
{
        return json_string_value(json_object_get(row, f));
}

static bool port_exists(const struct sim *s, const char *port)
{
        return json_object_get(json_object_get(db_of(s), "PORT"), port) != NULL;
}

static bool history_column(const struct sim *s)
{
        return !sim_variant(s->st, "pfcwd-no-history");
}

static unsigned poll_ms(const struct sim *s)
{
        const char *p = field(wd_row(s, "GLOBAL"), "POLL_INTERVAL");

        return p ? (unsigned)atoi(p) : PFC_WD_POLL_MSECS;
}

void sonic_wd_config(const struct sim *s, const char *port, unsigned prio, struct sim_wd *ret)
{
        const json_t *row = wd_row(s, port);
        const char *mask = field(json_object_get(json_object_get(db_of(s), "PORT_QOS_MAP"), port), "pfcwd_sw_enable");
        const char *d = field(row, "detection_time"), *r = field(row, "restoration_time"), *a = field(row, "action");
        uint64_t bits = 0;
        double p = poll_ms(s);

        /* pfcwdorch.cpp getLosslessTcsForPort(): the TCs of pfcwd_sw_enable, nothing else */
        if (!d || !mask || switch_parse_list(mask, 7, &bits) < 0 || !(bits & (1u << prio)))
                return;
        ret->on = true;
        ret->poll_s = p / 1000;
        ret->detect_polls = (unsigned)ceil(atoi(d) / p);
        ret->restore_polls = r && *r ? (unsigned)ceil(atoi(r) / p) : 0;
        ret->action = !a || !strcmp(a, "drop") ? SIM_WD_DROP : !strcmp(a, "forward") ? SIM_WD_FORWARD : SIM_WD_ALERT;
        if (!ret->detect_polls)
                ret->detect_polls = 1;
}

/* ---- start, stop, interval ---- */

struct start_args {
        const char *action;
        long restoration;               /* -1: not given */
        bool history;
        const char *ports[64];
        unsigned n_ports;
        long detection;
};

static int click_range(const char *what, long v, long lo, long hi, const char *usage)
{
        return sim_fail("Usage: %s\nTry '%s --help' for help.\n\nError: Invalid value for '%s': %ld is not in the "
                        "range %ld<=x<=%ld.", usage, usage, what, v, lo, hi);
}

static int parse_start(struct sim *s, int first, const char *usage, struct start_args *a)
{
        const char *pos[66];
        unsigned n = 0;

        *a = (struct start_args){ .restoration = -1 };
        for (int i = first; i < s->argc; i++) {
                const char *w = s->argv[i];

                if ((!strcmp(w, "--action") || !strcmp(w, "-a")) && i + 1 < s->argc)
                        a->action = s->argv[++i];
                else if ((!strcmp(w, "--restoration-time") || !strcmp(w, "-r")) && i + 1 < s->argc)
                        a->restoration = atol(s->argv[++i]);
                else if (!strcmp(w, "--pfc-stat-history"))
                        a->history = true;
                else if (!strcmp(w, "--verbose"))
                        continue;
                else if (w[0] == '-')
                        return sim_fail("Usage: %s\n\nError: No such option: %s", usage, w);
                else if (n < 66)
                        pos[n++] = w;
        }
        if (a->action && strcmp(a->action, "drop") && strcmp(a->action, "forward") && strcmp(a->action, "alert"))
                return sim_fail("Usage: %s\n\nError: Invalid value for '--action' / '-a': '%s' is not one of 'drop', "
                                "'forward', 'alert'.", usage, a->action);
        if (!n)
                return sim_fail("Usage: %s\n\nError: Missing argument 'DETECTION_TIME'.", usage);
        a->detection = atol(pos[n - 1]);
        if (a->detection < 100 || a->detection > 5000)
                return click_range("DETECTION_TIME", a->detection, 100, 5000, usage);
        if (a->restoration != -1 && (a->restoration < 100 || a->restoration > 60000))
                return click_range("--restoration-time' / '-r", a->restoration, 100, 60000, usage);
        for (unsigned i = 0; i + 1 < n && a->n_ports < 64; i++)
                a->ports[a->n_ports++] = pos[i];
        return 0;
}

static void start_port(struct sim *s, const char *port, const struct start_args *a)
{
        json_t *qos = json_object_get(json_object_get(db_of(s), "PORT_QOS_MAP"), port), *row;
        const char *hist = field(wd_row(s, port), "pfc_stat_history");
        char v[16];

        if (!field(qos, "pfc_enable")) {
                printf("SKIPPED: PFC is not enabled on port: %s\n", port);
                return;
        }
        row = json_object();
        snprintf(v, sizeof(v), "%ld", a->detection);
        json_object_set_new(row, "detection_time", json_string(v));
        snprintf(v, sizeof(v), "%ld", a->restoration >= 0 ? a->restoration : 2 * a->detection);
        json_object_set_new(row, "restoration_time", json_string(v));
        if (a->action)
                json_object_set_new(row, "action", json_string(a->action));
        if (history_column(s))
                json_object_set_new(row, "pfc_stat_history", json_string(a->history ? "enable" : hist ? hist : "disable"));
        json_object_set_new(sim_obj(db_of(s), "PFC_WD"), port, row);      /* delete, then set (#4393) */
}

static int wd_start(struct sim *s, int first, const char *usage)
{
        struct start_args a;
        bool bad = false;
        int rc = parse_start(s, first, usage, &a);
        const char *k;
        json_t *v;

        if (rc)
                return rc;
        for (unsigned i = 0; i < a.n_ports; i++)
                if (strcmp(a.ports[i], "all") && !port_exists(s, a.ports[i])) {
                        if (!bad)
                                printf("Failed to run command, invalid options:\n");
                        printf("%s\n", a.ports[i]);
                        bad = true;
                }
        if (bad)
                return 1;
        if (a.restoration < 0)
                printf("restoration time not defined; default to 2 times detection time: %ld ms\n", 2 * a.detection);
        for (unsigned i = 0; i < a.n_ports; i++) {
                if (strcmp(a.ports[i], "all")) {
                        start_port(s, a.ports[i], &a);
                        continue;
                }
                json_object_foreach(json_object_get(db_of(s), "PORT"), k, v)
                        start_port(s, k, &a);
        }
        s->mutated = true;
        return 0;
}

/* `pfcwd stop [PORTS]`: the rows of those ports (all ports when none) go; GLOBAL stays. */
static int wd_stop(struct sim *s, int first)
{
        json_t *t = sim_obj(db_of(s), "PFC_WD"), *v;
        const char *k;
        void *tmp;

        if (first >= s->argc) {
                json_object_foreach_safe(t, tmp, k, v)
                        if (strcmp(k, "GLOBAL"))
                                json_object_del(t, k);
        }
        for (int i = first; i < s->argc; i++)
                if (port_exists(s, s->argv[i]))
                        json_object_del(t, s->argv[i]);
        s->mutated = true;
        return 0;
}

static int wd_interval(struct sim *s, int at, const char *usage)
{
        long ms = at < s->argc ? atol(s->argv[at]) : 0, min = 1000;
        const char *k, *what = "";
        json_t *v;

        if (ms < 100 || ms > 1000)
                return click_range("POLL_INTERVAL", ms, 100, 1000, usage);
        json_object_foreach(json_object_get(db_of(s), "PFC_WD"), k, v) {
                long d = field(v, "detection_time") ? atol(field(v, "detection_time")) : 1000;
                long r = field(v, "restoration_time") ? atol(field(v, "restoration_time")) : 1000;

                if (!strstr(k, "Ethernet"))
                        continue;
                if (d < min)
                        min = d, what = "detection time";
                if (r < min)
                        min = r, what = "restoration time";
        }
        if (min < ms)
                return sim_fail("unable to use polling interval = %ldms, value is bigger than one of the configured %s "
                                "values, please choose a smaller polling_interval", ms, what);
        json_object_set_new(sim_obj(sim_obj(db_of(s), "PFC_WD"), "GLOBAL"), "POLL_INTERVAL", json_sprintf("%ld", ms));
        s->mutated = true;
        return 0;
}

/* argv[at] is the verb after "pfcwd": start, stop, interval. */
int sonic_pfcwd_config(struct sim *s, int at, bool from_config)
{
        const char *verb = at < s->argc ? s->argv[at] : "";

        if (!strcmp(verb, "start"))
                return wd_start(s, at + 1, from_config ? "config pfcwd start [OPTIONS] [PORTS]... DETECTION_TIME"
                                                       : "pfcwd start [OPTIONS] [PORTS]... DETECTION_TIME");
        if (!strcmp(verb, "stop") && from_config && at + 1 < s->argc && strcmp(s->argv[at + 1], "--verbose"))
                return sim_fail("Usage: config pfcwd stop [OPTIONS]\n\nError: Got unexpected extra argument (%s)",
                                s->argv[at + 1]);
        if (!strcmp(verb, "stop"))
                return wd_stop(s, from_config ? s->argc : at + 1);
        if (!strcmp(verb, "interval"))
                return wd_interval(s, at + 1, from_config ? "config pfcwd interval [OPTIONS] POLL_INTERVAL"
                                                          : "pfcwd interval [OPTIONS] POLL_INTERVAL");
        return sim_fail("Error: unsupported command '%s'", s->cmd);
}

/* ---- show ---- */

/* natsort's order for "Ethernet12" against "Ethernet4": digit runs compare as numbers. */
static int natcmp(const void *a, const void *b)
{
        const char *x = *(const char *const *)a, *y = *(const char *const *)b;

        while (*x && *y) {
                if (*x >= '0' && *x <= '9' && *y >= '0' && *y <= '9') {
                        char *ex, *ey;
                        long nx = strtol(x, &ex, 10), ny = strtol(y, &ey, 10);

                        if (nx != ny)
                                return nx < ny ? -1 : 1;
                        x = ex;
                        y = ey;
                        continue;
                }
                if (*x != *y)
                        return (unsigned char)*x - (unsigned char)*y;
                x++;
                y++;
        }
        return (unsigned char)*x - (unsigned char)*y;
}

static unsigned sorted_ports(const struct sim *s, const char **out)
{
        unsigned n = 0;
        size_t i;
        json_t *p;

        json_array_foreach(json_object_get(s->st, "ports"), i, p)
                if (n < 64)
                        out[n++] = json_string_value(p);
        qsort(out, n, sizeof(out[0]), natcmp);
        return n;
}

static bool wanted(const struct sim *s, int first, const char *name)
{
        if (first >= s->argc)
                return true;
        for (int i = first; i < s->argc; i++)
                if (!strcmp(s->argv[i], name))
                        return true;
        return false;
}

/* pfcwd/main.py collect_config() + config(): CONFIG_DESCRIPTION's defaults for missing fields. */
static int show_config(struct sim *s, int first)
{
        static const char *const head[] = { "PORT", "ACTION", "DETECTION TIME", "RESTORATION TIME", "HISTORY" };
        static const char *const f[] = { "action", "detection_time", "restoration_time", "pfc_stat_history" };
        static const char *const dflt[] = { "drop", "N/A", "infinite", "disable" };
        char (*cells)[SIM_TABLE_COLS][64] = calloc(65, sizeof(*cells));
        unsigned cols = history_column(s) ? 5 : 4, rows = 1, n;
        const char *ports[64], *poll = field(wd_row(s, "GLOBAL"), "POLL_INTERVAL");
        const char *brs = field(wd_row(s, "GLOBAL"), "BIG_RED_SWITCH");

        if (!cells)
                return 1;
        for (unsigned c = 0; c < cols; c++)
                snprintf(cells[0][c], 64, "%s", head[c]);
        n = sorted_ports(s, ports);
        for (unsigned i = 0; i < n; i++) {
                const json_t *row = wd_row(s, ports[i]);

                if (!json_object_size(row) || !wanted(s, first, ports[i]))
                        continue;
                snprintf(cells[rows][0], 64, "%s", ports[i]);
                for (unsigned c = 1; c < cols; c++)
                        snprintf(cells[rows][c], 64, "%s", field(row, f[c - 1]) ? field(row, f[c - 1]) : dflt[c - 1]);
                rows++;
        }
        if (rows > 1 && poll)
                printf("Changed polling interval to %sms\n", poll);
        if (rows > 1 && brs)
                printf("BIG_RED_SWITCH status is %s\n", brs);
        sim_table_right(rows, cols, cells);
        free(cells);
        return 0;
}

static void pair(char *cell, uint64_t a, uint64_t b)
{
        snprintf(cell, 64, "%llu/%llu", (unsigned long long)a, (unsigned long long)b);
}

/* pfcwd/main.py collect_stats(): STATS_DESCRIPTION per queue, all-0/0 rows hidden unless -e. */
static int show_stats(struct sim *s, int first)
{
        static const char *const head[] = { "QUEUE", "STATUS", "STORM DETECTED/RESTORED", "TX OK/DROP", "RX OK/DROP",
                                            "TX LAST OK/DROP", "RX LAST OK/DROP" };
        char (*cells)[SIM_TABLE_COLS][64] = calloc(64 * 8 + 1, sizeof(*cells));
        const char *ports[64];
        bool empty = false, check = false, storm = false;
        unsigned rows = 1, n = sorted_ports(s, ports);
        int qfirst = s->argc;

        if (!cells)
                return 1;
        for (int i = first; i < s->argc; i++) {
                if (!strcmp(s->argv[i], "-e") || !strcmp(s->argv[i], "--empty"))
                        empty = true;
                else if (!strcmp(s->argv[i], "--check-storm"))
                        check = true;
                else if (qfirst == s->argc)
                        qfirst = i;
        }
        for (unsigned c = 0; c < 7; c++)
                snprintf(cells[0][c], 64, "%s", head[c]);
        for (unsigned i = 0; i < n; i++)
                for (unsigned q = 0; q < 8; q++) {
                        struct sim_wd_stats st;
                        char name[96];
                        bool zero;

                        sim_wd_stats(s->st, ports[i], q, &st);
                        snprintf(name, sizeof(name), "%s:%u", ports[i], q);
                        zero = !st.detected && !st.restored && !st.tx_ok && !st.tx_drop;
                        if ((zero && !empty) || !wanted(s, qfirst, name))
                                continue;
                        storm |= st.stormed;
                        snprintf(cells[rows][0], 64, "%.63s", name);
                        snprintf(cells[rows][1], 64, "%s", !st.watched ? "N/A" : st.stormed ? "stormed" : "operational");
                        pair(cells[rows][2], st.detected, st.restored);
                        pair(cells[rows][3], st.tx_ok, st.tx_drop);
                        pair(cells[rows][4], 0, 0);
                        pair(cells[rows][5], st.tx_ok_last, st.tx_drop_last);
                        pair(cells[rows][6], 0, 0);
                        rows++;
                }
        if (!check)
                sim_table_right(rows, 7, cells);
        free(cells);
        return check && storm ? 1 : 0;
}

/* argv[at] is the word after "pfcwd" of `show pfcwd ...` or `pfcwd show ...`. */
int sonic_pfcwd_show(struct sim *s, int at)
{
        const char *what = at < s->argc ? s->argv[at] : "";

        if (!strcmp(what, "config"))
                return show_config(s, at + 1);
        if (!strcmp(what, "stats"))
                return show_stats(s, at + 1);
        return sim_fail("Error: unsupported command '%s'", s->cmd);
}
