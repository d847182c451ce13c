/* SPDX-License-Identifier: MIT */
/*
 * The headroom calculator (see headroom.h). Sources, as read:
 *
 *   [LUA]   sonic-net/sonic-swss cfgmgr/buffer_headroom_mellanox.lua
 *           @ b20a59691baca9ff6e4fbe46a7cd8223a3419117 ("[Mellanox] Compensate reduced
 *           small packet headroom", #4757: the 2 KiB xoff compensation). The one later
 *           change (422271e7, #4797) adds 18 KiB for Spectrum-6 only.
 *   [DYN]   sonic-swss cfgmgr/buffermgrdyn.cpp @ b20a5969: calculateHeadroomSize()
 *           passes speed (Mb/s), cable length, port MTU, gearbox delay and the port's
 *           lane count; getDynamicProfileName(): "for 4xxx models, 400G ports can only
 *           have 8 lanes, and for 5xxx models, 800G ports can only have 8 lanes".
 *   [ASIC]  sonic-net/sonic-buildimage platform/mellanox/asic_table.j2
 *           @ 4a9bf641220a15c2372e7b4fabcf00e82750c628 (also 086b03bd70f9; the Spectrum
 *           1-4 rows unchanged since e010d83fc3 / c2b0af89fb): cell_size,
 *           pipeline_latency, mac_phy_delay, peer_response_time (KiB).
 *   [BCFG]  sonic-buildimage files/build_templates/buffers_config.j2 @ 086b03bd70f9:
 *           LOSSLESS_TRAFFIC_PATTERN {"mtu": "1024", "small_packet_percentage": "50"};
 *           DEFAULT_LOSSLESS_BUFFER_PARAMETER has over_subscribe_ratio only when the
 *           SKU defines `shp` (so no shared headroom pool).
 *   [MLX5]  torvalds/linux drivers/net/ethernet/mellanox/mlx5/core/en/port_buffer.c
 *           @ 06449e9fba1e3f505f26f7d36e51c8127bf02192 (calculate_xoff(),
 *           update_xoff_threshold(), MINIMUM_MAX_MTU; identical @ ead5d1f4d877);
 *           en_dcbnl.c @ 84a83eba5c5a (MLX5E_BUFFER_CELL_SHIFT 7, MLX5E_MAX_CABLE_LENGTH).
 *   [UAPI]  include/uapi/linux/dcbnl.h (iproute2 @ ee2a4a86625688d8): struct ieee_pfc
 *           "@delay: the allowance made for a round-trip propagation delay of the link
 *           in bits", __u16.
 *
 * The Lua's arithmetic is Lua 5.1 numbers (IEEE doubles) in the order it is written;
 * the same order is kept here, so the results are the Lua's to the byte.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>

#include "common/util.h"
#include "policies/state/headroom.h"

/* [ASIC] one row per generation (pipeline_latency, mac_phy_delay, peer_response_time in KiB). */
static const struct spectrum_row {
        const char *name;
        char key_last;                          /* last character of "ASIC_TABLE:MELLANOX-SPECTRUM[-N]" */
        unsigned cell_size;
        double pipeline_latency_kib, mac_phy_delay_kib, peer_response_time_kib;
        unsigned eight_lane_speed_gbps;         /* [DYN] the speed whose ports only have 8 lanes; 0 none */
} spectrum[] = {
        [HEADROOM_SPECTRUM1] = { "spectrum1", 'M', 96, 19, 0.8, 3.8, 0 },
        [HEADROOM_SPECTRUM2] = { "spectrum2", '2', 144, 19, 0.8, 3.8, 0 },
        [HEADROOM_SPECTRUM3] = { "spectrum3", '3', 144, 19, 0.8, 3.8, 400 },    /* SN4xxx */
        [HEADROOM_SPECTRUM4] = { "spectrum4", '4', 192, 19, 0.8, 3.8, 800 },    /* SN5400, SN5600 */
};

/* [LUA] pause_quanta_per_speed ("IEEE 802.3 31B.3.7"), keyed by Mb/s. */
static const struct {
        unsigned speed_mbps;
        unsigned quanta;
} pause_quanta[] = {
        { 800000, 905 }, { 400000, 905 }, { 200000, 453 }, { 100000, 394 }, { 50000, 147 },
        { 40000, 118 }, { 25000, 80 }, { 10000, 67 }, { 1000, 2 }, { 100, 1 },
};

