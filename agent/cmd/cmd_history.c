/* SPDX-License-Identifier: MIT */
/* Read-only reports from the journal and the live state: history, drift. */
#include <time.h>

#include "agent/cmd/cmd.h"
#include "agent/txn/txn.h"

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

/* " (leaf1 vendor-abort, vA driver-reapply)" */
static void print_restores(const json_t *restores)
{
        size_t i;
        json_t *r;

        json_array_foreach(restores, i, r)
                printf("%s%s %s%s", i ? ", " : " (", json_string_value(json_object_get(r, "target")),
                       json_string_value(json_object_get(r, "method")),
                       i + 1 == json_array_size(restores) ? ")" : "");
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

static void print_history(const json_t *arr)
{
        size_t i;
        json_t *t;

        printf("%-6s %-9s %-16s %-16s %-14s %-5s %-20s %s\n", "TX", "KIND", "POLICY", "STATE", "RESULT", "REV",
               "STARTED", "RESTORED_BY");
        json_array_foreach(arr, i, t) {
                time_t sec = (time_t)(json_integer_value(json_object_get(t, "started_ms")) / 1000);
                json_int_t rev = json_integer_value(json_object_get(t, "rev"));
                char when[32], revs[24] = "-";
                struct tm tm;

                strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", gmtime_r(&sec, &tm));
                if (rev > 0)
                        snprintf(revs, sizeof(revs), "%lld", (long long)rev);
                printf("%-6lld %-9s %-16s %-16s %-14s %-5s %-20s %s",
                       (long long)json_integer_value(json_object_get(t, "tx")),
                       json_string_value(json_object_get(t, "kind")),
                       json_string_value(json_object_get(t, "policy")),
                       json_string_value(json_object_get(t, "state")),
                       json_string_value(json_object_get(t, "result")), revs, when,
                       json_string_value(json_object_get(t, "restored_by")));
                print_restores(json_object_get(t, "restores"));
                putchar('\n');
        }
}

int cmd_history(struct cli *c)
{
        struct errbuf e = { 0 };
        struct journal *j = NULL;
        struct txn_env env;
        json_t *arr;
        unsigned limit = 50;
        char buf[1100];

        for (int i = 1; i < c->argc; i++) {
                const char *v = cli_opt_value(c, &i, "--limit");

                if (!v)
                        return cli_bad_arg(c, c->argv[i]), OUTCOME_INVALID;
                if (cli_parse_uint(c, "--limit", v, 1, 100000, &limit) < 0)
                        return OUTCOME_INVALID;
        }
        if (journal_open(c->config.state_dir, &j, &e) < 0) {
                fprintf(stderr, "%s: %s\n", c->prog, errbuf_str(&e, buf, sizeof(buf)));
                return OUTCOME_RUNTIME;
        }
        txn_env_init(&env, &c->config, j);
        txn_recover_due(&env);          /* what nobody owns any more is restored before it is listed */
        arr = history_json(j, limit, &e);
        journal_close(j);
        if (!arr) {
                fprintf(stderr, "%s: %s\n", c->prog, errbuf_str(&e, buf, sizeof(buf)));
                return OUTCOME_RUNTIME;
        }
        if (c->json) {
                json_dumpf(arr, stdout, JSON_INDENT(2));
                putchar('\n');
        } else {
                print_history(arr);
        }
        json_decref(arr);
        return OUTCOME_OK;
}

int cmd_drift(struct cli *c)
{
        struct errbuf e = { 0 };
        struct journal *j = NULL;
        struct txn_env env;
        struct plan p = { 0 };
        json_t *changes = NULL;
        char buf[1100];
        size_t i;
        json_t *ch;
        int r;

        if (c->argc > 1)
                return cli_bad_arg(c, c->argv[1]), OUTCOME_INVALID;
        r = journal_open(c->config.state_dir, &j, &e);
        if (r >= 0) {
                txn_env_init(&env, &c->config, j);
                txn_recover_due(&env);
                r = drift_check(&env, &p, NULL, &e);
                if (r >= 0 && !(changes = plan_changes_json(&p)))
                        r = errbuf_set(&e, ENOMEM, NULL, "out of memory");
                plan_free(&p);
        }
        journal_close(j);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", c->prog, errbuf_str(&e, buf, sizeof(buf)));
                return r == -ENOENT ? OUTCOME_OK : OUTCOME_RUNTIME;
        }
        if (c->json) {
                json_t *o = json_pack("{s:b, s:o}", "drift", r > 0, "changes", changes);

                json_dumpf(o, stdout, JSON_INDENT(2));
                putchar('\n');
                json_decref(o);
        } else {
                printf(r > 0 ? "drift: %d field(s) differ from the committed policy\n" : "no drift\n", r);
                json_array_foreach(changes, i, ch)
                        printf("  %s %s: %s (committed: %s)\n", json_string_value(json_object_get(ch, "target")),
                               json_string_value(json_object_get(ch, "key")),
                               json_string_value(json_object_get(ch, "from")),
                               json_string_value(json_object_get(ch, "to")));
                json_decref(changes);
        }
        return r > 0 ? OUTCOME_ROLLED_BACK : OUTCOME_OK;
}
