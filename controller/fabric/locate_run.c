/* SPDX-License-Identifier: MIT */
/*
 * nettunectl locate's rounds over the fabric probe (fabric_run.c): the nodes'
 * responders and clocks once, then each round's pairs at one agreed start, their
 * rates and round trips into the judgement (locate.c); its report as text and JSON.
 */
#include <math.h>
#include <time.h>

#include "common/clock.h"
#include "controller/fabric/fabric.h"

static int one_round(const struct fabric_env *env, struct fabric *f, struct locate *l, struct errbuf *e)
{
        unsigned (*pairs)[2] = locate_round_pairs(l);
        int r;

        if (!pairs)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        r = fabric_set_pairs(f, (const unsigned (*)[2])pairs, l->n_pairs, e);
        free(pairs);
        if (r >= 0)
                r = fabric_flows(env, f, e);
        if (r < 0)
                return r;
        for (unsigned k = 0; k < f->n_flows; k++) {
                const struct fabric_flow *fl = &f->flows[k];
                char why[FABRIC_ERR_MAX + 64];

                snprintf(why, sizeof(why), "%s", fl->error[0] ? fl->error : f->nodes[fl->src].error);
                locate_take(l, k, fl->ok ? fl->gbps : NAN, fl->rtt_ms, why);
        }
        locate_round_end(l);
        return 0;
}

int locate_run(const struct fabric_env *env, struct locate *l, const char *const *urls, struct errbuf *e)
{
        struct fabric_opts o;
        struct fabric f;
        double t0 = clock_mono_s();
        int r;

        fabric_opts_defaults(&o);
        o.duration_ms = l->o.duration_ms;
        o.mode = l->o.mode;
        o.dscp = l->o.dscp;
        o.priority = l->o.priority;
        if ((r = fabric_init(&f, &o, l->n_nodes, e)) < 0)
                return r;
        for (unsigned i = 0; i < l->n_nodes; i++) {
                snprintf(f.nodes[i].name, sizeof(f.nodes[i].name), "%s", l->names[i]);
                snprintf(f.nodes[i].url, sizeof(f.nodes[i].url), "%s", urls[i]);
        }
        r = fabric_prepare(env, &f, e);
        while (r >= 0) {
                r = one_round(env, &f, l, e);
                if (r < 0 || !locate_needs_round(l))
                        break;
        }
        if (r >= 0)
                locate_judge(l);
        l->elapsed_s = clock_mono_s() - t0;
        fabric_free(&f);
        return r;
}

/* ---- the report ---- */

static json_t *num(double v)
{
        return isfinite(v) ? json_real(round(v * 1000) / 1000) : json_null();
}

static json_t *pair_json(const struct locate *l, unsigned k)
{
        const struct locate_pair *p = &l->pairs[k];
        json_t *g = json_array(), *rtt = json_array();

        for (unsigned r = 0; r < l->rounds; r++) {
                json_array_append_new(g, num(p->gbps[r]));
                json_array_append_new(rtt, p->rtt_ms[r] > 0 ? num(p->rtt_ms[r]) : json_null());
        }
        return json_pack("{s:s, s:s, s:s, s:o, s:o, s:b, s:o}", "from", l->names[p->src], "to", l->names[p->dst],
                         "kind", p->cross ? "across" : "inside", "gbps", g, "rtt_ms", rtt, "slow", p->slow,
                         "error", p->runs < l->rounds && p->error[0] ? json_string(p->error) : json_null());
}

/* What a suspect is, in words: "node013", "rack r1's uplink", "node003 -> node009". */
static void suspect_name(const struct locate *l, const struct locate_suspect *s, char *buf, size_t size)
{
        if (s->kind == LOCATE_UPLINK)
                snprintf(buf, size, "%s", l->groups[s->group]);
        else if (s->kind == LOCATE_PATH)
                snprintf(buf, size, "%s -> %s", l->names[s->node], l->names[s->peer]);
        else
                snprintf(buf, size, "%s", l->names[s->node]);
}

static const char *suspect_what(const struct locate_suspect *s)
{
        switch (s->kind) {
        case LOCATE_UPLINK:
                return "the rack's uplink (its leaf's ports toward the spine, their cables or optics)";
        case LOCATE_NODE:
                return "the node's link: its NIC, cable or leaf port";
        default:
                return "the path between these two nodes alone";
        }
}

static double below_pct(const struct locate_suspect *s)
{
        return s->peers_gbps > 0 && isfinite(s->gbps) ? 100 * (1 - s->gbps / s->peers_gbps) : NAN;
}

