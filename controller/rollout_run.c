/* SPDX-License-Identifier: MIT */
/* The rollout state machine: waves, verdicts, confirmations, halts, resume. */
#include <math.h>
#include <stdarg.h>
#include <time.h>

#include "ctl.h"
#include "output.h"
#include "reply.h"
#include "rollout_fabric.h"
#include "rollout_reconcile.h"
#include "rollout_run.h"

struct engine {
        const struct rollout_run_env *env;
        struct rollout_rec *r;
        struct errbuf *e;
        int store_err;
        struct output_progress prog;
        int verb;                       /* enum verb of the fan-out in progress */
        struct rollout_fabric *fabric;  /* verify.fabric's gate, NULL without one */
};

enum verb { VERB_APPLY, VERB_CONFIRM, VERB_ROLLBACK };

struct rollout_rec *rollout_rec_new(const char *kind, const char *policy_name, const char *doc,
                                    const char *args, const struct rollout_opts *o,
                                    const struct inventory_node *const *nodes, unsigned n)
{
        struct rollout_rec *r = calloc(1, sizeof(*r));
        unsigned *wave = calloc(n + 1, sizeof(*wave));

        if (!r || !wave)
                goto fail;
        snprintf(r->kind, sizeof(r->kind), "%s", kind);
        snprintf(r->policy_name, sizeof(r->policy_name), "%s", policy_name);
        r->policy_doc = doc ? strdup(doc) : NULL;
        r->args = args ? strdup(args) : NULL;
        r->opts = *o;
        r->state = ROLLOUT_RUNNING;
        r->created_at = r->updated_at = (long long)time(NULL);
        r->exit_code = -1;
        r->n_waves = rollout_plan(o, n, wave);
        r->nodes = calloc(n + 1, sizeof(*r->nodes));
        r->waves = calloc(r->n_waves + 1, sizeof(*r->waves));
        if ((doc && !r->policy_doc) || (args && !r->args) || !r->nodes || !r->waves)
                goto fail;
        r->n_nodes = n;
        for (unsigned i = 0; i < n; i++) {
                struct rnode *x = &r->nodes[i];

                snprintf(x->name, sizeof(x->name), "%s", nodes[i]->name);
                snprintf(x->url, sizeof(x->url), "%s", nodes[i]->url);
                x->wave = wave[i];
                x->exit_code = -1;
                x->baseline_gbps = x->post_gbps = NAN;
        }
        free(wave);
        return r;
fail:
        free(wave);
        rollout_rec_free(r);
        return NULL;
}

static void node_error(struct rnode *n, const char *fmt, ...) _printf_(2, 3);
static void node_error(struct rnode *n, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(n->error, sizeof(n->error), fmt, ap);
        va_end(ap);
}

static int journal_node(struct engine *g, const struct rnode *n)
{
        int r;

        if (g->store_err < 0)
                return g->store_err;
        r = store_node_update(g->env->store, g->r, n, g->e);
        if (r < 0)
                g->store_err = r;
        return r;
}

static int journal_wave(struct engine *g, unsigned w, enum rwave_state s)
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

static bool failed_state(enum rnode_state s)
{
        return s == RNODE_FAILED || s == RNODE_UNREACHABLE;
}

/* Record one apply answer on its node. */
static void classify_apply(struct rnode *n, const struct http_req *q)
{
        struct errbuf pe = { 0 };
        struct reply_apply a;
        char buf[400];

        if (q->err < 0) {
                n->state = RNODE_UNREACHABLE;
                node_error(n, "%s; if it applied, it reverts by itself", http_req_error(q, buf, sizeof(buf)));
                return;
        }
        if (reply_parse_apply(q->resp, q->resp_len, &a, &pe) < 0) {
                n->state = RNODE_FAILED;
                if (q->status >= 400)
                        node_error(n, "%s", reply_error_text(q->status, q->resp, q->resp_len, buf, sizeof(buf)));
                else
                        node_error(n, "invalid answer: %s", pe.msg);
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
                        node_error(n, "pending without a transaction id");
        } else if (a.exit_code == 0) {
                n->state = RNODE_COMMITTED;
        } else {
                n->state = RNODE_FAILED;
                node_error(n, "%s%s%s%s%s", a.result[0] ? a.result : "failed",
                           a.restored_by[0] ? " by " : "", a.restored_by, a.error[0] ? ": " : "", a.error);
        }
}

