/* SPDX-License-Identifier: MIT */
/*
 * A Spectrum switch port (mlxsw_spectrum*) as its dcbnl_rtnl_ops see it: PFC and
 * the port headroom, from drivers/net/ethernet/mellanox/mlxsw/spectrum_dcb.c
 * (mlxsw_sp_dcbnl_ieee_setpfc/getpfc, mlxsw_sp_dcbnl_setbuffer/getbuffer,
 * mlxsw_sp_port_headroom_ets_set), spectrum_buffers.c (mlxsw_sp_hdroom_*:
 * the headroom model of the Sep 2020 series "mlxsw: Support two headroom modes",
 * v5.10) and spectrum_qdisc.c (a root qdisc puts the port in TC headroom mode).
 *
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
 * APP entries go through the dcbnl core only (no DSCP trust modelled).
 *
 * Variants: "sp1".."sp4" (default "sp2"), a "x8" suffix for an 8-lane port.
 */
#include "common/util.h"
#include "tests/nicmodel/nicmodel.h"

#define BUFS 8                          /* DCBX_MAX_BUFFERS */
#define MAX_HEADROOM (1u << 20)         /* stand-in for MAX_HEADROOM_SIZE */

enum mode { MODE_DCB, MODE_TC };

struct mlxsw {
        unsigned cell;
        bool x8;
        enum mode mode;
        struct ieee_pfc pfc;            /* mlxsw_sp_port->dcb.pfc: what the last setpfc stored */
        uint8_t prio_tc[8];             /* ETS */
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
        memset(ets, 0, sizeof(*ets));
        ets->ets_cap = 8;
        memcpy(ets->prio_tc, P(d)->prio_tc, 8);
        for (unsigned i = 0; i < 8; i++)
                ets->tc_tsa[i] = IEEE_8021QAZ_TSA_STRICT;
        return 0;
}

/* mlxsw_sp_port_headroom_ets_set(): a priority's DCB-mode buffer is its traffic class. */
static int mlxsw_setets(struct nm *m, struct nm_dev *d, struct ieee_ets *ets)
{
        struct mlxsw next = *P(d);

        for (unsigned prio = 0; prio < 8; prio++) {
                if (ets->prio_tc[prio] >= 8)
                        return -EINVAL;
                next.prio[prio].ets_buf_idx = ets->prio_tc[prio];
        }
        memcpy(next.prio_tc, ets->prio_tc, 8);
        return configure(d, &next, P(d));
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

/* mlxsw_sp_qdisc_create() / mlxsw_sp_qdisc_destroy() of the root qdisc. */
static int mlxsw_root_qdisc(struct nm *m, struct nm_dev *d, bool offloaded)
{
        struct mlxsw next = *P(d);

        next.mode = offloaded ? MODE_TC : MODE_DCB;
        return configure(d, &next, P(d));
}

static uint8_t mlxsw_getdcbx(struct nm *m, struct nm_dev *d)
{
        return DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;       /* mlxsw_sp_dcbnl_getdcbx() */
}

static uint8_t mlxsw_setdcbx(struct nm *m, struct nm_dev *d, uint8_t mode)
{
        return mode == (DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE) ? 0 : 1;
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

        if (n >= 2 && streq(variant + n - 2, "x8")) {
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
        nm_dump_u8s(f, "prio_tc", p->prio_tc, 8);
        nm_dump_u8s(f, "buf_idx", map, 8);
        fprintf(f, " lossless 0x%02x size", lossless);
        for (unsigned i = 0; i < BUFS; i++)
                fprintf(f, "%s%u", i ? "," : " ", p->buf[i].size_cells * p->cell);
        fprintf(f, " set");
        for (unsigned i = 0; i < BUFS; i++)
                fprintf(f, "%s%u", i ? "," : " ", p->buf[i].set_size_cells * p->cell);
        fprintf(f, "\n");
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
};
