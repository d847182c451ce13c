/* SPDX-License-Identifier: MIT */
/*
 * nettunectl apply POLICY | apply --resume ID: a canary/wave rollout. With a
 * SQLite store this process drives it; with an etcd store it submits the
 * rollout for the leading `serve` replica and follows its records (--detach:
 * returns at once).
 */
#include <stdio.h>
#include <time.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/rollout/rollout.h"
#include "policies/policy.h"

struct apply_args {
        const char *policy;
        unsigned resume;
        bool confirm_given;
        bool detach;
        struct rollout_opts o;
};

static int parse_count(const char *opt, const char *v, struct rollout_count *ret)
{
        if (!v || rollout_count_parse(v, ret) < 0) {
                log_err("%s '%s': expected N or P%% (0-100%%); nothing was changed", opt, v ? v : "");
                return -EINVAL;
        }
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

                if (streq(arg, "--no-confirm")) {
                        a->o.no_confirm = true;
                } else if (streq(arg, "--detach")) {
                        a->detach = true;
                } else if (!strncmp(arg, "--", 2)) {
                        const char *v = eq ? eq + 1 : (i + 1 < c->argc ? c->argv[++i] : NULL);

                        snprintf(opt, sizeof(opt), "%.*s", eq ? (int)(eq - arg) : (int)strlen(arg), arg);
                        if ((r = parse_one(a, opt, v)) < 0)
                                return -EINVAL;
                        if (r > 0)
                                return ctl_bad_arg(c, arg);
                } else if (!a->policy) {
                        a->policy = arg;
                } else {
                        return ctl_bad_arg(c, arg);
                }
        }
        if (!!a->policy == !!a->resume) {
                log_err("apply: give a POLICY file or --resume ID; nothing was changed");
                return -EINVAL;
        }
        return 0;
}

/* The rollout's report, with each wave's fabric gate when the policy has one. */
static void report(const struct ctl *c, const struct rollout_rec *r, json_t *fabric)
{
        json_t *j;

        if (!json_array_size(fabric) || !c->json) {
                output_rollout(r, c->json);
                return;
        }
        j = output_rollout_json(r);
        if (j)
                json_object_set(j, "fabric", fabric);
        output_json(j);
        json_decref(j);
        fflush(stdout);
}

static int run_and_report(struct ctl *c, struct rollout_rec *r)
{
        struct rollout_run_env env;
        struct errbuf e = { 0 };
        int rc;

        ctl_run_env(c, &env);
        env.fabric_log = json_array();
        rc = rollout_run(&env, r, &e);
        if (rc >= 0)
                report(c, r, env.fabric_log);
        json_decref(env.fabric_log);
        return rc < 0 ? ctl_fail(&e) : rc;
}

static int resume(struct ctl *c, unsigned id)
{
        struct rollout_rec *r = NULL;
        struct errbuf e = { 0 };
        int rc;

        if (store_rollout_load(c->store, id, &r, &e) < 0) {
                char buf[1100];

                log_err("%s; nothing was changed", errbuf_str(&e, buf, sizeof(buf)));
                return OUTCOME_INVALID;
        }
        if (r->state != ROLLOUT_RUNNING || !streq(r->kind, "apply")) {
                log_err("rollout %u is %s (%s), not an interrupted apply; nothing to resume",
                        id, rollout_state_name(r->state), r->kind);
                rollout_rec_free(r);
                return OUTCOME_INVALID;
        }
        if (!c->quiet && !c->json)
                fprintf(stderr, "resuming rollout %u of '%s'\n", id, r->policy_name);
        rc = run_and_report(c, r);
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

static int start(struct ctl *c, struct apply_args *a)
{
        _cleanup_free_ char *doc = NULL;
        _cleanup_free_ const struct inventory_node **sel = NULL;
        struct policy *p = NULL;
        struct rollout_rec *r = NULL;
        struct errbuf e = { 0 };
        char buf[1100];
        size_t len;
        unsigned n = 0;
        int rc;

        if (ctl_read_file(a->policy, POLICY_DOC_MAX, &doc, &len) < 0)
                return OUTCOME_INVALID;
        if (policy_parse_buffer(doc, len, a->policy, &p, &e) < 0 || ctl_policy_json(a->policy, &doc, &len, &e) < 0) {
                log_err("%s; nothing was changed", errbuf_str(&e, buf, sizeof(buf)));
                policy_free(p);
                return OUTCOME_INVALID;
        }
        if (!a->confirm_given && p->confirm_timeout_s > 0)
                a->o.confirm_timeout_s = p->confirm_timeout_s;
        rc = ctl_select(c, p, &sel, &n);
        if (rc >= 0 && n == 0) {
                log_err("%s: the selector matches no node of '%s'; nothing was changed", a->policy, c->inventory_path);
                rc = -EINVAL;
        }
        if (rc >= 0) {
                r = rollout_rec_new("apply", p->name, doc, NULL, &a->o, sel, n);
                rc = r ? rollout_fabric_check(r, &e) : errbuf_set(&e, ENOMEM, "", "out of memory");
                if (rc == -EINVAL)
                        log_err("%s: %s: %s; nothing was changed", a->policy, e.where, e.msg);
                else if (rc >= 0 && !cli_confirm(c->yes, "roll '%s' out to %u node%s in %u wave%s?", r->policy_name,
                                                 n, n == 1 ? "" : "s", r->n_waves, r->n_waves == 1 ? "" : "s")) {
                        log_err("apply: not confirmed; nothing was changed");
                        rc = -ECANCELED;
                } else if (rc < 0 || (rc = store_rollout_create(c->store, r, &e)) < 0)
                        ctl_fail(&e);
        }
        policy_free(p);
        if (rc < 0) {
                rollout_rec_free(r);
                return rc == -ECANCELED ? OUTCOME_INVALID : outcome_of_errno(rc);
        }
        if (!c->quiet && !c->json)
                fprintf(stderr, "rollout %lld: '%s' to %u node%s in %u wave%s\n", r->id, r->policy_name,
                        n, n == 1 ? "" : "s", r->n_waves, r->n_waves == 1 ? "" : "s");
        rc = ctl_store_shared(c) ? submitted(c, a, r) : run_and_report(c, r);
        rollout_rec_free(r);
        return rc;
}

int ctl_cmd_apply(struct ctl *c)
{
        struct apply_args a = { 0 };
        int r;

        if (parse_args(c, &a) < 0)
                return OUTCOME_INVALID;
        if (ctl_store_shared(c)) {
                if (a.resume) {
                        log_err("apply --resume: with an etcd store the leading 'nettunectl serve' replica resumes "
                                "every running rollout by itself; nothing was changed");
                        return OUTCOME_INVALID;
                }
                if ((r = ctl_need_inventory(c)) > 0 || (r = ctl_need_store(c)) > 0)
                        return r;
                return start(c, &a);
        }
        if (a.detach) {
                log_err("apply --detach needs a store that 'nettunectl serve' replicas share (etcd); "
                        "nothing was changed");
                return OUTCOME_INVALID;
        }
        if ((r = ctl_need_inventory(c)) > 0 || (r = ctl_need_store(c)) > 0 || (r = ctl_need_http(c)) > 0)
                return r;
        if ((r = ctl_need_lease(c, a.resume)) > 0)
                return r;
        return a.resume ? resume(c, a.resume) : start(c, &a);
}
