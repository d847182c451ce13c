/* SPDX-License-Identifier: MIT */
/* The fabric probe's fan-out: clocks and responders, one agreed start, the flows' answers. */
#include <math.h>
#include <time.h>

#include "common/clock.h"
#include "controller/fabric/fabric.h"

struct round {
        struct fabric *f;
        double t0_ms;                   /* our wall clock when the round began */
        struct progress p;
};

static struct http_req *reqs_new(unsigned n, struct http_req ***ret_ptrs)
{
        struct http_req *reqs = calloc(n + 1, sizeof(*reqs));
        struct http_req **ptrs = calloc(n + 1, sizeof(*ptrs));

        if (!reqs || !ptrs) {
                free(reqs);
                free(ptrs);
                return NULL;
        }
        for (unsigned i = 0; i < n; i++)
                ptrs[i] = &reqs[i];
        *ret_ptrs = ptrs;
        return reqs;
}

static void reqs_free(struct http_req *reqs, struct http_req **ptrs, unsigned n)
{
        for (unsigned i = 0; reqs && i < n; i++)
                http_req_done(&reqs[i]);
        free(reqs);
        free(ptrs);
}

/* ---- 1. responders and clocks ---- */

static void on_info(struct http_req *q, void *userdata)
{
        struct round *rd = userdata;
        struct fabric_node *n = q->user;

        fabric_take_info(n, q, rd->t0_ms, 1e3 * clock_wall_s());
        progress_item(&rd->p, !n->reached, "%s", n->name);
}

static int info_round(const struct fabric_env *env, struct fabric *f, struct errbuf *e)
{
        struct http_req **ptrs = NULL;
        struct http_req *reqs = reqs_new(f->n_nodes, &ptrs);
        struct round rd = { .f = f };
        int r = 0;

        if (!reqs)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        for (unsigned i = 0; i < f->n_nodes && r >= 0; i++) {
                reqs[i] = (struct http_req) { .method = "GET", .idempotent = true, .timeout_ms = env->timeout_s * 1000,
                                              .user = &f->nodes[i] };
                r = http_url(reqs[i].url, sizeof(reqs[i].url), f->nodes[i].url, "/v1/fabric");
        }
        progress_init(&rd.p, env->progress == PROGRESS_TTY ? PROGRESS_TTY : PROGRESS_OFF, stderr);
        if (r >= 0) {
                progress_begin(&rd.p, "fabric", f->n_nodes, "node", "clocks and responders");
                rd.t0_ms = 1e3 * clock_wall_s();
                r = http_run(env->http, ptrs, f->n_nodes, env->timeout_s * 3000 + 10000, on_info, &rd);
                progress_end(&rd.p);
        }
        reqs_free(reqs, ptrs, f->n_nodes);
        if (r < 0)
                return errbuf_set(e, -r, NULL, "cannot send requests: %s", strerror(-r));
        return 0;
}

/* ---- 3. the flows at one agreed start ---- */

static json_t *node_body(const struct fabric *f, unsigned i, long long start_at_ms)
{
        json_t *flows = json_array();

        for (unsigned k = 0; flows && k < f->n_flows; k++) {
                const struct fabric_flow *fl = &f->flows[k];
                json_t *o;

                if (fl->src != i)
                        continue;
                o = json_pack("{s:i, s:s, s:s, s:i}", "id", (int)k, "peer", f->nodes[fl->dst].address,
                              "mode", probe_mode_name(f->o.mode), "streams", (int)f->o.streams);
                if (o && f->o.dscp >= 0)
                        json_object_set_new(o, "dscp", json_integer(f->o.dscp));
                if (o && f->o.priority >= 0)
                        json_object_set_new(o, "priority", json_integer(f->o.priority));
                json_array_append_new(flows, o);
        }
        return json_pack("{s:I, s:i, s:o}", "start_at_ms", (json_int_t)start_at_ms, "duration_ms",
                         (int)f->o.duration_ms, "flows", flows ? flows : json_null());
}

struct flows_ctx {
        struct fabric *f;
        unsigned timeout_ms;
        struct progress p;
};

static void on_flows(struct http_req *q, void *userdata)
{
        struct flows_ctx *c = userdata;
        struct fabric *f = c->f;
        unsigned i = (unsigned)((struct fabric_node *)q->user - f->nodes);

        fabric_take_flows(f, i, q, c->timeout_ms);
        progress_item(&c->p, f->nodes[i].error[0] != '\0', "%s", f->nodes[i].name);
}

