/* SPDX-License-Identifier: MIT */
/* The "spec" member of a policy: validation tables and the mapping into struct state
 * (the members live state shares are parsed by spec_json.c). */
#include "policies/state/field.h"
#include "policies/policy/policy_spec.h"
#include "policies/state/spec_json.h"

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
        bool rp, np, optional;
        uint8_t cnp_dscp, cnp_prio;
        struct state_host_ecn dcqcn;    /* dcqcn_set and dcqcn[] only */
};

static int parse_ets(struct jsonv *v, const json_t *j, void *obj)
{
        return spec_json_parse_ets(v, j, &((struct state *)obj)->ets, false);
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

static int parse_dcqcn(struct jsonv *v, const json_t *j, void *obj)
{
        struct host_ecn_doc *d = obj;

        return spec_json_parse_dcqcn(v, j, &d->dcqcn);
}

/* priorities is required unless dcqcn is given (host_ecn_check). */
static const struct jsonv_field host_ecn_fields[] = {
        JSONV_CUSTOM("priorities", JSONV_ARRAY, 0, parse_host_prios),
        JSONV_BOOLEAN("reaction_point", struct host_ecn_doc, rp),
        JSONV_BOOLEAN("notification_point", struct host_ecn_doc, np),
        JSONV_UINT("cnp_dscp", struct host_ecn_doc, cnp_dscp, 0, 63),
        JSONV_UINT("cnp_priority", struct host_ecn_doc, cnp_prio, 0, 7),
        JSONV_CUSTOM("dcqcn", JSONV_OBJECT, 0, parse_dcqcn),
        JSONV_BOOLEAN("optional", struct host_ecn_doc, optional),
        { 0 },
};

/*
 * Priorities come with the enables: a host_ecn of DCQCN parameters alone (an inbox
 * mlx5 has no per-priority enables to manage) needs none, and then names no enable.
 */
static int host_ecn_check(struct jsonv *v, const json_t *j)
{
        bool dcqcn = json_object_get(j, "dcqcn");

        if (!json_object_get(j, "priorities") && !dcqcn)
                return jsonv_error(v, "missing required key 'priorities' (or 'dcqcn')");
        if (!json_object_get(j, "priorities") &&
            (json_object_get(j, "reaction_point") || json_object_get(j, "notification_point")))
                return jsonv_error(v, "reaction_point and notification_point need 'priorities'");
        if (dcqcn && !json_object_size(json_object_get(j, "dcqcn")))
                return jsonv_error(v, "dcqcn is empty: name at least one parameter, or leave it out");
        return 0;
}

static int parse_host_ecn(struct jsonv *v, const json_t *j, void *obj)
{
        struct state *st = obj;
        struct host_ecn_doc d = { .rp = true, .np = true };
        bool has_dscp, has_prio;
        int r = jsonv_object(v, j, host_ecn_fields, &d);

        if (r >= 0)
                r = host_ecn_check(v, j);
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
                .dcqcn_set = d.dcqcn.dcqcn_set,
                .optional = d.optional,
        };
        memcpy(st->host_ecn.dcqcn, d.dcqcn.dcqcn, sizeof(st->host_ecn.dcqcn));
        return 0;
}

static const struct jsonv_field spec_fields[] = {
        JSONV_UINT("mtu", struct state, mtu, POLICY_MTU_MIN, POLICY_MTU_MAX),
        JSONV_ENUM("trust", struct state, trust, spec_json_trust_names, 0),
        SPEC_JSON_SHARED_FIELDS,
        JSONV_CUSTOM("pfc", JSONV_OBJECT, 0, spec_json_parse_pfc),
        JSONV_CUSTOM("ets", JSONV_OBJECT, 0, parse_ets),
        JSONV_CUSTOM("ecn", JSONV_OBJECT, 0, parse_ecn),
        JSONV_CUSTOM("host_ecn", JSONV_OBJECT, 0, parse_host_ecn),
        JSONV_CUSTOM("buffers", JSONV_OBJECT, 0, spec_json_parse_buffers),
        JSONV_CUSTOM("nccl", JSONV_OBJECT, 0, spec_json_parse_nccl),
        { 0 },
};

/* Push the members of a dotted name ("pfc.watchdog"); returns how many. */
static unsigned push_dotted(struct jsonv *v, const char *name)
{
        char buf[64], *save = NULL;
        unsigned n = 0;

        snprintf(buf, sizeof(buf), "%s", name);
        for (char *k = strtok_r(buf, ".", &save); k; k = strtok_r(NULL, ".", &save), n++)
                jsonv_push_key(v, k);
        return n;
}

/* The rules across members (the field table's checks), reported at the member's JSON path. */
static int check_fields(struct jsonv *v, const struct state *s)
{
        struct field_problem p;
        enum state_field f;
        unsigned n;
        int r;

        if (state_check(s, &f, &p) >= 0)
                return 0;
        n = push_dotted(v, state_field_name(f));
        if (p.member[0])
                n += push_dotted(v, p.member);
        if (p.index >= 0)
                jsonv_push_index(v, (size_t)p.index);
        r = jsonv_error(v, "%s", p.msg);
        if (p.index >= 0)
                jsonv_pop(v);
        while (n--)
                jsonv_pop(v);
        return r;
}

int policy_spec_parse(struct jsonv *v, const json_t *j, struct state *ret)
{
        int r;

        state_init(ret);
        r = jsonv_object(v, j, spec_fields, ret);
        if (r < 0)
                return r;
        /* Every spec key is a state field name: what is given is managed. */
        ret->present = spec_json_present(j);
        /* The map is exact: on a host NIC a code point it does not list is programmed to priority 0. */
        ret->dscp_unlisted_zero = state_has(ret, STATE_FIELD_DSCP_MAP);
        /* nccl.ib_tc "auto": NCCL's traffic class is the policy's roce_tos */
        if (ret->nccl.tc_auto) {
                if (!state_has(ret, STATE_FIELD_ROCE_TOS)) {
                        jsonv_push_key(v, "nccl");
                        jsonv_push_key(v, "ib_tc");
                        r = jsonv_error(v, "ib_tc \"auto\" takes the policy's roce_tos, and the policy declares "
                                        "none: declare roce_tos (0-255) or give ib_tc a value 0-255");
                        jsonv_pop(v);
                        jsonv_pop(v);
                        return r;
                }
                ret->nccl.value[STATE_NCCL_IB_TC] = ret->roce_tos;
        }
        return check_fields(v, ret);
}
