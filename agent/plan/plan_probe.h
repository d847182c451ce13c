/* SPDX-License-Identifier: MIT */
/*
 * The probe of a plan, pinned once per request before anything changes: the
 * transaction's baseline and post-change measurements both run exactly this.
 *
 *   path        the route to verify.peer (or verify.device), the mode (`auto`
 *               resolved), for verbs the RDMA device and GID (probe_pin)
 *   target      without verify.device, the probe's interface must be one of the
 *               plan's interface targets: a probe that leaves by another port
 *               cannot see the change (refused, -EINVAL)
 *   class       verify.dscp, or the lowest DSCP the effective DSCP map sends to a
 *               PFC-enabled priority (the policy's map and PFC where it manages
 *               them — on the probe's interface, else on any target, e.g. the
 *               switches — else the interface's live ones); the priority is what
 *               the map gives that DSCP. Neither: DSCP 0, priority left, a note.
 *
 * Notes and warnings (auto resolved to tcp on a node with an RDMA device) go to
 * the plan's notes as well.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>

#include "agent/plan/plan.h"
#include "policies/policy.h"
#include "drivers/probe/probe.h"

#define PLAN_PROBE_WARNINGS_MAX 4

struct plan_probe {
        bool active;                            /* the policy measures (verify.probe is not none) */
        enum probe_mode requested;              /* verify.probe */
        struct probe_params params;             /* what every measurement runs */
        struct probe_path path;                 /* and what that is */
        unsigned runs;                          /* measurements per phase (median) */
        char dscp_from[16];                     /* "verify.dscp", "policy", "live", "none" */
        unsigned n_warnings;
        char warnings[PLAN_PROBE_WARNINGS_MAX][PLAN_NOTE_MAX];
};

/* plan_probe_pin() flags */
#define PLAN_PROBE_ANY_INTERFACE (1u << 0)      /* the way back (rollback): measure where the probe leaves, with a note */

/*
 * Pin the probe of v for plan p (after plan_read). v NULL, absent or probe "none":
 * ret->active false, 0. Errors: -EINVAL (the interface is not a target, verbs on
 * a device that does not carry it), -ENODEV (verbs without a GID for the source),
 * -ENETUNREACH and friends (no route to the peer); e says which. *ret is written.
 */
int plan_probe_pin(struct plan *p, const struct policy_verify *v, unsigned flags, struct plan_probe *ret,
                   struct errbuf *e);

/* Is a plan_probe_pin() error the policy's (exit 2, -EINVAL/-ENODEV) rather than the network's (exit 3)? */
static inline bool plan_probe_refused(int r)
{
        return r == -EINVAL || r == -ENODEV;
}

/*
 * The class of a probe leaving by `netdev`: dscp (given >= 0, or derived), the
 * priority (-1 = left to the kernel) and where the DSCP came from. Notes go to the
 * plan. Exposed for unit tests; plan_probe_pin() uses it.
 */
void plan_probe_class(struct plan *p, const char *netdev, int dscp, int *ret_dscp, int *ret_priority,
                      char *from, size_t from_size);

/* {"requested", "mode", "peer", "source", "interface", "device", "gid_index", "gid", "dscp",
 *  "dscp_from", "priority", "streams", "message_size", "runs", "warnings": [...]}. New reference. */
json_t *plan_probe_to_json(const struct plan_probe *pp);

/* A human line: "tcp via vA (10.0.0.1) to 10.0.0.2:18515, DSCP 26 (policy), priority 3, 1 stream". */
const char *plan_probe_str(const struct plan_probe *pp, char *buf, size_t size);
