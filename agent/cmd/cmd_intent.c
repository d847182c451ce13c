/* SPDX-License-Identifier: MIT */
/* nettune-agent intent: the merge of the committed policies, every field with its value, live value and owner. */
#include <jansson.h>
#include <stdio.h>

#include "agent/cmd/cmd.h"
#include "agent/txn/txn.h"
#include "policies/state/state_text.h"

static void print_intent(const json_t *doc)
{
        const json_t *fields = json_object_get(doc, "fields"), *l, *f;
        size_t i;

        json_array_foreach(json_object_get(doc, "layers"), i, l)
                printf("layer %s: revision %lld\n", json_string_value(json_object_get(l, "policy")),
                       (long long)json_integer_value(json_object_get(l, "revision")));
        json_array_foreach(fields, i, f) {
                const json_t *o = json_object_get(f, "owner"), *live = json_object_get(f, "live");
                char v[256], lv[256];

                printf("  %s %s: %s (live %s) policy '%s' revision %lld\n",
                       json_string_value(json_object_get(f, "target")), json_string_value(json_object_get(f, "key")),
                       state_text_value("", json_object_get(f, "value"), v, sizeof(v)),
                       live ? state_text_value("", live, lv, sizeof(lv)) : "unread",
                       o ? json_string_value(json_object_get(o, "policy")) : "",
                       o ? (long long)json_integer_value(json_object_get(o, "revision")) : 0LL);
        }
        if (!json_array_size(fields))
                printf("no committed policy: nettune manages nothing here\n");
}

int cmd_intent(struct cli *c)
{
        struct errbuf e = { 0 };
        struct journal *j = NULL;
        json_auto_t *doc = NULL;
        struct txn_env env;
        struct plan p = { 0 };
        int r;

        if (c->argc > 1)
                return cli_bad_arg(c, c->argv[1]), OUTCOME_INVALID;
        r = journal_open(c->config.state_dir, &j, &e);
        if (r >= 0) {
                txn_env_init(&env, &c->config, j);
                txn_recover_due(&env);
                r = intent_read(&env, &p, &doc, &e);
                plan_free(&p);
        }
        journal_close(j);
        if (r < 0)
                return cli_fail(c, &e, OUTCOME_RUNTIME);
        if (c->json)
                cli_print_json(doc);
        else
                print_intent(doc);
        return OUTCOME_OK;
}
