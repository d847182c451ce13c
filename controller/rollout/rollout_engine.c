/* SPDX-License-Identifier: MIT */
/*
 * The rollout engine: one state machine for a rollout run, resumed, halted by the
 * operator or confirmed by hand. Each phase does one step and names the next one;
 * drive() is the only loop:
 *
 *   apply, apply --resume   WAVE (wave 1, 2, ...) -> RESOLVE -> FINISH
 *                           a wave that halts: WAVE -> HALT -> FINISH
 *   halt ID                 ASK -> HALT -> FINISH
 *   confirm ID              CONFIRM -> RESOLVE -> FINISH
 *
 * Inside WAVE each wave moves through its stored states (planned -> applying ->
 * passed -> done, or halted); a wave found applying or passed was interrupted and
 * its nodes are asked what they did first. The steps over nodes (journal, fan-out,
 * settle, revisions) are rollout_step.c's, the end state rollout_judge.c's
 * (rollout_end_state); neither calls back here.
 */
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>

#include "controller/rollout/rollout_internal.h"

enum engine_phase {
        PHASE_WAVE,             /* drive wave g->w one state further */
        PHASE_ASK,              /* halt ID: every unfinished node is asked what it did */
        PHASE_CONFIRM,          /* confirm ID: every pending node is confirmed */
        PHASE_HALT,             /* later nodes skipped, changes rolled back or cancelled */
        PHASE_RESOLVE,          /* outcomes nobody knew yet are asked again */
        PHASE_FINISH,           /* the rollout's end state, stored */
        PHASE_DONE,
};

/* The signal that asked the rollout in progress to stop (rollout_request_stop), 0 none. */
static volatile sig_atomic_t stop_sig;

void rollout_request_stop(int sig)
{
        stop_sig = sig ? sig : SIGTERM;
}

/* ---- waiting: the caller's clock, sleep and voice (rollout_run_env) ---- */

static long long engine_now(const struct engine *g)
{
        return rollout_env_now_s(g->env);
}

static void engine_sleep(const struct engine *g, unsigned s)
{
        rollout_env_sleep_s(g->env, s);
}

static void engine_say(const struct engine *g, const char *fmt, ...) _printf_(2, 3);
static void engine_say(const struct engine *g, const char *fmt, ...)
{
        char line[512];
        va_list ap;

        if (!g->env->say)
                return;
        va_start(ap, fmt);
        vsnprintf(line, sizeof(line), fmt, ap);
        va_end(ap);
        g->env->say(g->env->ud, line);
}

/* ---- a wave forward: applies, verdict, confirmations ---- */

/*
 * Journal the wave and its nodes as applying, each with the idempotency key of
 * its node step (a node planned again after a reconcile keeps its key), then
 * send the applies. Nodes left without an answer are asked by key what they did.
 */
static int apply_wave(struct engine *g, unsigned w)
{
        struct rollout_rec *r = g->r;
        struct rwave *wv = &r->waves[w];
        struct rnode **sel = g->sel;
        unsigned n = step_select(r, sel, w, false, RNODE_PLANNED);
        int rc;

        wv->started_at = (long long)time(NULL);
        wv->deadline = wv->started_at + g->apply_timeout_ms / 1000 + 10 + r->opts.confirm_timeout_s;
        wv->state = RWAVE_APPLYING;
        for (unsigned i = 0; i < n; i++) {
                sel[i]->state = RNODE_APPLYING;
                sel[i]->confirm_deadline_ms = sel[i]->not_after_ms = 0;
                if (!sel[i]->key[0])
                        rollout_node_key(r->id, w, (unsigned)(sel[i] - r->nodes), sel[i]->key, sizeof(sel[i]->key));
        }
        step_record_nodes(g, sel, n, w);
        rc = step_barrier(g);
        /*
         * An apply whose answer was lost and that its agent never journaled (its
         * connection failed as it went out) is sent once more with the same key: the
         * agent applies it once whichever copy it gets.
         */
        for (unsigned send = 1; rc >= 0; send++) {
                rc = step_apply(g, sel, n, w);
                n = rc >= 0 ? step_select(r, sel, w, false, RNODE_APPLYING) : 0;   /* no answer */
                if (n == 0)
                        break;
                rc = rollout_reconcile(g->env, sel, n, send == 1 ? RECONCILE_LIVE : RECONCILE_LIVE_LAST, g->e);
                if (rc >= 0)
                        step_record_nodes(g, sel, n, ENGINE_NO_WAVE);
                n = step_select(r, sel, w, false, RNODE_PLANNED);                /* never arrived */
                if (rc < 0 || n == 0 || send > 1)
                        break;
                for (unsigned i = 0; i < n; i++)
                        sel[i]->state = RNODE_APPLYING;
                step_record_nodes(g, sel, n, w);
                rc = step_barrier(g);
        }
        if (rc < 0)
                return rc;
        /*
         * Every answer is in: pending nodes are restored confirm_timeout_s from now at the
         * latest. The earlier deadline goes on record with the verdict.
         */
        wv->deadline = (long long)time(NULL) + r->opts.confirm_timeout_s;
        step_record_wave(g, w, RWAVE_APPLYING);
        return 0;
}

