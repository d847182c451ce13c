/* SPDX-License-Identifier: MIT */
/* A tune run's bookkeeping and the verdict on one trial (pure). */
#include <math.h>
#include <stdio.h>

#include "controller/tune/tune.h"

static const char *const outcome_names[TUNE_OUT_MAX] = {
        [TUNE_OUT_NONE] = "measured",
        [TUNE_OUT_REVERTED] = "reverted",
        [TUNE_OUT_GATE] = "reverted by its gate",
        [TUNE_OUT_REFUSED] = "refused",
        [TUNE_OUT_CONFIRMED] = "confirmed",
        [TUNE_OUT_UNKNOWN] = "unknown",
};

const char *tune_outcome_name(enum tune_outcome o)
{
        return o < TUNE_OUT_MAX ? outcome_names[o] : "unknown";
}

void tune_init(struct tune *t, enum tune_kind kind)
{
        memset(t, 0, sizeof(*t));
        t->kind = kind;
        t->param = -1;
        t->chosen = -1;
        t->runs = 3;
        t->max_ratio = TUNE_ECN_MAX_RATIO;
        t->ceiling_gbps = NAN;
        t->judge = (struct tune_judge){ .target = 0.95, .max_pause_pps = 1000, .max_drop_pps = 100,
                                        .max_regression_pct = 25, .storm_pause_pps = 1000 };
        t->ceiling.share = t->baseline.share = NAN;
        fabric_opts_defaults(&t->pattern);
}

const struct tune_trial *tune_chosen(const struct tune *t)
{
        if (t->chosen == -2)
                return &t->baseline;
        return t->chosen >= 0 && (unsigned)t->chosen < t->n_trials ? &t->trials[t->chosen] : NULL;
}

/* A change that ended: reverted (by its gate or not), refused, kept, or none made. */
static bool ended(long long rollout, enum tune_outcome o)
{
        return !rollout || o == TUNE_OUT_REVERTED || o == TUNE_OUT_GATE || o == TUNE_OUT_REFUSED ||
               o == TUNE_OUT_CONFIRMED || o == TUNE_OUT_NONE;
}

bool tune_all_ended(const struct tune *t)
{
        bool all = ended(t->ceiling.rollout, t->ceiling.outcome) &&
                   ended(t->baseline.pair_rollout, t->baseline.pair_outcome);

        for (unsigned i = 0; i < t->n_trials; i++)
                all &= ended(t->trials[i].rollout, t->trials[i].outcome) &&
                       ended(t->trials[i].pair_rollout, t->trials[i].pair_outcome);
        return all;
}

bool tune_trial_gated(const struct tune_judge *j, double baseline_gbps, const struct tune_trial *t, char *why,
                      size_t size)
{
        const struct tune_counters *c = &t->m.c;
        double floor_gbps = baseline_gbps * (1.0 - j->max_regression_pct / 100.0);

        if (!t->m.ok) {
                snprintf(why, size, "the pattern could not be measured: %.280s", t->m.error);
                return true;
        }
        if (c->pauses_known && c->pauses_ps >= j->storm_pause_pps) {
                snprintf(why, size, "%.0f pause frames/s, a pause storm (bound %.0f)", c->pauses_ps,
                         j->storm_pause_pps);
                return true;
        }
        if (isfinite(baseline_gbps) && baseline_gbps > 0 && t->m.gbps < floor_gbps) {
                snprintf(why, size, "%.4g Gb/s is %.1f%% below the baseline %.4g Gb/s (at most %.0f%% allowed)",
                         t->m.gbps, (1.0 - t->m.gbps / baseline_gbps) * 100, baseline_gbps, j->max_regression_pct);
                return true;
        }
        return false;
}

bool tune_trial_judge(const struct tune_judge *j, double ceiling_gbps, struct tune_trial *t)
{
        const struct tune_counters *c = &t->m.c;

        t->share = t->m.ok && isfinite(ceiling_gbps) && ceiling_gbps > 0 ? t->m.gbps / ceiling_gbps : NAN;
        t->held = false;
        if (!t->m.ok)
                snprintf(t->why, sizeof(t->why), "not measured: %.290s", t->m.error);
        else if (!isfinite(t->share))
                snprintf(t->why, sizeof(t->why), "no ceiling to compare with");
        else if (t->share < j->target)
                snprintf(t->why, sizeof(t->why), "%.3f of the ceiling, below the target %.3f", t->share, j->target);
        else if (c->pauses_known && c->pauses_ps > j->max_pause_pps)
                snprintf(t->why, sizeof(t->why), "%.3f of the ceiling, but %.1f pause frames/s (at most %.0f)",
                         t->share, c->pauses_ps, j->max_pause_pps);
        else if (c->drops_known && c->drops_ps > j->max_drop_pps)
                snprintf(t->why, sizeof(t->why), "%.3f of the ceiling, but %.1f drops/s (at most %.0f)", t->share,
                         c->drops_ps, j->max_drop_pps);
        else {
                t->held = true;
                snprintf(t->why, sizeof(t->why), "%.3f of the ceiling holds the target %.3f", t->share, j->target);
        }
        return t->held;
}

static bool saw_marks(const struct tune_trial *x)
{
        return x->m.ok && x->m.c.marks_known && x->m.c.marks_ps > 0;
}

double tune_rtt_ms(const struct tune *t)
{
        double rtt = fmax(t->baseline.m.rtt_ms, t->ceiling.m.rtt_ms);

        for (unsigned i = 0; i < t->n_trials; i++)
                rtt = fmax(rtt, t->trials[i].m.rtt_ms);
        return rtt > 0 ? rtt : 0;
}

static bool no_winner(struct tune *t, const char *why, const struct tune_trial *x)
{
        snprintf(t->end, sizeof(t->end), "no winner: %.250s%s%s; nothing was chosen", why, x ? ", trial " : "",
                 x ? x->label : "");
        t->chosen = -1;
        t->no_winner = true;
        return false;
}

bool tune_verdict(struct tune *t, const struct doctor_params *p)
{
        const struct tune_trial *x = tune_chosen(t);
        bool signal = saw_marks(&t->baseline);
        uint32_t fmax_bytes = 0;
        char why[250];

        if (!x || t->kind != TUNE_ECN)
                return x != NULL;
        for (unsigned i = 0; i < t->n_trials; i++)
                signal |= saw_marks(&t->trials[i]);
        if (!signal)
                return no_winner(t, "no trial saw an ECN mark on the queue (no signal: its thresholds were never "
                                    "reached, so the trials cannot tell one value from another)", NULL);
        doctor_ecn_floor(t->port_mbps, tune_rtt_ms(t), p, &t->floor_min, &fmax_bytes);
        if (x->value >= t->floor_min)
                return true;
        snprintf(why, sizeof(why), "the best value, min_threshold_bytes %u, is below doctor's floor %u (%s)",
                 x->value, t->floor_min, tune_rtt_ms(t) > 0 ? "the ports' rate x the trials' round trip"
                                                            : "the ports' speed, no round trip measured");
        return no_winner(t, why, x);
}
