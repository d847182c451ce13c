/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>

#include "tests/lib/testfile.h"

char *test_slurp(const char *path, size_t max)
{
        FILE *f = fopen(path, "re");
        char *buf = calloc(1, max);
        size_t n;

        if (!f || !buf) {
                if (f)
                        fclose(f);
                free(buf);
                return NULL;
        }
        n = fread(buf, 1, max - 1, f);
        buf[n] = '\0';
        fclose(f);
        return buf;
}
