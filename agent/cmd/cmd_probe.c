/* SPDX-License-Identifier: MIT */
/*
 * nettune-agent probe:        measure the rate to a peer's probe-server (median of N runs),
 *                             optionally gated against a baseline rate.
 * nettune-agent probe-server: answer probes on probe.listen (or --listen) until SIGTERM/SIGINT.
 */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>

#include "agent/cmd/cmd.h"
#include "agent/measure/measure.h"
#include "common/log.h"
#include "drivers/probe/probe.h"
#include "drivers/probe/probe_gate.h"
#include "drivers/probe/probe_server.h"
#include "policies/json/jsonv.h"

struct probe_cmd {
        struct probe_params p;
        enum probe_mode mode;
        unsigned runs;
        bool gate;                      /* --baseline-gbps or --baseline given */
        double baseline_gbps;
        const char *baseline_file;      /* --baseline: a previous `probe --output json` */
        struct probe_path baseline_path;
        struct probe_gate_params g;
};

static int parse_uint(const char *opt, const char *v, unsigned long min, unsigned long max, unsigned *ret)
{
        char *end;
        unsigned long n;

        errno = 0;
        n = strtoul(v, &end, 10);
        if (!v[0] || v[0] == '-' || *end || errno || n < min || n > max) {
                log_err("--%s '%s': expected an integer in %lu-%lu", opt, v, min, max);
                return -EINVAL;
        }
        *ret = (unsigned)n;
        return 0;
}

static int parse_double(const char *opt, const char *v, double max, double *ret)
{
        char *end;
        double d;

        errno = 0;
        d = strtod(v, &end);
        if (!v[0] || *end || errno || !isfinite(d) || d < 0 || d > max) {
                log_err("--%s '%s': expected a number in 0-%g", opt, v, max);
                return -EINVAL;
        }
        *ret = d;
        return 0;
}

static int copy_str(const char *opt, const char *v, char *dst, size_t size)
{
        if (strlen(v) >= size) {
                log_err("--%s '%s': longer than %zu characters", opt, v, size - 1);
                return -EINVAL;
        }
        snprintf(dst, size, "%s", v);
        return 0;
}

enum { OPT_PEER = 256, OPT_MODE, OPT_DURATION, OPT_ITER, OPT_SIZE, OPT_STREAMS, OPT_RUNS, OPT_DEVICE,
       OPT_GID, OPT_TC, OPT_SOURCE, OPT_BASELINE, OPT_MAXREG, OPT_MINGBPS, OPT_HELP, OPT_DSCP, OPT_PRIORITY,
       OPT_IFACE, OPT_BASEFILE };

static const struct option probe_options[] = {
        { "peer", required_argument, NULL, OPT_PEER },
        { "mode", required_argument, NULL, OPT_MODE },
        { "duration-ms", required_argument, NULL, OPT_DURATION },
        { "iterations", required_argument, NULL, OPT_ITER },
        { "size", required_argument, NULL, OPT_SIZE },
        { "qps", required_argument, NULL, OPT_STREAMS },
        { "streams", required_argument, NULL, OPT_STREAMS },
        { "runs", required_argument, NULL, OPT_RUNS },
        { "device", required_argument, NULL, OPT_DEVICE },
        { "gid-index", required_argument, NULL, OPT_GID },
        { "tc", required_argument, NULL, OPT_TC },
        { "source", required_argument, NULL, OPT_SOURCE },
        { "interface", required_argument, NULL, OPT_IFACE },
        { "dscp", required_argument, NULL, OPT_DSCP },
        { "priority", required_argument, NULL, OPT_PRIORITY },
        { "baseline", required_argument, NULL, OPT_BASEFILE },
        { "baseline-gbps", required_argument, NULL, OPT_BASELINE },
        { "max-regression-pct", required_argument, NULL, OPT_MAXREG },
        { "min-gbps", required_argument, NULL, OPT_MINGBPS },
        { NULL, 0, NULL, 0 },
};

