/* SPDX-License-Identifier: MIT */
/*
 * Files in the agent's state directory (journal, lock). The directory is created
 * (0700) when missing. Whatever is created in it belongs to the directory's owner:
 * when root (an operator's CLI) creates a file in a directory a service user owns
 * (the package's /var/lib/nettune, owned by nettune), the file is handed to that
 * user, so that the service can still open it.
 */
#pragma once

#include "errbuf.h"

/*
 * Open (creating it 0600 if needed) DIR/NAME read-write with O_CLOEXEC; the path
 * goes to ret_path. Returns the descriptor (the caller closes it) or -errno with e
 * naming the directory or the file.
 */
int statedir_open(const char *dir, const char *name, char *ret_path, size_t size, struct errbuf *e);
