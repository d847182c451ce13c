/* SPDX-License-Identifier: MIT */
/* The DCQCN parameters' files in debugfs cc_params and in MLNX_OFED's ecn tree (ecn_dcqcn.h). */
#include <stddef.h>

#include "drivers/host/ecn_dcqcn.h"

/*
 * MLNX_OFED (en_sysfs.c): roce_rp holds 16 files named as the firmware's NV
 * configuration (RPG_TIME_RESET <-> rpg_time_reset), roce_np min_time_between_cnps;
 * the debugfs names are the policy's own (state_dcqcn_params[].name).
 */
static const char *const ofed_files[STATE_DCQCN_MAX] = {
        [STATE_DCQCN_RP_CLAMP_TGT_RATE] = "roce_rp/clamp_tgt_rate",
        [STATE_DCQCN_RP_CLAMP_TGT_RATE_ATI] = "roce_rp/clamp_tgt_rate_after_time_inc",
        [STATE_DCQCN_RP_TIME_RESET] = "roce_rp/rpg_time_reset",
        [STATE_DCQCN_RP_BYTE_RESET] = "roce_rp/rpg_byte_reset",
        [STATE_DCQCN_RP_THRESHOLD] = "roce_rp/rpg_threshold",
        [STATE_DCQCN_RP_MAX_RATE] = "roce_rp/rpg_max_rate",
        [STATE_DCQCN_RP_AI_RATE] = "roce_rp/rpg_ai_rate",
        [STATE_DCQCN_RP_HAI_RATE] = "roce_rp/rpg_hai_rate",
        [STATE_DCQCN_RP_MIN_DEC_FAC] = "roce_rp/rpg_min_dec_fac",
        [STATE_DCQCN_RP_MIN_RATE] = "roce_rp/rpg_min_rate",
        [STATE_DCQCN_RP_RATE_TO_SET_ON_FIRST_CNP] = "roce_rp/rate_to_set_on_first_cnp",
        [STATE_DCQCN_RP_DCE_TCP_G] = "roce_rp/dce_tcp_g",
        [STATE_DCQCN_RP_DCE_TCP_RTT] = "roce_rp/dce_tcp_rtt",
        [STATE_DCQCN_RP_RATE_REDUCE_MONITOR_PERIOD] = "roce_rp/rate_reduce_monitor_period",
        [STATE_DCQCN_RP_INITIAL_ALPHA_VALUE] = "roce_rp/initial_alpha_value",
        [STATE_DCQCN_RP_GD] = "roce_rp/rpg_gd",
        [STATE_DCQCN_NP_MIN_TIME_BETWEEN_CNPS] = "roce_np/min_time_between_cnps",
};

const char *ecn_dcqcn_file(unsigned p, bool ofed)
{
        if (p >= STATE_DCQCN_MAX)
                return NULL;
        return ofed ? ofed_files[p] : state_dcqcn_params[p].name;
}
