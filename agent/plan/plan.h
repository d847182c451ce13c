/* SPDX-License-Identifier: MIT */
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
#pragma once

#include <jansson.h>
#include <stdbool.h>

#include "agent/config/config.h"
#include "policies/diff.h"
#include "drivers/driver.h"
#include "common/errbuf.h"
#include "drivers/host/iface.h"
#include "policies/policy.h"
#include "drivers/probe/probe.h"

#define PLAN_DRIVERS_MAX 8
#define PLAN_NOTES_MAX 8
#define PLAN_NOTE_MAX 256

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
        bool opened;                    /* its session is open (ops->open) */
};

struct plan_target {
        struct target t;
        unsigned n_units;               /* target_units(&t) */
        unsigned n_routes;
        struct plan_route routes[PLAN_DRIVERS_MAX];     /* disjoint fields, in registry order */
        uint32_t want;                  /* the fields read and compared (desired[*].present) */
        struct state *desired;          /* [n_units], owned */
        struct state *live;             /* [n_units], owned; valid after plan_read() */
        struct state *before;           /* [n_units], owned; the snapshot, NULL until one is taken */
        uint32_t *delta;                /* [n_units], owned: fields of each unit that differ */
        uint32_t changed;               /* union of delta */
        struct diff diff;               /* every difference, keys prefixed per unit ("ports.swp1.") */
        bool touched;                   /* the transaction wrote to it */
};

struct plan {
        struct plan_env env;
        char policy[POLICY_NAME_MAX];   /* the policy's name, "" when none */
        unsigned n;
        struct plan_target *v;          /* owned */
        unsigned n_changes;             /* diff entries over every target, after plan_read() */
        unsigned n_notes;
        char notes[PLAN_NOTES_MAX][PLAN_NOTE_MAX];      /* what the reader should know (plan JSON "notes") */
        bool noted_switch_only;         /* the note on switch-port fields a host leaves alone is there */
        struct driver_io io;
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

/* A target of a journal snapshot: desired = before = the snapshot (JSON of its units). */
int plan_add_snapshot(struct plan *p, int kind, const char *name, uint32_t fields, const char *state_json,
                      struct errbuf *e);

/*
 * Read every target's `want` fields, diff and compute the deltas. Opens the
 * drivers' sessions (kept until plan_close()).
 */
int plan_read(struct plan *p, struct errbuf *e);

/* Every driver's check of its delta (what apply would refuse); the first refusal's error. After plan_read(). */
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
/* The flat change list the journal and transaction results keep: [{target, field, key, from, to}]. */
json_t *plan_changes_json(const struct plan *p);
/* One element of it: {target, field, key, from, to}. New reference; NULL on ENOMEM. */
json_t *plan_change_json(const char *target, const struct diff_entry *d);
