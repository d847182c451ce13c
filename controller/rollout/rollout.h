/* SPDX-License-Identifier: MIT */
/*
 * controller/rollout: a policy rolled out across the fleet in waves.
 *
 * Owns wave planning (rollout.c: pure arithmetic, canary by label, waves by group,
 * budgets, request timeouts), the pre-flight (rollout_preflight.c), the rollout
 * engine: one state machine for run, resume, halt and confirm (rollout_engine.c, with
 * its steps over nodes in rollout_step.c), rollbacks across the fleet, by rollout and
 * plain (rollout_restore.c, over the same steps), what agents really did
 * (rollout_reconcile.c, decisions kept pure in rollout_judge.c), the fabric gate of a
 * wave (rollout_fabric.c) and what the operator sees (rollout_output.c: progress and
 * the report). Calls between its files go one way: engine and restore -> step ->
 * reconcile -> judge.
 *
 * May call: controller/fabric, controller/store, controller/model, controller/fleet, policies/, common/.
 * Called by controller/cmd.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>

#include "common/errbuf.h"
#include "common/progress.h"
#include "controller/fleet/fleet.h"
#include "controller/store/store.h"

/*
 * Rollout planning: how selected nodes are cut into waves (a canary wave first,
 * chosen by label or by order, then waves of --wave-size, within the groups of a
 * label with --wave-by), how many failures --max-unavailable tolerates (per
 * group with --wave-by), how long an apply may take, and
 * the names of the rollout, wave and node states kept in the store. Pure
 * arithmetic and tables: no I/O.
 *
 * Counts are "N" (absolute) or "P%" (of the selected nodes). A wave size in
 * percent rounds up (never 0), a failure budget in percent rounds down (10% of 5
 * nodes tolerates 0 failures). The canary wave halts the rollout on any failure,
 * whatever the budget.
 */



int rollout_count_parse(const char *s, struct rollout_count *ret);
const char *rollout_count_str(struct rollout_count c, char *buf, unsigned size);

/* Wave size in nodes for n selected nodes: at least 1. */
unsigned rollout_wave_size(struct rollout_count c, unsigned n);
/* Failures tolerated over the whole rollout of n selected nodes. */
unsigned rollout_budget(struct rollout_count c, unsigned n);

/*
 * Assign each of n selected nodes (in inventory order) a wave and a group, and
 * return the number of waves (0 when n is 0):
 *   wave 0 is the canary when o->canary > 0: the nodes matching
 *     o->canary_selector ("K=V[,K=V...]", every pair), at most o->canary of them,
 *     else (no selector, or none of these nodes matches it) the first o->canary;
 *   without o->wave_by, the others follow in waves of rollout_wave_size() of n;
 *   with o->wave_by (a label key), every node's group is its value of that label
 *     ("" without one) and waves never mix groups: each group, in the order its
 *     first node comes, is cut into waves of rollout_wave_size() of the group.
 * ret_wave[0..n) and ret_group[0..n) are written.
 */
unsigned rollout_plan_nodes(const struct rollout_opts *o, const struct inventory_node *const *nodes, unsigned n,
                            unsigned *ret_wave, char (*ret_group)[STORE_LABEL_MAX]);

/* "K=V[,K=V...]" as --canary-selector takes it; -EINVAL with e naming the option. */
int rollout_selector_parse(const char *s, struct errbuf *e);

/*
 * Refuse, before anything is recorded, waves that cannot be planned as asked: a
 * canary selector that matches none of the nodes (or with --canary 0), a wave-by
 * label that some node lacks (named). -EINVAL with e naming the option.
 */
int rollout_plan_check(const struct rollout_opts *o, const struct inventory_node *const *nodes, unsigned n,
                       struct errbuf *e);

/* A node state that counts against the failure budget. */
bool rollout_failed_state(enum rnode_state s);

/*
 * Has rollout r to halt after wave w? The canary wave halts on any failure of its
 * own; otherwise the failures of every wave so far against --max-unavailable of
 * the selected nodes, or, with --wave-by, each group's failures against
 * --max-unavailable of that group.
 */
bool rollout_over_budget(const struct rollout_rec *r, unsigned w);

