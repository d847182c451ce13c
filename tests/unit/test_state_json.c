/* SPDX-License-Identifier: MIT */
/* state_to_json / state_from_json: exact round trip and strict parsing. */
#include <CUnit/CUnit.h>

#include "policies/state/state_json.h"

static void full_state(struct state *s)
{
        state_init(s);
        s->present = STATE_ALL_FIELDS;
        s->mtu = 65536;                 /* live values may exceed policy ranges (loopback) */
        s->trust = STATE_TRUST_DSCP;
        s->dscp_prio[0] = 0;
        s->dscp_prio[26] = 3;
        s->dscp_prio[63] = 7;
        s->pfc_enabled = (1u << 3) | (1u << 7);
        for (unsigned i = 0; i < 8; i++) {
                s->ets.prio_tc[i] = (uint8_t)(7 - i);
                s->ets.tc_tsa[i] = STATE_TSA_STRICT;
        }
        s->ets.tc_tsa[2] = STATE_TSA_VENDOR;
        s->ets.tc_tsa[3] = STATE_TSA_ETS;
        s->ets.tc_tsa[4] = STATE_TSA_CBS;
        s->ets.tc_bw_pct[3] = 100;
        s->ets.willing = true;
        /* what a host NIC's snapshot carries beyond the fields */
        s->dcb = (struct state_dcb_device){ .present = true, .has_dcbx = true, .dcbx = 0x0c, .has_apps = true,
                                            .n_apps = 2, .has_trust_table = true, .n_trust = 0 };
        s->dcb.apps[0] = (struct state_dcb_app){ 48, 6 };
        s->dcb.apps[1] = (struct state_dcb_app){ 26, 3 };
        s->ecn.queues = (1u << 0) | (1u << 3);
        s->ecn.q[0] = (struct state_ecn_queue){ false, 0, 0, 0 };
        s->ecn.q[3] = (struct state_ecn_queue){ true, 150000, 4000000000u, 100 };
        s->host_ecn = (struct state_host_ecn){ .prios = 0x0c, .rp_enabled = 0x08, .np_enabled = 0x0c,
                                               .has_cnp = true, .cnp_dscp = 48, .cnp_prio = 6 };
        s->cable_len_m = 40;
        s->buffers = (struct state_buffers){ .prio_buffer = { 0, 0, 0, 1, 1, 0, 0, 7 },
                                             .size = { 130944, 65536, 0, 0, 0, 0, 0, 4294967295u },
                                             .total = 524288 };
        s->dcb.has_pfc_delay = true;
        s->dcb.pfc_delay = 40404;       /* mlxsw: bits */
        s->pfc_wd = (struct state_pfc_wd){ .enabled = true, .prios = 0x18, .action = STATE_WD_ERRDISABLE,
                                           .has = STATE_WD_DETECTION | STATE_WD_RESTORATION | STATE_WD_ACTION |
                                                  STATE_WD_POLL,
                                           .dflt = STATE_WD_ACTION | STATE_WD_POLL, .detection_ms = 200,
                                           .restoration_ms = 0, .poll_ms = 100 };
        s->nic_stall_ms = 8000;
        s->nic_stall_auto_ms = 100;
        s->roce_tos = 106;
        s->roce.n_ports = 2;
        s->roce.ports[0] = (struct state_rdma_port){ "mlx5_0", 1, true, 106, true, STATE_TCLASS_UNSET, STATE_ROCE_MODE_V2 };
        s->roce.ports[1] = (struct state_rdma_port){ "rxe0", 2, true, 0, false, 0, STATE_ROCE_MODE_V1 };
        /* NCCL's file as a read keeps it: the values NCCL takes, each key's line, the file's ends */
        s->nccl = (struct state_nccl){ .has = 1u << STATE_NCCL_IB_TC, .value = { 106, 0 }, .read = true,
                                       .exists = true, .eol = false, .empty = false };
        snprintf(s->nccl.line[STATE_NCCL_IB_TC], sizeof(s->nccl.line[0]), "NCCL_IB_TC=0x6a\r");
}

