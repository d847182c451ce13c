/* SPDX-License-Identifier: MIT */
/*
 * The host side of doctor's collection: what each NIC counter counts, the fastest
 * supported link mode, the LLDP neighbours as lldpd and lldpad print them (captured
 * outputs, tests/data/lldp/SOURCE), the bounded helper runner.
 */
#include <CUnit/CUnit.h>
#include <linux/ethtool.h>
#include <stdio.h>

#include "common/subproc.h"
#include "drivers/host/counters.h"
#include "drivers/host/linkinfo.h"
#include "drivers/host/lldp.h"
#include "policies/doctor/doctor.h"
#include "tests/lib/testfile.h"

static char *slurp(const char *path)
{
        return test_slurp(path, 1 << 16);
}

static void test_counter_kinds(void)
{
        int prio, tc;

        CU_ASSERT_EQUAL(counters_kind("rx_prio3_pause", &prio, &tc), DOCTOR_PAUSE_RX);
        CU_ASSERT_EQUAL(prio, 3);
        CU_ASSERT_EQUAL(counters_kind("tx_pfc_ena_frames_pri5", &prio, &tc), DOCTOR_PAUSE_TX);
        CU_ASSERT_EQUAL(prio, 5);
        CU_ASSERT_EQUAL(counters_kind("tx_priority_4_xoff.nic", &prio, &tc), DOCTOR_PAUSE_TX);
        CU_ASSERT_EQUAL(counters_kind("np_cnp_sent", &prio, &tc), DOCTOR_CNP_SENT);
        CU_ASSERT_EQUAL(prio, -1);
        CU_ASSERT_EQUAL(counters_kind("rp_cnp_handled", &prio, &tc), DOCTOR_CNP_HANDLED);
        CU_ASSERT_EQUAL(counters_kind("RxECNMrkd", &prio, &tc), DOCTOR_ECN_MARKED);
        CU_ASSERT_EQUAL(counters_kind("out_of_buffer", &prio, &tc), DOCTOR_DISCARD);
        CU_ASSERT_EQUAL(counters_kind("tx_pause_storm_warning_events", &prio, &tc), DOCTOR_PAUSE_STORM);
        CU_ASSERT_EQUAL(counters_kind("rx_prio3_pause_duration", &prio, &tc), -1);    /* a duration, not frames */
        CU_ASSERT_EQUAL(counters_kind("rx_prio8_pause", &prio, &tc), -1);
}

static void test_max_speed(void)
{
        uint32_t mask[4] = { 0 };

        CU_ASSERT_EQUAL(linkinfo_max_speed(mask, 4), 0);
        mask[ETHTOOL_LINK_MODE_25000baseCR_Full_BIT / 32] |= 1u << (ETHTOOL_LINK_MODE_25000baseCR_Full_BIT % 32);
        CU_ASSERT_EQUAL(linkinfo_max_speed(mask, 4), 25000);
        mask[ETHTOOL_LINK_MODE_100000baseCR4_Full_BIT / 32] |= 1u << (ETHTOOL_LINK_MODE_100000baseCR4_Full_BIT % 32);
        CU_ASSERT_EQUAL(linkinfo_max_speed(mask, 4), 100000);
        CU_ASSERT_EQUAL(linkinfo_max_speed(mask, 1), 25000);    /* a mask too short to carry the 100G modes */
}

/* ETHTOOL_GLINKSETTINGS as the kernel answers it: the handshake (-nwords), then the masks. */
static int fake_glink(void *ctx, const char *ifname, void *cmd)
{
        struct ethtool_link_settings *s = cmd;
        uint32_t *masks = (uint32_t *)(s + 1);

        ++*(int *)ctx;
        if (s->cmd != ETHTOOL_GLINKSETTINGS)
                return -EOPNOTSUPP;
        if (s->link_mode_masks_nwords == 0) {
                s->link_mode_masks_nwords = -3;
                return 0;
        }
        masks[ETHTOOL_LINK_MODE_100000baseCR4_Full_BIT / 32] |= 1u << (ETHTOOL_LINK_MODE_100000baseCR4_Full_BIT % 32);
        masks[3 + 0] = 0xffffffff;              /* advertising: not what is supported */
        s->speed = 25000;
        return 0;
}

