/* SPDX-License-Identifier: MIT */
/* The rtnetlink messages of links: RTM_GETLINK one or all, RTM_NEWLINK IFLA_MTU (see link.h). */
#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "drivers/host/link.h"

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

struct nlmsghdr *link_rtnl_mtu_msg(struct nl *nl, int ifindex, uint32_t mtu)
{
        struct nlmsghdr *nlh = nl_msg_new(nl, RTM_NEWLINK, NLM_F_ACK);
        struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

        ifi->ifi_family = AF_UNSPEC;
        ifi->ifi_index = ifindex;
        return nl_put_u32(nlh, IFLA_MTU, mtu) < 0 ? NULL : nlh;
}

int link_rtnl_set_mtu(struct nl *nl, int ifindex, uint32_t mtu, struct errbuf *e)
{
        struct nlmsghdr *nlh = link_rtnl_mtu_msg(nl, ifindex, mtu);
        char what[64];

        if (!nlh)
                return errbuf_set(e, EMSGSIZE, NULL, "set mtu: request too large");
        snprintf(what, sizeof(what), "set mtu %u", mtu);
        return nl_talk(nl, nlh, NULL, NULL, what, e);
}

int link_rtnl_where(const struct target *t, struct errbuf *e, int r)
{
        if (e)
                snprintf(e->where, sizeof(e->where), "interface '%s'", t->name);
        return r;
}
