/* SPDX-License-Identifier: MIT */
/*
 * The ethtool ioctl (SIOCETHTOOL) with its test seam, and the tunables nettune manages.
 *
 * The seam (docs/design.md, "Test seams"): with NETTUNE_ETHTOOL_SOCKET=PATH in the
 * environment, every ethtool call of ethtool_call() goes to the unix SOCK_SEQPACKET
 * socket at PATH instead of the kernel: one connection per call, one datagram
 * out (the interface name, IFNAMSIZ bytes, then the command's bytes as the kernel
 * would read them: struct ethtool_tunable followed by its value, ethtool_gstrings
 * with room for its strings, ...), one datagram back (int32 0 or -errno, then the
 * command's bytes as the kernel would leave them). The NIC models serve it
 * (tests/nicmodel, nm_ethtool.c). Without the variable nothing changes.
 *
 * Tunables have no netlink request (Documentation/networking/ethtool-netlink.rst maps
 * ETHTOOL_GTUNABLE/STUNABLE to "n/a"): the ioctl is the only way.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#define ETHTOOL_SEAM_ENV "NETTUNE_ETHTOOL_SOCKET"

/*
 * One command: fd an AF_INET datagram socket for the kernel (ignored over the seam;
 * -1: opened and closed here), cmd the command's buffer of len bytes (len 0: as long
 * as the command says, ethtool_cmd_len()). 0 or -errno.
 */
int ethtool_call(int fd, const char *ifname, void *cmd, size_t len);
/* The bytes the kernel reads and writes for cmd (its header and what follows it); 0 for a command it does not know. */
size_t ethtool_cmd_len(const void *cmd);

/*
 * ETHTOOL_PFC_PREVENTION_TOUT (include/uapi/linux/ethtool.h: id 3, a u16 in ms, 0 off,
 * PFC_STORM_PREVENTION_AUTO 0xffff): get reads what the driver reads back (mlx5: the
 * critical stall watermark, never 0xffff), set writes v. -EOPNOTSUPP where the driver has
 * no get_tunable/set_tunable or the device lacks the capability.
 */
int ethtool_pfc_prevention_get(const char *ifname, uint16_t *ret);
int ethtool_pfc_prevention_set(const char *ifname, uint16_t v);

/*
 * The lanes of a switch port as far as its driver's supported link modes tell
 * (ETHTOOL_GLINKSETTINGS): 8 when it supports a mode of eight lanes (400000base*8,
 * 800000base*8), else 4. mlxsw's supported modes are the port's PTYS capability
 * (spectrum_ethtool.c mlxsw_sp2_from_ptys_link(); kernels before the removal of its
 * mask_width test also filtered them by mlxsw_sp_port->mapping.width), and the width
 * is what doubles the headroom (spectrum_buffers.c mlxsw_sp_port_headroom_8x_adjust()).
 * 0 or -errno (-EOPNOTSUPP: no link modes).
 */
int ethtool_port_lanes(const char *ifname, unsigned *ret);
