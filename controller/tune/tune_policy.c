/* SPDX-License-Identifier: MIT */
/* The policy of a trial and of the winner: one queue's ECN, or one DCQCN parameter. */
#include "controller/tune/tune.h"
#include "policies/policy/policy.h"

static json_t *spec_json(const struct tune *t, const struct tune_trial *x)
{
        if (t->kind == TUNE_DCQCN)
                return json_pack("{s:{s:{s:I}}}", "host_ecn", "dcqcn",
                                 t->param >= 0 && t->param < STATE_DCQCN_MAX ? state_dcqcn_params[t->param].name : "?",
                                 (json_int_t)x->value);
        if (x->marking_off)
                return json_pack("{s:{s:[i],s:b}}", "ecn", "queues", (int)t->queue, "enabled", false);
        return json_pack("{s:{s:[i],s:b,s:I,s:I,s:i}}", "ecn", "queues", (int)t->queue, "enabled", true,
                         "min_threshold_bytes",
                         (json_int_t)x->value, "max_threshold_bytes", (json_int_t)x->max_bytes,
                         "mark_probability_pct", (int)x->probability_pct);
}

static json_t *targets_json(const struct tune *t)
{
        json_t *a = json_array();

        if (t->kind == TUNE_DCQCN)
                json_array_append_new(a, json_string(t->interfaces));
        else if (!t->linux_switch)
                json_array_append_new(a, json_string(t->subject));
        for (unsigned i = 0; t->kind == TUNE_ECN && t->linux_switch && i < t->n_ports; i++)
                json_array_append_new(a, json_string(t->ports[i]));
        return json_pack("{s:o}", t->kind == TUNE_ECN && !t->linux_switch ? "switches" : "interfaces", a);
}

void tune_policy_name(const struct tune *t, const char *label, char *buf, size_t size)
{
        snprintf(buf, size, "tune-%.40s-%s", t->subject, label ? label : t->kind == TUNE_ECN ? "ecn" : "dcqcn");
        for (char *p = buf; *p; p++)
                if (*p == '_')
                        *p = '-';
}

int tune_policy(const struct tune *t, const struct tune_trial *x, const struct policy_label *labels, unsigned n,
                const char *name, char **ret, struct errbuf *e)
{
        json_t *sel = json_object(), *doc;
        struct policy *p = NULL;
        char *text = NULL;
        int r;

        *ret = NULL;
        for (unsigned i = 0; sel && i < n; i++)
                json_object_set_new(sel, labels[i].key, json_string(labels[i].value));
        doc = json_pack("{s:s,s:s,s:{s:s,s:{s:s}},s:o,s:o,s:o,s:{s:s}}", "apiVersion", "nettune/v1", "kind", "Policy",
                        "metadata", "name", name, "labels", "generated-by", "nettune-tune", "selector",
                        sel ? sel : json_null(), "targets", targets_json(t), "spec", spec_json(t, x), "verify", "probe",
                        "none");
        if (doc && !n)
                json_object_del(doc, "selector");
        if (doc && t->n_overrides) {            /* over the layers committed on the scope (layers: field_owned) */
                json_t *ov = json_array();

                for (unsigned i = 0; ov && i < t->n_overrides; i++)
                        if (!streq(t->overrides[i], name))
                                json_array_append_new(ov, json_string(t->overrides[i]));
                if (json_array_size(ov))
                        json_object_set_new(json_object_get(doc, "metadata"), "overrides", ov);
                else
                        json_decref(ov);
        }
        text = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
        json_decref(doc);
        if (!text)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        r = policy_parse_buffer(text, strlen(text), name, &p, e);
        policy_free(p);
        if (r < 0) {
                free(text);
                return r;
        }
        *ret = text;
        return 0;
}
