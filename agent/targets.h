/* SPDX-License-Identifier: MIT */
/*
 * The targets of a policy on this node, and reading their live state through
 * the driver registry:
 *   - interfaces: every link of the agent's network namespace matching one of
 *     the policy's targets.interfaces globs (a glob matching nothing is an error);
 *   - switches: every switch of the agent configuration matching one of
 *     targets.switches.
 * Fields are routed to drivers with driver_select() and each driver's caps():
 * the first driver (in registry order) that supports a field here owns it.
 * targets_check_caps() refuses unsupported fields before anything is touched:
 *   interface 'vA' (driver veth) does not support DCB (needed for pfc); nothing was changed
 */
#pragma once

#include "config.h"
#include "driver.h"
#include "errbuf.h"
#include "policy.h"

#define TARGETS_MAX 1024
#define TARGETS_DRIVERS_MAX 8

struct target_list {
        unsigned n;
        struct target *v;               /* owned; targets_free() */
};

/* Resolve a policy. -ENOENT (with where "$.targets.interfaces[i]") when a glob matches nothing. */
int targets_for_policy(const struct policy *p, const struct agent_config *c, struct target_list *ret,
                       struct errbuf *e);

/* Local interfaces matching globs (n 0: every interface except loopback). */
int targets_for_interfaces(const struct agent_config *c, const char (*globs)[64], unsigned n,
                           struct target_list *ret, struct errbuf *e);

/* Switches of the agent configuration matching globs (n 0: every configured switch). */
int targets_for_switches(const struct agent_config *c, const char (*globs)[64], unsigned n,
                         struct target_list *ret, struct errbuf *e);

void targets_free(struct target_list *l);

/*
 * The fields of a policy spec that concern a kind of target: host_ecn only
 * interfaces; ecn switches, and interfaces too when the agent runs on a Linux
 * switch (env->switch_role: its ports' queues, through tc qdiscs).
 */
uint32_t targets_wanted(const struct driver_env *env, enum target_kind kind, uint32_t spec_fields);

/* Which driver owns which field of a target here: the first driver, in registry order, whose caps include it. */
struct targets_route {
        unsigned n;
        const struct driver_ops *ops[TARGETS_DRIVERS_MAX];
        uint32_t fields[TARGETS_DRIVERS_MAX];   /* disjoint; their union is what the target supports of want */
};

int targets_route(struct target *t, uint32_t want, struct targets_route *ret, struct errbuf *e);

/* Which of `want` the target supports here (asks each driver's caps). */
int targets_caps(struct target *t, uint32_t want, uint32_t *ret_fields, struct errbuf *e);

/* -EOPNOTSUPP with the clear message when a field of `want` is not supported here. */
int targets_check_caps(struct target *t, uint32_t want, struct errbuf *e);

/*
 * Everything the plan refuses before anything is touched, for desired->present:
 * unsupported fields (targets_check_caps), ets through DCB together with ecn
 * through a tc ets qdisc on one port (mlxsw allows only one of them), and what the
 * qdisc driver cannot do here (qdisc_driver_check: inexpressible ets, a foreign qdisc).
 */
int targets_check(struct target *t, const struct state *desired, struct errbuf *e);

/* Read `fields` (those supported here; others stay absent) into *ret (state_init'ed by the caller). */
int targets_read_state(struct target *t, uint32_t fields, struct state *ret, struct errbuf *e);