static int probe_option(struct probe_cmd *pc, int opt, const char *name, const char *v)
{
        struct probe_params *p = &pc->p;
        unsigned u;
        int r;

        switch (opt) {
        case OPT_PEER:     return copy_str(name, v, p->peer, sizeof(p->peer));
        case OPT_DEVICE:   return copy_str(name, v, p->device, sizeof(p->device));
        case OPT_SOURCE:   return copy_str(name, v, p->source, sizeof(p->source));
        case OPT_IFACE:    return copy_str(name, v, p->netdev, sizeof(p->netdev));
        case OPT_BASEFILE:
                pc->gate = true;
                pc->baseline_file = v;
                return 0;
        case OPT_DSCP:
                r = parse_uint(name, v, 0, 63, &u);
                p->traffic_class = (int)(u << 2);
                return r;
        case OPT_PRIORITY:
                r = parse_uint(name, v, 0, 7, &u);
                p->priority = (int)u;
                return r;
        case OPT_DURATION: return parse_uint(name, v, 0, PROBE_DURATION_MAX_MS, &p->duration_ms);
        case OPT_ITER:     return parse_uint(name, v, 1, PROBE_ITERATIONS_MAX, &p->iterations);
        case OPT_SIZE:     return parse_uint(name, v, PROBE_MESSAGE_MIN, PROBE_MESSAGE_MAX, &p->message_size);
        case OPT_STREAMS:  return parse_uint(name, v, 1, PROBE_STREAMS_MAX, &p->streams);
        case OPT_RUNS:     return parse_uint(name, v, 1, PROBE_RUNS_MAX, &pc->runs);
        case OPT_MAXREG:   return parse_double(name, v, 100, &pc->g.max_regression_pct);
        case OPT_MINGBPS:  return parse_double(name, v, 1e6, &pc->g.min_gbps);
        case OPT_BASELINE:
                pc->gate = true;
                return parse_double(name, v, 1e6, &pc->baseline_gbps);
        case OPT_GID:
                r = parse_uint(name, v, 0, 65535, &u);
                p->gid_index = (int)u;
                return r;
        case OPT_TC:
                r = parse_uint(name, v, 0, 255, &u);
                p->traffic_class = (int)u;
                return r;
        case OPT_MODE:
                if (probe_mode_from_string(v, &pc->mode) < 0) {
                        log_err("--mode '%s': expected 'verbs', 'tcp' or 'auto'", v);
                        return -EINVAL;
                }
                return 0;
        default:
                return -EINVAL;
        }
}

/* 0: parsed, <0: usage error (printed). */
static int probe_parse(struct cli *c, struct probe_cmd *pc)
{
        int opt, idx;

        probe_params_init(&pc->p);
        snprintf(pc->p.sysfs_root, sizeof(pc->p.sysfs_root), "%s", c->config.env.sysfs_root[0] ?
                 c->config.env.sysfs_root : "/sys");
        pc->runs = c->config.probe_runs ? c->config.probe_runs : 3;
        pc->g.max_regression_pct = 20;
        optind = 1;
        opterr = 0;
        while ((opt = getopt_long(c->argc, c->argv, "", probe_options, &idx)) != -1) {
                if (opt == '?' || opt == ':')
                        return cli_bad_arg(c, c->argv[optind - 1]);
                if (probe_option(pc, opt, probe_options[idx].name, optarg) < 0)
                        return -EINVAL;
        }
        if (optind < c->argc)
                return cli_bad_arg(c, c->argv[optind]);
        if (!pc->p.peer[0]) {
                log_err("probe: --peer ADDR:PORT is required");
                return -EINVAL;
        }
        if (pc->baseline_file && pc->baseline_gbps > 0) {
                log_err("probe: --baseline FILE and --baseline-gbps X exclude each other");
                return -EINVAL;
        }
        return 0;
}

/* --baseline FILE: the median and the path of an earlier `probe --output json`. */
static int load_baseline(struct probe_cmd *pc)
{
        _cleanup_free_ char *buf = NULL;
        json_auto_t *root = NULL;
        const json_t *gbps, *path;
        struct errbuf e = { .msg = "" };
        struct jsonv v;
        char msg[ERRBUF_STR_MAX];
        size_t len;
        int r;

        r = jsonv_read_file(pc->baseline_file, 1u << 20, &buf, &len, &e);
        if (r >= 0)
                r = jsonv_parse(buf, len, pc->baseline_file, 1u << 20, &root, &e);
        if (r < 0) {
                log_err("probe: --baseline: %s", errbuf_str(&e, msg, sizeof(msg)));
                return r;
        }
        jsonv_init(&v, pc->baseline_file, &e);
        gbps = json_object_get(root, "gbps");
        path = json_object_get(json_object_get(root, "measurement"), "path");
        if (!json_is_number(gbps) || !(json_number_value(gbps) > 0) || !json_is_object(path)) {
                log_err("probe: --baseline '%s': expected the output of 'probe --output json' with a measured "
                        "\"gbps\" and \"measurement.path\"", pc->baseline_file);
                return -EINVAL;
        }
        pc->baseline_gbps = json_number_value(gbps);
        jsonv_push_key(&v, "measurement");
        jsonv_push_key(&v, "path");
        r = probe_path_from_json(&v, path, &pc->baseline_path);
        if (r < 0)
                log_err("probe: --baseline: %s", errbuf_str(&e, msg, sizeof(msg)));
        return r;
}

