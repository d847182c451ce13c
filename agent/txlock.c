/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "state_dir.h"
#include "txlock.h"

int txlock_acquire(const char *state_dir, bool wait, int *ret_fd, struct errbuf *e)
{
        _cleanup_close_ int fd = -1;
        char path[512];
        int r = state_dir_prepare(state_dir, e);

        if (r < 0)
                return r;
        snprintf(path, sizeof(path), "%s/lock", state_dir);
        fd = state_dir_open(state_dir, "lock", O_RDWR | O_CREAT, 0600, e);
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
