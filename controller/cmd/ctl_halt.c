/* SPDX-License-Identifier: MIT */
/*
 * nettunectl halt ID [--rollback-on-halt wave|all]: stop a rollout for good that
 * no controller drives any more (it was interrupted, or left pending with
 * --no-confirm). Every unfinished node is asked what it did first; then the halt:
 * pending changes cancelled, the current wave's committed nodes (every wave's with
 * --rollback-on-halt all) rolled back, later nodes skipped, unknown outcomes listed.
 */
#include <stdio.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/rollout/rollout.h"

static int parse_args(struct ctl *c, unsigned *id, int *scope)
{
        for (int i = 0; i < c->argc; i++) {
                const char *a = c->argv[i];

                if (streq(a, "--rollback-on-halt") && i + 1 < c->argc &&
                    (streq(c->argv[i + 1], "wave") || streq(c->argv[i + 1], "all"))) {
                        *scope = streq(c->argv[++i], "all") ? ROLLOUT_HALT_ALL : ROLLOUT_HALT_WAVE;
                } else if (!*id && a[0] != '-') {
                        if (ctl_parse_uint("halt ID", a, 1, 2000000000, id) < 0)
                                return -EINVAL;
                } else if (streq(a, "--rollback-on-halt") && i + 1 < c->argc) {
                        log_err("halt: --rollback-on-halt '%s': expected 'wave' or 'all'; nothing was changed",
                                c->argv[i + 1]);
                        return -EINVAL;
                } else {
                        return ctl_bad_arg(c, a);
                }
        }
        if (!*id) {
                log_err("halt: give the rollout's ID; see 'nettunectl halt --help'");
                return -EINVAL;
        }
        return 0;
}

int ctl_cmd_halt(struct ctl *c)
{
        struct rollout_rec *r = NULL;
        struct rollout_run_env env;
        struct errbuf e = { 0 };
        unsigned id = 0;
        int scope = -1, rc;
        char buf[ERRBUF_STR_MAX];

        if (parse_args(c, &id, &scope) < 0)
                return OUTCOME_INVALID;
        if (ctl_store_shared(c)) {
                log_err("halt: with an etcd store the leading 'nettunectl serve' replica drives every running "
                        "rollout; nothing was changed");
                return OUTCOME_INVALID;
        }
        if ((rc = ctl_need_store(c)) > 0 || (rc = ctl_need_http(c)) > 0 || (rc = ctl_need_lease(c, id)) > 0)
                return rc;
        if (store_rollout_load(c->store, id, &r, &e) < 0) {
                log_err("%s; nothing was changed", errbuf_str(&e, buf, sizeof(buf)));
                return OUTCOME_INVALID;
        }
        if ((r->state != ROLLOUT_RUNNING && r->state != ROLLOUT_PENDING) || streq(r->kind, "rollback")) {
                log_err("rollout %u is %s (%s): nothing to halt", id, rollout_state_name(r->state), r->kind);
                rollout_rec_free(r);
                return OUTCOME_INVALID;
        }
        if (scope >= 0)
                r->opts.halt_scope = (enum rollout_halt_scope)scope;
        if (!cli_confirm(c->yes, "halt rollout %u of '%s' (%u node%s): cancel what is pending and roll back %s?", id,
                         r->policy_name, r->n_nodes, r->n_nodes == 1 ? "" : "s",
                         r->opts.halt_scope == ROLLOUT_HALT_ALL ? "every wave" : "the current wave")) {
                log_err("halt: not confirmed; nothing was changed");
                rollout_rec_free(r);
                return OUTCOME_INVALID;
        }
        if (!c->quiet && !c->json)
                fprintf(stderr, "halting rollout %u of '%s': asking its unfinished nodes what they did\n", id,
                        r->policy_name);
        ctl_run_env(c, &env);
        rc = rollout_run_halt(&env, r, &e);
        if (rc < 0)
                rc = ctl_fail(&e);
        else
                output_rollout(r, c->json);
        rollout_rec_free(r);
        return rc;
}
