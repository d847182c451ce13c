/* SPDX-License-Identifier: MIT */
/*
 * agent/plan: what one request knows about this node's targets.
 *
 * Owns discovery (targets.c: interfaces by glob, switches from the configuration),
 * the plan (plan.c: each field routed to the driver that serves it here, live state
 * read once, the diff, each driver's check of its delta), the plan's probe
 * (plan_probe.c: the pinned path, DSCP and priority).
 *
 * May call: agent/config, drivers/, policies/, common/. Called by every command that
 * reads or changes the node (agent/txn, agent/doctor, agent/api, agent/cmd).
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "agent/config/config.h"
#include "common/errbuf.h"
#include "drivers/driver.h"
#include "drivers/host/iface.h"
#include "drivers/probe/probe.h"
#include "policies/state/diff.h"
#include "policies/policy/policy.h"

/*
 * The plan: what one request knows about this node's targets, built once and used
 * by every command that reads or changes them — `plan`, `apply` (the
 * transaction), `drift`, `state`, `rollback`, recovery, and the API.
 *
 *   plan_for_policy()    the targets a policy names, each field routed to the
 *                        driver that serves it here, the desired state per unit
 *   plan_for_globs()     interfaces and switches by glob, every field they support
 *   plan_add_snapshot()  a target a transaction snapshotted, desired = the snapshot
 *   plan_read()          every unit's live state (one read per driver), the diff
 *                        against desired (the field table's one comparator) and
 *                        the delta per unit
 *   plan_check()         each driver's check of its delta: plan refuses exactly
 *                        what apply would (vendor limits, kernel MTU range, ...)
 *
 * Drivers receive the delta (driver_change) and never read or diff again; the
 * request shares one rtnetlink handle (driver_io) and one session per switch.
 * JSON appears only at the edges: plan_to_json() is the one shape the CLI and
 * the API print.
 */



#define PLAN_DRIVERS_MAX 8
#define PLAN_NOTES_MAX 16
#define PLAN_NOTE_MAX 640

/* Where a plan finds targets and drivers: the real ones, or a test's. */
struct plan_env {
        const struct agent_config *config;
        const struct driver_ops *const *drivers;        /* NULL = driver_table */
        /* The interfaces of this namespace; NULL = iface_list() (rtnetlink). Caller frees *ret. */
        int (*interfaces)(const struct agent_config *c, struct iface **ret, unsigned *ret_n, struct errbuf *e);
        /* Pin the probe (route, mode, RDMA device); NULL = probe_pin() (plan_probe.c). */
        int (*pin)(const struct probe_params *p, enum probe_mode m, struct probe_params *ret,
                   struct probe_path *ret_path, char *warning, size_t wsize, struct errbuf *e);
        struct driver_io *io;           /* set by plan_init(): discovery reads the request's link dump */
};

/* One driver's part of a target: the fields it owns here. */
struct plan_route {
        const struct driver_ops *ops;
        uint32_t fields;
        uint32_t extra;                 /* read with them, never compared or written (plan_target.extra) */
        bool opened;                    /* its session is open (ops->open) */
};

struct plan_target {
        struct target t;
        unsigned n_units;               /* target_units(&t) */
        unsigned n_routes;
        struct plan_route routes[PLAN_DRIVERS_MAX];     /* disjoint fields, in registry order */
        unsigned n_reads;
        struct plan_route reads[PLAN_DRIVERS_MAX];      /* drivers of extra fields only: read, never written */
        uint32_t want;                  /* the fields read and compared (desired[*].present) */
        uint32_t extra;                 /* read too where the target can, never compared: what the lossless
                                         * class relates to a policy's lossless fields (plan_check) */
        struct state *desired;          /* [n_units], owned */
        struct state *live;             /* [n_units], owned; valid after plan_read() */
        struct state *before;           /* [n_units], owned; the snapshot, NULL until one is taken */
        uint32_t *delta;                /* [n_units], owned: fields of each unit that differ */
        uint32_t changed;               /* union of delta */
        struct diff diff;               /* every difference, keys prefixed per unit ("ports.swp1.") */
        bool touched;                   /* the transaction wrote to it */
        uint8_t owner[STATE_FIELD_MAX]; /* a merged intent's plan: 1 + the index of each field's owner in
                                         * plan.owners, 0 when the field has none (released, or no layers) */
};

