/* SPDX-License-Identifier: MIT */
/*
 * A policy's lossless class (lossless.h): "checks": {"allow": [CODE, ...]} (the
 * rules it waives), where its arrays list each value (for the rules' paths), and
 * the rules over its own spec, which `validate` (and every parse) runs.
 */
#include "policies/json/jsonv.h"
#include "policies/policy/policy.h"
#include "policies/policy/policy_spec.h"

/* Doctor's rules across the cable (doctor.h, doctor_cable_check) a policy may waive too, in bit order. */
const char *const policy_cable_checks[POLICY_CABLE_CHECKS] = {
        "mtu_mismatch", "trust_mismatch", "dscp_map_mismatch", "pfc_priority_mismatch", "cnp_priority_mismatch",
};

int policy_cable_check_from_name(const char *name)
{
        for (unsigned i = 0; i < POLICY_CABLE_CHECKS; i++)
                if (streq(policy_cable_checks[i], name))
                        return (int)i;
        return -EINVAL;
}

static int parse_allow(struct jsonv *v, const json_t *j, void *obj)
{
        struct policy *p = obj;
        size_t i;
        json_t *el;
        int r = jsonv_check_type(v, j, JSONV_ARRAY);

        json_array_foreach(j, i, el) {
                char q[80], name[64];
                int c = -EINVAL, k = -EINVAL;
                uint32_t *allow = &p->checks_allow;

                if (r < 0)
                        break;
                jsonv_push_index(v, i);
                r = jsonv_string(v, el, "check", name, sizeof(name));
                if (r >= 0 && (c = lossless_code_from_name(name)) < 0 && (k = policy_cable_check_from_name(name)) >= 0) {
                        c = k;
                        allow = &p->checks_allow_cable;
                }
                if (r >= 0 && c < 0)
                        r = jsonv_error(v, "unknown check '%s'; the lossless class has pfc_priority_unmapped, "
                                        "roce_priority_lossy, ecn_queue_not_lossless, host_ecn_priority_mismatch, "
                                        "cnp_dscp_unmapped, lossless_tc_no_bandwidth, and across the cable "
                                        "mtu_mismatch, trust_mismatch, dscp_map_mismatch, pfc_priority_mismatch, "
                                        "cnp_priority_mismatch", jsonv_quote(name, q, sizeof(q)));
                else if (r >= 0 && (*allow & LOSSLESS_BIT(c)))
                        r = jsonv_error(v, "duplicate check '%s'", name);
                if (r >= 0)
                        *allow |= LOSSLESS_BIT(c);
                jsonv_pop(v);
        }
        return r;
}

static const struct jsonv_field checks_fields[] = {
        JSONV_CUSTOM("allow", JSONV_ARRAY, JSONV_REQUIRED, parse_allow),
        { 0 },
};

int policy_checks_parse(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object(v, j, checks_fields, obj);
}

/* The index of each integer of the array at spec.A.B in pos[0..8) (-1 when not listed). */
static void positions(const json_t *spec, const char *a, const char *b, int8_t *pos)
{
        const json_t *arr = json_object_get(json_object_get(spec, a), b);
        size_t i;
        json_t *el;

        memset(pos, -1, STATE_PRIO_COUNT);
        json_array_foreach(arr, i, el) {
                json_int_t x = json_integer_value(el);

                if (json_is_integer(el) && x >= 0 && x < STATE_PRIO_COUNT && pos[x] < 0)
                        pos[x] = (int8_t)i;
        }
}

void policy_lossless_positions(const json_t *spec, struct lossless_pos *ret)
{
        positions(spec, "pfc", "priorities", ret->pfc);
        positions(spec, "host_ecn", "priorities", ret->host_ecn);
        positions(spec, "ecn", "queues", ret->ecn);
}

void policy_lossless_ctx(const struct policy *p, struct lossless_ctx *ret)
{
        *ret = (struct lossless_ctx){
                .document = true,
                .declared = p->spec.present,
                .pos = &p->pos,
                .roce_dscp = p->verify.dscp,
                .roce_dscp_path = "$.verify.dscp",
                .allow = p->checks_allow,
        };
}

/* " (also: CODE, ...; to mean it, list a code in $.checks.allow)": what else the spec breaks. */
static void also(struct errbuf *e, const struct lossless_report *r)
{
        char text[256];
        size_t o = 0;

        text[0] = '\0';
        for (unsigned c = 0; c < LOSSLESS_CODE_MAX; c++) {
                bool other = false;

                for (unsigned i = 1; i < r->n && !other; i++)
                        other = r->v[i].code == c && r->v[i].code != r->v[0].code;
                if (other)
                        o += (size_t)snprintf(text + o, sizeof(text) - o, "%s%s", o ? ", " : "; also ",
                                              lossless_code_name(c));
        }
        snprintf(text + strlen(text), sizeof(text) - strlen(text), "; a policy that means it lists the code in "
                 "$.checks.allow");
        errbuf_suffix(e, text);
}

int policy_lossless_validate(const struct policy *p, const char *file, struct errbuf *e)
{
        struct lossless_report *r = malloc(sizeof(*r));
        struct lossless_ctx c;
        char where[sizeof(e->where)];
        int k = 0;

        if (!r)
                return errbuf_set(e, ENOMEM, file, "out of memory");
        policy_lossless_ctx(p, &c);
        lossless_check(&p->spec, &c, r);
        if (r->n) {
                snprintf(where, sizeof(where), "%s%s%s", file ? file : "", file ? ": " : "", r->v[0].where);
                k = errbuf_set(e, EINVAL, where, "%s", r->v[0].msg);
                also(e, r);
        }
        free(r);
        return k;
}
