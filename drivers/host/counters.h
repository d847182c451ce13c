/* SPDX-License-Identifier: MIT */
/*
 * Congestion counters of a host interface, for `state` output and /metrics:
 *   - the ethtool statistics (ETHTOOL_GSTRINGS / ETHTOOL_GSTATS) that name a
 *     pause, PFC, discard, ECN or CNP counter in the kernel driver's own words
 *     (a table per driver family: mlx5_core, bnxt_en, ice; any name containing
 *     "pause" elsewhere), matched case-insensitively, with the priority the name
 *     carries ("rx_prio3_pause", "rx_pfc_ena_frames_pri3", "rx_priority_3_xoff.nic") or the
 *     traffic class it counts (mlx5's "rx_prio0_marked" is TC 0: en_stats.c reads it per TC);
 *   - every RDMA hw_counter of the RDMA devices backing the interface
 *     (SYSFS/class/infiniband/DEV/ports/N/hw_counters/NAME), those of the same
 *     table (mlx5_ib, bnxt_re, irdma) marked for export.
 * The ethtool pair is read race-free: the string count may grow between the
 * calls (mlx5 adds per-priority PFC counters when PFC changes) and the kernel
 * writes as many entries as it has, so the buffers carry slack and the count is
 * checked again; a read that changed under us is retried.
 * An interface without them (veth) has an empty set: that is not an error.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/errbuf.h"

#define COUNTERS_MAX 256
#define COUNTER_NAME_MAX 64

struct counter {
        char name[COUNTER_NAME_MAX];    /* "rx_prio3_pause", "np_cnp_sent" */
        char source[32];                /* "ethtool", or "rdma:mlx5_0/1" */
        uint64_t value;
        int prio;                       /* the priority the name carries, -1 none */
        int tc;                         /* the traffic class it counts (mlx5 rx_prioN_marked: TC N), -1 none */
        bool exported;                  /* a congestion counter of the driver's table: /metrics shows it */
};

struct counters {
        unsigned n;
        struct counter c[COUNTERS_MAX];
};

/* Both sources; sysfs_root is "/sys" in production. Fills *ret (n may be 0). */
int counters_read(const char *ifname, const char *sysfs_root, struct counters *ret, struct errbuf *e);
/*
 * The same for many interfaces: fd from counters_socket() (an AF_INET datagram
 * socket for the ethtool ioctl, -1 on failure), kdrv the interface's kernel
 * driver when known (NULL: looked up), device what link_rtnl_device() said: 0 a
 * device; -ENXIO a software link (veth, bridge: no MAC, so no pause, PFC, ECN or
 * CNP counter and no RDMA device: neither is read); another -errno no device link
 * (no RDMA device: not looked for).
 */
int counters_socket(void);
int counters_read_at(int fd, const char *ifname, const char *kdrv, int device, const char *sysfs_root,
                     struct counters *ret, struct errbuf *e);

/* The ethtool ioctl, replaceable for tests: 0 or -errno, cmd as for SIOCETHTOOL. */
struct counters_ethtool {
        int (*ioctl)(void *ctx, const char *ifname, void *cmd);
        void *ctx;
};

/* The single sources, appending to c (bounded by COUNTERS_MAX). kdrv: the kernel driver ("mlx5_core"). */
int counters_read_ethtool(const char *ifname, const char *kdrv, const struct counters_ethtool *io,
                          struct counters *c, struct errbuf *e);
int counters_read_rdma(const char *ifname, const char *kdrv, const char *sysfs_root, struct counters *c,
                       struct errbuf *e);

/*
 * Is name a congestion counter of this kernel driver? *ret_prio gets the priority
 * it carries, *ret_tc the traffic class (-1 none). Unknown drivers: any name
 * containing "pause", "cnp" or "ecn".
 */
bool counters_match(const char *kdrv, const char *name, int *ret_prio, int *ret_tc);

/*
 * What a congestion counter counts (enum doctor_counter: pause received or sent, ECN
 * marks, CNPs sent or handled, discards, the device's pause storm events; on mlx5 the
 * bytes of each priority and the RoCE bytes), by the driver's own name; -1 when it is
 * none of those. *ret_prio: the priority it carries, *ret_tc: the traffic class (-1 none).
 */
int counters_kind(const char *name, int *ret_prio, int *ret_tc);

/*
 * The same for a counter read from `source` ("ethtool", "rdma:DEV/PORT"): an RDMA
 * driver's hw_counters name that ethtool also uses for something else counts what
 * the RDMA driver means by it (bnxt_re's "tx_bytes"/"rx_bytes": the RoCE bytes).
 */
int counters_kind_source(const char *name, const char *source, int *ret_prio, int *ret_tc);

/*
 * A pause duration counter (microseconds paused: mlx5 rx/tx_prioN_pause_duration, bnxt
 * pfc_priN_rx/tx_duration_us)? DOCTOR_PAUSE_RX or DOCTOR_PAUSE_TX for the direction, -1 when
 * it is none; *ret_prio the priority it carries (-1: the link's pause).
 */
int counters_duration(const char *name, int *ret_prio);
