/* SPDX-License-Identifier: MIT */
/* Switch port counters and link through each dialect's show commands (see switch_counters.h). */
#include <ctype.h>
#include <time.h>

#include "common/clock.h"
#include "drivers/switch/switch.h"
#include "drivers/switch/switch_counters.h"
#include "policies/doctor/doctor.h"

#define TABLE_COLS 16
#define TABLE_LINES 4096
#define CELL_MAX 64

/* ---- text tables as NVUE and SONiC (python tabulate) print them ---- */

/*
 * A table is a header line over a line of dash runs, one run per column; a title,
 * when there is one, sits two lines up over a line of '='. Cells are separated by two
 * or more spaces (a cell may hold one: "0 Bytes", "Port Rx"); each goes to the column
 * its text overlaps most, so left- and right-aligned values, and the odd column a
 * document shifted by a character, land where they belong.
 */
struct table {
        char title[64];
        unsigned ncol;
        unsigned start[TABLE_COLS], end[TABLE_COLS];
        char col[TABLE_COLS][CELL_MAX];
};

typedef void (*row_fn)(void *ctx, const struct table *t, char cells[][CELL_MAX]);

static bool all_of(const char *line, const char *set, char must)
{
        bool seen = false;

        for (; *line; line++) {
                if (!strchr(set, *line))
                        return false;
                seen |= *line == must;
        }
        return seen;
}

static bool blank(const char *line)
{
        while (*line == ' ' || *line == '\t' || *line == '\r')
                line++;
        return !*line;
}

static long overlap(unsigned a, unsigned b, unsigned c, unsigned d)
{
        unsigned lo = a > c ? a : c, hi = b < d ? b : d;

        return hi > lo ? (long)(hi - lo) : -(long)(lo >= hi ? lo - hi : 0);
}

/* Split line into cells (runs of text without two spaces in a row), each into its column. */
static void cells_of(const char *line, const struct table *t, char cells[][CELL_MAX])
{
        size_t i = 0, len = strlen(line);

        for (unsigned k = 0; k < t->ncol; k++)
                cells[k][0] = '\0';
        while (i < len) {
                size_t a, b;
                unsigned best = 0;
                long score = -(long)len - 1;

                while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
                        i++;
                if (i >= len)
                        break;
                a = i;
                while (i < len && line[i] != '\t' && line[i] != '\r' && !(line[i] == ' ' && line[i + 1] == ' ') &&
                       !(line[i] == ' ' && !line[i + 1]))
                        i++;
                b = i;
                for (unsigned k = 0; k < t->ncol; k++) {
                        long o = overlap((unsigned)a, (unsigned)b, t->start[k], t->end[k]);

                        if (o > score) {
                                score = o;
                                best = k;
                        }
                }
                if (!cells[best][0])
                        snprintf(cells[best], CELL_MAX, "%.*s", (int)(b - a), line + a);
        }
}

static bool columns(const char *header, const char *dashes, struct table *t)
{
        t->ncol = 0;
        for (size_t i = 0; dashes[i]; i++) {
                if (dashes[i] != '-' || (i && dashes[i - 1] == '-'))
                        continue;
                if (t->ncol >= TABLE_COLS)
                        return false;
                t->start[t->ncol] = (unsigned)i;
                while (dashes[i + 1] == '-')
                        i++;
                t->end[t->ncol++] = (unsigned)i + 1;
        }
        cells_of(header, t, t->col);
        return t->ncol > 0;
}

static void trimmed(const char *line, char *out, size_t size)
{
        size_t n;

        while (isspace((unsigned char)*line))
                line++;
        n = strlen(line);
        while (n && isspace((unsigned char)line[n - 1]))
                n--;
        snprintf(out, size, "%.*s", (int)n, line);
}

