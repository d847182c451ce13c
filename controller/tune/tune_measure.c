/* SPDX-License-Identifier: MIT */
/*
 * One measurement of a tune trial: the pattern (the fabric probe, `runs` times, the
 * median counting) and, around it, the counters doctor reads (GET /v1/doctor: their
 * increase over a window) on the scope and the pattern's nodes, from a second thread
 * with its own HTTPS client. The doctor requests go out with the fabric probe's
 * first round, a second or more before the flows' agreed start (controller/fabric/fabric_run.c), so
 * every agent opens its window before it starts measuring (an agent that measures
 * holds new requests until it is done: api.c).
 */
#include <math.h>
#include <pthread.h>

#include "controller/tune/tune.h"

struct counters_job {
        const struct tune_env *env;
        const struct tune *t;
        const struct inventory_node **nodes;    /* the scope, then the pattern's nodes not in it */
        unsigned n;
        double window_s;
        struct tune_counters out;
        char error[256];
};

static bool in_list(const struct inventory_node *const *v, unsigned n, const struct inventory_node *x)
{
        for (unsigned i = 0; i < n; i++)
                if (v[i] == x || streq(v[i]->name, x->name))
                        return true;
        return false;
}

static void add(bool *known, double *sum, bool k, double v)
{
        if (k) {
                *known = true;
                *sum += v;
        }
}

/* One place's rates: a switch port under test (queue q), or a host interface (q < 0). */
static void rates_into(struct tune_counters *c, const struct doctor_rates *r, int q)
{
        bool k;
        double v;

        if (q >= 0) {
                v = doctor_rate_sum(r, DOCTOR_ECN_MARKED, q, &k);
                if (!k)
                        v = doctor_rate_sum(r, DOCTOR_ECN_MARKED, DOCTOR_PRIO_ANY, &k);
                add(&c->marks_known, &c->marks_ps, k, v);
                v = doctor_rate_sum(r, DOCTOR_WRED_DROP, q, &k);
                add(&c->drops_known, &c->drops_ps, k, v);
        } else {
                v = doctor_rate_sum(r, DOCTOR_CNP_SENT, DOCTOR_PRIO_ANY, &k);
                add(&c->cnps_known, &c->cnps_ps, k, v);
        }
        v = doctor_rate_sum(r, DOCTOR_DISCARD, DOCTOR_PRIO_ANY, &k);
        add(&c->drops_known, &c->drops_ps, k, v);
        v = doctor_rate_sum(r, DOCTOR_PAUSE_RX, DOCTOR_PRIO_ANY, &k);
        add(&c->pauses_known, &c->pauses_ps, k, v);
        v = doctor_rate_sum(r, DOCTOR_PAUSE_TX, DOCTOR_PRIO_ANY, &k);
        add(&c->pauses_known, &c->pauses_ps, k, v);
}

static bool is_port(const struct tune *t, const char *name)
{
        for (unsigned i = 0; i < t->n_ports; i++)
                if (streq(t->ports[i], name))
                        return true;
        return false;
}

/* A node's facts: the switch's ports under test where it is the ECN scope, else its interfaces. */
static void facts_into(const struct tune *t, bool scope, const struct doctor_node *n, struct tune_counters *c)
{
        bool ecn_scope = scope && t->kind == TUNE_ECN;

        for (unsigned i = 0; i < n->n_ifs; i++)
                if (!ecn_scope || (t->linux_switch && is_port(t, n->ifs[i].name)))
                        rates_into(c, &n->ifs[i].rates, ecn_scope ? (int)t->queue : -1);
        for (unsigned s = 0; ecn_scope && !t->linux_switch && s < n->n_switches; s++)
                for (unsigned p = 0; streq(n->switches[s].name, t->subject) && p < n->switches[s].n_ports; p++)
                        rates_into(c, &n->switches[s].ports[p].rates, (int)t->queue);
        if (n->window_s > c->window_s)
                c->window_s = n->window_s;
}

static void take(struct counters_job *j, unsigned i, const struct http_req *q)
{
        json_auto_t *doc = NULL;
        struct doctor_node n = { 0 };
        struct errbuf e = { 0 };

        if (q->err < 0 || q->status != 200 || !(doc = json_loads(q->resp, JSON_REJECT_DUPLICATES, NULL)) ||
            doctor_node_from_json(doc, j->nodes[i]->name, &n, &e) < 0) {
                if (!j->error[0])
                        snprintf(j->error, sizeof(j->error), "%s: no counters (%.160s)", j->nodes[i]->name,
                                 q->err < 0 ? q->errmsg : e.msg[0] ? e.msg : "an error answer");
                doctor_node_free(&n);
                return;
        }
        facts_into(j->t, i < j->env->n_scope, &n, &j->out);
        doctor_node_free(&n);
}

