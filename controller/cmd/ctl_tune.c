/* SPDX-License-Identifier: MIT */
/*
 * nettunectl tune ecn --switch NAME --queue Q [--selector KEY=VALUE]... [--pattern incast|alltoall|ring]
 *                     [--target-pct P] [--max-trials N] [--out POLICY] [--plot FILE.svg] [...]
 * nettunectl tune dcqcn --param NAME --interfaces GLOB --selector KEY=VALUE... [--canary N] [...]
 *
 * Finds the setting a fabric needs by measured trials (controller/tune/tune.h): each
 * trial a gated transaction with commit-confirm on the scope under test only — the
 * switch's managing node, or a canary set of hosts — measured with the fabric probe
 * over the selected nodes, then reverted; the winner written as a policy for
 * `nettunectl apply`. Ctrl-C stops after the step in progress, cancelling its
 * change; a second one, or a crash, leaves it to the agents' confirm timers.
 * Exit 0 a value held the target, 1 none did (everything was reverted), 2 invalid
 * input (nothing was changed), 3 stopped (what was pending is restored by its agents).
 */
#include <math.h>
#include <signal.h>
#include <stdio.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/cmd/ctl_internal.h"
#include "controller/rollout/rollout.h"
#include "controller/tune/tune.h"

static int parse_num(const char *o, const char *v, double min, double max, double *ret)
{
        char *end;
        double d = v ? strtod(v, &end) : NAN;

        if (!v || !*v || *end || !isfinite(d) || d < min || d > max) {
                log_err("%s '%s': expected a number in %g-%g; nothing was changed", o, v ? v : "", min, max);
                return -EINVAL;
        }
        *ret = d;
        return 0;
}

static int parse_pattern_opt(struct tune_args *a, const char *o, const char *v)
{
        unsigned u;

        if (streq(o, "--pattern")) {
                if (fabric_pattern_from_string(v, &a->t.pattern.pattern) >= 0)
                        return 0;
                log_err("--pattern '%s': expected 'incast', 'alltoall' or 'ring'; nothing was changed", v);
                return -EINVAL;
        }
        if (streq(o, "--duration-ms"))
                return ctl_parse_uint(o, v, 100, 60000, &a->t.pattern.duration_ms);
        if (streq(o, "--streams"))
                return ctl_parse_uint(o, v, 1, PROBE_STREAMS_MAX, &a->t.pattern.streams);
        if (streq(o, "--runs"))
                return ctl_parse_uint(o, v, 1, TUNE_RUNS_MAX, &a->t.runs);
        if (streq(o, "--mode")) {
                if (probe_mode_from_string(v, &a->t.pattern.mode) >= 0)
                        return 0;
                log_err("--mode '%s': expected 'auto', 'verbs' or 'tcp'; nothing was changed", v);
                return -EINVAL;
        }
        if (streq(o, "--dscp") || streq(o, "--priority")) {
                if (ctl_parse_uint(o, v, 0, streq(o, "--dscp") ? 63 : 7, &u) < 0)
                        return -EINVAL;
                *(streq(o, "--dscp") ? &a->t.pattern.dscp : &a->t.pattern.priority) = (int)u;
                return 0;
        }
        if (streq(o, "--receiver")) {
                a->receiver = v;
                return 0;
        }
        return 1;
}

static int parse_judge_opt(struct tune_args *a, const char *o, const char *v)
{
        double d;
        int r;

        if (streq(o, "--target-pct")) {
                r = parse_num(o, v, 1, 200, &d);
                a->t.judge.target = d / 100;
                return r;
        }
        if (streq(o, "--max-pause-pps"))
                return parse_num(o, v, 0, 1e9, &a->t.judge.max_pause_pps);
        if (streq(o, "--max-drop-pps"))
                return parse_num(o, v, 0, 1e9, &a->t.judge.max_drop_pps);
        if (streq(o, "--max-regression-pct"))
                return parse_num(o, v, 0, 100, &a->t.judge.max_regression_pct);
        if (streq(o, "--max-trials"))
                return ctl_parse_uint(o, v, 1, TUNE_TRIALS_MAX, &a->t.search.o.max_trials);
        if (streq(o, "--ceiling")) {
                if (streq(v, "measure") || streq(v, "port")) {
                        a->ceiling_port = streq(v, "port");
                        return 0;
                }
                r = parse_num(o, v, 1e-6, 1e6, &d);
                a->t.ceiling_gbps = d;
                a->t.ceiling_given = true;
                return r < 0 ? (log_err("--ceiling: 'measure', 'port' or a rate in Gb/s"), r) : 0;
        }
        return 1;
}

