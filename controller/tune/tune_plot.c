/* SPDX-License-Identifier: MIT */
/*
 * `nettunectl tune --plot FILE.svg`: the share of the ceiling (left axis, the target
 * dashed) and the pause frames per second (right axis, its own readable ticks)
 * against the value tried (log scale, labelled in its unit), one point per
 * measurement: filled when it held, hollow when not, the baseline as a diamond, the
 * chosen one ringed and labelled. Each point's whisker spans its runs (the median is
 * the point); the baseline's runs span the noise band, what a trial has to rise above
 * to count as a difference; for ECN, doctor's floor (ecn_threshold_low's per-speed
 * floor at the ceiling's rate) is a vertical line. Drawn with controller/svg:
 * <title>/<desc> say the same in words; every point carries its figures as data-*
 * attributes (what tests and scripts read).
 */
#include <math.h>
#include <stdio.h>

#include "controller/svg/svg.h"
#include "controller/tune/tune.h"
#include "policies/doctor/doctor.h"

#define W 780
#define H 470
#define L 76            /* plot area: left, right, top, bottom margins */
#define R 86
#define T 44
#define B 66

struct canvas {
        struct svg s;
        double xmin, xmax;      /* log10 of the values */
        double ymax;            /* share */
        double pmax;            /* pauses/s: the right axis' last tick */
        double pticks[SVG_TICKS_MAX], pstep;
        unsigned n_pticks;
};

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

/* The spread of a measurement's runs as shares of the ceiling: false when fewer than two ran. */
static bool spread(const struct tune *t, const struct tune_trial *x, double *lo, double *hi)
{
        double ceiling = x->pair_gbps > 0 && isfinite(x->pair_gbps) ? x->pair_gbps : t->ceiling_gbps;
        unsigned n = 0;

        *lo = INFINITY;
        *hi = -INFINITY;
        for (unsigned i = 0; i < x->m.n_runs && i < TUNE_RUNS_MAX; i++)
                if (isfinite(x->m.run_gbps[i]) && x->m.run_gbps[i] > 0) {
                        *lo = fmin(*lo, x->m.run_gbps[i] / ceiling);
                        *hi = fmax(*hi, x->m.run_gbps[i] / ceiling);
                        n++;
                }
        return n >= 2 && isfinite(ceiling) && ceiling > 0;
}

/* Doctor's ECN floor at the ceiling's rate (bytes), 0 when it does not apply. */
static double doctor_floor(const struct tune *t)
{
        struct doctor_params p;

        if (t->kind != TUNE_ECN || !isfinite(t->ceiling_gbps) || t->ceiling_gbps <= 0)
                return 0;
        doctor_params_default(&p);
        return round(t->ceiling_gbps * p.ecn_min_bytes_per_gbps);
}

static void bounds(struct canvas *c, const struct tune *t)
{
        double lo = INFINITY, hi = -INFINITY, slo, shi, fl = doctor_floor(t), pmax = 0;

        c->ymax = fmax(1.1, t->judge.target + 0.1);
        for (int i = -1; i < (int)t->n_trials; i++) {
                const struct tune_trial *x = i < 0 ? &t->baseline : &t->trials[i];

                if (!plotted(x))
                        continue;
                lo = fmin(lo, log10(x->value));
                hi = fmax(hi, log10(x->value));
                c->ymax = fmax(c->ymax, x->share * 1.05);
                if (spread(t, x, &slo, &shi))
                        c->ymax = fmax(c->ymax, shi * 1.05);
                if (x->m.c.pauses_known)
                        pmax = fmax(pmax, x->m.c.pauses_ps);
        }
        if (fl > 0 && isfinite(lo)) {
                lo = fmin(lo, log10(fl));
                hi = fmax(hi, log10(fl));
        }
        if (!isfinite(lo))
                lo = 3, hi = 6;
        c->xmin = floor(lo - 0.1);
        c->xmax = ceil(hi + 0.1);
        if (c->xmax - c->xmin < 1)
                c->xmax = c->xmin + 1;
        /* the right axis ends on a tick, over at least 0-1 pauses/s */
        c->n_pticks = svg_ticks(0, fmax(pmax * 1.1, 1), 5, c->pticks, &c->pstep);
        c->pmax = c->pticks[c->n_pticks - 1] < pmax * 1.05 ? c->pticks[c->n_pticks - 1] + c->pstep
                                                          : c->pticks[c->n_pticks - 1];
        if (c->pmax > c->pticks[c->n_pticks - 1] && c->n_pticks < SVG_TICKS_MAX)
                c->pticks[c->n_pticks++] = c->pmax;
}
static void x_axis(struct canvas *c, const struct tune *t)
{
        static const double sub[] = { 1, 2, 5 };
        const char *what = t->kind == TUNE_ECN ? "ECN min_threshold_bytes, bytes (log scale; max = ratio x min)" :
                           t->subject;
        bool minor = c->xmax - c->xmin <= 2;
        char label[32];

        for (double d = c->xmin; d <= c->xmax + 1e-9; d += 1)
                for (size_t k = 0; k < (minor ? ARRAY_SIZE(sub) : 1); k++) {
                        double v = sub[k] * pow(10, d), x = px(c, v);

                        if (log10(v) > c->xmax + 1e-9)
                                break;
                        svg_tick_label(v, v, label, sizeof(label));
                        svg_put(&c->s, "<line class=\"xtick\" data-value=\"%.0f\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
                                "y2=\"%d\" stroke=\"#DDDDDD\"/>\n", v, x, T, x, H - B);
                        svg_text(&c->s, x, H - B + 16, "class=\"xtick-label\" text-anchor=\"middle\"", "%s", label);
                }
        svg_text(&c->s, (W + L - R) / 2.0, H - 22, "class=\"axis-title\" font-size=\"13\" text-anchor=\"middle\"",
                 "%s", what);
}