static void assert_same(const struct state *a, const struct state *b)
{
        CU_ASSERT_EQUAL(a->present, b->present);
        CU_ASSERT_EQUAL(a->mtu, b->mtu);
        CU_ASSERT_EQUAL(a->trust, b->trust);
        CU_ASSERT(!memcmp(a->dscp_prio, b->dscp_prio, sizeof(a->dscp_prio)));
        CU_ASSERT_EQUAL(a->pfc_enabled, b->pfc_enabled);
        CU_ASSERT(!memcmp(&a->ets, &b->ets, sizeof(a->ets)));
        CU_ASSERT_EQUAL(a->ecn.queues, b->ecn.queues);
        for (unsigned q = 0; q < 8; q++) {
                if (!(a->ecn.queues & (1u << q)))
                        continue;
                CU_ASSERT_EQUAL(a->ecn.q[q].enabled, b->ecn.q[q].enabled);
                CU_ASSERT_EQUAL(a->ecn.q[q].min_bytes, b->ecn.q[q].min_bytes);
                CU_ASSERT_EQUAL(a->ecn.q[q].max_bytes, b->ecn.q[q].max_bytes);
                CU_ASSERT_EQUAL(a->ecn.q[q].probability_pct, b->ecn.q[q].probability_pct);
        }
        CU_ASSERT(!memcmp(&a->pfc_wd, &b->pfc_wd, sizeof(a->pfc_wd)));
        CU_ASSERT_EQUAL(a->nic_stall_ms, b->nic_stall_ms);
        CU_ASSERT_EQUAL(a->nic_stall_auto_ms, b->nic_stall_auto_ms);
        CU_ASSERT_EQUAL(a->host_ecn.prios, b->host_ecn.prios);
        CU_ASSERT_EQUAL(a->host_ecn.rp_enabled, b->host_ecn.rp_enabled);
        CU_ASSERT_EQUAL(a->host_ecn.np_enabled, b->host_ecn.np_enabled);
        CU_ASSERT_EQUAL(a->host_ecn.has_cnp, b->host_ecn.has_cnp);
        CU_ASSERT_EQUAL(a->host_ecn.cnp_dscp, b->host_ecn.cnp_dscp);
        CU_ASSERT_EQUAL(a->host_ecn.cnp_prio, b->host_ecn.cnp_prio);
        CU_ASSERT_EQUAL(a->dcb.present, b->dcb.present);
        CU_ASSERT_EQUAL(a->dcb.has_dcbx, b->dcb.has_dcbx);
        CU_ASSERT_EQUAL(a->dcb.dcbx, b->dcb.dcbx);
        CU_ASSERT_EQUAL(a->dcb.has_apps, b->dcb.has_apps);
        CU_ASSERT_EQUAL(a->dcb.n_apps, b->dcb.n_apps);
        CU_ASSERT(!memcmp(a->dcb.apps, b->dcb.apps, sizeof(a->dcb.apps[0]) * a->dcb.n_apps));
        CU_ASSERT_EQUAL(a->dcb.has_trust_table, b->dcb.has_trust_table);
        CU_ASSERT_EQUAL(a->dcb.n_trust, b->dcb.n_trust);
        CU_ASSERT_EQUAL(a->dcb.has_pfc_delay, b->dcb.has_pfc_delay);
        CU_ASSERT_EQUAL(a->dcb.pfc_delay, b->dcb.pfc_delay);
        CU_ASSERT_EQUAL(a->cable_len_m, b->cable_len_m);
        CU_ASSERT(!memcmp(&a->buffers, &b->buffers, sizeof(a->buffers)));
        CU_ASSERT_EQUAL(a->roce_tos, b->roce_tos);
        CU_ASSERT_EQUAL(a->roce.n_ports, b->roce.n_ports);
        for (unsigned i = 0; i < a->roce.n_ports; i++) {
                CU_ASSERT_STRING_EQUAL(a->roce.ports[i].dev, b->roce.ports[i].dev);
                CU_ASSERT_EQUAL(a->roce.ports[i].port, b->roce.ports[i].port);
                CU_ASSERT_EQUAL(a->roce.ports[i].has_cm, b->roce.ports[i].has_cm);
                CU_ASSERT_EQUAL(a->roce.ports[i].cm_tos, b->roce.ports[i].cm_tos);
                CU_ASSERT_EQUAL(a->roce.ports[i].has_ofed, b->roce.ports[i].has_ofed);
                if (a->roce.ports[i].has_ofed)
                        CU_ASSERT_EQUAL(a->roce.ports[i].ofed_tclass, b->roce.ports[i].ofed_tclass);
                CU_ASSERT_EQUAL(a->roce.ports[i].roce_mode, b->roce.ports[i].roce_mode);
        }
        CU_ASSERT(!memcmp(&a->nccl, &b->nccl, sizeof(a->nccl)));
}

