/* SPDX-License-Identifier: MIT */
/* Field-by-field comparison of a desired and a live state (see diff.h). */
#include <jansson.h>
#include <stdarg.h>

#include "diff.h"
#include "state_json.h"
#include "util.h"

static int add(struct diff *d, enum state_field f, const char *key, const char *from, const char *to)
{
        struct diff_entry *e;

        if (d->n == 0 || (d->n >= 8 && (d->n & (d->n - 1)) == 0)) {
                size_t cap = d->n ? d->n * 2 : 8;
                struct diff_entry *n = realloc(d->entries, cap * sizeof(*n));

                if (!n)
                        return -ENOMEM;
                d->entries = n;
        }
        e = &d->entries[d->n++];
        e->field = f;
        snprintf(e->key, sizeof(e->key), "%s", key);
        snprintf(e->from, sizeof(e->from), "%s", from);
        snprintf(e->to, sizeof(e->to), "%s", to);
        d->fields |= STATE_BIT(f);
        return 0;
}

static const char *fmt_u(char *buf, size_t size, unsigned long x)
{
        snprintf(buf, size, "%lu", x);
        return buf;
}

static const char *fmt_bool(bool b)
{
        return b ? "true" : "false";
}

static const char *fmt_bits(char *buf, size_t size, unsigned bits)
{
        size_t o = snprintf(buf, size, "[");

        for (unsigned i = 0; i < 8; i++)
                if (bits & (1u << i))
                        o += snprintf(buf + o, size - o, "%s%u", o > 1 ? "," : "", i);
        snprintf(buf + o, size - o, "]");
        return buf;
}

static const char *fmt_u8s(char *buf, size_t size, const uint8_t *v, unsigned n, bool tsa)
{
        size_t o = snprintf(buf, size, "[");

        for (unsigned i = 0; i < n && o < size; i++) {
                if (tsa)
                        o += snprintf(buf + o, size - o, "%s%s", i ? "," : "", state_tsa_name(v[i]));
                else
                        o += snprintf(buf + o, size - o, "%s%u", i ? "," : "", v[i]);
        }
        if (o < size)
                snprintf(buf + o, size - o, "]");
        return buf;
}

