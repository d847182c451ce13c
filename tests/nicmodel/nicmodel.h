/* SPDX-License-Identifier: MIT */
/*
 * NIC behaviour models behind the netlink seam (drivers/host/nl.h).
 *
 * A model is the kernel's rtnetlink link core and dcbnl core (net/dcb/dcbnl.c)
 * in front of one or more network devices, each served by a model of one
 * kernel driver's dcbnl_rtnl_ops: mlx5 (en_dcbnl.c), ice (ice_dcb_nl.c,
 * ice_dcb_lib.c), bnxt (bnxt_dcb.c), sparx5 (sparx5_dcb.c: an APP trust
 * table), mlxsw (spectrum_dcb.c, spectrum_buffers.c, spectrum_qdisc.c: a Spectrum
 * switch port's PFC, ETS, headroom and qdisc offload), veth (no dcbnl_ops at all)
 * or a bond (ports join it with the control command "master"). Every
 * behaviour cites the kernel function it mirrors; quirks are kept, also where
 * they are inconvenient for the program under test.
 *
 * It runs in two ways:
 *   - as a process (tests/nicmodel/main.c, build/nicmodel): a unix
 *     SOCK_SEQPACKET server that the agent reaches with
 *     NETTUNE_NETLINK_SOCKET, plus a control socket for dumps and hand changes;
 *   - in process (nm_transport.c): a struct nl_transport for unit tests.
 *
 * Time matters: link flaps (mlx5_toggle_port_link, ice_dcbnl_devreset,
 * bnxt_close_nic/bnxt_open_nic) change carrier and the RDMA port state on a
 * timeline; nm_tick() moves the timeline to "now" and is called before every
 * request and whenever the server wakes up.
 */
#pragma once

#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/pkt_sched.h>
#include <net/if.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifndef IEEE_8021QAZ_APP_SEL_MAX
#define IEEE_8021QAZ_APP_SEL_MAX 255    /* 6.3 uapi: DCB_APP_SEL_PCP is the largest selector */
#endif

#define NM_DEVS_MAX 8
#define NM_APPS_MAX 1024                /* the kernel's dcb_app_list, all devices */
#define NM_REPLY_MAX 32768              /* one datagram of replies */
#define NM_OUT_MAX 8                    /* datagrams one request may produce */
#define NM_GSTRING_LEN 32               /* ETH_GSTRING_LEN */
#define NM_STATS_MAX 64

/* Operations a fault can be injected into (control "fail"). */
enum nm_op {
        NM_OP_SETETS,
        NM_OP_SETPFC,
        NM_OP_SETAPP,
        NM_OP_DELAPP,
        NM_OP_SETDCBX,
        NM_OP_SETMTU,
        NM_OP_FWCFG,                    /* ice: the firmware refuses the next ice_set_dcb_cfg() */
        NM_OP_SETBUFFER,                /* dcbnl_setbuffer */
        NM_OP_MAX,
};

struct nm;
struct nm_dev;

/* One devlink-rate object of a device's devlink instance (devlink_nl_rate_fill()). */
struct nm_rate {
        bool node;                      /* DEVLINK_RATE_TYPE_NODE, else a leaf (a port) */
        char name[32];                  /* a node's name */
        unsigned port_index;            /* a leaf's devlink port */
        char parent[32];                /* the parent node, "" none */
        uint64_t tx_share, tx_max;      /* bytes/s, 0 = unset */
};
#define NM_RATES_MAX 8

/* One qdisc of a device (nm_tc.c): ets or red, where it hangs and whether the driver offloads it. */
struct nm_qdisc {
        int ifindex;
        uint32_t handle, parent;
        char kind[16];
        uint8_t nbands, nstrict;        /* ets */
        uint32_t quanta[16];
        uint8_t priomap[16];
        struct tc_red_qopt red;         /* red: thresholds in bytes as given */
        uint32_t red_max_p, red_flags;  /* TC_RED_* */
        bool offloaded;                 /* TCQ_F_OFFLOADED */
};
#define NM_QDISCS_MAX 64

