/* SPDX-License-Identifier: MIT */
/*
 * The kernel's traffic-control core for the devices of a model, the two qdisc kinds
 * nettune's switch role writes, and the offload flag a driver reports:
 *   - net/sched/sch_api.c: tc_modify_qdisc() (RTM_NEWQDISC create, change, replace at
 *     a parent: the root or a class of an ets qdisc), tc_get_qdisc() (RTM_DELQDISC),
 *     tc_dump_qdisc() with tc_fill_qdisc(): TCA_KIND, TCA_OPTIONS, TCA_HW_OFFLOAD
 *     (a u8, always there: !!(q->flags & TCQ_F_OFFLOADED)), TCA_STATS2;
 *   - net/sched/sch_ets.c: ets_qdisc_change()'s checks ("Invalid number of bands", a
 *     zero quantum, a priomap band beyond nbands), ets_qdisc_dump();
 *   - net/sched/sch_red.c with include/net/red.h: red_check_params(),
 *     red_validate_flags() ("nodrop mode is only meaningful with ECN"), red_dump();
 *   - the offload: the device's driver answers ndo_setup_tc when the qdisc is
 *     created or changed (nm_driver.qdisc_offload); a refusal leaves the qdisc in
 *     software and the request succeeds (sch_red.c __red_change() ignores
 *     red_offload()'s result), so only TCA_HW_OFFLOAD 0 in the dump tells.
 * A device without a root qdisc dumps the kernel's default (mq for a NIC, noqueue
 * for a software link, handle 0); the kernel's invisible children (a band's pfifo,
 * red's bfifo) are not dumped, as `tc qdisc show` does not show them.
 */
#include <linux/gen_stats.h>
#include <linux/pkt_sched.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "common/util.h"
#include "tests/nicmodel/nicmodel.h"

#ifndef TCA_RED_FLAGS
#define TCA_RED_FLAGS 4
#endif
#ifndef TC_RED_NODROP
#define TC_RED_NODROP 8
#endif
#define RED_HISTORIC_FLAGS (TC_RED_ECN | TC_RED_HARDDROP | TC_RED_ADAPTATIVE)
#define RED_SUPPORTED_FLAGS (RED_HISTORIC_FLAGS | TC_RED_NODROP)
#define ETS_MAX_BANDS 16                /* TCQ_ETS_MAX_BANDS */
#define PRIOS 16                        /* TC_PRIO_MAX + 1 */

struct bitfield32 {
        uint32_t value, selector;
};

static struct nm_qdisc *find_at(struct nm *m, int ifindex, uint32_t parent)
{
        for (unsigned i = 0; i < m->n_qdiscs; i++)
                if (m->qdiscs[i].ifindex == ifindex && m->qdiscs[i].parent == parent)
                        return &m->qdiscs[i];
        return NULL;
}

static struct nm_qdisc *find_handle(struct nm *m, int ifindex, uint32_t handle)
{
        for (unsigned i = 0; i < m->n_qdiscs; i++)
                if (m->qdiscs[i].ifindex == ifindex && m->qdiscs[i].handle == handle)
                        return &m->qdiscs[i];
        return NULL;
}

const struct nm_qdisc *nm_tc_find(const struct nm *m, int ifindex, uint32_t handle)
{
        return find_handle((struct nm *)m, ifindex, handle);
}

/* qdisc_destroy(): q and what is grafted under its classes. */
static void destroy(struct nm *m, struct nm_qdisc *q)
{
        uint32_t major = TC_H_MAJ(q->handle);
        int ifindex = q->ifindex;
        unsigned i = (unsigned)(q - m->qdiscs);
        struct nm_dev *d = nm_dev_by_index(m, ifindex);

        /* mlxsw_sp_qdisc_destroy() of an offloaded root: the headroom back in DCB mode */
        if (d && q->parent == TC_H_ROOT && q->offloaded && d->drv->root_qdisc)
                (void)d->drv->root_qdisc(m, d, false);
        m->qdiscs[i] = m->qdiscs[--m->n_qdiscs];
        for (unsigned k = 0; k < m->n_qdiscs; k++)
                if (m->qdiscs[k].ifindex == ifindex && TC_H_MAJ(m->qdiscs[k].parent) == major &&
                    m->qdiscs[k].parent != TC_H_ROOT) {
                        destroy(m, &m->qdiscs[k]);
                        k = (unsigned)-1;       /* the array moved: start over */
                }
}

