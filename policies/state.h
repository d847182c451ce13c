/* SPDX-License-Identifier: MIT */
/*
 * The managed RoCE knobs of one place that carries them — a host interface, or one
 * port of a switch — as plain comparable C data. The same struct describes a
 * policy's desired settings and the live state read from a device: a field is
 * meaningful only when its bit is set in `present`. A policy sets the bits it
 * manages; a driver sets the bits it read.
 *
 * A target with several such places (a switch: one per configured port) is an
 * array of states, one per *unit* (agent/plan.h). Everything here is pure data:
 * no json_t, no file descriptors. What each field means, how it is compared,
 * copied and checked is in the field table (field.h); its JSON in state_json.c.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#define STATE_PRIO_COUNT 8      /* 802.1p priorities 0-7 */
#define STATE_TC_COUNT 8        /* traffic classes / switch queues 0-7 */
#define STATE_DSCP_COUNT 64     /* DSCP code points 0-63 */
#define STATE_PORTS_MAX 64      /* switch ports one target may manage (units of a switch target) */
#define STATE_NAME_MAX 64       /* interface, switch and port names */

/* One bit per managed field; also the unit of diffs, drift and driver routing. */
enum state_field {
        STATE_FIELD_MTU,                /* interface or switch port MTU */
        STATE_FIELD_TRUST,              /* pcp or dscp */
        STATE_FIELD_DSCP_MAP,           /* exact DSCP -> priority table */
        STATE_FIELD_PFC,                /* PFC enable bitmap over priorities */
        STATE_FIELD_ETS,                /* priority -> TC, TC bandwidth, TC TSA */
        STATE_FIELD_ECN,                /* switch queue WRED/ECN marking */
        STATE_FIELD_HOST_ECN,           /* NIC DCQCN RP/NP enables, CNP DSCP/priority */
        STATE_FIELD_MAX,
};

#define STATE_BIT(f) (1u << (f))
#define STATE_ALL_FIELDS ((1u << STATE_FIELD_MAX) - 1)

enum state_trust {
        STATE_TRUST_PCP,
        STATE_TRUST_DSCP,
        STATE_TRUST_NONE,       /* read back only: an empty APP trust table trusts nothing */
        STATE_TRUST_MAX,
};

/* Every IEEE 802.1Qaz TSA, so that a snapshot restores what it read. */
enum state_tsa {
        STATE_TSA_STRICT,
        STATE_TSA_ETS,
        STATE_TSA_VENDOR,       /* read back only: a TSA nettune does not manage (mlx5 at driver load) */
        STATE_TSA_CBS,          /* read back only: credit-based shaper */
        STATE_TSA_MAX,
};

#define STATE_DSCP_UNMAPPED 0xff

struct state_ets {
        uint8_t prio_tc[STATE_PRIO_COUNT];
        uint8_t tc_bw_pct[STATE_TC_COUNT];      /* compared only for ets classes (drivers report strict ones as they like) */
        uint8_t tc_tsa[STATE_TC_COUNT];         /* enum state_tsa */
        bool willing;                           /* IEEE ETS willing bit; a policy always means false */
};

#define STATE_DCB_APPS_MAX 128
#define STATE_TRUST_TABLE_MAX 8

struct state_dcb_app {
        uint8_t dscp;
        uint8_t prio;
};

/*
 * What a host NIC's DCB looked like beyond the managed fields, read with them:
 * a snapshot restores it exactly (the DCBX mode nettune switched, the APP entries
 * as the kernel listed them, the APP trust table). Policies never carry it.
 */
struct state_dcb_device {
        bool present;                           /* read from a device (a snapshot carries it) */
        bool has_dcbx;
        uint8_t dcbx;                           /* DCB_CAP_DCBX_* as getdcbx() reported it */
        bool has_apps;
        uint8_t n_apps;
        struct state_dcb_app apps[STATE_DCB_APPS_MAX];  /* DSCP APP entries, newest first */
        bool has_trust_table;
        uint8_t n_trust;
        uint8_t trust_table[STATE_TRUST_TABLE_MAX];     /* selectors, most trusted first */
};

struct state_ecn_queue {
        bool enabled;                           /* ECN marking on for this queue */
        uint32_t min_bytes;
        uint32_t max_bytes;
        uint8_t probability_pct;                /* 1-100 */
};

struct state_ecn {
        uint8_t queues;                         /* bitmap: queues described below */
        struct state_ecn_queue q[STATE_TC_COUNT];
        bool replace_root_qdisc;                /* policy only: the qdisc driver may replace a foreign root */
};

/*
 * Interface targets whose ets/ecn the tc qdisc driver serves (agent role "switch"):
 * what sits where the driver attaches its tree. Read with those fields; a snapshot
 * keeps it so that a restore knows what to put back. Not part of any diff.
 */
enum state_qdisc_root {
        STATE_QDISC_UNKNOWN,    /* not read (no qdisc driver serves the target) */
        STATE_QDISC_DEFAULT,    /* nothing configured there: the kernel's default qdisc */
        STATE_QDISC_NETTUNE,    /* nettune's ets tree */
        STATE_QDISC_FOREIGN,    /* a qdisc nettune did not create */
        STATE_QDISC_ROOT_MAX,
};