/* The baseline the gate compares with: from --baseline FILE, or --baseline-gbps on this path. */
static void baseline_of(const struct probe_cmd *pc, const struct probe_measurement *m, struct probe_measurement *ret)
{
        memset(ret, 0, sizeof(*ret));
        ret->ok = true;
        ret->n_runs = ret->n_ok = 1;
        ret->median_gbps = pc->baseline_gbps;
        ret->path = pc->baseline_file ? pc->baseline_path : m->path;
        ret->mode = ret->path.mode;
}

/* "via va (rxe0 GID 1 ::ffff:10.77.0.1), DSCP 26, priority 3" */
static void print_path(const struct probe_path *p)
{
        printf(" via %s", p->netdev[0] ? p->netdev : "?");
        if (p->mode == PROBE_MODE_VERBS)
                printf(" (%s GID %d %s)", p->device, p->gid_index, p->gid);
        if (p->dscp >= 0)
                printf(", DSCP %d", p->dscp);
        if (p->priority >= 0)
                printf(", priority %d", p->priority);
}

static void print_text(const struct probe_cmd *pc, const struct probe_measurement *m,
                       const struct probe_gate_report *r)
{
        if (m->ok) {
                printf("%s probe to %s", probe_mode_name(m->mode), pc->p.peer);
                print_path(&m->path);
                printf(": %.3f Gb/s (median of %u run%s:", m->median_gbps, m->n_runs, m->n_runs == 1 ? "" : "s");
                for (unsigned i = 0; i < m->n_runs; i++)
                        printf(" %.3f", m->runs[i].gbps);
                printf(")");
                if (m->mode == PROBE_MODE_VERBS && m->n_runs)   /* RC QPs, the WRITEs spread over them */
                        printf(", %u QP%s", m->runs[0].streams, m->runs[0].streams == 1 ? "" : "s");
                printf("\n");
        }
        if (r)
                printf("gate: %s: %s\n", probe_gate_verdict_name(r->verdict), r->reason);
}

static int print_json(const struct probe_cmd *pc, const struct probe_measurement *m,
                      const struct probe_gate_report *r)
{
        json_t *o = json_pack("{s:s, s:s, s:o, s:o}", "peer", pc->p.peer, "mode", probe_mode_name(m->mode),
                              "gbps", m->ok ? json_real(m->median_gbps) : json_null(),
                              "measurement", probe_measurement_to_json(m));
        char *s;

        if (o && r) {
                struct probe_measurement base;
                json_t *all;

                baseline_of(pc, m, &base);
                all = probe_gate_to_json(&pc->g, &base, m, r);

                json_object_set(o, "gate", json_object_get(all, "gate"));
                json_decref(all);
        }
        s = o ? json_dumps(o, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) : NULL;
        json_decref(o);
        if (!s)
                return -ENOMEM;
        puts(s);
        free(s);
        return 0;
}

/* Pin once, then the runs, shown as they end on a terminal only (stdout has the result). */
static int measure(struct cli *c, const struct probe_cmd *pc, struct probe_measurement *m, struct errbuf *e)
{
        struct probe_observer obs;
        struct probe_params pinned;
        struct probe_path path;
        struct progress pg;
        int k;

        k = probe_pin(&pc->p, pc->mode, &pinned, &path, NULL, 0, e);
        if (k < 0)
                return probe_measure(&pc->p, pc->mode, pc->runs, m, e);     /* records the failure */
        progress_init(&pg, progress_mode_for(STDERR_FILENO, false, c->json, false), stderr);
        probe_progress_begin(&pg, "probe", &pinned, path.mode, pc->runs, &obs);
        k = probe_measure_pinned(&pinned, &path, pc->runs, &obs, m, e);
        probe_progress_end(&pg, m);
        return k;
}

