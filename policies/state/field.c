/* SPDX-License-Identifier: MIT */
/* The field table (see field.h): one comparator, copier and rule check per knob. */
#include <jansson.h>

#include "common/util.h"
#include "policies/state/field.h"
#include "policies/state/field_internal.h"
#include "policies/state/state_text.h"
#include "policies/state/state_json.h"

/* ---- value formatting local to the table ---- */

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

/* ---- mtu, trust, pfc ---- */

static int diff_mtu(struct diff *d, const char *prefix, const struct state *want, const struct state *live)
{
        char key[DIFF_KEY_MAX];

        return diff_u(d, STATE_FIELD_MTU, strcat2(key, DIFF_KEY_MAX, prefix, "mtu"), live->mtu, want->mtu);
}

static void copy_mtu(struct state *to, const struct state *from)
{
        to->mtu = from->mtu;
}

static int diff_trust(struct diff *d, const char *prefix, const struct state *want, const struct state *live)
{
        char key[DIFF_KEY_MAX];

        if (want->trust == live->trust)
                return 0;
        return diff_add(d, STATE_FIELD_TRUST, strcat2(key, DIFF_KEY_MAX, prefix, "trust"), state_trust_name(live->trust),
                        state_trust_name(want->trust));
}

static void copy_trust(struct state *to, const struct state *from)
{
        to->trust = from->trust;
}

static int diff_pfc(struct diff *d, const char *prefix, const struct state *want, const struct state *live)
{
        char key[DIFF_KEY_MAX], a[24], b[24];

        if (want->pfc_enabled == live->pfc_enabled)
                return 0;
        return diff_add(d, STATE_FIELD_PFC, keyf(key, prefix, "pfc.priorities"),
                        fmt_bits(a, sizeof(a), live->pfc_enabled), fmt_bits(b, sizeof(b), want->pfc_enabled));
}

static void copy_pfc(struct state *to, const struct state *from)
{
        to->pfc_enabled = from->pfc_enabled;
}

/* ---- dscp_to_priority: the map is exact, unlisted code points are "unset" ---- */

static const char *dscp_value(char *buf, size_t size, uint8_t v)
{
        return v == STATE_DSCP_UNMAPPED ? "unset" : fmt_u(buf, size, v);
}

/* Code points a policy does not list, all going to priority 0: one entry "dscp_to_priority.others". */
static int diff_dscp_others(struct diff *d, const char *prefix, const struct state *want, const struct state *live)
{
        unsigned differ = 0, unset = 0;
        char key[DIFF_KEY_MAX], from[DIFF_VALUE_MAX];

        for (unsigned i = 0; i < STATE_DSCP_COUNT; i++) {
                if (want->dscp_prio[i] != STATE_DSCP_UNMAPPED || live->dscp_prio[i] == 0)
                        continue;
                differ++;
                unset += live->dscp_prio[i] == STATE_DSCP_UNMAPPED;
        }
        if (!differ)
                return 0;
        if (unset == differ)
                snprintf(from, sizeof(from), "unset (%u code points)", differ);
        else
                snprintf(from, sizeof(from), "%u code points not at priority 0", differ);
        return diff_add(d, STATE_FIELD_DSCP_MAP, keyf(key, prefix, "dscp_to_priority.others"), from, "0");
}

#define DSCP_LISTED_MAX 8                /* more differing code points are grouped by change */

/* "dscp_to_priority.{0-25,27-47,49-63}": one entry per (from, to) pair. */
static int diff_dscp_grouped(struct diff *d, const char *prefix, const struct state *want, const struct state *live,
                             uint64_t differ)
{
        int r = 0;

        while (differ && r >= 0) {
                unsigned first = (unsigned)__builtin_ctzll(differ);
                uint8_t from = live->dscp_prio[first], to = want->dscp_prio[first];
                char key[DIFF_KEY_MAX], a[8], b[8];
                size_t o = strlen(keyf(key, prefix, "dscp_to_priority.{"));
                bool sep = false;

                for (unsigned i = first; i < STATE_DSCP_COUNT; i++) {
                        unsigned j = i;

                        if (!(differ & (1ull << i)) || live->dscp_prio[i] != from || want->dscp_prio[i] != to)
                                continue;
                        while (j + 1 < STATE_DSCP_COUNT && (differ & (1ull << (j + 1))) &&
                               live->dscp_prio[j + 1] == from && want->dscp_prio[j + 1] == to)
                                j++;
                        for (unsigned k = i; k <= j; k++)
                                differ &= ~(1ull << k);
                        if (o < sizeof(key))
                                o += (size_t)(j > i ? snprintf(key + o, sizeof(key) - o, "%s%u-%u", sep ? "," : "", i, j) :
                                                      snprintf(key + o, sizeof(key) - o, "%s%u", sep ? "," : "", i));
                        sep = true;
                        i = j;
                }
                if (o + 2 > sizeof(key))
                        memcpy(key + sizeof(key) - 5, "...}", 5);
                else
                        memcpy(key + o, "}", 2);
                if (!strpbrk(strrchr(key, '{'), ",-."))  /* a single code point keeps its plain key */
                        keyf(key, prefix, "dscp_to_priority.%u", first);
                r = diff_add(d, STATE_FIELD_DSCP_MAP, key, dscp_value(a, sizeof(a), from), dscp_value(b, sizeof(b), to));
        }
        return r;
}

