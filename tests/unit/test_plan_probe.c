/* SPDX-License-Identifier: MIT */
/*
 * The probe of a plan (agent/plan/plan_probe.c) over the real link and dcb drivers and
 * the DCB device model: which DSCP and priority the gate measures with (verify.dscp,
 * the policy's map and PFC, else the interface's live ones, else DSCP 0 with a
 * note), and the refusal of a probe that does not leave by a target.
 */
#include <CUnit/CUnit.h>

#include "common/outcome.h"
#include "agent/plan/plan.h"
#include "drivers/host/dcb_driver.h"
#include "drivers/host/iface.h"
#include "drivers/host/link.h"
#include "tests/lib/drvtest.h"
#include "tests/nicmodel/nm_transport.h"

static struct nm model;
static struct nm_transport model_x;
static struct agent_config config;
static const struct driver_ops *const table[] = { &link_driver, &dcb_driver, NULL };
static char pin_netdev[16];

static int model_ifaces(const struct agent_config *c, struct iface **ret, unsigned *ret_n, struct errbuf *e)
{
        struct iface *v = calloc(2, sizeof(*v));

        if (!v)
                return -ENOMEM;
        v[0] = (struct iface){ .name = "vA", .ifindex = 3, .kernel_driver = "mlx5_core" };
        v[1] = (struct iface){ .name = "vB", .ifindex = 4, .kernel_driver = "veth" };
        *ret = v;
        *ret_n = 2;
        return 0;
}

/* The route, as a kernel would answer it: out of pin_netdev. */
static int fake_pin(const struct probe_params *p, enum probe_mode m, struct probe_params *ret,
                    struct probe_path *ret_path, char *warning, size_t wsize, struct errbuf *e)
{
        struct probe_path path = { .mode = PROBE_MODE_TCP, .gid_index = -1, .dscp = -1, .priority = -1,
                                   .streams = p->streams, .message_size = p->message_size };

        snprintf(path.netdev, sizeof(path.netdev), "%s", p->netdev[0] ? p->netdev : pin_netdev);
        snprintf(path.peer, sizeof(path.peer), "%s", p->peer);
        snprintf(path.source, sizeof(path.source), "192.0.2.1");
        snprintf(warning, wsize, "%s", m == PROBE_MODE_AUTO ? "probe 'auto' resolved to tcp (test)" : "");
        *ret = *p;
        *ret_path = path;
        return 0;
}

/* vA (mlx5-like) live: DSCP 26 -> 3, 48 -> 6, PFC on 3; vB without DCB. */
static void setup_model(void)
{
        struct driver_env env = { .settle_ms = 2000 };
        struct target t = { .kind = TARGET_INTERFACE, .name = "vA", .ifindex = 3, .env = &env };
        struct state want;
        struct errbuf e;

        nm_init(&model);
        CU_ASSERT_FATAL(nm_add(&model, "mlx5:vA:3") == 0 && nm_add(&model, "veth:vB:4") == 0);
        nm_transport_init(&model_x, &model);
        env.nl = nm_transport_get(&model_x);
        state_init(&want);
        want.present = STATE_BIT(STATE_FIELD_DSCP_MAP) | STATE_BIT(STATE_FIELD_PFC) | STATE_BIT(STATE_FIELD_TRUST);
        want.trust = STATE_TRUST_DSCP;
        want.dscp_prio[26] = 3;
        want.dscp_prio[48] = 6;
        want.pfc_enabled = 1u << 3;
        CU_ASSERT_FATAL(drvtest_apply(&dcb_driver, &t, &want, &e) == 0);
        memset(&config, 0, sizeof(config));
        config.env.nl = nm_transport_get(&model_x);
        config.env.settle_ms = 2000;
        config.probe_runs = 3;
        config.n_probe_peers = 1;               /* the model's peers (10.0.0.2): probe.peers */
        snprintf(config.probe_peers[0], sizeof(config.probe_peers[0]), "10.0.0.0/8");
        snprintf(config.env.sysfs_root, sizeof(config.env.sysfs_root), "/nonexistent");
}

