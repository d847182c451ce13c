/* SPDX-License-Identifier: MIT */
/* nettunectl status [ID] [--svg FILE] and history [--limit N]: rollouts from the store (the picture: ctl_status_svg.c). */
#include <stdio.h>
#include <time.h>

#include "common/log.h"
#include "controller/cmd/ctl_internal.h"
#include "controller/rollout/rollout.h"

/*
 * A rollout recorded running: does anyone drive it? With SQLite, the rollout lease
 * says (a lease of another rollout, or one whose owner is gone, is nobody's); with
 * etcd, the leading replica drives every running rollout.
 */
static void live_of(struct ctl *c, const struct rollout_rec *r, struct rollout_live *ret)
{
        struct store_lease l;
        int rc;

        memset(ret, 0, sizeof(*ret));
        if (r->state != ROLLOUT_RUNNING)
                return;
        rc = store_lease_get(c->store, &l, NULL);
        if (ctl_store_shared(c)) {
                snprintf(ret->state, sizeof(ret->state), rc >= 0 ? "running" : "waiting");
                snprintf(ret->note, sizeof(ret->note), rc >= 0 ? "the leading replica drives it" :
                         "no 'nettunectl serve' replica leads: it continues when one does");
        } else if (rc >= 0 && l.rollout_id == r->id && !store_lease_stale(&l, (long long)time(NULL))) {
                snprintf(ret->state, sizeof(ret->state), "running");
                snprintf(ret->note, sizeof(ret->note), "driven by pid %lld on '%.100s'", l.pid, l.host);
        } else if (streq(r->kind, "rollback")) {
                snprintf(ret->state, sizeof(ret->state), "interrupted");
                snprintf(ret->note, sizeof(ret->note), "no controller drives it: run the rollback again (a node "
                         "already back is left alone)");
        } else if (streq(r->kind, "tune")) {
                snprintf(ret->state, sizeof(ret->state), "interrupted");
                snprintf(ret->note, sizeof(ret->note), "no controller drives this trial: its agents' confirm timers "
                         "restore what it left pending, 'nettunectl halt %lld' cancels it now", r->id);
        } else {
                snprintf(ret->state, sizeof(ret->state), "interrupted");
                snprintf(ret->note, sizeof(ret->note), "no controller drives it%s: 'nettunectl apply --resume %lld' "
                         "continues it, 'nettunectl halt %lld' stops it", rc >= 0 && l.rollout_id == r->id ?
                         " (the one that did is gone)" : "", r->id, r->id);
        }
        if (rc >= 0 && (ctl_store_shared(c) || l.rollout_id == r->id)) {
                ret->pid = l.pid;
                snprintf(ret->host, sizeof(ret->host), "%s", l.host);
        }
}

/* A running rollout's hold (pause ID, promote ID), added to what is known of its driver. */
static void hold_of(struct ctl *c, const struct rollout_rec *r, struct rollout_live *live)
{
        struct store_hold h;
        struct errbuf e = { 0 };
        unsigned next = 0;
        size_t len = strlen(live->note);

        if (r->state != ROLLOUT_RUNNING || store_hold_get(c->store, r->id, &h, &e) < 0)
                return;
        for (unsigned w = 0; w < r->n_waves && !next; w++)
                if (r->waves[w].state == RWAVE_PLANNED)
                        next = w + 1;
        if (!live->state[0])
                snprintf(live->state, sizeof(live->state), "running");
        if (h.paused)
                snprintf(live->note + len, sizeof(live->note) - len, "%spaused by %s: 'nettunectl resume %lld' goes "
                         "on", len ? "; " : "", h.by, r->id);
        else if (r->opts.promote_manual && next > 1 && h.promoted < next)
                snprintf(live->note + len, sizeof(live->note) - len, "%swave %u waits for 'nettunectl promote %lld'",
                         len ? "; " : "", next, r->id);
}

