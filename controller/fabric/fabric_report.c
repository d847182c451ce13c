/* SPDX-License-Identifier: MIT */
/* The fabric probe's report: JSON for scripts, text for people. */
#include <math.h>

#include "controller/fabric/fabric.h"

static json_t *num(double v)
{
        return isfinite(v) ? json_real(v) : json_null();
}

static json_t *flow_ref(const struct fabric *f, int i)
{
        const struct fabric_flow *fl;

        if (i < 0 || (unsigned)i >= f->n_flows)
                return json_null();
        fl = &f->flows[i];
        return json_pack("{s:s, s:s, s:o}", "from", f->nodes[fl->src].name, "to", f->nodes[fl->dst].name,
                         "gbps", num(fl->gbps));
}

static json_t *figures_json(const struct fabric *f, const struct fabric_figures *g)
{
        json_t *o = json_pack("{s:s, s:o, s:b, s:i, s:i, s:o, s:o, s:o}", "name", g->figure_name ? g->figure_name : "",
                              "value", num(g->figure), "complete", g->complete, "flows_ok", (int)g->n_ok,
                              "flows_failed", (int)g->n_failed, "slowest", flow_ref(f, g->slowest),
                              "median_flow_gbps", num(g->median_gbps), "sum_gbps", num(g->sum_gbps));

        if (!o)
                return NULL;
        if (f->o.pattern != FABRIC_INCAST) {
                json_object_set_new(o, "busbw_gbps", num(g->busbw));
                json_object_set_new(o, "algbw_gbps", num(g->algbw));
        }
        if (f->o.pattern == FABRIC_ALLTOALL) {
                json_object_set_new(o, "rx_min_gbps", num(g->rx_min));
                json_object_set_new(o, "rx_min_node", g->rx_min_node >= 0 ?
                                    json_string(f->nodes[g->rx_min_node].name) : json_null());
                json_object_set_new(o, "rx_median_gbps", num(g->rx_median));
        }
        if (f->o.pattern == FABRIC_INCAST) {
                json_object_set_new(o, "goodput_gbps", num(g->goodput));
                json_object_set_new(o, "link_gbps", num(g->link_gbps));
                json_object_set_new(o, "link_ratio", num(g->link_ratio));
        }
        return o;
}

static json_t *node_json(const struct fabric_node *n)
{
        return json_pack("{s:s, s:o, s:o, s:o, s:o, s:o, s:i, s:i, s:o, s:o}", "name", n->name,
                         "address", n->address[0] ? json_string(n->address) : json_null(),
                         "interface", n->interface[0] ? json_string(n->interface) : json_null(),
                         "link_gbps", num(n->link_gbps), "skew_ms", num(n->skew_ms), "skew_err_ms", num(n->skew_err_ms),
                         "flows_in", (int)n->n_in, "flows_out", (int)n->n_out,
                         "rx_gbps", n->n_in ? num(n->rx_gbps) : json_null(),
                         "error", n->error[0] ? json_string(n->error) : json_null());
}

static json_t *flow_json(const struct fabric *f, const struct fabric_flow *fl)
{
        return json_pack("{s:s, s:s, s:b, s:o, s:o, s:o, s:o, s:o, s:o}", "from", f->nodes[fl->src].name,
                         "to", f->nodes[fl->dst].name, "ok", fl->ok, "gbps", num(fl->gbps),
                         "mode", fl->mode[0] ? json_string(fl->mode) : json_null(),
                         "late_ms", fl->ok || fl->mode[0] ? json_integer(fl->late_ms) : json_null(),
                         "dscp", fl->dscp >= 0 ? json_integer(fl->dscp) : json_null(),
                         "rtt_ms", probe_json_rtt(fl->rtt_ms),
                         "error", fl->error[0] ? json_string(fl->error) : json_null());
}

json_t *fabric_to_json(const struct fabric *f, const struct fabric_figures *g)
{
        json_t *nodes = json_array(), *flows = json_array(), *o;

        for (unsigned i = 0; nodes && i < f->n_nodes; i++)
                json_array_append_new(nodes, node_json(&f->nodes[i]));
        for (unsigned i = 0; flows && i < f->n_flows; i++)
                json_array_append_new(flows, flow_json(f, &f->flows[i]));
        o = json_pack("{s:s, s:i, s:i, s:s, s:o, s:i, s:I, s:I, s:b, s:o, s:o, s:o}",
                      "pattern", fabric_pattern_name(f->o.pattern), "n_nodes", (int)f->n_nodes,
                      "duration_ms", (int)f->o.duration_ms, "mode", probe_mode_name(f->o.mode),
                      "dscp", f->o.dscp >= 0 ? json_integer(f->o.dscp) : json_null(), "streams", (int)f->o.streams,
                      "start_at_ms", (json_int_t)f->start_at_ms, "lead_ms", (json_int_t)f->lead_ms,
                      "ok", g->complete, "figures", figures_json(f, g), "nodes", nodes ? nodes : json_null(),
                      "flows", flows ? flows : json_null());
        if (o && f->o.pattern == FABRIC_INCAST)
                json_object_set_new(o, "receiver", json_string(f->nodes[f->o.receiver].name));
        if (o)
                json_object_set_new(o, "priority", f->o.priority >= 0 ? json_integer(f->o.priority) : json_null());
        return o;
}

