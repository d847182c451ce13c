/* SPDX-License-Identifier: MIT */
/* Inside controller/rollout; not for other modules. */
#pragma once

#include <assert.h>
#include <limits.h>

#include "controller/rollout/rollout.h"

/*
 * Internal to the rollout engine: its state (struct engine) and the steps over
 * nodes it takes (rollout_step.c: journal, fan-out, settle). The engine
 * (rollout_engine.c) calls the steps; the steps never call the engine. Not for
 * other modules: rollout.h is the interface.
 */



struct engine {
        const struct rollout_run_env *env;
        struct rollout_rec *r;
        struct errbuf *e;
        struct output_progress prog;
        bool rollback_journal;          /* the rollbacks in flight set their nodes rolled_back (else only report) */
        unsigned apply_timeout_ms;      /* an apply's (or a rollback's) request: never shorter than its policy's
                                           measurements and settle time (rollout_apply_timeout_ms); 0 = --timeout */
        struct rollout_fabric *fabric;  /* verify.fabric's gate, NULL without one */
        struct rnode **sel;             /* scratch: room for every node */
        unsigned w;                     /* the wave in hand */
        bool wave_entered;              /* wave w was looked at (a wave found mid-way is resumed first) */
        bool halted;                    /* the halt ran */
        bool confirming;                /* confirm ID: the waves it confirms are closed at the end */
        long long soak_until;           /* --wave-interval: no wave starts before (unix seconds) */
        bool held;                      /* the wave in hand has waited for a person (pause, promote) */
        json_t *parts;                  /* one profile's parts: {"docs", "node_doc"} of r->args, NULL: one doc */
};

#define ENGINE_NO_WAVE UINT_MAX

void step_node_error(struct rnode *n, const char *fmt, ...) _printf_(2, 3);

/*
 * The write-ahead discipline (store.h): a step notes each record it changes (no I/O),
 * and the engine calls step_barrier at its side-effect boundaries: before a fan-out
 * of applies, rollbacks or confirms, before a wait of seconds (the fabric gate, a
 * soak, a pause), at the end. An answer is noted and published as it comes (`status`
 * sees a wave's progress; durable at the next barrier). Nothing else decides when a
 * record is written.
 */
void step_record_node(struct engine *g, const struct rnode *n);
/* nodes[0..n), and wave w unless ENGINE_NO_WAVE. */
void step_record_nodes(struct engine *g, struct rnode **nodes, unsigned n, unsigned w);
/* Wave w enters state s, noted. */
void step_record_wave(struct engine *g, unsigned w, enum rwave_state s);
/* An answer of a fan-out: noted, and visible to other readers where that is cheap. */
void step_record_answer(struct engine *g, const struct rnode *n);
/* Everything noted made durable. 0 or -errno (e says why; the engine stops). */
int step_barrier(struct engine *g);

/*
 * A fan-out that changes something at the agents starts: every record noted before it
 * is durable. A debug build (without NDEBUG, as `make check` builds) aborts when one
 * is not: a barrier is missing before this side effect.
 */
#define STEP_WRITTEN_AHEAD(store) \
        assert(store_unflushed(store) == 0 && "a record noted before this fan-out was not made durable")

/* The caller's clock (unix seconds) and sleep (rollout_run_env), or time() and sleep(). */
long long rollout_env_now_s(const struct rollout_run_env *env);
void rollout_env_sleep_s(const struct rollout_run_env *env, unsigned s);

/* Nodes in state s, of wave `wave` (or of every wave), into out. */
unsigned step_select(struct rollout_rec *r, struct rnode **out, unsigned wave, bool any_wave, enum rnode_state s);

/*
 * Send each of nodes[0..n) its apply (the node's step, with its key) at once,
 * recording and journaling each answer as it comes. An apply without a usable
 * answer leaves its node applying (its agent is asked next).
 */
int step_apply(struct engine *g, struct rnode **nodes, unsigned n, unsigned wave);

/*
 * A rollback for one node: to > 0 {"to": to}, else undo its newest revision; expect >= 0
 * adds expect_revision (0: no revision is committed there), -1 leaves it out (not known).
 */
#define ROLLBACK_PEER_MAX 128

struct rollback_ask {
        long long to, expect;
        const char *policy;             /* non-NULL: {"policy": NAME}, that layer back to its previous version */
        bool no_gate;                   /* ?no_gate=true: restored without the verification probe and gate */
        char peer[ROLLBACK_PEER_MAX];   /* "probe_peer": the responder its gate measures against; "": its policy's */
};

struct rollback_outcome {
        bool answered;                  /* an HTTP answer came */
        long status;
        bool ok;                        /* 2xx, exit_code 0: the agent did it (or had nothing to do) */
        char tx[STORE_TX_MAX];          /* the rollback's transaction, "" = none journaled */
        char result[32];                /* "committed", "nothing_to_do", "rolled_back", ... */
        char why[400];                  /* not ok: why */
};

/*
 * POST /v1/rollback asks[i] to nodes[i] at once; out[i] (optional) is what came of
 * each. journal: a node whose agent did it is set rolled_back (undo_tx: the
 * rollback's transaction), the others get the reason as their error, each
 * journaled as it comes. An agent from before expect_revision (400: "unknown
 * key 'expect_revision'") is asked again without it, at once.
 */
int step_rollback(struct engine *g, struct rnode **nodes, unsigned n, const struct rollback_ask *asks,
                  struct rollback_outcome *out, bool journal, unsigned wave);

/*
 * Settle nodes[0..n) towards goals[i] (rollout_settle), journaling and reporting each
 * node as it becomes final. what names the step in progress lines.
 */
int step_settle(struct engine *g, struct rnode **nodes, unsigned n, const enum settle_goal *goals,
                const long long *until_ms, const char *what, unsigned wave);

/*
 * The revisions of each node of wave w (every wave: ENGINE_NO_WAVE) that its
 * rollout sent an apply and whose revisions are not on record yet, from its agent
 * (GET /v1/transactions/T for a committed change: rev, and pre_rev exactly the one
 * before; else GET /v1/history: the revision current when its transaction started),
 * journaled. A node whose agent cannot be read is left as it is (a rollback by
 * rollout derives the same from its history later).
 */
int step_record_revs(struct engine *g, unsigned w);

/* The latest time (wall clock, ms) node n's agent may still hold its change pending, plus the margin. */
long long step_settle_until(const struct engine *g, const struct rnode *n, long long now);
