/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <sys/stat.h>

#include "state_dir.h"
#include "util.h"

int state_dir_prepare(const char *state_dir, struct errbuf *e)
{
        struct stat st;

        if (mkdir(state_dir, 0700) < 0 && errno != EEXIST)
                return errbuf_set(e, errno, state_dir, "cannot create state directory: %s", strerror(errno));
        if (stat(state_dir, &st) < 0)
                return errbuf_set(e, errno, state_dir, "cannot read state directory: %s", strerror(errno));
        if (!S_ISDIR(st.st_mode))
                return errbuf_set(e, ENOTDIR, state_dir, "state directory is not a directory");
        if (st.st_uid != geteuid())
                return errbuf_set(e, EPERM, state_dir,
                                  "state directory is owned by uid %u, not by the agent's user (uid %u); refusing it",
                                  (unsigned)st.st_uid, (unsigned)geteuid());
        if (st.st_mode & (S_IWGRP | S_IWOTH))
                return errbuf_set(e, EPERM, state_dir,
                                  "state directory has mode %04o: writable by its group or others; refusing it (chmod 0700)",
                                  (unsigned)(st.st_mode & 07777));
        return 0;
}

int state_dir_open(const char *state_dir, const char *name, int flags, mode_t mode, struct errbuf *e)
{
        char path[512];
        int fd;

        if ((size_t)snprintf(path, sizeof(path), "%s/%s", state_dir, name) >= sizeof(path))
                return errbuf_set(e, ENAMETOOLONG, state_dir, "state directory name is too long");
        fd = open(path, flags | O_CLOEXEC | O_NOFOLLOW, mode);
        if (fd < 0 && errno == ELOOP)
                return errbuf_set(e, ELOOP, path, "is a symbolic link; refusing to follow it");
        if (fd < 0)
                return errbuf_set(e, errno, path, "cannot open: %s", strerror(errno));
        return fd;
}
