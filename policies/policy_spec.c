/* SPDX-License-Identifier: MIT */
/* The "spec" member of a policy: validation tables and the mapping into struct state. */
#include <ctype.h>

#include "policy_spec.h"

static const char *const trust_names[] = { "pcp", "dscp", NULL };
/* Indexes are enum state_tsa values; "vendor" is read-back only, never desired. */
static const char *const tsa_names[] = { "strict", "ets", NULL };

struct ecn_doc {
        unsigned long long queues;
        uint32_t min_bytes;
        uint32_t max_bytes;
        uint8_t probability_pct;
        bool enabled;
};

struct host_ecn_doc {
        unsigned long long prios;
        bool rp, np;
        uint8_t cnp_dscp, cnp_prio;
};

static int dscp_key(struct jsonv *v, const char *key, unsigned *ret)
{
        char q[80];
        size_t len = strlen(key);

        if (len == 0 || len > 2 || !isdigit((unsigned char)key[0]) ||
            (len == 2 && (!isdigit((unsigned char)key[1]) || key[0] == '0')) ||
            atoi(key) > 63)
                return jsonv_error(v, "dscp key '%s' is not an integer 0-63", jsonv_quote(key, q, sizeof(q)));
        *ret = (unsigned)atoi(key);
        return 0;
}

static int parse_dscp_map(struct jsonv *v, const json_t *j, void *obj)
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

static int parse_pfc_priorities(struct jsonv *v, const json_t *j, void *obj)
{
        struct state *st = obj;
        unsigned long long bits;
        int r = jsonv_bitmap_array(v, j, "priority", 7, 0, &bits);

        if (r >= 0)
                st->pfc_enabled = (uint8_t)bits;
        return r;
}

static const struct jsonv_field pfc_fields[] = {
        JSONV_CUSTOM("priorities", JSONV_ARRAY, JSONV_REQUIRED, parse_pfc_priorities),
        { 0 },
};

static int parse_pfc(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object(v, j, pfc_fields, obj);
}

static int parse_prio_tc(struct jsonv *v, const json_t *j, void *obj)
{
        struct state_ets *ets = obj;
        long long vals[STATE_PRIO_COUNT];
        size_t n;
        int r = jsonv_int_array(v, j, "tc", 0, 7, 8, 8, 0, vals, &n);

        for (size_t i = 0; r >= 0 && i < n; i++)
                ets->prio_tc[i] = (uint8_t)vals[i];
        return r;
}

static int parse_tc_bw(struct jsonv *v, const json_t *j, void *obj)
{
        struct state_ets *ets = obj;
        long long vals[STATE_TC_COUNT];
        size_t n;
        int r = jsonv_int_array(v, j, "bandwidth", 0, 100, 8, 8, 0, vals, &n);

        for (size_t i = 0; r >= 0 && i < n; i++)
                ets->tc_bw_pct[i] = (uint8_t)vals[i];
        return r;
}

static int parse_tc_tsa(struct jsonv *v, const json_t *j, void *obj)
{
        struct state_ets *ets = obj;
        size_t i;
        json_t *el;

        if (json_array_size(j) != STATE_TC_COUNT)
                return jsonv_error(v, "expected 8 elements, found %zu", json_array_size(j));
        json_array_foreach(j, i, el) {
                unsigned tsa;
                int r;

                jsonv_push_index(v, i);
                r = jsonv_enum(v, el, "tsa", tsa_names, &tsa);
                jsonv_pop(v);
                if (r < 0)
                        return r;
                ets->tc_tsa[i] = (uint8_t)tsa;
        }
        return 0;
}

static const struct jsonv_field ets_fields[] = {
        JSONV_CUSTOM("priority_to_tc", JSONV_ARRAY, JSONV_REQUIRED, parse_prio_tc),
        JSONV_CUSTOM("tc_bandwidth_pct", JSONV_ARRAY, JSONV_REQUIRED, parse_tc_bw),
        JSONV_CUSTOM("tc_tsa", JSONV_ARRAY, JSONV_REQUIRED, parse_tc_tsa),
        { 0 },
};

/* Strict classes carry no bandwidth; the ets classes share exactly 100%. */
static int ets_cross_check(struct jsonv *v, const struct state_ets *ets)
{
        unsigned sum = 0, n_ets = 0;
        int r = 0;

        jsonv_push_key(v, "tc_bandwidth_pct");
        for (unsigned tc = 0; tc < STATE_TC_COUNT && r >= 0; tc++) {
                if (ets->tc_tsa[tc] == STATE_TSA_ETS) {
                        sum += ets->tc_bw_pct[tc];
                        n_ets++;
                } else if (ets->tc_bw_pct[tc]) {
                        jsonv_push_index(v, tc);
                        r = jsonv_error(v, "bandwidth %u of strict tc %u must be 0", ets->tc_bw_pct[tc], tc);
                        jsonv_pop(v);
                }
        }
        if (r >= 0 && n_ets && sum != 100)
                r = jsonv_error(v, "tc_bandwidth_pct of ets classes sums to %u, expected 100", sum);
        jsonv_pop(v);
        return r;
}

static int parse_ets(struct jsonv *v, const json_t *j, void *obj)
{
        struct state *st = obj;
        int r = jsonv_object(v, j, ets_fields, &st->ets);

        return r < 0 ? r : ets_cross_check(v, &st->ets);
}

static int parse_ecn_queues(struct jsonv *v, const json_t *j, void *obj)
{
        struct ecn_doc *d = obj;

        return jsonv_bitmap_array(v, j, "queue", 7, JSONV_NONEMPTY, &d->queues);
}

