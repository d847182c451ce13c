/* SPDX-License-Identifier: MIT */
/* The route a probe takes (see probe_route.h): one RTM_GETROUTE through the netlink helper. */
#include <arpa/inet.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <netinet/in.h>

#include "drivers/host/nl.h"
#include "drivers/probe/probe_route.h"

static const struct nl_policy route_policy[RTA_MAX + 1] = {
        [RTA_OIF] = { MNL_TYPE_U32, 0 },
        [RTA_PREFSRC] = { MNL_TYPE_BINARY, 4 },
};

struct route_reply {
        int family;
        bool found;
        int oif;
        uint8_t prefsrc[16];
        bool has_prefsrc;
        bool local;
};

static int route_cb(const struct nlmsghdr *nlh, void *data)
{
        struct route_reply *rr = data;
        const struct rtmsg *rtm = mnl_nlmsg_get_payload(nlh);
        const struct nlattr *tb[RTA_MAX + 1];
        size_t alen = rr->family == AF_INET ? 4 : 16;

        if (nlh->nlmsg_type != RTM_NEWROUTE || nl_parse_msg(nlh, sizeof(*rtm), route_policy, RTA_MAX, tb) < 0) {
                errno = EBADMSG;
                return MNL_CB_ERROR;
        }
        if (tb[RTA_OIF])
                rr->oif = (int)mnl_attr_get_u32(tb[RTA_OIF]);
        if (tb[RTA_PREFSRC] && mnl_attr_get_payload_len(tb[RTA_PREFSRC]) == alen) {
                memcpy(rr->prefsrc, mnl_attr_get_payload(tb[RTA_PREFSRC]), alen);
                rr->has_prefsrc = true;
        }
        rr->local = rtm->rtm_type == RTN_LOCAL;
        rr->found = true;
        return MNL_CB_OK;
}

static const void *addr_bytes(const struct probe_addr *a)
{
        if (a->ss.ss_family == AF_INET)
                return &((const struct sockaddr_in *)&a->ss)->sin_addr;
        return &((const struct sockaddr_in6 *)&a->ss)->sin6_addr;
}

static void set_source(struct probe_addr *ret, int family, const uint8_t *bytes)
{
        memset(ret, 0, sizeof(*ret));
        ret->ss.ss_family = (sa_family_t)family;
        if (family == AF_INET) {
                memcpy(&((struct sockaddr_in *)&ret->ss)->sin_addr, bytes, 4);
                ret->len = sizeof(struct sockaddr_in);
        } else {
                memcpy(&((struct sockaddr_in6 *)&ret->ss)->sin6_addr, bytes, 16);
                ret->len = sizeof(struct sockaddr_in6);
        }
}

/* The request: destination, optional source and interface. */
static int route_msg(struct nl *nl, const struct probe_addr *peer, const struct probe_addr *src, int oif,
                     struct nlmsghdr **ret)
{
        struct nlmsghdr *nlh = nl_msg_new(nl, RTM_GETROUTE, 0);
        struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof(*rtm));
        size_t alen = peer->ss.ss_family == AF_INET ? 4 : 16;

        rtm->rtm_family = (unsigned char)peer->ss.ss_family;
        rtm->rtm_dst_len = (unsigned char)(alen * 8);
        if (nl_put(nlh, RTA_DST, alen, addr_bytes(peer)) < 0)
                return -EMSGSIZE;
        if (src) {
                rtm->rtm_src_len = (unsigned char)(alen * 8);
                if (nl_put(nlh, RTA_SRC, alen, addr_bytes(src)) < 0)
                        return -EMSGSIZE;
        }
        if (oif > 0 && nl_put_u32(nlh, RTA_OIF, (uint32_t)oif) < 0)
                return -EMSGSIZE;
        *ret = nlh;
        return 0;
}

int probe_route_get(const struct probe_addr *peer, const char *netdev, const char *source,
                    struct probe_route *ret, struct errbuf *e)
{
        struct route_reply rr = { .family = peer->ss.ss_family };
        struct probe_route rt = { .ifindex = 0 };
        struct probe_addr src;
        struct nlmsghdr *nlh = NULL;
        struct nl *nl = NULL;
        char where[PROBE_PEER_MAX + 32], buf[PROBE_PEER_MAX];
        int oif = 0, r;

        snprintf(where, sizeof(where), "route to probe peer %s", probe_net_str(peer, buf, sizeof(buf)));
        if (netdev && netdev[0] && !(oif = (int)if_nametoindex(netdev)))
                return errbuf_set(e, ENODEV, where, "no interface '%s' here", netdev);
        if (!oif && peer->ss.ss_family == AF_INET6)     /* a link-local peer names its interface: fe80::2%eth0 */
                oif = (int)((const struct sockaddr_in6 *)&peer->ss)->sin6_scope_id;
        if (source && source[0] && (probe_net_parse_host(source, &src) < 0 || src.ss.ss_family != peer->ss.ss_family))
                return errbuf_set(e, EINVAL, where, "source '%s' is not an address of the peer's family", source);
        r = nl_open(NULL, NETLINK_ROUTE, &nl, e);
        if (r >= 0)
                r = route_msg(nl, peer, source && source[0] ? &src : NULL, oif, &nlh);
        if (r >= 0)
                r = nl_talk(nl, nlh, route_cb, &rr, "route lookup", e);
        nl_close(nl);
        if (r < 0) {
                errbuf_prefix(e, "%s", where);
                return r;
        }
        if (!rr.found || rr.oif <= 0 || !if_indextoname((unsigned)rr.oif, rt.netdev))
                return errbuf_set(e, ENETUNREACH, where, "the kernel names no interface for it");
        rt.ifindex = rr.oif;
        rt.local = rr.local;
        if (source && source[0])
                rt.source = src;
        else if (rr.has_prefsrc)
                set_source(&rt.source, peer->ss.ss_family, rr.prefsrc);
        else
                return errbuf_set(e, EADDRNOTAVAIL, where, "the route via '%s' has no source address", rt.netdev);
        *ret = rt;
        return 0;
}
