/* SPDX-License-Identifier: MIT */
/*
 * controller/cmd: nettunectl's command line. One ctl_cmd_* function per subcommand,
 * one ctl_*.c file each; the shared context (ctl.c: options, the inventory, the store
 * and the HTTPS client opened on first use, fleet-wide queries), the configuration
 * file (ctl_config.c) and the serve command's /metrics (ctl_serve_metrics.c).
 *
 * May call: controller/tune, controller/rollout, controller/fabric, controller/store,
 * controller/model, controller/fleet, controller/svg, drivers/probe (flows), policies/,
 * common/. Called by main.c only.
 */
#pragma once

#include <stdatomic.h>
#include <stdbool.h>

#include "common/cli.h"
#include "common/errbuf.h"
#include "common/outcome.h"
#include "common/progress.h"
#include "controller/fleet/fleet.h"
#include "controller/store/store.h"

/*
 * The controller configuration file (`nettunectl --config FILE`), validated like
 * every other document (unknown keys, types, ranges are errors with the JSON
 * path); options given on the command line win over it:
 *
 *   { "inventory": "inventory.json",
 *     "store": "etcd://10.0.0.1:2379,10.0.0.2:2379,10.0.0.3:2379/nettune",
 *     "store_tls": { "ca": "etcd-ca.crt", "cert": "ctl.crt", "key": "ctl.key" },
 *     "serve": { "metrics_listen": "127.0.0.1:9470", "lease_ttl_s": 5,
 *                "drift_interval_s": 60, "enforce": false } }
 *
 * Relative paths are resolved against the file's directory.
 */



#define CTL_CONFIG_PATH_MAX 512

struct ctl_config {
        char inventory[CTL_CONFIG_PATH_MAX];
        char store[1024];
        char store_ca[CTL_CONFIG_PATH_MAX], store_cert[CTL_CONFIG_PATH_MAX], store_key[CTL_CONFIG_PATH_MAX];
        char metrics_listen[128];               /* "" = no metrics endpoint */
        unsigned lease_ttl_s;                   /* default 5 */
        unsigned drift_interval_s;              /* default 60; 0 = no drift scans */
        bool enforce;                           /* re-apply drifted nodes */
};

void ctl_config_defaults(struct ctl_config *c);
int ctl_config_load(const char *path, struct ctl_config *c, struct errbuf *e);


/*
 * `nettunectl serve`'s own Prometheus endpoint: GET /metrics (plain HTTP, text
 * format 0.0.4) on the configured address, answered from counters the serve
 * loop updates. Read-only; anything else is 404.
 */



struct serve_counters {
        atomic_int leader;                              /* 1 while this replica leads */
        atomic_ullong leader_changes;                   /* times it became leader */
        atomic_ullong rollouts_run;                     /* rollouts it drove to an end */
        atomic_ullong rollouts_failed;                  /* of those, not exit 0 */
        atomic_ullong rollouts_interrupted;             /* stopped acting mid-rollout (leadership lost) */
        atomic_ullong drift_scans;
        atomic_uint drift_nodes, drift_drifted, drift_unreachable;     /* the newest scan */
        atomic_ullong enforce_rollouts;
        atomic_ullong store_writes;
        atomic_llong last_scan_at;                      /* unix seconds */
};

struct serve_metrics;

/* listen: "ADDR:PORT" (IPv4 or [IPv6]). */
int serve_metrics_start(const char *listen, struct serve_counters *c, struct serve_metrics **ret, struct errbuf *e);
void serve_metrics_stop(struct serve_metrics *m);       /* accepts NULL */
/* The text served, for tests; caller frees. */
char *serve_metrics_render(struct serve_counters *c);


/*
 * nettunectl's shared context: common options, the inventory, the store and the
 * HTTPS client, opened on first use by whichever subcommand needs them. Each
 * subcommand is one ctl_cmd_* function in its own cmd_*.c file and returns an
 * exit code (spec "Exit codes").
 */



struct ctl {
        const char *inventory_path;     /* --inventory, default ./inventory.json */
        const char *db_path;            /* --db, default ./nettune.db */
        bool db_given;
        const char *store_spec;         /* --store SPEC (wins over --db and the config file) */
        struct store_tls store_tls;     /* --store-ca/--store-cert/--store-key */
        const char *config_path;        /* --config FILE */
        struct ctl_config cfg;          /* its contents (defaults without one) */
        bool json;                      /* --output json */
        bool yes;                       /* --yes */
        bool quiet;                     /* --quiet: no progress */
        enum progress_mode progress;    /* rollouts: a live line on a terminal, else plain lines */
        unsigned parallel;              /* --parallel, default 32 */
        unsigned timeout_s;             /* --timeout: per request, default 60 */
        int argc;                       /* arguments after the subcommand */
        char **argv;
        const struct cli_command *cmd;  /* the subcommand's entry of ctl_commands */

