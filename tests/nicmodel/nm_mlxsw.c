/* SPDX-License-Identifier: MIT */
/*
 * An NVIDIA Spectrum switch port (mlxsw_spectrum) as its dcbnl_rtnl_ops and its
 * qdisc offload see it, from drivers/net/ethernet/mellanox/mlxsw/spectrum_dcb.c and
 * spectrum_qdisc.c:
 *
 *   - DCB: host + IEEE DCBX only (mlxsw_sp_dcbnl_getdcbx/setdcbx); ETS with strict or
 *     ETS classes whose bandwidth totals 100 (mlxsw_sp_port_ets_validate(): "Only strict
 *     priority and ETS are supported", "Invalid TC", "Total ETS bandwidth should equal
 *     100"), every priority in TC 0 until set (the kzalloc'ed my_ets, and
 *     mlxsw_sp_port_ets_init() maps every priority to traffic class 0); PFC on any of
 *     the 8 priorities.
 *   - qdisc offload (mlxsw_sp_setup_tc): a root ets of at most 8 bands
 *     (__mlxsw_sp_qdisc_ets_check_params: more is -EOPNOTSUPP; ets only at the root,
 *     __mlxsw_sp_qdisc_tree_validate), a red at the root or under a band of an
 *     offloaded ets, when mlxsw_sp_qdisc_red_check_params() accepts it: min <= max,
 *     max <= the GUARANTEED_SHARED_BUFFER resource (bytes), neither 0 - else the driver
 *     logs the reason on the bus device (dev_err: dmesg only, no extack) and the qdisc
 *     stays in software; the RTM_NEWQDISC succeeds all the same. Nothing else of RED
 *     (probability, limit, harddrop, adaptive) is checked. A change that fails
 *     un-offloads a qdisc that was offloaded (mlxsw_sp_qdisc_change()).
 *
 * GUARANTEED_SHARED_BUFFER is the firmware's (`devlink sb show` prints it as the
 * shared buffer's size); no figure for a given ASIC was found published, so the
 * model's 13 MiB is a choice, not a Spectrum's number. Variants: "" and "no-hw-tc"
 * (ethtool -K IF hw-tc-offload off: tc_can_offload() is false, nothing offloads).
 */
#include "common/util.h"
#include "tests/nicmodel/nicmodel.h"

#define GUARANTEED_SHARED_BUFFER (13u * 1024 * 1024)
#define HOST_IEEE (DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE)

struct mlxsw {
        struct ieee_ets ets;            /* mlxsw_sp_port->dcb.ets */
        struct ieee_pfc pfc;            /* mlxsw_sp_port->dcb.pfc */
        bool hw_tc;                     /* NETIF_F_HW_TC */
};

static struct mlxsw *P(const struct nm_dev *d)
{
        return d->priv;
}

static int mlxsw_getets(struct nm *m, struct nm_dev *d, struct ieee_ets *ets)
{
        *ets = P(d)->ets;
        return 0;
}

/* mlxsw_sp_port_ets_validate() */
static int mlxsw_setets(struct nm *m, struct nm_dev *d, struct ieee_ets *ets)
{
        bool has_ets = false;
        unsigned sum = 0;

        for (int i = 0; i < IEEE_8021QAZ_MAX_TCS; i++) {
                switch (ets->tc_tsa[i]) {
                case IEEE_8021QAZ_TSA_STRICT:
                        break;
                case IEEE_8021QAZ_TSA_ETS:
                        has_ets = true;
                        sum += ets->tc_tx_bw[i];
                        break;
                default:
                        nm_logf(m, "%s: Only strict priority and ETS are supported", d->name);
                        return -EINVAL;
                }
                if (ets->prio_tc[i] >= IEEE_8021QAZ_MAX_TCS) {
                        nm_logf(m, "%s: Invalid TC", d->name);
                        return -EINVAL;
                }
        }
        if (has_ets && sum != 100) {
                nm_logf(m, "%s: Total ETS bandwidth should equal 100", d->name);
                return -EINVAL;
        }
        P(d)->ets = *ets;
        P(d)->ets.ets_cap = IEEE_8021QAZ_MAX_TCS;
        return 0;
}

