#!/usr/bin/env python3
"""Reference implementation of the nettune headroom calculator.

Written from upstream sources (read, not executed):

  [LUA]  sonic-net/sonic-swss  cfgmgr/buffer_headroom_mellanox.lua
         @ b20a59691baca9ff6e4fbe46a7cd8223a3419117  (PR #4757, 2026-07-28,
         "[Mellanox] Compensate reduced small packet headroom" -- adds the 2 KiB
         xoff compensation).  The later commit 422271e7 (PR #4797) only adds an
         18 KiB term for Spectrum-6 and does not change spectrum1..4.
  [DYN]  sonic-net/sonic-swss  cfgmgr/buffermgrdyn.cpp @ b20a5969
         (getDynamicProfileName: 8-lane naming; calculateHeadroomSize: ARGV)
  [ASIC] sonic-net/sonic-buildimage platform/mellanox/asic_table.j2
         @ 086b03bd70f9e211aaaf5f6aefe0790b508d2a94 (last touched fb4dee11, 2026-04-16)
  [BCFG] sonic-net/sonic-buildimage files/build_templates/buffers_config.j2
         @ 086b03bd (LOSSLESS_TRAFFIC_PATTERN mtu 1024 / small_packet_percentage 50;
         DEFAULT_LOSSLESS_BUFFER_PARAMETER has over_subscribe_ratio only if `shp`
         is defined -> SHP off by default)
  [MLX5] torvalds/linux drivers/net/ethernet/mellanox/mlx5/core/en/port_buffer.c
         stored versions 06449e9fba1e3f505f26f7d36e51c8127bf02192 and
         ead5d1f4d877e92c051e1a1ade623d0d30e71619 (calculate_xoff and
         update_xoff_threshold are identical in both); en_dcbnl.c
         @ 84a83eba5c5aba8d3186830f94ee5c3c8b0ef23e (MLX5E_BUFFER_CELL_SHIFT 7,
         MLX5E_MAX_CABLE_LENGTH 1000); en/port_buffer.h @ 313267e5
         (MLX5E_DEFAULT_CABLE_LEN 7).

All outputs are integers (bytes).
"""
import math

# ---------------------------------------------------------------------------
# Spectrum (SONiC dynamic buffer model, Mellanox Lua plugin)
# ---------------------------------------------------------------------------

# [ASIC] asic_table.j2 lines 65-112. pipeline_latency / mac_phy_delay /
# peer_response_time are in KiB there; [LUA] lines 70-79 multiply by 1024.
ASIC_TABLE = {
    # name         ASIC_TABLE key              cell  pipeline mac_phy peer_resp
    "spectrum1": ("MELLANOX-SPECTRUM",    96,  19, 0.8, 3.8),
    "spectrum2": ("MELLANOX-SPECTRUM-2", 144,  19, 0.8, 3.8),
    "spectrum3": ("MELLANOX-SPECTRUM-3", 144,  19, 0.8, 3.8),
    "spectrum4": ("MELLANOX-SPECTRUM-4", 192,  19, 0.8, 3.8),
}

# [LUA] lines 38-51: IEEE 802.3 31B.3.7 pause quanta per speed (key Mb/s).
PAUSE_QUANTA_PER_SPEED = {
    800000: 905, 400000: 905, 200000: 453, 100000: 394,
    50000: 147, 40000: 118, 25000: 80, 10000: 67, 1000: 2, 100: 1,
}

SPEED_OF_LIGHT = 198000000      # [LUA] line 119 (m/s in fibre, ~0.66c)
MINIMAL_PACKET_SIZE = 64        # [LUA] line 120
HEADROOM_COMPENSATION = 2 * 1024  # [LUA] line 121 (added by b20a5969)

DEFAULT_LOSSLESS_MTU = 1024     # [BCFG] LOSSLESS_TRAFFIC_PATTERN|AZURE mtu
DEFAULT_SMALL_PKT_PCT = 50      # [BCFG] LOSSLESS_TRAFFIC_PATTERN|AZURE small_packet_percentage


def _ceil_kib(x):
    # [LUA] math.ceil(x / 1024) * 1024 (Lua numbers are IEEE doubles, as Python floats)
    return math.ceil(x / 1024) * 1024


def default_8lane(asic, speed_gbps):
    """The default lane rule: 8 lanes only for spectrum3@400G and spectrum4@800G.

    Upstream the Lua receives ARGV[5] = lane count of the port ([DYN]
    calculateHeadroomSize pushes headroom.lane_count, counted from PORT|lanes);
    on SN4xxx 400G and SN5xxx 800G ports are always 8-lane ([DYN] comment in
    getDynamicProfileName), which is what this default encodes.
    """
    return (asic == "spectrum3" and speed_gbps == 400) or \
           (asic == "spectrum4" and speed_gbps == 800)


