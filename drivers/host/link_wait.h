/* SPDX-License-Identifier: MIT */
/*
 * Waiting out a link flap after a change that may bounce the port: a PFC change
 * on mlx5 (mlx5_toggle_port_link(): carrier drops *after* the SET returned,
 * when the firmware's port event arrives), any DCB or MTU change on ice
 * (ice_dcbnl_devreset(), ice_down/ice_up: carrier drops before the reply), a TC
 * count or MTU change on bnxt (bnxt_close_nic/bnxt_open_nic).
 *
 * link_wait_begin() notes the link before the change: carrier, the kernel's
 * carrier-down counter (IFLA_CARRIER_DOWN_COUNT, so a flap between two polls is
 * not missed) and which RDMA ports of the interface are ACTIVE
 * (SYSFS/class/infiniband/DEV/ports/N/state). link_wait_end() then waits for the
 * edge: carrier down then up again within settle_ms, or no drop at all within
 * flap_wait_ms; then for every RDMA port that was ACTIVE to be ACTIVE again
 * within rdma_wait_ms. A link without carrier before the change, or a virtual
 * one (IFLA_INFO_KIND: veth, bond, ...), is not waited for.
 */
#pragma once

#include "drivers/driver.h"
#include "drivers/host/nl.h"

#define LINK_WAIT_PORTS_MAX 8

struct link_wait {
        bool carrier;                   /* IFF_LOWER_UP before the change */
        bool counts;
        uint32_t down_count;
        unsigned n_ports;
        char ports[LINK_WAIT_PORTS_MAX][320];   /* state files of RDMA ports that were ACTIVE */
};

int link_wait_begin(struct nl *nl, const struct target *t, struct link_wait *ret, struct errbuf *e);
int link_wait_end(struct nl *nl, const struct target *t, const struct link_wait *w, struct errbuf *e);

/* The RDMA port state files of an interface ("SYSFS/class/infiniband/DEV/ports/N/state"). */
unsigned link_wait_rdma_ports(const char *sysfs_root, const char *ifname, char (*ret)[320], unsigned max);