static void y_axes(struct canvas *c)
{
        double ticks[SVG_TICKS_MAX], step;
        unsigned n = svg_ticks(0, c->ymax, 8, ticks, &step);
        char label[32];

        for (unsigned k = 0; k < n; k++) {
                svg_tick_label(ticks[k], step, label, sizeof(label));
                svg_put(&c->s, "<line class=\"ytick\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#EEEEEE\"/>\n",
                        L, py_share(c, ticks[k]), W - R, py_share(c, ticks[k]));
                svg_text(&c->s, L - 6, py_share(c, ticks[k]) + 4, "class=\"ytick-label\" text-anchor=\"end\"", "%s",
                         label);
        }
        for (unsigned k = 0; k < c->n_pticks; k++) {
                svg_tick_label(c->pticks[k], c->pstep, label, sizeof(label));
                svg_text(&c->s, W - R + 6, py_pause(c, c->pticks[k]) + 4, "class=\"ptick-label\" fill=\"" SVG_ORANGE
                         "\" data-pps=\"%g\"", "%s", label);
        }
        svg_put(&c->s, "<text class=\"axis-title\" x=\"18\" y=\"%d\" font-size=\"13\" transform=\"rotate(-90 18 %d)\" "
                "text-anchor=\"middle\">share of the ceiling (1 = the ceiling)</text>\n", (H - B + T) / 2,
                (H - B + T) / 2);
        svg_put(&c->s, "<text class=\"axis-title\" x=\"%d\" y=\"%d\" font-size=\"13\" fill=\"#9A6200\" "
                "transform=\"rotate(90 %d %d)\" text-anchor=\"middle\">pause frames per second (squares)</text>\n",
                W - 22, (H - B + T) / 2, W - 22, (H - B + T) / 2);
}

/* The baseline's runs: the noise band; the target; doctor's floor. */
static void guides(struct canvas *c, const struct tune *t)
{
        double lo, hi, fl = doctor_floor(t);

        if (plotted(&t->baseline) && spread(t, &t->baseline, &lo, &hi))
                svg_put(&c->s, "<rect class=\"noise\" data-share-lo=\"%.4f\" data-share-hi=\"%.4f\" x=\"%d\" "
                        "y=\"%.1f\" width=\"%d\" height=\"%.1f\" fill=\"" SVG_SKY "\" fill-opacity=\"0.25\"/>\n",
                        lo, hi, L, py_share(c, hi), W - L - R, fmax(1, py_share(c, lo) - py_share(c, hi)));
        svg_put(&c->s, "<line class=\"target\" data-share=\"%.3f\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" "
                "stroke=\"" SVG_GREEN "\" stroke-width=\"1.5\" stroke-dasharray=\"6 4\"/>\n", t->judge.target, L,
                py_share(c, t->judge.target), W - R, py_share(c, t->judge.target));
        svg_text(&c->s, L + 4, py_share(c, t->judge.target) - 4, "class=\"target-label\" fill=\"#00674A\"",
                 "target %.2f", t->judge.target);
        if (fl > 0) {
                svg_put(&c->s, "<line class=\"doctor-floor\" data-bytes=\"%.0f\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" "
                        "y2=\"%d\" stroke=\"" SVG_PURPLE "\" stroke-width=\"1.5\" stroke-dasharray=\"2 3\"/>\n", fl,
                        px(c, fl), T, px(c, fl), H - B);
                svg_text(&c->s, px(c, fl) + 4, T + 14, "class=\"doctor-floor-label\" fill=\"#8E4573\"",
                         "doctor's floor %.0f B", fl);
        }
}

