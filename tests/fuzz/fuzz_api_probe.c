/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the agent's POST /v1/probe body (drivers/probe/probe_request.c):
 * any input must be accepted or refused cleanly with a message; a refusal leaves
 * *ret untouched; an accepted request is within the documented ranges.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "drivers/probe/probe_request.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct probe_request r, guard;
        struct errbuf e = { 0 };

        memset(&r, 0x5a, sizeof(r));
        memcpy(&guard, &r, sizeof(r));
        if (probe_request_parse((const char *)data, size, &r, &e) < 0) {
                if (memcmp(&r, &guard, sizeof(r)) != 0 || !e.msg[0])
                        abort();
                return 0;
        }
        if (!r.params.peer[0] || strnlen(r.params.peer, sizeof(r.params.peer)) >= sizeof(r.params.peer) ||
            r.mode >= PROBE_MODE_MAX || r.runs < 1 || r.runs > PROBE_RUNS_MAX ||
            r.params.duration_ms < PROBE_REQUEST_DURATION_MIN_MS ||
            r.params.duration_ms > PROBE_REQUEST_DURATION_MAX_MS)
                abort();
        return 0;
}
