/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the controller's parser of agent answers (controller/fleet/reply.c):
 * the same bytes as an apply/rollback/confirm answer, a plan answer, a drift answer,
 * an error body, a history answer and a transaction answer (GET /v1/transactions/TX),
 * and through the judges that decide from them what became of a node's change
 * and what a rollback by rollout does with a node (controller/rollout/rollout_judge.c). Nothing may crash, leak or read out of bounds, and
 * whatever is accepted must be within the documented bounds.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "controller/fleet/fleet.h"
#include "controller/rollout/rollout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void bounded(const char *s, size_t size)
{
        if (strnlen(s, size) >= size)
                abort();
}

static void gbps_ok(double g)
{
        if (!isnan(g) && !(g >= 0 && g < 1e6))
                abort();
}

static void check_apply(const char *body, size_t size)
{
        struct reply_apply a;
        struct errbuf e = { 0 };

        if (reply_parse_apply(body, size, &a, &e) < 0)
                return;
        if (a.exit_code < 0 || a.exit_code > 4 || a.changes > REPLY_CHANGES_MAX)
                abort();
        bounded(a.tx, sizeof(a.tx));
        bounded(a.state, sizeof(a.state));
        bounded(a.result, sizeof(a.result));
        bounded(a.restored_by, sizeof(a.restored_by));
        bounded(a.error, sizeof(a.error));
        if (a.confirm_deadline_ms < 0 || a.confirm_deadline_ms > REPLY_TIME_MAX)
                abort();
        gbps_ok(a.baseline_gbps);
        gbps_ok(a.post_gbps);
}

/* A history answer searched by key and by tx: whatever is found is bounded. */
static void check_history(const char *body, size_t size)
{
        struct reply_history_tx h;
        struct errbuf e = { 0 };

        for (int by_key = 0; by_key < 2; by_key++)
                if (reply_find_history(body, size, by_key ? "7-0-1-abcd" : NULL, "1", &h, &e) > 0) {
                        bounded(h.tx, sizeof(h.tx));
                        bounded(h.state, sizeof(h.state));
                        bounded(h.result, sizeof(h.result));
                        bounded(h.error, sizeof(h.error));
                        if (h.exit_code < -1 || h.exit_code > 4 || h.confirm_deadline_ms < 0)
                                abort();
                }
}

static void history_ok(const struct reply_history_tx *h)
{
        bounded(h->tx, sizeof(h->tx));
        bounded(h->kind, sizeof(h->kind));
        bounded(h->state, sizeof(h->state));
        bounded(h->result, sizeof(h->result));
        bounded(h->error, sizeof(h->error));
        bounded(h->restored_by, sizeof(h->restored_by));
        bounded(h->policy, sizeof(h->policy));
        if (h->exit_code < -1 || h->exit_code > 4 || h->confirm_deadline_ms < 0 || h->now_ms < 0 ||
            h->rev < 0 || h->rev > 2147483647)
                abort();
}

/* A node's revisions from a history answer: every transaction named is bounded, the revision in range. */
static void check_revision(const char *body, size_t size)
{
        struct reply_revision v;
        struct errbuf e = { 0 };

        for (int by_key = 0; by_key < 2; by_key++) {
                if (reply_history_revision(body, size, by_key ? "7-0-1-abcd" : NULL, "12", &v, &e) < 0)
                        continue;
                history_ok(&v.newest);
                history_ok(&v.ours);
                history_ok(&v.busy_tx);
                if (v.rev < 0 || v.rev != v.newest.rev || (!v.found && v.committed_after))
                        abort();
                /* and what a rollback by rollout makes of it: one action, a bounded reason */
                for (int force = 0; force < 2; force++) {
                        struct rnode src = { .pre_rev = by_key ? 4 : -1, .tx = "12", .key = "7-0-1-abcd",
                                             .undo_tx = "13" };
                        struct node_revision nr = { .read = true, .v = v };
                        struct restore_plan p;

                        restore_judge(7, &src, &nr, force, &p);
                        bounded(p.why, sizeof(p.why));
                        if (p.action >= RESTORE_ACTION_MAX || (p.action == RESTORE_TO && (!force || p.pre_rev <= 0)) ||
                            (p.action == RESTORE_UNDO && p.cur_rev <= 0))
                                abort();
                }
        }
}

/* A transaction answer, and every judge over the same bytes: a node is settled only by what parses. */
static void check_transaction(const char *body, size_t size)
{
        struct reply_history_tx h, newest;
        struct errbuf e = { 0 };
        unsigned newer;
        struct rollback_verdict rv;

        if (reply_parse_transaction(body, size, "12", &h, &e) >= 0) {
                history_ok(&h);
                if (strcmp(h.tx, "12") || !h.state[0])
                        abort();
        }
        if (reply_history_committed_after(body, size, "12", &newer, &newest, &e) > 0)
                history_ok(&newest);
        if (rollout_rollback_judge(body, size, "12", &rv) > ROLLBACK_UNREADABLE || rv.rev < 0)
                abort();
        bounded(rv.why, sizeof(rv.why));
        bounded(rv.undo_tx, sizeof(rv.undo_tx));
        for (int goal = 0; goal < SETTLE_GOAL_MAX; goal++)
                for (int req = 0; req < SETTLE_REQ_MAX; req++)
                        for (int k = 0; k < 4; k++) {
                                static const long statuses[] = { 200, 404, 409, 503 };
                                struct settle_answer a = { .req = req, .status = statuses[k], .body = body, .len = size };
                                struct settle_step st;

                                settle_judge(goal, "12", 1767225630000LL, 1767225600000LL, &a, &st);
                                bounded(st.why, sizeof(st.why));
                                if (st.final && st.state >= RNODE_STATE_MAX)
                                        abort();
                                if (!st.final && st.next >= SETTLE_REQ_MAX)
                                        abort();
                        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        const char *body = (const char *)data;
        struct reply_plan p = { 0 };
        struct reply_drift d = { 0 };
        struct errbuf e = { 0 };
        char buf[300];

        check_apply(body, size);
        if (reply_parse_plan(body, size, &p, &e) >= 0)
                reply_plan_done(&p);
        if (reply_parse_drift(body, size, &d, &e) >= 0)
                reply_drift_done(&d);
        if (reply_error_text(400, body, size, buf, sizeof(buf)) != buf)
                abort();
        bounded(buf, sizeof(buf));
        check_history(body, size);
        check_transaction(body, size);
        check_revision(body, size);
        return 0;
}
