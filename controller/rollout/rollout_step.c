/* SPDX-License-Identifier: MIT */
/*
 * The engine's steps over nodes: journal them, send one apply or rollback to each
 * at once and record the answers, settle pending changes. Leaves of the engine
 * (rollout_engine.c): nothing here calls back into it.
 */
#include <stdarg.h>

#include "common/outcome.h"
#include "controller/fleet/fleet.h"
#include "controller/rollout/rollout_internal.h"

void step_node_error(struct rnode *n, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(n->error, sizeof(n->error), fmt, ap);
        va_end(ap);
}

void step_record_node(struct engine *g, const struct rnode *n)
{
        store_record_node(g->env->store, g->r, n);
}

void step_record_nodes(struct engine *g, struct rnode **nodes, unsigned n, unsigned w)
{
        if (w != ENGINE_NO_WAVE)
                store_record_wave(g->env->store, g->r, w);
        for (unsigned i = 0; i < n; i++)
                store_record_node(g->env->store, g->r, nodes[i]);
}

void step_record_wave(struct engine *g, unsigned w, enum rwave_state s)
{
        g->r->waves[w].state = s;
        store_record_wave(g->env->store, g->r, w);
}

void step_record_answer(struct engine *g, const struct rnode *n)
{
        store_record_node(g->env->store, g->r, n);
        store_publish(g->env->store);
}

int step_barrier(struct engine *g)
{
        return store_barrier(g->env->store, g->e);
}

unsigned step_select(struct rollout_rec *r, struct rnode **out, unsigned wave, bool any_wave, enum rnode_state s)
{
        unsigned k = 0;

        for (unsigned i = 0; i < r->n_nodes; i++)
                if ((any_wave || r->nodes[i].wave == wave) && r->nodes[i].state == s)
                        out[k++] = &r->nodes[i];
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
                        /* 4xx: refused, nothing was changed there (a 400: the node finds the policy invalid) */
                        n->state = RNODE_FAILED;
                        n->exit_code = outcome_of_http_status((int)q->status);
                        step_node_error(n, "%s%s", q->status == 400 ? "it refuses the policy: " : "",
                                        reply_error_text(q->status, q->resp, q->resp_len, buf, sizeof(buf)));
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
                if (a.rev > 0)
                        rollout_node_take_rev(n, a.rev);
        } else {
                n->state = RNODE_FAILED;
                step_node_error(n, "%s%s%s%s%s", a.result[0] ? a.result : "failed",
                                a.restored_by[0] ? " by " : "", a.restored_by, a.error[0] ? ": " : "", a.error);
        }
}

/* A rollback answer: any 2xx whose body (if any) has exit_code 0; its transaction and result into out. */
static bool answer_ok(const struct http_req *q, struct rollback_outcome *out)
{
        struct errbuf pe = { 0 };
        struct reply_apply a;

        if (q->err < 0) {
                http_req_error(q, out->why, sizeof(out->why));
                return false;
        }
        if (q->status < 200 || q->status >= 300) {
                reply_error_text(q->status, q->resp, q->resp_len, out->why, sizeof(out->why));
                return false;
        }
        if (q->resp_len && reply_parse_apply(q->resp, q->resp_len, &a, &pe) >= 0) {
                snprintf(out->tx, sizeof(out->tx), "%s", a.tx);
                snprintf(out->result, sizeof(out->result), "%s", a.result);
                if (a.exit_code != 0) {
                        snprintf(out->why, sizeof(out->why), "%s%s%s", a.result[0] ? a.result : "failed",
                                 a.error[0] ? ": " : "", a.error);
                        return false;
                }
        }
        return true;
}

/* What is in flight for one node: its request's body and, for a rollback, where its outcome goes. */
struct sent {
        struct rnode *n;
        char body[192 + ROLLBACK_PEER_MAX];
        char key[STORE_KEY_MAX];        /* a rollback's idempotency key ("rb-..."), "" = none */
        const struct rollback_ask *ask;
        struct rollback_outcome *out;
        bool older_agent;               /* refused expect_revision or probe_peer: asked again without them */
};

