/* SPDX-License-Identifier: MIT */
/* Fabric patterns, their figures (nccl-tests' definitions) and the regression gate. */
#include <math.h>
#include <stdarg.h>

#include "controller/fabric/fabric.h"
#include "drivers/probe/probe_flows.h"

static const char *const pattern_names[FABRIC_PATTERN_MAX] = {
        [FABRIC_RING] = "ring",
        [FABRIC_INCAST] = "incast",
        [FABRIC_ALLTOALL] = "alltoall",
};

static const char *const verdict_names[FABRIC_VERDICT_MAX] = {
        [FABRIC_PASS] = "pass",
        [FABRIC_FAIL_REGRESSION] = "regression",
        [FABRIC_FAIL_POST] = "post_probe_failed",
        [FABRIC_FAIL_BASELINE] = "no_baseline",
        [FABRIC_FAIL_MISMATCH] = "probe_mismatch",
};

const char *fabric_pattern_name(enum fabric_pattern p)
{
        return p < FABRIC_PATTERN_MAX ? pattern_names[p] : "unknown";
}

int fabric_pattern_from_string(const char *s, enum fabric_pattern *ret)
{
        for (unsigned p = 0; p < FABRIC_PATTERN_MAX; p++)
                if (streq(s, pattern_names[p])) {
                        *ret = (enum fabric_pattern)p;
                        return 0;
                }
        return -EINVAL;
}

const char *fabric_verdict_name(enum fabric_verdict v)
{
        return v < FABRIC_VERDICT_MAX ? verdict_names[v] : "unknown";
}

void fabric_opts_defaults(struct fabric_opts *o)
{
        *o = (struct fabric_opts) { .pattern = FABRIC_RING, .duration_ms = FABRIC_DURATION_DEFAULT_MS,
                                    .mode = PROBE_MODE_AUTO, .dscp = -1, .priority = -1,
                                    .streams = 1 };
}

static unsigned flow_count(enum fabric_pattern p, unsigned n)
{
        return p == FABRIC_RING ? n : p == FABRIC_INCAST ? n - 1 : n * (n - 1);
}

static void add_flow(struct fabric *f, unsigned src, unsigned dst)
{
        f->flows[f->n_flows++] = (struct fabric_flow) { .src = src, .dst = dst, .gbps = NAN, .dscp = -1 };
        f->nodes[src].n_out++;
        f->nodes[dst].n_in++;
}

int fabric_init(struct fabric *f, const struct fabric_opts *o, unsigned n, struct errbuf *e)
{
        memset(f, 0, sizeof(*f));
        if (n < 2)
                return errbuf_set(e, EINVAL, NULL, "a %s needs at least 2 nodes, %u selected", fabric_pattern_name(o->pattern), n);
        if (n > FABRIC_NODES_MAX)
                return errbuf_set(e, EINVAL, NULL, "%u nodes selected, at most %u take part in one fabric probe", n,
                                  FABRIC_NODES_MAX);
        if (o->pattern == FABRIC_INCAST && o->receiver >= n)
                return errbuf_set(e, EINVAL, NULL, "incast receiver %u out of range 0-%u", o->receiver, n - 1);
        f->o = *o;
        f->nodes = calloc(n, sizeof(*f->nodes));
        f->flows = calloc(flow_count(o->pattern, n), sizeof(*f->flows));
        if (!f->nodes || !f->flows) {
                fabric_free(f);
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        }
        f->n_nodes = n;
        for (unsigned i = 0; i < n; i++)
                f->nodes[i] = (struct fabric_node) { .link_gbps = NAN, .skew_ms = NAN, .skew_err_ms = NAN };
        for (unsigned i = 0; i < n; i++)
                if (o->pattern == FABRIC_RING)
                        add_flow(f, i, (i + 1) % n);
                else if (o->pattern == FABRIC_INCAST && i != o->receiver)
                        add_flow(f, i, o->receiver);
                else if (o->pattern == FABRIC_ALLTOALL)
                        for (unsigned j = 0; j < n; j++)
                                if (j != i)
                                        add_flow(f, i, j);
        return 0;
}

