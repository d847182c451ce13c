/* SPDX-License-Identifier: MIT */
/*
 * nettune-agent doctor: why is this node's fabric slow? Collects (doctor_collect.c),
 * judges (policies/doctor/doctor_rules.c) and reports, changing nothing; --propose writes the
 * policy that fixes what a policy can fix. GET /v1/doctor?window_s=N answers the
 * node's facts for `nettunectl doctor`, which judges the whole fleet.
 */
#include <math.h>
#include <sys/stat.h>

#include "agent/cmd/cmd.h"
#include "agent/doctor/doctor_collect.h"
#include "agent/txn/txn.h"
#include "drivers/probe/probe.h"
#include "policies/json/jsonv.h"

#define PEERS_MAX 64

struct doctor_args {
        char ifglobs[CLI_GLOBS_MAX][64], swglobs[CLI_GLOBS_MAX][64];
        unsigned n_if, n_sw;
        bool no_switches;
        struct doctor_params params;
        const char *propose, *facts, *save_facts, *name;
        bool probe;                     /* --probe: measure the bandwidth to each --peer */
        unsigned n_peers;
        char peers[PEERS_MAX][64];
};

static int num_arg(struct cli *c, const char *opt, const char *v, double min, double max, double *ret)
{
        char *end;
        double d;

        errno = 0;
        d = strtod(v, &end);
        if (!*v || *end || errno || !isfinite(d) || d < min || d > max) {
                fprintf(stderr, "%s: doctor: %s '%s': expected a number in %g-%g\n", c->prog, opt, v, min, max);
                return -EINVAL;
        }
        *ret = d;
        return 0;
}

static int peers_arg(struct cli *c, const char *v, struct doctor_args *a)
{
        if (cli_globs(v, a->peers, &a->n_peers) < 0 || a->n_peers > PEERS_MAX) {
                fprintf(stderr, "%s: doctor: --peer '%s': at most %d peers HOST:PORT\n", c->prog, v, PEERS_MAX);
                return -EINVAL;
        }
        return 0;
}

/* Options with a value; 1 when argv[*i] was one of them. */
static int value_opt(struct cli *c, int *i, struct doctor_args *a)
{
        static const char *const names[] = { "--window", "--pause-storm-pps", "--roce-dscp", "--roce-priority",
                                             "--interfaces", "--switches", "--peer", "--propose", "--facts",
                                             "--save-facts", "--name", "--watchdog-flaps", "--class-share", NULL };
        struct doctor_params *p = &a->params;
        const char *v = NULL;
        unsigned k = 0;
        double d = 0;
        int r = 0;

        while (names[k] && !(v = cli_opt_value(c, i, names[k])))
                k++;
        if (!v)
                return 0;
        switch (k) {
        case 0: r = num_arg(c, names[k], v, 0.1, DOCTOR_WINDOW_MAX_S, &p->window_s); break;
        case 1: r = num_arg(c, names[k], v, 1, 1e9, &p->pause_storm_pps); break;
        case 2: r = num_arg(c, names[k], v, 0, 63, &d); p->roce_dscp = (int)d; break;
        case 3: r = num_arg(c, names[k], v, 0, 7, &d); p->roce_prio = (int)d; break;
        case 4:
        case 5:
                r = cli_globs(v, k == 4 ? a->ifglobs : a->swglobs, k == 4 ? &a->n_if : &a->n_sw);
                if (r < 0)
                        fprintf(stderr, "%s: doctor: %s '%s': at most %d globs of 63 characters\n", c->prog,
                                names[k], v, CLI_GLOBS_MAX);
                break;
        case 6: r = peers_arg(c, v, a); break;
        case 7: a->propose = v; break;
        case 8: a->facts = v; break;
        case 9: a->save_facts = v; break;
        case 10: a->name = v; break;
        case 11: r = num_arg(c, names[k], v, 1, 1e6, &p->watchdog_flaps); break;
        default: r = num_arg(c, names[k], v, 1, 100, &d); p->class_share = d / 100; break;
        }
        return r < 0 ? r : 1;
}

