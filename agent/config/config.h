/* SPDX-License-Identifier: MIT */
/*
 * The agent configuration file (/etc/nettune/agent.json, spec "Agent configuration").
 * Validated like a policy: unknown keys, wrong types and out-of-range values are
 * errors naming the file and the JSON path. Relative file names (tls, switch keys,
 * known_hosts) are resolved against the configuration file's directory.
 *
 * May call: agent/http (config_tls.c: the TLS files checked before use), drivers/,
 * policies/, common/. Called by agent/plan, agent/doctor, agent/txn, agent/api, agent/cmd.
 */
#pragma once

#include <stdbool.h>

#include "common/errbuf.h"
#include "drivers/driver.h"

#define CONFIG_PATH_MAX 256
#define CONFIG_SWITCHES_MAX 16
#define CONFIG_LINKS_MAX 256
#define CONFIG_DEFAULT_PATH "/etc/nettune/agent.json"
#define CONFIG_PROBE_ALLOW_MAX 64               /* probe.allow entries (PROBE_SERVER_ALLOW_MAX) */
#define CONFIG_ALLOWED_CLIENTS_MAX 64
#define CONFIG_CLIENT_NAME_MAX 128

enum drift_mode {
        DRIFT_MODE_REPORT,
        DRIFT_MODE_ENFORCE,
        DRIFT_MODE_MAX,
};

enum agent_role {
        AGENT_ROLE_HOST,                        /* a GPU node: ecn is a switch field */
        AGENT_ROLE_SWITCH,                      /* runs on a Linux switch: ecn/ets of its ports through tc qdiscs */
        AGENT_ROLE_MAX,
};

/* "links": a local interface and the switch port it is cabled to (doctor's path). */
struct config_link {
        char iface[64];
        char sw[STATE_NAME_MAX];
        char port[STATE_NAME_MAX];
};

/*
 * external_owners: fields another system manages (a NIC configuration operator, a
 * switch's own QoS command). A policy declaring one is refused (field_owned, the
 * owner's name); nettune reads them and doctor judges them, but never writes them.
 */
#define CONFIG_EXTERNAL_OWNERS_MAX 16
#define CONFIG_EXTERNAL_GLOBS_MAX 16
struct config_external_owner {
        char owner[64];
        unsigned n_interfaces;                  /* globs */
        char interfaces[CONFIG_EXTERNAL_GLOBS_MAX][STATE_NAME_MAX];
        unsigned n_switches;
        char switches[CONFIG_EXTERNAL_GLOBS_MAX][STATE_NAME_MAX];
        uint32_t fields;                        /* STATE_BIT() of the spec fields it owns */
};

