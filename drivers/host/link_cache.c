/* SPDX-License-Identifier: MIT */
/*
 * The request's link cache (driver_io.links, link.h): every link of the
 * namespace from one RTM_GETLINK dump while the request's handle writes nothing,
 * and each link's device, read once.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "drivers/host/host_io.h"
#include "drivers/host/link.h"

struct link_cache {
        struct link_info *v;            /* sorted by ifindex */
        char (*device)[LINK_DEVICE_MAX];        /* [size]: v[i]'s device, "" not read yet, "-" none, "*" virtual */
        unsigned n, size;
        bool filled;
        bool parents;                   /* the dump names every link's parent device (the kernel's, 5.14+) */
        uint64_t writes;                /* nl_writes() of the handle when it was filled */
        bool alone;                     /* the last read was answered on its own, after a write */
        uint64_t alone_writes;          /* ... when the handle had written this much */
};

void link_cache_free(struct link_cache *c)
{
        if (!c)
                return;
        free(c->v);
        free(c->device);
        free(c);
}

static int cache_add(const struct link_info *l, void *data)
{
        struct link_cache *c = data;

        if (c->n == c->size) {
                unsigned size = c->size ? c->size * 2 : 64;
                struct link_info *v = realloc(c->v, size * sizeof(*v));
                char (*d)[LINK_DEVICE_MAX];

                if (!v)
                        return -ENOMEM;
                c->v = v;
                d = realloc(c->device, size * sizeof(*d));
                if (!d)
                        return -ENOMEM;
                c->device = d;
                c->size = size;
        }
        c->device[c->n][0] = '\0';
        c->v[c->n++] = *l;
        return 0;
}

static int by_ifindex(const void *a, const void *b)
{
        const struct link_info *x = a, *y = b;

        return (x->ifindex > y->ifindex) - (x->ifindex < y->ifindex);
}

/*
 * Linux names a link's parent device in RTM_NEWLINK since 5.14 (rtnl_fill_ifinfo():
 * IFLA_PARENT_DEV_NAME, dev_name(dev->dev.parent), when there is one): a link of
 * the dump without it has none.
 */
static bool kernel_names_parents(const struct nl *nl)
{
        struct utsname u;
        unsigned major, minor;

        return nl_is_kernel(nl) && uname(&u) == 0 && sscanf(u.release, "%u.%u", &major, &minor) == 2 &&
               (major > 5 || (major == 5 && minor >= 14));
}

static int cache_fill(struct link_cache *c, struct nl *nl, struct errbuf *e)
{
        int r;

        c->n = 0;
        c->filled = false;
        r = link_rtnl_dump(nl, cache_add, c, e);
        if (r < 0)
                return r == -ENOMEM ? errbuf_set(e, ENOMEM, NULL, "out of memory") : r;
        qsort(c->v, c->n, sizeof(*c->v), by_ifindex);
        c->filled = true;
        c->parents = kernel_names_parents(nl);
        c->alone = false;
        c->writes = nl_writes(nl);
        return 0;
}

static struct link_cache *cache_of(struct driver_io *io)
{
        struct host_io *h = host_io_of(io);

        if (h && !h->links)
                h->links = calloc(1, sizeof(*h->links));
        return h ? h->links : NULL;
}

static bool cache_valid(const struct link_cache *c, const struct nl *nl)
{
        return c->filled && c->writes == nl_writes(nl);
}

int link_cache_links(struct driver_io *io, struct nl *nl, const struct link_info **ret, unsigned *ret_n,
                     struct errbuf *e)
{
        struct link_cache *c = cache_of(io);
        int r = 0;

        if (!c)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        if (!cache_valid(c, nl))
                r = cache_fill(c, nl, e);
        if (r < 0)
                return r;
        *ret = c->v;
        *ret_n = c->n;
        return 0;
}

bool link_cache_software(const struct driver_io *io, const struct link_info *l)
{
        const struct host_io *h = host_io_find(io);

        return h && h->links && h->links->filled && h->links->parents && !l->parent[0];
}

/*
 * A dump for this read? Yes for the first read of a request of many interfaces and
 * for the second read in a row after a write (a read-back), unless the namespace
 * has far more links than the request has interfaces.
 */
static bool dump_pays(const struct driver_io *io, const struct link_cache *c, const struct nl *nl)
{
        unsigned n_if = io->n_targets[TARGET_INTERFACE];

        if (n_if < 2 || (c->filled && c->n > 8 * n_if))
                return false;
        return !c->filled || (c->alone && c->alone_writes == nl_writes(nl));
}

