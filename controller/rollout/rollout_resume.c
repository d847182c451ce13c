/* SPDX-License-Identifier: MIT */
/* Rollouts found interrupted: waves resumed after asking their agents, and the operator's halt. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "controller/cmd/ctl.h"
#include "controller/rollout/rollout_internal.h"

/*
 * A wave interrupted before its verdict whose node steps carry no idempotency
 * key (journaled by an older controller): wait until its agents have restored
 * its unconfirmed nodes (its deadline), then plan it again.
 */
static int recover_wave_unkeyed(struct engine *g, unsigned w)
{
        struct rollout_rec *r = g->r;
        long long wait = r->waves[w].deadline + 2 - (long long)time(NULL);
        int rc = 0;

        if (wait > 0) {
                fprintf(stderr, "resume: wave %u was interrupted before its verdict; waiting %lld s "
                                "for its unconfirmed nodes to be restored by their agents\n", w + 1, wait);
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

/*
 * Resume: ask the agents of wave w's unfinished nodes what they did and journal
 * it. A pending change that its agent restored while nobody was there to confirm
 * it never got its confirmation: that node is planned again, as a new step.
 */
static int reconcile_wave(struct engine *g, struct rnode **sel, unsigned w)
{
        struct rollout_rec *r = g->r;
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
        fprintf(stderr, "resume: asking %u node%s of wave %u what they did\n", n, n == 1 ? "" : "s", w + 1);
        rc = rollout_reconcile(g->env, sel, n, false, g->e);
        for (unsigned i = 0; rc >= 0 && i < n; i++) {
                if (sel[i]->state != RNODE_REVERTED)
                        continue;
                sel[i]->state = RNODE_PLANNED;
                sel[i]->key[0] = sel[i]->error[0] = sel[i]->tx[0] = '\0';
                sel[i]->exit_code = -1;
        }
        return rc >= 0 ? engine_journal_nodes(g, sel, n, ENGINE_NO_WAVE) : rc;
}

/* A resumed wave: its nodes reconciled, then planned again when some are to be applied (again). */
int engine_resume_wave(struct engine *g, struct rnode **sel, unsigned w)
{
        struct rollout_rec *r = g->r;
        int rc;

        if (r->waves[w].state == RWAVE_APPLYING)
                for (unsigned i = 0; i < r->n_nodes; i++)
                        if (r->nodes[i].wave == w && r->nodes[i].state == RNODE_APPLYING && !r->nodes[i].key[0])
                                return recover_wave_unkeyed(g, w);
        rc = reconcile_wave(g, sel, w);
        if (rc >= 0 && r->waves[w].state == RWAVE_APPLYING && engine_select(r, sel, w, false, RNODE_PLANNED) > 0)
                rc = engine_journal_wave(g, w, RWAVE_PLANNED);
        return rc;
}

/* The wave an operator's halt stops: the first one not done, or the last one of a pending rollout. */
static unsigned current_wave(const struct rollout_rec *r)
{
        for (unsigned w = 0; r->state != ROLLOUT_PENDING && w < r->n_waves; w++)
                if (r->waves[w].state != RWAVE_DONE)
                        return w;
        return r->n_waves ? r->n_waves - 1 : 0;
}

int rollout_run_halt(const struct rollout_run_env *env, struct rollout_rec *r, struct errbuf *e)
{
        struct engine g = { .env = env, .r = r, .e = e };
        struct rnode **sel = calloc(r->n_nodes + 1, sizeof(*sel));
        unsigned n = 0, w = current_wave(r);
        int rc = 0;

        if (!sel)
                return errbuf_set(e, ENOMEM, "", "out of memory");
        /* Every unfinished node is asked first: a step in flight by its key, a pending or unknown one by its tx. */
        for (unsigned i = 0; i < r->n_nodes; i++) {
                struct rnode *x = &r->nodes[i];

                if (x->state == RNODE_APPLYING && !x->key[0]) {
                        x->state = RNODE_UNREACHABLE;
                        engine_node_error(x, "its apply carried no idempotency key (an older controller): its agent "
                                          "cannot be asked; nothing confirms a change it may hold");
                } else if (x->state == RNODE_APPLYING || x->state == RNODE_PENDING || x->state == RNODE_UNKNOWN) {
                        sel[n++] = x;
                }
        }
        if (n > 0)
                rc = rollout_reconcile(env, sel, n, false, e);
        for (unsigned i = 0; rc >= 0 && i < n; i++)
                if (sel[i]->state == RNODE_PLANNED)             /* never arrived: skipped by the halt */
                        engine_node_error(sel[i], "its apply never reached its agent before the halt");
        if (rc >= 0)
                rc = engine_journal_nodes(&g, sel, n, ENGINE_NO_WAVE);
        /* A pending rollout's waves all passed and wait for their confirmation: none will come. */
        for (unsigned k = 0; rc >= 0 && k < r->n_waves; k++)
                if (k == w || (r->state == ROLLOUT_PENDING && r->waves[k].state == RWAVE_PASSED))
                        rc = engine_journal_wave(&g, k, RWAVE_HALTED);
        if (rc >= 0)
                rc = engine_halt(&g, sel, w);
        free(sel);
        if (rc < 0)
                return rc;
        engine_finish(&g, true);
        rc = store_rollout_update(env->store, r, e);
        return rc < 0 ? rc : r->exit_code;
}
