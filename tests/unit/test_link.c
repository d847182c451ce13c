/* SPDX-License-Identifier: MIT */
/*
 * The "link" driver and DCB refusal against the real kernel: each test enters a
 * fresh network namespace (unshare, then setns back), makes a veth pair there
 * with ip(8), and works on it through real rtnetlink/dcbnl.
 */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>

#include "drivers/host/counters.h"
#include "drivers/host/dcb_driver.h"
#include "drivers/host/iface.h"
#include "drivers/host/link.h"
#include "tests/lib/drvtest.h"
#include "tests/lib/nltrace.h"
#include "tests/nicmodel/nm_transport.h"

static int saved_ns = -1;
static struct driver_env env;
static struct target tgt;

/* Enter a new namespace with vA<->vB up. false (test skipped) without privileges. */
static bool enter_netns(void)
{
        saved_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC);
        if (saved_ns < 0 || unshare(CLONE_NEWNET) < 0) {
                fprintf(stderr, "test_link: no network namespace (%s): kernel checks skipped\n", strerror(errno));
                if (saved_ns >= 0)
                        close(saved_ns);
                saved_ns = -1;
                return false;
        }
        if (system("ip link add vA type veth peer name vB && ip link set vA up && ip link set vB up") != 0) {
                CU_FAIL("cannot create the veth pair");
                return false;
        }
        memset(&env, 0, sizeof(env));
        snprintf(env.sysfs_root, sizeof(env.sysfs_root), "/sys");
        env.settle_ms = 1000;
        memset(&tgt, 0, sizeof(tgt));
        tgt.kind = TARGET_INTERFACE;
        snprintf(tgt.name, sizeof(tgt.name), "vA");
        tgt.ifindex = (int)if_nametoindex("vA");
        iface_kernel_driver("vA", "/sys", "", tgt.kernel_driver, sizeof(tgt.kernel_driver));
        tgt.env = &env;
        return true;
}

static void leave_netns(void)
{
        if (saved_ns < 0)
                return;
        CU_ASSERT(setns(saved_ns, CLONE_NEWNET) == 0);
        close(saved_ns);
        saved_ns = -1;
}

static uint32_t mtu_now(void)
{
        struct state s;
        struct errbuf e;

        state_init(&s);
        return link_driver.read(&tgt, STATE_BIT(STATE_FIELD_MTU), &s, &e) == 0 ? s.mtu : 0;
}

static void test_mtu_apply_restore(void)
{
        struct state before, want;
        struct errbuf e;

        if (!enter_netns())
                return;
        CU_ASSERT_STRING_EQUAL(tgt.kernel_driver, "veth");
        state_init(&before);
        CU_ASSERT(link_driver.read(&tgt, STATE_BIT(STATE_FIELD_MTU), &before, &e) == 0);
        CU_ASSERT_EQUAL(before.mtu, 1500);
        CU_ASSERT(state_has(&before, STATE_FIELD_MTU));
        state_init(&want);
        want.present = STATE_BIT(STATE_FIELD_MTU);
        want.mtu = 9000;
        CU_ASSERT(drvtest_apply(&link_driver, &tgt, &want, &e) == 0);
        CU_ASSERT_EQUAL(mtu_now(), 9000);
        CU_ASSERT(drvtest_apply(&link_driver, &tgt, &want, &e) == 0);       /* idempotent */
        CU_ASSERT_EQUAL(mtu_now(), 9000);
        CU_ASSERT(drvtest_restore(&link_driver, &tgt, &before, &e) == 0);
        CU_ASSERT_EQUAL(mtu_now(), 1500);
        leave_netns();
}

static void test_mtu_extack(void)
{
        struct nl *nl = NULL;
        struct errbuf e;

        if (!enter_netns())
                return;
        CU_ASSERT_FATAL(nl_open(NULL, NETLINK_ROUTE, &nl, &e) == 0);
        CU_ASSERT_EQUAL(link_rtnl_set_mtu(nl, tgt.ifindex, 70000, &e), -EINVAL);
        /* the kernel's own words, through NETLINK_EXT_ACK */
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "set mtu 70000: invalid argument (kernel: mtu greater than device maximum)"));
        CU_ASSERT_EQUAL(link_rtnl_get(nl, 0, "nosuch0", &(struct link_info){ 0 }, &e), -ENODEV);
        nl_close(nl);
        CU_ASSERT_EQUAL(mtu_now(), 1500);
        leave_netns();
}

