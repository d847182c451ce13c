/* SPDX-License-Identifier: MIT */
/*
 * Probe runs as a progress line on a terminal (common/progress.h), for `probe` and
 * the transaction's baseline and post-change measurements:
 *   baseline probe: 10.0.0.2:18515 (tcp): 2/3 runs done, run 2: 9.41 Gb/s
 */
#pragma once

#include "drivers/probe/probe.h"
#include "common/progress.h"

/* Begin the line on pg and set *ret to report each run of the measurement there (mode: as pinned). */
void probe_progress_begin(struct progress *pg, const char *tag, const struct probe_params *p,
                          enum probe_mode mode, unsigned runs, struct probe_observer *ret);

/* The measurement is over: its median (or that it failed) on the line, then end it. */
void probe_progress_end(struct progress *pg, const struct probe_measurement *m);