/*
 * The map is exact. On a host NIC (live read by the DCB driver) a policy's map
 * means every code point: the unlisted ones at priority 0, reported as one entry.
 */
static int diff_dscp(struct diff *d, const char *prefix, const struct state *want, const struct state *live)
{
        bool others = want->dscp_unlisted_zero && live->dcb.present;
        uint8_t eff[STATE_DSCP_COUNT];
        char key[DIFF_KEY_MAX], a[8], b[8];
        uint64_t differ = 0;
        int r = 0;

        state_dscp_effective(want, eff);
        for (unsigned i = 0; i < STATE_DSCP_COUNT; i++)
                if (live->dscp_prio[i] != want->dscp_prio[i] && !(others && want->dscp_prio[i] == STATE_DSCP_UNMAPPED))
                        differ |= 1ull << i;
        if (__builtin_popcountll(differ) > DSCP_LISTED_MAX)
                r = diff_dscp_grouped(d, prefix, want, live, differ);
        for (unsigned i = 0; i < STATE_DSCP_COUNT && r >= 0 && __builtin_popcountll(differ) <= DSCP_LISTED_MAX; i++) {
                if (!(differ & (1ull << i)))
                        continue;
                r = diff_add(d, STATE_FIELD_DSCP_MAP, keyf(key, prefix, "dscp_to_priority.%u", i),
                             dscp_value(a, sizeof(a), live->dscp_prio[i]), dscp_value(b, sizeof(b), want->dscp_prio[i]));
        }
        if (r >= 0 && others && eff[0] != STATE_DSCP_UNMAPPED)
                r = diff_dscp_others(d, prefix, want, live);
        return r;
}

static void copy_dscp(struct state *to, const struct state *from)
{
        memcpy(to->dscp_prio, from->dscp_prio, sizeof(to->dscp_prio));
        to->dscp_unlisted_zero = from->dscp_unlisted_zero;
}

static int check_dscp(const struct state *s, struct field_problem *ret)
{
        for (unsigned i = 0; i < STATE_DSCP_COUNT; i++)
                if (s->dscp_prio[i] != STATE_DSCP_UNMAPPED && s->dscp_prio[i] >= STATE_PRIO_COUNT) {
                        snprintf(ret->member, sizeof(ret->member), "%u", i);
                        ret->index = -1;
                        snprintf(ret->msg, sizeof(ret->msg), "priority %u out of range 0-7", s->dscp_prio[i]);
                        return -EINVAL;
                }
        return 0;
}

/* ---- ets ---- */

static int diff_u8s(struct diff *d, const char *key, const uint8_t *from, const uint8_t *to, unsigned n,
                    bool tsa)
{
        char a[DIFF_VALUE_MAX], b[DIFF_VALUE_MAX];

        if (!memcmp(from, to, n))
                return 0;
        return diff_add(d, STATE_FIELD_ETS, key, fmt_u8s(a, sizeof(a), from, n, tsa),
                        fmt_u8s(b, sizeof(b), to, n, tsa));
}

/*
 * Bandwidth is compared on the classes the desired state shares by ets only: a
 * strict class has no share, and devices report what they like for it (mlx5
 * reports 100 for every strict TC, en_dcbnl.c mlx5e_build_tc_tx_bw()).
 */
static bool ets_bw_equal(const struct state_ets *want, const struct state_ets *live)
{
        for (unsigned tc = 0; tc < STATE_TC_COUNT; tc++)
                if (want->tc_tsa[tc] == STATE_TSA_ETS && want->tc_bw_pct[tc] != live->tc_bw_pct[tc])
                        return false;
        return true;
}

