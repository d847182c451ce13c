/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: arbitrary bytes as a buffer of netlink replies, run through the
 * helper's ack/extack handling and every reply parser (dcbnl IEEE GET, SET
 * results, DCBX, rtnetlink links) and the APP-table reading built on them.
 */
#include "drivers/host/dcb_app.h"
#include "drivers/host/dcb_nl.h"
#include "drivers/host/link.h"
#include "tests/fuzz/fuzz_nl.h"

static int fuzz_nl_cb(const struct nlmsghdr *nlh, void *data)
{
        struct dcb_nl_ieee *ieee = data;
        struct link_info l;
        struct state s;
        int result;

        if (dcb_nl_parse_ieee(nlh, ieee) == 0) {
                static const char *const kdrv[] = { "mlx5_core", "ice", "bnxt_en", "other" };
                static struct dcb_app_step steps[DCB_APP_STEPS_MAX];
                uint8_t map[STATE_DSCP_COUNT];

                state_init(&s);
                dcb_app_read(ieee, dcb_quirks_for(kdrv[ieee->n_apps % 4]), &s);
                if (ieee->n_apps > DCB_NL_APPS_MAX || ieee->n_trust > DCB_NL_TRUST_MAX ||
                    s.dcb.n_apps > STATE_DCB_APPS_MAX || s.trust >= STATE_TRUST_MAX)
                        __builtin_trap();
                /* plan the way back to the table just read: nothing to do */
                for (unsigned i = 0; i < STATE_DSCP_COUNT; i++)
                        map[i] = STATE_DSCP_UNMAPPED;
                for (unsigned i = s.dcb.n_apps; i-- > 0;)
                        map[s.dcb.apps[i].dscp] = s.dcb.apps[i].prio;
                if (dcb_app_plan(ieee, map, dcb_quirks_for("mlx5_core"), steps, DCB_APP_STEPS_MAX) >
                    DCB_APP_STEPS_MAX)
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