/* A confirm or rollback answer: any 2xx whose body (if any) has exit_code 0. */
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

        if (g->verb == VERB_APPLY) {
                classify_apply(n, q);
        } else if (g->verb == VERB_CONFIRM) {
                if (answer_ok(q, why, sizeof(why))) {
                        n->state = RNODE_COMMITTED;
                        n->error[0] = '\0';
                } else {
                        n->state = RNODE_FAILED;
                        node_error(n, "confirm failed: %s; it reverts by itself", why);
                }
        } else if (answer_ok(q, why, sizeof(why))) {
                n->state = RNODE_ROLLED_BACK;
                n->error[0] = '\0';
        } else {
                node_error(n, "rollback failed: %s", why);
        }
        journal_node(g, n);
        output_progress_node(&g->prog, n, g->verb == VERB_ROLLBACK ? n->state != RNODE_ROLLED_BACK :
                             failed_state(n->state));
}

static int build_url(const struct engine *g, const struct rnode *n, enum verb v, char *buf, size_t size)
{
        char path[128];

        if (v == VERB_APPLY)
                snprintf(path, sizeof(path), "/v1/apply?confirm_timeout_s=%u%s%s", g->r->opts.confirm_timeout_s,
                         n->key[0] ? "&idempotency_key=" : "", n->key);
        else if (v == VERB_CONFIRM)
                snprintf(path, sizeof(path), "/v1/confirm/%s", n->tx);
        else
                snprintf(path, sizeof(path), "/v1/rollback");
        return ctl_url(buf, size, n->url, path);
}

/* Send one request per node concurrently; on_done records each answer. */
static int fan_out(struct engine *g, struct rnode **nodes, unsigned n, enum verb v, const char *body,
                   unsigned wave)
{
        static const char *const names[] = { "apply", "confirm", "rollback" };
        struct http_req *reqs = calloc(n + 1, sizeof(*reqs));
        struct http_req **ptrs = calloc(n + 1, sizeof(*ptrs));
        unsigned timeout_ms = g->env->timeout_s * 1000;
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
                r = build_url(g, nodes[i], v, reqs[i].url, sizeof(reqs[i].url));
                ptrs[i] = &reqs[i];
        }
        g->verb = v;
        output_progress_begin(&g->prog, g->env->progress, names[v], wave, g->r->n_waves, n);
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

static unsigned select_nodes(struct rollout_rec *r, struct rnode **out, unsigned wave, bool any_wave,
                             enum rnode_state s)
{
        unsigned k = 0;

        for (unsigned i = 0; i < r->n_nodes; i++)
                if ((any_wave || r->nodes[i].wave == wave) && r->nodes[i].state == s)
                        out[k++] = &r->nodes[i];
        return k;
}

static unsigned count_failed(const struct rollout_rec *r, bool any_wave, unsigned wave)
{
        unsigned k = 0;

        for (unsigned i = 0; i < r->n_nodes; i++)
                if ((any_wave || r->nodes[i].wave == wave) && failed_state(r->nodes[i].state))
                        k++;
        return k;
}

/*
 * Journal the wave and its nodes as applying, each with the idempotency key of
 * its node step (a node planned again after a reconcile keeps its key), then
 * send the applies.
 */
static int apply_wave(struct engine *g, struct rnode **sel, unsigned w)
{
        struct rollout_rec *r = g->r;
        struct rwave *wv = &r->waves[w];
        unsigned n = select_nodes(r, sel, w, false, RNODE_PLANNED);
        int rc;

        wv->started_at = (long long)time(NULL);
        wv->deadline = wv->started_at + g->env->timeout_s + 10 + r->opts.confirm_timeout_s;
        wv->state = RWAVE_APPLYING;
        rc = store_begin(g->env->store, g->e);
        if (rc >= 0)
                rc = store_wave_update(g->env->store, r, w, g->e);
        for (unsigned i = 0; rc >= 0 && i < n; i++) {
                sel[i]->state = RNODE_APPLYING;
                if (!sel[i]->key[0])
                        rollout_node_key(r->id, w, (unsigned)(sel[i] - r->nodes), sel[i]->key, sizeof(sel[i]->key));
                rc = store_node_update(g->env->store, r, sel[i], g->e);
        }
        if (rc >= 0)
                rc = store_commit(g->env->store, g->e);
        if (rc < 0)
                return rc;
        rc = fan_out(g, sel, n, VERB_APPLY, r->policy_doc, w);
        if (rc < 0)
                return rc;
        /* Every answer is in: pending nodes revert confirm_timeout_s from now at the latest. */
        wv->deadline = (long long)time(NULL) + r->opts.confirm_timeout_s;
        return journal_wave(g, w, RWAVE_APPLYING);
}