static void test_round_trip(void)
{
        struct state a, b;
        struct errbuf e = { .where = "" };
        json_t *j;
        char *s;

        full_state(&a);
        j = state_to_json(&a);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j);
        CU_ASSERT_EQUAL(state_from_json(j, &b, &e), 0);
        assert_same(&a, &b);
        s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
        CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"queue3\":{\"enabled\":true,\"mark_probability_pct\":100,"
                                         "\"max_threshold_bytes\":4000000000,\"min_threshold_bytes\":150000}"));
        CU_ASSERT_PTR_NOT_NULL(strstr(s, "\"watchdog\":{\"action\":\"errdisable\",\"defaults\":[\"action\","
                                         "\"poll_interval_ms\"],\"detection_ms\":200,\"enabled\":true,"
                                         "\"poll_interval_ms\":100,\"priorities\":[3,4],\"restoration_ms\":0}"));
        free(s);
        /* the watchdog alone: no "priorities" in pfc, so pfc itself is not present */
        a.present = STATE_BIT(STATE_FIELD_PFC_WATCHDOG);
        json_decref(j);
        j = state_to_json(&a);
        CU_ASSERT_EQUAL(state_from_json(j, &b, &e), 0);
        CU_ASSERT_EQUAL(b.present, STATE_BIT(STATE_FIELD_PFC_WATCHDOG));
        CU_ASSERT(!memcmp(&a.pfc_wd, &b.pfc_wd, sizeof(a.pfc_wd)));
        full_state(&a);
        json_decref(j);

        /* What sat where the qdisc driver attaches its tree: kept, not a field. */
        a.qdisc = (struct state_qdisc){ .root = STATE_QDISC_FOREIGN, .kind = "htb", .handle = 0x10000 };
        j = state_to_json(&a);
        CU_ASSERT_EQUAL(state_from_json(j, &b, &e), 0);
        CU_ASSERT_EQUAL(b.qdisc.root, STATE_QDISC_FOREIGN);
        CU_ASSERT_STRING_EQUAL(b.qdisc.kind, "htb");
        CU_ASSERT_EQUAL(b.qdisc.handle, 0x10000);
        CU_ASSERT_EQUAL(b.present, a.present);
        s = json_dumps(json_object_get(j, "qdisc"), JSON_COMPACT | JSON_SORT_KEYS);
        CU_ASSERT_STRING_EQUAL(s, "{\"handle\":65536,\"kind\":\"htb\",\"root\":\"foreign\"}");
        free(s);
        json_decref(j);
}

