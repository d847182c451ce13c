/* SPDX-License-Identifier: MIT */
/*
 * The "nic-ecn" driver: DCQCN enables and CNP marking of a host NIC through the
 * MLNX_OFED sysfs layout under env->sysfs_root:
 *
 *   class/net/IF/ecn/roce_rp/enable/PRIO    reaction point, "0"/"1"
 *   class/net/IF/ecn/roce_np/enable/PRIO    notification point, "0"/"1"
 *   class/net/IF/ecn/roce_np/cnp_dscp       DSCP of generated CNPs
 *   class/net/IF/ecn/roce_np/cnp_802p_prio  802.1p priority of generated CNPs
 *
 * and the DCQCN parameters of spec.host_ecn.dcqcn, under roce_rp/ and roce_np/ with
 * their MLNX_OFED names (ecn_dcqcn.h).
 *
 * Writability is judged from the mode bits, as sysfs (kernfs) itself does: a
 * file without a write bit refuses writes even for root. Every knob an apply
 * needs is checked before the first write; a write that fails midway restores
 * the knobs already written.
 *
 * Where that tree is absent, upstream mlx5's debugfs congestion parameters
 * (DEBUGFS/mlx5/PCI/cc_params, drivers/infiniband/hw/mlx5/cong.c) serve the CNP
 * marking: np_cnp_dscp and np_cnp_prio, and the DCQCN parameters under their own
 * names. They have no per-priority enables, so a
 * policy that lists host_ecn priorities is refused there with the reason. Every
 * cc_param is shown read-only by `state` (ecn_sysfs_cc_params()).
 */
#pragma once

#include "drivers/driver.h"

#define ECN_SYSFS_PARAMS_MAX 32

struct ecn_sysfs_param {
        char name[48];
        unsigned long long value;
};

/* Read the debugfs cc_params of the PCI device behind the interface, if any. */
int ecn_sysfs_cc_params(const struct target *t, struct ecn_sysfs_param *ret, unsigned max,
                        unsigned *ret_n, struct errbuf *e);

extern const struct driver_ops nic_ecn_driver;