/*
 * After the applies: halt, or pass, noted: durable with the next barrier (the
 * confirmations' journal, before any is sent; a halt's, before its rollbacks). The
 * fabric gate, when the policy has one, measures before the verdict, the answers on
 * record first (it takes seconds).
 */
static int verdict(struct engine *g, unsigned w)
{
        bool halt = rollout_over_budget(g->r, w) || stop_sig;
        int rc = !halt && g->fabric ? step_barrier(g) : 0;

        if (rc >= 0 && !halt && g->fabric)
                rc = rollout_fabric_after(g->fabric, g->env, g->r, w, g->e);
        if (rc < 0)
                return rc;
        halt |= rc > 0;
        step_record_wave(g, w, halt ? RWAVE_HALTED : RWAVE_PASSED);
        return 0;
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
        step_record_nodes(g, sel, n, w);
        rc = n > 0 ? step_barrier(g) : 0;
        if (rc >= 0)
                rc = step_settle(g, sel, n, goals, until, "confirm", w);
        free(goals);
        free(until);
        return rc;
}

/*
 * A passed wave: its pending nodes confirmed, then halted when failures now
 * exceed the budget, else done (or planned again when some of its nodes are to be
 * applied again after a resume), durable with the next barrier. With --no-confirm
 * it stays passed.
 */
static int confirm_wave(struct engine *g, unsigned w)
{
        struct rollout_rec *r = g->r;
        unsigned n = step_select(r, g->sel, w, false, RNODE_PENDING);
        int rc;

        if (r->opts.no_confirm)
                return 0;
        rc = confirm_nodes(g, g->sel, n, w);
        if (rc >= 0)
                rc = step_record_revs(g, w);
        if (rc < 0)
                return rc;
        if (rollout_over_budget(r, w))
                step_record_wave(g, w, RWAVE_HALTED);
        else
                step_record_wave(g, w, step_select(r, g->sel, w, false, RNODE_PLANNED) ? RWAVE_PLANNED : RWAVE_DONE);
        return 0;
}

/* ---- between waves: the soak, and what a person said ---- */

static int stop_if_lost(struct engine *g)
{
        if (store_lease_lost(g->env->store))
                return errbuf_set(g->e, ENOLCK, store_where(g->env->store), "this controller no longer drives "
                                  "rollout %lld: its lease was lost while it waited between waves", g->r->id);
        return 0;
}

/*
 * Before wave w (not the first) starts: the soak after the wave before it
 * (--wave-interval), then what a person said through the store (pause, and with
 * --promote manual the promotion of this wave), read every second. The wave's
 * fabric baseline is measured after this: the gate sees the fabric as the soak
 * left it. A store that keeps no holds (etcd) is never paused.
 */
