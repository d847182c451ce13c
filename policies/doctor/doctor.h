/* SPDX-License-Identifier: MIT */
/*
 * doctor: "why is my fabric slow?" as pure functions over collected facts.
 *
 *   facts     what the agents read (agent/doctor/doctor_collect.c): per node its interfaces
 *             (link state, speed and supported speed, the managed knobs as struct
 *             state, counter rates over the window, the switch port each faces),
 *             lldpad, the committed policy and its drift; per switch its ports
 *             (state, speed, counter rates). The controller merges the nodes'
 *             facts (controller/cmd/ctl_doctor.c) and the same rules run fleet-wide.
 *   rules     doctor_rules[]: one row per finding code, with its severity, its
 *             threshold and the document that sets it, and a check that appends
 *             findings (doctor_rules.c).
 *   report    the findings, the notes (what could not be checked: "path unknown"),
 *             and the proposal: a policy that fixes what a policy can fix
 *             (doctor_propose.c); each finding says whether the proposal fixes it.
 *
 * Nothing here reads a device or prints: the agent and the controller collect,
 * this file judges, and both print the same report (doctor_report.c).
 *
 * The path: a host interface faces one switch port, named in its facts as
 * peer (switch, port) by the agent configuration's "links" or by an LLDP neighbour
 * (agent/doctor/doctor_collect.c). The switch is any switch of any node's facts — the union
 * of the ports every agent that manages it reports — or a node in the switch role
 * (its interfaces are its ports). A rule that needs the path
 * never guesses: without one the report says "path unknown".
 *
 * May call: policies/policy, policies/state, policies/json, common/. Called by
 * agent/doctor, agent/api, agent/cmd, controller/ (doctor, tune) and drivers/switch
 * (switch_counters.c fills the facts of a port).
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/errbuf.h"
#include "policies/policy/policy.h"
#include "policies/state/state.h"

#define DOCTOR_NAME_MAX 64
#define DOCTOR_NOTES_MAX 32
#define DOCTOR_NOTE_MAX 256
#define DOCTOR_DRIFT_MAX 32
#define DOCTOR_ERROR_MAX 256
#define DOCTOR_RATES_MAX 96             /* counter rates per interface or port */
#define DOCTOR_IFACES_MAX 256
#define DOCTOR_SWITCHES_MAX 16
#define DOCTOR_PORTS_MAX STATE_PORTS_MAX
#define DOCTOR_WINDOW_MAX_S 600
#define DOCTOR_PRIO_ANY (-1)

/* What a counter counts, whichever driver or switch named it. */
enum doctor_counter {
        DOCTOR_PAUSE_RX,                /* PFC (per priority) or link pause frames received */
        DOCTOR_PAUSE_TX,                /* ... sent */
        DOCTOR_ECN_MARKED,              /* packets marked CE (switch egress queue; a NIC: received marked) */
        DOCTOR_CNP_SENT,                /* congestion notification packets sent (notification point) */
        DOCTOR_CNP_HANDLED,             /* CNPs received and acted on (reaction point) */
        DOCTOR_DISCARD,                 /* out of buffer, no-buffer and queue drops */
        DOCTOR_WRED_DROP,               /* early drops of a RED/WRED queue */
        DOCTOR_PAUSE_STORM,             /* the device's own pause storm detection fired (mlx5) */
        DOCTOR_TX_PACKETS,              /* packets a queue sent (what its marks are a share of) */
        DOCTOR_WD_STORMS,               /* storms a switch's PFC watchdog detected on a queue */
        DOCTOR_WD_RESTORES,             /* ... and gave back */
        DOCTOR_PRIO_BYTES,              /* bytes a port received or sent on one priority (mlx5 rx/tx_prioN_bytes) */
        DOCTOR_RDMA_BYTES,              /* RoCE bytes the NIC received or sent (mlx5 rx/tx_vport_rdma_*_bytes) */
        DOCTOR_RX_DISCARD,              /* received and dropped for lack of buffer: per priority (priority
                                           group), or the port (mlx5 rx_prioN_discards, rx_discards_phy;
                                           SONiC PG drops; NVUE rx-buffer-discards; EOS inDiscards) */
        DOCTOR_COUNTER_MAX,
};

