/* SPDX-License-Identifier: MIT */
/*
 * Where each DCQCN parameter of spec.host_ecn.dcqcn (policies/state/state.h, enum
 * state_dcqcn_param) lives on an mlx5 NIC, in both layouts the "nic-ecn" driver
 * (ecn_sysfs.c) serves, relative to its directory:
 *
 *   upstream debugfs   DEBUGFS/mlx5/PCI/cc_params/NAME, NAME as the policy's
 *                      (drivers/infiniband/hw/mlx5/cong.c, mlx5_ib_dbg_cc_name[])
 *   MLNX_OFED sysfs    class/net/IF/ecn/roce_rp/rpg_* etc. and roce_np/min_time_between_cnps
 *                      (mlx5/core/en_sysfs.c, mlx5e_fill_rp_attributes(), mlx5e_fill_np_attributes())
 *
 * Both are live firmware reads and writes (QUERY/MODIFY_CONG_PARAMS), one value per
 * file in decimal. A kernel without a parameter (4.x debugfs has no rp_max_rate nor
 * np_min_time_between_cnps) simply has no file: reads skip it, writes refuse it.
 */
#pragma once

#include <stdbool.h>

#include "policies/state/state.h"

/* The file of parameter p (enum state_dcqcn_param) in the OFED layout (ofed) or in debugfs cc_params. */
const char *ecn_dcqcn_file(unsigned p, bool ofed);
