/* SPDX-License-Identifier: MIT */
/* The rollout state machine: waves, verdicts, confirmations, resume. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <time.h>

#include "controller/cmd/ctl.h"
#include "controller/fleet/fleet.h"
#include "controller/rollout/rollout_internal.h"

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

void engine_node_error(struct rnode *n, const char *fmt, ...)
{
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(n->error, sizeof(n->error), fmt, ap);
        va_end(ap);
}

int engine_journal_node(struct engine *g, const struct rnode *n)
{
        int r;

        if (g->store_err < 0)
                return g->store_err;
        r = store_node_update(g->env->store, g->r, n, g->e);
        if (r < 0)
                g->store_err = r;
        return r;
}

int engine_journal_nodes(struct engine *g, struct rnode **nodes, unsigned n, unsigned w)
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

int engine_journal_wave(struct engine *g, unsigned w, enum rwave_state s)
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

bool engine_failed_state(enum rnode_state s)
{
        return s == RNODE_FAILED || s == RNODE_UNREACHABLE || s == RNODE_UNKNOWN || s == RNODE_REVERTED;
}

unsigned engine_select(struct rollout_rec *r, struct rnode **out, unsigned wave, bool any_wave, enum rnode_state s)
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
                if ((any_wave || r->nodes[i].wave == wave) && engine_failed_state(r->nodes[i].state))
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
                        engine_node_error(n, "its apply was not delivered: %s", buf);
                } else {
                        engine_node_error(n, "no answer to its apply: %s", buf);
                }
                return;
        }
        if (reply_parse_apply(q->resp, q->resp_len, &a, &pe) < 0) {
                if (q->status >= 400) {
                        n->state = RNODE_FAILED;
                        engine_node_error(n, "%s", reply_error_text(q->status, q->resp, q->resp_len, buf, sizeof(buf)));
                } else {
                        engine_node_error(n, "its apply's answer is unreadable: %.200s", pe.msg);
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
                        engine_node_error(n, "pending without a transaction id");
                /* An agent that does not say when it restores the change: at the latest a timeout from now. */
                n->confirm_deadline_ms = a.confirm_deadline_ms > 0 ? a.confirm_deadline_ms :
                                         rollout_now_ms() + g->r->opts.confirm_timeout_s * 1000LL;
        } else if (a.exit_code == 0) {
                n->state = RNODE_COMMITTED;
        } else {
                n->state = RNODE_FAILED;
                engine_node_error(n, "%s%s%s%s%s", a.result[0] ? a.result : "failed",
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
                engine_node_error(n, "rollback failed: %s", why);
        }
        engine_journal_node(g, n);
        output_progress_node(&g->prog, n, g->rollback_verb ? n->state != RNODE_ROLLED_BACK :
                             engine_failed_state(n->state));
}

