/* SPDX-License-Identifier: MIT */
/* DSCP trust and DSCP -> priority map over the DCB APP table: read, target, plan (see dcb_app.h). */
#include "drivers/host/dcb_app.h"

/*
 * ice: entering DSCP mode sets every code point to dscp >> 3 (8 TCs,
 * ice_dcbnl_setapp), deleting an entry sets it to dscp % 8 (ice_dcbnl_delapp):
 * for dscp = 9k both are k, whatever happened before.
 */
static int ice_implicit(uint8_t dscp)
{
        return (dscp >> 3) == (dscp % 8) ? dscp >> 3 : -1;
}

static const struct dcb_quirks quirks[] = {
        /* mlx5e_dcbnl_ieee_setapp(): deletes the old entry itself */
        { .kernel_driver = "mlx5_core", .replace_in_place = true, .dscp_max = STATE_DSCP_COUNT },
        /* ice_dcbnl_setapp() appends to a 64-slot app[] that holds the FCoE default entry
         * (ice_dcb_sw_dflt_cfg) and has no bound check: at most 63 DSCP entries */
        { .kernel_driver = "ice", .dscp_max = STATE_DSCP_COUNT - 1, .implicit = ice_implicit },
        { .kernel_driver = "bnxt_en", .dscp_max = STATE_DSCP_COUNT },
};

static const struct dcb_quirks default_quirks = { .kernel_driver = "", .dscp_max = STATE_DSCP_COUNT };

const struct dcb_quirks *dcb_quirks_for(const char *kernel_driver)
{
        for (size_t i = 0; i < ARRAY_SIZE(quirks); i++)
                if (streq(quirks[i].kernel_driver, kernel_driver))
                        return &quirks[i];
        return &default_quirks;
}

static bool is_dscp(const struct dcb_app *a)
{
        return a->selector == IEEE_8021QAZ_APP_SEL_DSCP && a->protocol < STATE_DSCP_COUNT &&
               a->priority < STATE_PRIO_COUNT;
}

/* The newest entry per code point (the kernel lists the newest first). */
static void raw_map(const struct dcb_nl_ieee *cur, uint8_t map[STATE_DSCP_COUNT])
{
        memset(map, STATE_DSCP_UNMAPPED, STATE_DSCP_COUNT);
        for (unsigned i = 0; i < cur->n_apps; i++)
                if (is_dscp(&cur->apps[i]) && map[cur->apps[i].protocol] == STATE_DSCP_UNMAPPED)
                        map[cur->apps[i].protocol] = cur->apps[i].priority;
}

static bool map_empty(const uint8_t map[STATE_DSCP_COUNT])
{
        for (unsigned d = 0; d < STATE_DSCP_COUNT; d++)
                if (map[d] != STATE_DSCP_UNMAPPED)
                        return false;
        return true;
}

/* The trust table's answer: the first of DSCP and PCP it lists; an empty table trusts nothing. */
static enum state_trust trust_from_table(const struct dcb_nl_ieee *cur)
{
        for (unsigned i = 0; i < cur->n_trust; i++) {
                if (cur->trust[i] == IEEE_8021QAZ_APP_SEL_DSCP)
                        return STATE_TRUST_DSCP;
                if (cur->trust[i] == DCB_NL_SEL_PCP)
                        return STATE_TRUST_PCP;
        }
        return STATE_TRUST_NONE;
}

void dcb_app_read(const struct dcb_nl_ieee *cur, const struct dcb_quirks *q, struct state *s)
{
        struct state_dcb_device *dd = &s->dcb;
        uint8_t map[STATE_DSCP_COUNT];

        raw_map(cur, map);
        if (cur->has_trust)
                s->trust = trust_from_table(cur);
        else
                s->trust = map_empty(map) ? STATE_TRUST_PCP : STATE_TRUST_DSCP;
        for (unsigned d = 0; d < STATE_DSCP_COUNT; d++) {
                int imp = q->implicit && s->trust == STATE_TRUST_DSCP ? q->implicit((uint8_t)d) : -1;

                s->dscp_prio[d] = map[d] == STATE_DSCP_UNMAPPED && imp >= 0 ? (uint8_t)imp : map[d];
        }
        dd->present = true;
        dd->has_apps = true;
        dd->n_apps = 0;
        for (unsigned i = 0; i < cur->n_apps && dd->n_apps < STATE_DCB_APPS_MAX; i++)
                if (is_dscp(&cur->apps[i]))
                        dd->apps[dd->n_apps++] = (struct state_dcb_app){ .dscp = (uint8_t)cur->apps[i].protocol,
                                                                         .prio = cur->apps[i].priority };
        dd->has_trust_table = cur->has_trust;
        dd->n_trust = (uint8_t)cur->n_trust;
        memcpy(dd->trust_table, cur->trust, sizeof(dd->trust_table));
}