static int diff_ets(struct diff *d, const char *prefix, const struct state *want_s, const struct state *live_s)
{
        const struct state_ets *want = &want_s->ets, *live = &live_s->ets;
        char key[DIFF_KEY_MAX], a[DIFF_VALUE_MAX], b[DIFF_VALUE_MAX];
        uint8_t live_bw[STATE_TC_COUNT];
        int r;

        r = diff_u8s(d, keyf(key, prefix, "ets.priority_to_tc"), live->prio_tc, want->prio_tc, STATE_PRIO_COUNT,
                     false);
        /*
         * shown as `state` reads it: a class the device does not run as ets has no share, whatever
         * it reports (state_text_ets_shares()); the wanted side's strict classes are 0 already
         */
        for (unsigned tc = 0; tc < STATE_TC_COUNT; tc++)
                live_bw[tc] = live->tc_tsa[tc] == STATE_TSA_ETS ? live->tc_bw_pct[tc] : 0;
        if (r >= 0 && !ets_bw_equal(want, live))
                r = diff_add(d, STATE_FIELD_ETS, keyf(key, prefix, "ets.tc_bandwidth_pct"),
                             fmt_u8s(a, sizeof(a), live_bw, STATE_TC_COUNT, false),
                             fmt_u8s(b, sizeof(b), want->tc_bw_pct, STATE_TC_COUNT, false));
        if (r >= 0)
                r = diff_u8s(d, keyf(key, prefix, "ets.tc_tsa"), live->tc_tsa, want->tc_tsa, STATE_TC_COUNT, true);
        if (r >= 0 && want->willing != live->willing)
                r = diff_add(d, STATE_FIELD_ETS, keyf(key, prefix, "ets.willing"), fmt_bool(live->willing),
                             fmt_bool(want->willing));
        return r;
}

static void copy_ets(struct state *to, const struct state *from)
{
        to->ets = from->ets;
}

/* Strict classes carry no bandwidth; the ets classes share exactly 100%. */
static int check_ets(const struct state *s, struct field_problem *ret)
{
        unsigned sum = 0, n_ets = 0;

        for (unsigned tc = 0; tc < STATE_TC_COUNT; tc++) {
                if (s->ets.prio_tc[tc] >= STATE_TC_COUNT) {
                        snprintf(ret->member, sizeof(ret->member), "priority_to_tc");
                        ret->index = (int)tc;
                        snprintf(ret->msg, sizeof(ret->msg), "tc %u out of range 0-7", s->ets.prio_tc[tc]);
                        return -EINVAL;
                }
                if (s->ets.tc_tsa[tc] == STATE_TSA_ETS) {
                        sum += s->ets.tc_bw_pct[tc];
                        n_ets++;
                } else if (s->ets.tc_bw_pct[tc]) {
                        snprintf(ret->member, sizeof(ret->member), "tc_bandwidth_pct");
                        ret->index = (int)tc;
                        snprintf(ret->msg, sizeof(ret->msg), "bandwidth %u of strict tc %u must be 0",
                                 s->ets.tc_bw_pct[tc], tc);
                        return -EINVAL;
                }
        }
        if (n_ets && sum != 100) {
                snprintf(ret->member, sizeof(ret->member), "tc_bandwidth_pct");
                ret->index = -1;
                snprintf(ret->msg, sizeof(ret->msg), "tc_bandwidth_pct of ets classes sums to %u, expected 100", sum);
                return -EINVAL;
        }
        return 0;
}

/* ---- ecn: per switch queue ---- */

/*
 * One listed queue. Marking on: enabled and the three numbers are compared (a live
 * queue that does not mark shows them as "unset"). Marking off: only whether the
 * live queue marks; its thresholds are not the policy's business.
 */
static int diff_ecn_queue(struct diff *d, const char *prefix, unsigned i, const struct state_ecn_queue *want,
                          const struct state_ecn_queue *live, bool has)
{
        static const char *const names[] = { "min_threshold_bytes", "max_threshold_bytes", "mark_probability_pct" };
        const unsigned long w[] = { want->min_bytes, want->max_bytes, want->probability_pct };
        const unsigned long l[] = { live->min_bytes, live->max_bytes, live->probability_pct };
        bool marks = has && live->enabled;
        char key[DIFF_KEY_MAX], a[24], b[24];
        int r;

        if (!want->enabled)
                return marks ? diff_add(d, STATE_FIELD_ECN, keyf(key, prefix, "ecn.queue%u.enabled", i), "true",
                                        "false") : 0;
        r = diff_opt(d, STATE_FIELD_ECN, keyf(key, prefix, "ecn.queue%u.enabled", i), has, fmt_bool(live->enabled),
                     "true");
        for (unsigned k = 0; k < ARRAY_SIZE(names) && r >= 0; k++)
                r = diff_opt(d, STATE_FIELD_ECN, keyf(key, prefix, "ecn.queue%u.%s", i, names[k]), marks,
                             fmt_u(a, sizeof(a), l[k]), fmt_u(b, sizeof(b), w[k]));
        return r;
}

/*
 * Only the queues the policy lists are managed: "these queues get these settings".
 * A queue it does not list is never compared, so it is never a change, never drift
 * and never written (switch drivers send nothing for it).
 */
