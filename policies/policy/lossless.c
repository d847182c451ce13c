/* SPDX-License-Identifier: MIT */
/* The lossless class (see lossless.h): one check per code, walked by lossless_check(). */
#include <stdarg.h>

#include "common/util.h"
#include "policies/policy/lossless.h"

#define LIST_MAX 6              /* entries a message names before "..." */

static const char *const names[LOSSLESS_CODE_MAX] = {
        [LOSSLESS_PFC_UNMAPPED] = "pfc_priority_unmapped",
        [LOSSLESS_ROCE_LOSSY] = "roce_priority_lossy",
        [LOSSLESS_ECN_QUEUE] = "ecn_queue_not_lossless",
        [LOSSLESS_HOST_ECN] = "host_ecn_priority_mismatch",
        [LOSSLESS_CNP_DSCP] = "cnp_dscp_unmapped",
        [LOSSLESS_TC_BANDWIDTH] = "lossless_tc_no_bandwidth",
};

static const char *const whats[LOSSLESS_CODE_MAX] = {
        [LOSSLESS_PFC_UNMAPPED] = "a PFC priority that no DSCP maps to while trust is dscp",
        [LOSSLESS_ROCE_LOSSY] = "the RoCE DSCP maps to a priority without PFC",
        [LOSSLESS_ECN_QUEUE] = "a lossless priority whose traffic class does not mark ECN",
        [LOSSLESS_HOST_ECN] = "DCQCN on a priority that is not lossless, or a lossless priority without DCQCN",
        [LOSSLESS_CNP_DSCP] = "the CNP DSCP maps to another priority than the CNP priority",
        [LOSSLESS_TC_BANDWIDTH] = "ETS gives a lossless priority's class 0% under the ets algorithm",
};

const char *lossless_code_name(enum lossless_code c)
{
        return (unsigned)c < LOSSLESS_CODE_MAX ? names[c] : NULL;
}

const char *lossless_code_what(enum lossless_code c)
{
        return (unsigned)c < LOSSLESS_CODE_MAX ? whats[c] : NULL;
}

int lossless_code_from_name(const char *name)
{
        for (int c = 0; c < LOSSLESS_CODE_MAX; c++)
                if (streq(names[c], name))
                        return c;
        return -EINVAL;
}

bool lossless_has(const struct lossless_report *r, enum lossless_code code, const char *key)
{
        for (unsigned i = 0; i < r->n; i++)
                if (r->v[i].code == code && streq(r->v[i].key, key))
                        return true;
        return false;
}

/* ---- what a place holds, as the rules read it ---- */

static bool has(const struct state *s, enum state_field f)
{
        return state_has(s, f);
}

static bool declared(const struct lossless_ctx *c, enum state_field f)
{
        return c->declared & STATE_BIT(f);
}

/* Does a host NIC send unlisted code points to priority 0 (a policy's map programmed over its DCB)? */
static bool unlisted_zero(const struct state *s)
{
        return s->dscp_unlisted_zero && s->dcb.present;
}

/* The priority of a DSCP: 0-7, or -1 when it maps nowhere (document) or nobody can tell (live). */
static int prio_of(const struct state *s, const struct lossless_ctx *c, unsigned d)
{
        bool any = false;

        if (s->dscp_prio[d] < STATE_PRIO_COUNT)
                return s->dscp_prio[d];
        for (unsigned i = 0; i < STATE_DSCP_COUNT && !any; i++)
                any = s->dscp_prio[i] < STATE_PRIO_COUNT;
        return unlisted_zero(s) && any ? 0 : -1;
}

/* Can every code point be told (nothing unknown in the map)? */
static bool map_complete(const struct state *s, const struct lossless_ctx *c)
{
        for (unsigned d = 0; d < STATE_DSCP_COUNT; d++)
                if (prio_of(s, c, d) < 0)
                        return c->document;
        return true;
}

/* Classification by DSCP: trust dscp, or (a document) trust not given. */
static bool dscp_trusted(const struct state *s, bool need_given)
{
        return has(s, STATE_FIELD_TRUST) ? s->trust == STATE_TRUST_DSCP : !need_given;
}

static unsigned tc_of(const struct state *s, unsigned prio)
{
        return has(s, STATE_FIELD_ETS) ? s->ets.prio_tc[prio] % STATE_TC_COUNT : prio;
}

