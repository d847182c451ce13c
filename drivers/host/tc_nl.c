/* SPDX-License-Identifier: MIT */
/* rtnetlink TC messages: build ets/red qdisc requests, parse the qdisc dump (see tc_nl.h). */
#include <linux/gen_stats.h>
#include <linux/rtnetlink.h>

#include "drivers/host/tc_nl.h"

#ifndef TCA_RED_FLAGS
#define TCA_RED_FLAGS 4
#endif
#ifndef TC_RED_NODROP
#define TC_RED_NODROP 8
#endif
/* tc/q_red.c: the flags it may set, sent as the bitfield's selector. */
#define RED_SELECTOR (TC_RED_ECN | TC_RED_HARDDROP | TC_RED_ADAPTATIVE | TC_RED_NODROP)

struct red_flags_bf {                   /* struct nla_bitfield32 */
        uint32_t value;
        uint32_t selector;
};

/* ---- requests ---- */

static const struct {
        uint16_t type, flags;
} ops[TC_NL_OP_MAX] = {
        [TC_NL_ADD] = { RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL },
        [TC_NL_CHANGE] = { RTM_NEWQDISC, 0 },
        [TC_NL_REPLACE] = { RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE },
        [TC_NL_DEL] = { RTM_DELQDISC, 0 },
};

struct nlmsghdr *tc_nl_request(struct nl *nl, enum tc_nl_op op, int ifindex, uint32_t parent, uint32_t handle)
{
        struct nlmsghdr *nlh = nl_msg_new(nl, ops[op].type, ops[op].flags);
        struct tcmsg *t = mnl_nlmsg_put_extra_header(nlh, sizeof(*t));

        t->tcm_family = AF_UNSPEC;
        t->tcm_ifindex = ifindex;
        t->tcm_parent = parent;
        t->tcm_handle = handle;
        return nlh;
}

int tc_nl_put_ets(struct nlmsghdr *nlh, const struct tc_ets_opts *o)
{
        struct nlattr *opts, *nest;
        int r;

        if (o->nbands < 1 || o->nbands > TC_NL_BANDS_MAX || o->nstrict > o->nbands)
                return -EINVAL;
        if (nl_put_strz(nlh, TCA_KIND, "ets") < 0 || !(opts = nl_nest_start(nlh, TCA_OPTIONS)))
                return -EMSGSIZE;
        r = nl_put_u8(nlh, TCA_ETS_NBANDS, o->nbands);
        if (r >= 0 && o->nstrict)
                r = nl_put_u8(nlh, TCA_ETS_NSTRICT, o->nstrict);
        if (r >= 0 && o->nbands > o->nstrict) {
                if (!(nest = nl_nest_start(nlh, TCA_ETS_QUANTA)))
                        return -EMSGSIZE;
                for (unsigned b = o->nstrict; b < o->nbands && r >= 0; b++)
                        r = nl_put_u32(nlh, TCA_ETS_QUANTA_BAND, o->quanta[b]);
                nl_nest_end(nlh, nest);
        }
        if (r >= 0 && !(nest = nl_nest_start(nlh, TCA_ETS_PRIOMAP)))
                return -EMSGSIZE;
        for (unsigned p = 0; p < TC_NL_PRIOS && r >= 0; p++)
                r = nl_put_u8(nlh, TCA_ETS_PRIOMAP_BAND, o->priomap[p]);
        if (r < 0)
                return r;
        nl_nest_end(nlh, nest);
        nl_nest_end(nlh, opts);
        return 0;
}