/* One counter's increase over the window. */
struct doctor_rate {
        char name[48];                  /* the source's own name: "rx_prio3_pause", "tx-pause-frames" */
        uint8_t kind;                   /* enum doctor_counter */
        int8_t prio;                    /* priority (pause) or queue (ecn, drops) 0-7, DOCTOR_PRIO_ANY: the port */
        uint64_t delta;
        double per_s;
};

struct doctor_rates {
        unsigned n;
        struct doctor_rate *v;          /* owned */
};

/* Link facts of an interface or a switch port; 0 / false = not known. */
struct doctor_link {
        bool state_known;
        bool up;                        /* operationally up (carrier) */
        uint32_t speed_mbps;            /* negotiated */
        uint32_t max_speed_mbps;        /* the fastest link mode it supports */
        uint32_t shaper_mbps;           /* a Linux switch port: the rate of the class nettune's tree sits under
                                           (qdisc_parents), what its queues drain at; 0 = none */
        char rate[48];                  /* RDMA port rate as the kernel shows it: "100 Gb/sec (4X EDR)" */
        uint32_t lanes;                 /* the port's lanes (ethtool's link modes), 0 = unknown */
};

enum doctor_path_source {
        DOCTOR_PATH_NONE,
        DOCTOR_PATH_CONFIG,             /* agent configuration "links" */
        DOCTOR_PATH_LLDP,               /* an LLDP neighbour (lldpd or lldpad) */
        DOCTOR_PATH_SOURCE_MAX,
};

struct doctor_peer {
        uint8_t source;                 /* enum doctor_path_source */
        char sw[DOCTOR_NAME_MAX];       /* switch (or switch-role node) name */
        char port[DOCTOR_NAME_MAX];
};

/*
 * A burst of pause the agent's counter sampler saw (drivers/host/sampler.h): consecutive
 * samples of sample_ms at or above its bound, inside the window.
 */
#define DOCTOR_BURSTS_MAX 8
struct doctor_burst {
        char name[48];                  /* the counter: "rx_prio3_pause", "rx_prio3_pause_duration" */
        uint8_t kind;                   /* enum doctor_counter (DOCTOR_PAUSE_RX or DOCTOR_PAUSE_TX) */
        int8_t prio;                    /* the priority, DOCTOR_PRIO_ANY: the link's pause */
        bool duration;                  /* count is microseconds paused, else pause frames */
        int64_t start_ms;               /* wall clock, ms since the epoch */
        uint32_t length_ms;
        uint64_t count;                 /* frames, or microseconds paused, over the burst */
        double peak_per_s;              /* the highest sample: frames/s, or the share paused (0-1) */
};

struct doctor_iface {
        char name[DOCTOR_NAME_MAX];
        char driver[32];                /* kernel driver */
        bool rdma;                      /* an RDMA device backs it */
        bool managed;                   /* a target of the committed policy */
        struct doctor_link link;
        struct state st;                /* live: every field read here (present bits) */
        struct doctor_peer peer;
        struct doctor_rates rates;
        unsigned n_bursts;              /* pause bursts the sampler saw over the window */
        struct doctor_burst bursts[DOCTOR_BURSTS_MAX];
};

struct doctor_port {
        char name[DOCTOR_NAME_MAX];
        struct doctor_link link;
        struct state st;                /* mtu, trust, dscp_to_priority, pfc, ecn (and ets on Linux) */
        struct doctor_rates rates;
};

struct doctor_switch {
        char name[DOCTOR_NAME_MAX];
        char dialect[16];               /* "nvue", "sonic", "eos"; "linux" for a node in the switch role */
        uint32_t mtu_max;               /* the dialect's MTU limit (a proposal stays within it), 0 unknown */
        char error[DOCTOR_ERROR_MAX];   /* its configuration could not be read ("" read) */
        unsigned n_ports;
        struct doctor_port *ports;      /* owned */
};

/* One difference as `nettune-agent drift` reports it (its diff entry, whole: DIFF_KEY_MAX, DIFF_VALUE_MAX). */
struct doctor_drift {
        char target[DOCTOR_NAME_MAX];
        char key[128];
        char live[160];
        char committed[160];
        char owner[DOCTOR_NAME_MAX];    /* the committed policy (layer) that owns the field, "" unknown */
};

/*
 * A field serve's enforcement stopped restoring because something else keeps writing
 * it (the agent's second_writer finding, docs/operations.md "Drift").
 */
