/* SPDX-License-Identifier: MIT */
/*
 * Discovery: the targets a request names on this node.
 *   - interfaces: every link of the agent's network namespace matching one of
 *     the globs (a glob matching nothing is an error);
 *   - switches: every switch of the agent configuration matching one of the globs.
 * Routing fields to drivers, reading and diffing are the plan's (plan.h).
 */
#pragma once

#include "drivers/driver.h"
#include "common/errbuf.h"
#include "agent/plan/plan.h"
#include "policies/policy.h"

#define TARGETS_MAX 1024

struct target_list {
        unsigned n;
        struct target *v;               /* owned; targets_free() */
};

/* Resolve a policy. -ENOENT (with where "$.targets.interfaces[i]") when a glob matches nothing. */
int targets_for_policy(const struct plan_env *env, const struct policy *p, struct target_list *ret,
                       struct errbuf *e);

/* Local interfaces matching globs (n 0: every interface except loopback). */
int targets_for_interfaces(const struct plan_env *env, const char (*globs)[64], unsigned n,
                           struct target_list *ret, struct errbuf *e);

/* Switches of the agent configuration matching globs (n 0: every configured switch). */
int targets_for_switches(const struct plan_env *env, const char (*globs)[64], unsigned n,
                         struct target_list *ret, struct errbuf *e);

void targets_free(struct target_list *l);
