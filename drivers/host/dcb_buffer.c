/* SPDX-License-Identifier: MIT */
/*
 * The "dcb-buffer" driver: cable_length (struct ieee_pfc.delay) and buffers
 * (DCB_ATTR_DCB_BUFFER) of a host interface or a Linux switch's port, over dcbnl.
 *
 * What the delay means and what each device does with it is the kernel driver's:
 *
 *   mlx5_core   delay = the cable length in metres (en_dcbnl.c @ 84a83eba5c5a
 *               mlx5e_dcbnl_ieee_getpfc/setpfc: priv->dcbx.cable_len, default 7 m,
 *               MLX5E_DEFAULT_CABLE_LEN); taken only when 1-999 and new, any other
 *               value silently ignored, so nettune refuses it at plan time. The
 *               buffers are the firmware's until the first dcbnl_setbuffer that
 *               changes something (priv->dcbx.manual_buffer; since upstream
 *               451d2849ea66 the firmware's PFCC buf_ownership SW_OWNED, and never
 *               where it says UNKNOWN); while they are the driver's a new cable
 *               length or PFC recomputes xoff/xon (en/port_buffer.c
 *               mlx5e_port_manual_buffer_config()), and a lossless buffer smaller
 *               than xoff + max_mtu + one cell is refused (-ENOMEM). setbuffer
 *               recomputes from the stored length whoever owns them: the cable
 *               goes first (dcb_buffer_change(), note_mlx5()). The cell is 128
 *               bytes or SBCAM's (mlx5_cell()).
 *   mlxsw       delay = bits, a __u16; ieee_setpfc stores DIV_ROUND_UP(delay, 8)
 *               bytes as the port's delay (spectrum_dcb.c
 *               mlxsw_sp_dcbnl_ieee_setpfc()), which sizes the lossless buffers
 *               only in DCB headroom mode: 2 x MTU + 2 x delay + MTU, in cells
 *               (spectrum_buffers.c mlxsw_sp_hdroom_buf_threshold_get(),
 *               mlxsw_sp_hdroom_buf_delay_get(), mlxsw_sp_hdroom_bufs_reset_sizes()),
 *               doubled on an 8-lane port and split over two buffers
 *               (mlxsw_sp_port_headroom_8x_adjust()). The delay is therefore the
 *               whole allowance for what arrives after XOFF, not the cable's
 *               propagation alone: nettune writes the allowance that makes the
 *               buffer the calculator's size (see "mlxsw" below); with a root qdisc
 *               offloaded the port is in TC mode, where every priority fills
 *               buffer 0 until dcbnl_setbuffer maps it, sizes are what setbuffer
 *               gave (never below 2 x MTU in cells) and the delay is not added
 *               (spectrum_buffers.c mlxsw_sp_hdroom_bufs_reset_sizes()).
 *               dcbnl_setbuffer is refused in DCB mode.
 *
 * The length is declared in metres; on mlxsw it becomes that allowance in bits,
 * read back the same way (a delay nettune did not write reads as the cable whose
 * round trip it is, policies/state/headroom.h). A snapshot keeps the raw delay
 * (dcb_device.pfc_delay) and puts back exactly that. Before anything is written,
 * every lossless buffer is checked against the calculator for the port's speed,
 * MTU and cable length, and sizes the device would round are refused; on mlxsw
 * the check is of what the driver will really reserve after the change, in the
 * headroom mode the port will be in, on the priority->buffer map that mode uses
 * (mlxsw_sp_hdroom_prios_reset_buf_idx()): a PFC priority that would share a
 * buffer with a lossy one, or a lossless buffer short of the calculator, is refused
 * with the way that works.
 */
#include "drivers/host/dcb_driver.h"
#include "drivers/host/dcb_nl.h"
#include "drivers/host/ethtool.h"
#include "drivers/host/link.h"
#include "drivers/host/qdisc_tree.h"
#include "drivers/host/sysfs.h"
#include "policies/state/headroom.h"

#define OWN_FIELDS (STATE_BIT(STATE_FIELD_CABLE_LEN) | STATE_BIT(STATE_FIELD_BUFFERS))
#define MLX5_CABLE_MAX 999              /* en_dcbnl.c: pfc->delay < MLX5E_MAX_CABLE_LENGTH (1000) */

enum family {
        FAMILY_OTHER,                   /* the delay's unit unknown: no cable length */
        FAMILY_MLX5,
        FAMILY_MLXSW,
};

/* What the checks and the conversions need of the port. */
struct port {
        enum family family;
        enum headroom_asic asic;
        uint32_t speed_mbps;            /* SYSFS/class/net/IF/speed, 0 unknown */
        uint32_t mtu;                   /* the desired MTU, else the live one */
        uint32_t max_mtu;               /* IFLA_MAX_MTU, 0 unknown */
        unsigned lanes;                 /* mlxsw: 8 or 4 (ethtool_port_lanes(); 4 when unreadable) */
        bool lanes_unread;              /* mlxsw: ethtool did not say: 4 assumed (check_mlxsw() notes it) */
        uint32_t cell;                  /* mlx5: the buffer cell the port's sizes show (mlx5_cell()) */
};

static const char *kdrv(const struct target *t)
{
        return t->kernel_driver[0] ? t->kernel_driver : "unknown";
}

static enum family family_of(const struct target *t, enum headroom_asic *ret_asic)
{
        int a = headroom_asic_of_driver(t->kernel_driver);

        *ret_asic = a >= 0 ? (enum headroom_asic)a : HEADROOM_SPECTRUM2;
        if (a < 0)
                return FAMILY_OTHER;
        return a == HEADROOM_CONNECTX ? FAMILY_MLX5 : FAMILY_MLXSW;
}

static uint32_t mlx5_cell(const struct dcb_nl_ieee *cur);