void fabric_free(struct fabric *f)
{
        if (!f)
                return;
        free(f->nodes);
        free(f->flows);
        f->nodes = NULL;
        f->flows = NULL;
        f->n_nodes = f->n_flows = 0;
}

int fabric_set_pairs(struct fabric *f, const unsigned (*pairs)[2], unsigned n, struct errbuf *e)
{
        struct fabric_flow *flows;

        for (unsigned k = 0; k < n; k++)
                if (pairs[k][0] >= f->n_nodes || pairs[k][1] >= f->n_nodes || pairs[k][0] == pairs[k][1])
                        return errbuf_set(e, EINVAL, NULL, "pair %u (%u -> %u) out of range 0-%u or to itself", k,
                                          pairs[k][0], pairs[k][1], f->n_nodes ? f->n_nodes - 1 : 0);
        if (!(flows = calloc(n ? n : 1, sizeof(*flows))))
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        free(f->flows);
        f->flows = flows;
        f->n_flows = 0;
        f->start_at_ms = f->lead_ms = 0;
        for (unsigned i = 0; i < f->n_nodes; i++) {
                struct fabric_node *x = &f->nodes[i];

                x->error[0] = '\0';
                x->n_in = x->n_out = x->rx_ok = 0;
                x->rx_gbps = 0;
        }
        for (unsigned k = 0; k < n; k++)
                add_flow(f, pairs[k][0], pairs[k][1]);
        return 0;
}

/* Append "NAME" or ", NAME" to a list of at most a few names, then "and N more". */
static void list_add(char *buf, size_t size, unsigned *count, const char *name)
{
        size_t len = strlen(buf);

        if (*count < 5)
                snprintf(buf + len, size - len, "%s'%s'", *count ? ", " : "", name);
        (*count)++;
}

static void list_end(char *buf, size_t size, unsigned count)
{
        size_t len = strlen(buf);

        if (count > 5)
                snprintf(buf + len, size - len, " and %u more", count - 5);
}

int fabric_check(const struct fabric *f, struct errbuf *e)
{
        const struct fabric_node *first = NULL;
        char names[256] = "";
        unsigned k = 0;

        for (unsigned i = 0; i < f->n_nodes; i++)
                if (!f->nodes[i].reached) {
                        list_add(names, sizeof(names), &k, f->nodes[i].name);
                        first = first ? first : &f->nodes[i];
                }
        list_end(names, sizeof(names), k);
        if (first)
                return errbuf_set(e, EHOSTUNREACH, NULL, "node%s %s did not answer (%s: %s); no flow was run",
                                  k == 1 ? "" : "s", names, first->name, first->error[0] ? first->error : "unreachable");
        for (unsigned i = 0; i < f->n_nodes; i++) {
                const struct fabric_node *n = &f->nodes[i];

                if (!n->address[0] && n->n_in)
                        return errbuf_set(e, EINVAL, NULL, "node '%s' advertises no probe responder address (its "
                                          "probe.listen is a wildcard or off: set probe.advertise); no flow was run",
                                          n->name);
                if (n->n_in > n->max_clients)
                        return errbuf_set(e, EINVAL, NULL, "node '%s' would receive %u flows at once but its responder "
                                          "takes %u sessions (probe.max_clients); raise it or select fewer nodes; "
                                          "no flow was run", n->name, n->n_in, n->max_clients);
                if (n->n_out > PROBE_FLOWS_MAX)
                        return errbuf_set(e, EINVAL, NULL, "node '%s' would send %u flows at once, at most %d; select "
                                          "fewer nodes; no flow was run", n->name, n->n_out, PROBE_FLOWS_MAX);
        }
        return 0;
}

long long fabric_late_tolerance_ms(unsigned duration_ms)
{
        return duration_ms / 5 > 500 ? duration_ms / 5 : 500;
}

void fabric_fail_node(struct fabric *f, unsigned i, const char *fmt, ...)
{
        struct fabric_node *n = &f->nodes[i];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(n->error, sizeof(n->error), fmt, ap);
        va_end(ap);
        for (unsigned k = 0; k < f->n_flows; k++) {
                struct fabric_flow *fl = &f->flows[k];

                if (fl->src != i || fl->ok || fl->error[0])
                        continue;
                fl->gbps = NAN;
                snprintf(fl->error, sizeof(fl->error), "%s: %.250s", n->name, n->error);
        }
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;

        return (x > y) - (x < y);
}