int tc_nl_put_red(struct nlmsghdr *nlh, const struct tc_red_params *p)
{
        struct tc_red_qopt q = {
                .limit = p->limit, .qth_min = p->qth_min, .qth_max = p->qth_max,
                .Wlog = p->wlog, .Plog = p->plog, .Scell_log = p->scell_log,
        };
        struct red_flags_bf bf = { .value = p->flags, .selector = RED_SELECTOR };
        struct nlattr *opts;

        if (nl_put_strz(nlh, TCA_KIND, "red") < 0 || !(opts = nl_nest_start(nlh, TCA_OPTIONS)))
                return -EMSGSIZE;
        opts->nla_type = TCA_OPTIONS;   /* tc/q_red.c nests without NLA_F_NESTED */
        if (nl_put(nlh, TCA_RED_PARMS, sizeof(q), &q) < 0 ||
            nl_put(nlh, TCA_RED_STAB, TC_RED_STAB_SIZE, p->stab) < 0 ||
            nl_put_u32(nlh, TCA_RED_MAX_P, p->max_p) < 0 ||
            nl_put(nlh, TCA_RED_FLAGS, sizeof(bf), &bf) < 0)
                return -EMSGSIZE;
        nl_nest_end(nlh, opts);
        return 0;
}

int tc_nl_talk(struct nl *nl, struct nlmsghdr *nlh, const char *what, struct errbuf *e)
{
        return nl_talk(nl, nlh, NULL, NULL, what, e);
}

/* ---- parsing ---- */

static const struct nl_policy tca_policy[TCA_MAX + 1] = {
        [TCA_KIND] = { MNL_TYPE_NUL_STRING, 0 },
        [TCA_OPTIONS] = { MNL_TYPE_NESTED, 0 },
        [TCA_STATS2] = { MNL_TYPE_NESTED, 0 },
        [TCA_XSTATS] = { MNL_TYPE_BINARY, 0 },
        [TCA_HW_OFFLOAD] = { MNL_TYPE_U8, 0 },
};

static const struct nl_policy ets_policy[TCA_ETS_MAX + 1] = {
        [TCA_ETS_NBANDS] = { MNL_TYPE_U8, 0 },
        [TCA_ETS_NSTRICT] = { MNL_TYPE_U8, 0 },
        [TCA_ETS_QUANTA] = { MNL_TYPE_NESTED, 0 },
        [TCA_ETS_PRIOMAP] = { MNL_TYPE_NESTED, 0 },
};

static const struct nl_policy red_policy[TCA_RED_FLAGS + 1] = {
        [TCA_RED_PARMS] = { MNL_TYPE_BINARY, sizeof(struct tc_red_qopt) },
        [TCA_RED_MAX_P] = { MNL_TYPE_U32, 0 },
        [TCA_RED_FLAGS] = { MNL_TYPE_BINARY, sizeof(struct red_flags_bf) },
};

static const struct nl_policy stats_policy[TCA_STATS_MAX + 1] = {
        [TCA_STATS_BASIC] = { MNL_TYPE_BINARY, 12 },    /* u64 bytes, u32 packets */
        [TCA_STATS_QUEUE] = { MNL_TYPE_BINARY, sizeof(struct gnet_stats_queue) },
        [TCA_STATS_APP] = { MNL_TYPE_BINARY, 0 },
        [TCA_STATS_PKT64] = { MNL_TYPE_U64, 0 },
};

/* Every member of a nest must be `type` with a payload of `len`; at most max of them. */
static int nest_values(const struct nlattr *nest, uint16_t type, size_t len, unsigned max,
                       void (*put)(void *v, unsigned i, const struct nlattr *a), void *v)
{
        const struct nlattr *a;
        unsigned n = 0;

        mnl_attr_for_each_nested(a, nest) {
                if (mnl_attr_get_type(a) != type || mnl_attr_get_payload_len(a) != len || n >= max)
                        return -EINVAL;
                put(v, n++, a);
        }
        return (int)n;
}

static void put_quantum(void *v, unsigned i, const struct nlattr *a)
{
        ((uint32_t *)v)[i] = mnl_attr_get_u32(a);
}

static void put_band(void *v, unsigned i, const struct nlattr *a)
{
        ((uint8_t *)v)[i] = mnl_attr_get_u8(a);
}

