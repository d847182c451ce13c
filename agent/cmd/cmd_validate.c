/* SPDX-License-Identifier: MIT */
/*
 * nettune-agent validate POLICY...: check policy files without touching anything.
 * Prints "FILE: ok" per valid file; stops at the first invalid one, prints its
 * error to stderr and exits 2. --output json prints an array of results.
 * With --config FILE, the agent configuration is checked first (keys, ranges and
 * its TLS files); without POLICY only the configuration is checked.
 */
#include <jansson.h>
#include <stdio.h>

#include "agent/cmd/cmd.h"
#include "agent/config/config.h"
#include "policies/policy/policy.h"

/*
 * Split errbuf.where ("FILE: $.path", "FILE:LINE:COL" or, for YAML, "FILE:LINE:COL: $.path")
 * into a JSON error object: path, message, location (the file, or FILE:LINE:COL).
 */
static json_t *error_json(const char *file, const struct errbuf *e)
{
        size_t n = strlen(file);
        const char *path = NULL, *at = strstr(e->where + (strncmp(e->where, file, n) ? 0 : n), ": $");
        char location[sizeof(e->where)];

        snprintf(location, sizeof(location), "%s", e->where);
        if (!strncmp(e->where, file, n) && at) {
                path = at + 2;
                location[at - e->where] = '\0';
        }
        return json_pack("{s:s?,s:s,s:s}", "path", path, "message", e->msg, "location", location);
}

static int add_result(json_t *results, const char *file, const struct errbuf *e)
{
        json_t *o = json_pack("{s:s,s:b}", "file", file, "valid", e == NULL);

        if (o && e && json_object_set_new(o, "error", error_json(file, e)) < 0) {
                json_decref(o);
                o = NULL;
        }
        if (!o || json_array_append_new(results, o) < 0)
                return -ENOMEM;
        return 0;
}

static void print_json(json_t *results)
{
        char *s = json_dumps(results, JSON_INDENT(2));

        if (s) {
                puts(s);
                free(s);
        }
}

static int validate_one(const char *file, json_t *results, bool json, bool config, struct errbuf *e)
{
        _cleanup_free_ struct agent_config *c = NULL;
        struct policy *p = NULL;
        char buf[ERRBUF_STR_MAX];
        int r;

        if (config) {
                c = malloc(sizeof(*c));
                r = c ? config_load(file, c, e) : errbuf_set(e, ENOMEM, file, "out of memory");
                if (r >= 0)
                        r = config_check_tls(c, e);
        } else {
                r = policy_load_file(file, &p, e);
                policy_free(p);
        }
        if (json && add_result(results, file, r < 0 ? e : NULL) < 0)
                return -ENOMEM;
        if (r < 0) {
                fprintf(stderr, "%s\n", errbuf_str(e, buf, sizeof(buf)));
                return r;
        }
        if (!json)
                printf("%s: ok\n", file);
        return 0;
}

int cmd_validate(struct cli *c)
{
        json_t *results = NULL;
        struct errbuf e = { .where = "" };
        int r = 0, first = 1;

        if (c->argc > 1 && streq(c->argv[1], "--"))
                first = 2;
        else if (c->argc > 1 && c->argv[1][0] == '-' && c->argv[1][1])
                return cli_bad_arg(c, c->argv[1]), OUTCOME_INVALID;
        if (c->argc <= first && !c->config_path) {
                fprintf(stderr, "%s validate: no policy file given; see '%s validate --help'\n", c->prog, c->prog);
                return OUTCOME_INVALID;
        }
        if (c->json && !(results = json_array())) {
                fprintf(stderr, "%s validate: out of memory\n", c->prog);
                return OUTCOME_RUNTIME;
        }
        if (c->config_path)
                r = validate_one(c->config_path, results, c->json, true, &e);
        for (int i = first; i < c->argc && r >= 0; i++)
                r = validate_one(c->argv[i], results, c->json, false, &e);
        if (c->json)
                print_json(results);
        json_decref(results);
        if (r == -ENOMEM && !e.msg[0]) {
                fprintf(stderr, "%s validate: out of memory\n", c->prog);
                return OUTCOME_RUNTIME;
        }
        return r < 0 ? OUTCOME_INVALID : OUTCOME_OK;
}
