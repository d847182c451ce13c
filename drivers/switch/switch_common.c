/* SPDX-License-Identifier: MIT */
/* Pure helpers shared by the switch dialects: units, lists, comparison, limits. */
#include <ctype.h>
#include <stdarg.h>

#include "drivers/switch/switch.h"
#include "policies/state/field.h"

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

/*
 * Exact bytes only. A display with another unit ("146.48 KB", "1.43 MB" in NVUE's
 * text views, 1 KB = 1024 B, two decimals) is rounded: it names a range of byte
 * counts, not one, and reading it as one would report drift that is not there.
 */
int switch_parse_bytes(const char *s, uint64_t *ret)
{
        char num[24];
        size_t n = 0;
        uint64_t v;

        if (!s)
                return -EINVAL;
        while (*s == ' ')
                s++;
        for (; isdigit((unsigned char)*s); s++) {
                if (n + 1 >= sizeof(num))
                        return -ERANGE;
                num[n++] = *s;
        }
        num[n] = '\0';
        while (*s == ' ')
                s++;
        if (*s == 'B')
                s++;
        while (*s == ' ')
                s++;
        if (!n || *s || switch_parse_uint(num, 0, UINT64_MAX / 2, &v) < 0)
                return -EINVAL;
        *ret = v;
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

json_t *switch_member(const json_t *j, const char *key)
{
        return json_is_object(j) ? json_object_get(j, key) : NULL;
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

/* Vendor limits on what a change would write (desired values only; a snapshot was live already). */
int switch_check_limits(const struct switch_dialect *d, const struct switch_config *sw,
                        const struct driver_change *c, struct errbuf *e)
{
        char where[96];

        snprintf(where, sizeof(where), "switch '%s' (%s)", sw->name, d->name);
        for (unsigned u = 0; u < c->n_units; u++) {
                const struct state *want = &c->desired[u];
                const char *port = sw->ports[u];

                if ((c->delta[u] & STATE_BIT(STATE_FIELD_MTU)) &&
                    (want->mtu < d->lim.mtu_min || want->mtu > d->lim.mtu_max))
                        return errbuf_set(e, ERANGE, where, "mtu %u on port '%s' out of the %s range %u-%u; "
                                          "nothing was changed", want->mtu, port, d->name, d->lim.mtu_min,
                                          d->lim.mtu_max);
                if (!(c->delta[u] & STATE_BIT(STATE_FIELD_ECN)))
                        continue;
                for (unsigned q = 0; q < STATE_TC_COUNT; q++) {
                        const struct state_ecn_queue *x = &want->ecn.q[q];

                        if (!(want->ecn.queues & (1u << q)) || !x->enabled)
                                continue;
                        if (x->min_bytes < d->lim.thr_min || x->max_bytes > d->lim.thr_max)
                                return errbuf_set(e, EINVAL, where, "ecn queue %u: thresholds %u-%u bytes out of the "
                                                  "%s range %u-%u; nothing was changed", q, x->min_bytes,
                                                  x->max_bytes, d->name, d->lim.thr_min, d->lim.thr_max);
                }
        }
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

void switch_mtu_groups(const struct switch_config *sw, const struct driver_change *c, char sep,
                       void (*add)(void *ctx, uint32_t mtu, const char *ports), void *ctx)
{
        bool done[STATE_PORTS_MAX] = { false };

        for (unsigned i = 0; i < c->n_units && i < STATE_PORTS_MAX; i++) {
                char list[SWITCH_LINE_MAX] = "";
                size_t off = 0;
                uint32_t mtu = c->desired[i].mtu;

                if (done[i] || !(c->delta[i] & STATE_BIT(STATE_FIELD_MTU)))
                        continue;
                for (unsigned k = i; k < c->n_units && k < STATE_PORTS_MAX; k++) {
                        int n;

                        if (done[k] || !(c->delta[k] & STATE_BIT(STATE_FIELD_MTU)) || c->desired[k].mtu != mtu)
                                continue;
                        done[k] = true;
                        n = snprintf(list + off, sizeof(list) - off, "%s%s", off ? (char[]){ sep, 0 } : "",
                                     sw->ports[k]);
                        if (n > 0 && (size_t)n < sizeof(list) - off)
                                off += (size_t)n;
                }
                if (off)
                        add(ctx, mtu, list);
        }
}

void switch_units_fill(struct state *units, unsigned n, const struct state *all, uint32_t fields)
{
        for (unsigned i = 0; i < n; i++)
                state_copy_fields(&units[i], all, fields);
}

void switch_ecn_all_queues(struct state *u)
{
        u->ecn.queues = 0xff;
        u->present |= STATE_BIT(STATE_FIELD_ECN);
}

uint8_t switch_ecn_changed(const struct driver_change *c, unsigned u)
{
        const struct state *want = &c->desired[u], *live = &c->live[u];
        uint8_t out = 0;

        if (!(c->delta[u] & STATE_BIT(STATE_FIELD_ECN)))
                return 0;
        for (unsigned q = 0; q < STATE_TC_COUNT; q++) {
                const struct state_ecn_queue *w = &want->ecn.q[q], *l = &live->ecn.q[q];
                bool marks = (live->ecn.queues & (1u << q)) && l->enabled;

                if (!(want->ecn.queues & (1u << q)))
                        continue;
                if (w->enabled ? !marks || w->min_bytes != l->min_bytes || w->max_bytes != l->max_bytes ||
                                         w->probability_pct != l->probability_pct
                               : marks)
                        out |= (uint8_t)(1u << q);
        }
        return out;
}
