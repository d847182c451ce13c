/* SPDX-License-Identifier: MIT */
/* nettune-agent history [--limit N]: the newest transactions of this node, from the journal. */
#include <time.h>

#include "agent/cmd/cmd.h"
#include "agent/txn/txn.h"
#include "policies/state/state_text.h"

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

                strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&sec, &tm));
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
        char buf[ERRBUF_STR_MAX];

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
