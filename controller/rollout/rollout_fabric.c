/* SPDX-License-Identifier: MIT */
/* The fabric gate of a rollout: a pattern over each wave and its neighbours, before and after it applied. */
#include <math.h>
#include <stdarg.h>

#include "common/progress.h"
#include "controller/fabric/fabric.h"
#include "controller/rollout/rollout.h"
#include "policies/policy/policy.h"

struct wave_gate {
        bool measured;                  /* a complete baseline is held in base */
        struct fabric base;
        struct fabric_figures bf;
};

struct rollout_fabric {
        struct fabric_opts o;
        double max_regression_pct;
        unsigned neighbours;
        unsigned n_waves;
        struct wave_gate *w;            /* one per wave */
        unsigned *scope;                /* scratch: node indexes, n_nodes of them */
        json_t *log;
        char reason[STORE_ERR_MAX];
};

/* verify.fabric of the rollout's policy into options; 0 = none, 1 = present. */
static int policy_gate(const struct rollout_rec *r, struct fabric_opts *o, double *pct, unsigned *neighbours,
                       struct errbuf *e)
{
        const struct policy_fabric *pf;
        struct policy *p = NULL;
        int k;

        if (!streq(r->kind, "apply") || !r->policy_doc)
                return 0;
        k = policy_parse_buffer(r->policy_doc, strlen(r->policy_doc), "rollout policy", &p, e);
        if (k < 0)
                return k;
        pf = &p->verify.fabric;
        k = pf->present;
        if (k) {
                fabric_opts_defaults(o);
                fabric_pattern_from_string(policy_fabric_pattern_name(pf->pattern), &o->pattern);
                probe_mode_from_string(policy_probe_name(pf->mode), &o->mode);
                o->duration_ms = pf->duration_ms;
                o->streams = pf->streams;
                policy_fabric_class(p, &o->dscp, &o->priority);
                *pct = pf->max_regression_pct;
                *neighbours = r->opts.fabric_neighbours >= 0 ? (unsigned)r->opts.fabric_neighbours : pf->neighbours;
        }
        policy_free(p);
        return k;
}

int rollout_fabric_new(const struct rollout_rec *r, struct rollout_fabric **ret, struct errbuf *e)
{
        struct rollout_fabric *fg = calloc(1, sizeof(*fg));
        int k;

        *ret = NULL;
        if (!fg)
                return errbuf_set(e, ENOMEM, "", "out of memory");
        k = policy_gate(r, &fg->o, &fg->max_regression_pct, &fg->neighbours, e);
        if (k <= 0) {
                free(fg);
                return k;
        }
        fg->n_waves = r->n_waves;
        fg->w = calloc(r->n_waves + 1, sizeof(*fg->w));
        fg->scope = calloc(r->n_nodes + 1, sizeof(*fg->scope));
        fg->log = json_array();
        if (!fg->w || !fg->scope || !fg->log) {
                rollout_fabric_free(fg);
                return errbuf_set(e, ENOMEM, "", "out of memory");
        }
        *ret = fg;
        return 0;
}

void rollout_fabric_free(struct rollout_fabric *fg)
{
        if (!fg)
                return;
        for (unsigned i = 0; fg->w && i < fg->n_waves; i++)
                fabric_free(&fg->w[i].base);
        free(fg->w);
        free(fg->scope);
        json_decref(fg->log);
        free(fg);
}

const char *rollout_fabric_reason(const struct rollout_fabric *fg)
{
        return fg ? fg->reason : "";
}

json_t *rollout_fabric_log(const struct rollout_fabric *fg)
{
        return fg ? fg->log : NULL;
}

static int cmp_unsigned(const void *a, const void *b)
{
        unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;

        return (x > y) - (x < y);
}

/*
 * The scope of wave w in inventory order: its nodes, then up to k others of the
 * rollout, those it committed first, then those not reached yet. Returns how many.
 */