/* Call fn for every data row of every table in text. */
static int tables_each(const char *text, row_fn fn, void *ctx)
{
        _cleanup_free_ char *copy = strdup(text ? text : "");
        _cleanup_free_ char **lines = calloc(TABLE_LINES, sizeof(*lines));
        unsigned n = 0;

        if (!copy || !lines)
                return -ENOMEM;
        for (char *p = copy; n < TABLE_LINES && p; n++) {      /* keep empty lines: strsep */
                lines[n] = strsep(&p, "\n");
        }
        for (unsigned i = 0; i + 1 < n; i++) {
                struct table t = { .title = "" };
                bool rows = false;

                if (blank(lines[i]) || !all_of(lines[i + 1], " -\r", '-') || all_of(lines[i], " -\r", '-') ||
                    !columns(lines[i], lines[i + 1], &t))
                        continue;
                if (i >= 2 && all_of(lines[i - 1], " =\r", '='))
                        trimmed(lines[i - 2], t.title, sizeof(t.title));
                for (unsigned j = i + 2; j < n; j++) {
                        char cells[TABLE_COLS][CELL_MAX];

                        if (blank(lines[j])) {
                                if (rows)
                                        break;
                                continue;
                        }
                        if ((j + 1 < n && all_of(lines[j + 1], " -\r", '-')) || all_of(lines[j], " =-.\r", '.') ||
                            all_of(lines[j], " =\r", '='))
                                break;
                        cells_of(lines[j], &t, cells);
                        fn(ctx, &t, cells);
                        rows = true;
                        i = j;
                }
        }
        return 0;
}

static int col_of(const struct table *t, const char *name)
{
        for (unsigned k = 0; k < t->ncol; k++)
                if (streq(t->col[k], name))
                        return (int)k;
        return -1;
}

/* "1,234" or "1234" (a bytes column may say "1234 Bytes"); anything else (n/a, N/A, "1.2 MB") is not a count. */
static bool count_of(const char *s, uint64_t *ret)
{
        uint64_t v = 0;
        bool digits = false;

        for (; *s && *s != ' '; s++) {
                if (*s == ',')
                        continue;
                if (!isdigit((unsigned char)*s) || v > UINT64_MAX / 10 - 10)
                        return false;
                v = v * 10 + (uint64_t)(*s - '0');
                digits = true;
        }
        if (*s && !streq(s, " Bytes") && !streq(s, " B"))
                return false;
        *ret = v;
        return digits;
}

static void put(struct switch_port_sample *p, const char *name, enum doctor_counter kind, int prio, uint64_t v)
{
        struct switch_counter *c;

        if (p->n >= SWITCH_COUNTERS_MAX)
                return;
        c = &p->c[p->n++];
        snprintf(c->name, sizeof(c->name), "%s", name);
        c->kind = (uint8_t)kind;
        c->prio = (int8_t)prio;
        c->value = v;
}

static void put_cell(struct switch_port_sample *p, const struct table *t, char cells[][CELL_MAX], const char *col,
                     const char *name, enum doctor_counter kind, int prio)
{
        int k = col_of(t, col);
        uint64_t v;

        if (k >= 0 && count_of(cells[k], &v))
                put(p, name, kind, prio, v);
}

static int prio_of(const char *s, unsigned max)
{
        uint64_t v;

        return switch_parse_uint(s, 0, max, &v) < 0 ? -1 : (int)v;
}

static int unit_of(const struct switch_config *sw, const char *port)
{
        for (unsigned i = 0; i < sw->n_ports; i++)
                if (streq(sw->ports[i], port))
                        return (int)i;
        return -1;
}

uint32_t switch_counters_speed(const char *s)
{
        uint64_t v;
        char num[16];
        size_t n = strspn(s ? s : "", "0123456789");

        if (!n || n >= sizeof(num) || (s[n] != 'G' && s[n] != 'M') || s[n + 1])
                return 0;
        memcpy(num, s, n);
        num[n] = '\0';
        if (switch_parse_uint(num, 1, 100000, &v) < 0)
                return 0;
        return (uint32_t)(s[n] == 'G' ? v * 1000 : v);
}

/* ---- NVUE ---- */

