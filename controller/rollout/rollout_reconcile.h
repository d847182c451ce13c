/* SPDX-License-Identifier: MIT */
/*
 * What each node's agent really did, asked of the agent, never guessed. Three
 * questions:
 *
 * rollout_reconcile(): node steps whose answer was never recorded (the controller
 * died, or lost its leadership, while they were in flight; an apply got no answer).
 *   applying, key K   the transaction journaled with idempotency key K (GET /v1/history):
 *                     pending_confirm -> pending (tx, deadline), committed -> committed,
 *                     rolled_back/failed -> failed; a change that expired unconfirmed while
 *                     nobody was there to confirm it -> planned with a new key (it never got
 *                     a verdict); still running -> asked again; no such transaction -> planned,
 *                     keeping K (sent again with the same key, which the agent answers from its
 *                     journal if the first one arrived after all), or, during a live run,
 *                     unreachable (nobody will confirm it if it still arrives)
 *   pending or unknown, tx T   GET /v1/transactions/T: committed, pending (with its
 *                     deadline), reverted (restored by its agent) or failed (its restore failed)
 *
 * rollout_settle(): pending changes brought to a final state. The goal is to confirm
 * (POST /v1/confirm/T with {"not_after_ms": N}, N the node's not_after_ms: the agent
 * refuses it after N, so a confirm this controller gave up on never commits later) or
 * to cancel (the same with not_after_ms 1: refused at once, the change restored now).
 * An answer is final when it says what became of T: 200 committed, 409 expired (too
 * late, restored now). Anything else (no answer, 409 busy or not_pending, 5xx, an
 * unreadable body) is followed by GET /v1/transactions/T, with backoff, until T is
 * final, or pending past N (then it is cancelled), or the node's time is up: past
 * N (confirm) or its agent's confirm deadline (cancel, resolve) plus a margin for
 * clocks. Then, and only then, the node is unknown, with the last reason.
 *
 * rollout_rollback_check(): before POST /v1/rollback undoes a committed node, is its
 * transaction still the newest committed one there (GET /v1/history)? A rollback
 * transaction committed right after it means an earlier halt did it already; any
 * other committed transaction means someone changed the node since: not ours to undo.
 *
 * What an answer means is decided in rollout_judge.h (pure); this module sends.
 */
#pragma once

#include "controller/rollout/rollout_judge.h"
#include "controller/rollout/rollout_run.h"

#define SETTLE_MARGIN_MS 5000           /* past a deadline: clocks and answers in flight */
#define SETTLE_ASK_MS 10000             /* one GET /v1/transactions at most */
#define SETTLE_BACKOFF_MAX_MS 8000      /* between two rounds of asking */

/*
 * Settle nodes[0..n) (each with its tx) towards goals[i]. until_ms[i] (wall clock,
 * ms) is when node i is given up as unknown (after one attempt at least). on_final
 * (optional) sees each node as soon as it is final. 0, or -errno when libcurl failed
 * or this controller must stop acting (e says why; nodes not yet final are left as
 * they were).
 */
int rollout_settle(const struct rollout_run_env *env, struct rnode **nodes, unsigned n,
                   const enum settle_goal *goals, const long long *until_ms,
                   void (*on_final)(struct rnode *n, void *ud), void *ud, struct errbuf *e);

/*
 * Update nodes[0..n) in memory from what their agents say (the caller journals them).
 * live: the controller is running the step now (an apply without an answer) rather
 * than resuming it. 0, or -errno when libcurl failed.
 */
int rollout_reconcile(const struct rollout_run_env *env, struct rnode **nodes, unsigned n, bool live,
                      struct errbuf *e);

/* Ask each node's agent; nodes[i] is to be rolled back when ret[i] is ROLLBACK_SEND. 0 or -errno. */
int rollout_rollback_check(const struct rollout_run_env *env, struct rnode **nodes, unsigned n,
                           enum rollback_check *ret, char (*why)[STORE_ERR_MAX], struct errbuf *e);

/* A fresh idempotency key for the node step of node seq in wave w of rollout id. */
void rollout_node_key(long long id, unsigned w, unsigned seq, char *buf, size_t size);

/* The wall clock in ms since the epoch (deadlines are wall clock, as the agents' are). */
long long rollout_now_ms(void);