static int plan_of(struct plan *p, const char *targets, const char *spec, const char *verify)
{
        struct policy *pol = NULL;
        struct errbuf e = { 0 };
        char doc[1024];
        int r;

        snprintf(doc, sizeof(doc),
                 "{\"apiVersion\":\"nettune/v1\",\"kind\":\"Policy\",\"metadata\":{\"name\":\"p\"},"
                 "\"targets\":{\"interfaces\":[%s]},\"spec\":%s,\"verify\":%s}", targets, spec,
                 verify ? verify : "{\"peer\":\"10.0.0.2:18515\"}");
        if (policy_parse_buffer(doc, strlen(doc), "test", &pol, &e) < 0)
                return -EINVAL;
        plan_init(p, &(struct plan_env){ .config = &config, .drivers = table, .interfaces = model_ifaces,
                                         .pin = fake_pin });
        r = plan_for_policy(p, pol, 0, &e);
        if (r >= 0)
                r = plan_read(p, &e);
        policy_free(pol);
        return r;
}

static bool has_note(const struct plan *p, const char *needle)
{
        for (unsigned i = 0; i < p->n_notes; i++)
                if (strstr(p->notes[i], needle))
                        return true;
        return false;
}

static void test_class_from_live_and_policy(void)
{
        struct plan p;
        char from[16];
        int dscp, prio;

        setup_model();
        /* the policy manages no map: the live one of vA; DSCP 26 is the lowest going to PFC priority 3 */
        CU_ASSERT_EQUAL_FATAL(plan_of(&p, "\"vA\"", "{\"mtu\":9000}", NULL), 0);
        plan_probe_class(&p, "vA", -1, &dscp, &prio, from, sizeof(from));
        CU_ASSERT_EQUAL(dscp, 26);
        CU_ASSERT_EQUAL(prio, 3);
        CU_ASSERT_STRING_EQUAL(from, "live");
        CU_ASSERT_EQUAL(p.n_notes, 0);
        /* verify.dscp wins; its priority is what the map gives it */
        plan_probe_class(&p, "vA", 48, &dscp, &prio, from, sizeof(from));
        CU_ASSERT_EQUAL(dscp, 48);
        CU_ASSERT_EQUAL(prio, 6);
        CU_ASSERT_STRING_EQUAL(from, "verify.dscp");
        CU_ASSERT_TRUE(has_note(&p, "maps to priority 6 on 'vA', which is not PFC-enabled"));
        plan_free(&p);

        /* the policy's map and PFC (what the change makes lossless), not the live ones */
        CU_ASSERT_EQUAL_FATAL(plan_of(&p, "\"vA\"", "{\"dscp_to_priority\":{\"10\":5,\"40\":4,\"46\":4},"
                                      "\"pfc\":{\"priorities\":[4]}}", NULL), 0);
        plan_probe_class(&p, "vA", -1, &dscp, &prio, from, sizeof(from));
        CU_ASSERT_EQUAL(dscp, 40);
        CU_ASSERT_EQUAL(prio, 4);
        CU_ASSERT_STRING_EQUAL(from, "policy");
        plan_free(&p);

        /* the policy's map with the live PFC: 26 -> 3 and PFC on 3 live */
        CU_ASSERT_EQUAL_FATAL(plan_of(&p, "\"vA\"", "{\"dscp_to_priority\":{\"8\":1,\"26\":3}}", NULL), 0);
        plan_probe_class(&p, "vA", -1, &dscp, &prio, from, sizeof(from));
        CU_ASSERT_EQUAL(dscp, 26);
        CU_ASSERT_EQUAL(prio, 3);
        CU_ASSERT_STRING_EQUAL(from, "policy");
        plan_free(&p);

        /* a policy that turns PFC off leaves no lossless DSCP: 0, with a note */
        CU_ASSERT_EQUAL_FATAL(plan_of(&p, "\"vA\"", "{\"pfc\":{\"priorities\":[]}}", NULL), 0);
        plan_probe_class(&p, "vA", -1, &dscp, &prio, from, sizeof(from));
        CU_ASSERT_EQUAL(dscp, 0);
        CU_ASSERT_EQUAL(prio, -1);
        CU_ASSERT_STRING_EQUAL(from, "none");
        CU_ASSERT_TRUE(has_note(&p, "no DSCP of the live DSCP map goes to a PFC-enabled priority on 'vA'"));
        plan_free(&p);
        nm_transport_done(&model_x);
        nm_done(&model);
}

