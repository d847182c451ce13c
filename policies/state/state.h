/* SPDX-License-Identifier: MIT */
/*
 * The managed RoCE knobs of one place that carries them — a host interface, or one
 * port of a switch — as plain comparable C data. The same struct describes a
 * policy's desired settings and the live state read from a device: a field is
 * meaningful only when its bit is set in `present`. A policy sets the bits it
 * manages; a driver sets the bits it read.
 *
 * A target with several such places (a switch: one per configured port) is an
 * array of states, one per *unit* (agent/plan/plan.h). Everything here is pure data:
 * no json_t, no file descriptors. What each field means, how it is compared,
 * copied and checked is in the field table (field.h); its JSON in state_json.c.
 *
 * May call: policies/json, common/. Called by the policy language and doctor
 * (policies/), drivers/, agent/ and controller/.
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
        STATE_FIELD_CABLE_LEN,          /* pfc.cable_length_m: the cable a device sizes lossless headroom for */
        STATE_FIELD_BUFFERS,            /* port receive buffers: priority -> buffer, buffer sizes (dcbnl buffer) */
        STATE_FIELD_PFC_WATCHDOG,       /* switch port PFC watchdog: on/off, coverage, times, action */
        STATE_FIELD_NIC_STALL,          /* NIC PFC stall prevention timeout (ETHTOOL_PFC_PREVENTION_TOUT) */
        STATE_FIELD_ROCE_TOS,           /* the ToS byte RDMA connections use by default (rdma_cm, MLNX_OFED) */
        STATE_FIELD_NCCL,               /* NCCL's configuration file: NCCL_IB_TC, NCCL_IB_SL */
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
#define STATE_BUFFER_COUNT 8    /* port receive buffers a priority may map to (dcbnl DCBX_MAX_BUFFERS) */
#define STATE_CABLE_LEN_MIN 1
#define STATE_CABLE_LEN_MAX 3000

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
        bool has_pfc_delay;
        uint16_t pfc_delay;                     /* struct ieee_pfc.delay as read (mlx5: metres; mlxsw: bits) */
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

/* The port's receive buffers (struct dcbnl_buffer): which buffer each priority fills, and their sizes. */
struct state_buffers {
        uint8_t prio_buffer[STATE_PRIO_COUNT];  /* buffer 0-7 of each priority */
        uint32_t size[STATE_BUFFER_COUNT];      /* bytes */
        uint32_t total;                         /* read back only: the device's total (0 = not reported) */
};

struct state_host_ecn {
        uint8_t prios;                          /* bitmap: priorities described below */
        uint8_t rp_enabled;                     /* bitmap over prios: DCQCN reaction point */
        uint8_t np_enabled;                     /* bitmap over prios: notification point */
        bool has_cnp;                           /* cnp_dscp/cnp_prio are meaningful */
        uint8_t cnp_dscp;
        uint8_t cnp_prio;
        uint32_t dcqcn_set;                     /* bitmap over enum state_dcqcn_param: dcqcn[] meaningful */
        uint32_t dcqcn[STATE_DCQCN_MAX];
        /* Device detail, read and restored, never compared: upstream mlx5's np_cnp_prio_mode. */
        bool has_prio_mode;
        uint8_t cnp_prio_mode;
        /* Policy only: a target that cannot reach the knobs leaves them out (plan note) instead of refusing. */
        bool optional;
};

/*
 * The PFC watchdog of a switch port (spec.pfc.watchdog): when a lossless queue stays
 * paused for the detection time the switch stops honouring pause on it and drops or
 * forwards its traffic (or only alerts), and gives the queue back after the
 * restoration time without pause. Members a policy declares, or a device reports,
 * have their STATE_WD_* bit in `has`; `dflt` marks reported members that are the
 * device's default (nothing configured: a restore unsets them rather than writes them).
 */
enum state_wd_action {
        STATE_WD_DROP,
        STATE_WD_FORWARD,
        STATE_WD_ALERT,
        STATE_WD_ERRDISABLE,    /* read back only: EOS's default (the port is error-disabled) */
        STATE_WD_NODROP,        /* read back only: EOS's switch-wide "action no-drop" (the queue stays no-drop) */
        STATE_WD_ACTION_MAX,
};

#define STATE_WD_DETECTION (1u << 0)
#define STATE_WD_RESTORATION (1u << 1)
#define STATE_WD_ACTION (1u << 2)
#define STATE_WD_POLL (1u << 3)

struct state_pfc_wd {
        bool enabled;                           /* the watchdog runs on this port */
        uint8_t prios;                          /* priorities it covers (a policy: its pfc priorities) */
        uint8_t action;                         /* enum state_wd_action */
        uint8_t has;                            /* STATE_WD_*: members declared (policy) or reported (device) */
        uint8_t dflt;                           /* STATE_WD_*: reported members that are the device's default */
        uint32_t detection_ms;
        uint32_t restoration_ms;                /* 0: never restores by itself (SONiC "infinite") */
        uint32_t poll_ms;                       /* switch-wide */
};

#define STATE_NIC_STALL_AUTO 0xffff             /* PFC_STORM_PREVENTION_AUTO (include/uapi/linux/ethtool.h) */

/*
 * The RDMA ports behind a host interface, read with roce_tos: what each port's
 * default ToS is in every place that holds one, so that a snapshot restores each
 * exactly (drivers/host/roce_tos.h).
 */
#define STATE_RDMA_PORTS_MAX 8
#define STATE_RDMA_DEV_MAX 32
#define STATE_TCLASS_UNSET (-1)         /* MLNX_OFED traffic_class with no global value */