/* The median of v[0..n) (sorted in place); NAN when n is 0. */
static double median(double *v, unsigned n)
{
        if (!n)
                return NAN;
        qsort(v, n, sizeof(*v), cmp_double);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static void flow_figures(const struct fabric *f, struct fabric_figures *g, double *tmp)
{
        unsigned k = 0;

        for (unsigned i = 0; i < f->n_flows; i++) {
                const struct fabric_flow *fl = &f->flows[i];

                if (!fl->ok) {
                        g->n_failed++;
                        continue;
                }
                g->n_ok++;
                g->sum_gbps += fl->gbps;
                tmp[k++] = fl->gbps;
                if (g->slowest < 0 || fl->gbps < g->slowest_gbps) {
                        g->slowest = (int)i;
                        g->slowest_gbps = fl->gbps;
                }
        }
        g->median_gbps = median(tmp, k);
        g->complete = g->n_failed == 0 && g->n_ok == f->n_flows;
}

static void rx_figures(struct fabric *f, struct fabric_figures *g, double *tmp)
{
        unsigned k = 0;

        for (unsigned i = 0; i < f->n_nodes; i++) {
                f->nodes[i].rx_gbps = 0;
                f->nodes[i].rx_ok = 0;
        }
        for (unsigned i = 0; i < f->n_flows; i++)
                if (f->flows[i].ok) {
                        f->nodes[f->flows[i].dst].rx_gbps += f->flows[i].gbps;
                        f->nodes[f->flows[i].dst].rx_ok++;
                }
        for (unsigned i = 0; i < f->n_nodes; i++) {
                const struct fabric_node *n = &f->nodes[i];

                if (!n->n_in)
                        continue;
                tmp[k++] = n->rx_gbps;
                if (g->rx_min_node < 0 || n->rx_gbps < g->rx_min) {
                        g->rx_min_node = (int)i;
                        g->rx_min = n->rx_gbps;
                }
        }
        g->rx_median = median(tmp, k);
}

void fabric_compute(struct fabric *f, struct fabric_figures *ret)
{
        struct fabric_figures g = {
                .slowest = -1, .slowest_gbps = NAN, .busbw = NAN, .algbw = NAN, .rx_min = NAN, .rx_median = NAN,
                .rx_min_node = -1, .goodput = NAN, .link_gbps = NAN, .link_ratio = NAN, .figure = NAN,
        };
        unsigned cap = f->n_flows > f->n_nodes ? f->n_flows : f->n_nodes;
        double *tmp = calloc(cap + 1, sizeof(*tmp));
        double n = f->n_nodes;

        if (!tmp) {
                *ret = g;
                return;
        }
        flow_figures(f, &g, tmp);
        rx_figures(f, &g, tmp);
        free(tmp);
        if (f->o.pattern == FABRIC_RING) {
                g.figure_name = "busbw";
                g.busbw = g.slowest_gbps;
                g.algbw = g.busbw * n / (2.0 * (n - 1));
                g.figure = g.busbw;
        } else if (f->o.pattern == FABRIC_INCAST) {
                const struct fabric_node *r = &f->nodes[f->o.receiver];

                g.figure_name = "goodput";
                g.goodput = r->rx_gbps;
                g.link_gbps = r->link_gbps;
                g.link_ratio = isfinite(r->link_gbps) && r->link_gbps > 0 ? g.goodput / r->link_gbps : NAN;
                g.figure = g.goodput;
        } else {
                g.figure_name = "min_rx_gbps";
                g.busbw = g.rx_min;
                g.algbw = g.busbw * n / (n - 1);
                g.figure = g.rx_min;
        }
        if (!g.complete)
                g.figure = NAN;         /* a figure over part of the pattern is no figure of the pattern */
        *ret = g;
}

static int decide(struct fabric_gate_report *r, enum fabric_verdict v, const char *fmt, ...) _printf_(3, 4);
static int decide(struct fabric_gate_report *r, enum fabric_verdict v, const char *fmt, ...)
{
        va_list ap;

        r->verdict = v;
        va_start(ap, fmt);
        vsnprintf(r->reason, sizeof(r->reason), fmt, ap);
        va_end(ap);
        return v == FABRIC_PASS ? 0 : -EIO;
}

/* The first flow whose mode differs between the two runs, -2 for another pattern, -1 when they match. */
static int mode_mismatch(const struct fabric *a, const struct fabric *b)
{
        if (a->n_flows != b->n_flows || a->o.pattern != b->o.pattern)
                return -2;
        for (unsigned i = 0; i < a->n_flows; i++)
                if (!streq(a->flows[i].mode, b->flows[i].mode))
                        return (int)i;
        return -1;
}

const char *fabric_first_failure(const struct fabric *f, char *buf, size_t size)
{
        for (unsigned i = 0; i < f->n_flows; i++)
                if (!f->flows[i].ok) {
                        snprintf(buf, size, "%s -> %s: %s", f->nodes[f->flows[i].src].name,
                                 f->nodes[f->flows[i].dst].name, f->flows[i].error[0] ? f->flows[i].error : "failed");
                        return buf;
                }
        return "not measured";
}

static int judge(double pct, const struct fabric *post, const struct fabric_figures *pf, struct fabric_gate_report *r)
{
        const struct fabric_flow *s = pf->slowest >= 0 ? &post->flows[pf->slowest] : NULL;
        char slow[200] = "";

        if (s)
                snprintf(slow, sizeof(slow), "; slowest flow %s -> %s at %.3f Gb/s", post->nodes[s->src].name,
                         post->nodes[s->dst].name, s->gbps);
        r->threshold = r->baseline * (1.0 - pct / 100.0);
        r->change_pct = r->baseline > 0 ? (r->post - r->baseline) / r->baseline * 100.0 : NAN;
        if (r->post < r->threshold)
                return decide(r, FABRIC_FAIL_REGRESSION, "%s %s %.3f Gb/s is %.1f%% below the baseline %.3f Gb/s "
                              "(at most %.1f%% allowed)%s", fabric_pattern_name(post->o.pattern), pf->figure_name,
                              r->post, -r->change_pct, r->baseline, pct, slow);
        return decide(r, FABRIC_PASS, "%s %s %.3f Gb/s is within %.1f%% of the baseline %.3f Gb/s (change %+.1f%%)%s",
                      fabric_pattern_name(post->o.pattern), pf->figure_name, r->post, pct, r->baseline,
                      r->change_pct, slow);
}

int fabric_gate_evaluate(double max_regression_pct, const struct fabric *base, const struct fabric_figures *bf,
                         const struct fabric *post, const struct fabric_figures *pf, struct fabric_gate_report *ret)
{
        struct fabric_gate_report r = { .baseline = bf ? bf->figure : NAN, .post = pf->figure, .threshold = NAN,
                                        .change_pct = NAN };
        char why[480];
        int k, m;

        if (!isfinite(r.post))
                k = decide(&r, FABRIC_FAIL_POST, "post-change fabric probe incomplete (%u of %u flows failed): %s",
                           pf->n_failed, post->n_flows, fabric_first_failure(post, why, sizeof(why)));
        else if (!base || !isfinite(r.baseline))
                k = decide(&r, FABRIC_FAIL_BASELINE, "baseline fabric probe incomplete: %s; nothing to compare with",
                           base ? fabric_first_failure(base, why, sizeof(why)) : "not measured");
        else if ((m = mode_mismatch(base, post)) == -2)
                k = decide(&r, FABRIC_FAIL_MISMATCH, "baseline and post-change probes ran different patterns: their "
                           "rates are not compared");
        else if (m >= 0)
                k = decide(&r, FABRIC_FAIL_MISMATCH, "flow %s -> %s ran %s in the baseline and %s after the change: "
                           "the rates are not compared", post->nodes[post->flows[m].src].name,
                           post->nodes[post->flows[m].dst].name, base->flows[m].mode, post->flows[m].mode);
        else
                k = judge(max_regression_pct, post, pf, &r);
        *ret = r;
        return k;
}
