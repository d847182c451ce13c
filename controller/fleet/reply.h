/* SPDX-License-Identifier: MIT */
/*
 * Agent answers, validated like any outside input: JSON of bounded size, the
 * expected types, bounded strings and counts. Unknown keys are ignored (newer
 * agents may add some); wrong types of known keys are errors.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

#include "common/errbuf.h"

#define REPLY_CHANGES_MAX 100000
#define REPLY_TIME_MAX 253402300799999LL        /* ms since the epoch: the end of year 9999 */

struct reply_apply {
        char tx[64];                    /* "" = nothing was journaled */
        char state[32];                 /* "PENDING_CONFIRM", "COMMITTED", ... as the agent says */
        char result[32];                /* "committed", "pending_confirm", "nothing_to_do", "rolled_back", ... */
        int exit_code;                  /* 0-4 */
        unsigned changes;
        double baseline_gbps, post_gbps;        /* NAN = none */
        char restored_by[32];
        char error[256];
        long long confirm_deadline_ms;  /* pending: when the agent restores it (its clock), 0 = not said */
        bool replayed;                  /* answered from the journal for a key already journaled */
};

struct reply_plan {
        unsigned n_changes;
        uint32_t fields;                /* STATE_BIT of every changing field the agent named */
        json_t *changes;                /* owned: [{target, field, key, from, to}] */
};

struct reply_drift {
        bool drifted;
        unsigned n_entries;
        json_t *doc;                    /* owned: the whole answer */
};

/* An answer's JSON object (not empty, JSON, duplicates refused, an object). New reference in *ret. */
int reply_load(const char *body, size_t len, json_t **ret, struct errbuf *e);

/* An apply, rollback or confirm answer (all share the transaction result shape). */
int reply_parse_apply(const char *body, size_t len, struct reply_apply *ret, struct errbuf *e);
int reply_parse_plan(const char *body, size_t len, struct reply_plan *ret, struct errbuf *e);
void reply_plan_done(struct reply_plan *p);
int reply_parse_drift(const char *body, size_t len, struct reply_drift *ret, struct errbuf *e);
void reply_drift_done(struct reply_drift *d);

/* One transaction of GET /v1/history that a node step is looking for. */
struct reply_history_tx {
        char tx[64];
        char kind[16];                  /* "apply", "rollback", "enforce", "" = not said */
        char state[32];                 /* "pending_confirm", "committed", "rolled_back", ... */
        char result[32];
        int exit_code;                  /* -1 while running */
        char error[256];
        char restored_by[32];           /* "" or "gate", "confirm-timeout", ... */
        long long confirm_deadline_ms;
        long long now_ms;               /* GET /v1/transactions: the agent's clock when it answered, 0 = not said */
};

#define REPLY_HISTORY_MAX 10000         /* transactions in one answer */

/*
 * Find in a history answer ({"transactions": [...]}, newest first) the transaction whose
 * idempotency_key is key (key non-empty), else the one whose tx is tx. 1 found,
 * 0 not there, -EBADMSG for a malformed answer.
 */
int reply_find_history(const char *body, size_t len, const char *key, const char *tx,
                       struct reply_history_tx *ret, struct errbuf *e);

/*
 * In a history answer (newest first), the committed transactions listed before (newer
 * than) transaction tx: how many (*ret_newer) and the newest of them (ret_newest, when
 * there is one). 1 when tx is listed and committed, 0 when it is not listed or not
 * committed, -EBADMSG for a malformed answer.
 */
int reply_history_committed_after(const char *body, size_t len, const char *tx, unsigned *ret_newer,
                                  struct reply_history_tx *ret_newest, struct errbuf *e);

/*
 * GET /v1/transactions/{tx}: the transaction as the agent's journal has it, with the
 * agent's clock (now_ms). It must be transaction tx and name its state. 0, or -EBADMSG.
 */
int reply_parse_transaction(const char *body, size_t len, const char *tx, struct reply_history_tx *ret,
                            struct errbuf *e);

/* The code of an agent's error body ({"error":{"code":...}}) into buf, "" when there is none. */
const char *reply_error_code(const char *body, size_t len, char *buf, size_t size);

/* The agent's {"error":{code,message,path}} as "message (code, at path)"; fallback "HTTP N". */
const char *reply_error_text(long status, const char *body, size_t len, char *buf, size_t size);