static int parse_args(struct cli *c, struct doctor_args *a)
{
        doctor_params_default(&a->params);
        for (int i = 1; i < c->argc; i++) {
                const char *arg = c->argv[i];
                int r;

                if (streq(arg, "--no-switches")) {
                        a->no_switches = true;
                        continue;
                }
                if (streq(arg, "--probe") || !strncmp(arg, "--probe=", 8)) {
                        a->probe = true;
                        /* the older spelling: --probe PEER[,PEER...] */
                        if (arg[7] == '=')
                                r = peers_arg(c, arg + 8, a);
                        else if (i + 1 < c->argc && c->argv[i + 1][0] != '-')
                                r = peers_arg(c, c->argv[++i], a);
                        else
                                r = 0;
                        if (r < 0)
                                return r;
                        continue;
                }
                r = value_opt(c, &i, a);
                if (r < 0)
                        return r;
                if (r == 0)
                        return cli_bad_arg(c, arg);
        }
        if (a->probe != (a->n_peers > 0)) {
                fprintf(stderr, "%s: doctor: %s; nothing was measured\n", c->prog, a->probe ?
                        "--probe needs the peers to measure: --peer ADDR:PORT[,ADDR:PORT...]" :
                        "--peer names the peers --probe measures: give --probe too");
                return -EINVAL;
        }
        if (a->no_switches && a->n_sw) {
                fprintf(stderr, "%s: doctor: --switches and --no-switches exclude each other\n", c->prog);
                return -EINVAL;
        }
        if (a->facts && (a->save_facts || a->n_if || a->n_sw || a->no_switches || a->n_peers)) {
                fprintf(stderr, "%s: doctor: --facts judges a saved file: it takes no collection option\n",
                        c->prog);
                return -EINVAL;
        }
        return 0;
}

/* ---- facts ---- */

static int load_facts(struct cli *c, const char *path, struct doctor_facts *f)
{
        struct errbuf e = { 0 };
        char msg[ERRBUF_STR_MAX];
        int r = doctor_facts_load(path, f, &e);

        if (r < 0)
                fprintf(stderr, "%s: doctor: %s\n", c->prog, errbuf_str(&e, msg, sizeof(msg)));
        return r;
}

static int write_text(struct cli *c, const char *path, const char *text, const char *what)
{
        FILE *f = fopen(path, "we");

        if (!f || fputs(text, f) < 0 || fputc('\n', f) < 0) {
                fprintf(stderr, "%s: doctor: cannot write the %s to '%s': %s\n", c->prog, what, path, strerror(errno));
                if (f)
                        fclose(f);
                return -EIO;
        }
        if (fclose(f) != 0) {
                fprintf(stderr, "%s: doctor: cannot write the %s to '%s': %s\n", c->prog, what, path, strerror(errno));
                return -EIO;
        }
        return 0;
}

static int save_facts(struct cli *c, const char *path, const struct doctor_facts *f)
{
        json_auto_t *j = doctor_facts_to_json(f);
        _cleanup_free_ char *text = j ? json_dumps(j, JSON_INDENT(1) | JSON_SORT_KEYS) : NULL;

        return text ? write_text(c, path, text, "facts") : -ENOMEM;
}

/* The journal only where one exists: doctor creates nothing. */
static struct journal *journal_if_any(const struct agent_config *cfg)
{
        struct journal *j = NULL;
        struct errbuf e;
        char path[CONFIG_PATH_MAX + 16];
        struct stat st;

        snprintf(path, sizeof(path), "%s/journal.db", cfg->state_dir);
        if (stat(path, &st) < 0 || journal_open(cfg->state_dir, &j, &e) < 0)
                return NULL;
        return j;
}

/* Point-to-point bandwidth from this node to each peer, one at a time. */
static void probe_peers(const struct doctor_args *a, const char *from, struct doctor_probes *out)
{
        snprintf(out->kind, sizeof(out->kind), "p2p");
        for (unsigned i = 0; i < a->n_peers; i++) {
                struct probe_measurement *m = calloc(1, sizeof(*m));
                struct doctor_probe *x = doctor_probes_add(out);
                struct probe_params pp;
                struct errbuf e = { 0 };

                if (!m || !x) {
                        free(m);
                        return;
                }
                probe_params_init(&pp);
                snprintf(pp.peer, sizeof(pp.peer), "%s", a->peers[i]);
                pp.duration_ms = 1000;
                snprintf(x->from, sizeof(x->from), "%s", from);
                snprintf(x->to, sizeof(x->to), "%s", a->peers[i]);
                if (probe_params_check(&pp, &e) >= 0)
                        probe_measure(&pp, PROBE_MODE_AUTO, 1, m, &e);
                x->ok = m->ok;
                x->gbps = m->ok ? m->median_gbps : 0;
                if (!m->ok)
                        snprintf(x->error, sizeof(x->error), "%.150s", e.msg[0] ? e.msg : "probe failed");
                free(m);
        }
}

/* doctor's drift: what `nettune-agent drift` reports (drift_check over this node's journal). */
struct drift_here {
        const struct agent_config *config;
        struct journal *journal;
};

