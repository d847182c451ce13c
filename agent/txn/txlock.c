/* SPDX-License-Identifier: MIT */
#include <sys/file.h>

#include "agent/txn/txn.h"
#include "common/statedir.h"

int txlock_acquire(const char *state_dir, bool wait, int *ret_fd, struct errbuf *e)
{
        _cleanup_close_ int fd = -1;
        char path[512];

        fd = statedir_open(state_dir, "lock", path, sizeof(path), e);
        if (fd < 0)
                return fd;
        while (flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) < 0) {
                if (errno == EINTR)
                        continue;
                if (errno == EWOULDBLOCK)
                        return errbuf_set(e, EBUSY, NULL, "another transaction is running on this node (lock '%s' is held)", path);
                return errbuf_set(e, errno, path, "cannot lock: %s", strerror(errno));
        }
        *ret_fd = TAKE_FD(fd);
        return 0;
}

void txlock_release(int fd)
{
        if (fd >= 0)
                close(fd);
}