static void nvue_qos_row(void *ctx, const struct table *t, char cells[][CELL_MAX])
{
        struct switch_port_sample *p = ctx;
        int prio = prio_of(cells[0], 7);

        if (streq(t->title, "PFC Statistics") && prio >= 0) {
                put_cell(p, t, cells, "rx-pause-frames", "rx-pause-frames", DOCTOR_PAUSE_RX, prio);
                put_cell(p, t, cells, "tx-pause-frames", "tx-pause-frames", DOCTOR_PAUSE_TX, prio);
        } else if (streq(t->title, "Egress Queue Statistics") && prio >= 0) {
                put_cell(p, t, cells, "wred-discards", "wred-discards", DOCTOR_WRED_DROP, prio);
                put_cell(p, t, cells, "tx-frames", "tx-frames", DOCTOR_TX_PACKETS, prio);
                put_cell(p, t, cells, "tx-uc-buffer-discards", "tx-uc-buffer-discards (bytes)", DOCTOR_DISCARD, prio);
        } else if (streq(t->title, "Ingress Buffer Statistics") && prio >= 0) {
                /* per priority group, which NVUE's default maps one to one to switch priorities */
                put_cell(p, t, cells, "rx-buffer-discards", "rx-buffer-discards (bytes)", DOCTOR_RX_DISCARD, prio);
        } else if (streq(t->title, "Qos Port Statistics") && streq(cells[0], "ecn-marked-packets")) {
                put_cell(p, t, cells, "Transmit", "ecn-marked-packets", DOCTOR_ECN_MARKED, -1);
        }
}

int switch_counters_nvue_qos(const char *text, struct switch_port_sample *ret, struct errbuf *e)
{
        unsigned before = ret->n;
        int r = tables_each(text, nvue_qos_row, ret);

        if (r < 0)
                return errbuf_set(e, -r, NULL, "out of memory");
        if (ret->n == before)
                return errbuf_set(e, EBADMSG, NULL, "'counters qos': no PFC, egress queue or port statistics table");
        return 0;
}

/* The tree view: "tx-stats" / "  tx-cnp-stats" / "    cnp-packets   0   Tx CNP Packets". */
int switch_counters_nvue_roce(const char *text, struct switch_port_sample *ret, struct errbuf *e)
{
        _cleanup_free_ char *copy = strdup(text ? text : "");
        char group[48] = "", *save = NULL;
        unsigned before = ret->n;

        if (!copy)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                size_t indent = strspn(line, " ");
                char name[48], value[48];
                uint64_t v;

                if (sscanf(line, "%47s %47s", name, value) < 1)
                        continue;
                if (indent == 2) {
                        snprintf(group, sizeof(group), "%s", name);
                        continue;
                }
                if (indent != 4 || !count_of(value, &v))
                        continue;
                if (streq(group, "tx-cnp-stats") && streq(name, "cnp-packets"))
                        put(ret, "tx-cnp-packets", DOCTOR_CNP_SENT, -1, v);
                else if (streq(group, "rx-roce-stats") && streq(name, "no-buffer-discard"))
                        put(ret, "rx-roce-no-buffer-discard", DOCTOR_DISCARD, -1, v);
                else if (streq(group, "tx-roce-stats") && streq(name, "unicast-no-buffer-discard"))
                        put(ret, "tx-roce-unicast-no-buffer-discard", DOCTOR_DISCARD, -1, v);
        }
        if (ret->n == before)
                return errbuf_set(e, EBADMSG, NULL, "'qos roce counters': no tx-cnp-stats or RoCE discard counters");
        return 0;
}

static json_t *load(const char *text, const char *what, struct errbuf *e)
{
        json_error_t err;
        json_t *j = json_loads(text ? text : "", JSON_REJECT_DUPLICATES, &err);

        if (!json_is_object(j)) {
                json_decref(j);
                errbuf_set(e, EBADMSG, NULL, "'%s' is not a JSON object: %s", what, err.text);
                return NULL;
        }
        return j;
}

/* link.state is "up" / "down", or {"up": {}} as NVUE's JSON writes an enum it keys by. */
static int nvue_state(const json_t *st)
{
        if (json_is_string(st))
                return streq(json_string_value(st), "up") ? 1 : streq(json_string_value(st), "down") ? 0 : -1;
        if (json_is_object(st))
                return json_object_get(st, "up") ? 1 : json_object_get(st, "down") ? 0 : -1;
        return -1;
}

