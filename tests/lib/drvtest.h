/* SPDX-License-Identifier: MIT */
/*
 * Driving one driver on one target the way the plan does (agent/plan/plan.c), for unit
 * tests of a driver alone: read the fields desired names, diff them with the field
 * table, run the driver's check on the delta, then hand it the delta.
 */
#pragma once

#include "drivers/driver.h"

/* apply: ops->apply with the delta of desired (its present fields) against a fresh read. */
int drvtest_apply(const struct driver_ops *ops, struct target *t, const struct state *desired, struct errbuf *e);
/* restore: the same with ops->restore when the driver has one. */
int drvtest_restore(const struct driver_ops *ops, struct target *t, const struct state *snapshot,
                    struct errbuf *e);