static bool canary_wave(const struct rollout_rec *r, unsigned w)
{
        return w == 0 && r->opts.canary > 0;
}

/*
 * After the applies: halt, or pass (journaled before any confirmation). The
 * fabric gate, when the policy has one, measures before the verdict is journaled.
 * Returns 1 to halt.
 */
static int verdict(struct engine *g, unsigned w)
{
        struct rollout_rec *r = g->r;
        bool halt = rollout_should_halt(&r->opts, r->n_nodes, canary_wave(r, w),
                                        count_failed(r, false, w), count_failed(r, true, 0));
        int rc = !halt && g->fabric ? rollout_fabric_after(g->fabric, g->env, r, w, g->e) : 0;

        if (rc < 0)
                return rc;
        halt |= rc > 0;
        rc = journal_wave(g, w, halt ? RWAVE_HALTED : RWAVE_PASSED);

        return rc < 0 ? rc : halt;
}

/* Confirm a passed wave's pending nodes. Returns 1 if confirm failures now exceed the budget. */
static int confirm_wave(struct engine *g, struct rnode **sel, unsigned w)
{
        struct rollout_rec *r = g->r;
        unsigned n = select_nodes(r, sel, w, false, RNODE_PENDING);
        int rc;

        if (r->opts.no_confirm)
                return 0;
        rc = fan_out(g, sel, n, VERB_CONFIRM, "{}", w);
        if (rc < 0)
                return rc;
        if (rollout_should_halt(&r->opts, r->n_nodes, canary_wave(r, w), count_failed(r, false, w),
                                count_failed(r, true, 0))) {
                rc = journal_wave(g, w, RWAVE_HALTED);
                return rc < 0 ? rc : 1;
        }
        rc = journal_wave(g, w, RWAVE_DONE);
        return rc;
}

static bool changed_by_us(const struct rnode *n)
{
        return n->state == RNODE_COMMITTED && n->tx[0] && n->changes > 0;
}

/* Halt after wave w: leave pending nodes to revert, roll back confirmed ones, skip the rest. */
static int halt(struct engine *g, struct rnode **sel, unsigned w)
{
        struct rollout_rec *r = g->r;
        unsigned k = 0;
        int rc = store_begin(g->env->store, g->e);

        for (unsigned i = 0; rc >= 0 && i < r->n_nodes; i++) {
                struct rnode *n = &r->nodes[i];

                if (n->state == RNODE_PENDING) {
                        n->state = RNODE_REVERTED;
                        node_error(n, "left unconfirmed: its agent reverts it within %u s",
                                   r->opts.confirm_timeout_s);
                } else if (n->state == RNODE_PLANNED) {
                        n->state = RNODE_SKIPPED;
                } else {
                        continue;
                }
                rc = store_node_update(g->env->store, r, n, g->e);
        }
        if (rc >= 0)
                rc = store_commit(g->env->store, g->e);
        if (rc < 0)
                return rc;
        for (unsigned i = 0; i < r->n_nodes; i++) {
                struct rnode *n = &r->nodes[i];

                if (changed_by_us(n) && (n->wave == w || (r->opts.halt_scope == ROLLOUT_HALT_ALL && n->wave < w)))
                        sel[k++] = n;
        }
        return k ? fan_out(g, sel, k, VERB_ROLLBACK, "{}", w) : 0;
}

