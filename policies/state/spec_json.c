/* SPDX-License-Identifier: MIT */
/* JSON of the spec members policies and live state share (see spec_json.h). */
#include <ctype.h>

#include "policies/state/spec_json.h"

const char *const spec_json_trust_names[] = { "pcp", "dscp", NULL };
const char *const spec_json_trust_live_names[] = { "pcp", "dscp", "none", NULL };
/* Indexes are enum state_tsa values; "vendor" and "cbs" are read-back only, never desired. */
static const char *const tsa_desired_names[] = { "strict", "ets", NULL };
static const char *const tsa_live_names[] = { "strict", "ets", "vendor", "cbs", NULL };

static json_t *u8_array(const uint8_t *v, unsigned n, bool *ok)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < n; i++)
                spec_json_append(a, json_integer(v[i]), ok);
        return a;
}

static json_t *ets_json(const struct state_ets *ets, bool *ok)
{
        json_t *o = json_object(), *tsa = json_array();

        for (unsigned i = 0; tsa && i < STATE_TC_COUNT; i++)
                spec_json_append(tsa, json_string(state_tsa_name(ets->tc_tsa[i])), ok);
        spec_json_set(o, "priority_to_tc", u8_array(ets->prio_tc, STATE_PRIO_COUNT, ok), ok);
        spec_json_set(o, "tc_bandwidth_pct", u8_array(ets->tc_bw_pct, STATE_TC_COUNT, ok), ok);
        spec_json_set(o, "tc_tsa", tsa, ok);
        if (ets->willing)
                spec_json_set(o, "willing", json_true(), ok);
        return o;
}

static json_t *dscp_json(const uint8_t *map, bool *ok)
{
        json_t *o = json_object();
        char key[4];

        for (unsigned d = 0; o && d < STATE_DSCP_COUNT; d++) {
                if (map[d] == STATE_DSCP_UNMAPPED)
                        continue;
                snprintf(key, sizeof(key), "%u", d);
                spec_json_set(o, key, json_integer(map[d]), ok);
        }
        return o;
}

/* "pfc": the priorities and the cable length, whichever of the two fields s carries. */
static json_t *pfc_json(const struct state *s, bool *ok)
{
        json_t *o = json_object();

        if (state_has(s, STATE_FIELD_PFC))
                spec_json_set(o, "priorities", spec_json_bits(s->pfc_enabled, ok), ok);
        if (state_has(s, STATE_FIELD_CABLE_LEN))
                spec_json_set(o, "cable_length_m", json_integer(s->cable_len_m), ok);
        return o;
}

void spec_json_put_common(json_t *o, const struct state *s, bool *ok)
{
        if (state_has(s, STATE_FIELD_MTU))
                spec_json_set(o, "mtu", json_integer(s->mtu), ok);
        if (state_has(s, STATE_FIELD_TRUST))
                spec_json_set(o, "trust", json_string(state_trust_name(s->trust)), ok);
        if (state_has(s, STATE_FIELD_DSCP_MAP))
                spec_json_set(o, "dscp_to_priority", dscp_json(s->dscp_prio, ok), ok);
        if (state_has(s, STATE_FIELD_PFC) || state_has(s, STATE_FIELD_CABLE_LEN))
                spec_json_set(o, "pfc", pfc_json(s, ok), ok);
        if (state_has(s, STATE_FIELD_ETS))
                spec_json_set(o, "ets", ets_json(&s->ets, ok), ok);
        if (state_has(s, STATE_FIELD_BUFFERS))
                spec_json_set(o, "buffers", spec_json_buffers(&s->buffers, ok), ok);
        if (state_has(s, STATE_FIELD_ROCE_TOS))
                spec_json_set(o, "roce_tos", json_integer(s->roce_tos), ok);
        if (state_has(s, STATE_FIELD_NCCL))
                spec_json_set(o, "nccl", spec_json_nccl(&s->nccl, ok), ok);
}

/* ---- parsing ---- */