static long long lead_ms(const struct fabric *f)
{
        double rtt = 0;
        long long lead;

        for (unsigned i = 0; i < f->n_nodes; i++)
                if (isfinite(f->nodes[i].skew_err_ms) && 2 * f->nodes[i].skew_err_ms > rtt)
                        rtt = 2 * f->nodes[i].skew_err_ms;
        lead = FABRIC_LEAD_MIN_MS + (long long)(2 * rtt) + 2LL * f->n_nodes;
        return lead > FABRIC_LEAD_MAX_MS ? FABRIC_LEAD_MAX_MS : lead;
}

static int flows_round(const struct fabric_env *env, struct fabric *f, struct errbuf *e)
{
        struct http_req **ptrs = NULL;
        struct http_req *reqs = reqs_new(f->n_nodes, &ptrs);
        char **bodies = calloc(f->n_nodes + 1, sizeof(*bodies));
        struct flows_ctx c = { .f = f };
        unsigned n = 0;
        int r = 0;

        if (!reqs || !bodies) {
                reqs_free(reqs, ptrs, 0);
                free(bodies);
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        }
        f->lead_ms = lead_ms(f);
        f->start_at_ms = (long long)1e3 * clock_wall_s() + f->lead_ms;
        c.timeout_ms = (unsigned)f->lead_ms + f->o.duration_ms + FABRIC_FINISH_SLACK_MS;
        for (unsigned i = 0; i < f->n_nodes && r >= 0; i++) {
                json_t *b;

                if (!f->nodes[i].n_out)
                        continue;
                b = node_body(f, i, f->start_at_ms + llround(f->nodes[i].skew_ms));
                bodies[n] = b ? json_dumps(b, JSON_COMPACT) : NULL;
                json_decref(b);
                if (!bodies[n]) {
                        r = -ENOMEM;
                        break;
                }
                reqs[n] = (struct http_req) { .method = "POST", .body = bodies[n], .body_len = strlen(bodies[n]),
                                              .timeout_ms = c.timeout_ms, .user = &f->nodes[i] };
                r = http_url(reqs[n].url, sizeof(reqs[n].url), f->nodes[i].url, "/v1/fabric/flows");
                n++;
        }
        progress_init(&c.p, env->progress == PROGRESS_TTY ? PROGRESS_TTY : PROGRESS_OFF, stderr);
        if (r >= 0) {
                progress_begin(&c.p, "fabric", n, "node", "%s flows", fabric_pattern_name(f->o.pattern));
                r = http_run(env->http, ptrs, n, c.timeout_ms + 10000, on_flows, &c);
                progress_end(&c.p);
        }
        reqs_free(reqs, ptrs, n);
        for (unsigned i = 0; i < n; i++)
                free(bodies[i]);
        free(bodies);
        if (r < 0)
                return errbuf_set(e, -r, NULL, "cannot send requests: %s", strerror(-r));
        return 0;
}

/* Every node at once, whatever --parallel says: the flows must all be in flight before the start. */
static unsigned all_at_once(const struct fabric_env *env, const struct fabric *f)
{
        unsigned parallel = http_client_set_parallel(env->http, f->n_nodes);

        if (parallel > f->n_nodes)
                http_client_set_parallel(env->http, parallel);
        return parallel;
}

int fabric_prepare(const struct fabric_env *env, struct fabric *f, struct errbuf *e)
{
        unsigned parallel = all_at_once(env, f);
        int r = 0;

        for (int round = 0; round < 2 && r >= 0; round++)
                r = info_round(env, f, e);
        http_client_set_parallel(env->http, parallel);
        return r;
}

int fabric_flows(const struct fabric_env *env, struct fabric *f, struct errbuf *e)
{
        unsigned parallel = all_at_once(env, f);
        int r = fabric_check(f, e);

        if (r >= 0)
                r = flows_round(env, f, e);
        http_client_set_parallel(env->http, parallel);
        return r;
}

int fabric_run(const struct fabric_env *env, struct fabric *f, struct errbuf *e)
{
        int r = fabric_prepare(env, f, e);

        return r < 0 ? r : fabric_flows(env, f, e);
}

unsigned fabric_run_bound_ms(const struct fabric_opts *o, unsigned n_nodes, unsigned timeout_s)
{
        /* two info rounds (each retried at most as http_run bounds it), the lead, the flows */
        return 2 * (timeout_s * 3000 + 10000) + FABRIC_LEAD_MAX_MS + o->duration_ms + FABRIC_FINISH_SLACK_MS + 10000;
}
