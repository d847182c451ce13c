/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <sys/stat.h>

#include "statedir.h"

/* Root created fd in dir: give it to dir's owner (a no-op when that is root). */
static int follow_owner(int fd, const char *dir, const char *path, struct errbuf *e)
{
        struct stat d, f;

        if (geteuid() != 0)
                return 0;
        if (stat(dir, &d) < 0 || fstat(fd, &f) < 0)
                return errbuf_set(e, errno, path, "cannot stat: %s", strerror(errno));
        if ((f.st_uid == d.st_uid && f.st_gid == d.st_gid) || d.st_uid == 0)
                return 0;
        if (fchown(fd, d.st_uid, d.st_gid) < 0)
                return errbuf_set(e, errno, path, "cannot hand to the owner of '%s': %s", dir, strerror(errno));
        return 0;
}

int statedir_open(const char *dir, const char *name, char *ret_path, size_t size, struct errbuf *e)
{
        _cleanup_close_ int fd = -1;
        int r;

        if (mkdir(dir, 0700) < 0 && errno != EEXIST)
                return errbuf_set(e, errno, dir, "cannot create state directory: %s", strerror(errno));
        if ((size_t)snprintf(ret_path, size, "%s/%s", dir, name) >= size)
                return errbuf_set(e, ENAMETOOLONG, dir, "state directory path too long");
        fd = open(ret_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return errbuf_set(e, errno, ret_path, "cannot open: %s", strerror(errno));
        r = follow_owner(fd, dir, ret_path, e);
        if (r < 0)
                return r;
        return TAKE_FD(fd);
}
