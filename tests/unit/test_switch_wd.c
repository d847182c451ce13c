/* SPDX-License-Identifier: MIT */
/*
 * The PFC watchdog of every dialect: the parsers on the vendors' own outputs (SONiC's test
 * vectors, both `show pfcwd config` layouts), NVUE's applied views and EOS's running-config,
 * and the target a change writes (members the policy does not name kept as the switch has them).
 */
#include <CUnit/CUnit.h>
#include <stdio.h>

#include "drivers/switch/switch.h"
#include "drivers/switch/switch_counters.h"
#include "tests/lib/testfile.h"

static struct switch_config ports3(const char *a, const char *b, const char *c)
{
        struct switch_config sw = { .name = "sw1", .n_ports = 3 };

        snprintf(sw.ports[0], sizeof(sw.ports[0]), "%s", a);
        snprintf(sw.ports[1], sizeof(sw.ports[1]), "%s", b);
        snprintf(sw.ports[2], sizeof(sw.ports[2]), "%s", c);
        return sw;
}

static void init3(struct state *u)
{
        for (unsigned i = 0; i < 3; i++)
                state_init(&u[i]);
}

/* CONFIG_DB beside the show: Ethernet0 covers 3,4, Ethernet4's row leaves the action to orchagent. */
static json_t *sonic_db(bool poll)
{
        json_t *db = json_pack("{s:{s:{s:s},s:{s:s},s:{s:s}},s:{s:{s:s,s:s},s:{s:s,s:s}}}", "PORT_QOS_MAP",
                               "Ethernet0", "pfcwd_sw_enable", "3,4", "Ethernet4", "pfcwd_sw_enable", "3",
                               "Ethernet8", "pfc_enable", "3,4", "PFC_WD", "Ethernet0", "action", "drop",
                               "detection_time", "600", "Ethernet4", "detection_time", "600", "restoration_time",
                               "600");

        if (poll)
                json_object_set_new(json_object_get(db, "PFC_WD"), "GLOBAL", json_pack("{s:s}", "POLL_INTERVAL", "600"));
        return db;
}

static void test_sonic(void)
{
        struct switch_config sw = ports3("Ethernet0", "Ethernet4", "Ethernet12");
        char *five = test_slurp("tests/data/switch/sonic_show_pfcwd_config.txt", 1 << 16);
        char *four = test_slurp("tests/data/switch/sonic_show_pfcwd_config_4col.txt", 1 << 16);
        char *empty = test_slurp("tests/data/switch/sonic_show_pfcwd_config_empty.txt", 1 << 16);
        char *masic = test_slurp("tests/data/switch/sonic_show_pfcwd_config_masic.txt", 1 << 16);
        json_t *db = sonic_db(true);
        struct errbuf e = { 0 };
        struct state u[3];

        CU_ASSERT_PTR_NOT_NULL_FATAL(five);
        CU_ASSERT_PTR_NOT_NULL_FATAL(four);
        init3(u);
        CU_ASSERT_EQUAL(switch_sonic_parse_pfcwd(five, "t", &sw, db, u, &e), 0);
        CU_ASSERT(u[0].pfc_wd.enabled);
        CU_ASSERT_EQUAL(u[0].pfc_wd.detection_ms, 600);
        CU_ASSERT_EQUAL(u[0].pfc_wd.restoration_ms, 600);
        CU_ASSERT_EQUAL(u[0].pfc_wd.poll_ms, 600);
        CU_ASSERT_EQUAL(u[0].pfc_wd.action, STATE_WD_DROP);
        CU_ASSERT_EQUAL(u[0].pfc_wd.prios, 0x18);
        CU_ASSERT_EQUAL(u[0].pfc_wd.dflt, 0);
        CU_ASSERT_EQUAL(u[1].pfc_wd.dflt, STATE_WD_ACTION);     /* no action field: orchagent's drop */
        CU_ASSERT_EQUAL(u[1].pfc_wd.prios, 0x08);
        CU_ASSERT_FALSE(u[2].pfc_wd.enabled);                   /* no row */
        CU_ASSERT_EQUAL(u[2].pfc_wd.has, STATE_WD_POLL);
        CU_ASSERT(u[2].present & STATE_BIT(STATE_FIELD_PFC_WATCHDOG));
        /* the layout before the HISTORY column (Ethernet4 only) */
        init3(u);
        CU_ASSERT_EQUAL(switch_sonic_parse_pfcwd(four, "t", &sw, db, u, &e), 0);
        CU_ASSERT_FALSE(u[0].pfc_wd.enabled);
        CU_ASSERT(u[1].pfc_wd.enabled);
        CU_ASSERT_EQUAL(u[1].pfc_wd.detection_ms, 400);
        CU_ASSERT_EQUAL(u[1].pfc_wd.poll_ms, 400);
        /* no row anywhere: no preamble, the poll from CONFIG_DB; without it orchagent's 100 ms */
        init3(u);
        CU_ASSERT_EQUAL(switch_sonic_parse_pfcwd(empty, "t", &sw, db, u, &e), 0);
        CU_ASSERT_FALSE(u[0].pfc_wd.enabled);
        CU_ASSERT_EQUAL(u[0].pfc_wd.poll_ms, 600);
        json_decref(db);
        db = sonic_db(false);
        init3(u);
        CU_ASSERT_EQUAL(switch_sonic_parse_pfcwd(empty, "t", &sw, db, u, &e), 0);
        CU_ASSERT_EQUAL(u[0].pfc_wd.poll_ms, 100);
        CU_ASSERT_EQUAL(u[0].pfc_wd.dflt, STATE_WD_POLL);
        /* multi-ASIC: "... on asic0" */
        init3(u);
        CU_ASSERT_EQUAL(switch_sonic_parse_pfcwd(masic, "t", &sw, db, u, &e), 0);
        CU_ASSERT_EQUAL(u[0].pfc_wd.poll_ms, 199);
        CU_ASSERT_EQUAL(u[0].pfc_wd.detection_ms, 200);
        /* not a table nettune knows */
        init3(u);
        CU_ASSERT_EQUAL(switch_sonic_parse_pfcwd("Ethernet0 drop 600 600\n", "t", &sw, db, u, &e), -EBADMSG);
        CU_ASSERT_EQUAL(switch_sonic_parse_pfcwd("  PORT    ACTION\n----\nEthernet0 stop 600 600 disable\n", "t", &sw, db,
                                                 u, &e), -EBADMSG);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "cannot read 'Ethernet0 stop 600 600 disable'"));
        json_decref(db);
        free(five);
        free(four);
        free(empty);
        free(masic);
}

