/* SPDX-License-Identifier: MIT */
/*
 * The rollout state machine. Per wave: journal the wave and its nodes as
 * "applying", POST /v1/apply?confirm_timeout_s=S to each (never retried), record
 * each answer, decide (rollout_should_halt), journal the verdict, then confirm
 * every pending node of a passed wave (POST /v1/confirm/{tx}). A wave is
 * confirmed only once all of it passed.
 *
 * On halt: the failing wave's unconfirmed nodes are left to revert by their own
 * confirm timer (the agent API offers no way to cancel a pending transaction),
 * its confirmed nodes and, with --rollback-on-halt all, every earlier wave's
 * changed nodes get POST /v1/rollback; nodes never reached are skipped.
 *
 * Every apply carries the idempotency key of its node step, journaled with the
 * node before the request is sent; the agent journals it with its transaction
 * and never runs the same key twice.
 *
 * Resume (the controller died, or another replica took over): a wave journaled
 * "passed" asks its pending nodes' agents whether a confirmation already got
 * through, then finishes the others; a wave still "applying" had no verdict, so
 * each node step in flight is reconciled from its agent's history by its key
 * (rollout_reconcile.h) and only the steps that never arrived are sent again,
 * with the same key. Records from before keys existed fall back to letting the
 * wave's unconfirmed nodes revert and applying the wave again. Nothing stays
 * pending forever: agents revert on their own.
 */
#pragma once

#include <jansson.h>

#include "http.h"
#include "progress.h"
#include "store.h"

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

/* Confirm every pending node of r (the `confirm ID` command). Exit code as above. */
int rollout_run_confirm(const struct rollout_run_env *env, struct rollout_rec *r, struct errbuf *e);

/* POST /v1/rollback to the nodes of r whose state is `from`; sets them rolled_back. */
int rollout_run_rollback(const struct rollout_run_env *env, struct rollout_rec *r,
                         bool (*want)(const struct rollout_rec *r, const struct rnode *n, void *ud),
                         void *ud, const char *body, struct errbuf *e);
