/* SPDX-License-Identifier: MIT */
/* A bounded run of a read-only helper program (see subproc.h). */
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>

#include "common/clock.h"
#include "common/subproc.h"
#include "common/util.h"

extern char **environ;

static int spawn(const char *const argv[], int out_fd, pid_t *ret)
{
        posix_spawn_file_actions_t fa;
        int r;

        if (posix_spawn_file_actions_init(&fa))
                return -ENOMEM;
        r = posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        if (!r)
                r = posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
        if (!r)
                r = posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
        if (!r)
                r = posix_spawnp(ret, argv[0], &fa, NULL, (char *const *)argv, environ);
        posix_spawn_file_actions_destroy(&fa);
        return -r;
}

/* Read until EOF or the deadline; keep at most max bytes. */
static int drain(int fd, long long deadline, size_t max, char *buf, size_t *len)
{
        for (;;) {
                struct pollfd p = { .fd = fd, .events = POLLIN };
                long long left = deadline - clock_mono_ms();
                char chunk[4096];
                ssize_t n;
                int k;

                if (left <= 0)
                        return -ETIMEDOUT;
                k = poll(&p, 1, (int)(left > 1000 ? 1000 : left));
                if (k < 0 && errno != EINTR)
                        return -errno;
                if (k <= 0)
                        continue;
                n = read(fd, chunk, sizeof(chunk));
                if (n < 0 && errno != EINTR && errno != EAGAIN)
                        return -errno;
                if (n == 0)
                        return 0;
                if (n > 0 && *len < max) {
                        size_t take = (size_t)n < max - *len ? (size_t)n : max - *len;

                        memcpy(buf + *len, chunk, take);
                        *len += take;
                }
        }
}

int subproc_run(const char *const argv[], unsigned timeout_ms, size_t max_out, char **ret_out, int *ret_status)
{
        long long deadline = clock_mono_ms() + timeout_ms;
        _cleanup_free_ char *buf = malloc(max_out + 1);
        size_t len = 0;
        int fds[2], status = 0, r;
        pid_t pid;

        if (!buf)
                return -ENOMEM;
        if (pipe2(fds, O_CLOEXEC) < 0)
                return -errno;
        r = spawn(argv, fds[1], &pid);
        close(fds[1]);
        if (r < 0) {
                close(fds[0]);
                return r;
        }
        r = drain(fds[0], deadline, max_out, buf, &len);
        close(fds[0]);
        while (r >= 0 && waitpid(pid, &status, WNOHANG) == 0) {        /* stdout closed, not exited yet */
                if (clock_mono_ms() >= deadline) {
                        r = -ETIMEDOUT;
                        break;
                }
                nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
        }
        if (r < 0) {
                kill(pid, SIGKILL);
                while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                        ;
        }
        if (r < 0)
                return r;
        if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
                return -ENOENT;         /* posix_spawnp: exec failed in the child */
        buf[len] = '\0';
        *ret_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        *ret_out = TAKE_PTR(buf);
        return 0;
}
