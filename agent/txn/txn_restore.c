/* SPDX-License-Identifier: MIT */
/*
 * The transaction's way back: restore the snapshot of every target it touched,
 * best effort — every target and every driver is tried even when one fails, and
 * each failure is named — then read back and record the outcome.
 */
#include <time.h>

#include "common/clock.h"
#include "common/outcome.h"
#include "agent/txn/txn_internal.h"
#include "common/log.h"
#include "policies/state/field.h"

static bool route_commits(const struct plan_route *rt)
{
        return rt->opened && rt->ops->commit;
}

bool txn_has_sessions(const struct plan *p)
{
        for (unsigned i = 0; i < p->n; i++)
                for (unsigned r = 0; r < p->v[i].n_routes; r++)
                        if (route_commits(&p->v[i].routes[r]))
                                return true;
        return false;
}

int txn_commit_sessions(struct plan *p, struct errbuf *e)
{
        for (unsigned i = 0; i < p->n; i++)
                for (unsigned r = 0; r < p->v[i].n_routes; r++) {
                        const struct plan_route *rt = &p->v[i].routes[r];
                        int k;

                        if (!route_commits(rt))
                                continue;
                        k = rt->ops->commit(&p->v[i].t, e);
                        if (k < 0)
                                return k;
                }
        return 0;
}

/* "; " between the failures gathered in one message. */
static void gather(char *buf, size_t size, const struct errbuf *e)
{
        char one[ERRBUF_STR_MAX];
        size_t n = strlen(buf);

        errbuf_str(e, one, sizeof(one));
        if (n + 2 < size)
                snprintf(buf + n, size - n, "%s%.*s", n ? "; " : "", (int)(size - n - 3), one);
}

/*
 * Read what the target holds now, and put every differing field back through the
 * driver that owns it, in reverse registry order. A driver that fails does not
 * stop the others.
 */
static int restore_target(struct plan *p, unsigned i, char *failures, size_t size)
{
        struct plan_target *pt = &p->v[i];
        _cleanup_free_ uint32_t *delta = calloc(pt->n_units ? pt->n_units : 1, sizeof(*delta));
        struct errbuf e = { 0 };
        int first = 0, unread, r;
        bool native = false;

        if (!delta)
                return -ENOMEM;
        memcpy(pt->desired, pt->before, pt->n_units * sizeof(*pt->desired));
        for (unsigned u = 0; u < pt->n_units; u++)
                pt->desired[u].present &= pt->want;
        r = unread = plan_read_target(p, i, pt->live, &e);
        if (r < 0) {
                gather(failures, size, &e);
                /* Unreadable: a driver with a native undo may still put it back. */
                memset(pt->delta, 0, pt->n_units * sizeof(*pt->delta));
        } else {
                for (unsigned u = 0; u < pt->n_units; u++) {
                        struct diff d = { 0 };

                        if (state_diff(&pt->desired[u], &pt->live[u], &d) < 0)
                                return -ENOMEM;
                        pt->delta[u] = d.fields;
                        diff_done(&d);
                }
        }
        for (unsigned k = pt->n_routes; k-- > 0;) {
                const struct driver_ops *ops = pt->routes[k].ops;
                struct driver_change c;

                plan_change(pt, k, delta, &c);
                if (!c.fields && !ops->restore)
                        continue;
                errbuf_clear(&e);
                r = ops->restore ? ops->restore(&pt->t, &c, &e) : ops->apply(&pt->t, &c, &e);
                if (r < 0) {
                        gather(failures, size, &e);
                        if (!first)
                                first = r;
                }
                native |= r >= 0 && ops->restore;
        }
        /* Unreadable and no native undo put it back (a vanished interface): not restored. */
        return first ? first : unread < 0 && !native ? unread : 0;
}

