/* SPDX-License-Identifier: MIT */
/*
 * A Spectrum switch port (mlxsw_spectrum*) as its dcbnl_rtnl_ops and its qdisc
 * offload see it, from drivers/net/ethernet/mellanox/mlxsw/spectrum_dcb.c
 * (mlxsw_sp_port_ets_validate, mlxsw_sp_dcbnl_ieee_setpfc/getpfc,
 * mlxsw_sp_dcbnl_setbuffer/getbuffer, mlxsw_sp_port_headroom_ets_set),
 * spectrum_buffers.c (mlxsw_sp_hdroom_*: the headroom model of the Sep 2020
 * series "mlxsw: Support two headroom modes", v5.10) and spectrum_qdisc.c
 * (mlxsw_sp_setup_tc: what offloads; an offloaded root qdisc puts the port in TC
 * headroom mode, mlxsw_sp_qdisc_create/_destroy).
 *
 * DCB:
 *   - host + IEEE DCBX only (mlxsw_sp_dcbnl_getdcbx/setdcbx); ETS with strict or
 *     ETS classes whose bandwidth totals 100 (mlxsw_sp_port_ets_validate(): "Only
 *     strict priority and ETS are supported", "Invalid TC", "Total ETS bandwidth
 *     should equal 100"), every priority in TC 0 until set (the kzalloc'ed my_ets,
 *     mlxsw_sp_port_ets_init()); PFC on any of the 8 priorities.
 * Headroom:
 *   - cells: 96 bytes (Spectrum-1), 144 (-2, -3), 192 (-4): the firmware's
 *     CELL_SIZE; sizes in bytes are rounded up to cells (mlxsw_sp_bytes_cells());
 *   - ieee_pfc.delay is bits: the port's delay is DIV_ROUND_UP(delay, 8) bytes
 *     while PFC is on anywhere, else 0;
 *   - DCB mode (no root qdisc): priority -> buffer follows ETS prio_tc, a lossless
 *     buffer is 2 x MTU + 2 x delay + MTU in cells, dcbnl_setbuffer is refused;
 *   - TC mode: priority -> buffer is what dcbnl_setbuffer set (0 until then), a
 *     buffer is max(set size, 2 x MTU) and the delay is not added;
 *   - 8-lane ports (variant x8) double thresholds and delays
 *     (mlxsw_sp_port_headroom_8x_adjust());
 *   - the sum of the buffers may not pass the port's headroom (-ENOBUFS). The
 *     firmware's MAX_HEADROOM_SIZE is not in the sources read: the model uses
 *     1 MiB as a stand-in.
 * qdisc offload (mlxsw_sp_setup_tc):
 *   - a root ets of at most 8 bands (__mlxsw_sp_qdisc_ets_check_params: more is
 *     -EOPNOTSUPP; ets only at the root, __mlxsw_sp_qdisc_tree_validate), a red at
 *     the root or under a band of an offloaded ets, when
 *     mlxsw_sp_qdisc_red_check_params() accepts it: min <= max, max <= the
 *     GUARANTEED_SHARED_BUFFER resource (bytes), neither 0 - else the driver logs the
 *     reason on the bus device (dev_err: dmesg only, no extack) and the qdisc stays
 *     in software; the RTM_NEWQDISC succeeds all the same. Nothing else of RED
 *     (probability, limit, harddrop, adaptive) is checked. A change that fails
 *     un-offloads a qdisc that was offloaded (mlxsw_sp_qdisc_change()).
 *   - an offloaded root qdisc switches the headroom to TC mode; a root whose
 *     headroom does not fit is not offloaded; its destruction goes back to DCB mode.
 * GUARANTEED_SHARED_BUFFER is the firmware's (`devlink sb show` prints it as the
 * shared buffer's size); no figure for a given ASIC was found published, so the
 * model's 13 MiB is a choice, not a Spectrum's number. APP entries go through the
 * dcbnl core only (no DSCP trust modelled).
 *
 * Variants: "sp1".."sp4" (default "sp2"), a "x8" suffix for an 8-lane port, and a
 * "no-hw-tc" suffix (after a "-" when a generation is named: "sp2-no-hw-tc") for
 * ethtool -K IF hw-tc-offload off: tc_can_offload() is false, nothing offloads.
 */
#include "common/util.h"
#include "tests/nicmodel/nicmodel.h"

#define BUFS 8                          /* DCBX_MAX_BUFFERS */
#define MAX_HEADROOM (1u << 20)         /* stand-in for MAX_HEADROOM_SIZE */
#define GUARANTEED_SHARED_BUFFER (13u * 1024 * 1024)
#define HOST_IEEE (DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE)

