/* SPDX-License-Identifier: MIT */
/*
 * doctor's collection on one node: the facts of policies/doctor/doctor.h, read through the
 * plan (agent/plan/plan.c) and the drivers, changing nothing.
 *
 *   interfaces   every field the drivers read (mtu, trust, dscp_to_priority, pfc, ets,
 *                host_ecn; ecn of a switch-role port), link state, speed, supported
 *                speed and RDMA rate (drivers/host/linkinfo.c), the NIC's congestion
 *                counters (drivers/host/counters.c) and, on a Linux switch, its queues'
 *                marks and drops (drivers/host/queues.c); the switch port each faces: the agent
 *                configuration's "links", else an LLDP neighbour (drivers/host/lldp.c)
 *   switches     every configured port's settings and, through the same session, its
 *                link and counters (drivers/switch/switch_counters.c); one thread per
 *                switch, each bounded by its connect and command timeouts
 *   the node     lldpad (a process of that name under proc_root), the committed policy
 *                and the difference of the live settings from it (drift)
 *
 * Counters are sampled twice per source, window_s apart (each source its own pair of
 * timestamps: a slow switch shortens nobody's window), and kept as rates. A source
 * that cannot be read is a note or a switch error in the facts, not a failure: the
 * collection fails only when the node's own interfaces cannot be listed.
 *
 * May call: agent/plan, agent/journal, agent/config, drivers/, policies/, common/.
 * Called by agent/api (GET /v1/doctor, api_doctor.c) and agent/cmd (doctor).
 */
#pragma once

#include <stdbool.h>

#include "agent/config/config.h"
#include "agent/journal/journal.h"
#include "policies/doctor/doctor.h"

struct plan;

struct doctor_collect_opts {
        double window_s;                        /* > 0 */
        const char (*ifglobs)[64];              /* interfaces (n_if 0: every one but loopback) */
        unsigned n_if;
        const char (*swglobs)[64];              /* switches (n_sw 0: every configured one) */
        unsigned n_sw;
        bool no_switches;
        struct journal *journal;                /* the committed policy; NULL: not known here */
        const char *name;                       /* the node's name (NULL: the host name) */
        /*
         * The node's drift exactly as `nettune-agent drift` and GET /v1/drift report it
         * (agent/txn drift_check: the merged intent, optional knobs a driver does not
         * serve left out, each field's owner), given by the caller: agent/doctor does not
         * call agent/txn. 0 or more with *ret read (each target's diff is its drift,
         * plan_owner_of its owners; plan_free'd here), -ENOENT nothing committed, else
         * -errno with e. NULL: drift is not known here.
         */
        int (*drift)(void *ud, struct plan *ret, struct errbuf *e);
        void *drift_ud;
};

/* Fill *ret (doctor_node_free it). -errno with e when nothing could be collected. */
int doctor_collect(const struct agent_config *c, const struct doctor_collect_opts *o, struct doctor_node *ret,
                   struct errbuf *e);