/* The parent of a new qdisc: the root, or band MIN of an ets qdisc with handle MAJ. */
static int check_parent(struct nm *m, int ifindex, uint32_t parent, const char **extack)
{
        const struct nm_qdisc *p;

        if (parent == TC_H_ROOT)
                return 0;
        p = find_handle(m, ifindex, TC_H_MAJ(parent));
        if (!p || !streq(p->kind, "ets") || TC_H_MIN(parent) < 1 || TC_H_MIN(parent) > p->nbands) {
                *extack = "Failed to find qdisc with specified classid";
                return -ENOENT;
        }
        return 0;
}

/* ets_qdisc_change(): the options into q (kept as they were on an error). */
static int ets_change(struct nm_qdisc *q, const struct nlattr *opts, unsigned mtu, const char **extack)
{
        const struct nlattr *a, *b;
        struct nm_qdisc n = *q;
        unsigned nq = 0, np = 0;
        bool has_nbands = false;

        n.nstrict = 0;
        mnl_attr_for_each_nested(a, opts) {
                switch (mnl_attr_get_type(a)) {
                case TCA_ETS_NBANDS: n.nbands = mnl_attr_get_u8(a); has_nbands = true; break;
                case TCA_ETS_NSTRICT: n.nstrict = mnl_attr_get_u8(a); break;
                default: break;
                }
        }
        if (!has_nbands || n.nbands < 1 || n.nbands > ETS_MAX_BANDS)
                return *extack = "Invalid number of bands", -EINVAL;
        if (n.nstrict > n.nbands)
                return *extack = "Invalid number of strict bands", -EINVAL;
        memset(n.quanta, 0, sizeof(n.quanta));
        for (unsigned i = n.nstrict; i < n.nbands; i++)
                n.quanta[i] = mtu + 14;         /* psched_mtu() */
        memset(n.priomap, n.nbands - 1, sizeof(n.priomap));
        mnl_attr_for_each_nested(a, opts) {
                if (mnl_attr_get_type(a) == TCA_ETS_QUANTA) {
                        mnl_attr_for_each_nested(b, a) {
                                if (n.nstrict + nq >= n.nbands)
                                        return *extack = "ETS quanta has more values than bands", -EINVAL;
                                if (!mnl_attr_get_u32(b))
                                        return *extack = "ETS quantum cannot be zero", -EINVAL;
                                n.quanta[n.nstrict + nq++] = mnl_attr_get_u32(b);
                        }
                } else if (mnl_attr_get_type(a) == TCA_ETS_PRIOMAP) {
                        mnl_attr_for_each_nested(b, a) {
                                if (np >= PRIOS)
                                        return *extack = "Too many priorities in ETS priomap", -EINVAL;
                                if (mnl_attr_get_u8(b) >= n.nbands)
                                        return *extack = "Invalid band number in ETS priomap", -EINVAL;
                                n.priomap[np++] = mnl_attr_get_u8(b);
                        }
                }
        }
        *q = n;
        return 0;
}

static int fls32(uint32_t v)
{
        return v ? 32 - __builtin_clz(v) : 0;
}

