/* SPDX-License-Identifier: MIT */
/*
 * nettune-agent's subcommands as the command line knows them: arguments, help,
 * every flag (common/cli.h). main.c prints help and dispatches from here; each
 * cmd_*.c parses its own flags with the helpers at the end and hands what it
 * cannot place to cli_bad_arg().
 */
#include <limits.h>

#include "agent/cmd/cmd.h"
#include "policies/json/jsonw.h"

const struct cli_flag agent_common_flags[] = {
        { "--config", "FILE", "agent configuration (default: defaults; serve: " CONFIG_DEFAULT_PATH ")", NULL },
        { "--output", "FMT", "text (default) or json", NULL },
        { "--yes", NULL, "do not ask before a change on a terminal", NULL },
        { "--help", NULL, "this text", NULL },
        { 0 },
};

static const struct cli_flag apply_flags[] = {
        { "--confirm-timeout", "S", "leave the change pending (exit 4); restored after S seconds unless confirmed",
          NULL },
        { 0 },
};

static const struct cli_flag rollback_flags[] = {
        { "--to", "REV", "apply committed revision REV (the REV column of 'history') again", NULL },
        { "--policy", "NAME", "return layer NAME to its previous version (or take it out)", NULL },
        { "--no-gate", NULL, "restore without the verification probe and gate (the fabric is on fire)", NULL },
        { 0 },
};

static const struct cli_flag health_flags[] = {
        { "--timeout", "S", "seconds to wait for the connection (default 5)", NULL },
        { 0 },
};

static const struct cli_flag history_flags[] = {
        { "--limit", "N", "the newest N transactions (default 50)", NULL },
        { 0 },
};

static const struct cli_flag state_flags[] = {
        { "--interfaces", "GLOB,...", "these interfaces only (default: every one but loopback)", NULL },
        { "--switches", "GLOB,...", "these switches of the configuration only (default: every one)", NULL },
        { "--no-switches", NULL, "no switch at all", NULL },
        { "--port", "IF", "one interface as 'mlnx_qos -i IF' shows a port: DCBX, trust, the DSCP map by "
          "priority, buffers, cable length, the PFC table, each traffic class", NULL },
        { 0 },
};

static const struct cli_flag doctor_flags[] = {
        { "--window", "S", "seconds the counter rates are sampled over (default 10)", NULL },
        { "--interfaces", "GLOB,...", "these interfaces only", NULL },
        { "--switches", "GLOB,...", "these switches only", NULL },
        { "--no-switches", NULL, "no switch at all", NULL },
        { "--probe", NULL, "measure the bandwidth to each --peer as well", NULL },
        { "--peer", "ADDR:PORT,...", "the probe responders --probe measures (repeatable)", NULL },
        { "--propose", "FILE", "write the policy that fixes what a policy can fix", NULL },
        { "--name", "NODE", "this node's name in the report (default: the host name)", NULL },
        { "--pause-storm-pps", "N", "pause frames a second that count as a storm", NULL },
        { "--watchdog-flaps", "N", "storm/restore cycles of a queue over the window that flap (default 3)", NULL },
        { "--class-share", "PCT", "the share of RoCE bytes the lossless priorities must carry (default 99)", NULL },
        { "--roce-dscp", "D", "the DSCP RoCE traffic carries (default 26)", NULL },
        { "--roce-priority", "P", "the priority RoCE traffic carries (default 3)", NULL },
        { "--save-facts", "FILE", "keep what was collected", NULL },
        { "--facts", "FILE", "judge a saved file instead of collecting", NULL },
        { 0 },
};

static const struct cli_flag probe_flags[] = {
        { "--peer", "ADDR:PORT", "the peer's probe-server (required)", NULL },
        { "--mode", "MODE", "verbs, tcp or auto (default)", NULL },
        { "--duration-ms", "N", "how long each run sends; 0: --iterations messages instead", NULL },
        { "--iterations", "N", "messages per QP or stream with --duration-ms 0", NULL },
        { "--size", "BYTES", "message size", NULL },
        { "--streams", "N", "TCP streams or RC QPs", "--qps" },
        { "--runs", "N", "runs; the median is reported (default probe.runs of --config)", NULL },
        { "--device", "NAME", "the RDMA device (default: the one the route's GID is on)", NULL },
        { "--gid-index", "N", "the GID index (default: the RoCE v2 GID of the source address)", NULL },
        { "--interface", "NAME", "send out of this interface", NULL },
        { "--source", "ADDR", "send from this address", NULL },
        { "--dscp", "N", "IP DSCP N (TOS/GRH traffic class N << 2)", NULL },
        { "--tc", "N", "the raw traffic class byte", NULL },
        { "--priority", "N", "socket priority / RoCE service level", NULL },
        { "--baseline-gbps", "X", "gate the result against X Gb/s", NULL },
        { "--baseline", "FILE", "gate against an earlier 'probe --output json' (its path too)", NULL },
        { "--max-regression-pct", "P", "the gate's allowed drop (default 20)", NULL },
        { "--min-gbps", "Y", "the gate's floor", NULL },
        { 0 },
};