static int wait_before_wave(struct engine *g, unsigned w)
{
        const struct rollout_rec *r = g->r;
        long long left = g->soak_until - engine_now(g);
        int rc = 0;

        if (w == 0 || g->held)
                return 0;
        if (left > 0) {
                rc = step_barrier(g);
                engine_say(g, "rollout %lld: soaking %lld s before wave %u/%u (--wave-interval; its fabric gate "
                           "measures again after it)", r->id, left, w + 1, r->n_waves);
                while (rc >= 0 && !stop_sig && engine_now(g) < g->soak_until && (rc = stop_if_lost(g)) >= 0)
                        engine_sleep(g, 1);
        }
        for (bool said = false; rc >= 0 && !stop_sig; ) {
                struct store_hold h;
                struct errbuf he = { 0 };

                rc = store_hold_get(g->env->store, r->id, &h, &he);
                if (rc == -EOPNOTSUPP)
                        return 0;
                if (rc < 0) {
                        *g->e = he;
                        return rc;
                }
                if (!h.paused && (!r->opts.promote_manual || h.promoted >= w + 1))
                        break;
                if (!said) {
                        rc = step_barrier(g);
                        if (h.paused)
                                engine_say(g, "rollout %lld: paused by %s before wave %u/%u; 'nettunectl resume "
                                           "%lld' goes on", r->id, h.by, w + 1, r->n_waves, r->id);
                        else
                                engine_say(g, "rollout %lld: wave %u/%u waits for a person: 'nettunectl promote "
                                           "%lld' starts it", r->id, w + 1, r->n_waves, r->id);
                        said = true;
                }
                if (rc >= 0 && (rc = stop_if_lost(g)) >= 0)
                        engine_sleep(g, 1);
        }
        g->held = true;
        return rc;
}

/* ---- a wave found interrupted ---- */

/*
 * A wave interrupted before its verdict whose node steps carry no idempotency
 * key (journaled by an older controller): wait until its agents have restored
 * its unconfirmed nodes (its deadline), then plan it again.
 */
static int recover_wave_unkeyed(struct engine *g, unsigned w)
{
        struct rollout_rec *r = g->r;
        long long wait = r->waves[w].deadline + 2 - engine_now(g);
        int rc = 0;

        if (wait > 0) {
                engine_say(g, "resume: wave %u was interrupted before its verdict; waiting %lld s for its "
                           "unconfirmed nodes to be restored by their agents", w + 1, wait);
                engine_sleep(g, (unsigned)wait);
        }
        for (unsigned i = 0; i < r->n_nodes; i++) {
                struct rnode *n = &r->nodes[i];

                if (n->wave != w || n->state == RNODE_COMMITTED)
                        continue;
                n->state = RNODE_PLANNED;
                n->tx[0] = n->error[0] = '\0';
                n->exit_code = -1;
                step_record_node(g, n);
        }
        step_record_wave(g, w, RWAVE_PLANNED);
        return rc;
}

/*
 * Resume: ask the agents of wave w's unfinished nodes what they did and journal
 * it. A pending change that its agent restored while nobody was there to confirm
 * it never got its confirmation: that node is planned again, as a new step.
 */
static int reconcile_wave(struct engine *g, unsigned w)
{
        struct rollout_rec *r = g->r;
        struct rnode **sel = g->sel;
        unsigned n = 0;
        int rc;

        for (unsigned i = 0; i < r->n_nodes; i++) {
                struct rnode *x = &r->nodes[i];

                if (x->wave == w && (x->state == RNODE_APPLYING || x->state == RNODE_PENDING ||
                                     x->state == RNODE_UNKNOWN))
                        sel[n++] = x;
        }
        if (n == 0)
                return 0;
        engine_say(g, "resume: asking %u node%s of wave %u what they did", n, n == 1 ? "" : "s", w + 1);
        rc = rollout_reconcile(g->env, sel, n, RECONCILE_RESUME, g->e);
        for (unsigned i = 0; rc >= 0 && i < n; i++) {
                if (sel[i]->state != RNODE_REVERTED)
                        continue;
                sel[i]->state = RNODE_PLANNED;
                sel[i]->key[0] = sel[i]->error[0] = sel[i]->tx[0] = '\0';
                sel[i]->exit_code = -1;
        }
        if (rc >= 0)
                step_record_nodes(g, sel, n, ENGINE_NO_WAVE);
        return rc;
}

