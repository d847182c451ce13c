/* SPDX-License-Identifier: MIT */
/*
 * nettunectl headroom --speed-gbps N --cable-m N --mtu N [--asic NAME] [--lanes N]
 *                     [--small-packet-pct N] [--lossless-mtu N] [--max-mtu N]
 *                     [--svg FILE] [--node NAME --port NAME [--priority P]]
 *
 * The PFC headroom a lossless priority needs on one port (policies/state/headroom.h):
 * xoff, xon and the buffer size in bytes, with the inputs used. Reads nothing,
 * writes nothing; bad input exits 2 naming the flag. --svg also draws the size
 * for every common speed and cable length with the same inputs (one bar each, the
 * asked one outlined), and, with --node and --port, the receive buffer that port
 * reports (its agent's doctor facts: the buffers' total, else their sum) as a line
 * the bars must stay under; the text then lists every bar.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/rollout/rollout.h"
#include "controller/svg/svg.h"
#include "policies/doctor/doctor.h"
#include "policies/state/headroom.h"

enum { SPECTRUM, CONNECTX };

/* The numeric flags: where they go, their range, and the calculator input each one is. */
static const struct flag {
        const char *name;
        const char *input;              /* struct headroom_problem.input */
        size_t offset;                  /* into struct headroom_input */
        unsigned min, max;
        bool required;
        int only;                       /* -1 any ASIC, else the spectrum or connectx family it applies to */
} flags[] = {
        { "--speed-gbps", "speed_gbps", offsetof(struct headroom_input, speed_gbps), 1, HEADROOM_SPEED_MAX_GBPS, true,
          -1 },
        { "--cable-m", "cable_m", offsetof(struct headroom_input, cable_m), 1, HEADROOM_CABLE_MAX_M, true, -1 },
        /* connectx: up to --max-mtu; the calculator says which range holds */
        { "--mtu", "mtu", offsetof(struct headroom_input, mtu), HEADROOM_MTU_MIN, 65535, true, -1 },
        { "--lanes", "lanes", offsetof(struct headroom_input, lanes), 1, 8, false, SPECTRUM },
        { "--small-packet-pct", "small_packet_pct", offsetof(struct headroom_input, small_packet_pct), 0, 100, false,
          SPECTRUM },
        { "--lossless-mtu", "lossless_mtu", offsetof(struct headroom_input, lossless_mtu), 1, HEADROOM_MTU_MAX, false,
          SPECTRUM },
        { "--max-mtu", "max_mtu", offsetof(struct headroom_input, max_mtu), HEADROOM_MTU_MIN, 65535, false, CONNECTX },
};

#define USAGE "usage: nettunectl headroom --speed-gbps N --cable-m N --mtu N [--asic NAME] [--lanes N]\n" \
              "                           [--small-packet-pct N] [--lossless-mtu N] [--max-mtu N]\n" \
              "                           [--svg FILE] [--node NAME --port NAME [--priority P]]"

/* The picture's options. */
struct picture {
        const char *svg, *node, *port;
};

static const char *flag_of(const char *input)
{
        for (size_t i = 0; i < ARRAY_SIZE(flags); i++)
                if (streq(flags[i].input, input))
                        return flags[i].name;
        return "--asic";
}

/* Digits only (a sign, blanks or a suffix are refused) within the flag's range. */
static int parse_number(const struct flag *f, const char *s, unsigned *ret)
{
        unsigned long v = 0;
        char *end = NULL;

        if (s && *s >= '0' && *s <= '9') {
                errno = 0;
                v = strtoul(s, &end, 10);
        }
        if (!end || *end || errno || v < f->min || v > f->max) {
                log_err("%s '%s': expected an integer %u-%u", f->name, s ? s : "", f->min, f->max);
                return -EINVAL;
        }
        *ret = (unsigned)v;
        return 0;
}

/* One "--flag VALUE" or "--flag=VALUE" at argv[*i]; *seen marks the flags given. */
static int parse_one(struct ctl *c, int *i, struct headroom_input *in, const char **asic, unsigned *seen,
                     struct picture *pic)
{
        const char *a = c->argv[*i], *eq = strchr(a, '='), *v;
        size_t n = eq ? (size_t)(eq - a) : strlen(a);

