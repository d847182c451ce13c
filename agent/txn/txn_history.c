/* SPDX-License-Identifier: MIT */
/* The journal's transactions as JSON: `history`, GET /v1/history and GET /v1/transactions/TX. */
#include <jansson.h>

#include "agent/txn/txn_internal.h"

static json_t *tx_json(const struct journal_tx *t)
{
        json_t *restores = t->restores_json ? json_loads(t->restores_json, 0, NULL) : NULL;
        json_t *saves = t->saves_json ? json_loads(t->saves_json, 0, NULL) : NULL;
        json_t *probe = t->probe_json ? json_loads(t->probe_json, 0, NULL) : NULL;

        /* restores: how each target was put back ([{target, kind, method}]), when anything was. */
        /* rev: the committed revision this transaction recorded (for rollback --to), else null. */
        /* probe: the measurements and the gate's verdict, each with the path it ran on, when any ran. */
        /* idempotency_key: the controller's key of the node step that started it, else absent. */
        /* saves: whether each switch its commit wrote saved it ([{target, saved, how}]), when any. */
        /* rollback_ms: how long its way back took (decision to last target read back), when it went back. */
        return json_pack("{s:I, s:o, s:s, s:s, s:s, s:s, s:i, s:s, s:s?, s:I, s:I, s:I, s:o*, s:o*, s:s*, s:o*, s:o*}",
                         "tx", (json_int_t)t->id, "rev", t->rev > 0 ? json_integer(t->rev) : json_null(),
                         "kind", t->kind, "policy", t->policy_name,
                         "state", journal_state_name(t->state), "result", t->result,
                         "exit_code", t->exit_code, "restored_by", t->restored_by, "error", t->error,
                         "started_ms", (json_int_t)t->started_ms, "finished_ms", (json_int_t)t->finished_ms,
                         "confirm_deadline_ms", (json_int_t)t->confirm_deadline_ms, "restores", restores,
                         "probe", probe,
                         "idempotency_key", t->idempotency_key[0] ? t->idempotency_key : NULL,
                         "saves", saves, "rollback_ms", t->rollback_ms > 0 ? json_real(t->rollback_ms) : NULL);
}

json_t *history_json(struct journal *j, unsigned limit, struct errbuf *e)
{
        struct journal_tx *rows = NULL;
        unsigned n = 0;
        json_t *arr;

        if (journal_list(j, limit, &rows, &n, e) < 0)
                return NULL;
        arr = json_array();
        for (unsigned i = 0; i < n; i++) {
                if (arr)
                        json_array_append_new(arr, tx_json(&rows[i]));
                journal_tx_done(&rows[i]);
        }
        free(rows);
        return arr;
}

json_t *transaction_json(struct journal *j, int64_t tx, struct errbuf *e)
{
        struct journal_tx t;
        json_t *o;

        if (journal_get(j, tx, &t, e) < 0)
                return NULL;
        o = tx_json(&t);
        journal_tx_done(&t);
        if (o && json_object_set_new(o, "now_ms", json_integer(journal_now_ms())) < 0) {
                json_decref(o);
                o = NULL;
        }
        if (!o)
                errbuf_set(e, ENOMEM, NULL, "out of memory");
        return o;
}