/* The layer that owns a field of a merged intent (policies/policy/layers.h): its name and revision. */
struct plan_owner {
        char policy[POLICY_NAME_MAX];
        int64_t revision;
};
#define PLAN_OWNERS_MAX 64

struct plan {
        struct plan_env env;
        char policy[POLICY_NAME_MAX];   /* the policy's name, "" when none */
        unsigned n;
        struct plan_target *v;          /* owned */
        unsigned n_changes;             /* diff entries over every target, after plan_read() */
        unsigned n_notes;
        char notes[PLAN_NOTES_MAX][PLAN_NOTE_MAX];      /* what the reader should know (plan JSON "notes") */
        bool noted_switch_only;         /* the note on switch-port fields a host leaves alone is there */
        bool noted_nccl;                /* the note that NCCL does not follow roce_tos is there */
        /* The lossless class (plan_check): the policy's targets, live and with the change applied. */
        struct {
                bool active;            /* a policy's plan (not state, not a snapshot's way back) */
                bool refuse;            /* a change that breaks a rule is refused (false: the way back, noted) */
                int roce_dscp;          /* verify.dscp: the RoCE DSCP where a unit has no roce_tos; -1 none */
                uint32_t allow;         /* checks.allow */
        } lossless;
        struct driver_io io;
        unsigned n_owners;              /* a merged intent's plan: its layers (plan_target.owner) */
        struct plan_owner owners[PLAN_OWNERS_MAX];
};

void plan_init(struct plan *p, const struct plan_env *env);
/* Close sessions and handles and free everything; accepts a plan never built. */
void plan_free(struct plan *p);

/* plan_for_policy() flags */
#define PLAN_ALL_FIELDS (1u << 0)       /* read every field the targets support, desired nothing (state) */

/*
 * The targets of a policy with their drivers. -ENOENT (where "$.targets.interfaces[i]")
 * when a glob matches nothing, -EOPNOTSUPP when a target cannot serve a managed field
 * ("interface 'vA' (driver veth) does not support DCB (needed for pfc); nothing was
 * changed"). Nothing is read or touched yet.
 */
int plan_for_policy(struct plan *p, const struct policy *pol, unsigned flags, struct errbuf *e);

/*
 * Every field a target can carry: the interface fields, the switch fields, and on
 * an agent in the switch role (a Linux switch) its interfaces' queues (ecn) too.
 */
uint32_t plan_fields_of(const struct target *t);

/* Interfaces (every one but loopback when n_if is 0) and switches (every configured one when
 * n_sw is 0; none when no_switches) with every field they support. */
int plan_for_globs(struct plan *p, const char (*ifglobs)[64], unsigned n_if, const char (*swglobs)[64],
                   unsigned n_sw, bool no_switches, struct errbuf *e);

/*
 * A target with a desired state built by the caller (a merged intent): want = the
 * fields desired has that the target carries, every unit desired the same (the caller
 * may change a unit's afterwards through *ret). Refused as plan_for_policy() refuses
 * a field no driver serves here.
 */
int plan_add_state(struct plan *p, const struct target *t, const struct state *desired, struct plan_target **ret,
                   struct errbuf *e);
/* The owner of a target's field, NULL when it has none. */
const struct plan_owner *plan_owner_of(const struct plan *p, const struct plan_target *pt, enum state_field f);
/* {"policy": NAME, "revision": N} of a field's owner, or NULL when it has none. New reference. */
json_t *plan_owner_json(const struct plan *p, const struct plan_target *pt, enum state_field f);
/* A target of a journal snapshot: desired = before = the snapshot (JSON of its units). */
int plan_add_snapshot(struct plan *p, int kind, const char *name, uint32_t fields, const char *state_json,
                      struct errbuf *e);

/*
 * Read every target's `want` fields, diff and compute the deltas. Opens the
 * drivers' sessions (kept until plan_close()).
 */
int plan_read(struct plan *p, struct errbuf *e);

/*
 * Every driver's check of its delta (what apply would refuse), then the lossless
 * class (docs/policy-reference.md): a policy's change that breaks a rule a unit
 * keeps is refused, a rule broken already is a note. The first refusal's error
 * (-EINVAL for the lossless class). After plan_read().
 */
int plan_check(struct plan *p, struct errbuf *e);

