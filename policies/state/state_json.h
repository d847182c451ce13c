/* SPDX-License-Identifier: MIT */
/*
 * JSON form of struct state, in the policy's own vocabulary (mtu, trust,
 * dscp_to_priority, pfc, ets, ecn, host_ecn). Used for `state` output,
 * API bodies and the journal's durable snapshots, so state_from_json(state_to_json(s))
 * is exact for every present field.
 */
#pragma once

#include <jansson.h>

#include "common/errbuf.h"
#include "policies/state/state.h"

/* New reference owned by the caller; NULL on ENOMEM. Only present fields are emitted. */
json_t *state_to_json(const struct state *s);

/* Strict: unknown keys, wrong types and out-of-range values are errors. Writes *ret only on success. */
int state_from_json(const json_t *j, struct state *ret, struct errbuf *e);

/*
 * A target's units (agent/plan/plan.h): with names NULL, the one unit of an interface as
 * state_to_json(); else {"ports": {NAME: state, ...}} for a switch's ports.
 */
json_t *state_units_to_json(const struct state *units, const char (*names)[STATE_NAME_MAX], unsigned n);
/* The reverse: ret[0..n) (state_init'ed first); a port not in names is an error. */
int state_units_from_json(const json_t *j, const char (*names)[STATE_NAME_MAX], unsigned n,
                          struct state *ret, struct errbuf *e);