/* before ⊆ live for every target restored; every difference left is named. */
static int verify_restore(struct plan *p, bool all, char *failures, size_t size)
{
        int first = 0;

        for (unsigned i = 0; i < p->n; i++) {
                struct plan_target *pt = &p->v[i];
                struct errbuf e = { 0 };
                int r;

                if (!all && !pt->touched)
                        continue;
                r = plan_read_target(p, i, pt->live, &e);
                for (unsigned u = 0; r >= 0 && u < pt->n_units; u++) {
                        struct diff d = { 0 };

                        if (state_diff(&pt->desired[u], &pt->live[u], &d) < 0)
                                return -ENOMEM;
                        for (unsigned k = 0; k < d.n; k++) {
                                errbuf_set(&e, EIO, NULL, "%s '%s' still differs: %s is %s, snapshot has %s",
                                           target_kind_name(pt->t.kind), pt->t.name, d.entries[k].key,
                                           d.entries[k].from, d.entries[k].to);
                                gather(failures, size, &e);
                                r = -EIO;
                        }
                        diff_done(&d);
                }
                if (r < 0 && !first)
                        first = r;
                if (r < 0 && r != -EIO)
                        gather(failures, size, &e);
        }
        return first;
}

int txn_restore_targets(struct txn_env *env, struct plan *p, bool all, const char *restored_by, int exit_code,
                        struct txn_result *res)
{
        double started = 1e3 * clock_mono_s(); /* the decision to go back: the rollback's latency starts here */
        char failures[ERRBUF_STR_MAX] = "";
        struct errbuf e = { 0 };
        int r = 0, k;

        snprintf(res->restored_by, sizeof(res->restored_by), "%s", restored_by);
        /* The journal must say RESTORING before the device writes back, and even if writing it fails: restore anyway. */
        if (txn_step(env, res, TXN_RESTORING, NULL) >= 0)
                txn_barrier(env, res);
        txn_side_effect(env, "the way back's device writes", res);
        for (unsigned i = 0; i < p->n; i++) {
                if (!all && !p->v[i].touched)
                        continue;
                k = restore_target(p, i, failures, sizeof(failures));
                txn_switch_note_restore(res, &p->v[i], k);
                if (k < 0 && r == 0)
                        r = k;
        }
        if (txn_commit_sessions(p, &e) < 0) {
                gather(failures, sizeof(failures), &e);
                r = r ? r : -EIO;
        }
        /* Whatever failed on the way, read back and name every difference left. */
        k = verify_restore(p, all, failures, sizeof(failures));
        if (k < 0 && r == 0)
                r = k;
        res->rollback_ms = 1e3 * clock_mono_s() - started;
        if (r < 0) {
                char buf[ERRBUF_STR_MAX];

                errbuf_str(&res->error, buf, sizeof(buf));
                errbuf_set(&res->error, -r, NULL, "%s%sRESTORE FAILED: %s; the node is in an unknown state, check it by hand",
                           buf, buf[0] ? "; " : "", failures[0] ? failures : "unknown error");
                log_err("transaction %lld: %s", (long long)res->tx, res->error.msg);
                txn_record_final(env, res, TXN_FAILED, OUTCOME_RUNTIME, "failed");
                return r;
        }
        txn_record_final(env, res, TXN_ROLLED_BACK, exit_code, "rolled_back");
        return 0;
}

int txn_plan_from_snapshot(struct txn_env *env, int64_t tx, struct plan *p, struct errbuf *e)
{
        struct journal_snapshot *rows = NULL;
        unsigned n = 0;
        int r = journal_load_snapshots(env->journal, tx, &rows, &n, e);

        for (unsigned i = 0; r >= 0 && i < n; i++)
                r = plan_add_snapshot(p, rows[i].kind, rows[i].target, rows[i].fields, rows[i].state_json, e);
        journal_snapshots_free(rows, n);
        return r;
}

int txn_restore_tx(struct txn_env *env, int64_t tx, const char *restored_by, struct txn_result *res)
{
        struct plan p;
        int r;

        res->tx = tx;
        txn_plan_init(env, &p);
        r = txn_plan_from_snapshot(env, tx, &p, &res->error);
        if (r < 0) {
                snprintf(res->restored_by, sizeof(res->restored_by), "%s", restored_by);
                errbuf_prefix(&res->error, "cannot restore transaction %lld", (long long)tx);
                txn_record_final(env, res, TXN_FAILED, OUTCOME_RUNTIME, "failed");
                plan_free(&p);
                return r;
        }
        r = txn_restore_targets(env, &p, true, restored_by,
                                streq(restored_by, "operator") ? OUTCOME_OK : OUTCOME_ROLLED_BACK, res);
        plan_free(&p);
        return r;
}
