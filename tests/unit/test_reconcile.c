/* SPDX-License-Identifier: MIT */
/*
 * The controller's decisions about what became of a node's change, from what its
 * agent answered (controller/rollout/rollout_reconcile.c): confirm and cancel answers,
 * transaction queries, resume, and whether a rollback is still ours to send.
 * Hostile and malformed answers never settle a node.
 */
#include <CUnit/CUnit.h>
#include <string.h>

#include "controller/rollout/rollout.h"

#define NOT_AFTER 1767225630000LL
#define BEFORE (NOT_AFTER - 1000)
#define AFTER (NOT_AFTER + 1000)

static struct settle_step judge(enum settle_goal goal, enum settle_req req, long status, const char *body,
                                long long now)
{
        struct settle_answer a = { .req = req, .status = status, .body = body, .len = body ? strlen(body) : 0,
                                   .transport = status ? NULL : "timed out (operation timed out after 30000 ms)" };
        struct settle_step s;

        settle_judge(goal, "12", NOT_AFTER, now, &a, &s);
        return s;
}

#define COMMITTED "{\"tx\":12,\"state\":\"committed\",\"result\":\"committed\",\"exit_code\":0}"
#define EXPIRED "{\"error\":{\"code\":\"expired\",\"message\":\"transaction 12 was not confirmed in time\"}}"
#define TXSTATE(st, extra) "{\"tx\":12,\"state\":\"" st "\"" extra "}"
#define TXK(id, kind, state) "{\"tx\":" #id ",\"kind\":\"" kind "\",\"state\":\"" state "\"}"
#define TEXT_H(s) (s), strlen(s)

static void test_confirm_answers(void)
{
        struct settle_step s;

        s = judge(SETTLE_COMMIT, SETTLE_REQ_CONFIRM, 200, COMMITTED, BEFORE);
        CU_ASSERT_TRUE(s.final);
        CU_ASSERT_EQUAL(s.state, RNODE_COMMITTED);
        CU_ASSERT_STRING_EQUAL(s.why, "");
        CU_ASSERT_EQUAL(s.rev, 0);              /* an agent that does not name the revision: asked later */
        /* The revision the commit recorded, named by the confirm's answer or by the transaction query. */
        s = judge(SETTLE_COMMIT, SETTLE_REQ_CONFIRM, 200,
                  "{\"tx\":12,\"rev\":7,\"state\":\"committed\",\"result\":\"committed\",\"exit_code\":0}", BEFORE);
        CU_ASSERT_EQUAL(s.state, RNODE_COMMITTED);
        CU_ASSERT_EQUAL(s.rev, 7);
        s = judge(SETTLE_COMMIT, SETTLE_REQ_GET, 200, TXSTATE("committed", ",\"rev\":9,\"exit_code\":0"), BEFORE);
        CU_ASSERT_EQUAL(s.state, RNODE_COMMITTED);
        CU_ASSERT_EQUAL(s.rev, 9);
        /* A revision that is no revision: the answer is unreadable, the agent is asked. */
        s = judge(SETTLE_COMMIT, SETTLE_REQ_CONFIRM, 200,
                  "{\"tx\":12,\"rev\":0,\"state\":\"committed\",\"exit_code\":0}", BEFORE);
        CU_ASSERT_FALSE(s.final);
        CU_ASSERT_EQUAL(s.next, SETTLE_REQ_GET);
        CU_ASSERT_EQUAL(s.rev, 0);
        /* 409 expired is an answer: the agent refused it and restored the change. */
        s = judge(SETTLE_COMMIT, SETTLE_REQ_CONFIRM, 409, EXPIRED, BEFORE);
        CU_ASSERT_TRUE(s.final);
        CU_ASSERT_EQUAL(s.state, RNODE_REVERTED);
        CU_ASSERT_PTR_NOT_NULL(strstr(s.why, "its confirm came too late"));
        CU_ASSERT_PTR_NOT_NULL(strstr(s.why, "not confirmed in time"));
        s = judge(SETTLE_CANCEL, SETTLE_REQ_CANCEL, 409, EXPIRED, BEFORE);
        CU_ASSERT_TRUE(s.final);
        CU_ASSERT_EQUAL(s.state, RNODE_CANCELLED);
        s = judge(SETTLE_RESOLVE, SETTLE_REQ_CANCEL, 409, EXPIRED, AFTER);
        CU_ASSERT_EQUAL(s.state, RNODE_REVERTED);
        s = judge(SETTLE_COMMIT, SETTLE_REQ_CANCEL, 409, EXPIRED, AFTER);
        CU_ASSERT_EQUAL(s.state, RNODE_REVERTED);
        CU_ASSERT_PTR_NOT_NULL(strstr(s.why, "not confirmed within its wave's confirm window"));
        /* A cancel that meets a committed transaction says so: the halt rolls it back. */
        s = judge(SETTLE_CANCEL, SETTLE_REQ_CANCEL, 200, COMMITTED, AFTER);
        CU_ASSERT_TRUE(s.final);
        CU_ASSERT_EQUAL(s.state, RNODE_COMMITTED);
}

