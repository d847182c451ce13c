/* SPDX-License-Identifier: MIT */
/*
 * nettunectl locate: where in a fleet is the bad link? Internal to controller/fabric
 * (its public face is fabric.h, which includes this).
 *
 * The schedule (locate.c, pure): the nodes grouped by a label naming their rack or
 * leaf (--by), optionally within planes (--plane: pairs never cross planes). One
 * round sends, from every node at once, one flow to the next node of its own rack
 * (a ring inside each rack) and one to a node of the next rack and one to a node of
 * the rack before (a ring of racks each way): every node sends three flows and
 * receives about three, whatever the fleet's size, so the load per node is bounded
 * and a round takes the same time at 64 nodes as at 1,000; a rack's pairs across
 * come from two racks and go to two, which tells its uplink from its neighbours'.
 *
 * The judgement (locate.c, pure): a pair is slow in a round when its rate is below
 * its peers' median (the pairs of the same kind, inside a rack or across racks, in
 * that round) by more than slow_pct, or its round trip is over four times theirs
 * and 2 ms more. A round that finds a slow pair is followed by a second one of the
 * same schedule; a pair counts as slow only when it was slow in every round it ran:
 * a fleet is never called broken on one round's noise. The slow pairs are then
 * explained, largest element first:
 *   uplink  a rack whose pairs across racks are slow, in one direction (three or
 *           more of its nodes, three quarters of its pairs or more) while its pairs
 *           inside the rack are not: its uplink (or the leaf's uplink ports);
 *   node    a node whose every pair in one direction is slow while the other ends
 *           of those pairs are fine with their other peers: its link, cable or NIC
 *           (receive or send side);
 *   path    a slow pair nothing else explains: the path between those two.
 * A suspect's confidence is high when two or more of its pairs show it and the pairs
 * no suspect explains are 5% of the fleet's or fewer; medium otherwise.
 */
#pragma once

#include <stdbool.h>

#include "common/errbuf.h"
#include "drivers/probe/probe.h"

#define LOCATE_LABEL_MAX 64
#define LOCATE_ROUNDS_MAX 2
#define LOCATE_EVIDENCE_MAX 8
#define LOCATE_SUSPECTS_MAX 32
#define LOCATE_DURATION_DEFAULT_MS 1000u
#define LOCATE_SLOW_PCT_DEFAULT 50.0
#define LOCATE_CROSS_IN_MAX 4           /* flows across racks one node receives in a round */

struct locate_opts {
        char by[LOCATE_LABEL_MAX];      /* the label naming a node's rack or leaf ("rack") */
        char plane[LOCATE_LABEL_MAX];   /* "" or the label naming its plane */
        unsigned duration_ms;           /* every flow of a round */
        double slow_pct;                /* 1-95 */
        enum probe_mode mode;           /* tcp, verbs, auto */
        int dscp, priority;             /* -1 = left */
};

struct locate_pair {
        unsigned src, dst;              /* node indexes */
        bool cross;                     /* between racks */
        unsigned runs, slow_runs;       /* rounds it was measured in, and slow in */
        double gbps[LOCATE_ROUNDS_MAX]; /* NAN = not measured in that round */
        double rtt_ms[LOCATE_ROUNDS_MAX];       /* 0 = not reported */
        char error[160];                /* why a round did not measure it ("" none) */
        bool slow;                      /* slow in every round it ran (judged) */
        bool explained;                 /* a suspect accounts for it (judged) */
};

enum locate_kind {
        LOCATE_UPLINK,
        LOCATE_NODE,
        LOCATE_PATH,
        LOCATE_KIND_MAX,
};

enum locate_side {
        LOCATE_RX = 1,                  /* traffic toward it */
        LOCATE_TX = 2,                  /* traffic from it */
        LOCATE_BOTH = 3,
};

struct locate_suspect {
        enum locate_kind kind;
        unsigned node;                  /* NODE: the node; PATH: the sender */
        unsigned peer;                  /* PATH: the receiver */
        unsigned group;                 /* UPLINK: the rack; else the node's rack */
        unsigned side;                  /* enum locate_side */
        unsigned slow, of;              /* its pairs slow, of those measured */
        double gbps;                    /* the median rate of its slow pairs (the last round) */
        double peers_gbps;              /* their peers' median (the last round) */
        bool high;                      /* confidence */
        unsigned n_ev;
        unsigned ev[LOCATE_EVIDENCE_MAX];       /* pair indexes, the slowest first */
};

struct locate {
        struct locate_opts o;
        unsigned n_nodes;
        char (*names)[64];              /* owned: node names, for reports */
        unsigned *group, *plane;        /* owned: per node */
        unsigned n_groups, n_planes;
        char (*groups)[LOCATE_LABEL_MAX];       /* owned: rack names, sorted */
        unsigned n_pairs;
        struct locate_pair *pairs;      /* owned */
        unsigned rounds;                /* run so far */
        double median_gbps[LOCATE_ROUNDS_MAX][2];       /* per round: [0] inside racks, [1] across */
        double median_rtt_ms[LOCATE_ROUNDS_MAX][2];
        unsigned n_slow, n_unexplained, n_failed;
        unsigned n_suspects;
        struct locate_suspect suspects[LOCATE_SUSPECTS_MAX];
        double bytes;                   /* sent by every measured flow */
        double elapsed_s;
};

void locate_opts_default(struct locate_opts *o);
const char *locate_kind_name(enum locate_kind k);
const char *locate_side_name(unsigned side);

/*
 * Lay out the schedule over n nodes: rack[i] the value of node i's --by label and
 * plane[i] that of its --plane label ("" = none; NULL when no --plane). -EINVAL with
 * e filled when a node has no --by label (named), or no pair can be made (fewer than
 * two nodes in every plane). locate_free releases.
 */
int locate_init(struct locate *l, const struct locate_opts *o, unsigned n, const char *const *names,
                const char *const *rack, const char *const *plane, struct errbuf *e);
void locate_free(struct locate *l);

/* The pairs as (src, dst) for one round (fabric_set_pairs), in pair order; the caller frees. */
unsigned (*locate_round_pairs(const struct locate *l))[2];

/*
 * One round's result of pair k: rate (NAN when not measured, error says why) and the
 * flow's round trip (0 = unknown). locate_round_end computes the round's medians and
 * which pairs were slow in it.
 */
void locate_take(struct locate *l, unsigned k, double gbps, double rtt_ms, const char *error);
void locate_round_end(struct locate *l);

/* After a round: does another round need to run (a pair was slow and rounds remain)? */
bool locate_needs_round(const struct locate *l);

/* The suspects from every round so far (replaces earlier ones). */
void locate_judge(struct locate *l);