/*
 * How long an apply of the policy document doc may take at its agent: its
 * measurements (baseline and post-change, and with verify.on_inconclusive retry two
 * more post-change ones, as agent/txn does), each with a 2 s margin for its
 * connections, its settle_ms, and 10 s for the devices. rollout_apply_timeout_ms()
 * is the request timeout of an apply: --timeout, raised to that when shorter (a
 * shorter one loses answers the agent journals). A document that does not parse
 * counts as one without measurements.
 */
unsigned long long rollout_policy_time_ms(const char *doc);
unsigned rollout_apply_timeout_ms(const char *doc, unsigned timeout_s);



/*
 * The rollout state machine. Per wave: journal the wave and its nodes as
 * "applying", POST /v1/apply?confirm_timeout_s=S to each (never retried), record
 * each answer (a pending node with its agent's confirm deadline), decide
 * (rollout_over_budget), journal the verdict, then confirm every pending node of a
 * passed wave. A wave is confirmed only once all of it passed.
 *
 * One owner of each outcome. Every confirm carries not_after_ms, the earlier of the
 * agent's own deadline and the wave's confirm window (a request timeout from the
 * verdict), journaled before it is sent: the agent refuses and restores a confirm
 * it processes later, so a confirm this controller gave up on never commits
 * afterwards. A confirm without an answer is followed by GET /v1/transactions/TX
 * until the agent says what it did (committed, or restored: reverted) or the
 * window and a margin are over (unknown: such a node counts as failed, and is
 * asked again, until its agent's deadline has passed, before the rollout ends).
 * An apply without an answer is looked up by its key in the agent's history.
 *
 * On halt: later nodes are skipped; the halted wave's committed nodes (and with
 * --rollback-on-halt all every earlier wave's changed nodes) get POST /v1/rollback
 * once their agent's history shows the change is still the newest committed one;
 * its pending nodes are cancelled (a confirm with not_after_ms 1: refused, restored
 * at once); unknown outcomes are asked again until their deadline has passed, and
 * what still cannot be known is listed.
 *
 * Every apply carries the idempotency key of its node step, journaled with the
 * node before the request is sent; the agent journals it with its transaction
 * and never runs the same key twice.
 *
 * Resume (the controller died, or another replica took over): every unfinished
 * node of an interrupted wave is reconciled first (rollout_reconcile.c): a step
 * in flight by its key, a pending or unknown node by its transaction. Pending
 * nodes of a passed wave get a new confirm window; a change its agent restored
 * while nobody was there to confirm it is applied again as a new step; a step
 * that never arrived is sent again with the same key; a wave without a verdict
 * gets one. Records from before keys existed fall back to waiting until the
 * wave's deadline has passed, so that its unconfirmed nodes are restored, and
 * applying it again.
 */



struct rollout_run_env {
        struct http_client *http;
        struct store *store;
        unsigned timeout_s;             /* per request */
        enum progress_mode progress;    /* of every fan-out (common/progress.h) */
        json_t *fabric_log;             /* optional: each wave's fabric gate is appended (rollout_fabric.c) */
        bool preflight_diff;            /* the pre-flight keeps each node's changes as text (preflight_node.diff) */
        /*
         * The engine prints nothing and sleeps through these: what it says while it waits
         * (a soak, a pause, a promotion, a resumed wave: one line, no newline), its clock
         * (unix seconds) and its sleep. NULL: it says nothing, time() and sleep().
         */
        void (*say)(void *ud, const char *line);
        long long (*now_s)(void *ud);
        void (*sleep_s)(void *ud, unsigned s);
        void *ud;
};

/*
 * A new record (state running, every node planned, waves and groups from
 * rollout_plan_nodes).
 * Takes copies of doc and args. NULL on ENOMEM.
 */
struct rollout_rec *rollout_rec_new(const char *kind, const char *policy_name, const char *doc,
                                    const char *args, const struct rollout_opts *o,
                                    const struct inventory_node *const *nodes, unsigned n);

/*
 * Run (or resume) a rollout already stored. Returns the exit code (0, 1, 3, 4)
 * with r->state/exit_code/message set and stored, or -errno when the store
 * failed (e says why; nothing further was sent).
 */
