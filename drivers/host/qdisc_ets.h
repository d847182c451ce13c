/* SPDX-License-Identifier: MIT */
/*
 * The "qdisc" driver: ets and ecn of an interface through tc qdiscs, for an agent
 * that runs on a Linux switch (agent configuration "role": "switch"): a root ets
 * qdisc with one band per traffic class and a red child with ecn on each ECN
 * queue (qdisc_tree.h has the shape, tc_nl.h the messages, tc_red.h the RED
 * arithmetic). It serves a field only in the switch role and only where the kernel
 * has sch_ets (and sch_red for ecn), found read-only (tc_kmod.h).
 *
 * Registered after "dcb": where DCB can do ETS (mlxsw) it keeps ets, and a policy
 * that would put ets through DCB and ecn through a tc ets qdisc on one port is
 * refused (DCB ETS and a tc ets qdisc cannot both be configured on one port: the
 * mlxsw wiki, "Queues Management").
 *
 * Its check refuses, before anything changes, ets that a tc ets qdisc cannot
 * express, a foreign qdisc at the attach point (without ecn.replace_root_qdisc)
 * or under a band the policy needs, and a missing parent class.
 *
 * Restore puts back what the snapshot's state.qdisc says: the kernel default
 * (nettune's tree is deleted), or nettune's own tree with the snapshot's ets and
 * ecn. A foreign qdisc that a policy allowed nettune to replace cannot be put
 * back: nettune's tree is deleted and the restore fails naming the qdisc.
 */
#pragma once

#include "drivers/driver.h"
#include "drivers/host/tc_kmod.h"

#define QDISC_FIELDS (STATE_BIT(STATE_FIELD_ETS) | STATE_BIT(STATE_FIELD_ECN))

extern const struct driver_ops qdisc_driver;

/* The tc class the driver attaches to on interface `name`: the first matching glob of env, else TC_H_ROOT. */
uint32_t driver_env_qdisc_parent(const struct driver_env *env, const char *name);

/* Where the driver looks for kernel support (tests point it at a tree; zeroed = the real files). */
extern struct tc_kmod_roots qdisc_driver_kmod;

/* Per-queue statistics of nettune's red children on an interface (state, /metrics). */
struct qdisc_queue_stats {
        unsigned queue;                         /* traffic class */
        bool ecn;                               /* marking on (else RED drops) */
        uint64_t bytes, packets;
        uint32_t backlog_bytes, backlog_packets;
        uint32_t drops;                         /* every drop of the queue */
        uint32_t marked, early, pdrop, other;   /* struct tc_red_xstats */
};

/*
 * The queues of nettune's tree on ifindex (none when the tree is not there).
 * nl: NULL = the kernel; parent: the attach point (0 = root).
 */
/* The rate of the htb class `parent` where the tree attaches (an operator's shaper), bytes/s; -ENOENT: none. */
int qdisc_driver_shaper_rate(const struct nl_transport *nl, int ifindex, uint32_t parent, uint64_t *ret_Bps,
                             struct errbuf *e);
int qdisc_driver_stats(const struct nl_transport *nl, int ifindex, uint32_t parent,
                       struct qdisc_queue_stats *ret, unsigned max, unsigned *ret_n, struct errbuf *e);
