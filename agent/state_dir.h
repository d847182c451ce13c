/* SPDX-License-Identifier: MIT */
/*
 * The agent's state directory (<state_dir>: journal.db, lock). Created 0700; an
 * existing one is refused when it is not a directory, not owned by the agent's
 * effective user, or writable by its group or by others — whoever can write there
 * could swap the journal or the lock. Files in it are opened with O_NOFOLLOW.
 */
#pragma once

#include <sys/types.h>

#include "errbuf.h"

/* Create state_dir (0700) if missing, then check it as above. */
int state_dir_prepare(const char *state_dir, struct errbuf *e);

/*
 * Open (create with mode) <state_dir>/name without following a symbolic link;
 * flags as open(2) (O_CLOEXEC | O_NOFOLLOW are added). Returns the descriptor.
 */
int state_dir_open(const char *state_dir, const char *name, int flags, mode_t mode, struct errbuf *e);
