/* SPDX-License-Identifier: MIT */
/* What an agent's answer says became of a node's change: pure decisions, no I/O. */
#include <stdarg.h>
#include <stdio.h>

#include "common/outcome.h"
#include "controller/rollout/rollout.h"

static const char *const req_names[SETTLE_REQ_MAX] = {
        [SETTLE_REQ_CONFIRM] = "confirm",
        [SETTLE_REQ_CANCEL] = "cancel",
        [SETTLE_REQ_GET] = "transaction query",
};

static bool running_state(const char *s)
{
        return streq(s, "planned") || streq(s, "snapshotted") || streq(s, "applying") || streq(s, "applied") ||
               streq(s, "verifying") || streq(s, "restoring");
}

/* "LEAD (confirm-timeout): the agent's error" */
static void restored_text(char *buf, size_t size, const char *lead, const struct reply_history_tx *h)
{
        snprintf(buf, size, "%s (%.31s)%s%.180s", lead, h->restored_by[0] ? h->restored_by : "rolled back",
                 h->error[0] ? ": " : "", h->error);
}

/* ---- judging answers (pure) ---- */

static void step_final(struct settle_step *s, enum rnode_state state, const char *fmt, ...) _printf_(3, 4);
static void step_final(struct settle_step *s, enum rnode_state state, const char *fmt, ...)
{
        va_list ap;

        s->final = true;
        s->state = state;
        va_start(ap, fmt);
        vsnprintf(s->why, sizeof(s->why), fmt, ap);
        va_end(ap);
}

static void step_next(struct settle_step *s, enum settle_req next, const char *fmt, ...) _printf_(3, 4);
static void step_next(struct settle_step *s, enum settle_req next, const char *fmt, ...)
{
        va_list ap;

        s->final = false;
        s->next = next;
        va_start(ap, fmt);
        vsnprintf(s->why, sizeof(s->why), fmt, ap);
        va_end(ap);
}

/* GET /v1/transactions/T: the journal's word on T. */
static void judge_tx(enum settle_goal goal, const char *tx, long long not_after_ms, long long now_ms,
                     const struct settle_answer *a, struct settle_step *ret)
{
        struct reply_history_tx h;
        struct errbuf pe = { 0 };
        char text[400];

        if (a->status == 404) {
                step_final(ret, RNODE_UNKNOWN, "its agent has no transaction %s: %.200s", tx,
                           reply_error_text(a->status, a->body, a->len, text, sizeof(text)));
                return;
        }
        if (a->status != 200) {
                step_next(ret, SETTLE_REQ_GET, "its transaction query was answered %.300s",
                          reply_error_text(a->status, a->body, a->len, text, sizeof(text)));
                return;
        }
        if (reply_parse_transaction(a->body, a->len, tx, &h, &pe) < 0) {
                step_next(ret, SETTLE_REQ_GET, "its transaction query's answer is unreadable: %.200s", pe.msg);
                return;
        }
        ret->deadline_ms = h.confirm_deadline_ms;
        if (h.now_ms > 0)
                now_ms = h.now_ms;              /* the agent's own clock decides, as it does for the confirm */
        if (streq(h.state, "committed")) {
                step_final(ret, RNODE_COMMITTED, "%s", "");
                ret->rev = h.rev;
        } else if (streq(h.state, "rolled_back")) {
                static const char *const lead[SETTLE_GOAL_MAX] = {
                        [SETTLE_COMMIT] = "restored by its agent",
                        [SETTLE_CANCEL] = "its wave halted; restored by its agent",
                        [SETTLE_RESOLVE] = "its confirm got no answer; restored by its agent",
                };

                restored_text(text, sizeof(text), goal < SETTLE_GOAL_MAX ? lead[goal] : lead[0], &h);
                step_final(ret, goal == SETTLE_CANCEL ? RNODE_CANCELLED : RNODE_REVERTED, "%s", text);
        } else if (streq(h.state, "failed")) {
                step_final(ret, RNODE_FAILED, "its agent could not restore it: %.200s", h.error[0] ? h.error : "failed");
        } else if (streq(h.state, "pending_confirm")) {
                if (goal == SETTLE_COMMIT && now_ms < not_after_ms)
                        step_next(ret, SETTLE_REQ_CONFIRM, "still pending: confirming it again");
                else
                        step_next(ret, SETTLE_REQ_CANCEL, "still pending%s: cancelling it",
                                  goal == SETTLE_COMMIT ? " after its confirm window" : "");
        } else if (running_state(h.state)) {
                step_next(ret, SETTLE_REQ_GET, "its agent is still at work on it (%s)", h.state);
        } else {
                step_next(ret, SETTLE_REQ_GET, "its agent names a state this controller does not know: '%s'", h.state);
        }
}