int rollout_run(const struct rollout_run_env *env, struct rollout_rec *r, struct errbuf *e);
/*
 * Ask the rollout rollout_run drives to stop at its next step (SIGINT, SIGTERM,
 * SIGHUP: a dropped SSH session): the wave in flight halts as if over its budget —
 * its pending changes cancelled, its committed ones rolled back (--rollback-on-halt
 * all: every wave's), later nodes skipped — and the message names the signal.
 * Safe from a signal handler.
 */
void rollout_request_stop(int sig);

/*
 * Halt r for good (the `halt ID` command: an interrupted rollout, or one left
 * pending): every unfinished node reconciled with its agent, then the halt of its
 * current wave as above. Exit code as above.
 */
int rollout_run_halt(const struct rollout_run_env *env, struct rollout_rec *r, struct errbuf *e);

/* Confirm every pending node of r (the `confirm ID` command). Exit code as above. */
int rollout_run_confirm(const struct rollout_run_env *env, struct rollout_rec *r, struct errbuf *e);

/*
 * A plain rollback over r's nodes (a record of kind "rollback", rollout_restore.c):
 * each node's current revision read, then POST /v1/rollback with it as
 * expect_revision: {"to": to} (to > 0: its revision `to` applied again) or {}
 * (its newest revision undone). Rolled back or failed, each; exit 0 when all
 * were, else 3; -errno when the store failed.
 */
int rollout_run_rollback(const struct rollout_run_env *env, struct rollout_rec *r, long long to, struct errbuf *e);
/*
 * One profile for hosts and switches: an apply whose args are {"docs": [TEXT...],
 * "node_doc": {NODE: INDEX}} sends each node its part (nettunectl's ctl_parts.c)
 * instead of policy_doc. rollout_parts_load: those args parsed (NULL: one document
 * for every node); rollout_node_doc: the document node gets.
 */
json_t *rollout_parts_load(const struct rollout_rec *r);
const char *rollout_node_doc(const struct rollout_rec *r, const json_t *parts, const char *node);

/*
 * The same with {"policy": NAME}: each node's layer NAME back to its previous version
 * (taken out when it has none), expect_revision as above (rollback --policy).
 */
int rollout_run_rollback_policy(const struct rollout_run_env *env, struct rollout_rec *r, const char *policy,
                                struct errbuf *e);

/*
 * Rollback by rollout: r (kind "rollback") holds the nodes of src to return to
 * their revision before src (restore_judge, below, node by node: restored,
 * already there, refused, failed). src's nodes put back keep the transaction
 * that did it (undo_tx), so that a second run finds them there and changes
 * nothing. Exit 0 when every node of r ended at its revision before src, else 3;
 * -errno when the store failed.
 */
int rollout_run_restore(const struct rollout_run_env *env, struct rollout_rec *r, struct rollout_rec *src,
                        bool force, struct errbuf *e);


/*
 * What an agent's answer says became of a node's change: the decisions of
 * rollout_reconcile.c, kept pure (no I/O, no clock) so that they are unit-tested
 * and fuzzed with hostile answers. An answer settles a node only when it says what
 * became of its transaction; anything else asks again.
 */


enum settle_goal {
        SETTLE_COMMIT,                  /* confirm it before its not_after_ms; restored -> reverted */
        SETTLE_CANCEL,                  /* a pending change of a halted wave: cancel; restored -> cancelled */
        SETTLE_RESOLVE,                 /* a confirm got no answer: learn (cancel) it; restored -> reverted */
        SETTLE_GOAL_MAX,
};

enum settle_req {
        SETTLE_REQ_CONFIRM,             /* POST /v1/confirm/T {"not_after_ms": N} */
        SETTLE_REQ_CANCEL,              /* POST /v1/confirm/T {"not_after_ms": 1} */
        SETTLE_REQ_GET,                 /* GET /v1/transactions/T */
        SETTLE_REQ_MAX,
};

/* One answer to one of those requests. */
struct settle_answer {
        enum settle_req req;
        long status;                    /* HTTP status, 0 = no answer */
        const char *body;
        size_t len;
        const char *transport;          /* status 0: why ("timed out (...)") */
};

struct settle_step {
        bool final;                     /* state and why are the node's from now on */
        enum rnode_state state;
        enum settle_req next;           /* not final: what to send next */
        long long deadline_ms;          /* the agent's confirm deadline when the answer named one, else 0 */
        long long rev;                  /* committed: the revision the answer named, else 0 */
        char why[STORE_ERR_MAX];        /* final: the node's error text ("" when committed); else why not yet */
};