#define SPEED_OF_LIGHT 198000000.0      /* [LUA] speed_of_light (m/s in fibre) */
#define MINIMAL_PACKET_SIZE 64.0        /* [LUA] minimal_packet_size */
#define HEADROOM_COMPENSATION 2048.0    /* [LUA] headroom_compensation = 2 * 1024 (b20a5969) */
#define LOSSLESS_MTU_DEFAULT 1024       /* [BCFG] LOSSLESS_TRAFFIC_PATTERN mtu */
#define SMALL_PACKET_PCT_DEFAULT 50     /* [BCFG] LOSSLESS_TRAFFIC_PATTERN small_packet_percentage */
#define MLX5_SPEED_FLOOR_MBPS 40000     /* [MLX5] calculate_xoff(): max_t(u32, speed, SPEED_40000) */
#define MLX5_MINIMUM_MAX_MTU 9216       /* [MLX5] #define MINIMUM_MAX_MTU 9216 */

static const char *const asic_names[HEADROOM_ASIC_MAX] = {
        "spectrum1", "spectrum2", "spectrum3", "spectrum4", "connectx",
};

/* Kernel driver names: mlx5_core; mlxsw spectrum.c mlxsw_sp{1,2,3,4}_driver_name. */
static const struct {
        const char *driver;
        enum headroom_asic asic;
} drivers[] = {
        { "mlx5_core", HEADROOM_CONNECTX }, { "mlxsw_spectrum", HEADROOM_SPECTRUM1 },
        { "mlxsw_spectrum2", HEADROOM_SPECTRUM2 }, { "mlxsw_spectrum3", HEADROOM_SPECTRUM3 },
        { "mlxsw_spectrum4", HEADROOM_SPECTRUM4 },
};

const char *headroom_asic_name(enum headroom_asic a)
{
        return (unsigned)a < HEADROOM_ASIC_MAX ? asic_names[a] : "unknown";
}

int headroom_asic_from_name(const char *name)
{
        for (int a = 0; a < HEADROOM_ASIC_MAX; a++)
                if (name && streq(asic_names[a], name))
                        return a;
        return -EINVAL;
}

int headroom_asic_of_driver(const char *kernel_driver)
{
        for (size_t i = 0; i < ARRAY_SIZE(drivers); i++)
                if (kernel_driver && streq(drivers[i].driver, kernel_driver))
                        return (int)drivers[i].asic;
        return -ENOENT;
}

unsigned headroom_cell_bytes(enum headroom_asic a)
{
        if (a == HEADROOM_CONNECTX)
                return HEADROOM_CONNECTX_CELL;
        return (unsigned)a < ARRAY_SIZE(spectrum) ? spectrum[a].cell_size : 0;
}

void headroom_input_init(struct headroom_input *in, enum headroom_asic asic)
{
        *in = (struct headroom_input){
                .asic = asic,
                .lossless_mtu = LOSSLESS_MTU_DEFAULT,
                .small_packet_pct = SMALL_PACKET_PCT_DEFAULT,
                .max_mtu = MLX5_MINIMUM_MAX_MTU,
        };
}

/* ---- input ranges ---- */

static int bad(struct headroom_problem *why, const char *input, const char *fmt, ...) _printf_(3, 4);
static int bad(struct headroom_problem *why, const char *input, const char *fmt, ...)
{
        va_list ap;

        why->input = input;
        va_start(ap, fmt);
        vsnprintf(why->msg, sizeof(why->msg), fmt, ap);
        va_end(ap);
        return -EINVAL;
}

static bool valid_lanes(unsigned lanes)
{
        return lanes == 0 || lanes == 1 || lanes == 2 || lanes == 4 || lanes == 8;
}