static int parse_ets(const struct nlattr *opts, struct tc_ets_opts *o)
{
        const struct nlattr *tb[TCA_ETS_MAX + 1];
        uint32_t quanta[TC_NL_BANDS_MAX];
        int r = nl_parse_nested(opts, ets_policy, TCA_ETS_MAX, tb), n;

        if (r < 0 || !tb[TCA_ETS_NBANDS])
                return -EBADMSG;
        o->nbands = mnl_attr_get_u8(tb[TCA_ETS_NBANDS]);
        o->nstrict = tb[TCA_ETS_NSTRICT] ? mnl_attr_get_u8(tb[TCA_ETS_NSTRICT]) : 0;
        if (o->nbands < 1 || o->nbands > TC_NL_BANDS_MAX || o->nstrict > o->nbands)
                return -EBADMSG;
        if (tb[TCA_ETS_QUANTA]) {
                n = nest_values(tb[TCA_ETS_QUANTA], TCA_ETS_QUANTA_BAND, 4, o->nbands - o->nstrict,
                                put_quantum, quanta);
                if (n < 0)
                        return -EBADMSG;
                for (int i = 0; i < n; i++)
                        o->quanta[o->nstrict + i] = quanta[i];
        }
        memset(o->priomap, o->nbands - 1, sizeof(o->priomap));
        if (tb[TCA_ETS_PRIOMAP]) {
                n = nest_values(tb[TCA_ETS_PRIOMAP], TCA_ETS_PRIOMAP_BAND, 1, TC_NL_PRIOS, put_band, o->priomap);
                if (n < 0)
                        return -EBADMSG;
                for (int i = 0; i < n; i++)
                        if (o->priomap[i] >= o->nbands)
                                return -EBADMSG;
        }
        return 0;
}

static int parse_red(const struct nlattr *opts, struct tc_red_opts *o)
{
        const struct nlattr *tb[TCA_RED_FLAGS + 1];
        struct tc_red_qopt q;
        struct red_flags_bf bf;
        int r = nl_parse_nested(opts, red_policy, TCA_RED_FLAGS, tb);

        if (r < 0 || !tb[TCA_RED_PARMS])
                return -EBADMSG;
        memcpy(&q, mnl_attr_get_payload(tb[TCA_RED_PARMS]), sizeof(q));
        *o = (struct tc_red_opts){
                .limit = q.limit, .qth_min = q.qth_min, .qth_max = q.qth_max,
                .wlog = q.Wlog, .plog = q.Plog, .scell_log = q.Scell_log, .flags = q.flags,
        };
        if (tb[TCA_RED_MAX_P])
                o->max_p = mnl_attr_get_u32(tb[TCA_RED_MAX_P]);
        if (tb[TCA_RED_FLAGS]) {
                memcpy(&bf, mnl_attr_get_payload(tb[TCA_RED_FLAGS]), sizeof(bf));
                o->flags |= bf.value & bf.selector;
        }
        return 0;
}

static void red_xstats(const struct nlattr *a, struct tc_qstats *s)
{
        struct tc_red_xstats x;

        if (mnl_attr_get_payload_len(a) < sizeof(x))
                return;
        memcpy(&x, mnl_attr_get_payload(a), sizeof(x));
        s->red_early = x.early;
        s->red_pdrop = x.pdrop;
        s->red_other = x.other;
        s->red_marked = x.marked;
        s->has_red = true;
}

static int parse_stats(const struct nlattr *nest, bool red, struct tc_qstats *s)
{
        const struct nlattr *tb[TCA_STATS_MAX + 1];
        struct gnet_stats_queue q;
        uint32_t pkts;

        if (nl_parse_nested(nest, stats_policy, TCA_STATS_MAX, tb) < 0)
                return -EBADMSG;
        if (tb[TCA_STATS_BASIC]) {
                memcpy(&s->bytes, mnl_attr_get_payload(tb[TCA_STATS_BASIC]), sizeof(s->bytes));
                memcpy(&pkts, (const char *)mnl_attr_get_payload(tb[TCA_STATS_BASIC]) + 8, sizeof(pkts));
                s->packets = pkts;
                s->has_basic = true;
        }
        if (tb[TCA_STATS_PKT64])
                s->packets = mnl_attr_get_u64(tb[TCA_STATS_PKT64]);
        if (tb[TCA_STATS_QUEUE]) {
                memcpy(&q, mnl_attr_get_payload(tb[TCA_STATS_QUEUE]), sizeof(q));
                s->qlen = q.qlen;
                s->backlog = q.backlog;
                s->drops = q.drops;
                s->requeues = q.requeues;
                s->overlimits = q.overlimits;
                s->has_queue = true;
        }
        if (red && tb[TCA_STATS_APP])
                red_xstats(tb[TCA_STATS_APP], s);
        return 0;
}

