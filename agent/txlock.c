/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "txlock.h"

int txlock_acquire(const char *state_dir, bool wait, int *ret_fd, struct errbuf *e)
{
        _cleanup_close_ int fd = -1;
        char path[512];

        if (mkdir(state_dir, 0700) < 0 && errno != EEXIST)
                return errbuf_set(e, errno, state_dir, "cannot create state directory: %s", strerror(errno));
        snprintf(path, sizeof(path), "%s/lock", state_dir);
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
        if (fd < 0)
                return errbuf_set(e, errno, path, "cannot open lock file: %s", strerror(errno));
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