/* red_change(): TCA_RED_PARMS and TCA_RED_STAB required, red_check_params(), the flags. */
static int red_change(struct nm_qdisc *q, const struct nlattr *opts, const char **extack)
{
        const struct nlattr *parms = NULL, *stab = NULL, *maxp = NULL, *flags = NULL, *a;
        struct tc_red_qopt o;
        struct bitfield32 bf = { 0 };
        uint32_t f;

        mnl_attr_for_each_nested(a, opts) {
                switch (mnl_attr_get_type(a)) {
                case TCA_RED_PARMS: parms = a; break;
                case TCA_RED_STAB: stab = a; break;
                case TCA_RED_MAX_P: maxp = a; break;
                case TCA_RED_FLAGS: flags = a; break;
                default: break;
                }
        }
        if (!parms || !stab || mnl_attr_get_payload_len(parms) < sizeof(o) || mnl_attr_get_payload_len(stab) < 256)
                return -EINVAL;
        memcpy(&o, mnl_attr_get_payload(parms), sizeof(o));
        if (fls32(o.qth_min) + o.Wlog >= 32 || fls32(o.qth_max) + o.Wlog >= 32 || o.Scell_log >= 32 ||
            o.qth_max < o.qth_min)
                return -EINVAL;
        if (flags) {
                if (mnl_attr_get_payload_len(flags) < sizeof(bf))
                        return -EINVAL;
                memcpy(&bf, mnl_attr_get_payload(flags), sizeof(bf));
                if (o.flags)
                        return *extack = "flags should be passed either through qopt, or through a dedicated "
                                         "attribute", -EINVAL;
                if ((bf.value | bf.selector) & ~RED_SUPPORTED_FLAGS)
                        return -EINVAL;
        }
        f = flags ? (bf.value & bf.selector) : (o.flags & RED_HISTORIC_FLAGS);
        if ((f & TC_RED_NODROP) && !(f & TC_RED_ECN))
                return *extack = "nodrop mode is only meaningful with ECN", -EINVAL;
        q->red = o;
        q->red.flags = 0;
        q->red_flags = f;
        q->red_max_p = maxp ? mnl_attr_get_u32(maxp) : 0;
        return 0;
}

/* ndo_setup_tc: the driver says whether it offloads q (a software device never does). */
static void offload(struct nm *m, struct nm_qdisc *q)
{
        struct nm_dev *d = nm_dev_by_index(m, q->ifindex);
        bool now = d && d->drv->qdisc_offload && d->drv->qdisc_offload(m, d, q);

        /* mlxsw_sp_qdisc_create(): an offloaded root moves the port's headroom to TC mode, and
         * is not offloaded when that headroom does not fit (mlxsw_sp_hdroom_configure) */
        if (d && q->parent == TC_H_ROOT && now != q->offloaded && d->drv->root_qdisc &&
            d->drv->root_qdisc(m, d, now) < 0 && now)
                now = false;
        q->offloaded = now;
}

static int change(struct nm *m, struct nm_dev *d, struct nm_qdisc *q, const struct nlattr *opts, const char **extack)
{
        int r;

        if (!opts)
                return streq(q->kind, "red") ? -EINVAL : 0;
        r = streq(q->kind, "ets") ? ets_change(q, opts, d->mtu, extack) : red_change(q, opts, extack);
        if (r < 0)
                return r;
        /* ets: children of bands that went away go with them */
        for (unsigned k = 0; streq(q->kind, "ets") && k < m->n_qdiscs; k++)
                if (m->qdiscs[k].ifindex == q->ifindex && m->qdiscs[k].parent != TC_H_ROOT &&
                    TC_H_MAJ(m->qdiscs[k].parent) == q->handle && TC_H_MIN(m->qdiscs[k].parent) > q->nbands) {
                        destroy(m, &m->qdiscs[k]);
                        k = (unsigned)-1;
                }
        offload(m, q);
        return 0;
}

static const struct nlattr *attr(const struct nlmsghdr *req, uint16_t type)
{
        const struct nlattr *a;

        mnl_attr_for_each(a, req, sizeof(struct tcmsg))
                if (mnl_attr_get_type(a) == type)
                        return a;
        return NULL;
}