/* The index of value v in a document's array (its position), else its rank in the bitmap. */
static int index_of(const int8_t *pos, uint8_t bits, unsigned v)
{
        int rank = 0;

        if (pos && pos[v] >= 0)
                return pos[v];
        for (unsigned i = 0; i < v; i++)
                rank += (bits >> i) & 1;
        return rank;
}

static const int8_t *pos_of(const struct lossless_ctx *c, enum state_field f)
{
        if (!c->pos)
                return NULL;
        return f == STATE_FIELD_PFC ? c->pos->pfc : f == STATE_FIELD_ECN ? c->pos->ecn : c->pos->host_ecn;
}

/* ---- paths ---- */

static size_t catf(char *buf, size_t size, size_t o, const char *fmt, ...) _printf_(4, 5);
static size_t catf(char *buf, size_t size, size_t o, const char *fmt, ...)
{
        va_list ap;
        int n;

        if (o >= size)
                return o;
        va_start(ap, fmt);
        n = vsnprintf(buf + o, size - o, fmt, ap);
        va_end(ap);
        return n < 0 ? o : o + (size_t)n;
}

static const char *bits_text(uint8_t bits, char *buf, size_t size)
{
        size_t o = catf(buf, size, 0, "[");

        for (unsigned i = 0; i < 8; i++)
                if (bits & (1u << i))
                        o = catf(buf, size, o, "%s%u", o > 1 ? "," : "", i);
        catf(buf, size, o, "]");
        return buf;
}

/* The path of one element of a bitmap array field: "$.spec.pfc.priorities[0]" or "pfc.priorities (live: [3])". */
static const char *elem_path(char *buf, size_t size, const struct lossless_ctx *c, enum state_field f,
                             const char *member, uint8_t bits, unsigned v)
{
        char t[32];

        if (declared(c, f))
                snprintf(buf, size, "$.spec.%s[%d]", member, index_of(pos_of(c, f), bits, v));
        else
                snprintf(buf, size, "%s (live: %s)", member, bits_text(bits, t, sizeof(t)));
        return buf;
}

/* Every element of a bitmap array field: "$.spec.pfc.priorities[0] = 4, ..." or "= []" or the live set. */
static const char *set_path(char *buf, size_t size, const struct lossless_ctx *c, enum state_field f,
                            const char *member, uint8_t bits)
{
        size_t o = 0;
        char t[32];

        if (!declared(c, f)) {
                snprintf(buf, size, "%s (live: %s)", member, bits_text(bits, t, sizeof(t)));
                return buf;
        }
        if (!bits) {
                snprintf(buf, size, "$.spec.%s = []", member);
                return buf;
        }
        buf[0] = '\0';
        for (unsigned v = 0; v < 8; v++)
                if (bits & (1u << v))
                        o = catf(buf, size, o, "%s$.spec.%s[%d] = %u", o ? ", " : "", member,
                                 index_of(pos_of(c, f), bits, v), v);
        return buf;
}

/* A scalar member: "$.spec.host_ecn.cnp_dscp" or "host_ecn.cnp_dscp (live: 48)". */
static const char *member_path(char *buf, size_t size, const struct lossless_ctx *c, enum state_field f,
                               const char *member, unsigned live)
{
        if (declared(c, f))
                snprintf(buf, size, "$.spec.%s", member);
        else
                snprintf(buf, size, "%s (live: %u)", member, live);
        return buf;
}

/* The map entry of a DSCP: "$.spec.dscp_to_priority.26" or "dscp_to_priority.26 (live: 3)". */
static const char *dscp_path(char *buf, size_t size, const struct state *s, const struct lossless_ctx *c,
                             unsigned d)
{
        int p = prio_of(s, c, d);

        if (declared(c, STATE_FIELD_DSCP_MAP) && s->dscp_prio[d] < STATE_PRIO_COUNT)
                snprintf(buf, size, "$.spec.dscp_to_priority.%u", d);
        else if (declared(c, STATE_FIELD_DSCP_MAP))
                snprintf(buf, size, "$.spec.dscp_to_priority");
        else if (p >= 0)
                snprintf(buf, size, "dscp_to_priority.%u (live: %d)", d, p);
        else
                snprintf(buf, size, "dscp_to_priority.%u (live: unmapped)", d);
        return buf;
}

/* ---- the report ---- */

static struct lossless_violation *add(struct lossless_report *r, const struct lossless_ctx *c,
                                      enum lossless_code code, const char *key)
{
        struct lossless_violation *x;

