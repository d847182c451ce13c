/* SPDX-License-Identifier: MIT */
/*
 * The simulated switch's data plane, as its counters show it: per port a link (state,
 * speed) and counters that climb at a rate on the switch's own clock (sim_now()):
 * value = base + rate x (now - t0). A test sets rates and links with
 *   switchsim --dialect D --state FILE --traffic PORT:NAME=RATE[,PORT:NAME=RATE...]
 * (NAME: pfc_rx.P, pfc_tx.P, ecn_marked.Q, wred_drop.Q, tx_drop.Q, tx_frames.Q, link_pause_rx,
 * link_pause_tx, in_discards, out_discards, cnp_tx, roce_no_buffer_discard; or
 * link=up|down, speed=100G) and each dialect prints them its own way (nvue.c,
 * sonic.c, eos.c). A new rate starts from the value the counter has now, so a
 * counter never jumps; a rate of 0 stops it. pfc_rx.P is a pause stream into the
 * port: its queue P is paused while it climbs, and tx_frames.P (what the queue is
 * offered) counts only what it sends: the PFC watchdog and a storm's spread decide
 * that (watchdog.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/switchsim/sim.h"

static json_t *port_of(json_t *st, const char *port, bool create)
{
        json_t *t = json_object_get(st, "traffic"), *p;

        if (!t && create) {
                t = json_object();
                json_object_set_new(st, "traffic", t);
        }
        p = json_object_get(t, port);
        if (!p && create) {
                p = json_object();
                json_object_set_new(t, port, p);
        }
        return p;
}

/* tx_frames.P of a port: a queue sends only while it is not blocked (watchdog.c); -1 for other names. */
static int sent_prio(const char *name)
{
        return !strncmp(name, "tx_frames.", 10) && name[10] >= '0' && name[10] <= '7' && !name[11] ? name[10] - '0' : -1;
}

/* Of the run seconds since t0, those a periodic counter ("on_s", "off_s": on first) climbed. */
static double active_s(const json_t *c, double run)
{
        double on = json_number_value(json_object_get(c, "on_s")), off = json_number_value(json_object_get(c, "off_s"));
        double full;

        if (on <= 0 || off <= 0 || run <= 0)
                return run;
        full = floor(run / (on + off));
        return full * on + fmin(run - full * (on + off), on);
}

uint64_t sim_counter(const json_t *st, const char *port, const char *name)
{
        const json_t *c = json_object_get(json_object_get(port_of((json_t *)st, port, false), "counters"), name);
        double base = json_number_value(json_object_get(c, "base")), rate = json_number_value(json_object_get(c, "rate"));
        double t0 = json_number_value(json_object_get(c, "t0")), v, run;
        int p = sent_prio(name);

        if (!c)
                return 0;
        run = active_s(c, sim_now() - t0);
        if (p >= 0)
                run -= sim_blocked_s(st, port, (unsigned)p) - json_number_value(json_object_get(c, "b0"));
        v = base + (rate > 0 && run > 0 ? rate * run : 0);
        return v > 0 ? (uint64_t)v : 0;
}

double sim_rate(const json_t *st, const char *port, const char *name)
{
        const json_t *c = json_object_get(json_object_get(port_of((json_t *)st, port, false), "counters"), name);

        return json_number_value(json_object_get(c, "rate"));
}

double sim_rate_at(const json_t *st, const char *port, const char *name, double t, double *ret_next)
{
        const json_t *c = json_object_get(json_object_get(port_of((json_t *)st, port, false), "counters"), name);
        double on = json_number_value(json_object_get(c, "on_s")), off = json_number_value(json_object_get(c, "off_s"));
        double t0 = json_number_value(json_object_get(c, "t0")), rate = json_number_value(json_object_get(c, "rate"));
        double phase;

        *ret_next = INFINITY;
        if (on <= 0 || off <= 0 || t < t0)
                return rate;
        phase = fmod(t - t0, on + off);
        if (on + off - phase < 1e-6)    /* at an edge, as the clock's resolution sees it */
                phase = 0;
        if (phase < on && on - phase < 1e-6)
                phase = on;
        *ret_next = t + (phase < on ? on - phase : on + off - phase);
        return phase < on ? rate : 0;
}

void sim_link(const json_t *st, const char *port, bool *ret_up, const char **ret_speed)
{
        const json_t *l = json_object_get(port_of((json_t *)st, port, false), "link");
        const char *state = json_string_value(json_object_get(l, "state"));
        const char *speed = json_string_value(json_object_get(l, "speed"));

        *ret_up = !state || !strcmp(state, "up");
        *ret_speed = speed ? speed : "100G";
}

