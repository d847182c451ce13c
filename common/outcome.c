/* SPDX-License-Identifier: MIT */
/* The one mapping from errno to outcome, and from both to HTTP statuses. */
#include <errno.h>

#include "common/outcome.h"

enum outcome outcome_of_errno(int r)
{
        if (r >= 0)
                return OUTCOME_OK;
        switch (-r) {
        case EINVAL:
        case ENOENT:
        case EOPNOTSUPP:
        case ERANGE:
        case E2BIG:
        case ENAMETOOLONG:
        case EEXIST:
        case ENOTEMPTY:
        case EPERM:
        case ENODEV:
                return OUTCOME_INVALID;
        default:
                return OUTCOME_RUNTIME;
        }
}

int outcome_http_status(int r)
{
        if (r >= 0)
                return 200;
        if (r == -EBUSY)
                return 409;
        if (r == -EAGAIN)
                return 503;
        return outcome_of_errno(r) == OUTCOME_INVALID ? 400 : 500;
}

enum outcome outcome_of_http_status(int status)
{
        if (status >= 200 && status < 300)
                return OUTCOME_OK;
        if (status >= 400 && status < 500)
                return OUTCOME_INVALID;
        return OUTCOME_RUNTIME;
}

const char *outcome_name(enum outcome o)
{
        static const char *const names[OUTCOME_MAX] = {
                [OUTCOME_OK] = "ok", [OUTCOME_ROLLED_BACK] = "rolled_back", [OUTCOME_INVALID] = "invalid",
                [OUTCOME_RUNTIME] = "runtime", [OUTCOME_PENDING] = "pending",
        };

        return o < OUTCOME_MAX ? names[o] : "runtime";
}
