/* SPDX-License-Identifier: MIT */
/* Switch dialects: units, lists, limits, and the output parsers on vendor-shaped samples. */
#include <CUnit/CUnit.h>
#include <stdio.h>

#include "switch.h"

static char *slurp(const char *path)
{
        FILE *f = fopen(path, "re");
        char *buf = calloc(1, 1 << 20);
        size_t n;

        if (!f || !buf) {
                if (f)
                        fclose(f);
                free(buf);
                return NULL;
        }
        n = fread(buf, 1, (1 << 20) - 1, f);
        buf[n] = '\0';
        fclose(f);
        return buf;
}

static struct switch_config two_ports(const char *a, const char *b)
{
        struct switch_config sw = { .name = "sw1", .n_ports = 2 };

        snprintf(sw.ports[0], sizeof(sw.ports[0]), "%s", a);
        snprintf(sw.ports[1], sizeof(sw.ports[1]), "%s", b);
        return sw;
}

static void test_bytes(void)
{
        uint64_t v = 0;

        CU_ASSERT_EQUAL(switch_parse_bytes("40000 B", &v), 0);
        CU_ASSERT_EQUAL(v, 40000);
        CU_ASSERT_EQUAL(switch_parse_bytes("146.48 KB", &v), 0);     /* NVUE default min, shown rounded */
        CU_ASSERT_EQUAL(v, 149996);
        CU_ASSERT_EQUAL(switch_parse_bytes("1.43 MB", &v), 0);
        CU_ASSERT_EQUAL(v, 1499464);
        CU_ASSERT_EQUAL(switch_parse_bytes("153.00 KB ", &v), 0);
        CU_ASSERT_EQUAL(v, 156672);
        CU_ASSERT_EQUAL(switch_parse_bytes("200000", &v), 0);
        CU_ASSERT_EQUAL(v, 200000);
        CU_ASSERT(switch_parse_bytes("B", &v) < 0);
        CU_ASSERT(switch_parse_bytes("1.2.3 KB", &v) < 0);
        CU_ASSERT(switch_parse_bytes("5 XB", &v) < 0);
        CU_ASSERT(switch_parse_bytes("-5 B", &v) < 0);
}

static void test_lists(void)
{
        uint64_t bits = 0;
        char buf[64];

        CU_ASSERT_EQUAL(switch_parse_list("0-3,5-7", 7, &bits), 0);
        CU_ASSERT_EQUAL(bits, 0xef);
        CU_ASSERT_EQUAL(switch_parse_list("3,4", 7, &bits), 0);
        CU_ASSERT_EQUAL(bits, 0x18);
        CU_ASSERT_EQUAL(switch_parse_list("", 7, &bits), 0);
        CU_ASSERT_EQUAL(bits, 0);
        CU_ASSERT(switch_parse_list("8", 7, &bits) < 0);
        CU_ASSERT(switch_parse_list("3-1", 7, &bits) < 0);
        CU_ASSERT(switch_parse_list("3,,x", 7, &bits) < 0);
        CU_ASSERT_STRING_EQUAL(switch_format_list(0x18, buf, sizeof(buf)), "3,4");
        CU_ASSERT_STRING_EQUAL(switch_format_list(0, buf, sizeof(buf)), "");
}

