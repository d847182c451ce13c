/* SPDX-License-Identifier: MIT */
/* The "dcb" driver (trust, dscp_to_priority, pfc, ets over dcbnl) and its sibling "dcb-buffer". */
#pragma once

#include "drivers/driver.h"

extern const struct driver_ops dcb_driver;
/* The "dcb-buffer" driver (cable_length, buffers over dcbnl: drivers/host/dcb_buffer.c). */
extern const struct driver_ops dcb_buffer_driver;

struct nl;
struct dcb_nl_ieee;
/*
 * The request's rtnetlink handle (or one of its own, *own, closed by the caller) and
 * the interface's IEEE DCB configuration, from the request's batch when it can;
 * a device without DCB is -EOPNOTSUPP with the clear message.
 */
int dcb_open_get(struct target *t, struct nl **ret_nl, struct nl **own, struct dcb_nl_ieee *cur, struct errbuf *e);

/* Where lldpad is looked for ("/proc"); tests point it at a fake tree. */
extern const char *dcb_driver_proc_root;