/* An agent from before expect_revision refuses the member as unknown (its validator's words). */
static bool refuses_expect(const struct http_req *q)
{
        char text[400];

        if (q->err != 0 || q->status != 400)
                return false;
        reply_error_text(q->status, q->resp, q->resp_len, text, sizeof(text));
        return strstr(text, "unknown key 'expect_revision'") || strstr(text, "unknown key 'probe_peer'");
}

/* The agent refused the rollback's expect_revision: another revision is current there (409). */
static bool refused_precondition(const struct http_req *q)
{
        char code[32];

        return q->err == 0 && q->status == 409 &&
               streq(reply_error_code(q->resp, q->resp_len, code, sizeof(code)), "precondition_failed");
}

static void on_rollback(struct engine *g, struct sent *x, const struct http_req *q)
{
        struct rnode *n = x->n;

        memset(x->out, 0, sizeof(*x->out));
        if ((x->ask->expect >= 0 || x->ask->peer[0]) && !x->older_agent && refuses_expect(q)) {
                x->older_agent = true;
                return;
        }
        x->out->answered = q->err == 0;
        x->out->status = q->err < 0 ? 0 : q->status;
        x->out->ok = answer_ok(q, x->out);
        if (!g->rollback_journal)
                return;
        if (x->out->ok) {
                n->state = RNODE_ROLLED_BACK;
                n->error[0] = '\0';
                snprintf(n->undo_tx, sizeof(n->undo_tx), "%s", x->out->tx);
        } else if (refused_precondition(q)) {
                /* Something committed there since its history was read: not this rollback's to undo any more. */
                step_node_error(n, "rollback refused by its agent: %s", x->out->why);
        } else {
                step_node_error(n, "rollback failed: %s", x->out->why);
        }
        step_record_answer(g, n);
        output_progress_node(&g->prog, n, n->state != RNODE_ROLLED_BACK);
}

static void on_done(struct http_req *q, void *userdata)
{
        struct engine *g = userdata;
        struct sent *x = q->user;

        if (x->ask) {
                on_rollback(g, x, q);
                return;
        }
        classify_apply(g, x->n, q);
        step_record_answer(g, x->n);
        output_progress_node(&g->prog, x->n, rollout_failed_state(x->n->state));
}

/*
 * The request of one node: its apply step (with its key), or its rollback (asked again
 * without expect_revision). close: its connection is not kept for the confirm.
 */
static int request_of(struct engine *g, struct sent *x, struct http_req *q, unsigned timeout_ms, bool close)
{
        char path[128];

        if (x->ask && x->ask->policy)
                snprintf(x->body, sizeof(x->body), x->ask->expect >= 0 && !x->older_agent ?
                         "{\"policy\":\"%s\",\"expect_revision\":%lld}" : "{\"policy\":\"%s\"}", x->ask->policy,
                         x->ask->expect);
        else if (x->ask && x->ask->to > 0)
                snprintf(x->body, sizeof(x->body), x->ask->expect >= 0 && !x->older_agent ?
                         "{\"to\":%lld,\"expect_revision\":%lld}" : "{\"to\":%lld}", x->ask->to, x->ask->expect);
        else if (x->ask)
                snprintf(x->body, sizeof(x->body), x->ask->expect >= 0 && !x->older_agent ?
                         "{\"expect_revision\":%lld}" : "{}", x->ask->expect);
        /* the responder its gate measures against, spread over the fleet's (rollout_restore.c) */
        if (x->ask && x->ask->peer[0] && !x->older_agent) {
                size_t len = strlen(x->body);

                snprintf(x->body + len - 1, sizeof(x->body) - (len - 1), "%s\"probe_peer\":\"%s\"}",
                         len > 2 ? "," : "", x->ask->peer);
        }
        *q = (struct http_req) {
                .method = "POST", .body = x->ask ? x->body : rollout_node_doc(g->r, g->parts, x->n->name),
                .timeout_ms = timeout_ms, .user = x, .close_after = close,
        };
        q->body = q->body ? q->body : "{}";
        q->body_len = strlen(q->body);
        if (x->ask)
                snprintf(path, sizeof(path), "/v1/rollback%s%s%s", x->key[0] ? "?idempotency_key=" : "", x->key,
                         !x->ask->no_gate ? "" : x->key[0] ? "&no_gate=true" : "?no_gate=true");
        else    /* a remove rollout's step takes its layer out (body {"policy": NAME}), answered as an apply */
                snprintf(path, sizeof(path), "/v1/%s?confirm_timeout_s=%u%s%s",
                         streq(g->r->kind, "remove") ? "remove" : "apply", g->r->opts.confirm_timeout_s,
                         x->n->key[0] ? "&idempotency_key=" : "", x->n->key);
        return http_url(q->url, sizeof(q->url), x->n->url, path);
}

