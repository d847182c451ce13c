/* SPDX-License-Identifier: MIT */
/* The ethtool ioctl and its test seam (see ethtool.h). */
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <poll.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "common/util.h"
#include "drivers/host/ethtool.h"
#include "drivers/host/nl.h"

#define SEAM_MAX (1u << 20)             /* a reply larger than this is not believed */
#define SEAM_TIMEOUT_MS 5000

#ifndef ETHTOOL_PFC_PREVENTION_TOUT
#define ETHTOOL_PFC_PREVENTION_TOUT 3
#endif

size_t ethtool_cmd_len(const void *cmd)
{
        uint32_t c;

        memcpy(&c, cmd, sizeof(c));
        switch (c) {
        case ETHTOOL_GDRVINFO:
                return sizeof(struct ethtool_drvinfo);
        case ETHTOOL_GTUNABLE:
        case ETHTOOL_STUNABLE:
                return sizeof(struct ethtool_tunable) + ((const struct ethtool_tunable *)cmd)->len;
        case ETHTOOL_GSSET_INFO:
                return sizeof(struct ethtool_sset_info) +
                       sizeof(uint32_t) * (size_t)__builtin_popcountll(((const struct ethtool_sset_info *)cmd)->sset_mask);
        case ETHTOOL_GSTRINGS:
                return sizeof(struct ethtool_gstrings) + (size_t)((const struct ethtool_gstrings *)cmd)->len * ETH_GSTRING_LEN;
        case ETHTOOL_GSTATS:
                return sizeof(struct ethtool_stats) + (size_t)((const struct ethtool_stats *)cmd)->n_stats * sizeof(uint64_t);
        case ETHTOOL_GLINKSETTINGS: {   /* the settings, then supported, advertising, lp_advertising */
                int8_t n = ((const struct ethtool_link_settings *)cmd)->link_mode_masks_nwords;

                return sizeof(struct ethtool_link_settings) + 3 * sizeof(uint32_t) * (size_t)(n < 0 ? 0 : n);
        }
        default:
                return 0;
        }
}

/* One request, one reply: [ifname][cmd] out, [int32 ret][cmd] back. */
static int seam_call(const char *path, const char *ifname, void *cmd, size_t len)
{
        _cleanup_free_ unsigned char *buf = malloc(IFNAMSIZ + sizeof(int32_t) + len);
        _cleanup_close_ int fd = -1;
        struct pollfd p;
        int32_t ret;
        ssize_t n;

        if (!buf || len > SEAM_MAX)
                return -ENOMEM;
        fd = nl_seam_connect(path);
        if (fd < 0)
                return fd;
        memset(buf, 0, IFNAMSIZ);
        strcopy((char *)buf, IFNAMSIZ, ifname);
        memcpy(buf + IFNAMSIZ, cmd, len);
        if (send(fd, buf, IFNAMSIZ + len, MSG_NOSIGNAL) < 0)
                return -errno;
        p = (struct pollfd){ .fd = fd, .events = POLLIN };
        if (poll(&p, 1, SEAM_TIMEOUT_MS) <= 0)
                return -ETIMEDOUT;
        n = recv(fd, buf, sizeof(ret) + len, 0);
        if (n < (ssize_t)sizeof(ret))
                return n < 0 ? -errno : -EPROTO;
        memcpy(&ret, buf, sizeof(ret));
        if (ret == 0 && (size_t)n != sizeof(ret) + len)
                return -EPROTO;
        if (ret == 0)
                memcpy(cmd, buf + sizeof(ret), len);
        return ret > 0 ? -EPROTO : ret;
}