int tc_nl_parse(const struct nlmsghdr *nlh, struct tc_qdisc *ret)
{
        const struct nlattr *tb[TCA_MAX + 1];
        const struct tcmsg *t = mnl_nlmsg_get_payload(nlh);
        struct tc_qdisc q = { 0 };
        int r;

        if (nlh->nlmsg_type != RTM_NEWQDISC)
                return -EBADMSG;
        r = nl_parse_msg(nlh, sizeof(*t), tca_policy, TCA_MAX, tb);
        if (r < 0)
                return r;
        if (!tb[TCA_KIND] || mnl_attr_get_payload_len(tb[TCA_KIND]) > TC_NL_KIND_MAX)
                return -EBADMSG;
        q.ifindex = t->tcm_ifindex;
        q.handle = t->tcm_handle;
        q.parent = t->tcm_parent;
        snprintf(q.kind, sizeof(q.kind), "%s", mnl_attr_get_str(tb[TCA_KIND]));
        if (tb[TCA_HW_OFFLOAD]) {
                q.has_offload = true;
                q.offloaded = mnl_attr_get_u8(tb[TCA_HW_OFFLOAD]) != 0;
        }
        if (tb[TCA_OPTIONS] && streq(q.kind, "ets")) {
                if (parse_ets(tb[TCA_OPTIONS], &q.ets) < 0)
                        return -EBADMSG;
                q.has_ets = true;
        } else if (tb[TCA_OPTIONS] && streq(q.kind, "red")) {
                if (parse_red(tb[TCA_OPTIONS], &q.red) < 0)
                        return -EBADMSG;
                q.has_red = true;
        }
        if (tb[TCA_STATS2] && parse_stats(tb[TCA_STATS2], streq(q.kind, "red"), &q.stats) < 0)
                return -EBADMSG;
        if (!q.stats.has_red && tb[TCA_XSTATS] && streq(q.kind, "red"))
                red_xstats(tb[TCA_XSTATS], &q.stats);
        *ret = q;
        return 0;
}

struct dump_ctx {
        int ifindex;
        int (*fn)(const struct tc_qdisc *q, void *data);
        void *data;
};

static int dump_cb(const struct nlmsghdr *nlh, void *data)
{
        struct dump_ctx *d = data;
        struct tc_qdisc q;
        int r = tc_nl_parse(nlh, &q);

        if (r >= 0 && (d->ifindex == 0 || q.ifindex == d->ifindex))
                r = d->fn(&q, d->data);
        if (r < 0) {
                errno = -r;
                return MNL_CB_ERROR;
        }
        return MNL_CB_OK;
}

int tc_nl_dump(struct nl *nl, int ifindex, int (*fn)(const struct tc_qdisc *q, void *data), void *data,
               struct errbuf *e)
{
        struct dump_ctx d = { .ifindex = ifindex, .fn = fn, .data = data };
        struct nlmsghdr *nlh = nl_msg_new(nl, RTM_GETQDISC, NLM_F_DUMP);
        struct tcmsg *t = mnl_nlmsg_put_extra_header(nlh, sizeof(*t));

        t->tcm_family = AF_UNSPEC;
        t->tcm_ifindex = ifindex;
        return nl_talk(nl, nlh, dump_cb, &d, "list qdiscs", e);
}

/* ---- tc's notation of handles ---- */