#define DOCTOR_SECOND_WRITERS_MAX 16
struct doctor_second_writer {
        char target[DOCTOR_NAME_MAX];
        char field[48];
        unsigned times;                 /* restores since a person last acted */
        char values[160];               /* the values seen, ", " between them */
};

struct doctor_node {
        char name[DOCTOR_NAME_MAX];
        char error[DOCTOR_ERROR_MAX];   /* could not be collected ("" collected) */
        bool switch_role;               /* its interfaces are switch ports (a Linux switch) */
        bool lldpad;                    /* lldpad runs: it owns DCB (DCBX) on this node */
        int lldpad_pid;
        char policy[DOCTOR_NAME_MAX];   /* the committed policy, "" none */
        uint32_t declared_cable_m;      /* its pfc.cable_length_m, 0 when it declares none */
        bool drift_known;
        unsigned n_drift;               /* differences (only the first DOCTOR_DRIFT_MAX listed) */
        struct doctor_drift drift[DOCTOR_DRIFT_MAX];
        double window_s;                /* how long the collection took (the counters' window and the reads) */
        unsigned sample_ms;             /* the counter sampler's period over the window, 0: not sampled */
        unsigned probe_port;            /* its probe responder's port (probe.listen), 0 unknown */
        unsigned n_ifs;
        struct doctor_iface *ifs;       /* owned */
        unsigned n_switches;
        struct doctor_switch *switches; /* owned */
        unsigned n_notes;               /* what could not be collected and why */
        char notes[DOCTOR_NOTES_MAX][DOCTOR_NOTE_MAX];
        unsigned n_second_writers;      /* fields enforcement gave up to another writer */
        struct doctor_second_writer second_writers[DOCTOR_SECOND_WRITERS_MAX];
};

/*
 * Bandwidth measurements between nodes. "p2p": one pair at a time (the probe of
 * drivers/probe); "fabric": many pairs at once (the fabric probe, when a node has
 * one: the same shape, kind "fabric"). The seed's signature is p2p fine, fabric slow.
 */
#define DOCTOR_PROBE_KINDS 2
struct doctor_probe {
        char from[DOCTOR_NAME_MAX];
        char to[DOCTOR_NAME_MAX];
        bool ok;
        double gbps;
        double rtt_ms;                  /* the path's base round trip the probe's TCP saw (min_rtt), 0 = unknown */
        char error[160];
};

struct doctor_probes {
        char kind[16];                  /* "p2p", "fabric"; "" = not measured */
        unsigned n;
        struct doctor_probe *v;         /* owned */
};

/*
 * Where the fabric is slow, as nettunectl locate judged it (controller/fabric/locate.h):
 * an element (a node's link, a rack's uplink, one path) whose pairs were far below
 * their peers' median in every round, with the pairs as evidence.
 */
struct doctor_suspect {
        char kind[16];                  /* "node", "uplink", "path" */
        char name[2 * DOCTOR_NAME_MAX]; /* the node, the rack, "A -> B" */
        char rack[DOCTOR_NAME_MAX];
        char side[16];                  /* "receive", "send", "both" */
        bool high;                      /* confidence high (else medium) */
        unsigned slow, of;              /* its pairs slow, of those measured */
        double gbps, peers_gbps;        /* the median of its slow pairs, and their peers' */
        char evidence[DOCTOR_NOTE_MAX]; /* "node002 -> node006 0.002 Gb/s, ..." */
};

struct doctor_suspects {
        bool run;                       /* locate ran (--locate): no suspect then means a clean fabric */
        unsigned n;
        struct doctor_suspect *v;       /* owned */
};

struct doctor_facts {
        unsigned n_nodes;
        struct doctor_node *nodes;      /* owned */
        struct doctor_probes probes[DOCTOR_PROBE_KINDS];
        struct doctor_suspects suspects;        /* nettunectl doctor --locate */
};

/*
 * A vendor reference profile doctor knows (--profile NAME: named; the other profiles
 * of its directory are known, not named): cnp_class_mismatch names the versions whose
 * CNP marking or switch map the finding's ends agree or disagree with.
 */
struct doctor_profile {
        char name[POLICY_NAME_MAX];
        bool named;
        struct state spec;              /* its spec: host_ecn's CNP DSCP/priority, dscp_to_priority */
};