def spectrum_headroom(asic, speed_gbps, cable_m, port_mtu,
                      lossless_mtu=DEFAULT_LOSSLESS_MTU,
                      small_packet_percentage=DEFAULT_SMALL_PKT_PCT,
                      shp_enabled=False, gearbox_delay=0, eight_lane=None,
                      compensation=True,
                      asic_override=None, use_pause_quanta=True,
                      cable_divisor=8 * 1000, ceil_worst_case=True,
                      byte_based_pct=True, kb_on_tile_enabled=True,
                      legacy_8lane_minus_1k=False):
    """Port of buffer_headroom_mellanox.lua @ b20a5969.

    The trailing keyword arguments (asic_override ... legacy_8lane_minus_1k) exist
    only to reproduce *older* upstream variants for cross-checking against
    historical pg_profile_lookup.ini tables; leave them at their defaults.
    Returns dict(xoff=, xon=, size=) in bytes.
    """
    key, cell_size, pl_kib, mpd_kib, prt_kib = ASIC_TABLE[asic]
    if asic_override:
        cell_size, pl_kib, mpd_kib, prt_kib = asic_override
    port_speed = speed_gbps * 1000                     # ARGV[1] is Mb/s (e.g. "100000")
    pipeline_latency = pl_kib * 1024                   # [LUA] l.71
    mac_phy_delay = mpd_kib * 1024                     # [LUA] l.74
    pause_quanta = PAUSE_QUANTA_PER_SPEED.get(port_speed) if use_pause_quanta else None
    peer_response_time = prt_kib * 1024 if pause_quanta is None else None  # [LUA] l.77-78

    # [LUA] l.82-87: kB on tile for Spectrum-4/5 (ASIC_TABLE key ends in 4 or 5)
    kb_on_tile = 0
    if kb_on_tile_enabled and key[-1] in ("4", "5"):
        kb_on_tile = port_speed / 1000 * 120 / 8

    is_8lane = default_8lane(asic, speed_gbps) if eight_lane is None else eight_lane
    # [LUA] l.132-138
    if is_8lane:
        # before 3943093d the Lua had `pipeline_latency * 2 - 1024`
        pipeline_latency = pipeline_latency * 2 - (1024 if legacy_8lane_minus_1k else 0)
        speed_overhead = port_mtu
    else:
        speed_overhead = 0

    # [LUA] l.140-145
    if cell_size > 2 * MINIMAL_PACKET_SIZE:
        worst_case_factor = cell_size / MINIMAL_PACKET_SIZE
    else:
        worst_case_factor = (2 * cell_size) / (1 + cell_size)
    if ceil_worst_case:
        worst_case_factor = math.ceil(worst_case_factor)

    spp = small_packet_percentage
    if byte_based_pct:
        # [LUA] l.147-148 (byte-based since 3943093d / PR #3235)
        spp_by_byte = 100 * MINIMAL_PACKET_SIZE / (
            (spp * MINIMAL_PACKET_SIZE + (100 - spp) * lossless_mtu) / 100)
    else:
        spp_by_byte = spp                              # pre-3943093d behaviour
    cell_occupancy = (100 - spp_by_byte + spp_by_byte * worst_case_factor) / 100

    # [LUA] l.150-154 (gearbox; 0 for nettune)
    bytes_on_gearbox = 0 if gearbox_delay == 0 else port_speed * gearbox_delay / (8 * 1024)

    # [LUA] l.157-159
    if pause_quanta is not None:
        peer_response_time = pause_quanta * 512 / 8

    # [LUA] l.161-162
    bytes_on_cable = 2 * cable_m * port_speed * 1000000000 / SPEED_OF_LIGHT / cable_divisor
    propagation_delay = (port_mtu + bytes_on_cable + 2 * bytes_on_gearbox +
                         mac_phy_delay + peer_response_time + kb_on_tile)

    # [LUA] l.165-166
    xoff = lossless_mtu + propagation_delay * cell_occupancy
    xoff = _ceil_kib(xoff)

    # [LUA] l.168-176: 2 KiB compensation (b20a5969)
    if compensation and not shp_enabled and spp != 100:
        full = lossless_mtu + propagation_delay * worst_case_factor
        full = _ceil_kib(full)
        if xoff + HEADROOM_COMPENSATION < full:
            xoff = xoff + HEADROOM_COMPENSATION

    # [LUA] l.178-186
    xon = _ceil_kib(pipeline_latency)
    size = xon if shp_enabled else xoff + xon + speed_overhead
    size = _ceil_kib(size)
    return {"xoff": int(math.ceil(xoff)), "xon": int(math.ceil(xon)),
            "size": int(math.ceil(size))}