/* Answers that do not say what became of the change: ask the agent, never guess. */
static void test_confirm_not_answers(void)
{
        static const struct { long status; const char *body, *why; } cases[] = {
                { 0, NULL, "no answer to its confirm: timed out" },
                { 409, "{\"error\":{\"code\":\"not_pending\",\"message\":\"transaction 12 already rolled back\"}}",
                  "already rolled back" },
                { 409, "{\"error\":{\"code\":\"busy\",\"message\":\"locked\"}}", "locked" },
                { 404, "{\"error\":{\"code\":\"not_found\",\"message\":\"no transaction\"}}", "HTTP 404" },
                { 503, "{\"error\":{\"code\":\"measuring\",\"message\":\"still measuring\"}}", "HTTP 503" },
                { 500, "<html>oops</html>", "HTTP 500" },
                { 200, "{\"tx\":12,\"state\":\"committed\",\"exit_code\":0", "unreadable" },
                { 200, "{\"tx\":13,\"state\":\"committed\",\"exit_code\":0}", "about transaction '13'" },
                { 200, "{\"tx\":12,\"state\":\"pending_confirm\",\"exit_code\":4}", "not a commit" },
                { 200, "{\"tx\":12,\"state\":\"committed\",\"exit_code\":1}", "not a commit" },
                { 200, "{\"tx\":12,\"exit_code\":0}", "not a commit" },
                { 200, "{\"tx\":12,\"state\":\"committed\",\"exit_code\":\"0\"}", "unreadable" },
                { 409, "{\"error\":{\"code\":[\"expired\"]}}", "HTTP 409" },
                { 409, "", "HTTP 409" },
        };

        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
                struct settle_step s = judge(SETTLE_COMMIT, SETTLE_REQ_CONFIRM, cases[i].status, cases[i].body, BEFORE);

                CU_ASSERT_FALSE(s.final);
                CU_ASSERT_EQUAL(s.next, SETTLE_REQ_GET);
                CU_ASSERT_PTR_NOT_NULL(strstr(s.why, cases[i].why));
                if (s.final || !strstr(s.why, cases[i].why))
                        fprintf(stderr, "case %zu: final %d why '%s'\n", i, s.final, s.why);
        }
}