static void test_nvue(void)
{
        struct switch_config sw = ports3("swp1", "swp2", "swp3");
        static const char qos[] = "{\"pfc-watchdog\": {\"polling-interval\": \"0:00:00.200000\", \"robustness\": \"3\"}}";
        static const char ifs[] = "{\"swp1\": {\"qos\": {\"pfc-watchdog\": {\"state\": \"enable\"}}},"
                                  " \"swp2\": {\"qos\": {\"pfc-watchdog\": {}}}, \"swp3\": {}}";
        struct errbuf e = { 0 };
        struct state u[3];

        init3(u);
        u[0].pfc_enabled = 0x08;
        CU_ASSERT_EQUAL(switch_nvue_parse_wd(qos, ifs, "{\"product-release\": \"5.12.0\"}", "t", &sw, u, &e), 0);
        CU_ASSERT(u[0].pfc_wd.enabled);
        CU_ASSERT(u[1].pfc_wd.enabled);         /* the CL 5.12 form: the object set */
        CU_ASSERT_FALSE(u[2].pfc_wd.enabled);
        CU_ASSERT_EQUAL(u[0].pfc_wd.poll_ms, 200);
        CU_ASSERT_EQUAL(u[0].pfc_wd.detection_ms, 600);
        CU_ASSERT_EQUAL(u[0].pfc_wd.restoration_ms, 200);       /* one polling interval before 5.19 */
        CU_ASSERT_EQUAL(u[0].pfc_wd.prios, 0x08);               /* the port's lossless priorities */
        CU_ASSERT_EQUAL(u[0].pfc_wd.dflt, STATE_WD_ACTION | STATE_WD_RESTORATION);
        /* 5.19: recovery-interval, default 2; the factory view: every default */
        init3(u);
        CU_ASSERT_EQUAL(switch_nvue_parse_wd("{}", ifs, "{\"product-release\": \"5.19.0\"}", "t", &sw, u, &e), 0);
        CU_ASSERT_EQUAL(u[0].pfc_wd.poll_ms, 100);
        CU_ASSERT_EQUAL(u[0].pfc_wd.detection_ms, 300);
        CU_ASSERT_EQUAL(u[0].pfc_wd.restoration_ms, 200);
        CU_ASSERT_EQUAL(u[0].pfc_wd.dflt, 0x0f);
        /* an unknown release: restoration not known */
        init3(u);
        CU_ASSERT_EQUAL(switch_nvue_parse_wd("{}", ifs, "", "t", &sw, u, &e), 0);
        CU_ASSERT_FALSE(u[0].pfc_wd.has & STATE_WD_RESTORATION);
        CU_ASSERT_EQUAL(switch_nvue_parse_wd("{\"pfc-watchdog\": {\"polling-interval\": \"soon\"}}", ifs, "", "t", &sw, u,
                                             &e), -EBADMSG);
        CU_ASSERT_EQUAL(switch_nvue_parse_wd("{}", "{\"swp1\": {\"qos\": {\"pfc-watchdog\": {\"state\": \"on-ish\"}}}}",
                                             "", "t", &sw, u, &e), -EBADMSG);
}