static void test_partial(void)
{
        struct state a, b;
        struct errbuf e = { .where = "" };
        json_t *j;

        state_init(&a);
        j = state_to_json(&a);
        CU_ASSERT_EQUAL(json_object_size(j), 0);
        CU_ASSERT_EQUAL(state_from_json(j, &b, &e), 0);
        assert_same(&a, &b);
        json_decref(j);

        a.present = STATE_BIT(STATE_FIELD_DSCP_MAP) | STATE_BIT(STATE_FIELD_ECN);
        j = state_to_json(&a);
        CU_ASSERT_EQUAL(json_object_size(j), 2);
        CU_ASSERT_EQUAL(state_from_json(j, &b, &e), 0);
        assert_same(&a, &b);
        json_decref(j);

        /* a cable length read without the priorities: "pfc" holds it alone, and is not the pfc field */
        state_init(&a);
        a.present = STATE_BIT(STATE_FIELD_CABLE_LEN);
        a.cable_len_m = 7;
        j = state_to_json(&a);
        CU_ASSERT_PTR_NOT_NULL(json_object_get(json_object_get(j, "pfc"), "cable_length_m"));
        CU_ASSERT_PTR_NULL(json_object_get(json_object_get(j, "pfc"), "priorities"));
        CU_ASSERT_EQUAL(state_from_json(j, &b, &e), 0);
        CU_ASSERT_EQUAL(b.present, STATE_BIT(STATE_FIELD_CABLE_LEN));
        CU_ASSERT_EQUAL(b.cable_len_m, 7);
        json_decref(j);
}

static void bad(const char *doc, const char *where, const char *msg)
{
        struct errbuf e = { .where = "" };
        struct state s;
        json_t *j = json_loads(doc, 0, NULL);

        CU_ASSERT_PTR_NOT_NULL_FATAL(j);
        memset(&s, 0xaa, sizeof(s));
        CU_ASSERT_EQUAL(state_from_json(j, &s, &e), -EINVAL);
        CU_ASSERT_EQUAL(s.present, 0xaaaaaaaa);         /* untouched */
        if (strcmp(e.where, where) || strcmp(e.msg, msg))
                fprintf(stderr, "\n  got: %s: %s\n", e.where, e.msg);
        CU_ASSERT_STRING_EQUAL(e.where, where);
        CU_ASSERT_STRING_EQUAL(e.msg, msg);
        json_decref(j);
}

