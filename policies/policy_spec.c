/* SPDX-License-Identifier: MIT */
/* The "spec" member of a policy: validation tables and the mapping into struct state
 * (the members live state shares are parsed by spec_json.c). */
#include "policy_spec.h"
#include "spec_json.h"

struct ecn_doc {
        unsigned long long queues;
        uint32_t min_bytes;
        uint32_t max_bytes;
        uint8_t probability_pct;
        bool enabled;
        bool replace_root_qdisc;
};

struct host_ecn_doc {
        unsigned long long prios;
        bool rp, np;
        uint8_t cnp_dscp, cnp_prio;
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
        int r = spec_json_parse_ets(v, j, &st->ets, false);

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
        JSONV_BOOLEAN("replace_root_qdisc", struct ecn_doc, replace_root_qdisc),
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
        st->ecn.replace_root_qdisc = d.replace_root_qdisc;
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
        SPEC_JSON_SHARED_FIELDS,
        JSONV_CUSTOM("ets", JSONV_OBJECT, 0, parse_ets),
        JSONV_CUSTOM("ecn", JSONV_OBJECT, 0, parse_ecn),
        JSONV_CUSTOM("host_ecn", JSONV_OBJECT, 0, parse_host_ecn),
        { 0 },
};

int policy_spec_parse(struct jsonv *v, const json_t *j, struct state *ret)
{
        int r;

        state_init(ret);
        r = jsonv_object(v, j, spec_fields, ret);
        if (r < 0)
                return r;
        /* Every spec key is a state field name: what is given is managed. */
        ret->present = spec_json_present(j);
        return 0;
}