/* A resumed wave: its nodes reconciled, then planned again when some are to be applied (again). */
static int resume_wave(struct engine *g, unsigned w)
{
        struct rollout_rec *r = g->r;
        int rc;

        if (r->waves[w].state == RWAVE_APPLYING)
                for (unsigned i = 0; i < r->n_nodes; i++)
                        if (r->nodes[i].wave == w && r->nodes[i].state == RNODE_APPLYING && !r->nodes[i].key[0])
                                return recover_wave_unkeyed(g, w);
        rc = reconcile_wave(g, w);
        if (rc >= 0 && r->waves[w].state == RWAVE_APPLYING && step_select(r, g->sel, w, false, RNODE_PLANNED) > 0)
                step_record_wave(g, w, RWAVE_PLANNED);
        return rc;
}

/*
 * PHASE_WAVE: wave g->w one state further. A wave found applying or passed when
 * the engine reaches it was interrupted: it is resumed first. A halted wave
 * leads to the halt; the last wave done (or left pending) to the resolve.
 */
static int phase_wave(struct engine *g, enum engine_phase *next)
{
        struct rwave *wv;
        unsigned w = g->w;
        int rc = 0;

        if (w >= g->r->n_waves) {
                *next = PHASE_RESOLVE;
                return 0;
        }
        wv = &g->r->waves[w];
        if (!g->wave_entered) {
                g->wave_entered = true;
                if (wv->state == RWAVE_APPLYING || wv->state == RWAVE_PASSED)
                        return resume_wave(g, w);
        }
        switch (wv->state) {
        case RWAVE_DONE:
                g->w++;
                g->wave_entered = false;
                g->held = false;
                if (g->r->opts.wave_interval_s)
                        g->soak_until = engine_now(g) + g->r->opts.wave_interval_s;
                return 0;
        case RWAVE_HALTED:
                *next = PHASE_HALT;
                return 0;
        case RWAVE_PLANNED:
                rc = stop_sig ? 0 : wait_before_wave(g, w);
                if (rc < 0)
                        return rc;
                if (stop_sig) { /* asked to stop: the wave is not applied, what is pending is cancelled */
                        step_record_wave(g, w, RWAVE_HALTED);
                        return 0;
                }
                /* the fabric gate measures for seconds: what waits goes on record first */
                rc = g->fabric ? step_barrier(g) : 0;
                if (rc >= 0 && g->fabric)
                        rc = rollout_fabric_before(g->fabric, g->env, g->r, w, g->e);
                if (rc > 0) {   /* no baseline: the wave is not applied */
                        step_record_wave(g, w, RWAVE_HALTED);
                        return 0;
                }
                return rc < 0 ? rc : apply_wave(g, w);
        case RWAVE_APPLYING:
                return verdict(g, w);
        case RWAVE_PASSED:
                if (stop_sig && !g->r->opts.no_confirm) {     /* asked to stop: cancelled, not confirmed */
                        step_record_wave(g, w, RWAVE_HALTED);
                        return 0;
                }
                if (!g->r->opts.no_confirm)
                        return confirm_wave(g, w);
                if (step_select(g->r, g->sel, w, false, RNODE_PLANNED) > 0) {
                        step_record_wave(g, w, RWAVE_PLANNED);                  /* to apply again */
                        return 0;
                }
                g->w++;                                                         /* left pending */
                g->wave_entered = false;
                return 0;
        default:
                return errbuf_set(g->e, EINVAL, "", "wave %u is in no known state", w + 1);
        }
}

/* ---- halting ---- */

static bool in_scope(const struct rollout_rec *r, const struct rnode *n, unsigned w)
{
        return n->wave == w || (r->opts.halt_scope == ROLLOUT_HALT_ALL && n->wave < w);
}

static bool changed_by_us(const struct rnode *n)
{
        return n->state == RNODE_COMMITTED && n->tx[0] && n->changes > 0;
}

/*
 * Roll back the committed nodes in scope (each once: checked[]) whose agent's
 * history shows the change is still theirs to undo, each with expect_revision the
 * revision that change committed as (the agent refuses if it is no longer the
 * current one); the others say why not.
 */