/*
 * Judge one answer about transaction tx: not_after_ms is the node's (SETTLE_COMMIT),
 * now_ms the controller's clock, used when the agent's answer carries none.
 */
void settle_judge(enum settle_goal goal, const char *tx, long long not_after_ms, long long now_ms,
                  const struct settle_answer *a, struct settle_step *ret);

/* Adopt a transaction's state (GET /v1/transactions/T) into a pending/unknown node; false: ask again. */
bool reconcile_adopt_tx(struct rnode *n, const struct reply_history_tx *h);

/*
 * The revision a commit's answer named (apply or confirm, agents since answers carry
 * "rev"): the node's rev, and its pre_rev exactly (rev - 1: nothing else commits on a
 * node while its change is pending). Such a node needs no GET /v1/transactions/T.
 */
void rollout_node_take_rev(struct rnode *n, long long rev);

/* Who asks what became of a node step whose answer was never recorded. */
enum reconcile_mode {
        RECONCILE_RESUME,               /* a controller resuming a step another (or an earlier) one ran */
        RECONCILE_LIVE,                 /* the step just ran and its answer was lost */
        RECONCILE_LIVE_LAST,            /* the same, after the step was sent a second time */
};

/*
 * Adopt what the agent's history says of an applying node's key (found: 1 the
 * transaction h, 0 none). No such transaction: the apply never arrived, and it is
 * sent again with the same key (planned, key kept), except after its second send
 * during a run (RECONCILE_LIVE_LAST: unreachable). false: the agent is still at work
 * on it, ask again.
 */
bool reconcile_adopt_keyed(struct rnode *n, int found, const struct reply_history_tx *h, enum reconcile_mode mode);

enum rollback_check {
        ROLLBACK_SEND,                  /* its transaction is the newest committed one: undo it */
        ROLLBACK_DONE,                  /* a rollback committed right after it: undone already */
        ROLLBACK_SUPERSEDED,            /* something else committed since, or it is not committed: leave it */
        ROLLBACK_UNREADABLE,            /* the history is malformed */
};

struct rollback_verdict {
        enum rollback_check check;
        long long rev;                  /* SEND: the revision it committed as (the rollback's expect_revision), 0 = unsaid */
        char undo_tx[STORE_TX_MAX];     /* DONE: the rollback transaction that undid it */
        char why[STORE_ERR_MAX];        /* why not (and what), "" for SEND */
};

/* Judge a GET /v1/history answer for undoing transaction tx. Returns ret->check. */
enum rollback_check rollout_rollback_judge(const char *body, size_t len, const char *tx, struct rollback_verdict *ret);


/*
 * Rollback by rollout (`rollback --rollout ID`): what to do with one node that
 * rollout ID touched, from the rollout's record of it (src: its pre_rev, key, tx,
 * undo_tx) and what its agent's history says now (nr):
 *
 *   its current revision is pre_rev, or the newest commit is the rollback
 *       that put it back (undo_tx)                              -> ALREADY (left alone)
 *   the rollout's change is the newest commit                   -> UNDO: POST /v1/rollback
 *       {"expect_revision": R}: its snapshot restored, every field the change touched
 *   something committed since                                   -> REFUSE (by name), or with
 *       --force TO: {"to": pre_rev, "expect_revision": current} (fields pre_rev does not
 *       manage keep their values); never when pre_rev is 0 (no revision to apply)
 *   its history unreadable, no current revision, a transaction in flight,
 *       or no pre_rev on record                                 -> FAIL
 *
 * pre_rev is exact: when the change committed as revision R it is R - 1 (nothing
 * else commits on a node while a change is pending there), else the one on record,
 * else the revision current when its transaction started (its history). A change a
 * gate rejected never became a revision: such a node is at pre_rev already, and
 * nothing is re-applied.
 */
enum restore_action {
        RESTORE_ALREADY,
        RESTORE_UNDO,
        RESTORE_TO,
        RESTORE_REFUSE,
        RESTORE_FAIL,
        RESTORE_ACTION_MAX,
};

struct restore_plan {
        enum restore_action action;
        long long pre_rev;              /* the revision the node is to be at, -1 = not known */
        long long cur_rev;              /* its current one: the rollback's expect_revision */
        char why[STORE_ERR_MAX];        /* what was found, and what happens (or why not) */
};