/* tc_modify_qdisc() */
static int newqdisc(struct nm *m, const struct nlmsghdr *req, const char **extack)
{
        const struct tcmsg *t = mnl_nlmsg_get_payload(req);
        const struct nlattr *kind = attr(req, TCA_KIND), *opts = attr(req, TCA_OPTIONS);
        bool create = req->nlmsg_flags & NLM_F_CREATE, excl = req->nlmsg_flags & NLM_F_EXCL;
        bool replace = req->nlmsg_flags & NLM_F_REPLACE;
        struct nm_dev *d = nm_dev_by_index(m, t->tcm_ifindex);
        struct nm_qdisc *q, n = { 0 };
        const char *k;
        int r;

        if (!d)
                return -ENODEV;
        d->n_sets++;
        if (kind && mnl_attr_validate(kind, MNL_TYPE_NUL_STRING) < 0)
                return -EINVAL;
        k = kind ? mnl_attr_get_str(kind) : NULL;
        r = check_parent(m, d->ifindex, t->tcm_parent, extack);
        if (r < 0)
                return r;
        q = find_at(m, d->ifindex, t->tcm_parent);
        if (!q && t->tcm_handle)
                q = find_handle(m, d->ifindex, t->tcm_handle);
        if (q) {
                if (excl && create)
                        return *extack = "Exclusivity flag on, cannot modify", -EEXIST;
                if ((!k || streq(k, q->kind)) && (!t->tcm_handle || t->tcm_handle == q->handle))
                        return change(m, d, q, opts, extack);
                if (!create || !replace)
                        return *extack = "Invalid qdisc name", -EINVAL;
                destroy(m, q);
        } else if (!create) {
                return *extack = "Qdisc not found. To create specify NLM_F_CREATE flag", -ENOENT;
        }
        if (!k || (!streq(k, "ets") && !streq(k, "red")))
                return *extack = "Specified qdisc kind is unknown", -ENOENT;
        if (m->n_qdiscs >= NM_QDISCS_MAX)
                return -ENOMEM;
        n.ifindex = d->ifindex;
        n.parent = t->tcm_parent;
        n.handle = t->tcm_handle ? t->tcm_handle : 0x80010000u + (m->n_qdiscs << 16);
        snprintf(n.kind, sizeof(n.kind), "%s", k);
        if (!opts)
                return -EINVAL;                         /* red_init(): no options */
        r = streq(k, "ets") ? ets_change(&n, opts, d->mtu, extack) : red_change(&n, opts, extack);
        if (r < 0)
                return r;
        m->qdiscs[m->n_qdiscs] = n;
        offload(m, &m->qdiscs[m->n_qdiscs]);
        m->n_qdiscs++;
        nm_logf(m, "%s: qdisc %s %x: parent %x%s", d->name, k, n.handle >> 16, n.parent,
                m->qdiscs[m->n_qdiscs - 1].offloaded ? " offloaded" : "");
        return 0;
}

/* tc_get_qdisc() for RTM_DELQDISC: the qdisc at the parent, by handle when one is given. */
static int delqdisc(struct nm *m, const struct nlmsghdr *req, const char **extack)
{
        const struct tcmsg *t = mnl_nlmsg_get_payload(req);
        struct nm_qdisc *q = find_at(m, t->tcm_ifindex, t->tcm_parent);
        struct nm_dev *d = nm_dev_by_index(m, t->tcm_ifindex);

        if (!d)
                return -ENODEV;
        d->n_sets++;
        if (!q && t->tcm_parent == TC_H_ROOT)
                return *extack = "Cannot delete qdisc with handle of zero", -ENOENT;
        if (!q || (t->tcm_handle && q->handle != t->tcm_handle))
                return *extack = "Specified qdisc handle not found", -ENOENT;
        nm_logf(m, "ifindex %d: qdisc %s %x: deleted", q->ifindex, q->kind, q->handle >> 16);
        destroy(m, q);
        return 0;
}

static void fill_stats(struct nlmsghdr *nlh, bool red)
{
        struct nlattr *s = mnl_attr_nest_start(nlh, TCA_STATS2);
        struct gnet_stats_basic basic = { 0 };
        struct gnet_stats_queue queue = { 0 };
        struct tc_red_xstats x = { 0 };

        mnl_attr_put(nlh, TCA_STATS_BASIC, sizeof(basic), &basic);
        mnl_attr_put(nlh, TCA_STATS_QUEUE, sizeof(queue), &queue);
        if (red)
                mnl_attr_put(nlh, TCA_STATS_APP, sizeof(x), &x);
        mnl_attr_nest_end(nlh, s);
        if (red)
                mnl_attr_put(nlh, TCA_XSTATS, sizeof(x), &x);
}

