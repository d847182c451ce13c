/* SPDX-License-Identifier: MIT */
/*
 * JSON form of struct state, in the policy's own vocabulary (mtu, trust,
 * dscp_to_priority, pfc, ets, ecn, host_ecn, ports). Used for `state` output,
 * API bodies and the journal's durable snapshots, so state_from_json(state_to_json(s))
 * is exact for every present field.
 */
#pragma once

#include <jansson.h>

#include "errbuf.h"
#include "state.h"

/* New reference owned by the caller; NULL on ENOMEM. Only present fields are emitted. */
json_t *state_to_json(const struct state *s);

/* Strict: unknown keys, wrong types and out-of-range values are errors. Writes *ret only on success. */
int state_from_json(const json_t *j, struct state *ret, struct errbuf *e);