const char *tc_nl_handle_str(uint32_t h, char *buf, size_t size)
{
        if (h == TC_H_ROOT)
                snprintf(buf, size, "root");
        else if (TC_H_MIN(h))
                snprintf(buf, size, "%x:%x", TC_H_MAJ(h) >> 16, TC_H_MIN(h));
        else
                snprintf(buf, size, "%x:", TC_H_MAJ(h) >> 16);
        return buf;
}

static int hex16(const char *s, size_t len, uint32_t *ret)
{
        uint32_t v = 0;

        if (len < 1 || len > 4)
                return -EINVAL;
        for (size_t i = 0; i < len; i++) {
                char c = s[i];
                int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
                        c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

                if (d < 0)
                        return -EINVAL;
                v = v * 16 + (uint32_t)d;
        }
        *ret = v;
        return 0;
}

int tc_nl_handle_parse(const char *s, uint32_t *ret)
{
        const char *colon = strchr(s, ':');
        uint32_t maj, min = 0;

        if (streq(s, "root")) {
                *ret = TC_H_ROOT;
                return 0;
        }
        if (!colon || hex16(s, (size_t)(colon - s), &maj) < 0 || !maj)
                return -EINVAL;
        if (colon[1] && hex16(colon + 1, strlen(colon + 1), &min) < 0)
                return -EINVAL;
        *ret = TC_H_MAKE(maj << 16, min);
        return 0;
}

/* ---- a shaping class's rate (the class the qdisc driver attaches under) ---- */

static const struct nl_policy htb_policy[TCA_HTB_MAX + 1] = {
        [TCA_HTB_PARMS] = { MNL_TYPE_BINARY, sizeof(struct tc_htb_opt) },
        [TCA_HTB_RATE64] = { MNL_TYPE_U64, 0 },
};

struct class_ctx {
        int ifindex;
        uint32_t classid;
        uint64_t rate_Bps;
};

/* net/sched/sch_htb.c htb_dump_class(): rate in TCA_HTB_PARMS, TCA_HTB_RATE64 when it needs 64 bits. */
static int class_cb(const struct nlmsghdr *nlh, void *data)
{
        const struct tcmsg *t = mnl_nlmsg_get_payload(nlh);
        const struct nlattr *tb[TCA_MAX + 1], *ht[TCA_HTB_MAX + 1];
        struct class_ctx *c = data;

        if (nlh->nlmsg_type != RTM_NEWTCLASS || nlh->nlmsg_len < NLMSG_LENGTH(sizeof(*t)) ||
            t->tcm_ifindex != c->ifindex || t->tcm_handle != c->classid ||
            nl_parse_msg(nlh, sizeof(*t), tca_policy, TCA_MAX, tb) < 0 || !tb[TCA_KIND] ||
            !streq(mnl_attr_get_str(tb[TCA_KIND]), "htb") || !tb[TCA_OPTIONS] ||
            nl_parse_nested(tb[TCA_OPTIONS], htb_policy, TCA_HTB_MAX, ht) < 0 || !ht[TCA_HTB_PARMS])
                return MNL_CB_OK;
        c->rate_Bps = ht[TCA_HTB_RATE64] ? mnl_attr_get_u64(ht[TCA_HTB_RATE64])
                                         : ((const struct tc_htb_opt *)mnl_attr_get_payload(ht[TCA_HTB_PARMS]))->rate.rate;
        return MNL_CB_OK;
}

int tc_nl_class_rate(struct nl *nl, int ifindex, uint32_t classid, uint64_t *ret_Bps, struct errbuf *e)
{
        struct class_ctx c = { .ifindex = ifindex, .classid = classid };
        struct nlmsghdr *nlh = nl_msg_new(nl, RTM_GETTCLASS, NLM_F_DUMP);
        struct tcmsg *t = mnl_nlmsg_put_extra_header(nlh, sizeof(*t));
        int r;

        t->tcm_family = AF_UNSPEC;
        t->tcm_ifindex = ifindex;
        r = nl_talk(nl, nlh, class_cb, &c, "list classes", e);
        if (r >= 0 && !c.rate_Bps)
                r = -ENOENT;
        if (r >= 0)
                *ret_Bps = c.rate_Bps;
        return r;
}