static int rollback_committed(struct engine *g, unsigned w, bool *checked)
{
        struct rollout_rec *r = g->r;
        struct rnode **sel = g->sel;
        struct rollback_verdict *verdicts = NULL;
        struct rollback_ask *asks = NULL;
        unsigned k = 0, send = 0;
        int rc;

        for (unsigned i = 0; i < r->n_nodes; i++)
                if (!checked[i] && changed_by_us(&r->nodes[i]) && in_scope(r, &r->nodes[i], w)) {
                        checked[i] = true;
                        sel[k++] = &r->nodes[i];
                }
        if (k == 0)
                return 0;
        verdicts = calloc(k, sizeof(*verdicts));
        asks = calloc(k, sizeof(*asks));
        if (!verdicts || !asks) {
                rc = errbuf_set(g->e, ENOMEM, "", "out of memory");
                goto out;
        }
        rc = rollout_rollback_check(g->env, sel, k, verdicts, g->e);
        for (unsigned i = 0; rc >= 0 && i < k; i++) {
                struct rnode *n = sel[i];

                if (verdicts[i].check == ROLLBACK_SEND) {
                        /*
                         * a commit whose revision its agent did not say (0) gives no precondition to name;
                         * one that did goes back to the revision before it by number (with several
                         * policies committed, layers, an agent refuses a bare rollback)
                         */
                        asks[send] = (struct rollback_ask) { .expect = verdicts[i].rev > 0 ? verdicts[i].rev : -1,
                                                             .to = verdicts[i].rev > 1 ? verdicts[i].rev - 1 : 0 };
                        sel[send++] = n;
                        continue;
                }
                if (verdicts[i].check == ROLLBACK_DONE) {
                        n->state = RNODE_ROLLED_BACK;
                        snprintf(n->undo_tx, sizeof(n->undo_tx), "%s", verdicts[i].undo_tx);
                }
                step_node_error(n, "%s", verdicts[i].why);
                step_record_node(g, n);
        }
        /* the rollbacks change the nodes: what led to them is durable first */
        if (rc >= 0 && send > 0)
                rc = step_barrier(g);
        if (rc >= 0)
                rc = step_rollback(g, sel, send, asks, NULL, true, w);
out:
        free(verdicts);
        free(asks);
        return rc;
}

/* Settle every unknown node (asked again) and, when halting, every pending one (cancelled). */
static int settle_open(struct engine *g, bool cancel_pending, const char *what, unsigned w)
{
        struct rollout_rec *r = g->r;
        enum settle_goal *goals = calloc(r->n_nodes + 1, sizeof(*goals));
        long long *until = calloc(r->n_nodes + 1, sizeof(*until));
        long long now = rollout_now_ms();
        unsigned k = 0;
        int rc;

        if (!goals || !until) {
                free(goals);
                free(until);
                return errbuf_set(g->e, ENOMEM, "", "out of memory");
        }
        for (unsigned i = 0; i < r->n_nodes; i++) {
                struct rnode *n = &r->nodes[i];

                if (n->state != RNODE_UNKNOWN && !(cancel_pending && n->state == RNODE_PENDING))
                        continue;
                goals[k] = n->state == RNODE_PENDING ? SETTLE_CANCEL : SETTLE_RESOLVE;
                until[k] = step_settle_until(g, n, now);
                g->sel[k++] = n;
        }
        /* cancels change the nodes: what led to them is durable first */
        rc = k > 0 ? step_barrier(g) : 0;
        if (rc >= 0)
                rc = step_settle(g, g->sel, k, goals, until, what, w);
        free(goals);
        free(until);
        return rc;
}

/*
 * PHASE_HALT, after wave g->w: later nodes skipped; the halted wave's committed
 * nodes (every wave's with --rollback-on-halt all) rolled back once their
 * agents' history shows the change is still theirs to undo; pending nodes
 * cancelled; unknown outcomes asked again until their deadline.
 */