static int parse_subject_opt(struct tune_args *a, const char *o, const char *v)
{
        double d;
        int r;

        if (streq(o, "--switch") || streq(o, "--interfaces") || streq(o, "--out") || streq(o, "--plot") ||
            streq(o, "--ports") || streq(o, "--name") || streq(o, "--param")) {
                *(streq(o, "--switch") ? &a->sw : streq(o, "--interfaces") ? &a->interfaces
                  : streq(o, "--out") ? &a->out : streq(o, "--plot") ? &a->plot : streq(o, "--ports") ? &a->ports
                  : streq(o, "--name") ? &a->name : &a->param) = v;
                return 0;
        }
        if (streq(o, "--queue"))
                return a->queue_given = true, ctl_parse_uint(o, v, 0, STATE_TC_COUNT - 1, &a->t.queue);
        if (streq(o, "--canary"))
                return ctl_parse_uint(o, v, 1, TUNE_SCOPE_MAX, &a->canary);
        if (streq(o, "--confirm-timeout"))
                return ctl_parse_uint(o, v, 10, 86400, &a->confirm_timeout_s);
        if (streq(o, "--probability-pct")) {
                r = parse_num(o, v, 1, 100, &d);
                a->t.probability_pct = (uint8_t)d;
                return r;
        }
        return 1;
}

/* 0 taken, -EINVAL malformed (printed), 1 not one of tune's. */
static int parse_opt(struct tune_args *a, const char *o, const char *v)
{
        int r = parse_subject_opt(a, o, v);

        if (r > 0)
                r = parse_judge_opt(a, o, v);
        if (r > 0)
                r = parse_pattern_opt(a, o, v);
        return r < 0 ? -EINVAL : r;
}

static int parse_args(struct ctl *c, struct tune_args *a)
{
        struct ctl_selector sel = { 0 };

        if (c->argc < 1 || (!streq(c->argv[0], "ecn") && !streq(c->argv[0], "dcqcn"))) {
                log_err("tune: expected 'ecn' or 'dcqcn'; see nettunectl(8); nothing was changed");
                return -EINVAL;
        }
        tune_init(&a->t, streq(c->argv[0], "ecn") ? TUNE_ECN : TUNE_DCQCN);
        a->t.pattern.pattern = FABRIC_INCAST;
        a->t.pattern.duration_ms = 4000;
        a->t.search.o.max_trials = TUNE_TRIALS_DEFAULT;
        a->t.probability_pct = 0;
        for (int i = 1; i < c->argc; i++) {
                const char *arg = c->argv[i], *eq = strchr(arg, '='), *v;
                char opt[32];
                int r = ctl_take_selector(c, &i, &sel);

                if (r < 0)
                        return r;
                if (r > 0)
                        continue;
                if (streq(arg, "--keep") || streq(arg, "--paired")) {
                        *(streq(arg, "--keep") ? &a->keep : &a->t.paired) = true;
                        continue;
                }
                snprintf(opt, sizeof(opt), "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
                v = eq ? eq + 1 : i + 1 < c->argc ? c->argv[++i] : NULL;
                if (strncmp(arg, "--", 2))
                        return ctl_bad_arg(c, arg);
                if (!v) {
                        log_err("tune: '%s' needs a value; nothing was changed", arg);
                        return -EINVAL;
                }
                r = parse_opt(a, opt, v);
                if (r > 0)
                        return ctl_bad_arg(c, opt);
                if (r < 0)
                        return r;
        }
        for (unsigned k = 0; k < sel.n; k++)
                a->selector[a->n_selector++] = sel.labels[k];
        return ctl_tune_check_args(a);
}

static void on_signal(int sig)
{
        (void)sig;
        tune_request_stop();
        signal(SIGINT, SIG_DFL);        /* a second Ctrl-C ends it at once: the confirm timers restore */
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
}

static void on_trial(const struct tune *t, const struct tune_trial *x, void *ud)
{
        const struct ctl *c = ud;

        if (c->quiet || c->json)
                return;
        if (isfinite(x->share))
                fprintf(stderr, "tune: %s %s%u: %.4g Gb/s, %.3f of the ceiling: %s (%s)\n", x->label,
                        t->kind == TUNE_ECN ? "min_threshold_bytes " : "", x->value, x->m.gbps, x->share,
                        x->held ? "holds" : "does not hold", tune_outcome_name(x->outcome));
        else
                fprintf(stderr, "tune: %s: %.4g Gb/s (%s)%s%s\n", x->label, x->m.gbps, tune_outcome_name(x->outcome),
                        x->why[0] ? ": " : "", x->why);
}

static int write_file(const char *path, const char *text, const char *what)
{
        FILE *f = fopen(path, "we");

        if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
                log_err("tune: cannot write the %s to '%s': %s", what, path, strerror(errno));
                if (f)
                        fclose(f);
                return -EIO;
        }
        return 0;
}

