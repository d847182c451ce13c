/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: arbitrary bytes as a buffer of netlink replies, run through the
 * helper's ack/extack handling and every reply parser (dcbnl IEEE GET, SET
 * results, DCBX, rtnetlink links) and the APP-table reading built on them.
 */
#include "dcb_app.h"
#include "dcb_nl.h"
#include "fuzz_nl.h"
#include "link_rtnl.h"

static int fuzz_nl_cb(const struct nlmsghdr *nlh, void *data)
{
        struct dcb_nl_ieee *ieee = data;
        struct link_info l;
        struct state s;
        int result;

        if (dcb_nl_parse_ieee(nlh, ieee) == 0) {
                dcb_app_read(ieee, &s);
                if (ieee->n_apps > DCB_NL_APPS_MAX || ieee->n_trust > DCB_NL_TRUST_MAX)
                        __builtin_trap();
        }
        (void)dcb_nl_parse_set_reply(nlh, DCB_CMD_IEEE_SET, &result);
        (void)dcb_nl_parse_set_reply(nlh, DCB_CMD_IEEE_DEL, &result);
        (void)dcb_nl_parse_set_reply(nlh, DCB_CMD_SDCBX, &result);
        if (link_rtnl_parse(nlh, &l) == 0 && strnlen(l.name, sizeof(l.name)) >= sizeof(l.name))
                __builtin_trap();
        return MNL_CB_OK;
}

static struct dcb_nl_ieee ieee;

static void fuzz_nl_start(void)
{
        fuzz_nl_data = &ieee;
}

static void fuzz_nl_done(void)
{
}
