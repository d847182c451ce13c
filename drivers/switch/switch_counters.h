/* SPDX-License-Identifier: MIT */
/*
 * Counters and link of a switch's configured ports, read only, through the switch
 * driver's open session (the plan opened it) with each dialect's own show commands,
 * parsed from the shapes the vendors document (tests/data/switch/, SOURCE):
 *
 *   nvue   nv show interface -o json                   link state and speed per port
 *          nv show interface PORT counters qos          PFC pause rx/tx per switch priority,
 *                                                       WRED discards and unicast buffer
 *                                                       discards per traffic class, ECN-marked
 *                                                       packets (Qos Port Statistics)
 *          nv show interface PORT qos roce counters     with RoCE mode on: CNP packets and
 *                                                       RoCE no-buffer discards
 *   sonic  show interfaces status                       oper state and speed
 *          show pfc counters                            PFC rx/tx per priority (PFC0-7)
 *          show queue counters                          drops per unicast queue
 *          show queue wredcounters                      WRED drops and ECN marks per queue
 *          show priority-group drop counters            ingress drops per PG (taken as priorities)
 *   eos    show interfaces | json                       interfaceStatus, bandwidth, discards,
 *                                                       rxPause/txPause (link pause)
 *          show priority-flow-control counters | json  PFC frames rx/tx per port (the shape
 *                                                       Arista's ANTA tests: no per-priority split)
 *          show qos interfaces ecn counters queue | json  ECN-marked packets per queue ("-":
 *                                                       the queue counts nothing)
 *
 * Every counter carries what it counts (enum doctor_counter) and the priority or
 * queue it belongs to. Nothing is written to the switch.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "drivers/driver.h"

#define SWITCH_COUNTERS_MAX 64

struct switch_counter {
        char name[48];                  /* the vendor's own name: "tx-pause-frames", "PFC3 Rx" */
        uint8_t kind;                   /* enum doctor_counter */
        int8_t prio;                    /* priority / queue, -1 the port */
        uint64_t value;
        double t;                       /* when the switch read it: CLOCK_MONOTONIC seconds, the midpoint of
                                           the command that printed it (0: not stamped) */
};

struct switch_port_sample {
        bool link_known;
        bool up;
        uint32_t speed_mbps;            /* 0 unknown */
        unsigned n;
        struct switch_counter c[SWITCH_COUNTERS_MAX];
};

struct switch_sample {
        unsigned n_ports;               /* the configured ports, in configuration order */
        struct switch_port_sample port[STATE_PORTS_MAX];
        char note[256];                 /* what this dialect cannot read ("" all of it) */
};

/* Read the sample of every configured port of switch target t (an open session). */
int switch_counters_read(struct target *t, struct switch_sample *ret, struct errbuf *e);

/* ---- the parsers (pure; unit-tested and fuzzed). `sw` maps port names to units. ---- */

/* `nv show interface -o json` (operational): link state and speed of each configured port. */
int switch_counters_nvue_link(const char *json, const struct switch_config *sw, struct switch_sample *ret,
                              struct errbuf *e);
/* `nv show interface PORT counters qos` into one port. */
int switch_counters_nvue_qos(const char *text, struct switch_port_sample *ret, struct errbuf *e);
/* `nv show interface PORT qos roce counters` into one port (CNPs, RoCE no-buffer discards). */
int switch_counters_nvue_roce(const char *text, struct switch_port_sample *ret, struct errbuf *e);
/* SONiC tables, every configured port at once. */
int switch_counters_sonic_status(const char *text, const struct switch_config *sw, struct switch_sample *ret,
                                 struct errbuf *e);
int switch_counters_sonic_pfc(const char *text, const struct switch_config *sw, struct switch_sample *ret,
                              struct errbuf *e);
int switch_counters_sonic_queue(const char *text, const struct switch_config *sw, struct switch_sample *ret,
                                struct errbuf *e);
int switch_counters_sonic_wred(const char *text, const struct switch_config *sw, struct switch_sample *ret,
                               struct errbuf *e);
/* `show priority-group drop counters`; -ENODATA when polling is off (the switch's warning). */
int switch_counters_sonic_pg_drop(const char *text, const struct switch_config *sw, struct switch_sample *ret,
                                  struct errbuf *e);
/* EOS `show interfaces | json`. */
int switch_counters_eos(const char *json, const struct switch_config *sw, struct switch_sample *ret,
                        struct errbuf *e);
/* EOS `show priority-flow-control counters | json` and `show qos interfaces ecn counters queue | json`. */
int switch_counters_eos_pfc(const char *json, const struct switch_config *sw, struct switch_sample *ret,
                            struct errbuf *e);
int switch_counters_eos_ecn(const char *json, const struct switch_config *sw, struct switch_sample *ret,
                            struct errbuf *e);
/* "100G", "25G", "400G", "1G", "100M" -> Mb/s; 0 for anything else ("auto", "N/A"). */
uint32_t switch_counters_speed(const char *s);
