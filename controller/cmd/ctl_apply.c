/* SPDX-License-Identifier: MIT */
/*
 * nettunectl apply POLICY | apply --resume ID: a canary/wave rollout. With a
 * SQLite store this process drives it; with an etcd store it submits the
 * rollout for the leading `serve` replica and follows its records (--detach:
 * returns at once).
 */
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/rollout/rollout.h"
#include "policies/policy/policy.h"

struct apply_args {
        const char *policy;
        struct ctl_selector only;       /* --selector: the policy's nodes narrowed */
        char profile_path[4096];        /* --profile NAME: its file, which policy then names */
        unsigned resume;
        bool confirm_given;
        bool detach;
        struct rollout_opts o;
        json_t *left_out;               /* the nodes the pre-flight left out (--skip-unreachable), for the report */
        bool ask;                       /* the y/N question will be asked (a terminal, no --yes) */
        json_t *notes;                  /* the pre-flight plans' notes, each with its nodes (rollout_notes_add) */
        char *diff;                     /* then: what the pre-flight's plans change, grouped, shown before it */
        json_t *planned;                /* [{name, changes: [line]}]: each changing node's plan, owners named */
        json_t *parts_args;             /* a policy with switches: each node's part (ctl_parts_args), or NULL */
        bool remove;                    /* nettunectl remove: policy is the name of the layer each node takes out */
};

static int parse_count(const char *opt, const char *v, struct rollout_count *ret)
{
        if (!v || rollout_count_parse(v, ret) < 0) {
                log_err("%s '%s': expected N or P%% (0-100%%); nothing was changed", opt, v ? v : "");
                return -EINVAL;
        }
        return 0;
}

static int parse_selector(struct apply_args *a, const char *v)
{
        struct errbuf e = { 0 };

        if (rollout_selector_parse(v, &e) < 0) {
                log_err("%s %s; nothing was changed", e.where, e.msg);
                return -EINVAL;
        }
        snprintf(a->o.canary_selector, sizeof(a->o.canary_selector), "%s", v);
        return 0;
}

/* A label key as inventories and selectors spell them: [A-Za-z0-9._/-], 1-63 characters. */
static int parse_label(const char *opt, const char *v, char *buf, size_t size)
{
        size_t len = v ? strlen(v) : 0;

        if (len == 0 || len >= size || strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._/-") != len) {
                log_err("%s '%s': expected a label key of 1-%zu characters [A-Za-z0-9._/-]; nothing was changed", opt,
                        v ? v : "", size - 1);
                return -EINVAL;
        }
        memcpy(buf, v, len + 1);
        return 0;
}

/* --reason TEXT: one line of printable text, recorded with the rollout. */
static int parse_reason(struct apply_args *a, const char *v)
{
        size_t len = v ? strlen(v) : 0;

        for (size_t i = 0; i < len; i++)
                if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
                        len = 0;
        if (len == 0 || len >= sizeof(a->o.reason)) {
                log_err("--reason '%.80s': expected one line of 1-%zu printable characters; nothing was changed",
                        v ? v : "", sizeof(a->o.reason) - 1);
                return -EINVAL;
        }
        memcpy(a->o.reason, v, len + 1);
        return 0;
}

