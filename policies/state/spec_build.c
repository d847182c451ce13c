/* SPDX-License-Identifier: MIT */
/*
 * The builders every part of the spec's JSON writes with (spec_json.h): a member set
 * or appended, and a priority mask as a list, each counting a failed allocation in
 * *ok. The bottom of the spec JSON files: spec_json.c and spec_pfc.c call it, it
 * calls only jansson.
 */
#include "policies/state/spec_json.h"

void spec_json_set(json_t *o, const char *key, json_t *val, bool *ok)
{
        if (!o || !val) {
                json_decref(val);
                *ok = false;
        } else if (json_object_set_new(o, key, val) < 0) {
                *ok = false;
        }
}

void spec_json_append(json_t *a, json_t *val, bool *ok)
{
        if (!a || !val) {
                json_decref(val);
                *ok = false;
        } else if (json_array_append_new(a, val) < 0) {
                *ok = false;
        }
}

json_t *spec_json_bits(unsigned bits, bool *ok)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < 8; i++)
                if (bits & (1u << i))
                        spec_json_append(a, json_integer(i), ok);
        return a;
}