static void finish(struct engine *g, bool halted)
{
        struct rollout_rec *r = g->r;
        unsigned counts[RNODE_STATE_MAX];
        unsigned failed;

        output_count_states(r, counts);
        failed = counts[RNODE_FAILED] + counts[RNODE_UNREACHABLE];
        if (halted) {
                bool touched = counts[RNODE_REVERTED] || counts[RNODE_ROLLED_BACK];

                for (unsigned i = 0; i < r->n_nodes; i++)
                        touched |= r->nodes[i].state == RNODE_FAILED && r->nodes[i].exit_code == 1;
                r->state = ROLLOUT_HALTED;
                r->exit_code = touched ? CTL_EXIT_ROLLED_BACK : CTL_EXIT_RUNTIME;
                if (rollout_fabric_reason(g->fabric)[0])
                        snprintf(r->message, sizeof(r->message), "halted by the %.170s; %u rolled back, %u left to "
                                 "revert, %u skipped", rollout_fabric_reason(g->fabric), counts[RNODE_ROLLED_BACK],
                                 counts[RNODE_REVERTED], counts[RNODE_SKIPPED]);
                else
                        snprintf(r->message, sizeof(r->message),
                                 "halted: %u node%s failed (budget %u); %u rolled back, %u left to revert, %u skipped",
                                 failed, failed == 1 ? "" : "s", rollout_budget(r->opts.max_unavailable, r->n_nodes),
                                 counts[RNODE_ROLLED_BACK], counts[RNODE_REVERTED], counts[RNODE_SKIPPED]);
        } else if (counts[RNODE_PENDING]) {
                r->state = ROLLOUT_PENDING;
                r->exit_code = CTL_EXIT_PENDING;
                snprintf(r->message, sizeof(r->message),
                         "%u nodes pending: run 'nettunectl confirm %lld' within %u s or they revert",
                         counts[RNODE_PENDING], r->id, r->opts.confirm_timeout_s);
        } else {
                r->state = ROLLOUT_COMPLETED;
                r->exit_code = failed ? CTL_EXIT_RUNTIME : CTL_EXIT_OK;
                snprintf(r->message, sizeof(r->message), "%u committed, %u failed (budget %u)",
                         counts[RNODE_COMMITTED], failed, rollout_budget(r->opts.max_unavailable, r->n_nodes));
        }
}

/*
 * A wave interrupted before its verdict whose node steps carry no idempotency
 * key (journaled by an older controller): let its unconfirmed nodes revert,
 * then plan it again.
 */
static int recover_wave_unkeyed(struct engine *g, unsigned w)
{
        struct rollout_rec *r = g->r;
        long long wait = r->waves[w].deadline + 2 - (long long)time(NULL);
        int rc = 0;

        if (wait > 0) {
                fprintf(stderr, "resume: wave %u was interrupted before its verdict; waiting %lld s "
                                "for its unconfirmed nodes to revert by themselves\n", w + 1, wait);
                sleep((unsigned)wait);
        }
        rc = store_begin(g->env->store, g->e);
        for (unsigned i = 0; rc >= 0 && i < r->n_nodes; i++) {
                struct rnode *n = &r->nodes[i];

                if (n->wave != w || n->state == RNODE_COMMITTED)
                        continue;
                n->state = RNODE_PLANNED;
                n->tx[0] = n->error[0] = '\0';
                n->exit_code = -1;
                rc = store_node_update(g->env->store, r, n, g->e);
        }
        r->waves[w].state = RWAVE_PLANNED;
        if (rc >= 0)
                rc = store_wave_update(g->env->store, r, w, g->e);
        return rc >= 0 ? store_commit(g->env->store, g->e) : rc;
}

/* Ask the agents of the wave's nodes in state `s` what they did; journal what they said. */
static int reconcile_nodes(struct engine *g, struct rnode **sel, unsigned w, enum rnode_state s)
{
        struct rollout_rec *r = g->r;
        unsigned n = select_nodes(r, sel, w, false, s);
        int rc;

        if (n == 0)
                return 0;
        fprintf(stderr, "resume: asking %u node%s of wave %u what they did\n", n, n == 1 ? "" : "s", w + 1);
        rc = rollout_reconcile(g->env, sel, n, g->e);
        if (rc >= 0)
                rc = store_begin(g->env->store, g->e);
        for (unsigned i = 0; rc >= 0 && i < n; i++)
                rc = store_node_update(g->env->store, r, sel[i], g->e);
        return rc >= 0 ? store_commit(g->env->store, g->e) : rc;
}

/*
 * A wave interrupted before its verdict: every node step sent carries a key,
 * so ask each agent what it did with it. Nodes whose step never arrived are
 * planned again (same key) and the wave is applied again for them only.
 */
static int recover_wave(struct engine *g, struct rnode **sel, unsigned w)
{
        struct rollout_rec *r = g->r;
        unsigned planned;
        int rc;

        for (unsigned i = 0; i < r->n_nodes; i++)
                if (r->nodes[i].wave == w && r->nodes[i].state == RNODE_APPLYING && !r->nodes[i].key[0])
                        return recover_wave_unkeyed(g, w);
        rc = reconcile_nodes(g, sel, w, RNODE_APPLYING);
        planned = select_nodes(r, sel, w, false, RNODE_PLANNED);
        if (rc >= 0 && planned > 0)
                rc = journal_wave(g, w, RWAVE_PLANNED);
        return rc;
}

