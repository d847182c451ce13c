/* SPDX-License-Identifier: MIT */
/* Switch dialects: units, lists, limits, and the output parsers on vendor-shaped samples. */
#include <CUnit/CUnit.h>
#include <stdio.h>

#include "drivers/switch/switch.h"
#include "drivers/switch/switch_counters.h"
#include "policies/doctor/doctor.h"
#include "policies/state/field.h"
#include "tests/lib/testfile.h"

static char *slurp(const char *path)
{
        return test_slurp(path, 1 << 20);
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
        CU_ASSERT_EQUAL(switch_parse_bytes("200000", &v), 0);
        CU_ASSERT_EQUAL(v, 200000);
        /* A rounded display names a range of byte counts, not one: refused. */
        CU_ASSERT(switch_parse_bytes("146.48 KB", &v) < 0);
        CU_ASSERT(switch_parse_bytes("1.43 MB", &v) < 0);
        CU_ASSERT(switch_parse_bytes("153.00 KB ", &v) < 0);
        CU_ASSERT(switch_parse_bytes("B", &v) < 0);
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

/* Every unit of a fresh parse; parse_* return the parser's result. */
static void init_units(struct state *u, unsigned n)
{
        for (unsigned i = 0; i < n; i++)
                state_init(&u[i]);
}

#define DATA "tests/data/switch/"

static int nvue(const char *qos, const char *ifs, struct state *u, struct errbuf *e)
{
        struct switch_config sw = two_ports("swp1", "swp2");
        char *q = slurp(qos), *i = slurp(ifs), *o = slurp(DATA "nvue_interface.json");
        int r = -ENOENT;

        init_units(u, 2);
        if (q && i && o)
                r = switch_nvue_parse(q, i, o, "t", &sw, u, e);
        free(q);
        free(i);
        free(o);
        return r;
}

static void test_nvue(void)
{
        struct errbuf e = { 0 };
        struct state u[2];

        /* Factory profiles: every port reads default-global; every queue is described. */
        CU_ASSERT_EQUAL_FATAL(nvue(DATA "nvue_applied_qos.json", DATA "nvue_applied_interface.json", u, &e), 0);
        for (unsigned i = 0; i < 2; i++) {
                CU_ASSERT_EQUAL(u[i].trust, STATE_TRUST_PCP);
                CU_ASSERT_EQUAL(u[i].ecn.queues, 0xff);
                CU_ASSERT(u[i].ecn.q[0].enabled);
                CU_ASSERT_EQUAL(u[i].ecn.q[0].min_bytes, 150000);
                CU_ASSERT_EQUAL(u[i].ecn.q[0].max_bytes, 1500000);
                CU_ASSERT_FALSE(u[i].ecn.q[3].enabled);
                CU_ASSERT_EQUAL(u[i].mtu, 9216);
                CU_ASSERT_EQUAL(u[i].present, SWITCH_FIELDS & ~STATE_BIT(STATE_FIELD_PFC_WATCHDOG));
        }
        /* Port groups: each port reads the profiles it is bound to. */
        CU_ASSERT_EQUAL_FATAL(nvue(DATA "nvue_applied_qos_profiles.json", DATA "nvue_applied_interface_profiles.json",
                                   u, &e), 0);
        CU_ASSERT_EQUAL(u[0].trust, STATE_TRUST_DSCP);                 /* customer1: l3 */
        CU_ASSERT_EQUAL(u[0].dscp_prio[0], 1);
        CU_ASSERT(u[0].ecn.q[0].enabled);                              /* default-global */
        CU_ASSERT_EQUAL(u[1].trust, STATE_TRUST_PCP);
        CU_ASSERT_EQUAL(u[1].dscp_prio[0], STATE_DSCP_UNMAPPED);
        CU_ASSERT_EQUAL(u[1].pfc_enabled, 0x28);                       /* my_pfc_ports: 3,5 */
        CU_ASSERT_FALSE(u[1].ecn.q[0].enabled);                        /* my-red-profile has no TC0 */
        CU_ASSERT_FALSE(u[1].ecn.q[1].enabled);                        /* ecn disable */
        CU_ASSERT(u[1].ecn.q[2].enabled);                              /* ecn absent: enabled (the default) */
        CU_ASSERT_EQUAL(u[1].ecn.q[2].probability_pct, 10);
        CU_ASSERT_EQUAL(u[1].ecn.q[4].min_bytes, 30000);
        CU_ASSERT_EQUAL(u[1].mtu, 9000);
        /* Exact byte strings are read; rounded displays are refused by name. */
        CU_ASSERT_EQUAL_FATAL(nvue(DATA "nvue_applied_qos_bytes_strings.json", DATA "nvue_applied_interface.json", u,
                                   &e), 0);
        CU_ASSERT_EQUAL(u[0].ecn.q[5].max_bytes, 200000);
        CU_ASSERT(nvue(DATA "nvue_applied_qos_display_units.json", DATA "nvue_applied_interface.json", u, &e) < 0);
        CU_ASSERT(strstr(e.msg, "'nv show --applied qos -o json'") != NULL);
        CU_ASSERT(strstr(e.msg, "min-threshold \"146.48 KB\" is not an exact number of bytes") != NULL);
        /* Another command's JSON is refused naming the member it lacks, not read as "nothing set". */
        CU_ASSERT(nvue(DATA "nvue_advance_buffer_config.json", DATA "nvue_applied_interface.json", u, &e) < 0);
        CU_ASSERT(strstr(e.msg, "no object 'mapping'") != NULL);
        CU_ASSERT(nvue(DATA "nvue_applied_qos.json", "tests/data/switch/missing.json", u, &e) < 0);
}

static void test_nvue_ports_and_roce(void)
{
        struct switch_config sw = two_ports("swp1", "swp9");
        struct switch_nvue_roce roce;
        struct errbuf e = { 0 };
        struct state u[2];
        char *q = slurp(DATA "nvue_applied_qos.json"), *i = slurp(DATA "nvue_applied_interface.json");
        char *on = slurp(DATA "nvue_qos_roce_on.json"), *off = slurp(DATA "nvue_qos_roce_off.json");

        CU_ASSERT_PTR_NOT_NULL_FATAL(q);
        CU_ASSERT_PTR_NOT_NULL_FATAL(on);
        init_units(u, 2);
        CU_ASSERT(switch_nvue_parse(q, i, i, "t", &sw, u, &e) < 0);
        CU_ASSERT(strstr(e.msg, "port 'swp9' does not exist") != NULL);
        CU_ASSERT_EQUAL(switch_nvue_parse_roce(on, "t", &roce, &e), 0);
        CU_ASSERT(roce.on);
        CU_ASSERT_STRING_EQUAL(roce.mode, "lossless-single-ipool");
        CU_ASSERT_EQUAL(switch_nvue_parse_roce(off, "t", &roce, &e), 0);
        CU_ASSERT_FALSE(roce.on);
        CU_ASSERT(switch_nvue_parse_roce(q, "t", &roce, &e) < 0);       /* not a roce output */
        CU_ASSERT(strstr(e.msg, "no member 'enable'") != NULL);
        free(q);
        free(i);
        free(on);
        free(off);
}

static int sonic(const char *file, struct state *u, struct errbuf *e)
{
        struct switch_config sw = two_ports("Ethernet0", "Ethernet4");
        char *db = slurp(file);
        int r = db ? switch_sonic_parse(db, "t", &sw, u, NULL, e) : -ENOENT;

        free(db);
        return r;
}

static void test_sonic(void)
{
        struct errbuf e = { 0 };
        struct state u[2];

        init_units(u, 2);
        CU_ASSERT_EQUAL_FATAL(sonic(DATA "sonic_print_data.json", u, &e), 0);
        for (unsigned i = 0; i < 2; i++) {      /* both ports are configured alike */
                CU_ASSERT_EQUAL(u[i].trust, STATE_TRUST_DSCP);
                CU_ASSERT_EQUAL(u[i].dscp_prio[46], 5);
                CU_ASSERT_EQUAL(u[i].dscp_prio[8], 0);
                CU_ASSERT_EQUAL(u[i].pfc_enabled, 0x18);
                CU_ASSERT_EQUAL(u[i].ecn.queues, 0xff);
                CU_ASSERT(u[i].ecn.q[3].enabled && u[i].ecn.q[4].enabled && !u[i].ecn.q[0].enabled);
                CU_ASSERT_EQUAL(u[i].ecn.q[3].min_bytes, 1048576);
                CU_ASSERT_EQUAL(u[i].ecn.q[3].probability_pct, 5);
                CU_ASSERT_EQUAL(u[i].present, SWITCH_FIELDS & ~STATE_BIT(STATE_FIELD_PFC_WATCHDOG));
        }
        CU_ASSERT_EQUAL(u[0].mtu, 9100);
        /* A hand edit on one port shows on that port only, and the field table calls it a change. */
        init_units(u, 2);
        CU_ASSERT_EQUAL_FATAL(sonic(DATA "sonic_one_port_edited.json", u, &e), 0);
        CU_ASSERT(u[0].ecn.q[3].enabled);
        CU_ASSERT_FALSE(u[1].ecn.q[3].enabled);
        CU_ASSERT_EQUAL(u[1].pfc_enabled, 0x08);
        CU_ASSERT_FALSE(state_matches(&u[0], &u[1]));
        /* The switch-level map is what a port without its own binding uses. */
        init_units(u, 2);
        CU_ASSERT_EQUAL_FATAL(sonic(DATA "sonic_global_map.json", u, &e), 0);
        CU_ASSERT_EQUAL(u[1].trust, STATE_TRUST_DSCP);
        CU_ASSERT_EQUAL(u[1].dscp_prio[46], 5);
        /* Range keys cover every queue they name. */
        init_units(u, 2);
        CU_ASSERT_EQUAL_FATAL(sonic(DATA "sonic_range_keys_dynamic_buffer.json", u, &e), 0);
        CU_ASSERT(u[0].ecn.q[3].enabled && u[0].ecn.q[4].enabled);
        /* The upstream `config qos reload --ports` input has no PORT table: refused by name. */
        CU_ASSERT(sonic(DATA "qos_config_input_update_qos_ports.json", u, &e) < 0);
        CU_ASSERT(strstr(e.msg, "no table 'PORT'") != NULL);
        CU_ASSERT(switch_sonic_parse("[]", "t", &(struct switch_config){ .n_ports = 0 }, u, NULL, &e) < 0);
}

/* Cable lengths: NVUE's PFC profile cable-length, SONiC's CABLE_LENGTH row; unset reads as 0. */
static void test_cable_length(void)
{
        struct switch_config sw = two_ports("swp1", "swp2");
        char *q = slurp(DATA "nvue_applied_qos.json"), *i = slurp(DATA "nvue_applied_interface.json");
        char *o = slurp(DATA "nvue_interface.json"), *text;
        json_t *j = q ? json_loads(q, 0, NULL) : NULL;
        struct errbuf e = { 0 };
        struct state u[2];

        CU_ASSERT_PTR_NOT_NULL_FATAL(j);
        init_units(u, 2);
        CU_ASSERT_EQUAL(switch_nvue_parse(q, i, o, "t", &sw, u, &e), 0);
        CU_ASSERT_EQUAL(u[0].cable_len_m, 0);                   /* not set: the switch's default */
        CU_ASSERT(state_has(&u[0], STATE_FIELD_CABLE_LEN));
        json_object_set_new(json_object_get(json_object_get(j, "pfc"), "default-global"),
                            "cable-length", json_integer(50));
        text = json_dumps(j, 0);
        init_units(u, 2);
        CU_ASSERT_EQUAL(switch_nvue_parse(text, i, o, "t", &sw, u, &e), 0);
        CU_ASSERT(u[0].cable_len_m == 50 && u[1].cable_len_m == 50);
        free(text);
        json_object_set_new(json_object_get(json_object_get(j, "pfc"), "default-global"),
                            "cable-length", json_string("50m"));
        text = json_dumps(j, 0);
        CU_ASSERT(switch_nvue_parse(text, i, o, "t", &sw, u, &e) < 0);
        CU_ASSERT(strstr(e.msg, "cable-length of profile 'default-global' is not a number of metres") != NULL);
        free(text);
        json_decref(j);
        /* SONiC: the row of the upstream sample, a port without an entry, one that is no length */
        sw = two_ports("Ethernet0", "Ethernet4");
        init_units(u, 2);
        CU_ASSERT_EQUAL(switch_sonic_parse("{\"PORT\": {\"Ethernet0\": {}, \"Ethernet4\": {}}, \"CABLE_LENGTH\": "
                                           "{\"AZURE\": {\"Ethernet0\": \"300m\"}}}", "t", &sw, u, NULL, &e), 0);
        CU_ASSERT_EQUAL(u[0].cable_len_m, 300);
        CU_ASSERT_EQUAL(u[1].cable_len_m, 0);
        CU_ASSERT(switch_sonic_parse("{\"PORT\": {\"Ethernet0\": {}, \"Ethernet4\": {}}, \"CABLE_LENGTH\": "
                                     "{\"AZURE\": {\"Ethernet0\": \"300\"}}}", "t", &sw, u, NULL, &e) < 0);
        CU_ASSERT(strstr(e.msg, "CABLE_LENGTH|AZURE: 'Ethernet0' is '300', not a length like 40m") != NULL);
        free(q);
        free(i);
        free(o);
}

static int eos(const char *file, struct state *u, struct errbuf *e)
{
        struct switch_config sw = two_ports("Ethernet1", "Ethernet2");
        char *run = slurp(file);
        int r = -ENOENT;

        init_units(u, 2);
        if (run)
                r = switch_eos_parse(run, "t", &sw, u, e);
        free(run);
        return r;
}

static void test_eos(void)
{
        struct errbuf e = { 0 };
        struct state u[2];

        CU_ASSERT_EQUAL_FATAL(eos(DATA "eos_running_config.json", u, &e), 0);
        CU_ASSERT_EQUAL(u[0].trust, STATE_TRUST_DSCP);
        CU_ASSERT_EQUAL(u[0].pfc_enabled, 0x08);
        CU_ASSERT_EQUAL(u[0].ecn.q[3].min_bytes, 320 * 1024);  /* 320 kbytes */
        CU_ASSERT_EQUAL(u[0].ecn.q[3].max_bytes, 1024 * 1024); /* 1 mbytes */
        CU_ASSERT_EQUAL(u[0].ecn.q[3].probability_pct, 90);
        CU_ASSERT_EQUAL(u[0].dscp_prio[9], 1);
        CU_ASSERT_EQUAL(u[1].dscp_prio[9], 1);                 /* the map is global */
        CU_ASSERT_EQUAL(u[1].trust, STATE_TRUST_PCP);           /* Ethernet2 still trusts cos */
        CU_ASSERT_FALSE(u[1].ecn.q[3].enabled);
        CU_ASSERT_EQUAL(u[0].mtu, 1500);
        /* drop-precedence is tolerated; `priority-flow-control all off` turns PFC off everywhere. */
        CU_ASSERT_EQUAL_FATAL(eos(DATA "eos_running_drop_precedence_pfc_all_off.json", u, &e), 0);
        CU_ASSERT_EQUAL(u[0].dscp_prio[26], 4);
        CU_ASSERT_EQUAL(u[1].dscp_prio[38], 4);
        CU_ASSERT_EQUAL(u[0].pfc_enabled, 0);
        /* A service-profile's lines apply to the port, its own lines win. */
        CU_ASSERT_EQUAL_FATAL(eos(DATA "eos_running_service_profile.json", u, &e), 0);
        CU_ASSERT_EQUAL(u[1].trust, STATE_TRUST_PCP);           /* the interface's qos trust cos */
        CU_ASSERT(u[1].ecn.q[2].enabled);                      /* the profile's kbytes queue */
        CU_ASSERT_EQUAL(u[1].ecn.q[2].min_bytes, 320 * 1024);
        CU_ASSERT(u[1].ecn.q[4].enabled);                      /* segments: marks, no byte value */
        CU_ASSERT_EQUAL(u[1].ecn.q[4].min_bytes, 0);
        CU_ASSERT_FALSE(u[0].ecn.q[2].enabled);                 /* Ethernet1 has no profile */
        /* uc-tx-queue (7280R/Jericho) reads like tx-queue; mc-tx-queue is not a marking queue. */
        CU_ASSERT_EQUAL_FATAL(eos(DATA "eos_running_uc_tx_queue.json", u, &e), 0);
        CU_ASSERT(u[0].ecn.q[2].enabled);
        CU_ASSERT_EQUAL(u[0].ecn.q[2].max_bytes, 320 * 1024);
        CU_ASSERT(u[0].ecn.q[1].enabled);                      /* milliseconds: rewritten in bytes */
        CU_ASSERT_FALSE(u[0].ecn.q[3].enabled);
        /* Not a running-config: refused by name. */
        CU_ASSERT(eos(DATA "eos_show_interfaces.json", u, &e) < 0);
        CU_ASSERT(strstr(e.msg, "no object 'cmds'") != NULL);
        CU_ASSERT(switch_eos_parse("{\"cmds\": 3}", "t", &(struct switch_config){ .n_ports = 0 }, u, &e) < 0);
}

static void test_ecn_changed(void)
{
        struct state want[1], live[1];
        uint32_t delta[1] = { STATE_BIT(STATE_FIELD_ECN) };
        struct driver_change c = { .n_units = 1, .desired = want, .live = live, .delta = delta,
                                   .fields = STATE_BIT(STATE_FIELD_ECN) };

        state_init(&want[0]);
        state_init(&live[0]);
        want[0].present = live[0].present = STATE_BIT(STATE_FIELD_ECN);
        want[0].ecn.queues = (1u << 3) | (1u << 5);
        want[0].ecn.q[3] = (struct state_ecn_queue){ true, 150000, 1500000, 100 };
        want[0].ecn.q[5] = (struct state_ecn_queue){ .enabled = false };
        live[0].ecn.queues = 0xff;
        live[0].ecn.q[0] = (struct state_ecn_queue){ true, 150000, 1500000, 100 };     /* not listed */
        live[0].ecn.q[3] = (struct state_ecn_queue){ true, 150000, 1500000, 50 };
        CU_ASSERT_EQUAL(switch_ecn_changed(&c, 0), 1u << 3);
        live[0].ecn.q[5].enabled = true;
        CU_ASSERT_EQUAL(switch_ecn_changed(&c, 0), (1u << 3) | (1u << 5));
        delta[0] = 0;
        CU_ASSERT_EQUAL(switch_ecn_changed(&c, 0), 0);
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

/* The ownership ledger: written, read back, cleared; nothing without a state_dir. */
static void test_ledger(void)
{
        char dir[] = "/tmp/nettune-ledger.XXXXXX";
        struct switch_config sw = two_ports("swp1", "swp2");
        struct driver_env env = { 0 };
        struct switch_session s = { .sw = &sw, .env = &env, .where = "t" };
        struct switch_own own = { .txid = "nettune-1-2-3", .rev = "7", .base_rev = 6 }, got;
        struct errbuf e = { 0 };

        CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
        CU_ASSERT_EQUAL(switch_ledger_write(&s, &own, &e), 0);          /* no state_dir: memory only */
        CU_ASSERT_EQUAL(switch_ledger_read(&s, &got), 0);
        snprintf(env.state_dir, sizeof(env.state_dir), "%s", dir);
        CU_ASSERT_EQUAL(switch_ledger_read(&s, &got), 0);
        CU_ASSERT_EQUAL(switch_ledger_write(&s, &own, &e), 0);
        CU_ASSERT_EQUAL_FATAL(switch_ledger_read(&s, &got), 1);
        CU_ASSERT_STRING_EQUAL(got.txid, "nettune-1-2-3");
        CU_ASSERT_STRING_EQUAL(got.rev, "7");
        CU_ASSERT_EQUAL(got.base_rev, 6);
        switch_ledger_clear(&s);
        CU_ASSERT_EQUAL(switch_ledger_read(&s, &got), 0);
        rmdir(dir);
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


/* ---- counters and link (switch_counters.c) on the vendors' documented outputs ---- */

static const struct switch_counter *counter(const struct switch_port_sample *p, const char *name)
{
        for (unsigned i = 0; i < p->n; i++)
                if (streq(p->c[i].name, name))
                        return &p->c[i];
        return NULL;
}

static void test_counters_nvue(void)
{
        char *qos = slurp(DATA "cl512_nv-show-interface-swp1-counters-qos_partial.txt");
        char *roce = slurp(DATA "cl512_nv-show-interface-swp16-qos-roce-counters.txt");
        struct switch_port_sample *p = calloc(1, sizeof(*p));
        struct switch_sample *s = calloc(1, sizeof(*s));
        struct switch_config sw = two_ports("swp1", "swp2");
        const struct switch_counter *c;
        struct errbuf e;
        unsigned pause = 0, wred = 0, rx = 0;

        CU_ASSERT_FATAL(qos && roce && p && s);
        /* CL512-QoS "Show Qos Counters": 8 priorities of PFC rx/tx, 8 traffic classes, the port's ECN marks */
        CU_ASSERT_EQUAL_FATAL(switch_counters_nvue_qos(qos, p, &e), 0);
        for (unsigned i = 0; i < p->n; i++) {
                pause += p->c[i].kind == DOCTOR_PAUSE_RX || p->c[i].kind == DOCTOR_PAUSE_TX;
                wred += p->c[i].kind == DOCTOR_WRED_DROP;
                rx += p->c[i].kind == DOCTOR_RX_DISCARD;
        }
        CU_ASSERT_EQUAL(pause, 16);
        CU_ASSERT_EQUAL(wred, 8);
        CU_ASSERT_EQUAL(rx, 8);                         /* Ingress Buffer Statistics: rx-buffer-discards per PG */
        CU_ASSERT_EQUAL(counter(p, "tx-frames")->kind, DOCTOR_TX_PACKETS);
        c = counter(p, "ecn-marked-packets");
        CU_ASSERT_FATAL(c != NULL);
        CU_ASSERT_EQUAL(c->kind, DOCTOR_ECN_MARKED);
        CU_ASSERT_EQUAL(c->prio, -1);
        /* CL512-RoCE "nv show interface swp16 qos roce counters" */
        memset(p, 0, sizeof(*p));
        CU_ASSERT_EQUAL_FATAL(switch_counters_nvue_roce(roce, p, &e), 0);
        c = counter(p, "tx-roce-unicast-no-buffer-discard");
        CU_ASSERT_FATAL(c != NULL);
        CU_ASSERT_EQUAL(c->value, 663060754115ull);
        CU_ASSERT_EQUAL(counter(p, "rx-roce-no-buffer-discard")->value, 0);
        CU_ASSERT_EQUAL(counter(p, "tx-cnp-packets")->kind, DOCTOR_CNP_SENT);
        /* another command's output is not taken for counters */
        memset(p, 0, sizeof(*p));
        CU_ASSERT(switch_counters_nvue_qos(roce, p, &e) < 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "no PFC, egress queue or port statistics table"));
        /* the operational interface view: state as a string or keyed object, speed as NVUE prints it */
        CU_ASSERT_EQUAL(switch_counters_nvue_link("{\"swp1\": {\"link\": {\"state\": \"up\", \"speed\": \"100G\"}},"
                                                  " \"swp2\": {\"link\": {\"state\": {\"down\": {}}, "
                                                  "\"speed\": \"25G\"}}}", &sw, s, &e), 0);
        CU_ASSERT(s->port[0].link_known && s->port[0].up);
        CU_ASSERT_EQUAL(s->port[0].speed_mbps, 100000);
        CU_ASSERT(s->port[1].link_known && !s->port[1].up);
        CU_ASSERT_EQUAL(s->port[1].speed_mbps, 25000);
        CU_ASSERT_EQUAL(switch_counters_speed("auto"), 0);
        CU_ASSERT_EQUAL(switch_counters_speed("400G"), 400000);
        free(qos);
        free(roce);
        free(p);
        free(s);
}

static void test_counters_sonic(void)
{
        char *pfc = slurp(DATA "sonic_show_pfc_counters.txt"), *queue = slurp(DATA "sonic_show_queue_counters.txt");
        char *wred = slurp(DATA "sonic_show_queue_wredcounters.txt");
        char *status = slurp(DATA "sonic_show_interfaces_status.txt");
        struct switch_sample *s = calloc(1, sizeof(*s));
        struct switch_config sw = two_ports("Ethernet4", "Ethernet12"), none = two_ports("Ethernet99", "Ethernet98");
        struct errbuf e;
        const char *climbed = "   Port Tx    PFC0    PFC1    PFC2    PFC3    PFC4    PFC5    PFC6    PFC7\n"
                              "-----------  ------  ------  ------  ------  ------  ------  ------  ------\n"
                              "  Ethernet4       0       0       0  12,345       0       0       0       0\n";

        CU_ASSERT_FATAL(pfc && queue && wred && status && s);
        /* SU-CMDREF "show interfaces status": Ethernet4 100G, down */
        CU_ASSERT_EQUAL_FATAL(switch_counters_sonic_status(status, &sw, s, &e), 0);
        CU_ASSERT(s->port[0].link_known && !s->port[0].up);
        CU_ASSERT_EQUAL(s->port[0].speed_mbps, 100000);
        CU_ASSERT_FALSE(s->port[1].link_known);                 /* Ethernet12 is not in that listing */
        /* "show pfc counters": both tables, each priority, Ethernet12 right-aligned in its column */
        CU_ASSERT_EQUAL_FATAL(switch_counters_sonic_pfc(pfc, &sw, s, &e), 0);
        CU_ASSERT_EQUAL(s->port[0].n, 16);
        CU_ASSERT_EQUAL(s->port[1].n, 16);
        CU_ASSERT_EQUAL(counter(&s->port[1], "PFC3 Tx")->kind, DOCTOR_PAUSE_TX);
        CU_ASSERT_EQUAL(counter(&s->port[1], "PFC3 Tx")->prio, 3);
        memset(s, 0, sizeof(*s));
        CU_ASSERT_EQUAL_FATAL(switch_counters_sonic_pfc(climbed, &sw, s, &e), 0);
        CU_ASSERT_EQUAL(counter(&s->port[0], "PFC3 Tx")->value, 12345);         /* counts print with commas */
        /* "show queue counters": drops of unicast queues; "show queue wredcounters": WRED drops, ECN marks */
        memset(s, 0, sizeof(*s));
        CU_ASSERT_EQUAL_FATAL(switch_counters_sonic_queue(queue, &sw, s, &e), 0);
        CU_ASSERT_EQUAL(counter(&s->port[0], "UC3 Drop/pkts")->kind, DOCTOR_DISCARD);
        CU_ASSERT_EQUAL(counter(&s->port[0], "UC3 Counter/pkts")->kind, DOCTOR_TX_PACKETS);
        CU_ASSERT_PTR_NULL(counter(&s->port[0], "UC9 Drop/pkts"));     /* queues 0-7 only */
        sw = two_ports("Ethernet0", "Ethernet4");
        memset(s, 0, sizeof(*s));
        CU_ASSERT_EQUAL_FATAL(switch_counters_sonic_wred(wred, &sw, s, &e), 0);
        CU_ASSERT_EQUAL(counter(&s->port[0], "UC3 EcnMarked/pkts")->kind, DOCTOR_ECN_MARKED);
        CU_ASSERT_EQUAL(counter(&s->port[0], "UC3 EcnMarked/pkts")->prio, 3);
        CU_ASSERT_EQUAL(counter(&s->port[0], "UC6 WredDrp/pkts")->kind, DOCTOR_WRED_DROP);
        /* a listing without any configured port is refused, by command */
        CU_ASSERT(switch_counters_sonic_wred(wred, &none, s, &e) < 0);
        CU_ASSERT_STRING_EQUAL(e.msg, "'show queue wredcounters': no row for any configured port");
        /* "show priority-group drop counters": ingress drops per PG, taken as the priority */
        {
                char *pg = slurp(DATA "sonic_show_pg_drop_counters.txt");

                memset(s, 0, sizeof(*s));
                CU_ASSERT_EQUAL_FATAL(switch_counters_sonic_pg_drop(pg, &sw, s, &e), 0);
                CU_ASSERT_EQUAL(counter(&s->port[1], "PG3 dropped")->value, 403);
                CU_ASSERT_EQUAL(counter(&s->port[1], "PG3 dropped")->kind, DOCTOR_RX_DISCARD);
                CU_ASSERT_EQUAL(counter(&s->port[1], "PG3 dropped")->prio, 3);
                CU_ASSERT_EQUAL(switch_counters_sonic_pg_drop("Warning: PG counters are disabled. Use 'counterpoll "
                                                              "pg-drop enable' to enable polling\n", &sw, s, &e),
                                -ENODATA);
                free(pg);
        }
        free(pfc);
        free(queue);
        free(wred);
        free(status);
        free(s);
}

static void test_counters_eos(void)
{
        char *j = slurp(DATA "eos_show_interfaces.json");
        struct switch_sample *s = calloc(1, sizeof(*s));
        struct switch_config sw = two_ports("Ethernet2", "Management1");
        struct errbuf e;

        CU_ASSERT_FATAL(j && s);
        /* napalm's `show interfaces | json`: connected, bandwidth in bit/s, discards, link pause */
        CU_ASSERT_EQUAL_FATAL(switch_counters_eos(j, &sw, s, &e), 0);
        CU_ASSERT(s->port[1].link_known && s->port[1].up);
        CU_ASSERT_EQUAL(s->port[1].speed_mbps, 1000);
        CU_ASSERT_EQUAL(counter(&s->port[1], "rxPause")->kind, DOCTOR_PAUSE_RX);
        CU_ASSERT_EQUAL(counter(&s->port[1], "inDiscards")->kind, DOCTOR_RX_DISCARD);
        CU_ASSERT(switch_counters_eos("[1]", &sw, s, &e) < 0);
        free(j);
        free(s);
}

/*
 * EOS PFC and ECN counters in the shapes of Arista's own tests (ANTA): PFC frames per
 * port, ECN marks per queue as strings, "-" where a queue counts nothing.
 */
static void test_counters_eos_pfc_ecn(void)
{
        char *pfc = slurp(DATA "eos_show_priority_flow_control_counters.json");
        char *ecn = slurp(DATA "eos_show_qos_interfaces_ecn_counters_queue.json");
        struct switch_sample *s = calloc(1, sizeof(*s));
        struct switch_config sw = two_ports("Ethernet3/2/1", "Ethernet3/3/1");
        const struct switch_counter *c;
        struct errbuf e;

        CU_ASSERT_FATAL(pfc && ecn && s);
        CU_ASSERT_EQUAL_FATAL(switch_counters_eos_pfc(pfc, &sw, s, &e), 0);
        c = counter(&s->port[0], "PFC txFrames");
        CU_ASSERT(c && c->kind == DOCTOR_PAUSE_TX && c->value == 2 && c->prio == -1);
        c = counter(&s->port[1], "PFC rxFrames");
        CU_ASSERT(c && c->kind == DOCTOR_PAUSE_RX && c->value == 2);
        CU_ASSERT_EQUAL(s->port[0].n, 2);
        memset(s, 0, sizeof(*s));
        sw = two_ports("Ethernet10/28/1", "Ethernet10/20/1");
        CU_ASSERT_EQUAL_FATAL(switch_counters_eos_ecn(ecn, &sw, s, &e), 0);
        CU_ASSERT_EQUAL(s->port[0].n, 2);                       /* queue 0 is "-": not counted there */
        CU_ASSERT_PTR_NULL(counter(&s->port[0], "ECN queue 0"));
        c = counter(&s->port[1], "ECN queue 1");
        CU_ASSERT(c && c->kind == DOCTOR_ECN_MARKED && c->prio == 1 && c->value == 2);
        CU_ASSERT(switch_counters_eos_ecn("[]", &sw, s, &e) < 0);
        CU_ASSERT(switch_counters_eos_pfc("nope", &sw, s, &e) < 0);
        free(pfc);
        free(ecn);
        free(s);
}

/* NVUE's --confirm-status is documented by its meaning only: read tolerantly, refused when it says neither. */
static void test_nvue_confirm_status(void)
{
        unsigned long left = 99;
        bool on = false;

        CU_ASSERT_EQUAL(switch_nvue_confirm_status("No pending confirmation\n", &left), 0);
        CU_ASSERT_EQUAL(left, 0);
        CU_ASSERT_EQUAL(switch_nvue_confirm_status("", &left), -EBADMSG);
        CU_ASSERT_EQUAL(switch_nvue_confirm_status("598 seconds left\n", &left), 1);
        CU_ASSERT_EQUAL(left, 598);
        CU_ASSERT_EQUAL(switch_nvue_confirm_status("Pending confirmation: 9m 58s remaining", &left), 1);
        CU_ASSERT_EQUAL(left, 598);
        CU_ASSERT_EQUAL(switch_nvue_confirm_status("Time left before rollback: 1 hour", &left), 1);
        CU_ASSERT_EQUAL(left, 3600);
        CU_ASSERT_EQUAL(switch_nvue_confirm_status("awaiting confirmation", &left), 1);
        CU_ASSERT_EQUAL(left, 0);                               /* pending, time not said */
        CU_ASSERT_EQUAL(switch_nvue_confirm_status("Nothing to confirm", &left), 0);
        CU_ASSERT_EQUAL(switch_nvue_confirm_status("Confirmation state: unknown", &left), -EBADMSG);
        CU_ASSERT_EQUAL(switch_nvue_confirm_status("42", &left), -EBADMSG);        /* a number with no unit */
        CU_ASSERT_EQUAL(switch_nvue_parse_auto_save("{\"enable\": \"on\"}", &on), 0);
        CU_ASSERT(on);
        CU_ASSERT_EQUAL(switch_nvue_parse_auto_save("{\"state\": \"disabled\"}", &on), 0);
        CU_ASSERT_FALSE(on);
        CU_ASSERT_EQUAL(switch_nvue_parse_auto_save("{\"state\": \"maybe\"}", &on), -EBADMSG);
        CU_ASSERT_EQUAL(switch_nvue_parse_auto_save("nope", &on), -EBADMSG);
}

int suite_switch_parse(void);
int suite_switch_parse(void)
{
        CU_pSuite s = CU_add_suite("switch_parse", NULL, NULL);

        if (!s || !CU_add_test(s, "bytes", test_bytes) || !CU_add_test(s, "lists", test_lists) ||
            !CU_add_test(s, "nvue", test_nvue) || !CU_add_test(s, "nvue_ports_and_roce", test_nvue_ports_and_roce) ||
            !CU_add_test(s, "sonic", test_sonic) || !CU_add_test(s, "cable_length", test_cable_length) || !CU_add_test(s, "ecn_changed", test_ecn_changed) ||
            !CU_add_test(s, "eos", test_eos) || !CU_add_test(s, "limits", test_limits) ||
            !CU_add_test(s, "mtu_groups", test_mtu_groups) || !CU_add_test(s, "ledger", test_ledger) ||
            !CU_add_test(s, "counters_nvue", test_counters_nvue) || !CU_add_test(s, "counters_sonic", test_counters_sonic) ||
            !CU_add_test(s, "counters_eos", test_counters_eos) ||
            !CU_add_test(s, "counters_eos_pfc_ecn", test_counters_eos_pfc_ecn) ||
            !CU_add_test(s, "nvue_confirm_status", test_nvue_confirm_status))
                return -1;
        return 0;
}