/* One kernel driver: its dcbnl_rtnl_ops (NULL members are absent ops) and netdev limits. */
struct nm_driver {
        const char *name;               /* "mlx5", "ice", "bnxt", "sparx5", "veth" */
        const char *kernel_driver;      /* the PCI driver: "mlx5_core", "ice", "bnxt_en" */
        const char *rdma_prefix;        /* RDMA device name prefix: "mlx5_", "irdma", "bnxt_re"; NULL none */
        const char *const *hw_counters; /* some of the RDMA driver's hw_counters (files under ports/1/hw_counters) */
        size_t priv_size;
        /* Set up the device's driver and firmware state; variant selects a start state. */
        int (*init)(struct nm *m, struct nm_dev *d, const char *variant);
        bool has_dcbnl;                 /* netdev->dcbnl_ops != NULL */
        int (*getets)(struct nm *m, struct nm_dev *d, struct ieee_ets *ets);
        int (*setets)(struct nm *m, struct nm_dev *d, struct ieee_ets *ets);
        int (*getmaxrate)(struct nm *m, struct nm_dev *d, struct ieee_maxrate *r);
        int (*getpfc)(struct nm *m, struct nm_dev *d, struct ieee_pfc *pfc);
        int (*setpfc)(struct nm *m, struct nm_dev *d, struct ieee_pfc *pfc);
        int (*getbuffer)(struct nm *m, struct nm_dev *d, struct dcbnl_buffer *b);
        int (*setbuffer)(struct nm *m, struct nm_dev *d, struct dcbnl_buffer *b);
        int (*setapp)(struct nm *m, struct nm_dev *d, struct dcb_app *app);     /* NULL: dcb_ieee_setapp */
        int (*delapp)(struct nm *m, struct nm_dev *d, struct dcb_app *app);     /* NULL: dcb_ieee_delapp */
        uint8_t (*getdcbx)(struct nm *m, struct nm_dev *d);
        uint8_t (*setdcbx)(struct nm *m, struct nm_dev *d, uint8_t mode);
        /* dcbnl_getapptrust/setapptrust (6.3+): selectors, most trusted first */
        int (*getapptrust)(struct nm *m, struct nm_dev *d, uint8_t *sel, int *n);
        int (*setapptrust)(struct nm *m, struct nm_dev *d, uint8_t *sel, int n);
        /* ndo_change_mtu after the core's range check (dev_validate_mtu). */
        int (*change_mtu)(struct nm *m, struct nm_dev *d, uint32_t mtu);
        /* A root qdisc offloaded to the port (tc qdisc replace ... root) or removed (control "qdisc"). */
        int (*root_qdisc)(struct nm *m, struct nm_dev *d, bool offloaded);
        /* The driver and firmware state, one stable text block (see nm_dump). */
        void (*dump)(struct nm *m, const struct nm_dev *d, FILE *f);
        /*
         * ethtool_ops (nm_ethtool.c runs the core's part of SIOCETHTOOL first): get_tunable and
         * set_tunable (NULL: the core answers -EOPNOTSUPP); the ethtool -S statistics as the
         * driver names them now, their count returned (at most max); a receive-path stall
         * of the device beginning or ending (the control command "stall").
         */
        int (*get_tunable)(struct nm *m, struct nm_dev *d, uint32_t id, uint16_t *v);
        int (*set_tunable)(struct nm *m, struct nm_dev *d, uint32_t id, uint16_t v);
        unsigned (*stats)(struct nm *m, struct nm_dev *d, char (*names)[NM_GSTRING_LEN], uint64_t *vals,
                          unsigned max);
        int (*stall)(struct nm *m, struct nm_dev *d, bool on);
        /* How long carrier stays away in one of the driver's link flaps (NULL: NM_LINK_UP_MS). */
        unsigned (*link_up_ms)(const struct nm_dev *d);
        /* The driver's debugfs files under m->debugfs_root (NULL: none). */
        int (*debugfs_create)(struct nm *m, struct nm_dev *d);
        /* Take in what was written to the driver's files since the last tick (NULL: nothing to take). */
        void (*files_tick)(struct nm *m, struct nm_dev *d);
        /* The devlink-rate objects of the device's devlink instance, pci/BDF (NULL: none); returns how many. */
        unsigned (*rates)(struct nm *m, const struct nm_dev *d, struct nm_rate *v, unsigned max);
        /* ndo_setup_tc for a qdisc created or changed: true when offloaded (NULL: never, a software device). */
        bool (*qdisc_offload)(struct nm *m, struct nm_dev *d, const struct nm_qdisc *q);
};