struct agent_config {
        char path[CONFIG_PATH_MAX];             /* where it was loaded from, "" = defaults */
        char listen[128];                       /* "0.0.0.0:7440" */
        char tls_cert[CONFIG_PATH_MAX];
        char tls_key[CONFIG_PATH_MAX];
        char tls_client_ca[CONFIG_PATH_MAX];
        /* tls.allowed_clients: exact names or "*.suffix" globs matched against the client
         * certificate's subject CN and subjectAltName DNS names; none = any clientAuth certificate */
        unsigned n_allowed_clients;
        char allowed_clients[CONFIG_ALLOWED_CLIENTS_MAX][CONFIG_CLIENT_NAME_MAX];
        /* tls.roles: the same kind of names per role; "operate" may change, "read" only read */
        bool tls_roles;                         /* tls.roles was given */
        unsigned n_role_operate, n_role_read;
        char role_operate[CONFIG_ALLOWED_CLIENTS_MAX][CONFIG_CLIENT_NAME_MAX];
        char role_read[CONFIG_ALLOWED_CLIENTS_MAX][CONFIG_CLIENT_NAME_MAX];
        char state_dir[CONFIG_PATH_MAX];        /* "/var/lib/nettune" */
        char probe_listen[128];                 /* "0.0.0.0:18515" */
        unsigned probe_runs;                    /* default runs per probe measurement when the policy says none */
        unsigned n_probe_allow;                 /* probe.allow: clients the responder serves; 0 = this host only */
        char probe_allow[CONFIG_PROBE_ALLOW_MAX][64];   /* "10.0.0.0/24", "fd00::5" (checked CIDRs) */
        unsigned n_probe_peers;                 /* probe.peers: where probe traffic may go; 0 = probe.allow's */
        char probe_peers[CONFIG_PROBE_ALLOW_MAX][64];
        unsigned probe_max_clients;             /* responder sessions at once (probe.max_clients, default 4) */
        char probe_advertise[128];              /* "ADDR:PORT" peers reach the responder at; "" = probe.listen */
        unsigned drift_interval_s;              /* 0 = no periodic drift check */
        unsigned counters_sample_ms;            /* counters.sample_ms: the counter sampler's period (10, 1-1000) */
        enum drift_mode drift_mode;
        unsigned role;                          /* enum agent_role ("role") */
        struct driver_env env;                  /* sysfs_root, debugfs_root, configfs_root, settle_ms, link_up_max_ms, flap_wait_ms, rdma_wait_ms, switch_role, qdisc_parents */
        unsigned n_switches;
        struct switch_config switches[CONFIG_SWITCHES_MAX];
        unsigned n_links;
        struct config_link links[CONFIG_LINKS_MAX];
        char lldpd_socket[CONFIG_PATH_MAX];     /* lldpcli -u SOCKET; "" = lldpcli's default */
        char proc_root[CONFIG_PATH_MAX];        /* where processes are looked up (lldpad): "/proc" */
        unsigned max_body_bytes;                /* API request body limit (default 1 MiB) */
        unsigned request_timeout_s;             /* API connection timeout (default 30) */
        unsigned header_timeout_s;              /* API: from accept to a request's headers (default 5) */
        unsigned n_external_owners;
        struct config_external_owner external_owners[CONFIG_EXTERNAL_OWNERS_MAX];
        /* second_writer: serve's enforcement stops restoring a field it restored `restores` times within
         * `window_s` seconds (0: the defaults, 3 and 600) */
        unsigned second_writer_restores;
        unsigned second_writer_window_s;
};
/* The external owner of field f of a target (kind TARGET_*, name), or NULL. */
const struct config_external_owner *config_external_owner(const struct agent_config *c, int kind, const char *name,
                                                          int f);

/* Defaults for every field (no file). */
void config_defaults(struct agent_config *c);

/*
 * Load and validate into *ret (140 KiB: filled in place, never copied). path NULL =
 * defaults only. On failure *ret holds the defaults, never part of the file.
 */
int config_load(const char *path, struct agent_config *ret, struct errbuf *e);
/*
 * The same into a configuration that is all zero (static storage): only what differs
 * from zero is written, so its 140 KiB are not touched page by page (path NULL: the
 * defaults). A command's start-up is on the clock of every apply.
 */
int config_load_zeroed(const char *path, struct agent_config *ret, struct errbuf *e);

/* probe.allow as networks for the responder: ret[0..CONFIG_PROBE_ALLOW_MAX); returns how many. */
struct probe_cidr;
unsigned config_probe_allow(const struct agent_config *c, struct probe_cidr *ret);
/*
 * Where this agent sends probe traffic (drivers/probe/probe_net.h): probe.peers, else
 * the networks of probe.allow, else the networks this host's addresses are on.
 * cidrs[CONFIG_PROBE_ALLOW_MAX] is the storage ret points into.
 */
struct probe_peers;
void config_probe_peers(const struct agent_config *c, struct probe_cidr *cidrs, struct probe_peers *ret);
/*
 * The configured TLS files (config_tls.c): tls.cert holds a certificate with
 * extendedKeyUsage serverAuth, tls.key an unencrypted private key, tls.client_ca at
 * least one certificate. -EINVAL naming the file and key; files not configured are skipped.
 */
int config_check_tls(const struct agent_config *c, struct errbuf *e);

/*
 * Is hostport ("10.0.0.1:18515", "[fd00::1]:18515") a numeric address other than the
 * wildcard? Its address without brackets into ret_host (may be NULL).
 */
bool config_host_numeric(const char *hostport, char *ret_host, size_t size);

/* The switch named `name`, or NULL. */
const struct switch_config *config_find_switch(const struct agent_config *c, const char *name);