static unsigned scope_of(const struct rollout_rec *r, unsigned w, unsigned k, unsigned *out)
{
        static const enum rnode_state prefer[] = { RNODE_COMMITTED, RNODE_PLANNED };
        unsigned n = 0, added = 0;

        for (unsigned i = 0; i < r->n_nodes; i++)
                if (r->nodes[i].wave == w)
                        out[n++] = i;
        for (size_t p = 0; p < ARRAY_SIZE(prefer); p++)
                for (unsigned i = 0; i < r->n_nodes && added < k; i++)
                        if (r->nodes[i].wave != w && r->nodes[i].state == prefer[p]) {
                                out[n++] = i;
                                added++;
                        }
        qsort(out, n, sizeof(*out), cmp_unsigned);
        return n;
}

/* The smallest confirm timeout that leaves the gate its time after a wave applied. */
static unsigned min_confirm_s(const struct fabric_opts *o)
{
        return (FABRIC_LEAD_MIN_MS + o->duration_ms + FABRIC_FINISH_SLACK_MS) / 1000 + 10;
}

int rollout_fabric_check(const struct rollout_rec *r, struct errbuf *e)
{
        struct fabric_opts o;
        unsigned k = 0;
        double pct;
        int rc = policy_gate(r, &o, &pct, &k, e);

        if (rc <= 0)
                return rc;
        for (unsigned w = 0; w < r->n_waves; w++) {
                unsigned in = 0, join;

                for (unsigned i = 0; i < r->n_nodes; i++)
                        in += r->nodes[i].wave == w;
                join = k < r->n_nodes - in ? k : r->n_nodes - in;
                if (in + join < 2)
                        return errbuf_set(e, EINVAL, "verify.fabric", "wave %u has %u node%s and %u neighbour%s join "
                                          "it: a %s needs at least 2 nodes; give --fabric-neighbours 1 (or more), "
                                          "a larger canary or larger waves, or select more nodes", w + 1, in,
                                          in == 1 ? "" : "s", join, join == 1 ? "" : "s",
                                          fabric_pattern_name(o.pattern));
        }
        if (r->opts.confirm_timeout_s < min_confirm_s(&o))
                return errbuf_set(e, EINVAL, "verify.fabric", "confirm timeout %u s is shorter than the fabric gate may "
                                  "take after a wave applied (%u s for %u ms flows): raise --confirm-timeout",
                                  r->opts.confirm_timeout_s, min_confirm_s(&o), o.duration_ms);
        return 0;
}

/* A fabric over the nodes of scope[0..n) of r, in that order; the incast receiver is the first wave node. */
static int lay_out(const struct rollout_fabric *fg, const struct rollout_rec *r, unsigned w, unsigned n,
                   struct fabric *f, struct errbuf *e)
{
        struct fabric_opts o = fg->o;
        int k;

        o.receiver = 0;
        for (unsigned i = n; i-- > 0;)
                if (r->nodes[fg->scope[i]].wave == w)
                        o.receiver = i;
        k = fabric_init(f, &o, n, e);
        for (unsigned i = 0; k >= 0 && i < n; i++) {
                snprintf(f->nodes[i].name, sizeof(f->nodes[i].name), "%s", r->nodes[fg->scope[i]].name);
                snprintf(f->nodes[i].url, sizeof(f->nodes[i].url), "%s", r->nodes[fg->scope[i]].url);
        }
        return k;
}

static void say(const struct rollout_run_env *env, const char *fmt, ...) _printf_(2, 3);
static void say(const struct rollout_run_env *env, const char *fmt, ...)
{
        va_list ap;

        if (env->progress == PROGRESS_OFF)
                return;
        progress_clear_line();
        va_start(ap, fmt);
        vfprintf(stderr, fmt, ap);
        va_end(ap);
        fputc('\n', stderr);
}

