/* SPDX-License-Identifier: MIT */
/*
 * Rollout planning: how selected nodes are cut into waves (a canary wave first,
 * then waves of --wave-size), how many failures --max-unavailable tolerates, and
 * the names of the rollout, wave and node states kept in the store. Pure
 * arithmetic and tables: no I/O.
 *
 * Counts are "N" (absolute) or "P%" (of the selected nodes). A wave size in
 * percent rounds up (never 0), a failure budget in percent rounds down (10% of 5
 * nodes tolerates 0 failures). The canary wave halts the rollout on any failure,
 * whatever the budget.
 */
#pragma once

#include <stdbool.h>

#include "common/errbuf.h"

struct rollout_count {
        unsigned value;
        bool pct;               /* value is a percentage 0-100 */
};

enum rollout_halt_scope {
        ROLLOUT_HALT_WAVE,      /* on halt, revert the failing wave only */
        ROLLOUT_HALT_ALL,       /* on halt, also roll back every earlier (committed) wave */
        ROLLOUT_HALT_MAX,
};

struct rollout_opts {
        unsigned canary;                        /* nodes in the canary wave (default 1) */
        struct rollout_count wave_size;         /* default 25% */
        struct rollout_count max_unavailable;   /* default 0 */
        unsigned confirm_timeout_s;             /* an unconfirmed change is restored by its agent after this */
        enum rollout_halt_scope halt_scope;
        bool no_confirm;                        /* leave every node pending: `confirm ID` later */
        int fabric_neighbours;                  /* --fabric-neighbours K; -1 = verify.fabric.neighbours */
};

/*
 * Node states, as stored: what the node's agent really did, as it said so (an
 * answer, or asked afterwards: GET /v1/transactions/TX, GET /v1/history), never
 * what it is expected to do.
 */
enum rnode_state {
        RNODE_PLANNED,          /* not yet sent */
        RNODE_APPLYING,         /* apply sent, no answer recorded */
        RNODE_PENDING,          /* applied and verified, waiting for confirmation */
        RNODE_COMMITTED,        /* its agent committed it: confirmed (or nothing to do) */
        RNODE_FAILED,           /* the agent refused or rolled back (verification failed), or its restore failed */
        RNODE_UNREACHABLE,      /* no answer to the apply, and its agent could not be asked what it did */
        RNODE_ROLLED_BACK,      /* committed, then rolled back by the controller after a halt */
        RNODE_REVERTED,         /* its agent restored the pending change: its confirm deadline passed, or a
                                   confirm came after the deadline it carried */
        RNODE_SKIPPED,          /* never sent: the rollout halted first */
        RNODE_CANCELLED,        /* pending when its wave halted: the controller cancelled it, its agent restored it */
        RNODE_UNKNOWN,          /* a confirm or cancel got no answer and its agent could not be asked until
                                   after its deadline: committed or restored, nobody can say */
        RNODE_STATE_MAX,
};

enum rollout_state {
        ROLLOUT_RUNNING,
        ROLLOUT_COMPLETED,      /* every wave passed (some nodes may have failed within budget) */
        ROLLOUT_HALTED,         /* failures exceeded the budget: reverted */
        ROLLOUT_PENDING,        /* --no-confirm: waiting for `confirm ID` */
        ROLLOUT_ABORTED,        /* gave up (e.g. an interrupted wave that could not be redone) */
        ROLLOUT_STATE_MAX,
};

enum rwave_state {
        RWAVE_PLANNED,
        RWAVE_APPLYING,         /* applies sent */
        RWAVE_PASSED,           /* verdict: within budget; confirmations may be outstanding */
        RWAVE_DONE,             /* every node of the wave is final */
        RWAVE_HALTED,           /* verdict: over budget */
        RWAVE_STATE_MAX,
};

int rollout_count_parse(const char *s, struct rollout_count *ret);
const char *rollout_count_str(struct rollout_count c, char *buf, unsigned size);

/* Wave size in nodes for n selected nodes: at least 1. */
unsigned rollout_wave_size(struct rollout_count c, unsigned n);
/* Failures tolerated over the whole rollout of n selected nodes. */
unsigned rollout_budget(struct rollout_count c, unsigned n);

/*
 * Assign each of n nodes (in inventory order) a wave: wave 0 is the canary (if
 * canary > 0), then consecutive waves of rollout_wave_size(). Writes ret_wave[0..n-1]
 * and returns the number of waves (0 when n is 0).
 */
unsigned rollout_plan(const struct rollout_opts *o, unsigned n, unsigned *ret_wave);

/* Has the rollout to halt after a wave? */
bool rollout_should_halt(const struct rollout_opts *o, unsigned n_selected, bool canary_wave,
                         unsigned failed_in_wave, unsigned failed_total);

void rollout_opts_defaults(struct rollout_opts *o);

const char *rnode_state_name(enum rnode_state s);
int rnode_state_from_name(const char *s);
const char *rollout_state_name(enum rollout_state s);
int rollout_state_from_name(const char *s);
const char *rwave_state_name(enum rwave_state s);
int rwave_state_from_name(const char *s);
/* Final: nothing more will happen to a node in this state. */
bool rnode_state_final(enum rnode_state s);
