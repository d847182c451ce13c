/* SPDX-License-Identifier: MIT */
/* nettunectl locate's schedule and judgement (locate.h): pure, no I/O. */
#include <math.h>
#include <stdlib.h>

#include "common/util.h"
#include "controller/fabric/locate.h"

#define RTT_FACTOR 4.0
#define RTT_MARGIN_MS 2.0
#define UPLINK_NODES_MIN 3              /* distinct nodes of a rack an uplink's slow pairs touch */
#define UPLINK_SHARE_MIN 0.75
#define INSIDE_SHARE_MAX 0.25           /* an uplink's rack: its pairs inside it mostly fine */
#define UNEXPLAINED_SHARE_MAX 0.05      /* high confidence: the rest of the fleet is quiet */

static const char *const kind_names[LOCATE_KIND_MAX] = {
        [LOCATE_UPLINK] = "uplink",
        [LOCATE_NODE] = "node",
        [LOCATE_PATH] = "path",
};

const char *locate_kind_name(enum locate_kind k)
{
        return k < LOCATE_KIND_MAX ? kind_names[k] : "unknown";
}

const char *locate_side_name(unsigned side)
{
        return side == LOCATE_RX ? "receive" : side == LOCATE_TX ? "send" : "both";
}

void locate_opts_default(struct locate_opts *o)
{
        *o = (struct locate_opts){ .by = "rack", .duration_ms = LOCATE_DURATION_DEFAULT_MS,
                                   .slow_pct = LOCATE_SLOW_PCT_DEFAULT, .mode = PROBE_MODE_TCP, .dscp = -1,
                                   .priority = -1 };
}

void locate_free(struct locate *l)
{
        if (!l)
                return;
        free(l->names);
        free(l->group);
        free(l->plane);
        free(l->groups);
        free(l->pairs);
        *l = (struct locate){ 0 };
}

static int cmp_str(const void *a, const void *b)
{
        return strcmp(a, b);
}

/* Index of s in the sorted, unique list v[n] (it is there). */
static unsigned index_of(char (*v)[LOCATE_LABEL_MAX], unsigned n, const char *s)
{
        char (*hit)[LOCATE_LABEL_MAX] = bsearch(s, v, n, sizeof(*v), cmp_str);

        return hit ? (unsigned)(hit - v) : 0;
}

/* The distinct values of vals[n] into *ret (sorted), their count returned; -ENOMEM. */
static int distinct(const char *const *vals, unsigned n, char (**ret)[LOCATE_LABEL_MAX])
{
        char (*v)[LOCATE_LABEL_MAX] = calloc(n ? n : 1, sizeof(*v));
        unsigned k = 0;

        if (!v)
                return -ENOMEM;
        for (unsigned i = 0; i < n; i++)
                snprintf(v[i], sizeof(v[i]), "%s", vals ? vals[i] : "");
        qsort(v, n, sizeof(*v), cmp_str);
        for (unsigned i = 0; i < n; i++)
                if (!k || strcmp(v[k - 1], v[i]) != 0)
                        memmove(v[k++], v[i], sizeof(*v));
        *ret = v;
        return (int)k;
}

static int add_pair(struct locate *l, unsigned cap, unsigned src, unsigned dst, bool cross)
{
        struct locate_pair *p;

        if (l->n_pairs >= cap)
                return -ENOSPC;
        p = &l->pairs[l->n_pairs++];
        *p = (struct locate_pair){ .src = src, .dst = dst, .cross = cross };
        for (unsigned r = 0; r < LOCATE_ROUNDS_MAX; r++)
                p->gbps[r] = NAN;
        return 0;
}

/* The members of rack g in plane p, in inventory order, into m; their count. */
static unsigned members(const struct locate *l, unsigned g, unsigned p, unsigned *m)
{
        unsigned k = 0;

        for (unsigned i = 0; i < l->n_nodes; i++)
                if (l->group[i] == g && l->plane[i] == p)
                        m[k++] = i;
        return k;
}

