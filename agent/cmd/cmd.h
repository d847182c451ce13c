/* SPDX-License-Identifier: MIT */
/* Subcommands of nettune-agent: one function per subcommand, one file per area. */
#pragma once

#include <stdbool.h>

#include "agent/config/config.h"
#include "common/outcome.h"

struct cli {
        const char *prog;
        const char *config_path;        /* --config, NULL = none given */
        bool json;                      /* --output json */
        bool yes;                       /* --yes */
        int argc;                       /* arguments after the subcommand and its common options */
        char **argv;
        struct agent_config config;     /* loaded (or defaults) before the subcommand runs */
};

#define CLI_GLOBS_MAX 64
/* "a,b*,c" into globs[*n..] (at most CLI_GLOBS_MAX, each under 64 characters): 0 or -EINVAL (cmd_state.c). */
int cli_globs(const char *arg, char (*globs)[64], unsigned *n);
/* argv[*i] is "--NAME VALUE" (then *i moves past VALUE) or "--NAME=VALUE": the value, else NULL. */
const char *cli_opt_value(struct cli *c, int *i, const char *name);

int cmd_validate(struct cli *c);
int cmd_doctor(struct cli *c);
int cmd_probe(struct cli *c);
int cmd_probe_server(struct cli *c);
int cmd_apply(struct cli *c);
int cmd_rollback(struct cli *c);
int cmd_confirm(struct cli *c);
int cmd_confirm_watchdog(struct cli *c);
int cmd_history(struct cli *c);
int cmd_drift(struct cli *c);
int cmd_serve(struct cli *c);
int cmd_journal_recover(struct cli *c);
int cmd_state(struct cli *c);
int cmd_plan(struct cli *c);