/* Thresholds and expectations of the rules (doctor_params_default: the documented values). */
struct doctor_params {
        double window_s;                /* counter window (collection) */
        double pause_storm_pps;         /* pause frames per second on one priority */
        unsigned pause_burst_min_ms;    /* a sampled burst of pause at least this long is pause_burst's (20) */
        double heavy_marking_pps;       /* ECN-marked packets per second that count as heavy ... */
        double heavy_marking_share;     /* ... or this share of the queue's packets (0.001: 1 in 1000) */
        unsigned ecn_min_bytes_per_gbps;        /* ECN floor per Gb/s of port speed */
        unsigned ecn_max_bytes_per_gbps;
        double rtt_ms;                  /* the round trip the ECN floor follows (--rtt-ms); 0: the largest the
                                           probes measured, else the per-speed floor above */
        unsigned ecn_probability_pct;   /* a proposal's marking probability at max, at most (10) */
        int roce_dscp;                  /* the RoCE data DSCP (26) */
        int roce_prio;                  /* its priority; -1: what the hosts map it to, else 3 */
        int cnp_dscp;                   /* the CNP DSCP when no host says (48) */
        double watchdog_flaps;          /* storm/restore cycles of one queue over the window that are flapping (3) */
        double rdma_min_bytes_per_s;    /* RoCE traffic below this judges no priority (rdma_on_lossy_priority) */
        const struct doctor_profile *profiles;  /* borrowed; the named ones and their directory's others */
        unsigned n_profiles;
        double class_share;             /* the share of RoCE bytes the lossless priorities must carry (0.99) */
};

void doctor_params_default(struct doctor_params *p);

#define DOCTOR_ECN_MAX_RATIO 10         /* the ECN floor's max: 10 x min (Cumulus RoCE: 150000 / 1500000) */

/* The round trip the ECN floor follows: p->rtt_ms, else the largest base round trip of f's probes, 0 none. */
double doctor_rtt_ms(const struct doctor_facts *f, const struct doctor_params *p);
/*
 * The ECN floor of a port draining at rate_mbps (0: unknown, 100 Gb/s assumed) over
 * a round trip of rtt_ms (0: none measured): min_threshold_bytes and max, as the rule
 * ecn_threshold_low judges them (its bandwidth-delay product, else per Gb/s of speed).
 */
void doctor_ecn_floor(uint32_t rate_mbps, double rtt_ms, const struct doctor_params *p, uint32_t *ret_min,
                      uint32_t *ret_max);

/* ---- facts: lifetime and lookups (doctor_facts.c) ---- */

/* Grow the array *array (elements of size bytes, *n of them) by one zeroed element: its address, NULL on ENOMEM. */
void *doctor_append(void *array, unsigned *n, size_t size);

void doctor_facts_init(struct doctor_facts *f);
void doctor_facts_free(struct doctor_facts *f);
/* A new node (zeroed) appended; NULL on ENOMEM. Pointers into nodes move. */
struct doctor_node *doctor_facts_add_node(struct doctor_facts *f);
/* Move every node of src to the end of dst (src is left empty). 0 or -ENOMEM. */
int doctor_facts_take(struct doctor_facts *dst, struct doctor_facts *src);
void doctor_node_free(struct doctor_node *n);
/* Append an empty interface / switch / rate / probe; NULL on ENOMEM or when full. */
struct doctor_iface *doctor_node_add_iface(struct doctor_node *n);
struct doctor_switch *doctor_node_add_switch(struct doctor_node *n, unsigned n_ports);
struct doctor_rate *doctor_rates_add(struct doctor_rates *r);
struct doctor_probe *doctor_probes_add(struct doctor_probes *p);
struct doctor_suspect *doctor_suspects_add(struct doctor_suspects *s);
void doctor_node_note(struct doctor_node *n, const char *fmt, ...) _printf_(2, 3);

/*
 * Sum of the rates of one kind at one priority/queue (DOCTOR_PRIO_ANY: every entry of
 * that kind, port-wide ones included); *ret_known: some counter of that kind was read.
 */
double doctor_rate_sum(const struct doctor_rates *r, enum doctor_counter kind, int prio, bool *ret_known);
/* The largest per-priority rate of a kind, its priority in *ret_prio (-1 none). */
double doctor_rate_max(const struct doctor_rates *r, enum doctor_counter kind, int *ret_prio);