        struct inventory *inv;
        struct store *store;
        struct http_client *http;
};

/* Open what a subcommand needs; on failure print the error and return an exit code (> 0). */
int ctl_need_inventory(struct ctl *c);
int ctl_need_store(struct ctl *c);
int ctl_need_http(struct ctl *c);
/*
 * Take the database's rollout lease for rollout_id (0: a rollout about to be
 * created); a live lease of another controller prints who holds it and returns
 * OUTCOME_INVALID. Released by ctl_done (store_close).
 */
int ctl_need_lease(struct ctl *c, long long rollout_id);
void ctl_done(struct ctl *c);


/*
 * Send method+path (with body) to each node; GET and plan are idempotent and
 * retried with backoff. *ret is an array of n requests (user = the node) that
 * the caller releases with ctl_query_free(). Returns 0 or -errno (libcurl failed).
 */
int ctl_query(struct ctl *c, const struct inventory_node *const *nodes, unsigned n,
                const char *method, const char *path, const char *body, struct http_req **ret);
void ctl_query_free(struct http_req *reqs, unsigned n);

/*
 * The same, each answer handed to fn as it comes (i: its node's index in nodes) and
 * dropped then: a fleet's answers are never all in memory. ret NULL: nothing is kept;
 * else the requests with their results, less their answers. flags:
 *   CTL_QUERY_KEEP     another query of the same nodes follows: connections are kept
 *                      (as many as the client keeps: the last nodes' ones)
 *   CTL_QUERY_REVERSE  the last node first (after a CTL_QUERY_KEEP: the kept
 *                      connections are used before the cache closes them)
 */
enum { CTL_QUERY_KEEP = 1u << 0, CTL_QUERY_REVERSE = 1u << 1 };

struct ctl_query_each {
        void (*fn)(const struct http_req *q, unsigned i, void *ud);
        void *ud;
        unsigned flags;
};

int ctl_query_each(struct ctl *c, const struct inventory_node *const *nodes, unsigned n, const char *method,
                   const char *path, const char *body, const struct ctl_query_each *each, struct http_req **ret);

/* Parse an unsigned option value in [min, max]; prints the error. */
int ctl_parse_uint(const char *opt, const char *s, unsigned min, unsigned max, unsigned *ret);

/* A whole file (at most max bytes) into a NUL-terminated buffer; prints the error. */
int ctl_read_file(const char *path, size_t max, char **ret, size_t *ret_len);
/* A policy document read from file, valid, as the agents take it: YAML becomes JSON in place (*doc replaced). */
int ctl_policy_json(const char *file, char **doc, size_t *len, struct errbuf *e);

/* The subcommands, their flags and help (ctl_cli.c), and the flags every one takes. */
extern const struct cli_command ctl_commands[];
extern const struct cli_flag ctl_common_flags[];
/* An argument the subcommand cannot place: the error (with a "did you mean") on stderr; -EINVAL. */
int ctl_bad_arg(struct ctl *c, const char *arg);

/*
 * --selector EXPR (or its alias --label), repeatable: the nodes meeting every one
 * (set-based: KEY=VALUE, KEY!=VALUE, KEY in (A,B), KEY notin (A,B), KEY, !KEY;
 * inventory_selector_check() in controller/fleet).
 */
struct ctl_selector {
        unsigned n;
        const char *labels[POLICY_LABELS_MAX];  /* each an EXPR, checked, borrowed from argv */
};
/* argv[*i] a selector? 1: taken (*i past its value), 0: not one, -EINVAL: malformed (printed). */
int ctl_take_selector(struct ctl *c, int *i, struct ctl_selector *s);
/*
 * A fleet command's options: selectors into sel, every other "--OPT VALUE" or
 * "--OPT=VALUE" to one(ctx, OPT, VALUE): 0 taken, 1 not an option of the command,
 * -EINVAL refused (printed). 0, or -EINVAL when something was refused (printed; an
 * unknown option or a stray argument is named by ctl_bad_arg).
 */
