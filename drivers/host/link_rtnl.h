/* SPDX-License-Identifier: MIT */
/*
 * Links over rtnetlink: read one link or dump all (RTM_GETLINK), set the MTU
 * (RTM_NEWLINK IFLA_MTU). Also the "link" driver (field mtu on interfaces);
 * waiting out a link flap is link_wait.h.
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "drivers/driver.h"
#include "drivers/host/nl.h"

#ifndef IFF_LOWER_UP
#define IFF_LOWER_UP 0x10000         /* linux/if.h; net/if.h lacks it */
#endif

struct link_info {
        int ifindex;
        char name[IF_NAMESIZE];
        unsigned flags;                 /* IFF_*; IFF_LOWER_UP = carrier */
        uint8_t operstate;              /* IF_OPER_*, 0 = unknown */
        uint32_t mtu;
        uint32_t min_mtu;               /* 0 = not reported */
        uint32_t max_mtu;               /* 0 = not reported */
        char kind[32];                  /* IFLA_INFO_KIND ("veth"), "" for hardware */
        char parent[64];                /* IFLA_PARENT_DEV_NAME (5.14+): the parent device ("0000:03:00.0"), "" none */
        bool has_carrier_counts;        /* IFLA_CARRIER_DOWN_COUNT reported (4.16+) */
        uint32_t carrier_down_count;    /* carrier losses since the device exists */
};

/* Parse one RTM_NEWLINK message. -EBADMSG/-EINVAL on malformed input. */
int link_rtnl_parse(const struct nlmsghdr *nlh, struct link_info *ret);

/* One link by ifindex (> 0) or else by name. */
int link_rtnl_get(struct nl *nl, int ifindex, const char *name, struct link_info *ret,
                  struct errbuf *e);

/* Every link of the namespace: fn is called for each; a negative return stops the dump. */
int link_rtnl_dump(struct nl *nl, int (*fn)(const struct link_info *l, void *data), void *data,
                   struct errbuf *e);

int link_rtnl_set_mtu(struct nl *nl, int ifindex, uint32_t mtu, struct errbuf *e);

/*
 * The request's link cache (driver_io.links): every link of the namespace from one
 * RTM_GETLINK dump, valid while the request's handle writes nothing (nl_writes()).
 * A plan of many interfaces reads them all from one dump, and after its writes
 * from one more (a read-back); a read that alternates with writes (a restore) asks
 * for its one link, as a request of a single interface does.
 *
 * link_rtnl_read(): target t's link (t->io's cache, or a request of its own).
 * link_cache_links(): every link, sorted by ifindex (interface discovery); the
 * array stays valid until the next write or read through io.
 */
int link_rtnl_read(const struct target *t, struct nl *nl, struct link_info *ret, struct errbuf *e);
int link_cache_links(struct driver_io *io, const struct driver_env *env, const struct link_info **ret,
                     unsigned *ret_n, struct errbuf *e);
/*
 * l (of link_cache_links()) is a software link: the kernel's dump names parent
 * devices and l has none (veth, bridge, dummy, ...: no NIC or switch driver
 * behind it). false when the dump cannot tell.
 */
bool link_cache_software(const struct driver_io *io, const struct link_info *l);

/*
 * The name of target t's device (the last component of SYSFS/class/net/IF/device:
 * "0000:03:00.0"); -ENXIO when sysfs shows a virtual link (veth, bridge: no parent
 * device at all, so no PCI function, no RDMA device, no NIC knobs), -ENOENT when
 * the interface has no device link. Read once per request and link (t->io's cache);
 * on the real sysfs, the parent device the kernel's dump named is the answer.
 */
#define LINK_DEVICE_MAX 64
int link_rtnl_device(const struct target *t, char *buf, size_t size);
void link_cache_free(struct link_cache *c);

/* "interface 'NAME'" into e->where, keeping the message; returns r. */
int link_rtnl_where(const struct target *t, struct errbuf *e, int r);

extern const struct driver_ops link_driver;
