/* SPDX-License-Identifier: MIT */
/*
 * What each switch's PFC watchdog says about storms (switch_counters.h), per configured
 * port and queue:
 *   sonic  show pfcwd stats -e                  QUEUE (PORT:Q), STATUS operational|stormed|N/A,
 *                                               STORM DETECTED/RESTORED (sonic-utilities
 *                                               pfcwd/main.py STATS_DESCRIPTION: COUNTERS_DB
 *                                               PFC_WD_QUEUE_STATS_DEADLOCK_DETECTED/_RESTORED)
 *   nvue   nv show interface PORT qos pfc-watchdog   per traffic class status OK|DEADLOCK and
 *                                               deadlock-count (detections; NVUE counts no
 *                                               restores) (CL 5.12 QoS, "PFC Watchdog")
 *   eos    show priority-flow-control counters watchdog | json
 *                                               interfaces.IF.txQueues.Q.stuckCount /
 *                                               recoveryCount (the shape a third-party health
 *                                               check parses; no EOS sample was found), an
 *                                               interface listed after its first event
 * Every cell is one word, so rows are split at blanks.
 */
#include <ctype.h>

#include "drivers/switch/switch.h"
#include "drivers/switch/switch_counters.h"

#define WORDS_MAX 16

static int unit_of(const struct switch_config *sw, const char *port)
{
        for (unsigned i = 0; i < sw->n_ports && i < STATE_PORTS_MAX; i++)
                if (streq(sw->ports[i], port))
                        return (int)i;
        return -1;
}

static int words(char *line, char **w)
{
        char *save = NULL;
        int n = 0;

        for (char *t = strtok_r(line, " \t\r", &save); t && n < WORDS_MAX; t = strtok_r(NULL, " \t\r", &save))
                w[n++] = t;
        return n;
}

/* "12/3" */
static int pair(const char *s, uint64_t *a, uint64_t *b)
{
        char x[32], *slash;

        snprintf(x, sizeof(x), "%s", s);
        slash = strchr(x, '/');
        if (!slash)
                return -EINVAL;
        *slash = '\0';
        return switch_parse_uint(x, 0, UINT64_MAX, a) < 0 || switch_parse_uint(slash + 1, 0, UINT64_MAX, b) < 0 ? -EINVAL
                                                                                                              : 0;
}

/* One row of `show pfcwd stats`: "Ethernet0:3  stormed  1/0  100/300 ..." */
static int sonic_row(char *line, const struct switch_config *sw, struct switch_wd_stats *ret)
{
        char *w[WORDS_MAX], *colon;
        uint64_t q, det, res;
        struct switch_wd_queue *x;
        int n = words(line, w), u;

        if (n < 3 || !(colon = strrchr(w[0], ':')))
                return -EINVAL;
        *colon = '\0';
        if (switch_parse_uint(colon + 1, 0, 63, &q) < 0 || pair(w[2], &det, &res) < 0 ||
            (!streq(w[1], "stormed") && !streq(w[1], "operational") && !streq(w[1], "N/A")))
                return -EINVAL;
        if ((u = unit_of(sw, w[0])) < 0 || q >= STATE_TC_COUNT)
                return 0;       /* not a managed port, or a multicast queue */
        x = &ret->q[u][q];
        *x = (struct switch_wd_queue){ .known = true, .watched = !streq(w[1], "N/A"), .stormed = streq(w[1], "stormed"),
                                       .detected = det, .restored = res, .restored_known = true };
        return 0;
}

int switch_wd_stats_sonic(const char *text, const struct switch_config *sw, struct switch_wd_stats *ret,
                          struct errbuf *e)
{
        bool header = false;
        char line[512];

        for (const char *p = text ? text : ""; *p;) {
                size_t n = strcspn(p, "\n"), k = 0;

                snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), p);
                p += n + (p[n] == '\n');
                while (line[k] == ' ')
                        k++;
                if (!line[k] || line[k] == '-')
                        continue;
                if (!strncmp(line + k, "QUEUE ", 6) && strstr(line, "STORM DETECTED/RESTORED")) {
                        header = true;
                        continue;
                }
                if (!header || sonic_row(line + k, sw, ret) < 0)
                        return errbuf_set(e, EBADMSG, NULL, "'show pfcwd stats -e': cannot read '%.80s'", line + k);
        }
        return header ? 0 : errbuf_set(e, EBADMSG, NULL, "'show pfcwd stats -e' printed no QUEUE/STATUS table");
}

