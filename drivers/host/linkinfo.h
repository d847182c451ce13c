/* SPDX-License-Identifier: MIT */
/*
 * What a host interface's link runs at, read only (for doctor):
 *   - operational state and negotiated speed as the kernel exports them
 *     (SYSFS/class/net/IF/operstate, .../speed in Mb/s; -1 or unreadable: unknown);
 *   - the fastest link mode it supports (ETHTOOL_GLINKSETTINGS, the supported
 *     mask; veth and devices without link modes: unknown);
 *   - the RDMA port rate where an RDMA device backs it
 *     (SYSFS/class/infiniband/DEV/ports/N/rate: "100 Gb/sec (4X EDR)").
 * Nothing here fails: what cannot be read stays unknown (0 / false / "").
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "drivers/host/counters.h"

struct linkinfo {
        bool state_known;
        bool up;
        uint32_t speed_mbps;
        uint32_t max_speed_mbps;
        bool rdma;                      /* an RDMA device backs the interface */
        char rate[48];                  /* the first RDMA port's rate */
};

/* io: the ethtool ioctl (NULL: the kernel's, over a socket of this namespace). */
void linkinfo_read(const char *ifname, const char *sysfs_root, const struct counters_ethtool *io,
                   struct linkinfo *ret);

/* The fastest speed (Mb/s) among the link modes of a supported mask (nwords 32-bit words); 0 none. */
uint32_t linkinfo_max_speed(const uint32_t *mask, unsigned nwords);