int cmd_probe(struct cli *c)
{
        struct probe_cmd pc = { .mode = PROBE_MODE_AUTO };
        struct probe_measurement m;
        struct probe_gate_report rep, *r = NULL;
        struct errbuf e = { .msg = "" };
        char buf[ERRBUF_STR_MAX];
        int k;

        k = probe_parse(c, &pc);
        if (k != 0)
                return k > 0 ? OUTCOME_OK : OUTCOME_INVALID;
        if (probe_params_check(&pc.p, &e) < 0) {
                log_err("probe: %s", errbuf_str(&e, buf, sizeof(buf)));
                return OUTCOME_INVALID;
        }
        if (pc.baseline_file && load_baseline(&pc) < 0)
                return OUTCOME_INVALID;
        k = measure(c, &pc, &m, &e);
        if (k < 0)
                log_err("%s probe to '%s' failed: %s", probe_mode_name(m.mode), pc.p.peer,
                        errbuf_str(&e, buf, sizeof(buf)));
        if (pc.gate) {
                struct probe_measurement base;

                baseline_of(&pc, &m, &base);
                probe_gate_evaluate(&pc.g, &base, &m, &rep);
                r = &rep;
        }
        if (c->json)
                print_json(&pc, &m, r);
        else
                print_text(&pc, &m, r);
        if (k < 0)
                return OUTCOME_RUNTIME;
        return r && r->verdict != PROBE_GATE_PASS ? OUTCOME_ROLLED_BACK : OUTCOME_OK;
}

static void on_session(void *userdata, const char *peer, const char *mode, int r, const struct errbuf *e)
{
        char buf[ERRBUF_STR_MAX];

        if (r < 0)
                log_warn("probe from %s (%s) failed: %s", peer, mode, errbuf_str(e, buf, sizeof(buf)));
        else
                log_info("probe from %s (%s) done", peer, mode);
}

/* --allow CIDR (repeatable): replaces probe.allow of --config. */
static int add_allow(struct probe_server_options *o, struct probe_cidr *allow, bool *given, const char *v)
{
        struct errbuf e = { .msg = "" };

        if (!*given)
                o->n_allow = 0;
        *given = true;
        if (o->n_allow >= CONFIG_PROBE_ALLOW_MAX) {
                log_err("probe-server: --allow: at most %d networks", CONFIG_PROBE_ALLOW_MAX);
                return -EINVAL;
        }
        if (probe_cidr_parse(v, "--allow", &allow[o->n_allow], &e) < 0) {
                log_err("probe-server: %s: %s", e.where, e.msg);
                return -EINVAL;
        }
        o->n_allow++;
        return 0;
}

static int server_parse(struct cli *c, struct probe_server_options *o, struct probe_cidr *allow)
{
        static const struct option opts[] = {
                { "listen", required_argument, NULL, 'l' },
                { "max-clients", required_argument, NULL, 'm' },
                { "allow", required_argument, NULL, 'a' },
                { NULL, 0, NULL, 0 },
        };
        bool allow_given = false;
        int opt;

        optind = 1;
        opterr = 0;
        while ((opt = getopt_long(c->argc, c->argv, "", opts, NULL)) != -1) {
                if (opt == 'l')
                        o->listen = optarg;
                else if (opt == 'a' && add_allow(o, allow, &allow_given, optarg) < 0)
                        return -EINVAL;
                else if (opt == 'm' && parse_uint("max-clients", optarg, 1, PROBE_SERVER_CLIENTS_MAX, &o->max_clients) < 0)
                        return -EINVAL;
                else if (opt != 'm' && opt != 'a' && opt != 'l')
                        return cli_bad_arg(c, c->argv[optind - 1]);
        }
        if (optind < c->argc)
                return cli_bad_arg(c, c->argv[optind]);
        return 0;
}

int cmd_probe_server(struct cli *c)
{
        struct probe_cidr allow[CONFIG_PROBE_ALLOW_MAX];
        struct probe_server_options o = { .listen = c->config.probe_listen, .on_session = on_session,
                                          .allow = allow, .n_allow = config_probe_allow(&c->config, allow) };
        struct probe_server *s = NULL;
        struct errbuf e = { .msg = "" };
        char buf[ERRBUF_STR_MAX], addr[128];
        sigset_t set;
        int k, sig = 0;

        k = server_parse(c, &o, allow);
        if (k != 0)
                return k > 0 ? OUTCOME_OK : OUTCOME_INVALID;
        o.sysfs_root = c->config.env.sysfs_root[0] ? c->config.env.sysfs_root : "/sys";
        sigemptyset(&set);
        sigaddset(&set, SIGTERM);
        sigaddset(&set, SIGINT);
        pthread_sigmask(SIG_BLOCK, &set, NULL);         /* before any thread starts */
        k = probe_server_start_opts(&o, &s, &e);
        if (k < 0) {
                log_err("probe-server: %s", errbuf_str(&e, buf, sizeof(buf)));
                return outcome_of_errno(k);
        }
        log_info("probe-server listening on %s, serving %s", probe_server_address(s, addr, sizeof(addr)),
                 o.n_allow ? "the --allow/probe.allow networks" : "this host only (no --allow or probe.allow)");
        sigwait(&set, &sig);
        log_info("probe-server stopping (signal %d)", sig);
        probe_server_stop(s);
        return OUTCOME_OK;
}
