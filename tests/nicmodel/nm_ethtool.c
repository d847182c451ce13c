/* SPDX-License-Identifier: MIT */
/*
 * The kernel's part of SIOCETHTOOL (net/ethtool/ioctl.c @ the version that has
 * ETHTOOL_TX_COPYBREAK_BUF_SIZE: dev_ethtool(), ethtool_get_tunable(),
 * ethtool_set_tunable(), ethtool_tunable_valid(), ethtool_get_sset_info(),
 * ethtool_get_strings(), ethtool_get_stats()) in front of the driver models' ethtool_ops,
 * for the ethtool seam (drivers/host/ethtool.h): one request datagram, one reply.
 */
#include <linux/ethtool.h>

#include "common/util.h"
#include "tests/nicmodel/nicmodel.h"

#ifndef ETHTOOL_PFC_PREVENTION_TOUT
#define ETHTOOL_PFC_PREVENTION_TOUT 3
#endif

bool nm_variant_has(const char *variant, const char *word)
{
        size_t n = strlen(word);

        for (const char *p = variant; p && *p; p = strchr(p, '+') ? strchr(p, '+') + 1 : NULL)
                if (!strncmp(p, word, n) && (p[n] == '+' || !p[n]))
                        return true;
        return false;
}

/* ethtool_tunable_valid(): the ids the core knows and the type and length each must have. */
static int tunable_valid(const struct ethtool_tunable *t)
{
        if (t->id == ETHTOOL_PFC_PREVENTION_TOUT)
                return t->len == sizeof(uint16_t) && t->type_id == ETHTOOL_TUNABLE_U16 ? 0 : -EINVAL;
        if (t->id == ETHTOOL_RX_COPYBREAK || t->id == ETHTOOL_TX_COPYBREAK)
                return t->len == sizeof(uint32_t) && t->type_id == ETHTOOL_TUNABLE_U32 ? -EOPNOTSUPP : -EINVAL;
        return -EINVAL;
}

static int tunable(struct nm *m, struct nm_dev *d, unsigned char *cmd, size_t len, bool set)
{
        struct ethtool_tunable t;
        uint16_t v = 0;
        int r;

        if (set ? !d->drv->set_tunable : !d->drv->get_tunable)
                return -EOPNOTSUPP;
        if (len < sizeof(t))
                return -EFAULT;
        memcpy(&t, cmd, sizeof(t));
        r = tunable_valid(&t);
        if (r < 0)
                return r;
        if (len < sizeof(t) + t.len)
                return -EFAULT;
        if (set) {
                memcpy(&v, cmd + sizeof(t), sizeof(v));
                d->n_sets++;
                return d->drv->set_tunable(m, d, t.id, v);
        }
        r = d->drv->get_tunable(m, d, t.id, &v);
        if (r >= 0)
                memcpy(cmd + sizeof(t), &v, sizeof(v));
        return r;
}

/* The driver's statistics now; 0 when it has none (no get_sset_count). */
static unsigned stats_of(struct nm *m, struct nm_dev *d, char (*names)[NM_GSTRING_LEN], uint64_t *vals)
{
        return d->drv->stats ? d->drv->stats(m, d, names, vals, NM_STATS_MAX) : 0;
}

/* ethtool_get_sset_info(): a set the driver does not count is cleared from the mask, not an error. */
static int sset_info(struct nm *m, struct nm_dev *d, unsigned char *cmd, size_t len)
{
        static char names[NM_STATS_MAX][NM_GSTRING_LEN];
        static uint64_t vals[NM_STATS_MAX];
        struct ethtool_sset_info s;
        uint32_t n = stats_of(m, d, names, vals);

        if (len < sizeof(s))
                return -EFAULT;
        memcpy(&s, cmd, sizeof(s));
        if (!(s.sset_mask & (1ull << ETH_SS_STATS)) || !d->drv->stats) {
                s.sset_mask = 0;
        } else {
                s.sset_mask = 1ull << ETH_SS_STATS;
                if (len < sizeof(s) + sizeof(n))
                        return -EFAULT;
                memcpy(cmd + sizeof(s), &n, sizeof(n));
        }
        memcpy(cmd, &s, sizeof(s));
        return 0;
}

