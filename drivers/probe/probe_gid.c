/* SPDX-License-Identifier: MIT */
#include <arpa/inet.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>

#include "drivers/host/sysfs.h"
#include "drivers/probe/probe_gid.h"

#define GID_TABLE_MAX 1024      /* bound on the entries read per port */

int probe_gid_parse(const char *text, uint8_t ret[16])
{
        struct in6_addr a;

        if (inet_pton(AF_INET6, text, &a) != 1)
                return -EINVAL;
        memcpy(ret, a.s6_addr, 16);
        return 0;
}

int probe_gid_from_addr(const struct sockaddr *sa, uint8_t ret[16])
{
        if (sa->sa_family == AF_INET) {
                const struct sockaddr_in *in4 = (const struct sockaddr_in *)sa;

                memset(ret, 0, 10);
                ret[10] = ret[11] = 0xff;
                memcpy(ret + 12, &in4->sin_addr, 4);
                return 0;
        }
        if (sa->sa_family == AF_INET6) {
                memcpy(ret, ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr, 16);
                return 0;
        }
        return -EAFNOSUPPORT;
}

static bool gid_is_zero(const uint8_t g[16])
{
        for (int i = 0; i < 16; i++)
                if (g[i])
                        return false;
        return true;
}

static bool gid_is_v4_mapped(const uint8_t g[16])
{
        static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

        return memcmp(g, prefix, sizeof(prefix)) == 0;
}

/* The interface of entry `idx` into netdev[16] ("" when the kernel lists none). */
static void read_ndev(const char *portdir, unsigned idx, char netdev[16])
{
        char path[PATH_MAX], text[64];

        netdev[0] = '\0';
        if (snprintf(path, sizeof(path), "%s/gid_attrs/ndevs/%u", portdir, idx) < (int)sizeof(path) &&
            sysfs_read_line(path, text, sizeof(text)) >= 0 && strlen(text) < 16)
                snprintf(netdev, 16, "%s", text);
}

/* Read entry `idx` of a port: 0 with gid and type, -ENOENT when unset or unreadable. */
static int read_entry(const char *portdir, unsigned idx, uint8_t gid[16], bool *ret_v2)
{
        char path[PATH_MAX], text[128];

        if (snprintf(path, sizeof(path), "%s/gids/%u", portdir, idx) >= (int)sizeof(path))
                return -ENOENT;
        if (sysfs_read_line(path, text, sizeof(text)) < 0 || probe_gid_parse(text, gid) < 0 || gid_is_zero(gid))
                return -ENOENT;
        if (snprintf(path, sizeof(path), "%s/gid_attrs/types/%u", portdir, idx) >= (int)sizeof(path) ||
            sysfs_read_line(path, text, sizeof(text)) < 0)
                return -ENOENT;
        if (strcasecmp(text, "RoCE v2") == 0)
                *ret_v2 = true;
        else if (strcasecmp(text, "IB/RoCE v1") == 0)
                *ret_v2 = false;
        else
                return -ENOENT;
        return 0;
}

/* Best match on one port: better than *best (v2 over v1) replaces it. */
static void scan_port(const char *portdir, const char *dev, unsigned port, const uint8_t *want,
                      struct probe_gid *best, bool *found)
{
        for (unsigned i = 0; i < GID_TABLE_MAX; i++) {
                uint8_t g[16];
                bool v2 = false;
                char path[PATH_MAX];

                if (read_entry(portdir, i, g, &v2) < 0) {
                        if (snprintf(path, sizeof(path), "%s/gids/%u", portdir, i) >= (int)sizeof(path) ||
                            access(path, F_OK) < 0)
                                break;
                        continue;
                }
                if (want ? memcmp(g, want, 16) != 0 : !(v2 && gid_is_v4_mapped(g)))
                        continue;
                if (*found && (best->rocev2 || !v2))
                        continue;
                snprintf(best->device, sizeof(best->device), "%s", dev);
                best->port = port;
                best->index = i;
                memcpy(best->gid, g, 16);
                best->rocev2 = v2;
                read_ndev(portdir, i, best->netdev);
                *found = true;
        }
}

static int scan_device(const char *root, const char *dev, const uint8_t *want,
                       struct probe_gid *best, bool *found)
{
        char path[PATH_MAX];
        struct dirent **ports = NULL;
        int n;

        snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports", root, dev);
        n = scandir(path, &ports, NULL, versionsort);
        if (n < 0)
                return -errno;
        for (int i = 0; i < n; i++) {
                char *end;
                unsigned long port = strtoul(ports[i]->d_name, &end, 10);
                char portdir[PATH_MAX];

                if (ports[i]->d_name[0] != '.' && !*end && port > 0 && port < 256 &&
                    snprintf(portdir, sizeof(portdir), "%s/%s", path, ports[i]->d_name) < (int)sizeof(portdir))
                        scan_port(portdir, dev, (unsigned)port, want, best, found);
                free(ports[i]);
        }
        free(ports);
        return 0;
}

static int no_gid(struct errbuf *e, const char *device, const struct sockaddr *local)
{
        char a[INET6_ADDRSTRLEN] = "";

        if (!local)
                return errbuf_set(e, ENODEV, NULL, "RDMA device '%s' has no RoCE v2 IPv4 GID", device);
        if (local->sa_family == AF_INET)
                inet_ntop(AF_INET, &((const struct sockaddr_in *)local)->sin_addr, a, sizeof(a));
        else
                inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)local)->sin6_addr, a, sizeof(a));
        if (device && device[0])
                return errbuf_set(e, ENODEV, NULL, "RDMA device '%s' has no GID for local address '%s'", device, a);
        return errbuf_set(e, ENODEV, NULL, "no RDMA device has a GID for local address '%s'", a);
}

int probe_gid_find(const char *sysfs_root, const char *device, const struct sockaddr *local,
                   struct probe_gid *ret, struct errbuf *e)
{
        struct probe_gid best = { .port = 0 };
        struct dirent **devs = NULL;
        char path[PATH_MAX];
        uint8_t want[16];
        bool found = false;
        int n;

        if (!local && !(device && device[0]))
                return errbuf_set(e, EINVAL, NULL, "no local address and no RDMA device to choose a GID");
        if (local && probe_gid_from_addr(local, want) < 0)
                return errbuf_set(e, EAFNOSUPPORT, NULL, "local address family %d has no GID form", local->sa_family);
        if (device && device[0]) {
                if (scan_device(sysfs_root, device, local ? want : NULL, &best, &found) < 0)
                        return errbuf_set(e, ENODEV, NULL, "RDMA device '%s' not found under '%s/class/infiniband'",
                                          device, sysfs_root);
                if (!found)
                        return no_gid(e, device, local);
                *ret = best;
                return 0;
        }
        snprintf(path, sizeof(path), "%s/class/infiniband", sysfs_root);
        n = scandir(path, &devs, NULL, alphasort);
        for (int i = 0; i < n; i++) {
                if (devs[i]->d_name[0] != '.' && !found)
                        (void)scan_device(sysfs_root, devs[i]->d_name, want, &best, &found);
                free(devs[i]);
        }
        free(devs);
        if (!found)
                return no_gid(e, NULL, local);
        *ret = best;
        return 0;
}

int probe_gid_read(const char *sysfs_root, const char *device, unsigned port, unsigned index,
                   struct probe_gid *ret)
{
        struct probe_gid g = { .port = port, .index = index };
        char portdir[PATH_MAX];

        if (snprintf(portdir, sizeof(portdir), "%s/class/infiniband/%s/ports/%u", sysfs_root, device, port) >=
            (int)sizeof(portdir) || strlen(device) >= sizeof(g.device))
                return -ENOENT;
        if (read_entry(portdir, index, g.gid, &g.rocev2) < 0)
                return -ENOENT;
        snprintf(g.device, sizeof(g.device), "%s", device);
        read_ndev(portdir, index, g.netdev);
        *ret = g;
        return 0;
}

const char *probe_gid_devices(const char *sysfs_root, char *buf, size_t size)
{
        char path[PATH_MAX];
        struct dirent **devs = NULL;
        size_t len = 0;
        int n;

        buf[0] = '\0';
        snprintf(path, sizeof(path), "%s/class/infiniband", sysfs_root);
        n = scandir(path, &devs, NULL, alphasort);
        for (int i = 0; i < n; i++) {
                if (devs[i]->d_name[0] != '.' && len < size)
                        len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "", devs[i]->d_name);
                free(devs[i]);
        }
        free(devs);
        return buf;
}

bool probe_gid_any_device(const char *sysfs_root)
{
        char names[8];

        return probe_gid_devices(sysfs_root, names, sizeof(names))[0] != '\0';
}
