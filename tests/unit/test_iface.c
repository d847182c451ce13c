/* SPDX-License-Identifier: MIT */
/* Interface discovery, target resolution and field routing (the plan) over the device model. */
#include <CUnit/CUnit.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "agent/plan/plan.h"
#include "drivers/host/iface.h"
#include "drivers/host/qdisc_ets.h"
#include "tests/nicmodel/nm_transport.h"

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
        static struct nm m;
        static struct nm_transport x;
        struct agent_config c;
        struct plan_env env = { .config = &c };
        struct plan p;
        struct policy *pol = NULL;
        const char globs[][64] = { "ntq*" };
        const char none[][64] = { "zzz*" };
        struct errbuf e;
        uint32_t caps;

        nm_init(&m);
        CU_ASSERT_FATAL(nm_add(&m, "mlx5:ntqmlx0:7") == 0 && nm_add(&m, "veth:ntqveth0:5") == 0);
        nm_transport_init(&x, &m);
        memset(&c, 0, sizeof(c));
        snprintf(c.env.sysfs_root, sizeof(c.env.sysfs_root), "/nonexistent");
        c.env.nl = nm_transport_get(&x);
        plan_init(&p, &env);
        CU_ASSERT_FATAL(plan_for_globs(&p, globs, 1, NULL, 0, true, &e) == 0);
        CU_ASSERT_EQUAL_FATAL(p.n, 2);
        CU_ASSERT_STRING_EQUAL(p.v[0].t.name, "ntqveth0");             /* sorted by ifindex */
        CU_ASSERT_EQUAL(p.v[1].t.ifindex, 7);
        caps = routed(&p.v[1]);
        /* no sysfs here: the kernel driver is unknown, so the buffers but not a cable length (its unit is the driver's) */
        CU_ASSERT_EQUAL(caps, STATE_BIT(STATE_FIELD_MTU) | STATE_BIT(STATE_FIELD_TRUST) |
                              STATE_BIT(STATE_FIELD_DSCP_MAP) | STATE_BIT(STATE_FIELD_PFC) |
                              STATE_BIT(STATE_FIELD_ETS) | STATE_BIT(STATE_FIELD_BUFFERS));
        CU_ASSERT_EQUAL(routed(&p.v[0]), STATE_BIT(STATE_FIELD_MTU));  /* ecn is not an interface field */
        CU_ASSERT(plan_read(&p, &e) == 0);
        CU_ASSERT_EQUAL(p.v[0].live[0].present, STATE_BIT(STATE_FIELD_MTU));     /* the rest: absent */
        CU_ASSERT_EQUAL(p.v[1].live[0].present, caps);
        CU_ASSERT_EQUAL(p.n_changes, 0);                                /* nothing desired */
        CU_ASSERT_EQUAL(plan_fields_of(&p.v[0].t) & STATE_BIT(STATE_FIELD_ECN), 0);
        CU_ASSERT_EQUAL(plan_fields_of(&p.v[0].t) & STATE_BIT(STATE_FIELD_HOST_ECN),
                        STATE_BIT(STATE_FIELD_HOST_ECN));
        c.env.switch_role = true;       /* an agent on a Linux switch: its ports' queues too */
        CU_ASSERT_EQUAL(plan_fields_of(&p.v[0].t), STATE_ALL_FIELDS);
        c.env.switch_role = false;
        plan_free(&p);

        CU_ASSERT_FATAL(policy_parse_buffer(doc, strlen(doc), "t", &pol, &e) == 0);
        plan_init(&p, &env);
        CU_ASSERT_EQUAL(plan_for_policy(&p, pol, 0, &e), -EOPNOTSUPP);
        CU_ASSERT_STRING_EQUAL(e.msg, "interface 'ntqveth0' (driver veth) does not support DCB "
                                      "(needed for trust, dscp_to_priority, pfc); nothing was changed");
        plan_free(&p);
        policy_free(pol);

        plan_init(&p, &env);
        CU_ASSERT_EQUAL(plan_for_globs(&p, none, 1, NULL, 0, true, &e), -ENOENT);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "no interface matches 'zzz*'"));
        plan_free(&p);
        nm_transport_done(&x);
        nm_done(&m);
}

