/* SPDX-License-Identifier: MIT */
/*
 * RoCE GID selection from sysfs: which RDMA device, port and GID index carry a
 * local IP address (SYSFS/class/infiniband/DEV/ports/N/gids/I and
 * gid_attrs/types/I). The sysfs root is a parameter so tests use a fake tree.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "common/errbuf.h"

struct probe_gid {
        char device[64];
        unsigned port;                  /* 1-based */
        unsigned index;                 /* GID table index */
        uint8_t gid[16];
        bool rocev2;                    /* "RoCE v2" (else "IB/RoCE v1") */
        char netdev[16];                /* gid_attrs/ndevs/I: the interface of the GID, "" when not listed */
};

/* "fe80:0000:0000:0000:0000:0000:0000:0001" (or any inet_pton AF_INET6 text) into 16 bytes. */
int probe_gid_parse(const char *text, uint8_t ret[16]);

/* The GID form of a local address: IPv4 as ::ffff:a.b.c.d, IPv6 as is. */
int probe_gid_from_addr(const struct sockaddr *sa, uint8_t ret[16]);

/*
 * Find the GID for `local` on `device` ("" or NULL = every device, in name order).
 * A RoCE v2 entry is preferred over a v1 entry with the same address. With local
 * NULL, the first RoCE v2 IPv4-mapped GID of `device` is taken. -ENODEV with a
 * message when nothing matches; *ret written on success only.
 */
int probe_gid_find(const char *sysfs_root, const char *device, const struct sockaddr *local,
                   struct probe_gid *ret, struct errbuf *e);

/* Does SYSFS/class/infiniband list any device at all? */
bool probe_gid_any_device(const char *sysfs_root);

/* Entry `index` of device's port: gid, type and interface. -ENOENT when unset; *ret written on success. */
int probe_gid_read(const char *sysfs_root, const char *device, unsigned port, unsigned index,
                   struct probe_gid *ret);

/* The names of the RDMA devices into buf ("rxe0, mlx5_0"), "" when none. Returns buf. */
const char *probe_gid_devices(const char *sysfs_root, char *buf, size_t size);