        if ((c->allow & LOSSLESS_BIT(code)) || r->n >= LOSSLESS_VIOLATIONS_MAX || lossless_has(r, code, key))
                return NULL;
        x = &r->v[r->n++];
        memset(x, 0, sizeof(*x));
        x->code = code;
        strcopy(x->key, sizeof(x->key), key);
        return x;
}

/* where and "code: text" of a new violation (text formatted). */
static void say(struct lossless_violation *x, const char *where, const char *fmt, ...) _printf_(3, 4);
static void say(struct lossless_violation *x, const char *where, const char *fmt, ...)
{
        size_t o = (size_t)snprintf(x->msg, sizeof(x->msg), "%s: ", names[x->code]);
        va_list ap;

        strcopy(x->where, sizeof(x->where), where);
        va_start(ap, fmt);
        vsnprintf(x->msg + o, sizeof(x->msg) - o, fmt, ap);
        va_end(ap);
}

/* ---- pfc_priority_unmapped ---- */

/* "0-25,27-47" of the code points in bits. */
static size_t ranges(char *buf, size_t size, size_t o, uint64_t bits)
{
        bool first = true;

        for (unsigned d = 0; d < STATE_DSCP_COUNT; d++) {
                unsigned e = d;

                if (!(bits & (UINT64_C(1) << d)))
                        continue;
                while (e + 1 < STATE_DSCP_COUNT && (bits & (UINT64_C(1) << (e + 1))))
                        e++;
                o = e > d ? catf(buf, size, o, "%s%u-%u", first ? "" : ",", d, e) :
                            catf(buf, size, o, "%s%u", first ? "" : ",", d);
                first = false;
                d = e;
        }
        return o;
}

/*
 * The map's entries that send a DSCP to a priority without PFC: where the lossless
 * DSCPs went instead. A document's by path, a device's (often a whole table) by priority.
 */
static const char *lossy_entries(char *buf, size_t size, const struct state *s, const struct lossless_ctx *c)
{
        unsigned n = 0;
        size_t o = 0;

        buf[0] = '\0';
        for (unsigned p = 0; !declared(c, STATE_FIELD_DSCP_MAP) && p < STATE_PRIO_COUNT; p++) {
                uint64_t bits = 0;

                for (unsigned d = 0; d < STATE_DSCP_COUNT; d++)
                        if (s->dscp_prio[d] == p && !(s->pfc_enabled & (1u << p)))
                                bits |= UINT64_C(1) << d;
                if (bits) {
                        o = catf(buf, size, o, "%sDSCP ", o ? ", " : "dscp_to_priority (live): ");
                        o = ranges(buf, size, o, bits);
                        o = catf(buf, size, o, " = %u", p);
                }
        }
        for (unsigned d = 0; declared(c, STATE_FIELD_DSCP_MAP) && d < STATE_DSCP_COUNT; d++) {
                uint8_t p = s->dscp_prio[d];

                if (p >= STATE_PRIO_COUNT || (s->pfc_enabled & (1u << p)))
                        continue;
                if (n++ == LIST_MAX) {
                        o = catf(buf, size, o, ", ...");
                        break;
                }
                o = catf(buf, size, o, "%s$.spec.dscp_to_priority.%u = %u", o ? ", " : "", d, p);
        }
        return buf;
}

static void check_pfc_unmapped(const struct state *s, const struct lossless_ctx *c, struct lossless_report *r)
{
        char where[80], others[320], key[16];

        if (!has(s, STATE_FIELD_PFC) || !has(s, STATE_FIELD_DSCP_MAP) || !has(s, STATE_FIELD_TRUST) ||
            s->trust != STATE_TRUST_DSCP || !map_complete(s, c))
                return;
        for (unsigned p = 0; p < STATE_PRIO_COUNT; p++) {
                struct lossless_violation *x;
                bool reached = false;

                if (!(s->pfc_enabled & (1u << p)))
                        continue;
                for (unsigned d = 0; d < STATE_DSCP_COUNT && !reached; d++)
                        reached = prio_of(s, c, d) == (int)p;
                snprintf(key, sizeof(key), "p%u", p);
                if (reached || !(x = add(r, c, LOSSLESS_PFC_UNMAPPED, key)))
                        continue;
                lossy_entries(others, sizeof(others), s, c);
                elem_path(where, sizeof(where), c, STATE_FIELD_PFC, "pfc.priorities", s->pfc_enabled, p);
                if (!declared(c, STATE_FIELD_PFC) && declared(c, STATE_FIELD_DSCP_MAP))
                        strcopy(where, sizeof(where), "$.spec.dscp_to_priority");
                say(x, where,
                    "priority %u has PFC, but no DSCP of %s maps to it while trust is dscp: no traffic reaches its "
                    "lossless queue%s%s%s", p, declared(c, STATE_FIELD_DSCP_MAP) ? "$.spec.dscp_to_priority" :
                    "dscp_to_priority (live)", others[0] ? " (" : "", others, others[0] ? " map elsewhere)" : "");
        }
}