static int parse_one(struct apply_args *a, const char *opt, const char *v)
{
        if (streq(opt, "--canary"))
                return ctl_parse_uint(opt, v, 0, INVENTORY_NODES_MAX, &a->o.canary);
        if (streq(opt, "--wave-size")) {
                int r = parse_count(opt, v, &a->o.wave_size);

                if (r >= 0 && a->o.wave_size.value == 0) {
                        log_err("--wave-size '%s': must be at least 1 (or 1%%); nothing was changed", v);
                        return -EINVAL;
                }
                return r;
        }
        if (streq(opt, "--max-unavailable"))
                return parse_count(opt, v, &a->o.max_unavailable);
        if (streq(opt, "--confirm-timeout")) {
                a->confirm_given = true;
                return ctl_parse_uint(opt, v, 1, 86400, &a->o.confirm_timeout_s);
        }
        if (streq(opt, "--fabric-neighbours")) {
                unsigned k;

                if (ctl_parse_uint(opt, v, 0, INVENTORY_NODES_MAX, &k) < 0)
                        return -EINVAL;
                a->o.fabric_neighbours = (int)k;
                return 0;
        }
        if (streq(opt, "--resume"))
                return ctl_parse_uint(opt, v, 1, 2000000000, &a->resume);
        if (streq(opt, "--reason"))
                return parse_reason(a, v);
        if (streq(opt, "--wave-interval"))
                return ctl_parse_uint(opt, v, 0, 86400, &a->o.wave_interval_s);
        if (streq(opt, "--promote")) {
                if (!v || (!streq(v, "auto") && !streq(v, "manual"))) {
                        log_err("--promote '%s': expected 'auto' or 'manual'; nothing was changed", v ? v : "");
                        return -EINVAL;
                }
                a->o.promote_manual = streq(v, "manual");
                return 0;
        }
        if (streq(opt, "--canary-selector"))
                return parse_selector(a, v);
        if (streq(opt, "--wave-by"))
                return parse_label(opt, v, a->o.wave_by, sizeof(a->o.wave_by));
        if (streq(opt, "--max-regression-pct")) {
                unsigned pct;

                if (ctl_parse_uint(opt, v, 0, 100, &pct) < 0)
                        return -EINVAL;
                a->o.max_regression_pct = (int)pct;
                return 0;
        }
        if (streq(opt, "--probe-duration-ms"))
                return ctl_parse_uint(opt, v, 100, 60000, &a->o.probe_duration_ms);
        if (streq(opt, "--rollback-on-halt")) {
                if (!streq(v, "wave") && !streq(v, "all")) {
                        log_err("--rollback-on-halt '%s': expected 'wave' or 'all'; nothing was changed", v ? v : "");
                        return -EINVAL;
                }
                a->o.halt_scope = streq(v, "all") ? ROLLOUT_HALT_ALL : ROLLOUT_HALT_WAVE;
                return 0;
        }
        return 1;               /* not an option of apply */
}

