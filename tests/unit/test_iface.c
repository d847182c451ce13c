/* SPDX-License-Identifier: MIT */
/* Interface discovery and target resolution/caps over the device model. */
#include <CUnit/CUnit.h>

#include "dcb_model.h"
#include "iface.h"
#include "targets.h"

static void test_globs(void)
{
        const char globs[][64] = { "ens1f0np0", "ens2*" };

        CU_ASSERT(iface_match("ens1f0np0", globs, 2));
        CU_ASSERT(iface_match("ens2f1np1", globs, 2));
        CU_ASSERT_FALSE(iface_match("ens3f0", globs, 2));
        CU_ASSERT_FALSE(iface_match("ens1f0np01", globs, 2));
}

static void test_targets_and_caps(void)
{
        struct dcb_model m;
        struct agent_config c;
        struct target_list l = { 0 };
        const char globs[][64] = { "ntq*" };
        const char none[][64] = { "zzz*" };
        struct errbuf e;
        struct state s;
        uint32_t caps = 0;

        dcb_model_init(&m);
        dcb_model_add_mlx5(&m, "ntqmlx0", 7);
        dcb_model_add_plain(&m, "ntqveth0", 5);
        memset(&c, 0, sizeof(c));
        snprintf(c.env.sysfs_root, sizeof(c.env.sysfs_root), "/nonexistent");
        c.env.nl = dcb_model_transport(&m);
        CU_ASSERT_FATAL(targets_for_interfaces(&c, globs, 1, &l, &e) == 0);
        CU_ASSERT_EQUAL_FATAL(l.n, 2);
        CU_ASSERT_STRING_EQUAL(l.v[0].name, "ntqveth0");                /* sorted by ifindex */
        CU_ASSERT_EQUAL(l.v[1].ifindex, 7);
        CU_ASSERT(targets_caps(&l.v[1], STATE_ALL_FIELDS, &caps, &e) == 0);
        CU_ASSERT_EQUAL(caps, STATE_BIT(STATE_FIELD_MTU) | STATE_BIT(STATE_FIELD_TRUST) |
                              STATE_BIT(STATE_FIELD_DSCP_MAP) | STATE_BIT(STATE_FIELD_PFC) |
                              STATE_BIT(STATE_FIELD_ETS));
        CU_ASSERT(targets_check_caps(&l.v[1], STATE_BIT(STATE_FIELD_PFC), &e) == 0);
        snprintf(l.v[0].kernel_driver, sizeof(l.v[0].kernel_driver), "veth");
        CU_ASSERT_EQUAL(targets_check_caps(&l.v[0], STATE_BIT(STATE_FIELD_MTU) | STATE_BIT(STATE_FIELD_PFC) |
                                                    STATE_BIT(STATE_FIELD_TRUST), &e), -EOPNOTSUPP);
        CU_ASSERT_STRING_EQUAL(e.msg, "interface 'ntqveth0' (driver veth) does not support DCB "
                                      "(needed for trust, pfc); nothing was changed");
        state_init(&s);
        CU_ASSERT(targets_read_state(&l.v[0], STATE_ALL_FIELDS, &s, &e) == 0);
        CU_ASSERT_EQUAL(s.present, STATE_BIT(STATE_FIELD_MTU));            /* the rest: absent */
        state_init(&s);
        CU_ASSERT(targets_read_state(&l.v[1], STATE_ALL_FIELDS, &s, &e) == 0);
        CU_ASSERT_EQUAL(s.present, caps);
        CU_ASSERT_EQUAL(targets_wanted(&c.env, TARGET_INTERFACE, STATE_ALL_FIELDS) & STATE_BIT(STATE_FIELD_ECN), 0);
        c.env.switch_role = true;       /* an agent on a Linux switch: its ports' queues */
        CU_ASSERT_EQUAL(targets_wanted(&c.env, TARGET_INTERFACE, STATE_ALL_FIELDS), STATE_ALL_FIELDS);
        CU_ASSERT_EQUAL(targets_wanted(&c.env, TARGET_SWITCH, STATE_ALL_FIELDS),
                        STATE_ALL_FIELDS & ~STATE_BIT(STATE_FIELD_HOST_ECN));
        targets_free(&l);
        CU_ASSERT_EQUAL(targets_for_interfaces(&c, none, 1, &l, &e), -ENOENT);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "no interface matches 'zzz*'"));
        dcb_model_done(&m);
}

int suite_iface(void);
int suite_iface(void)
{
        CU_pSuite s = CU_add_suite("iface", NULL, NULL);

        if (!s || !CU_add_test(s, "globs", test_globs) ||
            !CU_add_test(s, "targets_and_caps", test_targets_and_caps))
                return -1;
        return 0;
}
