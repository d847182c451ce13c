/* SPDX-License-Identifier: MIT */
/*
 * What every dialect's PFC watchdog shares (switch.h): the watchdog a port is to have
 * after a change, and the dialect's ranges.
 *
 * The target of a port keeps every member the policy does not name as the switch has
 * it: a dialect that must write a whole watchdog entry (SONiC's `config pfcwd start`
 * rewrites the row) writes the live value of such a member, so it never changes. A
 * member the snapshot marks as the device's default (dflt) is written as "not
 * configured" by a restore.
 */
#include "drivers/switch/switch.h"

static const uint8_t wd_bits[] = { STATE_WD_DETECTION, STATE_WD_RESTORATION, STATE_WD_ACTION, STATE_WD_POLL };

bool switch_wd_changed(const struct driver_change *c, unsigned u)
{
        return c->delta[u] & STATE_BIT(STATE_FIELD_PFC_WATCHDOG);
}

static void take(struct state_pfc_wd *t, const struct state_pfc_wd *w, uint8_t bit)
{
        switch (bit) {
        case STATE_WD_DETECTION: t->detection_ms = w->detection_ms; break;
        case STATE_WD_RESTORATION: t->restoration_ms = w->restoration_ms; break;
        case STATE_WD_ACTION: t->action = w->action; break;
        default: t->poll_ms = w->poll_ms; break;
        }
        t->has |= bit;
        t->dflt = (uint8_t)((t->dflt & ~bit) | (w->dflt & bit));
}

void switch_wd_target(const struct driver_change *c, unsigned u, struct state_pfc_wd *ret)
{
        const struct state_pfc_wd *w = &c->desired[u].pfc_wd, *l = &c->live[u].pfc_wd;

        *ret = *l;
        ret->enabled = w->enabled;
        if (!w->enabled && !w->has)     /* a policy's "off": nothing else is managed */
                return;
        if (w->enabled && !l->enabled)  /* a new watchdog: only the switch-wide poll is the switch's already */
                ret->has &= STATE_WD_POLL;
        ret->prios = w->prios;          /* an "off" with members is a snapshot: all of it comes back */
        for (size_t i = 0; i < ARRAY_SIZE(wd_bits); i++)
                if (w->has & wd_bits[i])
                        take(ret, w, wd_bits[i]);
        ret->dflt |= w->dflt;           /* a snapshot's "not configured" without a value (a policy has none) */
}

bool switch_wd_poll_change(const struct driver_change *c, uint32_t *ret_ms, bool *ret_dflt)
{
        for (unsigned u = 0; u < c->n_units; u++) {
                const struct state_pfc_wd *w = &c->desired[u].pfc_wd, *l = &c->live[u].pfc_wd;

                if (!switch_wd_changed(c, u) || !(w->has & STATE_WD_POLL))
                        continue;
                if ((l->has & STATE_WD_POLL) && l->poll_ms == w->poll_ms)
                        continue;
                *ret_ms = w->poll_ms;
                *ret_dflt = w->dflt & STATE_WD_POLL;
                return true;
        }
        return false;
}

uint32_t switch_wd_poll_now(const struct driver_change *c)
{
        for (unsigned u = 0; u < c->n_units; u++)
                if (c->live[u].pfc_wd.has & STATE_WD_POLL)
                        return c->live[u].pfc_wd.poll_ms;
        return 0;
}

int switch_wd_range(const struct switch_session *s, const char *port, const char *member, uint32_t v, uint32_t min,
                    uint32_t max, const char *how, struct errbuf *e)
{
        if (v >= min && v <= max)
                return 0;
        return errbuf_set(e, ERANGE, s->where, "port '%s': pfc.watchdog.%s %u is outside %s's %u-%u (%s); nothing was "
                          "changed", port, member, v, s->d->name, min, max, how);
}
