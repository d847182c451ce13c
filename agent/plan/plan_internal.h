/* SPDX-License-Identifier: MIT */
/* Internal to agent/plan: what plan.c calls in the module's other files. */
#pragma once

#include "agent/plan/plan.h"

/*
 * The lossless rules over each unit as it is and as the change leaves it
 * (plan_lossless.c). -EINVAL (e: the unit, both paths, the code; "nothing was
 * changed") when the change breaks a rule the unit keeps, unless p->lossless.refuse
 * is false (the way back): then a note. What the unit breaks already: a note per
 * rule. Notes go to notes[0..*ret_n), at most max.
 */
int plan_lossless_check(const struct plan *p, char (*notes)[PLAN_NOTE_MAX], unsigned max, unsigned *ret_n,
                        struct errbuf *e);