/* What a 409 expired means: the agent refused the confirm and restored the change right then. */
static void judge_expired(enum settle_goal goal, enum settle_req req, const char *msg, struct settle_step *ret)
{
        if (goal == SETTLE_CANCEL)
                step_final(ret, RNODE_CANCELLED, "its wave halted: cancelled, its agent restored it");
        else if (req == SETTLE_REQ_CONFIRM)
                step_final(ret, RNODE_REVERTED, "its confirm came too late, its agent restored it: %.200s", msg);
        else if (goal == SETTLE_COMMIT)
                step_final(ret, RNODE_REVERTED, "not confirmed within its wave's confirm window: cancelled, its "
                           "agent restored it");
        else
                step_final(ret, RNODE_REVERTED, "its confirm got no answer; cancelled after the confirm's "
                           "deadline: its agent restored it");
}

void settle_judge(enum settle_goal goal, const char *tx, long long not_after_ms, long long now_ms,
                  const struct settle_answer *a, struct settle_step *ret)
{
        struct reply_apply ap;
        struct errbuf pe = { 0 };
        char code[32], text[400];
        const char *what = a->req < SETTLE_REQ_MAX ? req_names[a->req] : "request";

        memset(ret, 0, sizeof(*ret));
        if (a->status == 0) {
                step_next(ret, SETTLE_REQ_GET, "no answer to its %s: %.300s", what, a->transport ? a->transport : "none");
                return;
        }
        if (a->req == SETTLE_REQ_GET) {
                judge_tx(goal, tx, not_after_ms, now_ms, a, ret);
                return;
        }
        if (a->status == 200) {
                if (reply_parse_apply(a->body, a->len, &ap, &pe) < 0)
                        step_next(ret, SETTLE_REQ_GET, "its %s's answer is unreadable: %.200s", what, pe.msg);
                else if (ap.tx[0] && !streq(ap.tx, tx))
                        step_next(ret, SETTLE_REQ_GET, "its %s's answer is about transaction '%s'", what, ap.tx);
                else if (ap.exit_code != 0 || !streq(ap.state, "committed"))
                        step_next(ret, SETTLE_REQ_GET, "its %s's answer is not a commit (state '%s')", what, ap.state);
                else {
                        step_final(ret, RNODE_COMMITTED, "%s", "");
                        ret->rev = ap.rev;
                }
                return;
        }
        reply_error_code(a->body, a->len, code, sizeof(code));
        reply_error_text(a->status, a->body, a->len, text, sizeof(text));
        if (a->status == 409 && streq(code, "expired")) {
                judge_expired(goal, a->req, text, ret);
                return;
        }
        /* not_pending, busy, not_found, 5xx, measuring: it does not say what became of the change */
        step_next(ret, SETTLE_REQ_GET, "its %s was answered %.300s", what, text);
}

void rollout_node_take_rev(struct rnode *n, long long rev)
{
        n->rev = rev;
        n->pre_rev = rev - 1;
}