int ethtool_call(int fd, const char *ifname, void *cmd, size_t len)
{
        const char *seam = getenv(ETHTOOL_SEAM_ENV);
        struct ifreq ifr = { 0 };
        int own = -1, r;

        if (!len)
                len = ethtool_cmd_len(cmd);
        if (seam && *seam)
                return len ? seam_call(seam, ifname, cmd, len) : -EOPNOTSUPP;
        if (fd < 0 && (fd = own = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) < 0)
                return -errno;
        strcopy(ifr.ifr_name, sizeof(ifr.ifr_name), ifname);
        ifr.ifr_data = cmd;
        r = ioctl(fd, SIOCETHTOOL, &ifr) < 0 ? -errno : 0;
        if (own >= 0)
                close(own);
        return r;
}

/* struct ethtool_tunable followed by its u16, as ethtool_get_tunable() reads and writes it (net/ethtool/ioctl.c). */
union tunable_u16 {
        struct ethtool_tunable t;
        unsigned char raw[sizeof(struct ethtool_tunable) + sizeof(uint16_t)];
};

static void tunable_init(union tunable_u16 *x, uint32_t cmd)
{
        memset(x, 0, sizeof(*x));
        x->t = (struct ethtool_tunable){ .cmd = cmd, .id = ETHTOOL_PFC_PREVENTION_TOUT, .type_id = ETHTOOL_TUNABLE_U16,
                                         .len = sizeof(uint16_t) };
}

int ethtool_pfc_prevention_get(const char *ifname, uint16_t *ret)
{
        union tunable_u16 x;
        int r;

        tunable_init(&x, ETHTOOL_GTUNABLE);
        r = ethtool_call(-1, ifname, &x, sizeof(x.raw));
        if (r >= 0)
                memcpy(ret, x.raw + sizeof(struct ethtool_tunable), sizeof(*ret));
        return r;
}

int ethtool_pfc_prevention_set(const char *ifname, uint16_t v)
{
        union tunable_u16 x;

        tunable_init(&x, ETHTOOL_STUNABLE);
        memcpy(x.raw + sizeof(struct ethtool_tunable), &v, sizeof(v));
        return ethtool_call(-1, ifname, &x, sizeof(x.raw));
}

/* The link modes of eight lanes (include/uapi/linux/ethtool.h: 400000base*8, 800000base*8). */
static const unsigned eight_lane_bits[] = { 69, 70, 71, 72, 73, 95, 96, 97, 98, 99, 100 };

#define MASK_WORDS_MAX 127              /* link_mode_masks_nwords is an int8 */

union glink {
        struct ethtool_link_settings s;
        uint8_t raw[sizeof(struct ethtool_link_settings) + 3 * MASK_WORDS_MAX * sizeof(uint32_t)];
};

int ethtool_port_lanes(const char *ifname, unsigned *ret)
{
        union glink g = { .s = { .cmd = ETHTOOL_GLINKSETTINGS } };
        uint32_t mask[MASK_WORDS_MAX];
        int8_t n;
        int r = ethtool_call(-1, ifname, &g, sizeof(g.s));     /* the handshake: nwords 0 answers -nwords */

        if (r < 0)
                return r;
        n = (int8_t)-g.s.link_mode_masks_nwords;
        if (n <= 0)
                return -EPROTO;
        memset(&g, 0, sizeof(g));
        g.s.cmd = ETHTOOL_GLINKSETTINGS;
        g.s.link_mode_masks_nwords = n;
        if ((r = ethtool_call(-1, ifname, &g, sizeof(g.s) + 3 * (size_t)n * sizeof(uint32_t))) < 0)
                return r;
        if (g.s.link_mode_masks_nwords != n)
                return -EPROTO;
        memcpy(mask, g.raw + sizeof(g.s), (size_t)n * sizeof(*mask));  /* the supported mask comes first */
        *ret = 4;
        for (size_t i = 0; i < ARRAY_SIZE(eight_lane_bits); i++)
                if (eight_lane_bits[i] / 32 < (unsigned)n && (mask[eight_lane_bits[i] / 32] & (1u << eight_lane_bits[i] % 32)))
                        *ret = 8;
        return 0;
}