int switch_counters_nvue_link(const char *json, const struct switch_config *sw, struct switch_sample *ret,
                              struct errbuf *e)
{
        json_t *j = load(json, "nv show interface -o json", e);

        if (!j)
                return -EBADMSG;
        for (unsigned i = 0; i < sw->n_ports && i < STATE_PORTS_MAX; i++) {
                const json_t *link = switch_member(switch_member(j, sw->ports[i]), "link");
                int up = nvue_state(switch_member(link, "state"));

                ret->port[i].link_known = up >= 0;
                ret->port[i].up = up > 0;
                ret->port[i].speed_mbps = switch_counters_speed(json_string_value(switch_member(link, "speed")));
        }
        json_decref(j);
        return 0;
}

/* ---- SONiC ---- */

struct sonic_ctx {
        const struct switch_config *sw;
        struct switch_sample *s;
        unsigned rows;
};

static struct switch_port_sample *sonic_port(struct sonic_ctx *x, const char *name)
{
        int u = unit_of(x->sw, name);

        return u >= 0 && u < STATE_PORTS_MAX ? &x->s->port[u] : NULL;
}

static void sonic_status_row(void *ctx, const struct table *t, char cells[][CELL_MAX])
{
        struct sonic_ctx *x = ctx;
        int oper = col_of(t, "Oper"), speed = col_of(t, "Speed");
        struct switch_port_sample *p = col_of(t, "Interface") == 0 ? sonic_port(x, cells[0]) : NULL;

        if (!p)
                return;
        x->rows++;
        if (oper >= 0 && (streq(cells[oper], "up") || streq(cells[oper], "down"))) {
                p->link_known = true;
                p->up = streq(cells[oper], "up");
        }
        if (speed >= 0)
                p->speed_mbps = switch_counters_speed(cells[speed]);
}

static void sonic_pfc_row(void *ctx, const struct table *t, char cells[][CELL_MAX])
{
        struct sonic_ctx *x = ctx;
        bool rx = streq(t->col[0], "Port Rx"), tx = streq(t->col[0], "Port Tx");
        struct switch_port_sample *p = rx || tx ? sonic_port(x, cells[0]) : NULL;

        for (unsigned prio = 0; p && prio < STATE_PRIO_COUNT; prio++) {
                char col[8], name[16];

                snprintf(col, sizeof(col), "PFC%u", prio);
                snprintf(name, sizeof(name), "PFC%u %s", prio, rx ? "Rx" : "Tx");
                put_cell(p, t, cells, col, name, rx ? DOCTOR_PAUSE_RX : DOCTOR_PAUSE_TX, (int)prio);
        }
        x->rows += !!p;
}

/* "UC3" -> 3 (unicast queues only: RoCE is unicast). */
static int uc_queue(const struct table *t, char cells[][CELL_MAX])
{
        int k = col_of(t, "TxQ");

        return k >= 0 && !strncmp(cells[k], "UC", 2) ? prio_of(cells[k] + 2, 7) : -1;
}

/* A row of a per-queue table: the two columns named, as what they count, on unicast queue q. */
static void sonic_queue_cells(void *ctx, const struct table *t, char cells[][CELL_MAX], const char *const col[2],
                              const enum doctor_counter kind[2])
{
        struct sonic_ctx *x = ctx;
        struct switch_port_sample *p = col_of(t, "Port") == 0 ? sonic_port(x, cells[0]) : NULL;
        int q = uc_queue(t, cells);
        char name[32];

        if (!p || q < 0)
                return;
        for (unsigned i = 0; i < 2; i++) {
                snprintf(name, sizeof(name), "UC%d %s", q, col[i]);
                put_cell(p, t, cells, col[i], name, kind[i], q);
        }
        x->rows++;
}

static void sonic_queue_row(void *ctx, const struct table *t, char cells[][CELL_MAX])
{
        static const char *const col[2] = { "Drop/pkts", "Counter/pkts" };
        static const enum doctor_counter kind[2] = { DOCTOR_DISCARD, DOCTOR_TX_PACKETS };

        sonic_queue_cells(ctx, t, cells, col, kind);
}