static int diff_ecn(struct diff *d, const char *prefix, const struct state *want_s, const struct state *live_s)
{
        const struct state_ecn *want = &want_s->ecn, *live = &live_s->ecn;
        int r = 0;

        for (unsigned i = 0; i < STATE_TC_COUNT && r >= 0; i++)
                if (want->queues & (1u << i))
                        r = diff_ecn_queue(d, prefix, i, &want->q[i], &live->q[i], live->queues & (1u << i));
        return r;
}

static void copy_ecn(struct state *to, const struct state *from)
{
        to->ecn = from->ecn;
}

/* The listed queues get their settings; the others keep what they have. */
static void merge_ecn(struct state *to, const struct state *from)
{
        if (!state_has(to, STATE_FIELD_ECN))
                to->ecn.queues = 0;
        for (unsigned q = 0; q < STATE_TC_COUNT; q++)
                if (from->ecn.queues & (1u << q))
                        to->ecn.q[q] = from->ecn.q[q];
        to->ecn.queues |= from->ecn.queues;
}

/* Marking thresholds of an enabled queue: 1 <= min <= max, probability 1-100. */
static int check_ecn(const struct state *s, struct field_problem *ret)
{
        for (unsigned q = 0; q < STATE_TC_COUNT; q++) {
                const struct state_ecn_queue *x = &s->ecn.q[q];

                if (!(s->ecn.queues & (1u << q)))
                        continue;
                if (x->min_bytes && x->max_bytes && x->min_bytes > x->max_bytes) {
                        ret->member[0] = '\0';
                        ret->index = -1;
                        snprintf(ret->msg, sizeof(ret->msg),
                                 "min_threshold_bytes %u is greater than max_threshold_bytes %u", x->min_bytes,
                                 x->max_bytes);
                        return -EINVAL;
                }
                if (x->enabled && (x->min_bytes == 0 || x->probability_pct < 1 || x->probability_pct > 100)) {
                        ret->member[0] = '\0';
                        ret->index = -1;
                        snprintf(ret->msg, sizeof(ret->msg),
                                 "queue %u: thresholds must be at least 1 byte and probability 1-100", q);
                        return -EINVAL;
                }
        }
        return 0;
}

/* ---- host_ecn: NIC DCQCN per priority ---- */

/* The DCQCN parameters want names, each on its own: host_ecn.dcqcn.rp_time_reset. */
static int diff_dcqcn(struct diff *d, const char *prefix, const struct state_host_ecn *want,
                      const struct state_host_ecn *live)
{
        char key[DIFF_KEY_MAX], a[16], b[16];
        int r = 0;

        for (unsigned p = 0; p < STATE_DCQCN_MAX && r >= 0; p++)
                if (want->dcqcn_set & (1u << p))
                        r = diff_opt(d, STATE_FIELD_HOST_ECN,
                                     keyf(key, prefix, "host_ecn.dcqcn.%s", state_dcqcn_params[p].name),
                                     live->dcqcn_set & (1u << p), fmt_u(a, sizeof(a), live->dcqcn[p]),
                                     fmt_u(b, sizeof(b), want->dcqcn[p]));
        return r;
}

static int diff_host_ecn(struct diff *d, const char *prefix, const struct state *want_s, const struct state *live_s)
{
        const struct state_host_ecn *want = &want_s->host_ecn, *live = &live_s->host_ecn;
        char key[DIFF_KEY_MAX], a[8], b[8];
        int r = 0;

        for (unsigned i = 0; i < STATE_PRIO_COUNT && r >= 0; i++) {
                bool has = live->prios & (1u << i);

                if (!(want->prios & (1u << i)))
                        continue;
                r = diff_opt(d, STATE_FIELD_HOST_ECN, keyf(key, prefix, "host_ecn.priority%u.reaction_point", i), has,
                             fmt_bool((live->rp_enabled >> i) & 1), fmt_bool((want->rp_enabled >> i) & 1));
                if (r >= 0)
                        r = diff_opt(d, STATE_FIELD_HOST_ECN,
                                     keyf(key, prefix, "host_ecn.priority%u.notification_point", i), has,
                                     fmt_bool((live->np_enabled >> i) & 1), fmt_bool((want->np_enabled >> i) & 1));
        }
        if (r >= 0 && want->has_cnp)
                r = diff_opt(d, STATE_FIELD_HOST_ECN, keyf(key, prefix, "host_ecn.cnp_dscp"), live->has_cnp,
                             fmt_u(a, sizeof(a), live->cnp_dscp), fmt_u(b, sizeof(b), want->cnp_dscp));
        if (r >= 0 && want->has_cnp)
                r = diff_opt(d, STATE_FIELD_HOST_ECN, keyf(key, prefix, "host_ecn.cnp_priority"), live->has_cnp,
                             fmt_u(a, sizeof(a), live->cnp_prio), fmt_u(b, sizeof(b), want->cnp_prio));
        /*
         * device detail: a snapshot carries it (a restore puts mlx5's mode back after the
         * priority); a policy's cnp_priority means mode 0 (the CNP's priority fixed, which a
         * write of np_cnp_prio sets: cong.c mlx5_ib_set_cc_param_mask_val()), so a live mode
         * other than 0 is a change of its own
         */
        if (r >= 0 && want->has_cnp && want->has_prio_mode && live->has_prio_mode)
                r = diff_opt(d, STATE_FIELD_HOST_ECN, keyf(key, prefix, "host_ecn.cnp_priority_mode"), true,
                             fmt_u(a, sizeof(a), live->cnp_prio_mode), fmt_u(b, sizeof(b), want->cnp_prio_mode));
        else if (r >= 0 && want->has_cnp && live->has_prio_mode && live->cnp_prio_mode)
                r = diff_opt(d, STATE_FIELD_HOST_ECN, keyf(key, prefix, "host_ecn.cnp_priority_mode"), true,
                             fmt_u(a, sizeof(a), live->cnp_prio_mode), "0");
        return r < 0 ? r : diff_dcqcn(d, prefix, want, live);
}