static int check_input(const struct headroom_input *in, struct headroom_problem *why)
{
        bool cx = in->asic == HEADROOM_CONNECTX;
        unsigned cable_max = cx ? HEADROOM_CONNECTX_CABLE_MAX_M : HEADROOM_CABLE_MAX_M;
        unsigned mtu_max = cx && in->max_mtu > HEADROOM_MTU_MAX ? in->max_mtu : HEADROOM_MTU_MAX;

        if ((unsigned)in->asic >= HEADROOM_ASIC_MAX)
                return bad(why, "asic", "asic %u unknown", (unsigned)in->asic);
        if (in->speed_gbps < 1 || in->speed_gbps > HEADROOM_SPEED_MAX_GBPS)
                return bad(why, "speed_gbps", "speed %u Gb/s out of range 1-%u", in->speed_gbps,
                           HEADROOM_SPEED_MAX_GBPS);
        if (in->cable_m < 1 || in->cable_m > cable_max)
                return bad(why, "cable_m", "cable length %u m out of range 1-%u%s", in->cable_m, cable_max,
                           cx ? " (mlx5 ignores a longer one: en_dcbnl.c MLX5E_MAX_CABLE_LENGTH)" : "");
        if (cx && (in->max_mtu < HEADROOM_MTU_MIN || in->max_mtu > 65535))
                return bad(why, "max_mtu", "max_mtu %u out of range %u-65535", in->max_mtu, HEADROOM_MTU_MIN);
        /* a ConnectX port goes up to its netdev->max_mtu (9978 on mlx5), calculate_xoff() takes any */
        if (in->mtu < HEADROOM_MTU_MIN || in->mtu > mtu_max)
                return bad(why, "mtu", "mtu %u out of range %u-%u%s", in->mtu, HEADROOM_MTU_MIN, mtu_max,
                           cx ? " (the port's max_mtu)" : "");
        if (!cx && !valid_lanes(in->lanes))
                return bad(why, "lanes", "lane count %u is not 1, 2, 4 or 8", in->lanes);
        if (!cx && (in->lossless_mtu < 1 || in->lossless_mtu > HEADROOM_MTU_MAX))
                return bad(why, "lossless_mtu", "lossless mtu %u out of range 1-%u", in->lossless_mtu,
                           HEADROOM_MTU_MAX);
        if (!cx && in->small_packet_pct > 100)
                return bad(why, "small_packet_pct", "small packet percentage %u out of range 0-100",
                           in->small_packet_pct);
        return 0;
}

/* ---- Spectrum: [LUA] line by line ---- */

static double ceil_kib(double x)
{
        return ceil(x / 1024) * 1024;           /* [LUA] math.ceil(x / 1024) * 1024 */
}

/* [LUA] peer_response_time: pause quanta of 512 bit times when the speed has a row, else the ASIC's. */
static double peer_response_time(const struct spectrum_row *row, double port_speed)
{
        for (size_t i = 0; i < ARRAY_SIZE(pause_quanta); i++)
                if (port_speed == (double)pause_quanta[i].speed_mbps)
                        return pause_quanta[i].quanta * 512.0 / 8;
        return row->peer_response_time_kib * 1024;
}

/* [LUA] worst_case_factor and cell_occupancy. */
static void cell_factors(const struct spectrum_row *row, double spp, double lossless_mtu, double *ret_wcf,
                         double *ret_occupancy)
{
        double cell_size = row->cell_size, wcf, sppb;

        if (cell_size > 2 * MINIMAL_PACKET_SIZE)
                wcf = cell_size / MINIMAL_PACKET_SIZE;
        else
                wcf = (2 * cell_size) / (1 + cell_size);
        wcf = ceil(wcf);
        sppb = 100 * MINIMAL_PACKET_SIZE / ((spp * MINIMAL_PACKET_SIZE + (100 - spp) * lossless_mtu) / 100);
        *ret_wcf = wcf;
        *ret_occupancy = (100 - sppb + sppb * wcf) / 100;
}

static unsigned spectrum_lanes(const struct headroom_input *in)
{
        if (in->lanes)
                return in->lanes;
        return spectrum[in->asic].eight_lane_speed_gbps == in->speed_gbps ? 8 : 4;
}