        v = eq ? eq + 1 : *i + 1 < c->argc ? c->argv[*i + 1] : NULL;
        if (!v) {
                log_err("option '%.*s' needs a value", (int)n, a);
                return -EINVAL;
        }
        if (!eq)
                (*i)++;
        if (n == 6 && !strncmp(a, "--asic", 6)) {
                *asic = v;
                return 0;
        }
        if ((n == 5 && !strncmp(a, "--svg", 5)) || (n == 6 && !strncmp(a, "--node", 6)) ||
            (n == 6 && !strncmp(a, "--port", 6))) {
                *(a[2] == 's' ? &pic->svg : a[2] == 'n' ? &pic->node : &pic->port) = v;
                return 0;
        }
        for (size_t k = 0; k < ARRAY_SIZE(flags); k++)
                if (strlen(flags[k].name) == n && !strncmp(a, flags[k].name, n)) {
                        *seen |= 1u << k;
                        return parse_number(&flags[k], v, (unsigned *)((char *)in + flags[k].offset));
                }
        return ctl_bad_arg(c, a);
}

/* --emit-policy and what it takes: the lossless priority, the port's total receive buffer. */
struct emit {
        bool on;
        unsigned priority;              /* default 3 */
        unsigned total_bytes;           /* --buffer-total-bytes, 0 = not given: no buffers stanza */
};

/* argv[*i] one of emit's flags? 1 taken, 0 not, -EINVAL bad. */
static int parse_emit(struct ctl *c, int *i, struct emit *em)
{
        const char *a = c->argv[*i], *eq = strchr(a, '='), *v;
        size_t n = eq ? (size_t)(eq - a) : strlen(a);
        const struct flag pf = { "--priority", "", 0, 0, 7, false, -1 },
                          tf = { "--buffer-total-bytes", "", 0, 1, 1u << 30, false, -1 };

        if (streq(a, "--emit-policy")) {
                em->on = true;
                return 1;
        }
        if (!(n == 10 && !strncmp(a, "--priority", n)) && !(n == 20 && !strncmp(a, "--buffer-total-bytes", n)))
                return 0;
        v = eq ? eq + 1 : *i + 1 < c->argc ? c->argv[++*i] : NULL;
        if (n == 10)
                return parse_number(&pf, v, &em->priority) < 0 ? -EINVAL : 1;
        return parse_number(&tf, v, &em->total_bytes) < 0 ? -EINVAL : 1;
}

static int parse_args(struct ctl *c, struct headroom_input *in, struct picture *pic, struct emit *em)
{
        const char *asic = "spectrum2";
        unsigned seen = 0;
        int a, r;

        headroom_input_init(in, HEADROOM_SPECTRUM2);
        for (int i = 0; i < c->argc; i++)
                if ((r = parse_emit(c, &i, em)) < 0 || (!r && parse_one(c, &i, in, &asic, &seen, pic) < 0))
                        return -EINVAL;
        if (!em->on && (em->total_bytes || (em->priority != 3 && !pic->node))) {
                log_err("--priority goes with --emit-policy or --node, --buffer-total-bytes with --emit-policy");
                return -EINVAL;
        }
        if ((pic->node || pic->port) && (!pic->node || !pic->port)) {
                log_err("--node and --port go together: the port whose live buffer the size is compared with");
                return -EINVAL;
        }
        for (size_t k = 0; k < ARRAY_SIZE(flags); k++)
                if (flags[k].required && !(seen & (1u << k))) {
                        log_err("missing %s\n%s", flags[k].name, USAGE);
                        return -EINVAL;
                }
        a = headroom_asic_from_name(asic);
        if (a < 0) {
                log_err("--asic '%s': expected spectrum1, spectrum2, spectrum3, spectrum4 or connectx", asic);
                return -EINVAL;
        }
        in->asic = (enum headroom_asic)a;
        for (size_t k = 0; k < ARRAY_SIZE(flags); k++)
                if ((seen & (1u << k)) && flags[k].only >= 0 && flags[k].only != (a == HEADROOM_CONNECTX)) {
                        log_err("%s applies to %s only, not to --asic %s", flags[k].name,
                                flags[k].only == CONNECTX ? "connectx" : "spectrum1-spectrum4", asic);
                        return -EINVAL;
                }
        return 0;
}