struct node_revision;
void restore_judge(long long rollout_id, const struct rnode *src, const struct node_revision *nr, bool force,
                   struct restore_plan *ret);

/*
 * A rollout's end (pure): its state, exit code and message from its nodes — halted
 * (fabric_reason: why the fabric gate halted it, "" if it did not), left pending, or
 * completed; the budget in the message is --max-unavailable's ("1 per 'rack'" with
 * --wave-by), and nodes whose outcome is unknown are named.
 */
void rollout_end_state(struct rollout_rec *r, bool halted, const char *fabric_reason);

/*
 * What each node's agent really did, asked of the agent, never guessed. Three
 * questions:
 *
 * rollout_reconcile(): node steps whose answer was never recorded (the controller
 * died, or lost its leadership, while they were in flight; an apply got no answer).
 *   applying, key K   the transaction journaled with idempotency key K (GET /v1/history):
 *                     pending_confirm -> pending (tx, deadline), committed -> committed,
 *                     rolled_back/failed -> failed; a change that expired unconfirmed while
 *                     nobody was there to confirm it -> planned with a new key (it never got
 *                     a verdict); still running -> asked again; no such transaction -> planned,
 *                     keeping K (sent again with the same key, which the agent answers from its
 *                     journal if the first one arrived after all); during a live run, once:
 *                     after the second send, unreachable (nobody will confirm it if it still
 *                     arrives)
 *   pending or unknown, tx T   GET /v1/transactions/T: committed, pending (with its
 *                     deadline), reverted (restored by its agent) or failed (its restore failed)
 *
 * rollout_settle(): pending changes brought to a final state. The goal is to confirm
 * (POST /v1/confirm/T with {"not_after_ms": N}, N the node's not_after_ms: the agent
 * refuses it after N, so a confirm this controller gave up on never commits later) or
 * to cancel (the same with not_after_ms 1: refused at once, the change restored now).
 * An answer is final when it says what became of T: 200 committed, 409 expired (too
 * late, restored now). Anything else (no answer, 409 busy or not_pending, 5xx, an
 * unreadable body) is followed by GET /v1/transactions/T, with backoff, until T is
 * final, or pending past N (then it is cancelled), or the node's time is up: past
 * N (confirm) or its agent's confirm deadline (cancel, resolve) plus a margin for
 * clocks. Then, and only then, the node is unknown, with the last reason.
 *
 * rollout_rollback_check(): before POST /v1/rollback undoes a committed node, is its
 * transaction still the newest committed one there (GET /v1/history)? A rollback
 * transaction committed right after it means an earlier halt did it already; any
 * other committed transaction means someone changed the node since: not ours to undo.
 *
 * What an answer means is decided in rollout_judge.c (pure); this module sends.
 */


#define SETTLE_MARGIN_MS 5000           /* past a deadline: clocks and answers in flight */
#define SETTLE_ASK_MS 10000             /* one GET /v1/transactions at most */
#define SETTLE_BACKOFF_MAX_MS 8000      /* between two rounds of asking */

/*
 * Settle nodes[0..n) (each with its tx) towards goals[i]. until_ms[i] (wall clock,
 * ms) is when node i is given up as unknown (after one attempt at least). on_final
 * (optional) sees each node as soon as it is final. 0, or -errno when libcurl failed
 * or this controller must stop acting (e says why; nodes not yet final are left as
 * they were).
 */
int rollout_settle(const struct rollout_run_env *env, struct rnode **nodes, unsigned n,
                   const enum settle_goal *goals, const long long *until_ms,
                   void (*on_final)(struct rnode *n, void *ud), void *ud, struct errbuf *e);

/*
 * Update nodes[0..n) in memory from what their agents say (the caller journals them).
 * mode: whether the controller is running the step now (an apply without an answer)
 * or resuming it. 0, or -errno when libcurl failed.
 */
int rollout_reconcile(const struct rollout_run_env *env, struct rnode **nodes, unsigned n,
                      enum reconcile_mode mode, struct errbuf *e);