/* ethtool_get_strings() / ethtool_get_stats(): as many entries as the driver has now, never more than asked room for. */
static int strings_or_stats(struct nm *m, struct nm_dev *d, unsigned char *cmd, size_t len, bool values)
{
        static char names[NM_STATS_MAX][NM_GSTRING_LEN];
        static uint64_t vals[NM_STATS_MAX];
        uint32_t n = stats_of(m, d, names, vals), room, hdr[3];
        size_t each = values ? sizeof(uint64_t) : NM_GSTRING_LEN, head = values ? 8 : 12;

        if (!d->drv->stats)
                return -EOPNOTSUPP;
        m->n_gstats += values;
        if (len < head)
                return -EFAULT;
        memcpy(hdr, cmd, head);
        room = (uint32_t)((len - head) / each);
        hdr[values ? 1 : 2] = n;        /* the kernel writes the driver's count, whatever room the caller left */
        memcpy(cmd, hdr, head);
        for (uint32_t i = 0; i < n && i < room; i++)
                memcpy(cmd + head + i * each, values ? (const void *)&vals[i] : (const void *)names[i], each);
        return 0;
}

/*
 * ETHTOOL_GLINKSETTINGS (net/ethtool/ioctl.c ethtool_get_link_ksettings()): a request
 * whose link_mode_masks_nwords is not the kernel's gets the kernel's, negated, and
 * nothing else; then the supported mask (one mode at the port's speed and width: a
 * Spectrum port's PTYS capability, spectrum_ethtool.c mlxsw_sp2_from_ptys_link()),
 * advertising the same, lp_advertising empty. Devices without lanes have no link modes.
 */
#define NM_LINK_MODE_WORDS 4
static int link_settings(struct nm_dev *d, unsigned char *cmd, size_t len)
{
        struct ethtool_link_settings s;
        uint32_t mask[NM_LINK_MODE_WORDS] = { 0 };
        unsigned bit = d->lanes == 8 ? 73 : 38;        /* 400000baseCR8, else 100000baseCR4 */

        if (!d->lanes)
                return -EOPNOTSUPP;
        if (len < sizeof(s))
                return -EFAULT;
        memcpy(&s, cmd, sizeof(s));
        if (s.link_mode_masks_nwords != NM_LINK_MODE_WORDS) {
                memset(&s, 0, sizeof(s));
                s.cmd = ETHTOOL_GLINKSETTINGS;
                s.link_mode_masks_nwords = -NM_LINK_MODE_WORDS;
                memcpy(cmd, &s, sizeof(s));
                return 0;
        }
        if (len < sizeof(s) + 3 * sizeof(mask))
                return -EFAULT;
        s.speed = d->speed_mbps;
        s.duplex = DUPLEX_FULL;
        mask[bit / 32] |= 1u << bit % 32;
        memcpy(cmd, &s, sizeof(s));
        memcpy(cmd + sizeof(s), mask, sizeof(mask));
        memcpy(cmd + sizeof(s) + sizeof(mask), mask, sizeof(mask));
        memset(cmd + sizeof(s) + 2 * sizeof(mask), 0, sizeof(mask));
        return 0;
}

static int dispatch(struct nm *m, struct nm_dev *d, unsigned char *cmd, size_t len)
{
        uint32_t c;

        if (len < sizeof(c))
                return -EFAULT;
        memcpy(&c, cmd, sizeof(c));
        switch (c) {
        case ETHTOOL_GTUNABLE: return tunable(m, d, cmd, len, false);
        case ETHTOOL_STUNABLE: return tunable(m, d, cmd, len, true);
        case ETHTOOL_GSSET_INFO: return sset_info(m, d, cmd, len);
        case ETHTOOL_GSTRINGS: return strings_or_stats(m, d, cmd, len, false);
        case ETHTOOL_GSTATS: return strings_or_stats(m, d, cmd, len, true);
        case ETHTOOL_GLINKSETTINGS: return link_settings(d, cmd, len);
        default: return -EOPNOTSUPP;
        }
}

void nm_ethtool(struct nm *m, const void *req, size_t len, void *reply, size_t size, size_t *ret_len)
{
        char name[IF_NAMESIZE];
        struct nm_dev *d;
        int32_t r = -EINVAL;
        size_t clen = len > IF_NAMESIZE ? len - IF_NAMESIZE : 0;

        *ret_len = sizeof(r);
        nm_tick(m);
        m->n_requests++;
        if (len >= IF_NAMESIZE && clen + sizeof(r) <= size) {
                memcpy(name, req, IF_NAMESIZE);
                name[IF_NAMESIZE - 1] = '\0';
                memcpy((unsigned char *)reply + sizeof(r), (const unsigned char *)req + IF_NAMESIZE, clen);
                d = nm_dev_by_name(m, name);
                r = d ? dispatch(m, d, (unsigned char *)reply + sizeof(r), clen) : -ENODEV;
                nm_logf(m, "ethtool %s: %d", name, r);
        }
        if (r == 0)
                *ret_len += clen;
        memcpy(reply, &r, sizeof(r));
}