static int parse_args(struct ctl *c, struct apply_args *a)
{
        int r;

        rollout_opts_defaults(&a->o);
        for (int i = 0; i < c->argc; i++) {
                const char *arg = c->argv[i], *eq = strchr(arg, '=');
                char opt[64];

                if ((r = ctl_take_selector(c, &i, &a->only)) != 0) {
                        if (r < 0)
                                return r;
                } else if (streq(arg, "--no-confirm")) {
                        a->o.no_confirm = true;
                } else if (streq(arg, "--skip-unreachable")) {
                        a->o.skip_unreachable = true;
                } else if (streq(arg, "--detach")) {
                        a->detach = true;
                } else if (!strncmp(arg, "--", 2)) {
                        const char *v = eq ? eq + 1 : (i + 1 < c->argc ? c->argv[++i] : NULL);

                        if (!strncmp(arg, "--profile", 9) && (arg[9] == '\0' || arg[9] == '=')) {
                                /* a vendor profile, applied as the policy it is (named after the profile) */
                                if (a->policy || !v) {
                                        log_err("apply: give a POLICY file or --profile NAME, one of them; "
                                                "nothing was changed");
                                        return -EINVAL;
                                }
                                if (ctl_profile_find(v, a->profile_path, sizeof(a->profile_path)) < 0)
                                        return -EINVAL;
                                a->policy = a->profile_path;
                                continue;
                        }
                        snprintf(opt, sizeof(opt), "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
                        if ((r = parse_one(a, opt, v)) < 0)
                                return -EINVAL;
                        if (r > 0)
                                return ctl_bad_arg(c, arg);
                } else if (!a->policy) {
                        a->policy = arg;
                } else if (a->policy == a->profile_path) {
                        log_err("apply: give a POLICY file or --profile NAME, one of them; nothing was changed");
                        return -EINVAL;
                } else {
                        return ctl_bad_arg(c, arg);
                }
        }
        if (!!a->policy == !!a->resume) {
                log_err(a->remove ? "remove: give the NAME of a committed policy (a layer) or --resume ID; nothing was "
                        "changed" : "apply: give a POLICY file, --profile NAME or --resume ID; nothing was changed");
                return -EINVAL;
        }
        if (a->resume && a->only.n) {
                log_err("apply --resume: the rollout keeps the nodes it was started with: --selector is for a new "
                        "one; nothing was changed");
                return -EINVAL;
        }
        return 0;
}

/*
 * The rollout's report, with each wave's fabric gate when the policy has one, the nodes the pre-flight left out
 * and the notes its plans carried.
 */
static void report(const struct ctl *c, const struct rollout_rec *r, json_t *fabric, json_t *left_out, json_t *notes,
                   const struct apply_args *a)
{
        json_t *j;

        if (!c->json) {
                output_rollout(r, false);
                if (a && a->diff && a->diff[0] && !a->ask)     /* asked on a terminal: shown before the question */
                        printf("planned by the pre-flight, each change with the policy that owns its field:\n%s",
                               a->diff);
                rollout_notes_print(stdout, notes);
                for (size_t i = 0; i < json_array_size(left_out); i++)
                        printf("  left out by the pre-flight: %s: %s\n",
                               json_string_value(json_object_get(json_array_get(left_out, i), "name")),
                               json_string_value(json_object_get(json_array_get(left_out, i), "error")));
                fflush(stdout);
                return;
        }
        j = output_rollout_json(r);
        if (j && json_array_size(fabric))
                json_object_set(j, "fabric", fabric);
        if (j && left_out)
                json_object_set(j, "left_out", left_out);
        if (j && notes)
                json_object_set(j, "notes", notes);
        if (j && a && a->planned)
                json_object_set(j, "planned", a->planned);
        output_json(j);
        json_decref(j);
        fflush(stdout);
}

static int run_and_report(struct ctl *c, struct rollout_rec *r, json_t *left_out, json_t *notes,
                          const struct apply_args *a)
{
        struct rollout_run_env env;
        struct errbuf e = { 0 };
        int rc;

        ctl_run_env(c, &env);
        env.fabric_log = json_array();
        ctl_signals_stop_rollout(true);
        rc = rollout_run(&env, r, &e);
        ctl_signals_stop_rollout(false);
        if (rc >= 0)
                report(c, r, env.fabric_log, left_out, notes, a);
        json_decref(env.fabric_log);
        return rc < 0 ? ctl_fail(&e) : rc;
}

static int resume(struct ctl *c, unsigned id)
{
        struct rollout_rec *r = NULL;
        struct errbuf e = { 0 };
        int rc;

        if (store_rollout_load(c->store, id, &r, &e) < 0) {
                char buf[ERRBUF_STR_MAX];

                log_err("%s; nothing was changed", errbuf_str(&e, buf, sizeof(buf)));
                return OUTCOME_INVALID;
        }
        if (r->state != ROLLOUT_RUNNING || (!streq(r->kind, "apply") && !streq(r->kind, "remove"))) {
                log_err("rollout %u is %s (%s), not an interrupted apply; nothing to resume",
                        id, rollout_state_name(r->state), r->kind);
                rollout_rec_free(r);
                return OUTCOME_INVALID;
        }
        if (!c->quiet && !c->json)
                fprintf(stderr, "resuming rollout %u of '%s'\n", id, r->policy_name);
        rc = run_and_report(c, r, NULL, NULL, NULL);
        rollout_rec_free(r);
        return rc;
}

/* One line per node whose state changed since the last look. */
static void follow_progress(const struct rollout_rec *r, enum rnode_state *seen, bool quiet)
{
        for (unsigned i = 0; i < r->n_nodes; i++) {
                const struct rnode *n = &r->nodes[i];

                if (n->state == seen[i])
                        continue;
                seen[i] = n->state;
                if (!quiet)
                        fprintf(stderr, "rollout %lld wave %u/%u: %s %s%s%s\n", r->id, n->wave + 1, r->n_waves,
                                n->name, rnode_state_name(n->state), n->error[0] ? ": " : "", n->error);
        }
}

/* Follow a submitted rollout through the store until it leaves "running". */
static int follow(struct ctl *c, long long id)
{
        enum rnode_state *seen = NULL;
        struct rollout_rec *r = NULL;
        struct errbuf e = { 0 };
        bool warned = false;
        time_t since = time(NULL);
        int rc;

        for (;;) {
                struct store_lease leader;

                rollout_rec_free(r);
                r = NULL;
                rc = store_rollout_load(c->store, id, &r, &e);
                if (rc < 0)
                        break;
                if (!seen) {
                        seen = calloc(r->n_nodes + 1, sizeof(*seen));
                        if (!seen) {
                                rc = errbuf_set(&e, ENOMEM, "", "out of memory");
                                break;
                        }
                }
                follow_progress(r, seen, c->quiet || c->json);
                if (r->state != ROLLOUT_RUNNING)
                        break;
                if (!warned && time(NULL) - since > 30 && store_lease_get(c->store, &leader, NULL) == -ENOENT) {
                        log_warn("no controller replica leads %s: rollout %lld waits for 'nettunectl serve'",
                                 store_where(c->store), id);
                        warned = true;
                }
                rc = store_wait_change(c->store, 2000, &e);
                if (rc < 0)
                        break;
        }
        free(seen);
        if (rc < 0) {
                rollout_rec_free(r);
                return ctl_fail(&e);
        }
        output_rollout(r, c->json);
        rc = r->exit_code < 0 ? OUTCOME_RUNTIME : r->exit_code;
        rollout_rec_free(r);
        return rc;
}

static int submitted(struct ctl *c, const struct apply_args *a, const struct rollout_rec *r)
{
        if (!a->detach)
                return follow(c, r->id);
        if (c->json)
                printf("{\n  \"id\": %lld,\n  \"state\": \"running\"\n}\n", r->id);
        else
                printf("rollout %lld submitted; 'nettunectl status %lld' shows it\n", r->id, r->id);
        return OUTCOME_OK;
}

/*
 * --max-regression-pct and --probe-duration-ms: the policy's verify overridden for
 * this rollout, recorded with it (its options, and the document its agents get).
 * *doc is replaced by the policy's canonical JSON with the overrides, validated again.
 */
static int override(const struct apply_args *a, struct policy **p, char **doc, struct errbuf *e)
{
        const struct rollout_opts *o = &a->o;
        char *text = NULL;
        json_t *j, *v;
        int r;

        if (o->max_regression_pct < 0 && !o->probe_duration_ms)
                return 0;
        if (!(*p)->verify.present || (*p)->verify.probe == POLICY_PROBE_NONE)
                return errbuf_set(e, EINVAL, a->policy, "%s: the policy measures nothing (verify.probe none or no "
                                  "verify): there is no gate to override", o->max_regression_pct >= 0 ?
                                  "--max-regression-pct" : "--probe-duration-ms");
        text = policy_to_json(*p);
        j = text ? json_loads(text, 0, NULL) : NULL;
        free(text);
        v = json_object_get(j, "verify");
        if (!json_is_object(v)) {
                json_decref(j);
                return errbuf_set(e, ENOMEM, a->policy, "out of memory");
        }
        if (o->max_regression_pct >= 0)
                json_object_set_new(v, "max_regression_pct", json_integer(o->max_regression_pct));
        if (o->probe_duration_ms)
                json_object_set_new(v, "duration_ms", json_integer(o->probe_duration_ms));
        text = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
        json_decref(j);
        if (!text)
                return errbuf_set(e, ENOMEM, a->policy, "out of memory");
        policy_free(*p);
        *p = NULL;
        r = policy_parse_buffer(text, strlen(text), a->policy, p, e);
        free(*doc);
        *doc = text;
        return r;
}

/* --selector: the policy's nodes that meet it too, in inventory order. */
static void narrow(const struct apply_args *a, const struct inventory_node **sel, unsigned *n)
{
        unsigned k = 0;

        for (unsigned i = 0; i < *n; i++)
                if (ctl_labels_match(a->only.labels, a->only.n, sel[i]))
                        sel[k++] = sel[i];
        *n = k;
}

/* Refuse, before the pre-flight, what no node could change: no node selected, waves that cannot be planned. */
static int check_plan(struct ctl *c, const struct apply_args *a, const struct inventory_node **sel, unsigned n)
{
        struct errbuf e = { 0 };

        if (n == 0) {
                log_err("%s: %s matches no node of '%s'; nothing was changed", a->policy,
                        a->only.n ? "the policy's selector with --selector" : "the selector", c->inventory_path);
                return -EINVAL;
        }
        if (rollout_plan_check(&a->o, sel, n, &e) < 0) {
                log_err("%s %s; nothing was changed", e.where, e.msg);
                return -EINVAL;
        }
        return 0;
}

/* A node left out by the pre-flight, for the report. */
static void left_out(struct apply_args *a, const char *name, const char *why)
{
        if (!a->left_out)
                a->left_out = json_array();
        json_array_append_new(a->left_out, json_pack("{s:s, s:s}", "name", name, "error", why));
        log_warn("pre-flight: %s left out (--skip-unreachable): %s", name, why);
}

/* What the nodes that accept the policy change, grouped, for the question. */
static void keep_diff(struct apply_args *a, const struct inventory_node *const *sel, unsigned n,
                      const struct preflight_node *pf)
{
        const char **names = calloc(n + 1, sizeof(*names)), **texts = calloc(n + 1, sizeof(*texts));
        size_t size = 0;
        unsigned k = 0;
        char *before = a->diff;         /* a policy's parts are pre-flighted one after the other */
        FILE *f = names && texts ? open_memstream(&a->diff, &size) : NULL;

        if (f && before)
                fputs(before, f);
        free(before);

        for (unsigned i = 0; f && i < n; i++)
                if (pf[i].result == PREFLIGHT_OK) {
                        names[k] = sel[i]->name;
                        texts[k++] = pf[i].diff;
                }
        if (f) {
                rollout_diff_print(f, names, texts, k, 20);
                fclose(f);
        }
        /* the same for --output json: each changing node's lines, the owner of each field named */
        if (!a->planned)
                a->planned = json_array();
        for (unsigned i = 0; a->planned && i < k; i++) {
                json_t *lines = json_array();
                const char *t = texts[i], *nl;

                for (; lines && t && *t; t = *nl ? nl + 1 : nl) {
                        size_t skip = strncmp(t, "  ", 2) ? 0 : 2;      /* the text's indent */

                        nl = strchr(t, '\n');
                        nl = nl ? nl : t + strlen(t);
                        json_array_append_new(lines, json_stringn(t + skip, (size_t)(nl - t) - skip));
                }
                if (lines && json_array_size(lines))
                        json_array_append_new(a->planned, json_pack("{s:s, s:o}", "name", names[i], "changes", lines));
                else
                        json_decref(lines);
        }
        free(names);
        free(texts);
}

/*
 * Every node of the rollout answers and accepts the policy before anything changes.
 * A node that refuses the policy stops it (-EINVAL: invalid, exit 2), one whose plan
 * fails or that does not answer too (-EHOSTUNREACH, exit 3), unless --skip-unreachable
 * leaves the unreachable ones out (sel and *n shrink). Each is named.
 */
static int preflight(struct ctl *c, struct apply_args *a, const char *doc, const struct inventory_node **sel,
                     unsigned *n)
{
        struct preflight_node *pf = calloc(*n + 1, sizeof(*pf));
        struct rollout_run_env env;
        struct errbuf e = { 0 };
        unsigned k = 0, bad[PREFLIGHT_RESULT_MAX] = { 0 };
        int rc;

        if (!pf)
                return -ENOMEM;
        ctl_run_env(c, &env);
        env.preflight_diff = true;      /* the question shows it on a terminal, the report otherwise */
        rc = rollout_preflight(&env, sel, *n, doc, pf, &e);
        if (rc >= 0)
                keep_diff(a, sel, *n, pf);
        for (unsigned i = 0; rc >= 0 && i < *n; i++) {
                bad[pf[i].result]++;
                if (pf[i].result == PREFLIGHT_OK && a->notes)
                        rollout_notes_add(a->notes, sel[i]->name, pf[i].notes);
                if (pf[i].result == PREFLIGHT_INVALID)
                        log_err("%s: node %s refuses the policy: %s%s%s", a->policy, sel[i]->name, pf[i].path,
                                pf[i].path[0] ? ": " : "", pf[i].why);
                else if (pf[i].result == PREFLIGHT_FAILED)
                        log_err("%s: node %s cannot plan the policy: %s", a->policy, sel[i]->name, pf[i].why);
                else if (pf[i].result == PREFLIGHT_UNREACHABLE && a->o.skip_unreachable)
                        left_out(a, sel[i]->name, pf[i].why);
                else if (pf[i].result == PREFLIGHT_UNREACHABLE)
                        log_err("node %s did not answer the pre-flight: %s", sel[i]->name, pf[i].why);
                if (pf[i].result == PREFLIGHT_OK)
                        sel[k++] = sel[i];
        }
        for (unsigned i = 0; i < *n; i++) {
                free(pf[i].diff);
                json_decref(pf[i].notes);
        }
        free(pf);
        if (rc < 0)
                return ctl_fail(&e), rc;
        if (bad[PREFLIGHT_INVALID] || bad[PREFLIGHT_FAILED] || (bad[PREFLIGHT_UNREACHABLE] && !a->o.skip_unreachable) ||
            k == 0) {
                log_err("pre-flight: %u of %u node%s ready%s; no node was changed", k, *n, *n == 1 ? "" : "s",
                        bad[PREFLIGHT_UNREACHABLE] && !a->o.skip_unreachable ?
                        " (--skip-unreachable leaves the unreachable ones out)" : "");
                return bad[PREFLIGHT_INVALID] ? -EINVAL : -EHOSTUNREACH;
        }
        if (!c->quiet && !c->json)
                fprintf(stderr, "pre-flight: %u node%s answer and accept the policy\n", k, k == 1 ? "" : "s");
        *n = k;
        return 0;
}

/* What the pre-flight left may no longer be planned as asked (the canary was unreachable): runtime, named. */
static int check_after(struct apply_args *a, const struct inventory_node **sel, unsigned n)
{
        struct errbuf e = { 0 };

        if (rollout_plan_check(&a->o, sel, n, &e) >= 0)
                return 0;
        log_err("%s %s once the unreachable nodes are left out; no node was changed", e.where, e.msg);
        return -EHOSTUNREACH;
}

/* An apply waits as long as the policy's own measurements take, whatever --timeout says: say so. */
static void note_timeout(const struct ctl *c, const char *doc)
{
        unsigned long long t = rollout_policy_time_ms(doc);

        if (t > c->timeout_s * 1000ULL && !c->quiet)
                fprintf(stderr, "apply: the policy's measurements and settle time take up to %.0f s: each apply waits "
                        "that long for its answer, not --timeout %u s\n", (double)(t + 999) / 1000, c->timeout_s);
}

/*
 * One profile for hosts and switches (ctl_parts.c): the host part to the nodes the
 * selector picks, the switch part to the nodes that manage the switches; each part
 * pre-flighted with its own nodes, every node named with what it carries.
 */
static int prepare_parts(struct ctl *c, struct apply_args *a, const char *doc, const struct policy *p,
                         const struct inventory_node ***sel, unsigned *n)
{
        struct ctl_parts pp;
        unsigned k = 0;
        int r = ctl_parts_make(c, p, doc, &a->only, &pp);

        if (r < 0)
                return r;
        free(*sel);
        *sel = calloc(pp.n + 1, sizeof(**sel));
        r = *sel ? check_plan(c, a, pp.nodes, pp.n) : -ENOMEM;
        for (unsigned i = 0; r >= 0 && !c->quiet && !c->json && i < pp.n; i++)
                fprintf(stderr, "part: %s carries %s\n", pp.nodes[i]->name, pp.what[i]);
        for (unsigned d = 0; r >= 0 && d < pp.n_docs; d++) {
                unsigned m = 0;

                for (unsigned i = 0; i < pp.n; i++)
                        if (pp.doc_of[i] == d)
                                (*sel)[k + m++] = pp.nodes[i];
                r = preflight(c, a, pp.docs[d], *sel + k, &m);
                k += m;
        }
        if (r >= 0 && !(a->parts_args = ctl_parts_args(&pp)))
                r = -ENOMEM;
        ctl_parts_free(&pp);
        *n = k;
        return r;
}

/* Read, override, select, check, pre-flight: the document and nodes of a new rollout, or an exit code. */
static int prepare(struct ctl *c, struct apply_args *a, char **doc, struct policy **p,
                   const struct inventory_node ***sel, unsigned *n)
{
        struct errbuf e = { 0 };
        char buf[ERRBUF_STR_MAX];
        size_t len;
        int rc;

        if (ctl_read_file(a->policy, POLICY_DOC_MAX, doc, &len) < 0)
                return OUTCOME_INVALID;
        rc = policy_parse_buffer(*doc, len, a->policy, p, &e);
        if (rc >= 0)
                rc = ctl_policy_json(a->policy, doc, &len, &e);         /* a YAML policy goes out as JSON */
        if (rc >= 0)
                rc = override(a, p, doc, &e);
        if (rc < 0) {
                log_err("%s; nothing was changed", errbuf_str(&e, buf, sizeof(buf)));
                return OUTCOME_INVALID;
        }
        if (!a->confirm_given && (*p)->confirm_timeout_s > 0)
                a->o.confirm_timeout_s = (*p)->confirm_timeout_s;
        rc = ctl_select(c, *p, sel, n);
        if (rc >= 0)
                narrow(a, *sel, n);
        if (rc >= 0 && (*p)->n_switches) {
                rc = prepare_parts(c, a, *doc, *p, sel, n);
        } else {
                if (rc >= 0)
                        rc = check_plan(c, a, *sel, *n);
                if (rc >= 0)
                        rc = preflight(c, a, *doc, *sel, n);
        }
        if (rc >= 0 && a->left_out)
                rc = check_after(a, *sel, *n);
        if (rc >= 0)
                rc = ctl_cable_preflight(c, a->policy, *p, *sel, *n, a->notes, NULL);
        if (rc >= 0)
                note_timeout(c, *doc);
        return rc < 0 ? outcome_of_errno(rc) : 0;
}

/* Who asked, for which document, over which --selector: recorded with the rollout. */
static void record_who(struct ctl *c, struct apply_args *a, const char *doc)
{
        size_t len = 0;

        ctl_who(c, doc, &a->o);
        for (unsigned i = 0; i < a->only.n && len < sizeof(a->o.selector); i++)
                len += (size_t)snprintf(a->o.selector + len, sizeof(a->o.selector) - len, "%s%s", i ? "; " : "",
                                        a->only.labels[i]);
}

/* On a terminal without --yes: what changes where, then the question. */
static bool confirmed(struct ctl *c, const struct apply_args *a, const struct rollout_rec *r, unsigned n)
{
        if (a->ask && a->diff)
                fprintf(stderr, "%s", a->diff);
        if (a->ask)
                rollout_notes_print(stderr, a->notes);
        return cli_confirm(c->yes, a->remove ? "take policy '%s' out of %u node%s in %u wave%s?" :
                           "roll '%s' out to %u node%s in %u wave%s?", r->policy_name, n, n == 1 ? "" : "s",
                           r->n_waves, r->n_waves == 1 ? "" : "s");
}

/* A layer's name as metadata.name spells it: a DNS label. */
static bool layer_name_ok(const char *s)
{
        size_t len = strlen(s);

        for (size_t i = 0; i < len; i++)
                if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
                      (s[i] == '-' && i > 0 && i + 1 < len)))
                        return false;
        return len > 0 && len < POLICY_NAME_MAX;
}