static int drift_here(void *ud, struct plan *ret, struct errbuf *e)
{
        const struct drift_here *d = ud;
        struct txn_env env;

        txn_env_init(&env, d->config, d->journal);
        return drift_check(&env, ret, e);
}

static int collect(struct cli *c, const struct doctor_args *a, struct doctor_facts *f)
{
        struct doctor_collect_opts o = {
                .window_s = a->params.window_s, .ifglobs = (const char (*)[64])a->ifglobs, .n_if = a->n_if,
                .swglobs = (const char (*)[64])a->swglobs, .n_sw = a->n_sw, .no_switches = a->no_switches,
                .journal = journal_if_any(&c->config), .name = a->name, .drift = drift_here,
        };
        struct drift_here src = { &c->config, o.journal };
        struct doctor_node *n = doctor_facts_add_node(f);
        struct errbuf e = { 0 };
        char msg[ERRBUF_STR_MAX];
        int r;

        o.drift_ud = &src;
        r = n ? doctor_collect(&c->config, &o, n, &e) : errbuf_set(&e, ENOMEM, NULL, "out of memory");
        /* the fields serve's enforcement gave up to another writer (second_writer) */
        if (r >= 0 && o.journal)
                n->n_second_writers = second_writers_doctor(o.journal, &c->config, n->second_writers,
                                                            DOCTOR_SECOND_WRITERS_MAX);
        journal_close(o.journal);
        if (r < 0) {
                fprintf(stderr, "%s: doctor: %s\n", c->prog, errbuf_str(&e, msg, sizeof(msg)));
                if (n)
                        f->n_nodes--;
                return outcome_of_errno(r);
        }
        if (a->n_peers)
                probe_peers(a, n->name, &f->probes[0]);
        return 0;
}

/* ---- report ---- */

static int propose(struct cli *c, const struct doctor_report *r, const char *path, json_t *doc)
{
        _cleanup_free_ char *text = NULL;
        struct errbuf e = { 0 };
        char msg[ERRBUF_STR_MAX];

        if (doctor_proposal_policy(r, "doctor-proposal", NULL, 0, &text, &e) < 0) {
                fprintf(stderr, "%s: doctor: the proposal is not a valid policy: %s\n", c->prog,
                        errbuf_str(&e, msg, sizeof(msg)));
                return -EINVAL;
        }
        if (!text) {
                if (!c->json)
                        printf("proposal: nothing a policy can fix; '%s' was not written\n", path);
                return 0;
        }
        if (write_text(c, path, text, "proposal") < 0)
                return -EIO;
        if (doc)
                json_object_set_new(doc, "proposal_file", json_string(path));
        else
                printf("proposal written to '%s' (nettune-agent validate accepts it; apply it with "
                       "nettune-agent apply or nettunectl apply)\n", path);
        return 0;
}

static int report(struct cli *c, const struct doctor_args *a, const struct doctor_facts *f)
{
        struct doctor_report r;
        json_auto_t *doc = NULL;
        int code;

        doctor_report_init(&r);
        doctor_run(f, &a->params, &r);
        if (c->json && !(doc = doctor_report_to_json(&r, f))) {
                doctor_report_free(&r);
                return OUTCOME_RUNTIME;
        }
        if (!c->json)
                doctor_report_print(stdout, &r, f);
        code = doctor_exit_code(f, &r);        /* the agent's OUTCOME_OK, OUTCOME_ROLLED_BACK, OUTCOME_RUNTIME */
        if (a->propose && propose(c, &r, a->propose, doc) < 0)
                code = OUTCOME_RUNTIME;
        if (doc) {
                char *s = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);

                if (s)
                        puts(s);
                free(s);
        }
        doctor_report_free(&r);
        return code;
}

int cmd_doctor(struct cli *c)
{
        _cleanup_free_ struct doctor_args *a = calloc(1, sizeof(*a));
        struct doctor_facts f;
        int r;

        if (!a)
                return OUTCOME_RUNTIME;
        r = parse_args(c, a);
        if (r < 0)
                return OUTCOME_INVALID;
        doctor_facts_init(&f);
        if (a->facts)
                r = load_facts(c, a->facts, &f) < 0 ? OUTCOME_INVALID : 0;
        else
                r = collect(c, a, &f);
        if (r == 0 && a->save_facts && save_facts(c, a->save_facts, &f) < 0)
                r = OUTCOME_RUNTIME;
        if (r == 0)
                r = report(c, a, &f);
        doctor_facts_free(&f);
        return r;
}