/*
 * Send each of sent[0..n) its request at once; on_done records each answer. Rollbacks
 * an older agent refused for expect_revision are sent again without it, at once: its
 * history was read just before (the check the precondition makes atomic on newer agents).
 */
static int fan_out(struct engine *g, struct sent *sent, unsigned n, const char *what, unsigned wave)
{
        struct http_req *reqs = calloc(n + 1, sizeof(*reqs));
        struct http_req **ptrs = calloc(n + 1, sizeof(*ptrs));
        unsigned timeout_ms = g->apply_timeout_ms ? g->apply_timeout_ms : g->env->timeout_s * 1000;
        /*
         * A wave's connections are kept from its applies to its confirms, as many as the
         * client keeps: the last ones sent, which rollout_settle() confirms first. The
         * others are closed after their apply, so that a full cache never drops kept ones.
         */
        unsigned keep = http_client_keep(g->env->http, n);
        int r = 0;

        if (!reqs || !ptrs) {
                free(reqs);
                free(ptrs);
                return errbuf_set(g->e, ENOMEM, "", "out of memory");
        }
        output_progress_begin(&g->prog, g->env->progress, what, wave, g->r->n_waves, n);
        for (unsigned round = 0; round < 2 && r >= 0; round++) {
                unsigned k = 0;

                for (unsigned i = 0; i < n && r >= 0; i++)
                        if (round == 0 || sent[i].older_agent) {
                                r = request_of(g, &sent[i], &reqs[k], timeout_ms, i + keep < n);
                                ptrs[k] = &reqs[k];
                                k++;
                        }
                if (r < 0)
                        r = errbuf_set(g->e, -r, "", "cannot send requests: %s", strerror(-r));
                /* The rollbacks sent again: the first round's answers durable before them. */
                if (r >= 0 && k > 0 && round > 0)
                        r = step_barrier(g);
                if (r >= 0 && k > 0) {
                        STEP_WRITTEN_AHEAD(g->env->store);
                        r = http_run(g->env->http, ptrs, k, timeout_ms + 10000, on_done, g);
                        if (r < 0)
                                r = errbuf_set(g->e, -r, "", "cannot send requests: %s", strerror(-r));
                }
                for (unsigned i = 0; i < k; i++)
                        http_req_done(&reqs[i]);
        }
        output_progress_end(&g->prog);
        free(reqs);
        free(ptrs);
        return r;
}

int step_apply(struct engine *g, struct rnode **nodes, unsigned n, unsigned wave)
{
        struct sent *sent = calloc(n + 1, sizeof(*sent));
        int r;

        if (!sent)
                return errbuf_set(g->e, ENOMEM, "", "out of memory");
        for (unsigned i = 0; i < n; i++)
                sent[i].n = nodes[i];
        r = fan_out(g, sent, n, streq(g->r->kind, "remove") ? "remove" : "apply", wave);
        free(sent);
        return r;
}

int step_rollback(struct engine *g, struct rnode **nodes, unsigned n, const struct rollback_ask *asks,
                  struct rollback_outcome *out, bool journal, unsigned wave)
{
        struct sent *sent = calloc(n + 1, sizeof(*sent));
        struct rollback_outcome *own = out ? NULL : calloc(n + 1, sizeof(*own));
        int r;