static void port_of(struct target *t, struct nl *nl, const struct state *d, const struct dcb_nl_ieee *cur,
                    struct port *ret)
{
        char path[512];
        struct link_info li;
        struct errbuf ignore;
        unsigned speed = 0;

        memset(ret, 0, sizeof(*ret));
        ret->family = family_of(t, &ret->asic);
        snprintf(path, sizeof(path), "%s/class/net/%s/speed", t->env ? t->env->sysfs_root : "/sys", t->name);
        if (sysfs_read_uint(path, &speed) >= 0)         /* "-1" (SPEED_UNKNOWN) is no number */
                ret->speed_mbps = speed;
        if (d && state_has(d, STATE_FIELD_MTU))
                ret->mtu = d->mtu;
        else if (link_rtnl_read(t, nl, &li, &ignore) >= 0)
                ret->mtu = li.mtu;
        ret->max_mtu = t->max_mtu;
        ret->lanes = 4;
        if (ret->family == FAMILY_MLXSW && ethtool_port_lanes(t->name, &ret->lanes) < 0) {
                ret->lanes = 4;
                ret->lanes_unread = true;
        }
        ret->cell = mlx5_cell(cur);
}

static uint32_t gcd32(uint32_t a, uint32_t b)
{
        while (b) {
                uint32_t t = a % b;

                a = b;
                b = t;
        }
        return a;
}

/*
 * mlx5's buffer cell (priv->dcbx.port_buff_cell_sz) is 128 bytes without SBCAM and the
 * firmware's SBCAM cap_cell_size with it (en_dcbnl.c mlx5e_query_port_buffers_cell_size());
 * dcbnl does not say which, but every size it reports is whole cells
 * (en/port_buffer.c mlx5e_port_query_buffer(): cells * port_buff_cell_sz), the total
 * too: their greatest common divisor is the cell or a multiple of it. 128 when the
 * port reports no sizes.
 */
static uint32_t mlx5_cell(const struct dcb_nl_ieee *cur)
{
        uint32_t g = cur && cur->has_buffer ? cur->buffer.total_size : 0;

        for (unsigned b = 0; g && b < STATE_BUFFER_COUNT; b++)
                if (cur->buffer.buffer_size[b])
                        g = gcd32(g, cur->buffer.buffer_size[b]);
        return g ? g : HEADROOM_CONNECTX_CELL;
}

/* ---- mlxsw: the headroom it reserves (spectrum_buffers.c) ---- */

static unsigned mlxsw_cells(const struct port *p, uint32_t bytes)
{
        unsigned cell = headroom_cell_bytes(p->asic);

        return (bytes + cell - 1) / cell;                       /* mlxsw_sp_bytes_cells(): DIV_ROUND_UP */
}

/* mlxsw_sp_hdroom_buf_threshold_get(): a buffer that holds priorities, lossy or not. */
static unsigned mlxsw_thres_cells(const struct port *p)
{
        return 2 * mlxsw_cells(p, p->mtu);
}

/* mlxsw_sp_hdroom_buf_delay_get() over the delay mlxsw_sp_dcbnl_ieee_setpfc() stores (bits -> bytes). */
static unsigned mlxsw_delay_cells(const struct port *p, uint32_t delay_bits)
{
        return 2 * mlxsw_cells(p, (delay_bits + 7) / 8) + mlxsw_cells(p, p->mtu);
}

/* The calculator's size for one lossless buffer of this port; -EINVAL with the reason. */
static int lossless_need(const struct port *p, unsigned cable_m, struct headroom *ret, struct errbuf *e);

/*
 * The delay nettune writes on mlxsw for a cable length: the allowance that makes
 * DCB mode's lossless buffer (each of the two on an 8-lane port) at least the
 * calculator's size: k delay cells, k = ceil((need - threshold - MTU) / 2) in cells.
 * mlxsw only sees the cells, so the bits inside the last cell tell cable lengths
 * that need the same k apart (the j-th such length, counted from the shortest,
 * adds j bytes), and the read-back is exact: 0 when the calculator has no answer.
 */
static uint32_t mlxsw_allowance_cells(const struct port *p, unsigned cable_m)
{
        struct headroom h;
        struct errbuf ignore;
        unsigned need, base = mlxsw_thres_cells(p) + mlxsw_cells(p, p->mtu);

        if (!p->speed_mbps || lossless_need(p, cable_m, &h, &ignore) < 0)
                return 0;
        need = mlxsw_cells(p, h.size_bytes);
        return need > base ? (need - base + 1) / 2 : 1;
}

static uint64_t mlxsw_allowance_bits(const struct port *p, unsigned cable_m)
{
        unsigned cell = headroom_cell_bytes(p->asic), k = mlxsw_allowance_cells(p, cable_m), j = 0;

        if (!k)
                return 0;
        while (j + 1 < cell && cable_m > j + 1 && mlxsw_allowance_cells(p, cable_m - j - 1) == k)
                j++;
        return 8ull * ((uint64_t)(k - 1) * cell + 1 + j);
}

/* The cable length whose allowance is these bits; 0 none (a delay nettune did not write). */
static unsigned mlxsw_allowance_cable(const struct port *p, uint32_t bits)
{
        unsigned cell = headroom_cell_bytes(p->asic), k0 = 0, m0 = 1;

        for (unsigned m = 1; p->speed_mbps && m <= HEADROOM_CABLE_MAX_M; m++) {
                unsigned k = mlxsw_allowance_cells(p, m), j;

                if (!k || (uint64_t)(k - 1) * cell * 8 > bits)
                        break;
                if (k != k0) {
                        k0 = k;
                        m0 = m;
                }
                j = m - m0 < cell - 1 ? m - m0 : cell - 1;
                if (8ull * ((uint64_t)(k - 1) * cell + 1 + j) == bits)
                        return m;
        }
        return 0;
}

/* ---- the delay: metres <-> what the device holds ---- */

