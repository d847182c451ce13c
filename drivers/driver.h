/* SPDX-License-Identifier: MIT */
/*
 * One vtable for everything that touches a device. A target (a host interface
 * or a switch) is served by one or more drivers; each driver owns a set of state
 * fields on that target ("link" owns mtu on interfaces, "dcb" owns
 * trust/dscp_to_priority/pfc/ets, "nic-ecn" owns host_ecn, a switch dialect owns
 * every field of a switch).
 *
 * A target has one or more *units*, the places that carry the knobs: an interface
 * is one unit; a switch has one unit per configured port, and its state is one
 * struct state per port (ports in the order of the agent configuration).
 *
 * Reconcile like `wg syncconf`: the plan (agent/plan/plan.c) reads every unit once,
 * diffs it with the field table (policies/state/field.h) and hands each driver only the
 * delta; the driver writes that delta and nothing else, without reading again
 * what the plan already read. Every operation is idempotent. No driver prints;
 * errors go to struct errbuf with where = "interface 'vA'" / "switch 'leaf1'".
 *
 * May call: policies/, common/. Called by the driver modules (drivers/host, drivers/switch,
 * drivers/probe) and the agent.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/errbuf.h"
#include "policies/state/state.h"

enum target_kind {
        TARGET_INTERFACE,
        TARGET_SWITCH,
        TARGET_KIND_MAX,
};

#define SWITCH_FIELD_MAX 256
#define DRIVER_QDISC_PARENTS_MAX 16

/* A switch as the agent configuration names it (spec: agent.json "switches"). */
struct switch_config {
        char name[STATE_NAME_MAX];
        char dialect[16];                       /* "nvue", "sonic", "eos" */
        char host[SWITCH_FIELD_MAX];
        unsigned port;
        char user[STATE_NAME_MAX];
        char key[SWITCH_FIELD_MAX];             /* private key file (ed25519/ecdsa) */
        char known_hosts[SWITCH_FIELD_MAX];     /* pinned host keys; unknown/changed = refused */
        unsigned n_ports;                       /* the switch's units */
        char ports[STATE_PORTS_MAX][STATE_NAME_MAX];
        unsigned connect_timeout_ms;
        unsigned command_timeout_ms;
};

struct nl_transport;                            /* drivers/host/nl.h */
struct nl;

/* Settings every driver may need, from the agent configuration. */
struct driver_env {
        char sysfs_root[256];                   /* "/sys" in production, a test tree in tests */
        char debugfs_root[256];                 /* "/sys/kernel/debug" */
        char configfs_root[256];                /* "/sys/kernel/config" (rdma_cm's default ToS) */
        char nccl_conf[256];                    /* NCCL's configuration file, "/etc/nccl.conf" (spec.nccl) */
        unsigned settle_ms;                     /* least wait bound for carrier after a flapping change */
        unsigned link_up_max_ms;                /* most wait bound for carrier (the per-speed bound's ceiling) */
        unsigned flap_wait_ms;                  /* how long a change may take to drop carrier (no drop: no flap) */
        unsigned rdma_wait_ms;                  /* wait bound for the RDMA port to be ACTIVE again */
        unsigned confirm_timeout_s;             /* vendor-native commit-confirm for switches */
        const struct nl_transport *nl;          /* host drivers' netlink: NULL = the kernel; tests: a device model */
        bool switch_role;                       /* agent role "switch": ets/ecn of interfaces through tc qdiscs */
        unsigned n_qdisc_parents;               /* where the qdisc driver attaches its tree, by interface glob */
        struct driver_qdisc_parent {
                char glob[16];
                uint32_t parent;                /* a tc class; interfaces no glob matches: the root */
        } qdisc_parents[DRIVER_QDISC_PARENTS_MAX];
        char state_dir[256];                    /* the agent's state_dir (switches keep their ownership records there); "" = none */
};

/*
 * What one request (a plan, a transaction) shares among its targets, opened once
 * and on first use. A family of drivers keeps its handles in a part of its own
 * (driver_io_part: the host's rtnetlink handle and its caches are
 * drivers/host/host_io.h's), with the two operations every request runs on each
 * part, whoever owns it: flush (send what its drivers queued while `batch`, check
 * the answers) and close. The notes are everyone's (driver_note).
 */
#define DRIVER_NOTES_MAX 16
#define DRIVER_NOTE_MAX 256
#define DRIVER_IO_PARTS_MAX 4
struct driver_io_ops {
        const char *name;                       /* "host" */
        int (*flush)(void *part, struct errbuf *e);     /* optional: the writes queued while batch */
        void (*close)(void *part);              /* what the part opened, and the part itself */
};
struct driver_io {
        struct driver_io_slot {
                const struct driver_io_ops *ops;
                void *part;
        } parts[DRIVER_IO_PARTS_MAX];           /* made on first use (driver_io_part) */
        unsigned n_parts;
        unsigned n_targets[TARGET_KIND_MAX];                  /* targets of the request by enum target_kind, known before any is read */
        bool batch;                             /* writes may wait in a part's queue until driver_io_flush() */
        char policy[64];                        /* the policy the request applies, "" when none (restore) */
        unsigned n_notes;                       /* what drivers want the reader to know (plan and state "notes") */
        char notes[DRIVER_NOTES_MAX][DRIVER_NOTE_MAX];
};