/* One plane's pairs: a ring inside each rack, a ring of racks across them. */
static int plan_plane(struct locate *l, unsigned p, unsigned cap, unsigned *m, unsigned *next, unsigned *in)
{
        _cleanup_free_ unsigned *racks = calloc(l->n_groups + 1, sizeof(*racks));
        unsigned n_racks = 0;
        int r = 0;

        if (!racks)
                return -ENOMEM;
        for (unsigned g = 0; g < l->n_groups; g++)
                if (members(l, g, p, m))
                        racks[n_racks++] = g;
        for (unsigned q = 0; q < n_racks && r >= 0; q++) {
                unsigned nm = members(l, racks[q], p, m);

                for (unsigned i = 0; nm >= 2 && i < nm && r >= 0; i++)
                        r = add_pair(l, cap, m[i], m[(i + 1) % nm], false);
                /* the next rack, and the one before (with three racks or more): a rack's pairs
                 * across come from two racks and go to two, so that its uplink is told apart
                 * from its neighbours' */
                for (unsigned step = 1; n_racks >= 2 && step <= (n_racks >= 3 ? 2u : 1u) && r >= 0; step++) {
                        unsigned to = step == 1 ? (q + 1) % n_racks : (q + n_racks - 1) % n_racks;
                        unsigned nn = members(l, racks[to], p, next);

                        for (unsigned i = 0; i < nm && r >= 0; i++) {
                                unsigned dst = next[(i + step - 1) % nn];

                                if (in[dst] >= LOCATE_CROSS_IN_MAX)
                                        continue;       /* a small rack beside a big one: bounded */
                                in[dst]++;
                                r = add_pair(l, cap, m[i], dst, true);
                        }
                }
        }
        return r;
}

static int schedule(struct locate *l)
{
        unsigned cap = 3 * l->n_nodes + 1;
        _cleanup_free_ unsigned *m = calloc(l->n_nodes + 1, sizeof(*m));
        _cleanup_free_ unsigned *next = calloc(l->n_nodes + 1, sizeof(*next));
        _cleanup_free_ unsigned *in = calloc(l->n_nodes + 1, sizeof(*in));
        int r = 0;

        if (!m || !next || !in || !(l->pairs = calloc(cap, sizeof(*l->pairs))))
                return -ENOMEM;
        for (unsigned p = 0; p < l->n_planes && r >= 0; p++)
                r = plan_plane(l, p, cap, m, next, in);
        return r;
}

int locate_init(struct locate *l, const struct locate_opts *o, unsigned n, const char *const *names,
                const char *const *rack, const char *const *plane, struct errbuf *e)
{
        int ng, np = 1;

        *l = (struct locate){ .o = *o, .n_nodes = n };
        for (unsigned i = 0; i < n; i++)
                if (!rack[i] || !rack[i][0])
                        return errbuf_set(e, EINVAL, NULL, "node '%s' has no label '%s' (--by): every node needs "
                                          "one naming its rack or leaf; nothing was run", names[i], o->by);
        if (!(l->names = calloc(n + 1, sizeof(*l->names))) || !(l->group = calloc(n + 1, sizeof(*l->group))) ||
            !(l->plane = calloc(n + 1, sizeof(*l->plane))) || (ng = distinct(rack, n, &l->groups)) < 0)
                goto oom;
        l->n_groups = (unsigned)ng;
        for (unsigned i = 0; i < n; i++) {
                snprintf(l->names[i], sizeof(l->names[i]), "%s", names[i]);
                l->group[i] = index_of(l->groups, l->n_groups, rack[i]);
        }
        if (plane) {
                char (*planes)[LOCATE_LABEL_MAX] = NULL;

                if ((np = distinct(plane, n, &planes)) < 0)
                        goto oom;
                for (unsigned i = 0; i < n; i++)
                        l->plane[i] = index_of(planes, (unsigned)np, plane[i]);
                free(planes);
        }
        l->n_planes = (unsigned)np;
        if (schedule(l) < 0)
                goto oom;
        if (l->n_pairs == 0) {
                locate_free(l);
                return errbuf_set(e, EINVAL, NULL, "no pair of nodes to probe: every rack%s holds a single node "
                                  "and there is no second rack; nothing was run", plane ? " of every plane" : "");
        }
        return 0;
oom:
        locate_free(l);
        return errbuf_set(e, ENOMEM, NULL, "out of memory");
}

unsigned (*locate_round_pairs(const struct locate *l))[2]
{
        unsigned (*v)[2] = calloc(l->n_pairs + 1, sizeof(*v));

        for (unsigned k = 0; v && k < l->n_pairs; k++) {
                v[k][0] = l->pairs[k].src;
                v[k][1] = l->pairs[k].dst;
        }
        return v;
}

