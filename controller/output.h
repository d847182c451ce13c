/* SPDX-License-Identifier: MIT */
/*
 * What nettunectl shows: live progress on stderr (one redrawn line per wave on a
 * terminal, plain lines per node otherwise, nothing with --output json or --quiet)
 * and the final report on stdout (text, or JSON for scripts).
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>

#include "store.h"

struct output_progress {
        bool tty, plain;                /* a terminal: redraw; else: one line per node */
        const char *what;               /* "apply", "confirm", "rollback" */
        unsigned wave, n_waves, total, done, failed;
        double base_sum, post_sum;
        unsigned n_probed;
};

void output_progress_begin(struct output_progress *p, bool tty, bool plain, const char *what,
                           unsigned wave, unsigned n_waves, unsigned total);
void output_progress_node(struct output_progress *p, const struct rnode *n, bool failed);
void output_progress_end(struct output_progress *p);

/* The rollout as JSON (new reference) and as text on stdout. */
json_t *output_rollout_json(const struct rollout_rec *r);
void output_rollout_text(const struct rollout_rec *r);
/* Text or JSON, as chosen. */
void output_rollout(const struct rollout_rec *r, bool json);

/* Print a JSON document to stdout, indented, with a newline. */
void output_json(json_t *j);

/* Counts of a rollout's nodes by state. */
void output_count_states(const struct rollout_rec *r, unsigned counts[RNODE_STATE_MAX]);
