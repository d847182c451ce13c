/* SPDX-License-Identifier: MIT */
/*
 * The engine's steps over nodes: journal them, send one apply or rollback to each
 * at once and record the answers, settle pending changes. Leaves of the engine
 * (rollout_engine.c): nothing here calls back into it.
 */
#include <stdarg.h>

#include "controller/fleet/fleet.h"
#include "controller/rollout/rollout_internal.h"

void step_node_error(struct rnode *n, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(n->error, sizeof(n->error), fmt, ap);
        va_end(ap);
}

int step_journal_node(struct engine *g, const struct rnode *n)
{
        int r;

        if (g->store_err < 0)
                return g->store_err;
        r = store_node_update(g->env->store, g->r, n, g->e);
        if (r < 0)
                g->store_err = r;
        return r;
}

int step_journal_nodes(struct engine *g, struct rnode **nodes, unsigned n, unsigned w)
{
        int r = g->store_err < 0 ? g->store_err : store_begin(g->env->store, g->e);

        if (r >= 0 && w != ENGINE_NO_WAVE)
                r = store_wave_update(g->env->store, g->r, w, g->e);
        for (unsigned i = 0; r >= 0 && i < n; i++)
                r = store_node_update(g->env->store, g->r, nodes[i], g->e);
        if (r >= 0)
                r = store_commit(g->env->store, g->e);
        if (r < 0)
                g->store_err = r;
        return r;
}

int step_journal_wave(struct engine *g, unsigned w, enum rwave_state s)
{
        int r;

        g->r->waves[w].state = s;
        if (g->store_err < 0)
                return g->store_err;
        r = store_wave_update(g->env->store, g->r, w, g->e);
        if (r < 0)
                g->store_err = r;
        return r;
}

bool step_failed_state(enum rnode_state s)
{
        return s == RNODE_FAILED || s == RNODE_UNREACHABLE || s == RNODE_UNKNOWN || s == RNODE_REVERTED;
}

unsigned step_select(struct rollout_rec *r, struct rnode **out, unsigned wave, bool any_wave, enum rnode_state s)
{
        unsigned k = 0;

        for (unsigned i = 0; i < r->n_nodes; i++)
                if ((any_wave || r->nodes[i].wave == wave) && r->nodes[i].state == s)
                        out[k++] = &r->nodes[i];
        return k;
}

unsigned step_count_failed(const struct rollout_rec *r, bool any_wave, unsigned wave)
{
        unsigned k = 0;

        for (unsigned i = 0; i < r->n_nodes; i++)
                if ((any_wave || r->nodes[i].wave == wave) && step_failed_state(r->nodes[i].state))
                        k++;
        return k;
}

/* An apply that was not delivered at all: no connection, no TLS session, not sent. */
static bool never_sent(int err)
{
        return err == -ECONNREFUSED || err == -EPROTO || err == -ECANCELED;
}

/*
 * Record one apply answer on its node. A request that may have arrived but got no
 * usable answer leaves the node applying: its agent is asked next (by key).
 */
static void classify_apply(const struct engine *g, struct rnode *n, const struct http_req *q)
{
        struct errbuf pe = { 0 };
        struct reply_apply a;
        char buf[400];

        if (q->err < 0) {
                http_req_error(q, buf, sizeof(buf));
                if (never_sent(q->err)) {
                        n->state = RNODE_UNREACHABLE;
                        step_node_error(n, "its apply was not delivered: %s", buf);
                } else {
                        step_node_error(n, "no answer to its apply: %s", buf);
                }
                return;
        }
        if (reply_parse_apply(q->resp, q->resp_len, &a, &pe) < 0) {
                if (q->status >= 400) {
                        n->state = RNODE_FAILED;
                        step_node_error(n, "%s", reply_error_text(q->status, q->resp, q->resp_len, buf, sizeof(buf)));
                } else {
                        step_node_error(n, "its apply's answer is unreadable: %.200s", pe.msg);
                }
                return;
        }
        snprintf(n->tx, sizeof(n->tx), "%s", a.tx);
        n->exit_code = a.exit_code;
        n->changes = a.changes;
        n->baseline_gbps = a.baseline_gbps;
        n->post_gbps = a.post_gbps;
        n->error[0] = '\0';
        if (a.exit_code == 4 || streq(a.result, "pending_confirm")) {
                n->state = a.tx[0] ? RNODE_PENDING : RNODE_FAILED;
                if (!a.tx[0])
                        step_node_error(n, "pending without a transaction id");
                /* An agent that does not say when it restores the change: at the latest a timeout from now. */
                n->confirm_deadline_ms = a.confirm_deadline_ms > 0 ? a.confirm_deadline_ms :
                                         rollout_now_ms() + g->r->opts.confirm_timeout_s * 1000LL;
        } else if (a.exit_code == 0) {
                n->state = RNODE_COMMITTED;
        } else {
                n->state = RNODE_FAILED;
                step_node_error(n, "%s%s%s%s%s", a.result[0] ? a.result : "failed",
                                a.restored_by[0] ? " by " : "", a.restored_by, a.error[0] ? ": " : "", a.error);
        }
}

