/* SPDX-License-Identifier: MIT */
/*
 * Test-only crash points. With NETTUNE_CRASH_AT=<step> in the environment the
 * process kills itself with SIGKILL right after the journal has durably recorded
 * <step> ("planned", "snapshotted", "applying", "applied", "verifying",
 * "pending_confirm", "committed", "restoring", "rolled_back", or "applied-drivers":
 * after the drivers wrote, before the journal records APPLIED). Crash-recovery
 * tests use it to stop a transaction at every step. Unset in production: a no-op.
 */
#pragma once

void crashpoint(const char *step);