static void copy_host_ecn(struct state *to, const struct state *from)
{
        to->host_ecn = from->host_ecn;
}

/* The listed priorities get their enables (and the CNP marking, when given); the others keep theirs. */
static void merge_host_ecn(struct state *to, const struct state *from)
{
        struct state_host_ecn *t = &to->host_ecn;
        const struct state_host_ecn *f = &from->host_ecn;

        if (!state_has(to, STATE_FIELD_HOST_ECN))
                *t = (struct state_host_ecn){ 0 };
        t->rp_enabled = (uint8_t)((t->rp_enabled & ~f->prios) | (f->rp_enabled & f->prios));
        t->np_enabled = (uint8_t)((t->np_enabled & ~f->prios) | (f->np_enabled & f->prios));
        t->prios |= f->prios;
        if (f->has_cnp) {
                t->has_cnp = true;
                t->cnp_dscp = f->cnp_dscp;
                t->cnp_prio = f->cnp_prio;
        }
}

/* ---- roce_tos: the default ToS of every RDMA port behind an interface, where each holds one ---- */

static const char *fmt_tclass(char *buf, size_t size, int tclass)
{
        return tclass == STATE_TCLASS_UNSET ? "unset" : fmt_u(buf, size, (unsigned long)tclass);
}

/* One port: rdma_cm's default_roce_tos ("roce_tos.DEV/P") and MLNX_OFED's traffic_class (".traffic_class"). */
static int diff_rdma_port(struct diff *d, const char *prefix, const struct state_rdma_port *want,
                          const struct state_rdma_port *live)
{
        char key[DIFF_KEY_MAX], a[16], b[16];
        int r = 0;

        if (want->has_cm && live->has_cm && want->cm_tos != live->cm_tos)
                r = diff_add(d, STATE_FIELD_ROCE_TOS, keyf(key, prefix, "roce_tos.%s/%u", live->dev, live->port),
                             fmt_u(a, sizeof(a), live->cm_tos), fmt_u(b, sizeof(b), want->cm_tos));
        if (r >= 0 && want->has_ofed && live->has_ofed && want->ofed_tclass != live->ofed_tclass)
                r = diff_add(d, STATE_FIELD_ROCE_TOS,
                             keyf(key, prefix, "roce_tos.%s/%u.traffic_class", live->dev, live->port),
                             fmt_tclass(a, sizeof(a), live->ofed_tclass), fmt_tclass(b, sizeof(b), want->ofed_tclass));
        return r;
}

static const struct state_rdma_port *rdma_port_find(const struct state_roce *r, const struct state_rdma_port *x)
{
        for (unsigned i = 0; i < r->n_ports && i < STATE_RDMA_PORTS_MAX; i++)
                if (streq(r->ports[i].dev, x->dev) && r->ports[i].port == x->port)
                        return &r->ports[i];
        return NULL;
}

/*
 * A policy (no ports of its own) wants its value in every place of every live port; a
 * snapshot wants each port back as it read it (a port gone since is named, not skipped).
 */
static int diff_roce_tos(struct diff *d, const char *prefix, const struct state *want, const struct state *live)
{
        char key[DIFF_KEY_MAX], b[16];
        int r = 0;

        for (unsigned i = 0; !want->roce.n_ports && i < live->roce.n_ports && r >= 0; i++) {
                struct state_rdma_port w = { .has_cm = true, .cm_tos = want->roce_tos, .has_ofed = true,
                                             .ofed_tclass = want->roce_tos };

                r = diff_rdma_port(d, prefix, &w, &live->roce.ports[i]);
        }
        for (unsigned i = 0; i < want->roce.n_ports && i < STATE_RDMA_PORTS_MAX && r >= 0; i++) {
                const struct state_rdma_port *w = &want->roce.ports[i], *l = rdma_port_find(&live->roce, w);

                if (l)
                        r = diff_rdma_port(d, prefix, w, l);
                else
                        r = diff_add(d, STATE_FIELD_ROCE_TOS, keyf(key, prefix, "roce_tos.%s/%u", w->dev, w->port),
                                     "absent", fmt_u(b, sizeof(b), w->has_cm ? w->cm_tos : (unsigned)w->ofed_tclass));
        }
        return r;
}

