/* SPDX-License-Identifier: MIT */
/*
 * `nettunectl status [ID] --svg FILE`: a rollout as a picture. At the top its
 * timeline: each wave a bar from its start to the next one's (the last to the
 * rollout's last update), shaded by its state and named ("wave 2: halted"); the
 * halt, the rollbacks and the confirmation as marks on it. Below, wave by wave,
 * every node's gate bandwidth before (the baseline probe) and after (the post
 * probe) on one Gb/s scale, the "after" bar coloured by what became of the node,
 * whose state is also written beside it (the first STATUS_SVG_NODES of a wave
 * drawn, the rest counted). <desc> says it in words; `status` prints the text.
 */
#include <math.h>
#include <stdio.h>

#include "common/log.h"
#include "controller/cmd/ctl_internal.h"
#include "controller/svg/svg.h"

#define STATUS_SVG_NODES 24             /* nodes drawn per wave */
#define W 900
#define PL 170
#define PR 180
#define ROW 16

static const char *node_colour(enum rnode_state s)
{
        switch (s) {
        case RNODE_COMMITTED:
        case RNODE_PENDING:
        case RNODE_RESTORED:
        case RNODE_ALREADY_THERE:
                return SVG_GREEN;
        case RNODE_FAILED:
        case RNODE_UNREACHABLE:
        case RNODE_UNKNOWN:
        case RNODE_REFUSED:
                return SVG_RED;
        case RNODE_ROLLED_BACK:
        case RNODE_REVERTED:
        case RNODE_CANCELLED:
                return SVG_ORANGE;
        default:
                return "#BBBBBB";
        }
}

static const char *wave_colour(enum rwave_state s)
{
        return s == RWAVE_HALTED ? SVG_RED : s == RWAVE_PASSED || s == RWAVE_DONE ? SVG_GREEN : SVG_SKY;
}

struct tl {
        const struct rollout_rec *r;
        long long t0, t1;
        double gmax;
};

static double tx(const struct tl *t, long long at)
{
        return PL + (double)(at - t->t0) / (double)(t->t1 - t->t0) * (W - PL - PR);
}

static long long wave_end(const struct tl *t, unsigned w)
{
        for (unsigned k = w + 1; k < t->r->n_waves; k++)
                if (t->r->waves[k].started_at)
                        return t->r->waves[k].started_at;
        return t->r->updated_at > t->r->waves[w].started_at ? t->r->updated_at : t->r->waves[w].started_at;
}

static void timeline(struct svg *s, const struct tl *t, unsigned n_rolled_back)
{
        const struct rollout_rec *r = t->r;
        unsigned n_later = 0;

        svg_text(s, 10, 78, "font-weight=\"bold\"", "timeline");
        svg_put(s, "<line x1=\"%d\" y1=\"100\" x2=\"%d\" y2=\"100\" stroke=\"" SVG_GREY "\"/>\n", PL, W - PR);
        svg_text(s, PL, 114, "font-size=\"11\"", "0 s");
        svg_text(s, W - PR, 114, "font-size=\"11\" text-anchor=\"end\"", "%lld s", t->t1 - t->t0);
        for (unsigned w = 0; w < r->n_waves; w++)
                n_later += !r->waves[w].started_at;
        if (n_later)
                svg_text(s, 10, 135, "font-size=\"11\"", "not started");
        for (unsigned w = 0, k = 0; w < r->n_waves; w++) {
                const struct rwave *wv = &r->waves[w];
                double slot = fmin(60, (W - PL - PR) / (double)(n_later ? n_later : 1)), x1, x2, y;

                if (wv->started_at) {
                        x1 = tx(t, wv->started_at);
                        x2 = fmax(tx(t, wave_end(t, w)), x1 + 24);
                        if (x2 > W - PR) {      /* a short last wave ends at the axis' end */
                                x1 -= x2 - (W - PR);
                                x2 = W - PR;
                        }
                        y = 64 + (w % 2) * 8;
                } else {        /* below the timeline, in order: no time of its own */
                        x1 = PL + k++ * slot;
                        x2 = x1 + slot - 2;
                        y = 122;
                }
                svg_put(s, "<rect class=\"wave\" id=\"wave-%u\" data-wave=\"%u\" data-state=\"%s\" data-started=\"%lld\" "
                        "x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"22\" fill=\"%s\" fill-opacity=\"0.85\" "
                        "stroke=\"#FFFFFF\"/>\n", w, w, rwave_state_name(wv->state), wv->started_at, x1, y, x2 - x1,
                        wave_colour(wv->state));
                svg_text(s, x1 + 3, y + 15, "font-size=\"11\" fill=\"#000000\"", "%u%s", w,
                         wv->state == RWAVE_HALTED ? " halt" : "");
        }
        if (r->state == ROLLOUT_HALTED)
                svg_put(s, "<line class=\"event halt\" x1=\"%.1f\" y1=\"56\" x2=\"%.1f\" y2=\"104\" stroke=\"" SVG_RED
                        "\" stroke-width=\"3\"/>\n", tx(t, r->updated_at), tx(t, r->updated_at));
        svg_text(s, W - PR + 8, 72, "class=\"event-label\"", "%s%s", rollout_state_name(r->state),
                 r->state == ROLLOUT_COMPLETED ? ": confirmed" : r->state == ROLLOUT_PENDING ?
                 ": waiting for confirm" : "");
        if (n_rolled_back)
                svg_text(s, W - PR + 8, 88, "class=\"event-label rollback\"", "rolled back: %u node%s",
                         n_rolled_back, n_rolled_back == 1 ? "" : "s");
}

