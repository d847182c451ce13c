/* SPDX-License-Identifier: MIT */
/*
 * The trials of `nettunectl tune` against the fleet. Each trial is a rollout of kind
 * "tune" in the store (history and status show it) with one wave, the scope, applied
 * with commit-confirm and left pending (no_confirm): measured while pending, judged,
 * then cancelled (POST /v1/confirm/TX with not_after_ms 1: its agent restores the
 * snapshot at once) — or, for the one kept (--keep), confirmed. Nothing is confirmed
 * during the search, so whatever stops tune leaves every change pending, and its
 * agent's confirm timer restores it.
 */
#include <math.h>
#include <signal.h>

#include "common/outcome.h"
#include "controller/rollout/rollout.h"
#include "controller/tune/tune.h"
#include "policies/policy/policy.h"

static volatile sig_atomic_t stop_requested;

void tune_request_stop(void)
{
        stop_requested = 1;
}

/* How long a trial may stay pending: its measurement with every bound, and the way back. */
static unsigned trial_confirm_s(const struct tune *t, unsigned timeout_s)
{
        if (t->confirm_timeout_s)
                return t->confirm_timeout_s;
        return 30 + timeout_s + t->runs * (t->pattern.duration_ms / 1000 + 10);
}

static void run_env(const struct tune_env *env, struct rollout_run_env *ret)
{
        *ret = (struct rollout_run_env){ .http = env->http, .store = env->store, .timeout_s = env->timeout_s,
                                         .progress = PROGRESS_OFF };
}

/* The trial's change, pending on the scope: 4 (pending), or the rollout's exit code; -errno (store). */
static int trial_apply(const struct tune_env *env, struct tune *t, struct tune_trial *x, struct rollout_rec **ret,
                       struct errbuf *e)
{
        struct rollout_run_env renv;
        struct rollout_opts o;
        struct rollout_rec *r = NULL;
        char name[POLICY_NAME_MAX], *doc = NULL;
        int rc;

        *ret = NULL;
        tune_policy_name(t, x->label, name, sizeof(name));
        rc = tune_policy(t, x, env->labels, env->n_labels, name, &doc, e);
        if (rc < 0)
                return rc;
        rollout_opts_defaults(&o);
        o.canary = env->n_scope;                /* one wave, the scope: any failure halts it */
        o.no_confirm = true;
        o.confirm_timeout_s = trial_confirm_s(t, env->timeout_s);
        r = rollout_rec_new("tune", name, doc, NULL, &o, env->scope, env->n_scope);
        free(doc);
        if (!r)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        rc = store_rollout_create(env->store, r, e);
        if (rc >= 0) {
                x->rollout = r->id;
                run_env(env, &renv);
                rc = rollout_run(&renv, r, e);
        }
        if (rc < 0) {
                rollout_rec_free(r);
                return rc;
        }
        *ret = r;
        return rc;
}

/* Did every node of r end in state s? Else why names the first that did not. */
static bool all_in(const struct rollout_rec *r, enum rnode_state s, char *why, size_t size)
{
        for (unsigned i = 0; i < r->n_nodes; i++)
                if (r->nodes[i].state != s) {
                        snprintf(why, size, "%s is %s%s%.150s", r->nodes[i].name, rnode_state_name(r->nodes[i].state),
                                 r->nodes[i].error[0] ? ": " : "", r->nodes[i].error);
                        return false;
                }
        return true;
}

/* End a pending trial: confirmed (keep) or cancelled; the outcome from what its agents said. */
static int trial_end(const struct tune_env *env, struct rollout_rec *r, bool keep, struct tune_trial *x,
                     struct errbuf *e)
{
        struct rollout_run_env renv;
        char why[256];
        int rc;

        run_env(env, &renv);
        rc = keep ? rollout_run_confirm(&renv, r, e) : rollout_run_halt(&renv, r, e);
        if (rc < 0)
                return rc;
        if (all_in(r, keep ? RNODE_COMMITTED : RNODE_CANCELLED, why, sizeof(why)))
                x->outcome = keep ? TUNE_OUT_CONFIRMED : x->outcome == TUNE_OUT_GATE ? TUNE_OUT_GATE
                                                                                     : TUNE_OUT_REVERTED;
        else if (!keep && all_in(r, RNODE_REVERTED, why, sizeof(why)))
                x->outcome = TUNE_OUT_REVERTED;         /* its deadline came first: restored all the same */
        else {
                x->outcome = TUNE_OUT_UNKNOWN;
                snprintf(x->why, sizeof(x->why), "%.300s", why);
        }
        return 0;
}