/*
 * remove NAME: the selected nodes (every inventory node --selector keeps) whose agents
 * hold layer NAME committed, each asked first (GET /v1/intent); the others are named
 * and left out. The rollout's document is {"policy": NAME}, each node's step
 * POST /v1/remove (rollout_step.c).
 */
static int prepare_remove(struct ctl *c, struct apply_args *a, char **doc, const struct inventory_node ***sel,
                          unsigned *n)
{
        char without[1024];
        json_t *body;
        int rc;

        if (!layer_name_ok(a->policy)) {
                log_err("remove: policy name '%.80s' is not a DNS label: lowercase letters, digits and '-' inside, at "
                        "most 63 characters; nothing was changed", a->policy);
                return OUTCOME_INVALID;
        }
        if ((rc = ctl_select_only(c, NULL, &a->only, sel, n)) > 0)
                return rc;
        if (check_plan(c, a, *sel, *n) < 0)
                return OUTCOME_INVALID;
        rc = ctl_layer_holders(c, a->policy, *sel, n, a->o.skip_unreachable, without, sizeof(without));
        if (rc < 0)
                return rc == -EHOSTUNREACH ? OUTCOME_RUNTIME : (log_err("cannot query the agents: %s", strerror(-rc)),
                                                                 OUTCOME_RUNTIME);
        if (*n == 0) {
                log_err("remove: no selected node has policy '%s' committed%s%s; nothing was changed", a->policy,
                        without[0] ? " (asked: " : "", without[0] ? without : "");
                if (without[0])
                        fprintf(stderr, ")\n");
                return OUTCOME_INVALID;
        }
        if (!c->quiet && !c->json) {
                if (without[0])
                        fprintf(stderr, "pre-flight: policy '%s' is not committed on %s: left out\n", a->policy,
                                without);
                fprintf(stderr, "pre-flight: %u node%s hold policy '%s'\n", *n, *n == 1 ? "" : "s", a->policy);
        }
        if (check_after(a, *sel, *n) < 0)
                return OUTCOME_RUNTIME;
        body = json_pack("{s:s}", "policy", a->policy);
        *doc = body ? json_dumps(body, JSON_COMPACT) : NULL;
        json_decref(body);
        return *doc ? 0 : (log_err("out of memory"), OUTCOME_RUNTIME);
}