/* Send one apply or rollback per node concurrently; on_done records each answer. */
static int fan_out(struct engine *g, struct rnode **nodes, unsigned n, bool rollback, const char *body,
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

int engine_fan_out_rollback(struct engine *g, struct rnode **nodes, unsigned n, const char *body, unsigned wave)
{
        return fan_out(g, nodes, n, true, body, wave);
}

static void on_settled(struct rnode *n, void *ud)
{
        struct engine *g = ud;

        engine_journal_node(g, n);
        output_progress_node(&g->prog, n, n->state != RNODE_COMMITTED && n->state != RNODE_CANCELLED);
}

int engine_settle(struct engine *g, struct rnode **nodes, unsigned n, const enum settle_goal *goals,
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

long long engine_settle_until(const struct engine *g, const struct rnode *n, long long now)
{
        /* An agent's deadline lies within a confirm timeout of its answer: never wait longer than that. */
        long long cap = now + g->r->opts.confirm_timeout_s * 1000LL;
        long long d = n->confirm_deadline_ms > 0 && n->confirm_deadline_ms < cap ? n->confirm_deadline_ms : cap;

        return d + SETTLE_MARGIN_MS;
}

/*
 * Journal the wave and its nodes as applying, each with the idempotency key of
 * its node step (a node planned again after a reconcile keeps its key), then
 * send the applies. Nodes left without an answer are asked by key what they did.
 */
static int apply_wave(struct engine *g, struct rnode **sel, unsigned w)
{
        struct rollout_rec *r = g->r;
        struct rwave *wv = &r->waves[w];
        unsigned n = engine_select(r, sel, w, false, RNODE_PLANNED);
        int rc;

        wv->started_at = (long long)time(NULL);
        wv->deadline = wv->started_at + g->env->timeout_s + 10 + r->opts.confirm_timeout_s;
        wv->state = RWAVE_APPLYING;
        for (unsigned i = 0; i < n; i++) {
                sel[i]->state = RNODE_APPLYING;
                sel[i]->confirm_deadline_ms = sel[i]->not_after_ms = 0;
                if (!sel[i]->key[0])
                        rollout_node_key(r->id, w, (unsigned)(sel[i] - r->nodes), sel[i]->key, sizeof(sel[i]->key));
        }
        rc = engine_journal_nodes(g, sel, n, w);
        if (rc >= 0)
                rc = fan_out(g, sel, n, false, r->policy_doc, w);
        if (rc < 0)
                return rc;
        n = engine_select(r, sel, w, false, RNODE_APPLYING);
        if (n > 0) {
                rc = rollout_reconcile(g->env, sel, n, true, g->e);
                if (rc >= 0)
                        rc = engine_journal_nodes(g, sel, n, ENGINE_NO_WAVE);
                if (rc < 0)
                        return rc;
        }
        /* Every answer is in: pending nodes are restored confirm_timeout_s from now at the latest. */
        wv->deadline = (long long)time(NULL) + r->opts.confirm_timeout_s;
        return engine_journal_wave(g, w, RWAVE_APPLYING);
}

static bool canary_wave(const struct rollout_rec *r, unsigned w)
{
        return w == 0 && r->opts.canary > 0;
}

static bool over_budget(const struct rollout_rec *r, unsigned w)
{
        return rollout_should_halt(&r->opts, r->n_nodes, canary_wave(r, w), count_failed(r, false, w),
                                   count_failed(r, true, 0));
}

/*
 * After the applies: halt, or pass (journaled before any confirmation). The
 * fabric gate, when the policy has one, measures before the verdict is journaled.
 * Returns 1 to halt.
 */
static int verdict(struct engine *g, unsigned w)
{
        bool halt = over_budget(g->r, w);
        int rc = !halt && g->fabric ? rollout_fabric_after(g->fabric, g->env, g->r, w, g->e) : 0;

        if (rc < 0)
                return rc;
        halt |= rc > 0;
        rc = engine_journal_wave(g, w, halt ? RWAVE_HALTED : RWAVE_PASSED);

        return rc < 0 ? rc : halt;
}

/*
 * Confirm the pending nodes sel[0..n): the confirm window ends a request timeout
 * from now, and no node's confirm may commit after its agent's own deadline or
 * after that window (not_after_ms, journaled before the confirms are sent). Each
 * node is settled: committed, reverted, or unknown once the window is over.
 */
static int confirm_nodes(struct engine *g, struct rnode **sel, unsigned n, unsigned w)
{
        long long now = rollout_now_ms(), end = now + g->env->timeout_s * 1000LL;
        enum settle_goal *goals = calloc(n + 1, sizeof(*goals));
        long long *until = calloc(n + 1, sizeof(*until));
        int rc;

        if (!goals || !until) {
                free(goals);
                free(until);
                return errbuf_set(g->e, ENOMEM, "", "out of memory");
        }
        for (unsigned i = 0; i < n; i++) {
                long long d = sel[i]->confirm_deadline_ms;

                sel[i]->not_after_ms = d > 0 && d < end ? d : end;
                sel[i]->error[0] = '\0';
                goals[i] = SETTLE_COMMIT;
                until[i] = sel[i]->not_after_ms + SETTLE_MARGIN_MS;
        }
        if (w != ENGINE_NO_WAVE)
                g->r->waves[w].deadline = (end + 999) / 1000;
        rc = engine_journal_nodes(g, sel, n, w);
        if (rc >= 0)
                rc = engine_settle(g, sel, n, goals, until, "confirm", w);
        free(goals);
        free(until);
        return rc;
}

/*
 * Confirm a passed wave's pending nodes. Returns 1 if failures now exceed the
 * budget (halted), 0 otherwise (done, or planned again when some of its nodes are
 * to be applied again after a resume).
 */
static int confirm_wave(struct engine *g, struct rnode **sel, unsigned w)
{
        struct rollout_rec *r = g->r;
        unsigned n = engine_select(r, sel, w, false, RNODE_PENDING);
        int rc;

        if (r->opts.no_confirm)
                return 0;
        rc = confirm_nodes(g, sel, n, w);
        if (rc < 0)
                return rc;
        if (over_budget(r, w)) {
                rc = engine_journal_wave(g, w, RWAVE_HALTED);
                return rc < 0 ? rc : 1;
        }
        return engine_journal_wave(g, w, engine_select(r, sel, w, false, RNODE_PLANNED) ? RWAVE_PLANNED : RWAVE_DONE);
}

/* Drive one wave to done (0) or halted (1); a wave found mid-way was interrupted and is resumed. */
static int run_wave(struct engine *g, struct rnode **sel, unsigned w)
{
        struct rwave *wv = &g->r->waves[w];
        bool resumed = wv->state == RWAVE_APPLYING || wv->state == RWAVE_PASSED;
        int rc = 0;

        if (resumed)
                rc = engine_resume_wave(g, sel, w);
        while (rc >= 0) {
                switch (wv->state) {
                case RWAVE_DONE:
                        return 0;
                case RWAVE_HALTED:
                        return 1;
                case RWAVE_PLANNED:
                        rc = g->fabric ? rollout_fabric_before(g->fabric, g->env, g->r, w, g->e) : 0;
                        if (rc > 0)     /* no baseline: the wave is not applied */
                                rc = engine_journal_wave(g, w, RWAVE_HALTED) < 0 ? g->store_err : 1;
                        else if (rc == 0)
                                rc = apply_wave(g, sel, w);
                        break;
                case RWAVE_APPLYING:
                        rc = verdict(g, w);
                        break;
                case RWAVE_PASSED:
                        if (!g->r->opts.no_confirm)
                                rc = confirm_wave(g, sel, w);
                        else if (engine_select(g->r, sel, w, false, RNODE_PLANNED) > 0)
                                rc = engine_journal_wave(g, w, RWAVE_PLANNED);         /* to apply again */
                        else
                                return 0;                                               /* left pending */
                        break;
                default:
                        return errbuf_set(g->e, EINVAL, "", "wave %u is in no known state", w + 1);
                }
                if (rc == 1)
                        return 1;
        }
        return rc;
}

static void append_unknown(const struct rollout_rec *r, char *buf, size_t size)
{
        size_t len = strlen(buf);
        unsigned k = 0;

        for (unsigned i = 0; i < r->n_nodes && len + 40 < size; i++) {
                if (r->nodes[i].state != RNODE_UNKNOWN)
                        continue;
                snprintf(buf + len, size - len, "%s%s", k++ ? ", " : "; outcome unknown (agent not answering): ",
                         r->nodes[i].name);
                len = strlen(buf);
        }
}

void engine_finish(struct engine *g, bool halted)
{
        struct rollout_rec *r = g->r;
        unsigned counts[RNODE_STATE_MAX];
        unsigned failed, budget = rollout_budget(r->opts.max_unavailable, r->n_nodes);

        output_count_states(r, counts);
        failed = counts[RNODE_FAILED] + counts[RNODE_UNREACHABLE] + counts[RNODE_UNKNOWN] + counts[RNODE_REVERTED];
        if (halted) {
                bool touched = counts[RNODE_REVERTED] || counts[RNODE_ROLLED_BACK] || counts[RNODE_CANCELLED];

                for (unsigned i = 0; i < r->n_nodes; i++)
                        touched |= r->nodes[i].state == RNODE_FAILED && r->nodes[i].exit_code == 1;
                r->state = ROLLOUT_HALTED;
                r->exit_code = touched && !counts[RNODE_UNKNOWN] ? OUTCOME_ROLLED_BACK : OUTCOME_RUNTIME;
                if (rollout_fabric_reason(g->fabric)[0])
                        snprintf(r->message, sizeof(r->message),
                                 "halted by the %.170s; %u rolled back, %u cancelled, %u reverted, %u skipped",
                                 rollout_fabric_reason(g->fabric), counts[RNODE_ROLLED_BACK], counts[RNODE_CANCELLED],
                                 counts[RNODE_REVERTED], counts[RNODE_SKIPPED]);
                else
                        snprintf(r->message, sizeof(r->message),
                                 "halted: %u node%s failed (budget %u); %u rolled back, %u cancelled, %u reverted, %u skipped",
                                 failed, failed == 1 ? "" : "s", budget, counts[RNODE_ROLLED_BACK], counts[RNODE_CANCELLED],
                                 counts[RNODE_REVERTED], counts[RNODE_SKIPPED]);
        } else if (counts[RNODE_PENDING]) {
                r->state = ROLLOUT_PENDING;
                r->exit_code = OUTCOME_PENDING;
                snprintf(r->message, sizeof(r->message),
                         "%u nodes pending: run 'nettunectl confirm %lld' before their agents' confirm deadline "
                         "(%u s after each applied) or they are restored", counts[RNODE_PENDING], r->id,
                         r->opts.confirm_timeout_s);
        } else {
                r->state = ROLLOUT_COMPLETED;
                r->exit_code = failed ? OUTCOME_RUNTIME : OUTCOME_OK;
                snprintf(r->message, sizeof(r->message), "%u committed, %u failed (budget %u)",
                         counts[RNODE_COMMITTED], failed, budget);
        }
        append_unknown(r, r->message, sizeof(r->message));
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
                        rc = engine_halt(&g, sel, w);
                        break;
                }
        }
        if (rc == 0 && !halted)
                rc = engine_resolve_unknown(&g, sel);
        free(sel);
        if (env->fabric_log && rollout_fabric_log(g.fabric))
                json_array_extend(env->fabric_log, rollout_fabric_log(g.fabric));
        if (rc < 0) {
                rollout_fabric_free(g.fabric);
                return rc;
        }
        engine_finish(&g, halted);
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
        n = engine_select(r, sel, 0, true, RNODE_PENDING);
        rc = confirm_nodes(&g, sel, n, ENGINE_NO_WAVE);
        if (rc >= 0)
                rc = engine_resolve_unknown(&g, sel);
        free(sel);
        if (rc < 0)
                return rc;
        for (unsigned w = 0; w < r->n_waves; w++)
                if (r->waves[w].state == RWAVE_PASSED)
                        engine_journal_wave(&g, w, RWAVE_DONE);
        r->opts.no_confirm = false;
        engine_finish(&g, false);
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
        rc = fan_out(&g, sel, n, true, body, 0);
        free(sel);
        return rc;
}