static json_t *result_json(const struct headroom_input *in, const struct headroom *h)
{
        json_t *j = json_pack("{s:s,s:i,s:i,s:i,s:I,s:I,s:I}", "asic", headroom_asic_name(in->asic),
                              "speed_gbps", (int)in->speed_gbps, "cable_m", (int)in->cable_m, "mtu", (int)in->mtu,
                              "xoff_bytes", (json_int_t)h->xoff_bytes, "xon_bytes", (json_int_t)h->xon_bytes,
                              "size_bytes", (json_int_t)h->size_bytes);

        if (j && in->asic == HEADROOM_CONNECTX) {
                json_object_set_new(j, "max_mtu", json_integer(in->max_mtu));
        } else if (j) {
                json_object_set_new(j, "lanes", json_integer(h->lanes));
                json_object_set_new(j, "lossless_mtu", json_integer(in->lossless_mtu));
                json_object_set_new(j, "small_packet_pct", json_integer(in->small_packet_pct));
        }
        return j;
}

static void print_text(const struct headroom_input *in, const struct headroom *h)
{
        printf("asic              %s\n", headroom_asic_name(in->asic));
        printf("speed_gbps        %u\ncable_m           %u\nmtu               %u\n", in->speed_gbps, in->cable_m,
               in->mtu);
        if (in->asic == HEADROOM_CONNECTX)
                printf("max_mtu           %u\n", in->max_mtu);
        else
                printf("lanes             %u\nlossless_mtu      %u\nsmall_packet_pct  %u\n", h->lanes,
                       in->lossless_mtu, in->small_packet_pct);
        printf("xoff_bytes        %u\nxon_bytes         %u\nsize_bytes        %u\n", h->xoff_bytes, h->xon_bytes,
               h->size_bytes);
}

/* ---- --svg: every common speed and cable length with the same inputs ---- */

static const unsigned speeds[] = { 10, 25, 40, 50, 100, 200, 400, 800 };
static const unsigned cables[] = { 3, 10, 40, 100, 300 };
static const char *const cable_colour[] = { SVG_SKY, SVG_BLUE, SVG_GREEN, SVG_ORANGE, SVG_PURPLE };

/*
 * The receive buffers of node's port (interface or switch port) as its agent reports
 * them (its doctor facts): OUTCOME_OK with *ret (present: STATE_BIT(STATE_FIELD_BUFFERS)
 * when reported), else the exit code, said.
 */
static int port_buffers(struct ctl *c, const struct picture *pic, struct state *ret)
{
        const struct inventory_node *n;
        struct doctor_facts f;
        const struct state *st = NULL;
        int r;

        state_init(ret);
        if ((r = ctl_need_inventory(c)) > 0 || (r = ctl_need_http(c)) > 0)
                return r;
        if (!(n = inventory_find(c->inv, pic->node))) {
                log_err("--node '%s': not in the inventory", pic->node);
                return OUTCOME_INVALID;
        }
        doctor_facts_init(&f);
        r = ctl_doctor_collect(c, 0.1, &n, 1, &f);
        if (r >= 0 && f.n_nodes == 1 && f.nodes[0].error[0]) {
                log_err("--node '%s': %s", pic->node, f.nodes[0].error);
                r = -EIO;
        }
        for (unsigned i = 0; r >= 0 && i < f.nodes[0].n_ifs && !st; i++)
                if (streq(f.nodes[0].ifs[i].name, pic->port))
                        st = &f.nodes[0].ifs[i].st;
        for (unsigned s = 0; r >= 0 && s < f.nodes[0].n_switches && !st; s++)
                for (unsigned k = 0; k < f.nodes[0].switches[s].n_ports && !st; k++)
                        if (streq(f.nodes[0].switches[s].ports[k].name, pic->port))
                                st = &f.nodes[0].switches[s].ports[k].st;
        if (r >= 0 && !st) {
                log_err("--port '%s': node '%s' reports no such interface or switch port", pic->port, pic->node);
                r = -ENOENT;
        }
        if (st)
                *ret = *st;
        doctor_facts_free(&f);
        return r == -ENOENT || r == -EINVAL ? OUTCOME_INVALID : r < 0 ? OUTCOME_RUNTIME : OUTCOME_OK;
}