json_t *locate_to_json(const struct locate *l)
{
        json_t *sus = json_array(), *pairs = json_array();
        char name[160];

        for (unsigned s = 0; s < l->n_suspects; s++) {
                const struct locate_suspect *x = &l->suspects[s];
                json_t *ev = json_array();

                for (unsigned i = 0; i < x->n_ev; i++)
                        json_array_append_new(ev, pair_json(l, x->ev[i]));
                suspect_name(l, x, name, sizeof(name));
                json_array_append_new(sus, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:i, s:o, s:o, s:o, s:o}",
                        "kind", locate_kind_name(x->kind), "name", name, "rack", l->groups[x->group],
                        "side", locate_side_name(x->side), "what", suspect_what(x),
                        "confidence", x->high ? "high" : "medium", "slow_pairs", (int)x->slow, "pairs", (int)x->of,
                        "gbps", num(x->gbps), "peers_median_gbps", num(x->peers_gbps), "below_pct", num(below_pct(x)),
                        "evidence", ev));
        }
        for (unsigned k = 0; k < l->n_pairs; k++)
                json_array_append_new(pairs, pair_json(l, k));
        return json_pack("{s:s, s:i, s:i, s:i, s:i, s:i, s:i, s:i, s:o, s:o, s:o, s:o, s:o, s:o}", "by", l->o.by,
                         "nodes", (int)l->n_nodes, "racks", (int)l->n_groups, "planes", (int)l->n_planes,
                         "rounds", (int)l->rounds, "pairs_probed", (int)(l->n_pairs * l->rounds),
                         "pairs_failed", (int)l->n_failed, "slow_pairs", (int)l->n_slow,
                         "bytes_sent", json_integer((json_int_t)l->bytes), "elapsed_s", num(l->elapsed_s),
                         "slow_pct", num(l->o.slow_pct), "suspects", sus, "pairs", pairs,
                         "clean", json_boolean(l->n_suspects == 0));
}

static void print_pair(FILE *out, const struct locate *l, unsigned k, double peers)
{
        const struct locate_pair *p = &l->pairs[k];
        char pair[160];

        snprintf(pair, sizeof(pair), "%s -> %s", l->names[p->src], l->names[p->dst]);
        fprintf(out, "    %-36s %-7s", pair, p->cross ? "across" : "inside");
        for (unsigned r = 0; r < l->rounds; r++)
                if (isfinite(p->gbps[r]))
                        fprintf(out, " %8.3f", p->gbps[r]);
                else
                        fprintf(out, " %8s", "-");
        if (isfinite(peers))
                fprintf(out, " Gb/s (peers' median %.3f)", peers);
        fputc('\n', out);
}

void locate_print_text(FILE *out, const struct locate *l)
{
        char name[160];

        fprintf(out, "locate: %u nodes in %u rack%s by '%s'%s: %u round%s, %u pairs probed, %.1f MB sent, %.1f s\n",
                l->n_nodes, l->n_groups, l->n_groups == 1 ? "" : "s", l->o.by, l->n_planes > 1 ? " (planes apart)" : "",
                l->rounds, l->rounds == 1 ? "" : "s", l->n_pairs * l->rounds, l->bytes / 1e6, l->elapsed_s);
        if (l->n_failed)
                fprintf(out, "note: %u pair%s could not be measured (left out of the judgement)\n", l->n_failed,
                        l->n_failed == 1 ? "" : "s");
        if (!l->n_suspects) {
                fprintf(out, "no suspect: no pair was %.0f%% below its peers' median in every round\n", l->o.slow_pct);
                return;
        }
        for (unsigned s = 0; s < l->n_suspects; s++) {
                const struct locate_suspect *x = &l->suspects[s];

                suspect_name(l, x, name, sizeof(name));
                fprintf(out, "SUSPECT %s %s (rack %s), %s: %s; confidence %s\n", locate_kind_name(x->kind), name,
                        l->groups[x->group], x->side == LOCATE_RX ? "receive side" : x->side == LOCATE_TX ?
                        "send side" : "both directions", suspect_what(x), x->high ? "high" : "medium");
                fprintf(out, "  %u of its %u pair%s slow in every round: median %.3f Gb/s against its peers' %.3f "
                        "(%.0f%% below)\n", x->slow, x->of, x->of == 1 ? "" : "s", x->gbps, x->peers_gbps,
                        below_pct(x));
                for (unsigned i = 0; i < x->n_ev; i++)
                        print_pair(out, l, x->ev[i], l->median_gbps[l->rounds - 1][l->pairs[x->ev[i]].cross]);
        }
}
