/* SPDX-License-Identifier: MIT */
/*
 * Switch targets inside a transaction:
 *   - the vendor-native commit-confirm timer a transaction arms on every switch
 *     it changes (driver_env.confirm_timeout_s): long enough for the read-back,
 *     the settle time and the post-change probe, so the switch only reverts by
 *     itself when the agent is gone; the transaction commits natively once the
 *     gate passed;
 *   - whether each switch a commit wrote saved it to its startup configuration
 *     (it survives a reboot), for the result and the journal:
 *     [{"target": "leaf1", "saved": true, "how": "nv config save"}, ...];
 *   - how each restored target was put back, for the result and the journal:
 *     [{"target": "leaf1", "kind": "switch", "method": "vendor-abort"}, ...]
 *     (a switch the restore wrote also says "saved")
 *     with the methods of drivers/switch/switch.h (vendor-abort, vendor-timer,
 *     checkpoint-rollback, driver-reapply, none = already matched the snapshot,
 *     failed); interfaces are always driver-reapply (or failed);
 *   - ECN on a switch manages the listed queues only: a queue the policy does
 *     not list is never a change (plan, drift, the change list) and never
 *     written; a switch's read describes every queue (marking or not), so a
 *     snapshot turns marking back off where the transaction turned it on.
 * The timer arms before the plan opens the switch sessions: a session takes its
 * settings when it opens.
 */
#include "agent/txn/txn_internal.h"
#include "drivers/switch/switch.h"

#define TIMER_MARGIN_S 60
#define TIMER_PROBE_OVERHEAD_S 5
#define TIMER_MAX_S 3600

unsigned txn_switch_timer_s(const struct txn_env *env, const struct policy_verify *v)
{
        unsigned s = TIMER_MARGIN_S, runs;

        if (v && v->present)
                s += v->settle_ms / 1000 + 1;
        if (v && v->probe != POLICY_PROBE_NONE) {
                runs = v->runs ? v->runs : env->config->probe_runs;
                s += (runs ? runs : 1) * (v->duration_ms / 1000 + TIMER_PROBE_OVERHEAD_S);
        }
        if (env->config->env.confirm_timeout_s > s)
                s = env->config->env.confirm_timeout_s;
        return s < TIMER_MAX_S ? s : TIMER_MAX_S;
}

int txn_switch_arm(struct plan *p, unsigned timer_s, struct txn_switch_envs *ret)
{
        unsigned n = p->n, switches = 0;

        *ret = (struct txn_switch_envs){ 0 };
        for (unsigned i = 0; i < n; i++)
                switches += p->v[i].t.kind == TARGET_SWITCH;
        if (!switches)
                return 0;               /* hosts only: nothing to arm */
        ret->n = n;
        ret->envs = calloc(n ? n : 1, sizeof(*ret->envs));
        ret->saved = calloc(n ? n : 1, sizeof(*ret->saved));
        if (!ret->envs || !ret->saved) {
                txn_switch_disarm(p, ret);
                return -ENOMEM;
        }
        for (unsigned i = 0; i < n; i++) {
                struct target *t = &p->v[i].t;

                ret->saved[i] = t->env;
                if (t->kind != TARGET_SWITCH)
                        continue;
                if (t->env)
                        ret->envs[i] = *t->env;
                ret->envs[i].confirm_timeout_s = timer_s;
                t->env = &ret->envs[i];
        }
        return 0;
}

void txn_switch_disarm(struct plan *p, struct txn_switch_envs *a)
{
        for (unsigned i = 0; a->saved && i < a->n && i < p->n; i++)
                p->v[i].t.env = a->saved[i];
        free(a->envs);
        free(a->saved);
        a->envs = NULL;
        a->saved = NULL;
        a->n = 0;
}

static const char *method_of(const struct target *t, int r)
{
        if (t->kind != TARGET_SWITCH)
                return r < 0 ? "failed" : "driver-reapply";
        if (r < 0 && switch_restore_method(t) == SWITCH_RESTORE_NONE)
                return "failed";
        return switch_last_restore_method(t);
}

void txn_switch_note_restore(struct txn_result *res, const struct plan_target *pt, int r)
{
        enum switch_save saved = switch_last_save(&pt->t, NULL);
        json_t *o;

        if (!res->restores && !(res->restores = json_array()))
                return;
        o = json_pack("{s:s, s:s, s:s}", "target", pt->t.name, "kind", target_kind_name(pt->t.kind),
                      "method", method_of(&pt->t, r));
        /* A switch the restore wrote: was that saved too (it survives a reboot)? */
        if (o && pt->t.kind == TARGET_SWITCH && saved != SWITCH_SAVE_NONE)
                json_object_set_new(o, "saved", json_boolean(saved == SWITCH_SAVE_SAVED));
        if (o)
                json_array_append_new(res->restores, o);
}

void txn_switch_note_saves(struct txn_result *res, const struct plan *p)
{
        for (unsigned i = 0; i < p->n; i++) {
                const struct target *t = &p->v[i].t;
                const char *how;
                enum switch_save saved = switch_last_save(t, &how);
                json_t *o;

                if (t->kind != TARGET_SWITCH || saved == SWITCH_SAVE_NONE)
                        continue;
                if (!res->saves && !(res->saves = json_array()))
                        return;
                o = json_pack("{s:s, s:b, s:s}", "target", t->name, "saved", saved == SWITCH_SAVE_SAVED, "how", how);
                if (o)
                        json_array_append_new(res->saves, o);
        }
}
