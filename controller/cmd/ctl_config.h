/* SPDX-License-Identifier: MIT */
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
#pragma once

#include <stdbool.h>

#include "common/errbuf.h"

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
