/* SPDX-License-Identifier: MIT */
/* Pause counters over the ethtool ioctl, RDMA hw_counters over sysfs. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "counters.h"
#include "sysfs.h"
#include "util.h"

#define ETHTOOL_STATS_MAX 16384         /* a device reporting more is not believed */

bool counters_is_pause(const char *name)
{
        return strstr(name, "pause") != NULL;
}

static void add(struct counters *c, const char *name, const char *source, uint64_t v)
{
        struct counter *x;

        if (c->n >= COUNTERS_MAX || strlen(name) >= sizeof(x->name) || strlen(source) >= sizeof(x->source))
                return;
        x = &c->c[c->n++];
        memcpy(x->name, name, strlen(name) + 1);
        memcpy(x->source, source, strlen(source) + 1);
        x->value = v;
}

static int ethtool(int fd, const char *ifname, void *cmd)
{
        struct ifreq ifr = { 0 };

        snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
        ifr.ifr_data = cmd;
        return ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

static int stats_count(int fd, const char *ifname, uint32_t *ret)
{
        union {
                struct ethtool_sset_info hdr;
                unsigned char raw[sizeof(struct ethtool_sset_info) + sizeof(uint32_t)];
        } s = { 0 };
        int r;

        s.hdr.cmd = ETHTOOL_GSSET_INFO;
        s.hdr.sset_mask = 1ull << ETH_SS_STATS;
        r = ethtool(fd, ifname, &s);
        if (r < 0)
                return r;
        *ret = (s.hdr.sset_mask & (1ull << ETH_SS_STATS)) ? s.hdr.data[0] : 0;
        return 0;
}

static int read_stats(int fd, const char *ifname, uint32_t n, struct counters *c)
{
        _cleanup_free_ struct ethtool_gstrings *strs = NULL;
        _cleanup_free_ struct ethtool_stats *vals = NULL;
        int r;

        strs = calloc(1, sizeof(*strs) + (size_t)n * ETH_GSTRING_LEN);
        vals = calloc(1, sizeof(*vals) + (size_t)n * sizeof(uint64_t));
        if (!strs || !vals)
                return -ENOMEM;
        *strs = (struct ethtool_gstrings){ .cmd = ETHTOOL_GSTRINGS, .string_set = ETH_SS_STATS, .len = n };
        *vals = (struct ethtool_stats){ .cmd = ETHTOOL_GSTATS, .n_stats = n };
        r = ethtool(fd, ifname, strs);
        if (r >= 0)
                r = ethtool(fd, ifname, vals);
        if (r < 0)
                return r;
        for (uint32_t i = 0; i < n && i < strs->len && i < vals->n_stats; i++) {
                char name[ETH_GSTRING_LEN + 1];

                memcpy(name, strs->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
                name[ETH_GSTRING_LEN] = '\0';
                if (counters_is_pause(name))
                        add(c, name, "ethtool", vals->data[i]);
        }
        return 0;
}

int counters_read_ethtool(const char *ifname, struct counters *c, struct errbuf *e)
{
        _cleanup_close_ int fd = -1;
        uint32_t n = 0;
        int r;

        fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return errbuf_set(e, errno, NULL, "interface '%s': ethtool socket: %s", ifname, strerror(errno));
        r = stats_count(fd, ifname, &n);
        if (r == -EOPNOTSUPP || n == 0)
                return 0;               /* no statistics: an empty set */
        if (r < 0)
                return errbuf_set(e, -r, NULL, "interface '%s': ethtool statistics: %s", ifname, strerror(-r));
        if (n > ETHTOOL_STATS_MAX)
                return errbuf_set(e, E2BIG, NULL, "interface '%s': %u ethtool statistics, more than %u",
                                  ifname, n, ETHTOOL_STATS_MAX);
        r = read_stats(fd, ifname, n, c);
        if (r < 0 && r != -EOPNOTSUPP)
                return errbuf_set(e, -r, NULL, "interface '%s': ethtool statistics: %s", ifname, strerror(-r));
        return 0;
}

/* SYSFS/class/infiniband/DEV/ports/PORT/hw_counters/ * */
static void read_port(const char *sysfs_root, const char *dev, const char *port, struct counters *c)
{
        char dir[PATH_MAX], path[PATH_MAX + 256], source[32];
        struct dirent *de;
        DIR *d;

        snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports/%s/hw_counters", sysfs_root, dev, port);
        snprintf(source, sizeof(source), "rdma:%.16s/%.8s", dev, port);
        d = opendir(dir);
        if (!d)
                return;
        while ((de = readdir(d))) {
                uint64_t v = 0;

                if (de->d_name[0] == '.' ||
                    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path) ||
                    sysfs_read_u64(path, &v) < 0)
                        continue;
                add(c, de->d_name, source, v);
        }
        closedir(d);
}

struct rdma_ctx {
        const char *sysfs_root;
        struct counters *c;
};

static void read_port_cb(const char *dev, const char *port, void *data)
{
        struct rdma_ctx *x = data;

        read_port(x->sysfs_root, dev, port, x->c);
}

int counters_read_rdma(const char *ifname, const char *sysfs_root, struct counters *c, struct errbuf *e)
{
        struct rdma_ctx x = { sysfs_root, c };

        sysfs_rdma_ports(sysfs_root, ifname, read_port_cb, &x);
        return 0;
}

int counters_read(const char *ifname, const char *sysfs_root, struct counters *ret, struct errbuf *e)
{
        int r;

        ret->n = 0;
        r = counters_read_ethtool(ifname, ret, e);
        if (r >= 0)
                r = counters_read_rdma(ifname, sysfs_root && *sysfs_root ? sysfs_root : "/sys", ret, e);
        return r;
}
