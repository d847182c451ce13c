/* SPDX-License-Identifier: MIT */
/*
 * Congestion counters of a host interface, for `state` output and /metrics:
 *   - per-priority pause counters from the ethtool statistics (ETHTOOL_GSTRINGS /
 *     ETHTOOL_GSTATS), every name containing "pause" (rx_prio3_pause, ...);
 *   - RDMA hw_counters of the RDMA device backing the interface
 *     (SYSFS/class/infiniband/DEV/ports/N/hw_counters/NAME: np_cnp_sent, ...).
 * An interface without them (veth) has an empty set: that is not an error.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "errbuf.h"

#define COUNTERS_MAX 256
#define COUNTER_NAME_MAX 64

struct counter {
        char name[COUNTER_NAME_MAX];    /* "rx_prio3_pause", "np_cnp_sent" */
        char source[32];                /* "ethtool", or "rdma:mlx5_0/1" */
        uint64_t value;
};

struct counters {
        unsigned n;
        struct counter c[COUNTERS_MAX];
};

/* Both sources; sysfs_root is "/sys" in production. Fills *ret (n may be 0). */
int counters_read(const char *ifname, const char *sysfs_root, struct counters *ret, struct errbuf *e);

/* The single sources, appending to c (bounded by COUNTERS_MAX). */
int counters_read_ethtool(const char *ifname, struct counters *c, struct errbuf *e);
int counters_read_rdma(const char *ifname, const char *sysfs_root, struct counters *c, struct errbuf *e);

/* Name filter used for ethtool statistics: true for pause counters. */
bool counters_is_pause(const char *name);
