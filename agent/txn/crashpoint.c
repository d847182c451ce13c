/* SPDX-License-Identifier: MIT */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/txn/txn_internal.h"
#include "common/util.h"

bool crashpoint_armed(const char *step)
{
        const char *at = getenv("NETTUNE_CRASH_AT");

        return at && streq(at, step);
}

void crashpoint(const char *step)
{
        if (crashpoint_armed(step))
                raise(SIGKILL);
}

void crashpoint_after_apply(void)
{
        const char *cmd = getenv("NETTUNE_TEST_HOOK_AFTER_APPLY");
        pid_t pid;
        int status;

        if (!cmd || !cmd[0])
                return;
        pid = fork();
        if (pid == 0) {
                execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
                _exit(127);
        }
        if (pid > 0)
                while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                        ;
}