bool reconcile_adopt_tx(struct rnode *n, const struct reply_history_tx *h)
{
        if (streq(h->state, "pending_confirm")) {
                n->state = RNODE_PENDING;
                if (h->confirm_deadline_ms > 0)
                        n->confirm_deadline_ms = h->confirm_deadline_ms;
                n->error[0] = '\0';
        } else if (streq(h->state, "committed")) {
                n->state = RNODE_COMMITTED;
                n->exit_code = 0;
                n->error[0] = '\0';
        } else if (streq(h->state, "rolled_back")) {
                n->state = RNODE_REVERTED;
                n->exit_code = h->exit_code;
                restored_text(n->error, sizeof(n->error), "restored by its agent", h);
        } else if (streq(h->state, "failed")) {
                n->state = RNODE_FAILED;
                n->exit_code = h->exit_code;
                snprintf(n->error, sizeof(n->error), "its agent could not restore it: %.200s",
                         h->error[0] ? h->error : "failed");
        } else {
                return false;                   /* still at work, or a state we do not know: ask again */
        }
        return true;
}

/* A node step journaled as applying with key K, from what the agent's history says of K. */
bool reconcile_adopt_keyed(struct rnode *n, int found, const struct reply_history_tx *h, enum reconcile_mode mode)
{
        if (found == 0) {
                if (mode == RECONCILE_LIVE_LAST) {
                        n->state = RNODE_UNREACHABLE;
                        snprintf(n->error, sizeof(n->error), "its apply, sent twice with the same key, got no "
                                 "answer and its agent has no transaction with that key: the apply did not arrive "
                                 "(if it still does, nothing confirms the change and its agent restores it at its "
                                 "confirm deadline)");
                } else {
                        n->state = RNODE_PLANNED;       /* never arrived: send again, same key */
                        n->error[0] = '\0';
                }
                return true;
        }
        if (running_state(h->state))
                return false;
        snprintf(n->tx, sizeof(n->tx), "%s", h->tx);
        n->exit_code = h->exit_code;
        if (streq(h->state, "pending_confirm")) {
                n->state = RNODE_PENDING;
                n->confirm_deadline_ms = h->confirm_deadline_ms;
                n->error[0] = '\0';
        } else if (streq(h->state, "committed")) {
                n->state = RNODE_COMMITTED;
                n->changes = !streq(h->result, "nothing_to_do");
                n->error[0] = '\0';
        } else if (mode == RECONCILE_RESUME && streq(h->restored_by, "confirm-timeout")) {
                /* It expired unconfirmed while nobody was there to confirm it: the change never
                 * got a verdict. Apply it again, as a new step with a new key. */
                n->state = RNODE_PLANNED;
                n->key[0] = '\0';
                n->error[0] = '\0';
        } else {
                n->state = RNODE_FAILED;
                snprintf(n->error, sizeof(n->error), "%.31s%s%.200s", h->result[0] ? h->result : h->state,
                         h->error[0] ? ": " : "", h->error);
        }
        return true;
}

/* ---- guarding rollbacks ---- */

static enum rollback_check verdict_is(struct rollback_verdict *ret, enum rollback_check c)
{
        ret->check = c;
        return c;
}

enum rollback_check rollout_rollback_judge(const char *body, size_t len, const char *tx, struct rollback_verdict *ret)
{
        struct reply_revision v;
        struct errbuf pe = { 0 };