uint32_t spec_json_present(const json_t *j)
{
        uint32_t present = 0;
        const char *key;
        json_t *val;

        json_object_foreach((json_t *)j, key, val) {
                int f = state_field_from_name(key);

                if (streq(key, "pfc"))
                        present |= spec_json_pfc_present(val);
                else if (f >= 0)
                        present |= STATE_BIT(f);
        }
        return present;
}

/* "0" to "63", no sign, no leading zero, no blanks. */
static int dscp_key(struct jsonv *v, const char *key, unsigned *ret)
{
        char q[80];
        size_t len = strlen(key);

        if (len == 0 || len > 2 || !isdigit((unsigned char)key[0]) ||
            (len == 2 && (!isdigit((unsigned char)key[1]) || key[0] == '0')) || atoi(key) > 63)
                return jsonv_error(v, "dscp key '%s' is not an integer 0-63", jsonv_quote(key, q, sizeof(q)));
        *ret = (unsigned)atoi(key);
        return 0;
}

int spec_json_parse_dscp_map(struct jsonv *v, const json_t *j, void *obj)
{
        struct state *st = obj;
        const char *key;
        json_t *val;

        json_object_foreach((json_t *)j, key, val) {
                unsigned dscp = 0;
                long long prio;
                int r = dscp_key(v, key, &dscp);

                if (r < 0)
                        return r;
                jsonv_push_key(v, key);
                r = jsonv_int(v, val, "priority", 0, 7, &prio);
                jsonv_pop(v);
                if (r < 0)
                        return r;
                st->dscp_prio[dscp] = (uint8_t)prio;
        }
        return 0;
}

static int u8_list(struct jsonv *v, const json_t *j, const char *what, long long max, uint8_t *out)
{
        long long vals[8];
        size_t n;
        int r = jsonv_int_array(v, j, what, 0, max, 8, 8, 0, vals, &n);

        for (size_t i = 0; r >= 0 && i < n; i++)
                out[i] = (uint8_t)vals[i];
        return r;
}

static int parse_prio_tc(struct jsonv *v, const json_t *j, void *obj)
{
        return u8_list(v, j, "tc", 7, ((struct state_ets *)obj)->prio_tc);
}

static int parse_tc_bw(struct jsonv *v, const json_t *j, void *obj)
{
        return u8_list(v, j, "bandwidth", 100, ((struct state_ets *)obj)->tc_bw_pct);
}

static int tsa_list(struct jsonv *v, const json_t *j, const char *const *names, struct state_ets *ets)
{
        size_t i;
        json_t *el;

        if (json_array_size(j) != STATE_TC_COUNT)
                return jsonv_error(v, "expected 8 elements, found %zu", json_array_size(j));
        json_array_foreach(j, i, el) {
                unsigned tsa;
                int r;

                jsonv_push_index(v, i);
                r = jsonv_enum(v, el, "tsa", names, &tsa);
                jsonv_pop(v);
                if (r < 0)
                        return r;
                ets->tc_tsa[i] = (uint8_t)tsa;
        }
        return 0;
}

static int parse_tsa_desired(struct jsonv *v, const json_t *j, void *obj)
{
        return tsa_list(v, j, tsa_desired_names, obj);
}

static int parse_tsa_live(struct jsonv *v, const json_t *j, void *obj)
{
        return tsa_list(v, j, tsa_live_names, obj);
}

#define ETS_FIELDS(tsa_parse) \
        JSONV_CUSTOM("priority_to_tc", JSONV_ARRAY, JSONV_REQUIRED, parse_prio_tc), \
        JSONV_CUSTOM("tc_bandwidth_pct", JSONV_ARRAY, JSONV_REQUIRED, parse_tc_bw), \
        JSONV_CUSTOM("tc_tsa", JSONV_ARRAY, JSONV_REQUIRED, tsa_parse)

static const struct jsonv_field ets_desired_fields[] = { ETS_FIELDS(parse_tsa_desired), { 0 } };
/* Live state also says whether the device's ETS is willing (a policy's never is). */
static const struct jsonv_field ets_live_fields[] = {
        ETS_FIELDS(parse_tsa_live),
        JSONV_BOOLEAN("willing", struct state_ets, willing),
        { 0 },
};

