/* SPDX-License-Identifier: MIT */
/* Pure helpers shared by the switch dialects: units, lists, comparison, limits. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>

#include "switch.h"

int switch_parse_uint(const char *s, uint64_t min, uint64_t max, uint64_t *ret)
{
        uint64_t v = 0;

        if (!s || !*s)
                return -EINVAL;
        for (const char *p = s; *p; p++) {
                if (!isdigit((unsigned char)*p) || p - s > 18)
                        return -EINVAL;
                v = v * 10 + (uint64_t)(*p - '0');
        }
        if (v < min || v > max)
                return -ERANGE;
        *ret = v;
        return 0;
}

static int unit_factor(const char *u, double *ret)
{
        static const struct { const char *name; double factor; } units[] = {
                { "", 1 }, { "B", 1 }, { "KB", 1024.0 }, { "MB", 1024.0 * 1024 },
                { "GB", 1024.0 * 1024 * 1024 },
        };

        for (size_t i = 0; i < ARRAY_SIZE(units); i++)
                if (strcasecmp(units[i].name, u) == 0) {
                        *ret = units[i].factor;
                        return 0;
                }
        return -EINVAL;
}

int switch_parse_bytes(const char *s, uint64_t *ret)
{
        char num[32], unit[8];
        size_t n = 0, u = 0;
        double v, factor;
        int dots = 0;

        if (!s)
                return -EINVAL;
        while (*s == ' ')
                s++;
        for (; isdigit((unsigned char)*s) || *s == '.'; s++) {
                if (*s == '.')
                        dots++;
                if (n + 1 >= sizeof(num) || dots > 1)
                        return -EINVAL;
                num[n++] = *s;
        }
        num[n] = '\0';
        while (*s == ' ')
                s++;
        for (; isalpha((unsigned char)*s); s++) {
                if (u + 1 >= sizeof(unit))
                        return -EINVAL;
                unit[u++] = *s;
        }
        unit[u] = '\0';
        while (*s == ' ')
                s++;
        if (!n || num[0] == '.' || *s || unit_factor(unit, &factor) < 0)
                return -EINVAL;
        v = strtod(num, NULL) * factor;
        if (!isfinite(v) || v > 1e15)
                return -ERANGE;
        *ret = (uint64_t)llround(v);
        return 0;
}

static int parse_item(const char **p, unsigned max, uint64_t *ret)
{
        char *end;
        unsigned long v;

        if (!isdigit((unsigned char)**p))
                return -EINVAL;
        errno = 0;
        v = strtoul(*p, &end, 10);
        if (errno || v > max || end - *p > 3)
                return -ERANGE;
        *p = end;
        *ret = v;
        return 0;
}

int switch_parse_list(const char *s, unsigned max, uint64_t *ret)
{
        uint64_t bits = 0, a, b;
        const char *p = s;

        if (!s || max > 63)
                return -EINVAL;
        while (*p == ' ')
                p++;
        while (*p) {
                if (parse_item(&p, max, &a) < 0)
                        return -EINVAL;
                b = a;
                if (*p == '-') {
                        p++;
                        if (parse_item(&p, max, &b) < 0 || b < a)
                                return -EINVAL;
                }
                for (uint64_t i = a; i <= b; i++)
                        bits |= UINT64_C(1) << i;
                if (*p == ',')
                        p++;
                else if (*p && *p != ' ')
                        return -EINVAL;
                while (*p == ' ')
                        p++;
        }
        *ret = bits;
        return 0;
}

char *switch_format_list(uint64_t bits, char *buf, size_t size)
{
        size_t off = 0;

        if (!size)
                return buf;
        buf[0] = '\0';
        for (unsigned i = 0; i < 64; i++) {
                if (!(bits & (UINT64_C(1) << i)))
                        continue;
                int n = snprintf(buf + off, size - off, "%s%u", off ? "," : "", i);
                if (n < 0 || (size_t)n >= size - off)
                        break;
                off += (size_t)n;
        }
        return buf;
}

int switch_json_uint(const json_t *j, uint64_t max, uint64_t *ret)
{
        if (json_is_integer(j)) {
                json_int_t v = json_integer_value(j);
                if (v < 0 || (uint64_t)v > max)
                        return -ERANGE;
                *ret = (uint64_t)v;
                return 0;
        }
        if (json_is_string(j))
                return switch_parse_uint(json_string_value(j), 0, max, ret);
        return -EINVAL;
}

uint32_t switch_port_mtu(const struct state *s, const char *name)
{
        for (unsigned i = 0; i < s->n_ports && i < STATE_PORTS_MAX; i++)
                if (streq(s->ports[i].name, name))
                        return s->ports[i].mtu;
        return 0;
}

void switch_expand_desired(const struct switch_config *sw, const struct state *desired, struct state *ret)
{
        *ret = *desired;
        if (!state_has(desired, STATE_FIELD_MTU) || desired->n_ports > 0)
                return;
        ret->n_ports = sw->n_ports < STATE_PORTS_MAX ? sw->n_ports : STATE_PORTS_MAX;
        for (unsigned i = 0; i < ret->n_ports; i++) {
                snprintf(ret->ports[i].name, sizeof(ret->ports[i].name), "%s", sw->ports[i]);
                ret->ports[i].mtu = desired->mtu;
        }
}

static bool ecn_equal(const struct state_ecn *a, const struct state_ecn *b)
{
        if (a->queues != b->queues)
                return false;
        for (unsigned q = 0; q < STATE_TC_COUNT; q++) {
                const struct state_ecn_queue *x = &a->q[q], *y = &b->q[q];
                if (!(a->queues & (1u << q)))
                        continue;
                if (x->enabled != y->enabled || x->min_bytes != y->min_bytes ||
                    x->max_bytes != y->max_bytes || x->probability_pct != y->probability_pct)
                        return false;
        }
        return true;
}

static bool ports_equal(const struct state *live, const struct state *desired)
{
        for (unsigned i = 0; i < desired->n_ports && i < STATE_PORTS_MAX; i++)
                if (switch_port_mtu(live, desired->ports[i].name) != desired->ports[i].mtu)
                        return false;
        return true;
}

static bool field_equal(const struct state *a, const struct state *b, enum state_field f)
{
        switch (f) {
        case STATE_FIELD_MTU: return ports_equal(a, b);
        case STATE_FIELD_TRUST: return a->trust == b->trust;
        case STATE_FIELD_DSCP_MAP: return memcmp(a->dscp_prio, b->dscp_prio, sizeof(a->dscp_prio)) == 0;
        case STATE_FIELD_PFC: return a->pfc_enabled == b->pfc_enabled;
        case STATE_FIELD_ECN: return ecn_equal(&a->ecn, &b->ecn);
        default: return true;
        }
}

uint32_t switch_state_delta(const struct state *live, const struct state *desired, uint32_t fields)
{
        uint32_t delta = 0;

        for (int f = 0; f < STATE_FIELD_MAX; f++) {
                if (!(fields & STATE_BIT(f)) || !state_has(desired, f))
                        continue;
                if (!state_has(live, f) || !field_equal(live, desired, f))
                        delta |= STATE_BIT(f);
        }
        return delta;
}

bool switch_state_equal(const struct state *a, const struct state *b, uint32_t fields)
{
        return switch_state_delta(a, b, fields) == 0;
}

static int validate_ecn(const struct switch_dialect *d, const char *where, const struct state_ecn *ecn,
                        struct errbuf *e)
{
        for (unsigned q = 0; q < STATE_TC_COUNT; q++) {
                const struct state_ecn_queue *x = &ecn->q[q];
                if (!(ecn->queues & (1u << q)) || !x->enabled)
                        continue;
                if (x->min_bytes < d->lim.thr_min || x->max_bytes > d->lim.thr_max)
                        return errbuf_set(e, EINVAL, where, "ecn queue %u: thresholds %u-%u bytes out of the "
                                          "%s range %u-%u; nothing was changed", q, x->min_bytes, x->max_bytes,
                                          d->name, d->lim.thr_min, d->lim.thr_max);
                if (x->min_bytes > x->max_bytes)
                        return errbuf_set(e, EINVAL, where, "ecn queue %u: min threshold %u above max %u; "
                                          "nothing was changed", q, x->min_bytes, x->max_bytes);
                if (x->probability_pct < 1 || x->probability_pct > 100)
                        return errbuf_set(e, EINVAL, where, "ecn queue %u: probability %u out of range 1-100; "
                                          "nothing was changed", q, x->probability_pct);
        }
        return 0;
}

static int validate_ports(const struct switch_dialect *d, const struct switch_config *sw, const char *where,
                          const struct state *desired, struct errbuf *e)
{
        for (unsigned i = 0; i < desired->n_ports && i < STATE_PORTS_MAX; i++) {
                const struct state_port *p = &desired->ports[i];
                bool known = false;
                for (unsigned k = 0; k < sw->n_ports; k++)
                        known |= streq(sw->ports[k], p->name);
                if (!known)
                        return errbuf_set(e, EINVAL, where, "port '%s' is not among the switch's configured "
                                          "ports; nothing was changed", p->name);
                if (p->mtu < d->lim.mtu_min || p->mtu > d->lim.mtu_max)
                        return errbuf_set(e, ERANGE, where, "mtu %u on port '%s' out of the %s range %u-%u; "
                                          "nothing was changed", p->mtu, p->name, d->name, d->lim.mtu_min,
                                          d->lim.mtu_max);
        }
        return 0;
}

int switch_validate(const struct switch_dialect *d, const struct switch_config *sw,
                    const struct state *desired, uint32_t fields, struct errbuf *e)
{
        char where[96];
        uint32_t foreign = fields & desired->present & ~SWITCH_FIELDS;

        snprintf(where, sizeof(where), "switch '%s' (%s)", sw->name, d->name);
        if (foreign)
                for (int f = 0; f < STATE_FIELD_MAX; f++)
                        if (foreign & STATE_BIT(f))
                                return errbuf_set(e, EOPNOTSUPP, where, "'%s' is not a switch setting; "
                                                  "nothing was changed", state_field_name(f));
        if ((fields & STATE_BIT(STATE_FIELD_TRUST)) && state_has(desired, STATE_FIELD_TRUST) &&
            desired->trust >= STATE_TRUST_MAX)
                return errbuf_set(e, EINVAL, where, "unknown trust mode %u; nothing was changed", desired->trust);
        if ((fields & STATE_BIT(STATE_FIELD_DSCP_MAP)) && state_has(desired, STATE_FIELD_DSCP_MAP))
                for (unsigned i = 0; i < STATE_DSCP_COUNT; i++)
                        if (desired->dscp_prio[i] != STATE_DSCP_UNMAPPED && desired->dscp_prio[i] > 7)
                                return errbuf_set(e, ERANGE, where, "dscp %u: priority %u out of range 0-7; "
                                                  "nothing was changed", i, desired->dscp_prio[i]);
        if ((fields & STATE_BIT(STATE_FIELD_ECN)) && state_has(desired, STATE_FIELD_ECN) &&
            validate_ecn(d, where, &desired->ecn, e) < 0)
                return -EINVAL;
        if ((fields & STATE_BIT(STATE_FIELD_MTU)) && state_has(desired, STATE_FIELD_MTU))
                return validate_ports(d, sw, where, desired, e);
        return 0;
}

struct switch_cmds *switch_cmds_new(void)
{
        return calloc(1, sizeof(struct switch_cmds));
}

void switch_cmds_free(struct switch_cmds *c)
{
        free(c);
}

void switch_cmds_add(struct switch_cmds *c, const char *fmt, ...)
{
        va_list ap;
        int n;

        if (c->n >= SWITCH_CMDS_MAX) {
                c->overflow = true;
                return;
        }
        va_start(ap, fmt);
        n = vsnprintf(c->line[c->n], SWITCH_LINE_MAX, fmt, ap);
        va_end(ap);
        if (n < 0 || n >= SWITCH_LINE_MAX)
                c->overflow = true;
        else
                c->n++;
}

void switch_mtu_groups(const struct state *live, const struct state *desired, char sep,
                       void (*add)(void *ctx, uint32_t mtu, const char *ports), void *ctx)
{
        bool done[STATE_PORTS_MAX] = { false };

        for (unsigned i = 0; i < desired->n_ports && i < STATE_PORTS_MAX; i++) {
                char list[SWITCH_LINE_MAX] = "";
                size_t off = 0;
                uint32_t mtu = desired->ports[i].mtu;
                if (done[i])
                        continue;
                for (unsigned k = i; k < desired->n_ports && k < STATE_PORTS_MAX; k++) {
                        const struct state_port *p = &desired->ports[k];
                        if (done[k] || p->mtu != mtu)
                                continue;
                        done[k] = true;
                        if (switch_port_mtu(live, p->name) == mtu)
                                continue;
                        int n = snprintf(list + off, sizeof(list) - off, "%s%s", off ? (char[]){ sep, 0 } : "",
                                         p->name);
                        if (n > 0 && (size_t)n < sizeof(list) - off)
                                off += (size_t)n;
                }
                if (off)
                        add(ctx, mtu, list);
        }
}

void switch_err_suffix(struct errbuf *e, const char *text)
{
        size_t n = strlen(e->msg);

        if (n < sizeof(e->msg))
                snprintf(e->msg + n, sizeof(e->msg) - n, "%s", text);
}