        memset(ret, 0, sizeof(*ret));
        if (reply_history_revision(body, len, NULL, tx, &v, &pe) < 0) {
                snprintf(ret->why, sizeof(ret->why), "its agent's history is unreadable: %.200s", pe.msg);
                return verdict_is(ret, ROLLBACK_UNREADABLE);
        }
        if (!v.found || !streq(v.ours.state, "committed")) {
                snprintf(ret->why, sizeof(ret->why), "not rolled back: transaction %.63s is not a committed transaction "
                         "of its agent's recent history", tx);
                return verdict_is(ret, ROLLBACK_SUPERSEDED);
        }
        if (v.committed_after == 0) {
                ret->rev = v.ours.rev;
                return verdict_is(ret, ROLLBACK_SEND);
        }
        if (v.committed_after == 1 && streq(v.newest.kind, "rollback")) {
                snprintf(ret->undo_tx, sizeof(ret->undo_tx), "%s", v.newest.tx);
                snprintf(ret->why, sizeof(ret->why), "rolled back already (transaction %.63s)", v.newest.tx);
                return verdict_is(ret, ROLLBACK_DONE);
        }
        snprintf(ret->why, sizeof(ret->why), "not rolled back: %u transaction%s committed after it on this node (the "
                 "newest: %.63s, %.15s)", v.committed_after, v.committed_after == 1 ? "" : "s", v.newest.tx,
                 v.newest.kind[0] ? v.newest.kind : "?");
        return verdict_is(ret, ROLLBACK_SUPERSEDED);
}

/* ---- a rollout's end ---- */

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

static void end_halted(struct rollout_rec *r, const unsigned *counts, unsigned failed, const char *budget,
                       const char *fabric_reason)
{
        bool touched = counts[RNODE_REVERTED] || counts[RNODE_ROLLED_BACK] || counts[RNODE_CANCELLED];
        unsigned refused = 0;

        for (unsigned i = 0; i < r->n_nodes; i++) {
                touched |= r->nodes[i].state == RNODE_FAILED && r->nodes[i].exit_code == OUTCOME_ROLLED_BACK;
                refused += r->nodes[i].state == RNODE_FAILED && r->nodes[i].exit_code == OUTCOME_INVALID;
        }
        r->state = ROLLOUT_HALTED;
        r->exit_code = touched && !counts[RNODE_UNKNOWN] ? OUTCOME_ROLLED_BACK : OUTCOME_RUNTIME;
        /* Every failure a node's refusal of the policy, and nothing changed anywhere: invalid input. */
        if (!touched && refused && refused == failed && !counts[RNODE_COMMITTED])
                r->exit_code = OUTCOME_INVALID;
        if (fabric_reason && fabric_reason[0])
                snprintf(r->message, sizeof(r->message),
                         "halted by the %.170s; %u rolled back, %u cancelled, %u reverted, %u skipped",
                         fabric_reason, counts[RNODE_ROLLED_BACK], counts[RNODE_CANCELLED],
                         counts[RNODE_REVERTED], counts[RNODE_SKIPPED]);
        else
                snprintf(r->message, sizeof(r->message),
                         "halted: %u node%s failed (budget %s); %u rolled back, %u cancelled, %u reverted, %u skipped",
                         failed, failed == 1 ? "" : "s", budget, counts[RNODE_ROLLED_BACK], counts[RNODE_CANCELLED],
                         counts[RNODE_REVERTED], counts[RNODE_SKIPPED]);
}

/* "0", or with --wave-by "1 per 'rack'" (of each group; a percentage of each group's nodes). */
static void budget_text(const struct rollout_rec *r, char *buf, size_t size)
{
        char c[16];

        if (r->opts.wave_by[0])
                snprintf(buf, size, "%s per '%.40s'", rollout_count_str(r->opts.max_unavailable, c, sizeof(c)),
                         r->opts.wave_by);
        else
                snprintf(buf, size, "%u", rollout_budget(r->opts.max_unavailable, r->n_nodes));
}

void rollout_end_state(struct rollout_rec *r, bool halted, const char *fabric_reason)
{
        unsigned counts[RNODE_STATE_MAX];
        unsigned failed;
        char budget[80];

        rollout_rec_count_states(r, counts);
        budget_text(r, budget, sizeof(budget));
        failed = counts[RNODE_FAILED] + counts[RNODE_UNREACHABLE] + counts[RNODE_UNKNOWN] + counts[RNODE_REVERTED];
        if (halted) {
                end_halted(r, counts, failed, budget, fabric_reason);
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
                snprintf(r->message, sizeof(r->message), "%u committed, %u failed (budget %s)",
                         counts[RNODE_COMMITTED], failed, budget);
        }
        append_unknown(r, r->message, sizeof(r->message));
}

