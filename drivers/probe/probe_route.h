/* SPDX-License-Identifier: MIT */
/*
 * The route a probe takes: the kernel's answer to RTM_GETROUTE for the peer (like
 * `ip route get PEER [from SRC] [oif DEV]`): the local interface and the source
 * address. Nothing is sent to the peer.
 */
#pragma once

#include <stdbool.h>

#include "common/errbuf.h"
#include "drivers/probe/probe.h"
#include "drivers/probe/probe_net.h"

struct probe_route {
        int ifindex;
        char netdev[PROBE_NETDEV_MAX];  /* the interface the route leaves by */
        struct probe_addr source;       /* the route's source address, port 0 */
        bool local;                     /* the peer is an address of this host (delivered over loopback) */
};

/*
 * Look up the route to peer in the caller's network namespace; netdev ("" = any)
 * and source ("" = the route's) constrain it. -ENETUNREACH/-EHOSTUNREACH/-ENODEV
 * with e filled when there is none; *ret written on success only.
 */
int probe_route_get(const struct probe_addr *peer, const char *netdev, const char *source,
                    struct probe_route *ret, struct errbuf *e);
