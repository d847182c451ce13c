/* SPDX-License-Identifier: MIT */
/* nettune-agent: the node agent. Thin: parse common options, dispatch a subcommand. */
#include <malloc.h>
#include <stdio.h>

#include "agent/cmd/cmd.h"
#include "common/log.h"
#include "common/version.h"

struct command {
        const char *name;
        int (*run)(struct cli *c);
        bool needs_config;              /* load --config (or defaults) first */
        bool resident;                  /* runs until stopped: the heap is given back as it shrinks */
};

/* What runs each subcommand of agent_commands (cmd_cli.c: arguments, help, flags). */
static const struct command commands[] = {
        { "validate",     cmd_validate,     false, false },
        { "plan",         cmd_plan,         true,  false },
        { "state",        cmd_state,        true,  false },
        { "probe",        cmd_probe,        true,  false },
        { "probe-server", cmd_probe_server, true,  true },
        { "apply",        cmd_apply,        true,  false },
        { "rollback",     cmd_rollback,     true,  false },
        { "confirm",      cmd_confirm,      true,  false },
        { "history",      cmd_history,      true,  false },
        { "drift",        cmd_drift,        true,  false },
        { "doctor",       cmd_doctor,       true,  false },
        { "serve",        cmd_serve,        true,  true },
        { "journal-recover", cmd_journal_recover, true, false },
        { "confirm-watchdog", cmd_confirm_watchdog, true, true },
        { "intent",       cmd_intent,       true,  false },
        { "remove",       cmd_remove,       true,  false },
        { "health",       cmd_health,       true,  false },
};

#define COMMON_USAGE "[--config FILE] [--output text|json] [--yes]"
#define EXIT_CODES "0 ok, 1 rolled back / drift found, 2 invalid input (nothing changed),\n" \
                   "            3 runtime failure (touched state restored), 4 pending confirmation"

static void usage(FILE *f)
{
        fprintf(f,
                "usage: nettune-agent " COMMON_USAGE " COMMAND [ARGS]\n"
                "\n"
                "Applies nettune policies to this node's interfaces and switches as one\n"
                "transaction: snapshot, apply, read back, probe, commit or roll back.\n"
                "\ncommands:\n");
        cli_list(f, agent_commands);
        fprintf(f,
                "\noptions:\n"
                "  --config FILE   agent configuration (default: defaults; serve: %s)\n"
                "  --output FMT    text (default) or json\n"
                "  --yes           do not ask before a change on a terminal\n"
                "  --help          this text ('nettune-agent COMMAND --help': the command's)\n"
                "  --version       print the version\n"
                "\nexit codes: " EXIT_CODES "\n",
                CONFIG_DEFAULT_PATH);
}

/* Pull the common options out of argv wherever they stand; leave the rest in order. */
static int parse_common(struct cli *c, int argc, char **argv, int *ret_argc)
{
        int n = 1;

        for (int i = 1; i < argc; i++) {
                const char *a = argv[i];
                const char *v = NULL;

                if (streq(a, "--")) {
                        while (i < argc)
                                argv[n++] = argv[i++];
                        break;
                }
                if (streq(a, "--config") || streq(a, "--output")) {
                        if (i + 1 >= argc) {
                                fprintf(stderr, "%s: option '%s' needs a value\n", c->prog, a);
                                return -EINVAL;
                        }
                        v = argv[++i];
                } else if (!strncmp(a, "--config=", 9) || !strncmp(a, "--output=", 9)) {
                        v = a + 9;
                }
                if (v && !strncmp(a, "--config", 8)) {
                        c->config_path = v;
                } else if (v) {
                        if (!streq(v, "json") && !streq(v, "text")) {
                                fprintf(stderr, "%s: --output '%s': expected 'text' or 'json'\n", c->prog, v);
                                return -EINVAL;
                        }
                        c->json = streq(v, "json");
                } else if (streq(a, "--yes") || streq(a, "-y")) {
                        c->yes = true;
                } else {
                        argv[n++] = argv[i];
                }
        }
        argv[n] = NULL;
        *ret_argc = n;
        return 0;
}

int main(int argc, char **argv)
{
        static struct cli c = { .prog = "nettune-agent" };     /* the configuration is 140 KiB: not on the stack */
        const struct command *cmd = NULL;
        struct errbuf e = { 0 };
        char buf[ERRBUF_STR_MAX];

        log_set_prefix(c.prog);
        if (parse_common(&c, argc, argv, &argc) < 0)
                return OUTCOME_INVALID;
        if (argc < 2 || streq(argv[1], "--help") || streq(argv[1], "-h") || streq(argv[1], "help")) {
                usage(argc < 2 ? stderr : stdout);
                return argc < 2 ? OUTCOME_INVALID : OUTCOME_OK;
        }
        if (streq(argv[1], "--version")) {
                printf("nettune-agent %s\n", NETTUNE_VERSION);
                return OUTCOME_OK;
        }
        for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
                if (streq(argv[1], commands[i].name))
                        cmd = &commands[i];
        c.cmd = cmd ? cli_find(agent_commands, cmd->name) : NULL;
        if (!cmd || !c.cmd) {
                cli_unknown_command(c.prog, agent_commands, argv[1]);
                return OUTCOME_INVALID;
        }
        /* Help before anything is loaded or opened: it touches nothing. */
        if (c.cmd->summary && cli_help_wanted(argc - 2, argv + 2)) {
                cli_help(stdout, c.prog, COMMON_USAGE, c.cmd, agent_common_flags, EXIT_CODES);
                return OUTCOME_OK;
        }
        /*
         * A command that ends soon keeps what its heap grew to: given back and taken again
         * page by page (glibc trims above 128 KiB free), it costs a page fault each time.
         */
        if (!cmd->resident)
                mallopt(M_TRIM_THRESHOLD, 64 << 20);
        if (config_load_zeroed(cmd->needs_config ? c.config_path : NULL, &c.config, &e) < 0) {
                fprintf(stderr, "%s: %s; nothing was changed\n", c.prog, errbuf_str(&e, buf, sizeof(buf)));
                return OUTCOME_INVALID;
        }
        c.argc = argc - 1;
        c.argv = argv + 1;
        return cmd->run(&c);
}