static void *counters_thread(void *arg)
{
        struct counters_job *j = arg;
        struct http_client *http = NULL;
        struct http_req *reqs = calloc(j->n + 1, sizeof(*reqs));
        struct http_req **ptrs = calloc(j->n + 1, sizeof(*ptrs));
        struct errbuf e = { 0 };
        struct http_opts o;
        char path[64];

        http_opts_defaults(&o);
        o.parallel = j->n ? j->n : 1;
        snprintf(path, sizeof(path), "/v1/doctor?window_s=%.1f", j->window_s);
        if (!reqs || !ptrs || http_client_new(j->env->tls, &o, &http, &e) < 0) {
                snprintf(j->error, sizeof(j->error), "no counters: %.200s", e.msg[0] ? e.msg : "out of memory");
                goto out;
        }
        for (unsigned i = 0; i < j->n; i++) {
                reqs[i] = (struct http_req){ .method = "GET", .idempotent = false,
                                             .timeout_ms = (unsigned)(j->window_s * 1000) + j->env->timeout_s * 1000 };
                ptrs[i] = &reqs[i];
                (void)http_url(reqs[i].url, sizeof(reqs[i].url), j->nodes[i]->url, path);
        }
        if (http_run(http, ptrs, j->n, (unsigned)(j->window_s * 1000) + j->env->timeout_s * 2000, NULL, NULL) < 0)
                snprintf(j->error, sizeof(j->error), "no counters: the requests could not be sent");
        for (unsigned i = 0; i < j->n; i++) {
                take(j, i, &reqs[i]);
                http_req_done(&reqs[i]);
        }
out:
        http_client_free(http);
        free(reqs);
        free(ptrs);
        return NULL;
}

/* One run of the pattern: its collective figure (NAN when incomplete, error says why). */
static double run_once(const struct tune_env *env, const struct tune *t, const char **ret_name, double *rtt_ms,
                       char *error, size_t size)
{
        struct fabric_env fe = { .http = env->http, .timeout_s = env->timeout_s, .progress = PROGRESS_OFF };
        struct fabric_figures g;
        struct errbuf e = { 0 };
        struct fabric f = { 0 };
        double fig = NAN;

        if (fabric_init(&f, &t->pattern, env->n_pattern, &e) < 0) {
                snprintf(error, size, "%.300s", e.msg);
                return NAN;
        }
        for (unsigned i = 0; i < env->n_pattern; i++) {
                snprintf(f.nodes[i].name, sizeof(f.nodes[i].name), "%s", env->pattern[i]->name);
                snprintf(f.nodes[i].url, sizeof(f.nodes[i].url), "%s", env->pattern[i]->url);
        }
        if (fabric_run(&fe, &f, &e) < 0) {
                snprintf(error, size, "%.300s", e.msg);
        } else {
                fabric_compute(&f, &g);
                *ret_name = g.figure_name;
                for (unsigned i = 0; i < f.n_flows; i++)
                        if (f.flows[i].ok && f.flows[i].rtt_ms > *rtt_ms)
                                *rtt_ms = f.flows[i].rtt_ms;
                if (g.complete && isfinite(g.figure))
                        fig = g.figure;
                else
                        fabric_first_failure(&f, error, size);
        }
        fabric_free(&f);
        return fig;
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;

        return x < y ? -1 : x > y;
}

static void runs(const struct tune_env *env, const struct tune *t, struct tune_measure *m)
{
        double ok[TUNE_RUNS_MAX];

        m->n_runs = t->runs < 1 ? 1 : t->runs > TUNE_RUNS_MAX ? TUNE_RUNS_MAX : t->runs;
        for (unsigned i = 0; i < m->n_runs; i++) {
                char why[sizeof(m->error)] = "";

                m->run_gbps[i] = run_once(env, t, &m->figure_name, &m->rtt_ms, why, sizeof(why));
                if (isfinite(m->run_gbps[i]))
                        ok[m->n_ok++] = m->run_gbps[i];
                else if (!m->error[0])
                        snprintf(m->error, sizeof(m->error), "run %u: %s", i + 1, why[0] ? why : "not measured");
        }
        qsort(ok, m->n_ok, sizeof(ok[0]), cmp_double);
        m->ok = m->n_ok == m->n_runs;
        m->gbps = m->n_ok ? (m->n_ok % 2 ? ok[m->n_ok / 2] : (ok[m->n_ok / 2 - 1] + ok[m->n_ok / 2]) / 2) : NAN;
}

int tune_measure(const struct tune_env *env, const struct tune *t, struct tune_measure *ret, struct errbuf *e)
{
        struct counters_job j = { .env = env, .t = t };
        pthread_t th;
        int r;

        memset(ret, 0, sizeof(*ret));
        ret->gbps = NAN;
        j.nodes = calloc(env->n_scope + env->n_pattern + 1, sizeof(*j.nodes));
        if (!j.nodes)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        for (unsigned i = 0; i < env->n_scope; i++)
                j.nodes[j.n++] = env->scope[i];
        for (unsigned i = 0; i < env->n_pattern; i++)
                if (!in_list(j.nodes, j.n, env->pattern[i]))
                        j.nodes[j.n++] = env->pattern[i];
        /* the window: every run's lead, flows and answers */
        j.window_s = fmin(DOCTOR_WINDOW_MAX_S, t->runs * (t->pattern.duration_ms / 1000.0 + 2.0) + 1.0);
        r = -pthread_create(&th, NULL, counters_thread, &j);
        runs(env, t, ret);
        if (!r)
                pthread_join(th, NULL);
        else
                snprintf(j.error, sizeof(j.error), "no counters: %s", strerror(-r));
        ret->c = j.out;
        if (j.error[0] && ret->ok && !ret->error[0])
                snprintf(ret->error, sizeof(ret->error), "%s", j.error);       /* a note, not a failure */
        free(j.nodes);
        return 0;
}
