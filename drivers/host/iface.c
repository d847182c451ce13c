/* SPDX-License-Identifier: MIT */
/* Interface discovery: rtnetlink dump, globs, kernel driver names. */
#include <fnmatch.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "drivers/host/host_io.h"
#include "drivers/host/iface.h"
#include "drivers/host/link.h"

/* ETHTOOL_GDRVINFO over fd (an AF_INET datagram socket). */
static int drvinfo(int fd, const char *name, char *buf, size_t size)
{
        struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
        struct ifreq ifr = { 0 };

        if (fd < 0)
                return -EBADF;
        strcopy(ifr.ifr_name, sizeof(ifr.ifr_name), name);
        ifr.ifr_data = (void *)&info;
        if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
                return -errno;
        if (!info.driver[0])
                return -ENOENT;
        info.driver[sizeof(info.driver) - 1] = '\0';
        strcopy(buf, size, info.driver);
        return 0;
}

static int sysfs_driver(const char *name, const char *sysfs_root, char *buf, size_t size)
{
        char link[PATH_MAX], target[PATH_MAX];
        const char *base;
        ssize_t n;

        snprintf(link, sizeof(link), "%s/class/net/%s/device/driver", sysfs_root, name);
        n = readlink(link, target, sizeof(target) - 1);
        if (n < 0)
                return -errno;
        target[n] = '\0';
        base = strrchr(target, '/');
        snprintf(buf, size, "%s", base ? base + 1 : target);
        return 0;
}

/* iface_kernel_driver() with the ethtool socket given. */
static void kernel_driver(int fd, const char *name, const char *sysfs_root, const char *kind, char *buf, size_t size)
{
        if (drvinfo(fd, name, buf, size) == 0)
                return;
        if (sysfs_driver(name, sysfs_root && *sysfs_root ? sysfs_root : "/sys", buf, size) == 0)
                return;
        snprintf(buf, size, "%s", kind && *kind ? kind : "unknown");
}

void iface_kernel_driver(const char *name, const char *sysfs_root, const char *kind,
                         char *buf, size_t size)
{
        _cleanup_close_ int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

        kernel_driver(fd, name, sysfs_root, kind, buf, size);
}

/*
 * Link kinds (IFLA_INFO_KIND) that are never a fabric port of their own: software
 * devices that a glob such as "*" must not reconfigure by accident. veth, vlan,
 * bond, team, macvlan and ipvlan are not here: they carry the traffic of a real port
 * (or, veth, of the labs) and stay matchable.
 */
static const char *const virtual_kinds[] = {
        "dummy", "bridge", "tun", "ifb", "nlmon", "vrf", "wireguard", "vxlan", "geneve", "bareudp",
        "gre", "gretap", "ip6gre", "ip6gretap", "erspan", "ip6erspan", "ipip", "sit", "ip6tnl",
        "vti", "vti6", "xfrm", NULL,
};

bool iface_is_virtual(const struct iface *x)
{
        if (x->flags & IFF_LOOPBACK)
                return true;
        for (unsigned i = 0; virtual_kinds[i]; i++)
                if (streq(x->kind, virtual_kinds[i]))
                        return true;
        return false;
}

bool iface_selects(const char *glob, const struct iface *x)
{
        if (iface_is_virtual(x))
                return streq(glob, x->name);
        return fnmatch(glob, x->name, 0) == 0;
}

bool iface_match(const char *name, const char (*globs)[64], unsigned n)
{
        for (unsigned i = 0; i < n; i++)
                if (fnmatch(globs[i], name, 0) == 0)
                        return true;
        return false;
}

struct collect {
        struct iface *v;
        unsigned n;
};

/*
 * Software links whose kernel driver is their kind, always (what ETHTOOL_GDRVINFO
 * would answer): veth_get_drvinfo() (drivers/net/veth.c, DRV_NAME "veth"),
 * dummy_get_drvinfo() (drivers/net/dummy.c, DRV_NAME "dummy"), br_getinfo()
 * (net/bridge/br_device.c, "bridge").
 */