/* A rollback answer: any 2xx whose body (if any) has exit_code 0. */
static bool answer_ok(const struct http_req *q, char *why, size_t size)
{
        struct errbuf pe = { 0 };
        struct reply_apply a;

        if (q->err < 0) {
                http_req_error(q, why, size);
                return false;
        }
        if (q->status < 200 || q->status >= 300) {
                reply_error_text(q->status, q->resp, q->resp_len, why, size);
                return false;
        }
        if (q->resp_len && reply_parse_apply(q->resp, q->resp_len, &a, &pe) >= 0 && a.exit_code != 0) {
                snprintf(why, size, "%s%s%s", a.result[0] ? a.result : "failed", a.error[0] ? ": " : "", a.error);
                return false;
        }
        return true;
}

static void on_done(struct http_req *q, void *userdata)
{
        struct engine *g = userdata;
        struct rnode *n = q->user;
        char why[400];

        if (!g->rollback_verb) {
                classify_apply(g, n, q);
        } else if (answer_ok(q, why, sizeof(why))) {
                n->state = RNODE_ROLLED_BACK;
                n->error[0] = '\0';
        } else {
                step_node_error(n, "rollback failed: %s", why);
        }
        step_journal_node(g, n);
        output_progress_node(&g->prog, n, g->rollback_verb ? n->state != RNODE_ROLLED_BACK :
                             step_failed_state(n->state));
}

int step_fan_out(struct engine *g, struct rnode **nodes, unsigned n, bool rollback, const char *body,
                 unsigned wave)
{
        struct http_req *reqs = calloc(n + 1, sizeof(*reqs));
        struct http_req **ptrs = calloc(n + 1, sizeof(*ptrs));
        unsigned timeout_ms = g->env->timeout_s * 1000;
        char path[128];
        int r = 0;

        if (!reqs || !ptrs) {
                free(reqs);
                free(ptrs);
                return errbuf_set(g->e, ENOMEM, "", "out of memory");
        }
        for (unsigned i = 0; i < n && r >= 0; i++) {
                reqs[i] = (struct http_req) {
                        .method = "POST", .body = body ? body : "{}", .body_len = strlen(body ? body : "{}"),
                        .timeout_ms = timeout_ms, .user = nodes[i],
                };
                if (rollback)
                        snprintf(path, sizeof(path), "/v1/rollback");
                else
                        snprintf(path, sizeof(path), "/v1/apply?confirm_timeout_s=%u%s%s", g->r->opts.confirm_timeout_s,
                                 nodes[i]->key[0] ? "&idempotency_key=" : "", nodes[i]->key);
                r = http_url(reqs[i].url, sizeof(reqs[i].url), nodes[i]->url, path);
                ptrs[i] = &reqs[i];
        }
        g->rollback_verb = rollback;
        output_progress_begin(&g->prog, g->env->progress, rollback ? "rollback" : "apply", wave, g->r->n_waves, n);
        /*
         * group_answers: the answers of one fan-out are journaled together (one etcd
         * txn per 100 records); an answer lost with the controller is found again by
         * asking the agent (rollout_reconcile.h), the requests themselves were
         * journaled before they were sent. Otherwise each answer as it comes.
         */
        if (r >= 0 && n > 0 && g->env->group_answers && g->store_err >= 0)
                g->store_err = store_begin(g->env->store, g->e);
        if (r >= 0 && n > 0 && g->store_err >= 0) {
                r = http_run(g->env->http, ptrs, n, timeout_ms + 10000, on_done, g);
                if (g->env->group_answers && g->store_err >= 0)
                        g->store_err = store_commit(g->env->store, g->e);
        }
        output_progress_end(&g->prog);
        for (unsigned i = 0; i < n; i++)
                http_req_done(&reqs[i]);
        free(reqs);
        free(ptrs);
        if (r < 0)
                return errbuf_set(g->e, -r, "", "cannot send requests: %s", strerror(-r));
        return g->store_err;
}

static void on_settled(struct rnode *n, void *ud)
{
        struct engine *g = ud;

        step_journal_node(g, n);
        output_progress_node(&g->prog, n, n->state != RNODE_COMMITTED && n->state != RNODE_CANCELLED);
}

int step_settle(struct engine *g, struct rnode **nodes, unsigned n, const enum settle_goal *goals,
                const long long *until_ms, const char *what, unsigned wave)
{
        int r;

        if (n == 0)
                return g->store_err;
        output_progress_begin(&g->prog, g->env->progress, what, wave, g->r->n_waves, n);
        r = rollout_settle(g->env, nodes, n, goals, until_ms, on_settled, g, g->e);
        output_progress_end(&g->prog);
        return r < 0 ? r : g->store_err;
}

long long step_settle_until(const struct engine *g, const struct rnode *n, long long now)
{
        /* An agent's deadline lies within a confirm timeout of its answer: never wait longer than that. */
        long long cap = now + g->r->opts.confirm_timeout_s * 1000LL;
        long long d = n->confirm_deadline_ms > 0 && n->confirm_deadline_ms < cap ? n->confirm_deadline_ms : cap;

        return d + SETTLE_MARGIN_MS;
}