/* Where a host interface leads (see the file comment). */
struct doctor_path {
        const struct doctor_node *node;         /* the host */
        const struct doctor_iface *iface;
        const char *sw_name;                    /* the peer's switch name */
        const struct doctor_node *sw_node;      /* who read the switch */
        const struct doctor_switch *sw;         /* NULL for a switch-role node's port */
        const struct doctor_port *port;         /* switch port facts ... */
        const struct doctor_iface *linux_port;  /* ... or a switch-role node's interface */
        uint32_t port_speed_mbps;
        const struct state *port_st;
};

/*
 * 1 and *ret filled when the interface's peer is known and its switch port is in the
 * facts; 0 when the interface has no peer; -ENOENT when the peer names a switch or
 * port the facts do not hold (*why says which).
 */
int doctor_path(const struct doctor_facts *f, const struct doctor_node *n, const struct doctor_iface *ifc,
                struct doctor_path *ret, char *why, size_t why_size);

/*
 * Is this node's copy of switch `sw` the one whose port `port` the rules judge? Every
 * agent that manages a switch reports the ports of its own configuration: the facts
 * hold their union, and a port two agents both report is judged once, on the first
 * copy that was read.
 */
bool doctor_port_first(const struct doctor_facts *f, unsigned node, const char *sw, const char *port);

/* Every host interface that carries RoCE and whose path is known: fn(path, ctx). */
void doctor_each_path(const struct doctor_facts *f, void (*fn)(const struct doctor_path *, void *), void *ctx);

/* Interfaces that carry RoCE here: RDMA-backed, DCB read, managed by the committed policy, or with a peer. */
bool doctor_iface_roce(const struct doctor_iface *ifc);

/* ---- facts as JSON (doctor_json.c): the agent's answer, the controller's input ---- */

/* {"name", "error"?, "switch_role", "lldpad", ..., "interfaces": [...], "switches": [...]}. NULL on ENOMEM. */
json_t *doctor_node_to_json(const struct doctor_node *n);
/* Strict (unknown keys, types, ranges): the node at `what` ("gpu1"), *ret filled (doctor_node_free). */
int doctor_node_from_json(const json_t *j, const char *what, struct doctor_node *ret, struct errbuf *e);
/* The document of `doctor --save-facts` / `--facts`: {"nodes": [...], "probes": {"p2p": [...]}}. */
json_t *doctor_facts_to_json(const struct doctor_facts *f);
int doctor_facts_from_json(const json_t *j, const char *file, struct doctor_facts *ret, struct errbuf *e);
/* The same from a file (at most DOCTOR_FACTS_DOC_MAX bytes), as either program's --facts reads it. */
#define DOCTOR_FACTS_DOC_MAX (64u << 20)
int doctor_facts_load(const char *path, struct doctor_facts *ret, struct errbuf *e);
const char *doctor_counter_name(enum doctor_counter k);
int doctor_counter_from_name(const char *name);
json_t *doctor_probes_to_json(const struct doctor_probes *p);

/* ---- rules and the report (doctor_rules.c, doctor_report.c) ---- */

enum doctor_severity {
        DOCTOR_INFO,
        DOCTOR_WARNING,
        DOCTOR_CRITICAL,
        DOCTOR_SEVERITY_MAX,
};

#define DOCTOR_SUBJECTS_MAX 16
#define DOCTOR_EVIDENCE_MAX 12

struct doctor_evidence {
        char key[128];                  /* a drift entry's key whole ("ports.swp12.ecn.queue3.min_threshold_bytes") */
        bool is_num;
        double num;
        char str[424];                  /* a drift entry's live and committed values and owner, whole */
};

struct doctor_rule;

struct doctor_finding {
        const struct doctor_rule *rule;
        unsigned n_nodes;
        char nodes[DOCTOR_SUBJECTS_MAX][DOCTOR_NAME_MAX];       /* nodes involved */
        unsigned n_ports;
        char ports[DOCTOR_SUBJECTS_MAX][2 * DOCTOR_NAME_MAX];   /* "gpu1:eth0", "leaf1:swp1" */
        enum doctor_severity severity;
        char summary[512];
        unsigned n_ev;
        struct doctor_evidence ev[DOCTOR_EVIDENCE_MAX];
        char fix[512];
        bool fixed;                     /* the proposal fixes it */
        char group[160];                /* rules merge findings of one key (a switch queue); not shown */
};