static unsigned cable_of_delay(const struct port *p, uint16_t delay)
{
        unsigned m;

        if (p->family != FAMILY_MLXSW)
                return delay;
        if (!p->speed_mbps)
                return 0;
        m = mlxsw_allowance_cable(p, delay);
        return m ? m : headroom_delay_cable_m(p->speed_mbps, delay);
}

static uint16_t delay_of_cable(const struct port *p, unsigned cable_m)
{
        uint64_t a;

        if (p->family != FAMILY_MLXSW)
                return (uint16_t)cable_m;
        /* the allowance where it fits; else (TC mode, where the delay sizes nothing) the round trip: checked to fit */
        a = mlxsw_allowance_bits(p, cable_m);
        return (uint16_t)(a && a <= HEADROOM_DELAY_BITS_MAX ? a : headroom_delay_bits(p->speed_mbps, cable_m));
}

/* The cable length the device works with now (0: none it can tell). */
static unsigned live_cable(const struct port *p, const struct dcb_nl_ieee *cur)
{
        return cur->has_pfc ? cable_of_delay(p, cur->pfc.delay) : 0;
}

/* ---- caps, read ---- */

static int dcb_buffer_caps(struct target *t, uint32_t *ret_fields, struct errbuf *e)
{
        _cleanup_nl_ struct nl *own = NULL;
        struct dcb_nl_ieee cur;
        enum headroom_asic asic;
        enum family f = family_of(t, &asic);
        struct nl *nl;
        int r = dcb_open_get(t, &nl, &own, &cur, e);

        *ret_fields = 0;
        if (r == -EOPNOTSUPP)
                return 0;
        if (r < 0)
                return r;
        /* mlx5 reports the cable length only where it manages buffers (MLX5_BUFFER_SUPPORTED) */
        if (cur.has_pfc && ((f == FAMILY_MLX5 && cur.has_buffer) || f == FAMILY_MLXSW))
                *ret_fields |= STATE_BIT(STATE_FIELD_CABLE_LEN);
        if (cur.has_buffer)
                *ret_fields |= STATE_BIT(STATE_FIELD_BUFFERS);
        return 0;
}

static void to_state(const struct port *p, const struct dcb_nl_ieee *cur, uint32_t fields, struct state *ret)
{
        if ((fields & STATE_BIT(STATE_FIELD_CABLE_LEN)) && cur->has_pfc) {
                ret->cable_len_m = live_cable(p, cur);
                ret->present |= STATE_BIT(STATE_FIELD_CABLE_LEN);
                ret->dcb.present = true;
                ret->dcb.has_pfc_delay = true;
                ret->dcb.pfc_delay = cur->pfc.delay;
        }
        if ((fields & STATE_BIT(STATE_FIELD_BUFFERS)) && cur->has_buffer) {
                memcpy(ret->buffers.prio_buffer, cur->buffer.prio2buffer, sizeof(ret->buffers.prio_buffer));
                memcpy(ret->buffers.size, cur->buffer.buffer_size, sizeof(ret->buffers.size));
                ret->buffers.total = cur->buffer.total_size;
                ret->present |= STATE_BIT(STATE_FIELD_BUFFERS);
        }
}

static int dcb_buffer_read(struct target *t, uint32_t fields, struct state *ret, struct errbuf *e)
{
        _cleanup_nl_ struct nl *own = NULL;
        struct dcb_nl_ieee cur;
        struct port p;
        struct nl *nl;
        int r;

        if (!(fields & OWN_FIELDS))
                return 0;
        r = dcb_open_get(t, &nl, &own, &cur, e);
        if (r < 0)
                return r;
        port_of(t, nl, NULL, &cur, &p);
        to_state(&p, &cur, fields, ret);
        return 0;
}

/* ---- the checks (plan time) ---- */

static int check_cable(const struct target *t, const struct port *p, const struct state *d, struct errbuf *e)
{
        unsigned m = d->cable_len_m;

        if (p->family == FAMILY_MLX5 && m > MLX5_CABLE_MAX)
                return errbuf_set(e, EINVAL, NULL, "pfc.cable_length_m %u is longer than mlx5 takes (1-%u m): "
                                  "its setpfc ignores a longer one without an error (en_dcbnl.c "
                                  "MLX5E_MAX_CABLE_LENGTH)", m, MLX5_CABLE_MAX);
        if (p->family != FAMILY_MLXSW)
                return 0;
        if (!p->speed_mbps)
                return errbuf_set(e, EINVAL, NULL, "pfc.cable_length_m: the link speed of '%s' is unknown (link "
                                  "down?), and mlxsw takes the PFC delay in bits at that speed", t->name);
        if (mlxsw_allowance_bits(p, m) > HEADROOM_DELAY_BITS_MAX &&
            headroom_delay_bits(p->speed_mbps, m) > HEADROOM_DELAY_BITS_MAX)
                return errbuf_set(e, EINVAL, NULL, "pfc.cable_length_m %u is %llu bits of delay at %u Mb/s; mlxsw "
                                  "takes at most %u (struct ieee_pfc.delay is a __u16: %u m at this speed); size the "
                                  "lossless buffer with spec.buffers in tc mode instead", m,
                                  (unsigned long long)headroom_delay_bits(p->speed_mbps, m), p->speed_mbps,
                                  HEADROOM_DELAY_BITS_MAX, headroom_delay_max_cable_m(p->speed_mbps));
        return 0;
}

