/* SPDX-License-Identifier: MIT */
/*
 * The transaction's default hooks: targets from the policy (agent/targets.c:
 * local interfaces by name or glob, switches from the configuration, caps
 * checks), each field routed to the first registered driver that supports it
 * here; probes through probe_measure().
 */
#include "probe.h"
#include "targets.h"
#include "txn_internal.h"

/* Route each field of `want` to the driver that owns it here (agent/targets.c). */
static int route_fields(struct txn_target *tg, uint32_t want, struct errbuf *e)
{
        struct targets_route rt;
        int r = targets_route(&tg->t, want ? want : STATE_ALL_FIELDS, &rt, e);

        if (r < 0)
                return r;
        tg->n_drivers = rt.n;
        for (unsigned i = 0; i < rt.n; i++) {
                tg->drivers[i] = rt.ops[i];
                tg->fields[i] = rt.fields[i];
        }
        return 0;
}

static void target_init(struct txn_target *ret, const struct target *t)
{
        memset(ret, 0, sizeof(*ret));
        ret->t = *t;
        state_init(&ret->desired);
        state_init(&ret->before);
}

static int resolve_one(struct txn_env *env, int kind, const char *name, uint32_t fields,
                       struct txn_target *ret, struct errbuf *e)
{
        struct target t = { .kind = (enum target_kind)kind, .env = &env->config->env };
        struct target_list l = { 0 };
        char glob[1][64];
        int r;

        if (kind == TARGET_SWITCH) {
                snprintf(t.name, sizeof(t.name), "%s", name);
                t.sw = config_find_switch(env->config, name);
                if (!t.sw)
                        return errbuf_set(e, ENOENT, NULL, "switch '%s' is not in the agent configuration", name);
                target_init(ret, &t);
        } else {
                snprintf(glob[0], sizeof(glob[0]), "%s", name);
                r = targets_for_interfaces(env->config, (const char (*)[64])glob, 1, &l, e);
                if (r < 0)
                        return r;
                target_init(ret, &l.v[0]);
                targets_free(&l);
        }
        return route_fields(ret, fields, e);
}

static int resolve(struct txn_env *env, const struct policy *p, struct txn_target **ret,
                   unsigned *ret_n, struct errbuf *e)
{
        _cleanup_free_ struct txn_target *tg = NULL;
        struct target_list l = { 0 };
        int r = targets_for_policy(p, env->config, &l, e);

        if (r >= 0 && !(tg = calloc(l.n ? l.n : 1, sizeof(*tg))))
                r = -ENOMEM;
        for (unsigned i = 0; r >= 0 && i < l.n; i++) {
                uint32_t want = targets_wanted(&env->config->env, l.v[i].kind, p->spec.present);

                target_init(&tg[i], &l.v[i]);
                tg[i].desired = p->spec;
                tg[i].desired.present = want;
                r = targets_check(&tg[i].t, &tg[i].desired, e);
                if (r >= 0)
                        r = route_fields(&tg[i], want, e);
        }
        if (r >= 0) {
                *ret = TAKE_PTR(tg);
                *ret_n = l.n;
        }
        targets_free(&l);
        return r;
}

static const enum probe_mode probe_modes[POLICY_PROBE_MAX] = {
        [POLICY_PROBE_AUTO] = PROBE_MODE_AUTO,
        [POLICY_PROBE_VERBS] = PROBE_MODE_VERBS,
        [POLICY_PROBE_TCP] = PROBE_MODE_TCP,
        [POLICY_PROBE_NONE] = PROBE_MODE_AUTO,
};

static int probe(struct txn_env *env, const struct policy_verify *v, const char *phase,
                 struct txn_probe *ret, struct errbuf *e)
{
        struct probe_params pp;
        _cleanup_free_ struct probe_measurement *m = calloc(1, sizeof(*m));
        unsigned runs = v->runs ? v->runs : env->config->probe_runs;
        int r;

        if (!m)
                return -ENOMEM;
        probe_params_init(&pp);
        snprintf(pp.peer, sizeof(pp.peer), "%s", v->peer);
        pp.duration_ms = v->duration_ms;
        pp.message_size = v->message_size;
        pp.streams = v->streams ? v->streams : 1;
        r = probe_measure(&pp, probe_modes[v->probe], runs ? runs : 1, m, e);
        snprintf(ret->mode, sizeof(ret->mode), "%s", probe_mode_name(m->mode));
        for (unsigned i = 0; i < m->n_runs && i < TXN_PROBE_RUNS_MAX; i++)
                if (m->run_error[i] == 0)
                        ret->runs[ret->n_runs++] = m->runs[i].gbps;
        ret->gbps = m->ok ? m->median_gbps : 0;
        if (r < 0)
                return r;
        return m->ok ? 0 : errbuf_set(e, EIO, NULL, "%s", m->error);
}

void txn_env_init(struct txn_env *env, const struct agent_config *c, struct journal *j)
{
        memset(env, 0, sizeof(*env));
        env->config = c;
        env->journal = j;
        env->lock_fd = -1;
        env->hooks.resolve = resolve;
        env->hooks.resolve_one = resolve_one;
        env->hooks.probe = probe;
}
