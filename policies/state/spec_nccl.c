/* SPDX-License-Identifier: MIT */
/*
 * The "nccl" object, a policy's and live state's:
 *
 *   policy:  "nccl": { "ib_tc": 106 | "auto", "ib_sl": 3 }
 *   live:    "nccl": { "ib_tc": 106, "ib_sl": 3,
 *                      "file": { "exists": true, "ends_in_newline": true, "empty": false,
 *                                "lines": { "NCCL_IB_TC": "NCCL_IB_TC=106" } } }
 *
 * ib_tc 0-255 (NCCL_IB_TC, the GRH traffic class: DSCP << 2 | ECN) or "auto", the
 * policy's roce_tos (resolved by policy_spec.c); ib_sl 0-7 (NCCL_IB_SL). A live key
 * NCCL does not find in the file is left out. "file" is what a read saw, for a
 * byte-identical restore: each managed key's first line (printable ASCII).
 */
#include "policies/state/spec_json.h"

#define NCCL_TC_AUTO_NAME "auto"

json_t *spec_json_nccl(const struct state_nccl *n, bool *ok)
{
        json_t *o = json_object(), *file, *lines;

        for (unsigned k = 0; o && k < STATE_NCCL_KEYS; k++) {
                if (k == STATE_NCCL_IB_TC && n->tc_auto)
                        spec_json_set(o, state_nccl_keys[k], json_string(NCCL_TC_AUTO_NAME), ok);
                else if (n->has & (1u << k))
                        spec_json_set(o, state_nccl_keys[k], json_integer(n->value[k]), ok);
        }
        if (!o || !n->read)
                return o;
        file = json_object();
        lines = json_object();
        for (unsigned k = 0; lines && k < STATE_NCCL_KEYS; k++)
                if (n->line[k][0])
                        spec_json_set(lines, state_nccl_env_names[k], json_string(n->line[k]), ok);
        spec_json_set(file, "exists", json_boolean(n->exists), ok);
        spec_json_set(file, "ends_in_newline", json_boolean(n->eol), ok);
        spec_json_set(file, "empty", json_boolean(n->empty), ok);
        spec_json_set(file, "lines", lines, ok);
        spec_json_set(o, "file", file, ok);
        return o;
}

/* ---- parsing ---- */

static int parse_tc(struct jsonv *v, const json_t *j, void *obj)
{
        struct state_nccl *n = obj;
        long long tc;
        char q[80];
        int r;

        if (json_is_string(j)) {
                if (!streq(json_string_value(j), NCCL_TC_AUTO_NAME))
                        return jsonv_error(v, "ib_tc '%s' is neither a traffic class 0-255 nor \"auto\" (the "
                                           "policy's roce_tos)", jsonv_quote(json_string_value(j), q, sizeof(q)));
                n->tc_auto = true;
                n->has |= 1u << STATE_NCCL_IB_TC;
                return 0;
        }
        if (!json_is_integer(j))
                return jsonv_error(v, "expected integer 0-255 or \"auto\", found %s", jsonv_type_name(j));
        r = jsonv_int(v, j, "ib_tc", 0, 255, &tc);
        if (r >= 0) {
                n->value[STATE_NCCL_IB_TC] = (uint8_t)tc;
                n->has |= 1u << STATE_NCCL_IB_TC;
        }
        return r;
}

static int parse_sl(struct jsonv *v, const json_t *j, void *obj)
{
        struct state_nccl *n = obj;
        long long sl;
        int r = jsonv_int(v, j, "ib_sl", 0, 7, &sl);

        if (r >= 0) {
                n->value[STATE_NCCL_IB_SL] = (uint8_t)sl;
                n->has |= 1u << STATE_NCCL_IB_SL;
        }
        return r;
}

static const struct jsonv_field nccl_fields[] = {
        JSONV_CUSTOM("ib_tc", JSONV_ANY, 0, parse_tc),
        JSONV_CUSTOM("ib_sl", JSONV_INTEGER, 0, parse_sl),
        { 0 },
};