static const char *const self_named_kinds[] = { "veth", "dummy", "bridge", NULL };

static void collect_software_driver(struct iface *x)
{
        for (unsigned i = 0; self_named_kinds[i]; i++)
                if (streq(x->kind, self_named_kinds[i]))
                        strcopy(x->kernel_driver, sizeof(x->kernel_driver), x->kind);
}

static int collect_cb(const struct link_info *l, void *data)
{
        struct collect *c = data;
        struct iface *x;

        if (c->n >= IFACE_MAX)
                return -E2BIG;
        x = &c->v[c->n++];
        memset(x, 0, sizeof(*x));
        strcopy(x->name, sizeof(x->name), l->name);
        x->ifindex = l->ifindex;
        x->flags = l->flags;
        x->mtu = l->mtu;
        x->min_mtu = l->min_mtu;
        x->max_mtu = l->max_mtu;
        strcopy(x->kind, sizeof(x->kind), l->kind);
        return 0;
}

static int by_ifindex(const void *a, const void *b)
{
        const struct iface *x = a, *y = b;

        return (x->ifindex > y->ifindex) - (x->ifindex < y->ifindex);
}

void iface_kernel_drivers(struct iface *v, unsigned n, const bool *which, const char *sysfs_root)
{
        _cleanup_close_ int fd = -1;

        for (unsigned i = 0; i < n; i++) {
                if ((which && !which[i]) || v[i].kernel_driver[0])
                        continue;
                if (fd < 0)
                        fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
                kernel_driver(fd, v[i].name, sysfs_root, v[i].kind, v[i].kernel_driver, sizeof(v[i].kernel_driver));
        }
}

/* Sorted, with their kernel drivers. */
static void finish(struct iface *v, unsigned n, const char *sysfs_root)
{
        qsort(v, n, sizeof(*v), by_ifindex);
        iface_kernel_drivers(v, n, NULL, sysfs_root);
}

static int too_many(int r, struct errbuf *e)
{
        return r == -E2BIG ? errbuf_set(e, E2BIG, NULL, "more than %d interfaces", IFACE_MAX) : r;
}

int iface_list(const struct nl_transport *t, const char *sysfs_root, struct iface **ret,
               unsigned *ret_n, struct errbuf *e)
{
        _cleanup_nl_ struct nl *nl = NULL;
        struct collect c = { 0 };
        int r;

        c.v = calloc(IFACE_MAX, sizeof(*c.v));
        if (!c.v)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        r = nl_open(t, NETLINK_ROUTE, &nl, e);
        if (r >= 0)
                r = link_rtnl_dump(nl, collect_cb, &c, e);
        if (r < 0) {
                free(c.v);
                return too_many(r, e);
        }
        finish(c.v, c.n, sysfs_root);
        *ret = c.v;
        *ret_n = c.n;
        return 0;
}

int iface_list_io(struct driver_io *io, const struct driver_env *env, struct iface **ret, unsigned *ret_n,
                  struct errbuf *e)
{
        const struct link_info *l;
        struct collect c = { 0 };
        unsigned n = 0;
        struct nl *nl;
        int r = driver_io_rtnl(io, env, &nl, e);

        if (r >= 0)
                r = link_cache_links(io, nl, &l, &n, e);
        if (r < 0)
                return r;
        c.v = calloc(n ? n : 1, sizeof(*c.v));
        if (!c.v)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        for (unsigned i = 0; i < n && r >= 0; i++) {
                r = collect_cb(&l[i], &c);
                if (r >= 0 && link_cache_software(io, &l[i]))
                        collect_software_driver(&c.v[c.n - 1]);
        }
        if (r < 0) {
                free(c.v);
                return too_many(r, e);
        }
        qsort(c.v, c.n, sizeof(*c.v), by_ifindex);
        *ret = c.v;
        *ret_n = c.n;
        return 0;
}