/* ---- roce_priority_lossy ---- */

int lossless_dscp_lossy(const struct state *s, const struct lossless_ctx *c, unsigned dscp, const char *path,
                        struct lossless_violation *ret)
{
        char a[80], b[320];
        int p;

        if (dscp >= STATE_DSCP_COUNT || !has(s, STATE_FIELD_PFC) || !has(s, STATE_FIELD_DSCP_MAP) ||
            !dscp_trusted(s, !c->document))
                return 0;
        p = prio_of(s, c, dscp);
        if (p >= 0 && (s->pfc_enabled & (1u << p)))
                return 0;
        if (p < 0 && !c->document)
                return 0;               /* a code point the device's default maps: nobody can tell */
        memset(ret, 0, sizeof(*ret));
        ret->code = LOSSLESS_ROCE_LOSSY;
        snprintf(ret->key, sizeof(ret->key), "dscp%u", dscp);
        dscp_path(a, sizeof(a), s, c, dscp);
        set_path(b, sizeof(b), c, STATE_FIELD_PFC, "pfc.priorities", s->pfc_enabled);
        if (p < 0)
                say(ret, a, "the RoCE DSCP %u (%s) has no entry in the map: RoCE rides no lossless priority (PFC: %s)",
                    dscp, path, b);
        else
                say(ret, a, "the RoCE DSCP %u (%s) maps to priority %d, which has no PFC (%s): RoCE is not lossless",
                    dscp, path, p, b);
        return 1;
}

static void check_roce_lossy(const struct state *s, const struct lossless_ctx *c, struct lossless_report *r)
{
        struct lossless_violation v, *x;
        char path[80];
        int dscp = c->roce_dscp;

        if (has(s, STATE_FIELD_ROCE_TOS)) {
                dscp = s->roce_tos >> 2;
                member_path(path, sizeof(path), c, STATE_FIELD_ROCE_TOS, "roce_tos", s->roce_tos);
                catf(path, sizeof(path), strlen(path), " %u >> 2", s->roce_tos);
        } else {
                strcopy(path, sizeof(path), c->roce_dscp_path ? c->roce_dscp_path : "the RoCE DSCP");
        }
        if (dscp >= 0 && lossless_dscp_lossy(s, c, (unsigned)dscp, path, &v) && (x = add(r, c, LOSSLESS_ROCE_LOSSY, v.key)))
                *x = v;
}

/* ---- ecn_queue_not_lossless ---- */

