/* SPDX-License-Identifier: MIT */
/*
 * nettunectl pause ID, resume ID, promote ID: what a person says to a running
 * rollout, kept in the store (store_hold_*); whoever drives it reads it before each
 * wave (rollout_engine.c).
 */
#include <stdio.h>
#include <time.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"

enum hold_verb { HOLD_PAUSE, HOLD_RESUME, HOLD_PROMOTE };

/* The first wave not started yet (waves from 1), 0 = none. */
static unsigned next_wave(const struct rollout_rec *r)
{
        for (unsigned w = 0; w < r->n_waves; w++)
                if (r->waves[w].state == RWAVE_PLANNED)
                        return w + 1;
        return 0;
}

static int say(struct ctl *c, const struct rollout_rec *r, enum hold_verb v, struct store_hold *h)
{
        unsigned next = next_wave(r);

        if (r->state != ROLLOUT_RUNNING) {
                log_err("rollout %lld is %s: only a running rollout can be paused, resumed or promoted; nothing was "
                        "changed", r->id, rollout_state_name(r->state));
                return OUTCOME_INVALID;
        }
        if (v == HOLD_PAUSE && h->paused) {
                log_err("rollout %lld is paused already (by %s); 'nettunectl resume %lld' goes on", r->id, h->by, r->id);
                return OUTCOME_INVALID;
        }
        if (v == HOLD_RESUME && !h->paused) {
                log_err("rollout %lld is not paused; nothing was changed", r->id);
                return OUTCOME_INVALID;
        }
        if (v == HOLD_PROMOTE && (!r->opts.promote_manual || !next || h->promoted >= next)) {
                log_err("rollout %lld %s; nothing was changed", r->id, !r->opts.promote_manual ?
                        "does not wait for a person (apply --promote manual)" : !next ? "has no wave left to start" :
                        "has its next wave promoted already");
                return OUTCOME_INVALID;
        }
        if (v == HOLD_PAUSE)
                h->paused = true;
        else if (v == HOLD_RESUME)
                h->paused = false;
        else
                h->promoted = next;
        return 0;
}

static int hold(struct ctl *c, enum hold_verb v)
{
        struct rollout_rec *r = NULL;
        struct store_hold h;
        struct rollout_opts who = { 0 };
        struct errbuf e = { 0 };
        char buf[ERRBUF_STR_MAX];
        unsigned id;
        int rc;

        if (c->argc != 1 || c->argv[0][0] == '-')
                return c->argc ? (ctl_bad_arg(c, c->argv[c->argc > 1 && c->argv[0][0] != '-' ? 1 : 0]),
                                  OUTCOME_INVALID) :
                       (log_err("%s: expected a rollout ID", c->cmd->name), OUTCOME_INVALID);
        if (ctl_parse_uint(c->cmd->name, c->argv[0], 1, 2000000000, &id) < 0)
                return OUTCOME_INVALID;
        if ((rc = ctl_need_store(c)) > 0)
                return rc;
        rc = store_rollout_load(c->store, id, &r, &e);
        if (rc >= 0)
                rc = store_hold_get(c->store, id, &h, &e);
        if (rc < 0) {
                log_err("%s: %s; nothing was changed", c->cmd->name, errbuf_str(&e, buf, sizeof(buf)));
                rollout_rec_free(r);
                return rc == -EOPNOTSUPP || rc == -ENOENT ? OUTCOME_INVALID : OUTCOME_RUNTIME;
        }
        rc = say(c, r, v, &h);
        if (rc == 0) {
                ctl_who(c, NULL, &who);
                snprintf(h.by, sizeof(h.by), "%s", who.user);
                h.at = (long long)time(NULL);
                if (store_hold_set(c->store, id, &h, &e) < 0)
                        rc = ctl_fail(&e);
        }
        if (rc == 0 && c->json)
                printf("{\n  \"id\": %u,\n  \"paused\": %s,\n  \"promoted\": %u\n}\n", id, h.paused ? "true" : "false",
                       h.promoted);
        else if (rc == 0 && v == HOLD_PAUSE)
                printf("rollout %u: paused; no further wave starts (the one in flight finishes) until "
                       "'nettunectl resume %u'\n", id, id);
        else if (rc == 0 && v == HOLD_RESUME)
                printf("rollout %u: resumed\n", id);
        else if (rc == 0)
                printf("rollout %u: wave %u promoted\n", id, h.promoted);
        rollout_rec_free(r);
        return rc;
}

int ctl_cmd_pause(struct ctl *c)
{
        return hold(c, HOLD_PAUSE);
}

int ctl_cmd_resume(struct ctl *c)
{
        return hold(c, HOLD_RESUME);
}

int ctl_cmd_promote(struct ctl *c)
{
        return hold(c, HOLD_PROMOTE);
}
