/* SPDX-License-Identifier: MIT */
/*
 * One transaction at a time per node: an flock(2) on <state_dir>/lock taken by
 * every command that may change state (CLI apply/rollback/confirm, the serve
 * daemon's workers, the confirm watchdog), so CLI and daemon exclude each other.
 */
#pragma once

#include <stdbool.h>

#include "common/errbuf.h"

/* wait=false: -EBUSY at once when another process holds it. Writes *ret_fd on success. */
int txlock_acquire(const char *state_dir, bool wait, int *ret_fd, struct errbuf *e);
void txlock_release(int fd);    /* accepts -1 */