static int start(struct ctl *c, struct apply_args *a)
{
        _cleanup_free_ char *doc = NULL;
        _cleanup_free_ const struct inventory_node **sel = NULL;
        struct policy *p = NULL;
        struct rollout_rec *r = NULL;
        struct errbuf e = { 0 };
        unsigned n = 0;
        int rc = a->remove ? prepare_remove(c, a, &doc, &sel, &n) : prepare(c, a, &doc, &p, &sel, &n);

        if (rc == 0) {
                record_who(c, a, doc);
                _cleanup_free_ char *args = a->parts_args ? json_dumps(a->parts_args, JSON_COMPACT) : NULL;

                r = rollout_rec_new(a->remove ? "remove" : "apply", a->remove ? a->policy : p->name, doc, args,
                                    &a->o, sel, n);
                rc = r ? rollout_fabric_check(r, &e) : errbuf_set(&e, ENOMEM, "", "out of memory");
                if (rc == -EINVAL)
                        log_err("%s: %s: %s; nothing was changed", a->policy, e.where, e.msg);
                else if (rc >= 0 && !confirmed(c, a, r, n)) {
                        log_err("%s: not confirmed; nothing was changed", a->remove ? "remove" : "apply");
                        rc = -ECANCELED;
                } else if (rc < 0 || (rc = store_rollout_create(c->store, r, &e)) < 0)
                        ctl_fail(&e);
                rc = rc == -ECANCELED ? OUTCOME_INVALID : rc < 0 ? outcome_of_errno(rc) : 0;
        }
        policy_free(p);
        if (rc > 0) {
                rollout_rec_free(r);
                return rc;
        }
        if (!c->quiet && !c->json)
                fprintf(stderr, "rollout %lld: %s'%s' %s %u node%s in %u wave%s\n", r->id, a->remove ? "remove " : "",
                        r->policy_name, a->remove ? "from" : "to", n, n == 1 ? "" : "s", r->n_waves,
                        r->n_waves == 1 ? "" : "s");
        rc = ctl_store_shared(c) ? submitted(c, a, r) : run_and_report(c, r, a->left_out, a->notes, a);
        rollout_rec_free(r);
        return rc;
}