static void test_dcb_refused_on_veth(void)
{
        struct state want, live;
        struct errbuf e;
        uint32_t caps = 1;

        if (!enter_netns())
                return;
        CU_ASSERT(dcb_driver.caps(&tgt, &caps, &e) == 0);
        CU_ASSERT_EQUAL(caps, 0);
        state_init(&live);
        CU_ASSERT_EQUAL(dcb_driver.read(&tgt, STATE_BIT(STATE_FIELD_PFC), &live, &e), -EOPNOTSUPP);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "interface 'vA' (driver veth) does not support DCB"));
        state_init(&want);
        want.present = STATE_BIT(STATE_FIELD_PFC) | STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_DSCP_MAP) |
                       STATE_BIT(STATE_FIELD_ETS);
        want.pfc_enabled = 0x08;
        want.trust = STATE_TRUST_DSCP;
        want.dscp_prio[26] = 3;
        for (unsigned f = 0; f < STATE_FIELD_MAX; f++) {
                struct state one = want;

                if (!(want.present & STATE_BIT(f)))
                        continue;
                one.present = STATE_BIT(f);
                CU_ASSERT_EQUAL(drvtest_apply(&dcb_driver, &tgt, &one, &e), -EOPNOTSUPP);
                CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "interface 'vA' (driver veth) does not support DCB"));
        }
        CU_ASSERT_EQUAL(mtu_now(), 1500);
        leave_netns();
}

static void test_discovery_and_counters(void)
{
        struct iface *v = NULL;
        struct counters *k = calloc(1, sizeof(*k));
        struct errbuf e;
        unsigned n = 0, seen = 0;

        if (!k || !enter_netns()) {
                free(k);
                return;
        }
        CU_ASSERT_FATAL(iface_list(NULL, "/sys", &v, &n, &e) == 0);
        CU_ASSERT_EQUAL(n, 3);
        for (unsigned i = 0; i < n; i++) {
                if (streq(v[i].name, "lo"))
                        CU_ASSERT(v[i].flags & IFF_LOOPBACK);
                if (streq(v[i].name, "vA") || streq(v[i].name, "vB")) {
                        seen++;
                        CU_ASSERT_STRING_EQUAL(v[i].kernel_driver, "veth");
                        CU_ASSERT_STRING_EQUAL(v[i].kind, "veth");
                }
                if (i)
                        CU_ASSERT(v[i - 1].ifindex < v[i].ifindex);
        }
        CU_ASSERT_EQUAL(seen, 2);
        /* veth has no pause counters and no RDMA device: an empty set, not an error */
        CU_ASSERT(counters_read("vA", "/sys", k, &e) == 0);
        CU_ASSERT_EQUAL(k->n, 0);
        free(v);
        free(k);
        leave_netns();
}

/* RTM_NEWLINK IFLA_MTU 9000 is byte-for-byte `ip link set dev vA mtu 9000`. */
static void test_mtu_vector(void)
{
        static struct nm m;
        static struct nm_transport x;
        struct nltrace t;
        struct nl *nl = NULL;
        struct errbuf e;
        const struct nltrace_msg *want;

        nm_init(&m);
        CU_ASSERT_FATAL(nm_add(&m, "veth:vA:3") == 0);
        nm_transport_init(&x, &m);
        CU_ASSERT_FATAL(nl_open(nm_transport_get(&x), NETLINK_ROUTE, &nl, &e) == 0);
        CU_ASSERT(link_rtnl_set_mtu(nl, 3, 9000, &e) == 0);
        CU_ASSERT_FATAL(nltrace_load("07-ip-link-mtu-9000.trace", &t) == 0);
        want = nltrace_request(&t, 2);
        CU_ASSERT_FATAL(want != NULL && x.n_log == 1);
        CU_ASSERT(nltrace_equal_masked(x.log[0].buf, x.log[0].len, want->buf, want->len));
        CU_ASSERT_EQUAL(m.devs[0].mtu, 9000);
        nl_close(nl);
        nm_transport_done(&x);
        nm_done(&m);
}