def sonic_profile_name(speed_gbps, cable_m, port_mtu, model_number=None, lane_count=4,
                       default_mtu=9100):
    """[DYN] getDynamicProfileName (threshold/gearbox suffixes omitted)."""
    speed = str(speed_gbps * 1000)
    name = "pg_lossless_%s_%dm" % (speed, cable_m)
    if port_mtu != default_mtu:                 # DEFAULT_MTU_STR "9100" (buffermgrdyn.h:16)
        name += "_mtu%d" % port_mtu
    if model_number and lane_count == 8 and (
            (model_number // 1000 == 4 and speed != "400000") or
            (model_number // 1000 == 5 and speed != "800000")):
        name += "_8lane"
    return name + "_profile"


# ---------------------------------------------------------------------------
# ConnectX (mlx5 driver, manual buffer mode)
# ---------------------------------------------------------------------------

MLX5E_BUFFER_CELL_SIZE = 1 << 7   # en_dcbnl.c: MLX5E_BUFFER_CELL_SHIFT 7 (fallback when
                                  # SBCAM not supported; else FW cap_cell_size)
MINIMUM_MAX_MTU = 9216            # port_buffer.c: #define MINIMUM_MAX_MTU 9216
MLX5E_DEFAULT_CABLE_LEN = 7       # en/port_buffer.h
MLX5E_MAX_CABLE_LENGTH = 1000     # en_dcbnl.c: accepted iff 0 < delay < 1000
SPEED_40000 = 40000               # calculate_xoff: speed floor (Mb/s)
U32 = 0xFFFFFFFF


def mlx5_calculate_xoff(speed_gbps, cable_m, mtu):
    """port_buffer.c calculate_xoff(): all u32 integer arithmetic, left to right.

    xoff = (301 + 216 * cable_len / 100) * speed / 1000 + 272 * mtu / 100
    speed = max(link speed in Mb/s, SPEED_40000)
    """
    speed = max(speed_gbps * 1000, SPEED_40000)
    a = (301 + (216 * cable_m) // 100) & U32
    a = ((a * speed) & U32) // 1000
    b = ((272 * mtu) & U32) // 100
    return (a + b) & U32


def connectx_headroom(speed_gbps, cable_m, mtu, max_mtu=9216, cell=MLX5E_BUFFER_CELL_SIZE):
    """xoff  = calculate_xoff(); xon = max(netdev->max_mtu, 9216);
    size = smallest multiple of `cell` with size >= xoff + max_mtu + cell
    (update_xoff_threshold rejects size < xoff + max_mtu + port_buff_cell_sz).
    The driver then programs xoff_threshold = size - xoff and
    xon_threshold = xoff_threshold - max_mtu (both floor-divided into cells
    by port_set_buffer)."""
    xoff = mlx5_calculate_xoff(speed_gbps, cable_m, mtu)
    xon = max(max_mtu, MINIMUM_MAX_MTU)
    need = xoff + xon + cell
    size = -(-need // cell) * cell
    return {"xoff": xoff, "xon": xon, "size": size,
            "xoff_threshold": size - xoff, "xon_threshold": size - xoff - xon}


ASICS = ["spectrum1", "spectrum2", "spectrum3", "spectrum4", "connectx"]


def headroom(asic, speed_gbps, cable_m, mtu):
    if asic == "connectx":
        r = connectx_headroom(speed_gbps, cable_m, mtu)
        return {"xoff": r["xoff"], "xon": r["xon"], "size": r["size"]}
    return spectrum_headroom(asic, speed_gbps, cable_m, mtu)


# The table tests/data/headroom/reference.tsv: every ASIC over a grid of speeds, cable
# lengths and MTUs at the defaults, then the spectrum knobs one at a time.
SPEEDS = [1, 10, 25, 40, 50, 56, 100, 200, 400, 800]
CABLES = [1, 2, 3, 5, 7, 10, 15, 20, 30, 40, 50, 75, 100, 150, 200, 250, 300]
MTUS = [68, 1500, 4200, 9000, 9100, 9216]
VARIANTS = [  # lanes (0 = the default rule), small packet %, lossless MTU
    (8, 50, 1024), (4, 50, 1024), (2, 50, 1024), (0, 100, 1024), (0, 0, 1024),
    (0, 50, 4096), (0, 75, 2048),
]


def row(asic, s, c, m, lanes=0, spp=DEFAULT_SMALL_PKT_PCT, lmtu=DEFAULT_LOSSLESS_MTU):
    if asic == "connectx":
        r = connectx_headroom(s, c, m)
    else:
        r = spectrum_headroom(asic, s, c, m, lossless_mtu=lmtu, small_packet_percentage=spp,
                              eight_lane=None if lanes == 0 else lanes == 8)
    return "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d" % (
        asic, s, c, m, lanes, spp, lmtu, r["xoff"], r["xon"], r["size"])


def table():
    print("# asic\tspeed_gbps\tcable_m\tmtu\tlanes\tsmall_packet_pct\tlossless_mtu\txoff\txon\tsize")
    for asic in ASICS:
        for s in SPEEDS:
            for c in CABLES:
                for m in MTUS:
                    print(row(asic, s, c, m))
    for asic in ASICS[:4]:
        for lanes, spp, lmtu in VARIANTS:
            for s in SPEEDS:
                for c in (1, 40, 300):
                    print(row(asic, s, c, 9100, lanes, spp, lmtu))


if __name__ == "__main__":
    table()
