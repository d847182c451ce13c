/* SPDX-License-Identifier: MIT */
/*
 * Layers and owners (docs/policy-reference.md, "Layers and owners"): a node's intent
 * is the merge of its committed policies. Each policy (metadata.name) is a layer that
 * owns the fields it declares on the targets it names, at the granularity of the
 * field table (policies/state/field.h): `mtu` of a0, `ecn` of switch leaf1, ... A field
 * declared by two layers belongs to the one that lists the other in
 * metadata.overrides; a new policy may not declare a field another layer owns unless
 * it overrides that layer (rule code `field_owned`).
 *
 * Pure: which targets are meant is the caller's (a target's kind and name, and the
 * fields its kind carries, plan_fields_of()).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "policies/policy/policy.h"
#include "policies/state/state.h"

#define LAYERS_MAX 64

/* One committed layer: the policy of its current version and the node revision that committed it. */
struct layer {
        const struct policy *p;
        int64_t revision;
};

/* The rule code of a declaration refused because another layer owns the field. */
#define LAYER_FIELD_OWNED "field_owned"

/* Does a list b in metadata.overrides? */
bool layer_overrides(const struct policy *a, const struct policy *b);
/* Does p declare field f on the target (is_switch, name)? `on`: the fields the target's kind carries. */
bool layer_declares(const struct policy *p, bool is_switch, const char *name, uint32_t on, enum state_field f);

/*
 * The merged intent of one target: for every field `on` carries, the owner among
 * v[0..n) that declare it there (the one no other declaring layer overrides; of
 * several, the newest revision), its value copied into *ret (state_init'ed here,
 * present = the owned fields). owner[f]: the index of the owning layer, -1 when none.
 */
void layers_merge(const struct layer *v, unsigned n, bool is_switch, const char *name, uint32_t on,
                  struct state *ret, int owner[STATE_FIELD_MAX]);

/*
 * Would p (a new version of the layer p->name, replacing it) declare a field another
 * layer owns on this target, without overriding it? The first such field in table
 * order: *ret_field and *ret_owner (index into v), and true. A layer that overrides p
 * is no conflict: its value stands over p's.
 */
bool layers_conflict(const struct layer *v, unsigned n, const struct policy *p, bool is_switch, const char *name,
                     uint32_t on, enum state_field *ret_field, int *ret_owner);
