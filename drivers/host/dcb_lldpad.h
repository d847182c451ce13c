/* SPDX-License-Identifier: MIT */
/* Is lldpad running? It owns DCB when it runs, and nettune then refuses to touch DCB. */
#pragma once

#include <sys/types.h>

/* Scan PROC_ROOT/<pid>/comm ("/proc"). 1 and *ret_pid when found, 0 when not, -errno. */
int dcb_lldpad_find(const char *proc_root, pid_t *ret_pid);
