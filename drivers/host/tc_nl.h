/* SPDX-License-Identifier: MIT */
/*
 * rtnetlink traffic-control messages for the qdisc driver, through the one
 * netlink helper (nl.c): RTM_NEWQDISC / RTM_DELQDISC / RTM_GETQDISC with
 * TCA_KIND "ets" or "red" and their TCA_OPTIONS, and the parser of the qdisc
 * dump (options and TCA_STATS2 / TCA_XSTATS statistics).
 *
 * Requests are built exactly as iproute2's tc builds the same command
 * (tests/data/tc/ holds its bytes): ets options nested with NLA_F_NESTED
 * (net/sched/sch_ets.c parses them with nla_parse_nested), red options without
 * it and its flags in TCA_RED_FLAGS (tc/q_red.c).
 *
 * The dump's TCA_HW_OFFLOAD (a u8 the kernel recomputes on every dump, net/sched/
 * sch_api.c tc_fill_qdisc()) says whether the device's driver offloads a qdisc: a
 * driver that refuses an offload only logs it, and the qdisc runs in software.
 *
 * Pure encode/decode: no policy, no state; the driver (qdisc_ets.c) decides what
 * to send.
 */
#pragma once

#include <linux/pkt_sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/errbuf.h"
#include "drivers/host/nl.h"
#include "drivers/host/tc_red.h"

#define TC_NL_BANDS_MAX 16              /* TCQ_ETS_MAX_BANDS */
#define TC_NL_PRIOS 16                  /* TC_PRIO_MAX + 1: the ets priomap */
#define TC_NL_KIND_MAX 16

/* "tc qdisc add" / "change" / "replace" / "del". */
enum tc_nl_op {
        TC_NL_ADD,                      /* RTM_NEWQDISC, NLM_F_CREATE | NLM_F_EXCL */
        TC_NL_CHANGE,                   /* RTM_NEWQDISC, no flags: an existing qdisc by handle */
        TC_NL_REPLACE,                  /* RTM_NEWQDISC, NLM_F_CREATE | NLM_F_REPLACE */
        TC_NL_DEL,                      /* RTM_DELQDISC */
        TC_NL_OP_MAX,
};

struct tc_ets_opts {
        uint8_t nbands;
        uint8_t nstrict;
        uint32_t quanta[TC_NL_BANDS_MAX];       /* bands nstrict .. nbands - 1 */
        uint8_t priomap[TC_NL_PRIOS];
};

struct tc_red_opts {
        uint32_t limit;
        uint32_t qth_min;
        uint32_t qth_max;
        uint8_t wlog, plog, scell_log;
        uint32_t max_p;
        uint32_t flags;                         /* parms.flags | TCA_RED_FLAGS value */
};

struct tc_qstats {
        bool has_basic, has_queue, has_red;
        uint64_t bytes;
        uint64_t packets;
        uint32_t qlen, backlog, drops, requeues, overlimits;
        uint32_t red_early, red_pdrop, red_other, red_marked;     /* struct tc_red_xstats */
};

/* One RTM_NEWQDISC message of a dump. */
struct tc_qdisc {
        int ifindex;
        uint32_t handle;
        uint32_t parent;
        char kind[TC_NL_KIND_MAX];
        bool has_ets, has_red;                  /* options were present and parsed */
        bool has_offload;                       /* TCA_HW_OFFLOAD was there (4.15+: in every dump) */
        bool offloaded;                         /* its value: the driver offloads the qdisc (TCQ_F_OFFLOADED) */
        struct tc_ets_opts ets;
        struct tc_red_opts red;
        struct tc_qstats stats;
};

/* A new RTM_*QDISC request for ifindex with parent/handle (tcmsg filled). */
struct nlmsghdr *tc_nl_request(struct nl *nl, enum tc_nl_op op, int ifindex, uint32_t parent, uint32_t handle);

/* TCA_KIND + TCA_OPTIONS. -EMSGSIZE when it does not fit. */
int tc_nl_put_ets(struct nlmsghdr *nlh, const struct tc_ets_opts *o);
int tc_nl_put_red(struct nlmsghdr *nlh, const struct tc_red_params *p);

/* Parse one RTM_NEWQDISC message. -EBADMSG / -EINVAL on a malformed one. */
int tc_nl_parse(const struct nlmsghdr *nlh, struct tc_qdisc *ret);

/*
 * Dump the qdiscs of ifindex (every interface for 0) as `tc qdisc show` sees them
 * (the kernel's hidden default children are not listed), calling fn for each; fn
 * returning < 0 stops with that error.
 */
int tc_nl_dump(struct nl *nl, int ifindex, int (*fn)(const struct tc_qdisc *q, void *data), void *data,
               struct errbuf *e);

/*
 * The rate of the htb class classid on ifindex (a shaper an operator put where the
 * qdisc driver attaches), bytes/s. -ENOENT when there is no such htb class.
 */
int tc_nl_class_rate(struct nl *nl, int ifindex, uint32_t classid, uint64_t *ret_Bps, struct errbuf *e);

/* Send a built request and wait for the ACK; `what` names it in messages. */
int tc_nl_talk(struct nl *nl, struct nlmsghdr *nlh, const char *what, struct errbuf *e);

/* "4e54:", "1:1", "root": tc's notation of a handle or parent, into buf. */
const char *tc_nl_handle_str(uint32_t h, char *buf, size_t size);
/* tc's notation back: "root", "MAJ:" or "MAJ:MIN" (hexadecimal). -EINVAL otherwise. */
int tc_nl_handle_parse(const char *s, uint32_t *ret);
