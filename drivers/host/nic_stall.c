/* SPDX-License-Identifier: MIT */
/*
 * The "nic-stall" driver: spec.pfc.nic_stall_timeout_ms, the NIC's PFC stall prevention
 * timeout, through the ethtool tunable ETHTOOL_PFC_PREVENTION_TOUT (drivers/host/ethtool.h:
 * SIOCETHTOOL ETHTOOL_GTUNABLE / ETHTOOL_STUNABLE; ethtool --get-tunable DEV
 * pfc-prevention-tout). When the NIC's receive path stalls and it keeps sending pause
 * for that long, it stops sending pause (all priorities and global pause) until the stall
 * ends, so that one stuck host cannot freeze the fabric.
 *
 * Per kernel driver, from its source:
 *   mlx5_core (drivers/net/ethernet/mellanox/mlx5/core/en_ethtool.c @ 55808762,
 *   mlx5e_set_pfc_prevention_tout()): 80-8000 ms (MLX5E_PFC_PREVEN_TOUT_MIN_MSEC/_MAX_MSEC),
 *   0 disables, PFC_STORM_PREVENTION_AUTO means 100 ms (MLX5E_PFC_PREVEN_AUTO_TOUT_MSEC) and
 *   reads back as 100 (the get returns the critical stall watermark); -EOPNOTSUPP without
 *   the pfcc_mask and stall_detect capabilities. The factory watermark (8 s) is a firmware
 *   default that only NVIDIA community material names.
 *   Any other driver that answers the get (bnxt_en and fbnic have patches on netdev): the
 *   value goes to the driver, which refuses what it cannot take; what "auto" reads back as
 *   is not known there, so "auto" is refused at plan time.
 * A driver without get_tunable (ice, veth) answers -EOPNOTSUPP: the field is unsupported.
 */
#include "drivers/driver.h"
#include "drivers/host/ethtool.h"
#include "drivers/host/link.h"

struct stall_driver {
        const char *kdrv;
        uint16_t min_ms, max_ms, auto_ms;
};

static const struct stall_driver known[] = {
        { "mlx5_core", 80, 8000, 100 },
};

static const struct stall_driver *driver_of(const struct target *t)
{
        for (size_t i = 0; i < ARRAY_SIZE(known); i++)
                if (streq(known[i].kdrv, t->kernel_driver))
                        return &known[i];
        return NULL;
}

static const char *kdrv(const struct target *t)
{
        return t->kernel_driver[0] ? t->kernel_driver : "unknown";
}

/* A software link (veth, bridge) has no NIC behind it: not asked (link_rtnl_device: -ENXIO). */
static int stall_caps(struct target *t, uint32_t *ret_fields, struct errbuf *e)
{
        char dev[128];
        uint16_t v;

        *ret_fields = 0;
        if (link_rtnl_device(t, dev, sizeof(dev)) != -ENXIO && ethtool_pfc_prevention_get(t->name, &v) >= 0)
                *ret_fields = STATE_BIT(STATE_FIELD_NIC_STALL);
        return 0;
}

static int stall_read(struct target *t, uint32_t fields, struct state *ret, struct errbuf *e)
{
        const struct stall_driver *d = driver_of(t);
        uint16_t v = 0;
        int r;

        if (!(fields & STATE_BIT(STATE_FIELD_NIC_STALL)))
                return 0;
        r = ethtool_pfc_prevention_get(t->name, &v);
        if (r < 0)
                return errbuf_set(e, -r, NULL, "interface '%s' (driver %s): ETHTOOL_GTUNABLE pfc-prevention-tout: %s",
                                  t->name, kdrv(t), strerror(-r));
        ret->nic_stall_ms = v;
        ret->nic_stall_auto_ms = d ? d->auto_ms : 0;
        ret->present |= STATE_BIT(STATE_FIELD_NIC_STALL);
        return 0;
}

/* What the driver would refuse, before anything is touched. */
static int stall_check(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        const struct stall_driver *d = driver_of(t);
        uint16_t v = c->desired[0].nic_stall_ms;

        if (!(c->delta[0] & STATE_BIT(STATE_FIELD_NIC_STALL)))
                return 0;
        if (v == STATE_NIC_STALL_AUTO && !d)
                return errbuf_set(e, EOPNOTSUPP, NULL, "interface '%s' (driver %s): what pfc.nic_stall_timeout_ms "
                                  "\"auto\" reads back as is not documented for this driver; give milliseconds; "
                                  "nothing was changed", t->name, kdrv(t));
        if (d && v && v != STATE_NIC_STALL_AUTO && (v < d->min_ms || v > d->max_ms))
                return errbuf_set(e, ERANGE, NULL, "interface '%s' (driver %s): pfc.nic_stall_timeout_ms %u is outside "
                                  "the driver's %u-%u (or 0); nothing was changed", t->name, kdrv(t), v, d->min_ms,
                                  d->max_ms);
        return 0;
}

static int stall_apply(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        uint16_t v = c->desired[0].nic_stall_ms;
        int r;

        if (!(c->delta[0] & STATE_BIT(STATE_FIELD_NIC_STALL)))
                return 0;
        r = stall_check(t, c, e);
        if (r >= 0 && (r = ethtool_pfc_prevention_set(t->name, v)) < 0)
                errbuf_set(e, -r, NULL, "interface '%s' (driver %s): ETHTOOL_STUNABLE pfc-prevention-tout %u: %s",
                           t->name, kdrv(t), v, strerror(-r));
        return r;
}

const struct driver_ops nic_stall_driver = {
        .name = "nic-stall",
        .kind = TARGET_INTERFACE,
        .fields = STATE_BIT(STATE_FIELD_NIC_STALL),
        .caps = stall_caps,
        .check = stall_check,
        .read = stall_read,
        .apply = stall_apply,
};