static int run_wave(struct engine *g, struct rnode **sel, unsigned w)
{
        struct rwave *wv = &g->r->waves[w];
        int rc = 0;

        if (wv->state == RWAVE_DONE)
                return 0;
        if (wv->state == RWAVE_HALTED)
                return 1;
        if (wv->state == RWAVE_APPLYING)
                rc = recover_wave(g, sel, w);
        else if (wv->state == RWAVE_PASSED)             /* resumed: some confirmations may have been sent */
                rc = reconcile_nodes(g, sel, w, RNODE_PENDING);
        if (rc >= 0 && wv->state == RWAVE_PLANNED && g->fabric) {
                rc = rollout_fabric_before(g->fabric, g->env, g->r, w, g->e);
                if (rc > 0)
                        rc = journal_wave(g, w, RWAVE_HALTED) < 0 ? g->store_err : 1;
                if (rc != 0)
                        return rc;
        }
        if (rc >= 0 && wv->state == RWAVE_PLANNED)
                rc = apply_wave(g, sel, w);
        if (rc >= 0 && wv->state == RWAVE_APPLYING) {
                rc = verdict(g, w);
                if (rc != 0)
                        return rc;
        }
        return rc < 0 ? rc : confirm_wave(g, sel, w);
}

int rollout_run(const struct rollout_run_env *env, struct rollout_rec *r, struct errbuf *e)
{
        struct engine g = { .env = env, .r = r, .e = e };
        struct rnode **sel = calloc(r->n_nodes + 1, sizeof(*sel));
        bool halted = false;
        int rc = 0;

        if (!sel)
                return errbuf_set(e, ENOMEM, "", "out of memory");
        rc = rollout_fabric_new(r, &g.fabric, e);
        for (unsigned w = 0; w < r->n_waves && rc == 0; w++) {
                rc = run_wave(&g, sel, w);
                if (rc == 1) {
                        halted = true;
                        rc = halt(&g, sel, w);
                        break;
                }
        }
        free(sel);
        if (env->fabric_log && rollout_fabric_log(g.fabric))
                json_array_extend(env->fabric_log, rollout_fabric_log(g.fabric));
        if (rc < 0) {
                rollout_fabric_free(g.fabric);
                return rc;
        }
        finish(&g, halted);
        rollout_fabric_free(g.fabric);
        rc = store_rollout_update(env->store, r, e);
        return rc < 0 ? rc : r->exit_code;
}

int rollout_run_confirm(const struct rollout_run_env *env, struct rollout_rec *r, struct errbuf *e)
{
        struct engine g = { .env = env, .r = r, .e = e };
        struct rnode **sel = calloc(r->n_nodes + 1, sizeof(*sel));
        unsigned n;
        int rc;

        if (!sel)
                return errbuf_set(e, ENOMEM, "", "out of memory");
        n = select_nodes(r, sel, 0, true, RNODE_PENDING);
        rc = fan_out(&g, sel, n, VERB_CONFIRM, "{}", r->n_waves ? r->n_waves - 1 : 0);
        free(sel);
        if (rc < 0)
                return rc;
        for (unsigned w = 0; w < r->n_waves; w++)
                if (r->waves[w].state == RWAVE_PASSED)
                        journal_wave(&g, w, RWAVE_DONE);
        r->opts.no_confirm = false;
        finish(&g, false);
        rc = g.store_err < 0 ? g.store_err : store_rollout_update(env->store, r, e);
        return rc < 0 ? rc : r->exit_code;
}

int rollout_run_rollback(const struct rollout_run_env *env, struct rollout_rec *r,
                         bool (*want)(const struct rollout_rec *r, const struct rnode *n, void *ud),
                         void *ud, const char *body, struct errbuf *e)
{
        struct engine g = { .env = env, .r = r, .e = e };
        struct rnode **sel = calloc(r->n_nodes + 1, sizeof(*sel));
        unsigned n = 0;
        int rc;

        if (!sel)
                return errbuf_set(e, ENOMEM, "", "out of memory");
        for (unsigned i = 0; i < r->n_nodes; i++)
                if (want(r, &r->nodes[i], ud))
                        sel[n++] = &r->nodes[i];
        rc = fan_out(&g, sel, n, VERB_ROLLBACK, body, 0);
        free(sel);
        return rc;
}
