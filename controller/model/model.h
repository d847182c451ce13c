/* SPDX-License-Identifier: MIT */
/*
 * controller/model: a rollout as data, below both the store that keeps it and the
 * engine that drives it. What a rollout was asked to do (its options, counts as "N" or
 * "P%"), the states of a rollout, its waves and its nodes with their names as stored,
 * and the record of one rollout in memory (struct rollout_rec). Pure: no I/O (model.c:
 * names, defaults, counts; model_opts.c: the options as JSON text and back).
 *
 * May call: controller/fleet, common/.
 * Called by controller/store, controller/rollout, controller/tune, controller/cmd.
 */
#pragma once

#include <stdbool.h>

#include "controller/fleet/fleet.h"

#define ROLLOUT_TX_MAX 64                       /* an agent's transaction id */
#define ROLLOUT_ERR_MAX 256                     /* a node's or a rollout's message */
#define ROLLOUT_KIND_MAX 16
#define ROLLOUT_KEY_MAX 64                      /* a node step's idempotency key */
#define ROLLOUT_LABEL_MAX 64                    /* a label key or value, as policies and inventories spell them */
#define ROLLOUT_SELECTOR_MAX 200                /* --canary-selector K=V[,K=V...] */

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
        char canary_selector[ROLLOUT_SELECTOR_MAX];     /* --canary-selector: "K=V[,K=V...]", "" = the first nodes */
        char wave_by[ROLLOUT_LABEL_MAX];        /* --wave-by: waves never mix this label's values; "" = none */
        int max_regression_pct;                 /* --max-regression-pct: the policy's verify overridden; -1 = not */
        unsigned probe_duration_ms;             /* --probe-duration-ms: likewise; 0 = not */
        bool skip_unreachable;                  /* --skip-unreachable: nodes the pre-flight could not reach left out */
        /* Who asked for it and why, and what exactly (recorded, shown by status and history; "" = not said): */
        char reason[ROLLOUT_ERR_MAX];           /* --reason TEXT */
        char user[ROLLOUT_LABEL_MAX * 2];       /* the OS user that ran nettunectl ("root (sudo: alice)") */
        char cert_cn[ROLLOUT_LABEL_MAX * 2];    /* the CN of the client certificate it presented to the agents */
        char policy_sha256[80];                 /* "sha256:HEX" of the document sent to the agents */
        char selector[ROLLOUT_SELECTOR_MAX];    /* --selector, each one as given, joined by "; " */
        unsigned wave_interval_s;               /* --wave-interval: the soak after a wave, before the next
                                                   one's fabric baseline; 0 = none */
        bool promote_manual;                    /* --promote manual: each wave after the first waits for
                                                   `nettunectl promote ID` */
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
        /* Of a rollback by rollout (`rollback --rollout ID`): */
        RNODE_RESTORED,         /* its agent restored its revision from before that rollout (a gated transaction) */
        RNODE_ALREADY_THERE,    /* it was at that revision already: left alone */
        RNODE_REFUSED,          /* something committed there since that rollout: left alone (--force restores it) */
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

void rollout_opts_defaults(struct rollout_opts *o);

const char *rnode_state_name(enum rnode_state s);
int rnode_state_from_name(const char *s);
const char *rollout_state_name(enum rollout_state s);
int rollout_state_from_name(const char *s);
const char *rwave_state_name(enum rwave_state s);
int rwave_state_from_name(const char *s);
/* Final: nothing more will happen to a node in this state. */
bool rnode_state_final(enum rnode_state s);

struct rnode {
        char name[INVENTORY_NAME_MAX];
        char url[INVENTORY_URL_MAX];
        unsigned wave;
        enum rnode_state state;
        char tx[ROLLOUT_TX_MAX];                /* agent transaction id, "" = none */
        int exit_code;                          /* the agent's exit_code, -1 = none */
        unsigned changes;                       /* changes the agent made */
        double baseline_gbps, post_gbps;        /* NAN = not measured */
        char error[ROLLOUT_ERR_MAX];
        char key[ROLLOUT_KEY_MAX];              /* idempotency key of its apply, "" = none sent */
        long long confirm_deadline_ms;          /* pending: when its agent restores it (the agent's clock,
                                                   from the apply answer), 0 = unknown */
        long long not_after_ms;                 /* its confirm's not_after_ms: no confirm of ours commits
                                                   after it, 0 = none sent */
        long long pre_rev;                      /* its agent's current revision before this rollout changed it
                                                   (GET /v1/history: the newest committed transaction's rev;
                                                   0 = none yet); -1 = not recorded (not reached yet, or an
                                                   older controller) */
        long long rev;                          /* the revision its change committed as, 0 = none known */
        char undo_tx[ROLLOUT_TX_MAX];           /* the agent transaction that put it back at pre_rev after this
                                                   rollout (a halt's rollback, `rollback --rollout`), "" = none */
        char group[ROLLOUT_LABEL_MAX];          /* its value of opts.wave_by, "" = none */
};

struct rwave {
        enum rwave_state state;
        long long started_at;                   /* unix seconds, 0 = not started */
        long long deadline;                     /* unix seconds: applying: when its pending nodes are restored at the
                                                   latest; passed: the end of its confirm window */
};

struct rollout_rec {
        long long id;
        char kind[ROLLOUT_KIND_MAX];            /* "apply" or "rollback" */
        char policy_name[64];
        char *policy_doc;                       /* owned: the document sent to agents */
        char *args;                             /* owned: rollback request body, or NULL */
        struct rollout_opts opts;
        enum rollout_state state;
        long long created_at, updated_at;
        int exit_code;                          /* -1 while running */
        char message[ROLLOUT_ERR_MAX];
        unsigned n_nodes;
        struct rnode *nodes;                    /* owned */
        unsigned n_waves;
        struct rwave *waves;                    /* owned */
        unsigned chunk_nodes;                   /* the store's own: etcd, nodes per node record (0: one
                                                   record per node, rollouts of older controllers) */
};

/* Free a record (store_rollout_load's, rollout_rec_new's); NULL is fine. */
void rollout_rec_free(struct rollout_rec *r);
/* How many nodes of r are in each state. */
void rollout_rec_count_states(const struct rollout_rec *r, unsigned counts[RNODE_STATE_MAX]);

/* Options as JSON text and back (the store keeps them so --resume sees the same plan). */
char *rollout_opts_to_json(const struct rollout_opts *o);
int rollout_opts_from_json(const char *text, struct rollout_opts *ret);
