/* SPDX-License-Identifier: MIT */
/*
 * The pre-flight of a rollout, before its canary changes anything: every node of
 * it answers GET /v1/health and accepts the policy in a plan (POST /v1/plan, which
 * changes nothing and runs every driver's check: what apply would refuse, plan
 * refuses with the same 400). The health checks go first, each node's plan after them
 * on the connection its health check opened. A fleet larger than the connections the
 * client keeps goes in chunks: the first, of seven eighths of them, keeps its
 * connections for the rollout's first applies; each later one, of an eighth, closes
 * its connections after its plans. Only a chunk's requests are held at a time.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "common/outcome.h"
#include "controller/rollout/rollout.h"

/* One node's two answers, judged once both are in. */
struct flight {
        const struct inventory_node *node;
        bool health_ok;
        char health_why[300];
        struct preflight_node plan;     /* what the plan said */
};

static void on_health(const struct http_req *q, struct flight *f)
{
        f->health_ok = q->err == 0 && q->status == 200;
        if (q->err < 0)
                http_req_error(q, f->health_why, sizeof(f->health_why));
        else if (!f->health_ok)
                reply_error_text(q->status, q->resp, q->resp_len, f->health_why, sizeof(f->health_why));
}

/* A plan's answer: accepted (with its count of changes), refused (4xx: invalid, with its path), or failed. */
static void on_plan(const struct http_req *q, struct preflight_node *p, bool want_diff)
{
        struct reply_plan rp = { 0 };
        struct errbuf pe = { 0 };
        char why[400];

        *p = (struct preflight_node) { .result = PREFLIGHT_OK };
        if (q->err < 0) {
                p->result = PREFLIGHT_UNREACHABLE;
                snprintf(p->why, sizeof(p->why), "its plan: %s", http_req_error(q, why, sizeof(why)));
        } else if (q->status != 200) {
                p->result = outcome_of_http_status((int)q->status) == OUTCOME_INVALID ? PREFLIGHT_INVALID :
                            PREFLIGHT_FAILED;
                reply_error_path(q->resp, q->resp_len, p->path, sizeof(p->path));
                /* invalid: the node's own words (its path apart); else the whole answer */
                if (p->result != PREFLIGHT_INVALID || !reply_error_message(q->resp, q->resp_len, p->why, sizeof(p->why))[0])
                        reply_error_text(q->status, q->resp, q->resp_len, p->why, sizeof(p->why));
        } else if (reply_parse_plan(q->resp, q->resp_len, &rp, &pe) < 0) {
                p->result = PREFLIGHT_FAILED;
                snprintf(p->why, sizeof(p->why), "its plan's answer is unreadable: %.200s", pe.msg);
        } else {
                p->changes = rp.n_changes;
                if (want_diff)
                        p->diff = rollout_changes_text(rp.changes, "  ");
                p->notes = json_incref(rp.notes);
                reply_plan_done(&rp);
        }
}

struct flights {
        struct flight *fl;              /* the chunk's nodes */
        unsigned n;                     /* in the chunk */
        bool want_diff;                 /* keep each plan's changes as text */
        struct progress p;
};

static void on_answer(struct http_req *q, void *userdata)
{
        struct flights *fs = userdata;
        size_t i = (size_t)(uintptr_t)q->user;
        struct flight *f = &fs->fl[i % fs->n];

        if (i >= fs->n)
                on_plan(q, &f->plan, fs->want_diff);
        else
                on_health(q, f);
        progress_item(&fs->p, q->err < 0 || q->status != 200, "%s", f->node->name);
        http_req_drop_answer(q);        /* judged: a fleet's answers are never all held */
}

/* A node that does not answer its health check is unreachable, whatever its plan said. */
static void judge(struct flight *f, struct preflight_node *ret)
{
        *ret = f->plan;
        f->plan.diff = NULL;            /* moved */
        f->plan.notes = NULL;
        if (!f->health_ok) {
                ret->result = PREFLIGHT_UNREACHABLE;
                snprintf(ret->why, sizeof(ret->why), "its health check: %.200s", f->health_why);
        }
}

