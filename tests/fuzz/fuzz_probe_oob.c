/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the probe control-message decoder (outside input: any
 * peer can connect to probe-server). A decoded message must re-encode to the
 * same bytes, and the stream reader's header check must agree with decode.
 */
#include <stddef.h>
#include <stdint.h>

#include "probe_oob.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct probe_oob_msg m;
        struct errbuf e = { .msg = "" };
        uint8_t buf[PROBE_OOB_MSG_MAX];
        size_t body;
        int n;

        if (probe_oob_decode(data, size, &m, &e) < 0)
                return 0;
        if (probe_oob_header(data, &body, &e) < 0 || body + PROBE_OOB_HEADER_SIZE != size)
                __builtin_trap();
        n = probe_oob_encode(&m, buf, sizeof(buf), &e);
        if (n < 0 || (size_t)n != size || memcmp(buf, data, size) != 0)
                __builtin_trap();
        return 0;
}
