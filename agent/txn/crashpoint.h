/* SPDX-License-Identifier: MIT */
/*
 * Test-only hooks, no-ops in production.
 *
 * Crash points. With NETTUNE_CRASH_AT=<step> in the environment the
 * process kills itself with SIGKILL right after the journal has durably recorded
 * <step> ("planned", "snapshotted", "applying", "applied", "verifying",
 * "pending_confirm", "committed", "restoring", "rolled_back", or "applied-drivers":
 * after the drivers wrote, before the journal records APPLIED). Crash-recovery
 * tests use it to stop a transaction at every step. Unset in production: a no-op.
 */
#pragma once

#include <stdbool.h>

void crashpoint(const char *step);
/* Whether crashpoint(step) is the one that kills. */
bool crashpoint_armed(const char *step);

/*
 * NETTUNE_TEST_HOOK_AFTER_APPLY=<shell command>: run between the apply and the
 * post-change probe (tests use it to break the data path and watch the gate).
 */
void crashpoint_after_apply(void);