struct state_rdma_port {
        char dev[STATE_RDMA_DEV_MAX];           /* RDMA device: "mlx5_0", "rxe0" */
        uint8_t port;                           /* 1-based */
        bool has_cm;                            /* rdma_cm configfs default_roce_tos was read */
        uint8_t cm_tos;
        bool has_ofed;                          /* MLNX_OFED tc/PORT/traffic_class was read */
        int16_t ofed_tclass;                    /* its global tclass, STATE_TCLASS_UNSET when none */
        uint8_t roce_mode;                      /* rdma_cm default_roce_mode: enum state_roce_mode (read only) */
};

/* rdma_cm's default_roce_mode (cma_configfs.c, ib_cache_gid_type_str()): read, never written. */
enum state_roce_mode {
        STATE_ROCE_MODE_UNKNOWN,                /* not read (no configfs file) */
        STATE_ROCE_MODE_V1,                     /* "IB/RoCE v1": no IP header, so no DSCP */
        STATE_ROCE_MODE_V2,                     /* "RoCE v2" */
        STATE_ROCE_MODE_MAX,
};
/* "IB/RoCE v1", "RoCE v2" (the kernel's words); NULL for unknown. from_name: the enum or -EINVAL. */
const char *state_roce_mode_name(enum state_roce_mode m);
int state_roce_mode_from_name(const char *name);

struct state_roce {
        uint8_t n_ports;                        /* 0: not read from a device (a policy) */
        struct state_rdma_port ports[STATE_RDMA_PORTS_MAX];
};

/*
 * spec.nccl: the keys of NCCL's configuration file (agent configuration nccl_conf,
 * /etc/nccl.conf) nettune manages, read as NCCL's setEnvFile() (src/misc/param.cc)
 * reads them: a line starting with '#' is a comment; the name is everything before
 * the first '=' (nothing trimmed); the value everything after it up to the newline;
 * the first line of a name wins (setenv without overwrite); the value is strtoll(v,
 * NULL, 0), an empty one is NCCL's default (0). A policy declares values (`has`); a
 * read also keeps each key's first line as it stood, so that a restore puts back
 * exactly those bytes (drivers/host/nccl_conf.h).
 */
enum state_nccl_key {
        STATE_NCCL_IB_TC,                       /* NCCL_IB_TC: the GRH traffic class of NCCL's QPs (net_ib.cc) */
        STATE_NCCL_IB_SL,                       /* NCCL_IB_SL: their service level (the priority on RoCE v1) */
        STATE_NCCL_KEYS,
};

#define STATE_NCCL_LINE_MAX 256

struct state_nccl {
        uint8_t has;                            /* bit per enum state_nccl_key: declared (policy) or set (read) */
        uint8_t value[STATE_NCCL_KEYS];         /* the value NCCL takes */
        bool tc_auto;                           /* policy: ib_tc "auto" (the policy's roce_tos) */
        bool read;                              /* read from the file (a snapshot): the members below hold */
        bool exists;                            /* the file existed */
        bool eol;                               /* it was empty or ended in a newline */
        bool empty;                             /* it was empty (or absent) */
        char line[STATE_NCCL_KEYS][STATE_NCCL_LINE_MAX];        /* each key's first line, no newline; "" none */
};

/* "NCCL_IB_TC", "NCCL_IB_SL" (the file's names); "ib_tc", "ib_sl" (the policy's). */
extern const char *const state_nccl_env_names[STATE_NCCL_KEYS];
extern const char *const state_nccl_keys[STATE_NCCL_KEYS];

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
        uint32_t cable_len_m;                   /* metres, STATE_CABLE_LEN_MIN-MAX */
        struct state_buffers buffers;
        struct state_pfc_wd pfc_wd;
        uint16_t nic_stall_ms;                  /* ms; 0 disabled; STATE_NIC_STALL_AUTO (a policy's "auto") */
        uint16_t nic_stall_auto_ms;             /* read back: what "auto" reads back as here (mlx5: 100), 0 unknown */
        uint8_t roce_tos;                       /* ToS byte (DSCP << 2 | ECN) of RDMA connections without their own */
        struct state_roce roce;                 /* host NICs, read with roce_tos: every RDMA port's values */
        struct state_nccl nccl;                 /* hosts: NCCL's configuration file (spec.nccl) */

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

/* "mtu", "trust", "dscp_to_priority", "pfc", "ets", "ecn", "host_ecn", "pfc.cable_length_m", "buffers", "roce_tos",
 * "nccl", "pfc.watchdog", "pfc.nic_stall_timeout_ms" (a dotted name is a member of a spec object); NULL if out of range. */
const char *state_field_name(enum state_field f);
int state_field_from_name(const char *name);    /* enum value or -EINVAL */
const char *state_trust_name(enum state_trust t);
const char *state_tsa_name(enum state_tsa t);
/* "drop", "forward", "alert", "errdisable", "no-drop"; from_name: enum value or -EINVAL. */
const char *state_wd_action_name(enum state_wd_action a);
int state_wd_action_from_name(const char *name);

/* A policy's map on a host NIC, every code point: unlisted ones at priority 0 (see dscp_unlisted_zero). */
void state_dscp_effective(const struct state *s, uint8_t ret[STATE_DSCP_COUNT]);

/* ETS equal as a policy means it: bandwidth compared only for ets classes, and the willing bit. */
bool state_ets_equal(const struct state_ets *want, const struct state_ets *live);
/* "unknown", "default", "nettune", "foreign"; from_name: enum value or -EINVAL. */
const char *state_qdisc_root_name(enum state_qdisc_root r);
int state_qdisc_root_from_name(const char *name);
