/* SPDX-License-Identifier: MIT */
/*
 * Run a program and read what it prints, bounded: at most timeout_ms of wall time
 * (then it is killed, SIGKILL, and reaped: -ETIMEDOUT) and max_out bytes of stdout
 * (more is read and dropped). stdin is /dev/null, stderr is discarded. No shell:
 * argv[0] is looked up in PATH. For read-only helpers the agent asks (lldpcli,
 * lldptool), never for anything that changes the node.
 */
#pragma once

#include <stddef.h>

/*
 * 0 with *ret_out (NUL-terminated, caller frees) and *ret_status (the exit status,
 * 128 + signal when killed by one) once the program ran; -ENOENT when it is not
 * installed, -ETIMEDOUT, or -errno.
 */
int subproc_run(const char *const argv[], unsigned timeout_ms, size_t max_out, char **ret_out, int *ret_status);
