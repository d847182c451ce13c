/* SPDX-License-Identifier: MIT */
/* Internal to policies/: the "spec" member of a policy document (policy_spec.c). */
#pragma once

#include "policies/jsonv.h"
#include "policies/policy.h"

/* Validate `spec` at the current path of v and map it into *ret (which it initialises). */
int policy_spec_parse(struct jsonv *v, const json_t *j, struct state *ret);

/* verify.fabric at the current path of v (policy_fabric.c); *ret written on success. */
int policy_fabric_parse(struct jsonv *v, const json_t *j, struct policy_fabric *ret);
