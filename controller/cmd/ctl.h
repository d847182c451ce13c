/* SPDX-License-Identifier: MIT */
/*
 * nettunectl's shared context: common options, the inventory, the store and the
 * HTTPS client, opened on first use by whichever subcommand needs them. Each
 * subcommand is one ctl_cmd_* function in its own cmd_*.c file and returns an
 * exit code (spec "Exit codes").
 */
#pragma once

#include <stdbool.h>

#include "controller/cmd/ctl_config.h"
#include "controller/fleet/fleet_http.h"
#include "controller/fleet/inventory.h"
#include "common/progress.h"
#include "controller/store/store.h"

enum ctl_exit {
        CTL_EXIT_OK = 0,                /* success; plan/drift ran; apply committed */
        CTL_EXIT_ROLLED_BACK = 1,       /* apply halted and reverted; drift found drift */
        CTL_EXIT_INVALID = 2,           /* invalid input or usage: nothing was changed */
        CTL_EXIT_RUNTIME = 3,           /* runtime failure (agents unreachable, store) */
        CTL_EXIT_PENDING = 4,           /* rollout left pending confirmation (--no-confirm) */
};

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
 * CTL_EXIT_INVALID. Released by ctl_done (store_close).
 */
int ctl_need_lease(struct ctl *c, long long rollout_id);
void ctl_done(struct ctl *c);

/* "https://host:port" + "/v1/plan" into buf; -ENAMETOOLONG if it does not fit. */
int ctl_url(char *buf, size_t size, const char *base, const char *path);

/* Parse an unsigned option value in [min, max]; prints the error. */
int ctl_parse_uint(const char *opt, const char *s, unsigned min, unsigned max, unsigned *ret);

/* A whole file (at most max bytes) into a NUL-terminated buffer; prints the error. */
int ctl_read_file(const char *path, size_t max, char **ret, size_t *ret_len);

int ctl_cmd_plan(struct ctl *c);
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
int ctl_cmd_probe(struct ctl *c);

/* GET /v1/drift on sel[0..n) at once, stored as one scan; caller frees with ctl_drift_scan_free. */
int ctl_drift_scan(struct ctl *c, const struct inventory_node *const *sel, unsigned n, struct drift_scan *ret,
                   struct errbuf *e);
void ctl_drift_scan_free(struct drift_scan *scan);

/* The store spec in force: --store, else --db, else the config file's, else ./nettune.db. */
const char *ctl_store_spec(const struct ctl *c);
/* Is the store in force shared by several controllers (etcd)? */
bool ctl_store_shared(const struct ctl *c);

/* Inventory nodes the policy selects (NULL p: all), in inventory order. Caller frees *ret. */
int ctl_select(struct ctl *c, const struct policy *p, const struct inventory_node ***ret, unsigned *ret_n);

/* Does node carry every label of labels[0..n) ("KEY=VALUE", each with a '=')? */
bool ctl_labels_match(const char *const *labels, unsigned n, const struct inventory_node *node);

struct rollout_run_env;
void ctl_run_env(struct ctl *c, struct rollout_run_env *ret);

/* Print a store/engine failure and return CTL_EXIT_RUNTIME. */
int ctl_fail(const struct errbuf *e);
