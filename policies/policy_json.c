/* SPDX-License-Identifier: MIT */
/*
 * Canonical JSON of a validated policy: sorted keys, every default explicit,
 * optional sections that were given always written in full. Parsing the output
 * gives back an identical struct policy.
 */
#include "jsonv.h"
#include "policy.h"

/* json_object_set_new() that remembers a failure instead of returning it. */
static void set(json_t *o, const char *key, json_t *val, bool *ok)
{
        if (!val || json_object_set_new(o, key, val) < 0)
                *ok = false;
}

static void append(json_t *a, json_t *val, bool *ok)
{
        if (!val || json_array_append_new(a, val) < 0)
                *ok = false;
}

static json_t *labels_json(const struct policy_label *l, unsigned n, bool *ok)
{
        json_t *o = json_object();

        for (unsigned i = 0; o && i < n; i++)
                set(o, l[i].key, json_string(l[i].value), ok);
        return o;
}

static json_t *names_json(const char (*names)[STATE_NAME_MAX], unsigned n, bool *ok)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < n; i++)
                append(a, json_string(names[i]), ok);
        return a;
}

static json_t *bits_json(unsigned bits, bool *ok)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < 8; i++)
                if (bits & (1u << i))
                        append(a, json_integer(i), ok);
        return a;
}

static json_t *u8_array_json(const uint8_t *v, unsigned n, bool *ok)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < n; i++)
                append(a, json_integer(v[i]), ok);
        return a;
}

static json_t *ets_json(const struct state_ets *ets, bool *ok)
{
        json_t *o = json_object(), *tsa = json_array();

        for (unsigned i = 0; tsa && i < STATE_TC_COUNT; i++)
                append(tsa, json_string(state_tsa_name(ets->tc_tsa[i])), ok);
        if (o) {
                set(o, "priority_to_tc", u8_array_json(ets->prio_tc, STATE_PRIO_COUNT, ok), ok);
                set(o, "tc_bandwidth_pct", u8_array_json(ets->tc_bw_pct, STATE_TC_COUNT, ok), ok);
        }
        set(o, "tc_tsa", tsa, ok);
        return o;
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
        set(o, "queues", bits_json(ecn->queues, ok), ok);
        set(o, "enabled", json_boolean(q->enabled), ok);
        if (q->enabled || q->min_bytes)
                set(o, "min_threshold_bytes", json_integer(q->min_bytes), ok);
        if (q->enabled || q->max_bytes)
                set(o, "max_threshold_bytes", json_integer(q->max_bytes), ok);
        if (q->enabled || q->probability_pct)
                set(o, "mark_probability_pct", json_integer(q->probability_pct), ok);
        return o;
}

static json_t *host_ecn_json(const struct state_host_ecn *h, bool *ok)
{
        json_t *o = json_object();

        if (!o)
                return NULL;
        set(o, "priorities", bits_json(h->prios, ok), ok);
        set(o, "reaction_point", json_boolean(h->rp_enabled != 0), ok);
        set(o, "notification_point", json_boolean(h->np_enabled != 0), ok);
        if (h->has_cnp) {
                set(o, "cnp_dscp", json_integer(h->cnp_dscp), ok);
                set(o, "cnp_priority", json_integer(h->cnp_prio), ok);
        }
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
                set(o, key, json_integer(map[d]), ok);
        }
        return o;
}

static json_t *spec_json(const struct state *s, bool *ok)
{
        json_t *o = json_object();

        if (!o)
                return NULL;
        if (state_has(s, STATE_FIELD_MTU))
                set(o, "mtu", json_integer(s->mtu), ok);
        if (state_has(s, STATE_FIELD_TRUST))
                set(o, "trust", json_string(state_trust_name(s->trust)), ok);
        if (state_has(s, STATE_FIELD_DSCP_MAP))
                set(o, "dscp_to_priority", dscp_json(s->dscp_prio, ok), ok);
        if (state_has(s, STATE_FIELD_PFC))
                set(o, "pfc", json_pack("{s:o}", "priorities", bits_json(s->pfc_enabled, ok)), ok);
        if (state_has(s, STATE_FIELD_ETS))
                set(o, "ets", ets_json(&s->ets, ok), ok);
        if (state_has(s, STATE_FIELD_ECN))
                set(o, "ecn", ecn_json(&s->ecn, ok), ok);
        if (state_has(s, STATE_FIELD_HOST_ECN))
                set(o, "host_ecn", host_ecn_json(&s->host_ecn, ok), ok);
        return o;
}

static json_t *verify_json(const struct policy_verify *vf, bool *ok)
{
        json_t *o = json_object();

        if (!o)
                return NULL;
        set(o, "probe", json_string(policy_probe_name(vf->probe)), ok);
        if (vf->peer[0])
                set(o, "peer", json_string(vf->peer), ok);
        set(o, "duration_ms", json_integer(vf->duration_ms), ok);
        set(o, "message_size", json_integer(vf->message_size), ok);
        set(o, "max_regression_pct", json_integer(vf->max_regression_pct), ok);
        set(o, "min_gbps", json_real(vf->min_gbps), ok);
        set(o, "settle_ms", json_integer(vf->settle_ms), ok);
        set(o, "runs", json_integer(vf->runs), ok);
        set(o, "on_baseline_failure", json_string(policy_baseline_name(vf->on_baseline_failure)), ok);
        return o;
}

static json_t *policy_json(const struct policy *p, bool *ok)
{
        json_t *o = json_object(), *meta = json_object(), *targets = json_object();

        if (meta) {
                set(meta, "name", json_string(p->name), ok);
                set(meta, "labels", labels_json(p->labels, p->n_labels, ok), ok);
        }
        if (targets) {
                set(targets, "interfaces", names_json(p->interfaces, p->n_interfaces, ok), ok);
                set(targets, "switches", names_json(p->switches, p->n_switches, ok), ok);
        }
        if (!o) {
                json_decref(meta);
                json_decref(targets);
                return NULL;
        }
        set(o, "apiVersion", json_string("nettune/v1"), ok);
        set(o, "kind", json_string("Policy"), ok);
        set(o, "metadata", meta, ok);
        set(o, "selector", labels_json(p->selector, p->n_selector, ok), ok);
        set(o, "targets", targets, ok);
        set(o, "spec", spec_json(&p->spec, ok), ok);
        if (p->verify.present)
                set(o, "verify", verify_json(&p->verify, ok), ok);
        set(o, "commit", json_pack("{s:I}", "confirm_timeout_s", (json_int_t)p->confirm_timeout_s), ok);
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
