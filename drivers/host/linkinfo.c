/* SPDX-License-Identifier: MIT */
/* Link state, speed, supported speed and RDMA port rate of an interface (see linkinfo.h). */
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "common/util.h"
#include "drivers/host/linkinfo.h"
#include "drivers/host/sysfs.h"

/* Every link mode of the kernel's uapi header with its speed (ethtool's own table: link_mode_info). */
static const struct {
        unsigned bit;
        uint32_t mbps;
} modes[] = {
        { ETHTOOL_LINK_MODE_1000baseKX_Full_BIT, 1000 },
        { ETHTOOL_LINK_MODE_1000baseT1_Full_BIT, 1000 },
        { ETHTOOL_LINK_MODE_1000baseT_Full_BIT, 1000 },
        { ETHTOOL_LINK_MODE_1000baseT_Half_BIT, 1000 },
        { ETHTOOL_LINK_MODE_1000baseX_Full_BIT, 1000 },
        { ETHTOOL_LINK_MODE_2500baseT_Full_BIT, 2500 },
        { ETHTOOL_LINK_MODE_2500baseX_Full_BIT, 2500 },
        { ETHTOOL_LINK_MODE_5000baseT_Full_BIT, 5000 },
        { ETHTOOL_LINK_MODE_10000baseCR_Full_BIT, 10000 },
        { ETHTOOL_LINK_MODE_10000baseER_Full_BIT, 10000 },
        { ETHTOOL_LINK_MODE_10000baseKR_Full_BIT, 10000 },
        { ETHTOOL_LINK_MODE_10000baseKX4_Full_BIT, 10000 },
        { ETHTOOL_LINK_MODE_10000baseLRM_Full_BIT, 10000 },
        { ETHTOOL_LINK_MODE_10000baseLR_Full_BIT, 10000 },
        { ETHTOOL_LINK_MODE_10000baseR_FEC_BIT, 10000 },
        { ETHTOOL_LINK_MODE_10000baseSR_Full_BIT, 10000 },
        { ETHTOOL_LINK_MODE_10000baseT_Full_BIT, 10000 },
        { ETHTOOL_LINK_MODE_20000baseKR2_Full_BIT, 20000 },
        { ETHTOOL_LINK_MODE_20000baseMLD2_Full_BIT, 20000 },
        { ETHTOOL_LINK_MODE_25000baseCR_Full_BIT, 25000 },
        { ETHTOOL_LINK_MODE_25000baseKR_Full_BIT, 25000 },
        { ETHTOOL_LINK_MODE_25000baseSR_Full_BIT, 25000 },
        { ETHTOOL_LINK_MODE_40000baseCR4_Full_BIT, 40000 },
        { ETHTOOL_LINK_MODE_40000baseKR4_Full_BIT, 40000 },
        { ETHTOOL_LINK_MODE_40000baseLR4_Full_BIT, 40000 },
        { ETHTOOL_LINK_MODE_40000baseSR4_Full_BIT, 40000 },
        { ETHTOOL_LINK_MODE_50000baseCR2_Full_BIT, 50000 },
        { ETHTOOL_LINK_MODE_50000baseCR_Full_BIT, 50000 },
        { ETHTOOL_LINK_MODE_50000baseDR_Full_BIT, 50000 },
        { ETHTOOL_LINK_MODE_50000baseKR2_Full_BIT, 50000 },
        { ETHTOOL_LINK_MODE_50000baseKR_Full_BIT, 50000 },
        { ETHTOOL_LINK_MODE_50000baseLR_ER_FR_Full_BIT, 50000 },
        { ETHTOOL_LINK_MODE_50000baseSR2_Full_BIT, 50000 },
        { ETHTOOL_LINK_MODE_50000baseSR_Full_BIT, 50000 },
        { ETHTOOL_LINK_MODE_56000baseCR4_Full_BIT, 56000 },
        { ETHTOOL_LINK_MODE_56000baseKR4_Full_BIT, 56000 },
        { ETHTOOL_LINK_MODE_56000baseLR4_Full_BIT, 56000 },
        { ETHTOOL_LINK_MODE_56000baseSR4_Full_BIT, 56000 },
        { ETHTOOL_LINK_MODE_100000baseCR2_Full_BIT, 100000 },
        { ETHTOOL_LINK_MODE_100000baseCR4_Full_BIT, 100000 },
        { ETHTOOL_LINK_MODE_100000baseCR_Full_BIT, 100000 },
        { ETHTOOL_LINK_MODE_100000baseDR2_Full_BIT, 100000 },
        { ETHTOOL_LINK_MODE_100000baseDR_Full_BIT, 100000 },
        { ETHTOOL_LINK_MODE_100000baseKR2_Full_BIT, 100000 },
        { ETHTOOL_LINK_MODE_100000baseKR4_Full_BIT, 100000 },
        { ETHTOOL_LINK_MODE_100000baseKR_Full_BIT, 100000 },
        { ETHTOOL_LINK_MODE_100000baseLR2_ER2_FR2_Full_BIT, 100000 },
        { ETHTOOL_LINK_MODE_100000baseLR4_ER4_Full_BIT, 100000 },
        { ETHTOOL_LINK_MODE_100000baseLR_ER_FR_Full_BIT, 100000 },
        { ETHTOOL_LINK_MODE_100000baseSR2_Full_BIT, 100000 },
        { ETHTOOL_LINK_MODE_100000baseSR4_Full_BIT, 100000 },
        { ETHTOOL_LINK_MODE_100000baseSR_Full_BIT, 100000 },
        { ETHTOOL_LINK_MODE_200000baseCR2_Full_BIT, 200000 },
        { ETHTOOL_LINK_MODE_200000baseCR4_Full_BIT, 200000 },
        { ETHTOOL_LINK_MODE_200000baseDR2_Full_BIT, 200000 },
        { ETHTOOL_LINK_MODE_200000baseDR4_Full_BIT, 200000 },
        { ETHTOOL_LINK_MODE_200000baseKR2_Full_BIT, 200000 },
        { ETHTOOL_LINK_MODE_200000baseKR4_Full_BIT, 200000 },
        { ETHTOOL_LINK_MODE_200000baseLR2_ER2_FR2_Full_BIT, 200000 },
        { ETHTOOL_LINK_MODE_200000baseLR4_ER4_FR4_Full_BIT, 200000 },
        { ETHTOOL_LINK_MODE_200000baseSR2_Full_BIT, 200000 },
        { ETHTOOL_LINK_MODE_200000baseSR4_Full_BIT, 200000 },
        { ETHTOOL_LINK_MODE_400000baseCR4_Full_BIT, 400000 },
        { ETHTOOL_LINK_MODE_400000baseCR8_Full_BIT, 400000 },
        { ETHTOOL_LINK_MODE_400000baseDR4_Full_BIT, 400000 },
        { ETHTOOL_LINK_MODE_400000baseDR8_Full_BIT, 400000 },
        { ETHTOOL_LINK_MODE_400000baseKR4_Full_BIT, 400000 },
        { ETHTOOL_LINK_MODE_400000baseKR8_Full_BIT, 400000 },
        { ETHTOOL_LINK_MODE_400000baseLR4_ER4_FR4_Full_BIT, 400000 },
        { ETHTOOL_LINK_MODE_400000baseLR8_ER8_FR8_Full_BIT, 400000 },
        { ETHTOOL_LINK_MODE_400000baseSR4_Full_BIT, 400000 },
        { ETHTOOL_LINK_MODE_400000baseSR8_Full_BIT, 400000 },
};