static void test_eos(void)
{
        struct switch_config sw = ports3("Ethernet1", "Ethernet2", "Ethernet3");
        /* AVD qos.cfg's lines: the profile's watchdog with a port timer, the switch-wide defaults */
        static const char run[] =
                "{\"cmds\": {\"priority-flow-control pause watchdog default timeout 0.05\": null,"
                " \"priority-flow-control pause watchdog default recovery-time 1.22\": null,"
                " \"priority-flow-control pause watchdog default polling-interval 10.001\": null,"
                " \"qos profile p\": {\"cmds\": {\"priority-flow-control on\": null,"
                "   \"priority-flow-control pause watchdog\": null,"
                "   \"priority-flow-control pause watchdog port action drop\": null,"
                "   \"priority-flow-control pause watchdog port timer timeout 0.05 polling-interval auto"
                " recovery-time 1.11 forced\": null}},"
                " \"interface Ethernet1\": {\"cmds\": {\"service-profile p\": null}},"
                " \"interface Ethernet2\": {\"cmds\": {\"priority-flow-control pause watchdog\": null}},"
                " \"interface Ethernet3\": {\"cmds\": {}}}}";
        struct errbuf e = { 0 };
        struct state u[3];

        init3(u);
        for (unsigned i = 0; i < 3; i++)
                u[i].pfc_enabled = 0x08;
        CU_ASSERT_EQUAL(switch_eos_parse_wd(run, "t", &sw, u, &e), 0);
        CU_ASSERT(u[0].pfc_wd.enabled);
        CU_ASSERT_EQUAL(u[0].pfc_wd.detection_ms, 50);
        CU_ASSERT_EQUAL(u[0].pfc_wd.restoration_ms, 1110);
        CU_ASSERT_FALSE(u[0].pfc_wd.has & STATE_WD_POLL);       /* auto */
        CU_ASSERT_EQUAL(u[0].pfc_wd.action, STATE_WD_DROP);
        CU_ASSERT(u[1].pfc_wd.enabled);                         /* the switch-wide defaults */
        CU_ASSERT_EQUAL(u[1].pfc_wd.restoration_ms, 1220);
        CU_ASSERT_EQUAL(u[1].pfc_wd.poll_ms, 10001);
        CU_ASSERT_EQUAL(u[1].pfc_wd.action, STATE_WD_ERRDISABLE);
        CU_ASSERT(u[1].pfc_wd.dflt & STATE_WD_DETECTION);
        CU_ASSERT_FALSE(u[2].pfc_wd.enabled);
        CU_ASSERT_EQUAL(switch_eos_parse_wd("{\"cmds\": {\"interface Ethernet1\": {\"cmds\": {\"priority-flow-control "
                                            "pause watchdog port timer timeout soon\": null}}}}", "t", &sw, u, &e),
                        -EBADMSG);
}

/*
 * AVD's switch-wide watchdog (priority_flow_control.schema.yml: action "drop" | "no-drop",
 * override_action_drop; its eos_cli_config_gen documentation renders "action no-drop" and
 * "override action drop"): read, not refused; a form nettune does not know is left alone.
 */
