/* SPDX-License-Identifier: MIT */
/*
 * The DCQCN parameters a policy may set (spec.host_ecn.dcqcn), under upstream
 * mlx5_ib's debugfs names (drivers/infiniband/hw/mlx5/cong.c, mlx5_ib_dbg_cc_name[]),
 * with what a policy may ask for.
 *
 * The kernel checks no range: mlx5_ib_set_cc_params() puts the value into the
 * firmware's MODIFY_CONG_PARAMS layout with MLX5_SET, which masks it to the
 * field's width (struct mlx5_ifc_cong_control_r_roce_ecn_rp_bits / _np_bits,
 * include/linux/mlx5/mlx5_ifc.h), and MLNX_OFED's sysfs store functions do the
 * same after an unchecked sscanf("%d"). So a value out of range would be written
 * as another one, silently: nettune refuses it before anything is written.
 *
 *   1-bit fields (clamp_tgt_rate, clamp_tgt_rate_after_time_inc)   0-1
 *   ranges NVIDIA documents (DOCA "DCQCN CC Parameters": dce_tcp_g 0-1023,
 *   dce_tcp_rtt 1-131071 us, initial_alpha_value 1-1023, rpg_min_dec_fac 0-100 %,
 *   rpg_min_rate 1.. Mbit/s, rate_reduce_monitor_period 1.. us)        as documented
 *   every other field is 32 bits wide, but MLNX_OFED's sysfs files (and older
 *   kernels' debugfs, "%d" into an 11-byte buffer) parse and print it as a signed
 *   int: at most 2147483647, so that what is written reads back the same.
 *
 * Firmware defaults (an untouched ConnectX-4 Lx, `mlxconfig q`): clamp_tgt_rate 0,
 * clamp_tgt_rate_ati 1, time_reset 300, byte_reset 32767, threshold 1, max_rate 0,
 * ai_rate 5, hai_rate 50, min_dec_fac 50, min_rate 1, rate_to_set_on_first_cnp 0,
 * dce_tcp_g 1019, dce_tcp_rtt 1, rate_reduce_monitor_period 4, initial_alpha_value
 * 1023, gd 11, min_time_between_cnps 4.
 */
#include "common/util.h"
#include "policies/state/state.h"

#define INT_FIELD 2147483647u   /* a 32-bit field, read and printed as int */

const struct state_dcqcn_info state_dcqcn_params[STATE_DCQCN_MAX] = {
        [STATE_DCQCN_RP_CLAMP_TGT_RATE] = { "rp_clamp_tgt_rate", 0, 1, "",
                "1: every CNP sets the target rate to the current rate" },
        [STATE_DCQCN_RP_CLAMP_TGT_RATE_ATI] = { "rp_clamp_tgt_rate_ati", 0, 1, "",
                "1: a CNP updates the target rate also after a timer-driven increase" },
        [STATE_DCQCN_RP_TIME_RESET] = { "rp_time_reset", 0, INT_FIELD, "us",
                "time between rate increases without CNPs" },
        [STATE_DCQCN_RP_BYTE_RESET] = { "rp_byte_reset", 0, INT_FIELD, "bytes",
                "bytes sent between rate increases without CNPs (0: off)" },
        [STATE_DCQCN_RP_THRESHOLD] = { "rp_threshold", 0, INT_FIELD, "",
                "increase stages before the rate state machine advances" },
        [STATE_DCQCN_RP_MAX_RATE] = { "rp_max_rate", 0, INT_FIELD, "Mbit/s",
                "the highest rate a flow is raised to (0: the port speed)" },
        [STATE_DCQCN_RP_AI_RATE] = { "rp_ai_rate", 0, INT_FIELD, "Mbit/s",
                "additive increase step of the target rate" },
        [STATE_DCQCN_RP_HAI_RATE] = { "rp_hai_rate", 0, INT_FIELD, "Mbit/s",
                "hyper increase step of the target rate" },
        [STATE_DCQCN_RP_MIN_DEC_FAC] = { "rp_min_dec_fac", 0, 100, "%",
                "the lowest share of its rate one CNP leaves a flow" },
        [STATE_DCQCN_RP_MIN_RATE] = { "rp_min_rate", 1, INT_FIELD, "Mbit/s",
                "the lowest rate a flow is cut to" },
        [STATE_DCQCN_RP_RATE_TO_SET_ON_FIRST_CNP] = { "rp_rate_to_set_on_first_cnp", 0, INT_FIELD, "Mbit/s",
                "rate set on the first CNP (0: the port speed)" },
        [STATE_DCQCN_RP_DCE_TCP_G] = { "rp_dce_tcp_g", 0, 1023, "",
                "alpha gain g, a fraction of 1024" },
        [STATE_DCQCN_RP_DCE_TCP_RTT] = { "rp_dce_tcp_rtt", 1, 131071, "us",
                "time between alpha updates" },
        [STATE_DCQCN_RP_RATE_REDUCE_MONITOR_PERIOD] = { "rp_rate_reduce_monitor_period", 1, INT_FIELD, "us",
                "the shortest time between two rate cuts" },
        [STATE_DCQCN_RP_INITIAL_ALPHA_VALUE] = { "rp_initial_alpha_value", 1, 1023, "",
                "alpha on a flow's first CNP, a fraction of 1024" },
        [STATE_DCQCN_RP_GD] = { "rp_gd", 0, INT_FIELD, "",
                "shift between alpha and the rate cut" },
        [STATE_DCQCN_NP_MIN_TIME_BETWEEN_CNPS] = { "np_min_time_between_cnps", 0, INT_FIELD, "us",
                "the shortest time between two CNPs the notification point sends for a flow" },
};

int state_dcqcn_from_name(const char *name)
{
        for (int p = 0; p < STATE_DCQCN_MAX; p++)
                if (streq(state_dcqcn_params[p].name, name))
                        return p;
        return -EINVAL;
}
