/* SPDX-License-Identifier: MIT */
/* The transaction's JSON: change lists, probe runs, results; the call to the regression gate. */
#include <sys/wait.h>

#include "diff.h"
#include "txn_internal.h"

char *txn_json_text(const json_t *j)
{
        return j ? json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
}

int txn_diff_json(const struct txn_target *targets, const struct state *live, unsigned n,
                  json_t **ret, unsigned *ret_n)
{
        json_t *arr = json_array();
        unsigned count = 0;

        if (!arr)
                return -ENOMEM;
        for (unsigned i = 0; i < n; i++) {
                struct diff d = { 0 };
                int r = state_diff(&targets[i].desired, &live[i], &d);

                if (r < 0) {
                        json_decref(arr);
                        return r;
                }
                for (unsigned k = 0; k < d.n; k++, count++)
                        json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:s, s:s}",
                                              "target", targets[i].t.name,
                                              "field", state_field_name(d.entries[k].field),
                                              "key", d.entries[k].key,
                                              "from", d.entries[k].from, "to", d.entries[k].to));
                diff_done(&d);
        }
        *ret = arr;
        if (ret_n)
                *ret_n = count;
        return 0;
}

static json_t *probe_json(const struct txn_probe *p)
{
        json_t *runs = json_array();

        for (unsigned i = 0; i < p->n_runs; i++)
                json_array_append_new(runs, json_real(p->runs[i]));
        return json_pack("{s:b, s:b, s:s, s:f, s:o, s:s}", "ran", p->ran, "ok", p->ok,
                         "mode", p->mode, "gbps", p->gbps, "runs", runs ? runs : json_null(),
                         "error", p->error);
}

static json_t *probes_json(const struct txn_result *r)
{
        json_t *o = json_object();

        json_object_set_new(o, "baseline_gbps", r->baseline.ok ? json_real(r->baseline.gbps) : json_null());
        json_object_set_new(o, "post_gbps", r->post.ok ? json_real(r->post.gbps) : json_null());
        json_object_set_new(o, "baseline", probe_json(&r->baseline));
        json_object_set_new(o, "post", probe_json(&r->post));
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
        char err[1100] = "";

        if (r->error.msg[0])
                errbuf_str(&r->error, err, sizeof(err));
        return json_pack("{s:I, s:s, s:s, s:i, s:o, s:o, s:s?, s:O*, s:s?, s:I}",
                         "tx", (json_int_t)r->tx, "state", journal_state_name(r->state),
                         "result", r->result, "exit_code", r->exit_code,
                         "changes", r->changes ? json_incref(r->changes) : json_array(),
                         "probe", probes_json(r),
                         "restored_by", r->restored_by[0] ? r->restored_by : NULL,
                         "restores", r->restores,
                         "error", err[0] ? err : NULL,
                         "confirm_deadline_ms", (json_int_t)r->confirm_deadline_ms);
}

int txn_probe_phase(struct txn_env *env, const struct policy_verify *v, const char *phase,
                    struct txn_probe *ret, struct errbuf *e)
{
        int r;

        memset(ret, 0, sizeof(*ret));
        ret->ran = true;
        if (!env->hooks.probe)
                return errbuf_set(e, ENOTSUP, NULL, "no probe engine is available");
        r = env->hooks.probe(env, v, phase, ret, e);
        ret->ok = r >= 0 && ret->n_runs > 0;
        if (!ret->ok && r >= 0)
                r = errbuf_set(e, EIO, NULL, "%s probe produced no measurement", phase);
        if (r < 0)
                errbuf_str(e, ret->error, sizeof(ret->error));
        return r;
}

/* The fields of a measurement the gate reads. */
static void to_measurement(const struct txn_probe *p, struct probe_measurement *m)
{
        memset(m, 0, sizeof(*m));
        m->ok = p->ran && p->ok;
        m->median_gbps = p->gbps;
        m->n_runs = m->n_ok = p->n_runs;
        snprintf(m->error, sizeof(m->error), "%s", p->error);
}

int txn_gate(const struct policy_verify *v, struct txn_result *res)
{
        struct probe_measurement base, post;

        res->gate_params = (struct probe_gate_params){
                .max_regression_pct = v->max_regression_pct,
                .min_gbps = v->min_gbps,
                .skip_gate_without_baseline = v->on_baseline_failure == POLICY_BASELINE_SKIP_GATE,
        };
        res->gated = true;
        to_measurement(&res->baseline, &base);
        to_measurement(&res->post, &post);
        return probe_gate_evaluate(&res->gate_params, &base, &post, &res->gate);
}

void txn_run_test_hook(void)
{
        const char *cmd = getenv("NETTUNE_TEST_HOOK_AFTER_APPLY");
        pid_t pid;
        int status;

        if (!cmd || !cmd[0])
                return;
        pid = fork();
        if (pid == 0) {
                execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
                _exit(127);
        }
        if (pid > 0)
                while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                        ;
}
