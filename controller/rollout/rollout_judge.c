/* SPDX-License-Identifier: MIT */
/* What an agent's answer says became of a node's change: pure decisions, no I/O. */
#include <stdarg.h>
#include <stdio.h>

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
                else
                        step_final(ret, RNODE_COMMITTED, "%s", "");
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
bool reconcile_adopt_keyed(struct rnode *n, int found, const struct reply_history_tx *h, bool live)
{
        if (found == 0) {
                if (live) {
                        n->state = RNODE_UNREACHABLE;
                        snprintf(n->error, sizeof(n->error), "its apply got no answer and its agent has no "
                                 "transaction with its key: the apply did not arrive (if it still does, nothing "
                                 "confirms the change and its agent restores it at its confirm deadline)");
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
        } else if (!live && streq(h->restored_by, "confirm-timeout")) {
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

enum rollback_check rollout_rollback_judge(const char *body, size_t len, const char *tx, char *why, size_t size)
{
        struct reply_history_tx newest;
        struct errbuf pe = { 0 };
        unsigned newer = 0;
        int r = reply_history_committed_after(body, len, tx, &newer, &newest, &pe);

        why[0] = '\0';
        if (r < 0) {
                snprintf(why, size, "its agent's history is unreadable: %.200s", pe.msg);
                return ROLLBACK_UNREADABLE;
        }
        if (r == 0) {
                snprintf(why, size, "not rolled back: transaction %.63s is not a committed transaction of its "
                         "agent's recent history", tx);
                return ROLLBACK_SUPERSEDED;
        }
        if (newer == 0)
                return ROLLBACK_SEND;
        if (newer == 1 && streq(newest.kind, "rollback")) {
                snprintf(why, size, "rolled back already (transaction %.63s)", newest.tx);
                return ROLLBACK_DONE;
        }
        snprintf(why, size, "not rolled back: %u transaction%s committed after it on this node (the newest: %.63s, "
                 "%.15s)", newer, newer == 1 ? "" : "s", newest.tx, newest.kind[0] ? newest.kind : "?");
        return ROLLBACK_SUPERSEDED;
}