static const struct jsonv_field ecn_fields[] = {
        JSONV_CUSTOM("queues", JSONV_ARRAY, JSONV_REQUIRED, parse_ecn_queues),
        JSONV_BOOLEAN("enabled", struct ecn_doc, enabled),
        JSONV_UINT("min_threshold_bytes", struct ecn_doc, min_bytes, 1, POLICY_ECN_BYTES_MAX),
        JSONV_UINT("max_threshold_bytes", struct ecn_doc, max_bytes, 1, POLICY_ECN_BYTES_MAX),
        JSONV_UINT("mark_probability_pct", struct ecn_doc, probability_pct, 1, 100),
        { 0 },
};

static int ecn_check(struct jsonv *v, const json_t *j, const struct ecn_doc *d)
{
        if (d->enabled && !json_object_get(j, "min_threshold_bytes"))
                return jsonv_error(v, "missing required key 'min_threshold_bytes'");
        if (d->enabled && !json_object_get(j, "max_threshold_bytes"))
                return jsonv_error(v, "missing required key 'max_threshold_bytes'");
        if (d->min_bytes && d->max_bytes && d->min_bytes > d->max_bytes)
                return jsonv_error(v, "min_threshold_bytes %u is greater than max_threshold_bytes %u",
                                   d->min_bytes, d->max_bytes);
        return 0;
}

static int parse_ecn(struct jsonv *v, const json_t *j, void *obj)
{
        struct state *st = obj;
        struct ecn_doc d = { .enabled = true, .probability_pct = 100 };
        int r = jsonv_object(v, j, ecn_fields, &d);

        if (r >= 0)
                r = ecn_check(v, j, &d);
        if (r < 0)
                return r;
        if (!d.enabled && !json_object_get(j, "mark_probability_pct"))
                d.probability_pct = 0;
        st->ecn.queues = (uint8_t)d.queues;
        for (unsigned q = 0; q < STATE_TC_COUNT; q++)
                if (d.queues & (1u << q))
                        st->ecn.q[q] = (struct state_ecn_queue){
                                .enabled = d.enabled, .min_bytes = d.min_bytes,
                                .max_bytes = d.max_bytes, .probability_pct = d.probability_pct,
                        };
        return 0;
}

static int parse_host_prios(struct jsonv *v, const json_t *j, void *obj)
{
        struct host_ecn_doc *d = obj;

        return jsonv_bitmap_array(v, j, "priority", 7, JSONV_NONEMPTY, &d->prios);
}

static const struct jsonv_field host_ecn_fields[] = {
        JSONV_CUSTOM("priorities", JSONV_ARRAY, JSONV_REQUIRED, parse_host_prios),
        JSONV_BOOLEAN("reaction_point", struct host_ecn_doc, rp),
        JSONV_BOOLEAN("notification_point", struct host_ecn_doc, np),
        JSONV_UINT("cnp_dscp", struct host_ecn_doc, cnp_dscp, 0, 63),
        JSONV_UINT("cnp_priority", struct host_ecn_doc, cnp_prio, 0, 7),
        { 0 },
};

static int parse_host_ecn(struct jsonv *v, const json_t *j, void *obj)
{
        struct state *st = obj;
        struct host_ecn_doc d = { .rp = true, .np = true };
        bool has_dscp, has_prio;
        int r = jsonv_object(v, j, host_ecn_fields, &d);

        if (r < 0)
                return r;
        has_dscp = json_object_get(j, "cnp_dscp");
        has_prio = json_object_get(j, "cnp_priority");
        if (has_dscp != has_prio)
                return jsonv_error(v, "%s is given without %s; give both or neither",
                                   has_dscp ? "cnp_dscp" : "cnp_priority", has_dscp ? "cnp_priority" : "cnp_dscp");
        st->host_ecn = (struct state_host_ecn){
                .prios = (uint8_t)d.prios,
                .rp_enabled = d.rp ? (uint8_t)d.prios : 0,
                .np_enabled = d.np ? (uint8_t)d.prios : 0,
                .has_cnp = has_dscp,
                .cnp_dscp = has_dscp ? d.cnp_dscp : 0,
                .cnp_prio = has_prio ? d.cnp_prio : 0,
        };
        return 0;
}

static const struct jsonv_field spec_fields[] = {
        JSONV_UINT("mtu", struct state, mtu, POLICY_MTU_MIN, POLICY_MTU_MAX),
        JSONV_ENUM("trust", struct state, trust, trust_names, 0),
        JSONV_CUSTOM("dscp_to_priority", JSONV_OBJECT, 0, parse_dscp_map),
        JSONV_CUSTOM("pfc", JSONV_OBJECT, 0, parse_pfc),
        JSONV_CUSTOM("ets", JSONV_OBJECT, 0, parse_ets),
        JSONV_CUSTOM("ecn", JSONV_OBJECT, 0, parse_ecn),
        JSONV_CUSTOM("host_ecn", JSONV_OBJECT, 0, parse_host_ecn),
        { 0 },
};

int policy_spec_parse(struct jsonv *v, const json_t *j, struct state *ret)
{
        const char *key;
        json_t *val;
        int r;

        state_init(ret);
        r = jsonv_object(v, j, spec_fields, ret);
        if (r < 0)
                return r;
        /* Every spec key is a state field name: what is given is managed. */
        json_object_foreach((json_t *)j, key, val) {
                int f = state_field_from_name(key);

                if (f >= 0)
                        ret->present |= STATE_BIT(f);
        }
        return 0;
}