static void sonic_wred_row(void *ctx, const struct table *t, char cells[][CELL_MAX])
{
        static const char *const col[2] = { "WredDrp/pkts", "EcnMarked/pkts" };
        static const enum doctor_counter kind[2] = { DOCTOR_WRED_DROP, DOCTOR_ECN_MARKED };

        sonic_queue_cells(ctx, t, cells, col, kind);
}

static int sonic_tables(const char *text, const char *cmd, row_fn fn, const struct switch_config *sw,
                        struct switch_sample *ret, struct errbuf *e)
{
        struct sonic_ctx x = { sw, ret, 0 };
        int r = tables_each(text, fn, &x);

        if (r < 0)
                return errbuf_set(e, -r, NULL, "out of memory");
        if (!x.rows && sw->n_ports)
                return errbuf_set(e, EBADMSG, NULL, "'%s': no row for any configured port", cmd);
        return 0;
}

/* `show priority-group drop counters` (scripts/pg-drop): PG0-PG7 per port; PG n taken as priority n. */
static void sonic_pg_row(void *ctx, const struct table *t, char cells[][CELL_MAX])
{
        struct sonic_ctx *x = ctx;
        struct switch_port_sample *p = col_of(t, "Port") == 0 ? sonic_port(x, cells[0]) : NULL;

        for (unsigned pg = 0; p && pg < STATE_PRIO_COUNT; pg++) {
                char col[8], name[24];

                snprintf(col, sizeof(col), "PG%u", pg);
                snprintf(name, sizeof(name), "PG%u dropped", pg);
                put_cell(p, t, cells, col, name, DOCTOR_RX_DISCARD, (int)pg);
        }
        x->rows += !!p;
}

int switch_counters_sonic_pg_drop(const char *text, const struct switch_config *sw, struct switch_sample *ret,
                                  struct errbuf *e)
{
        if (strstr(text ? text : "", "PG counters are disabled"))
                return errbuf_set(e, ENODATA, NULL, "PG drop counters are disabled on the switch "
                                  "('counterpoll pg-drop enable' turns them on)");
        return sonic_tables(text, "show priority-group drop counters", sonic_pg_row, sw, ret, e);
}

int switch_counters_sonic_status(const char *text, const struct switch_config *sw, struct switch_sample *ret,
                                 struct errbuf *e)
{
        return sonic_tables(text, "show interfaces status", sonic_status_row, sw, ret, e);
}

int switch_counters_sonic_pfc(const char *text, const struct switch_config *sw, struct switch_sample *ret,
                              struct errbuf *e)
{
        return sonic_tables(text, "show pfc counters", sonic_pfc_row, sw, ret, e);
}

int switch_counters_sonic_queue(const char *text, const struct switch_config *sw, struct switch_sample *ret,
                                struct errbuf *e)
{
        return sonic_tables(text, "show queue counters", sonic_queue_row, sw, ret, e);
}

int switch_counters_sonic_wred(const char *text, const struct switch_config *sw, struct switch_sample *ret,
                               struct errbuf *e)
{
        return sonic_tables(text, "show queue wredcounters", sonic_wred_row, sw, ret, e);
}

/* ---- EOS ---- */

static void eos_count(struct switch_port_sample *p, const json_t *o, const char *key, enum doctor_counter kind)
{
        uint64_t v;

        if (switch_json_uint(switch_member(o, key), UINT64_MAX / 2, &v) >= 0)
                put(p, key, kind, -1, v);
}

int switch_counters_eos(const char *json, const struct switch_config *sw, struct switch_sample *ret,
                        struct errbuf *e)
{
        json_t *j = load(json, "show interfaces | json", e), *ifs;

