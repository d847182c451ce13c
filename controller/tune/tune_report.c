/* SPDX-License-Identifier: MIT */
/* What `nettunectl tune` reports: every trial as text and JSON, and the winner as a policy. */
#include <math.h>

#include "controller/tune/tune.h"
#include "policies/policy/policy.h"
#include "policies/state/spec_json.h"

/* "19.1 Mbit/s", "93.2 Gbit/s": rates of a lab and of a fabric in one format. */
static const char *rate_str(double gbps, char *buf, size_t size)
{
        if (!isfinite(gbps))
                snprintf(buf, size, "-");
        else if (gbps < 1)
                snprintf(buf, size, "%.1f Mbit/s", gbps * 1000);
        else
                snprintf(buf, size, "%.1f Gbit/s", gbps);
        return buf;
}

static json_t *num_or_null(bool known, double v)
{
        return known && isfinite(v) ? json_real(round(v * 1e6) / 1e6) : json_null();
}

static json_t *trial_json(const struct tune *t, const struct tune_trial *x)
{
        const struct tune_counters *c = &x->m.c;
        json_t *runs = json_array(), *o;

        for (unsigned i = 0; runs && i < x->m.n_runs && i < TUNE_RUNS_MAX; i++)
                json_array_append_new(runs, num_or_null(true, x->m.run_gbps[i]));
        o = json_pack("{s:s,s:I,s:o,s:o,s:b,s:s,s:I,s:s,s:o,s:{s:o,s:o,s:o,s:o,s:o}}", "trial", x->label,
                      "value", (json_int_t)x->value, "gbps", num_or_null(x->m.ok, x->m.gbps), "share",
                      num_or_null(true, x->share), "held", x->held, "outcome", tune_outcome_name(x->outcome),
                      "rollout", (json_int_t)x->rollout, "why", x->why, "runs_gbps", runs ? runs : json_null(),
                      "per_s", "marks", num_or_null(c->marks_known, c->marks_ps), "cnps",
                      num_or_null(c->cnps_known, c->cnps_ps), "pauses", num_or_null(c->pauses_known, c->pauses_ps),
                      "drops", num_or_null(c->drops_known, c->drops_ps), "window_s",
                      num_or_null(c->window_s > 0, c->window_s));
        if (o && t->kind == TUNE_ECN) {
                json_object_set_new(o, "min_threshold_bytes", json_integer(x->value));
                json_object_set_new(o, "max_threshold_bytes", json_integer(x->max_bytes));
                json_object_set_new(o, "mark_probability_pct", json_integer(x->probability_pct));
                json_object_set_new(o, "marking_off", json_boolean(x->marking_off));
        }
        if (o && !x->m.ok && x->m.error[0])
                json_object_set_new(o, "error", json_string(x->m.error));
        if (o && x->pair_rollout) {
                json_object_set_new(o, "pair_ceiling_gbps", num_or_null(true, x->pair_gbps));
                json_object_set_new(o, "pair_outcome", json_string(tune_outcome_name(x->pair_outcome)));
                json_object_set_new(o, "pair_rollout", json_integer(x->pair_rollout));
        }
        if (o)
                json_object_set_new(o, "phase", json_string(x->rollout || x->m.n_runs ? tune_phase_name(x->phase) : "-"));
        return o;
}

static json_t *names_json(const char (*v)[INVENTORY_NAME_MAX], unsigned n)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < n; i++)
                json_array_append_new(a, json_string(v[i]));
        return a;
}

json_t *tune_to_json(const struct tune *t)
{
        const struct tune_trial *ch = tune_chosen(t);
        json_t *trials = json_array(), *ports = json_array(), *o;

        for (unsigned i = 0; trials && i < t->n_trials; i++)
                json_array_append_new(trials, trial_json(t, &t->trials[i]));
        for (unsigned i = 0; ports && i < t->n_ports; i++)
                json_array_append_new(ports, json_string(t->ports[i]));
        o = json_pack("{s:s,s:s,s:f,s:{s:s,s:i,s:i},s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:s,s:i}", "kind",
                      t->kind == TUNE_ECN ? "ecn" : "dcqcn", t->kind == TUNE_ECN ? "switch" : "parameter",
                      t->subject, "target", t->judge.target, "pattern", "name", fabric_pattern_name(t->pattern.pattern),
                      "duration_ms", (int)t->pattern.duration_ms, "runs", (int)t->runs, "scope",
                      names_json(t->scope, t->n_scope), "ceiling_gbps", num_or_null(true, t->ceiling_gbps), "ceiling",
                      t->ceiling_is_port || t->ceiling_given || t->paired ? json_null() : trial_json(t, &t->ceiling),
                      "baseline",
                      trial_json(t, &t->baseline), "trials", trials ? trials : json_null(), "chosen",
                      ch ? trial_json(t, ch) : json_null(), "ports", ports ? ports : json_null(), "all_ended",
                      tune_all_ended(t), "end", t->end, "trials_run", (int)t->n_trials);
        if (o) {
                json_object_set_new(o, "no_winner", json_boolean(t->no_winner));
                json_object_set_new(o, "lossless", json_boolean(t->lossless));
                json_object_set_new(o, "floor_min_bytes", t->floor_min ? json_integer(t->floor_min) : json_null());
        }
        if (o)
                json_object_set_new(o, "pattern_nodes", names_json(t->pattern_nodes,
                                                                   t->n_pattern < TUNE_SCOPE_MAX ? t->n_pattern
                                                                                                 : TUNE_SCOPE_MAX));
        if (o && t->kind == TUNE_ECN)
                json_object_set_new(o, "queue", json_integer(t->queue));
        if (o)
                json_object_set_new(o, "paired", json_boolean(t->paired));
        if (o && t->out_path[0])
                json_object_set_new(o, "policy_file", json_string(t->out_path));
        return o;
}