enum mode { MODE_DCB, MODE_TC };

struct mlxsw {
        unsigned cell;
        bool x8;
        bool hw_tc;                     /* NETIF_F_HW_TC */
        enum mode mode;
        struct ieee_pfc pfc;            /* mlxsw_sp_port->dcb.pfc: what the last setpfc stored */
        struct ieee_ets ets;            /* mlxsw_sp_port->dcb.ets */
        uint32_t delay_bytes;
        struct {
                bool lossy;
                uint8_t ets_buf_idx, set_buf_idx, buf_idx;
        } prio[8];
        struct {
                uint32_t size_cells, thres_cells, set_size_cells;
                bool lossy;
        } buf[BUFS];
};

static struct mlxsw *P(const struct nm_dev *d)
{
        return d->priv;
}

static uint32_t bytes_cells(const struct mlxsw *p, uint32_t bytes)
{
        return (bytes + p->cell - 1) / p->cell;                 /* mlxsw_sp_bytes_cells(): DIV_ROUND_UP */
}

static uint32_t adjust_8x(const struct mlxsw *p, uint32_t cells)
{
        return p->x8 ? 2 * cells : cells;                       /* mlxsw_sp_port_headroom_8x_adjust() */
}

/* mlxsw_sp_hdroom_prios_reset_buf_idx() */
static void reset_buf_idx(struct mlxsw *p)
{
        for (unsigned prio = 0; prio < 8; prio++)
                p->prio[prio].buf_idx = p->mode == MODE_DCB ? p->prio[prio].ets_buf_idx : p->prio[prio].set_buf_idx;
}

/* mlxsw_sp_hdroom_bufs_reset_lossiness(): a buffer is lossless when a lossless priority fills it. */
static void reset_lossiness(struct mlxsw *p)
{
        for (unsigned i = 0; i < BUFS; i++)
                p->buf[i].lossy = true;
        for (unsigned prio = 0; prio < 8; prio++)
                if (!p->prio[prio].lossy)
                        p->buf[p->prio[prio].buf_idx].lossy = false;
}

static bool buf_used(const struct mlxsw *p, unsigned i)
{
        for (unsigned prio = 0; prio < 8; prio++)
                if (p->prio[prio].buf_idx == i)
                        return true;
        return false;
}

/* mlxsw_sp_hdroom_bufs_reset_sizes() */
static void reset_sizes(const struct nm_dev *d, struct mlxsw *p)
{
        for (unsigned i = 0; i < BUFS; i++) {
                uint32_t thres = 0, delay = 0;

                if (buf_used(p, i)) {
                        thres = 2 * bytes_cells(p, d->mtu);     /* mlxsw_sp_hdroom_buf_threshold_get() */
                        if (!p->buf[i].lossy)                   /* mlxsw_sp_hdroom_buf_delay_get() */
                                delay = 2 * bytes_cells(p, p->delay_bytes) + bytes_cells(p, d->mtu);
                }
                thres = adjust_8x(p, thres);
                delay = adjust_8x(p, delay);
                p->buf[i].thres_cells = thres;
                if (p->mode == MODE_DCB)
                        p->buf[i].size_cells = thres + delay;
                else    /* "Do not allow going below the minimum size, even if the user requested it." */
                        p->buf[i].size_cells = p->buf[i].set_size_cells > thres ? p->buf[i].set_size_cells : thres;
        }
}

/* mlxsw_sp_hdroom_configure(): recompute, refuse what does not fit; p is kept only when it fits. */
static int configure(const struct nm_dev *d, struct mlxsw *p, struct mlxsw *into)
{
        uint32_t cells = 0;

        reset_buf_idx(p);
        reset_lossiness(p);
        reset_sizes(d, p);
        for (unsigned i = 0; i < BUFS; i++)
                cells += p->buf[i].size_cells;
        if (cells > MAX_HEADROOM / p->cell)
                return -ENOBUFS;
        *into = *p;
        return 0;
}

static int mlxsw_getpfc(struct nm *m, struct nm_dev *d, struct ieee_pfc *pfc)
{
        *pfc = P(d)->pfc;
        pfc->pfc_cap = 8;                       /* IEEE_8021QAZ_MAX_TCS */
        return 0;
}

