/* SPDX-License-Identifier: MIT */
/*
 * drivers/host link: the links of a request, in four files whose calls go one way
 * (each calls only those below it):
 *
 *   link_driver.c  the "link" driver (field mtu on interfaces)
 *   link_wait.c    waiting out a link flap after a change (carrier, RDMA ports)
 *   link_cache.c   the request's links: one RTM_GETLINK dump serves every read
 *   link_rtnl.c    the rtnetlink messages: RTM_GETLINK one or all, RTM_NEWLINK IFLA_MTU
 *
 * May call: drivers/host/nl.h, sysfs.h, host_io.h (the request's handles, from the
 * driver only), drivers/driver.h, policies/, common/. Called by the host drivers,
 * interface discovery and the agent.
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
        int master;                     /* IFLA_MASTER: the upper device (a bond, a bridge), 0 none */
        char upper_kind[16];            /* IFLA_INFO_SLAVE_KIND: the upper's kind ("bond"), "" none */
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
/* The RTM_NEWLINK IFLA_MTU request (for nl_queue); NULL when it does not fit. */
struct nlmsghdr *link_rtnl_mtu_msg(struct nl *nl, int ifindex, uint32_t mtu);

/*
 * The request's link cache (driver_io.links): every link of the namespace from one
 * RTM_GETLINK dump, valid while the request's handle writes nothing (nl_writes()).
 * A plan of many interfaces reads them all from one dump, and after its writes
 * from one more (a read-back); a read that alternates with writes (a restore) asks
 * for its one link, as a request of a single interface does.
 *
 * link_rtnl_read(): target t's link (t->io's cache, or a request of its own).
 * link_cache_links(): every link, sorted by ifindex (interface discovery), through
 * nl, the request's handle (host_io.h); the array stays valid until the next write
 * or read through io.
 */
int link_rtnl_read(const struct target *t, struct nl *nl, struct link_info *ret, struct errbuf *e);
int link_cache_links(struct driver_io *io, struct nl *nl, const struct link_info **ret, unsigned *ret_n,
                     struct errbuf *e);
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
struct link_cache;
void link_cache_free(struct link_cache *c);

/* "interface 'NAME'" into e->where, keeping the message; returns r. */
int link_rtnl_where(const struct target *t, struct errbuf *e, int r);

/* ---- link_wait.c ---- */

/*
 * Waiting out a link flap after a change that may bounce the port: a PFC change
 * on mlx5 (mlx5_toggle_port_link(): carrier drops *after* the SET returned,
 * when the firmware's port event arrives), any DCB or MTU change on ice
 * (ice_dcbnl_devreset(), ice_down/ice_up: carrier drops before the reply), a TC
 * count or MTU change on bnxt (bnxt_close_nic/bnxt_open_nic).
 *
 * link_wait_begin() notes the link before the change: carrier, the kernel's
 * carrier-down counter (IFLA_CARRIER_DOWN_COUNT, so a flap between two polls is
 * not missed), its speed (SYSFS/class/net/IF/speed) and which RDMA ports of the
 * interface are ACTIVE (SYSFS/class/infiniband/DEV/ports/N/state). link_wait_end()
 * then waits for the edge: carrier down then up again within the link's bound, or
 * no drop at all within flap_wait_ms; then for every RDMA port that was ACTIVE to be
 * ACTIVE again within rdma_wait_ms (mlx5, irdma and bnxt_re report ACTIVE exactly
 * while the netdev has carrier: mlx5_query_port_roce(), irdma_query_port(),
 * bnxt_re_query_port()). A link without carrier before the change, or a virtual
 * one (IFLA_INFO_KIND: veth, bond, ...), is not waited for.
 *
 * The bound follows the speed: a retrained PHY (mlx5's PFC toggle is a PAOS down
 * and up: auto-negotiation and link training again) takes longer the faster the
 * link. No vendor publishes link-up times, so the table of link_wait_bound_ms() is
 * a conservative judgement, not a measurement: 3 s up to 10G, 5 s at 25G, 8 s at
 * 40-50G, 10 s at 100G, 15 s at 200G, 20 s at 400G, 30 s above; never below
 * settle_ms, never above link_up_max_ms (both agent configuration keys); a speed the
 * kernel does not report waits link_up_max_ms.
 */

#define LINK_WAIT_PORTS_MAX 8

struct link_wait {
        bool carrier;                   /* IFF_LOWER_UP before the change */
        bool counts;
        uint32_t down_count;
        uint32_t speed_mbps;            /* before the change; 0 unknown */
        unsigned bound_ms;              /* how long carrier may stay away once it dropped */
        unsigned n_ports;
        char ports[LINK_WAIT_PORTS_MAX][320];   /* state files of RDMA ports that were ACTIVE */
};

/* The carrier bound for a link of speed_mbps (0 unknown): the table above, within [settle_ms, max_ms]. */
unsigned link_wait_bound_ms(uint32_t speed_mbps, unsigned settle_ms, unsigned max_ms);

int link_wait_begin(struct nl *nl, const struct target *t, struct link_wait *ret, struct errbuf *e);
int link_wait_end(struct nl *nl, const struct target *t, const struct link_wait *w, struct errbuf *e);

/* The RDMA port state files of an interface ("SYSFS/class/infiniband/DEV/ports/N/state"). */
unsigned link_wait_rdma_ports(const char *sysfs_root, const char *ifname, char (*ret)[320], unsigned max);

/* ---- link_driver.c ---- */

extern const struct driver_ops link_driver;