/* tc_fill_qdisc() with ets_qdisc_dump() / red_dump(). */
static void fill_qdisc(struct nlmsghdr *nlh, int ifindex, uint32_t handle, uint32_t parent, const char *kind,
                       const struct nm_qdisc *q)
{
        struct tcmsg *t = mnl_nlmsg_put_extra_header(nlh, sizeof(*t));
        struct nlattr *opts, *nest;

        t->tcm_family = AF_UNSPEC;
        t->tcm_ifindex = ifindex;
        t->tcm_handle = handle;
        t->tcm_parent = parent;
        t->tcm_info = 2;                /* refcnt */
        mnl_attr_put_strz(nlh, TCA_KIND, kind);
        if (q && streq(q->kind, "ets")) {
                opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
                mnl_attr_put_u8(nlh, TCA_ETS_NBANDS, q->nbands);
                mnl_attr_put_u8(nlh, TCA_ETS_NSTRICT, q->nstrict);
                if (q->nbands > q->nstrict) {
                        nest = mnl_attr_nest_start(nlh, TCA_ETS_QUANTA);
                        for (unsigned b = q->nstrict; b < q->nbands; b++)
                                mnl_attr_put_u32(nlh, TCA_ETS_QUANTA_BAND, q->quanta[b]);
                        mnl_attr_nest_end(nlh, nest);
                }
                nest = mnl_attr_nest_start(nlh, TCA_ETS_PRIOMAP);
                for (unsigned p = 0; p < PRIOS; p++)
                        mnl_attr_put_u8(nlh, TCA_ETS_PRIOMAP_BAND, q->priomap[p]);
                mnl_attr_nest_end(nlh, nest);
                mnl_attr_nest_end(nlh, opts);
        } else if (q) {
                struct tc_red_qopt o = q->red;
                struct bitfield32 bf = { .value = q->red_flags, .selector = RED_SUPPORTED_FLAGS };

                o.flags = (unsigned char)(q->red_flags & RED_HISTORIC_FLAGS);
                opts = mnl_attr_nest_start(nlh, TCA_OPTIONS);
                mnl_attr_put(nlh, TCA_RED_PARMS, sizeof(o), &o);
                mnl_attr_put_u32(nlh, TCA_RED_MAX_P, q->red_max_p);
                mnl_attr_put(nlh, TCA_RED_FLAGS, sizeof(bf), &bf);
                mnl_attr_nest_end(nlh, opts);
        }
        mnl_attr_put_u8(nlh, TCA_HW_OFFLOAD, q && q->offloaded);
        fill_stats(nlh, q && streq(q->kind, "red"));
}

/* tc_dump_qdisc(): every device, its root (or the default) and what hangs under it. */
static int dump(struct nm *m, const struct nlmsghdr *req, struct nm_out *o)
{
        unsigned char *buf = nm_out_new(o);
        struct nlmsghdr *nlh;
        size_t off = 0;

        if (!buf)
                return -ENOBUFS;
        for (unsigned i = 0; i < m->n_devs; i++) {
                const struct nm_dev *d = &m->devs[i];
                const struct nm_qdisc *root = find_at(m, d->ifindex, TC_H_ROOT);

                if (off + 2048 > NM_REPLY_MAX) {
                        o->len[o->n - 1] = off;
                        if (!(buf = nm_out_new(o)))
                                return -ENOBUFS;
                        off = 0;
                }
                nlh = nm_msg_start(buf + off, req, RTM_NEWQDISC, NLM_F_MULTI);
                if (root)
                        fill_qdisc(nlh, d->ifindex, root->handle, TC_H_ROOT, root->kind, root);
                else
                        fill_qdisc(nlh, d->ifindex, 0, TC_H_ROOT, d->drv->has_dcbnl ? "mq" : "noqueue", NULL);
                off += NLMSG_ALIGN(nlh->nlmsg_len);
                for (unsigned k = 0; k < m->n_qdiscs; k++) {
                        const struct nm_qdisc *q = &m->qdiscs[k];

                        if (q->ifindex != d->ifindex || q->parent == TC_H_ROOT)
                                continue;
                        if (off + 1024 > NM_REPLY_MAX) {
                                o->len[o->n - 1] = off;
                                if (!(buf = nm_out_new(o)))
                                        return -ENOBUFS;
                                off = 0;
                        }
                        nlh = nm_msg_start(buf + off, req, RTM_NEWQDISC, NLM_F_MULTI);
                        fill_qdisc(nlh, q->ifindex, q->handle, q->parent, q->kind, q);
                        off += NLMSG_ALIGN(nlh->nlmsg_len);
                }
        }
        o->len[o->n - 1] = off + nm_put_done(buf + off, req);
        return 1;
}