static void copy_roce_tos(struct state *to, const struct state *from)
{
        to->roce_tos = from->roce_tos;
        to->roce = from->roce;
}

/* Every port gets the value: the ports stay the device's. */
static void merge_roce_tos(struct state *to, const struct state *from)
{
        to->roce_tos = from->roce_tos;
}

/* ---- a host NIC's DCB detail beyond the fields (a snapshot restores it exactly) ---- */

/* "host+ieee" for 0x09 (state_text.h), in a static buffer of the diff's (one at a time). */
static const char *dcbx_name(uint8_t dcbx)
{
        static _Thread_local char buf[64];

        return state_dcbx_names(dcbx, buf, sizeof(buf));
}

/* The first DCB field the wanted side manages: device detail differences are filed under it. */
static int dcb_owner(const struct state *want, enum state_field first)
{
        static const enum state_field order[] = { STATE_FIELD_TRUST, STATE_FIELD_DSCP_MAP,
                                                  STATE_FIELD_PFC, STATE_FIELD_ETS };

        if (state_has(want, first))
                return first;
        for (size_t i = 0; i < ARRAY_SIZE(order); i++)
                if (state_has(want, order[i]))
                        return order[i];
        return -1;
}

static void fmt_apps(char *buf, size_t size, const struct state_dcb_device *dd)
{
        size_t o = (size_t)snprintf(buf, size, "[");

        for (unsigned i = 0; i < dd->n_apps && o < size; i++)
                o += (size_t)snprintf(buf + o, size - o, "%s%u:%u", i ? "," : "", dd->apps[i].dscp, dd->apps[i].prio);
        if (o < size)
                snprintf(buf + o, size - o, "]");
}

static int app_cmp(const void *a, const void *b)
{
        const struct state_dcb_app *x = a, *y = b;

        return x->dscp != y->dscp ? x->dscp - y->dscp : x->prio - y->prio;
}

/* APP entries as a set: the kernel lists the newest first, and that order is not state. */
static bool same_apps(const struct state_dcb_device *x, const struct state_dcb_device *y)
{
        struct state_dcb_app a[STATE_DCB_APPS_MAX], b[STATE_DCB_APPS_MAX];

        if (x->n_apps != y->n_apps)
                return false;
        memcpy(a, x->apps, sizeof(a));
        memcpy(b, y->apps, sizeof(b));
        qsort(a, x->n_apps, sizeof(a[0]), app_cmp);
        qsort(b, y->n_apps, sizeof(b[0]), app_cmp);
        return !memcmp(a, b, x->n_apps * sizeof(a[0]));
}

/*
 * A policy's DCB change on a NIC whose DCBX is not host + IEEE: the driver switches it
 * first (drivers/host/dcb_driver.c, ensure_host_ieee), so the plan says so, under the
 * first DCB field that changes.
 */
static int diff_dcbx_switch(struct diff *d, const char *prefix, const struct state *live)
{
        enum { DCBX_HOST = 0x01, DCBX_IEEE = 0x08 };    /* DCB_CAP_DCBX_* of linux/dcbnl.h */
        static const enum state_field dcb[] = { STATE_FIELD_TRUST, STATE_FIELD_DSCP_MAP, STATE_FIELD_PFC,
                                                STATE_FIELD_ETS };
        char key[DIFF_KEY_MAX], a[DIFF_VALUE_MAX];
        const struct state_dcb_device *l = &live->dcb;

        if (!l->present || !l->has_dcbx || (l->dcbx & (DCBX_HOST | DCBX_IEEE)) == (DCBX_HOST | DCBX_IEEE))
                return 0;
        for (size_t i = 0; i < ARRAY_SIZE(dcb); i++)
                if (d->fields & STATE_BIT(dcb[i])) {
                        snprintf(a, sizeof(a), "%s (0x%02x)", dcbx_name(l->dcbx), l->dcbx);
                        return diff_add(d, dcb[i], keyf(key, prefix, "dcb_device.dcbx"), a, "host+ieee (0x09)");
                }
        return 0;
}

