/* SPDX-License-Identifier: MIT */
/*
 * Canonical JSON of a validated policy: sorted keys, every default explicit,
 * optional sections that were given always written in full. Parsing the output
 * gives back an identical struct policy. The spec members live state shares are
 * written by spec_json.c; ecn and host_ecn have the policy's own shape here.
 */
#include "policies/policy/policy.h"
#include "policies/state/spec_json.h"

static json_t *labels_json(const struct policy_label *l, unsigned n, bool *ok)
{
        json_t *o = json_object();

        for (unsigned i = 0; o && i < n; i++)
                spec_json_set(o, l[i].key, json_string(l[i].value), ok);
        return o;
}

static json_t *names_json(const char (*names)[STATE_NAME_MAX], unsigned n, bool *ok)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < n; i++)
                spec_json_append(a, json_string(names[i]), ok);
        return a;
}

/* The parser gives every listed queue the same settings: write the first one's. */
static json_t *ecn_json(const struct state_ecn *ecn, bool *ok)
{
        const struct state_ecn_queue *q = NULL;
        json_t *o = json_object();

        for (unsigned i = 0; !q && i < STATE_TC_COUNT; i++)
                if (ecn->queues & (1u << i))
                        q = &ecn->q[i];
        if (!o || !q)
                return o;
        spec_json_set(o, "queues", spec_json_bits(ecn->queues, ok), ok);
        spec_json_set(o, "enabled", json_boolean(q->enabled), ok);
        if (q->enabled || q->min_bytes)
                spec_json_set(o, "min_threshold_bytes", json_integer(q->min_bytes), ok);
        if (q->enabled || q->max_bytes)
                spec_json_set(o, "max_threshold_bytes", json_integer(q->max_bytes), ok);
        if (q->enabled || q->probability_pct)
                spec_json_set(o, "mark_probability_pct", json_integer(q->probability_pct), ok);
        if (ecn->replace_root_qdisc)
                spec_json_set(o, "replace_root_qdisc", json_true(), ok);
        return o;
}

static json_t *host_ecn_json(const struct state_host_ecn *h, bool *ok)
{
        json_t *o = json_object();

        if (!o)
                return NULL;
        if (h->prios) {         /* none: a host_ecn of DCQCN parameters alone */
                spec_json_set(o, "priorities", spec_json_bits(h->prios, ok), ok);
                spec_json_set(o, "reaction_point", json_boolean(h->rp_enabled != 0), ok);
                spec_json_set(o, "notification_point", json_boolean(h->np_enabled != 0), ok);
        }
        if (h->has_cnp) {
                spec_json_set(o, "cnp_dscp", json_integer(h->cnp_dscp), ok);
                spec_json_set(o, "cnp_priority", json_integer(h->cnp_prio), ok);
        }
        if (h->dcqcn_set)
                spec_json_set(o, "dcqcn", spec_json_dcqcn(h, ok), ok);
        if (h->optional)
                spec_json_set(o, "optional", json_true(), ok);
        return o;
}

static json_t *spec_to_json(const struct state *s, bool *ok)
{
        json_t *o = json_object();

        if (!o)
                return NULL;
        spec_json_put_common(o, s, ok);
        spec_json_put_pfc_storm(o, s, false, ok);
        if (state_has(s, STATE_FIELD_ECN))
                spec_json_set(o, "ecn", ecn_json(&s->ecn, ok), ok);
        if (state_has(s, STATE_FIELD_HOST_ECN))
                spec_json_set(o, "host_ecn", host_ecn_json(&s->host_ecn, ok), ok);
        return o;
}

static json_t *fabric_json(const struct policy_fabric *f, bool *ok)
{
        json_t *o = json_object();

        if (!o)
                return NULL;
        spec_json_set(o, "pattern", json_string(policy_fabric_pattern_name(f->pattern)), ok);
        spec_json_set(o, "duration_ms", json_integer(f->duration_ms), ok);
        spec_json_set(o, "max_regression_pct", json_integer(f->max_regression_pct), ok);
        spec_json_set(o, "mode", json_string(policy_probe_name(f->mode)), ok);
        spec_json_set(o, "neighbours", json_integer(f->neighbours), ok);
        if (f->dscp >= 0)
                spec_json_set(o, "dscp", json_integer(f->dscp), ok);
        spec_json_set(o, "streams", json_integer(f->streams), ok);
        return o;
}

