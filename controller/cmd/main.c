/* SPDX-License-Identifier: MIT */
/* nettunectl: the controller CLI. Thin: parse common options, dispatch a subcommand. */
#include <stdio.h>

#include "common/log.h"
#include "common/util.h"
#include "common/version.h"
#include "controller/cmd/ctl.h"

struct command {
        const char *name;
        int (*run)(struct ctl *c);
};

/* What runs each subcommand of ctl_commands (ctl_cli.c: arguments, help, flags). */
static const struct command commands[] = {
        { "plan",     ctl_cmd_plan },
        { "apply",    ctl_cmd_apply },
        { "status",   ctl_cmd_status },
        { "state",    ctl_cmd_state },
        { "drift",    ctl_cmd_drift },
        { "doctor",   ctl_cmd_doctor },
        { "history",  ctl_cmd_history },
        { "rollback", ctl_cmd_rollback },
        { "confirm",  ctl_cmd_confirm },
        { "halt",     ctl_cmd_halt },
        { "serve",    ctl_cmd_serve },
        { "store",    ctl_cmd_store },
        { "probe",    ctl_cmd_probe },
        { "locate",   ctl_cmd_locate },
        { "headroom", ctl_cmd_headroom },
        { "tune",     ctl_cmd_tune },
        { "diff",     ctl_cmd_diff },
        { "pause",    ctl_cmd_pause },
        { "resume",   ctl_cmd_resume },
        { "promote",  ctl_cmd_promote },
        { "inventory", ctl_cmd_inventory },
        { "conform",  ctl_cmd_conform },
        { "intent",   ctl_cmd_intent },
        { "remove",   ctl_cmd_remove },
};

#define COMMON_USAGE "[--config FILE] [--inventory FILE] [--db FILE | --store SPEC] [--output text|json] [--yes]"
#define EXIT_CODES "0 ok, 1 halted and rolled back / drift found, 2 invalid input\n" \
                   "            (nothing changed), 3 runtime failure (nodes unreachable or failed),\n" \
                   "            4 left pending confirmation"

static void usage(FILE *f)
{
        fprintf(f,
                "usage: nettunectl [--config FILE] [--inventory FILE] [--db FILE | --store SPEC]\n"
                "                  [--output text|json] [--yes] COMMAND [ARGS]\n"
                "\n"
                "Rolls nettune policies out to node agents in canary waves, halting and\n"
                "rolling back on failure; shows and scans the fleet's live state.\n"
                "\ncommands:\n");
        cli_list(f, ctl_commands);
        fprintf(f,
                "\n'nettunectl COMMAND --help' shows a command's arguments and options.\n"
                "\noptions:\n"
                "  --inventory FILE  nodes, URLs and labels (default ./inventory.json)\n"
                "  --config FILE     controller configuration (store, TLS, serve settings)\n"
                "  --db FILE         SQLite state (default ./nettune.db), same as --store sqlite:FILE\n"
                "  --store SPEC      sqlite:PATH or etcd://HOST:PORT[,HOST:PORT...]/PREFIX\n"
                "  --store-ca FILE, --store-cert FILE, --store-key FILE   mTLS to etcd\n"
                "  --output FMT      text (default) or json\n"
                "  --parallel N      requests in flight at most (default 32)\n"
                "  --timeout S       per request (default 60)\n"
                "  --quiet           no progress lines\n"
                "  --yes             do not ask before a change on a terminal\n"
                "  --help, --version\n"
                "\nexit codes: " EXIT_CODES "\n");
}

static int take_value(struct ctl *c, const char *a, const char *next, const char *name,
                      const char **ret, int *i)
{
        size_t n = strlen(name);

        if (streq(a, name)) {
                if (!next) {
                        log_err("option '%s' needs a value; nothing was changed", name);
                        return -EINVAL;
                }
                *ret = next;
                (*i)++;
                return 1;
        }
        if (!strncmp(a, name, n) && a[n] == '=') {
                *ret = a + n + 1;
                return 1;
        }
        return 0;
}

