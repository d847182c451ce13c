/* SPDX-License-Identifier: MIT */
/* Inside controller/rollout; not for other modules. */
#pragma once

#include <limits.h>

#include "controller/rollout/rollout.h"

/*
 * Internal to the rollout state machine (rollout_run.c: waves, verdicts,
 * confirmations; rollout_resume.c: interrupted waves and the operator's halt;
 * rollout_halt.c: halts and unknown outcomes). Not for other modules:
 * rollout_run.h is the interface.
 */



struct engine {
        const struct rollout_run_env *env;
        struct rollout_rec *r;
        struct errbuf *e;
        int store_err;
        struct output_progress prog;
        bool rollback_verb;             /* the fan-out in progress sends rollbacks (else applies) */
        struct rollout_fabric *fabric;  /* verify.fabric's gate, NULL without one */
};

#define ENGINE_NO_WAVE UINT_MAX

void engine_node_error(struct rnode *n, const char *fmt, ...) _printf_(2, 3);
int engine_journal_node(struct engine *g, const struct rnode *n);
/* Journal nodes[0..n) (and wave w unless ENGINE_NO_WAVE) in one store transaction. */
int engine_journal_nodes(struct engine *g, struct rnode **nodes, unsigned n, unsigned w);
int engine_journal_wave(struct engine *g, unsigned w, enum rwave_state s);

/* Nodes in state s, of wave `wave` (or of every wave), into out. */
unsigned engine_select(struct rollout_rec *r, struct rnode **out, unsigned wave, bool any_wave, enum rnode_state s);
/* A node that counts against the failure budget. */
bool engine_failed_state(enum rnode_state s);

/*
 * POST /v1/rollback to nodes[0..n) (no guard: see engine_rollback), each with body and
 * "expect_revision": revs[i], the revision it was judged on (the agent refuses the
 * rollback when another is current: the node's error says so).
 */
int engine_fan_out_rollback(struct engine *g, struct rnode **nodes, unsigned n, const char *body,
                            const long long *revs, unsigned wave);

/*
 * Settle nodes[0..n) towards goals[i] (rollout_settle), journaling and reporting each
 * node as it becomes final. what names the step in progress lines.
 */
int engine_settle(struct engine *g, struct rnode **nodes, unsigned n, const enum settle_goal *goals,
                  const long long *until_ms, const char *what, unsigned wave);

/* The latest time (wall clock, ms) node n's agent may still hold its change pending, plus the margin. */
long long engine_settle_until(const struct engine *g, const struct rnode *n, long long now);

/* Set the rollout's final state, exit code and message from its nodes. */
void engine_finish(struct engine *g, bool halted);

/* rollout_resume.c */

/*
 * A wave found applying or passed (its controller died): its unfinished nodes are
 * asked what they did and journaled; a change restored meanwhile is planned again
 * (a new step), and an applying wave with nodes to (re)apply is planned again.
 */
int engine_resume_wave(struct engine *g, struct rnode **sel, unsigned w);

/* rollout_halt.c */

/*
 * Halt after wave w: later nodes skipped; the halted wave's committed nodes (every
 * wave's with --rollback-on-halt all) rolled back once their agents' history shows
 * the change is still theirs to undo; pending nodes cancelled; unknown outcomes
 * asked again until their deadline. Returns 0 or -errno.
 */
int engine_halt(struct engine *g, struct rnode **sel, unsigned w);
/* Nodes whose outcome is unknown: ask again (cancel) until their deadline has passed. */
int engine_resolve_unknown(struct engine *g, struct rnode **sel);