/* The picture's line: the buffers' total, else the sum of their sizes (0: not reported). */
static int port_buffer(struct ctl *c, const struct picture *pic, double *ret)
{
        struct state st;
        int r = port_buffers(c, pic, &st);

        *ret = 0;
        if (r == OUTCOME_OK && state_has(&st, STATE_FIELD_BUFFERS)) {
                *ret = st.buffers.total;
                for (unsigned b = 0; b < STATE_BUFFER_COUNT && !st.buffers.total; b++)
                        *ret += st.buffers.size[b];
        } else if (r == OUTCOME_OK) {
                log_warn("--port '%s' of '%s': no receive buffers reported: the picture has no buffer line",
                         pic->port, pic->node);
        }
        return r;
}

/*
 * --node N --port P: the size against the live buffer the lossless priority (--priority,
 * default 3) maps to ("needs 72.7 KB, buffer 0 has 127.9 KB: ok"). OUTCOME_OK when it
 * fits, OUTCOME_ROLLED_BACK (1) when it does not, 3 when the port reports no buffers.
 */
static int compare_live(struct ctl *c, const struct picture *pic, unsigned prio, const struct headroom *h,
                        json_t **ret_json)
{
        struct state st;
        unsigned b;
        uint32_t have;
        bool ok;
        int r = port_buffers(c, pic, &st);

        *ret_json = NULL;
        if (r != OUTCOME_OK)
                return r;
        if (!state_has(&st, STATE_FIELD_BUFFERS)) {
                log_err("--port '%s' of '%s': reports no receive buffers: nothing to compare with", pic->port,
                        pic->node);
                return OUTCOME_RUNTIME;
        }
        b = st.buffers.prio_buffer[prio] % STATE_BUFFER_COUNT;
        have = st.buffers.size[b];
        ok = have >= h->size_bytes;
        *ret_json = json_pack("{s:s, s:s, s:i, s:i, s:I, s:I, s:b}", "node", pic->node, "port", pic->port,
                              "priority", (int)prio, "buffer", (int)b, "buffer_bytes", (json_int_t)have,
                              "needs_bytes", (json_int_t)h->size_bytes, "ok", ok);
        if (!c->json) {
                if (ok)
                        printf("port %s of %s: priority %u needs %.1f KB, buffer %u has %.1f KB: ok\n", pic->port,
                               pic->node, prio, h->size_bytes / 1000.0, b, have / 1000.0);
                else
                        printf("port %s of %s: priority %u needs %.1f KB, buffer %u has %.1f KB: short by %.1f KB\n",
                               pic->port, pic->node, prio, h->size_bytes / 1000.0, b, have / 1000.0,
                               (h->size_bytes - have) / 1000.0);
        }
        return ok ? OUTCOME_OK : OUTCOME_ROLLED_BACK;
}

/* Every bar's size (0: the calculator refuses that pair); the largest. */
static double sweep(const struct headroom_input *in, uint32_t size[][ARRAY_SIZE(cables)])
{
        double max = 0;

        for (size_t i = 0; i < ARRAY_SIZE(speeds); i++)
                for (size_t k = 0; k < ARRAY_SIZE(cables); k++) {
                        struct headroom_input x = *in;
                        struct headroom_problem why = { 0 };
                        struct headroom h;

                        x.speed_gbps = speeds[i];
                        x.cable_m = cables[k];
                        size[i][k] = headroom_calc(&x, &h, &why) < 0 ? 0 : h.size_bytes;
                        max = size[i][k] > max ? size[i][k] : max;
                }
        return max;
}

#define PW 860
#define PH 480
#define PL 80
#define PR 150
#define PT 50
#define PB 60