static void print_counter(FILE *out, bool known, double v)
{
        if (known)
                fprintf(out, " %9.1f", v);
        else
                fprintf(out, " %9s", "-");
}

static void print_trial(FILE *out, const struct tune *t, const struct tune_trial *x)
{
        const struct tune_counters *c = &x->m.c;
        char r[32];

        fprintf(out, "  %-8s", x->label);
        if (t->kind == TUNE_ECN && x->marking_off)
                fprintf(out, " %-26s", "marking off");
        else if (t->kind == TUNE_ECN)
                fprintf(out, " %9u %9u %3u%%", x->value, x->max_bytes, x->probability_pct);
        else
                fprintf(out, " %-26u", x->value);
        fprintf(out, " %13s", x->m.ok ? rate_str(x->m.gbps, r, sizeof(r)) : "- -");      /* two words, always */
        if (isfinite(x->share))
                fprintf(out, " %6.3f", x->share);
        else
                fprintf(out, " %6s", "-");
        print_counter(out, c->marks_known, c->marks_ps);
        print_counter(out, c->cnps_known, c->cnps_ps);
        print_counter(out, c->pauses_known, c->pauses_ps);
        print_counter(out, c->drops_known, c->drops_ps);
        fprintf(out, " %-4s %s\n", x->held ? "yes" : "no", tune_outcome_name(x->outcome));
        if (x->pair_rollout)
                fprintf(out, "  %8s (the ceiling right after it: %s, %s)\n", "", rate_str(x->pair_gbps, r, sizeof(r)),
                        tune_outcome_name(x->pair_outcome));
        if (x->phase == TUNE_PHASE_VERIFY)
                fprintf(out, "  %8s (the winner, tried again)\n", "");
        if (x->why[0])
                fprintf(out, "  %8s (%s)\n", "", x->why);
}

static void print_head(FILE *out, const struct tune *t)
{
        char r[32];

        if (t->kind == TUNE_ECN)
                fprintf(out, "tune ecn: switch %s queue %u", t->subject, t->queue);
        else
                fprintf(out, "tune dcqcn: %s", t->subject);
        fprintf(out, " on %u node%s; %s over %u nodes, %u run%s of %u ms; target %.3f of the ceiling\n",
                t->n_scope, t->n_scope == 1 ? "" : "s", fabric_pattern_name(t->pattern.pattern), t->n_pattern,
                t->runs, t->runs == 1 ? "" : "s", t->pattern.duration_ms, t->judge.target);
        fprintf(out, "ceiling: %s%s\n", rate_str(t->ceiling_gbps, r, sizeof(r)),
                t->ceiling_is_port ? " (the port rate)" : t->ceiling_given ? " (given)"
                : t->paired ? " (the pattern with marking off, right after the baseline; each trial has its own)"
                            : " (the pattern with marking off)");
        fprintf(out, "  %-8s %-26s %13s %6s %9s %9s %9s %9s %-4s %s\n", "trial",
                t->kind == TUNE_ECN ? "min/max bytes, probability" : "value", "figure", "share", "marks/s",
                "cnps/s", "pauses/s", "drops/s", "held", "outcome");
}

void tune_print_text(FILE *out, const struct tune *t)
{
        const struct tune_trial *ch = tune_chosen(t);
        char r[32], c[32];

        print_head(out, t);
        if (t->ceiling.m.n_runs)
                print_trial(out, t, &t->ceiling);
        if (t->baseline.m.n_runs)
                print_trial(out, t, &t->baseline);
        for (unsigned i = 0; i < t->n_trials; i++)
                print_trial(out, t, &t->trials[i]);
        if (ch && t->kind == TUNE_ECN)
                fprintf(out, "chosen: min_threshold_bytes %u (max %u, %u%%): %s, %.3f of the ceiling %s, "
                        "after %u trial%s\n", ch->value, ch->max_bytes, ch->probability_pct,
                        rate_str(ch->m.gbps, r, sizeof(r)), ch->share, rate_str(t->ceiling_gbps, c, sizeof(c)),
                        t->n_trials, t->n_trials == 1 ? "" : "s");
        else if (ch)
                fprintf(out, "chosen: %s %u: %s, %.3f of the ceiling, after %u trial%s\n", t->subject, ch->value,
                        rate_str(ch->m.gbps, r, sizeof(r)), ch->share, t->n_trials, t->n_trials == 1 ? "" : "s");
        else
                fprintf(out, "chosen: nothing\n");
        fprintf(out, "%s\n", t->end);
}