static int set_one(json_t *st, char *spec)
{
        char *colon = strchr(spec, ':'), *eq = colon ? strchr(colon, '=') : NULL;
        json_t *p, *c;
        double now = sim_now();

        if (!colon || !eq)
                return -1;
        *colon = *eq = '\0';
        p = port_of(st, spec, true);
        if (!strcmp(colon + 1, "link") || !strcmp(colon + 1, "speed")) {
                if (!strcmp(colon + 1, "link") && strcmp(eq + 1, "up") && strcmp(eq + 1, "down"))
                        return -1;
                json_object_set_new(sim_obj(p, "link"), !strcmp(colon + 1, "link") ? "state" : "speed",
                                    json_string(eq + 1));
                return 0;
        }
        char *end;
        double rate = strtod(eq + 1, &end), on = 0, off = 0;

        if (*end == '/' && (on = strtod(end + 1, &end)) > 0 && *end == '/')
                off = strtod(end + 1, &end);
        if (*end || rate < 0 || on < 0 || off < 0 || (on > 0) != (off > 0))
                return -1;
        c = sim_obj(sim_obj(p, "counters"), colon + 1);
        json_object_set_new(c, "base", json_real((double)sim_counter(st, spec, colon + 1)));
        json_object_set_new(c, "rate", json_real(rate));
        json_object_set_new(c, "t0", json_real(now));
        json_object_del(c, "on_s");
        json_object_del(c, "off_s");
        if (on > 0) {           /* a choppy stream: RATE for ON seconds, nothing for OFF, again and again */
                json_object_set_new(c, "on_s", json_real(on));
                json_object_set_new(c, "off_s", json_real(off));
        }
        if (sent_prio(colon + 1) >= 0)
                json_object_set_new(c, "b0", json_real(sim_blocked_s(st, spec, (unsigned)sent_prio(colon + 1))));
        return 0;
}

int sim_traffic_set(json_t *st, const char *specs)
{
        char buf[4096], *save = NULL;

        snprintf(buf, sizeof(buf), "%s", specs);
        for (char *s = strtok_r(buf, ",", &save); s; s = strtok_r(NULL, ",", &save))
                if (set_one(st, s) < 0)
                        return sim_fail("switchsim: --traffic '%s': expected PORT:NAME=RATE[/ON_S/OFF_S], PORT:link=up|down "
                                        "or PORT:speed=100G", s);
        return 0;
}

/*
 * A table the way python's tabulate prints it ("simple" format, as NVUE's and
 * SONiC's show commands do): columns two spaces apart, a dash line as wide as each
 * column; numbers right-aligned, text left-aligned. cells[r][c], row 0 the header.
 */
void sim_table(const char *indent, unsigned rows, unsigned cols, char cells[][SIM_TABLE_COLS][64])
{
        size_t w[SIM_TABLE_COLS] = { 0 };

        for (unsigned r = 0; r < rows; r++)
                for (unsigned c = 0; c < cols; c++)
                        if (strlen(cells[r][c]) > w[c])
                                w[c] = strlen(cells[r][c]);
        for (unsigned r = 0; r < rows; r++) {
                printf("%s", indent);
                for (unsigned c = 0; c < cols; c++) {
                        bool num = r > 0 && cells[r][c][0] >= '0' && cells[r][c][0] <= '9';

                        printf(num ? "%s%*s" : "%s%-*s", c ? "  " : "", (int)w[c], cells[r][c]);
                }
                printf("\n");
                if (r == 0) {
                        printf("%s", indent);
                        for (unsigned c = 0; c < cols; c++) {
                                printf("%s", c ? "  " : "");
                                for (size_t k = 0; k < w[c]; k++)
                                        putchar('-');
                        }
                        printf("\n");
                }
        }
}

/* tabulate pads every header by MIN_PADDING (2): a column is at least its header + 2 wide. */
void sim_table_right(unsigned rows, unsigned cols, char cells[][SIM_TABLE_COLS][64])
{
        size_t w[SIM_TABLE_COLS] = { 0 };

        for (unsigned r = 0; r < rows; r++)
                for (unsigned c = 0; c < cols; c++)
                        if (strlen(cells[r][c]) + (r ? 0 : 2) > w[c])
                                w[c] = strlen(cells[r][c]) + (r ? 0 : 2);
        for (unsigned r = 0; r < rows; r++) {
                for (unsigned c = 0; c < cols; c++)
                        printf("%s%*s", c ? "  " : "", (int)w[c], cells[r][c]);
                printf("\n");
                for (unsigned c = 0; r == 0 && c < cols; c++) {
                        printf("%s", c ? "  " : "");
                        for (size_t k = 0; k < w[c]; k++)
                                putchar('-');
                }
                if (r == 0)
                        printf("\n");
        }
}

/* One cell of sim_rows(): see sim.h. */
static void row_cell(const json_t *st, const char *port, const char *spec, unsigned i, char *out)
{
        char name[64];
        const char *sp = strchr(spec, ' ');

        if (!strcmp(spec, "#"))
                snprintf(out, 64, "%u", i);
        else if (!strcmp(spec, "@"))
                snprintf(out, 64, "%s", port);
        else if (spec[0] == '=')
                snprintf(out, 64, "%s", spec + 1);
        else if (strchr(spec, '#'))
                snprintf(out, 64, "%.*s%u", (int)(strchr(spec, '#') - spec), spec, i);
        else {
                snprintf(name, sizeof(name), "%.*s.%u", sp ? (int)(sp - spec) : (int)strlen(spec), spec, i);
                snprintf(out, 64, "%llu%s", (unsigned long long)sim_counter(st, port, name), sp ? sp : "");
        }
}

void sim_rows(const json_t *st, const char *port, const char *indent, unsigned cols, const char *const *head,
              const char *const *spec)
{
        char cells[9][SIM_TABLE_COLS][64];

        for (unsigned c = 0; c < cols; c++)
                snprintf(cells[0][c], 64, "%s", head[c]);
        for (unsigned i = 0; i < 8; i++)
                for (unsigned c = 0; c < cols; c++)
                        row_cell(st, port, spec[c], i, cells[i + 1][c]);
        sim_table(indent, 9, cols, cells);
}
