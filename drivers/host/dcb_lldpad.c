/* SPDX-License-Identifier: MIT */
/* Detect a running lldpad by scanning /proc/<pid>/comm. */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>

#include "common/util.h"
#include "drivers/host/dcb_lldpad.h"

static bool comm_is_lldpad(int dirfd, const char *pid)
{
        char path[64], buf[32] = { 0 };
        ssize_t n;
        int fd;

        if (snprintf(path, sizeof(path), "%s/comm", pid) >= (int)sizeof(path))
                return false;
        fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return false;
        n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
                return false;
        buf[strcspn(buf, "\n")] = '\0';
        return streq(buf, "lldpad");
}

static bool all_digits(const char *s)
{
        if (!*s)
                return false;
        for (; *s; s++)
                if (!isdigit((unsigned char)*s))
                        return false;
        return true;
}

int dcb_lldpad_find(const char *proc_root, pid_t *ret_pid)
{
        struct dirent *de;
        int found = 0;
        DIR *d;

        d = opendir(proc_root);
        if (!d)
                return -errno;
        while ((de = readdir(d))) {
                if (!all_digits(de->d_name) || !comm_is_lldpad(dirfd(d), de->d_name))
                        continue;
                *ret_pid = (pid_t)strtol(de->d_name, NULL, 10);
                found = 1;
                break;
        }
        closedir(d);
        return found;
}