        if (!j)
                return -EBADMSG;
        ifs = switch_member(j, "interfaces");
        for (unsigned i = 0; i < sw->n_ports && i < STATE_PORTS_MAX; i++) {
                const json_t *x = switch_member(ifs, sw->ports[i]), *c = switch_member(x, "interfaceCounters");
                struct switch_port_sample *p = &ret->port[i];
                const char *status = json_string_value(switch_member(x, "interfaceStatus"));
                double bw = json_number_value(switch_member(x, "bandwidth"));

                if (status) {
                        p->link_known = true;
                        p->up = streq(status, "connected");
                }
                if (bw >= 1e6 && bw < 1e15)
                        p->speed_mbps = (uint32_t)(bw / 1e6);
                eos_count(p, c, "inDiscards", DOCTOR_RX_DISCARD);
                eos_count(p, c, "outDiscards", DOCTOR_DISCARD);
                eos_count(p, switch_member(c, "inputErrorsDetail"), "rxPause", DOCTOR_PAUSE_RX);
                eos_count(p, switch_member(c, "outputErrorsDetail"), "txPause", DOCTOR_PAUSE_TX);
        }
        json_decref(j);
        return 0;
}

/*
 * `show priority-flow-control counters | json` (revision 3, as Arista's ANTA asks it):
 * interfaceCounters.PORT.rxFrames / txFrames, the PFC frames of the port, all
 * priorities together (the shape has no per-priority split).
 */
int switch_counters_eos_pfc(const char *json, const struct switch_config *sw, struct switch_sample *ret,
                            struct errbuf *e)
{
        json_t *j = load(json, "show priority-flow-control counters | json", e), *ifs;
        uint64_t v;

        if (!j)
                return -EBADMSG;
        ifs = switch_member(j, "interfaceCounters");
        for (unsigned i = 0; i < sw->n_ports && i < STATE_PORTS_MAX; i++) {
                const json_t *x = switch_member(ifs, sw->ports[i]);

                if (switch_json_uint(switch_member(x, "rxFrames"), UINT64_MAX / 2, &v) >= 0)
                        put(&ret->port[i], "PFC rxFrames", DOCTOR_PAUSE_RX, -1, v);
                if (switch_json_uint(switch_member(x, "txFrames"), UINT64_MAX / 2, &v) >= 0)
                        put(&ret->port[i], "PFC txFrames", DOCTOR_PAUSE_TX, -1, v);
        }
        json_decref(j);
        return 0;
}

/*
 * `show qos interfaces ecn counters queue | json` (revision 1): intfQueueCounters.PORT.
 * queueCounters.Q, the ECN-marked packets of each queue as strings; "-" where the queue
 * counts nothing (no `random-detect ecn count` under its tx-queue: ANTA skips it).
 */
int switch_counters_eos_ecn(const char *json, const struct switch_config *sw, struct switch_sample *ret,
                            struct errbuf *e)
{
        json_t *j = load(json, "show qos interfaces ecn counters queue | json", e), *ifs, *v;
        const char *q;
        char name[24];
        uint64_t n;
        int k;

        if (!j)
                return -EBADMSG;
        ifs = switch_member(j, "intfQueueCounters");
        for (unsigned i = 0; i < sw->n_ports && i < STATE_PORTS_MAX; i++) {
                json_t *qs = switch_member(switch_member(ifs, sw->ports[i]), "queueCounters");

                json_object_foreach(qs, q, v) {
                        if ((k = prio_of(q, 7)) < 0 || !json_is_string(v) || !count_of(json_string_value(v), &n))
                                continue;
                        snprintf(name, sizeof(name), "ECN queue %d", k);
                        put(&ret->port[i], name, DOCTOR_ECN_MARKED, k, n);
                }
        }
        json_decref(j);
        return 0;
}

/* ---- reading through the session ---- */

/*
 * Run cmd; its output's counters (those a parse adds after *ret_t is set) are stamped
 * with the command's midpoint, so that a rate divides by the time between the switch's
 * two readings and not by the session's latency.
 */
static int run_timed(struct switch_session *s, const char *cmd, char **ret_out, double *ret_t, struct errbuf *e)
{
        double t0 = clock_mono_s();
        int r = switch_run(s, cmd, NULL, ret_out, e);

        *ret_t = (t0 + clock_mono_s()) / 2;
        return r;
}