int ctl_cmd_status(struct ctl *c)
{
        struct rollout_live live;
        struct rollout_rec *r = NULL;
        struct errbuf e = { 0 };
        const char *svg = NULL, *idarg = NULL;
        unsigned id = 0;
        char buf[ERRBUF_STR_MAX];
        int rc;

        for (int i = 0; i < c->argc; i++) {
                const char *a = c->argv[i];

                if (!strncmp(a, "--svg=", 6) || (streq(a, "--svg") && i + 1 < c->argc))
                        svg = a[5] == '=' ? a + 6 : c->argv[++i];
                else if (a[0] == '-' || idarg)
                        return ctl_bad_arg(c, a), OUTCOME_INVALID;
                else
                        idarg = a;
        }
        if (idarg && ctl_parse_uint("status ID", idarg, 1, 2000000000, &id) < 0)
                return OUTCOME_INVALID;
        if ((rc = ctl_need_store(c)) > 0)
                return rc;
        if ((rc = store_rollout_load(c->store, id, &r, &e)) < 0) {
                log_err("%s", errbuf_str(&e, buf, sizeof(buf)));
                return outcome_of_errno(rc);
        }
        live_of(c, r, &live);
        hold_of(c, r, &live);
        output_rollout_status(r, &live, c->json);
        rc = svg ? ctl_status_svg(r, svg) : 0;
        rollout_rec_free(r);
        return rc < 0 ? OUTCOME_RUNTIME : OUTCOME_OK;
}

struct history_out {
        bool json;
        json_t *list;
};

static int history_row(const struct rollout_rec *r, void *userdata)
{
        struct history_out *h = userdata;
        char when[32];
        time_t t = (time_t)r->created_at;
        struct tm tm;

        gmtime_r(&t, &tm);
        strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
        if (h->json)
                json_array_append_new(h->list, json_pack("{s:I, s:s, s:s, s:s, s:i, s:s, s:s, s:s?, s:s?, s:s?, "
                                                         "s:s?}",
                                                         "id", (json_int_t)r->id, "kind", r->kind,
                                                         "policy", r->policy_name,
                                                         "state", rollout_state_name(r->state),
                                                         "exit_code", r->exit_code, "created", when,
                                                         "message", r->message,
                                                         "user", r->opts.user[0] ? r->opts.user : NULL,
                                                         "cert_cn", r->opts.cert_cn[0] ? r->opts.cert_cn : NULL,
                                                         "reason", r->opts.reason[0] ? r->opts.reason : NULL,
                                                         "policy_sha256", r->opts.policy_sha256[0] ?
                                                         r->opts.policy_sha256 : NULL));
        else
                printf("%-6lld %-9s %-10s %-24s %s  %s%s%s%s%s%s\n", r->id, r->kind, rollout_state_name(r->state),
                       r->policy_name, when, r->message, r->opts.user[0] || r->opts.reason[0] ? "  [" : "",
                       r->opts.user, r->opts.reason[0] ? ": " : "", r->opts.reason,
                       r->opts.user[0] || r->opts.reason[0] ? "]" : "");
        return 0;
}

int ctl_cmd_history(struct ctl *c)
{
        struct history_out h = { .json = c->json };
        struct errbuf e = { 0 };
        unsigned limit = 50;
        int rc;

        for (int i = 0; i < c->argc; i++) {
                const char *a = c->argv[i];
                const char *v = !strncmp(a, "--limit=", 8) ? a + 8 : streq(a, "--limit") && i + 1 < c->argc ?
                                c->argv[++i] : NULL;

                if (!v)
                        return ctl_bad_arg(c, a), OUTCOME_INVALID;
                if (ctl_parse_uint("--limit", v, 1, 100000, &limit) < 0)
                        return OUTCOME_INVALID;
        }
        if ((rc = ctl_need_store(c)) > 0)
                return rc;
        h.list = json_array();
        if (!c->json)
                printf("%-6s %-9s %-10s %-24s %-20s  %s\n", "ID", "KIND", "STATE", "POLICY", "STARTED", "RESULT");
        rc = store_rollout_list(c->store, limit, history_row, &h, &e);
        if (rc >= 0 && c->json)
                output_json(h.list);
        json_decref(h.list);
        return rc < 0 ? ctl_fail(&e) : OUTCOME_OK;
}