int link_rtnl_read(const struct target *t, struct nl *nl, struct link_info *ret, struct errbuf *e)
{
        const struct host_io *h = host_io_find(t->io);
        struct link_cache *c = h && nl == h->rtnl ? cache_of(t->io) : NULL;
        const struct link_info *l;
        int r;

        if (c && !cache_valid(c, nl) && dump_pays(t->io, c, nl)) {
                r = cache_fill(c, nl, e);
                if (r < 0)
                        return r;
        }
        if (c && cache_valid(c, nl)) {
                l = bsearch(&(struct link_info){ .ifindex = t->ifindex }, c->v, c->n, sizeof(*c->v), by_ifindex);
                if (l && streq(l->name, t->name)) {
                        *ret = *l;
                        return 0;
                }
        }
        r = link_rtnl_get(nl, t->ifindex, t->name, ret, e);
        if (c && !cache_valid(c, nl)) {
                c->alone = true;
                c->alone_writes = nl_writes(nl);
        }
        return r;
}

static int copy_name(const char *name, char *buf, size_t size)
{
        if (strlen(name) >= size)
                return -ENAMETOOLONG;
        memcpy(buf, name, strlen(name) + 1);
        return 0;
}

/*
 * SYSFS/class/net/IF links into the device tree, under the parent device
 * (.../0000:03:00.0/net/IF) or, without one, under .../devices/virtual/net/IF:
 * one lookup that exists answers what SYSFS/class/net/IF/device (a lookup that
 * fails for every virtual link, several times dearer in sysfs) would. -ENXIO:
 * virtual; 1: not such a link (a test's tree), ask the device link.
 */
static int parent_of_class_link(const char *root, const char *ifname, char *buf, size_t size)
{
        char link[PATH_MAX], target[PATH_MAX], *tail, *net;
        ssize_t n;

        snprintf(link, sizeof(link), "%s/class/net/%s", root, ifname);
        n = readlink(link, target, sizeof(target) - 1);
        if (n < 0)
                return 1;
        target[n] = '\0';
        tail = strrchr(target, '/');
        if (!tail || !streq(tail + 1, ifname))
                return 1;
        *tail = '\0';
        net = strrchr(target, '/');
        if (!net || !streq(net + 1, "net"))
                return 1;
        *net = '\0';
        tail = strrchr(target, '/');
        if (tail && streq(tail + 1, "virtual") && tail - target >= 8 && !strncmp(tail - 8, "/devices", 8))
                return -ENXIO;
        return copy_name(tail ? tail + 1 : target, buf, size);
}

/* The last component of SYSFS/class/net/IF/device; -ENXIO virtual, -ENOENT no device link. */
static int read_device(const struct target *t, char *buf, size_t size)
{
        const char *root = t->env ? t->env->sysfs_root : "/sys";
        char link[PATH_MAX], target[PATH_MAX];
        const char *base;
        ssize_t n;
        int r = parent_of_class_link(root, t->name, buf, size);

        if (r <= 0)
                return r;
        snprintf(link, sizeof(link), "%s/class/net/%s/device", root, t->name);
        n = readlink(link, target, sizeof(target) - 1);
        if (n < 0)
                return -errno;
        target[n] = '\0';
        base = strrchr(target, '/');
        return copy_name(base ? base + 1 : target, buf, size);
}

int link_rtnl_device(const struct target *t, char *buf, size_t size)
{
        const struct host_io *h = host_io_find(t->io);
        struct link_cache *c = h ? h->links : NULL;
        struct link_info *l = c && c->filled ?
                bsearch(&(struct link_info){ .ifindex = t->ifindex }, c->v, c->n, sizeof(*c->v), by_ifindex) : NULL;
        char *slot = l && streq(l->name, t->name) ? c->device[l - c->v] : NULL;
        int r;

        if (!slot)
                return read_device(t, buf, size);
        /* SYSFS/class/net/IF/device is the parent the dump named: on the real sysfs, no lookup */
        if (!slot[0] && c->parents && streq(t->env && t->env->sysfs_root[0] ? t->env->sysfs_root : "/sys", "/sys"))
                strcopy(slot, LINK_DEVICE_MAX, l->parent[0] ? l->parent : "*");
        if (!slot[0]) {
                r = read_device(t, slot, LINK_DEVICE_MAX);
                if (r < 0)
                        strcopy(slot, LINK_DEVICE_MAX, r == -ENOENT ? "-" : r == -ENXIO ? "*" : "");
                if (r < 0 && r != -ENOENT && r != -ENXIO)
                        return r;
        }
        if (streq(slot, "-"))
                return -ENOENT;
        if (streq(slot, "*"))
                return -ENXIO;
        if (strlen(slot) >= size)
                return -ENAMETOOLONG;
        memcpy(buf, slot, strlen(slot) + 1);
        return 0;
}