static void new_trial(struct tune *t, struct tune_trial *x, const char *label, uint32_t value);
static int trial(const struct tune_env *env, struct tune *t, struct tune_trial *x, bool judged, struct errbuf *e);

/* --paired: the ceiling measured right after x (a trial with marking off, reverted like any). */
static int pair(const struct tune_env *env, struct tune *t, struct tune_trial *x, struct errbuf *e)
{
        struct tune_trial c;
        char label[16];
        int rc;

        snprintf(label, sizeof(label), "c%.12s", x->label);
        tune_ceiling_trial(t, &c, label);
        rc = trial(env, t, &c, false, e);
        x->pair_rollout = c.rollout;
        x->pair_outcome = c.outcome;
        x->pair_gbps = c.m.ok && c.m.gbps > 0 ? c.m.gbps : NAN;
        return rc;
}

/* The verdict: against its pair's ceiling when it has one, then its gate against the baseline's. */
static void judge(struct tune *t, struct tune_trial *x)
{
        char gate[320];

        tune_trial_judge(&t->judge, isfinite(x->pair_gbps) ? x->pair_gbps : t->ceiling_gbps, x);
        if (x->outcome != TUNE_OUT_REFUSED &&
            tune_trial_gated(&t->judge, t->baseline.m.gbps, x, gate, sizeof(gate))) {
                x->held = false;
                x->outcome = TUNE_OUT_GATE;
                snprintf(x->why, sizeof(x->why), "%.310s", gate);
        }
}

/*
 * One trial from apply to its end (the verdict is the caller's). 0, or -errno when
 * tune has to stop (e says why).
 */
static int trial(const struct tune_env *env, struct tune *t, struct tune_trial *x, bool paired, struct errbuf *e)
{
        struct rollout_rec *r = NULL;
        int rc = trial_apply(env, t, x, &r, e);

        if (rc < 0)
                return rc;
        if (rc != OUTCOME_PENDING) {
                x->outcome = rc == OUTCOME_OK ? TUNE_OUT_NONE : TUNE_OUT_REFUSED;
                snprintf(x->why, sizeof(x->why), "rollout %lld: %.280s", r->id, r->message);
                if (rc == OUTCOME_OK)
                        snprintf(x->why, sizeof(x->why), "the scope already had these values: nothing was changed");
                rc = rc == OUTCOME_OK || rc == OUTCOME_ROLLED_BACK ? 0 : -EIO;
                if (rc < 0)
                        errbuf_set(e, EIO, NULL, "trial %s: %s", x->label, x->why);
                rollout_rec_free(r);
                return rc;
        }
        rc = tune_measure(env, t, &x->m, e);
        {       /* whatever the measurement did, the change does not stay */
                int end = trial_end(env, r, false, x, e);

                rc = rc < 0 ? rc : end;
        }
        rollout_rec_free(r);
        if (rc >= 0 && x->outcome == TUNE_OUT_UNKNOWN)
                rc = errbuf_set(e, EIO, NULL, "trial %s: its outcome is unknown (%s); its agents' confirm timers "
                                "restore it", x->label, x->why);
        if (rc >= 0 && paired)
                rc = pair(env, t, x, e);
        return rc;
}

static void new_trial(struct tune *t, struct tune_trial *x, const char *label, uint32_t value)
{
        memset(x, 0, sizeof(*x));
        snprintf(x->label, sizeof(x->label), "%s", label);
        x->value = value;
        x->share = NAN;
        x->pair_gbps = NAN;
        x->m.gbps = NAN;
        if (t->kind == TUNE_ECN) {
                uint64_t max = (uint64_t)value * t->max_ratio;

                x->max_bytes = max > POLICY_ECN_BYTES_MAX ? POLICY_ECN_BYTES_MAX : (uint32_t)max;
                x->probability_pct = t->probability_pct;
        }
}

void tune_ceiling_trial(struct tune *t, struct tune_trial *x, const char *label)
{
        new_trial(t, x, label, t->lossless && t->kind == TUNE_ECN ? t->search.o.ceiling : 0);
        x->marking_off = !t->lossless || t->kind != TUNE_ECN;
}