/* What a proposal changes: one policy over switches (or a switch-role node's ports). */
struct doctor_proposal {
        bool linux_ports;               /* targets are interfaces of switch-role nodes */
        unsigned n_targets;
        char targets[DOCTOR_SWITCHES_MAX * 4][DOCTOR_NAME_MAX];
        unsigned n_nodes;               /* the nodes that manage them */
        char nodes[DOCTOR_SUBJECTS_MAX][DOCTOR_NAME_MAX];
        struct state spec;              /* present = the fields it sets */
        uint64_t dscp_chosen;           /* DSCPs a rule chose (the rest of the map is the switch's own) */
        uint32_t mtu_max;               /* the lowest limit of the targets' dialects */
        unsigned n_overrides;           /* the policies committed on those nodes: the proposal overrides them */
        char overrides[POLICY_OVERRIDES_MAX][DOCTOR_NAME_MAX];
};

struct doctor_report {
        unsigned n;
        struct doctor_finding *v;       /* owned */
        unsigned n_notes;
        char (*notes)[DOCTOR_NOTE_MAX]; /* owned */
        struct doctor_proposal prop;
        unsigned n_nodes, n_collected;  /* nodes looked at, and collected */
};

struct doctor_rule {
        const char *code;               /* stable: "mtu_mismatch" */
        enum doctor_severity severity;  /* the usual one (a finding may raise it) */
        const char *what;               /* what it finds, one line */
        const char *threshold;          /* the threshold, in words */
        const char *source;             /* the document or source that sets it */
        bool needs_path;
        /* Its findings into r; rule is its own row. */
        void (*check)(const struct doctor_rule *rule, const struct doctor_facts *f, const struct doctor_params *p,
                      struct doctor_report *r);
};

/* The lossless class on live state (doctor_lossless.c): the checks of their rows in doctor_rules[]. */
void doctor_check_pfc_unmapped(const struct doctor_rule *rule, const struct doctor_facts *f,
                               const struct doctor_params *p, struct doctor_report *r);
void doctor_check_roce_lossy(const struct doctor_rule *rule, const struct doctor_facts *f,
                             const struct doctor_params *p, struct doctor_report *r);
void doctor_check_host_ecn(const struct doctor_rule *rule, const struct doctor_facts *f,
                           const struct doctor_params *p, struct doctor_report *r);
void doctor_check_cnp_dscp(const struct doctor_rule *rule, const struct doctor_facts *f,
                           const struct doctor_params *p, struct doctor_report *r);
void doctor_check_tc_bandwidth(const struct doctor_rule *rule, const struct doctor_facts *f,
                               const struct doctor_params *p, struct doctor_report *r);
void doctor_check_roce_tos(const struct doctor_rule *rule, const struct doctor_facts *f,
                           const struct doctor_params *p, struct doctor_report *r);
/* After every rule: the class findings on switch ports that the proposal's state clears are fixed by it. */
void doctor_lossless_fixed(const struct doctor_facts *f, const struct doctor_params *p, struct doctor_report *r);
void doctor_check_rdma_lossy(const struct doctor_rule *rule, const struct doctor_facts *f,
                             const struct doctor_params *p, struct doctor_report *r);
void doctor_check_nccl_tc(const struct doctor_rule *rule, const struct doctor_facts *f,
                          const struct doctor_params *p, struct doctor_report *r);
void doctor_check_roce_mode(const struct doctor_rule *rule, const struct doctor_facts *f,
                            const struct doctor_params *p, struct doctor_report *r);

extern const struct doctor_rule doctor_rules[];
extern const unsigned doctor_rules_n;
const struct doctor_rule *doctor_rule_find(const char *code);
const char *doctor_severity_name(enum doctor_severity s);

void doctor_report_init(struct doctor_report *r);
void doctor_report_free(struct doctor_report *r);
/* Run every rule; findings sorted by severity (critical first), then code. 0 or -ENOMEM. */
int doctor_run(const struct doctor_facts *f, const struct doctor_params *p, struct doctor_report *r);

/* For the rules: a new finding of rule (zeroed, severity = the rule's); NULL when out of memory. */
struct doctor_finding *doctor_finding_add(struct doctor_report *r, const struct doctor_rule *rule);
/* A host/switch finding of a path: both nodes and both ends named. */
struct doctor_finding *doctor_finding_path(struct doctor_report *r, const struct doctor_rule *rule,
                                           const struct doctor_path *p);