int ctl_take_options(struct ctl *c, struct ctl_selector *sel, int (*one)(void *ctx, const char *opt, const char *v),
                     void *ctx);
/*
 * The nodes the policy (NULL: all) and only select, in inventory order (ctl_select());
 * none: the error printed, OUTCOME_INVALID. Returns 0 or an exit code; caller frees *ret.
 */
int ctl_select_only(struct ctl *c, const struct policy *p, const struct ctl_selector *only,
                    const struct inventory_node ***ret, unsigned *ret_n);
/*
 * --node N (repeatable): sel[0..*n) narrowed to names[0..n_names) in sel's order (none
 * given: all kept). A name not in sel: the error printed, -ENOENT, sel unchanged.
 */
int ctl_only_nodes(struct ctl *c, const struct inventory_node **sel, unsigned *n, const char *const *names,
                   unsigned n_names);

/*
 * Who asks and for what (ctl_who.c): o's user (the OS user, and sudo's), cert_cn (of
 * the inventory's client certificate) and policy_sha256 (of doc, NULL: left). What
 * cannot be read is left "".
 */
void ctl_who(struct ctl *c, const char *doc, struct rollout_opts *o);
/*
 * on: SIGINT, SIGTERM and SIGHUP (an SSH session that drops) alike stop the rollout
 * rollout_run drives at its next step, as a halt (rollout_request_stop); a second one
 * ends nettunectl at once (the agents' confirm timers restore what was pending).
 * off: their default actions back. apply and drift --heal (ctl.c).
 */
void ctl_signals_stop_rollout(bool on);
/* The CN of the PEM certificate at path into buf. 0 or -errno. */
int ctl_cert_cn(const char *path, char *buf, size_t size);
/* "sha256:HEX" of doc[0..len) into buf (73 bytes at least). 0 or -EINVAL. */
int ctl_sha256(const char *doc, size_t len, char *buf, size_t size);

/*
 * --output json's error object (ctl_errjson.c): begin (before anything is parsed:
 * argv is scanned for --output json) counts stdout and keeps the first error line;
 * end prints {"error": {"code", "message", "path"?, "target"?, "exit_code"}} on stdout
 * when rc is not 0 and the command printed nothing there. Returns rc.
 */
void ctl_errjson_begin(int argc, char **argv);
int ctl_errjson_end(int rc);

int ctl_cmd_plan(struct ctl *c);
int ctl_cmd_state(struct ctl *c);
int ctl_cmd_apply(struct ctl *c);
int ctl_cmd_status(struct ctl *c);
int ctl_cmd_history(struct ctl *c);
int ctl_cmd_drift(struct ctl *c);
int ctl_cmd_doctor(struct ctl *c);
int ctl_cmd_rollback(struct ctl *c);
int ctl_cmd_confirm(struct ctl *c);
int ctl_cmd_halt(struct ctl *c);
int ctl_cmd_serve(struct ctl *c);
int ctl_cmd_store(struct ctl *c);
/*
 * The newest finished rollouts whose documents a drifted node may get again (kind apply
 * or enforce, a document kept), for store_rollout_list: drift --heal and serve --enforce.
 */
#define CTL_SOURCES_MAX 50
struct ctl_sources {
        long long ids[CTL_SOURCES_MAX];
        unsigned n;
};
struct rollout_rec;
int ctl_collect_source(const struct rollout_rec *r, void *ud);

int ctl_cmd_probe(struct ctl *c);
int ctl_cmd_locate(struct ctl *c);
int ctl_cmd_headroom(struct ctl *c);
int ctl_cmd_inventory(struct ctl *c);
int ctl_cmd_conform(struct ctl *c);
/*
 * ctl_parts.c: one profile for hosts and switches. A policy with targets.switches
 * goes to the nodes --selector keeps (only) that its selector picks (the host part)
 * and to the nodes whose agents manage its switches (GET /v1/health "switches": the
 * switch part), each node its part: docs[doc_of[i]] for nodes[i], what[i] saying
 * which ("hosts, switch leaf1"). A switch no answering node manages, or one two
 * manage: -EINVAL (-EHOSTUNREACH when a node did not answer), said on stderr.
 */
struct ctl_parts {
        unsigned n;
        const struct inventory_node **nodes;
        unsigned *doc_of;
        char (*what)[256];
        unsigned n_docs;
        char **docs;
};
int ctl_parts_make(struct ctl *c, const struct policy *p, const char *doc, const struct ctl_selector *only,
                   struct ctl_parts *ret);
