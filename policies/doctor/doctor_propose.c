/* SPDX-License-Identifier: MIT */
/*
 * The doctor's proposal: the findings a policy can fix (a switch's MTU, trust, DSCP
 * map, PFC priorities, ECN queues; a Linux switch port's ECN) collected by the rules
 * into one desired state, written as a policy document that the policy parser
 * accepts (it is parsed before it is handed out).
 */
#include "policies/doctor/doctor.h"
#include "policies/policy/policy_spec.h"
#include "policies/state/spec_json.h"

bool doctor_propose_target(struct doctor_report *r, const char *manager, const char *target, bool linux_port,
                           uint32_t mtu_max)
{
        struct doctor_proposal *pr = &r->prop;
        bool have = false;

        if (pr->n_targets && pr->linux_ports != linux_port)
                return false;
        pr->linux_ports = linux_port;
        for (unsigned i = 0; i < pr->n_targets; i++)
                have |= streq(pr->targets[i], target);
        if (!have) {
                if (pr->n_targets >= ARRAY_SIZE(pr->targets))
                        return false;
                snprintf(pr->targets[pr->n_targets++], DOCTOR_NAME_MAX, "%s", target);
        }
        have = false;
        for (unsigned i = 0; i < pr->n_nodes; i++)
                have |= streq(pr->nodes[i], manager);
        if (!have && pr->n_nodes < DOCTOR_SUBJECTS_MAX)
                snprintf(pr->nodes[pr->n_nodes++], DOCTOR_NAME_MAX, "%s", manager);
        if (mtu_max && (!pr->mtu_max || mtu_max < pr->mtu_max))
                pr->mtu_max = mtu_max;
        return true;
}

/* A policy gives one setting to a list of queues: the highest of what the rules asked for. */
static json_t *ecn_json(const struct state_ecn *ecn, bool *ok)
{
        struct state_ecn_queue top = { .enabled = true };
        json_t *o = json_object();

        for (unsigned q = 0; q < STATE_TC_COUNT; q++) {
                const struct state_ecn_queue *x = &ecn->q[q];

                if (!(ecn->queues & (1u << q)))
                        continue;
                top.min_bytes = x->min_bytes > top.min_bytes ? x->min_bytes : top.min_bytes;
                top.max_bytes = x->max_bytes > top.max_bytes ? x->max_bytes : top.max_bytes;
                top.probability_pct = x->probability_pct > top.probability_pct ? x->probability_pct
                                                                               : top.probability_pct;
        }
        /* within what a policy may say, min at most max (facts from outside may hold anything) */
        top.min_bytes = top.min_bytes < 1 ? 1 : top.min_bytes > POLICY_ECN_BYTES_MAX ? POLICY_ECN_BYTES_MAX : top.min_bytes;
        top.max_bytes = top.max_bytes < top.min_bytes ? top.min_bytes : top.max_bytes;
        top.max_bytes = top.max_bytes > POLICY_ECN_BYTES_MAX ? POLICY_ECN_BYTES_MAX : top.max_bytes;
        spec_json_set(o, "queues", spec_json_bits(ecn->queues, ok), ok);
        spec_json_set(o, "enabled", json_true(), ok);
        spec_json_set(o, "min_threshold_bytes", json_integer(top.min_bytes), ok);
        spec_json_set(o, "max_threshold_bytes", json_integer(top.max_bytes), ok);
        spec_json_set(o, "mark_probability_pct", json_integer(top.probability_pct ? top.probability_pct : 100), ok);
        return o;
}

static json_t *document(const struct doctor_report *r, const char *name, const struct policy_label *selector,
                        unsigned n_selector, bool *ok)
{
        const struct doctor_proposal *pr = &r->prop;
        struct state spec = pr->spec;
        json_t *o, *sel = json_object(), *targets = json_array(), *sp = json_object();

        if (state_has(&spec, STATE_FIELD_MTU) && pr->mtu_max && spec.mtu > pr->mtu_max)
                spec.mtu = pr->mtu_max;
        if (state_has(&spec, STATE_FIELD_MTU))         /* and within what a policy may say */
                spec.mtu = spec.mtu > POLICY_MTU_MAX ? POLICY_MTU_MAX : spec.mtu < POLICY_MTU_MIN ? POLICY_MTU_MIN : spec.mtu;
        /* the lossless class: a policy's ECN list with PFC beside it names every lossless queue (identity
         * mapping: no ets on these targets), each with the one setting the list gets */
        if (state_has(&spec, STATE_FIELD_ECN) && state_has(&spec, STATE_FIELD_PFC))
                spec.ecn.queues |= spec.pfc_enabled;
        for (unsigned i = 0; i < n_selector; i++)
                spec_json_set(sel, selector[i].key, json_string(selector[i].value), ok);
        for (unsigned i = 0; i < pr->n_targets; i++)
                spec_json_append(targets, json_string(pr->targets[i]), ok);
        spec_json_put_common(sp, &spec, ok);
        if (state_has(&spec, STATE_FIELD_ECN))
                spec_json_set(sp, "ecn", ecn_json(&spec.ecn, ok), ok);
        o = json_pack("{s:s,s:s,s:{s:s,s:{s:s}}}", "apiVersion", "nettune/v1", "kind", "Policy", "metadata", "name",
                      name, "labels", "generated-by", "nettune-doctor");
        if (pr->n_overrides) {
                json_t *ov = json_array();

                for (unsigned i = 0; i < pr->n_overrides; i++)
                        spec_json_append(ov, json_string(pr->overrides[i]), ok);
                spec_json_set(json_object_get(o, "metadata"), "overrides", ov, ok);
        }
        if (n_selector)
                spec_json_set(o, "selector", sel, ok);
        else
                json_decref(sel);
        spec_json_set(o, "targets", json_pack("{s:o}", pr->linux_ports ? "interfaces" : "switches", targets), ok);
        spec_json_set(o, "spec", sp, ok);
        spec_json_set(o, "verify", json_pack("{s:s}", "probe", "none"), ok);
        return o;
}

int doctor_proposal_policy(const struct doctor_report *r, const char *name, const struct policy_label *selector,
                           unsigned n_selector, char **ret, struct errbuf *e)
{
        struct policy *p = NULL;
        bool ok = true;
        json_t *doc;
        char *text;
        int k;

        *ret = NULL;
        if (!r->prop.spec.present || !r->prop.n_targets)
                return 0;
        doc = document(r, name, selector, n_selector, &ok);
        text = ok && doc ? json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
        json_decref(doc);
        if (!text)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        k = policy_parse_buffer(text, strlen(text), "the proposal", &p, e);
        policy_free(p);
        if (k < 0) {
                free(text);
                return k;
        }
        *ret = text;
        return 0;
}
