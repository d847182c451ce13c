/* SPDX-License-Identifier: MIT */
/* nettune-agent drift: the live state against the node's intent (its committed layers), the fields they manage. */
#include <jansson.h>
#include <stdio.h>

#include "agent/cmd/cmd.h"
#include "agent/txn/txn.h"
#include "policies/state/state_text.h"

int cmd_drift(struct cli *c)
{
        struct errbuf e = { 0 };
        struct journal *j = NULL;
        struct txn_env env;
        struct plan p = { 0 };
        json_t *changes = NULL;
        struct second_writer *writers = NULL;
        int n_writers = 0;
        char buf[ERRBUF_STR_MAX];
        size_t i;
        json_t *ch;
        int r;

        if (c->argc > 1)
                return cli_bad_arg(c, c->argv[1]), OUTCOME_INVALID;
        r = journal_open(c->config.state_dir, &j, &e);
        if (r >= 0) {
                txn_env_init(&env, &c->config, j);
                txn_recover_due(&env);
                r = drift_check(&env, &p, &e);
                if (r >= 0 && !(changes = plan_changes_json(&p)))
                        r = errbuf_set(&e, ENOMEM, NULL, "out of memory");
                if (r >= 0 && (writers = calloc(SECOND_WRITERS_MAX, sizeof(*writers))))
                        n_writers = second_writers_find(j, &c->config, writers, SECOND_WRITERS_MAX, &e);
                if (n_writers < 0)
                        n_writers = 0;
                plan_free(&p);
        }
        journal_close(j);
        if (r < 0) {
                fprintf(stderr, "%s: %s\n", c->prog, errbuf_str(&e, buf, sizeof(buf)));
                return r == -ENOENT ? OUTCOME_OK : OUTCOME_RUNTIME;
        }
        if (c->json) {
                json_t *o = json_pack("{s:b, s:o, s:o}", "drift", r > 0, "changes", changes, "second_writers",
                                      second_writers_json(writers, (unsigned)n_writers));

                json_dumpf(o, stdout, JSON_INDENT(2));
                putchar('\n');
                json_decref(o);
        } else {
                printf(r > 0 ? "drift: %d field(s) differ from the committed policies\n" : "no drift\n", r);
                json_array_foreach(changes, i, ch) {
                        char from[256], to[256], owner[128] = "";
                        const json_t *o = json_object_get(ch, "owner");

                        if (o)
                                snprintf(owner, sizeof(owner), " by policy '%s' revision %lld",
                                         json_string_value(json_object_get(o, "policy")),
                                         (long long)json_integer_value(json_object_get(o, "revision")));
                        printf("  %s %s: %s (committed: %s)%s\n", json_string_value(json_object_get(ch, "target")),
                               json_string_value(json_object_get(ch, "key")),
                               state_text_value("", json_object_get(ch, "from"), from, sizeof(from)),
                               state_text_value("", json_object_get(ch, "to"), to, sizeof(to)), owner);
                }
                json_decref(changes);
                for (int w = 0; w < n_writers; w++) {
                        char vals[600] = "";
                        size_t len = 0;

                        for (unsigned k = 0; k < writers[w].n_values; k++)
                                len += (size_t)snprintf(vals + len, sizeof(vals) - len, "%s%s", k ? ", " : "",
                                                        writers[w].values[k]);
                        printf("second_writer: %s %s was restored %u times and written again (values seen: %s); "
                               "enforcement leaves it alone until a person acts (apply, remove or rollback)\n",
                               writers[w].target, state_field_name(writers[w].field), writers[w].times, vals);
                }
        }
        free(writers);
        return r > 0 ? OUTCOME_ROLLED_BACK : OUTCOME_OK;
}