struct state_qdisc {
        uint8_t root;                           /* enum state_qdisc_root */
        char kind[16];                          /* FOREIGN: its kind ("htb") */
        uint32_t handle;                        /* FOREIGN: its handle (major << 16) */
};

/*
 * DCQCN congestion-control parameters of a NIC (spec.host_ecn.dcqcn), by the names
 * upstream mlx5_ib gives them in debugfs cc_params (drivers/infiniband/hw/mlx5/cong.c,
 * mlx5_ib_dbg_cc_name[]); the reaction point's 16 and the notification point's
 * min_time_between_cnps. The CNP's DSCP and priority are host_ecn's own cnp_dscp and
 * cnp_priority. Ranges: state_dcqcn_params[] (state_dcqcn.c).
 */
enum state_dcqcn_param {
        STATE_DCQCN_RP_CLAMP_TGT_RATE,
        STATE_DCQCN_RP_CLAMP_TGT_RATE_ATI,
        STATE_DCQCN_RP_TIME_RESET,
        STATE_DCQCN_RP_BYTE_RESET,
        STATE_DCQCN_RP_THRESHOLD,
        STATE_DCQCN_RP_MAX_RATE,
        STATE_DCQCN_RP_AI_RATE,
        STATE_DCQCN_RP_HAI_RATE,
        STATE_DCQCN_RP_MIN_DEC_FAC,
        STATE_DCQCN_RP_MIN_RATE,
        STATE_DCQCN_RP_RATE_TO_SET_ON_FIRST_CNP,
        STATE_DCQCN_RP_DCE_TCP_G,
        STATE_DCQCN_RP_DCE_TCP_RTT,
        STATE_DCQCN_RP_RATE_REDUCE_MONITOR_PERIOD,
        STATE_DCQCN_RP_INITIAL_ALPHA_VALUE,
        STATE_DCQCN_RP_GD,
        STATE_DCQCN_NP_MIN_TIME_BETWEEN_CNPS,
        STATE_DCQCN_MAX,
};

struct state_dcqcn_info {
        const char *name;                       /* "rp_time_reset": the policy key and the debugfs file */
        uint32_t min, max;                      /* what a policy may ask for */
        const char *unit;                       /* "us", "Mbit/s", "bytes", "%", "" */
        const char *what;                       /* one line, for references and messages */
};

extern const struct state_dcqcn_info state_dcqcn_params[STATE_DCQCN_MAX];
/* The parameter of that name, or -EINVAL. */
int state_dcqcn_from_name(const char *name);

struct state_host_ecn {
        uint8_t prios;                          /* bitmap: priorities described below */
        uint8_t rp_enabled;                     /* bitmap over prios: DCQCN reaction point */
        uint8_t np_enabled;                     /* bitmap over prios: notification point */
        bool has_cnp;                           /* cnp_dscp/cnp_prio are meaningful */
        uint8_t cnp_dscp;
        uint8_t cnp_prio;
        uint32_t dcqcn_set;                     /* bitmap over enum state_dcqcn_param: dcqcn[] meaningful */
        uint32_t dcqcn[STATE_DCQCN_MAX];
};

struct state {
        uint32_t present;                       /* STATE_BIT(field) for each meaningful field */

        uint32_t mtu;
        uint8_t trust;                          /* enum state_trust */
        uint8_t dscp_prio[STATE_DSCP_COUNT];    /* STATE_DSCP_UNMAPPED or 0-7 */
        /* A policy's map on a host NIC: every code point it does not list means priority 0. */
        bool dscp_unlisted_zero;
        uint8_t pfc_enabled;                    /* bitmap over priorities */
        struct state_ets ets;
        struct state_ecn ecn;
        struct state_host_ecn host_ecn;

        struct state_dcb_device dcb;            /* host NICs, read with the DCB fields */

        /* Interface targets served by the tc qdisc driver (with ets/ecn). */
        struct state_qdisc qdisc;
};

/* An empty state: nothing present, DSCP table unmapped. */
void state_init(struct state *s);

static inline bool state_has(const struct state *s, enum state_field f)
{
        return s->present & STATE_BIT(f);
}

/* "mtu", "trust", "dscp_to_priority", "pfc", "ets", "ecn", "host_ecn"; NULL if out of range. */
const char *state_field_name(enum state_field f);
int state_field_from_name(const char *name);    /* enum value or -EINVAL */
const char *state_trust_name(enum state_trust t);
const char *state_tsa_name(enum state_tsa t);

/* A policy's map on a host NIC, every code point: unlisted ones at priority 0 (see dscp_unlisted_zero). */
void state_dscp_effective(const struct state *s, uint8_t ret[STATE_DSCP_COUNT]);

/* ETS equal as a policy means it: bandwidth compared only for ets classes, and the willing bit. */
bool state_ets_equal(const struct state_ets *want, const struct state_ets *live);
/* "unknown", "default", "nettune", "foreign"; from_name: enum value or -EINVAL. */
const char *state_qdisc_root_name(enum state_qdisc_root r);
int state_qdisc_root_from_name(const char *name);
