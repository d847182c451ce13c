/* SPDX-License-Identifier: MIT */
/*
 * Commit-confirm without a daemon: `apply --confirm-timeout S` leaves a detached
 * child (own session, no inherited descriptors) that re-executes the agent as
 * `confirm-watchdog TX`; at the deadline it takes the transaction lock and
 * restores the snapshot unless the transaction was confirmed. It is started before
 * the pending state is journaled: until then it waits for the applying process
 * (which holds the lock) and, should that one die first, recovers what it left.
 */
#include <fcntl.h>
#include <sys/wait.h>

#include "agent/txn/txn_internal.h"

static void exec_watchdog(const struct txn_env *env, int64_t tx)
{
        char id[32];
        char *argv[6];
        int n = 0, fd;

        setsid();
        fd = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (fd >= 0) {
                dup2(fd, 0);
                dup2(fd, 1);
                dup2(fd, 2);
        }
        close_range(3, ~0u, 0);
        snprintf(id, sizeof(id), "%lld", (long long)tx);
        argv[n++] = (char *)"nettune-agent";
        if (env->config->path[0]) {
                argv[n++] = (char *)"--config";
                argv[n++] = (char *)env->config->path;
        }
        argv[n++] = (char *)"confirm-watchdog";
        argv[n++] = id;
        argv[n] = NULL;
        execv("/proc/self/exe", argv);
        _exit(127);
}

int txn_spawn_watchdog(struct txn_env *env, int64_t tx, struct errbuf *e)
{
        int status;
        pid_t pid;

        fflush(NULL);
        pid = fork();
        if (pid < 0)
                return errbuf_set(e, errno, NULL, "cannot start the confirm watchdog: %s", strerror(errno));
        if (pid == 0) {
                /* Double fork: the watchdog is nobody's child once we exit. */
                if (fork() == 0)
                        exec_watchdog(env, tx);
                _exit(0);
        }
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        return 0;
}
