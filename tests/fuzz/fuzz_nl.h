/* SPDX-License-Identifier: MIT */
/*
 * Shared by the netlink reply harnesses: each defines fuzz_nl_cb() (run on every reply
 * message) and fuzz_nl_done() (after the buffer), and includes this file, which runs
 * the input as one datagram of replies through the helper's reply path (nl_process)
 * with a handle that has no transport.
 */
#pragma once

#include <stdint.h>

#include "drivers/host/nl.h"

static int fuzz_nl_cb(const struct nlmsghdr *nlh, void *data);
static void fuzz_nl_start(void);
static void fuzz_nl_done(void);
static void *fuzz_nl_data;

static int null_open(void *userdata, int protocol, void **ret_ctx)
{
        *ret_ctx = NULL;
        return 0;
}

static const struct nl_transport_ops null_ops = { .name = "fuzz", .open = null_open };
static const struct nl_transport null_transport = { .ops = &null_ops };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        static _Alignas(8) unsigned char buf[NL_RECV_MAX];
        static struct nl *nl;
        struct errbuf e;

        if (!nl && nl_open(&null_transport, NETLINK_ROUTE, &nl, &e) < 0)
                return 0;
        if (size > sizeof(buf))
                size = sizeof(buf);
        memcpy(buf, data, size);
        fuzz_nl_start();
        (void)nl_process(nl, buf, size, 0, fuzz_nl_cb, fuzz_nl_data);
        (void)nl_last_extack(nl);
        fuzz_nl_done();
        return 0;
}