/* ---- target ---- */

static unsigned map_count(const uint8_t map[STATE_DSCP_COUNT])
{
        unsigned n = 0;

        for (unsigned d = 0; d < STATE_DSCP_COUNT; d++)
                n += map[d] != STATE_DSCP_UNMAPPED;
        return n;
}

/* Leave out code points the driver maps the wanted way without an entry, until the rest fits. */
static int fit(uint8_t map[STATE_DSCP_COUNT], const struct dcb_quirks *q, struct errbuf *e)
{
        unsigned n = map_count(map);

        for (unsigned d = 0; d < STATE_DSCP_COUNT && n > q->dscp_max; d++)
                if (q->implicit && map[d] != STATE_DSCP_UNMAPPED && q->implicit((uint8_t)d) == map[d]) {
                        map[d] = STATE_DSCP_UNMAPPED;
                        n--;
                }
        if (n > q->dscp_max)
                return errbuf_set(e, EINVAL, NULL,
                                  "dscp_to_priority: driver %s holds at most %u DSCP app entries and this map "
                                  "needs %u; nothing was changed", q->kernel_driver, q->dscp_max, n);
        return 0;
}

static void trust_list(struct dcb_app_target *t, enum state_trust trust)
{
        t->set_trust = true;
        t->n_trust = 0;
        if (trust == STATE_TRUST_DSCP)
                t->trust[t->n_trust++] = IEEE_8021QAZ_APP_SEL_DSCP;
        if (trust != STATE_TRUST_NONE)
                t->trust[t->n_trust++] = DCB_NL_SEL_PCP;
}

/* A snapshot: its entries and trust table, as read. */
static void snapshot_target(const struct state *snap, const struct dcb_nl_ieee *cur, struct dcb_app_target *t)
{
        const struct state_dcb_device *dd = &snap->dcb;

        memset(t->map, STATE_DSCP_UNMAPPED, sizeof(t->map));
        for (unsigned i = 0; i < dd->n_apps; i++)
                if (t->map[dd->apps[i].dscp] == STATE_DSCP_UNMAPPED)
                        t->map[dd->apps[i].dscp] = dd->apps[i].prio;
        if (dd->has_trust_table && cur->has_trust) {
                t->set_trust = true;
                t->n_trust = dd->n_trust;
                memcpy(t->trust, dd->trust_table, sizeof(t->trust));
        }
}

int dcb_app_target(const struct state *desired, uint32_t fields, const struct dcb_nl_ieee *cur,
                   const struct dcb_quirks *q, struct dcb_app_target *ret, struct errbuf *e)
{
        bool want_trust = (fields & STATE_BIT(STATE_FIELD_TRUST)) && state_has(desired, STATE_FIELD_TRUST);
        bool want_map = (fields & STATE_BIT(STATE_FIELD_DSCP_MAP)) && state_has(desired, STATE_FIELD_DSCP_MAP);
        bool table = cur->has_trust;

        memset(ret, 0, sizeof(*ret));
        if (desired->dcb.present && desired->dcb.has_apps) {
                snapshot_target(desired, cur, ret);
                return 0;
        }
        if (want_map)
                state_dscp_effective(desired, ret->map);
        else
                raw_map(cur, ret->map);
        if (want_trust && desired->trust == STATE_TRUST_PCP && !table) {
                if (want_map && !map_empty(ret->map))
                        return errbuf_set(e, EINVAL, NULL,
                                          "trust 'pcp' with dscp_to_priority entries cannot be set: "
                                          "DSCP app entries switch the port to DSCP trust");
                memset(ret->map, STATE_DSCP_UNMAPPED, sizeof(ret->map));
        }
        if (want_trust && desired->trust == STATE_TRUST_DSCP && !table && map_empty(ret->map))
                return errbuf_set(e, EINVAL, NULL,
                                  "trust 'dscp' needs at least one dscp_to_priority entry: "
                                  "the port trusts DSCP while DSCP app entries exist");
        if (want_trust && table)
                trust_list(ret, (enum state_trust)desired->trust);
        return want_map ? fit(ret->map, q, e) : 0;
}

/* ---- plan ---- */

/* The entries cur holds for one code point, newest first. */
static unsigned entries_of(const struct dcb_nl_ieee *cur, unsigned d, struct dcb_app *ret)
{
        unsigned n = 0;

        for (unsigned i = 0; i < cur->n_apps; i++)
                if (is_dscp(&cur->apps[i]) && cur->apps[i].protocol == d)
                        ret[n++] = cur->apps[i];
        return n;
}