static void test_class_without_dcb(void)
{
        struct plan p;
        char from[16];
        int dscp, prio;

        setup_model();
        CU_ASSERT_EQUAL_FATAL(plan_of(&p, "\"vB\"", "{\"mtu\":9000}", NULL), 0);
        plan_probe_class(&p, "vB", -1, &dscp, &prio, from, sizeof(from));
        CU_ASSERT_EQUAL(dscp, 0);
        CU_ASSERT_EQUAL(prio, -1);
        CU_ASSERT_TRUE(has_note(&p, "'vB' has no DSCP map and PFC priorities to choose a lossless DSCP from"));
        /* verify.dscp on a port without a map: that DSCP, the priority left to the kernel */
        plan_probe_class(&p, "vB", 26, &dscp, &prio, from, sizeof(from));
        CU_ASSERT_EQUAL(dscp, 26);
        CU_ASSERT_EQUAL(prio, -1);
        CU_ASSERT_TRUE(has_note(&p, "DSCP 26 is in no DSCP map of 'vB'"));
        CU_ASSERT_FALSE(has_note(&p, "switch-port field"));
        plan_free(&p);

        /* queue ECN thresholds on a host's interfaces: not silently "no changes" */
        CU_ASSERT_EQUAL_FATAL(plan_of(&p, "\"vA\", \"vB\"", "{\"mtu\":9000,\"ecn\":{\"queues\":[3],"
                                      "\"min_threshold_bytes\":150000,\"max_threshold_bytes\":1500000,"
                                      "\"mark_probability_pct\":10}}", NULL), 0);
        CU_ASSERT_TRUE(has_note(&p, "ecn is a switch-port field: this agent (role host) leaves it alone"));
        CU_ASSERT_EQUAL(p.v[0].want & STATE_BIT(STATE_FIELD_ECN), 0);
        plan_free(&p);
        nm_transport_done(&model_x);
        nm_done(&model);
}