        if (!sent || (!out && !own)) {
                free(sent);
                free(own);
                return errbuf_set(g->e, ENOMEM, "", "out of memory");
        }
        for (unsigned i = 0; i < n; i++) {
                char key[STORE_KEY_MAX - 3];

                sent[i] = (struct sent) { .n = nodes[i], .ask = &asks[i], .out = out ? &out[i] : &own[i] };
                /*
                 * A key of its own, so that a copy sent again (libcurl does when a reused
                 * connection dies unanswered) gets this rollback's answer, not a refused
                 * precondition: the first copy changed the revision it names.
                 */
                rollout_node_key(g->r->id, wave, i, key, sizeof(key));
                snprintf(sent[i].key, sizeof(sent[i].key), "rb-%s", key);
        }
        g->rollback_journal = journal;
        r = fan_out(g, sent, n, "rollback", wave);
        free(sent);
        free(own);
        return r;
}

/* A node whose change committed and names its transaction: GET /v1/transactions/T says its revision. */
static bool committed_tx(const struct rnode *x)
{
        return x->state == RNODE_COMMITTED && x->tx[0];
}

/* A node its rollout sent an apply (a key) whose revisions are not on record yet, and whose agent can say. */
static bool revs_wanted(const struct rnode *x, unsigned w)
{
        if ((w != ENGINE_NO_WAVE && x->wave != w) || !x->key[0])
                return false;
        if (committed_tx(x))
                return x->rev == 0;
        return x->pre_rev < 0 && x->state != RNODE_PLANNED && x->state != RNODE_APPLYING;
}

/* What a node's agent says of its revisions, into the node: rev and pre_rev, exactly. */
static bool take_revs(struct rnode *x, const struct node_revision *nr)
{
        const struct reply_revision *v = &nr->v;

        if (!nr->read || !v->found) {
                /* its apply never arrived: the revision current now is the one from before */
                if (nr->read && !v->found && v->known && x->pre_rev < 0 && !committed_tx(x)) {
                        x->pre_rev = v->rev;
                        return true;
                }
                return false;
        }
        if (streq(v->ours.state, "committed") && v->ours.rev > 0) {
                x->rev = v->ours.rev;
                x->pre_rev = v->ours.rev - 1;   /* nothing else commits on a node while a change is pending */
                return true;
        }
        if (v->before_rev >= 0 && x->pre_rev < 0) {
                x->pre_rev = v->before_rev;
                return true;
        }
        return false;
}

int step_record_revs(struct engine *g, unsigned w)
{
        struct rollout_rec *r = g->r;
        struct node_revision *nr = NULL;
        unsigned n = 0, k = 0;
        int rc;

        for (unsigned i = 0; i < r->n_nodes; i++)
                if (revs_wanted(&r->nodes[i], w))
                        g->sel[n++] = &r->nodes[i];
        if (n == 0)
                return 0;
        nr = calloc(n, sizeof(*nr));
        if (!nr)
                return errbuf_set(g->e, ENOMEM, "", "out of memory");
        rc = rollout_revisions(g->env, g->sel, n, committed_tx, nr, g->e);
        for (unsigned i = 0; rc >= 0 && i < n; i++)
                if (take_revs(g->sel[i], &nr[i]))
                        g->sel[k++] = g->sel[i];
        free(nr);
        if (rc >= 0)
                step_record_nodes(g, g->sel, k, ENGINE_NO_WAVE);
        return rc;
}

static void on_settled(struct rnode *n, void *ud)
{
        struct engine *g = ud;

        step_record_answer(g, n);
        output_progress_node(&g->prog, n, n->state != RNODE_COMMITTED && n->state != RNODE_CANCELLED);
}

int step_settle(struct engine *g, struct rnode **nodes, unsigned n, const enum settle_goal *goals,
                const long long *until_ms, const char *what, unsigned wave)
{
        int r;

        if (n == 0)
                return 0;
        output_progress_begin(&g->prog, g->env->progress, what, wave, g->r->n_waves, n);
        r = rollout_settle(g->env, nodes, n, goals, until_ms, on_settled, g, g->e);
        output_progress_end(&g->prog);
        return r;
}

long long step_settle_until(const struct engine *g, const struct rnode *n, long long now)
{
        /* An agent's deadline lies within a confirm timeout of its answer: never wait longer than that. */
        long long cap = now + g->r->opts.confirm_timeout_s * 1000LL;
        long long d = n->confirm_deadline_ms > 0 && n->confirm_deadline_ms < cap ? n->confirm_deadline_ms : cap;

        return d + SETTLE_MARGIN_MS;
}