static int mlxsw_getpfc(struct nm *m, struct nm_dev *d, struct ieee_pfc *pfc)
{
        *pfc = P(d)->pfc;
        return 0;
}

static int mlxsw_setpfc(struct nm *m, struct nm_dev *d, struct ieee_pfc *pfc)
{
        P(d)->pfc.pfc_en = pfc->pfc_en;
        P(d)->pfc.delay = pfc->delay;
        return 0;
}

static uint8_t mlxsw_getdcbx(struct nm *m, struct nm_dev *d)
{
        return HOST_IEEE;
}

static uint8_t mlxsw_setdcbx(struct nm *m, struct nm_dev *d, uint8_t mode)
{
        return mode != HOST_IEEE;
}

/* mlxsw_sp_qdisc_red_check_params(): dev_err only, the qdisc stays in software. */
static bool red_check_params(struct nm *m, const struct nm_dev *d, const struct tc_red_qopt *p)
{
        if (p->qth_min > p->qth_max) {
                nm_logf(m, "%s: spectrum: RED: min %u is bigger then max %u", d->name, p->qth_min, p->qth_max);
                return false;
        }
        if (p->qth_max > GUARANTEED_SHARED_BUFFER) {
                nm_logf(m, "%s: spectrum: RED: max value %u is too big", d->name, p->qth_max);
                return false;
        }
        if (p->qth_min == 0 || p->qth_max == 0) {
                nm_logf(m, "%s: spectrum: RED: 0 value is illegal for min and max", d->name);
                return false;
        }
        return true;
}

static bool mlxsw_qdisc_offload(struct nm *m, struct nm_dev *d, const struct nm_qdisc *q)
{
        const struct nm_qdisc *up;

        if (!P(d)->hw_tc)
                return false;
        if (streq(q->kind, "ets"))
                return q->parent == TC_H_ROOT && q->nbands <= IEEE_8021QAZ_MAX_TCS;
        if (!streq(q->kind, "red"))
                return false;
        if (q->parent != TC_H_ROOT) {
                up = nm_tc_find(m, d->ifindex, TC_H_MAJ(q->parent));
                if (!up || !up->offloaded || !streq(up->kind, "ets"))
                        return false;   /* mlxsw_sp_qdisc_find(): no offloaded parent */
        }
        return red_check_params(m, d, &q->red);
}

static int mlxsw_init(struct nm *m, struct nm_dev *d, const char *variant)
{
        struct mlxsw *p = P(d);

        if (*variant && !streq(variant, "no-hw-tc"))
                return -EINVAL;
        d->min_mtu = 68;
        d->max_mtu = 9216;
        p->ets.ets_cap = IEEE_8021QAZ_MAX_TCS;
        p->pfc.pfc_cap = IEEE_8021QAZ_MAX_TCS;
        p->hw_tc = !streq(variant, "no-hw-tc");
        return 0;
}

static void mlxsw_dump(struct nm *m, const struct nm_dev *d, FILE *f)
{
        const struct mlxsw *p = P(d);

        fprintf(f, "  ets");
        nm_dump_u8s(f, "prio_tc", p->ets.prio_tc, 8);
        nm_dump_u8s(f, "tc_tsa", p->ets.tc_tsa, 8);
        nm_dump_u8s(f, "tc_tx_bw", p->ets.tc_tx_bw, 8);
        fprintf(f, "\n  pfc en 0x%02x hw-tc-offload %s\n", p->pfc.pfc_en, p->hw_tc ? "on" : "off");
}

const struct nm_driver nm_mlxsw = {
        .name = "mlxsw",
        .kernel_driver = "mlxsw_spectrum",
        .priv_size = sizeof(struct mlxsw),
        .init = mlxsw_init,
        .has_dcbnl = true,
        .getets = mlxsw_getets,
        .setets = mlxsw_setets,
        .getpfc = mlxsw_getpfc,
        .setpfc = mlxsw_setpfc,
        .getdcbx = mlxsw_getdcbx,
        .setdcbx = mlxsw_setdcbx,
        .dump = mlxsw_dump,
        .qdisc_offload = mlxsw_qdisc_offload,
};
