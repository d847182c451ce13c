/* SPDX-License-Identifier: MIT */
/*
 * The fabric gate of a rollout (the policy's verify.fabric), on top of each
 * node's own gate. For each wave, its scope is the wave's nodes plus K
 * neighbours (verify.fabric.neighbours, or --fabric-neighbours): nodes of the
 * rollout outside the wave, those this rollout committed first, then those it has
 * not reached yet (both run a committed configuration), in inventory order.
 *
 *   before the wave:  the pattern over the scope is measured (the baseline); when
 *                     it cannot be measured the rollout halts and the wave is not
 *                     applied (no baseline, no change);
 *   after the wave applied, before anything is confirmed: the same pattern over
 *                     the same scope; when its collective figure (fabric.h) fell
 *                     more than max_regression_pct below the baseline, or the
 *                     measurement is incomplete, the wave halts: its nodes are not
 *                     confirmed and the rollout's halt path rolls them back.
 *
 * The baseline lives in the controller's memory: a wave interrupted after it
 * applied and resumed by another run has none, and its gate fails closed.
 */
#pragma once

#include <jansson.h>

#include "controller/rollout/rollout_run.h"

struct rollout_fabric;

/*
 * The gate of rollout r, or *ret NULL when its policy has no verify.fabric.
 * neighbours: r->opts.fabric_neighbours when >= 0, else the policy's. -EINVAL
 * with e filled when the policy document does not parse.
 */
int rollout_fabric_new(const struct rollout_rec *r, struct rollout_fabric **ret, struct errbuf *e);
void rollout_fabric_free(struct rollout_fabric *fg);

/*
 * Refuse, before anything is sent, a rollout whose fabric gate cannot work: a
 * wave whose scope has fewer than 2 nodes, or a confirm timeout shorter than the
 * gate may take after a wave applied. -EINVAL with e filled; 0 otherwise (also
 * without verify.fabric).
 */
int rollout_fabric_check(const struct rollout_rec *r, struct errbuf *e);

/* The baseline of wave w. 0: measured; 1: halt (e says why, nothing applied); -errno: ENOMEM. */
int rollout_fabric_before(struct rollout_fabric *fg, const struct rollout_run_env *env, struct rollout_rec *r,
                          unsigned w, struct errbuf *e);

/* After wave w applied: the gate. 0: pass; 1: halt (reason in rollout_fabric_reason); -errno: ENOMEM. */
int rollout_fabric_after(struct rollout_fabric *fg, const struct rollout_run_env *env, struct rollout_rec *r,
                         unsigned w, struct errbuf *e);

/* Why the gate halted the rollout ("" when it did not): one line for the rollout's message. */
const char *rollout_fabric_reason(const struct rollout_fabric *fg);

/* Every wave's gate so far: [{"wave","scope":[names],"baseline":{...},"post":{...},"gate":{...}}]. Borrowed. */
json_t *rollout_fabric_log(const struct rollout_fabric *fg);