/* The calculator's size for one lossless buffer of this port; 0 when it cannot tell (no cable length). */
static int lossless_need(const struct port *p, unsigned cable_m, struct headroom *ret, struct errbuf *e)
{
        struct headroom_problem why;
        struct headroom_input in;
        unsigned gbps = p->speed_mbps / 1000;

        headroom_input_init(&in, p->family == FAMILY_MLX5 ? HEADROOM_CONNECTX : p->asic);
        /* mlx5e_port_linkspeed() failing counts as 40G; the calculator floors mlx5 at 40G anyway */
        in.speed_gbps = gbps ? (gbps > HEADROOM_SPEED_MAX_GBPS ? HEADROOM_SPEED_MAX_GBPS : gbps) : 40;
        in.cable_m = cable_m;
        in.mtu = p->mtu;
        if (p->family == FAMILY_MLXSW)
                in.lanes = p->lanes;
        if (p->max_mtu)
                in.max_mtu = p->max_mtu;
        if (headroom_calc(&in, ret, &why) < 0)
                return errbuf_set(e, EINVAL, NULL, "buffers: no headroom for this port (%s)", why.msg);
        return 0;
}

static int check_lossless(const struct port *p, const struct state *d, unsigned cable_m, unsigned b, unsigned prio,
                          struct errbuf *e)
{
        struct headroom h;
        int r;

        if (!cable_m)
                return errbuf_set(e, EINVAL, NULL, "buffers: buffer %u holds lossless priority %u, and the port has "
                                  "no cable length to size it for: declare pfc.cable_length_m", b, prio);
        if ((r = lossless_need(p, cable_m, &h, e)) < 0 || d->buffers.size[b] >= h.size_bytes)
                return r;
        return errbuf_set(e, EINVAL, NULL, "buffers: buffer %u of %u bytes holds lossless priority %u, below the %u "
                          "bytes of headroom this port needs (%s at %u Mb/s, %u m, mtu %u: xoff %u, xon %u; see "
                          "nettunectl headroom)%s", b, d->buffers.size[b], prio, h.size_bytes,
                          headroom_asic_name(p->family == FAMILY_MLX5 ? HEADROOM_CONNECTX : p->asic), p->speed_mbps,
                          cable_m, p->mtu, h.xoff_bytes, h.xon_bytes,
                          p->family == FAMILY_MLX5 ? "; mlx5 would refuse it (update_xoff_threshold: -ENOMEM)" : "");
}

/*
 * Sizes the device would round: mlx5 floors to its cells (mlx5_cell(): 128 bytes, or
 * SBCAM's), mlxsw rounds up to its ASIC's cells.
 */
static int check_cells(const struct port *p, const struct state *d, struct errbuf *e)
{
        unsigned cell = p->family == FAMILY_MLX5 ? p->cell :
                        p->family == FAMILY_MLXSW ? headroom_cell_bytes(p->asic) : 0;

        for (unsigned b = 0; cell && b < STATE_BUFFER_COUNT; b++)
                if (d->buffers.size[b] % cell)
                        return errbuf_set(e, EINVAL, NULL, "buffers.buffer_size_bytes[%u] %u is not a whole number "
                                          "of the port's %u-byte cells (%s keeps %u)", b, d->buffers.size[b], cell,
                                          p->family != FAMILY_MLX5 ? "mlxsw rounds it up and" :
                                          cell == HEADROOM_CONNECTX_CELL ? "mlx5 floors it and" :
                                          "every size the port reports is a multiple of it, its cell or a multiple "
                                          "of the cell (SBCAM's cap_cell_size); mlx5 floors it and",
                                          p->family == FAMILY_MLX5 ? d->buffers.size[b] / cell * cell :
                                          (d->buffers.size[b] / cell + 1) * cell);
        return 0;
}

/*
 * mlxsw: a buffer that holds priorities is at least 2 x MTU in cells
 * (mlxsw_sp_hdroom_buf_threshold_get()), doubled on an 8-lane port
 * (mlxsw_sp_port_headroom_8x_adjust()), and getbuffer shows that minimum.
 */
static unsigned mlxsw_min_bytes(const struct port *p)
{
        unsigned cell = headroom_cell_bytes(p->asic);

        return 2 * ((p->mtu + cell - 1) / cell) * cell * (p->lanes == 8 ? 2 : 1);
}

static int check_threshold(const struct port *p, const struct state *d, unsigned b, struct errbuf *e)
{
        unsigned thres;

        if (p->family != FAMILY_MLXSW || d->buffers.size[b] >= (thres = mlxsw_min_bytes(p)))
                return 0;
        return errbuf_set(e, EINVAL, NULL, "buffers.buffer_size_bytes[%u] %u: mlxsw raises a buffer that holds "
                          "priorities to 2 x MTU, %u bytes%s (spectrum_buffers.c mlxsw_sp_hdroom_buf_threshold_get())",
                          b, d->buffers.size[b], thres, p->lanes == 8 ? " on an 8-lane port" : "");
}

static int check_buffers(const struct port *p, const struct state *d, const struct dcb_nl_ieee *cur,
                         struct errbuf *e)
{
        unsigned cable = state_has(d, STATE_FIELD_CABLE_LEN) ? d->cable_len_m : live_cable(p, cur);
        uint64_t total = 0;
        unsigned used = 0;
        int r = check_cells(p, d, e);

        for (unsigned b = 0; b < STATE_BUFFER_COUNT; b++)
                total += d->buffers.size[b];
        if (r >= 0 && p->family == FAMILY_MLX5 && cur->buffer.total_size && total > cur->buffer.total_size)
                r = errbuf_set(e, EINVAL, NULL, "buffers: %llu bytes in all, the port has %u "
                               "(mlx5e_port_manual_buffer_config() refuses more)", (unsigned long long)total,
                               cur->buffer.total_size);
        for (unsigned prio = 0; r >= 0 && prio < STATE_PRIO_COUNT; prio++) {
                unsigned b = d->buffers.prio_buffer[prio];

                if (!(used & (1u << b)))
                        r = check_threshold(p, d, b, e);
                used |= 1u << b;
                if (r >= 0 && (d->pfc_enabled & (1u << prio)) && p->family == FAMILY_MLX5)
                        r = check_lossless(p, d, cable, b, prio, e);    /* mlxsw: check_mlxsw() */
        }
        return r;
}

