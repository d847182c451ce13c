/* SPDX-License-Identifier: MIT */
/*
 * Reconcile node steps a controller recorded but whose answer it never
 * recorded (it died, or lost its leadership, while they were in flight). Each
 * node's agent is asked what it did (GET /v1/history) and the node record is
 * set from the answer, never from a guess:
 *
 *   applying, key K   the transaction journaled with idempotency key K:
 *                     pending_confirm -> pending (tx), committed -> committed,
 *                     rolled_back/failed -> failed; still running -> asked again;
 *                     no such transaction -> planned, keeping K (the apply is sent
 *                     again with the same key, which the agent answers from its
 *                     journal if the first one arrived after all)
 *   pending, tx T     T committed (its confirm got through) -> committed;
 *                     rolled back by its timer -> reverted; still pending -> pending
 *
 * An agent that cannot be asked leaves its node unreachable (a pending change
 * reverts by the agent's own timer).
 */
#pragma once

#include "rollout_run.h"

/* Update nodes[0..n) in memory (the caller journals them). 0, or -errno when libcurl failed. */
int rollout_reconcile(const struct rollout_run_env *env, struct rnode **nodes, unsigned n, struct errbuf *e);

/* A fresh idempotency key for the node step of node seq in wave w of rollout id. */
void rollout_node_key(long long id, unsigned w, unsigned seq, char *buf, size_t size);
