/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <sys/stat.h>

#include "common/statedir.h"
#include "common/util.h"

static int check_dir(const char *dir, struct stat *st, struct errbuf *e)
{
        if (mkdir(dir, 0700) < 0 && errno != EEXIST)
                return errbuf_set(e, errno, dir, "cannot create state directory: %s", strerror(errno));
        if (stat(dir, st) < 0)
                return errbuf_set(e, errno, dir, "cannot read state directory: %s", strerror(errno));
        if (!S_ISDIR(st->st_mode))
                return errbuf_set(e, ENOTDIR, dir, "state directory is not a directory");
        if (st->st_uid != geteuid() && geteuid() != 0)
                return errbuf_set(e, EPERM, dir,
                                  "state directory is owned by uid %u, not by the agent's user (uid %u); refusing it",
                                  (unsigned)st->st_uid, (unsigned)geteuid());
        if (st->st_mode & (S_IWGRP | S_IWOTH))
                return errbuf_set(e, EPERM, dir,
                                  "state directory has mode %04o: writable by its group or others; refusing it (chmod 0700)",
                                  (unsigned)(st->st_mode & 07777));
        return 0;
}

/* A regular file, 0600, of the directory's owner (root hands what it created over). */
static int check_file(int fd, const struct stat *d, const char *path, struct errbuf *e)
{
        struct stat f;

        if (fstat(fd, &f) < 0)
                return errbuf_set(e, errno, path, "cannot stat: %s", strerror(errno));
        if (!S_ISREG(f.st_mode))
                return errbuf_set(e, EPERM, path, "is not a regular file; refusing it");
        if (f.st_uid != geteuid() && f.st_uid != d->st_uid)
                return errbuf_set(e, EPERM, path, "is owned by uid %u, neither the agent's user nor the directory's owner;"
                                  " refusing it", (unsigned)f.st_uid);
        if ((f.st_mode & 077) && fchmod(fd, 0600) < 0)
                return errbuf_set(e, errno, path, "cannot make it private (0600): %s", strerror(errno));
        if (geteuid() != 0 || d->st_uid == 0 || (f.st_uid == d->st_uid && f.st_gid == d->st_gid))
                return 0;
        if (fchown(fd, d->st_uid, d->st_gid) < 0)
                return errbuf_set(e, errno, path, "cannot hand to uid %u, the state directory's owner: %s",
                                  (unsigned)d->st_uid, strerror(errno));
        return 0;
}

int statedir_open(const char *dir, const char *name, char *ret_path, size_t size, struct errbuf *e)
{
        _cleanup_close_ int fd = -1;
        struct stat d;
        int r = check_dir(dir, &d, e);

        if (r < 0)
                return r;
        if ((size_t)snprintf(ret_path, size, "%s/%s", dir, name) >= size)
                return errbuf_set(e, ENAMETOOLONG, dir, "state directory path too long");
        fd = open(ret_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0 && errno == ELOOP)
                return errbuf_set(e, ELOOP, ret_path, "is a symbolic link; refusing to follow it");
        if (fd < 0)
                return errbuf_set(e, errno, ret_path, "cannot open: %s", strerror(errno));
        r = check_file(fd, &d, ret_path, e);
        if (r < 0)
                return r;
        return TAKE_FD(fd);
}