static bool settled(const struct dcb_app *have, unsigned n, uint8_t want)
{
        if (want == STATE_DSCP_UNMAPPED)
                return n == 0;
        return n == 1 && have[0].priority == want;
}

unsigned dcb_app_distance(const struct dcb_nl_ieee *cur, const uint8_t map[STATE_DSCP_COUNT])
{
        struct dcb_app have[DCB_NL_APPS_MAX];
        unsigned n = 0;

        for (unsigned d = 0; d < STATE_DSCP_COUNT; d++)
                n += !settled(have, entries_of(cur, d, have), map[d]);
        return n;
}

static struct dcb_app app(unsigned d, uint8_t prio)
{
        return (struct dcb_app){ .selector = IEEE_8021QAZ_APP_SEL_DSCP, .priority = prio, .protocol = (uint16_t)d };
}

static struct dcb_app_step *step(struct dcb_app_step *v, unsigned *n, unsigned max, uint8_t cmd)
{
        if (*n >= max)
                return NULL;
        v[*n] = (struct dcb_app_step){ .cmd = cmd };
        return &v[(*n)++];
}

unsigned dcb_app_plan(const struct dcb_nl_ieee *cur, const uint8_t map[STATE_DSCP_COUNT],
                      const struct dcb_quirks *q, struct dcb_app_step *ret, unsigned max)
{
        struct dcb_app have[DCB_NL_APPS_MAX];
        struct dcb_app_step *add, *stale, *s;
        unsigned n = 0;

        /* 1. new code points, and (where the driver replaces in place) new priorities, in one SET */
        add = step(ret, &n, max, DCB_CMD_IEEE_SET);
        for (unsigned d = 0; add && d < STATE_DSCP_COUNT; d++) {
                unsigned k = entries_of(cur, d, have);

                if (map[d] == STATE_DSCP_UNMAPPED || settled(have, k, map[d]))
                        continue;
                if (k == 0 || (q->replace_in_place && k == 1))
                        add->apps[add->n++] = app(d, map[d]);
        }
        /* 2. other new priorities: delete this code point's entries, then add the new one */
        for (unsigned d = 0; d < STATE_DSCP_COUNT; d++) {
                unsigned k = entries_of(cur, d, have);

                if (map[d] == STATE_DSCP_UNMAPPED || settled(have, k, map[d]) || k == 0 ||
                    (q->replace_in_place && k == 1))
                        continue;
                if (!(s = step(ret, &n, max, DCB_CMD_IEEE_DEL)))
                        break;
                for (unsigned i = 0; i < k; i++)
                        s->apps[s->n++] = have[i];
                if (!(s = step(ret, &n, max, DCB_CMD_IEEE_SET)))
                        break;
                s->apps[s->n++] = app(d, map[d]);
        }
        /* 3. code points the map does not hold, in one DEL: the table empties last */
        stale = step(ret, &n, max, DCB_CMD_IEEE_DEL);
        for (unsigned d = 0; stale && d < STATE_DSCP_COUNT; d++) {
                unsigned k = map[d] == STATE_DSCP_UNMAPPED ? entries_of(cur, d, have) : 0;

                for (unsigned i = 0; i < k && stale->n < STATE_DSCP_COUNT; i++)
                        stale->apps[stale->n++] = have[i];
        }
        /* drop empty requests */
        for (unsigned i = 0; i < n;) {
                if (ret[i].n) {
                        i++;
                        continue;
                }
                memmove(&ret[i], &ret[i + 1], (n - i - 1) * sizeof(ret[0]));
                n--;
        }
        return n;
}

void dcb_app_describe(const struct dcb_nl_ieee *cur, const uint8_t map[STATE_DSCP_COUNT], char *buf, size_t size)
{
        struct dcb_app have[DCB_NL_APPS_MAX];
        size_t o = 0;

        buf[0] = '\0';
        for (unsigned d = 0; d < STATE_DSCP_COUNT && o < size; d++) {
                unsigned k = entries_of(cur, d, have);
                char from[16] = "unset", to[8] = "unset";

                if (settled(have, k, map[d]))
                        continue;
                if (k)
                        snprintf(from, sizeof(from), "%u%s", have[0].priority, k > 1 ? " and more" : "");
                if (map[d] != STATE_DSCP_UNMAPPED)
                        snprintf(to, sizeof(to), "%u", map[d]);
                o += (size_t)snprintf(buf + o, size - o, "%s%u (%s -> %s)", o ? ", " : "", d, from, to);
        }
}
