/* SPDX-License-Identifier: MIT */
/*
 * drivers/host dcb_refuse: what a NIC driver would refuse in the middle of a DCB
 * change, judged at plan time from what the driver and the kernel report, so the
 * refusal comes with its reason and its fix before anything is written:
 *
 *   ice, a port of a bond (IFLA_INFO_SLAVE_KIND "bond"; Linux 6.6+, "ice: enforce
 *     no DCB config changing when in bond"): every dcbnl setter -EINVAL.
 *   ice, DCBX to switch while the port is in DSCP mode (its DSCP APP entries;
 *     ice_dcbnl_setdcbx() since v5.16: "DSCP configuration is not DCBx negotiated").
 *   ice, the custom Tx scheduler (devlink-rate objects with rates, devlink.h) and
 *     a configuration of more than one traffic class afterwards (ice_pf_dcb_cfg():
 *     -EBUSY, "ice: Prevent DCB coexistence with Custom Tx scheduler", v6.2).
 *   bnxt_en, DCBX 0x08 (IEEE without host mode: a VF, or the firmware's LLDP agent
 *     without its DCBX agent, bnxt_dcb_init()): every IEEE setter -EINVAL and host
 *     mode refused by setdcbx.
 * And what a change does that the reader should know (driver_note): bnxt_en may
 * close and reopen the NIC on a PFC change (bnxt_queue_remap()); ice tears the
 * devlink-rate tree down on the first configuration of several TCs
 * (ice_tear_down_devlink_rate_tree()).
 *
 * May call: drivers/host/nl.h, link.h, devlink.h, host_io.h. Called by the dcb
 * driver's check (dcb_driver.c).
 */
#pragma once

#include "drivers/driver.h"
#include "drivers/host/dcb_nl.h"

/* What the apply would do to the device, as dcb_driver.c works it out. */
struct dcb_refuse_plan {
        bool set_dcbx;                  /* DCBX switched to host + IEEE first */
        bool dscp_after;                /* DSCP APP entries once it is done (ice: DSCP mode) */
        uint8_t prio_tc_after[8];       /* the ETS priority map once it is done */
        uint8_t pfc_gain;               /* priorities PFC newly enables */
};

/* 0, or -errno with the refusal (reason and fix) in e; notes for the reader through driver_note(). */
int dcb_refuse_check(struct target *t, struct nl *nl, const struct dcb_nl_ieee *cur,
                     const struct dcb_refuse_plan *p, struct errbuf *e);
