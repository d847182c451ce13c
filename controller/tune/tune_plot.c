/* SPDX-License-Identifier: MIT */
/*
 * `nettunectl tune --plot FILE.svg`: the share of the ceiling (left axis, the target
 * dashed) and the pause frames per second (right axis) against the value tried (log
 * scale), one point per measurement: filled when it held, hollow when not, the
 * baseline as a diamond, the chosen one ringed and labelled. Plain SVG 1.1, no
 * script; every point carries its figures as data-* attributes (what tests and
 * scripts read).
 */
#include <math.h>
#include <stdarg.h>

#include "controller/tune/tune.h"

#define W 760
#define H 440
#define L 70            /* plot area: left, right, top, bottom margins */
#define R 80
#define T 40
#define B 60

struct canvas {
        char *buf;
        size_t len, cap;
        bool oom;
        double xmin, xmax;      /* log10 of the values */
        double ymax;            /* share */
        double pmax;            /* pauses/s */
};

static void put(struct canvas *c, const char *fmt, ...) _printf_(2, 3);
static void put(struct canvas *c, const char *fmt, ...)
{
        va_list ap;
        int n;

        for (int tries = 0; tries < 2 && !c->oom; tries++) {
                va_start(ap, fmt);
                n = vsnprintf(c->buf + c->len, c->cap - c->len, fmt, ap);
                va_end(ap);
                if (n >= 0 && (size_t)n < c->cap - c->len) {
                        c->len += (size_t)n;
                        return;
                }
                char *b = n < 0 ? NULL : realloc(c->buf, c->cap + (size_t)n + 4096);

                if (!b) {
                        c->oom = true;
                        return;
                }
                c->buf = b;
                c->cap += (size_t)n + 4096;
        }
}

static double px(const struct canvas *c, double v)
{
        double lv = log10(v > 0 ? v : 1);

        return L + (lv - c->xmin) / (c->xmax - c->xmin) * (W - L - R);
}

static double py_share(const struct canvas *c, double s)
{
        return T + (1 - s / c->ymax) * (H - T - B);
}

static double py_pause(const struct canvas *c, double p)
{
        return T + (1 - p / c->pmax) * (H - T - B);
}

/* A point for every measurement with a value: the trials, and the baseline when its value is known. */
static bool plotted(const struct tune_trial *x)
{
        return x->m.ok && x->value > 0 && isfinite(x->share) && !x->marking_off;
}

static void bounds(struct canvas *c, const struct tune *t)
{
        double lo = INFINITY, hi = -INFINITY;

        c->ymax = fmax(1.1, t->judge.target + 0.1);
        c->pmax = 0;
        for (int i = -1; i < (int)t->n_trials; i++) {
                const struct tune_trial *x = i < 0 ? &t->baseline : &t->trials[i];

                if (!plotted(x))
                        continue;
                lo = fmin(lo, log10(x->value));
                hi = fmax(hi, log10(x->value));
                c->ymax = fmax(c->ymax, x->share * 1.05);
                if (x->m.c.pauses_known)
                        c->pmax = fmax(c->pmax, x->m.c.pauses_ps);
        }
        if (!isfinite(lo))
                lo = 3, hi = 6;
        c->xmin = floor(lo - 0.1);
        c->xmax = ceil(hi + 0.1);
        if (c->xmax - c->xmin < 1)
                c->xmax = c->xmin + 1;
        c->pmax = c->pmax > 0 ? c->pmax * 1.1 : 1;
}

static void axes(struct canvas *c, const struct tune *t)
{
        const char *what = t->kind == TUNE_ECN ? "min_threshold_bytes (max = ratio x min)" : t->subject;

        put(c, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"#444\"/>\n", L, T,
            W - L - R, H - T - B);
        for (double d = c->xmin; d <= c->xmax + 1e-9; d += 1)
                put(c, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/>"
                    "<text x=\"%.1f\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">%.0f</text>\n",
                    px(c, pow(10, d)), T, px(c, pow(10, d)), H - B, px(c, pow(10, d)), H - B + 16, pow(10, d));
        for (double s = 0; s <= c->ymax + 1e-9; s += 0.2)
                put(c, "<text x=\"%d\" y=\"%.1f\" font-size=\"12\" text-anchor=\"end\">%.1f</text>\n", L - 6,
                    py_share(c, s) + 4, s);
        for (int k = 0; k <= 4; k++)
                put(c, "<text x=\"%d\" y=\"%.1f\" font-size=\"12\" fill=\"#b35900\">%.0f</text>\n", W - R + 6,
                    py_pause(c, c->pmax * k / 4) + 4, c->pmax * k / 4);
        put(c, "<text x=\"%d\" y=\"%d\" font-size=\"13\" text-anchor=\"middle\">%s</text>\n", (W + L - R) / 2, H - 18,
            what);
        put(c, "<text x=\"16\" y=\"%d\" font-size=\"13\" transform=\"rotate(-90 16 %d)\" text-anchor=\"middle\">"
            "share of the ceiling</text>\n", (H - B + T) / 2, (H - B + T) / 2);
        put(c, "<text x=\"%d\" y=\"%d\" font-size=\"13\" fill=\"#b35900\" transform=\"rotate(90 %d %d)\" "
            "text-anchor=\"middle\">pause frames/s</text>\n", W - 20, (H - B + T) / 2, W - 20, (H - B + T) / 2);
        put(c, "<line class=\"target\" data-share=\"%.3f\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
            "stroke=\"#2a7\" stroke-dasharray=\"6 4\"/>\n", t->judge.target, L, py_share(c, t->judge.target), W - R,
            py_share(c, t->judge.target));
}