static double node_rows(struct svg *s, const struct tl *t, unsigned w, double y)
{
        const struct rollout_rec *r = t->r;
        unsigned shown = 0, more = 0;
        double scale = (W - PL - PR) / t->gmax;

        svg_text(s, 10, y + 12, "font-weight=\"bold\"", "wave %u: %s", w, rwave_state_name(r->waves[w].state));
        svg_put(s, "<g class=\"wave-nodes\" id=\"wave-nodes-%u\" data-wave=\"%u\">\n", w, w);
        y += 18;
        for (unsigned i = 0; i < r->n_nodes; i++) {
                const struct rnode *n = &r->nodes[i];
                double before = isfinite(n->baseline_gbps) ? n->baseline_gbps : 0,
                       after = isfinite(n->post_gbps) ? n->post_gbps : 0;

                if (n->wave != w)
                        continue;
                if (shown == STATUS_SVG_NODES) {
                        more++;
                        continue;
                }
                shown++;
                svg_text(s, PL - 6, y + 11, "text-anchor=\"end\" font-size=\"11\"", "%s", n->name);
                svg_put(s, "<rect class=\"gbps before\" data-node=\"");
                svg_esc(s, n->name);
                svg_put(s, "\" data-gbps=\"%.3f\" x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"6\" fill=\"" SVG_BLUE
                        "\"/>\n", before, PL, y + 1, before * scale);
                svg_put(s, "<rect class=\"gbps after\" data-node=\"");
                svg_esc(s, n->name);
                svg_put(s, "\" data-state=\"%s\" data-gbps=\"%.3f\" x=\"%d\" y=\"%.1f\" width=\"%.1f\" height=\"6\" "
                        "fill=\"%s\"/>\n", rnode_state_name(n->state), after, PL, y + 8, after * scale,
                        node_colour(n->state));
                svg_text(s, W - PR + 8, y + 11, "font-size=\"11\"", "%s %s", rnode_state_name(n->state),
                         isfinite(n->baseline_gbps) || isfinite(n->post_gbps) ? "" : "(not measured)");
                y += ROW;
        }
        if (more)
                svg_text(s, PL, y + 11, "font-size=\"11\"", "and %u more node%s in this wave", more, more == 1 ? "" : "s");
        svg_put(s, "</g>\n");
        return y + (more ? ROW : 0) + 10;
}