static const struct cli_flag probe_server_flags[] = {
        { "--listen", "ADDR:PORT", "where to listen (default probe.listen of --config)", NULL },
        { "--allow", "CIDR", "serve clients of this network (repeatable; default probe.allow of --config)", NULL },
        { "--max-clients", "N", "sessions at once", NULL },
        { 0 },
};

static const struct cli_flag serve_flags[] = {
        { "--insecure-loopback", NULL, "plain HTTP, allowed only when listen is a loopback address", NULL },
        { 0 },
};

#define EXITS_CHANGE "0 ok, 1 rolled back, 2 invalid input (nothing changed),\n" \
                     "            3 runtime failure (touched state restored), 4 pending confirmation"

const struct cli_command agent_commands[] = {
        { "validate", "[POLICY...]", "check policy files; exit 2 on the first invalid one",
          "Checks each policy file, JSON or YAML (syntax, keys, types, ranges, cross-field\n"
          "rules), and changes nothing. Stops at the first invalid file. With --config,\n"
          "checks the agent configuration first: keys, ranges, and its TLS files (the\n"
          "server certificate and key, a client CA bundle that holds certificates).",
          NULL, "0 all valid, 2 a file is invalid or unreadable (error on stderr)" },
        { "plan", "POLICY", "print what apply would change here; change nothing",
          "Prints every field 'apply POLICY' would change here, from -> to, and refuses\n"
          "what a device here would refuse. Changes nothing.",
          NULL, "0 ok, 2 invalid policy, unsupported field or a value a device refuses,\n"
                "            3 runtime failure" },
        { "state", NULL, "print the live state and counters of local interfaces",
          "Prints the live managed settings (mtu, trust, dscp_to_priority, pfc, ets,\n"
          "host_ecn) and congestion counters of this namespace's interfaces, and the live\n"
          "settings of the switches of the agent configuration. A switch that cannot be\n"
          "read is shown with its error; the rest is still listed. Changes nothing.",
          state_flags, "0 ok, 2 bad usage or a glob that matches nothing,\n"
                       "            3 an interface or a switch could not be read" },
        { "probe", NULL, "measure bandwidth to a probe-server (verbs or tcp)",
          "Measures the bandwidth to the peer's probe-server: RDMA WRITEs over RC QPs\n"
          "(verbs) or TCP streams (tcp); auto picks verbs when an RDMA device's RoCE GID\n"
          "carries the route's source address. The path is pinned before the first run.\n"
          "Prints the median of --runs runs. With --baseline-gbps or --baseline the\n"
          "regression gate is applied to the result.",
          probe_flags, "0 measured (and the gate passed), 1 the gate failed, 2 invalid usage,\n"
                       "            3 a probe run failed (peer unreachable, no device)" },
        { "probe-server", NULL, "answer bandwidth probes until SIGTERM",
          "Answers verbs and tcp bandwidth probes until SIGTERM or SIGINT. Only clients\n"
          "inside an --allow network (default: probe.allow of --config; neither: this\n"
          "host only) are served.",
          probe_server_flags, "0 stopped by a signal, 2 invalid usage, 3 cannot listen" },
        { "apply", "POLICY", "apply a policy as one verified transaction (--confirm-timeout S)",
          "Applies POLICY as one transaction: snapshot, apply, read back, probe, commit\n"
          "or roll back. On a terminal it asks first (--yes does not).",
          apply_flags, EXITS_CHANGE },
        { "rollback", NULL, "undo the newest committed revision (--policy NAME: one layer)",
          "Undoes the newest committed revision as a full, verified transaction. With\n"
          "several policies (layers) committed, say which with --policy NAME: that layer\n"
          "goes back to its previous version (or out); a bare rollback is refused. On a\n"
          "terminal it asks first (--yes does not). --no-gate restores without the\n"
          "verification probe and gate, for when the fabric itself is failing.",
          rollback_flags, EXITS_CHANGE },
        { "confirm", "TX", "keep a change that is pending confirmation",
          "Keeps a change applied with --confirm-timeout.", NULL, EXITS_CHANGE },
        { "history", NULL, "list transactions",
          "Lists this node's newest transactions, newest first (times in UTC).", history_flags,
          "0 ok, 2 invalid usage, 3 the journal cannot be read" },
        { "drift", NULL, "compare live state with the committed policies; exit 1 on drift",
          "Compares the live state with the node's intent (every committed policy, merged),\n"
          "field by field, naming the policy that owns each field that drifted.", NULL,
          "0 no drift (or nothing committed), 1 drift, 3 runtime failure" },
        { "doctor", NULL, "diagnose a slow fabric here (read only); --propose writes a fix",
          "Diagnoses this node's fabric, read only: link state and speed, MTU, trust,\n"
          "DSCP map, PFC, ETS, ECN and DCQCN of every interface and switch port, counter\n"
          "rates over --window S seconds, lldpad, and drift from the committed policy.\n"
          "Each finding has a code, a severity, the ports, the evidence and a one-line\n"
          "fix (docs/operations.md lists every rule). --save-facts keeps what was\n"
          "collected; --facts judges a saved file instead.",
          doctor_flags, "0 no findings, 1 findings, 2 bad input,\n"
                        "            3 a source could not be collected (the report shows the rest)" },
        { "serve", NULL, "run the HTTPS API, probe responder, confirm and drift timers",
          "Serves the HTTPS API (client certificates required), the probe responder,\n"
          "confirm deadlines and drift checks until SIGTERM.",
          serve_flags, "0 stopped by a signal, 2 invalid configuration, 3 cannot start" },
        { "journal-recover", NULL, "salvage a damaged journal (the agent stopped)",
          "Salvages a damaged journal (one that serve refuses: PRAGMA quick_check failed;\n"
          "stop the agent's service first): every row that can still be read goes into a\n"
          "new journal, which takes the old one's place; the damaged file is kept as\n"
          "journal.db.damaged-TIME. Then transactions left in flight are restored from\n"
          "their snapshots, as after a crash. A sound journal is left alone. A lost\n"
          "journal (missing or emptied, its marker left): the marker is kept beside,\n"
          "what it recorded in flight printed, and a new journal started.",
          NULL, "0 recovered, or the journal is sound, 2 invalid usage,\n"
                "            3 the journal could not be salvaged (the lock is held, a file cannot be written)" },
        { "confirm-watchdog", "TX", NULL, NULL, NULL, NULL },
        { "intent", NULL, "print the merged intent: every managed field, its value, live value and owner",
          "Prints this node's intent, the merge of its committed policies (layers): every\n"
          "field nettune manages here with its desired value, its live value, and the\n"
          "policy and revision that own it (docs/policy-reference.md, \"Layers and\n"
          "owners\"). Changes nothing.",
          NULL, "0 ok, 2 invalid usage, 3 the journal or a target cannot be read" },
        { "remove", "NAME", "take committed policy NAME out as one transaction",
          "Takes the layer NAME out of this node's intent as one verified transaction: the\n"
          "fields it owned go back to the layer below, or to the value they had before\n"
          "nettune first took them. On a terminal it asks first (--yes does not).",
          NULL, EXITS_CHANGE },
        { "health", NULL, "is the agent serving here? (a liveness check)",
          "Loads the configuration and connects to the API's listen address (0.0.0.0 and\n"
          "'::' on loopback): a liveness check for a supervisor, such as a Kubernetes\n"
          "livenessProbe. Needs no client certificate; changes nothing.",
          health_flags, "0 serving, 2 invalid configuration, 3 not accepting connections" },
        { 0 },
};