int spec_json_parse_ets(struct jsonv *v, const json_t *j, struct state_ets *ets, bool allow_vendor)
{
        return jsonv_object(v, j, allow_vendor ? ets_live_fields : ets_desired_fields, ets);
}

/* ---- buffers ---- */

json_t *spec_json_buffers(const struct state_buffers *b, bool *ok)
{
        json_t *o = json_object(), *sizes = json_array();

        for (unsigned i = 0; sizes && i < STATE_BUFFER_COUNT; i++)
                spec_json_append(sizes, json_integer(b->size[i]), ok);
        spec_json_set(o, "prio_to_buffer", u8_array(b->prio_buffer, STATE_PRIO_COUNT, ok), ok);
        spec_json_set(o, "buffer_size_bytes", sizes, ok);
        if (b->total)
                spec_json_set(o, "total_bytes", json_integer(b->total), ok);
        return o;
}

static int parse_prio_buffer(struct jsonv *v, const json_t *j, void *obj)
{
        return u8_list(v, j, "buffer", STATE_BUFFER_COUNT - 1, ((struct state *)obj)->buffers.prio_buffer);
}

static int parse_buffer_sizes(struct jsonv *v, const json_t *j, void *obj)
{
        uint32_t *size = ((struct state *)obj)->buffers.size;
        long long vals[STATE_BUFFER_COUNT];
        size_t n;
        int r = jsonv_int_array(v, j, "buffer size", 0, 4294967295LL, STATE_BUFFER_COUNT, STATE_BUFFER_COUNT, 0,
                                vals, &n);

        for (size_t i = 0; r >= 0 && i < n; i++)
                size[i] = (uint32_t)vals[i];
        return r;
}

#define BUFFER_FIELDS \
        JSONV_CUSTOM("prio_to_buffer", JSONV_ARRAY, JSONV_REQUIRED, parse_prio_buffer), \
        JSONV_CUSTOM("buffer_size_bytes", JSONV_ARRAY, JSONV_REQUIRED, parse_buffer_sizes)

static const struct jsonv_field buffer_fields[] = { BUFFER_FIELDS, { 0 } };
static const struct jsonv_field buffer_live_fields[] = {
        BUFFER_FIELDS,
        { .key = "total_bytes", .type = JSONV_INTEGER, .min = 0, .max = 4294967295LL,
          JSONV_MEMBER(struct state, buffers.total) },
        { 0 },
};

int spec_json_parse_buffers(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object(v, j, buffer_fields, obj);
}

int spec_json_parse_buffers_live(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object(v, j, buffer_live_fields, obj);
}

/* ---- host_ecn.dcqcn: the same object in a policy and in live state ---- */

json_t *spec_json_dcqcn(const struct state_host_ecn *h, bool *ok)
{
        json_t *o = json_object();

        for (unsigned p = 0; o && p < STATE_DCQCN_MAX; p++)
                if (h->dcqcn_set & (1u << p))
                        spec_json_set(o, state_dcqcn_params[p].name, json_integer(h->dcqcn[p]), ok);
        if (!o)
                *ok = false;
        return o;
}

int spec_json_parse_dcqcn(struct jsonv *v, const json_t *j, struct state_host_ecn *h)
{
        const char *key;
        json_t *val;
        char q[80];

        json_object_foreach((json_t *)j, key, val) {
                int p = state_dcqcn_from_name(key), r;
                long long x;

                if (p < 0)
                        return jsonv_error(v, "unknown key '%s', expected a DCQCN parameter: rp_time_reset, "
                                           "rp_ai_rate, ..., np_min_time_between_cnps (policy-reference.md)",
                                           jsonv_quote(key, q, sizeof(q)));
                jsonv_push_key(v, key);
                r = jsonv_int(v, val, key, state_dcqcn_params[p].min, state_dcqcn_params[p].max, &x);
                jsonv_pop(v);
                if (r < 0)
                        return r;
                h->dcqcn[p] = (uint32_t)x;
                h->dcqcn_set |= 1u << p;
        }
        return 0;
}