/* io's part of ops's family, made (size bytes, zeroed) on first use; NULL when io is NULL or memory ran out. */
void *driver_io_part(struct driver_io *io, const struct driver_io_ops *ops, size_t size);
/* The same without making it: NULL when there is none yet. */
void *driver_io_find(const struct driver_io *io, const struct driver_io_ops *ops);
/*
 * Send the writes every part queued (io->batch) and check them; the first refusal,
 * in the order the parts were made, is the error (it names its target). NULL io: 0.
 */
int driver_io_flush(struct driver_io *io, struct errbuf *e);
/* Close what the request opened, part by part. */
void driver_io_close(struct driver_io *io);

struct driver_session;                          /* per-driver, per-transaction private data */

struct target {
        enum target_kind kind;
        char name[STATE_NAME_MAX];              /* interface name, or switch name */
        int ifindex;                            /* interfaces: resolved at discovery */
        uint32_t min_mtu, max_mtu;              /* interfaces: the kernel's MTU range (0 = not reported) */
        char kernel_driver[32];                 /* interfaces: "veth", "mlx5_core", ... (for messages) */
        const struct switch_config *sw;         /* switches */
        const struct driver_env *env;
        struct driver_io *io;                   /* the request's shared handles; NULL = open per call */
        struct driver_session *session;         /* owned by the driver serving this target */
};

/* Units of a target: 1 for an interface, the configured ports of a switch. */
static inline unsigned target_units(const struct target *t)
{
        return t->kind == TARGET_SWITCH && t->sw ? t->sw->n_ports : 1;
}

/* Names of a switch target's units (the configured ports); NULL for an interface. */
static inline const char (*target_unit_names(const struct target *t))[STATE_NAME_MAX]
{
        return t->kind == TARGET_SWITCH && t->sw ? (const char (*)[STATE_NAME_MAX])t->sw->ports : NULL;
}

/* "interface" or "switch". */
const char *target_kind_name(enum target_kind k);

/* A note for the request's reader ("switch 'leaf1' (nvue): ..."); once per text; no-op without io. */
void driver_note(const struct target *t, const char *fmt, ...) _printf_(2, 3);

/*
 * A driver's part of a change on one target: make `fields` of every unit equal to
 * desired, where live is what the plan read just before (same units, same order)
 * and delta[u] the fields of unit u that differ. A driver touches nothing outside
 * delta; fields is the union of delta over the units.
 */
struct driver_change {
        unsigned n_units;
        const struct state *desired;            /* [n_units] */
        const struct state *live;               /* [n_units] */
        const uint32_t *delta;                  /* [n_units] */
        uint32_t fields;                        /* the union of delta */
        uint32_t owned;                         /* every field this driver owns on the target (its route) */
};

struct driver_ops {
        const char *name;                       /* "link", "dcb", "nic-ecn", "nvue", "sonic", "eos" */
        enum target_kind kind;
        uint32_t fields;                        /* STATE_BIT() of every field this driver can own */

        /* Which of `fields` this target supports here (may probe the device, read only). */
        int (*caps)(struct target *t, uint32_t *ret_fields, struct errbuf *e);
        /*
         * Optional: refuse before anything is touched what apply would refuse here —
         * device limits (vendor ranges, the kernel's MTU range). Run by the plan for
         * every desired value it would write; the same rules apply runs.
         */
        int (*check)(struct target *t, const struct driver_change *c, struct errbuf *e);
        /* Fill `fields` (a subset of caps) of every unit, ret[0..units) (state_init'ed by the caller), set their present bits. */
        int (*read)(struct target *t, uint32_t fields, struct state *ret, struct errbuf *e);
        /* Write the delta. */
        int (*apply)(struct target *t, const struct driver_change *c, struct errbuf *e);
        /*
         * Optional: put the units back to c->desired (a snapshot this driver read
         * earlier; c->live read just now). NULL: apply does it. A driver with a native
         * undo (a switch's pending commit) uses it first.
         */
        int (*restore)(struct target *t, const struct driver_change *c, struct errbuf *e);

        /* Optional, for targets with native transactions (switches): */
        int (*open)(struct target *t, struct errbuf *e);        /* start a session */
        int (*commit)(struct target *t, struct errbuf *e);      /* confirm a pending native commit */
        void (*close)(struct target *t);                        /* end the session; accepts never-opened */
};

/* The registry: every driver, in the order a transaction applies them. NULL-terminated. */
extern const struct driver_ops *const driver_table[];

/* Drivers of `table` serving `kind` whose fields intersect `fields`, in table order. Returns count. */
unsigned driver_select(const struct driver_ops *const *table, enum target_kind kind, uint32_t fields,
                       const struct driver_ops **ret, unsigned max);