int cli_bad_arg(struct cli *c, const char *arg)
{
        return cli_unknown(c->prog, c->cmd, agent_common_flags, arg);
}

int cli_globs(const char *arg, char (*globs)[64], unsigned *n)
{
        _cleanup_free_ char *copy = strdup(arg);
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
                if (*n >= CLI_GLOBS_MAX || strlen(tok) >= 64)
                        return -EINVAL;
                snprintf(globs[(*n)++], 64, "%s", tok);
        }
        return 0;
}

const char *cli_opt_value(struct cli *c, int *i, const char *name)
{
        const char *a = c->argv[*i];
        size_t len = strlen(name);

        if (streq(a, name) && *i + 1 < c->argc)
                return c->argv[++*i];
        if (!strncmp(a, name, len) && a[len] == '=')
                return a + len + 1;
        return NULL;
}

int cli_parse_uint(struct cli *c, const char *opt, const char *v, unsigned min, unsigned max, unsigned *ret)
{
        unsigned long n;
        char *end;

        errno = 0;
        n = v && *v >= '0' && *v <= '9' ? strtoul(v, &end, 10) : ULONG_MAX;
        if (!v || errno || n == ULONG_MAX || *end || n < min || n > max) {
                fprintf(stderr, "%s %s: %s '%s': expected an integer %u-%u; nothing was changed\n", c->prog,
                        c->cmd->name, opt, v ? v : "", min, max);
                return -EINVAL;
        }
        *ret = (unsigned)n;
        return 0;
}

int cli_fail(struct cli *c, const struct errbuf *e, int code)
{
        char buf[ERRBUF_STR_MAX];

        fprintf(stderr, "%s: %s\n", c->prog, errbuf_str(e, buf, sizeof(buf)));
        return code;
}

void cli_print_json(const json_t *j)
{
        char *s = j ? jsonw_dumps(j, JSON_INDENT(2) | JSON_SORT_KEYS) : NULL;

        if (s)
                puts(s);
        free(s);
}