static void test_pin_target(void)
{
        struct plan_probe refused;
        struct plan_probe pp;
        struct errbuf e = { 0 };
        struct plan p;
        json_t *j;

        setup_model();
        /* the route leaves by vB, the policy targets vA only: refused, nothing read or written further */
        snprintf(pin_netdev, sizeof(pin_netdev), "vB");
        CU_ASSERT_EQUAL_FATAL(plan_of(&p, "\"vA\"", "{\"mtu\":9000}", NULL), 0);
        CU_ASSERT_EQUAL(plan_probe_pin(&p, &(struct policy_verify){ .present = true, .probe = POLICY_PROBE_AUTO,
                        .peer = "10.0.0.2:18515", .dscp = -1, .streams = 1, .message_size = 65536 }, 0, &pp, &e), -EINVAL);
        CU_ASSERT_EQUAL(outcome_of_errno(-EINVAL), OUTCOME_INVALID);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "leaves by interface 'vB', which is not an interface target of this "
                                             "policy ('vA')"));
        /* the way back (rollback) measures there all the same, with a note */
        CU_ASSERT_EQUAL(plan_probe_pin(&p, &(struct policy_verify){ .present = true, .probe = POLICY_PROBE_AUTO,
                        .peer = "10.0.0.2:18515", .dscp = -1, .streams = 1, .message_size = 65536 },
                        PLAN_PROBE_ANY_INTERFACE, &pp, &e), 0);
        CU_ASSERT_TRUE(has_note(&p, "leaves by interface 'vB', which this change does not touch"));
        /* named in verify.device: measured there, with vB's (absent) class */
        CU_ASSERT_EQUAL(plan_probe_pin(&p, &(struct policy_verify){ .present = true, .probe = POLICY_PROBE_AUTO,
                        .peer = "10.0.0.2:18515", .dscp = -1, .streams = 2, .message_size = 4096, .device = "vB" },
                        0, &pp, &e), 0);
        CU_ASSERT_STRING_EQUAL(pp.path.netdev, "vB");
        CU_ASSERT_EQUAL(pp.path.dscp, 0);
        plan_free(&p);

        /* a probe outside the targets rides the class the policy makes lossless on them (switch-only policies) */
        CU_ASSERT_EQUAL_FATAL(plan_of(&p, "\"vA\"", "{\"dscp_to_priority\":{\"40\":4},\"pfc\":{\"priorities\":[4]}}",
                                      NULL), 0);
        CU_ASSERT_EQUAL(plan_probe_pin(&p, &(struct policy_verify){ .present = true, .probe = POLICY_PROBE_TCP,
                        .peer = "10.0.0.2:18515", .dscp = -1, .streams = 1, .message_size = 4096, .device = "vB" },
                        0, &pp, &e), 0);
        CU_ASSERT_EQUAL(pp.path.dscp, 40);
        CU_ASSERT_EQUAL(pp.path.priority, 4);
        CU_ASSERT_STRING_EQUAL(pp.dscp_from, "policy");
        plan_free(&p);

        /* leaving by vA: its live class, the warning of auto, and the JSON of the plan */
        snprintf(pin_netdev, sizeof(pin_netdev), "vA");
        CU_ASSERT_EQUAL_FATAL(plan_of(&p, "\"vA\",\"vB\"", "{\"mtu\":9000}", NULL), 0);
        CU_ASSERT_EQUAL(plan_probe_pin(&p, &(struct policy_verify){ .present = true, .probe = POLICY_PROBE_AUTO,
                        .peer = "10.0.0.2:18515", .dscp = -1, .streams = 4, .message_size = 4096 }, 0, &pp, &e), 0);
        CU_ASSERT_EQUAL(pp.params.traffic_class, 26 << 2);
        CU_ASSERT_EQUAL(pp.params.priority, 3);
        CU_ASSERT_EQUAL(pp.params.streams, 4);
        CU_ASSERT_EQUAL(pp.runs, 3);
        CU_ASSERT_EQUAL(pp.n_warnings, 1);
        /* a peer outside probe.peers: refused before the route is even looked up, saying only that */
        CU_ASSERT_EQUAL(plan_probe_pin(&p, &(struct policy_verify){ .present = true, .probe = POLICY_PROBE_AUTO,
                        .peer = "192.0.2.9:22", .dscp = -1, .streams = 1, .message_size = 4096 }, 0, &refused, &e),
                        -EPERM);
        CU_ASSERT_STRING_EQUAL(e.where, "$.verify.peer");
        CU_ASSERT_STRING_EQUAL(e.msg, "peer refused");
        CU_ASSERT_EQUAL(outcome_of_errno(-EPERM), OUTCOME_INVALID);
        CU_ASSERT_TRUE(has_note(&p, "warning: probe 'auto' resolved to tcp (test)"));
        j = plan_probe_to_json(&pp);
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "dscp")), 26);
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(j, "priority")), 3);
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "dscp_from")), "live");
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "interface")), "vA");
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(j, "requested")), "auto");
        CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "warnings")), 1);
        json_decref(j);
        /* probe none: nothing pinned */
        CU_ASSERT_EQUAL(plan_probe_pin(&p, &(struct policy_verify){ .present = true, .probe = POLICY_PROBE_NONE },
                                       0, &pp, &e), 0);
        CU_ASSERT_FALSE(pp.active);
        plan_free(&p);
        nm_transport_done(&model_x);
        nm_done(&model);
}

/*
 * The priority a probe rode after the change, read again from the mlx5 model: DSCP
 * through the map under trust dscp (26 -> 3, PFC: lossless; 48 -> 6: not; 10, in no
 * APP entry: 0); under trust pcp a socket's untagged frames ride 0, a QP its SL; a
 * port without PFC (vB) has no class to judge.
 */