static void point(struct canvas *c, const struct tune *t, const struct tune_trial *x, bool baseline)
{
        double cx = px(c, x->value), cy = py_share(c, x->share), lo, hi;

        if (spread(t, x, &lo, &hi))
                svg_put(&c->s, "<line class=\"runs\" data-value=\"%u\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
                        "stroke=\"" SVG_BLUE "\"/>\n", x->value, cx, py_share(c, lo), cx, py_share(c, hi));
        if (baseline)
                svg_put(&c->s, "<path class=\"share baseline%s\" data-trial=\"baseline\" data-value=\"%u\" "
                        "data-share=\"%.4f\" d=\"M %.1f %.1f l 6 6 l -6 6 l -6 -6 z\" fill=\"%s\" stroke=\"" SVG_BLUE
                        "\"/>\n", x->held ? " held" : "", x->value, x->share, cx, cy - 6,
                        x->held ? SVG_BLUE : "#FFFFFF");
        else
                svg_put(&c->s, "<circle class=\"share%s\" data-trial=\"%s\" data-value=\"%u\" data-share=\"%.4f\" "
                        "cx=\"%.1f\" cy=\"%.1f\" r=\"5\" fill=\"%s\" stroke=\"" SVG_BLUE "\" stroke-width=\"1.5\"/>\n",
                        x->held ? " held" : "", x->label, x->value, x->share, cx, cy, x->held ? SVG_BLUE : "#FFFFFF");
        if (x->m.c.pauses_known)
                svg_put(&c->s, "<rect class=\"pause\" data-trial=\"%s\" data-value=\"%u\" data-pause-pps=\"%.1f\" "
                        "x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"" SVG_ORANGE "\"/>\n", x->label,
                        x->value, x->m.c.pauses_ps, cx - 3.5, py_pause(c, x->m.c.pauses_ps) - 3.5);
}

static void chosen(struct canvas *c, const struct tune *t)
{
        const struct tune_trial *x = tune_chosen(t);

        if (!x || !plotted(x))
                return;
        svg_put(&c->s, "<circle class=\"chosen\" data-trial=\"%s\" data-value=\"%u\" data-share=\"%.4f\" cx=\"%.1f\" "
                "cy=\"%.1f\" r=\"11\" fill=\"none\" stroke=\"" SVG_RED "\" stroke-width=\"2\"/>\n", x->label, x->value,
                x->share, px(c, x->value), py_share(c, x->share));
        svg_text(&c->s, px(c, x->value) + 14, py_share(c, x->share) - 12, "class=\"chosen-label\" fill=\"#A04000\"",
                 "chosen %u (%.3f)", x->value, x->share);
}

/* The text equivalent: what the picture shows, in a sentence or two. */
static void describe(const struct tune *t, char *buf, size_t size)
{
        const struct tune_trial *x = tune_chosen(t);
        double lo, hi, fl = doctor_floor(t);
        int n;

        n = snprintf(buf, size, "%u trials of %s against the share of the ceiling (target %.2f) and pause frames per "
                     "second.", t->n_trials, t->kind == TUNE_ECN ? "min_threshold_bytes" : t->subject,
                     t->judge.target);
        if (n >= 0 && (size_t)n < size && x && plotted(x))
                n += snprintf(buf + n, size - (size_t)n, " Chosen: %u at %.3f of the ceiling.", x->value, x->share);
        if (n >= 0 && (size_t)n < size && plotted(&t->baseline) && spread(t, &t->baseline, &lo, &hi))
                n += snprintf(buf + n, size - (size_t)n, " Noise band (the baseline's runs): %.3f-%.3f.", lo, hi);
        if (n >= 0 && (size_t)n < size && fl > 0)
                snprintf(buf + n, size - (size_t)n, " Doctor's ECN floor at %.3g Gb/s: %.0f bytes.", t->ceiling_gbps,
                         fl);
}

char *tune_plot_svg(const struct tune *t)
{
        struct canvas c = { 0 };
        char title[256], desc[600];

        bounds(&c, t);
        if (t->kind == TUNE_ECN)
                snprintf(title, sizeof(title), "tune ecn: %s queue %u, target %.2f of the ceiling, %u trials",
                         t->subject, t->queue, t->judge.target, t->n_trials);
        else
                snprintf(title, sizeof(title), "tune dcqcn: %s, target %.2f of the ceiling, %u trials", t->subject,
                         t->judge.target, t->n_trials);
        describe(t, desc, sizeof(desc));
        svg_begin(&c.s, W, H, title, desc);
        svg_text(&c.s, L, 26, "font-size=\"15\"", "%s", title);
        svg_put(&c.s, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"" SVG_GREY "\"/>\n",
                L, T, W - L - R, H - T - B);
        x_axis(&c, t);
        y_axes(&c);
        guides(&c, t);
        if (plotted(&t->baseline))
                point(&c, t, &t->baseline, true);
        for (unsigned i = 0; i < t->n_trials; i++)
                if (plotted(&t->trials[i]))
                        point(&c, t, &t->trials[i], false);
        chosen(&c, t);
        svg_text(&c.s, L, H - 4, "font-size=\"11\" fill=\"#555555\"", "filled: held the target; hollow: did not; "
                 "diamond: the baseline; ring: chosen; squares: pause frames/s (right axis)");
        return svg_end(&c.s);
}