/* ---- rollback by rollout ---- */

static void plan_is(struct restore_plan *p, enum restore_action a, const char *fmt, ...) _printf_(3, 4);
static void plan_is(struct restore_plan *p, enum restore_action a, const char *fmt, ...)
{
        va_list ap;

        p->action = a;
        va_start(ap, fmt);
        vsnprintf(p->why, sizeof(p->why), fmt, ap);
        va_end(ap);
}

/* "revision 9 (tx 31, apply 'mtu-4000')" */
static void commit_text(char *buf, size_t size, const struct reply_revision *v)
{
        snprintf(buf, size, "revision %lld (tx %.20s, %.15s '%.60s')", v->rev, v->newest.tx,
                 v->newest.kind[0] ? v->newest.kind : "?", v->newest.policy);
}

/* Something other than the rollout committed on the node since: refused, or with --force applied over. */
static void changed_since(long long id, const struct reply_revision *v, bool force, struct restore_plan *ret)
{
        char what[160];

        commit_text(what, sizeof(what), v);
        if (!force)
                plan_is(ret, RESTORE_REFUSE, "changed since rollout %lld: %s is current, not the rollout's; "
                        "--force restores revision %lld over it", id, what, ret->pre_rev);
        else if (ret->pre_rev > 0)
                plan_is(ret, RESTORE_TO, "changed since rollout %lld: %s is current; --force: revision %lld is "
                        "applied over it", id, what, ret->pre_rev);
        else
                plan_is(ret, RESTORE_FAIL, "changed since rollout %lld: %s is current, and before the rollout it had "
                        "no revision: only a node's newest revision can be undone; nothing was sent", id, what);
}

void restore_judge(long long id, const struct rnode *src, const struct node_revision *nr, bool force,
                   struct restore_plan *ret)
{
        const struct reply_revision *v = &nr->v;
        bool ours_newest = v->found && streq(v->ours.state, "committed") && v->ours.rev > 0 &&
                           v->committed_after == 0;

        memset(ret, 0, sizeof(*ret));
        ret->cur_rev = v->rev;
        /* exact: R - 1 for a change that committed as R; else the record, else what was current when it started */
        ret->pre_rev = v->found && streq(v->ours.state, "committed") && v->ours.rev > 0 ? v->ours.rev - 1 :
                       src->pre_rev >= 0 ? src->pre_rev : v->found ? v->before_rev : -1;
        if (!nr->read)
                plan_is(ret, RESTORE_FAIL, "%s; nothing was sent", nr->why);
        else if (!v->known)
                plan_is(ret, RESTORE_FAIL, "its agent's history names no current revision; nothing was sent");
        else if (v->busy)
                plan_is(ret, RESTORE_FAIL, "transaction %.20s is %.31s there; nothing was sent (run it again once that "
                        "ended)", v->busy_tx.tx, v->busy_tx.state);
        else if (ret->pre_rev < 0)
                plan_is(ret, RESTORE_FAIL, "rollout %lld did not record its revision before the change (an older "
                        "controller); nothing was sent", id);
        else if (v->rev == ret->pre_rev)
                plan_is(ret, RESTORE_ALREADY, "at revision %lld, its revision before rollout %lld", v->rev, id);
        else if (src->undo_tx[0] && streq(v->newest.tx, src->undo_tx))
                plan_is(ret, RESTORE_ALREADY, "at revision %lld: transaction %.20s put it back to its state before "
                        "rollout %lld", v->rev, src->undo_tx, id);
        else if (ours_newest)
                plan_is(ret, RESTORE_UNDO, "rollout %lld's change (tx %.20s, revision %lld) is current: undone, back "
                        "to revision %lld", id, v->ours.tx, v->ours.rev, ret->pre_rev);
        else
                changed_since(id, v, force, ret);
}