static void summary(char *buf, size_t size, const struct fabric *f, const struct fabric_figures *g)
{
        const struct fabric_flow *s = g->slowest >= 0 ? &f->flows[g->slowest] : NULL;

        snprintf(buf, size, "%s over %u nodes: %s %.3f Gb/s, slowest %s -> %s %.3f Gb/s",
                 fabric_pattern_name(f->o.pattern), f->n_nodes, g->figure_name, g->figure,
                 s ? f->nodes[s->src].name : "-", s ? f->nodes[s->dst].name : "-", s ? s->gbps : NAN);
}

static void log_wave(struct rollout_fabric *fg, unsigned w, const struct fabric *base, const struct fabric_figures *bf,
                     const struct fabric *post, const struct fabric_figures *pf, const struct fabric_gate_report *rep)
{
        const struct fabric *any = base ? base : post;
        json_t *scope = json_array();

        for (unsigned i = 0; scope && any && i < any->n_nodes; i++)
                json_array_append_new(scope, json_string(any->nodes[i].name));
        json_array_append_new(fg->log, json_pack("{s:i, s:o, s:o, s:o, s:o}", "wave", (int)w + 1,
                                                 "scope", scope ? scope : json_null(),
                                                 "baseline", base ? fabric_to_json(base, bf) : json_null(),
                                                 "post", post ? fabric_to_json(post, pf) : json_null(),
                                                 "gate", fabric_gate_to_json(fg->max_regression_pct, rep)));
}

/* Measure the scope of wave w into f; -errno (nothing ran: e says why) or 0 (g says how it went). */
static int measure(struct rollout_fabric *fg, const struct rollout_run_env *env, const struct rollout_rec *r,
                   unsigned w, struct fabric *f, struct fabric_figures *g, struct errbuf *e)
{
        struct fabric_env fe = { .http = env->http, .timeout_s = env->timeout_s, .progress = env->progress };
        unsigned n = scope_of(r, w, fg->neighbours, fg->scope);
        int k = lay_out(fg, r, w, n, f, e);

        if (k >= 0)
                k = fabric_run(&fe, f, e);
        if (k >= 0)
                fabric_compute(f, g);
        return k;
}

int rollout_fabric_before(struct rollout_fabric *fg, const struct rollout_run_env *env, struct rollout_rec *r,
                          unsigned w, struct errbuf *e)
{
        struct wave_gate *wg = &fg->w[w];
        struct fabric_gate_report rep = { .verdict = FABRIC_FAIL_BASELINE, .baseline = NAN, .post = NAN,
                                          .threshold = NAN, .change_pct = NAN };
        struct errbuf me = { 0 };
        char line[400], why[480];
        int k;

        fabric_free(&wg->base);
        wg->measured = false;
        for (unsigned i = 0; i < r->n_nodes; i++)
                if (r->nodes[i].wave == w && r->nodes[i].state != RNODE_PLANNED)
                        return 0;       /* resumed after some of the wave applied: no baseline, the gate fails closed */
        k = measure(fg, env, r, w, &wg->base, &wg->bf, &me);
        if (k == -ENOMEM)
                return errbuf_set(e, ENOMEM, "", "out of memory");
        wg->measured = k >= 0 && wg->bf.complete;
        if (wg->measured) {
                summary(line, sizeof(line), &wg->base, &wg->bf);
                say(env, "fabric: wave %u/%u baseline: %s", w + 1, r->n_waves, line);
                return 0;
        }
        snprintf(rep.reason, sizeof(rep.reason), "fabric baseline of wave %u %s: %.400s", w + 1,
                 k < 0 ? "could not run" : "is incomplete", k < 0 ? me.msg : fabric_first_failure(&wg->base, why, sizeof(why)));
        snprintf(fg->reason, sizeof(fg->reason), "fabric gate of wave %u: no baseline: %.160s", w + 1,
                 k < 0 ? me.msg : why);
        say(env, "fabric: %s; the wave is not applied", rep.reason);
        log_wave(fg, w, k < 0 ? NULL : &wg->base, &wg->bf, NULL, NULL, &rep);
        return 1;
}

