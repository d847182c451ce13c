/* SPDX-License-Identifier: MIT */
/* Small sysfs attribute files (see sysfs.h). */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>

#include "common/util.h"
#include "drivers/host/sysfs.h"

int sysfs_read_line(const char *path, char *buf, size_t size)
{
        _cleanup_close_ int fd = -1;
        ssize_t n;

        if (size == 0)
                return -EINVAL;
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        n = read(fd, buf, size - 1);
        if (n < 0)
                return -errno;
        buf[n] = '\0';
        buf[strcspn(buf, "\n")] = '\0';
        return 0;
}

int sysfs_read_u64(const char *path, uint64_t *ret)
{
        char buf[32], *end;
        unsigned long long v;
        int r = sysfs_read_line(path, buf, sizeof(buf));

        if (r < 0)
                return r;
        if (!isdigit((unsigned char)buf[0]))
                return -EBADMSG;
        errno = 0;
        v = strtoull(buf, &end, 10);
        if (errno || *end)
                return -EBADMSG;
        *ret = v;
        return 0;
}

int sysfs_read_uint(const char *path, unsigned *ret)
{
        uint64_t v;
        int r = sysfs_read_u64(path, &v);

        if (r < 0)
                return r;
        if (v > UINT_MAX)
                return -EBADMSG;
        *ret = (unsigned)v;
        return 0;
}

int sysfs_write_line(const char *path, const char *text)
{
        size_t n = strlen(text);
        int fd, r = 0;

        fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        errno = 0;
        if (write(fd, text, n) != (ssize_t)n)
                r = errno ? -errno : -EIO;
        if (close(fd) < 0 && r == 0)
                r = -errno;
        return r;
}

int sysfs_write_uint(const char *path, unsigned v)
{
        char buf[16];

        snprintf(buf, sizeof(buf), "%u\n", v);
        return sysfs_write_line(path, buf);
}

static void ports_of(const char *sysfs_root, const char *dev,
                     void (*fn)(const char *dev, const char *port, void *data), void *data)
{
        char dir[PATH_MAX];
        struct dirent *de;
        DIR *d;

        snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports", sysfs_root, dev);
        d = opendir(dir);
        if (!d)
                return;
        while ((de = readdir(d)))
                if (de->d_name[0] != '.')
                        fn(dev, de->d_name, data);
        closedir(d);
}

void sysfs_rdma_ports(const char *sysfs_root, const char *ifname,
                      void (*fn)(const char *dev, const char *port, void *data), void *data)
{
        char dir[PATH_MAX];
        struct dirent *de;
        DIR *d;

        snprintf(dir, sizeof(dir), "%s/class/net/%s/device/infiniband", sysfs_root, ifname);
        d = opendir(dir);
        if (!d)
                return;
        while ((de = readdir(d)))
                if (de->d_name[0] != '.')
                        ports_of(sysfs_root, de->d_name, fn, data);
        closedir(d);
}
