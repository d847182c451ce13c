/* SPDX-License-Identifier: MIT */
/* The model as a process: the netlink and control sockets (nm_server.c). */
#pragma once

#include <signal.h>
#include <stdio.h>

struct nm;

/*
 * Serve until *stop is set; "ready" goes to `ready` (may be NULL) once the sockets listen
 * (ethtool_path NULL: no ethtool seam). Removes the socket files on return.
 */
int nm_serve(struct nm *m, const char *sock_path, const char *control_path, const char *ethtool_path,
             volatile sig_atomic_t *stop, FILE *ready);

/* Send one control line and copy the answer to f; -EIO when the model answered "error: ...". */
int nm_ctl(const char *control_path, const char *line, FILE *f);
