/* SPDX-License-Identifier: MIT */
/*
 * What an agent's answer says became of a node's change: the decisions of
 * rollout_reconcile.h, kept pure (no I/O, no clock) so that they are unit-tested
 * and fuzzed with hostile answers. An answer settles a node only when it says what
 * became of its transaction; anything else asks again.
 */
#pragma once

#include "controller/fleet/reply.h"
#include "controller/store/store.h"

enum settle_goal {
        SETTLE_COMMIT,                  /* confirm it before its not_after_ms; restored -> reverted */
        SETTLE_CANCEL,                  /* a pending change of a halted wave: cancel; restored -> cancelled */
        SETTLE_RESOLVE,                 /* a confirm got no answer: learn (cancel) it; restored -> reverted */
        SETTLE_GOAL_MAX,
};

enum settle_req {
        SETTLE_REQ_CONFIRM,             /* POST /v1/confirm/T {"not_after_ms": N} */
        SETTLE_REQ_CANCEL,              /* POST /v1/confirm/T {"not_after_ms": 1} */
        SETTLE_REQ_GET,                 /* GET /v1/transactions/T */
        SETTLE_REQ_MAX,
};

/* One answer to one of those requests. */
struct settle_answer {
        enum settle_req req;
        long status;                    /* HTTP status, 0 = no answer */
        const char *body;
        size_t len;
        const char *transport;          /* status 0: why ("timed out (...)") */
};

struct settle_step {
        bool final;                     /* state and why are the node's from now on */
        enum rnode_state state;
        enum settle_req next;           /* not final: what to send next */
        long long deadline_ms;          /* the agent's confirm deadline when the answer named one, else 0 */
        char why[STORE_ERR_MAX];        /* final: the node's error text ("" when committed); else why not yet */
};

/*
 * Judge one answer about transaction tx: not_after_ms is the node's (SETTLE_COMMIT),
 * now_ms the controller's clock, used when the agent's answer carries none.
 */
void settle_judge(enum settle_goal goal, const char *tx, long long not_after_ms, long long now_ms,
                  const struct settle_answer *a, struct settle_step *ret);

/* Adopt a transaction's state (GET /v1/transactions/T) into a pending/unknown node; false: ask again. */
bool reconcile_adopt_tx(struct rnode *n, const struct reply_history_tx *h);

/*
 * Adopt what the agent's history says of an applying node's key (found: 1 the
 * transaction h, 0 none). live: during the run (none = unreachable), else a resume
 * (none = send again). false: the agent is still at work on it, ask again.
 */
bool reconcile_adopt_keyed(struct rnode *n, int found, const struct reply_history_tx *h, bool live);

enum rollback_check {
        ROLLBACK_SEND,                  /* its transaction is the newest committed one: undo it */
        ROLLBACK_DONE,                  /* a rollback committed right after it: undone already */
        ROLLBACK_SUPERSEDED,            /* something else committed since, or it is not committed: leave it */
        ROLLBACK_UNREADABLE,            /* the history is malformed */
};

/* Judge a GET /v1/history answer for undoing transaction tx; why says why not (and what). */
enum rollback_check rollout_rollback_judge(const char *body, size_t len, const char *tx, char *why, size_t size);