static char *draw(const struct headroom_input *in, const struct picture *pic, double buffer,
                  uint32_t size[][ARRAY_SIZE(cables)], double max)
{
        double ticks[SVG_TICKS_MAX], step, top, gw = (PW - PL - PR) / (double)ARRAY_SIZE(speeds);
        unsigned nt = svg_ticks(0, (buffer > max ? buffer : max) * 1.08, 7, ticks, &step);
        char title[200], desc[600], label[32];
        struct svg s = { 0 };

        if (ticks[nt - 1] < (buffer > max ? buffer : max) && nt < SVG_TICKS_MAX)
                ticks[nt] = ticks[nt - 1] + step, nt++;
        top = ticks[nt - 1];
        snprintf(title, sizeof(title), "PFC headroom on %s at MTU %u: size per speed and cable length",
                 headroom_asic_name(in->asic), in->mtu);
        snprintf(desc, sizeof(desc), "Bars: the lossless buffer size in bytes for speeds 10 to 800 Gb/s (groups) and "
                 "cables of 3, 10, 40, 100 and 300 m (bars in each group); the asked %u Gb/s over %u m is outlined "
                 "in black.%s", in->speed_gbps, in->cable_m, buffer > 0 ? " A line marks the port's buffer." : "");
        if (buffer > 0)
                snprintf(desc + strlen(desc), sizeof(desc) - strlen(desc), " Port %s of %s: %.0f bytes.", pic->port,
                         pic->node, buffer);
        svg_begin(&s, PW, PH, title, desc);
        svg_text(&s, PL, 28, "font-size=\"15\"", "%s", title);
        for (unsigned t = 0; t < nt; t++) {
                double y = PT + (1 - ticks[t] / top) * (PH - PT - PB);

                svg_tick_label(ticks[t], step, label, sizeof(label));
                svg_put(&s, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#E5E5E5\"/>\n", PL, y, PW - PR,
                        y);
                svg_text(&s, PL - 6, y + 4, "class=\"ytick-label\" text-anchor=\"end\"", "%s", label);
        }
        for (size_t i = 0; i < ARRAY_SIZE(speeds); i++) {
                double bw = gw / (ARRAY_SIZE(cables) + 1);

                for (size_t k = 0; k < ARRAY_SIZE(cables); k++) {
                        double h = size[i][k] / top * (PH - PT - PB), x = PL + i * gw + (k + 0.5) * bw;
                        bool asked = speeds[i] == in->speed_gbps && cables[k] == in->cable_m;

                        svg_put(&s, "<rect class=\"bar%s\" id=\"bar-%u-%u\" data-speed-gbps=\"%u\" data-cable-m=\"%u\" "
                                "data-size-bytes=\"%u\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
                                "fill=\"%s\" stroke=\"%s\" stroke-width=\"%s\"/>\n", asked ? " asked" : "",
                                speeds[i], cables[k], speeds[i], cables[k], size[i][k], x, PH - PB - h, bw, h,
                                cable_colour[k], asked ? SVG_BLACK : "none", asked ? "2.5" : "0");
                }
                svg_text(&s, PL + (i + 0.5) * gw, PH - PB + 16, "text-anchor=\"middle\"", "%u", speeds[i]);
        }
        svg_put(&s, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"" SVG_GREY "\"/>\n", PL, PH - PB, PW - PR,
                PH - PB);
        svg_text(&s, (PL + PW - PR) / 2.0, PH - 20, "class=\"axis-title\" font-size=\"13\" text-anchor=\"middle\"",
                 "port speed, Gb/s (one bar per cable length)");
        svg_put(&s, "<text class=\"axis-title\" x=\"18\" y=\"%d\" font-size=\"13\" transform=\"rotate(-90 18 %d)\" "
                "text-anchor=\"middle\">headroom size, bytes</text>\n", (PH - PB + PT) / 2, (PH - PB + PT) / 2);
        for (size_t k = 0; k < ARRAY_SIZE(cables); k++) {
                svg_put(&s, "<rect x=\"%d\" y=\"%zu\" width=\"14\" height=\"14\" fill=\"%s\"/>\n", PW - PR + 16,
                        PT + 20 * k, cable_colour[k]);
                svg_text(&s, PW - PR + 36, PT + 20 * k + 12, "", "cable %u m", cables[k]);
        }
        if (buffer > 0) {
                double y = PT + (1 - buffer / top) * (PH - PT - PB);

                svg_put(&s, "<line class=\"port-buffer\" data-bytes=\"%.0f\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                        "stroke=\"" SVG_RED "\" stroke-width=\"2.5\" stroke-dasharray=\"8 4\"/>\n", buffer, PL, y,
                        PW - PR, y);
                svg_text(&s, PW - PR + 16, y + 4, "class=\"port-buffer-label\" fill=\"#A04000\"", "%s %s buffer",
                         pic->node, pic->port);
                svg_text(&s, PW - PR + 16, y + 18, "fill=\"#A04000\"", "%.0f B", buffer);
        }
        return svg_end(&s);
}