static void test_transaction_answers(void)
{
        struct settle_step s;

        s = judge(SETTLE_RESOLVE, SETTLE_REQ_GET, 200, TXSTATE("committed", ""), AFTER);
        CU_ASSERT_TRUE(s.final);
        CU_ASSERT_EQUAL(s.state, RNODE_COMMITTED);
        s = judge(SETTLE_RESOLVE, SETTLE_REQ_GET, 200,
                  TXSTATE("rolled_back", ",\"restored_by\":\"confirm-timeout\",\"confirm_deadline_ms\":1767225600000"),
                  AFTER);
        CU_ASSERT_TRUE(s.final);
        CU_ASSERT_EQUAL(s.state, RNODE_REVERTED);
        CU_ASSERT_EQUAL(s.deadline_ms, 1767225600000LL);
        CU_ASSERT_STRING_EQUAL(s.why, "its confirm got no answer; restored by its agent (confirm-timeout)");
        s = judge(SETTLE_CANCEL, SETTLE_REQ_GET, 200, TXSTATE("rolled_back", ",\"restored_by\":\"confirm-timeout\""), AFTER);
        CU_ASSERT_EQUAL(s.state, RNODE_CANCELLED);
        s = judge(SETTLE_CANCEL, SETTLE_REQ_GET, 200, TXSTATE("failed", ",\"error\":\"RESTORE FAILED: mtu\""), AFTER);
        CU_ASSERT_TRUE(s.final);
        CU_ASSERT_EQUAL(s.state, RNODE_FAILED);
        CU_ASSERT_PTR_NOT_NULL(strstr(s.why, "RESTORE FAILED: mtu"));
        /* Still pending: confirm again inside the window, cancel after it (or when cancelling). */
        s = judge(SETTLE_COMMIT, SETTLE_REQ_GET, 200, TXSTATE("pending_confirm", ""), BEFORE);
        CU_ASSERT_FALSE(s.final);
        CU_ASSERT_EQUAL(s.next, SETTLE_REQ_CONFIRM);
        s = judge(SETTLE_COMMIT, SETTLE_REQ_GET, 200, TXSTATE("pending_confirm", ""), AFTER);
        CU_ASSERT_EQUAL(s.next, SETTLE_REQ_CANCEL);
        s = judge(SETTLE_CANCEL, SETTLE_REQ_GET, 200, TXSTATE("pending_confirm", ""), BEFORE);
        CU_ASSERT_EQUAL(s.next, SETTLE_REQ_CANCEL);
        /* The agent's clock decides, as it does when it judges the confirm. */
        s = judge(SETTLE_COMMIT, SETTLE_REQ_GET, 200, TXSTATE("pending_confirm", ",\"now_ms\":1767225631000"), BEFORE);
        CU_ASSERT_EQUAL(s.next, SETTLE_REQ_CANCEL);
        s = judge(SETTLE_COMMIT, SETTLE_REQ_GET, 200, TXSTATE("pending_confirm", ",\"now_ms\":1767225629000"), AFTER);
        CU_ASSERT_EQUAL(s.next, SETTLE_REQ_CONFIRM);
        /* At work, or a state nobody knows: ask again. */
        s = judge(SETTLE_RESOLVE, SETTLE_REQ_GET, 200, TXSTATE("restoring", ""), AFTER);
        CU_ASSERT_FALSE(s.final);
        CU_ASSERT_EQUAL(s.next, SETTLE_REQ_GET);
        s = judge(SETTLE_RESOLVE, SETTLE_REQ_GET, 200, TXSTATE("half-committed", ""), AFTER);
        CU_ASSERT_FALSE(s.final);
        CU_ASSERT_PTR_NOT_NULL(strstr(s.why, "'half-committed'"));
        /* The agent does not know the transaction: unknown, with its words. */
        s = judge(SETTLE_RESOLVE, SETTLE_REQ_GET, 404, "{\"error\":{\"code\":\"not_found\",\"message\":\"no transaction 12\"}}",
                  AFTER);
        CU_ASSERT_TRUE(s.final);
        CU_ASSERT_EQUAL(s.state, RNODE_UNKNOWN);
        CU_ASSERT_PTR_NOT_NULL(strstr(s.why, "no transaction 12"));
}

static void test_transaction_hostile(void)
{
        static const char *const bodies[] = {
                "{\"tx\":13,\"state\":\"committed\"}",                  /* another transaction */
                "{\"tx\":12}",                                          /* no state */
                "{\"tx\":12,\"state\":\"committed\",\"state\":\"rolled_back\"}",
                "{\"tx\":12,\"state\":\"committed\",\"exit_code\":42}",
                "{\"tx\":12,\"state\":\"rolled_back\",\"restored_by\":\"a-restorer-whose-name-is-far-too-long\"}",
                "[\"committed\"]",
                "committed",
        };

        for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++) {
                struct settle_step s = judge(SETTLE_RESOLVE, SETTLE_REQ_GET, 200, bodies[i], AFTER);

                CU_ASSERT_FALSE(s.final);
                CU_ASSERT_EQUAL(s.next, SETTLE_REQ_GET);
                CU_ASSERT_PTR_NOT_NULL(strstr(s.why, "unreadable"));
        }
        /* An error page of any size: the reason stays bounded. */
        {
                static char big[20000];
                struct settle_step s;

                memset(big, 'x', sizeof(big) - 1);
                s = judge(SETTLE_RESOLVE, SETTLE_REQ_GET, 502, big, AFTER);
                CU_ASSERT_FALSE(s.final);
                CU_ASSERT_TRUE(strlen(s.why) < sizeof(s.why));
        }
}