/*
 * By hand (nm_ctl DEV qdisc root|none): an operator's root qdisc that the driver
 * offloads (`tc qdisc replace dev DEV root handle 1: ets bands 8 ...`), which puts
 * mlxsw's headroom in TC mode (mlxsw_sp_qdisc_create()), or its removal.
 */
int nm_tc_hand_root(struct nm *m, struct nm_dev *d, bool add)
{
        struct nm_qdisc *q = find_at(m, d->ifindex, TC_H_ROOT);
        int r;

        if (!add) {
                if (q)
                        destroy(m, q);
                return 0;
        }
        if (q || m->n_qdiscs >= NM_QDISCS_MAX)
                return -EEXIST;
        if (!d->drv->root_qdisc)
                return -EOPNOTSUPP;
        if ((r = d->drv->root_qdisc(m, d, true)) < 0)
                return r;
        q = &m->qdiscs[m->n_qdiscs++];
        *q = (struct nm_qdisc){ .ifindex = d->ifindex, .handle = 1u << 16, .parent = TC_H_ROOT, .nbands = 8,
                                .offloaded = true };
        snprintf(q->kind, sizeof(q->kind), "ets");
        for (unsigned b = 0; b < 8; b++) {
                q->quanta[b] = 0;
                q->priomap[b] = (uint8_t)(7 - b);
        }
        q->nstrict = 8;
        return 0;
}

int nm_tc_request(struct nm *m, const struct nlmsghdr *req, struct nm_out *o, const char **extack)
{
        if (mnl_nlmsg_get_payload_len(req) < sizeof(struct tcmsg))
                return -EINVAL;
        switch (req->nlmsg_type) {
        case RTM_NEWQDISC: return newqdisc(m, req, extack);
        case RTM_DELQDISC: return delqdisc(m, req, extack);
        case RTM_GETQDISC:
                if (req->nlmsg_flags & NLM_F_DUMP)
                        return dump(m, req, o);
                return -EOPNOTSUPP;
        default: return -EOPNOTSUPP;
        }
}

void nm_tc_dump(struct nm *m, const struct nm_dev *d, FILE *f)
{
        for (unsigned k = 0; k < m->n_qdiscs; k++) {
                const struct nm_qdisc *q = &m->qdiscs[k];

                if (q->ifindex != d->ifindex)
                        continue;
                fprintf(f, "  qdisc %s %x: parent %x:%x", q->kind, q->handle >> 16, TC_H_MAJ(q->parent) >> 16,
                        TC_H_MIN(q->parent));
                if (streq(q->kind, "ets")) {
                        fprintf(f, " bands %u strict %u", q->nbands, q->nstrict);
                        nm_dump_u8s(f, "priomap", q->priomap, 8);
                        fprintf(f, " quanta");
                        for (unsigned b = q->nstrict; b < q->nbands; b++)
                                fprintf(f, "%s%u", b > q->nstrict ? "," : " ", q->quanta[b]);
                } else {
                        fprintf(f, " min %u max %u limit %u flags 0x%x", q->red.qth_min, q->red.qth_max, q->red.limit,
                                q->red_flags);
                }
                fprintf(f, " offloaded %u\n", q->offloaded);
        }
}
