/* SPDX-License-Identifier: MIT */
/* The "link" driver: interface MTU over rtnetlink, plus link read/dump/carrier helpers. */
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "drivers/host/link_rtnl.h"
#include "drivers/host/link_wait.h"

static const struct nl_policy link_policy[IFLA_MAX + 1] = {
        [IFLA_IFNAME] = { MNL_TYPE_NUL_STRING, 0 },
        [IFLA_MTU] = { MNL_TYPE_U32, 0 },
        [IFLA_MIN_MTU] = { MNL_TYPE_U32, 0 },
        [IFLA_MAX_MTU] = { MNL_TYPE_U32, 0 },
        [IFLA_OPERSTATE] = { MNL_TYPE_U8, 0 },
        [IFLA_LINKINFO] = { MNL_TYPE_NESTED, 0 },
        [IFLA_CARRIER_DOWN_COUNT] = { MNL_TYPE_U32, 0 },
        [IFLA_PARENT_DEV_NAME] = { MNL_TYPE_NUL_STRING, 0 },
};

static const struct nl_policy linkinfo_policy[IFLA_INFO_MAX + 1] = {
        [IFLA_INFO_KIND] = { MNL_TYPE_NUL_STRING, 0 },
};

int link_rtnl_parse(const struct nlmsghdr *nlh, struct link_info *ret)
{
        const struct nlattr *tb[IFLA_MAX + 1], *info[IFLA_INFO_MAX + 1];
        const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(nlh);
        struct link_info l = { 0 };
        int r;

        if (nlh->nlmsg_type != RTM_NEWLINK)
                return -EBADMSG;
        r = nl_parse_msg(nlh, sizeof(*ifi), link_policy, IFLA_MAX, tb);
        if (r < 0)
                return r;
        if (!tb[IFLA_IFNAME] || !tb[IFLA_MTU] || ifi->ifi_index <= 0)
                return -EBADMSG;
        l.ifindex = ifi->ifi_index;
        l.flags = ifi->ifi_flags;
        strcopy(l.name, sizeof(l.name), mnl_attr_get_str(tb[IFLA_IFNAME]));
        l.mtu = mnl_attr_get_u32(tb[IFLA_MTU]);
        if (tb[IFLA_MIN_MTU])
                l.min_mtu = mnl_attr_get_u32(tb[IFLA_MIN_MTU]);
        if (tb[IFLA_MAX_MTU])
                l.max_mtu = mnl_attr_get_u32(tb[IFLA_MAX_MTU]);
        if (tb[IFLA_OPERSTATE])
                l.operstate = mnl_attr_get_u8(tb[IFLA_OPERSTATE]);
        if (tb[IFLA_CARRIER_DOWN_COUNT]) {
                l.has_carrier_counts = true;
                l.carrier_down_count = mnl_attr_get_u32(tb[IFLA_CARRIER_DOWN_COUNT]);
        }
        if (tb[IFLA_LINKINFO] && nl_parse_nested(tb[IFLA_LINKINFO], linkinfo_policy,
                                                 IFLA_INFO_MAX, info) == 0 && info[IFLA_INFO_KIND])
                strcopy(l.kind, sizeof(l.kind), mnl_attr_get_str(info[IFLA_INFO_KIND]));
        if (tb[IFLA_PARENT_DEV_NAME])
                strcopy(l.parent, sizeof(l.parent), mnl_attr_get_str(tb[IFLA_PARENT_DEV_NAME]));
        *ret = l;
        return 0;
}

struct get_ctx {
        struct link_info *l;
        bool found;
        int (*fn)(const struct link_info *l, void *data);
        void *data;
};

static int get_cb(const struct nlmsghdr *nlh, void *data)
{
        struct get_ctx *g = data;
        struct link_info l;
        int r;

        r = link_rtnl_parse(nlh, &l);
        if (r < 0) {
                errno = -r;
                return MNL_CB_ERROR;
        }
        if (g->fn) {
                r = g->fn(&l, g->data);
                if (r < 0) {
                        errno = -r;
                        return MNL_CB_ERROR;
                }
                return MNL_CB_OK;
        }
        *g->l = l;
        g->found = true;
        return MNL_CB_OK;
}

static struct nlmsghdr *getlink_msg(struct nl *nl, uint16_t flags, int ifindex)
{
        struct nlmsghdr *nlh = nl_msg_new(nl, RTM_GETLINK, flags);
        struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

        ifi->ifi_family = AF_UNSPEC;
        ifi->ifi_index = ifindex;
        (void)nl_put_u32(nlh, IFLA_EXT_MASK, RTEXT_FILTER_SKIP_STATS);
        return nlh;
}

int link_rtnl_get(struct nl *nl, int ifindex, const char *name, struct link_info *ret,
                  struct errbuf *e)
{
        struct get_ctx g = { .l = ret };
        struct nlmsghdr *nlh = getlink_msg(nl, 0, ifindex > 0 ? ifindex : 0);
        int r;

        if (ifindex <= 0 && nl_put_strz(nlh, IFLA_IFNAME, name ? name : "") < 0)
                return errbuf_set(e, EMSGSIZE, NULL, "interface name too long");
        r = nl_talk(nl, nlh, get_cb, &g, "read link", e);
        if (r < 0)
                return r;
        if (!g.found)
                return errbuf_set(e, ENODEV, NULL, "read link: no reply for the link");
        return 0;
}

