/* SPDX-License-Identifier: MIT */
/*
 * What nettunectl shows: live progress on stderr (common/progress.h: one redrawn
 * line per wave on a terminal, plain lines per node otherwise, nothing with
 * --output json or --quiet) and the final report on stdout (text, or JSON for scripts).
 */
#pragma once

#include <jansson.h>
#include <stdbool.h>

#include "common/progress.h"
#include "controller/store/store.h"

/* A wave's fan-out: nodes as they answer, and the mean probe rates so far. */
struct output_progress {
        struct progress p;
        double base_sum, post_sum;
        unsigned n_probed;
};

void output_progress_begin(struct output_progress *p, enum progress_mode mode, const char *what,
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