json_t *fabric_gate_to_json(double max_regression_pct, const struct fabric_gate_report *r)
{
        return json_pack("{s:s, s:s, s:o, s:o, s:o, s:o, s:f}", "verdict", fabric_verdict_name(r->verdict),
                         "reason", r->reason, "baseline", num(r->baseline), "post", num(r->post),
                         "threshold", num(r->threshold), "change_pct", num(r->change_pct),
                         "max_regression_pct", max_regression_pct);
}

/* ---- text ---- */

static double max_skew(const struct fabric *f, double *ret_err)
{
        double m = 0, err = 0;

        for (unsigned i = 0; i < f->n_nodes; i++)
                if (isfinite(f->nodes[i].skew_ms) && fabs(f->nodes[i].skew_ms) >= fabs(m)) {
                        m = f->nodes[i].skew_ms;
                        err = f->nodes[i].skew_err_ms;
                }
        *ret_err = err;
        return m;
}

static void print_flows(FILE *out, const struct fabric *f, const struct fabric_figures *g)
{
        fprintf(out, "  %-40s %10s  %s\n", f->o.pattern == FABRIC_RING ? "hop" : "flow", "Gb/s", "mode");
        for (unsigned i = 0; i < f->n_flows; i++) {
                const struct fabric_flow *fl = &f->flows[i];
                char pair[160];

                snprintf(pair, sizeof(pair), "%s -> %s", f->nodes[fl->src].name, f->nodes[fl->dst].name);
                if (fl->ok)
                        fprintf(out, "  %-40s %10.3f  %-5s%s\n", pair, fl->gbps, fl->mode,
                                (int)i == g->slowest ? "  <- slowest" : "");
                else
                        fprintf(out, "  %-40s %10s  FAILED: %s\n", pair, "-", fl->error);
        }
}

static void print_figures(FILE *out, const struct fabric *f, const struct fabric_figures *g)
{
        const struct fabric_flow *s = g->slowest >= 0 ? &f->flows[g->slowest] : NULL;
        unsigned n = f->n_nodes;

        if (s)
                fprintf(out, "slowest %s: %s -> %s at %.3f Gb/s (median %.3f Gb/s)\n",
                        f->o.pattern == FABRIC_RING ? "hop" : "flow", f->nodes[s->src].name, f->nodes[s->dst].name,
                        s->gbps, g->median_gbps);
        if (f->o.pattern == FABRIC_RING)
                fprintf(out, "ring all-reduce over %u nodes: busbw %.3f Gb/s (the slowest hop), algbw %.3f Gb/s "
                        "(busbw x n / 2(n-1))\n", n, g->busbw, g->algbw);
        else if (f->o.pattern == FABRIC_INCAST && isfinite(g->link_ratio))
                fprintf(out, "incast to %s from %u nodes: goodput %.3f Gb/s = %.2f of its %.0f Gb/s link\n",
                        f->nodes[f->o.receiver].name, n - 1, g->goodput, g->link_ratio, g->link_gbps);
        else if (f->o.pattern == FABRIC_INCAST)
                fprintf(out, "incast to %s from %u nodes: goodput %.3f Gb/s (its link rate is unknown)\n",
                        f->nodes[f->o.receiver].name, n - 1, g->goodput);
        else
                fprintf(out, "all-to-all over %u nodes: per-node receive min %.3f Gb/s (%s), median %.3f Gb/s; "
                        "busbw %.3f Gb/s, algbw %.3f Gb/s\n", n, g->rx_min,
                        g->rx_min_node >= 0 ? f->nodes[g->rx_min_node].name : "-", g->rx_median, g->busbw, g->algbw);
}

void fabric_print_text(FILE *out, const struct fabric *f, const struct fabric_figures *g)
{
        double err, skew = max_skew(f, &err);

        fprintf(out, "fabric probe: %s over %u nodes, %s, %u ms, ", fabric_pattern_name(f->o.pattern), f->n_nodes,
                probe_mode_name(f->o.mode), f->o.duration_ms);
        if (f->o.dscp >= 0)
                fprintf(out, "DSCP %d, ", f->o.dscp);
        fprintf(out, "largest clock skew %+.0f ms (+-%.0f)\n", skew, err);
        print_flows(out, f, g);
        for (unsigned i = 0; i < f->n_nodes; i++)
                if (f->nodes[i].error[0])
                        fprintf(out, "node %s FAILED: %s\n", f->nodes[i].name, f->nodes[i].error);
        print_figures(out, f, g);
        if (!g->complete)
                fprintf(out, "INCOMPLETE: %u of %u flows failed; the collective figure is not given\n", g->n_failed,
                        f->n_flows);
}
