/* SPDX-License-Identifier: MIT */
/*
 * The rollout state machine. Per wave: journal the wave and its nodes as
 * "applying", POST /v1/apply?confirm_timeout_s=S to each (never retried), record
 * each answer (a pending node with its agent's confirm deadline), decide
 * (rollout_should_halt), journal the verdict, then confirm every pending node of a
 * passed wave. A wave is confirmed only once all of it passed.
 *
 * One owner of each outcome. Every confirm carries not_after_ms, the earlier of the
 * agent's own deadline and the wave's confirm window (a request timeout from the
 * verdict), journaled before it is sent: the agent refuses and restores a confirm
 * it processes later, so a confirm this controller gave up on never commits
 * afterwards. A confirm without an answer is followed by GET /v1/transactions/TX
 * until the agent says what it did (committed, or restored: reverted) or the
 * window and a margin are over (unknown: such a node counts as failed, and is
 * asked again, until its agent's deadline has passed, before the rollout ends).
 * An apply without an answer is looked up by its key in the agent's history.
 *
 * On halt: later nodes are skipped; the halted wave's committed nodes (and with
 * --rollback-on-halt all every earlier wave's changed nodes) get POST /v1/rollback
 * once their agent's history shows the change is still the newest committed one;
 * its pending nodes are cancelled (a confirm with not_after_ms 1: refused, restored
 * at once); unknown outcomes are asked again until their deadline has passed, and
 * what still cannot be known is listed.
 *
 * Every apply carries the idempotency key of its node step, journaled with the
 * node before the request is sent; the agent journals it with its transaction
 * and never runs the same key twice.
 *
 * Resume (the controller died, or another replica took over): every unfinished
 * node of an interrupted wave is reconciled first (rollout_reconcile.h): a step
 * in flight by its key, a pending or unknown node by its transaction. Pending
 * nodes of a passed wave get a new confirm window; a change its agent restored
 * while nobody was there to confirm it is applied again as a new step; a step
 * that never arrived is sent again with the same key; a wave without a verdict
 * gets one. Records from before keys existed fall back to waiting until the
 * wave's deadline has passed, so that its unconfirmed nodes are restored, and
 * applying it again.
 */
#pragma once

#include <jansson.h>

#include "controller/fleet/fleet_http.h"
#include "common/progress.h"
#include "controller/store/store.h"

struct rollout_run_env {
        struct http_client *http;
        struct store *store;
        unsigned timeout_s;             /* per request */
        bool group_answers;             /* journal a fan-out's answers in one batch (a shared store) */
        enum progress_mode progress;    /* of every fan-out (common/progress.h) */
        json_t *fabric_log;             /* optional: each wave's fabric gate is appended (rollout_fabric.h) */
};

/*
 * A new record (state running, every node planned, waves from rollout_plan).
 * Takes copies of doc and args. NULL on ENOMEM.
 */
struct rollout_rec *rollout_rec_new(const char *kind, const char *policy_name, const char *doc,
                                    const char *args, const struct rollout_opts *o,
                                    const struct inventory_node *const *nodes, unsigned n);

/*
 * Run (or resume) a rollout already stored. Returns the exit code (0, 1, 3, 4)
 * with r->state/exit_code/message set and stored, or -errno when the store
 * failed (e says why; nothing further was sent).
 */
int rollout_run(const struct rollout_run_env *env, struct rollout_rec *r, struct errbuf *e);

/*
 * Halt r for good (the `halt ID` command: an interrupted rollout, or one left
 * pending): every unfinished node reconciled with its agent, then the halt of its
 * current wave as above. Exit code as above.
 */
int rollout_run_halt(const struct rollout_run_env *env, struct rollout_rec *r, struct errbuf *e);

/* Confirm every pending node of r (the `confirm ID` command). Exit code as above. */
int rollout_run_confirm(const struct rollout_run_env *env, struct rollout_rec *r, struct errbuf *e);

/* POST /v1/rollback to the nodes of r whose state is `from`; sets them rolled_back. */
int rollout_run_rollback(const struct rollout_run_env *env, struct rollout_rec *r,
                         bool (*want)(const struct rollout_rec *r, const struct rnode *n, void *ud),
                         void *ud, const char *body, struct errbuf *e);
