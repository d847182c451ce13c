/* SPDX-License-Identifier: MIT */
/*
 * nettunectl drift --heal: the drifted nodes of a scan get their intent again, as a
 * rollout of kind "enforce" per policy in force (the newest finished apply or enforce
 * rollout that committed the node: its document and wave rules), run by this process
 * as `serve --enforce` would have its leader run it. With an etcd store the rollouts
 * are submitted for the leading replica.
 */
#include <stdio.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/rollout/rollout.h"

int ctl_collect_source(const struct rollout_rec *r, void *ud)
{
        struct ctl_sources *src = ud;

        if ((streq(r->kind, "apply") || streq(r->kind, "enforce")) && r->state != ROLLOUT_RUNNING &&
            r->policy_doc && src->n < CTL_SOURCES_MAX)
                src->ids[src->n++] = r->id;
        return 0;
}

/* The drifted nodes of scan that src committed (and no newer source took), each taken once (done). */
static unsigned nodes_of(struct ctl *c, const struct rollout_rec *src, const struct drift_scan *scan, bool *done,
                         const struct inventory_node **sel)
{
        unsigned n = 0;

        for (unsigned i = 0; i < scan->n_nodes; i++) {
                const struct inventory_node *node = inventory_find(c->inv, scan->nodes[i].name);

                if (done[i] || !scan->nodes[i].drifted || !node)
                        continue;
                for (unsigned k = 0; k < src->n_nodes; k++)
                        if (streq(src->nodes[k].name, node->name) && src->nodes[k].state == RNODE_COMMITTED) {
                                sel[n++] = node;
                                done[i] = true;
                                break;
                        }
        }
        return n;
}

/* One heal rollout of src's document to sel[0..n): asked, recorded, run (or submitted). Its exit code. */
static int heal_one(struct ctl *c, const struct rollout_rec *src, const struct inventory_node **sel, unsigned n,
                    long long scan_id)
{
        struct rollout_opts o = src->opts;
        struct rollout_run_env env;
        struct rollout_rec *r;
        struct errbuf e = { 0 };
        int rc;

        ctl_who(c, src->policy_doc, &o);
        snprintf(o.reason, sizeof(o.reason), "drift --heal (scan %lld): '%.60s' of rollout %lld again", scan_id,
                 src->policy_name, src->id);
        o.selector[0] = '\0';
        o.promote_manual = false;
        /* src->args: a policy split into parts (one profile for hosts and switches) keeps them */
        r = rollout_rec_new("enforce", src->policy_name, src->policy_doc, src->args, &o, sel, n);
        if (!r)
                return log_err("out of memory"), OUTCOME_RUNTIME;
        if (!cli_confirm(c->yes, "re-apply '%s' (rollout %lld) to %u drifted node%s in %u wave%s?", r->policy_name,
                         src->id, n, n == 1 ? "" : "s", r->n_waves, r->n_waves == 1 ? "" : "s")) {
                log_err("drift --heal: not confirmed; nothing was changed");
                rollout_rec_free(r);
                return OUTCOME_INVALID;
        }
        rc = store_rollout_create(c->store, r, &e);
        if (rc < 0) {
                rollout_rec_free(r);
                return ctl_fail(&e);
        }
        if (!c->quiet && !c->json)
                fprintf(stderr, "rollout %lld heals %u node%s with '%s' (from rollout %lld)\n", r->id, n,
                        n == 1 ? "" : "s", r->policy_name, src->id);
        if (ctl_store_shared(c)) {
                printf("rollout %lld submitted; 'nettunectl status %lld' shows it\n", r->id, r->id);
                rollout_rec_free(r);
                return OUTCOME_OK;
        }
        ctl_run_env(c, &env);
        ctl_signals_stop_rollout(true);
        rc = rollout_run(&env, r, &e);
        ctl_signals_stop_rollout(false);
        if (rc >= 0 && !c->json)                /* JSON: stdout has the scan; status ID has the rollout */
                output_rollout(r, false);
        rollout_rec_free(r);
        return rc < 0 ? ctl_fail(&e) : rc;
}

int ctl_drift_heal(struct ctl *c, const struct drift_scan *scan)
{
        _cleanup_free_ bool *done = calloc(scan->n_nodes + 1, sizeof(*done));
        _cleanup_free_ const struct inventory_node **sel = calloc(scan->n_nodes + 1, sizeof(*sel));
        struct ctl_sources src = { .n = 0 };
        struct errbuf e = { 0 };
        int rc, worst = OUTCOME_OK;

        if (!done || !sel)
                return log_err("out of memory"), OUTCOME_RUNTIME;
        if (!ctl_store_shared(c) && (rc = ctl_need_lease(c, 0)) > 0)
                return rc;
        if (store_rollout_list(c->store, CTL_SOURCES_MAX * 4, ctl_collect_source, &src, &e) < 0)
                return ctl_fail(&e);
        for (unsigned i = 0; i < src.n; i++) {           /* newest first: the policy in force */
                struct rollout_rec *r = NULL;
                unsigned n;

                if (store_rollout_load(c->store, src.ids[i], &r, &e) < 0)
                        continue;
                n = nodes_of(c, r, scan, done, sel);
                rc = n ? heal_one(c, r, sel, n, scan->id) : OUTCOME_OK;
                rollout_rec_free(r);
                if (rc == OUTCOME_INVALID)
                        return rc;              /* not confirmed: nothing further */
                if (rc > worst)
                        worst = rc;
        }
        for (unsigned i = 0; i < scan->n_nodes; i++)
                if (scan->nodes[i].drifted && !done[i]) {
                        log_err("drift --heal: %s: no finished rollout of this controller committed it: there is "
                                "no intent here to re-apply", scan->nodes[i].name);
                        worst = worst > OUTCOME_RUNTIME ? worst : OUTCOME_RUNTIME;
                }
        return worst;
}
