/* SPDX-License-Identifier: MIT */
/*
 * The "roce-tos" driver: spec.roce_tos, the ToS byte (DSCP << 2 | ECN bits) that
 * RDMA connections use when they set none of their own, on every RDMA port behind
 * an interface target, in each place the kernel keeps one:
 *
 *   CONFIGFS/rdma_cm/DEV/ports/N/default_roce_tos    upstream rdma_cm
 *       (drivers/infiniband/core/cma_configfs.c: the directory DEV is made by
 *       mkdir, make_cma_dev(), which creates ports/1..N itself; a write is
 *       kstrtou8(buf, 0): 0-255, base 0; the value lives in the cma_device, not
 *       in the directory, so removing it resets nothing; cma.c
 *       cma_resolve_iboe_route() uses it on the connecting side of an rdma_cm
 *       connection whose application set no ToS (RDMA_OPTION_ID_TOS), and the
 *       accepting side takes the traffic class of the REQ)
 *   SYSFS/class/infiniband/DEV/tc/N/traffic_class     MLNX_OFED only
 *       (mlx5_ib main_ext.c traffic_class_store(): "tclass=V" sets the port's
 *       global value, "tclass=-1" clears it; traffic_class_show() prints
 *       "Global tclass=V" first when one is set, then the per-address rules,
 *       which nettune leaves alone; a global value overrides every QP's own
 *       traffic class, an application's ToS included)
 *
 * The RDMA ports of an interface: those of the RDMA devices under its PCI device
 * (SYSFS/class/net/IF/device/infiniband/DEV), of the devices whose `parent` names
 * it (rxe, siw: rxe_verbs.c parent_show()), and every port whose first GIDs
 * belong to it (ports/N/gid_attrs/ndevs/0-1: a RoCE port's link-local GIDs).
 *
 * Reading a device's rdma_cm value needs its configfs directory: where it is
 * missing, the read makes it (rdma_cm's documented way to reach the setting; it
 * changes no setting) and leaves it. Without CONFIGFS/rdma_cm (configfs not
 * mounted, rdma_cm not loaded) and without the OFED file a port has no default
 * ToS nettune can manage. Every file an apply writes is checked before the
 * first write (exists, has a write bit); a write that fails midway puts back
 * those written before it.
 */
#pragma once

#include "drivers/driver.h"

/* The RDMA ports behind the interface and their values (ret->roce, ret->roce_tos); 0 ports: none. */
int roce_tos_read_ports(const struct target *t, struct state *ret, struct errbuf *e);

/* How many RDMA ports are behind the interface, with a default ToS place or not (nothing read, nothing made). */
unsigned roce_tos_port_count(const struct target *t);

extern const struct driver_ops roce_tos_driver;