/*
 * mlx5: one setbuffer that changes the map and the sizes is taken map first, against
 * the sizes the port has now (en/port_buffer.c mlx5e_port_manual_buffer_config():
 * update_buffer_lossy() for MLX5E_PORT_BUFFER_PRIO2BUFFER before the new sizes, and
 * update_xoff_threshold() refuses a lossless buffer below xoff + max_mtu + one cell,
 * -ENOMEM; a lossless buffer of size 0 is -EINVAL). mlx5_order() says which order the
 * driver takes: 1 in one request, 2 the sizes (with the map it has) and then the map,
 * 0 neither.
 */
static uint8_t mlx5_lossless_bufs(const uint8_t *map, uint8_t pfc)
{
        uint8_t all = 0, lossy = 0;

        for (unsigned prio = 0; prio < STATE_PRIO_COUNT; prio++) {
                all |= (uint8_t)(1u << (map[prio] & 7));
                if (!(pfc & (1u << prio)))
                        lossy |= (uint8_t)(1u << (map[prio] & 7));
        }
        /* a buffer is lossless when every priority it holds is (update_buffer_lossy(): lossy_count) */
        return all & (uint8_t)~lossy;
}

static bool mlx5_fits(const uint32_t *size, uint8_t lossless, uint32_t need)
{
        for (unsigned b = 0; b < STATE_BUFFER_COUNT; b++)
                if ((lossless & (1u << b)) && size[b] < need)
                        return false;
        return true;
}

static int mlx5_order(const struct port *p, unsigned cable_m, uint8_t pfc, const struct dcbnl_buffer *now,
                      const uint8_t *map, const uint32_t *size)
{
        uint32_t max_mtu = p->max_mtu > 9216 ? p->max_mtu : 9216;       /* port_buffer.c MINIMUM_MAX_MTU */
        uint32_t need = headroom_mlx5_xoff(p->speed_mbps, cable_m, p->mtu) + max_mtu + p->cell;
        uint8_t old_ll = mlx5_lossless_bufs(now->prio2buffer, pfc), new_ll = mlx5_lossless_bufs(map, pfc);

        if (!memcmp(map, now->prio2buffer, STATE_PRIO_COUNT) || mlx5_fits(now->buffer_size, new_ll, need))
                return 1;
        if (mlx5_fits(size, old_ll, need) && mlx5_fits(size, new_ll, need))
                return 2;
        return 0;
}

/* ---- mlxsw: what the driver will reserve after the change ---- */

/*
 * The headroom mode of the port: TC while a root qdisc is offloaded
 * (spectrum_qdisc.c mlxsw_sp_qdisc_create() -> mlxsw_sp_hdroom_configure() with
 * MLXSW_SP_HDROOM_MODE_TC), DCB otherwise.
 */
static bool mlxsw_live_tc(const struct target *t, struct nl *nl)
{
        _cleanup_free_ struct qdisc_tree *tree = malloc(sizeof(*tree));
        struct errbuf ignore;

        return tree && qdisc_tree_read(nl, t->ifindex, TC_H_ROOT, tree, &ignore) >= 0 && tree->has_top &&
               tree->top.offloaded;
}

static unsigned list_prios(uint8_t bits, char *buf, size_t size)
{
        size_t n = 0;

        buf[0] = '\0';
        for (unsigned p = 0; p < STATE_PRIO_COUNT; p++)
                if ((bits & (1u << p)) && n < size)
                        n += (size_t)snprintf(buf + n, size - n, "%s%u", n ? "," : "", p);
        return (unsigned)n;
}

/*
 * After the change: the mode (TC when a root qdisc is offloaded now, or nettune's
 * own comes with spec.ecn — the qdisc driver applies before this one — or
 * spec.buffers, which mlxsw takes in TC mode only), the priority->buffer map of that
 * mode (mlxsw_sp_hdroom_prios_reset_buf_idx(): ETS prio_tc in DCB mode, what
 * setbuffer set in TC mode, 0 for every priority until then), the lossless buffers
 * (mlxsw_sp_hdroom_bufs_reset_lossiness(): one PFC priority makes its whole buffer
 * lossless) and what each reserves (mlxsw_sp_hdroom_bufs_reset_sizes(): DCB mode
 * threshold + delay; TC mode max(set size, threshold); both doubled on an 8-lane
 * port by mlxsw_sp_port_headroom_8x_adjust(), which splits the buffer over two, so
 * each half is compared with the calculator, as the kernel's qos_pfc.sh sizes it).
 */
