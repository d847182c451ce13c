/* SPDX-License-Identifier: MIT */
/*
 * Subcommands of nettune-agent: one function per subcommand, one file per area.
 *
 * May call: agent/api, agent/txn, agent/doctor, agent/plan, agent/journal, agent/measure,
 * agent/http, agent/config, drivers/, policies/, common/. Called by main.c only.
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>

#include "agent/config/config.h"
#include "common/cli.h"
#include "common/outcome.h"

struct cli {
        const char *prog;
        const char *config_path;        /* --config, NULL = none given */
        bool json;                      /* --output json */
        bool yes;                       /* --yes */
        const struct cli_command *cmd;  /* the subcommand's entry of agent_commands */
        int argc;                       /* arguments after the subcommand and its common options */
        char **argv;
        struct agent_config config;     /* loaded (or defaults) before the subcommand runs */
};

/* The subcommands, their flags and help (cmd_cli.c), and the flags every one takes. */
extern const struct cli_command agent_commands[];
extern const struct cli_flag agent_common_flags[];
/* An argument the subcommand cannot place: the error (with a "did you mean") on stderr; -EINVAL. */
int cli_bad_arg(struct cli *c, const char *arg);

#define CLI_GLOBS_MAX 64
/* "a,b*,c" into globs[*n..] (at most CLI_GLOBS_MAX, each under 64 characters): 0 or -EINVAL. */
int cli_globs(const char *arg, char (*globs)[64], unsigned *n);
/* argv[*i] is "--NAME VALUE" (then *i moves past VALUE) or "--NAME=VALUE": the value, else NULL. */
const char *cli_opt_value(struct cli *c, int *i, const char *name);
/* An integer min-max of option opt; prints the error. */
int cli_parse_uint(struct cli *c, const char *opt, const char *v, unsigned min, unsigned max, unsigned *ret);
/* "PROG: where: message" on stderr; returns code. */
int cli_fail(struct cli *c, const struct errbuf *e, int code);
/* j on stdout, indented, keys sorted (as the agent's JSON output always is). */
void cli_print_json(const json_t *j);

int cmd_validate(struct cli *c);
int cmd_doctor(struct cli *c);
int cmd_probe(struct cli *c);
int cmd_probe_server(struct cli *c);
int cmd_apply(struct cli *c);
int cmd_rollback(struct cli *c);
int cmd_remove(struct cli *c);
int cmd_intent(struct cli *c);
int cmd_confirm(struct cli *c);
int cmd_confirm_watchdog(struct cli *c);
int cmd_history(struct cli *c);
int cmd_drift(struct cli *c);
int cmd_serve(struct cli *c);
int cmd_journal_recover(struct cli *c);
int cmd_state(struct cli *c);
int cmd_plan(struct cli *c);
int cmd_health(struct cli *c);
