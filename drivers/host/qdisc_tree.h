/* SPDX-License-Identifier: MIT */
/*
 * nettune's qdisc tree on a switch port, the way mlxsw offloads it (the mlxsw
 * wiki, "Queues Management"; drivers/net/ethernet/mellanox/mlxsw/spectrum_qdisc.c):
 *
 *   PARENT (root, or a class the operator names) ─ ets 4e54: bands 8
 *       band b = traffic class 7 - b          (MLXSW_SP_PRIO_BAND_TO_TCLASS)
 *       class 4e54:(b+1) ─ red (4e60 + tc): ecn, one per ECN queue the policy lists
 *
 * ETS: the strict bands are the first nstrict (net/sched/sch_ets.c), so the strict
 * traffic classes must be the highest ones; every other class is a DRR band with a
 * quantum of QDISC_ETS_QUANTUM_PER_PCT bytes per percent of bandwidth (mlxsw turns
 * quanta into percentages the same way). priomap[p] = 7 - priority_to_tc[p] for the
 * 802.1p priorities 0-7; skb priorities 8-15 go with priority 0. Without an ets
 * policy the tree is created all strict with the identity map (the wiki's example).
 *
 * Ours = handle 4e54:, kind ets, 8 bands at the attach point; red children by their
 * handles. A qdisc with handle 0 there is the kernel's default. Anything else is
 * foreign and is never changed (unless a policy says replace_root_qdisc), nor is a
 * qdisc someone grafted under one of our bands.
 *
 * Read as state: nettune's tree gives ets from the root's options and ecn from the
 * red children; the default (and a foreign qdisc) reads as "every priority in
 * traffic class 0, all strict" and no ECN queue, with state.qdisc saying which.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "common/errbuf.h"
#include "drivers/host/nl.h"
#include "drivers/host/tc_nl.h"
#include "policies/state/state.h"

#define QDISC_ETS_MAJOR 0x4e54u                 /* "NT" */
#define QDISC_RED_MAJOR(tc) (0x4e60u + (tc))    /* the red child of traffic class tc */
#define QDISC_ETS_BANDS 8
#define QDISC_ETS_QUANTUM_PER_PCT 1000u

#define QDISC_ETS_HANDLE (QDISC_ETS_MAJOR << 16)
#define QDISC_RED_HANDLE(tc) (QDISC_RED_MAJOR(tc) << 16)
#define QDISC_BAND_CLASS(tc) (QDISC_ETS_HANDLE | (uint32_t)(QDISC_ETS_BANDS - (tc)))  /* band 7-tc, minor band+1 */

/* What sits at the attach point and under our bands. */
struct qdisc_tree {
        uint32_t parent;                        /* the attach point */
        bool has_parent_qdisc;                  /* a class attach point: its qdisc was seen */
        uint8_t root;                           /* enum state_qdisc_root */
        bool has_top;
        struct tc_qdisc top;                    /* the qdisc at the attach point */
        bool has_child[QDISC_ETS_BANDS];        /* by traffic class */
        struct tc_qdisc child[QDISC_ETS_BANDS];
};

/* Dump the interface's qdiscs and classify them. -ENOENT when parent is a class of a qdisc that is not there. */
int qdisc_tree_read(struct nl *nl, int ifindex, uint32_t parent, struct qdisc_tree *ret, struct errbuf *e);

/* The same in steps (tests, fuzzing): init, add every qdisc of the interface, finish. */
void qdisc_tree_init(struct qdisc_tree *t, uint32_t parent);
void qdisc_tree_add(struct qdisc_tree *t, const struct tc_qdisc *q);
int qdisc_tree_finish(struct qdisc_tree *t, struct errbuf *e);

/* A child of one of our bands that is not our red (foreign); false for an empty band. */
bool qdisc_tree_foreign_child(const struct qdisc_tree *t, unsigned tc);
/* Our red child of traffic class tc, or NULL. */
const struct tc_qdisc *qdisc_tree_red(const struct qdisc_tree *t, unsigned tc);

/* ets/ecn (of `fields`) and state.qdisc from a tree. */
void qdisc_tree_to_state(const struct qdisc_tree *t, uint32_t fields, struct state *ret);

/* ---- ets <-> policy ets ---- */

/* The ets options for a policy's ets. -EINVAL with the reason when tc ets cannot express it. */
int qdisc_ets_from_state(const struct state_ets *s, struct tc_ets_opts *ret, struct errbuf *e);
/* All strict, priorities mapped by prio_tc (NULL: identity). */
void qdisc_ets_default(const uint8_t *prio_tc, struct tc_ets_opts *ret);
/* A policy's ets from 8-band options: percentages exact for quanta we wrote, else nearest, summing to 100. */
void qdisc_ets_to_state(const struct tc_ets_opts *o, struct state_ets *ret);
/* The same options as far as the kernel keeps them (nbands, nstrict, ets quanta, priomap). */
bool qdisc_ets_equal(const struct tc_ets_opts *a, const struct tc_ets_opts *b);

/* "ets 4e54:", "htb 1:" for messages. */
const char *qdisc_tree_name(const struct tc_qdisc *q, char *buf, size_t size);
