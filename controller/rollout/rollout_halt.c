/* SPDX-License-Identifier: MIT */
/* Halting a rollout, and learning what became of changes whose outcome nobody could tell yet. */
#include "controller/cmd/ctl.h"
#include "controller/rollout/rollout_internal.h"

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
 * history shows the change is still theirs to undo; the others say why not.
 */
static int rollback_committed(struct engine *g, struct rnode **sel, unsigned w, bool *checked)
{
        struct rollout_rec *r = g->r;
        enum rollback_check *verdicts = NULL;
        char (*why)[STORE_ERR_MAX] = NULL;
        long long *revs = NULL;
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
        why = calloc(k, sizeof(*why));
        revs = calloc(k, sizeof(*revs));
        if (!verdicts || !why || !revs) {
                rc = errbuf_set(g->e, ENOMEM, "", "out of memory");
                goto out;
        }
        rc = rollout_rollback_check(g->env, sel, k, verdicts, why, revs, g->e);
        for (unsigned i = 0; rc >= 0 && i < k; i++) {
                struct rnode *n = sel[i];

                if (verdicts[i] == ROLLBACK_SEND) {
                        revs[send] = revs[i];
                        sel[send++] = n;
                        continue;
                }
                if (verdicts[i] == ROLLBACK_DONE)
                        n->state = RNODE_ROLLED_BACK;
                engine_node_error(n, "%s", why[i]);
                rc = engine_journal_node(g, n);
        }
        if (rc >= 0)
                rc = engine_fan_out_rollback(g, sel, send, "{}", revs, w);
out:
        free(verdicts);
        free(why);
        free(revs);
        return rc;
}

/* Settle every unknown node (asked again) and, when halting, every pending one (cancelled). */
static int settle_open(struct engine *g, struct rnode **sel, bool cancel_pending, const char *what, unsigned w)
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
                until[k] = engine_settle_until(g, n, now);
                sel[k++] = n;
        }
        rc = engine_settle(g, sel, k, goals, until, what, w);
        free(goals);
        free(until);
        return rc;
}

int engine_halt(struct engine *g, struct rnode **sel, unsigned w)
{
        struct rollout_rec *r = g->r;
        bool *checked = calloc(r->n_nodes + 1, sizeof(*checked));
        unsigned k = 0;
        int rc;

        if (!checked)
                return errbuf_set(g->e, ENOMEM, "", "out of memory");
        for (unsigned i = 0; i < r->n_nodes; i++)
                if (r->nodes[i].state == RNODE_PLANNED) {
                        r->nodes[i].state = RNODE_SKIPPED;
                        sel[k++] = &r->nodes[i];
                }
        rc = engine_journal_nodes(g, sel, k, ENGINE_NO_WAVE);
        if (rc >= 0)
                rc = rollback_committed(g, sel, w, checked);
        /* Pending changes of the halted wave are cancelled; outcomes nobody knew yet are asked again. */
        if (rc >= 0)
                rc = settle_open(g, sel, true, "cancel", w);
        /* What turned out to have committed meanwhile is rolled back like the rest. */
        if (rc >= 0)
                rc = rollback_committed(g, sel, w, checked);
        free(checked);
        return rc;
}

int engine_resolve_unknown(struct engine *g, struct rnode **sel)
{
        return settle_open(g, sel, false, "resolve", ENGINE_NO_WAVE);
}