int link_rtnl_dump(struct nl *nl, int (*fn)(const struct link_info *l, void *data), void *data,
                   struct errbuf *e)
{
        struct get_ctx g = { .fn = fn, .data = data };

        return nl_talk(nl, getlink_msg(nl, NLM_F_DUMP, 0), get_cb, &g, "list links", e);
}

static struct nlmsghdr *setmtu_msg(struct nl *nl, int ifindex, uint32_t mtu)
{
        struct nlmsghdr *nlh = nl_msg_new(nl, RTM_NEWLINK, NLM_F_ACK);
        struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

        ifi->ifi_family = AF_UNSPEC;
        ifi->ifi_index = ifindex;
        return nl_put_u32(nlh, IFLA_MTU, mtu) < 0 ? NULL : nlh;
}

int link_rtnl_set_mtu(struct nl *nl, int ifindex, uint32_t mtu, struct errbuf *e)
{
        struct nlmsghdr *nlh = setmtu_msg(nl, ifindex, mtu);
        char what[64];

        if (!nlh)
                return errbuf_set(e, EMSGSIZE, NULL, "set mtu: request too large");
        snprintf(what, sizeof(what), "set mtu %u", mtu);
        return nl_talk(nl, nlh, NULL, NULL, what, e);
}

/* The same, queued on the request's handle (nl_queue): a refusal names the interface. */
static int queue_mtu(struct nl *nl, const struct target *t, uint32_t mtu, struct errbuf *e)
{
        struct nlmsghdr *nlh = setmtu_msg(nl, t->ifindex, mtu);
        char where[96], what[64], num[24];

        /* Every queued change carries these (for its refusal): no formatting on the way. */
        strcat2(where, sizeof(where), "interface '", t->name);
        strcat2(where, sizeof(where), where, "'");
        if (!nlh)
                return errbuf_set(e, EMSGSIZE, where, "set mtu: request too large");
        strcat2(what, sizeof(what), "set mtu ", fmt_ulong(num, mtu));
        return nl_queue(nl, nlh, where, what, e);
}

int link_rtnl_where(const struct target *t, struct errbuf *e, int r)
{
        if (e)
                snprintf(e->where, sizeof(e->where), "interface '%s'", t->name);
        return r;
}

/* ---- the driver ---- */

static int link_caps(struct target *t, uint32_t *ret_fields, struct errbuf *e)
{
        *ret_fields = STATE_BIT(STATE_FIELD_MTU);
        return 0;
}

/* The kernel refuses an MTU outside the link's range (dev_validate_mtu()): say so before anything changes. */
static int link_check(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        uint32_t mtu = c->desired[0].mtu;

        if (!(c->fields & STATE_BIT(STATE_FIELD_MTU)))
                return 0;
        if ((t->min_mtu && mtu < t->min_mtu) || (t->max_mtu && mtu > t->max_mtu))
                return errbuf_set(e, ERANGE, NULL, "interface '%s' (driver %s): mtu %u out of the kernel's range "
                                  "%u-%u for this link; nothing was changed", t->name,
                                  t->kernel_driver[0] ? t->kernel_driver : "unknown", mtu, t->min_mtu,
                                  t->max_mtu ? t->max_mtu : UINT32_MAX);
        return 0;
}

static int link_read(struct target *t, uint32_t fields, struct state *ret, struct errbuf *e)
{
        _cleanup_nl_ struct nl *own = NULL;
        struct link_info l;
        struct nl *nl;
        int r;

        if (!(fields & STATE_BIT(STATE_FIELD_MTU)))
                return 0;
        r = driver_rtnl(t, &nl, &own, e);
        if (r >= 0)
                r = link_rtnl_read(t, nl, &l, e);
        if (r < 0)
                return link_rtnl_where(t, e, r);
        ret->mtu = l.mtu;
        ret->present |= STATE_BIT(STATE_FIELD_MTU);
        return 0;
}

static int link_apply(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        _cleanup_nl_ struct nl *own = NULL;
        struct link_wait w;
        struct nl *nl;
        int r;

        if (!(c->delta[0] & STATE_BIT(STATE_FIELD_MTU)))
                return 0;
        r = driver_rtnl(t, &nl, &own, e);
        if (r >= 0)
                r = link_wait_begin(nl, t, &w, e);
        /* Nothing to wait for and a transaction's apply: the ACK is collected with the others'. */
        if (r >= 0 && !w.carrier && t->io && t->io->batch)
                return queue_mtu(nl, t, c->desired[0].mtu, e);
        /* ice and bnxt reopen the netdev for a new MTU: wait for the link like after DCB changes */
        if (r >= 0)
                r = link_rtnl_set_mtu(nl, t->ifindex, c->desired[0].mtu, e);
        if (r >= 0)
                r = link_wait_end(nl, t, &w, e);
        return r < 0 ? link_rtnl_where(t, e, r) : 0;
}

const struct driver_ops link_driver = {
        .name = "link",
        .kind = TARGET_INTERFACE,
        .fields = STATE_BIT(STATE_FIELD_MTU),
        .caps = link_caps,
        .check = link_check,
        .read = link_read,
        .apply = link_apply,
};