/* `nv show interface PORT qos pfc-watchdog`: the state table, then "PFC WD Status" rows "TC OK|DEADLOCK COUNT". */
int switch_wd_stats_nvue(const char *text, unsigned unit, struct switch_wd_stats *ret, struct errbuf *e)
{
        bool table = false, on = false;
        char line[256];

        for (const char *p = text ? text : ""; *p;) {
                size_t n = strcspn(p, "\n");
                char *w[WORDS_MAX];
                uint64_t tc, count;
                int k;

                snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1), p);
                p += n + (p[n] == '\n');
                k = words(line, w);
                if (k >= 2 && streq(w[0], "state"))
                        on = streq(w[1], "enabled") || streq(w[1], "enable");
                else if (k >= 3 && streq(w[0], "traffic-class") && streq(w[1], "status"))
                        table = true;
                else if (table && k == 3 && switch_parse_uint(w[0], 0, 7, &tc) >= 0) {
                        if ((!streq(w[1], "OK") && !streq(w[1], "DEADLOCK")) ||
                            switch_parse_uint(w[2], 0, UINT64_MAX, &count) < 0)
                                return errbuf_set(e, EBADMSG, NULL, "'nv show interface ... qos pfc-watchdog': cannot "
                                                  "read traffic class %u", (unsigned)tc);
                        ret->q[unit][tc] = (struct switch_wd_queue){ .known = true, .watched = on,
                                                                     .stormed = streq(w[1], "DEADLOCK"),
                                                                     .detected = count };
                }
        }
        for (unsigned tc = 0; !table && tc < STATE_TC_COUNT; tc++)     /* off: no table at all */
                ret->q[unit][tc] = (struct switch_wd_queue){ .known = true };
        return 0;
}

int switch_wd_stats_eos(const char *json, const struct switch_config *sw, struct switch_wd_stats *ret, struct errbuf *e)
{
        json_t *j = json_loads(json ? json : "", 0, NULL), *ifs = switch_member(j, "interfaces"), *qs, *v;
        const char *name, *qk;

        if (!json_is_object(ifs)) {
                json_decref(j);
                return errbuf_set(e, EBADMSG, NULL, "'show priority-flow-control counters watchdog | json': no object "
                                  "'interfaces'");
        }
        for (unsigned u = 0; u < sw->n_ports && u < STATE_PORTS_MAX; u++)
                for (unsigned q = 0; q < STATE_TC_COUNT; q++)
                        ret->q[u][q] = (struct switch_wd_queue){ .known = true, .restored_known = true };
        json_object_foreach(ifs, name, qs) {
                int u = unit_of(sw, name);

                json_object_foreach(switch_member(qs, "txQueues"), qk, v) {
                        uint64_t q, det = 0, res = 0;

                        if (u < 0 || switch_parse_uint(qk, 0, 7, &q) < 0)
                                continue;
                        switch_json_uint(switch_member(v, "stuckCount"), UINT64_MAX, &det);
                        switch_json_uint(switch_member(v, "recoveryCount"), UINT64_MAX, &res);
                        ret->q[u][q] = (struct switch_wd_queue){ .known = true, .watched = true, .stormed = det > res,
                                                                 .detected = det, .restored = res,
                                                                 .restored_known = true };
                }
        }
        json_decref(j);
        return 0;
}

static int read_in(struct switch_session *s, struct switch_wd_stats *ret, struct errbuf *e)
{
        _cleanup_free_ char *out = NULL;
        int r = 0;

        if (streq(s->d->name, "sonic")) {
                r = switch_run(s, "show pfcwd stats -e", NULL, &out, e);
                return r < 0 ? r : switch_wd_stats_sonic(out, s->sw, ret, e);
        }
        if (streq(s->d->name, "eos")) {
                r = switch_run(s, "show priority-flow-control counters watchdog | json", NULL, &out, e);
                return r < 0 ? r : switch_wd_stats_eos(out, s->sw, ret, e);
        }
        for (unsigned u = 0; r >= 0 && u < s->sw->n_ports && u < STATE_PORTS_MAX; u++) {
                free(out);
                out = NULL;
                r = switch_runf(s, &out, e, "nv show interface %s qos pfc-watchdog", s->sw->ports[u]);
                if (r >= 0)
                        r = switch_wd_stats_nvue(out, u, ret, e);
        }
        return r;
}

int switch_wd_stats_read(struct target *t, struct switch_wd_stats *ret, struct errbuf *e)
{
        struct switch_session *s = t->kind == TARGET_SWITCH ? (struct switch_session *)t->session : NULL;

        memset(ret, 0, sizeof(*ret));
        if (!s)
                return errbuf_set(e, ENOTCONN, t->name, "switch '%s': no open session", t->name);
        ret->n_ports = s->sw->n_ports < STATE_PORTS_MAX ? s->sw->n_ports : STATE_PORTS_MAX;
        return read_in(s, ret, e);
}