static void test_adopt_tx(void)
{
        struct rnode n = { .state = RNODE_PENDING, .tx = "12", .confirm_deadline_ms = 5 };
        struct reply_history_tx h = { .tx = "12", .state = "pending_confirm", .confirm_deadline_ms = 77 };

        CU_ASSERT_TRUE(reconcile_adopt_tx(&n, &h));
        CU_ASSERT_EQUAL(n.state, RNODE_PENDING);
        CU_ASSERT_EQUAL(n.confirm_deadline_ms, 77);
        snprintf(h.state, sizeof(h.state), "committed");
        CU_ASSERT_TRUE(reconcile_adopt_tx(&n, &h));
        CU_ASSERT_EQUAL(n.state, RNODE_COMMITTED);
        snprintf(h.state, sizeof(h.state), "rolled_back");
        snprintf(h.restored_by, sizeof(h.restored_by), "confirm-timeout");
        CU_ASSERT_TRUE(reconcile_adopt_tx(&n, &h));
        CU_ASSERT_EQUAL(n.state, RNODE_REVERTED);
        CU_ASSERT_STRING_EQUAL(n.error, "restored by its agent (confirm-timeout)");
        snprintf(h.state, sizeof(h.state), "failed");
        CU_ASSERT_TRUE(reconcile_adopt_tx(&n, &h));
        CU_ASSERT_EQUAL(n.state, RNODE_FAILED);
        n.state = RNODE_UNKNOWN;
        snprintf(h.state, sizeof(h.state), "verifying");
        CU_ASSERT_FALSE(reconcile_adopt_tx(&n, &h));
        CU_ASSERT_EQUAL(n.state, RNODE_UNKNOWN);
        snprintf(h.state, sizeof(h.state), "bogus");
        CU_ASSERT_FALSE(reconcile_adopt_tx(&n, &h));
}

