/* SPDX-License-Identifier: MIT */
/* The transaction's measurements: one probe phase, the default probe engine, the regression gate. */
#include "probe.h"
#include "probe_progress.h"
#include "txn_internal.h"

int txn_probe_phase(struct txn_env *env, const struct plan_probe *pin, const char *phase,
                    struct txn_probe *ret, struct errbuf *e)
{
        int r;

        memset(ret, 0, sizeof(*ret));
        ret->ran = true;
        if (!env->hooks.probe)
                return errbuf_set(e, ENOTSUP, NULL, "no probe engine is available");
        r = env->hooks.probe(env, pin, phase, ret, e);
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
