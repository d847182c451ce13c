/* SPDX-License-Identifier: MIT */
/*
 * The agent's state directory (journal.db, lock). Created 0700 when missing. An
 * existing one is refused when it is not a directory, when it is writable by its
 * group or by others (whoever can write there could swap the journal or the lock),
 * or when it belongs to another user and we are not root. Root may use a service
 * user's directory (an operator's CLI next to the package's /var/lib/nettune, owned
 * by nettune): whatever root creates there is handed to the directory's owner, so
 * that the service can still open it. Files are regular, 0600, and never opened
 * through a symbolic link.
 */
#pragma once

#include <stddef.h>

#include "common/errbuf.h"

/*
 * Check (creating it if needed) DIR, then open (creating it 0600 if needed) DIR/NAME
 * read-write with O_CLOEXEC | O_NOFOLLOW; the path goes to ret_path. Returns the
 * descriptor (the caller closes it) or -errno with e naming the directory or file:
 * -EPERM for a directory or file refused as above, -ELOOP for a symbolic link.
 */
int statedir_open(const char *dir, const char *name, char *ret_path, size_t size, struct errbuf *e);
