/* SPDX-License-Identifier: MIT */
/*
 * Netlink messages from the trace files in tests/data/dcb/ and tests/data/tc/ (strace hex dumps
 * " | 00000  1c 00 ..." and the shim's ">>> request" / "<<< reply" blocks).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#define NLTRACE_MSGS_MAX 16
#define NLTRACE_BYTES_MAX 4096

struct nltrace_msg {
        bool request;                   /* sent by the tool (else: a reply) */
        size_t len;
        unsigned char buf[NLTRACE_BYTES_MAX];
};

struct nltrace {
        unsigned n;
        struct nltrace_msg m[NLTRACE_MSGS_MAX];
};

/* Load NETTUNE_TOP/tests/data/dcb/NAME, or tests/data/DIR/NAME for "DIR/NAME" (or relative
 * to the cwd). -errno on failure. */
int nltrace_load(const char *name, struct nltrace *ret);

/* The i-th request / reply (0-based), NULL if there is none. */
const struct nltrace_msg *nltrace_request(const struct nltrace *t, unsigned i);
const struct nltrace_msg *nltrace_reply(const struct nltrace *t, unsigned i);

/* Equal except nlmsg_seq/nlmsg_pid (bytes 8-15 of every header in the buffer). */
bool nltrace_equal_masked(const void *a, size_t alen, const void *b, size_t blen);