static void test_strict(void)
{
        bad("{\"bogus\":1}", "$", "unknown key 'bogus'");
        bad("{\"qdisc\":{\"root\":\"mine\"}}", "$.qdisc.root",
            "root 'mine' is not one of 'unknown', 'default', 'nettune', 'foreign'");
        bad("{\"mtu\":-1}", "$.mtu", "mtu -1 out of range 0-4294967295");
        bad("{\"trust\":1}", "$.trust", "expected string, found integer");
        bad("{\"dscp_to_priority\":{\"64\":1}}", "$.dscp_to_priority", "dscp key '64' is not an integer 0-63");
        bad("{\"dscp_to_priority\":{\"\\t5\":1}}", "$.dscp_to_priority", "dscp key '\\x095' is not an integer 0-63");
        bad("{\"dscp_to_priority\":{\"07\":1}}", "$.dscp_to_priority", "dscp key '07' is not an integer 0-63");
        bad("{\"pfc\":{\"priorities\":[8]}}", "$.pfc.priorities[0]", "priority 8 out of range 0-7");
        bad("{\"ecn\":{\"queue8\":{}}}", "$.ecn", "unknown key 'queue8', expected queue0 to queue7");
        bad("{\"ecn\":{\"queue1\":{\"enabled\":true}}}", "$.ecn.queue1", "missing required key 'min_threshold_bytes'");
        bad("{\"host_ecn\":{\"priority1\":{\"reaction_point\":1,\"notification_point\":true}}}",
            "$.host_ecn.priority1.reaction_point", "expected boolean, found integer");
        bad("{\"host_ecn\":{\"cnp_dscp\":3}}", "$.host_ecn", "cnp_dscp is given without cnp_priority; give both or neither");
        bad("{\"ets\":{\"priority_to_tc\":[0,0,0,0,0,0,0,0],\"tc_bandwidth_pct\":[0,0,0,0,0,0,0,0],"
            "\"tc_tsa\":[\"ets\",\"ets\",\"ets\",\"ets\",\"ets\",\"ets\",\"ets\",\"wrr\"]}}",
            "$.ets.tc_tsa[7]", "tsa 'wrr' is not one of 'strict', 'ets', 'vendor', 'cbs'");
        bad("{\"ports\":{}}", "$", "unknown key 'ports'");
        bad("{\"cable_length\":5}", "$", "unknown key 'cable_length'");
        bad("{\"pfc\":{\"cable_length_m\":65536}}", "$.pfc.cable_length_m", "cable_length_m 65536 out of range 0-65535");
        bad("{\"buffers\":{\"prio_to_buffer\":[0,0,0,8,0,0,0,0],\"buffer_size_bytes\":[0,0,0,0,0,0,0,0]}}",
            "$.buffers.prio_to_buffer[3]", "buffer 8 out of range 0-7");
        bad("{\"buffers\":{\"prio_to_buffer\":[0,0,0,0,0,0,0,0]}}", "$.buffers",
            "missing required key 'buffer_size_bytes'");
        bad("{\"roce_tos\":256}", "$.roce_tos", "roce_tos 256 out of range 0-255");
        bad("{\"roce_ports\":{\"mlx5_0\":{}}}", "$.roce_ports", "RDMA port 'mlx5_0' is not DEVICE/PORT (port 1-255)");
        bad("{\"roce_ports\":{\"mlx5_0/0\":{}}}", "$.roce_ports", "RDMA port 'mlx5_0/0' is not DEVICE/PORT (port 1-255)");
        bad("{\"roce_ports\":{\"mlx5_0/1\":{\"traffic_class\":-2}}}", "$.roce_ports['mlx5_0/1'].traffic_class",
            "traffic_class -2 out of range -1-255");
        bad("[]", "$", "expected object, found array");
}

/* A switch target's units: {"ports": {NAME: state}}, by name, back to the same order. */
static void test_units(void)
{
        static const char names[2][STATE_NAME_MAX] = { "swp1", "Ethernet0" };
        struct state u[2], back[2];
        struct errbuf e = { .where = "" };
        json_t *j, *bad_port;
        char *s;

        full_state(&u[0]);
        state_init(&u[1]);
        u[1].present = STATE_BIT(STATE_FIELD_MTU);
        u[1].mtu = 1500;
        j = state_units_to_json(u, names, 2);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j);
        s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
        CU_ASSERT_PTR_NOT_NULL(strstr(s, "{\"ports\":{\"Ethernet0\":{\"mtu\":1500},\"swp1\":{"));
        free(s);
        CU_ASSERT_EQUAL(state_units_from_json(j, names, 2, back, &e), 0);
        assert_same(&u[0], &back[0]);
        assert_same(&u[1], &back[1]);
        bad_port = json_pack("{s:{s:{}}}", "ports", "swp9");
        CU_ASSERT_EQUAL(state_units_from_json(bad_port, names, 2, back, &e), -ENOENT);
        CU_ASSERT_STRING_EQUAL(e.msg, "port 'swp9' is not one of the target's ports");
        json_decref(bad_port);
        json_decref(j);
        /* An interface is its one unit, as state_to_json(). */
        j = state_units_to_json(u, NULL, 1);
        CU_ASSERT_EQUAL(state_units_from_json(j, NULL, 1, back, &e), 0);
        assert_same(&u[0], &back[0]);
        json_decref(j);
}

int suite_state_json(void);
int suite_state_json(void)
{
        CU_pSuite s = CU_add_suite("state_json", NULL, NULL);

        if (!s || !CU_add_test(s, "round_trip", test_round_trip) || !CU_add_test(s, "partial", test_partial) ||
            !CU_add_test(s, "strict", test_strict) || !CU_add_test(s, "units", test_units))
                return -1;
        return 0;
}
