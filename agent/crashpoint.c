/* SPDX-License-Identifier: MIT */
#include <signal.h>
#include <stdlib.h>

#include "crashpoint.h"
#include "util.h"

void crashpoint(const char *step)
{
        const char *at = getenv("NETTUNE_CRASH_AT");

        if (at && streq(at, step))
                raise(SIGKILL);
}
