/* SPDX-License-Identifier: MIT */
/* nettune's ets/red tree on a port: read, classify, map to and from state (see qdisc_tree.h). */
#include "drivers/host/qdisc_tree.h"

static bool is_ours_root(const struct tc_qdisc *q)
{
        return q->handle == QDISC_ETS_HANDLE && streq(q->kind, "ets") && q->has_ets &&
               q->ets.nbands == QDISC_ETS_BANDS;
}

void qdisc_tree_init(struct qdisc_tree *t, uint32_t parent)
{
        memset(t, 0, sizeof(*t));
        t->parent = parent;
}

void qdisc_tree_add(struct qdisc_tree *t, const struct tc_qdisc *q)
{
        if (t->parent != TC_H_ROOT && q->handle && q->handle == TC_H_MAJ(t->parent))
                t->has_parent_qdisc = true;
        if (q->parent == t->parent && !t->has_top) {
                t->top = *q;
                t->has_top = true;
                return;
        }
        if (TC_H_MAJ(q->parent) == QDISC_ETS_HANDLE && TC_H_MIN(q->parent) >= 1 &&
            TC_H_MIN(q->parent) <= QDISC_ETS_BANDS) {
                unsigned tc = QDISC_ETS_BANDS - TC_H_MIN(q->parent);

                t->child[tc] = *q;
                t->has_child[tc] = true;
        }
}

int qdisc_tree_finish(struct qdisc_tree *t, struct errbuf *e)
{
        char p[16];

        if (t->parent != TC_H_ROOT && !t->has_parent_qdisc)
                return errbuf_set(e, ENOENT, NULL, "the class %s where nettune attaches its qdiscs (agent "
                                  "configuration qdisc_parents) has no qdisc %x: on this interface",
                                  tc_nl_handle_str(t->parent, p, sizeof(p)), TC_H_MAJ(t->parent) >> 16);
        if (!t->has_top || t->top.handle == 0)
                t->root = STATE_QDISC_DEFAULT;
        else if (is_ours_root(&t->top))
                t->root = STATE_QDISC_NETTUNE;
        else
                t->root = STATE_QDISC_FOREIGN;
        if (t->root != STATE_QDISC_NETTUNE)
                memset(t->has_child, 0, sizeof(t->has_child));
        return 0;
}

static int read_cb(const struct tc_qdisc *q, void *data)
{
        qdisc_tree_add(data, q);
        return 0;
}

int qdisc_tree_read(struct nl *nl, int ifindex, uint32_t parent, struct qdisc_tree *ret, struct errbuf *e)
{
        int r;

        qdisc_tree_init(ret, parent);
        r = tc_nl_dump(nl, ifindex, read_cb, ret, e);
        return r < 0 ? r : qdisc_tree_finish(ret, e);
}

const struct tc_qdisc *qdisc_tree_red(const struct qdisc_tree *t, unsigned tc)
{
        const struct tc_qdisc *q = &t->child[tc];

        if (t->root != STATE_QDISC_NETTUNE || !t->has_child[tc])
                return NULL;
        return q->handle == QDISC_RED_HANDLE(tc) && streq(q->kind, "red") && q->has_red ? q : NULL;
}

bool qdisc_tree_foreign_child(const struct qdisc_tree *t, unsigned tc)
{
        return t->root == STATE_QDISC_NETTUNE && t->has_child[tc] && !qdisc_tree_red(t, tc);
}

const char *qdisc_tree_name(const struct tc_qdisc *q, char *buf, size_t size)
{
        char h[16];

        snprintf(buf, size, "%s %s", q->kind, tc_nl_handle_str(q->handle, h, sizeof(h)));
        return buf;
}

/* ---- ets ---- */

void qdisc_ets_default(const uint8_t *prio_tc, struct tc_ets_opts *ret)
{
        memset(ret, 0, sizeof(*ret));
        ret->nbands = QDISC_ETS_BANDS;
        ret->nstrict = QDISC_ETS_BANDS;
        for (unsigned p = 0; p < TC_NL_PRIOS; p++) {
                unsigned tc = p < STATE_PRIO_COUNT ? (prio_tc ? prio_tc[p] : p) : (prio_tc ? prio_tc[0] : 0);

                ret->priomap[p] = (uint8_t)(QDISC_ETS_BANDS - 1 - tc);
        }
}

int qdisc_ets_from_state(const struct state_ets *s, struct tc_ets_opts *ret, struct errbuf *e)
{
        struct tc_ets_opts o;
        int lo_strict = -1, hi_ets = -1;

        qdisc_ets_default(s->prio_tc, &o);
        o.nstrict = 0;
        for (unsigned tc = 0; tc < STATE_TC_COUNT; tc++) {
                unsigned band = QDISC_ETS_BANDS - 1 - tc;

                if (s->tc_tsa[tc] == STATE_TSA_VENDOR)
                        return errbuf_set(e, EINVAL, NULL, "ets: tc %u: tsa 'vendor' cannot be set", tc);
                if (s->tc_tsa[tc] == STATE_TSA_STRICT) {
                        o.nstrict++;
                        if (lo_strict < 0)
                                lo_strict = (int)tc;
                        continue;
                }
                hi_ets = (int)tc;
                if (!s->tc_bw_pct[tc])
                        return errbuf_set(e, EINVAL, NULL, "ets: tc %u is an ets class with bandwidth 0; a band of "
                                          "a tc ets qdisc needs a share above 0 (or make the class strict)", tc);
                o.quanta[band] = s->tc_bw_pct[tc] * QDISC_ETS_QUANTUM_PER_PCT;
        }
        if (lo_strict >= 0 && lo_strict < hi_ets)
                return errbuf_set(e, EINVAL, NULL, "ets: a tc ets qdisc makes its first bands strict, so the strict "
                                  "traffic classes must be the highest ones (7, 6, ...); strict tc %d is below ets "
                                  "tc %d", lo_strict, hi_ets);
        *ret = o;
        return 0;
}