int spec_json_parse_nccl(struct jsonv *v, const json_t *j, void *obj)
{
        struct state_nccl *n = &((struct state *)obj)->nccl;
        int r = jsonv_object(v, j, nccl_fields, n);

        if (r >= 0 && !n->has)
                r = jsonv_error(v, "nccl is empty: declare ib_tc or ib_sl, or leave it out");
        return r;
}

/* A line as a read keeps it: printable ASCII and tabs, shorter than STATE_NCCL_LINE_MAX. */
static int parse_line(struct jsonv *v, const json_t *j, char *out)
{
        const char *s = json_string_value(j);
        size_t n = s ? strlen(s) : 0;

        if (!s || n >= STATE_NCCL_LINE_MAX)
                return jsonv_error(v, "expected a line of at most %d characters", STATE_NCCL_LINE_MAX - 1);
        for (size_t i = 0; i < n; i++)
                if ((s[i] < 0x20 && s[i] != '\t' && s[i] != '\r') || (unsigned char)s[i] >= 0x7f)
                        return jsonv_error(v, "a line holds printable ASCII only");
        memcpy(out, s, n + 1);
        return 0;
}

static int parse_lines(struct jsonv *v, const json_t *j, void *obj)
{
        struct state_nccl *n = obj;
        const char *key;
        json_t *val;
        char q[80];

        json_object_foreach((json_t *)j, key, val) {
                unsigned k = 0;
                int r;

                while (k < STATE_NCCL_KEYS && !streq(state_nccl_env_names[k], key))
                        k++;
                if (k == STATE_NCCL_KEYS)
                        return jsonv_error(v, "unknown key '%s', expected NCCL_IB_TC or NCCL_IB_SL",
                                           jsonv_quote(key, q, sizeof(q)));
                jsonv_push_key(v, key);
                r = json_is_string(val) ? parse_line(v, val, n->line[k]) : jsonv_check_type(v, val, JSONV_STRING);
                jsonv_pop(v);
                if (r < 0)
                        return r;
        }
        return 0;
}

static const struct jsonv_field file_fields[] = {
        JSONV_BOOLEAN("exists", struct state_nccl, exists),
        JSONV_BOOLEAN("ends_in_newline", struct state_nccl, eol),
        JSONV_BOOLEAN("empty", struct state_nccl, empty),
        JSONV_CUSTOM("lines", JSONV_OBJECT, 0, parse_lines),
        { 0 },
};

static int parse_file(struct jsonv *v, const json_t *j, void *obj)
{
        struct state_nccl *n = obj;
        int r = jsonv_object(v, j, file_fields, n);

        n->read = r >= 0;
        return r;
}

static int parse_live_tc(struct jsonv *v, const json_t *j, void *obj)
{
        struct state_nccl *n = obj;
        long long tc;
        int r = jsonv_int(v, j, "ib_tc", 0, 255, &tc);

        if (r >= 0) {
                n->value[STATE_NCCL_IB_TC] = (uint8_t)tc;
                n->has |= 1u << STATE_NCCL_IB_TC;
        }
        return r;
}

static int parse_live_sl(struct jsonv *v, const json_t *j, void *obj)
{
        struct state_nccl *n = obj;
        long long sl;
        int r = jsonv_int(v, j, "ib_sl", 0, 255, &sl);

        if (r >= 0) {
                n->value[STATE_NCCL_IB_SL] = (uint8_t)sl;
                n->has |= 1u << STATE_NCCL_IB_SL;
        }
        return r;
}

static const struct jsonv_field nccl_live_fields[] = {
        JSONV_CUSTOM("ib_tc", JSONV_INTEGER, 0, parse_live_tc),
        JSONV_CUSTOM("ib_sl", JSONV_INTEGER, 0, parse_live_sl),
        JSONV_CUSTOM("file", JSONV_OBJECT, 0, parse_file),
        { 0 },
};

int spec_json_parse_nccl_live(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object(v, j, nccl_live_fields, &((struct state *)obj)->nccl);
}
