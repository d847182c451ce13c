/* SPDX-License-Identifier: MIT */
/* Internal to policies/: the "spec" member of a policy document (policy_spec.c). */
#pragma once

#include "policies/json/jsonv.h"
#include "policies/policy/policy.h"

/* Validate `spec` at the current path of v and map it into *ret (which it initialises). */
int policy_spec_parse(struct jsonv *v, const json_t *j, struct state *ret);

/* policy_lossless.c: "checks" (obj: struct policy), where spec's arrays list each value, and the rules. */
int policy_checks_parse(struct jsonv *v, const json_t *j, void *obj);
void policy_lossless_positions(const json_t *spec, struct lossless_pos *ret);
/* The first rule the policy's spec breaks: -EINVAL, e = "FILE: $.path" and "code: ..." with the other path. */
int policy_lossless_validate(const struct policy *p, const char *file, struct errbuf *e);

/* verify.fabric at the current path of v (policy_fabric.c); *ret written on success. */
int policy_fabric_parse(struct jsonv *v, const json_t *j, struct policy_fabric *ret);

/* metadata.source / unmanaged / not_found (policy_source.c), and every spec member cited once sources are named. */
int policy_source_parse(struct jsonv *v, const json_t *j, void *obj);
int policy_unmanaged_parse(struct jsonv *v, const json_t *j, void *obj);
int policy_not_found_parse(struct jsonv *v, const json_t *j, void *obj);
int policy_sources_check(struct jsonv *v, const json_t *root);
