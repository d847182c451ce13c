/* SPDX-License-Identifier: MIT */
/*
 * One vtable for everything that touches a device. A target (a host interface
 * or a switch with its ports) is served by one or more drivers; each driver
 * owns a set of state fields on that target ("link" owns mtu on interfaces,
 * "dcb" owns trust/dscp_to_priority/pfc/ets, "nic-ecn" owns host_ecn, a switch
 * dialect owns every field of a switch).
 *
 * Reconcile like `wg syncconf`: read -> diff -> apply only the delta -> read back.
 * Every operation is idempotent. No driver prints; errors go to struct errbuf
 * with where = "interface 'vA'" / "switch 'leaf1'".
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "errbuf.h"
#include "state.h"

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
        unsigned n_ports;
        char ports[STATE_PORTS_MAX][STATE_NAME_MAX];
        unsigned connect_timeout_ms;
        unsigned command_timeout_ms;
};

struct nl_transport;                            /* drivers/host/nl.h */

/* Settings every driver may need, from the agent configuration. */
struct driver_env {
        char sysfs_root[256];                   /* "/sys" in production, a test tree in tests */
        char debugfs_root[256];                 /* "/sys/kernel/debug" */
        unsigned settle_ms;                     /* wait bound for carrier after a flapping change */
        unsigned confirm_timeout_s;             /* vendor-native commit-confirm for switches */
        const struct nl_transport *nl;          /* host drivers' netlink: NULL = the kernel; tests: a device model */
        bool switch_role;                       /* agent role "switch": ets/ecn of interfaces through tc qdiscs */
        unsigned n_qdisc_parents;               /* where the qdisc driver attaches its tree, by interface glob */
        struct driver_qdisc_parent {
                char glob[16];
                uint32_t parent;                /* a tc class; interfaces no glob matches: the root */
        } qdisc_parents[DRIVER_QDISC_PARENTS_MAX];
};

struct driver_session;                          /* per-driver, per-transaction private data */

struct target {
        enum target_kind kind;
        char name[STATE_NAME_MAX];              /* interface name, or switch name */
        int ifindex;                            /* interfaces: resolved at discovery */
        char kernel_driver[32];                 /* interfaces: "veth", "mlx5_core", ... (for messages) */
        const struct switch_config *sw;         /* switches */
        const struct driver_env *env;
        struct driver_session *session;         /* owned by the driver serving this target */
};

struct driver_ops {
        const char *name;                       /* "link", "dcb", "nic-ecn", "nvue", "sonic", "eos" */
        enum target_kind kind;
        uint32_t fields;                        /* STATE_BIT() of every field this driver can own */

        /* Which of `fields` this target supports here (may probe the device). */
        int (*caps)(struct target *t, uint32_t *ret_fields, struct errbuf *e);
        /* Fill the fields in `fields` (a subset of caps) and set their present bits; touch nothing else of *ret. */
        int (*read)(struct target *t, uint32_t fields, struct state *ret, struct errbuf *e);
        /* Make `fields` of the target equal to `desired` (only the delta is written). */
        int (*apply)(struct target *t, const struct state *desired, uint32_t fields, struct errbuf *e);
        /* Put `fields` back exactly as in `snapshot` (a state this driver read earlier). */
        int (*restore)(struct target *t, const struct state *snapshot, uint32_t fields, struct errbuf *e);

        /* Optional, for targets with native transactions (switches): */
        int (*open)(struct target *t, struct errbuf *e);        /* start a session */
        int (*commit)(struct target *t, struct errbuf *e);      /* confirm a pending native commit */
        void (*close)(struct target *t);                        /* end the session; accepts never-opened */
};

/* The registry: every driver, in the order a transaction applies them. NULL-terminated. */
extern const struct driver_ops *const driver_table[];

/* Drivers serving `kind` whose fields intersect `fields`, in table order. Returns count. */
unsigned driver_select(enum target_kind kind, uint32_t fields,
                       const struct driver_ops **ret, unsigned max);

/* The driver for a switch dialect name, or NULL. */
const struct driver_ops *driver_for_dialect(const char *dialect);