static const struct plan_route *route_of(const struct plan_target *pt, const char *driver)
{
        for (unsigned r = 0; r < pt->n_routes; r++)
                if (streq(pt->routes[r].ops->name, driver))
                        return &pt->routes[r];
        return NULL;
}

/* A switch-role agent: ets/ecn of ports through tc qdiscs where the kernel has them (a tree
 * says so), never ets through DCB and ecn through a tc ets qdisc on one port (mlxsw). */
static void test_switch_role_routing(void)
{
        static const char doc[] =
                "{\"apiVersion\":\"nettune/v1\",\"kind\":\"Policy\",\"metadata\":{\"name\":\"t\"},"
                "\"targets\":{\"interfaces\":[\"ntq*\"]},\"spec\":{\"ets\":{\"priority_to_tc\":[0,1,2,3,4,5,6,7],"
                "\"tc_bandwidth_pct\":[50,0,0,50,0,0,0,0],\"tc_tsa\":[\"ets\",\"strict\",\"strict\",\"ets\","
                "\"strict\",\"strict\",\"strict\",\"strict\"]},\"ecn\":{\"queues\":[3],"
                "\"min_threshold_bytes\":150000,\"max_threshold_bytes\":1500000,\"mark_probability_pct\":100}}}";
        static const char ecn_doc[] =
                "{\"apiVersion\":\"nettune/v1\",\"kind\":\"Policy\",\"metadata\":{\"name\":\"t\"},"
                "\"targets\":{\"interfaces\":[\"ntqveth0\"]},\"spec\":{\"ecn\":{\"queues\":[3],"
                "\"min_threshold_bytes\":150000,\"max_threshold_bytes\":1500000,\"mark_probability_pct\":100}}}";
        char root[] = "/tmp/nettune-iface-kmod.XXXXXX", sys[64], proc[64], path[96], cmd[96];
        struct tc_kmod_roots saved = qdisc_driver_kmod;
        static struct nm m;
        static struct nm_transport x;
        struct agent_config c;
        struct plan_env env = { .config = &c };
        struct plan p;
        struct policy *pol = NULL, *ecn = NULL;
        const struct plan_route *dcb, *qdisc;
        struct plan_target *mlx;
        struct driver_change ch;
        uint32_t delta[1];
        struct errbuf e;
        unsigned r;
        FILE *f;

        CU_ASSERT_FATAL(mkdtemp(root) != NULL);
        snprintf(sys, sizeof(sys), "%s/sys", root);
        snprintf(proc, sizeof(proc), "%s/proc", root);
        snprintf(path, sizeof(path), "%s/module", sys);
        CU_ASSERT_FATAL(mkdir(sys, 0755) == 0 && mkdir(path, 0755) == 0);
        snprintf(path, sizeof(path), "%s/x", root);             /* a modules directory without them */
        CU_ASSERT_FATAL(mkdir(path, 0755) == 0);
        snprintf(path, sizeof(path), "%s/x/modules.dep", root);
        f = fopen(path, "we");
        CU_ASSERT_FATAL(f != NULL);
        fclose(f);
        qdisc_driver_kmod = (struct tc_kmod_roots){ .sys = sys, .proc = proc, .modules = root, .release = "x" };
        tc_kmod_forget();
        nm_init(&m);
        CU_ASSERT_FATAL(nm_add(&m, "mlx5:ntqmlx0:7") == 0 && nm_add(&m, "veth:ntqveth0:5") == 0);
        nm_transport_init(&x, &m);
        memset(&c, 0, sizeof(c));
        snprintf(c.env.sysfs_root, sizeof(c.env.sysfs_root), "/nonexistent");
        c.env.nl = nm_transport_get(&x);
        c.env.switch_role = true;
        CU_ASSERT_FATAL(policy_parse_buffer(doc, strlen(doc), "t", &pol, &e) == 0);
        CU_ASSERT_FATAL(policy_parse_buffer(ecn_doc, strlen(ecn_doc), "t", &ecn, &e) == 0);

        /* no sch_ets/sch_red anywhere in the tree: not supported, said plainly, before any read */
        plan_init(&p, &env);
        CU_ASSERT_EQUAL(plan_for_policy(&p, ecn, 0, &e), -EOPNOTSUPP);
        CU_ASSERT_STRING_EQUAL(e.msg, "interface 'ntqveth0' (driver veth) does not support the tc qdiscs ets and "
                                      "red (kernel sch_ets, sch_red) (needed for ecn); nothing was changed");
        plan_free(&p);
        plan_init(&p, &env);
        CU_ASSERT_EQUAL(plan_for_policy(&p, pol, 0, &e), -EOPNOTSUPP);   /* ets: DCB is asked first */
        CU_ASSERT_STRING_EQUAL(e.msg, "interface 'ntqveth0' (driver veth) does not support DCB (needed for ets); "
                                      "nothing was changed");
        plan_free(&p);

        /* loaded: the plain port takes ets and ecn through tc; the DCB port keeps ets in DCB */
        snprintf(path, sizeof(path), "%s/module/sch_ets", sys);
        CU_ASSERT_FATAL(mkdir(path, 0755) == 0);
        snprintf(path, sizeof(path), "%s/module/sch_red", sys);
        CU_ASSERT_FATAL(mkdir(path, 0755) == 0);
        tc_kmod_forget();
        plan_init(&p, &env);
        CU_ASSERT_FATAL(plan_for_policy(&p, pol, 0, &e) == 0);
        CU_ASSERT_EQUAL_FATAL(p.n, 2);
        CU_ASSERT_EQUAL_FATAL(p.v[0].n_routes, 1);
        CU_ASSERT_STRING_EQUAL(p.v[0].routes[0].ops->name, "qdisc");
        CU_ASSERT_EQUAL(p.v[0].routes[0].fields, STATE_BIT(STATE_FIELD_ETS) | STATE_BIT(STATE_FIELD_ECN));
        mlx = &p.v[1];
        dcb = route_of(mlx, "dcb");
        qdisc = route_of(mlx, "qdisc");
        CU_ASSERT_FATAL(dcb != NULL && qdisc != NULL);
        CU_ASSERT_EQUAL(dcb->fields, STATE_BIT(STATE_FIELD_ETS));
        CU_ASSERT_EQUAL(qdisc->fields, STATE_BIT(STATE_FIELD_ECN));

        /* the qdisc driver's check, given the plan's change for its route, refuses the mix */
        r = (unsigned)(qdisc - mlx->routes);
        mlx->delta[0] = STATE_BIT(STATE_FIELD_ETS) | STATE_BIT(STATE_FIELD_ECN);
        plan_change(mlx, r, delta, &ch);
        CU_ASSERT_EQUAL(ch.fields, STATE_BIT(STATE_FIELD_ECN));
        CU_ASSERT_EQUAL(ch.owned, STATE_BIT(STATE_FIELD_ECN));
        CU_ASSERT_EQUAL(qdisc->ops->check(&mlx->t, &ch, &e), -EOPNOTSUPP);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "DCB ETS and a tc ets qdisc cannot both be configured on one port"));
        plan_free(&p);

        /* a host-role agent: ecn is a switch field, nothing routes it to a port */
        c.env.switch_role = false;
        plan_init(&p, &env);
        CU_ASSERT_FATAL(plan_for_policy(&p, ecn, 0, &e) == 0);
        CU_ASSERT_EQUAL_FATAL(p.n, 1);
        CU_ASSERT_EQUAL(p.v[0].want, 0);
        CU_ASSERT_EQUAL(p.v[0].n_routes, 0);
        plan_free(&p);

        policy_free(pol);
        policy_free(ecn);
        nm_transport_done(&x);
        nm_done(&m);
        qdisc_driver_kmod = saved;
        tc_kmod_forget();
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
        CU_ASSERT(system(cmd) == 0);
}

int suite_iface(void);
int suite_iface(void)
{
        CU_pSuite s = CU_add_suite("iface", NULL, NULL);

        if (!s || !CU_add_test(s, "globs", test_globs) || !CU_add_test(s, "virtual", test_virtual) ||
            !CU_add_test(s, "targets_and_caps", test_targets_and_caps) ||
            !CU_add_test(s, "switch_role_routing", test_switch_role_routing))
                return -1;
        return 0;
}