void doctor_finding_node(struct doctor_finding *x, const char *node);
void doctor_finding_port(struct doctor_finding *x, const char *a, const char *b);
void doctor_ev_num(struct doctor_finding *x, const char *key, double v);
void doctor_ev_str(struct doctor_finding *x, const char *key, const char *fmt, ...) _printf_(3, 4);
/* Keep the larger of the evidence number `key` and v (added when missing). */
void doctor_ev_max(struct doctor_finding *x, const char *key, double v);
/* The finding of rule with this group key, or NULL. */
struct doctor_finding *doctor_finding_group(struct doctor_report *r, const struct doctor_rule *rule,
                                            const char *group);
void doctor_report_note(struct doctor_report *r, const char *fmt, ...) _printf_(2, 3);

/*
 * {"summary": {...}, "findings": [...], "notes": [...], "proposal": {...}|null, "probes": {...},
 *  "nodes": [{name, collected, error?}]}. NULL on ENOMEM.
 */
json_t *doctor_report_to_json(const struct doctor_report *r, const struct doctor_facts *f);
/* The same as text, for people. */
void doctor_report_print(FILE *out, const struct doctor_report *r, const struct doctor_facts *f);
/* Both programs' exit code: 3 when a node or a switch could not be collected, else 1 with findings, else 0. */
int doctor_exit_code(const struct doctor_facts *f, const struct doctor_report *r);

/* ---- the proposal (doctor_propose.c) ---- */

/*
 * The policy document that fixes the proposal's findings (canonical JSON, validated by
 * the policy parser before it is returned): name, selector (labels, may be NULL/0),
 * the targets and the spec. *ret (caller frees) is NULL when there is nothing to propose.
 */
int doctor_proposal_policy(const struct doctor_report *r, const char *name, const struct policy_label *selector,
                           unsigned n_selector, char **ret, struct errbuf *e);
/*
 * For the rules: add a target (a switch, or a switch-role node's port) that the manager
 * node configures. false when the proposal already targets the other kind (one policy
 * cannot hold both): the finding is then not fixed by it.
 */
bool doctor_propose_target(struct doctor_report *r, const char *manager, const char *target, bool linux_port,
                           uint32_t mtu_max);

/* ---- across the cable, before a change (doctor_cable.c) ---- */

/* One finding of a path rule the check kept: its code, both ends and doctor's words. */
struct doctor_cable_item {
        const char *code;               /* static: the rule's code ("pfc_priority_mismatch") */
        enum doctor_severity severity;
        char ends[2][2 * DOCTOR_NAME_MAX];      /* "node001:ens1f0", "leaf1:swp1" */
        char summary[512];
        char fix[512];
};

struct doctor_cable {
        unsigned n_broken;              /* what the change breaks: the pre-flight refuses it */
        struct doctor_cable_item *broken;       /* owned */
        unsigned n_already;             /* paths inconsistent already (and after): notes */
        struct doctor_cable_item *already;      /* owned */
        unsigned n_undeclared;          /* what the change breaks against an end that declares nothing
                                           (no committed policy of its own: its defaults): notes */
        struct doctor_cable_item *undeclared;   /* owned */
        unsigned n_waived;              /* findings of a code the policy's checks.allow waives */
};

/*
 * The fleet pre-flight across the cable: doctor's path rules over f as collected and
 * over f with pol's fields merged into every target the rollout's nodes (names
 * nodes[0..n)) manage — their interfaces the policy names, and every copy of the
 * ports of a switch the policy names that one of them manages. f is changed (the
 * merged intent). Only findings on a path with a node of the rollout are kept; codes
 * in pol's checks.allow are counted, never kept. A new finding is broken when both
 * ends declare an intent (the host interface a target of a committed policy or of
 * pol; the switch's managing node a committed policy, or pol naming the switch),
 * else undeclared. 0 or -ENOMEM; ret freed with
 * doctor_cable_free().
 */
int doctor_cable_check(struct doctor_facts *f, const struct policy *pol, const char *const *nodes, unsigned n,
                       const struct doctor_params *p, struct doctor_cable *ret);
void doctor_cable_free(struct doctor_cable *c);