static void test_eos_global(void)
{
        struct switch_config sw = ports3("Ethernet1", "Ethernet2", "Ethernet3");
        static const char nodrop[] =
                "{\"cmds\": {\"priority-flow-control pause watchdog action no-drop\": null,"
                " \"priority-flow-control pause watchdog default timeout 0.05\": null,"
                " \"priority-flow-control pause watchdog default recovery-time 1.22\": null,"
                " \"priority-flow-control pause watchdog hardware trigger\": null,"
                " \"interface Ethernet1\": {\"cmds\": {\"priority-flow-control pause watchdog\": null}},"
                " \"interface Ethernet2\": {\"cmds\": {\"priority-flow-control pause watchdog\": null,"
                "   \"priority-flow-control pause watchdog port action notify-only\": null}},"
                " \"interface Ethernet3\": {\"cmds\": {}}}}";
        static const char override[] =
                "{\"cmds\": {\"priority-flow-control pause watchdog override action drop\": null,"
                " \"interface Ethernet1\": {\"cmds\": {\"priority-flow-control pause watchdog\": null}},"
                " \"interface Ethernet2\": {\"cmds\": {\"priority-flow-control pause watchdog\": null,"
                "   \"priority-flow-control pause watchdog port action notify-only\": null}},"
                " \"interface Ethernet3\": {\"cmds\": {}}}}";
        static const char unknown[] =
                "{\"cmds\": {\"priority-flow-control pause watchdog action shutdown\": null,"
                " \"interface Ethernet1\": {\"cmds\": {\"priority-flow-control pause watchdog\": null}},"
                " \"interface Ethernet2\": {\"cmds\": {\"priority-flow-control pause watchdog\": null,"
                "   \"priority-flow-control pause watchdog port action drop\": null}},"
                " \"interface Ethernet3\": {\"cmds\": {}}}}";
        struct errbuf e = { 0 };
        struct state u[3];

        init3(u);
        for (unsigned i = 0; i < 3; i++)
                u[i].pfc_enabled = 0x08;
        CU_ASSERT_EQUAL(switch_eos_parse_wd(nodrop, "t", &sw, u, &e), 0);
        CU_ASSERT(u[0].pfc_wd.enabled);
        CU_ASSERT_EQUAL(u[0].pfc_wd.action, STATE_WD_NODROP);
        CU_ASSERT(u[0].pfc_wd.dflt & STATE_WD_ACTION);          /* the switch's, not the port's */
        CU_ASSERT_EQUAL(u[0].pfc_wd.detection_ms, 50);
        CU_ASSERT_EQUAL(u[1].pfc_wd.action, STATE_WD_ALERT);    /* the port's own action over it */
        CU_ASSERT_STRING_EQUAL(state_wd_action_name(STATE_WD_NODROP), "no-drop");

        init3(u);
        for (unsigned i = 0; i < 3; i++)
                u[i].pfc_enabled = 0x08;
        CU_ASSERT_EQUAL(switch_eos_parse_wd(override, "t", &sw, u, &e), 0);
        CU_ASSERT_EQUAL(u[0].pfc_wd.action, STATE_WD_DROP);     /* errdisable overridden */
        CU_ASSERT(u[0].pfc_wd.dflt & STATE_WD_ACTION);
        CU_ASSERT_EQUAL(u[1].pfc_wd.action, STATE_WD_ALERT);

        init3(u);
        for (unsigned i = 0; i < 3; i++)
                u[i].pfc_enabled = 0x08;
        CU_ASSERT_EQUAL(switch_eos_parse_wd(unknown, "t", &sw, u, &e), 0);
        CU_ASSERT(u[0].pfc_wd.enabled);
        CU_ASSERT_FALSE(u[0].pfc_wd.has & STATE_WD_ACTION);    /* a switch-wide action nettune cannot name */
        CU_ASSERT_EQUAL(u[1].pfc_wd.action, STATE_WD_DROP);
        CU_ASSERT(u[1].pfc_wd.has & STATE_WD_ACTION);
}

/* The target of a change: what the policy names, the rest as the switch has it; a snapshot's "off" whole. */
static void test_target(void)
{
        struct state want, live;
        struct state_pfc_wd t;
        uint32_t delta = STATE_BIT(STATE_FIELD_PFC_WATCHDOG), ms = 0;
        struct driver_change c = { .n_units = 1, .desired = &want, .live = &live, .delta = &delta, .fields = delta };
        bool dflt = false;

        state_init(&want);
        state_init(&live);
        want.pfc_wd = (struct state_pfc_wd){ .enabled = true, .prios = 0x08, .has = STATE_WD_DETECTION,
                                             .detection_ms = 300 };
        live.pfc_wd = (struct state_pfc_wd){ .enabled = true, .prios = 0x18, .has = 0x0f, .detection_ms = 200,
                                             .restoration_ms = 900, .action = STATE_WD_FORWARD, .poll_ms = 150,
                                             .dflt = STATE_WD_POLL };
        switch_wd_target(&c, 0, &t);
        CU_ASSERT_EQUAL(t.detection_ms, 300);
        CU_ASSERT_EQUAL(t.restoration_ms, 900);
        CU_ASSERT_EQUAL(t.action, STATE_WD_FORWARD);
        CU_ASSERT_EQUAL(t.prios, 0x08);
        CU_ASSERT_FALSE(switch_wd_poll_change(&c, &ms, &dflt));
        CU_ASSERT_EQUAL(switch_wd_poll_now(&c), 150);
        /* a new watchdog keeps nothing of the old one but the switch-wide poll */
        live.pfc_wd.enabled = false;
        switch_wd_target(&c, 0, &t);
        CU_ASSERT_EQUAL(t.has, STATE_WD_DETECTION | STATE_WD_POLL);
        /* a snapshot of a port without one: everything it reported comes back */
        want.pfc_wd = (struct state_pfc_wd){ .enabled = false, .prios = 0x18, .has = STATE_WD_POLL, .poll_ms = 100,
                                             .dflt = STATE_WD_POLL | STATE_WD_ACTION };
        live.pfc_wd.enabled = true;
        switch_wd_target(&c, 0, &t);
        CU_ASSERT_FALSE(t.enabled);
        CU_ASSERT_EQUAL(t.prios, 0x18);
        CU_ASSERT(t.dflt & STATE_WD_ACTION);
        CU_ASSERT(switch_wd_poll_change(&c, &ms, &dflt));
        CU_ASSERT_EQUAL(ms, 100);
        CU_ASSERT(dflt);
}