static int check_mlxsw(struct target *t, struct nl *nl, const struct port *p, const struct state *d,
                       const struct dcb_nl_ieee *cur, struct errbuf *e)
{
        bool live_tc = mlxsw_live_tc(t, nl);
        bool tc = live_tc || (state_has(d, STATE_FIELD_ECN) && d->ecn.queues) || state_has(d, STATE_FIELD_BUFFERS);
        uint8_t pfc = state_has(d, STATE_FIELD_PFC) ? d->pfc_enabled : cur->has_pfc ? cur->pfc.pfc_en : 0;
        unsigned cable = state_has(d, STATE_FIELD_CABLE_LEN) ? d->cable_len_m : live_cable(p, cur);
        unsigned cell = headroom_cell_bytes(p->asic), thres = mlxsw_thres_cells(p), halves = p->lanes == 8 ? 2 : 1;
        const char *from, *way;
        char lossless[32], need_way[160];
        uint8_t map[STATE_PRIO_COUNT] = { 0 };
        uint32_t done = 0;
        struct headroom h;
        int r;

        if (!pfc)
                return 0;
        list_prios(pfc, lossless, sizeof(lossless));
        if (tc && state_has(d, STATE_FIELD_BUFFERS)) {
                memcpy(map, d->buffers.prio_buffer, sizeof(map));
                from = "spec.buffers.prio_to_buffer (TC headroom mode)";
        } else if (tc && live_tc && cur->has_buffer) {
                memcpy(map, cur->buffer.prio2buffer, sizeof(map));
                from = "the port's buffer map in TC headroom mode (mlxsw_sp_dcbnl_getbuffer())";
        } else if (tc) {
                from = "TC headroom mode's map before any dcb buffer: every priority in buffer 0";
        } else if (state_has(d, STATE_FIELD_ETS)) {
                memcpy(map, d->ets.prio_tc, sizeof(map));
                from = "spec.ets.priority_to_tc (DCB headroom mode: mlxsw_sp_port_headroom_ets_set())";
        } else {
                if (cur->has_ets)
                        memcpy(map, cur->ets.prio_tc, sizeof(map));
                from = "the port's ETS priority_to_tc (DCB headroom mode: mlxsw_sp_port_headroom_ets_set())";
        }
        way = tc ? "declare spec.buffers with the PFC priorities in a buffer of their own" :
                   "give the PFC priorities a traffic class of their own (spec.ets.priority_to_tc), or put the port "
                   "in TC headroom mode (an offloaded root qdisc, spec.ecn) and declare spec.buffers";
        for (unsigned prio = 0; prio < STATE_PRIO_COUNT; prio++)
                for (unsigned q = 0; (pfc & (1u << prio)) && q < STATE_PRIO_COUNT; q++)
                        if (!(pfc & (1u << q)) && map[q] == map[prio])
                                return errbuf_set(e, EINVAL, NULL, "pfc: lossy priority %u would share buffer %u with "
                                                  "PFC priority %u on %s, and mlxsw makes the whole buffer lossless "
                                                  "(spectrum_buffers.c mlxsw_sp_hdroom_bufs_reset_lossiness()): %s",
                                                  q, map[prio], prio, from, way);
        if (!cable)
                return errbuf_set(e, EINVAL, NULL, "pfc: priorities %s are lossless and the port has no cable length "
                                  "to size their buffer for: declare pfc.cable_length_m", lossless);
        if ((r = lossless_need(p, cable, &h, e)) < 0)
                return r;
        snprintf(need_way, sizeof(need_way), "declare spec.buffers with priorities %s in a buffer of at least %u "
                 "bytes%s", lossless, h.size_bytes * halves, halves == 2 ? " (an 8-lane port splits it in two)" : "");
        for (unsigned prio = 0; prio < STATE_PRIO_COUNT; prio++) {
                unsigned b = map[prio];
                uint64_t bits = state_has(d, STATE_FIELD_CABLE_LEN) ? mlxsw_allowance_bits(p, cable) : cur->pfc.delay;
                uint32_t half, set;

                if (!(pfc & (1u << prio)) || (done & (1u << b)))
                        continue;
                done |= 1u << b;
                if (!tc && bits > HEADROOM_DELAY_BITS_MAX)
                        return errbuf_set(e, EINVAL, NULL, "pfc: in DCB headroom mode mlxsw sizes buffer %u of "
                                          "lossless priorities %s from the PFC delay alone (2 x MTU + 2 x delay + "
                                          "MTU: spectrum_buffers.c mlxsw_sp_hdroom_buf_delay_get()), and the %u "
                                          "bytes this port needs (%s at %u Mb/s, %u m, mtu %u) take %llu bits of "
                                          "delay, more than a __u16 holds (at most %u bytes of buffer): put the "
                                          "port in TC headroom mode (an offloaded root qdisc, spec.ecn) and %s",
                                          b, lossless, h.size_bytes, headroom_asic_name(p->asic), p->speed_mbps,
                                          cable, p->mtu, (unsigned long long)bits,
                                          (thres + mlxsw_delay_cells(p, HEADROOM_DELAY_BITS_MAX)) * cell, need_way);
                if (!tc) {
                        half = (thres + mlxsw_delay_cells(p, (uint32_t)bits)) * cell;
                } else {
                        set = state_has(d, STATE_FIELD_BUFFERS) ? d->buffers.size[b] :
                              live_tc && cur->has_buffer ? cur->buffer.buffer_size[b] : 0;
                        half = (mlxsw_cells(p, set) > thres * halves ? mlxsw_cells(p, set) : thres * halves) * cell /
                               halves;
                }
                if (half >= h.size_bytes)
                        continue;
                return errbuf_set(e, EINVAL, NULL, "%s %u holds lossless priorities %s, and mlxsw will reserve %u "
                                  "bytes for it%s, below the %u bytes of headroom this port needs (%s at %u Mb/s, "
                                  "%u m, mtu %u: xoff %u, xon %u; see nettunectl headroom): %s",
                                  tc ? "buffer" : "in DCB headroom mode buffer", b, lossless, half * halves,
                                  halves == 2 ? " split over two buffers of an 8-lane port "
                                                "(mlxsw_sp_port_headroom_8x_adjust())" : "",
                                  h.size_bytes, headroom_asic_name(p->asic), p->speed_mbps, cable, p->mtu,
                                  h.xoff_bytes, h.xon_bytes, need_way);
        }
        return 0;
}

/* mlx5: a map and sizes the driver takes in neither order are refused here, not met as -ENOMEM at apply. */
static int check_mlx5_order(const struct port *p, const struct state *d, const struct dcb_nl_ieee *cur, uint32_t fields,
                            struct errbuf *e)
{
        /* the cable when setbuffer runs: the new one, written first (dcb_buffer_change()) */
        unsigned cable = (fields & STATE_BIT(STATE_FIELD_CABLE_LEN)) ? d->cable_len_m : live_cable(p, cur);
        uint8_t pfc = state_has(d, STATE_FIELD_PFC) ? d->pfc_enabled : cur->has_pfc ? cur->pfc.pfc_en : 0;

