/* SPDX-License-Identifier: MIT */
/* Drift: live state against the newest committed policy, managed fields only. */
#pragma once

#include <jansson.h>

#include "agent/txn/txn.h"

/*
 * Compare: *ret is the committed policy's plan, read (plan_free it in every case);
 * *ret_policy (may be NULL): the committed policy (caller frees).
 * Returns the number of differences, -ENOENT when nothing was ever committed.
 */
int drift_check(struct txn_env *env, struct plan *ret, struct policy **ret_policy, struct errbuf *e);

/* The newest `limit` transactions as a JSON array (history command and API); NULL on error. */
json_t *history_json(struct journal *j, unsigned limit, struct errbuf *e);
/*
 * One transaction as history lists it, plus "now_ms" (the agent's clock, to judge
 * confirm_deadline_ms by); NULL and -ENOENT's "no transaction N" in e when unknown.
 */
json_t *transaction_json(struct journal *j, int64_t tx, struct errbuf *e);
