/* SPDX-License-Identifier: MIT */
/* Layers and owners (layers.h): the merge of a node's committed policies, field by field. */
#include <string.h>

#include "common/util.h"
#include "policies/state/field.h"
#include "policies/policy/layers.h"

bool layer_overrides(const struct policy *a, const struct policy *b)
{
        for (unsigned i = 0; i < a->n_overrides; i++)
                if (streq(a->overrides[i], b->name))
                        return true;
        return false;
}

bool layer_declares(const struct policy *p, bool is_switch, const char *name, uint32_t on, enum state_field f)
{
        if (!(p->spec.present & on & STATE_BIT(f)))
                return false;
        return is_switch ? policy_targets_switch(p, name) : policy_targets_interface(p, name);
}

/*
 * The owner of f among the declaring layers: the newest one no other declaring layer
 * overrides; where each is overridden (layers that override one another), the newest.
 */
static int owner_of(const struct layer *v, unsigned n, bool is_switch, const char *name, uint32_t on,
                    enum state_field f)
{
        int best = -1, newest = -1;

        for (unsigned i = 0; i < n; i++) {
                bool beaten = false;

                if (!layer_declares(v[i].p, is_switch, name, on, f))
                        continue;
                if (newest < 0 || v[i].revision > v[newest].revision)
                        newest = (int)i;
                for (unsigned k = 0; k < n && !beaten; k++)
                        beaten = k != i && layer_overrides(v[k].p, v[i].p) &&
                                 layer_declares(v[k].p, is_switch, name, on, f);
                if (!beaten && (best < 0 || v[i].revision > v[best].revision))
                        best = (int)i;
        }
        return best >= 0 ? best : newest;
}

void layers_merge(const struct layer *v, unsigned n, bool is_switch, const char *name, uint32_t on,
                  struct state *ret, int owner[STATE_FIELD_MAX])
{
        state_init(ret);
        for (int f = 0; f < STATE_FIELD_MAX; f++) {
                owner[f] = owner_of(v, n, is_switch, name, on, (enum state_field)f);
                if (owner[f] >= 0)
                        state_copy_fields(ret, &v[owner[f]].p->spec, STATE_BIT(f));
        }
}

bool layers_conflict(const struct layer *v, unsigned n, const struct policy *p, bool is_switch, const char *name,
                     uint32_t on, enum state_field *ret_field, int *ret_owner)
{
        for (int f = 0; f < STATE_FIELD_MAX; f++) {
                if (!layer_declares(p, is_switch, name, on, (enum state_field)f))
                        continue;
                for (unsigned i = 0; i < n; i++) {
                        const struct policy *o = v[i].p;

                        if (streq(o->name, p->name) || !layer_declares(o, is_switch, name, on, (enum state_field)f) ||
                            layer_overrides(p, o) || layer_overrides(o, p))
                                continue;
                        *ret_field = (enum state_field)f;
                        *ret_owner = (int)i;
                        return true;
                }
        }
        return false;
}