static int phase_halt(struct engine *g, enum engine_phase *next)
{
        struct rollout_rec *r = g->r;
        bool *checked = calloc(r->n_nodes + 1, sizeof(*checked));
        unsigned k = 0;
        int rc;

        if (!checked)
                return errbuf_set(g->e, ENOMEM, "", "out of memory");
        /* What every node sent an apply was at before it, on record before anything is undone. */
        rc = step_record_revs(g, ENGINE_NO_WAVE);
        for (unsigned i = 0; rc >= 0 && i < r->n_nodes; i++)
                if (r->nodes[i].state == RNODE_PLANNED) {
                        r->nodes[i].state = RNODE_SKIPPED;
                        g->sel[k++] = &r->nodes[i];
                }
        if (rc >= 0)
                step_record_nodes(g, g->sel, k, ENGINE_NO_WAVE);
        if (rc >= 0)
                rc = rollback_committed(g, g->w, checked);
        /* Pending changes of the halted wave are cancelled; outcomes nobody knew yet are asked again. */
        if (rc >= 0)
                rc = settle_open(g, true, "cancel", g->w);
        /* What turned out to have committed meanwhile is rolled back like the rest. */
        if (rc >= 0)
                rc = rollback_committed(g, g->w, checked);
        free(checked);
        g->halted = true;
        *next = PHASE_FINISH;
        return rc;
}

/* PHASE_RESOLVE: nodes whose outcome is unknown are asked again (cancel) until their deadline has passed. */
static int phase_resolve(struct engine *g, enum engine_phase *next)
{
        *next = PHASE_FINISH;
        return settle_open(g, false, "resolve", ENGINE_NO_WAVE);
}

/* The wave an operator's halt stops: the first one not done, or the last one of a pending rollout. */
static unsigned current_wave(const struct rollout_rec *r)
{
        for (unsigned w = 0; r->state != ROLLOUT_PENDING && w < r->n_waves; w++)
                if (r->waves[w].state != RWAVE_DONE)
                        return w;
        return r->n_waves ? r->n_waves - 1 : 0;
}

/*
 * PHASE_ASK (halt ID): every unfinished node is asked first — a step in flight
 * by its key, a pending or unknown one by its transaction — then the current
 * wave (and every passed wave of a pending rollout) is journaled halted.
 */
static int phase_ask(struct engine *g, enum engine_phase *next)
{
        struct rollout_rec *r = g->r;
        struct rnode **sel = g->sel;
        unsigned n = 0, w = current_wave(r);
        int rc = 0;

        for (unsigned i = 0; i < r->n_nodes; i++) {
                struct rnode *x = &r->nodes[i];

                if (x->state == RNODE_APPLYING && !x->key[0]) {
                        x->state = RNODE_UNREACHABLE;
                        step_node_error(x, "its apply carried no idempotency key (an older controller): its agent "
                                        "cannot be asked; nothing confirms a change it may hold");
                } else if (x->state == RNODE_APPLYING || x->state == RNODE_PENDING || x->state == RNODE_UNKNOWN) {
                        sel[n++] = x;
                }
        }
        if (n > 0)
                rc = rollout_reconcile(g->env, sel, n, RECONCILE_RESUME, g->e);
        for (unsigned i = 0; rc >= 0 && i < n; i++)
                if (sel[i]->state == RNODE_PLANNED)             /* never arrived: skipped by the halt */
                        step_node_error(sel[i], "its apply never reached its agent before the halt");
        if (rc >= 0)
                step_record_nodes(g, sel, n, ENGINE_NO_WAVE);
        /* A pending rollout's waves all passed and wait for their confirmation: none will come. */
        for (unsigned k = 0; rc >= 0 && k < r->n_waves; k++)
                if (k == w || (r->state == ROLLOUT_PENDING && r->waves[k].state == RWAVE_PASSED))
                        step_record_wave(g, k, RWAVE_HALTED);
        g->w = w;
        *next = PHASE_HALT;
        return rc;
}

/* PHASE_CONFIRM (confirm ID): every pending node of every wave is confirmed. */
static int phase_confirm(struct engine *g, enum engine_phase *next)
{
        unsigned n = step_select(g->r, g->sel, 0, true, RNODE_PENDING);
        int rc = confirm_nodes(g, g->sel, n, ENGINE_NO_WAVE);

        *next = PHASE_RESOLVE;
        return rc < 0 ? rc : step_record_revs(g, ENGINE_NO_WAVE);
}

/* ---- the end ---- */

/*
 * PHASE_FINISH: the end state stored. A hand confirmation closes the waves it
 * confirmed and leaves the rollout no longer waiting for one.
 */
