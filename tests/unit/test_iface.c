/* SPDX-License-Identifier: MIT */
/* Interface discovery, target resolution and field routing (the plan) over the device model. */
#include <CUnit/CUnit.h>

#include "dcb_model.h"
#include "iface.h"
#include "plan.h"

static void test_globs(void)
{
        const char globs[][64] = { "ens1f0np0", "ens2*" };

        CU_ASSERT(iface_match("ens1f0np0", globs, 2));
        CU_ASSERT(iface_match("ens2f1np1", globs, 2));
        CU_ASSERT_FALSE(iface_match("ens3f0", globs, 2));
        CU_ASSERT_FALSE(iface_match("ens1f0np01", globs, 2));
}

/* A glob never selects loopback or a virtual device; the exact name does. veth, vlan and bonds stay matchable. */
static void test_virtual(void)
{
        struct iface lo = { .name = "lo", .flags = IFF_LOOPBACK }, br = { .name = "br0", .kind = "bridge" },
                     dummy = { .name = "dummy0", .kind = "dummy" }, tap = { .name = "tap0", .kind = "tun" },
                     veth = { .name = "veth0", .kind = "veth" }, vlan = { .name = "ens1.100", .kind = "vlan" },
                     bond = { .name = "bond0", .kind = "bond" }, nic = { .name = "ens1f0np0" };

        CU_ASSERT_TRUE(iface_is_virtual(&lo) && iface_is_virtual(&br) && iface_is_virtual(&dummy) &&
                       iface_is_virtual(&tap));
        CU_ASSERT_FALSE(iface_is_virtual(&veth) || iface_is_virtual(&vlan) || iface_is_virtual(&bond) ||
                        iface_is_virtual(&nic));
        CU_ASSERT_FALSE(iface_selects("*", &lo));
        CU_ASSERT_FALSE(iface_selects("l?", &lo));
        CU_ASSERT_FALSE(iface_selects("[l]o", &lo));
        CU_ASSERT_TRUE(iface_selects("lo", &lo));
        CU_ASSERT_FALSE(iface_selects("*", &br));
        CU_ASSERT_FALSE(iface_selects("dummy*", &dummy));
        CU_ASSERT_TRUE(iface_selects("dummy0", &dummy));
        CU_ASSERT_TRUE(iface_selects("*", &veth));
        CU_ASSERT_TRUE(iface_selects("ens1.*", &vlan));
        CU_ASSERT_TRUE(iface_selects("bond*", &bond));
        CU_ASSERT_TRUE(iface_selects("ens*", &nic));
}

static uint32_t routed(const struct plan_target *pt)
{
        uint32_t f = 0;

        for (unsigned r = 0; r < pt->n_routes; r++)
                f |= pt->routes[r].fields;
        return f;
}

/* Discovery, routing and reading through the plan, over the device model's interfaces. */
static void test_targets_and_caps(void)
{
        static const char doc[] =
                "{\"apiVersion\":\"nettune/v1\",\"kind\":\"Policy\",\"metadata\":{\"name\":\"t\"},"
                "\"targets\":{\"interfaces\":[\"ntqveth0\"]},\"spec\":{\"mtu\":9000,\"trust\":\"dscp\","
                "\"dscp_to_priority\":{\"26\":3},\"pfc\":{\"priorities\":[3]}}}";
        struct dcb_model m;
        struct agent_config c;
        struct plan_env env = { .config = &c };
        struct plan p;
        struct policy *pol = NULL;
        const char globs[][64] = { "ntq*" };
        const char none[][64] = { "zzz*" };
        struct errbuf e;
        uint32_t caps;

        dcb_model_init(&m);
        dcb_model_add_mlx5(&m, "ntqmlx0", 7);
        dcb_model_add_plain(&m, "ntqveth0", 5);
        memset(&c, 0, sizeof(c));
        snprintf(c.env.sysfs_root, sizeof(c.env.sysfs_root), "/nonexistent");
        c.env.nl = dcb_model_transport(&m);
        plan_init(&p, &env);
        CU_ASSERT_FATAL(plan_for_globs(&p, globs, 1, NULL, 0, true, &e) == 0);
        CU_ASSERT_EQUAL_FATAL(p.n, 2);
        CU_ASSERT_STRING_EQUAL(p.v[0].t.name, "ntqveth0");             /* sorted by ifindex */
        CU_ASSERT_EQUAL(p.v[1].t.ifindex, 7);
        caps = routed(&p.v[1]);
        CU_ASSERT_EQUAL(caps, STATE_BIT(STATE_FIELD_MTU) | STATE_BIT(STATE_FIELD_TRUST) |
                              STATE_BIT(STATE_FIELD_DSCP_MAP) | STATE_BIT(STATE_FIELD_PFC) |
                              STATE_BIT(STATE_FIELD_ETS));
        CU_ASSERT_EQUAL(routed(&p.v[0]), STATE_BIT(STATE_FIELD_MTU));  /* ecn is not an interface field */
        CU_ASSERT(plan_read(&p, &e) == 0);
        CU_ASSERT_EQUAL(p.v[0].live[0].present, STATE_BIT(STATE_FIELD_MTU));     /* the rest: absent */
        CU_ASSERT_EQUAL(p.v[1].live[0].present, caps);
        CU_ASSERT_EQUAL(p.n_changes, 0);                                /* nothing desired */
        plan_free(&p);

        CU_ASSERT_FATAL(policy_parse_buffer(doc, strlen(doc), "t", &pol, &e) == 0);
        plan_init(&p, &env);
        CU_ASSERT_EQUAL(plan_for_policy(&p, pol, 0, &e), -EOPNOTSUPP);
        CU_ASSERT_STRING_EQUAL(e.msg, "interface 'ntqveth0' (driver unknown) does not support DCB "
                                      "(needed for trust, dscp_to_priority, pfc); nothing was changed");
        plan_free(&p);
        policy_free(pol);

        plan_init(&p, &env);
        CU_ASSERT_EQUAL(plan_for_globs(&p, none, 1, NULL, 0, true, &e), -ENOENT);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "no interface matches 'zzz*'"));
        plan_free(&p);
        dcb_model_done(&m);
}

int suite_iface(void);
int suite_iface(void)
{
        CU_pSuite s = CU_add_suite("iface", NULL, NULL);

        if (!s || !CU_add_test(s, "globs", test_globs) || !CU_add_test(s, "virtual", test_virtual) ||
            !CU_add_test(s, "targets_and_caps", test_targets_and_caps))
                return -1;
        return 0;
}