static void test_nvue(void)
{
        struct switch_config sw = two_ports("swp1", "swp2");
        struct errbuf e = { 0 };
        struct state s, u[2];
        char *qos = slurp("tests/data/switch/nvue_show_qos.json");
        char *ifs = slurp("tests/data/switch/nvue_show_interface.json");

        CU_ASSERT_PTR_NOT_NULL_FATAL(qos);
        CU_ASSERT_PTR_NOT_NULL_FATAL(ifs);
        state_init(&s);
        state_init(&u[0]);
        state_init(&u[1]);
        CU_ASSERT_EQUAL(switch_nvue_parse_qos(qos, "t", &s, &e), 0);
        CU_ASSERT_EQUAL(switch_nvue_parse_interfaces(ifs, "t", &sw, u, &e), 0);
        CU_ASSERT_EQUAL(s.trust, STATE_TRUST_PCP);
        CU_ASSERT_EQUAL(s.ecn.queues, 1);
        CU_ASSERT_EQUAL(s.ecn.q[0].min_bytes, 150000);
        CU_ASSERT_EQUAL(s.ecn.q[0].max_bytes, 1500000);
        CU_ASSERT_EQUAL(u[1].mtu, 9216);
        CU_ASSERT_EQUAL(u[1].present, STATE_BIT(STATE_FIELD_MTU));
        /* Thresholds with units, as the text views print them. */
        state_init(&s);
        CU_ASSERT_EQUAL(switch_nvue_parse_qos("{\"congestion-control\":{\"default-global\":{\"traffic-class\":"
                        "{\"4\":{\"ecn\":\"enable\",\"min-threshold\":\"40000 B\",\"max-threshold\":\"200000 B\","
                        "\"probability\":100}}}}}", "t", &s, &e), 0);
        CU_ASSERT_EQUAL(s.ecn.queues, 0x10);
        CU_ASSERT_EQUAL(s.ecn.q[4].max_bytes, 200000);
        CU_ASSERT(switch_nvue_parse_qos("{\"mapping\":", "t", &s, &e) < 0);
        CU_ASSERT(strstr(e.msg, "invalid JSON") != NULL);
        sw.ports[1][3] = '9';
        CU_ASSERT(switch_nvue_parse_interfaces(ifs, "t", &sw, u, &e) < 0);
        CU_ASSERT(strstr(e.msg, "'swp9' does not exist") != NULL);
        free(qos);
        free(ifs);
}

static void test_sonic(void)
{
        struct switch_config sw = two_ports("Ethernet0", "Ethernet4");
        struct errbuf e = { 0 };
        struct state u[2];
        char *db = slurp("tests/data/switch/sonic_print_data.json");
        char *ports = slurp("tests/data/switch/qos_config_input_update_qos_ports.json");

        CU_ASSERT_PTR_NOT_NULL_FATAL(db);
        CU_ASSERT_PTR_NOT_NULL_FATAL(ports);
        state_init(&u[0]);
        state_init(&u[1]);
        CU_ASSERT_EQUAL(switch_sonic_parse(db, "t", &sw, u, NULL, &e), 0);
        for (unsigned i = 0; i < 2; i++) {      /* both ports are configured alike */
                CU_ASSERT_EQUAL(u[i].trust, STATE_TRUST_DSCP);
                CU_ASSERT_EQUAL(u[i].dscp_prio[46], 5);
                CU_ASSERT_EQUAL(u[i].dscp_prio[8], 0);
                CU_ASSERT_EQUAL(u[i].pfc_enabled, 0x18);
                CU_ASSERT_EQUAL(u[i].ecn.queues, 0x18);
                CU_ASSERT_EQUAL(u[i].ecn.q[3].min_bytes, 1048576);
                CU_ASSERT_EQUAL(u[i].ecn.q[3].probability_pct, 5);
                CU_ASSERT_EQUAL(u[i].present, SWITCH_FIELDS);
        }
        CU_ASSERT_EQUAL(u[0].mtu, 9100);
        /* The upstream sample has no PORT table: the port is reported missing. */
        CU_ASSERT(switch_sonic_parse(ports, "t", &sw, u, NULL, &e) < 0);
        CU_ASSERT(strstr(e.msg, "'Ethernet0' does not exist") != NULL);
        free(db);
        free(ports);
}

static void test_eos(void)
{
        struct switch_config sw = two_ports("Ethernet1", "Ethernet2");
        struct errbuf e = { 0 };
        struct state u[2];
        char *run = slurp("tests/data/switch/eos_running_config.json");

        CU_ASSERT_PTR_NOT_NULL_FATAL(run);
        state_init(&u[0]);
        state_init(&u[1]);
        CU_ASSERT_EQUAL(switch_eos_parse(run, "t", &sw, u, &e), 0);
        CU_ASSERT_EQUAL(u[0].trust, STATE_TRUST_DSCP);
        CU_ASSERT_EQUAL(u[0].pfc_enabled, 0x08);
        CU_ASSERT_EQUAL(u[0].ecn.q[3].min_bytes, 320 * 1024);  /* 320 kbytes */
        CU_ASSERT_EQUAL(u[0].ecn.q[3].max_bytes, 1024 * 1024); /* 1 mbytes */
        CU_ASSERT_EQUAL(u[0].ecn.q[3].probability_pct, 90);
        CU_ASSERT_EQUAL(u[0].dscp_prio[9], 1);
        CU_ASSERT_EQUAL(u[1].dscp_prio[9], 1);                 /* the map is global */
        CU_ASSERT_EQUAL(u[1].trust, STATE_TRUST_PCP);           /* Ethernet2 still trusts cos */
        CU_ASSERT_EQUAL(u[0].mtu, 1500);
        CU_ASSERT(switch_eos_parse("{\"cmds\": 3}", "t", &sw, u, &e) < 0);
        free(run);
}

