/* SPDX-License-Identifier: MIT */
/* Test data files read whole (vendor samples, captured outputs). */
#pragma once

#include <stddef.h>

/* The file as a NUL-terminated string (at most max - 1 bytes); NULL when it cannot be read. Caller frees. */
char *test_slurp(const char *path, size_t max);