static void halt_reason(struct rollout_fabric *fg, unsigned w, const struct fabric *post, const struct fabric_figures *pf,
                        const struct fabric_gate_report *rep)
{
        const struct fabric_flow *s = pf->slowest >= 0 ? &post->flows[pf->slowest] : NULL;

        if (rep->verdict == FABRIC_FAIL_REGRESSION)
                snprintf(fg->reason, sizeof(fg->reason), "fabric gate of wave %u: %s %s %.3f Gb/s, baseline %.3f Gb/s "
                         "(%+.1f%%, at most -%.0f%%), slowest %s -> %s", w + 1, fabric_pattern_name(post->o.pattern),
                         pf->figure_name, rep->post, rep->baseline, rep->change_pct, fg->max_regression_pct,
                         s ? post->nodes[s->src].name : "-", s ? post->nodes[s->dst].name : "-");
        else
                snprintf(fg->reason, sizeof(fg->reason), "fabric gate of wave %u: %.200s", w + 1, rep->reason);
}

/* The gate's decision for wave w: measures the post-change fabric into *post. 0, or -ENOMEM. */
static int decide(struct rollout_fabric *fg, const struct rollout_run_env *env, const struct rollout_rec *r,
                  unsigned w, struct fabric *post, struct fabric_figures *pf, struct fabric_gate_report *rep)
{
        struct wave_gate *wg = &fg->w[w];
        struct errbuf me = { 0 };
        int k;

        *rep = (struct fabric_gate_report) { .verdict = FABRIC_FAIL_BASELINE, .baseline = NAN, .post = NAN,
                                             .threshold = NAN, .change_pct = NAN };
        if (!wg->measured) {
                snprintf(rep->reason, sizeof(rep->reason), "no fabric baseline for wave %u (the wave was resumed "
                         "after some of its nodes applied): the gate fails closed", w + 1);
                return 0;
        }
        k = measure(fg, env, r, w, post, pf, &me);
        if (k == -ENOMEM)
                return k;
        if (k >= 0) {
                fabric_gate_evaluate(fg->max_regression_pct, &wg->base, &wg->bf, post, pf, rep);
                return 0;
        }
        rep->verdict = FABRIC_FAIL_POST;
        rep->baseline = wg->bf.figure;
        snprintf(rep->reason, sizeof(rep->reason), "post-change fabric probe could not run: %.500s", me.msg);
        return 0;
}

int rollout_fabric_after(struct rollout_fabric *fg, const struct rollout_run_env *env, struct rollout_rec *r,
                         unsigned w, struct errbuf *e)
{
        struct wave_gate *wg = &fg->w[w];
        struct fabric post = { 0 };
        struct fabric_figures pf = { .figure = NAN, .slowest = -1, .figure_name = "" };
        struct fabric_gate_report rep;
        char line[400];
        bool ran;

        if (decide(fg, env, r, w, &post, &pf, &rep) < 0) {
                fabric_free(&post);
                return errbuf_set(e, ENOMEM, "", "out of memory");
        }
        ran = post.n_flows && post.start_at_ms;
        if (ran) {
                summary(line, sizeof(line), &post, &pf);
                say(env, "fabric: wave %u/%u after apply: %s: %s", w + 1, r->n_waves, line,
                    fabric_verdict_name(rep.verdict));
        }
        log_wave(fg, w, wg->measured ? &wg->base : NULL, &wg->bf, ran ? &post : NULL, &pf, &rep);
        if (rep.verdict != FABRIC_PASS) {
                halt_reason(fg, w, &post, &pf, &rep);
                say(env, "fabric: %s; the wave is halted", rep.reason);
        }
        fabric_free(&post);
        return rep.verdict != FABRIC_PASS;
}