static void point(struct canvas *c, const struct tune_trial *x, bool baseline)
{
        double cx = px(c, x->value), cy = py_share(c, x->share);

        if (baseline)
                put(c, "<path class=\"share baseline%s\" data-trial=\"baseline\" data-value=\"%u\" data-share=\"%.4f\" "
                    "d=\"M %.1f %.1f l 6 6 l -6 6 l -6 -6 z\" fill=\"%s\" stroke=\"#236\"/>\n",
                    x->held ? " held" : "", x->value, x->share, cx, cy - 6, x->held ? "#236" : "white");
        else
                put(c, "<circle class=\"share%s\" data-trial=\"%s\" data-value=\"%u\" data-share=\"%.4f\" "
                    "cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" stroke=\"#236\"/>\n", x->held ? " held" : "",
                    x->label, x->value, x->share, cx, cy, x->held ? "#236" : "white");
        if (x->m.c.pauses_known)
                put(c, "<rect class=\"pause\" data-trial=\"%s\" data-value=\"%u\" data-pause-pps=\"%.1f\" x=\"%.1f\" "
                    "y=\"%.1f\" width=\"7\" height=\"7\" fill=\"#b35900\"/>\n", x->label, x->value, x->m.c.pauses_ps,
                    cx - 3.5, py_pause(c, x->m.c.pauses_ps) - 3.5);
}

static void chosen(struct canvas *c, const struct tune *t)
{
        const struct tune_trial *x = tune_chosen(t);

        if (!x || !plotted(x))
                return;
        put(c, "<circle class=\"chosen\" data-trial=\"%s\" data-value=\"%u\" data-share=\"%.4f\" cx=\"%.1f\" "
            "cy=\"%.1f\" r=\"11\" fill=\"none\" stroke=\"#c22\" stroke-width=\"2\"/>\n", x->label, x->value, x->share,
            px(c, x->value), py_share(c, x->share));
        put(c, "<text class=\"chosen-label\" x=\"%.1f\" y=\"%.1f\" font-size=\"12\" fill=\"#c22\">chosen %u "
            "(%.3f)</text>\n", px(c, x->value) + 14, py_share(c, x->share) - 12, x->value, x->share);
}

char *tune_plot_svg(const struct tune *t)
{
        struct canvas c = { 0 };

        bounds(&c, t);
        put(&c, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
            "height=\"%d\" viewBox=\"0 0 %d %d\" font-family=\"sans-serif\">\n<rect width=\"100%%\" height=\"100%%\" "
            "fill=\"white\"/>\n", W, H, W, H);
        if (t->kind == TUNE_ECN)
                put(&c, "<text x=\"%d\" y=\"24\" font-size=\"15\">tune ecn: %s queue %u, target %.2f of the "
                    "ceiling, %u trials</text>\n", L, t->subject, t->queue, t->judge.target, t->n_trials);
        else
                put(&c, "<text x=\"%d\" y=\"24\" font-size=\"15\">tune dcqcn: %s, target %.2f of the ceiling, "
                    "%u trials</text>\n", L, t->subject, t->judge.target, t->n_trials);
        axes(&c, t);
        if (plotted(&t->baseline))
                point(&c, &t->baseline, true);
        for (unsigned i = 0; i < t->n_trials; i++)
                if (plotted(&t->trials[i]))
                        point(&c, &t->trials[i], false);
        chosen(&c, t);
        put(&c, "</svg>\n");
        if (c.oom) {
                free(c.buf);
                return NULL;
        }
        return c.buf;
}