static void check_ecn_queue(const struct state *s, const struct lossless_ctx *c, struct lossless_report *r)
{
        char where[80], lossless[80], via[80], key[16], t[32];

        if (!has(s, STATE_FIELD_ECN) || !has(s, STATE_FIELD_PFC))
                return;
        for (unsigned p = 0; p < STATE_PRIO_COUNT; p++) {
                unsigned q = tc_of(s, p);
                bool listed = s->ecn.queues & (1u << q);
                struct lossless_violation *x;

                if (!(s->pfc_enabled & (1u << p)) || (listed && s->ecn.q[q].enabled) || (!listed && !c->document))
                        continue;
                snprintf(key, sizeof(key), "q%u", q);
                if (!(x = add(r, c, LOSSLESS_ECN_QUEUE, key)))
                        continue;
                elem_path(lossless, sizeof(lossless), c, STATE_FIELD_PFC, "pfc.priorities", s->pfc_enabled, p);
                if (has(s, STATE_FIELD_ETS))
                        snprintf(via, sizeof(via), "%s[%u] = %u", declared(c, STATE_FIELD_ETS) ?
                                 "$.spec.ets.priority_to_tc" : "ets.priority_to_tc (live)", p, q);
                else
                        snprintf(via, sizeof(via), "the switches' default mapping");
                if (!declared(c, STATE_FIELD_ECN) && declared(c, STATE_FIELD_PFC))
                        snprintf(where, sizeof(where), "$.spec.pfc.priorities[%d]",
                                 index_of(pos_of(c, STATE_FIELD_PFC), s->pfc_enabled, p));
                else if (listed)
                        snprintf(where, sizeof(where), "%s", declared(c, STATE_FIELD_ECN) ? "$.spec.ecn.enabled" :
                                 "ecn (live)");
                else
                        snprintf(where, sizeof(where), "%s", declared(c, STATE_FIELD_ECN) ? "$.spec.ecn.queues" :
                                 "ecn (live)");
                say(x, where, "priority %u is lossless (%s) and rides traffic class %u (%s), but queue %u %s%s%s: "
                    "congestion there is only paused, never signalled", p, lossless, q, via, q,
                    listed ? "has ECN marking off" : "is not one of the ECN queues ",
                    listed ? "" : bits_text(s->ecn.queues, t, sizeof(t)),
                    declared(c, STATE_FIELD_ECN) ? "" : " (ecn, live)");
        }
}

/* ---- host_ecn_priority_mismatch ---- */

static void host_ecn_one(const struct state *s, const struct lossless_ctx *c, struct lossless_report *r, unsigned p)
{
        const struct state_host_ecn *h = &s->host_ecn;
        bool lossless = s->pfc_enabled & (1u << p), described = h->prios & (1u << p);
        bool rp = (h->rp_enabled >> p) & 1, np = (h->np_enabled >> p) & 1;
        char a[80], b[320], key[16];
        struct lossless_violation *x;

        if (lossless && (described ? !(rp && np) : c->document)) {
                snprintf(key, sizeof(key), "off%u", p);
                if (!(x = add(r, c, LOSSLESS_HOST_ECN, key)))
                        return;
                elem_path(a, sizeof(a), c, STATE_FIELD_PFC, "pfc.priorities", s->pfc_enabled, p);
                if (described && declared(c, STATE_FIELD_HOST_ECN))
                        snprintf(b, sizeof(b), "$.spec.host_ecn.%s = false", !rp ? "reaction_point" : "notification_point");
                else if (described)
                        snprintf(b, sizeof(b), "host_ecn.priority%u (live: %s off)", p,
                                 !rp ? "reaction point" : "notification point");
                else
                        set_path(b, sizeof(b), c, STATE_FIELD_HOST_ECN, "host_ecn.priorities", h->prios);
                if (!declared(c, STATE_FIELD_PFC) && declared(c, STATE_FIELD_HOST_ECN))
                        say(x, !described ? "$.spec.host_ecn.priorities" : !rp ? "$.spec.host_ecn.reaction_point" :
                            "$.spec.host_ecn.notification_point", "DCQCN is off for priority %u (%s), "
                            "which is lossless (%s): its senders never slow down before PFC pauses them", p, b, a);
                else
                        say(x, a, "priority %u is lossless but has no DCQCN (%s): its senders never slow down before "
                            "PFC pauses them", p, b);
        } else if (!lossless && described && (rp || np)) {
                snprintf(key, sizeof(key), "on%u", p);
                if (!(x = add(r, c, LOSSLESS_HOST_ECN, key)))
                        return;
                elem_path(a, sizeof(a), c, STATE_FIELD_HOST_ECN, "host_ecn.priorities", h->prios, p);
                set_path(b, sizeof(b), c, STATE_FIELD_PFC, "pfc.priorities", s->pfc_enabled);
                say(x, a, "DCQCN is on for priority %u, which is not lossless (%s): its rate control answers "
                    "congestion of a class PFC does not protect", p, b);
        }
}

static void check_host_ecn(const struct state *s, const struct lossless_ctx *c, struct lossless_report *r)
{
        if (!has(s, STATE_FIELD_HOST_ECN) || !has(s, STATE_FIELD_PFC))
                return;
        if (!s->host_ecn.prios && !c->document)
                return;                 /* no per-priority enables here (mlx5 debugfs): nothing to compare */
        for (unsigned p = 0; p < STATE_PRIO_COUNT; p++)
                host_ecn_one(s, c, r, p);
}

/* ---- cnp_dscp_unmapped ---- */