void locate_take(struct locate *l, unsigned k, double gbps, double rtt_ms, const char *error)
{
        struct locate_pair *p;

        if (k >= l->n_pairs || l->rounds >= LOCATE_ROUNDS_MAX)
                return;
        p = &l->pairs[k];
        p->gbps[l->rounds] = isfinite(gbps) && gbps >= 0 ? gbps : NAN;
        p->rtt_ms[l->rounds] = rtt_ms > 0 ? rtt_ms : 0;
        if (!isfinite(p->gbps[l->rounds]))
                snprintf(p->error, sizeof(p->error), "%s", error && error[0] ? error : "not measured");
        else
                l->bytes += gbps * 1e9 / 8 * l->o.duration_ms / 1000.0;
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;

        return x < y ? -1 : x > y;
}

static double median(double *v, unsigned n)
{
        if (!n)
                return NAN;
        qsort(v, n, sizeof(*v), cmp_double);
        return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The round's medians of each kind (rates, and round trips where reported). */
static void round_medians(struct locate *l, unsigned r, double *v)
{
        for (int cross = 0; cross < 2; cross++) {
                unsigned n = 0, nr = 0;

                for (unsigned k = 0; k < l->n_pairs; k++)
                        if (l->pairs[k].cross == cross && isfinite(l->pairs[k].gbps[r]))
                                v[n++] = l->pairs[k].gbps[r];
                l->median_gbps[r][cross] = median(v, n);
                for (unsigned k = 0; k < l->n_pairs; k++)
                        if (l->pairs[k].cross == cross && l->pairs[k].rtt_ms[r] > 0)
                                v[nr++] = l->pairs[k].rtt_ms[r];
                l->median_rtt_ms[r][cross] = nr ? median(v, nr) : 0;
        }
}

static bool slow_in(const struct locate *l, const struct locate_pair *p, unsigned r)
{
        double m = l->median_gbps[r][p->cross], mr = l->median_rtt_ms[r][p->cross];

        if (!isfinite(p->gbps[r]) || !isfinite(m))
                return false;
        if (p->gbps[r] < m * (1 - l->o.slow_pct / 100))
                return true;
        return mr > 0 && p->rtt_ms[r] > mr * RTT_FACTOR && p->rtt_ms[r] - mr > RTT_MARGIN_MS;
}

void locate_round_end(struct locate *l)
{
        _cleanup_free_ double *v = calloc(l->n_pairs + 1, sizeof(*v));
        unsigned r = l->rounds;

        if (!v || r >= LOCATE_ROUNDS_MAX)
                return;
        round_medians(l, r, v);
        l->n_slow = l->n_failed = 0;
        for (unsigned k = 0; k < l->n_pairs; k++) {
                struct locate_pair *p = &l->pairs[k];

                if (!isfinite(p->gbps[r]))
                        continue;
                p->runs++;
                p->slow_runs += slow_in(l, p, r);
        }
        l->rounds++;
        for (unsigned k = 0; k < l->n_pairs; k++) {
                struct locate_pair *p = &l->pairs[k];

                p->slow = p->runs > 0 && p->slow_runs == p->runs;
                l->n_slow += p->slow;
                l->n_failed += p->runs == 0;
        }
}

bool locate_needs_round(const struct locate *l)
{
        return l->n_slow > 0 && l->rounds < LOCATE_ROUNDS_MAX;
}

/* ---- the judgement ---- */

/* A pair toward (RX) or from (TX) node i, or toward/from rack g across racks. */
static bool touches(const struct locate *l, const struct locate_pair *p, bool rack, unsigned who, unsigned side)
{
        unsigned at = side == LOCATE_RX ? p->dst : p->src;

        return rack ? p->cross && l->group[at] == who : at == who;
}

struct tally {
        unsigned of, slow, nodes;
        unsigned ev[LOCATE_EVIDENCE_MAX], n_ev;
};

static void tally(const struct locate *l, bool rack, unsigned who, unsigned side, bool only_unexplained,
                  struct tally *t)
{
        _cleanup_free_ bool *seen = calloc(l->n_nodes + 1, sizeof(*seen));

        *t = (struct tally){ 0 };
        for (unsigned k = 0; k < l->n_pairs; k++) {
                const struct locate_pair *p = &l->pairs[k];
                unsigned at = side == LOCATE_RX ? p->dst : p->src;

                if (!p->runs || !touches(l, p, rack, who, side) || (only_unexplained && p->explained))
                        continue;
                t->of++;
                if (!p->slow)
                        continue;
                t->slow++;
                if (seen && !seen[at]) {
                        seen[at] = true;
                        t->nodes++;
                }
                if (t->n_ev < LOCATE_EVIDENCE_MAX)
                        t->ev[t->n_ev++] = k;
        }
}

/* Share of rack g's pairs inside it that are slow. */
static double inside_share(const struct locate *l, unsigned g)
{
        unsigned of = 0, slow = 0;

        for (unsigned k = 0; k < l->n_pairs; k++) {
                const struct locate_pair *p = &l->pairs[k];

                if (p->cross || !p->runs || l->group[p->src] != g)
                        continue;
                of++;
                slow += p->slow;
        }
        return of ? (double)slow / of : 0;
}

static double last_gbps(const struct locate *l, const struct locate_pair *p)
{
        for (unsigned r = l->rounds; r-- > 0;)
                if (isfinite(p->gbps[r]))
                        return p->gbps[r];
        return NAN;
}

static double last_median(const struct locate *l, bool cross)
{
        for (unsigned r = l->rounds; r-- > 0;)
                if (isfinite(l->median_gbps[r][cross]))
                        return l->median_gbps[r][cross];
        return NAN;
}

static struct locate_suspect *suspect_add(struct locate *l, enum locate_kind kind, unsigned who, unsigned side,
                                          const struct tally *t)
{
        struct locate_suspect *s;
        double v[LOCATE_EVIDENCE_MAX], peers[LOCATE_EVIDENCE_MAX];

        if (l->n_suspects >= LOCATE_SUSPECTS_MAX)
                return NULL;
        s = &l->suspects[l->n_suspects++];
        *s = (struct locate_suspect){ .kind = kind, .node = who, .group = kind == LOCATE_UPLINK ? who : l->group[who],
                                      .side = side, .slow = t->slow, .of = t->of, .n_ev = t->n_ev };
        for (unsigned i = 0; i < t->n_ev; i++) {
                s->ev[i] = t->ev[i];
                v[i] = last_gbps(l, &l->pairs[t->ev[i]]);
                peers[i] = last_median(l, l->pairs[t->ev[i]].cross);
        }
        /* the slowest first */
        for (unsigned i = 1; i < s->n_ev; i++)
                for (unsigned j = i; j > 0 && last_gbps(l, &l->pairs[s->ev[j]]) < last_gbps(l, &l->pairs[s->ev[j - 1]]);
                     j--) {
                        unsigned x = s->ev[j];

                        s->ev[j] = s->ev[j - 1];
                        s->ev[j - 1] = x;
                }
        s->gbps = median(v, t->n_ev);
        s->peers_gbps = median(peers, t->n_ev);
        return s;
}

static void explain(struct locate *l, bool rack, unsigned who, unsigned side)
{
        for (unsigned k = 0; k < l->n_pairs; k++) {
                struct locate_pair *p = &l->pairs[k];

                if (p->slow && touches(l, p, rack, who, side))
                        p->explained = true;
        }
}

/* A rack's uplink, in each direction: many of its nodes slow across racks, fine inside. */
static void judge_uplinks(struct locate *l)
{
        for (unsigned g = 0; g < l->n_groups; g++) {
                unsigned side = 0;
                struct tally t[2];

                if (inside_share(l, g) > INSIDE_SHARE_MAX)
                        continue;
                for (unsigned s = LOCATE_RX; s <= LOCATE_TX; s++) {
                        tally(l, true, g, s, false, &t[s - 1]);
                        if (t[s - 1].nodes >= UPLINK_NODES_MIN && t[s - 1].slow >= UPLINK_SHARE_MIN * t[s - 1].of)
                                side |= s;
                }
                if (!side)
                        continue;
                {
                        struct tally sum = t[side == LOCATE_TX ? 1 : 0];

                        if (side == LOCATE_BOTH) {
                                sum.of += t[1].of;
                                sum.slow += t[1].slow;
                                for (unsigned i = 0; i < t[1].n_ev && sum.n_ev < LOCATE_EVIDENCE_MAX; i++)
                                        sum.ev[sum.n_ev++] = t[1].ev[i];
                        }
                        suspect_add(l, LOCATE_UPLINK, g, side, &sum);
                }
                /* both directions: a TCP pair's rate needs its ACKs too, which cross the same uplink */
                explain(l, true, g, LOCATE_RX);
                explain(l, true, g, LOCATE_TX);
        }
}

/* Is node i fine with its other peers in this direction (its pairs other than k not slow)? */
static bool fine_elsewhere(const struct locate *l, unsigned i, unsigned side, unsigned k)
{
        unsigned of = 0, slow = 0;

        for (unsigned j = 0; j < l->n_pairs; j++) {
                const struct locate_pair *p = &l->pairs[j];

                if (j == k || !p->runs || !touches(l, p, false, i, side))
                        continue;
                of++;
                slow += p->slow && !p->explained;
        }
        return of > 0 && slow == 0;
}

/* A node whose every pair in one direction is slow, the other ends fine elsewhere. */
static void judge_nodes(struct locate *l)
{
        for (unsigned i = 0; i < l->n_nodes; i++) {
                unsigned side = 0;
                struct tally t[2], sum;

                for (unsigned s = LOCATE_RX; s <= LOCATE_TX; s++) {
                        struct tally *x = &t[s - 1];
                        bool others_fine = true;

                        tally(l, false, i, s, true, x);
                        if (!x->slow || x->slow != x->of)
                                continue;
                        for (unsigned e = 0; e < x->n_ev; e++) {
                                const struct locate_pair *p = &l->pairs[x->ev[e]];
                                unsigned other = s == LOCATE_RX ? p->src : p->dst;

                                others_fine &= fine_elsewhere(l, other, s == LOCATE_RX ? LOCATE_TX : LOCATE_RX,
                                                              x->ev[e]);
                        }
                        if (others_fine)
                                side |= s;
                }
                if (!side)
                        continue;
                sum = t[side == LOCATE_TX ? 1 : 0];
                if (side == LOCATE_BOTH) {
                        sum.of += t[1].of;
                        sum.slow += t[1].slow;
                        for (unsigned e = 0; e < t[1].n_ev && sum.n_ev < LOCATE_EVIDENCE_MAX; e++)
                                sum.ev[sum.n_ev++] = t[1].ev[e];
                }
                suspect_add(l, LOCATE_NODE, i, side, &sum);
        }
        for (unsigned s = 0; s < l->n_suspects; s++)
                if (l->suspects[s].kind == LOCATE_NODE) {
                        /* both directions, for the ACKs of its pairs as for its uplink's */
                        explain(l, false, l->suspects[s].node, LOCATE_RX);
                        explain(l, false, l->suspects[s].node, LOCATE_TX);
                }
}

static void judge_paths(struct locate *l)
{
        for (unsigned k = 0; k < l->n_pairs; k++) {
                struct locate_pair *p = &l->pairs[k];
                struct tally t = { .of = 1, .slow = 1, .n_ev = 1, .ev = { k } };
                struct locate_suspect *s;

                if (!p->slow || p->explained || p->runs < 2)
                        continue;
                if ((s = suspect_add(l, LOCATE_PATH, p->src, LOCATE_TX, &t)))
                        s->peer = p->dst;
                p->explained = true;
        }
}

void locate_judge(struct locate *l)
{
        unsigned measured = 0;

        l->n_suspects = 0;
        for (unsigned k = 0; k < l->n_pairs; k++) {
                l->pairs[k].explained = false;
                measured += l->pairs[k].runs > 0;
        }
        judge_uplinks(l);
        judge_nodes(l);
        l->n_unexplained = 0;
        for (unsigned k = 0; k < l->n_pairs; k++)
                l->n_unexplained += l->pairs[k].slow && !l->pairs[k].explained;
        judge_paths(l);
        for (unsigned s = 0; s < l->n_suspects; s++) {
                struct locate_suspect *x = &l->suspects[s];

                x->high = x->kind != LOCATE_PATH && x->slow >= 2 && l->rounds >= 2 &&
                          l->n_unexplained <= UNEXPLAINED_SHARE_MAX * (measured ? measured : 1);
        }
}
