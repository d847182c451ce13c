/* SPDX-License-Identifier: MIT */
/* DSCP trust and DSCP -> priority map over the DCB APP table: read and plan. */
#include "dcb_app.h"

static bool is_dscp(const struct dcb_app *a)
{
        return a->selector == IEEE_8021QAZ_APP_SEL_DSCP && a->protocol < STATE_DSCP_COUNT &&
               a->priority < STATE_PRIO_COUNT;
}

static bool trust_table_says_dscp(const struct dcb_nl_ieee *cur)
{
        for (unsigned i = 0; i < cur->n_trust; i++) {
                if (cur->trust[i] == IEEE_8021QAZ_APP_SEL_DSCP)
                        return true;
                if (cur->trust[i] == DCB_NL_SEL_PCP)
                        return false;
        }
        return false;
}

void dcb_app_read(const struct dcb_nl_ieee *cur, struct state *s)
{
        bool any = false;

        memset(s->dscp_prio, STATE_DSCP_UNMAPPED, sizeof(s->dscp_prio));
        for (unsigned i = 0; i < cur->n_apps; i++) {
                const struct dcb_app *a = &cur->apps[i];

                if (!is_dscp(a))
                        continue;
                any = true;
                /* Several entries for one DSCP: the first (newest) one is reported. */
                if (s->dscp_prio[a->protocol] == STATE_DSCP_UNMAPPED)
                        s->dscp_prio[a->protocol] = a->priority;
        }
        if (cur->has_trust && cur->n_trust)
                any = trust_table_says_dscp(cur);
        s->trust = any ? STATE_TRUST_DSCP : STATE_TRUST_PCP;
}

static bool map_empty(const uint8_t map[STATE_DSCP_COUNT])
{
        for (unsigned d = 0; d < STATE_DSCP_COUNT; d++)
                if (map[d] != STATE_DSCP_UNMAPPED)
                        return false;
        return true;
}

int dcb_app_target(const struct state *desired, uint32_t fields, const struct dcb_nl_ieee *cur,
                   uint8_t ret_map[STATE_DSCP_COUNT], struct errbuf *e)
{
        bool want_trust = (fields & STATE_BIT(STATE_FIELD_TRUST)) && state_has(desired, STATE_FIELD_TRUST);
        bool want_map = (fields & STATE_BIT(STATE_FIELD_DSCP_MAP)) && state_has(desired, STATE_FIELD_DSCP_MAP);
        struct state live;

        dcb_app_read(cur, &live);
        memcpy(ret_map, want_map ? desired->dscp_prio : live.dscp_prio, STATE_DSCP_COUNT);
        if (!want_trust)
                return 0;
        if (desired->trust == STATE_TRUST_PCP) {
                if (want_map && !map_empty(desired->dscp_prio))
                        return errbuf_set(e, EINVAL, NULL,
                                          "trust 'pcp' with dscp_to_priority entries cannot be set: "
                                          "DSCP app entries switch the port to DSCP trust");
                memset(ret_map, STATE_DSCP_UNMAPPED, STATE_DSCP_COUNT);
                return 0;
        }
        if (map_empty(ret_map))
                return errbuf_set(e, EINVAL, NULL,
                                  "trust 'dscp' needs at least one dscp_to_priority entry: "
                                  "the port trusts DSCP while DSCP app entries exist");
        return 0;
}

static bool table_has(const struct dcb_nl_ieee *cur, uint8_t dscp, uint8_t prio)
{
        for (unsigned i = 0; i < cur->n_apps; i++)
                if (is_dscp(&cur->apps[i]) && cur->apps[i].protocol == dscp &&
                    cur->apps[i].priority == prio)
                        return true;
        return false;
}

unsigned dcb_app_missing(const struct dcb_nl_ieee *cur, const uint8_t map[STATE_DSCP_COUNT],
                         struct dcb_app *ret, unsigned max)
{
        unsigned n = 0;

        for (unsigned d = 0; d < STATE_DSCP_COUNT && n < max; d++)
                if (map[d] != STATE_DSCP_UNMAPPED && !table_has(cur, (uint8_t)d, map[d]))
                        ret[n++] = (struct dcb_app){ .selector = IEEE_8021QAZ_APP_SEL_DSCP,
                                                     .priority = map[d], .protocol = (uint16_t)d };
        return n;
}

unsigned dcb_app_stale(const struct dcb_nl_ieee *cur, const uint8_t map[STATE_DSCP_COUNT],
                       struct dcb_app *ret, unsigned max)
{
        unsigned n = 0;

        for (unsigned i = 0; i < cur->n_apps && n < max; i++) {
                const struct dcb_app *a = &cur->apps[i];

                if (a->selector != IEEE_8021QAZ_APP_SEL_DSCP)
                        continue;
                if (a->protocol < STATE_DSCP_COUNT && map[a->protocol] == a->priority)
                        continue;
                ret[n++] = *a;
        }
        return n;
}