/* mlxsw_sp_dcbnl_ieee_setpfc(): the delay in bits becomes bytes; lossiness per priority. */
static int mlxsw_setpfc(struct nm *m, struct nm_dev *d, struct ieee_pfc *pfc)
{
        struct mlxsw next = *P(d);
        int r;

        next.delay_bytes = pfc->pfc_en ? (pfc->delay + 7) / 8 : 0;     /* DIV_ROUND_UP(delay, BITS_PER_BYTE) */
        for (unsigned prio = 0; prio < 8; prio++)
                next.prio[prio].lossy = !(pfc->pfc_en & (1u << prio));
        r = configure(d, &next, P(d));
        if (r == 0) {
                P(d)->pfc = *pfc;
                P(d)->pfc.pfc_cap = 8;
        }
        return r;
}

static int mlxsw_getets(struct nm *m, struct nm_dev *d, struct ieee_ets *ets)
{
        *ets = P(d)->ets;
        return 0;
}

/* mlxsw_sp_port_ets_validate() */
static int ets_validate(struct nm *m, const struct nm_dev *d, const struct ieee_ets *ets)
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
        return 0;
}

/* mlxsw_sp_dcbnl_ieee_setets(): validated, then mlxsw_sp_port_headroom_ets_set(): a
 * priority's DCB-mode buffer is its traffic class. */
static int mlxsw_setets(struct nm *m, struct nm_dev *d, struct ieee_ets *ets)
{
        struct mlxsw next = *P(d);
        int r = ets_validate(m, d, ets);

        for (unsigned prio = 0; r == 0 && prio < 8; prio++)
                next.prio[prio].ets_buf_idx = ets->prio_tc[prio];
        if (r == 0)
                r = configure(d, &next, P(d));
        if (r == 0) {
                P(d)->ets = *ets;
                P(d)->ets.ets_cap = IEEE_8021QAZ_MAX_TCS;
        }
        return r;
}

/* mlxsw_sp_dcbnl_getbuffer(): works in both modes; total_size counts every port buffer. */
static int mlxsw_getbuffer(struct nm *m, struct nm_dev *d, struct dcbnl_buffer *b)
{
        const struct mlxsw *p = P(d);

        memset(b, 0, sizeof(*b));
        for (unsigned prio = 0; prio < 8; prio++)
                b->prio2buffer[prio] = p->prio[prio].buf_idx;
        for (unsigned i = 0; i < BUFS; i++) {
                b->buffer_size[i] = p->buf[i].size_cells * p->cell;
                b->total_size += b->buffer_size[i];
        }
        b->total_size += adjust_8x(p, bytes_cells(p, d->max_mtu)) * p->cell;     /* buffer 9: control */
        return 0;
}

/* mlxsw_sp_dcbnl_setbuffer() */
static int mlxsw_setbuffer(struct nm *m, struct nm_dev *d, struct dcbnl_buffer *b)
{
        struct mlxsw next = *P(d);

        if (next.mode != MODE_TC) {
                nm_logf(m, "%s: The use of dcbnl_setbuffer is only allowed if egress is configured using TC",
                        d->name);
                return -EINVAL;
        }
        for (unsigned prio = 0; prio < 8; prio++)
                next.prio[prio].set_buf_idx = b->prio2buffer[prio];
        for (unsigned i = 0; i < BUFS; i++)
                next.buf[i].set_size_cells = bytes_cells(&next, b->buffer_size[i]);
        return configure(d, &next, P(d));
}