/* Stamp the counters each port gained since before[] with t. */
static void stamp(struct switch_sample *ret, const unsigned *before, double t)
{
        for (unsigned i = 0; i < ret->n_ports; i++)
                for (unsigned k = before[i]; k < ret->port[i].n; k++)
                        ret->port[i].c[k].t = t;
}

static void counts(const struct switch_sample *ret, unsigned *before)
{
        for (unsigned i = 0; i < ret->n_ports; i++)
                before[i] = ret->port[i].n;
}

static struct switch_session *session(const struct target *t)
{
        return (struct switch_session *)t->session;
}

static int nvue_port(struct switch_session *s, unsigned i, bool roce, struct switch_sample *ret, struct errbuf *e)
{
        _cleanup_free_ char *qos = NULL, *rc = NULL;
        char cmd[SWITCH_CMD_MAX];
        unsigned before[STATE_PORTS_MAX];
        double t;
        int r;

        counts(ret, before);
        snprintf(cmd, sizeof(cmd), "nv show interface %s counters qos", s->sw->ports[i]);
        r = run_timed(s, cmd, &qos, &t, e);
        if (r >= 0 && (r = switch_counters_nvue_qos(qos, &ret->port[i], e)) >= 0)
                stamp(ret, before, t);
        if (r < 0 || !roce)
                return r;
        counts(ret, before);
        snprintf(cmd, sizeof(cmd), "nv show interface %s qos roce counters", s->sw->ports[i]);
        r = run_timed(s, cmd, &rc, &t, e);
        if (r >= 0 && (r = switch_counters_nvue_roce(rc, &ret->port[i], e)) >= 0)
                stamp(ret, before, t);
        return r;
}

static int nvue_read(struct switch_session *s, struct switch_sample *ret, struct errbuf *e)
{
        _cleanup_free_ char *ifs = NULL;
        bool roce = json_is_true(switch_member(s->extra, "on"));
        int r = switch_run(s, "nv show interface -o json", NULL, &ifs, e);

        if (r >= 0)
                r = switch_counters_nvue_link(ifs, s->sw, ret, e);
        for (unsigned i = 0; r >= 0 && i < s->sw->n_ports; i++)
                if ((r = nvue_port(s, i, roce, ret, e)) < 0)
                        errbuf_prefix(e, "port '%s'", s->sw->ports[i]);
        return r;
}

/* The PG drop counters when the switch has them (an older image, or polling off: said, not fatal). */
static void sonic_pg_drops(struct switch_session *s, struct switch_sample *ret)
{
        _cleanup_free_ char *out = NULL;
        unsigned before[STATE_PORTS_MAX];
        struct errbuf pe = { 0 };
        char buf[600];
        double t;

        counts(ret, before);
        if (run_timed(s, "show priority-group drop counters", &out, &t, &pe) >= 0 &&
            switch_counters_sonic_pg_drop(out, s->sw, ret, &pe) >= 0) {
                stamp(ret, before, t);
                return;
        }
        snprintf(ret->note, sizeof(ret->note), "SONiC: priority-group drops not read: %.200s",
                 errbuf_str(&pe, buf, sizeof(buf)));
}

static int sonic_read(struct switch_session *s, struct switch_sample *ret, struct errbuf *e)
{
        static const struct {
                const char *cmd;
                int (*parse)(const char *, const struct switch_config *, struct switch_sample *, struct errbuf *);
        } cmds[] = {
                { "show interfaces status", switch_counters_sonic_status },
                { "show pfc counters", switch_counters_sonic_pfc },
                { "show queue counters", switch_counters_sonic_queue },
                { "show queue wredcounters", switch_counters_sonic_wred },
        };
        unsigned before[STATE_PORTS_MAX];
        int r = 0;

        for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(cmds); i++) {
                _cleanup_free_ char *out = NULL;
                double t;

                counts(ret, before);
                r = run_timed(s, cmds[i].cmd, &out, &t, e);
                if (r >= 0 && (r = cmds[i].parse(out, s->sw, ret, e)) >= 0)
                        stamp(ret, before, t);
        }
        if (r >= 0)
                sonic_pg_drops(s, ret);
        return r;
}