/* Pull the common options out of argv wherever they stand; leave the rest in order. */
static int parse_common(struct ctl *c, int argc, char **argv, int *ret_argc)
{
        int n = 1;

        for (int i = 1; i < argc; i++) {
                const char *a = argv[i], *next = i + 1 < argc ? argv[i + 1] : NULL, *v = NULL;
                int r;

                if (streq(a, "--")) {
                        while (i < argc)
                                argv[n++] = argv[i++];
                        break;
                }
                if ((r = take_value(c, a, next, "--inventory", &c->inventory_path, &i)) ||
                    (r = take_value(c, a, next, "--store", &c->store_spec, &i)) ||
                    (r = take_value(c, a, next, "--store-ca", &c->store_tls.ca, &i)) ||
                    (r = take_value(c, a, next, "--store-cert", &c->store_tls.cert, &i)) ||
                    (r = take_value(c, a, next, "--store-key", &c->store_tls.key, &i)) ||
                    (r = take_value(c, a, next, "--config", &c->config_path, &i))) {
                        if (r < 0)
                                return r;
                } else if ((r = take_value(c, a, next, "--db", &c->db_path, &i))) {
                        if (r < 0)
                                return r;
                        c->db_given = true;
                } else if ((r = take_value(c, a, next, "--output", &v, &i))) {
                        if (r < 0 || (!streq(v, "json") && !streq(v, "text"))) {
                                if (r > 0)
                                        log_err("--output '%s': expected 'text' or 'json'; nothing was changed", v);
                                return -EINVAL;
                        }
                        c->json = streq(v, "json");
                } else if ((r = take_value(c, a, next, "--parallel", &v, &i))) {
                        if (r < 0 || ctl_parse_uint("--parallel", v, 1, 1024, &c->parallel) < 0)
                                return -EINVAL;
                } else if ((r = take_value(c, a, next, "--timeout", &v, &i))) {
                        if (r < 0 || ctl_parse_uint("--timeout", v, 1, 3600, &c->timeout_s) < 0)
                                return -EINVAL;
                } else if (streq(a, "--yes") || streq(a, "-y")) {
                        c->yes = true;
                } else if (streq(a, "--quiet") || streq(a, "-q")) {
                        c->quiet = true;
                } else {
                        argv[n++] = argv[i];
                }
        }
        argv[n] = NULL;
        *ret_argc = n;
        return 0;
}

/* The config file fills what the command line left out. */
static int load_config(struct ctl *c)
{
        struct errbuf e = { 0 };
        char buf[ERRBUF_STR_MAX];
        bool inventory_given = !streq(c->inventory_path, "inventory.json");

        if (!c->config_path)
                return 0;
        if (ctl_config_load(c->config_path, &c->cfg, &e) < 0) {
                log_err("%s; nothing was changed", errbuf_str(&e, buf, sizeof(buf)));
                return -EINVAL;
        }
        if (!inventory_given && c->cfg.inventory[0])
                c->inventory_path = c->cfg.inventory;
        if (!c->store_tls.ca && c->cfg.store_ca[0])
                c->store_tls = (struct store_tls) { c->cfg.store_ca, c->cfg.store_cert[0] ? c->cfg.store_cert : NULL,
                                                    c->cfg.store_key[0] ? c->cfg.store_key : NULL };
        return 0;
}

/* The subcommand's entry (run and table), or NULL (the error printed). */
static const struct command *find_command(const char *name, const struct cli_command **ret)
{
        for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
                if (streq(name, commands[i].name) && (*ret = cli_find(ctl_commands, name)))
                        return &commands[i];
        cli_unknown_command("nettunectl", ctl_commands, name);
        return NULL;
}

static int run(int argc, char **argv)
{
        struct ctl c = {
                .inventory_path = "inventory.json", .db_path = "nettune.db",
                .parallel = 32, .timeout_s = 60,
        };
        const struct command *cmd;
        int r;

        log_set_prefix("nettunectl");
        ctl_config_defaults(&c.cfg);
        if (parse_common(&c, argc, argv, &argc) < 0)
                return OUTCOME_INVALID;
        if (argc < 2) {
                usage(stderr);
                return OUTCOME_INVALID;
        }
        if (streq(argv[1], "--help") || streq(argv[1], "-h") || streq(argv[1], "help")) {
                usage(stdout);
                return 0;
        }
        if (streq(argv[1], "--version")) {
                printf("nettunectl %s\n", NETTUNE_VERSION);
                return 0;
        }
        cmd = find_command(argv[1], &c.cmd);
        if (!cmd)
                return OUTCOME_INVALID;
        /* Help before the configuration, the inventory or the store: it touches nothing. */
        if (cli_help_wanted(argc - 2, argv + 2)) {
                cli_help(stdout, "nettunectl", COMMON_USAGE, c.cmd, ctl_common_flags, EXIT_CODES);
                return 0;
        }
        if (load_config(&c) < 0)
                return OUTCOME_INVALID;
        c.progress = progress_mode_for(STDERR_FILENO, c.quiet, c.json, true);
        c.argc = argc - 2;
        c.argv = argv + 2;
        r = cmd->run(&c);
        ctl_done(&c);
        return r;
}

int main(int argc, char **argv)
{
        ctl_errjson_begin(argc, argv);
        return ctl_errjson_end(run(argc, argv));
}