        if (!cur->has_buffer || !cable || mlx5_order(p, cable, pfc, &cur->buffer, d->buffers.prio_buffer,
                                                     d->buffers.size))
                return 0;
        return errbuf_set(e, EINVAL, NULL, "buffers: mlx5 takes a new priority->buffer map against the sizes the "
                          "port has now (mlx5e_port_manual_buffer_config(): the map before the sizes, -ENOMEM), and "
                          "neither this map over the port's sizes nor these sizes under the port's map leave every "
                          "lossless buffer xoff + max_mtu + one cell; change the sizes in one policy and the map in "
                          "the next");
}

/*
 * mlx5: who owns the buffers decides what a new cable length does, and nettune can
 * read neither the owner nor xoff (dcbnl_getbuffer shows sizes and the map). setpfc
 * stores the cable length always, and recomputes xoff from it only while the buffers
 * are the driver's: priv->dcbx.manual_buffer before upstream 451d2849ea66, the
 * firmware's SW_OWNED since (mlx5_query_port_buffer_ownership(); a firmware without
 * PCAM buffer_ownership says UNKNOWN, and setpfc never recomputes). A setbuffer that
 * changes something recomputes from the stored cable length whoever owns them
 * (mlx5e_dcbnl_setbuffer() -> mlx5e_port_manual_buffer_config() -> calculate_xoff()):
 * the cable goes first.
 */
static void note_mlx5(struct target *t, uint32_t fields)
{
        bool cable = fields & STATE_BIT(STATE_FIELD_CABLE_LEN), buffers = fields & STATE_BIT(STATE_FIELD_BUFFERS);

        if (buffers) {
                driver_note(t, "interface '%s' (%s): buffers set here stay the driver's, manual buffer mode, "
                            "until it reloads (mlx5e_dcbnl_setbuffer(); SW_OWNED since 451d2849ea66); a rollback "
                            "restores sizes, map and cable", t->name, kdrv(t));
                driver_note(t, "interface '%s': where the firmware owns the buffers or says UNKNOWN, a PFC change, a "
                            "rollback's too, leaves which buffer is lossless and its xoff as they were; dcbnl reads "
                            "back neither", t->name);
        }
        if (buffers && cable)
                driver_note(t, "interface '%s': the cable length is written first, so that setbuffer computes xoff "
                            "from it (calculate_xoff())", t->name);
        else if (cable)
                driver_note(t, "interface '%s': a new cable length moves xoff only where the driver owns the buffers "
                            "(mlx5e_dcbnl_ieee_setpfc(); never where the firmware says UNKNOWN), and xoff is not read "
                            "back: declare buffers to have it recomputed", t->name);
}

static int dcb_buffer_check(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        _cleanup_nl_ struct nl *own = NULL;
        const struct state *d = &c->desired[0];
        uint32_t fields = c->fields & OWN_FIELDS & d->present;
        struct dcb_nl_ieee cur;
        struct port p;
        struct nl *nl;
        int r;

        if (!fields)
                return 0;
        r = dcb_open_get(t, &nl, &own, &cur, e);
        if (r < 0)
                return r;
        port_of(t, nl, d, &cur, &p);
        if (fields & STATE_BIT(STATE_FIELD_CABLE_LEN))
                r = check_cable(t, &p, d, e);
        /* the declared buffers hold for the declared cable, whichever of the two changes */
        if (r >= 0 && state_has(d, STATE_FIELD_BUFFERS))
                r = check_buffers(&p, d, &cur, e);
        if (r >= 0 && p.family == FAMILY_MLXSW)
                r = check_mlxsw(t, nl, &p, d, &cur, e);
        if (r >= 0 && p.family == FAMILY_MLXSW && p.lanes_unread)
                driver_note(t, "interface '%s' (%s): ethtool does not say how many lanes the port has, so its buffers "
                            "were checked as a 4-lane port's; on an 8-lane port mlxsw doubles them and splits them over "
                            "two buffers (mlxsw_sp_port_headroom_8x_adjust())", t->name, kdrv(t));
        if (r >= 0 && p.family == FAMILY_MLX5 && (fields & STATE_BIT(STATE_FIELD_BUFFERS)))
                r = check_mlx5_order(&p, d, &cur, fields, e);
        if (r >= 0 && p.family == FAMILY_MLX5)
                note_mlx5(t, fields);
        if (r < 0) {
                link_rtnl_where(t, e, r);
                errbuf_suffix(e, "; nothing was changed");
        }
        return r;
}

/* ---- apply, restore ---- */

static int apply_cable(struct nl *nl, struct target *t, const struct port *p, const struct dcb_nl_ieee *cur,
                       const struct state *d, struct errbuf *e)
{
        struct ieee_pfc pfc = cur->pfc;
        bool raw = d->dcb.present && d->dcb.has_pfc_delay;     /* a snapshot: the value it read */
        uint16_t want = raw ? d->dcb.pfc_delay : delay_of_cable(p, d->cable_len_m);

        if (!cur->has_pfc)
                return errbuf_set(e, EOPNOTSUPP, NULL, "the device reports no pfc configuration");
        if (cur->pfc.delay == want)
                return 0;
        pfc.delay = want;
        return dcb_nl_set_pfc(nl, t->name, &pfc, e);
}

/*
 * mlxsw's getbuffer shows max(requested size, 2 x MTU) of a buffer that holds
 * priorities, never the request itself: a snapshot's size at that minimum is put
 * back as a request of 0, the driver's own start (mlxsw_sp_port_headroom_init()).
 */
static uint32_t restore_size(const struct port *p, const struct state *d, unsigned b)
{
        bool used = memchr(d->buffers.prio_buffer, (int)b, sizeof(d->buffers.prio_buffer)) != NULL;

        return p->family == FAMILY_MLXSW && used && d->buffers.size[b] == mlxsw_min_bytes(p) ? 0 : d->buffers.size[b];
}

