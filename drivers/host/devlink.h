/* SPDX-License-Identifier: MIT */
/*
 * drivers/host devlink: what a NIC's devlink instance reports that its DCB
 * depends on, over generic netlink (the controller resolves "devlink";
 * DEVLINK_CMD_RATE_GET dumps the rate objects, net/devlink/rate.c).
 *
 * Rate objects: ice exports its Tx scheduler tree to devlink-rate for VF
 * representors in switchdev mode (ice_repr_set_tx_topology(), only while DCB and
 * ADQ are off). Any rate set through it (ice_devlink_rate_*_set(),
 * ice_devlink_rate_node_new()) turns on the custom Tx scheduler
 * (ice_enable_custom_tx(): port_info->is_custom_tx_enabled), and from then on
 * ice_pf_dcb_cfg() refuses a DCB configuration of more than one traffic class
 * with -EBUSY until the driver is initialised again. Userspace sees the rates,
 * not the flag: an object with a tx_share or tx_max is taken as the custom
 * scheduler; a tree only reparented, or whose rates were set back to 0, keeps
 * the flag unseen (tx_priority and tx_weight, 6.7+, are not read).
 *
 * May call: drivers/host/nl.h. Called by the dcb driver's plan-time refusals
 * (dcb_refuse.c).
 */
#pragma once

#include <stdint.h>

#include "common/errbuf.h"
#include "drivers/host/nl.h"

struct devlink_rates {
        unsigned n;                     /* rate objects of the instance */
        unsigned configured;            /* of those, with a tx_share or tx_max */
        char first[64];                 /* the first configured one: "leaf 2", "node node_1" */
        uint64_t first_tx_share, first_tx_max;
};

/* One DEVLINK_CMD_RATE_NEW message of a dump; 1 when it belongs to pci/dev (counted into ret), 0 when not. */
int devlink_rate_parse(const struct nlmsghdr *nlh, const char *bus, const char *dev, struct devlink_rates *ret);

/*
 * The rate objects of devlink instance BUS/DEV ("pci", "0000:12:00.0") through
 * gnl, a NETLINK_GENERIC handle. -ENOENT when the kernel has no devlink family,
 * -EOPNOTSUPP when it has no rate objects (before 5.15).
 */
int devlink_rates_read(struct nl *gnl, const char *bus, const char *dev, struct devlink_rates *ret,
                       struct errbuf *e);