static void check_cnp(const struct state *s, const struct lossless_ctx *c, struct lossless_report *r)
{
        const struct state_host_ecn *h = &s->host_ecn;
        char a[80], b[80], d[80], key[16];
        struct lossless_violation *x;
        int p;

        if (!has(s, STATE_FIELD_HOST_ECN) || !h->has_cnp || !has(s, STATE_FIELD_DSCP_MAP) ||
            !dscp_trusted(s, !c->document) || h->cnp_dscp >= STATE_DSCP_COUNT)
                return;
        p = prio_of(s, c, h->cnp_dscp);
        if (p == h->cnp_prio || (p < 0 && !c->document))
                return;
        snprintf(key, sizeof(key), "dscp%u", h->cnp_dscp);
        if (!(x = add(r, c, LOSSLESS_CNP_DSCP, key)))
                return;
        member_path(a, sizeof(a), c, STATE_FIELD_HOST_ECN, "host_ecn.cnp_dscp", h->cnp_dscp);
        member_path(b, sizeof(b), c, STATE_FIELD_HOST_ECN, "host_ecn.cnp_priority", h->cnp_prio);
        dscp_path(d, sizeof(d), s, c, h->cnp_dscp);
        if (p < 0)
                say(x, a, "CNPs are sent with DSCP %u, which the map does not list (%s), while %s says priority %u",
                    h->cnp_dscp, d, b, h->cnp_prio);
        else
                say(x, a, "CNPs are sent with DSCP %u, which %s maps to priority %d, while %s says priority %u: the "
                    "switch queues them apart from where the NIC puts them", h->cnp_dscp, d, p, b, h->cnp_prio);
}

/* ---- lossless_tc_no_bandwidth ---- */

static void check_tc_bandwidth(const struct state *s, const struct lossless_ctx *c, struct lossless_report *r)
{
        char where[80], a[80], key[16];

        if (!has(s, STATE_FIELD_ETS) || !has(s, STATE_FIELD_PFC))
                return;
        for (unsigned p = 0; p < STATE_PRIO_COUNT; p++) {
                unsigned tc = s->ets.prio_tc[p] % STATE_TC_COUNT;
                struct lossless_violation *x;

                if (!(s->pfc_enabled & (1u << p)) || s->ets.tc_tsa[tc] != STATE_TSA_ETS || s->ets.tc_bw_pct[tc])
                        continue;
                snprintf(key, sizeof(key), "tc%u", tc);
                if (!(x = add(r, c, LOSSLESS_TC_BANDWIDTH, key)))
                        continue;
                elem_path(a, sizeof(a), c, STATE_FIELD_PFC, "pfc.priorities", s->pfc_enabled, p);
                if (declared(c, STATE_FIELD_ETS))
                        snprintf(where, sizeof(where), "$.spec.ets.tc_bandwidth_pct[%u]", tc);
                else if (declared(c, STATE_FIELD_PFC))
                        strcopy(where, sizeof(where), a);
                else
                        snprintf(where, sizeof(where), "ets.tc_bandwidth_pct[%u] (live: 0)", tc);
                say(x, where, "traffic class %u gets 0%% under ets, but lossless priority %u (%s) rides it "
                    "(%s[%u] = %u): it is served only when every other class is idle", tc, p, a,
                    declared(c, STATE_FIELD_ETS) ? "$.spec.ets.priority_to_tc" : "ets.priority_to_tc (live)", p, tc);
        }
}

void lossless_check(const struct state *s, const struct lossless_ctx *ctx, struct lossless_report *ret)
{
        static void (*const checks[LOSSLESS_CODE_MAX])(const struct state *, const struct lossless_ctx *,
                                                       struct lossless_report *) = {
                [LOSSLESS_PFC_UNMAPPED] = check_pfc_unmapped,
                [LOSSLESS_ROCE_LOSSY] = check_roce_lossy,
                [LOSSLESS_ECN_QUEUE] = check_ecn_queue,
                [LOSSLESS_HOST_ECN] = check_host_ecn,
                [LOSSLESS_CNP_DSCP] = check_cnp,
                [LOSSLESS_TC_BANDWIDTH] = check_tc_bandwidth,
        };

        ret->n = 0;
        for (unsigned c = 0; c < LOSSLESS_CODE_MAX; c++)
                if (!(ctx->allow & LOSSLESS_BIT(c)))
                        checks[c](s, ctx, ret);
}