/* The carrier bound follows the speed, within [settle_ms, link_up_max_ms]. */
static void test_wait_bound(void)
{
        CU_ASSERT_EQUAL(link_wait_bound_ms(10000, 1000, 30000), 3000);
        CU_ASSERT_EQUAL(link_wait_bound_ms(25000, 1000, 30000), 5000);
        CU_ASSERT_EQUAL(link_wait_bound_ms(100000, 1000, 30000), 10000);
        CU_ASSERT_EQUAL(link_wait_bound_ms(200000, 1000, 30000), 15000);
        CU_ASSERT_EQUAL(link_wait_bound_ms(400000, 1000, 30000), 20000);
        CU_ASSERT_EQUAL(link_wait_bound_ms(800000, 1000, 60000), 30000);
        CU_ASSERT_EQUAL(link_wait_bound_ms(1000, 4000, 30000), 4000);           /* never below settle_ms */
        CU_ASSERT_EQUAL(link_wait_bound_ms(400000, 1000, 12000), 12000);        /* never above the ceiling */
        CU_ASSERT_EQUAL(link_wait_bound_ms(0, 1000, 25000), 25000);             /* unknown speed: the ceiling */
}

/*
 * A 25G ConnectX retrains its PHY after a PFC change (the model: 2 s without carrier):
 * settle_ms alone (1 s) would call that "no carrier"; the speed's bound waits it out,
 * and a ceiling below the link's time names the bound it used.
 */
static void test_wait_follows_speed(void)
{
        char dir[64] = "/tmp/nettune-wait.XXXXXX", cmd[96];
        struct driver_env wenv = { .settle_ms = 1000, .link_up_max_ms = 30000, .flap_wait_ms = 500,
                                  .rdma_wait_ms = 5000 };
        struct target t = { .kind = TARGET_INTERFACE, .ifindex = 3, .env = &wenv };
        struct nm_transport x;
        struct link_wait w;
        struct nm m;
        struct nl *nl = NULL;
        struct errbuf e;

        CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
        nm_init(&m);
        snprintf(m.sysfs_root, sizeof(m.sysfs_root), "%s", dir);
        snprintf(wenv.sysfs_root, sizeof(wenv.sysfs_root), "%s", dir);
        snprintf(t.name, sizeof(t.name), "vA");
        CU_ASSERT_FATAL(nm_add(&m, "mlx5:vA:3::25000") == 0 && nm_sysfs_create(&m, &m.devs[0]) == 0);
        nm_transport_init(&x, &m);
        CU_ASSERT_FATAL(nl_open(nm_transport_get(&x), NETLINK_ROUTE, &nl, &e) == 0);
        for (int round = 0; round < 2; round++) {
                wenv.link_up_max_ms = round ? 1500 : 30000;
                CU_ASSERT_FATAL(link_wait_begin(nl, &t, &w, &e) == 0);
                CU_ASSERT(w.carrier);
                CU_ASSERT_EQUAL(w.speed_mbps, 25000);
                CU_ASSERT_EQUAL(w.bound_ms, round ? 1500 : 5000);
                nm_transport_lock(&x);
                nm_flap(&m, &m.devs[0], 50);            /* mlx5_toggle_port_link(): after the reply */
                nm_transport_unlock(&x);
                if (!round) {
                        CU_ASSERT_EQUAL(link_wait_end(nl, &t, &w, &e), 0);
                        CU_ASSERT(m.devs[0].carrier && m.devs[0].carrier_down_count == 2);
                        continue;
                }
                CU_ASSERT_EQUAL(link_wait_end(nl, &t, &w, &e), -ETIMEDOUT);
                CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "no carrier 1500 ms after it dropped"));
                CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "a 25000 Mb/s link, at least settle_ms 1000, at most "
                                                     "link_up_max_ms 1500"));
        }
        nl_close(nl);
        nm_transport_done(&x);
        nm_done(&m);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        CU_ASSERT(system(cmd) == 0);
}

int suite_link(void);
int suite_link(void)
{
        CU_pSuite s = CU_add_suite("link", NULL, NULL);

        if (!s || !CU_add_test(s, "mtu_apply_restore", test_mtu_apply_restore) ||
            !CU_add_test(s, "mtu_extack", test_mtu_extack) ||
            !CU_add_test(s, "dcb_refused_on_veth", test_dcb_refused_on_veth) ||
            !CU_add_test(s, "discovery_and_counters", test_discovery_and_counters) ||
            !CU_add_test(s, "mtu_vector", test_mtu_vector) ||
            !CU_add_test(s, "wait_bound", test_wait_bound) ||
            !CU_add_test(s, "wait_follows_speed", test_wait_follows_speed))
                return -1;
        return 0;
}