int field_diff_dcb_device(struct diff *d, const char *prefix, const struct state *want, const struct state *live)
{
        const struct state_dcb_device *w = &want->dcb, *l = &live->dcb;
        char key[DIFF_KEY_MAX], a[DIFF_VALUE_MAX], b[DIFF_VALUE_MAX];
        int f, r = 0;

        if (!w->present)                /* a policy: what the driver changes besides the fields */
                return diff_dcbx_switch(d, prefix, live);
        if (!l->present)
                return 0;
        f = dcb_owner(want, STATE_FIELD_TRUST);
        if (f >= 0 && w->has_dcbx && l->has_dcbx && w->dcbx != l->dcbx) {
                snprintf(a, sizeof(a), "%s (0x%02x)", dcbx_name(l->dcbx), l->dcbx);
                snprintf(b, sizeof(b), "%s (0x%02x)", dcbx_name(w->dcbx), w->dcbx);
                r = diff_add(d, f, keyf(key, prefix, "dcb_device.dcbx"), a, b);
        }
        /* the raw entries matter when the map reads the same (an entry where the driver's default would do) */
        f = dcb_owner(want, STATE_FIELD_DSCP_MAP);
        if (r >= 0 && f >= 0 && w->has_apps && l->has_apps && !(d->fields & STATE_BIT(STATE_FIELD_DSCP_MAP)) &&
            !same_apps(w, l)) {
                fmt_apps(a, sizeof(a), l);
                fmt_apps(b, sizeof(b), w);
                r = diff_add(d, f, keyf(key, prefix, "dcb_device.dscp_apps"), a, b);
        }
        f = dcb_owner(want, STATE_FIELD_TRUST);
        if (r >= 0 && f >= 0 && w->has_trust_table && l->has_trust_table &&
            (w->n_trust != l->n_trust || memcmp(w->trust_table, l->trust_table, w->n_trust)))
                r = diff_add(d, f, keyf(key, prefix, "dcb_device.trust_table"),
                             fmt_u8s(a, sizeof(a), l->trust_table, l->n_trust, false),
                             fmt_u8s(b, sizeof(b), w->trust_table, w->n_trust, false));
        return r;
}

#define BOTH (FIELD_ON_INTERFACE | FIELD_ON_SWITCH)

const struct field_ops field_table[STATE_FIELD_MAX] = {
        [STATE_FIELD_MTU] = { .name = "mtu", .on = BOTH, .diff = diff_mtu, .copy = copy_mtu },
        [STATE_FIELD_TRUST] = { .name = "trust", .on = BOTH, .diff = diff_trust, .copy = copy_trust },
        [STATE_FIELD_DSCP_MAP] = { .name = "dscp_to_priority", .on = BOTH, .diff = diff_dscp, .copy = copy_dscp,
                                   .check = check_dscp },
        [STATE_FIELD_PFC] = { .name = "pfc", .on = BOTH, .diff = diff_pfc, .copy = copy_pfc },
        [STATE_FIELD_ETS] = { .name = "ets", .on = FIELD_ON_INTERFACE, .diff = diff_ets, .copy = copy_ets,
                              .check = check_ets },
        [STATE_FIELD_ECN] = { .name = "ecn", .on = FIELD_ON_SWITCH, .diff = diff_ecn, .copy = copy_ecn,
                              .check = check_ecn, .merge = merge_ecn },
        [STATE_FIELD_HOST_ECN] = { .name = "host_ecn", .on = FIELD_ON_INTERFACE, .diff = diff_host_ecn,
                                   .copy = copy_host_ecn, .merge = merge_host_ecn },
        [STATE_FIELD_CABLE_LEN] = { .name = "pfc.cable_length_m", .on = BOTH, .diff = field_diff_cable_len,
                                    .copy = field_copy_cable_len },
        [STATE_FIELD_BUFFERS] = { .name = "buffers", .on = FIELD_ON_INTERFACE, .diff = field_diff_buffers,
                                  .copy = field_copy_buffers, .check = field_check_buffers },
        [STATE_FIELD_PFC_WATCHDOG] = { .name = "pfc.watchdog", .on = FIELD_ON_SWITCH, .diff = field_diff_pfc_wd,
                                       .copy = field_copy_pfc_wd, .check = field_check_pfc_wd },
        [STATE_FIELD_NIC_STALL] = { .name = "pfc.nic_stall_timeout_ms", .on = FIELD_ON_INTERFACE,
                                    .diff = field_diff_nic_stall, .copy = field_copy_nic_stall },
        [STATE_FIELD_ROCE_TOS] = { .name = "roce_tos", .on = FIELD_ON_INTERFACE, .diff = diff_roce_tos,
                                   .copy = copy_roce_tos, .merge = merge_roce_tos },
        [STATE_FIELD_NCCL] = { .name = "nccl", .on = FIELD_ON_INTERFACE, .diff = field_diff_nccl,
                               .copy = field_copy_nccl, .merge = field_merge_nccl },
};

/* ---- the walk over the fields: a whole difference ---- */