/* Ask each node's agent; nodes[i] is to be rolled back when ret[i].check is ROLLBACK_SEND. 0 or -errno. */
int rollout_rollback_check(const struct rollout_run_env *env, struct rnode **nodes, unsigned n,
                           struct rollback_verdict *ret, struct errbuf *e);

/* One node's revisions as its agent's history says (GET /v1/history). */
struct node_revision {
        bool read;                      /* the answer was read; else why says why not */
        struct reply_revision v;        /* ours: by the node's key, else its tx */
        char why[STORE_ERR_MAX];
};

/*
 * GET /v1/history of nodes[0..n) at once into ret[0..n); a node for which by_tx
 * (optional) says so is asked only for its transaction (GET /v1/transactions/T:
 * ret->v.ours, the node's current revision not known). 0, or -errno when libcurl
 * failed.
 */
int rollout_revisions(const struct rollout_run_env *env, struct rnode **nodes, unsigned n,
                      bool (*by_tx)(const struct rnode *x), struct node_revision *ret, struct errbuf *e);

/* A fresh idempotency key for the node step of node seq in wave w of rollout id. */
void rollout_node_key(long long id, unsigned w, unsigned seq, char *buf, size_t size);

/* The wall clock in ms since the epoch (deadlines are wall clock, as the agents' are). */
long long rollout_now_ms(void);


/*
 * The pre-flight of a rollout (rollout_preflight.c), before its canary changes
 * anything: every node answers GET /v1/health and accepts the policy document in
 * POST /v1/plan (which changes nothing and refuses what apply would refuse).
 */
enum preflight_result {
        PREFLIGHT_OK,
        PREFLIGHT_UNREACHABLE,          /* no answer, or its health check failed */
        PREFLIGHT_INVALID,              /* it refuses the policy (a 4xx plan: outcome_of_http_status) */
        PREFLIGHT_FAILED,               /* its plan failed otherwise (5xx, an unreadable answer) */
        PREFLIGHT_RESULT_MAX,
};

struct preflight_node {
        enum preflight_result result;
        unsigned changes;               /* OK: the changes its plan lists */
        char path[128];                 /* INVALID: the JSON path the node refuses, "" = none said */
        char why[STORE_ERR_MAX];
        char *diff;                     /* OK with env->preflight_diff: its changes (rollout_changes_text, "  "
                                           indented), "" = none; owned, the caller frees it */
        json_t *notes;                  /* OK: its plan's notes ([string]); owned, the caller json_decref()s it */
};

/* Ask nodes[0..n) at once; ret[i] is node i's. 0, or -errno when libcurl failed. */
int rollout_preflight(const struct rollout_run_env *env, const struct inventory_node *const *nodes, unsigned n,
                      const char *doc, struct preflight_node *ret, struct errbuf *e);

/*
 * What a plan changes as text (rollout_diff.c): a plan's changes ([{target, field,
 * key, from, to}]) one line each ("INDENTleaf1 ports.swp1.mtu: 1500 -> 9216"), the
 * same change on several numbered ports of a target one line with their ranges
 * ("INDENTleaf1 swp1-64: trust pcp -> dscp"). Caller frees; NULL on ENOMEM.
 */
char *rollout_changes_text(const json_t *changes, const char *indent);

/*
 * The nodes of names[0..n) grouped by identical texts[i] ("node001, node005 (2 nodes):"
 * then the text), at most max_groups groups, in order of first appearance, and how
 * many change nothing (texts[i] NULL or ""). On f.
 */
void rollout_diff_print(FILE *f, const char *const *names, const char *const *texts, unsigned n, unsigned max_groups);

/*
 * The agents' notes, each once with the nodes that said it: groups is a JSON array
 * of {"note": TEXT, "nodes": [NAME...]} in order of first appearance; add node's
 * notes (an array of strings) to it (0 or -ENOMEM). print: one line a note,
 * "note (12 nodes: node001, node002, ...): TEXT" (eight names at most).
 */
int rollout_notes_add(json_t *groups, const char *node, const json_t *notes);
void rollout_notes_print(FILE *f, const json_t *groups);

