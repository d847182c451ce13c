/* SPDX-License-Identifier: MIT */
/*
 * Inside controller/cmd; not for other modules: the tune command's arguments (ctl_tune.c,
 * ctl_tune_scope.c); doctor's picture and node labels (ctl_doctor_svg.c); the rollout's
 * picture (ctl_status_svg.c).
 */
#pragma once

#include "controller/cmd/ctl.h"
#include "controller/tune/tune.h"

struct tune_args {
        struct tune t;
        const char *sw, *interfaces, *out, *plot, *ports, *name, *param, *receiver;
        bool queue_given, keep, ceiling_port;
        unsigned canary, confirm_timeout_s;
        unsigned n_selector;
        const char *selector[POLICY_LABELS_MAX];
        /* ctl_tune_scope() */
        const struct inventory_node **scope;    /* owned (the nodes point into the inventory) */
        unsigned n_scope;
        const struct inventory_node **pattern;  /* owned */
        unsigned n_pattern;
        struct policy_label labels[POLICY_LABELS_MAX];  /* the winner's selector */
        unsigned n_labels;
        struct http_tls tls;
};

/* What the options say together (one subject, its kind's options only). -EINVAL with the error printed. */
int ctl_tune_check_args(struct tune_args *a);
/*
 * Resolve what the trials change and what they measure, asking the agents (read only):
 * the pattern's nodes, the switch's managing node and the ports under test (ECN) or the
 * canary hosts (DCQCN), the values they have now, the ceiling when it is the port rate.
 * -errno with e filled; nothing was changed.
 */
int ctl_tune_scope(struct ctl *c, struct tune_args *a, struct errbuf *e);
void ctl_tune_env(struct ctl *c, struct tune_args *a, struct tune_env *ret);
void ctl_tune_args_free(struct tune_args *a);

/* ---- ctl_doctor_svg.c: what doctor found as a picture and as Kubernetes node labels ---- */

struct doctor_facts;
struct doctor_params;
struct doctor_report;
/* The lossless class along every known path, findings on their hops, as SVG into path. 0 or -errno (printed). */
int ctl_doctor_svg(const struct doctor_facts *f, const struct doctor_params *p, const struct doctor_report *r,
                   const char *path);
/* Each collected node's nettune.io/lossless and nettune.io/findings labels into path. 0 or -errno (printed). */
int ctl_doctor_labels(const struct doctor_facts *f, const struct doctor_report *r, bool json, const char *path);

/* ---- ctl_status_svg.c: a rollout's timeline, waves and each node's gate Gb/s before and after ---- */

int ctl_status_svg(const struct rollout_rec *r, const char *path);