/* The desired value of a whole field, compact JSON, for "unsupported" entries. */
static int add_unsupported(struct diff *d, const struct state *desired, enum state_field f)
{
        struct state *one = malloc(sizeof(*one));
        char to[DIFF_VALUE_MAX] = "";
        json_t *j = NULL;
        char *s = NULL;
        int r = -ENOMEM;

        if (!one)
                return -ENOMEM;
        *one = *desired;
        one->present = STATE_BIT(f);
        one->n_ports = 0;
        j = state_to_json(one);
        if (j)
                s = json_dumps(json_object_get(j, state_field_name(f)),
                               JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
        if (s) {
                snprintf(to, sizeof(to), "%s", s);
                if (strlen(s) >= sizeof(to))
                        memcpy(to + sizeof(to) - 4, "...", 4);
                r = add(d, f, state_field_name(f), "unsupported", to);
        }
        free(s);
        json_decref(j);
        free(one);
        return r;
}

static int diff_u(struct diff *d, enum state_field f, const char *key, unsigned long from, unsigned long to)
{
        char a[24], b[24];

        if (from == to)
                return 0;
        return add(d, f, key, fmt_u(a, sizeof(a), from), fmt_u(b, sizeof(b), to));
}

static int diff_mtu(struct diff *d, const struct state *want, const struct state *live)
{
        char key[DIFF_KEY_MAX];
        int r = 0;

        if (live->n_ports == 0)
                return diff_u(d, STATE_FIELD_MTU, "mtu", live->mtu, want->mtu);
        for (unsigned i = 0; i < live->n_ports && i < STATE_PORTS_MAX && r >= 0; i++) {
                snprintf(key, sizeof(key), "ports.%s.mtu", live->ports[i].name);
                r = diff_u(d, STATE_FIELD_MTU, key, live->ports[i].mtu, want->mtu);
        }
        return r;
}

static int diff_dscp(struct diff *d, const struct state *want, const struct state *live)
{
        char key[DIFF_KEY_MAX], a[8], b[8];
        int r = 0;

        for (unsigned i = 0; i < STATE_DSCP_COUNT && r >= 0; i++) {
                uint8_t from = live->dscp_prio[i], to = want->dscp_prio[i];

                if (from == to)
                        continue;
                snprintf(key, sizeof(key), "dscp_to_priority.%u", i);
                r = add(d, STATE_FIELD_DSCP_MAP, key,
                        from == STATE_DSCP_UNMAPPED ? "unset" : fmt_u(a, sizeof(a), from),
                        to == STATE_DSCP_UNMAPPED ? "unset" : fmt_u(b, sizeof(b), to));
        }
        return r;
}

static int diff_u8s(struct diff *d, enum state_field f, const char *key, const uint8_t *from,
                    const uint8_t *to, unsigned n, bool tsa)
{
        char a[DIFF_VALUE_MAX], b[DIFF_VALUE_MAX];

        if (!memcmp(from, to, n))
                return 0;
        return add(d, f, key, fmt_u8s(a, sizeof(a), from, n, tsa), fmt_u8s(b, sizeof(b), to, n, tsa));
}

static int diff_ets(struct diff *d, const struct state_ets *want, const struct state_ets *live)
{
        int r = diff_u8s(d, STATE_FIELD_ETS, "ets.priority_to_tc", live->prio_tc, want->prio_tc,
                         STATE_PRIO_COUNT, false);

        if (r >= 0)
                r = diff_u8s(d, STATE_FIELD_ETS, "ets.tc_bandwidth_pct", live->tc_bw_pct, want->tc_bw_pct,
                             STATE_TC_COUNT, false);
        if (r >= 0)
                r = diff_u8s(d, STATE_FIELD_ETS, "ets.tc_tsa", live->tc_tsa, want->tc_tsa, STATE_TC_COUNT, true);
        return r;
}

/* A value of a sub-member the live side may not describe at all ("unset"). */
static int diff_opt(struct diff *d, enum state_field f, const char *key, bool live_has,
                    const char *from, const char *to)
{
        if (live_has && streq(from, to))
                return 0;
        return add(d, f, key, live_has ? from : "unset", to);
}

static int diff_ecn_queue(struct diff *d, unsigned i, const struct state_ecn_queue *want,
                          const struct state_ecn_queue *live, bool has)
{
        static const char *const names[] = { "min_threshold_bytes", "max_threshold_bytes", "mark_probability_pct" };
        const unsigned long w[] = { want->min_bytes, want->max_bytes, want->probability_pct };
        const unsigned long l[] = { live->min_bytes, live->max_bytes, live->probability_pct };
        char key[DIFF_KEY_MAX], a[24], b[24];
        int r;

        if (!has && !want->enabled)
                return 0;       /* marking off and no marking described are the same */
        snprintf(key, sizeof(key), "ecn.queue%u.enabled", i);
        r = diff_opt(d, STATE_FIELD_ECN, key, has, fmt_bool(live->enabled), fmt_bool(want->enabled));
        for (unsigned k = 0; k < ARRAY_SIZE(names) && r >= 0 && want->enabled; k++) {
                snprintf(key, sizeof(key), "ecn.queue%u.%s", i, names[k]);
                r = diff_opt(d, STATE_FIELD_ECN, key, has, fmt_u(a, sizeof(a), l[k]), fmt_u(b, sizeof(b), w[k]));
        }
        return r;
}

/*
 * The queue list is exact, like the DSCP map: a queue the target describes that the
 * policy does not list is reported for removal (the switch drivers unset it).
 */
static int diff_ecn(struct diff *d, const struct state_ecn *want, const struct state_ecn *live)
{
        int r = 0;

        for (unsigned i = 0; i < STATE_TC_COUNT && r >= 0; i++) {
                char key[DIFF_KEY_MAX];

                if (want->queues & (1u << i)) {
                        r = diff_ecn_queue(d, i, &want->q[i], &live->q[i], live->queues & (1u << i));
                } else if (live->queues & (1u << i)) {
                        snprintf(key, sizeof(key), "ecn.queue%u.enabled", i);
                        r = add(d, STATE_FIELD_ECN, key, fmt_bool(live->q[i].enabled), "unset");
                }
        }
        return r;
}

static int diff_host_ecn(struct diff *d, const struct state_host_ecn *want, const struct state_host_ecn *live)
{
        char key[DIFF_KEY_MAX], a[8], b[8];
        int r = 0;

        for (unsigned i = 0; i < STATE_PRIO_COUNT && r >= 0; i++) {
                bool has = live->prios & (1u << i);

                if (!(want->prios & (1u << i)))
                        continue;
                snprintf(key, sizeof(key), "host_ecn.priority%u.reaction_point", i);
                r = diff_opt(d, STATE_FIELD_HOST_ECN, key, has, fmt_bool((live->rp_enabled >> i) & 1),
                             fmt_bool((want->rp_enabled >> i) & 1));
                snprintf(key, sizeof(key), "host_ecn.priority%u.notification_point", i);
                if (r >= 0)
                        r = diff_opt(d, STATE_FIELD_HOST_ECN, key, has, fmt_bool((live->np_enabled >> i) & 1),
                                     fmt_bool((want->np_enabled >> i) & 1));
        }
        if (r < 0 || !want->has_cnp)
                return r;
        r = diff_opt(d, STATE_FIELD_HOST_ECN, "host_ecn.cnp_dscp", live->has_cnp,
                     fmt_u(a, sizeof(a), live->cnp_dscp), fmt_u(b, sizeof(b), want->cnp_dscp));
        if (r >= 0)
                r = diff_opt(d, STATE_FIELD_HOST_ECN, "host_ecn.cnp_priority", live->has_cnp,
                             fmt_u(a, sizeof(a), live->cnp_prio), fmt_u(b, sizeof(b), want->cnp_prio));
        return r;
}

static int diff_field(struct diff *d, enum state_field f, const struct state *want, const struct state *live)
{
        char a[24], b[24];

        switch (f) {
        case STATE_FIELD_MTU: return diff_mtu(d, want, live);
        case STATE_FIELD_TRUST:
                if (want->trust == live->trust)
                        return 0;
                return add(d, f, "trust", state_trust_name(live->trust), state_trust_name(want->trust));
        case STATE_FIELD_DSCP_MAP: return diff_dscp(d, want, live);
        case STATE_FIELD_PFC:
                if (want->pfc_enabled == live->pfc_enabled)
                        return 0;
                return add(d, f, "pfc.priorities", fmt_bits(a, sizeof(a), live->pfc_enabled),
                           fmt_bits(b, sizeof(b), want->pfc_enabled));
        case STATE_FIELD_ETS: return diff_ets(d, &want->ets, &live->ets);
        case STATE_FIELD_ECN: return diff_ecn(d, &want->ecn, &live->ecn);
        case STATE_FIELD_HOST_ECN: return diff_host_ecn(d, &want->host_ecn, &live->host_ecn);
        default: return 0;
        }
}

int state_diff(const struct state *desired, const struct state *live, struct diff *ret)
{
        struct diff d = { 0 };
        int r = 0;

        for (int f = 0; f < STATE_FIELD_MAX && r >= 0; f++) {
                if (!state_has(desired, f))
                        continue;
                if (!state_has(live, f))
                        r = add_unsupported(&d, desired, f);
                else
                        r = diff_field(&d, f, desired, live);
        }
        if (r < 0) {
                diff_done(&d);
                return r;
        }
        *ret = d;
        return 0;
}

void diff_done(struct diff *d)
{
        if (!d)
                return;
        free(d->entries);
        *d = (struct diff){ 0 };
}

char *diff_to_text(const struct diff *d)
{
        size_t size = 1, o = 0;
        char *s;

        for (unsigned i = 0; i < d->n; i++)
                size += strlen(d->entries[i].key) + strlen(d->entries[i].from) + strlen(d->entries[i].to) + 10;
        s = malloc(size);
        if (!s)
                return NULL;
        s[0] = '\0';
        for (unsigned i = 0; i < d->n; i++)
                o += snprintf(s + o, size - o, "  %s: %s -> %s\n", d->entries[i].key, d->entries[i].from,
                              d->entries[i].to);
        return s;
}

json_t *diff_to_json(const struct diff *d)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < d->n; i++) {
                const struct diff_entry *e = &d->entries[i];
                json_t *o = json_pack("{s:s,s:s,s:s,s:s}", "field", state_field_name(e->field), "key", e->key,
                                      "from", e->from, "to", e->to);

                if (!o || json_array_append_new(a, o) < 0) {
                        json_decref(a);
                        return NULL;
                }
        }
        return a;
}