void ctl_parts_free(struct ctl_parts *pp);
/* {"docs": [TEXT...], "node_doc": {NODE: INDEX}}: a rollout's args (rollout_node_doc). */
json_t *ctl_parts_args(const struct ctl_parts *pp);

/* ctl_intent.c: nettunectl intent; ctl_apply.c: nettunectl remove NAME (a rollout of kind "remove"). */
int ctl_cmd_intent(struct ctl *c);
int ctl_cmd_remove(struct ctl *c);
/*
 * The nodes of sel[0..*n) whose agents hold layer `name` committed (GET /v1/intent),
 * kept in order (*n shrinks); the others that answered are named in without (", ").
 * A node that does not answer: -EHOSTUNREACH (named on stderr), unless
 * skip_unreachable leaves it out.
 */
int ctl_layer_holders(struct ctl *c, const char *name, const struct inventory_node **sel, unsigned *n,
                      bool skip_unreachable, char *without, size_t size);
/* The names of the layers committed on sel[0..n) (each once, at most max); nodes that do not answer add none. */
int ctl_layer_names(struct ctl *c, const struct inventory_node *const *sel, unsigned n,
                    char (*names)[POLICY_NAME_MAX], unsigned max, unsigned *ret_n);

/* --profile NAME: the profile's file into path (ctl_profile.c); -ENOENT printed when there is none. */
int ctl_profile_find(const char *name, char *path, size_t size);

/*
 * GET /v1/doctor?window_s=S on sel[0..n) at once: one node of f per node, in order,
 * named as the inventory names it (an agent that failed: its error). 0 or -errno.
 */
struct doctor_facts;
int ctl_doctor_collect(struct ctl *c, double window_s, const struct inventory_node *const *sel, unsigned n,
                       struct doctor_facts *f);

/*
 * The pre-flight across the cable (ctl_cable.c): every inventory node's doctor facts,
 * then doctor's path rules on the merged intent of both ends of every known path
 * (doctor_cable_check) for policy p rolled out to sel[0..n). A path the change makes
 * inconsistent is printed (both ends, the rule; `what` begins each line) and -EINVAL
 * returned, *ret_refused (when given) then the JSON array of them; a path inconsistent
 * already, or a node not collected, is a note in notes (rollout_notes_add; may be NULL).
 * 0 when nothing breaks, or another -errno.
 */
int ctl_cable_preflight(struct ctl *c, const char *what, const struct policy *p,
                        const struct inventory_node *const *sel, unsigned n, json_t *notes, json_t **ret_refused);

int ctl_cmd_tune(struct ctl *c);
int ctl_cmd_diff(struct ctl *c);
int ctl_cmd_pause(struct ctl *c);
int ctl_cmd_resume(struct ctl *c);
int ctl_cmd_promote(struct ctl *c);

/* GET /v1/drift on sel[0..n) at once, stored as one scan; caller frees with ctl_drift_scan_free. */
int ctl_drift_scan(struct ctl *c, const struct inventory_node *const *sel, unsigned n, struct drift_scan *ret,
                   struct errbuf *e);
void ctl_drift_scan_free(struct drift_scan *scan);
/*
 * drift --heal (ctl_heal.c): every drifted node of scan gets the policy the newest
 * finished rollout that committed it sent, as an "enforce" rollout per policy (asked
 * on a terminal; with SQLite run here under the rollout lease, with etcd submitted).
 * The worst exit code of them; 3 too when a drifted node has no such rollout (named).
 */
int ctl_drift_heal(struct ctl *c, const struct drift_scan *scan);

/* The store spec in force: --store, else --db, else the config file's, else ./nettune.db. */
const char *ctl_store_spec(const struct ctl *c);
/* Is the store in force shared by several controllers (etcd)? */
bool ctl_store_shared(const struct ctl *c);

/* Inventory nodes the policy selects (NULL p: all), in inventory order. Caller frees *ret. */
int ctl_select(struct ctl *c, const struct policy *p, const struct inventory_node ***ret, unsigned *ret_n);

/* Does node meet every selector of labels[0..n) (each checked by inventory_selector_check())? */
bool ctl_labels_match(const char *const *labels, unsigned n, const struct inventory_node *node);

struct rollout_run_env;
void ctl_run_env(struct ctl *c, struct rollout_run_env *ret);

/* Print a store/engine failure and return OUTCOME_RUNTIME. */
int ctl_fail(const struct errbuf *e);
