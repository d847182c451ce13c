/* SPDX-License-Identifier: MIT */
/*
 * drivers/host host_io: the host handles one request shares (struct driver_io in
 * drivers/driver.h): its rtnetlink handle, opened on first use, the writes queued on
 * it, and closing what the request opened (the handle, the link cache of link.h, the
 * DCB cache of dcb_nl.h).
 *
 * May call: drivers/host/nl.h, link.h and dcb_nl.h (their destructors). Called by
 * the host drivers, interface discovery and the agent's plan and transaction.
 */
#pragma once

#include "drivers/driver.h"
#include "drivers/host/nl.h"

/*
 * The rtnetlink handle of a target's request (opened on first use), or of its own
 * (*ret_own set: the caller closes it with nl_close) when the target has no io.
 */
int driver_rtnl(const struct target *t, struct nl **ret, struct nl **ret_own, struct errbuf *e);
/* The request's rtnetlink handle without a target (discovery), opened on first use with env's transport. */
int driver_io_rtnl(struct driver_io *io, const struct driver_env *env, struct nl **ret, struct errbuf *e);
/* Send the writes drivers queued (io->batch) and check their ACKs; the first refusal names its target. */
int driver_io_flush(struct driver_io *io, struct errbuf *e);
/* Close what a request opened. */
void driver_io_close(struct driver_io *io);