static void describe(const struct tl *t, unsigned n_rolled_back, char *buf, size_t size)
{
        const struct rollout_rec *r = t->r;
        size_t n = 0;

        n += (size_t)snprintf(buf, size, "Rollout %lld (%s of '%s'): %s after %lld s, %u waves, %u nodes.", r->id,
                              r->kind, r->policy_name, rollout_state_name(r->state), t->t1 - t->t0, r->n_waves,
                              r->n_nodes);
        for (unsigned w = 0; w < r->n_waves && n < size; w++)
                n += (size_t)snprintf(buf + n, size - n, " Wave %u: %s.", w, rwave_state_name(r->waves[w].state));
        if (n < size && n_rolled_back)
                n += (size_t)snprintf(buf + n, size - n, " %u nodes rolled back.", n_rolled_back);
        if (n < size)
                snprintf(buf + n, size - n, " Bars: each node's gate Gb/s before (blue) and after (by its state).");
}

int ctl_status_svg(const struct rollout_rec *r, const char *path)
{
        struct tl t = { .r = r, .t0 = r->created_at, .t1 = r->updated_at, .gmax = 0 };
        double ticks[SVG_TICKS_MAX], step, height = 170, y;
        unsigned n_rb = 0, nt;
        char title[200], desc[2048], label[32];
        _cleanup_free_ char *doc = NULL;
        struct svg s = { 0 };
        int rc;

        for (unsigned w = 0; w < r->n_waves; w++)
                if (r->waves[w].started_at && r->waves[w].started_at < t.t0)
                        t.t0 = r->waves[w].started_at;
        if (t.t1 <= t.t0)
                t.t1 = t.t0 + 1;
        for (unsigned i = 0; i < r->n_nodes; i++) {
                const struct rnode *n = &r->nodes[i];

                t.gmax = fmax(t.gmax, isfinite(n->baseline_gbps) ? n->baseline_gbps : 0);
                t.gmax = fmax(t.gmax, isfinite(n->post_gbps) ? n->post_gbps : 0);
                n_rb += n->state == RNODE_ROLLED_BACK;
        }
        nt = svg_ticks(0, t.gmax > 0 ? t.gmax : 1, 6, ticks, &step);
        if (ticks[nt - 1] < t.gmax && nt < SVG_TICKS_MAX)       /* the scale ends on a tick past every bar */
                ticks[nt] = ticks[nt - 1] + step, nt++;
        t.gmax = ticks[nt - 1];
        for (unsigned w = 0; w < r->n_waves; w++) {
                unsigned k = 0;

                for (unsigned i = 0; i < r->n_nodes; i++)
                        k += r->nodes[i].wave == w;
                height += 28 + (k > STATUS_SVG_NODES ? STATUS_SVG_NODES + 1 : k) * ROW;
        }
        height += 40;
        snprintf(title, sizeof(title), "nettunectl status %lld: %s of '%s', %s", r->id, r->kind, r->policy_name,
                 rollout_state_name(r->state));
        describe(&t, n_rb, desc, sizeof(desc));
        svg_begin(&s, W, (int)height, title, desc);
        svg_text(&s, 10, 28, "font-size=\"16\"", "%s", title);
        svg_text(&s, 10, 44, "font-size=\"11\" fill=\"#555555\"", "waves: bluish green passed, vermillion halted, "
                 "sky blue not yet decided or not started");
        svg_text(&s, 10, 57, "font-size=\"11\" fill=\"#555555\"", "bars per node: blue the gate before, below it "
                 "the gate after, coloured by the node's state (green kept, orange put back, vermillion failed)");
        timeline(&s, &t, n_rb);
        y = 160;
        svg_text(&s, PL, y, "font-size=\"11\"", "gate bandwidth, Gb/s:");
        for (unsigned k = 0; k < nt; k++) {
                double x = PL + ticks[k] / t.gmax * (W - PL - PR);

                svg_tick_label(ticks[k], step, label, sizeof(label));
                svg_text(&s, x, y + 14, "class=\"xtick-label\" font-size=\"11\" text-anchor=\"middle\"", "%s", label);
                svg_put(&s, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#EEEEEE\"/>\n", x, y + 18, x,
                        height - 20);
        }
        y += 22;
        for (unsigned w = 0; w < r->n_waves; w++)
                y = node_rows(&s, &t, w, y);
        doc = svg_end(&s);
        if (!doc)
                return -ENOMEM;
        rc = svg_write(path, doc);
        if (rc < 0)
                log_err("status: cannot write the picture to '%s': %s", path, strerror(-rc));
        return rc;
}
