/* SPDX-License-Identifier: MIT */
/*
 * nettunectl store migrate --from SPEC --to SPEC: copy every rollout (with its
 * waves, node results and idempotency keys; ids kept) and the newest drift scan
 * from one store to another, e.g. a SQLite history into etcd before the first
 * `serve` replica starts. The target must not hold those rollout ids yet.
 * Running rollouts are refused: finish or resume them first.
 */
#include <stdio.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"

#define MIGRATE_MAX 1000000

struct ids {
        long long *v;
        unsigned n, cap;
        long long running;
};

static int collect(const struct rollout_rec *r, void *ud)
{
        struct ids *ids = ud;

        if (r->state == ROLLOUT_RUNNING && !ids->running)
                ids->running = r->id;
        if (ids->n == ids->cap) {
                unsigned cap = ids->cap ? ids->cap * 2 : 256;
                long long *more = realloc(ids->v, cap * sizeof(*more));

                if (!more)
                        return -ENOMEM;
                ids->v = more;
                ids->cap = cap;
        }
        ids->v[ids->n++] = r->id;
        return 0;
}

static int open_one(struct ctl *c, const char *spec, struct store **ret)
{
        struct errbuf e = { 0 };
        char buf[ERRBUF_STR_MAX];

        if (store_open_spec(spec, &c->store_tls, ret, &e) < 0) {
                log_err("%s; nothing was changed", errbuf_str(&e, buf, sizeof(buf)));
                return -EINVAL;
        }
        return 0;
}

/* Refuse before writing anything when the target holds one of the ids already. */
static long long first_taken(struct store *to, const struct ids *ids)
{
        for (unsigned i = 0; i < ids->n; i++) {
                struct rollout_rec *r = NULL;

                if (store_rollout_load(to, ids->v[i], &r, NULL) >= 0) {
                        rollout_rec_free(r);
                        return ids->v[i];
                }
        }
        return 0;
}

static int copy(struct store *from, struct store *to, struct ids *ids, unsigned *ret_n, struct errbuf *e)
{
        struct drift_scan last;
        int rc = 0;

        for (unsigned i = ids->n; rc >= 0 && i-- > 0;) {        /* oldest first */
                struct rollout_rec *r = NULL;

                rc = store_rollout_load(from, ids->v[i], &r, e);
                if (rc >= 0)
                        rc = store_rollout_create(to, r, e);
                if (rc >= 0)
                        (*ret_n)++;
                rollout_rec_free(r);
        }
        if (rc >= 0 && store_drift_last(from, &last, NULL) >= 0)
                rc = store_drift_save(to, &last, e);
        return rc;
}

static int migrate(struct ctl *c, const char *from_spec, const char *to_spec)
{
        struct store *from = NULL, *to = NULL;
        struct ids ids = { 0 };
        struct errbuf e = { 0 };
        unsigned copied = 0;
        long long taken;
        int rc;

        if (open_one(c, from_spec, &from) < 0)
                return OUTCOME_INVALID;
        rc = store_rollout_list(from, MIGRATE_MAX, collect, &ids, &e);
        if (rc >= 0 && ids.running) {
                log_err("%s: rollout %lld is still running; finish it ('apply --resume %lld') before migrating; "
                        "nothing was changed", from_spec, ids.running, ids.running);
                rc = -EINVAL;
        } else if (rc >= 0 && open_one(c, to_spec, &to) < 0) {
                rc = -EINVAL;
        } else if (rc >= 0 && (taken = first_taken(to, &ids))) {
                log_err("%s: holds rollout %lld already; migrate into an empty prefix; nothing was changed",
                        to_spec, taken);
                rc = -EINVAL;
        } else if (rc >= 0) {
                rc = copy(from, to, &ids, &copied, &e);
        }
        if (rc >= 0)
                printf("migrated %u rollout%s from %s to %s\n", copied, copied == 1 ? "" : "s", from_spec, to_spec);
        else if (e.msg[0])
                ctl_fail(&e);
        free(ids.v);
        store_close(from);
        store_close(to);
        return outcome_of_errno(rc);
}

int ctl_cmd_store(struct ctl *c)
{
        const char *from = NULL, *to = NULL;

        if (c->argc < 1 || !streq(c->argv[0], "migrate")) {
                if (c->argc && c->argv[0][0] != '-')
                        log_err("store: unknown action '%s'%s; see 'nettunectl store --help'", c->argv[0],
                                cli_edit_distance(c->argv[0], "migrate") <= 2 ? " (did you mean 'migrate'?)" : "");
                else if (c->argc)
                        return ctl_bad_arg(c, c->argv[0]), OUTCOME_INVALID;
                else
                        log_err("store: give an action: store migrate --from SPEC --to SPEC");
                return OUTCOME_INVALID;
        }
        for (int i = 1; i < c->argc; i++) {
                const char *v = i + 1 < c->argc ? c->argv[i + 1] : NULL;

                if (streq(c->argv[i], "--from") && v)
                        from = v;
                else if (streq(c->argv[i], "--to") && v)
                        to = v;
                else
                        return ctl_bad_arg(c, c->argv[i]), OUTCOME_INVALID;
                i++;
        }
        if (!from || !to || streq(from, to)) {
                log_err("store migrate: give --from SPEC and a different --to SPEC; nothing was changed");
                return OUTCOME_INVALID;
        }
        return migrate(c, from, to);
}
