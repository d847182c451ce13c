/* SPDX-License-Identifier: MIT */
/*
 * The PFC headroom calculator: how many bytes a lossless priority's buffer must
 * hold for a port of a given speed, MTU and cable length, by the formulas the
 * devices themselves use (headroom.c cites the file and commit of every constant):
 *
 *   spectrum1..4   NVIDIA Spectrum switches as SONiC's dynamic buffer model sizes
 *                  them: sonic-swss cfgmgr/buffer_headroom_mellanox.lua (with the
 *                  2 KiB xoff compensation), sonic-buildimage asic_table.j2 and the
 *                  defaults of buffers_config.j2 (lossless MTU 1024, small packets
 *                  50%, no shared headroom pool, no gearbox)
 *   connectx       NVIDIA ConnectX NICs as the mlx5 driver sizes a lossless
 *                  receive buffer (en/port_buffer.c calculate_xoff(),
 *                  update_xoff_threshold())
 *
 * Pure: no device, no I/O. The controller's `nettunectl headroom`, the policy and
 * driver checks and doctor's headroom_insufficient all use it.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

enum headroom_asic {
        HEADROOM_SPECTRUM1,
        HEADROOM_SPECTRUM2,
        HEADROOM_SPECTRUM3,
        HEADROOM_SPECTRUM4,
        HEADROOM_CONNECTX,
        HEADROOM_ASIC_MAX,
};

#define HEADROOM_SPEED_MAX_GBPS 800
#define HEADROOM_CABLE_MAX_M 3000
#define HEADROOM_MTU_MIN 68
#define HEADROOM_MTU_MAX 9216
#define HEADROOM_CONNECTX_CABLE_MAX_M 999      /* mlx5 ignores a longer one (en_dcbnl.c MLX5E_MAX_CABLE_LENGTH) */
#define HEADROOM_CONNECTX_CELL 128              /* mlx5 port buffer cell (en_dcbnl.c MLX5E_BUFFER_CELL_SHIFT) */
#define HEADROOM_DELAY_BITS_MAX 65535           /* struct ieee_pfc.delay is a __u16 */

struct headroom_input {
        enum headroom_asic asic;
        unsigned speed_gbps;                    /* 1-800 */
        unsigned cable_m;                       /* 1-3000; connectx 1-999 */
        unsigned mtu;                           /* the port MTU, 68-9216; connectx up to max_mtu */
        /* spectrum only */
        unsigned lanes;                         /* 1, 2, 4 or 8; 0 = 8 for spectrum3 at 400G and
                                                   spectrum4 at 800G, else 4 */
        unsigned lossless_mtu;                  /* LOSSLESS_TRAFFIC_PATTERN mtu, 1-9216 */
        unsigned small_packet_pct;              /* LOSSLESS_TRAFFIC_PATTERN small_packet_percentage, 0-100 */
        bool no_compensation;                   /* the algorithm before the 2 KiB compensation (published
                                                   figures of sonic-swss#3235 predate it) */
        /* connectx only */
        unsigned max_mtu;                       /* netdev->max_mtu (the driver uses at least 9216) */
};

struct headroom {
        uint32_t xoff_bytes;                    /* room for what arrives after XOFF is sent */
        uint32_t xon_bytes;                     /* spectrum: the pipeline; connectx: max(max_mtu, 9216) */
        uint32_t size_bytes;                    /* the lossless buffer (headroom) size */
        unsigned lanes;                         /* spectrum: the lane count used; connectx: 0 */
};

/* What is wrong with an input: its name ("speed_gbps", "cable_m", "mtu", "lanes", ...) and why. */
struct headroom_problem {
        const char *input;
        char msg[160];
};

/* The defaults above for asic, with speed, cable and mtu 0 (to be filled). */
void headroom_input_init(struct headroom_input *in, enum headroom_asic asic);

/* 0 and *ret, or -EINVAL with *why (the input out of range; nothing computed). */
int headroom_calc(const struct headroom_input *in, struct headroom *ret, struct headroom_problem *why);

/* "spectrum1".."spectrum4", "connectx"; from_name: the enum value or -EINVAL. */
const char *headroom_asic_name(enum headroom_asic a);
int headroom_asic_from_name(const char *name);

/*
 * The ASIC behind a kernel driver: mlx5_core -> connectx, mlxsw_spectrum ->
 * spectrum1, mlxsw_spectrum2..4 -> spectrum2..4; -ENOENT for any other.
 */
int headroom_asic_of_driver(const char *kernel_driver);

/* The ASIC's buffer cell in bytes (asic_table.j2 cell_size; mlx5 128). */
unsigned headroom_cell_bytes(enum headroom_asic a);

/*
 * A cable's round trip in bits at a speed: 2 * length * speed / (speed of light in
 * fibre), rounded up — what struct ieee_pfc.delay means ("the allowance made for a
 * round-trip propagation delay of the link in bits", include/uapi/linux/dcbnl.h).
 * Above HEADROOM_DELAY_BITS_MAX the delay cannot be expressed.
 */
uint64_t headroom_delay_bits(uint32_t speed_mbps, unsigned cable_m);
/* The longest cable whose delay fits in HEADROOM_DELAY_BITS_MAX at that speed (Mb/s > 0). */
unsigned headroom_delay_max_cable_m(uint32_t speed_mbps);
/* The shortest cable whose delay is at least `bits` at that speed (Mb/s > 0): the inverse for read-back. */
unsigned headroom_delay_cable_m(uint32_t speed_mbps, uint32_t bits);

/*
 * mlx5's xoff (calculate_xoff()), the driver's u32 arithmetic: speed in Mb/s
 * (at least 40000), cable in metres, the netdev MTU.
 */
uint32_t headroom_mlx5_xoff(uint32_t speed_mbps, uint32_t cable_m, uint32_t mtu);
