/* SPDX-License-Identifier: MIT */
/*
 * nettune-agent plan POLICY: the policy's plan (agent/plan) — its targets, the
 * field-by-field difference, the probe it would pin and what a device would
 * refuse. Changes nothing.
 */
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "agent/cmd/cmd.h"
#include "agent/plan/plan.h"
#include "agent/txn/txn.h"
#include "policies/policy/policy.h"
#include "policies/state/state_text.h"

static void print_plan_text(const json_t *doc, const char *probe)
{
        const json_t *t, *ch, *targets = json_object_get(doc, "targets");
        unsigned changes = (unsigned)json_integer_value(json_object_get(doc, "changes"));
        size_t i, k;

        json_array_foreach(targets, i, t) {
                const json_t *list = json_object_get(t, "changes");

                printf("%s '%s':%s\n", json_string_value(json_object_get(t, "kind")),
                       json_string_value(json_object_get(t, "name")), json_array_size(list) ? "" : " no changes");
                json_array_foreach(list, k, ch) {
                        char from[256], to[256];

                        printf("  %s: %s -> %s\n", json_string_value(json_object_get(ch, "key")),
                               state_text_value("", json_object_get(ch, "from"), from, sizeof(from)),
                               state_text_value("", json_object_get(ch, "to"), to, sizeof(to)));
                }
        }
        if (probe)
                printf("probe: %s\n", probe);
        json_array_foreach(json_object_get(doc, "notes"), i, t)
                printf("note: %s\n", json_string_value(t));
        printf("%u change%s planned; nothing was changed\n", changes, changes == 1 ? "" : "s");
}

int cmd_plan(struct cli *c)
{
        struct errbuf e = { .where = "" };
        struct policy *p = NULL;
        struct journal *j = NULL;
        char path[PATH_MAX];
        struct txn_env env;
        json_auto_t *doc = NULL;
        struct plan_probe probe;
        struct plan plan;
        char line[512];
        int r, code = OUTCOME_OK;

        if (c->argc != 2 || c->argv[1][0] == '-') {
                if (c->argc > 1)
                        cli_bad_arg(c, c->argv[c->argc > 2 && c->argv[1][0] != '-' ? 2 : 1]);
                else
                        fprintf(stderr, "%s plan: no policy file given; see '%s plan --help'\n", c->prog, c->prog);
                return OUTCOME_INVALID;
        }
        r = policy_load_file(c->argv[1], &p, &e);
        if (r < 0)
                return cli_fail(c, &e, OUTCOME_INVALID);
        /* The layers committed here judge the policy too (field_owned); no journal yet: none. */
        snprintf(path, sizeof(path), "%s/%s", c->config.state_dir, JOURNAL_FILE);
        r = access(path, F_OK) == 0 ? journal_open(c->config.state_dir, &j, &e) : 0;
        if (r < 0) {
                policy_free(p);
                return cli_fail(c, &e, OUTCOME_RUNTIME);
        }
        txn_env_init(&env, &c->config, j);
        r = txn_plan_policy(&env, p, &plan, &e);
        if (r < 0)
                code = outcome_of_errno(r);
        else if ((r = plan_read(&plan, &e)) < 0)
                code = OUTCOME_RUNTIME;            /* a device that cannot be read */
        else if ((r = plan_check(&plan, &e)) < 0)
                code = OUTCOME_INVALID;            /* a value a device here refuses */
        else if ((r = plan_probe_pin(&plan, &p->verify, 0, &probe, &e)) < 0)
                code = outcome_of_errno(r);
        else if (!(doc = plan_to_json(&plan)) || json_object_set_new(doc, "probe", plan_probe_to_json(&probe)) < 0)
                code = OUTCOME_RUNTIME;
        plan_free(&plan);
        policy_free(p);
        journal_close(j);
        if (code != OUTCOME_OK)
                return cli_fail(c, &e, code);
        if (c->json)
                cli_print_json(doc);
        else
                print_plan_text(doc, probe.active ? plan_probe_str(&probe, line, sizeof(line)) : NULL);
        return OUTCOME_OK;
}