static json_t *verify_json(const struct policy_verify *vf, bool *ok)
{
        json_t *o = json_object();

        if (!o)
                return NULL;
        spec_json_set(o, "probe", json_string(policy_probe_name(vf->probe)), ok);
        if (vf->peer[0])
                spec_json_set(o, "peer", json_string(vf->peer), ok);
        spec_json_set(o, "duration_ms", json_integer(vf->duration_ms), ok);
        spec_json_set(o, "message_size", json_integer(vf->message_size), ok);
        spec_json_set(o, "max_regression_pct", json_integer(vf->max_regression_pct), ok);
        spec_json_set(o, "min_gbps", json_real(vf->min_gbps), ok);
        spec_json_set(o, "settle_ms", json_integer(vf->settle_ms), ok);
        spec_json_set(o, "runs", json_integer(vf->runs), ok);
        spec_json_set(o, "streams", json_integer(vf->streams), ok);
        spec_json_set(o, "on_baseline_failure", json_string(policy_baseline_name(vf->on_baseline_failure)), ok);
        if (vf->dscp >= 0)
                spec_json_set(o, "dscp", json_integer(vf->dscp), ok);
        if (vf->device[0])
                spec_json_set(o, "device", json_string(vf->device), ok);
        spec_json_set(o, "on_inconclusive", json_string(policy_inconclusive_name(vf->on_inconclusive)), ok);
        if (vf->fabric.present)
                spec_json_set(o, "fabric", fabric_json(&vf->fabric, ok), ok);
        return o;
}

/* checks.allow, in the rules' order. */
static json_t *checks_json(uint32_t allow, uint32_t cable, bool *ok)
{
        json_t *a = json_array();

        for (unsigned c = 0; a && c < LOSSLESS_CODE_MAX; c++)
                if (allow & LOSSLESS_BIT(c))
                        spec_json_append(a, json_string(lossless_code_name(c)), ok);
        for (unsigned c = 0; a && c < POLICY_CABLE_CHECKS; c++)
                if (cable & LOSSLESS_BIT(c))
                        spec_json_append(a, json_string(policy_cable_checks[c]), ok);
        return a;
}

static json_t *policy_json(const struct policy *p, bool *ok)
{
        json_t *o = json_object(), *meta = json_object(), *targets = json_object();

        if (meta) {
                spec_json_set(meta, "name", json_string(p->name), ok);
                spec_json_set(meta, "labels", labels_json(p->labels, p->n_labels, ok), ok);
                if (p->n_overrides)
                        spec_json_set(meta, "overrides", names_json(p->overrides, p->n_overrides, ok), ok);
        }
        if (targets) {
                spec_json_set(targets, "interfaces", names_json(p->interfaces, p->n_interfaces, ok), ok);
                spec_json_set(targets, "switches", names_json(p->switches, p->n_switches, ok), ok);
        }
        if (!o) {
                json_decref(meta);
                json_decref(targets);
                return NULL;
        }
        spec_json_set(o, "apiVersion", json_string("nettune/v1"), ok);
        spec_json_set(o, "kind", json_string("Policy"), ok);
        spec_json_set(o, "metadata", meta, ok);
        spec_json_set(o, "selector", labels_json(p->selector, p->n_selector, ok), ok);
        spec_json_set(o, "targets", targets, ok);
        spec_json_set(o, "spec", spec_to_json(&p->spec, ok), ok);
        if (p->verify.present)
                spec_json_set(o, "verify", verify_json(&p->verify, ok), ok);
        spec_json_set(o, "commit", json_pack("{s:I}", "confirm_timeout_s", (json_int_t)p->confirm_timeout_s), ok);
        if (p->checks_allow || p->checks_allow_cable)
                spec_json_set(o, "checks", json_pack("{s:o}", "allow", checks_json(p->checks_allow,
                                                                               p->checks_allow_cable, ok)), ok);
        return o;
}

char *policy_to_json(const struct policy *p)
{
        bool ok = true;
        json_t *o = policy_json(p, &ok);
        char *s = NULL;

        if (o && ok)
                s = json_dumps(o, JSON_SORT_KEYS | JSON_INDENT(2) | JSON_REAL_PRECISION(17));
        json_decref(o);
        return s;
}
