/* SPDX-License-Identifier: MIT */
/*
 * Interface discovery in the caller's network namespace: every link from an
 * rtnetlink dump, matched against policy globs (fnmatch(3)), with its ifindex
 * and kernel driver name (ETHTOOL_GDRVINFO, else the sysfs device/driver link,
 * else the rtnetlink link kind, else "unknown").
 */
#pragma once

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/errbuf.h"

#define IFACE_MAX 1024                  /* links beyond this are an error */

struct nl_transport;

struct iface {
        char name[IF_NAMESIZE];
        int ifindex;
        unsigned flags;                 /* IFF_*: IFF_LOOPBACK, IFF_UP, IFF_LOWER_UP */
        uint32_t mtu;
        uint32_t min_mtu, max_mtu;      /* the kernel's MTU range, 0 = not reported */
        char kind[32];                  /* "veth", "" */
        char kernel_driver[32];         /* "veth", "mlx5_core", "unknown" */
};

/* All links, sorted by ifindex. *ret is owned by the caller (free()). t NULL = the kernel. */
int iface_list(const struct nl_transport *t, const char *sysfs_root, struct iface **ret,
               unsigned *ret_n, struct errbuf *e);

/*
 * The same from the request's link cache (link.h): one dump for discovery and
 * the plan's reads. kernel_driver is left empty: iface_kernel_driver() names the
 * driver of the links the caller takes.
 */
struct driver_io;
struct driver_env;
int iface_list_io(struct driver_io *io, const struct driver_env *env, struct iface **ret, unsigned *ret_n,
                  struct errbuf *e);

/* The kernel driver of every v[i] with which[i] and no driver named yet (one ethtool socket for all). */
void iface_kernel_drivers(struct iface *v, unsigned n, const bool *which, const char *sysfs_root);

/* The kernel driver of a link into buf (never fails: "unknown"). */
void iface_kernel_driver(const char *name, const char *sysfs_root, const char *kind,
                         char *buf, size_t size);

/*
 * Loopback, or a software device that is never a fabric port (dummy, bridge, tun/tap,
 * ifb, vrf, wireguard, tunnels: see iface.c)? veth, vlan, bond and macvlan are not.
 */
bool iface_is_virtual(const struct iface *x);
/* Does a policy glob select x? Loopback and virtual devices only by their exact name. */
bool iface_selects(const char *glob, const struct iface *x);

/* Does name match any of the globs? */
bool iface_match(const char *name, const char (*globs)[64], unsigned n);