/* The winner's policy and the plot, as asked. */
static int outputs(struct tune_args *a, struct tune *t, const struct policy_label *sel, unsigned n)
{
        const struct tune_trial *ch = tune_chosen(t);
        _cleanup_free_ char *doc = NULL, *svg = NULL;
        struct errbuf e = { 0 };
        char name[POLICY_NAME_MAX];
        int r = 0;

        if (a->out && ch) {
                if (a->name)
                        snprintf(name, sizeof(name), "%s", a->name);
                else
                        tune_policy_name(t, NULL, name, sizeof(name));
                if (tune_policy(t, ch, sel, n, name, &doc, &e) < 0) {
                        log_err("tune: the winner is not a valid policy: %s: %s", e.where, e.msg);
                        r = -EINVAL;
                } else if ((r = write_file(a->out, doc, "policy")) >= 0) {
                        snprintf(t->out_path, sizeof(t->out_path), "%s", a->out);
                }
        }
        if (a->plot && !(svg = tune_plot_svg(t)))
                r = -ENOMEM;
        if (svg && write_file(a->plot, svg, "plot") < 0)
                r = -EIO;
        return r;
}

static int report(struct ctl *c, struct tune_args *a, struct tune *t, int rc)
{
        int code = rc < 0 || t->no_winner ? OUTCOME_RUNTIME : tune_chosen(t) ? OUTCOME_OK : OUTCOME_ROLLED_BACK;

        if (outputs(a, t, a->labels, a->n_labels) < 0)
                code = OUTCOME_RUNTIME;
        if (c->json) {
                json_t *j = tune_to_json(t);

                output_json(j);
                json_decref(j);
        } else {
                tune_print_text(stdout, t);
                if (t->out_path[0])
                        printf("policy written to '%s' (nettunectl plan / apply it)\n", t->out_path);
                else if (a->out)
                        printf("nothing held the target: '%s' was not written\n", a->out);
        }
        return code;
}

int ctl_cmd_tune(struct ctl *c)
{
        _cleanup_free_ struct tune_args *a = calloc(1, sizeof(*a));
        struct sigaction sa = { .sa_handler = on_signal };
        struct tune_env env;
        struct errbuf e = { 0 };
        int r;

        if (!a)
                return OUTCOME_RUNTIME;
        if (parse_args(c, a) < 0)
                return OUTCOME_INVALID;
        if ((r = ctl_need_store(c)) > 0 || (r = ctl_need_http(c)) > 0 || (r = ctl_need_lease(c, 0)) > 0)
                return r;
        r = ctl_tune_scope(c, a, &e);
        if (r < 0) {
                log_err("tune: %s; nothing was changed", e.msg);
                ctl_tune_args_free(a);
                return outcome_of_errno(r);
        }
        ctl_tune_env(c, a, &env);
        env.on_trial = on_trial;
        env.ud = c;
        /* the layers committed on the scope: every trial overrides them (a trial is meant to win) */
        if (ctl_layer_names(c, env.scope, env.n_scope, a->t.overrides, POLICY_OVERRIDES_MAX, &a->t.n_overrides) < 0)
                a->t.n_overrides = 0;
        r = tune_preflight(&env, &a->t, &e);
        if (r < 0) {
                log_err("tune: %s; nothing was changed", e.msg);
                ctl_tune_args_free(a);
                return outcome_of_errno(r);
        }
        if (!c->quiet && !c->json)
                fprintf(stderr, "pre-flight: %u node%s answer and accept the trial policy\n", env.n_scope,
                        env.n_scope == 1 ? "" : "s");
        /* SIGHUP too: a dropped SSH session cancels the trial in progress as Ctrl-C does */
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
        r = tune_run(&env, &a->t, &e);
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        signal(SIGHUP, SIG_DFL);
        if (r < 0)
                log_err("tune: %s", e.msg);
        r = report(c, a, &a->t, r);
        ctl_tune_args_free(a);
        return r;
}
