/* SPDX-License-Identifier: MIT */
/* nettune-agent: the node agent. Thin: parse common options, dispatch a subcommand. */
#include <getopt.h>
#include <malloc.h>
#include <stdio.h>

#include "agent/cmd/cmd.h"
#include "common/log.h"
#include "common/version.h"

struct command {
        const char *name;
        int (*run)(struct cli *c);
        bool needs_config;              /* load --config (or defaults) first */
        const char *summary;
        bool resident;                  /* runs until stopped: the heap is given back as it shrinks */
};

static const struct command commands[] = {
        { "validate",     cmd_validate,     false, "check policy files; exit 2 on the first invalid one", false },
        { "plan",         cmd_plan,         true,  "print what apply would change here; change nothing", false },
        { "state",        cmd_state,        true,  "print the live state and counters of local interfaces", false },
        { "probe",        cmd_probe,        true,  "measure bandwidth to a probe-server (verbs or tcp)", false },
        { "probe-server", cmd_probe_server, true,  "answer bandwidth probes until SIGTERM", true },
        { "apply",        cmd_apply,        true,  "apply a policy as one verified transaction (--confirm-timeout S)", false },
        { "rollback",     cmd_rollback,     true,  "undo the newest committed revision", false },
        { "confirm",      cmd_confirm,      true,  "keep a change that is pending confirmation", false },
        { "history",      cmd_history,      true,  "list transactions", false },
        { "drift",        cmd_drift,        true,  "compare live state with the committed policy; exit 1 on drift", false },
        { "doctor",       cmd_doctor,       true,  "diagnose a slow fabric here (read only); --propose writes a fix", false },
        { "serve",        cmd_serve,        true,  "run the HTTPS API, probe responder, confirm and drift timers", true },
        { "journal-recover", cmd_journal_recover, true, "salvage a damaged journal (the agent stopped)", false },
        { "confirm-watchdog", cmd_confirm_watchdog, true, NULL, true },
};

static void usage(FILE *f)
{
        fprintf(f,
                "usage: nettune-agent [--config FILE] [--output text|json] [--yes] COMMAND [ARGS]\n"
                "\n"
                "Applies nettune policies to this node's interfaces and switches as one\n"
                "transaction: snapshot, apply, read back, probe, commit or roll back.\n"
                "\ncommands:\n");
        for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
                if (commands[i].summary)
                        fprintf(f, "  %-16s %s\n", commands[i].name, commands[i].summary);
        fprintf(f,
                "\noptions:\n"
                "  --config FILE   agent configuration (default: defaults; serve: %s)\n"
                "  --output FMT    text (default) or json\n"
                "  --yes           do not ask for confirmation on a terminal\n"
                "  --help          this text\n"
                "  --version       print the version\n"
                "\nexit codes: 0 ok, 1 rolled back / drift found, 2 invalid input (nothing changed),\n"
                "            3 runtime failure (touched state restored), 4 pending confirmation\n",
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
        char buf[1100];

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
        if (!cmd) {
                fprintf(stderr, "%s: unknown command '%s'; see '%s --help'\n", c.prog, argv[1], c.prog);
                return OUTCOME_INVALID;
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