/*
 * One chunk, nodes[0..k): its health checks, then its plans, judged into ret[0..k).
 * close: its connections are not kept after the plans. reqs, ptrs: room for 2k, fl for k.
 */
static int chunk(const struct rollout_run_env *env, const struct inventory_node *const *nodes, unsigned k,
                 const char *doc, bool close, struct http_req *reqs, struct http_req **ptrs, struct flights *fs,
                 struct preflight_node *ret)
{
        unsigned ms = env->timeout_s * 3000 + 10000;
        int r = 0;

        fs->n = k;
        memset(fs->fl, 0, k * sizeof(*fs->fl));
        for (unsigned i = 0; i < 2 * k && r >= 0; i++) {
                bool plan = i >= k;
                const struct inventory_node *node = nodes[i % k];

                fs->fl[i % k].node = node;
                reqs[i] = (struct http_req) {
                        .method = plan ? "POST" : "GET", .body = plan ? doc : NULL, .body_len = plan ? strlen(doc) : 0,
                        .idempotent = true, .timeout_ms = env->timeout_s * 1000, .user = (void *)(uintptr_t)i,
                        .close_after = plan && close,
                };
                r = http_url(reqs[i].url, sizeof(reqs[i].url), node->url, plan ? "/v1/plan" : "/v1/health");
                ptrs[i] = &reqs[i];
        }
        /* the health checks first: each plan then finds its node's connection idle */
        if (r >= 0)
                r = http_run(env->http, ptrs, k, ms, on_answer, fs);
        if (r >= 0)
                r = http_run(env->http, ptrs + k, k, ms, on_answer, fs);
        for (unsigned i = 0; r >= 0 && i < k; i++)
                judge(&fs->fl[i], &ret[i]);
        for (unsigned i = 0; i < k; i++) {
                free(fs->fl[i].plan.diff);      /* not judged: libcurl failed */
                json_decref(fs->fl[i].plan.notes);
                fs->fl[i].plan.diff = NULL;
                fs->fl[i].plan.notes = NULL;
        }
        for (unsigned i = 0; i < 2 * k; i++)
                http_req_done(&reqs[i]);
        return r;
}

int rollout_preflight(const struct rollout_run_env *env, const struct inventory_node *const *nodes, unsigned n,
                      const char *doc, struct preflight_node *ret, struct errbuf *e)
{
        unsigned keep = http_client_keep(env->http, n), rest = keep >= n ? n : keep / 8 ? keep / 8 : 1;
        unsigned first = keep >= n ? n : keep - rest, most = first > rest ? first : rest;
        /* what is in flight: one chunk's requests and answers, never the fleet's */
        struct http_req *reqs = calloc(2 * most + 1, sizeof(*reqs));
        struct http_req **ptrs = calloc(2 * most + 1, sizeof(*ptrs));
        struct flights fs = { .fl = calloc(most + 1, sizeof(*fs.fl)), .want_diff = env->preflight_diff };
        int r = 0;

        if (!reqs || !ptrs || !fs.fl) {
                r = errbuf_set(e, ENOMEM, "", "out of memory");
                goto out;
        }
        progress_init(&fs.p, env->progress == PROGRESS_TTY ? PROGRESS_TTY : PROGRESS_OFF, stderr);
        if (n > 0) {
                progress_begin(&fs.p, "pre-flight", 2 * n, "answer", NULL);
                for (unsigned a = 0, k = first; r >= 0 && a < n; a += k, k = rest)
                        r = chunk(env, nodes + a, k < n - a ? k : n - a, doc, a > 0, reqs, ptrs, &fs, ret + a);
                progress_end(&fs.p);
                if (r < 0)
                        r = errbuf_set(e, -r, "", "cannot send requests: %s", strerror(-r));
        }
out:
        free(reqs);
        free(ptrs);
        free(fs.fl);
        return r;
}