static void test_limits(void)
{
        struct switch_dialect d = { .name = "eos", .lim = { 68, 9214, 1, 1u << 30 } };
        struct switch_config sw = two_ports("Ethernet1", "Ethernet2");
        struct errbuf e = { 0 };
        struct state want[2], live[2];
        uint32_t delta[2] = { STATE_BIT(STATE_FIELD_MTU), STATE_BIT(STATE_FIELD_MTU) };
        struct driver_change c = { .n_units = 2, .desired = want, .live = live, .delta = delta,
                                   .fields = STATE_BIT(STATE_FIELD_MTU) };

        for (unsigned i = 0; i < 2; i++) {
                state_init(&want[i]);
                state_init(&live[i]);
                want[i].present = STATE_BIT(STATE_FIELD_MTU);
                want[i].mtu = 9216;
        }
        CU_ASSERT(switch_check_limits(&d, &sw, &c, &e) < 0);
        CU_ASSERT(strstr(e.msg, "mtu 9216 on port 'Ethernet1' out of the eos range 68-9214") != NULL);
        CU_ASSERT(strstr(e.where, "switch 'sw1' (eos)") != NULL);
        delta[0] = 0;           /* only what changes is checked: a port already at 9216 passes */
        CU_ASSERT(switch_check_limits(&d, &sw, &c, &e) < 0);
        CU_ASSERT(strstr(e.msg, "on port 'Ethernet2'") != NULL);
        delta[1] = 0;
        CU_ASSERT_EQUAL(switch_check_limits(&d, &sw, &c, &e), 0);
        want[0].present = STATE_BIT(STATE_FIELD_ECN);
        want[0].ecn.queues = 8;
        want[0].ecn.q[3] = (struct state_ecn_queue){ true, 1000, 2u << 30, 100 };
        delta[0] = c.fields = STATE_BIT(STATE_FIELD_ECN);
        CU_ASSERT(switch_check_limits(&d, &sw, &c, &e) < 0);
        CU_ASSERT(strstr(e.msg, "ecn queue 3: thresholds 1000-2147483648 bytes out of the eos range") != NULL);
}

static void add_group(void *ctx, uint32_t mtu, const char *ports)
{
        snprintf((char *)ctx + strlen(ctx), 128, "%u:%s;", mtu, ports);
}

static void test_mtu_groups(void)
{
        struct switch_config sw = two_ports("swp1", "swp2");
        struct state live[3], want[3];
        uint32_t delta[3] = { STATE_BIT(STATE_FIELD_MTU), STATE_BIT(STATE_FIELD_MTU), 0 };
        struct driver_change c = { .n_units = 3, .desired = want, .live = live, .delta = delta,
                                   .fields = STATE_BIT(STATE_FIELD_MTU) };
        char out[256] = "";

        sw.n_ports = 3;
        snprintf(sw.ports[2], sizeof(sw.ports[2]), "swp3");
        for (unsigned i = 0; i < 3; i++) {
                state_init(&live[i]);
                state_init(&want[i]);
                live[i].mtu = 1500;
                want[i].mtu = i == 2 ? 1500 : 9000;
        }
        switch_mtu_groups(&sw, &c, ',', add_group, out);
        CU_ASSERT_STRING_EQUAL(out, "9000:swp1,swp2;");
}

int suite_switch_parse(void);
int suite_switch_parse(void)
{
        CU_pSuite s = CU_add_suite("switch_parse", NULL, NULL);

        if (!s || !CU_add_test(s, "bytes", test_bytes) || !CU_add_test(s, "lists", test_lists) ||
            !CU_add_test(s, "nvue", test_nvue) || !CU_add_test(s, "sonic", test_sonic) ||
            !CU_add_test(s, "eos", test_eos) || !CU_add_test(s, "limits", test_limits) ||
            !CU_add_test(s, "mtu_groups", test_mtu_groups))
                return -1;
        return 0;
}