/*
 * The fabric gate of a rollout (the policy's verify.fabric), on top of each
 * node's own gate. For each wave, its scope is the wave's nodes plus K
 * neighbours (verify.fabric.neighbours, or --fabric-neighbours): nodes of the
 * rollout outside the wave, those this rollout committed first, then those it has
 * not reached yet (both run a committed configuration), in inventory order.
 *
 *   before the wave:  the pattern over the scope is measured (the baseline); when
 *                     it cannot be measured the rollout halts and the wave is not
 *                     applied (no baseline, no change);
 *   after the wave applied, before anything is confirmed: the same pattern over
 *                     the same scope; when its collective figure (fabric.h) fell
 *                     more than max_regression_pct below the baseline, or the
 *                     measurement is incomplete, the wave halts: its nodes are not
 *                     confirmed and the rollout's halt path rolls them back.
 *
 * The baseline lives in the controller's memory: a wave interrupted after it
 * applied and resumed by another run has none, and its gate fails closed.
 */



struct rollout_fabric;

/*
 * The gate of rollout r, or *ret NULL when its policy has no verify.fabric.
 * neighbours: r->opts.fabric_neighbours when >= 0, else the policy's. -EINVAL
 * with e filled when the policy document does not parse.
 */
int rollout_fabric_new(const struct rollout_rec *r, struct rollout_fabric **ret, struct errbuf *e);
void rollout_fabric_free(struct rollout_fabric *fg);

/*
 * Refuse, before anything is sent, a rollout whose fabric gate cannot work: a
 * wave whose scope has fewer than 2 nodes, or a confirm timeout shorter than the
 * gate may take after a wave applied. -EINVAL with e filled; 0 otherwise (also
 * without verify.fabric).
 */
int rollout_fabric_check(const struct rollout_rec *r, struct errbuf *e);

/* The baseline of wave w. 0: measured; 1: halt (e says why, nothing applied); -errno: ENOMEM. */
int rollout_fabric_before(struct rollout_fabric *fg, const struct rollout_run_env *env, struct rollout_rec *r,
                          unsigned w, struct errbuf *e);

/* After wave w applied: the gate. 0: pass; 1: halt (reason in rollout_fabric_reason); -errno: ENOMEM. */
int rollout_fabric_after(struct rollout_fabric *fg, const struct rollout_run_env *env, struct rollout_rec *r,
                         unsigned w, struct errbuf *e);

/* Why the gate halted the rollout ("" when it did not): one line for the rollout's message. */
const char *rollout_fabric_reason(const struct rollout_fabric *fg);

/* Every wave's gate so far: [{"wave","scope":[names],"baseline":{...},"post":{...},"gate":{...}}]. Borrowed. */
json_t *rollout_fabric_log(const struct rollout_fabric *fg);


/*
 * What nettunectl shows: live progress on stderr (common/progress.h: one redrawn
 * line per wave on a terminal, plain lines per node otherwise, nothing with
 * --output json or --quiet) and the final report on stdout (text, or JSON for scripts).
 */



/* A wave's fan-out: nodes as they answer, and the mean probe rates so far. */
struct output_progress {
        struct progress p;
        double base_sum, post_sum;
        unsigned n_probed;
};

void output_progress_begin(struct output_progress *p, enum progress_mode mode, const char *what,
                           unsigned wave, unsigned n_waves, unsigned total);
void output_progress_node(struct output_progress *p, const struct rnode *n, bool failed);
void output_progress_end(struct output_progress *p);

/* The rollout as JSON (new reference) and as text on stdout. */
json_t *output_rollout_json(const struct rollout_rec *r);
void output_rollout_text(const struct rollout_rec *r);
/* Text or JSON, as chosen. */
void output_rollout(const struct rollout_rec *r, bool json);

/* Who drives a rollout recorded running, as `status` says it (its lease, or the leading replica). */
struct rollout_live {
        char state[16];                 /* "running", "interrupted" (nobody drives it), "waiting" (for a replica) */
        char note[300];                 /* what is known, and what the operator can do */
        long long pid;                  /* its driver, 0 = none */
        char host[STORE_HOST_MAX];
};

/* The rollout with what is known of its driver (live: NULL or state "" = as recorded). */
void output_rollout_status(const struct rollout_rec *r, const struct rollout_live *live, bool json);

/* A time (unix seconds) as every JSON of the controller writes it: RFC 3339 UTC, "2026-12-07T22:33:00Z"; 0: null. */
json_t *output_time_json(long long t);

/* Print a JSON document to stdout, indented, with a newline. */
void output_json(json_t *j);