/* mlxsw_sp_qdisc_create() / mlxsw_sp_qdisc_destroy() of the root qdisc: TC or DCB headroom mode. */
static int mlxsw_root_qdisc(struct nm *m, struct nm_dev *d, bool offloaded)
{
        struct mlxsw next = *P(d);

        next.mode = offloaded ? MODE_TC : MODE_DCB;
        return configure(d, &next, P(d));
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

static uint8_t mlxsw_getdcbx(struct nm *m, struct nm_dev *d)
{
        return HOST_IEEE;                                       /* mlxsw_sp_dcbnl_getdcbx() */
}

static uint8_t mlxsw_setdcbx(struct nm *m, struct nm_dev *d, uint8_t mode)
{
        return mode != HOST_IEEE;
}

static int mlxsw_change_mtu(struct nm *m, struct nm_dev *d, uint32_t mtu)
{
        struct mlxsw next = *P(d);
        uint32_t old = d->mtu;
        int r;

        d->mtu = mtu;                           /* mlxsw_sp_port_change_mtu(): hdroom.mtu = mtu */
        r = configure(d, &next, P(d));
        if (r)
                d->mtu = old;
        return r;
}

static const struct {
        const char *name, *kernel_driver;
        unsigned cell;
} generations[] = {
        { "sp1", "mlxsw_spectrum", 96 }, { "sp2", "mlxsw_spectrum2", 144 },
        { "sp3", "mlxsw_spectrum3", 144 }, { "sp4", "mlxsw_spectrum4", 192 },
};

/* mlxsw_sp_port_headroom_init(): DCB mode, every priority lossy in buffer 0. */
static int mlxsw_init(struct nm *m, struct nm_dev *d, const char *variant)
{
        struct mlxsw *p = P(d);
        char gen[8] = "sp2";
        size_t n = strlen(variant);

        p->hw_tc = true;
        if (n >= 8 && streq(variant + n - 8, "no-hw-tc")) {    /* ethtool -K IF hw-tc-offload off */
                p->hw_tc = false;
                n -= n > 8 && variant[n - 9] == '-' ? 9 : 8;
        }
        if (n >= 2 && !strncmp(variant + n - 2, "x8", 2)) {
                p->x8 = true;
                n -= 2;
        }
        if (n)
                snprintf(gen, sizeof(gen), "%.*s", (int)(n < 7 ? n : 7), variant);
        for (size_t i = 0; i < ARRAY_SIZE(generations); i++)
                if (streq(generations[i].name, gen)) {
                        p->cell = generations[i].cell;
                        snprintf(d->kernel_driver, sizeof(d->kernel_driver), "%s", generations[i].kernel_driver);
                }
        if (!p->cell)
                return -EINVAL;
        d->min_mtu = 68;
        d->max_mtu = 10000;
        d->mtu = 1500;
        d->speed_mbps = p->x8 ? 400000 : 100000;
        d->lanes = p->x8 ? 8 : 4;                       /* mlxsw_sp_port->mapping.width */
        p->ets.ets_cap = IEEE_8021QAZ_MAX_TCS;
        p->pfc.pfc_cap = IEEE_8021QAZ_MAX_TCS;
        for (unsigned prio = 0; prio < 8; prio++)
                p->prio[prio].lossy = true;
        return configure(d, p, p);
}

static void mlxsw_dump(struct nm *m, const struct nm_dev *d, FILE *f)
{
        const struct mlxsw *p = P(d);
        uint8_t map[8], lossless = 0;

        for (unsigned prio = 0; prio < 8; prio++)
                map[prio] = p->prio[prio].buf_idx;
        for (unsigned i = 0; i < BUFS; i++)
                lossless |= (uint8_t)(!p->buf[i].lossy << i);
        fprintf(f, "  headroom %s cell %u%s pfc en 0x%02x delay %u bits (%u bytes)", p->mode == MODE_TC ? "tc" : "dcb",
                p->cell, p->x8 ? " 8x" : "", p->pfc.pfc_en, p->pfc.delay, p->delay_bytes);
        nm_dump_u8s(f, "prio_tc", p->ets.prio_tc, 8);
        nm_dump_u8s(f, "buf_idx", map, 8);
        fprintf(f, " lossless 0x%02x size", lossless);
        for (unsigned i = 0; i < BUFS; i++)
                fprintf(f, "%s%u", i ? "," : " ", p->buf[i].size_cells * p->cell);
        fprintf(f, " set");
        for (unsigned i = 0; i < BUFS; i++)
                fprintf(f, "%s%u", i ? "," : " ", p->buf[i].set_size_cells * p->cell);
        fprintf(f, "\n  ets");
        nm_dump_u8s(f, "tc_tsa", p->ets.tc_tsa, 8);
        nm_dump_u8s(f, "tc_tx_bw", p->ets.tc_tx_bw, 8);
        fprintf(f, " hw-tc-offload %s\n", p->hw_tc ? "on" : "off");
}

const struct nm_driver nm_mlxsw = {
        .name = "mlxsw",
        .kernel_driver = "mlxsw_spectrum2",     /* per device: the generation's (spectrum.c mlxsw_spN_driver_name) */
        .priv_size = sizeof(struct mlxsw),
        .init = mlxsw_init,
        .has_dcbnl = true,
        .getets = mlxsw_getets,
        .setets = mlxsw_setets,
        .getpfc = mlxsw_getpfc,
        .setpfc = mlxsw_setpfc,
        .getbuffer = mlxsw_getbuffer,
        .setbuffer = mlxsw_setbuffer,
        .getdcbx = mlxsw_getdcbx,
        .setdcbx = mlxsw_setdcbx,
        .root_qdisc = mlxsw_root_qdisc,
        .change_mtu = mlxsw_change_mtu,
        .dump = mlxsw_dump,
        .qdisc_offload = mlxsw_qdisc_offload,
};