static int picture(struct ctl *c, const struct headroom_input *in, const struct picture *pic)
{
        uint32_t size[ARRAY_SIZE(speeds)][ARRAY_SIZE(cables)];
        double buffer = 0, max;
        _cleanup_free_ char *doc = NULL;
        int r;

        if (pic->node && (r = port_buffer(c, pic, &buffer)) != OUTCOME_OK)
                return r;
        max = sweep(in, size);
        if (!(doc = draw(in, pic, buffer, size, max))) {
                log_err("out of memory");
                return OUTCOME_RUNTIME;
        }
        if ((r = svg_write(pic->svg, doc)) < 0) {
                log_err("--svg '%s': %s", pic->svg, strerror(-r));
                return OUTCOME_RUNTIME;
        }
        if (!c->json) {         /* the picture's text: every bar */
                printf("%-10s %-8s %s\n", "SPEED", "CABLE", "SIZE_BYTES");
                for (size_t i = 0; i < ARRAY_SIZE(speeds); i++)
                        for (size_t k = 0; k < ARRAY_SIZE(cables); k++)
                                printf("%-10u %-8u %u%s\n", speeds[i], cables[k], size[i][k],
                                       buffer > 0 && size[i][k] > buffer ? "  (over the port's buffer)" : "");
                if (buffer > 0)
                        printf("port %s of %s: buffer %.0f bytes\n", pic->port, pic->node, buffer);
                printf("\n");
        }
        return OUTCOME_OK;
}

/*
 * The policy stanza for this port: pfc (the priority, the cable), and with the port's
 * total receive buffer, buffers: the lossless priority alone in buffer 1 of the
 * computed size, every other priority in buffer 0 with the rest.
 */
static int emit_policy(const struct headroom_input *in, const struct headroom *h, const struct emit *em)
{
        json_t *j = json_pack("{s:{s:[i], s:i}}", "pfc", "priorities", (int)em->priority, "cable_length_m",
                              (int)in->cable_m), *p2b = json_array(), *sizes = json_array();

        if (em->total_bytes && em->total_bytes <= h->size_bytes) {
                log_err("--buffer-total-bytes %u: the lossless buffer alone needs %u bytes: nothing left for the "
                        "lossy priorities", em->total_bytes, h->size_bytes);
                json_decref(j);
                json_decref(p2b);
                json_decref(sizes);
                return OUTCOME_INVALID;
        }
        for (unsigned i = 0; i < 8; i++) {
                json_array_append_new(p2b, json_integer(i == em->priority));
                json_array_append_new(sizes, json_integer(i == 0 ? em->total_bytes - h->size_bytes :
                                                          i == 1 ? h->size_bytes : 0));
        }
        if (j && em->total_bytes)
                json_object_set_new(j, "buffers", json_pack("{s:O, s:O}", "prio_to_buffer", p2b,
                                                            "buffer_size_bytes", sizes));
        else if (j)
                log_warn("headroom: no 'buffers' stanza without --buffer-total-bytes (the port's total receive "
                         "buffer): the device sizes its buffers from pfc.cable_length_m");
        json_decref(p2b);
        json_decref(sizes);
        if (!j)
                return log_err("out of memory"), OUTCOME_RUNTIME;
        output_json(j);
        json_decref(j);
        return OUTCOME_OK;
}

int ctl_cmd_headroom(struct ctl *c)
{
        struct headroom_input in;
        struct headroom h;
        struct headroom_problem why = { 0 };
        struct picture pic = { 0 };
        struct emit em = { .priority = 3 };
        json_t *j, *live = NULL;
        int r;

        if (parse_args(c, &in, &pic, &em) < 0)
                return OUTCOME_INVALID;
        if (headroom_calc(&in, &h, &why) < 0) {
                log_err("%s: %s", flag_of(why.input), why.msg);
                return OUTCOME_INVALID;
        }
        if (pic.svg && (r = picture(c, &in, &pic)) != OUTCOME_OK)
                return r;
        if (em.on)
                return emit_policy(&in, &h, &em);
        if (!c->json)
                print_text(&in, &h);
        r = OUTCOME_OK;
        if (pic.node && !pic.svg && (r = compare_live(c, &pic, em.priority, &h, &live)) != OUTCOME_OK &&
            r != OUTCOME_ROLLED_BACK)
                return r;
        if (!c->json) {
                json_decref(live);
                return r;
        }
        j = result_json(&in, &h);
        if (!j) {
                json_decref(live);
                log_err("out of memory");
                return OUTCOME_RUNTIME;
        }
        if (live)
                json_object_set_new(j, "port_buffer", live);
        output_json(j);
        json_decref(j);
        return r;
}