static int apply_buffers(struct nl *nl, struct target *t, const struct port *p, const struct dcb_nl_ieee *cur,
                         const struct state *d, bool snapshot, struct errbuf *e)
{
        struct dcbnl_buffer b = cur->buffer;
        int r;

        if (!cur->has_buffer)
                return errbuf_set(e, EOPNOTSUPP, NULL, "the device reports no port buffers");
        memcpy(b.prio2buffer, d->buffers.prio_buffer, sizeof(b.prio2buffer));
        memcpy(b.buffer_size, d->buffers.size, sizeof(b.buffer_size));
        if (!memcmp(&b, &cur->buffer, sizeof(b)))
                return 0;
        for (unsigned i = 0; snapshot && i < STATE_BUFFER_COUNT; i++)
                b.buffer_size[i] = restore_size(p, d, i);
        if (p->family == FAMILY_MLX5 && cur->has_pfc &&
            mlx5_order(p, live_cable(p, cur), cur->pfc.pfc_en, &cur->buffer, b.prio2buffer, b.buffer_size) == 2) {
                struct dcbnl_buffer sizes = cur->buffer;        /* the sizes under the map the port has */

                memcpy(sizes.buffer_size, b.buffer_size, sizeof(sizes.buffer_size));
                if ((r = dcb_nl_set_buffer(nl, t->name, &sizes, e)) < 0)
                        return r;
        }
        r = dcb_nl_set_buffer(nl, t->name, &b, e);
        if (r == -EINVAL && p->family == FAMILY_MLXSW)
                errbuf_suffix(e, " (mlxsw takes dcb buffer only while egress is configured with tc, a root qdisc "
                              "offloaded: spectrum_dcb.c mlxsw_sp_dcbnl_setbuffer)");
        return r;
}

/*
 * mlxsw in DCB mode sizes its buffers itself from PFC, the delay and ETS, and
 * refuses dcbnl_setbuffer: a snapshot taken there (its map is the ETS map) has
 * nothing to write; the PFC and delay it restores bring the sizes back, and the
 * read-back after the restore says so or names what differs.
 */
static bool derived(const struct port *p, const struct dcb_nl_ieee *cur, const struct state *d, int r)
{
        return r == -EINVAL && p->family == FAMILY_MLXSW && cur->has_ets &&
               !memcmp(d->buffers.prio_buffer, cur->ets.prio_tc, sizeof(d->buffers.prio_buffer));
}

/* One part, its failure as "PART: message" appended to e; *first keeps the first errno. */
static void part(struct errbuf *e, int *first, int r, const char *what, const struct errbuf *pe)
{
        size_t len = strlen(e->msg);

        if (r >= 0)
                return;
        if (!*first)
                *first = r;
        snprintf(e->msg + len, sizeof(e->msg) - len, "%s%s: %s", len ? "; " : "", what, pe->msg);
}

/*
 * The cable length before the buffers: mlx5's setbuffer recomputes xoff from the cable
 * length the driver holds whoever owns the buffers, while setpfc recomputes it only
 * where the driver owns them (note_mlx5()). Where it does and the port's buffers are
 * too small for the longer cable, setpfc refuses it (-ENOMEM, the cable length put
 * back): then the buffers go first, sized for it, and the cable after them
 * recomputes xoff, as it does there.
 */
static int dcb_buffer_change(struct target *t, const struct state *d, uint32_t fields, bool best_effort,
                             struct errbuf *e)
{
        _cleanup_nl_ struct nl *own = NULL;
        struct dcb_nl_ieee cur;
        struct errbuf pe = { 0 };
        struct port p;
        struct nl *nl;
        bool buffers_first = false;
        int first = 0, r;

        fields &= OWN_FIELDS & d->present;
        if (!fields)
                return 0;
        r = dcb_open_get(t, &nl, &own, &cur, e);
        if (r < 0)
                return r;
        errbuf_clear(e);
        port_of(t, nl, d, &cur, &p);
        for (int step = 0; step < 2 && (!first || best_effort); step++) {
                bool buffers = (step == 0) == buffers_first;
                enum state_field f = buffers ? STATE_FIELD_BUFFERS : STATE_FIELD_CABLE_LEN;

                if (!(fields & STATE_BIT(f)))
                        continue;
                if (step && (r = dcb_nl_get(nl, t->name, &cur, &pe)) < 0) {
                        part(e, &first, r, "read back", &pe);
                        break;
                }
                /* a snapshot (it carries the device's detail: a policy never does) is put back as it was read */
                r = buffers ? apply_buffers(nl, t, &p, &cur, d, d->dcb.present, &pe) : apply_cable(nl, t, &p, &cur, d, &pe);
                if (buffers && d->dcb.present && derived(&p, &cur, d, r))
                        r = 0;
                if (r == -ENOMEM && !step && !buffers_first && (fields & STATE_BIT(STATE_FIELD_BUFFERS)) &&
                    p.family == FAMILY_MLX5) {
                        buffers_first = true;   /* nothing was changed: the buffers first, then the cable */
                        step = -1;
                        continue;
                }
                part(e, &first, r, buffers ? "buffers" : "pfc.cable_length_m", &pe);
        }
        return first < 0 ? link_rtnl_where(t, e, first) : 0;
}

static int dcb_buffer_apply(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        return dcb_buffer_change(t, &c->desired[0], c->delta[0], false, e);
}

/* Best effort: both parts, each failure named; the snapshot's raw delay as it was read. */
static int dcb_buffer_restore(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        return dcb_buffer_change(t, &c->desired[0], c->delta[0], true, e);
}

const struct driver_ops dcb_buffer_driver = {
        .name = "dcb-buffer",
        .kind = TARGET_INTERFACE,
        .fields = OWN_FIELDS,
        .caps = dcb_buffer_caps,
        .check = dcb_buffer_check,
        .read = dcb_buffer_read,
        .apply = dcb_buffer_apply,
        .restore = dcb_buffer_restore,
};
