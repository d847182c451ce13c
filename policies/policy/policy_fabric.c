/* SPDX-License-Identifier: MIT */
/* verify.fabric: the controller's fabric gate (parse, defaults, the class its traffic carries). */
#include "policies/json/jsonv.h"
#include "policies/policy/policy.h"
#include "policies/policy/policy_spec.h"

static const char *const pattern_names[] = { "ring", "incast", "alltoall", NULL };
/* Indexes are enum policy_probe values; "none" is not a mode of the fabric probe. */
static const char *const mode_names[] = { "auto", "verbs", "tcp", NULL };

const char *policy_fabric_pattern_name(enum policy_fabric_pattern p)
{
        return (unsigned)p < POLICY_FABRIC_PATTERN_MAX ? pattern_names[p] : "unknown";
}

static const struct jsonv_field fabric_fields[] = {
        { .key = "pattern", .type = JSONV_STRING, .flags = JSONV_REQUIRED, .names = pattern_names,
          JSONV_MEMBER(struct policy_fabric, pattern) },
        JSONV_UINT("duration_ms", struct policy_fabric, duration_ms, 100, 60000),
        JSONV_UINT("max_regression_pct", struct policy_fabric, max_regression_pct, 0, 100),
        JSONV_ENUM("mode", struct policy_fabric, mode, mode_names, 0),
        JSONV_UINT("neighbours", struct policy_fabric, neighbours, 0, POLICY_FABRIC_NEIGHBOURS_MAX),
        JSONV_UINT("dscp", struct policy_fabric, dscp, 0, 63),
        JSONV_UINT("streams", struct policy_fabric, streams, 1, 16),
        { 0 },
};

int policy_fabric_parse(struct jsonv *v, const json_t *j, struct policy_fabric *ret)
{
        struct policy_fabric f = {
                .present = true, .pattern = POLICY_FABRIC_RING, .duration_ms = 2000, .max_regression_pct = 20,
                .mode = POLICY_PROBE_AUTO, .neighbours = 0, .dscp = -1, .streams = 1,
        };
        int r = jsonv_object(v, j, fabric_fields, &f);

        if (r < 0)
                return r;
        *ret = f;
        return 0;
}

int policy_lossless_dscp(const uint8_t *map, uint8_t pfc)
{
        for (int d = 0; d < STATE_DSCP_COUNT; d++)
                if (map[d] != STATE_DSCP_UNMAPPED && map[d] < 8 && (pfc & (1u << map[d])))
                        return d;
        return -1;
}

void policy_fabric_class(const struct policy *p, int *ret_dscp, int *ret_priority)
{
        const struct state *s = &p->spec;
        bool map = state_has(s, STATE_FIELD_DSCP_MAP);
        int d = p->verify.fabric.dscp >= 0 ? p->verify.fabric.dscp : p->verify.dscp;

        if (d < 0 && map && state_has(s, STATE_FIELD_PFC))
                d = policy_lossless_dscp(s->dscp_prio, s->pfc_enabled);
        *ret_dscp = d;
        *ret_priority = d >= 0 && map && s->dscp_prio[d] != STATE_DSCP_UNMAPPED ? s->dscp_prio[d] : -1;
}
