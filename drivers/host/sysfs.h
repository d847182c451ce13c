/* SPDX-License-Identifier: MIT */
/*
 * Small sysfs attribute files (one value per file): read a line, read or write
 * a decimal unsigned value. Used by the ECN knobs, the RDMA counters and the
 * GID table. Every function returns 0 or -errno (-EBADMSG: not a number).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

/* The file's first line (at most size - 1 bytes, without the newline) into buf. */
int sysfs_read_line(const char *path, char *buf, size_t size);

/* A decimal value and an optional trailing newline, nothing else; *ret written on success. */
int sysfs_read_u64(const char *path, uint64_t *ret);
int sysfs_read_uint(const char *path, unsigned *ret);

/* Write "V\n" in one write(2). */
int sysfs_write_uint(const char *path, unsigned v);
/* Write text as it is in one write(2). */
int sysfs_write_line(const char *path, const char *text);

/*
 * Every port of every RDMA device backing a network interface (the devices are
 * listed under its PCI device: SYSFS/class/net/IF/device/infiniband/DEV, their
 * ports under SYSFS/class/infiniband/DEV/ports/N): fn(dev, port, data) for each.
 * An interface without RDMA device has none; that is not an error.
 */
void sysfs_rdma_ports(const char *sysfs_root, const char *ifname,
                      void (*fn)(const char *dev, const char *port, void *data), void *data);