/*
 * Link, discards and link pause; PFC frames per port; ECN marks per queue. A platform
 * that refuses one of the last two (virtual EOS has neither: ANTA skips its tests
 * there) leaves those counters out and says so; the rest is read.
 */
static int eos_read(struct switch_session *s, struct switch_sample *ret, struct errbuf *e)
{
        static const struct {
                const char *cmd;
                int (*parse)(const char *, const struct switch_config *, struct switch_sample *, struct errbuf *);
                bool optional;
        } cmds[] = {
                { "show interfaces | json", switch_counters_eos, false },
                { "show priority-flow-control counters | json", switch_counters_eos_pfc, true },
                { "show qos interfaces ecn counters queue | json", switch_counters_eos_ecn, true },
        };
        unsigned before[STATE_PORTS_MAX];
        size_t len = 0;
        int r = 0;

        ret->note[0] = '\0';
        for (size_t i = 0; r >= 0 && i < ARRAY_SIZE(cmds); i++) {
                _cleanup_free_ char *out = NULL;
                double t;

                counts(ret, before);
                r = run_timed(s, cmds[i].cmd, &out, &t, e);
                if (r == -EREMOTEIO && cmds[i].optional) {
                        len += (size_t)snprintf(ret->note + len, sizeof(ret->note) - len, "%s'%.48s' refused: not read",
                                                len ? "; " : "EOS: ", cmds[i].cmd);
                        r = 0;
                        continue;
                }
                if (r >= 0 && (r = cmds[i].parse(out, s->sw, ret, e)) >= 0)
                        stamp(ret, before, t);
        }
        return r;
}

/* The watchdog's storm counts as counters of the ports (doctor's watchdog_flapping); a switch without them: a note. */
static void watchdog_counters(struct target *t, struct switch_sample *ret)
{
        _cleanup_free_ struct switch_wd_stats *mine = malloc(sizeof(*mine));      /* 4 KiB: not on the stack */
        struct errbuf why = { 0 };
        unsigned before[STATE_PORTS_MAX];
        double t0 = clock_mono_s();
        char buf[256];

        if (!mine)
                return;
        counts(ret, before);
        if (switch_wd_stats_read(t, mine, &why) < 0) {
                snprintf(ret->note + strlen(ret->note), sizeof(ret->note) - strlen(ret->note), "%sPFC watchdog "
                         "counters not read: %s", ret->note[0] ? "; " : "", errbuf_str(&why, buf, sizeof(buf)));
                return;
        }
        for (unsigned u = 0; u < ret->n_ports; u++)
                for (unsigned q = 0; q < STATE_TC_COUNT; q++) {
                        const struct switch_wd_queue *x = &mine->q[u][q];

                        if (!x->watched && !x->detected)
                                continue;
                        put(&ret->port[u], "storms detected", DOCTOR_WD_STORMS, (int)q, x->detected);
                        if (x->restored_known)
                                put(&ret->port[u], "storms restored", DOCTOR_WD_RESTORES, (int)q, x->restored);
                }
        stamp(ret, before, (t0 + clock_mono_s()) / 2);
}

int switch_counters_read(struct target *t, struct switch_sample *ret, struct errbuf *e)
{
        struct switch_session *s = t->kind == TARGET_SWITCH ? session(t) : NULL;
        int r;

        memset(ret, 0, sizeof(*ret));
        if (!s)
                return errbuf_set(e, ENOTCONN, t->name, "switch '%s': no open session", t->name);
        ret->n_ports = s->sw->n_ports < STATE_PORTS_MAX ? s->sw->n_ports : STATE_PORTS_MAX;
        if (streq(s->d->name, "nvue"))
                r = nvue_read(s, ret, e);
        else if (streq(s->d->name, "sonic"))
                r = sonic_read(s, ret, e);
        else if (streq(s->d->name, "eos"))
                r = eos_read(s, ret, e);
        else
                r = errbuf_set(e, EOPNOTSUPP, NULL, "no counter commands for dialect '%s'", s->d->name);
        if (r >= 0)
                watchdog_counters(t, ret);
        if (r < 0 && !strstr(e->where, "switch"))
                errbuf_prefix(e, "%s: counters", s->where);
        return r;
}