static int dispatch(struct ctl *c, struct apply_args *a)
{
        int r;

        if (ctl_store_shared(c)) {
                if (a->resume) {
                        log_err("apply --resume: with an etcd store the leading 'nettunectl serve' replica resumes "
                                "every running rollout by itself; nothing was changed");
                        return OUTCOME_INVALID;
                }
                if (a->o.promote_manual) {
                        log_err("apply --promote manual: an etcd store keeps no promotion yet (a SQLite one does); "
                                "nothing was changed");
                        return OUTCOME_INVALID;
                }
                if ((r = ctl_need_inventory(c)) > 0 || (r = ctl_need_store(c)) > 0 || (r = ctl_need_http(c)) > 0)
                        return r;
                return start(c, a);
        }
        if (a->detach) {
                log_err("apply --detach needs a store that 'nettunectl serve' replicas share (etcd); "
                        "nothing was changed");
                return OUTCOME_INVALID;
        }
        if ((r = ctl_need_inventory(c)) > 0 || (r = ctl_need_store(c)) > 0 || (r = ctl_need_http(c)) > 0)
                return r;
        if ((r = ctl_need_lease(c, a->resume)) > 0)
                return r;
        return a->resume ? resume(c, a->resume) : start(c, a);
}

int ctl_cmd_apply(struct ctl *c)
{
        struct apply_args a = { 0 };
        int r;

        if (parse_args(c, &a) < 0)
                return OUTCOME_INVALID;
        a.ask = !c->yes && isatty(STDIN_FILENO);
        a.notes = json_array();
        r = dispatch(c, &a);
        json_decref(a.left_out);
        json_decref(a.notes);
        json_decref(a.planned);
        json_decref(a.parts_args);
        free(a.diff);
        return r;
}

/*
 * nettunectl remove NAME: a rollout like apply (selectors, canary and waves, the same
 * budgets, pending until each wave is judged, halt and confirm) whose nodes each take
 * layer NAME out as one transaction.
 */
int ctl_cmd_remove(struct ctl *c)
{
        struct apply_args a = { .remove = true };
        int r;

        if (parse_args(c, &a) < 0)
                return OUTCOME_INVALID;
        if (a.policy == a.profile_path || a.o.max_regression_pct >= 0 || a.o.probe_duration_ms ||
            a.o.fabric_neighbours >= 0) {
                log_err("remove: --profile, --max-regression-pct, --probe-duration-ms and --fabric-neighbours are "
                        "apply's: a remove names the layer to take out; nothing was changed");
                return OUTCOME_INVALID;
        }
        a.ask = !c->yes && isatty(STDIN_FILENO);
        r = dispatch(c, &a);
        json_decref(a.left_out);
        json_decref(a.notes);
        json_decref(a.planned);
        json_decref(a.parts_args);
        free(a.diff);
        return r;
}