/* The member of j a field's (dotted) name says: "pfc.watchdog" is j.pfc.watchdog. */
static json_t *member(json_t *j, const char *name)
{
        char buf[64], *save = NULL;

        snprintf(buf, sizeof(buf), "%s", name);
        for (char *k = strtok_r(buf, ".", &save); j && k; k = strtok_r(NULL, ".", &save))
                j = json_object_get(j, k);
        return j;
}

/* The desired value of a whole field, compact JSON, for "unsupported" entries. */
static int add_unsupported(struct diff *d, const char *prefix, const struct state *desired, enum state_field f)
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
        j = state_to_json(one);
        if (j)
                s = json_dumps(member(j, state_field_name(f)), JSON_COMPACT | JSON_ENCODE_ANY | JSON_SORT_KEYS);
        if (s) {
                snprintf(to, sizeof(to), "%s", s);
                if (strlen(s) >= sizeof(to))
                        memcpy(to + sizeof(to) - 4, "...", 4);
                char key[DIFF_KEY_MAX];

                snprintf(key, sizeof(key), "%s%s", prefix, state_field_name(f));
                r = diff_add(d, f, key, "unsupported", to);
        }
        free(s);
        json_decref(j);
        free(one);
        return r;
}

int diff_append(struct diff *d, const char *prefix, const struct state *desired, const struct state *live)
{
        unsigned n = d->n;
        uint32_t fields = d->fields;
        int r = 0;

        for (int f = 0; f < STATE_FIELD_MAX && r >= 0; f++) {
                if (!state_has(desired, f))
                        continue;
                if (!state_has(live, f))
                        r = add_unsupported(d, prefix, desired, f);
                else
                        r = field_table[f].diff(d, prefix, desired, live);
        }
        if (r >= 0)
                r = field_diff_dcb_device(d, prefix, desired, live);
        if (r < 0) {
                d->n = n;
                d->fields = fields;
        }
        return r;
}

int state_diff(const struct state *desired, const struct state *live, struct diff *ret)
{
        struct diff d = { 0 };
        int r = diff_append(&d, "", desired, live);

        if (r < 0) {
                diff_done(&d);
                return r;
        }
        *ret = d;
        return 0;
}

uint32_t field_mask_on(unsigned on, uint32_t fields)
{
        uint32_t mask = 0;

        for (int f = 0; f < STATE_FIELD_MAX; f++)
                if (field_table[f].on & on)
                        mask |= STATE_BIT(f);
        return fields & mask;
}

uint32_t field_optional(const struct state *desired, uint32_t fields)
{
        uint32_t f = 0;

        if (state_has(desired, STATE_FIELD_HOST_ECN) && desired->host_ecn.optional)
                f |= STATE_BIT(STATE_FIELD_HOST_ECN);
        return f & fields;
}

void state_copy_fields(struct state *to, const struct state *from, uint32_t fields)
{
        fields &= from->present;
        for (int f = 0; f < STATE_FIELD_MAX; f++)
                if (fields & STATE_BIT(f))
                        field_table[f].copy(to, from);
        to->present |= fields;
}

void state_keep_fields(struct state *s, uint32_t fields)
{
        const uint32_t dcb = STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_DSCP_MAP) |
                             STATE_BIT(STATE_FIELD_PFC) | STATE_BIT(STATE_FIELD_ETS);

        s->present &= fields;
        if (!(s->present & dcb))
                s->dcb = (struct state_dcb_device){ 0 };
        if (!state_has(s, STATE_FIELD_ROCE_TOS))
                s->roce = (struct state_roce){ 0 };
        if (!(s->present & (STATE_BIT(STATE_FIELD_ETS) | STATE_BIT(STATE_FIELD_ECN))))
                s->qdisc = (struct state_qdisc){ 0 };
}

void state_merge(struct state *live, const struct state *desired, uint32_t fields)
{
        fields &= desired->present;
        for (int f = 0; f < STATE_FIELD_MAX; f++) {
                if (!(fields & STATE_BIT(f)))
                        continue;
                if (field_table[f].merge)
                        field_table[f].merge(live, desired);
                else
                        field_table[f].copy(live, desired);
                live->present |= STATE_BIT(f);
        }
}

int state_check(const struct state *s, enum state_field *ret_field, struct field_problem *ret)
{
        for (int f = 0; f < STATE_FIELD_MAX; f++) {
                struct field_problem p = { "", -1, "" };

                if (!state_has(s, f) || !field_table[f].check || field_table[f].check(s, &p) >= 0)
                        continue;
                *ret_field = (enum state_field)f;
                *ret = p;
                return -EINVAL;
        }
        return 0;
}

bool state_matches(const struct state *want, const struct state *live)
{
        struct diff d = { 0 };
        bool same;

        if (state_diff(want, live, &d) < 0)
                return false;
        same = diff_empty(&d);
        diff_done(&d);
        return same;
}