static void test_linkinfo(void)
{
        char root[] = "/tmp/nettune-linkinfo.XXXXXX", path[128], cmd[160];
        int calls = 0;
        struct counters_ethtool io = { fake_glink, &calls };
        struct linkinfo l;
        FILE *f;

        CU_ASSERT_FATAL(mkdtemp(root) != NULL);
        snprintf(cmd, sizeof(cmd), "mkdir -p %s/class/net/eth7", root);
        CU_ASSERT_FATAL(system(cmd) == 0);
        snprintf(path, sizeof(path), "%s/class/net/eth7/speed", root);
        CU_ASSERT_FATAL((f = fopen(path, "we")) != NULL);
        fputs("25000\n", f);
        fclose(f);
        snprintf(path, sizeof(path), "%s/class/net/eth7/operstate", root);
        CU_ASSERT_FATAL((f = fopen(path, "we")) != NULL);
        fputs("up\n", f);
        fclose(f);
        linkinfo_read("eth7", root, &io, &l);
        CU_ASSERT(l.state_known && l.up);
        CU_ASSERT_EQUAL(l.speed_mbps, 25000);
        CU_ASSERT_EQUAL(l.max_speed_mbps, 100000);
        CU_ASSERT_EQUAL(calls, 2);
        CU_ASSERT_FALSE(l.rdma);
        /* a link that is down reports speed -1: unknown, not a downshift */
        snprintf(path, sizeof(path), "%s/class/net/eth7/speed", root);
        CU_ASSERT_FATAL((f = fopen(path, "we")) != NULL);
        fputs("-1\n", f);
        fclose(f);
        linkinfo_read("eth7", root, &io, &l);
        CU_ASSERT_EQUAL(l.speed_mbps, 0);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
        CU_ASSERT(system(cmd) == 0);
}

static void test_lldp(void)
{
        char *j = slurp("tests/data/lldp/lldpcli_json0_show_neighbors.json");
        char *sys = slurp("tests/data/lldp/lldptool_sysName.txt"), *port = slurp("tests/data/lldp/lldptool_portID.txt");
        char *chassis = slurp("tests/data/lldp/lldptool_chassisID.txt");
        struct lldp_neighbour n[4];
        struct errbuf e;
        unsigned count = 9;
        char buf[64];

        CU_ASSERT_FATAL(j && sys && port && chassis);
        CU_ASSERT_EQUAL_FATAL(lldp_parse_lldpcli(j, n, 4, &count, &e), 0);
        CU_ASSERT_EQUAL_FATAL(count, 1);
        CU_ASSERT_STRING_EQUAL(n[0].ifname, "eth0");
        CU_ASSERT_STRING_EQUAL(n[0].system, "leaf1");
        CU_ASSERT_STRING_EQUAL(n[0].port, "swp1");
        CU_ASSERT_EQUAL(lldp_parse_lldpcli("{\"lldp\": [{}]}", n, 4, &count, &e), 0);  /* lldpd, nobody heard */
        CU_ASSERT_EQUAL(count, 0);
        CU_ASSERT(lldp_parse_lldpcli("lldp: none", n, 4, &count, &e) < 0);
        CU_ASSERT_EQUAL(lldp_parse_lldptool(sys, buf, sizeof(buf)), 0);
        CU_ASSERT_STRING_EQUAL(buf, "leaf1");
        CU_ASSERT_EQUAL(lldp_parse_lldptool(port, buf, sizeof(buf)), 0);
        CU_ASSERT_STRING_EQUAL(buf, "swp1");
        CU_ASSERT_EQUAL(lldp_parse_lldptool(chassis, buf, sizeof(buf)), 0);    /* the subtype goes */
        CU_ASSERT_STRING_EQUAL(buf, "72:56:8b:d9:f9:e5");
        CU_ASSERT_EQUAL(lldp_parse_lldptool("Failed to connect to lldpad - clif_open: Invalid argument\n", buf,
                                            sizeof(buf)), -ENOENT);
        free(j);
        free(sys);
        free(port);
        free(chassis);
}

static void test_subproc(void)
{
        const char *echo[] = { "printf", "a%sb", "-", NULL }, *missing[] = { "nettune-no-such-program", NULL };
        const char *slow[] = { "sleep", "5", NULL }, *fail[] = { "false", NULL };
        char *out = NULL;
        int status = -1;

        CU_ASSERT_EQUAL_FATAL(subproc_run(echo, 5000, 2, &out, &status), 0);
        CU_ASSERT_STRING_EQUAL(out, "a-");                      /* bounded to max_out */
        CU_ASSERT_EQUAL(status, 0);
        free(out);
        CU_ASSERT_EQUAL(subproc_run(missing, 1000, 10, &out, &status), -ENOENT);
        CU_ASSERT_EQUAL(subproc_run(slow, 200, 10, &out, &status), -ETIMEDOUT);
        CU_ASSERT_EQUAL_FATAL(subproc_run(fail, 5000, 10, &out, &status), 0);
        CU_ASSERT_EQUAL(status, 1);
        free(out);
}

int suite_doctor_host(void);
int suite_doctor_host(void)
{
        CU_pSuite s = CU_add_suite("doctor_host", NULL, NULL);

        if (!s || !CU_add_test(s, "counter_kinds", test_counter_kinds) || !CU_add_test(s, "max_speed", test_max_speed) ||
            !CU_add_test(s, "linkinfo", test_linkinfo) ||
            !CU_add_test(s, "lldp", test_lldp) || !CU_add_test(s, "subproc", test_subproc))
                return -1;
        return 0;
}
