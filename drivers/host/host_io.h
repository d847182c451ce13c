/* SPDX-License-Identifier: MIT */
/*
 * drivers/host host_io: the host's part of what one request shares (struct
 * driver_io in drivers/driver.h, driver_io_part): its rtnetlink handle, opened on
 * first use, the writes queued on it (flushed by driver_io_flush, through the
 * part's operations), and closing what the request opened (the handle, the link
 * cache of link.h, the DCB cache of dcb_nl.h) with driver_io_close.
 *
 * May call: drivers/host/nl.h, link.h and dcb_nl.h (their destructors). Called by
 * the host drivers and interface discovery; the agent's plan and transaction reach
 * it only through driver_io's operations.
 */
#pragma once

#include <stdint.h>

#include "drivers/driver.h"
#include "drivers/host/nl.h"

struct link_cache;
struct dcb_cache;

/* The host's part of a request's driver_io. */
struct host_io {
        struct nl *rtnl;                        /* NETLINK_ROUTE (env->nl's transport); NULL until first used */
        struct link_cache *links;               /* the dump, NULL until first used */
        struct dcb_cache *dcb;                  /* every link's DCB GET, asked at once (drivers/host/dcb_nl.h) */
        int8_t rdma_devices;                    /* SYSFS/class/infiniband: 0 not looked at, 1 lists one, -1 none */
};

/* io's host part, made on first use; NULL when io is NULL or memory ran out. */
struct host_io *host_io_of(struct driver_io *io);
/* The same without making it: NULL when there is none yet. */
struct host_io *host_io_find(const struct driver_io *io);

/*
 * The rtnetlink handle of a target's request (opened on first use), or of its own
 * (*ret_own set: the caller closes it with nl_close) when the target has no io.
 */
int driver_rtnl(const struct target *t, struct nl **ret, struct nl **ret_own, struct errbuf *e);
/* The request's rtnetlink handle without a target (discovery), opened on first use with env's transport. */
int driver_io_rtnl(struct driver_io *io, const struct driver_env *env, struct nl **ret, struct errbuf *e);