/* Percentages from quanta: exact when they are ours, else largest remainder to 100. */
static void quanta_to_pct(const struct tc_ets_opts *o, uint8_t *pct)
{
        uint64_t sum = 0, rem[QDISC_ETS_BANDS] = { 0 };
        unsigned total = 0;
        bool exact = true;

        for (unsigned b = o->nstrict; b < QDISC_ETS_BANDS; b++) {
                sum += o->quanta[b];
                exact = exact && o->quanta[b] % QDISC_ETS_QUANTUM_PER_PCT == 0;
        }
        if (!sum)
                return;
        exact = exact && sum == 100ull * QDISC_ETS_QUANTUM_PER_PCT;
        for (unsigned b = o->nstrict; b < QDISC_ETS_BANDS; b++) {
                pct[b] = (uint8_t)(exact ? o->quanta[b] / QDISC_ETS_QUANTUM_PER_PCT : o->quanta[b] * 100 / sum);
                rem[b] = exact ? 0 : o->quanta[b] * 100 % sum;
                total += pct[b];
        }
        while (total < 100) {
                unsigned best = o->nstrict;

                for (unsigned b = o->nstrict; b < QDISC_ETS_BANDS; b++)
                        if (rem[b] > rem[best])
                                best = b;
                pct[best]++;
                rem[best] = 0;
                total++;
        }
}

void qdisc_ets_to_state(const struct tc_ets_opts *o, struct state_ets *ret)
{
        uint8_t pct[QDISC_ETS_BANDS] = { 0 };

        quanta_to_pct(o, pct);
        ret->willing = false;                   /* a qdisc has no DCBX */
        for (unsigned p = 0; p < STATE_PRIO_COUNT; p++)
                ret->prio_tc[p] = (uint8_t)(QDISC_ETS_BANDS - 1 - (o->priomap[p] % QDISC_ETS_BANDS));
        for (unsigned tc = 0; tc < STATE_TC_COUNT; tc++) {
                unsigned band = QDISC_ETS_BANDS - 1 - tc;

                ret->tc_tsa[tc] = band < o->nstrict ? STATE_TSA_STRICT : STATE_TSA_ETS;
                ret->tc_bw_pct[tc] = band < o->nstrict ? 0 : pct[band];
        }
}

bool qdisc_ets_equal(const struct tc_ets_opts *a, const struct tc_ets_opts *b)
{
        if (a->nbands != b->nbands || a->nstrict != b->nstrict || memcmp(a->priomap, b->priomap, sizeof(a->priomap)))
                return false;
        for (unsigned i = a->nstrict; i < a->nbands && i < TC_NL_BANDS_MAX; i++)
                if (a->quanta[i] != b->quanta[i])
                        return false;
        return true;
}

/* ---- state ---- */

static void default_ets(struct state_ets *s)
{
        memset(s, 0, sizeof(*s));
        for (unsigned tc = 0; tc < STATE_TC_COUNT; tc++)
                s->tc_tsa[tc] = STATE_TSA_STRICT;
}

/*
 * Every queue is described: a queue without nettune's red qdisc (the kernel's
 * default, or a foreign qdisc, whose own marking state.qdisc names) has no marking
 * of nettune's (enabled false). That is what a snapshot must say, so that a restore
 * or a rollback to it is compared at all (a policy's unlisted queues are never
 * compared, so a snapshot listing none would compare nothing) and put back as
 * put_back() decides: nettune's tree removed, or refused where a foreign qdisc was.
 */
static void ecn_to_state(const struct qdisc_tree *t, struct state_ecn *ecn)
{
        memset(ecn, 0, sizeof(*ecn));
        ecn->queues = (uint8_t)((1u << STATE_TC_COUNT) - 1);
        for (unsigned tc = 0; tc < STATE_TC_COUNT; tc++) {
                const struct tc_qdisc *q = qdisc_tree_red(t, tc);

                if (!q)
                        continue;
                ecn->q[tc] = (struct state_ecn_queue){
                        .enabled = (q->red.flags & TC_RED_ECN) != 0,
                        .min_bytes = q->red.qth_min, .max_bytes = q->red.qth_max,
                        .probability_pct = (uint8_t)tc_red_pct(q->red.max_p),
                };
        }
}

void qdisc_tree_to_state(const struct qdisc_tree *t, uint32_t fields, struct state *ret)
{
        if (!(fields & (STATE_BIT(STATE_FIELD_ETS) | STATE_BIT(STATE_FIELD_ECN))))
                return;
        memset(&ret->qdisc, 0, sizeof(ret->qdisc));
        ret->qdisc.root = t->root;
        if (t->root == STATE_QDISC_FOREIGN) {
                snprintf(ret->qdisc.kind, sizeof(ret->qdisc.kind), "%s", t->top.kind);
                ret->qdisc.handle = t->top.handle;
        }
        if (fields & STATE_BIT(STATE_FIELD_ETS)) {
                if (t->root == STATE_QDISC_NETTUNE)
                        qdisc_ets_to_state(&t->top.ets, &ret->ets);
                else
                        default_ets(&ret->ets);
                ret->present |= STATE_BIT(STATE_FIELD_ETS);
        }
        if (fields & STATE_BIT(STATE_FIELD_ECN)) {
                ecn_to_state(t, &ret->ecn);
                ret->present |= STATE_BIT(STATE_FIELD_ECN);
        }
}