/* Read target i again into ret[0..n_units) (state_init'ed here): `want` fields only. */
int plan_read_target(struct plan *p, unsigned i, struct state *ret, struct errbuf *e);

/* The driver change of route r of target i: desired vs live, the delta restricted to the route. */
void plan_change(const struct plan_target *pt, unsigned r, uint32_t *delta_buf, struct driver_change *ret);

/* End every driver session (switch SSH) and the shared handles. */
void plan_close(struct plan *p);

/* Add a note (shown in plan output). */
void plan_note(struct plan *p, const char *fmt, ...) _printf_(2, 3);

/*
 * {"policy": NAME, "changes": N, "targets": [{"kind", "name", "changes":
 *  [{"field", "key", "from", "to"}]}], "notes": [...]}. New reference; NULL on ENOMEM.
 */
json_t *plan_to_json(const struct plan *p);
/* The plan's notes and its drivers' (driver_note), as plan_to_json() lists them. New reference; NULL on ENOMEM. */
json_t *plan_notes_json(const struct plan *p);
/* The flat change list the journal and transaction results keep: [{target, field, key, from, to}];
 * a merged intent's plan adds each entry's "owner" ({policy, revision}) where the field has one. */
json_t *plan_changes_json(const struct plan *p);
/* One element of it: {target, field, key, from, to}. New reference; NULL on ENOMEM. */
json_t *plan_change_json(const char *target, const struct diff_entry *d);


/*
 * Discovery: the targets a request names on this node.
 *   - interfaces: every link of the agent's network namespace matching one of
 *     the globs (a glob matching nothing is an error);
 *   - switches: every switch of the agent configuration matching one of the globs.
 * Routing fields to drivers, reading and diffing are the plan's (plan.h).
 */


#define TARGETS_MAX 1024

struct target_list {
        unsigned n;
        struct target *v;               /* owned; targets_free() */
};

/* Resolve a policy. -ENOENT (with where "$.targets.interfaces[i]") when a glob matches nothing. */
int targets_for_policy(const struct plan_env *env, const struct policy *p, struct target_list *ret,
                       struct errbuf *e);

/* Local interfaces matching globs (n 0: every interface except loopback). */
int targets_for_interfaces(const struct plan_env *env, const char (*globs)[64], unsigned n,
                           struct target_list *ret, struct errbuf *e);

/* Switches of the agent configuration matching globs (n 0: every configured switch). */
int targets_for_switches(const struct plan_env *env, const char (*globs)[64], unsigned n,
                         struct target_list *ret, struct errbuf *e);

void targets_free(struct target_list *l);


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

/*
 * The class of a probe leaving by `netdev`: dscp (given >= 0, or derived), the
 * priority (-1 = left to the kernel) and where the DSCP came from. Notes go to the
 * plan. Exposed for unit tests; plan_probe_pin() uses it.
 */
void plan_probe_class(struct plan *p, const char *netdev, int dscp, int *ret_dscp, int *ret_priority,
                      char *from, size_t from_size);

/*
 * The priority a probe that ran on `path` rode, judged after the change: the
 * probe interface's trust, DSCP map and PFC read again through the drivers, the
 * probe's DSCP (verbs: the GRH traffic class; tcp: the socket's TOS) through the
 * map under trust dscp, its SL (verbs) or priority 0 (a socket's untagged frames)
 * under trust pcp. judged: the interface has PFC priorities and the priority is
 * known; lossless: that priority has PFC; reason: the gate's failure when not.
 */
struct plan_probe_rode {
        bool judged;
        bool lossless;
        int priority;                           /* -1: not known */
        uint8_t pfc;                            /* the interface's PFC priorities */
        char how[160];                          /* how the priority follows, or why it is not judged */
        char reason[400];                       /* not lossless: "the probe's traffic rode priority 0, not ..." */
};

void plan_probe_rode(struct plan *p, const struct probe_path *path, struct plan_probe_rode *ret);

/* {"requested", "mode", "peer", "source", "interface", "device", "gid_index", "gid", "dscp",
 *  "dscp_from", "priority", "streams", "message_size", "runs", "warnings": [...]}. New reference. */
json_t *plan_probe_to_json(const struct plan_probe *pp);

/* A human line: "tcp via vA (10.0.0.1) to 10.0.0.2:18515, DSCP 26 (policy), priority 3, 1 stream". */
const char *plan_probe_str(const struct plan_probe *pp, char *buf, size_t size);