static int ceiling(const struct tune_env *env, struct tune *t, struct errbuf *e)
{
        struct tune_trial *x = &t->ceiling;
        int rc;

        if (isfinite(t->ceiling_gbps))
                return 0;
        tune_ceiling_trial(t, x, "ceiling");
        rc = trial(env, t, x, false, e);        /* the first ceiling: paired measurements make their own */
        if (env->on_trial)
                env->on_trial(t, x, env->ud);
        if (rc < 0)
                return rc;
        if (!x->m.ok || !(x->m.gbps > 0))
                return errbuf_set(e, EIO, NULL, "the ceiling could not be measured: %s",
                                  x->m.error[0] ? x->m.error : x->why);
        t->ceiling_gbps = x->m.gbps;
        x->share = 1;
        if (x->marking_off)
                snprintf(x->why, sizeof(x->why), "the pattern with marking off on queue %u: the ceiling", t->queue);
        else
                snprintf(x->why, sizeof(x->why), "the pattern with queue %u (lossless) marking at its highest "
                         "thresholds, %u-%u bytes: the ceiling", t->queue, x->value, x->max_bytes);
        return 0;
}

static int baseline(const struct tune_env *env, struct tune *t, struct errbuf *e)
{
        struct tune_trial *x = &t->baseline;
        int rc;

        snprintf(x->label, sizeof(x->label), "baseline");
        x->outcome = TUNE_OUT_NONE;
        x->pair_gbps = NAN;
        rc = tune_measure(env, t, &x->m, e);
        if (rc >= 0 && t->paired)
                rc = pair(env, t, x, e);
        if (rc >= 0)
                tune_trial_judge(&t->judge, isfinite(x->pair_gbps) ? x->pair_gbps : t->ceiling_gbps, x);
        if (env->on_trial)
                env->on_trial(t, x, env->ud);
        if (rc >= 0 && !x->m.ok)
                rc = errbuf_set(e, EIO, NULL, "the baseline could not be measured: %s", x->m.error);
        return rc;
}

/* The index of the lowest trial that held with the chosen value; -2 the baseline, -1 none. */
static int chosen_index(const struct tune *t, uint32_t v)
{
        int best = -1;

        for (unsigned i = 0; v && i < t->n_trials; i++)
                if (t->trials[i].held && t->trials[i].value == v && best < 0)
                        best = (int)i;
        if (best < 0 && v && t->baseline.held && v == t->baseline.value)
                best = -2;
        return best;
}

/* The winner tried again did not hold: its earlier trials do not count as holding either. */
static void disprove(struct tune *t, const struct tune_trial *again)
{
        for (unsigned i = 0; i + 1 < t->n_trials; i++) {
                struct tune_trial *x = &t->trials[i];
                size_t n = strlen(x->why);

                if (x->value != again->value || !x->held)
                        continue;
                x->held = false;
                snprintf(x->why + n, sizeof(x->why) - n, "; not again when tried again (trial %s)", again->label);
        }
}

static int search(const struct tune_env *env, struct tune *t, struct errbuf *e)
{
        uint32_t v;
        int rc = 0;

        while (rc >= 0 && !stop_requested && t->n_trials < TUNE_TRIALS_MAX &&
               tune_search_next(&t->search, &v) == 1) {
                struct tune_trial *x = &t->trials[t->n_trials++];
                char label[16];

                snprintf(label, sizeof(label), "%u", t->n_trials);
                new_trial(t, x, label, v);
                x->phase = t->search.phase;
                rc = trial(env, t, x, t->paired, e);
                if (rc >= 0)
                        judge(t, x);
                tune_search_judge(&t->search, v, rc >= 0 && x->held);
                if (rc >= 0 && x->phase == TUNE_PHASE_VERIFY && !x->held)
                        disprove(t, x);
                if (env->on_trial)
                        env->on_trial(t, x, env->ud);
        }
        if (rc >= 0 && stop_requested)
                rc = errbuf_set(e, EINTR, NULL, "interrupted after %u trial%s; nothing of it was kept",
                                t->n_trials, t->n_trials == 1 ? "" : "s");
        return rc;
}

/* --keep: the winner once more, confirmed when it holds again. */
static int keep(const struct tune_env *env, struct tune *t, struct errbuf *e)
{
        const struct tune_trial *ch = tune_chosen(t);
        struct tune_trial *x;
        struct rollout_rec *r = NULL;
        int rc;

        if (!ch || t->chosen == -2 || t->n_trials >= TUNE_TRIALS_MAX)
                return 0;
        x = &t->trials[t->n_trials++];
        new_trial(t, x, "keep", ch->value);
        rc = trial_apply(env, t, x, &r, e);
        if (rc == OUTCOME_PENDING) {
                rc = tune_measure(env, t, &x->m, e);
                if (rc >= 0)
                        tune_trial_judge(&t->judge, t->ceiling_gbps, x);
                rc = rc < 0 ? rc : trial_end(env, r, x->held, x, e);
        } else if (rc >= 0) {
                x->outcome = rc == OUTCOME_OK ? TUNE_OUT_NONE : TUNE_OUT_REFUSED;
                snprintf(x->why, sizeof(x->why), "rollout %lld: %.280s", r->id, r->message);
                rc = 0;
        }
        rollout_rec_free(r);
        if (env->on_trial)
                env->on_trial(t, x, env->ud);
        return rc;
}