static void test_adopt_keyed(void)
{
        struct rnode n = { .state = RNODE_APPLYING, .key = "7-2-9-abcd" };
        struct reply_history_tx h = { .tx = "5", .state = "pending_confirm", .confirm_deadline_ms = 99, .exit_code = 4 };

        CU_ASSERT_TRUE(reconcile_adopt_keyed(&n, 1, &h, RECONCILE_RESUME));
        CU_ASSERT_EQUAL(n.state, RNODE_PENDING);
        CU_ASSERT_STRING_EQUAL(n.tx, "5");
        CU_ASSERT_EQUAL(n.confirm_deadline_ms, 99);
        /* Never arrived: sent again with the same key, on a resume and during a run; unreachable after the second send. */
        n = (struct rnode) { .state = RNODE_APPLYING, .key = "7-2-9-abcd" };
        CU_ASSERT_TRUE(reconcile_adopt_keyed(&n, 0, NULL, RECONCILE_RESUME));
        CU_ASSERT_EQUAL(n.state, RNODE_PLANNED);
        CU_ASSERT_STRING_EQUAL(n.key, "7-2-9-abcd");
        n.state = RNODE_APPLYING;
        CU_ASSERT_TRUE(reconcile_adopt_keyed(&n, 0, NULL, RECONCILE_LIVE));
        CU_ASSERT_EQUAL(n.state, RNODE_PLANNED);
        CU_ASSERT_STRING_EQUAL(n.key, "7-2-9-abcd");
        n.state = RNODE_APPLYING;
        CU_ASSERT_TRUE(reconcile_adopt_keyed(&n, 0, NULL, RECONCILE_LIVE_LAST));
        CU_ASSERT_EQUAL(n.state, RNODE_UNREACHABLE);
        CU_ASSERT_PTR_NOT_NULL(strstr(n.error, "sent twice with the same key"));
        CU_ASSERT_PTR_NULL(strstr(n.error, "by itself"));
        /* Expired unconfirmed while nobody was there: a new step with a new key (a resume only). */
        n = (struct rnode) { .state = RNODE_APPLYING, .key = "7-2-9-abcd" };
        h = (struct reply_history_tx) { .tx = "5", .state = "rolled_back", .restored_by = "confirm-timeout", .exit_code = 1 };
        CU_ASSERT_TRUE(reconcile_adopt_keyed(&n, 1, &h, RECONCILE_RESUME));
        CU_ASSERT_EQUAL(n.state, RNODE_PLANNED);
        CU_ASSERT_STRING_EQUAL(n.key, "");
        n = (struct rnode) { .state = RNODE_APPLYING, .key = "7-2-9-abcd" };
        CU_ASSERT_TRUE(reconcile_adopt_keyed(&n, 1, &h, RECONCILE_LIVE));
        CU_ASSERT_EQUAL(n.state, RNODE_FAILED);
        /* The gate rolled it back: failed, with the agent's words. */
        n = (struct rnode) { .state = RNODE_APPLYING, .key = "7-2-9-abcd" };
        h = (struct reply_history_tx) { .tx = "5", .state = "rolled_back", .result = "rolled_back", .restored_by = "gate",
                                        .error = "verification failed", .exit_code = 1 };
        CU_ASSERT_TRUE(reconcile_adopt_keyed(&n, 1, &h, RECONCILE_RESUME));
        CU_ASSERT_EQUAL(n.state, RNODE_FAILED);
        CU_ASSERT_STRING_EQUAL(n.error, "rolled_back: verification failed");
        /* Still at work: ask again, nothing changed. */
        n = (struct rnode) { .state = RNODE_APPLYING, .key = "7-2-9-abcd" };
        h = (struct reply_history_tx) { .tx = "5", .state = "verifying" };
        CU_ASSERT_FALSE(reconcile_adopt_keyed(&n, 1, &h, RECONCILE_RESUME));
        CU_ASSERT_EQUAL(n.state, RNODE_APPLYING);
}

static void test_rollback_judge(void)
{
        struct rollback_verdict v;

        CU_ASSERT_EQUAL(rollout_rollback_judge(TEXT_H("{\"transactions\":[" TXK(12, "apply", "committed") "]}"),
                                               "12", &v), ROLLBACK_SEND);
        CU_ASSERT_EQUAL(v.rev, 0);                      /* the agent did not say */
        CU_ASSERT_EQUAL(rollout_rollback_judge(TEXT_H("{\"transactions\":[{\"tx\":12,\"rev\":5,\"kind\":\"apply\","
                                                      "\"state\":\"committed\"}]}"), "12", &v), ROLLBACK_SEND);
        CU_ASSERT_EQUAL(v.rev, 5);                      /* the rollback's expect_revision */
        /* Transactions that did not commit do not count. */
        CU_ASSERT_EQUAL(rollout_rollback_judge(TEXT_H("{\"transactions\":[" TXK(13, "apply", "rolled_back") ","
                                                      TXK(12, "apply", "committed") "]}"), "12", &v),
                        ROLLBACK_SEND);
        /* A halt that died after its rollback: undone already, by that transaction. */
        CU_ASSERT_EQUAL(rollout_rollback_judge(TEXT_H("{\"transactions\":[" TXK(13, "rollback", "committed") ","
                                                      TXK(12, "apply", "committed") "]}"), "12", &v),
                        ROLLBACK_DONE);
        CU_ASSERT_PTR_NOT_NULL(strstr(v.why, "transaction 13"));
        CU_ASSERT_STRING_EQUAL(v.undo_tx, "13");
        /* Someone changed the node since: not ours to undo. */
        CU_ASSERT_EQUAL(rollout_rollback_judge(TEXT_H("{\"transactions\":[" TXK(13, "apply", "committed") ","
                                                      TXK(12, "apply", "committed") "]}"), "12", &v),
                        ROLLBACK_SUPERSEDED);
        CU_ASSERT_PTR_NOT_NULL(strstr(v.why, "1 transaction committed after it"));
        CU_ASSERT_EQUAL(rollout_rollback_judge(TEXT_H("{\"transactions\":[" TXK(14, "apply", "committed") ","
                                                      TXK(13, "rollback", "committed") ","
                                                      TXK(12, "apply", "committed") "]}"), "12", &v),
                        ROLLBACK_SUPERSEDED);
        CU_ASSERT_EQUAL(rollout_rollback_judge(TEXT_H("{\"transactions\":[" TXK(12, "apply", "rolled_back") "]}"),
                                               "12", &v), ROLLBACK_SUPERSEDED);
        CU_ASSERT_EQUAL(rollout_rollback_judge(TEXT_H("{\"transactions\":[]}"), "12", &v),
                        ROLLBACK_SUPERSEDED);
        CU_ASSERT_EQUAL(rollout_rollback_judge(TEXT_H("{\"transactions\":[{\"tx\":\"13\",\"state\":false}]}"), "12",
                                               &v), ROLLBACK_UNREADABLE);
        CU_ASSERT_EQUAL(rollout_rollback_judge(TEXT_H("{\"transactions\":"), "12", &v),
                        ROLLBACK_UNREADABLE);
}

