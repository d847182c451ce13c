/* SPDX-License-Identifier: MIT */
/* The transaction's JSON: probe runs, the gate's verdict, results. */
#include "agent/txn/txn_internal.h"
#include "policies/json/jsonw.h"

char *txn_json_text(const json_t *j)
{
        return j ? jsonw_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
}

json_t *txn_changes_json(const struct txn_result *r)
{
        json_t *arr = json_array();

        for (unsigned i = 0; arr && i < r->n_changes; i++)
                if (json_array_append_new(arr, plan_change_json(r->changes[i].target, &r->changes[i].d)) < 0) {
                        json_decref(arr);
                        return NULL;
                }
        return arr;
}

/* A value of a change as plan_change_json() types it (diff_value_json()): numbers as they stand. */
static void value(struct jsonw_out *o, const char *text)
{
        if (diff_value_kind(text) == DIFF_VALUE_STRING)
                jsonw_string(o, text);
        else
                jsonw_raw(o, text);
}

/* Written as it goes: the keys in jansson's sorted order, the bytes of jsonw_dumps(txn_changes_json()). */
char *txn_changes_text(const struct txn_result *r)
{
        struct jsonw_out o = { 0 };

        jsonw_raw(&o, "[");
        for (unsigned i = 0; i < r->n_changes; i++) {
                const struct txn_change *c = &r->changes[i];

                jsonw_raw(&o, i ? ",{\"field\":" : "{\"field\":");
                jsonw_string(&o, state_field_name(c->d.field));
                jsonw_raw(&o, ",\"from\":");
                value(&o, c->d.from);
                jsonw_raw(&o, ",\"key\":");
                jsonw_string(&o, c->d.key);
                jsonw_raw(&o, ",\"target\":");
                jsonw_string(&o, c->target);
                jsonw_raw(&o, ",\"to\":");
                value(&o, c->d.to);
                jsonw_raw(&o, "}");
        }
        jsonw_raw(&o, "]");
        return jsonw_finish(&o);
}

/* The CPU load seen while measuring; null when not measured. */
static json_t *load_json(const struct measure_load *l)
{
        if (!l->measured)
                return json_null();
        return json_pack("{s:f, s:f, s:f, s:b}", "agent_cpu_pct", l->agent_cpu_pct, "host_busy_pct", l->host_busy_pct,
                         "loadavg_1m", l->loadavg_1m, "priority_raised", l->priority_raised);
}

static json_t *probe_json(const struct txn_probe *p)
{
        json_t *runs = json_array();

        for (unsigned i = 0; i < p->n_runs; i++)
                json_array_append_new(runs, json_real(p->runs[i]));
        return json_pack("{s:b, s:b, s:s, s:f, s:o, s:s, s:o, s:o, s:i}", "ran", p->ran, "ok", p->ok,
                         "mode", p->mode, "gbps", p->gbps, "runs", runs ? runs : json_null(),
                         "error", p->error, "path", p->ran && p->path.mode != PROBE_MODE_AUTO ?
                         probe_path_to_json(&p->path) : json_null(),
                         "load", load_json(&p->load), "attempts", (int)p->attempts);
}

static json_t *probes_json(const struct txn_result *r)
{
        json_t *o = json_object();

        json_object_set_new(o, "baseline_gbps", r->baseline.ok ? json_real(r->baseline.gbps) : json_null());
        json_object_set_new(o, "post_gbps", r->post.ok ? json_real(r->post.gbps) : json_null());
        json_object_set_new(o, "baseline", probe_json(&r->baseline));
        json_object_set_new(o, "post", probe_json(&r->post));
        json_object_set_new(o, "pinned", plan_probe_to_json(&r->pin));
        if (r->gated)
                json_object_set_new(o, "gate", probe_gate_report_to_json(&r->gate_params, &r->gate));
        return o;
}

char *txn_probe_json_text(const struct txn_result *res)
{
        json_t *j;
        char *s;

        if (!res->baseline.ran && !res->post.ran)
                return NULL;
        j = probes_json(res);
        s = txn_json_text(j);
        json_decref(j);
        return s;
}

json_t *txn_result_to_json(const struct txn_result *r)
{
        char err[ERRBUF_STR_MAX] = "";

        if (r->error.msg[0])
                errbuf_str(&r->error, err, sizeof(err));
        /* rollback_ms: how long the way back took, from the decision to the last target read back; when one ran */
        /* rev: the revision a commit recorded, as GET /v1/history names it; absent when none */
        return json_pack("{s:I, s:o*, s:s, s:s, s:i, s:o, s:o, s:s?, s:O*, s:O*, s:O*, s:s?, s:I, s:o*}",
                         "tx", (json_int_t)r->tx, "rev", r->rev > 0 ? json_integer(r->rev) : NULL,
                         "state", journal_state_name(r->state),
                         "result", r->result, "exit_code", r->exit_code,
                         "changes", txn_changes_json(r),
                         "probe", probes_json(r),
                         "restored_by", r->restored_by[0] ? r->restored_by : NULL,
                         "restores", r->restores, "saves", r->saves, "notes", r->notes,
                         "error", err[0] ? err : NULL,
                         "confirm_deadline_ms", (json_int_t)r->confirm_deadline_ms,
                         "rollback_ms", r->rollback_ms > 0 ? json_real(r->rollback_ms) : NULL);
}
