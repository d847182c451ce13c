/* SPDX-License-Identifier: MIT */
/* The transaction's measurements: one probe phase, the default probe engine, the regression gate. */
#include "agent/measure/measure.h"
#include "agent/txn/txn_internal.h"
#include "drivers/probe/probe.h"

int txn_probe_phase(struct txn_env *env, int64_t tx, const struct plan_probe *pin, const char *phase,
                    struct txn_probe *ret, struct errbuf *e)
{
        struct measure_span span;
        unsigned attempts = ret->attempts;
        int r;

        memset(ret, 0, sizeof(*ret));
        ret->ran = true;
        ret->attempts = attempts + 1;
        if (!env->hooks.probe)
                return errbuf_set(e, ENOTSUP, NULL, "no probe engine is available");
        measure_begin_as(&span, tx, phase, measure_ends_ms(pin->runs, pin->params.duration_ms));
        r = env->hooks.probe(env, pin, phase, ret, e);
        measure_end(&span, &ret->load);
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
        m->mode = p->path.mode;
        m->path = p->path;
        m->median_gbps = p->gbps;
        m->n_runs = m->n_ok = p->n_runs;
        snprintf(m->error, sizeof(m->error), "%s", p->error);
}

/* Both measured, under the agent's own loads too different to compare? */
static bool inconclusive(const struct txn_result *res, double *ret_delta)
{
        return res->baseline.ok && res->post.ok && measure_loads_differ(&res->baseline.load, &res->post.load, ret_delta);
}

int txn_post_phase(struct txn_env *env, const struct policy_verify *v, struct txn_result *res)
{
        int r = txn_probe_phase(env, res->tx, &res->pin, "post", &res->post, &res->error);

        while (r >= 0 && v->on_inconclusive == POLICY_INCONCLUSIVE_RETRY && res->post.attempts <= TXN_LOAD_RETRIES &&
               inconclusive(res, NULL))
                r = txn_probe_phase(env, res->tx, &res->pin, "post", &res->post, &res->error);
        return r;
}

int txn_gate(const struct policy_verify *v, struct txn_result *res)
{
        struct probe_measurement base, post;
        double delta = 0;
        int r;

        res->gate_params = (struct probe_gate_params){
                .max_regression_pct = v->max_regression_pct,
                .min_gbps = v->min_gbps,
                .skip_gate_without_baseline = v->on_baseline_failure == POLICY_BASELINE_SKIP_GATE,
        };
        res->gated = true;
        to_measurement(&res->baseline, &base);
        to_measurement(&res->post, &post);
        r = probe_gate_evaluate(&res->gate_params, &base, &post, &res->gate);
        if (!inconclusive(res, &delta))
                return r;
        res->gate.verdict = PROBE_GATE_INCONCLUSIVE;
        snprintf(res->gate.reason, sizeof(res->gate.reason),
                 "inconclusive: besides the probe the agent used %.0f%% of a CPU during the baseline and %.0f%% after"
                 " the change (%+.0f points, at most %.0f allowed)%s; the rates %.3f and %.3f Gb/s cannot be compared",
                 res->baseline.load.agent_cpu_pct, res->post.load.agent_cpu_pct, delta, MEASURE_LOAD_DELTA_MAX,
                 res->post.attempts > 1 ? ", also when measured again" : "", res->baseline.gbps, res->post.gbps);
        return -EIO;
}

int txn_gate_class(struct plan *p, struct txn_result *res)
{
        struct plan_probe_rode c;

        if (!res->gated || !res->post.ok)
                return 0;
        plan_probe_rode(p, &res->post.path, &c);
        res->gate.rode_priority = c.judged ? c.priority : -1;
        snprintf(res->gate.rode, sizeof(res->gate.rode), "%s", c.how);
        if (!c.judged || c.lossless || res->gate.verdict != PROBE_GATE_PASS)
                return 0;
        if (!p->lossless.refuse) {              /* the way back is never refused for the class: said, not failed */
                size_t len = strlen(res->gate.reason);

                snprintf(res->gate.reason + len, sizeof(res->gate.reason) - len, "; not counted as proof of the "
                         "lossless class: %.300s", c.reason);
                return 0;
        }
        res->gate.verdict = PROBE_GATE_FAIL_LOSSY_CLASS;
        snprintf(res->gate.reason, sizeof(res->gate.reason), "%s", c.reason);
        return -EIO;
}

int txn_probe_default(struct txn_env *env, const struct plan_probe *pin, const char *phase,
                      struct txn_probe *ret, struct errbuf *e)
{
        _cleanup_free_ struct probe_measurement *m = calloc(1, sizeof(*m));
        struct probe_observer obs = { 0 };
        char tag[32];
        int r;

        if (!m)
                return -ENOMEM;
        snprintf(tag, sizeof(tag), "%s probe", phase);
        if (env->progress)
                probe_progress_begin(env->progress, tag, &pin->params, pin->path.mode, pin->runs ? pin->runs : 1, &obs);
        r = probe_measure_pinned(&pin->params, &pin->path, pin->runs ? pin->runs : 1, &obs, m, e);
        if (env->progress)
                probe_progress_end(env->progress, m);
        snprintf(ret->mode, sizeof(ret->mode), "%s", probe_mode_name(m->mode));
        ret->path = m->path;
        for (unsigned i = 0; i < m->n_runs && i < TXN_PROBE_RUNS_MAX; i++)
                if (m->run_error[i] == 0)
                        ret->runs[ret->n_runs++] = m->runs[i].gbps;
        ret->gbps = m->ok ? m->median_gbps : 0;
        if (r < 0)
                return r;
        return m->ok ? 0 : errbuf_set(e, EIO, NULL, "%s", m->error);
}