static int phase_finish(struct engine *g, enum engine_phase *next)
{
        struct rollout_rec *r = g->r;
        /* outcomes learned at the end (asked again, resolved) keep their revisions too */
        int rc = g->halted ? 0 : step_record_revs(g, ENGINE_NO_WAVE);

        *next = PHASE_DONE;
        if (rc < 0)
                return rc;
        if (g->confirming) {
                for (unsigned w = 0; w < r->n_waves; w++)
                        if (r->waves[w].state == RWAVE_PASSED)
                                step_record_wave(g, w, RWAVE_DONE);
                r->opts.no_confirm = false;
        }
        if (stop_sig && g->halted) {
                char why[96];

                snprintf(why, sizeof(why), "signal %s nettunectl received (Ctrl-C, kill, or its session hung up)",
                         stop_sig == SIGHUP ? "SIGHUP" : stop_sig == SIGINT ? "SIGINT" : stop_sig == SIGTERM ?
                         "SIGTERM" : "to stop");
                rollout_end_state(r, g->halted, why);
        } else {
                rollout_end_state(r, g->halted, rollout_fabric_reason(g->fabric));
        }
        /* the end state with whatever was noted since the last barrier, in one write */
        store_record_rollout(g->env->store, r);
        return step_barrier(g);
}

/* The one loop: each phase does its step and names the next one, until done or an error. */
static int drive(struct engine *g, enum engine_phase p)
{
        int rc = 0;

        while (rc >= 0 && p != PHASE_DONE) {
                switch (p) {
                case PHASE_WAVE:
                        rc = phase_wave(g, &p);
                        break;
                case PHASE_ASK:
                        rc = phase_ask(g, &p);
                        break;
                case PHASE_CONFIRM:
                        rc = phase_confirm(g, &p);
                        break;
                case PHASE_HALT:
                        rc = phase_halt(g, &p);
                        break;
                case PHASE_RESOLVE:
                        rc = phase_resolve(g, &p);
                        break;
                case PHASE_FINISH:
                        rc = phase_finish(g, &p);
                        break;
                default:
                        rc = errbuf_set(g->e, EINVAL, "", "the rollout engine reached no known phase");
                        break;
                }
        }
        return rc;
}

/* Run r from phase p; the exit code, or -errno. */
static int engine_run(const struct rollout_run_env *env, struct rollout_rec *r, enum engine_phase p,
                      struct errbuf *e)
{
        struct engine g = { .env = env, .r = r, .e = e, .confirming = p == PHASE_CONFIRM };
        int rc;

        g.sel = calloc(r->n_nodes + 1, sizeof(*g.sel));
        if (!g.sel)
                return errbuf_set(e, ENOMEM, "", "out of memory");
        g.apply_timeout_ms = rollout_apply_timeout_ms(r->policy_doc, env->timeout_s);
        g.parts = rollout_parts_load(r);
        rc = p == PHASE_WAVE ? rollout_fabric_new(r, &g.fabric, e) : 0;
        if (rc >= 0)
                rc = drive(&g, p);
        json_decref(g.parts);
        /* whatever way it ends, nothing noted is left behind (r may be freed next) */
        if (rc < 0) {
                struct errbuf ignored = { 0 };

                store_barrier(env->store, &ignored);
        }
        if (env->fabric_log && rollout_fabric_log(g.fabric))
                json_array_extend(env->fabric_log, rollout_fabric_log(g.fabric));
        rollout_fabric_free(g.fabric);
        free(g.sel);
        return rc < 0 ? rc : r->exit_code;
}

int rollout_run(const struct rollout_run_env *env, struct rollout_rec *r, struct errbuf *e)
{
        return engine_run(env, r, PHASE_WAVE, e);
}

int rollout_run_halt(const struct rollout_run_env *env, struct rollout_rec *r, struct errbuf *e)
{
        return engine_run(env, r, PHASE_ASK, e);
}

int rollout_run_confirm(const struct rollout_run_env *env, struct rollout_rec *r, struct errbuf *e)
{
        return engine_run(env, r, PHASE_CONFIRM, e);
}
