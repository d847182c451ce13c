/* SPDX-License-Identifier: MIT */
/* nettunectl confirm ID: confirm every pending node of a rollout by hand. */
#include <stdio.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/rollout/rollout.h"

int ctl_cmd_confirm(struct ctl *c)
{
        struct rollout_rec *r = NULL;
        struct rollout_run_env env;
        struct errbuf e = { 0 };
        unsigned id;
        char buf[ERRBUF_STR_MAX];
        int rc;

        if (c->argc != 1 || c->argv[0][0] == '-') {
                if (c->argc)
                        return ctl_bad_arg(c, c->argv[c->argv[0][0] == '-' ? 0 : 1]), OUTCOME_INVALID;
                log_err("confirm: give the rollout's ID; see 'nettunectl confirm --help'");
                return OUTCOME_INVALID;
        }
        if (ctl_parse_uint("confirm ID", c->argv[0], 1, 2000000000, &id) < 0)
                return OUTCOME_INVALID;
        if ((rc = ctl_need_store(c)) > 0 || (rc = ctl_need_http(c)) > 0 || (rc = ctl_need_lease(c, id)) > 0)
                return rc;
        if (store_rollout_load(c->store, id, &r, &e) < 0) {
                log_err("%s; nothing was changed", errbuf_str(&e, buf, sizeof(buf)));
                return OUTCOME_INVALID;
        }
        if (r->state != ROLLOUT_PENDING) {
                log_err("rollout %u is %s, not pending: nothing to confirm%s", id, rollout_state_name(r->state),
                        r->state == ROLLOUT_RUNNING ? " (an interrupted rollout continues with 'apply --resume ID')" : "");
                rollout_rec_free(r);
                return OUTCOME_INVALID;
        }
        ctl_run_env(c, &env);
        rc = rollout_run_confirm(&env, r, &e);
        if (rc < 0)
                rc = ctl_fail(&e);
        else
                output_rollout(r, c->json);
        rollout_rec_free(r);
        return rc;
}