uint32_t linkinfo_max_speed(const uint32_t *mask, unsigned nwords)
{
        uint32_t best = 0;

        for (size_t i = 0; i < ARRAY_SIZE(modes); i++) {
                unsigned w = modes[i].bit / 32, b = modes[i].bit % 32;

                if (w < nwords && (mask[w] & (1u << b)) && modes[i].mbps > best)
                        best = modes[i].mbps;
        }
        return best;
}

#define MASK_WORDS_MAX 127                /* link_mode_masks_nwords is an int8 */

/* The settings and, after them, supported, advertising, lp_advertising: nwords each. */
union glink {
        struct ethtool_link_settings s;
        uint8_t raw[sizeof(struct ethtool_link_settings) + 3 * MASK_WORDS_MAX * sizeof(uint32_t)];
};

static int real_ioctl(void *ctx, const char *ifname, void *cmd)
{
        struct ifreq ifr = { 0 };

        snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
        ifr.ifr_data = cmd;
        return ioctl(*(int *)ctx, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
}

/* ETHTOOL_GLINKSETTINGS: the handshake (nwords 0 answers -nwords), then the masks. */
static uint32_t supported_max(const char *ifname, const struct counters_ethtool *io)
{
        union glink g = { .s = { .cmd = ETHTOOL_GLINKSETTINGS } };
        uint32_t mask[MASK_WORDS_MAX];
        int8_t n;

        if (io->ioctl(io->ctx, ifname, &g) < 0 || g.s.link_mode_masks_nwords >= 0)
                return 0;
        n = (int8_t)-g.s.link_mode_masks_nwords;
        if (n <= 0)
                return 0;
        memset(&g, 0, sizeof(g));
        g.s.cmd = ETHTOOL_GLINKSETTINGS;
        g.s.link_mode_masks_nwords = n;
        if (io->ioctl(io->ctx, ifname, &g) < 0 || g.s.link_mode_masks_nwords != n)
                return 0;
        memcpy(mask, g.raw + sizeof(g.s), (size_t)n * sizeof(*mask));  /* the supported mask comes first */
        return linkinfo_max_speed(mask, (unsigned)n);
}

struct rate_ctx {
        const char *sysfs_root;
        struct linkinfo *l;
};

static void first_rate(const char *dev, const char *port, void *data)
{
        struct rate_ctx *x = data;
        char path[512];

        x->l->rdma = true;
        if (x->l->rate[0])
                return;
        snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%s/rate", x->sysfs_root, dev, port);
        if (sysfs_read_line(path, x->l->rate, sizeof(x->l->rate)) < 0)
                x->l->rate[0] = '\0';
}

void linkinfo_read(const char *ifname, const char *sysfs_root, const struct counters_ethtool *io,
                   struct linkinfo *ret)
{
        const char *root = sysfs_root && *sysfs_root ? sysfs_root : "/sys";
        struct rate_ctx x = { root, ret };
        char path[512], buf[32];
        int fd = -1;
        struct counters_ethtool own = { real_ioctl, &fd };
        long speed;

        memset(ret, 0, sizeof(*ret));
        snprintf(path, sizeof(path), "%s/class/net/%s/operstate", root, ifname);
        if (sysfs_read_line(path, buf, sizeof(buf)) >= 0 && (streq(buf, "up") || streq(buf, "down") ||
                                                            streq(buf, "lowerlayerdown") || streq(buf, "dormant"))) {
                ret->state_known = true;
                ret->up = streq(buf, "up");
        }
        snprintf(path, sizeof(path), "%s/class/net/%s/speed", root, ifname);
        if (sysfs_read_line(path, buf, sizeof(buf)) >= 0 && (speed = strtol(buf, NULL, 10)) > 0 && speed < 100000000)
                ret->speed_mbps = (uint32_t)speed;
        if (!io) {
                fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
                io = &own;
        }
        if (io != &own || fd >= 0)
                ret->max_speed_mbps = supported_max(ifname, io);
        if (fd >= 0)
                close(fd);
        sysfs_rdma_ports(root, ifname, first_rate, &x);
}