static void spectrum_calc(const struct headroom_input *in, struct headroom *ret)
{
        const struct spectrum_row *row = &spectrum[in->asic];
        double port_speed = in->speed_gbps * 1000.0, cable_length = in->cable_m, port_mtu = in->mtu;
        double lossless_mtu = in->lossless_mtu, spp = in->small_packet_pct;
        double pipeline_latency = row->pipeline_latency_kib * 1024, mac_phy_delay = row->mac_phy_delay_kib * 1024;
        double kb_on_tile = 0, speed_overhead = 0, wcf, occupancy, bytes_on_cable, propagation_delay, xoff, xon;
        unsigned lanes = spectrum_lanes(in);

        if (row->key_last == '4' || row->key_last == '5')       /* Spectrum-4 and -5 */
                kb_on_tile = port_speed / 1000 * 120 / 8;
        if (lanes == 8) {                                       /* [LUA] "Adjustment for 8-lane port" */
                pipeline_latency = pipeline_latency * 2;
                speed_overhead = port_mtu;
        }
        cell_factors(row, spp, lossless_mtu, &wcf, &occupancy);
        /* no gearbox: bytes_on_gearbox = 0 */
        bytes_on_cable = 2 * cable_length * port_speed * 1000000000 / SPEED_OF_LIGHT / (8 * 1000);
        propagation_delay = port_mtu + bytes_on_cable + mac_phy_delay + peer_response_time(row, port_speed) +
                            kb_on_tile;
        xoff = ceil_kib(lossless_mtu + propagation_delay * occupancy);
        /* no shared headroom pool: the compensation applies unless small packets are 100% */
        if (!in->no_compensation && in->small_packet_pct != 100 &&
            xoff + HEADROOM_COMPENSATION < ceil_kib(lossless_mtu + propagation_delay * wcf))
                xoff = xoff + HEADROOM_COMPENSATION;
        xon = ceil_kib(pipeline_latency);
        *ret = (struct headroom){ .xoff_bytes = (uint32_t)xoff, .xon_bytes = (uint32_t)xon,
                                  .size_bytes = (uint32_t)ceil_kib(xoff + xon + speed_overhead), .lanes = lanes };
}

/* ---- ConnectX: [MLX5] ---- */

uint32_t headroom_mlx5_xoff(uint32_t speed_mbps, uint32_t cable_m, uint32_t mtu)
{
        uint32_t speed = speed_mbps > MLX5_SPEED_FLOOR_MBPS ? speed_mbps : MLX5_SPEED_FLOOR_MBPS;

        /* xoff = ((301+2.16 * len [m]) * speed [Gbps] + 2.72 MTU [B]), u32 left to right */
        return (301 + 216 * cable_m / 100) * speed / 1000 + 272 * mtu / 100;
}

/*
 * xon = max_mtu (the driver's xon_threshold = xoff_threshold - max_mtu); size = the
 * smallest whole number of cells that update_xoff_threshold() accepts for a lossless
 * buffer: size >= xoff + max_mtu + port_buff_cell_sz.
 */
static void connectx_calc(const struct headroom_input *in, struct headroom *ret)
{
        uint32_t xoff = headroom_mlx5_xoff(in->speed_gbps * 1000, in->cable_m, in->mtu);
        uint32_t max_mtu = in->max_mtu > MLX5_MINIMUM_MAX_MTU ? in->max_mtu : MLX5_MINIMUM_MAX_MTU;
        uint32_t need = xoff + max_mtu + HEADROOM_CONNECTX_CELL;

        *ret = (struct headroom){
                .xoff_bytes = xoff, .xon_bytes = max_mtu,
                .size_bytes = (need + HEADROOM_CONNECTX_CELL - 1) / HEADROOM_CONNECTX_CELL * HEADROOM_CONNECTX_CELL,
        };
}

int headroom_calc(const struct headroom_input *in, struct headroom *ret, struct headroom_problem *why)
{
        int r = check_input(in, why);

        if (r < 0)
                return r;
        if (in->asic == HEADROOM_CONNECTX)
                connectx_calc(in, ret);
        else
                spectrum_calc(in, ret);
        return 0;
}

/* ---- the PFC delay in bits [UAPI] ---- */

uint64_t headroom_delay_bits(uint32_t speed_mbps, unsigned cable_m)
{
        /* bits in flight on the cable, both ways, at the Lua's speed of light in fibre */
        return (uint64_t)ceil(2.0 * cable_m * speed_mbps * 1e6 / SPEED_OF_LIGHT);
}

unsigned headroom_delay_max_cable_m(uint32_t speed_mbps)
{
        unsigned m = headroom_delay_cable_m(speed_mbps, HEADROOM_DELAY_BITS_MAX);

        /* the cable that gives at least the maximum may give more than it */
        return headroom_delay_bits(speed_mbps, m) > HEADROOM_DELAY_BITS_MAX ? m - 1 : m;
}

unsigned headroom_delay_cable_m(uint32_t speed_mbps, uint32_t bits)
{
        unsigned m;

        if (!speed_mbps || !bits)
                return 0;
        /* the closed form, then the exact step: headroom_delay_bits() rounds up */
        m = (unsigned)floor((double)bits * SPEED_OF_LIGHT / (2.0 * speed_mbps * 1e6));
        while (m > 0 && headroom_delay_bits(speed_mbps, m) >= bits)
                m--;
        while (headroom_delay_bits(speed_mbps, m) < bits)
                m++;
        return m;
}
