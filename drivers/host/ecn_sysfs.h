/* SPDX-License-Identifier: MIT */
/*
 * drivers/host ecn_sysfs: the "nic-ecn" driver, DCQCN enables and CNP marking of a
 * host NIC (field host_ecn), from whichever of two trees the driver made:
 *
 * MLNX_OFED (en_sysfs.c, en_ecn.c) under env->sysfs_root, mode 0644 on a PF:
 *   class/net/IF/ecn/roce_rp/enable/PRIO    reaction point, "0"/"1"
 *   class/net/IF/ecn/roce_np/enable/PRIO    notification point, "0"/"1"
 *   class/net/IF/ecn/roce_np/cnp_dscp       DSCP of generated CNPs
 *   class/net/IF/ecn/roce_np/cnp_802p_prio  802.1p priority of generated CNPs
 *
 * Upstream mlx5 (drivers/infiniband/hw/mlx5/cong.c) under env->debugfs_root, mode
 * 0600 (root only), one directory per PCI function:
 *   mlx5/PCI/cc_params/np_cnp_dscp, np_cnp_prio, np_cnp_prio_mode, rp_*, ...
 * It has no per-priority enables: the firmware runs DCQCN on every priority by
 * default (NV ROCE_CC_PRIO_MASK) and nothing reads that back, so a policy may ask
 * for them on (they are the default; a note says they are not verified) but never
 * off (refused before anything changes, naming MLNX_OFED and mlxconfig). Writing
 * np_cnp_prio also sets np_cnp_prio_mode to 0: the mode is read as device detail and
 * a restore writes it after the priority.
 *
 * Upstream bnxt_re (drivers/infiniband/hw/bnxt_re/debugfs.c, 656dff55da19) under
 * env->debugfs_root, mode 0400 (root writes it: debugfs checks no mode bits), one
 * directory per PCI function of a bnxt_en port:
 *   bnxt_re/PCI/cc_config/enable_cc, alt_vlan_dscp (the CNP's DSCP), alt_vlan_pcp
 *   (its priority), g, init_cr, ...
 * One enable_cc for both points of every priority: on together, off only on all eight.
 *
 * The scalar knobs are one table (ecn_sysfs.c `scalars[]`): a congestion parameter
 * is a row with its member of struct state_host_ecn and its file in each tree. The
 * kernel masks a value to the firmware field instead of checking it, so nettune
 * refuses a value the field cannot hold. The DCQCN parameters of spec.host_ecn.dcqcn
 * (rp_time_reset, ..., np_min_time_between_cnps: 32-bit values) are a table of their
 * own, ecn_dcqcn.h: their cc_params names, and MLNX_OFED's roce_rp/rpg_* etc.
 *
 * Writability is judged from the mode bits, as sysfs (kernfs) itself does (a file
 * without a write bit refuses writes even for root), and from access(2) for this
 * user: a knob the agent cannot reach fails the check with -EACCES, which a policy
 * whose host_ecn is "optional" turns into a plan note. Every knob an apply needs is
 * checked before the first write; a write that fails midway restores the knobs
 * already written. Every cc_param is shown read-only by `state` (ecn_sysfs_cc_params()).
 *
 * May call: drivers/host/link.h (the PCI function), sysfs.h.
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