/* The storm counters each dialect shows (SONiC's test vector, NVUE's CL 5.12 sample, EOS's shape). */
static void test_stats(void)
{
        struct switch_config sw = ports3("Ethernet0", "Ethernet4", "Ethernet12");
        struct switch_config nv = ports3("swp1", "swp2", "swp3");
        char *sonic = test_slurp("tests/data/switch/sonic_show_pfcwd_stats.txt", 1 << 16);
        char *nvue = test_slurp("tests/data/switch/cl512_nv-show-interface-swp1-qos-pfc-watchdog.txt", 1 << 16);
        static struct switch_wd_stats st;
        struct errbuf e = { 0 };

        CU_ASSERT_PTR_NOT_NULL_FATAL(sonic);
        CU_ASSERT_PTR_NOT_NULL_FATAL(nvue);
        memset(&st, 0, sizeof(st));
        CU_ASSERT_EQUAL(switch_wd_stats_sonic(sonic, &sw, &st, &e), 0);
        CU_ASSERT(st.q[0][3].stormed);
        CU_ASSERT_EQUAL(st.q[0][3].detected, 1);
        CU_ASSERT_EQUAL(st.q[0][3].restored, 0);
        CU_ASSERT_FALSE(st.q[1][3].stormed);
        CU_ASSERT_EQUAL(st.q[1][3].detected, 2);
        CU_ASSERT_EQUAL(st.q[1][3].restored, 2);
        CU_ASSERT_FALSE(st.q[2][4].known);      /* Ethernet8 is not configured */
        CU_ASSERT_EQUAL(switch_wd_stats_sonic("Ethernet0:3 stormed 1/0\n", &sw, &st, &e), -EBADMSG);
        memset(&st, 0, sizeof(st));
        CU_ASSERT_EQUAL(switch_wd_stats_nvue(nvue, 0, &st, &e), 0);
        CU_ASSERT(st.q[0][2].stormed);
        CU_ASSERT_EQUAL(st.q[0][2].detected, 2);
        CU_ASSERT_EQUAL(st.q[0][1].detected, 3);
        CU_ASSERT(st.q[0][7].watched);
        CU_ASSERT_FALSE(st.q[0][7].restored_known);
        CU_ASSERT_EQUAL(switch_wd_stats_nvue("state  enabled  enabled\ntraffic-class status deadlock-count\n0 STUCK 1\n",
                                             0, &st, &e), -EBADMSG);
        memset(&st, 0, sizeof(st));
        CU_ASSERT_EQUAL(switch_wd_stats_eos("{\"interfaces\": {\"swp2\": {\"txQueues\": {\"3\": {\"stuckCount\": 4, "
                                            "\"recoveryCount\": 3}}}}}", &nv, &st, &e), 0);
        CU_ASSERT(st.q[1][3].stormed);
        CU_ASSERT_EQUAL(st.q[1][3].restored, 3);
        CU_ASSERT(st.q[0][3].known && !st.q[0][3].watched);     /* listed after its first event only */
        CU_ASSERT_EQUAL(switch_wd_stats_eos("[]", &nv, &st, &e), -EBADMSG);
        free(sonic);
        free(nvue);
        (void)nv;
}

int suite_switch_wd(void)
{
        CU_pSuite s = CU_add_suite("switch_wd", NULL, NULL);

        if (!s || !CU_add_test(s, "sonic", test_sonic) || !CU_add_test(s, "nvue", test_nvue) ||
            !CU_add_test(s, "eos", test_eos) || !CU_add_test(s, "eos-global", test_eos_global) || !CU_add_test(s, "target", test_target) ||
            !CU_add_test(s, "stats", test_stats))
                return -1;
        return 0;
}