#define NM_LINK_UP_MS 400               /* a driver without its own figure */
#define NM_SPEED_MBPS 100000            /* a device's speed unless its spec names one */

/* Pause bursts of a device (nm_pause.c), [0] received, [1] sent, per priority. */
struct nm_pause {
        uint64_t frames[2][8], us[2][8], transitions[2][8];     /* of the bursts that ended */
        uint32_t pps[2][8];                                     /* a burst set, 0 none */
        uint64_t since_ms[2][8], until_ms[2][8];
};

struct nm_dev {
        char name[IF_NAMESIZE];
        int ifindex;
        const struct nm_driver *drv;
        char kernel_driver[24];         /* the PCI driver when it is the device's own (mlxsw's generations) */
        void *priv;                     /* the driver's state, drv->priv_size bytes */
        uint32_t mtu, min_mtu, max_mtu;
        uint8_t mac[6];
        uint32_t speed_mbps;            /* SYSFS/class/net/IF/speed while carrier is on ("-1" while off) */
        unsigned lanes;                 /* the port's width for ETHTOOL_GLINKSETTINGS; 0: no link modes */
        int master;                     /* IFLA_MASTER: the upper device (a bond) by ifindex, 0 none */
        /* carrier (netif_carrier_on/off) and its counters (IFLA_CARRIER_*) */
        bool carrier;
        uint32_t carrier_up_count, carrier_down_count;
        uint64_t down_at_ms, up_at_ms;  /* pending carrier events, 0 = none */
        /* the RDMA device of the port: SYSFS/class/infiniband/RDMA/ports/1/state */
        char rdma[32];
        bool rdma_active;
        uint64_t rdma_active_at_ms;     /* pending ACTIVE, 0 = none */
        int fail[NM_OP_MAX];            /* > 0: the next op fails with -fail (once) */
        unsigned fail_skip[NM_OP_MAX];  /* calls that still go through before that */
        unsigned n_sets;                /* SET requests (dcbnl and link) that reached the driver */
        struct nm_pause pause;          /* control "burst": PFC pause on the device's clock */
};

struct nm_app {
        int ifindex;
        struct dcb_app app;
};

struct nm {
        unsigned n_devs;
        struct nm_dev devs[NM_DEVS_MAX];
        /* net/dcb/dcbnl.c dcb_app_list: every device's APP entries, newest first */
        unsigned n_apps;
        struct nm_app apps[NM_APPS_MAX];
        /* net/sched: every device's qdiscs (a device without a root one has the kernel's default) */
        unsigned n_qdiscs;
        struct nm_qdisc qdiscs[NM_QDISCS_MAX];
        char sysfs_root[256];           /* "" = no sysfs files are written */
        char debugfs_root[256];         /* "" = no debugfs files are written */
        bool kernel_routes;             /* --kernel-routes: RTM_GETROUTE answered by the kernel of the model's netns */
        /* timings of a link flap */
        unsigned flap_delay_ms;         /* mlx5: PORT_CHANGE event after the SET returned */
        unsigned link_up_ms;            /* carrier back after it went down; 0: each driver's own figure */
        unsigned rdma_lag_ms;           /* RDMA port ACTIVE after carrier */
        unsigned n_requests;
        unsigned n_gstats;              /* ETHTOOL_GSTATS answered (a reader of the statistics at work) */
        unsigned n_corrupt;             /* driver memory overruns seen (a real driver would corrupt itself) */
        FILE *log;                      /* what the model did, for people reading test logs; may be NULL */
};