/* A node's history as restore_judge sees it: current revision cur (tx ctx, kind), ours (tx 12) at rev ours. */
static struct node_revision hist(long long cur, const char *ctx, const char *kind, long long ours, const char *state,
                                 unsigned after)
{
        struct node_revision nr = { .read = true, .v = { .known = true, .rev = cur, .before_rev = -1 } };

        snprintf(nr.v.newest.tx, sizeof(nr.v.newest.tx), "%s", ctx);
        snprintf(nr.v.newest.kind, sizeof(nr.v.newest.kind), "%s", kind);
        snprintf(nr.v.newest.policy, sizeof(nr.v.newest.policy), "later");
        nr.v.newest.rev = cur;
        if (state) {
                nr.v.found = true;
                snprintf(nr.v.ours.tx, sizeof(nr.v.ours.tx), "12");
                snprintf(nr.v.ours.state, sizeof(nr.v.ours.state), "%s", state);
                nr.v.ours.rev = ours;
                nr.v.committed_after = after;
        }
        return nr;
}

static void test_restore_judge(void)
{
        struct rnode src = { .pre_rev = 4, .tx = "12", .key = "7-1-0-0badcafe" };
        struct node_revision nr;
        struct restore_plan p;

        /* the rollout's change is current: undone, back to the revision before it */
        nr = hist(5, "12", "apply", 5, "committed", 0);
        restore_judge(7, &src, &nr, false, &p);
        CU_ASSERT_EQUAL(p.action, RESTORE_UNDO);
        CU_ASSERT_EQUAL(p.pre_rev, 4);
        CU_ASSERT_EQUAL(p.cur_rev, 5);
        /* its commit says exactly which revision came before: R - 1, not what was read before the apply */
        src.pre_rev = 3;
        restore_judge(7, &src, &nr, false, &p);
        CU_ASSERT_EQUAL(p.pre_rev, 4);
        src.pre_rev = 4;
        /* a gate rejected it, or it was cancelled or reverted: at its revision already, nothing re-applied */
        nr = hist(4, "11", "apply", 0, "rolled_back", 0);
        restore_judge(7, &src, &nr, false, &p);
        CU_ASSERT_EQUAL(p.action, RESTORE_ALREADY);
        CU_ASSERT_STRING_EQUAL(p.why, "at revision 4, its revision before rollout 7");
        /* put back by a halt's rollback, or by an earlier run: its undo_tx is the newest commit */
        nr = hist(6, "13", "rollback", 5, "committed", 1);
        restore_judge(7, &src, &nr, false, &p);
        CU_ASSERT_EQUAL(p.action, RESTORE_REFUSE);              /* not known to be ours */
        snprintf(src.undo_tx, sizeof(src.undo_tx), "13");
        restore_judge(7, &src, &nr, false, &p);
        CU_ASSERT_EQUAL(p.action, RESTORE_ALREADY);
        CU_ASSERT_PTR_NOT_NULL(strstr(p.why, "transaction 13 put it back"));
        src.undo_tx[0] = '\0';
        /* a later rollout changed it: refused by name, unless --force */
        nr = hist(6, "14", "apply", 5, "committed", 1);
        restore_judge(7, &src, &nr, false, &p);
        CU_ASSERT_EQUAL(p.action, RESTORE_REFUSE);
        CU_ASSERT_STRING_EQUAL(p.why, "changed since rollout 7: revision 6 (tx 14, apply 'later') is current, not the "
                               "rollout's; --force restores revision 4 over it");
        restore_judge(7, &src, &nr, true, &p);
        CU_ASSERT_EQUAL(p.action, RESTORE_TO);
        CU_ASSERT_EQUAL(p.pre_rev, 4);
        CU_ASSERT_EQUAL(p.cur_rev, 6);
        /* ...but a node that had no revision before cannot be brought back over a later one */
        nr = hist(2, "14", "apply", 1, "committed", 1);
        restore_judge(7, &src, &nr, true, &p);
        CU_ASSERT_EQUAL(p.action, RESTORE_FAIL);
        CU_ASSERT_EQUAL(p.pre_rev, 0);
        /* no revision before, the rollout's change current: undone (its snapshot) */
        nr = hist(1, "12", "apply", 1, "committed", 0);
        restore_judge(7, &src, &nr, false, &p);
        CU_ASSERT_EQUAL(p.action, RESTORE_UNDO);
        CU_ASSERT_EQUAL(p.pre_rev, 0);
        /* what cannot be judged is not touched */
        nr = hist(5, "12", "apply", 5, "committed", 0);
        nr.v.busy = true;
        snprintf(nr.v.busy_tx.tx, sizeof(nr.v.busy_tx.tx), "15");
        snprintf(nr.v.busy_tx.state, sizeof(nr.v.busy_tx.state), "pending_confirm");
        restore_judge(7, &src, &nr, false, &p);
        CU_ASSERT_EQUAL(p.action, RESTORE_FAIL);
        CU_ASSERT_PTR_NOT_NULL(strstr(p.why, "transaction 15 is pending_confirm there"));
        nr = (struct node_revision) { .read = false, .why = "cannot read its agent's history: timed out" };
        restore_judge(7, &src, &nr, false, &p);
        CU_ASSERT_EQUAL(p.action, RESTORE_FAIL);
        nr = hist(5, "12", "apply", 5, "committed", 0);
        nr.v.known = false;
        restore_judge(7, &src, &nr, false, &p);
        CU_ASSERT_EQUAL(p.action, RESTORE_FAIL);
        /* an older controller's record without pre_rev, and a change that did not commit: not known */
        src.pre_rev = -1;
        nr = hist(4, "11", "apply", 0, "rolled_back", 0);
        restore_judge(7, &src, &nr, false, &p);
        CU_ASSERT_EQUAL(p.action, RESTORE_FAIL);
        CU_ASSERT_PTR_NOT_NULL(strstr(p.why, "did not record its revision before the change"));
        /* ...unless its history says which revision was current when its transaction started */
        nr.v.before_rev = 4;
        restore_judge(7, &src, &nr, false, &p);
        CU_ASSERT_EQUAL(p.action, RESTORE_ALREADY);
        CU_ASSERT_EQUAL(p.pre_rev, 4);
        /* ...but one that committed says it all the same */
        nr = hist(5, "12", "apply", 5, "committed", 0);
        restore_judge(7, &src, &nr, false, &p);
        CU_ASSERT_EQUAL(p.action, RESTORE_UNDO);
        CU_ASSERT_EQUAL(p.pre_rev, 4);
}

int suite_reconcile(void)
{
        CU_pSuite s = CU_add_suite("reconcile", NULL, NULL);

        if (!s ||
            !CU_add_test(s, "confirm_answers", test_confirm_answers) ||
            !CU_add_test(s, "confirm_not_answers", test_confirm_not_answers) ||
            !CU_add_test(s, "transaction_answers", test_transaction_answers) ||
            !CU_add_test(s, "transaction_hostile", test_transaction_hostile) ||
            !CU_add_test(s, "adopt_tx", test_adopt_tx) ||
            !CU_add_test(s, "adopt_keyed", test_adopt_keyed) ||
            !CU_add_test(s, "rollback_judge", test_rollback_judge) ||
            !CU_add_test(s, "restore_judge", test_restore_judge))
                return -1;
        return 0;
}