/* What a pre-flight answer of node i says, into e; the worst result so far is kept in *worst. */
static void preflight_note(const struct tune_env *env, const struct preflight_node *pf, unsigned i,
                           enum preflight_result *worst, struct errbuf *e)
{
        const char *name = env->scope[i]->name;

        if (pf->result == PREFLIGHT_OK || *worst == PREFLIGHT_INVALID)
                return;
        if (pf->result == PREFLIGHT_INVALID)
                errbuf_set(e, EINVAL, NULL, "pre-flight: node %s refuses the trial policy: %s%s%.200s", name,
                           pf->path, pf->path[0] ? ": " : "", pf->why);
        else if (*worst == PREFLIGHT_OK)
                errbuf_set(e, EHOSTUNREACH, NULL, "pre-flight: node %s %s: %.200s", name,
                           pf->result == PREFLIGHT_FAILED ? "cannot plan the trial policy" : "did not answer", pf->why);
        if (pf->result == PREFLIGHT_INVALID || *worst == PREFLIGHT_OK)
                *worst = pf->result;
}

int tune_preflight(const struct tune_env *env, struct tune *t, struct errbuf *e)
{
        struct preflight_node *pf = calloc(env->n_scope + 1, sizeof(*pf));
        enum preflight_result worst = PREFLIGHT_OK;
        struct rollout_run_env renv;
        struct tune_trial x;
        char name[POLICY_NAME_MAX], *doc = NULL;
        int rc = pf ? 0 : errbuf_set(e, ENOMEM, NULL, "out of memory");

        new_trial(t, &x, "preflight", t->search.o.start ? t->search.o.start : t->search.o.floor);
        tune_policy_name(t, x.label, name, sizeof(name));
        if (rc >= 0)
                rc = tune_policy(t, &x, env->labels, env->n_labels, name, &doc, e);
        run_env(env, &renv);
        if (rc >= 0)
                rc = rollout_preflight(&renv, env->scope, env->n_scope, doc, pf, e);
        for (unsigned i = 0; rc >= 0 && i < env->n_scope; i++)
                preflight_note(env, &pf[i], i, &worst, e);
        if (rc >= 0 && worst != PREFLIGHT_OK)
                rc = worst == PREFLIGHT_INVALID ? -EINVAL : -EHOSTUNREACH;
        for (unsigned i = 0; pf && i < env->n_scope; i++)
                json_decref(pf[i].notes);       /* the trials' notes are the apply's to show */
        free(doc);
        free(pf);
        return rc;
}

int tune_run(const struct tune_env *env, struct tune *t, struct errbuf *e)
{
        int rc = t->paired ? 0 : ceiling(env, t, e);    /* paired: each measurement brings its own */

        if (rc >= 0 && !stop_requested)
                rc = baseline(env, t, e);
        if (rc >= 0 && t->paired && !isfinite(t->ceiling_gbps)) {
                if (!isfinite(t->baseline.pair_gbps))
                        rc = errbuf_set(e, EIO, NULL, "the ceiling could not be measured after the baseline");
                t->ceiling_gbps = t->baseline.pair_gbps;
        }
        if (rc >= 0) {
                t->search.o.start_holds = t->baseline.held;
                tune_search_init(&t->search, &t->search.o);
                rc = search(env, t, e);
        }
        t->chosen = chosen_index(t, tune_search_chosen(&t->search));
        if (rc >= 0) {
                struct doctor_params dp;

                doctor_params_default(&dp);
                tune_verdict(t, &dp);
        }
        if (rc >= 0 && env->keep && tune_chosen(t))
                rc = keep(env, t, e);
        if (rc < 0)
                snprintf(t->end, sizeof(t->end), "stopped: %.300s", e->msg);
        else if (!t->no_winner)
                snprintf(t->end, sizeof(t->end), "%s%s", t->search.why_done,
                         tune_all_ended(t) ? "; every trial ended confirmed or reverted" : "");
        return rc;
}