/* ---- nm_pause.c ---- */
/* A burst of PFC XOFF at pps frames/s on prio for ms, received (the peer pauses the device) or sent. */
int nm_pause_burst(struct nm *m, struct nm_dev *d, bool tx, unsigned prio, uint32_t pps, unsigned ms);
/* What the MAC counted of the bursts on prio up to now: frames, microseconds paused, XOFF-to-XON transitions. */
void nm_pause_now(const struct nm_dev *d, bool tx, unsigned prio, uint64_t *frames, uint64_t *us,
                  uint64_t *transitions);

/* ---- nm_core.c ---- */
void nm_init(struct nm *m);
void nm_done(struct nm *m);
const struct nm_driver *nm_driver_by_name(const char *name);
/* Add a device "DRIVER:NAME:IFINDEX[:VARIANT[:SPEED]]" (SPEED in Mb/s, default NM_SPEED_MBPS). -EINVAL with a message on stderr when malformed. */
int nm_add(struct nm *m, const char *spec);
struct nm_dev *nm_dev_by_name(struct nm *m, const char *name);
struct nm_dev *nm_dev_by_index(struct nm *m, int ifindex);
uint64_t nm_now_ms(void);
/* Move carrier/RDMA timelines to now; returns the next pending event time (0 = none). */
uint64_t nm_tick(struct nm *m);
/* A link flap: carrier goes down after delay_ms (0: at once) and comes back link_up_ms later. */
void nm_flap(struct nm *m, struct nm_dev *d, unsigned delay_ms);
/* d is a port of a bond (netif_is_lag_master() of its upper; ice_lag's lag->bonded). */
bool nm_in_bond(struct nm *m, const struct nm_dev *d);
/* The one-shot fault of op, if armed: returns -errno once, then 0. */
int nm_fault(struct nm_dev *d, enum nm_op op);
/* Create the device's sysfs tree (class/net, PCI device, driver, RDMA port) under m->sysfs_root, and its debugfs files. */
int nm_sysfs_create(struct nm *m, struct nm_dev *d);
/* The device's PCI function, "0000:12:00.0" (its sysfs device and debugfs directory name). */
void nm_bdf(const struct nm_dev *d, char *buf, size_t size);
/* mkdir -p with `mode` for the last component; a file of `text` with `mode` (written whole, renamed). */
int nm_mkdirs(const char *path, unsigned mode);
int nm_write_file(const char *path, const char *text, unsigned mode);
/* SYSFS/class/net/IF/speed as net-sysfs speed_show() prints it: Mb/s with carrier, -1 (SPEED_UNKNOWN) without. */
void nm_sysfs_speed(struct nm *m, const struct nm_dev *d);
/* The state of every device, stable text: equal text = equal device state. */
void nm_dump(struct nm *m, FILE *f);
void nm_logf(struct nm *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* net/dcb/dcbnl.c: the kernel's APP list (dcb_ieee_setapp / dcb_ieee_delapp / dcb_ieee_getapp_mask). */
int nm_dcb_ieee_setapp(struct nm *m, struct nm_dev *d, const struct dcb_app *app);
int nm_dcb_ieee_delapp(struct nm *m, struct nm_dev *d, const struct dcb_app *app);
/* The device's entries sorted by selector, protocol, priority, as "S:P:Q" words. */
void nm_dump_apps(struct nm *m, const struct nm_dev *d, FILE *f);
/* Hex/decimal words of a byte array for dumps. */
void nm_dump_u8s(FILE *f, const char *label, const uint8_t *v, unsigned n);

/* ---- nm_netlink.c: one request in, the replies out ---- */
struct nm_out {
        unsigned n;
        size_t len[NM_OUT_MAX];
        unsigned char buf[NM_OUT_MAX][NM_REPLY_MAX];
};
/* The next reply datagram, zeroed; NULL when the request has produced NM_OUT_MAX already. */
unsigned char *nm_out_new(struct nm_out *o);
/* A reply header at buf answering req (nlmsg_pid 0). */
struct nlmsghdr *nm_msg_start(unsigned char *buf, const struct nlmsghdr *req, uint16_t type, uint16_t flags);
/* netlink_ack() with NETLINK_CAP_ACK: the request's header, extack (may be NULL) as NLMSGERR_ATTR_MSG. */
void nm_put_ack(struct nm_out *o, const struct nlmsghdr *req, int error, const char *extack);
/* A dump's NLMSG_DONE at buf; returns its aligned length. */
size_t nm_put_done(unsigned char *buf, const struct nlmsghdr *req);
/* Handle one datagram from a client (several messages are handled in turn). */
void nm_request(struct nm *m, const void *buf, size_t len, struct nm_out *out);
/* The dcbnl SET paths, also used for hand changes from the control socket. */
int nm_ieee_setapp(struct nm *m, struct nm_dev *d, struct dcb_app *app);
int nm_ieee_delapp(struct nm *m, struct nm_dev *d, struct dcb_app *app);
int nm_set_mtu(struct nm *m, struct nm_dev *d, uint32_t mtu, const char **ret_extack);

/* ---- nm_tc.c: RTM_NEWQDISC / RTM_DELQDISC / RTM_GETQDISC (1: a dump, no ACK), and the dump lines ---- */
int nm_tc_request(struct nm *m, const struct nlmsghdr *req, struct nm_out *o, const char **extack);
void nm_tc_dump(struct nm *m, const struct nm_dev *d, FILE *f);
/* A qdisc of the device by handle, NULL none (drivers judging an offload look at the parent). */
const struct nm_qdisc *nm_tc_find(const struct nm *m, int ifindex, uint32_t handle);
/* An offloaded root qdisc made or removed by hand (nm_ctl DEV qdisc root|none). */
int nm_tc_hand_root(struct nm *m, struct nm_dev *d, bool add);

/* ---- nm_genl.c: the same for NETLINK_GENERIC (the genl controller and devlink's rate dump) ---- */
#define NM_DEVLINK_FAMILY 0x15          /* the id the controller hands out for "devlink" (any id >= GENL_MIN_ID) */
void nm_genl_request(struct nm *m, const void *buf, size_t len, struct nm_out *out);

/* ---- the drivers ---- */
extern const struct nm_driver nm_mlx5;
extern const struct nm_driver nm_ice;
extern const struct nm_driver nm_bnxt;
extern const struct nm_driver nm_sparx5;
extern const struct nm_driver nm_mlxsw;
extern const struct nm_driver nm_veth;
extern const struct nm_driver nm_bond;

/* ---- nm_ethtool.c: one SIOCETHTOOL over the ethtool seam (drivers/host/ethtool.h) ---- */
/* req: IFNAMSIZ bytes of name, then the command; reply: int32 0/-errno, then the command. */
void nm_ethtool(struct nm *m, const void *req, size_t len, void *reply, size_t size, size_t *ret_len);
/* "auto+no-stall" -> does the variant name this word ('+'-separated)? */
bool nm_variant_has(const char *variant, const char *word);

/* ---- nm_control.c: the text commands of the control socket ---- */
/* Run one command line; its answer goes to f. Returns 0 or -errno. */
int nm_control(struct nm *m, const char *line, FILE *f);