static void test_rode(void)
{
        struct probe_path path = { .mode = PROBE_MODE_TCP, .netdev = "vA", .dscp = 26, .priority = 3 };
        struct driver_env env = { .settle_ms = 2000 };
        struct target t = { .kind = TARGET_INTERFACE, .name = "vA", .ifindex = 3, .env = &env };
        struct plan_probe_rode c;
        struct state want;
        struct errbuf e;
        struct plan p;

        setup_model();
        CU_ASSERT_EQUAL_FATAL(plan_of(&p, "\"vA\",\"vB\"", "{\"mtu\":9000}", NULL), 0);
        plan_probe_rode(&p, &path, &c);
        CU_ASSERT_TRUE(c.judged && c.lossless);
        CU_ASSERT_EQUAL(c.priority, 3);
        CU_ASSERT_STRING_EQUAL(c.how, "DSCP 26 through the DSCP map of 'vA' (trust dscp)");
        path.dscp = 48;
        plan_probe_rode(&p, &path, &c);
        CU_ASSERT_TRUE(c.judged && !c.lossless);
        CU_ASSERT_EQUAL(c.priority, 6);
        CU_ASSERT_PTR_NOT_NULL(strstr(c.reason, "the probe's traffic rode priority 6, not the lossless 3: the change "
                                                "is not what the workload will see"));
        path.dscp = 10;
        plan_probe_rode(&p, &path, &c);
        CU_ASSERT_EQUAL(c.priority, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(c.how, "in no entry of the DSCP map of 'vA' (trust dscp): priority 0"));

        plan_free(&p);
        /* trust pcp, PFC on 3 and 4 (a plan read before it sees the old class: the plan of the change is read anew) */
        env.nl = nm_transport_get(&model_x);
        state_init(&want);
        want.present = STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_PFC);
        want.trust = STATE_TRUST_PCP;
        want.pfc_enabled = (1u << 3) | (1u << 4);
        CU_ASSERT_FATAL(drvtest_apply(&dcb_driver, &t, &want, &e) == 0);
        CU_ASSERT_EQUAL_FATAL(plan_of(&p, "\"vA\",\"vB\"", "{\"mtu\":9000}", NULL), 0);
        path.dscp = 26;
        plan_probe_rode(&p, &path, &c);
        CU_ASSERT_TRUE(c.judged && !c.lossless);
        CU_ASSERT_EQUAL(c.priority, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(c.reason, "rode priority 0, not a lossless one (3, 4)"));
        CU_ASSERT_PTR_NOT_NULL(strstr(c.how, "untagged frames of 'vA' under trust pcp ride priority 0"));
        path.mode = PROBE_MODE_VERBS;
        plan_probe_rode(&p, &path, &c);
        CU_ASSERT_TRUE(c.judged && c.lossless);
        CU_ASSERT_EQUAL(c.priority, 3);
        CU_ASSERT_STRING_EQUAL(c.how, "SL 3 of the probe's QP ('vA' trusts pcp)");

        snprintf(path.netdev, sizeof(path.netdev), "vB");
        plan_probe_rode(&p, &path, &c);
        CU_ASSERT_FALSE(c.judged);
        CU_ASSERT_EQUAL(c.priority, -1);
        CU_ASSERT_STRING_EQUAL(c.how, "'vB' has no PFC priority: there is no lossless class for the probe to prove");
        plan_free(&p);
        nm_transport_done(&model_x);
        nm_done(&model);
}

int suite_plan_probe(void);
int suite_plan_probe(void)
{
        CU_pSuite s = CU_add_suite("plan_probe", NULL, NULL);

        if (!s ||
            !CU_add_test(s, "class_from_live_and_policy", test_class_from_live_and_policy) ||
            !CU_add_test(s, "class_without_dcb", test_class_without_dcb) ||
            !CU_add_test(s, "pin_target", test_pin_target) ||
            !CU_add_test(s, "rode", test_rode))
                return -1;
        return 0;
}
