/* SPDX-License-Identifier: MIT */
/*
 * Policy documents (apiVersion "nettune/v1", kind "Policy"): parse, validate,
 * and the validated C model. Only validated structs leave policies/; errors
 * carry the file, the JSON path and the allowed range:
 *
 *   policy.json: $.spec.pfc.priorities[1]: priority 9 out of range 0-7
 *   policy.json:3:14: end of file expected near '}'
 *
 * May call: policies/state, policies/json, common/. Called by doctor (policies/),
 * drivers/, agent/ and controller/.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "common/errbuf.h"
#include "policies/policy/lossless.h"
#include "policies/state/state.h"

#define POLICY_NAME_MAX 64
#define POLICY_LABELS_MAX 32
#define POLICY_TARGETS_MAX 64
#define POLICY_LABEL_MAX 64
#define POLICY_PEER_MAX 128
#define POLICY_OVERRIDES_MAX 16          /* metadata.overrides: the layers a policy means to win over */
#define POLICY_DOC_MAX (1u << 20)       /* bytes: larger documents are refused */
#define POLICY_GBPS_MAX 100000          /* verify.min_gbps upper bound */
#define POLICY_MTU_MIN 68
#define POLICY_MTU_MAX 9978              /* mlx5's max_mtu (ConnectX); every driver holds a port to its own range */
#define POLICY_ECN_BYTES_MAX (64 * 1024 * 1024)        /* 64 MiB: larger than any switch buffer */

struct policy_label {
        char key[POLICY_LABEL_MAX];
        char value[POLICY_LABEL_MAX];
};

enum policy_probe {
        POLICY_PROBE_AUTO,      /* verbs if an RDMA device backs the interface, else tcp */
        POLICY_PROBE_VERBS,
        POLICY_PROBE_TCP,
        POLICY_PROBE_NONE,
        POLICY_PROBE_MAX,
};

enum policy_on_baseline_failure {
        POLICY_BASELINE_FAIL,   /* default: no baseline, no change */
        POLICY_BASELINE_SKIP_GATE, /* apply anyway, gate only on min_gbps and probe success */
        POLICY_BASELINE_MAX,
};

enum policy_on_inconclusive {
        POLICY_INCONCLUSIVE_FAIL,       /* roll back: the measurements cannot be compared */
        POLICY_INCONCLUSIVE_RETRY,      /* default: measure the post-change rate again (twice at most), then fail */
        POLICY_INCONCLUSIVE_MAX,
};

enum policy_fabric_pattern {
        POLICY_FABRIC_RING,
        POLICY_FABRIC_INCAST,
        POLICY_FABRIC_ALLTOALL,
        POLICY_FABRIC_PATTERN_MAX,
};

#define POLICY_FABRIC_NEIGHBOURS_MAX 64

/*
 * verify.fabric: the controller measures a pattern over each wave (and
 * `neighbours` committed nodes) before the wave and after it applied, before
 * confirming it, and halts the rollout on a regression. Agents ignore it.
 */
struct policy_fabric {
        bool present;
        enum policy_fabric_pattern pattern;
        unsigned duration_ms;                   /* 100-60000, default 2000 */
        unsigned max_regression_pct;            /* 0-100, default 20 */
        enum policy_probe mode;                 /* auto, verbs, tcp (never none) */
        unsigned neighbours;                    /* 0-64, default 0 */
        int dscp;                               /* 0-63; -1 = verify.dscp, else the policy's lossless class */
        unsigned streams;                       /* per flow, 1-16, default 1 */
};

struct policy_verify {
        bool present;                           /* "verify" given at all */
        enum policy_probe probe;
        char peer[POLICY_PEER_MAX];             /* "host:port"; empty = none */
        unsigned duration_ms;
        unsigned message_size;
        unsigned max_regression_pct;            /* 0-100 */
        double min_gbps;
        unsigned settle_ms;
        unsigned runs;                          /* median of N measurements, 1-15 */
        unsigned streams;                       /* TCP streams / verbs QPs per measurement, 1-16 */
        enum policy_on_baseline_failure on_baseline_failure;
        int dscp;                               /* 0-63; -1 = the lowest DSCP the DSCP map sends to a PFC priority */
        char device[STATE_NAME_MAX];            /* local interface the probe leaves by; "" = the route's, a target */
        /* the agent's other CPU load differed between baseline and post-change beyond the bound */
        enum policy_on_inconclusive on_inconclusive;
        struct policy_fabric fabric;
};

struct policy {
        char name[POLICY_NAME_MAX];
        unsigned n_labels;
        struct policy_label labels[POLICY_LABELS_MAX];
        unsigned n_overrides;                   /* metadata.overrides: layers whose fields this one may declare */
        char overrides[POLICY_OVERRIDES_MAX][POLICY_NAME_MAX];
        unsigned n_selector;
        struct policy_label selector[POLICY_LABELS_MAX];

        unsigned n_interfaces;                  /* names or fnmatch(3) globs */
        char interfaces[POLICY_TARGETS_MAX][STATE_NAME_MAX];
        unsigned n_switches;
        char switches[POLICY_TARGETS_MAX][STATE_NAME_MAX];

        struct state spec;                      /* desired; present = managed fields */
        struct lossless_pos pos;                /* where spec's arrays list each value (the rules' paths) */
        uint32_t checks_allow;                  /* checks.allow: LOSSLESS_BIT() of the rules waived */
        uint32_t checks_allow_cable;            /* ... and bit i: policy_cable_checks[i] waived */
        struct policy_verify verify;
        unsigned confirm_timeout_s;             /* commit.confirm_timeout_s, 0 = none */
};

/*
 * Parse and validate a policy in JSON or YAML (jsonv_parse_doc). `name` is used in
 * messages (a file name, "request body"). On success *ret is a new policy owned by
 * the caller (policy_free). On failure returns -EINVAL (invalid document) or -errno
 * (I/O), fills e, and writes nothing. e->where holds "FILE: $.path",
 * "FILE:LINE:COL" (syntax) or, for YAML, "FILE:LINE:COL: $.path".
 */
int policy_parse_buffer(const char *buf, size_t len, const char *name,
                        struct policy **ret, struct errbuf *e);
/*
 * The document as the agents take it (JSON): a YAML one converted, its keys in the
 * order written; a JSON one copied as it is. *ret is the caller's (free).
 */
int policy_doc_json(const char *buf, size_t len, const char *name, char **ret, size_t *ret_len, struct errbuf *e);
int policy_load_file(const char *path, struct policy **ret, struct errbuf *e);
/*
 * A revision nettune committed (the journal's canonical form): the same parse without
 * the lossless rules, which judged it when it was applied, or which it predates; the
 * way back to it is never refused for them.
 */
int policy_parse_committed(const char *buf, size_t len, const char *name, struct policy **ret, struct errbuf *e);
void policy_free(struct policy *p);

/* Canonical JSON (sorted keys, defaults made explicit). Caller frees. NULL on ENOMEM. */
char *policy_to_json(const struct policy *p);

/* Does the node with these labels match the policy selector? (empty selector: yes) */
bool policy_selects(const struct policy *p, const struct policy_label *labels, unsigned n);

const char *policy_probe_name(enum policy_probe p);
const char *policy_baseline_name(enum policy_on_baseline_failure b);
const char *policy_inconclusive_name(enum policy_on_inconclusive i);
const char *policy_fabric_pattern_name(enum policy_fabric_pattern p);

/* The lowest DSCP the map (64 entries, STATE_DSCP_UNMAPPED or a priority) sends to a priority of pfc, -1 when none. */
int policy_lossless_dscp(const uint8_t *map, uint8_t pfc);

/*
 * The class of the fabric probe's traffic: verify.fabric.dscp, else verify.dscp,
 * else the lowest DSCP the policy's own DSCP map sends to one of its PFC
 * priorities, else -1 (the kernel's default class). *ret_priority: what the
 * policy's map says for that DSCP, -1 when it says nothing.
 */
void policy_fabric_class(const struct policy *p, int *ret_dscp, int *ret_priority);

/*
 * The lossless rules' context for the policy's own spec (a document: every spec
 * field declared, verify.dscp the RoCE DSCP without roce_tos, checks.allow waived).
 * `validate` refuses a policy that breaks one (docs/policy-reference.md, "The
 * lossless class"); the plan judges the live state with the change applied.
 */
void policy_lossless_ctx(const struct policy *p, struct lossless_ctx *ret);

/*
 * The rules across the cable a policy's checks.allow may waive as well (doctor's
 * path rules: "mtu_mismatch", "trust_mismatch", "dscp_map_mismatch",
 * "pfc_priority_mismatch", "cnp_priority_mismatch"): the fleet pre-flight honours
 * them (doctor_cable_check). from_name: the bit index, or -EINVAL.
 */
#define POLICY_CABLE_CHECKS 5
extern const char *const policy_cable_checks[POLICY_CABLE_CHECKS];
int policy_cable_check_from_name(const char *name);

/* Every field at its documented default (verify absent: probe "none"). */
void policy_defaults(struct policy *p);

/* Does an interface / switch name match one of the policy's targets (fnmatch globs)? */
bool policy_targets_interface(const struct policy *p, const char *ifname);
bool policy_targets_switch(const struct policy *p, const char *name);

/*
 * A label map ({"role": "gpu"}) at the validator's current path, for other
 * documents that carry labels (the controller's inventory). At most
 * POLICY_LABELS_MAX entries; keys [A-Za-z0-9._/-]+, values [A-Za-z0-9._-]*,
 * each shorter than POLICY_LABEL_MAX. Writes ret[0..n) and *ret_n.
 */
struct jsonv;
int policy_labels_parse(struct jsonv *v, const json_t *j, struct policy_label *ret, unsigned *ret_n);
