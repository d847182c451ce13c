/* SPDX-License-Identifier: MIT */
/*
 * The doctor's rules over hand-built facts: each fires on its fault, stays silent
 * without it, and holds its boundary; the path; the facts' JSON both ways; the
 * proposal is a policy the parser accepts and fixes what it says it fixes.
 */
#include <CUnit/CUnit.h>

#include "policies/doctor/doctor.h"
#include "policies/policy/policy.h"

static struct doctor_facts F;
static struct doctor_params P;
static struct doctor_report R;

static int setup(void)
{
        return 0;
}

static void reset(void)
{
        doctor_report_free(&R);
        doctor_facts_free(&F);
        doctor_facts_init(&F);
        doctor_report_init(&R);
        doctor_params_default(&P);
}

static struct doctor_node *node(const char *name)
{
        struct doctor_node *n = doctor_facts_add_node(&F);

        CU_ASSERT_FATAL(n != NULL);
        snprintf(n->name, sizeof(n->name), "%s", name);
        n->window_s = 1;
        n->drift_known = true;
        return n;
}

/* A host with one RoCE interface facing sw:port, MTU 9000, trust dscp, 26->3, PFC on 3. */
static struct doctor_iface *host(const char *name, const char *sw, const char *port)
{
        struct doctor_node *n = node(name);
        struct doctor_iface *x = doctor_node_add_iface(n);

        CU_ASSERT_FATAL(x != NULL);
        snprintf(x->name, sizeof(x->name), "eth0");
        snprintf(x->driver, sizeof(x->driver), "mlx5_core");
        x->rdma = true;
        x->link = (struct doctor_link){ .state_known = true, .up = true, .speed_mbps = 100000 };
        x->st.present = STATE_BIT(STATE_FIELD_MTU) | STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_DSCP_MAP) |
                        STATE_BIT(STATE_FIELD_PFC);
        x->st.mtu = 9000;
        x->st.trust = STATE_TRUST_DSCP;
        x->st.dscp_prio[26] = 3;
        x->st.dscp_prio[48] = 6;
        x->st.pfc_enabled = 1u << 3;
        if (sw) {
                x->peer.source = DOCTOR_PATH_CONFIG;
                snprintf(x->peer.sw, sizeof(x->peer.sw), "%s", sw);
                snprintf(x->peer.port, sizeof(x->peer.port), "%s", port);
        }
        return x;
}

/* A switch managed by node `mgr` with ports swp1..swpN agreeing with host(): ECN on queue 3 at the floor. */
static struct doctor_switch *leaf(const char *mgr, const char *name, unsigned ports)
{
        struct doctor_node *n = node(mgr);
        struct doctor_switch *sw = doctor_node_add_switch(n, ports);

        CU_ASSERT_FATAL(sw != NULL);
        snprintf(sw->name, sizeof(sw->name), "%s", name);
        snprintf(sw->dialect, sizeof(sw->dialect), "nvue");
        sw->mtu_max = 9216;
        for (unsigned i = 0; i < ports; i++) {
                struct doctor_port *p = &sw->ports[i];

                snprintf(p->name, sizeof(p->name), "swp%u", i + 1);
                p->link = (struct doctor_link){ .state_known = true, .up = true, .speed_mbps = 100000 };
                p->st.present = STATE_BIT(STATE_FIELD_MTU) | STATE_BIT(STATE_FIELD_TRUST) |
                                STATE_BIT(STATE_FIELD_DSCP_MAP) | STATE_BIT(STATE_FIELD_PFC) | STATE_BIT(STATE_FIELD_ECN);
                p->st.mtu = 9216;
                p->st.trust = STATE_TRUST_DSCP;
                p->st.dscp_prio[26] = 3;
                p->st.dscp_prio[48] = 6;
                p->st.pfc_enabled = 1u << 3;
                p->st.ecn.queues = 0xff;
                p->st.ecn.q[3] = (struct state_ecn_queue){ true, 150000, 1500000, 100 };
        }
        return sw;
}

/* Pointers into F move when nodes are added: look them up after building. */
static struct doctor_iface *iface_of(const char *node)
{
        for (unsigned i = 0; i < F.n_nodes; i++)
                if (streq(F.nodes[i].name, node))
                        return &F.nodes[i].ifs[0];
        return NULL;
}

static struct doctor_port *port_of(const char *sw, unsigned i)
{
        for (unsigned n = 0; n < F.n_nodes; n++)
                for (unsigned s = 0; s < F.nodes[n].n_switches; s++)
                        if (streq(F.nodes[n].switches[s].name, sw))
                                return &F.nodes[n].switches[s].ports[i];
        return NULL;
}

static void rate(struct doctor_rates *r, const char *name, enum doctor_counter kind, int prio, double per_s)
{
        struct doctor_rate *x = doctor_rates_add(r);

        CU_ASSERT_FATAL(x != NULL);
        snprintf(x->name, sizeof(x->name), "%s", name);
        x->kind = (uint8_t)kind;
        x->prio = (int8_t)prio;
        x->per_s = per_s;
        x->delta = (uint64_t)per_s;
}

static unsigned run(void)
{
        doctor_report_free(&R);
        doctor_report_init(&R);
        CU_ASSERT_EQUAL(doctor_run(&F, &P, &R), 0);
        return R.n;
}

static unsigned count(const char *code)
{
        unsigned n = 0;

        for (unsigned i = 0; i < R.n; i++)
                n += streq(R.v[i].rule->code, code);
        return n;
}

static const struct doctor_finding *find(const char *code)
{
        for (unsigned i = 0; i < R.n; i++)
                if (streq(R.v[i].rule->code, code))
                        return &R.v[i];
        return NULL;
}

static double ev(const struct doctor_finding *x, const char *key)
{
        for (unsigned i = 0; x && i < x->n_ev; i++)
                if (streq(x->ev[i].key, key))
                        return x->ev[i].is_num ? x->ev[i].num : -1;
        return -2;
}

static bool has_note(const char *part)
{
        for (unsigned i = 0; i < R.n_notes; i++)
                if (strstr(R.notes[i], part))
                        return true;
        return false;
}

/* host gpu1 -> leaf1:swp1, host gpu2 -> leaf1:swp2: every rule silent. */
static void healthy(void)
{
        reset();
        host("gpu1", "leaf1", "swp1");
        host("gpu2", "leaf1", "swp2");
        leaf("fabric1", "leaf1", 2);
}

static void test_healthy_is_clean(void)
{
        healthy();
        CU_ASSERT_EQUAL(run(), 0);
        CU_ASSERT_EQUAL(R.n_notes, 0);
        CU_ASSERT_EQUAL(R.prop.spec.present, 0);
}

static void test_mtu(void)
{
        const struct doctor_finding *x;
        char *doc = NULL;
        struct errbuf e;
        struct policy *pol = NULL;

        healthy();
        port_of("leaf1", 0)->st.mtu = 9000;             /* equal: fine */
        run();
        CU_ASSERT_EQUAL(count("mtu_mismatch"), 0);
        port_of("leaf1", 0)->st.mtu = 8999;             /* one byte below the host */
        run();
        CU_ASSERT_EQUAL_FATAL(count("mtu_mismatch"), 1);
        x = find("mtu_mismatch");
        CU_ASSERT_EQUAL(x->severity, DOCTOR_CRITICAL);
        CU_ASSERT_EQUAL(ev(x, "host_mtu"), 9000);
        CU_ASSERT_EQUAL(ev(x, "switch_port_mtu"), 8999);
        CU_ASSERT_STRING_EQUAL(x->ports[0], "gpu1:eth0");
        CU_ASSERT_STRING_EQUAL(x->ports[1], "leaf1:swp1");
        CU_ASSERT_STRING_EQUAL(x->nodes[1], "fabric1");
        CU_ASSERT(x->fixed);
        CU_ASSERT_EQUAL(R.prop.spec.mtu, 9216);
        CU_ASSERT_STRING_EQUAL(R.prop.targets[0], "leaf1");
        CU_ASSERT_STRING_EQUAL(R.prop.nodes[0], "fabric1");
        CU_ASSERT_EQUAL(doctor_proposal_policy(&R, "fix", NULL, 0, &doc, &e), 0);
        CU_ASSERT_FATAL(doc != NULL);
        CU_ASSERT_EQUAL_FATAL(policy_parse_buffer(doc, strlen(doc), "proposal", &pol, &e), 0);
        CU_ASSERT_EQUAL(pol->spec.present, STATE_BIT(STATE_FIELD_MTU));
        CU_ASSERT_EQUAL(pol->spec.mtu, 9216);
        CU_ASSERT_STRING_EQUAL(pol->switches[0], "leaf1");
        policy_free(pol);
        free(doc);

        /* a host above what the switch can carry: the fix is on the host, not in the proposal */
        iface_of("gpu1")->st.mtu = 9300;
        run();
        x = find("mtu_mismatch");
        CU_ASSERT_FATAL(x != NULL);
        CU_ASSERT_FALSE(x->fixed);
        CU_ASSERT_PTR_NOT_NULL(strstr(x->fix, "lower the MTU of gpu1 eth0 to at most 9216"));
}

static void test_path_unknown(void)
{
        healthy();
        iface_of("gpu2")->peer.source = DOCTOR_PATH_NONE;
        port_of("leaf1", 1)->st.mtu = 1500;             /* gpu2's port, but nobody knows it is */
        run();
        CU_ASSERT_EQUAL(count("mtu_mismatch"), 0);
        CU_ASSERT(has_note("gpu2 eth0: path unknown (no 'links' entry and no LLDP neighbour); not checked: "
                           "mtu_mismatch, trust_mismatch, dscp_map_mismatch, pfc_priority_mismatch, "
                           "cnp_priority_mismatch"));
        /* a peer that names a switch nobody collected */
        healthy();
        snprintf(iface_of("gpu1")->peer.sw, DOCTOR_NAME_MAX, "leaf9");
        run();
        CU_ASSERT(has_note("gpu1 eth0: path unknown (switch 'leaf9' is not in the collected facts)"));
        snprintf(iface_of("gpu1")->peer.sw, DOCTOR_NAME_MAX, "leaf1");
        snprintf(iface_of("gpu1")->peer.port, DOCTOR_NAME_MAX, "swp7");
        run();
        CU_ASSERT(has_note("switch 'leaf1' has no configured port 'swp7'"));
}

static void test_trust(void)
{
        const struct doctor_finding *x;

        healthy();
        port_of("leaf1", 0)->st.trust = STATE_TRUST_PCP;
        run();
        CU_ASSERT_EQUAL_FATAL(count("trust_mismatch"), 1);
        x = find("trust_mismatch");
        CU_ASSERT(x->fixed);
        CU_ASSERT_EQUAL(R.prop.spec.trust, STATE_TRUST_DSCP);
        /* a host whose trust is not known says nothing */
        iface_of("gpu1")->st.present &= ~STATE_BIT(STATE_FIELD_TRUST);
        run();
        CU_ASSERT_EQUAL(count("trust_mismatch"), 0);
}

static void test_dscp_map(void)
{
        const struct doctor_finding *x;

        healthy();
        port_of("leaf1", 0)->st.dscp_prio[26] = 4;
        port_of("leaf1", 0)->st.dscp_prio[10] = 1;      /* the switch's own entries stay in the proposal */
        run();
        CU_ASSERT_EQUAL_FATAL(count("dscp_map_mismatch"), 1);
        x = find("dscp_map_mismatch");
        CU_ASSERT_EQUAL(ev(x, "dscp"), 26);
        CU_ASSERT(x->fixed);
        CU_ASSERT_EQUAL(R.prop.spec.dscp_prio[26], 3);
        CU_ASSERT_EQUAL(R.prop.spec.dscp_prio[10], 1);
        CU_ASSERT_EQUAL(R.prop.spec.dscp_prio[48], 6);
        /* a host that trusts pcp: its DSCP map classifies nothing */
        iface_of("gpu1")->st.trust = STATE_TRUST_PCP;
        run();
        CU_ASSERT_EQUAL(count("dscp_map_mismatch"), 0);
        /* a DSCP the host makes lossless, other than 26 */
        healthy();
        iface_of("gpu1")->st.dscp_prio[24] = 3;
        port_of("leaf1", 0)->st.dscp_prio[24] = 0;
        run();
        CU_ASSERT_EQUAL(count("dscp_map_mismatch"), 1);
        CU_ASSERT_EQUAL(ev(find("dscp_map_mismatch"), "dscp"), 24);
}

static void test_pfc(void)
{
        const struct doctor_finding *x;

        healthy();
        port_of("leaf1", 0)->st.pfc_enabled = 1u << 4;
        run();
        CU_ASSERT_EQUAL_FATAL(count("pfc_priority_mismatch"), 1);
        x = find("pfc_priority_mismatch");
        CU_ASSERT_EQUAL(ev(x, "roce_priority"), 3);
        CU_ASSERT(x->fixed);
        CU_ASSERT_EQUAL(R.prop.spec.pfc_enabled, 1u << 3);
        /* the RoCE DSCP rides 3, lossy on swp1: no rule of that code proposes, but PFC on 3 clears it */
        x = find("roce_priority_lossy");
        CU_ASSERT_FATAL(x != NULL);
        CU_ASSERT(x->fixed);
        /* more lossless priorities on the switch than the host uses: fine */
        port_of("leaf1", 0)->st.pfc_enabled = (1u << 3) | (1u << 4);
        run();
        CU_ASSERT_EQUAL(count("pfc_priority_mismatch"), 0);
        /* a host whose lossless priority no DSCP reaches (7, RoCE on 3): the switch is not told to copy it */
        port_of("leaf1", 0)->st.pfc_enabled = 1u << 4;
        iface_of("gpu1")->st.pfc_enabled = 1u << 7;
        run();
        x = find("pfc_priority_mismatch");
        CU_ASSERT_FATAL(x != NULL);
        CU_ASSERT_FALSE(x->fixed);
        CU_ASSERT_PTR_NOT_NULL(strstr(x->fix, "make the RoCE priority 3 lossless on gpu1 eth0"));
        CU_ASSERT_FALSE(state_has(&R.prop.spec, STATE_FIELD_PFC) && R.prop.spec.pfc_enabled == 1u << 7);
        iface_of("gpu1")->st.pfc_enabled = 1u << 3;
        port_of("leaf1", 0)->st.pfc_enabled = (1u << 3) | (1u << 4);
        /* a host without PFC where the switch makes RoCE lossless: fix on the host */
        iface_of("gpu1")->st.pfc_enabled = 0;
        run();
        x = find("pfc_priority_mismatch");
        CU_ASSERT_FATAL(x != NULL);
        CU_ASSERT_FALSE(x->fixed);
        CU_ASSERT_PTR_NOT_NULL(strstr(x->fix, "enable PFC on priority 3 on gpu1 eth0"));
}

static void test_ecn_disabled(void)
{
        const struct doctor_finding *x;

        healthy();
        run();
        CU_ASSERT_EQUAL(count("ecn_disabled_on_lossless_queue"), 0);
        port_of("leaf1", 0)->st.ecn.q[3].enabled = false;
        port_of("leaf1", 1)->st.ecn.q[3].enabled = false;
        run();
        CU_ASSERT_EQUAL_FATAL(count("ecn_disabled_on_lossless_queue"), 1);    /* one per switch and queue */
        x = find("ecn_disabled_on_lossless_queue");
        CU_ASSERT_EQUAL(x->n_ports, 2);
        CU_ASSERT_EQUAL(ev(x, "queue"), 3);
        CU_ASSERT(x->fixed);
        CU_ASSERT_EQUAL(R.prop.spec.ecn.queues, 1u << 3);
        CU_ASSERT_EQUAL(R.prop.spec.ecn.q[3].min_bytes, 150000);
        /* the NIC side: DCQCN off on the lossless priority */
        healthy();
        iface_of("gpu1")->st.present |= STATE_BIT(STATE_FIELD_HOST_ECN);
        iface_of("gpu1")->st.host_ecn = (struct state_host_ecn){ .prios = 0xff, .rp_enabled = 1u << 3,
                                                                 .np_enabled = 0 };
        run();
        x = find("ecn_disabled_on_lossless_queue");
        CU_ASSERT_FATAL(x != NULL);
        CU_ASSERT_FALSE(x->fixed);
        CU_ASSERT_STRING_EQUAL(x->ports[0], "gpu1:eth0");
        iface_of("gpu1")->st.host_ecn.np_enabled = 1u << 3;
        run();
        CU_ASSERT_EQUAL(count("ecn_disabled_on_lossless_queue"), 0);
}

static void test_ecn_low(void)
{
        const struct doctor_finding *x;

        healthy();
        port_of("leaf1", 0)->st.ecn.q[3].min_bytes = 149999;   /* one byte under the 100G floor */
        run();
        CU_ASSERT_EQUAL_FATAL(count("ecn_threshold_low"), 1);
        x = find("ecn_threshold_low");
        CU_ASSERT_EQUAL(x->severity, DOCTOR_WARNING);
        CU_ASSERT_EQUAL(ev(x, "floor_min_bytes"), 150000);
        CU_ASSERT_EQUAL(ev(x, "floor_max_bytes"), 1500000);
        CU_ASSERT(x->fixed);
        CU_ASSERT_EQUAL(R.prop.spec.ecn.q[3].min_bytes, 150000);
        CU_ASSERT_EQUAL(R.prop.spec.ecn.q[3].max_bytes, 1500000);
        /* 25 Gb/s: the floor scales (37500 / 375000) */
        port_of("leaf1", 0)->link.speed_mbps = 25000;
        port_of("leaf1", 0)->st.ecn.q[3] = (struct state_ecn_queue){ true, 37500, 375000, 100 };
        run();
        CU_ASSERT_EQUAL(count("ecn_threshold_low"), 0);
        port_of("leaf1", 0)->st.ecn.q[3].max_bytes = 374999;
        run();
        CU_ASSERT_EQUAL(count("ecn_threshold_low"), 1);
        /* the seed's case: low thresholds, heavy marking, pause frames: critical */
        healthy();
        for (unsigned i = 0; i < 2; i++) {
                port_of("leaf1", i)->st.ecn.q[3] = (struct state_ecn_queue){ true, 15000, 150000, 100 };
                rate(&port_of("leaf1", i)->rates, "ecn-marked-packets", DOCTOR_ECN_MARKED, DOCTOR_PRIO_ANY,
                     i ? 999 : 5000);
                rate(&port_of("leaf1", i)->rates, "tx-pause-frames", DOCTOR_PAUSE_TX, 3, 800);
        }
        run();
        CU_ASSERT_EQUAL_FATAL(count("ecn_threshold_low"), 1);
        x = find("ecn_threshold_low");
        CU_ASSERT_EQUAL(x->severity, DOCTOR_CRITICAL);
        CU_ASSERT_EQUAL(x->n_ports, 2);
        CU_ASSERT_EQUAL(ev(x, "ecn_marked_per_s"), 5000);
        CU_ASSERT_EQUAL(ev(x, "pause_per_s"), 800);
        /* heavy is >= 1000: 999 alone stays a warning */
        port_of("leaf1", 0)->rates.v[0].per_s = 999;
        run();
        CU_ASSERT_EQUAL(find("ecn_threshold_low")->severity, DOCTOR_WARNING);
        /* or a share of the queue's packets: 10 marks of 10000 packets/s is 1 in 1000, critical; 9 is not */
        healthy();
        port_of("leaf1", 0)->st.ecn.q[3] = (struct state_ecn_queue){ true, 15000, 150000, 100 };
        rate(&port_of("leaf1", 0)->rates, "queue3 marked", DOCTOR_ECN_MARKED, 3, 10);
        rate(&port_of("leaf1", 0)->rates, "queue3 sent_packets", DOCTOR_TX_PACKETS, 3, 10000);
        run();
        x = find("ecn_threshold_low");
        CU_ASSERT_FATAL(x != NULL);
        CU_ASSERT_EQUAL(x->severity, DOCTOR_CRITICAL);
        CU_ASSERT_DOUBLE_EQUAL(ev(x, "ecn_marked_share"), 0.001, 1e-9);
        port_of("leaf1", 0)->rates.v[0].per_s = 9;
        run();
        CU_ASSERT_EQUAL(find("ecn_threshold_low")->severity, DOCTOR_WARNING);
        /* unknown speed: the 100 Gb/s floor, said so */
        port_of("leaf1", 0)->link.speed_mbps = 0;
        port_of("leaf1", 1)->link.speed_mbps = 0;
        run();
        x = find("ecn_threshold_low");
        CU_ASSERT_EQUAL(ev(x, "port_speed_mbps"), -1);
        CU_ASSERT_PTR_NOT_NULL(strstr(x->summary, "100 Gb/s (speed unknown)"));
}

static void test_cnp(void)
{
        struct doctor_iface *x;

        healthy();
        x = iface_of("gpu1");
        x->st.present |= STATE_BIT(STATE_FIELD_HOST_ECN);
        x->st.host_ecn = (struct state_host_ecn){ .prios = 1u << 3, .rp_enabled = 1u << 3, .np_enabled = 1u << 3,
                                                  .has_cnp = true, .cnp_dscp = 48, .cnp_prio = 6 };
        run();
        CU_ASSERT_EQUAL(count("cnp_priority_mismatch"), 0);
        port_of("leaf1", 0)->st.dscp_prio[48] = 0;
        run();
        CU_ASSERT_EQUAL_FATAL(count("cnp_priority_mismatch"), 1);
        CU_ASSERT(find("cnp_priority_mismatch")->fixed);
        CU_ASSERT_EQUAL(R.prop.spec.dscp_prio[48], 6);
        CU_ASSERT_EQUAL(ev(find("cnp_priority_mismatch"), "host_cnp_priority"), 6);
}

static const char *ev_str(const struct doctor_finding *x, const char *key)
{
        for (unsigned i = 0; x && i < x->n_ev; i++)
                if (streq(x->ev[i].key, key) && !x->ev[i].is_num)
                        return x->ev[i].str;
        return "";
}

/* The profile's spec as doctor knows it (policies/profiles/vendor). */
static void profile(struct doctor_profile *d, const char *name, bool named)
{
        char path[200];
        struct policy *pol = NULL;
        struct errbuf e = { 0 };

        snprintf(path, sizeof(path), "policies/profiles/vendor/%s.json", name);
        CU_ASSERT_EQUAL_FATAL(policy_load_file(path, &pol, &e), 0);
        *d = (struct doctor_profile){ .named = named, .spec = pol->spec };
        snprintf(d->name, sizeof(d->name), "%s", name);
        policy_free(pol);
}

/* A NIC marking CNPs as NCO 26.7's roceOptimized documents (DSCP 4, priority 6) facing an NVUE qos roce lossless port. */
static void test_cnp_class(void)
{
        struct doctor_profile profs[3];
        const struct doctor_finding *x;
        struct doctor_iface *h;

        profile(&profs[0], "nvue-roce-lossless-cl5", true);
        profile(&profs[1], "nco-roce-optimized-26-7", false);
        profile(&profs[2], "nco-roce-optimized-26-10", false);
        healthy();
        for (unsigned i = 0; i < 2; i++)        /* leaf1 as NVUE's lossless profile maps: 8n..8n+7 -> n */
                for (unsigned d = 0; d < STATE_DSCP_COUNT; d++)
                        port_of("leaf1", i)->st.dscp_prio[d] = profs[0].spec.dscp_prio[d];
        h = iface_of("gpu1");
        h->st.present |= STATE_BIT(STATE_FIELD_HOST_ECN);
        h->st.host_ecn = (struct state_host_ecn){ .prios = 0xff, .rp_enabled = 0xff, .np_enabled = 0xff,
                                                  .has_cnp = true, .cnp_dscp = 48, .cnp_prio = 6 };
        run();
        CU_ASSERT_EQUAL(count("cnp_class_mismatch"), 0);         /* NCO 26.10's marking: the strict class 6 */
        iface_of("gpu1")->st.host_ecn.cnp_dscp = 4;
        run();
        CU_ASSERT_EQUAL_FATAL(count("cnp_class_mismatch"), 1);
        x = find("cnp_class_mismatch");
        CU_ASSERT_STRING_EQUAL(x->ports[0], "gpu1:eth0");
        CU_ASSERT_STRING_EQUAL(x->ports[1], "leaf1:swp1");
        CU_ASSERT_EQUAL(ev(x, "nic_cnp_dscp"), 4);
        CU_ASSERT_EQUAL(ev(x, "nic_cnp_priority"), 6);
        CU_ASSERT_STRING_EQUAL(ev_str(x, "switch_priority"), "0");
        CU_ASSERT_EQUAL(ev(x, "switch_cnp_class_priority"), 6);
        CU_ASSERT(strstr(x->summary, "gpu1 eth0 marks CNPs DSCP 4, priority 6; leaf1 port swp1 puts DSCP 4 on "
                                     "priority 0, not its CNP class (priority 6, where it puts DSCP 48)") != NULL);
        CU_ASSERT_STRING_EQUAL(ev_str(x, "nic_profiles"), "");  /* no profile named: none said */
        /* --profile nvue-roce-lossless-cl5: the versions each end follows */
        P.profiles = profs;
        P.n_profiles = 3;
        run();
        x = find("cnp_class_mismatch");
        CU_ASSERT_FATAL(x != NULL);
        CU_ASSERT_STRING_EQUAL(ev_str(x, "nic_profiles"), "nco-roce-optimized-26-7");
        CU_ASSERT_STRING_EQUAL(ev_str(x, "disagreeing_profiles"),
                               "nvue-roce-lossless-cl5 (DSCP 48 -> priority 6, its CNP class)");
        CU_ASSERT(strstr(x->summary, "; the NIC marks as nco-roce-optimized-26-7; against nvue-roce-lossless-cl5") !=
                  NULL);
        /* a named host profile that disagrees with the NIC is named too */
        profs[2].named = true;
        run();
        CU_ASSERT(strstr(ev_str(find("cnp_class_mismatch"), "disagreeing_profiles"),
                         "nco-roce-optimized-26-10 (marks CNPs DSCP 48, priority 6)") != NULL);
        P.profiles = NULL;
        P.n_profiles = 0;
        /* a port whose ETS is read: the judge is its strict class, not DSCP 48's priority */
        healthy();
        h = iface_of("gpu1");
        h->st.present |= STATE_BIT(STATE_FIELD_HOST_ECN);
        h->st.host_ecn = (struct state_host_ecn){ .prios = 1u << 3, .rp_enabled = 1u << 3, .np_enabled = 1u << 3,
                                                  .has_cnp = true, .cnp_dscp = 4, .cnp_prio = 6 };
        port_of("leaf1", 0)->st.present |= STATE_BIT(STATE_FIELD_ETS);
        port_of("leaf1", 0)->st.dscp_prio[4] = 0;
        for (unsigned i = 0; i < STATE_TC_COUNT; i++) {
                port_of("leaf1", 0)->st.ets.prio_tc[i] = (uint8_t)i;
                port_of("leaf1", 0)->st.ets.tc_tsa[i] = i == 0 ? STATE_TSA_STRICT : STATE_TSA_ETS;
        }
        run();
        CU_ASSERT_EQUAL(count("cnp_class_mismatch"), 0);         /* DSCP 4 -> priority 0, a strict class */
        port_of("leaf1", 0)->st.ets.tc_tsa[0] = STATE_TSA_ETS;
        run();
        CU_ASSERT_EQUAL_FATAL(count("cnp_class_mismatch"), 1);
        CU_ASSERT(strstr(find("cnp_class_mismatch")->summary, "not a strict class of its ETS") != NULL);
}

static void test_pause_storm(void)
{
        const struct doctor_finding *x;

        healthy();
        rate(&port_of("leaf1", 0)->rates, "rx-pause-frames", DOCTOR_PAUSE_RX, 3, 999.9);
        run();
        CU_ASSERT_EQUAL(count("pause_storm"), 0);
        port_of("leaf1", 0)->rates.v[0].per_s = 1000;
        run();
        CU_ASSERT_EQUAL_FATAL(count("pause_storm"), 1);
        x = find("pause_storm");
        CU_ASSERT_EQUAL(x->severity, DOCTOR_CRITICAL);
        CU_ASSERT_EQUAL(ev(x, "priority"), 3);
        CU_ASSERT_STRING_EQUAL(x->ports[0], "leaf1:swp1");
        CU_ASSERT_FALSE(x->fixed);
        /* the NIC's own storm detection counts too */
        healthy();
        rate(&iface_of("gpu2")->rates, "tx_pause_storm_warning_events", DOCTOR_PAUSE_STORM, DOCTOR_PRIO_ANY, 0.1);
        run();
        CU_ASSERT_EQUAL(count("pause_storm"), 1);
}

/* A 50 ms burst the sampler saw, while the window's mean stays under pause_storm's bound. */
static void burst(struct doctor_iface *x, const char *name, enum doctor_counter kind, bool duration,
                  uint32_t length_ms, uint64_t count, double peak)
{
        CU_ASSERT_FATAL(x->n_bursts < DOCTOR_BURSTS_MAX);
        x->bursts[x->n_bursts++] = (struct doctor_burst){ .kind = (uint8_t)kind, .prio = 3, .duration = duration,
                                                          .start_ms = 1796731201230, .length_ms = length_ms,
                                                          .count = count, .peak_per_s = peak };
        snprintf(x->bursts[x->n_bursts - 1].name, sizeof(x->bursts[0].name), "%s", name);
}

static void test_pause_burst(void)
{
        const struct doctor_finding *x;

        healthy();
        F.nodes[1].window_s = 10;
        F.nodes[1].sample_ms = 10;
        /* 250 frames in 50 ms: 25/s over the 10 s window, far under the bound of 1000/s */
        rate(&iface_of("gpu2")->rates, "rx_prio3_pause", DOCTOR_PAUSE_RX, 3, 25);
        burst(iface_of("gpu2"), "rx_prio3_pause", DOCTOR_PAUSE_RX, false, 19, 95, 5000);
        run();
        CU_ASSERT_EQUAL(count("pause_storm"), 0);
        CU_ASSERT_EQUAL(count("pause_burst"), 0);               /* under 20 ms: not a burst doctor names */
        iface_of("gpu2")->bursts[0].length_ms = 20;
        run();
        CU_ASSERT_EQUAL_FATAL(count("pause_burst"), 1);
        iface_of("gpu2")->n_bursts = 0;
        burst(iface_of("gpu2"), "rx_prio3_pause", DOCTOR_PAUSE_RX, false, 50, 250, 5000);
        burst(iface_of("gpu2"), "rx_prio3_pause_duration", DOCTOR_PAUSE_RX, true, 100, 61000, 0.9);
        run();
        CU_ASSERT_EQUAL_FATAL(count("pause_burst"), 1);         /* one per interface, priority and direction */
        x = find("pause_burst");
        CU_ASSERT_EQUAL(x->severity, DOCTOR_WARNING);
        CU_ASSERT_EQUAL(ev(x, "priority"), 3);
        CU_ASSERT_EQUAL(ev(x, "length_ms"), 100);               /* the longest */
        CU_ASSERT_EQUAL(ev(x, "paused_ms"), 61);
        CU_ASSERT_EQUAL(ev(x, "window_mean_per_s"), 25);
        CU_ASSERT_EQUAL(ev(x, "bursts"), 1);                    /* the same burst, seen by two counters */
        CU_ASSERT_PTR_NOT_NULL(strstr(x->summary, "priority 3 paused 61 ms of 100 ms at 12:00:01.230Z on "));
        /* a mean at the bound is pause_storm's: no second finding for the same pause */
        iface_of("gpu2")->rates.v[iface_of("gpu2")->rates.n - 1].per_s = 1000;
        run();
        CU_ASSERT_EQUAL(count("pause_storm"), 1);
        CU_ASSERT_EQUAL(count("pause_burst"), 0);
}

/* The watchdog is read on the switch's ports (SONiC-like: it covers pfcwd_sw_enable's priorities). */
static void watchdog_on(struct doctor_port *p, uint8_t prios)
{
        p->st.present |= STATE_BIT(STATE_FIELD_PFC_WATCHDOG);
        p->st.pfc_wd = (struct state_pfc_wd){ .enabled = prios != 0, .prios = prios, .action = STATE_WD_DROP,
                                              .has = STATE_WD_DETECTION | STATE_WD_POLL, .detection_ms = 200,
                                              .poll_ms = 200 };
}

static void stall(struct doctor_iface *x, uint16_t ms)
{
        x->st.present |= STATE_BIT(STATE_FIELD_NIC_STALL);
        x->st.nic_stall_ms = ms;
        x->st.nic_stall_auto_ms = 100;
}

static void test_watchdog_missing(void)
{
        const struct doctor_finding *x;

        /* not read (no watchdog field): not judged */
        healthy();
        run();
        CU_ASSERT_EQUAL(count("watchdog_missing"), 0);
        /* covered on both ports, NICs at auto: silent */
        watchdog_on(port_of("leaf1", 0), 1u << 3);
        watchdog_on(port_of("leaf1", 1), (1u << 3) | (1u << 4));
        stall(iface_of("gpu1"), 100);
        stall(iface_of("gpu2"), 7999);
        run();
        CU_ASSERT_EQUAL(count("watchdog_missing"), 0);
        /* one port off, one covering another priority: one finding for the switch, both ports */
        watchdog_on(port_of("leaf1", 0), 0);
        watchdog_on(port_of("leaf1", 1), 1u << 4);
        run();
        CU_ASSERT_EQUAL_FATAL(count("watchdog_missing"), 1);
        x = find("watchdog_missing");
        CU_ASSERT_EQUAL(x->n_ports, 2);
        CU_ASSERT_STRING_EQUAL(x->ports[0], "leaf1:swp1");
        CU_ASSERT_EQUAL(ev(x, "ports"), 2);
        CU_ASSERT_PTR_NOT_NULL(strstr(x->fix, "spec.pfc.watchdog"));
        CU_ASSERT_FALSE(x->fixed);
        /* a port without lossless priorities needs none */
        port_of("leaf1", 0)->st.pfc_enabled = 0;
        port_of("leaf1", 1)->st.pfc_enabled = 0;
        run();
        CU_ASSERT_EQUAL(count("watchdog_missing"), 0);
        /* the NIC at the firmware default: the boundary is 8000 exactly, and 0 (off) */
        stall(iface_of("gpu2"), 8000);
        run();
        CU_ASSERT_EQUAL_FATAL(count("watchdog_missing"), 1);
        x = find("watchdog_missing");
        CU_ASSERT_STRING_EQUAL(x->ports[0], "gpu2:eth0");
        CU_ASSERT_EQUAL(ev(x, "nic_stall_timeout_ms"), 8000);
        CU_ASSERT_PTR_NOT_NULL(strstr(x->fix, "nic_stall_timeout_ms"));
        stall(iface_of("gpu2"), 0);
        run();
        CU_ASSERT_EQUAL(ev(find("watchdog_missing"), "nic_stall_timeout_ms"), 0);
        iface_of("gpu2")->st.pfc_enabled = 0;                  /* no lossless priority: nothing to stop */
        run();
        CU_ASSERT_EQUAL(count("watchdog_missing"), 0);
        /* pause_storm on a port without a watchdog says what would contain it */
        healthy();
        watchdog_on(port_of("leaf1", 0), 0);
        rate(&port_of("leaf1", 0)->rates, "rx-pause-frames", DOCTOR_PAUSE_RX, 3, 5000);
        run();
        x = find("pause_storm");
        CU_ASSERT_PTR_NOT_NULL_FATAL(x);
        CU_ASSERT_PTR_NOT_NULL(strstr(x->fix, "watchdog_missing"));
}

static void test_watchdog_flapping(void)
{
        const struct doctor_finding *x;

        healthy();
        watchdog_on(port_of("leaf1", 0), 1u << 3);
        rate(&port_of("leaf1", 0)->rates, "storms detected", DOCTOR_WD_STORMS, 3, 3);
        rate(&port_of("leaf1", 0)->rates, "storms restored", DOCTOR_WD_RESTORES, 3, 2);
        run();
        CU_ASSERT_EQUAL(count("watchdog_flapping"), 0);         /* 2 cycles: below the bound of 3 */
        port_of("leaf1", 0)->rates.v[1].delta = 3;
        run();
        CU_ASSERT_EQUAL_FATAL(count("watchdog_flapping"), 1);
        x = find("watchdog_flapping");
        CU_ASSERT_EQUAL(ev(x, "queue"), 3);
        CU_ASSERT_EQUAL(ev(x, "storms_detected"), 3);
        CU_ASSERT_EQUAL(ev(x, "storms_restored"), 3);
        CU_ASSERT_STRING_EQUAL(x->ports[0], "leaf1:swp1");
        CU_ASSERT_PTR_NOT_NULL(strstr(x->fix, "restoration_ms"));
        /* a bound of 4: silent again */
        P.watchdog_flaps = 4;
        run();
        CU_ASSERT_EQUAL(count("watchdog_flapping"), 0);
        /* NVUE counts detections only: 4 storms mean 3 restores between them */
        healthy();
        rate(&port_of("leaf1", 1)->rates, "deadlock-count", DOCTOR_WD_STORMS, 3, 3);
        run();
        CU_ASSERT_EQUAL(count("watchdog_flapping"), 0);
        port_of("leaf1", 1)->rates.v[0].delta = 4;
        run();
        CU_ASSERT_EQUAL_FATAL(count("watchdog_flapping"), 1);
        CU_ASSERT_EQUAL(ev(find("watchdog_flapping"), "storms_restored"), -1);  /* a text: not counted */
}

static void test_downshift(void)
{
        const struct doctor_finding *x;

        healthy();
        host("gpu3", "leaf1", "swp2");
        iface_of("gpu3")->link.speed_mbps = 25000;      /* two peers at 100G: slower than its peers */
        run();
        CU_ASSERT_EQUAL_FATAL(count("link_downshift"), 1);
        x = find("link_downshift");
        CU_ASSERT_EQUAL(ev(x, "peers_speed_mbps"), 100000);
        CU_ASSERT_STRING_EQUAL(x->ports[0], "gpu3:eth0");
        /* one of two: no majority, nothing to say */
        healthy();
        iface_of("gpu2")->link.speed_mbps = 25000;
        run();
        CU_ASSERT_EQUAL(count("link_downshift"), 0);
        /* below what it supports */
        iface_of("gpu2")->link.max_speed_mbps = 100000;
        run();
        CU_ASSERT_EQUAL(count("link_downshift"), 1);
        iface_of("gpu2")->link.speed_mbps = 100000;
        run();
        CU_ASSERT_EQUAL(count("link_downshift"), 0);
        /* a switch port slower than the switch's others; a down port is not judged */
        healthy();
        host("gpu3", "leaf1", "swp2");
        port_of("leaf1", 0)->link.speed_mbps = 25000;
        run();
        CU_ASSERT_EQUAL(count("link_downshift"), 0);    /* 1 of 2 ports at 100G */
        reset();
        leaf("fabric1", "leaf1", 3);
        port_of("leaf1", 2)->link.speed_mbps = 40000;
        run();
        CU_ASSERT_EQUAL(count("link_downshift"), 1);
        port_of("leaf1", 2)->link.up = false;
        run();
        CU_ASSERT_EQUAL(count("link_downshift"), 0);
}

static void test_lldpad_and_drift(void)
{
        struct doctor_node *n;
        const struct doctor_finding *x;

        healthy();
        n = &F.nodes[0];
        n->lldpad = true;
        n->lldpad_pid = 4242;
        run();
        CU_ASSERT_EQUAL_FATAL(count("lldpad_conflict"), 1);
        x = find("lldpad_conflict");
        CU_ASSERT_EQUAL(ev(x, "lldpad_pid"), 4242);
        CU_ASSERT_EQUAL(ev(x, "interfaces_with_dcb"), 1);
        n->lldpad = false;
        run();
        CU_ASSERT_EQUAL(count("lldpad_conflict"), 0);

        n->n_drift = 1;
        snprintf(n->policy, sizeof(n->policy), "lab");
        n->drift[0] = (struct doctor_drift){ .target = "eth0", .key = "mtu", .live = "1500", .committed = "9000" };
        run();
        CU_ASSERT_EQUAL_FATAL(count("drift"), 1);
        x = find("drift");
        CU_ASSERT_EQUAL(ev(x, "differences"), 1);
        /* with several layers each difference names the policy that owns its field */
        snprintf(n->drift[0].owner, sizeof(n->drift[0].owner), "lab-ecn");
        run();
        x = find("drift");
        CU_ASSERT_FATAL(x != NULL);
        CU_ASSERT_PTR_NOT_NULL(strstr(x->ev[0].str, "1500 (committed 9000 by policy 'lab-ecn')"));
        n->drift[0].owner[0] = '\0';
        run();
        x = find("drift");
        CU_ASSERT_PTR_NOT_NULL(strstr(x->summary, "1 setting differs from the committed policy 'lab'"));
        n->drift_known = false;                 /* nothing committed: nothing to compare */
        run();
        CU_ASSERT_EQUAL(count("drift"), 0);
}

static void test_uncollected_node(void)
{
        healthy();
        snprintf(F.nodes[2].error, sizeof(F.nodes[2].error), "connection refused");
        port_of("leaf1", 0)->st.mtu = 1500;
        run();
        CU_ASSERT_EQUAL(count("mtu_mismatch"), 0);      /* its switch's facts are not believed */
        CU_ASSERT(has_note("fabric1: not collected: connection refused"));
        CU_ASSERT_EQUAL(R.n_collected, 2);
}

/* Two kinds of target cannot share one policy: the second kind's fix is left out, and said so. */
static void test_proposal_one_kind(void)
{
        struct doctor_node *sw;
        struct doctor_iface *p;

        healthy();
        port_of("leaf1", 0)->st.mtu = 1500;
        sw = node("lsw1");
        sw->switch_role = true;
        p = doctor_node_add_iface(sw);
        snprintf(p->name, sizeof(p->name), "swp1");
        p->st.present = STATE_BIT(STATE_FIELD_ECN);
        p->st.ecn.queues = 1;
        p->st.ecn.q[0] = (struct state_ecn_queue){ true, 3000, 15000, 100 };
        p->link.speed_mbps = 10000;
        run();
        CU_ASSERT(find("mtu_mismatch")->fixed);
        CU_ASSERT_FALSE(find("ecn_threshold_low")->fixed);
        CU_ASSERT_FALSE(R.prop.linux_ports);
}

/* A Linux switch's ports are targets each: a finding over three ports proposes all three. */
static void test_proposal_linux_ports(void)
{
        struct doctor_node *sw;
        char *doc = NULL;
        struct errbuf e;
        struct policy *pol = NULL;

        reset();
        sw = node("lsw1");
        sw->switch_role = true;
        for (unsigned i = 0; i < 3; i++) {
                struct doctor_iface *p = doctor_node_add_iface(sw);

                snprintf(p->name, sizeof(p->name), "swp%u", i + 1);
                p->st.present = STATE_BIT(STATE_FIELD_ECN);
                p->st.ecn.queues = 1;
                p->st.ecn.q[0] = (struct state_ecn_queue){ true, 3000, 15000, 100 };
                p->link.speed_mbps = 10000;
        }
        run();
        CU_ASSERT_EQUAL_FATAL(count("ecn_threshold_low"), 1);
        CU_ASSERT(find("ecn_threshold_low")->fixed);
        CU_ASSERT(R.prop.linux_ports);
        CU_ASSERT_EQUAL(R.prop.n_targets, 3);
        CU_ASSERT_EQUAL_FATAL(doctor_proposal_policy(&R, "fix", NULL, 0, &doc, &e), 0);
        CU_ASSERT_EQUAL_FATAL(policy_parse_buffer(doc, strlen(doc), "proposal", &pol, &e), 0);
        CU_ASSERT_EQUAL(pol->n_interfaces, 3);
        CU_ASSERT_STRING_EQUAL(pol->interfaces[2], "swp3");
        CU_ASSERT_EQUAL(pol->spec.ecn.q[0].min_bytes, 15000);
        CU_ASSERT_EQUAL(pol->spec.ecn.q[0].max_bytes, 150000);
        policy_free(pol);
        free(doc);
}

static void test_json_roundtrip(void)
{
        struct doctor_node back;
        struct errbuf e = { 0 };
        json_t *j, *bad;

        healthy();
        host("gpu3", NULL, NULL);
        rate(&iface_of("gpu1")->rates, "rx_prio3_pause", DOCTOR_PAUSE_RX, 3, 12.5);
        iface_of("gpu1")->link.rate[0] = 'x';
        burst(iface_of("gpu1"), "rx_prio3_pause_duration", DOCTOR_PAUSE_RX, true, 50, 41000, 0.82);
        F.nodes[0].sample_ms = 10;
        j = doctor_node_to_json(&F.nodes[0]);
        CU_ASSERT_FATAL(j != NULL);
        CU_ASSERT_EQUAL_FATAL(doctor_node_from_json(j, "gpu1", &back, &e), 0);
        CU_ASSERT_STRING_EQUAL(back.name, "gpu1");
        CU_ASSERT_EQUAL_FATAL(back.n_ifs, 1);
        CU_ASSERT_EQUAL(back.ifs[0].st.mtu, 9000);
        CU_ASSERT_EQUAL(back.ifs[0].st.present, F.nodes[0].ifs[0].st.present);
        CU_ASSERT_EQUAL(back.ifs[0].peer.source, DOCTOR_PATH_CONFIG);
        CU_ASSERT_STRING_EQUAL(back.ifs[0].peer.port, "swp1");
        CU_ASSERT_EQUAL_FATAL(back.ifs[0].rates.n, 1);
        CU_ASSERT_EQUAL(back.ifs[0].rates.v[0].prio, 3);
        CU_ASSERT_DOUBLE_EQUAL(back.ifs[0].rates.v[0].per_s, 12.5, 1e-9);
        CU_ASSERT(back.ifs[0].link.state_known && back.ifs[0].link.up);
        CU_ASSERT_EQUAL(back.ifs[0].link.speed_mbps, 100000);
        CU_ASSERT_EQUAL(back.sample_ms, 10);
        CU_ASSERT_EQUAL_FATAL(back.ifs[0].n_bursts, 1);
        CU_ASSERT(back.ifs[0].bursts[0].duration && back.ifs[0].bursts[0].prio == 3);
        CU_ASSERT_EQUAL(back.ifs[0].bursts[0].start_ms, 1796731201230);
        CU_ASSERT_EQUAL(back.ifs[0].bursts[0].count, 41000);
        CU_ASSERT_STRING_EQUAL(back.ifs[0].bursts[0].name, "rx_prio3_pause_duration");
        doctor_node_free(&back);
        json_decref(j);

        j = doctor_node_to_json(&F.nodes[2]);           /* the switch */
        CU_ASSERT_EQUAL_FATAL(doctor_node_from_json(j, "fabric1", &back, &e), 0);
        CU_ASSERT_EQUAL_FATAL(back.n_switches, 1);
        CU_ASSERT_EQUAL(back.switches[0].n_ports, 2);
        CU_ASSERT_EQUAL(back.switches[0].ports[1].st.ecn.q[3].max_bytes, 1500000);
        CU_ASSERT_EQUAL(back.switches[0].mtu_max, 9216);
        doctor_node_free(&back);

        /* strict: an unknown key, a counter kind nobody knows, a port count that lies */
        bad = json_deep_copy(j);
        json_object_set_new(bad, "color", json_string("red"));
        CU_ASSERT_EQUAL(doctor_node_from_json(bad, "fabric1", &back, &e), -EINVAL);
        CU_ASSERT_STRING_EQUAL(e.where, "fabric1: $");
        CU_ASSERT_STRING_EQUAL(e.msg, "unknown key 'color'");
        json_decref(bad);
        bad = json_pack("{s:s,s:[{s:s,s:[{s:s,s:s,s:i,s:f}]}]}", "name", "x", "interfaces", "name", "eth0", "rates",
                        "name", "c", "kind", "sparkles", "delta", 1, "per_s", 1.0);
        CU_ASSERT_EQUAL(doctor_node_from_json(bad, "x", &back, &e), -EINVAL);
        CU_ASSERT_STRING_EQUAL(e.where, "x: $.interfaces[0].rates[0].kind");
        json_decref(bad);
        bad = json_pack("{s:s,s:[{s:s,s:[]}]}", "name", "x", "switches", "name", "]leaf1", "ports");
        CU_ASSERT_EQUAL(doctor_node_from_json(bad, "x", &back, &e), -EINVAL);   /* a name no policy could target */
        CU_ASSERT_STRING_EQUAL(e.where, "x: $.switches[0].name");
        json_decref(bad);
        bad = json_pack("{s:s,s:[{s:s,s:{s:s}}]}", "name", "x", "interfaces", "name", "eth0", "state", "mtu", "big");
        CU_ASSERT_EQUAL(doctor_node_from_json(bad, "x", &back, &e), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.where, "$.interfaces[0].state"));
        json_decref(bad);
        json_decref(j);
}

static void test_report_json(void)
{
        json_t *j;
        const json_t *x;

        healthy();
        port_of("leaf1", 0)->st.mtu = 1500;
        iface_of("gpu2")->peer.source = DOCTOR_PATH_NONE;
        run();
        j = doctor_report_to_json(&R, &F);
        CU_ASSERT_FATAL(j != NULL);
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(j, "summary"), "findings")), 1);
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(j, "summary"), "critical")), 1);
        x = json_array_get(json_object_get(j, "findings"), 0);
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(x, "code")), "mtu_mismatch");
        CU_ASSERT_DOUBLE_EQUAL(json_number_value(json_object_get(json_object_get(x, "evidence"), "switch_port_mtu")),
                               1500, 1e-9);
        CU_ASSERT(json_is_true(json_object_get(x, "fixed_by_proposal")));
        CU_ASSERT_EQUAL(json_array_size(json_object_get(j, "notes")), 1);
        CU_ASSERT_STRING_EQUAL(json_string_value(json_array_get(json_object_get(json_object_get(j, "proposal"),
                                                                                "fields"), 0)), "mtu");
        json_decref(j);
}

/* The lab: a switch inconsistent with itself (DSCP 26 on 3, PFC on 4), hosts without DCB. */
static void test_switch_against_itself(void)
{
        const struct doctor_finding *x;

        healthy();
        for (unsigned i = 0; i < 2; i++) {
                struct doctor_port *pt = port_of("leaf1", i);

                pt->st.pfc_enabled = 1u << 4;
                pt->st.ecn.q[4] = pt->st.ecn.q[3];
                iface_of(i ? "gpu2" : "gpu1")->st.present = STATE_BIT(STATE_FIELD_MTU);
        }
        run();
        CU_ASSERT_EQUAL_FATAL(count("roce_priority_lossy"), 1);
        x = find("roce_priority_lossy");
        CU_ASSERT_EQUAL(x->severity, DOCTOR_CRITICAL);
        CU_ASSERT_EQUAL(x->n_ports, 2);                 /* one finding for the switch, both ports */
        CU_ASSERT_PTR_NOT_NULL(strstr(x->summary, "leaf1: the RoCE DSCP 26 (--roce-dscp) maps to priority 3, which has no PFC"));
        CU_ASSERT_FALSE(x->fixed);                      /* hosts without DCB: the proposal leaves PFC alone */
        /* along the path, whether or not the host has DCB: a host that cannot pause meets PFC on 4 */
        CU_ASSERT_EQUAL(count("pfc_priority_mismatch"), 2);
        x = find("pfc_priority_mismatch");
        CU_ASSERT_PTR_NOT_NULL(strstr(x->summary, "has no DCB of its own"));
        CU_ASSERT_PTR_NOT_NULL(strstr(x->summary, "(RoCE DSCP 26 rides priority 3 there)"));
        /* the map is partly the switch's default (26 and 48 only): no PFC priority is judged unmapped */
        CU_ASSERT_EQUAL(count("pfc_priority_unmapped"), 0);
        for (unsigned d = 0; d < STATE_DSCP_COUNT; d++)
                for (unsigned i = 0; i < 2; i++)
                        if (port_of("leaf1", i)->st.dscp_prio[d] == STATE_DSCP_UNMAPPED)
                                port_of("leaf1", i)->st.dscp_prio[d] = 0;
        run();
        CU_ASSERT_EQUAL(count("pfc_priority_unmapped"), 1);
        /* an interface without an RDMA device (a veth, a management port) is no RoCE endpoint */
        iface_of("gpu1")->rdma = false;
        run();
        CU_ASSERT_EQUAL(count("pfc_priority_mismatch"), 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(find("pfc_priority_mismatch")->summary, "gpu2"));
}

/* Two agents each report leaf1 with the ports of their own configuration: the fleet holds the union. */
static void test_switch_split_over_agents(void)
{
        struct doctor_switch *sw;

        reset();
        host("gpu1", "leaf1", "swp1");
        host("gpu2", "leaf1", "swp2");
        sw = leaf("fabric1", "leaf1", 1);               /* swp1 */
        sw = leaf("fabric2", "leaf1", 2);               /* swp1 (again) and swp2 */
        (void)sw;
        run();
        CU_ASSERT_EQUAL(R.n, 0);
        CU_ASSERT_EQUAL(R.n_notes, 0);                  /* both paths known: no "has no configured port" */
        /* gpu2's port is fabric2's; gpu1's is judged on the first copy that was read */
        F.nodes[3].switches[0].ports[1].st.mtu = 1500;
        F.nodes[3].switches[0].ports[0].st.mtu = 1500;  /* fabric2's copy of swp1: not the one judged */
        run();
        CU_ASSERT_EQUAL_FATAL(count("mtu_mismatch"), 1);
        CU_ASSERT_STRING_EQUAL(find("mtu_mismatch")->ports[1], "leaf1:swp2");
        CU_ASSERT_STRING_EQUAL(find("mtu_mismatch")->nodes[1], "fabric2");
        /* a port two agents both report gives one finding, not two */
        F.nodes[2].switches[0].ports[0].st.ecn.q[3].enabled = false;
        F.nodes[3].switches[0].ports[0].st.ecn.q[3].enabled = false;
        run();
        CU_ASSERT_EQUAL(count("ecn_disabled_on_lossless_queue"), 1);
        CU_ASSERT_EQUAL(find("ecn_disabled_on_lossless_queue")->n_ports, 1);
        /* the watchdog of a switch two agents report: one finding over the union, each port once */
        for (unsigned i = 2; i < 4; i++)
                for (unsigned k = 0; k < F.nodes[i].switches[0].n_ports; k++)
                        watchdog_on(&F.nodes[i].switches[0].ports[k], 0);
        run();
        CU_ASSERT_EQUAL_FATAL(count("watchdog_missing"), 1);
        CU_ASSERT_EQUAL(find("watchdog_missing")->n_ports, 2);
        CU_ASSERT_EQUAL(ev(find("watchdog_missing"), "ports"), 2);
        CU_ASSERT_PTR_NOT_NULL(strstr(find("watchdog_missing")->summary, "leaf1: 2 lossless ports"));
        watchdog_on(&F.nodes[2].switches[0].ports[0], 1u << 3);    /* the copy judged: covered */
        run();
        CU_ASSERT_EQUAL_FATAL(count("watchdog_missing"), 1);
        CU_ASSERT_EQUAL(find("watchdog_missing")->n_ports, 1);
        CU_ASSERT_STRING_EQUAL(find("watchdog_missing")->ports[0], "leaf1:swp2");
        /* storm/restore cycles of a port both report: one finding */
        for (unsigned i = 2; i < 4; i++) {
                struct doctor_port *p = &F.nodes[i].switches[0].ports[0];

                watchdog_on(p, 1u << 3);
                rate(&p->rates, "storms detected", DOCTOR_WD_STORMS, 3, 5);
                rate(&p->rates, "storms restored", DOCTOR_WD_RESTORES, 3, 5);
        }
        run();
        CU_ASSERT_EQUAL(count("watchdog_flapping"), 1);
}

/* The RDMA default ToS: on the host's own map, and on its switch port's. */
static void test_roce_tos(void)
{
        healthy();
        iface_of("gpu1")->st.present |= STATE_BIT(STATE_FIELD_ROCE_TOS);
        iface_of("gpu1")->st.roce_tos = 106;
        run();
        CU_ASSERT_EQUAL(count("roce_tos_lossy"), 0);
        iface_of("gpu1")->st.roce_tos = 0;              /* DSCP 0: unmapped here, so nobody can tell */
        run();
        CU_ASSERT_EQUAL(count("roce_tos_lossy"), 0);
        iface_of("gpu1")->st.dscp_prio[0] = 0;
        port_of("leaf1", 0)->st.dscp_prio[0] = 0;
        run();
        CU_ASSERT_EQUAL(count("roce_tos_lossy"), 2);    /* the host's own class and its port's */
        CU_ASSERT_EQUAL(find("roce_tos_lossy")->severity, DOCTOR_CRITICAL);
        CU_ASSERT_EQUAL(ev(find("roce_tos_lossy"), "dscp"), 0);
}

/* The share of RoCE bytes the lossless priorities can hold, per direction, under 99% (--class-share). */
static void test_rdma_on_lossy(void)
{
        struct doctor_rates *r;

        healthy();
        r = &iface_of("gpu1")->rates;
        rate(r, "tx_vport_rdma_unicast_bytes", DOCTOR_RDMA_BYTES, -1, 40e6);
        rate(r, "tx_prio3_bytes", DOCTOR_PRIO_BYTES, 3, 39.6e6);        /* exactly 99%: not fired */
        rate(r, "tx_prio0_bytes", DOCTOR_PRIO_BYTES, 0, 30e6);
        rate(r, "rx_vport_rdma_unicast_bytes", DOCTOR_RDMA_BYTES, -1, 10e6);
        rate(r, "rx_prio3_bytes", DOCTOR_PRIO_BYTES, 3, 12e6);          /* all of it, and TCP beside */
        run();
        CU_ASSERT_EQUAL(count("rdma_on_lossy_priority"), 0);
        r->v[1].per_s = 39.5e6;                         /* 98.75% of the bytes sent */
        run();
        CU_ASSERT_EQUAL_FATAL(count("rdma_on_lossy_priority"), 1);
        CU_ASSERT_EQUAL(ev(find("rdma_on_lossy_priority"), "priority"), 0);
        CU_ASSERT_EQUAL(ev(find("rdma_on_lossy_priority"), "tx_class_share_pct"), 98.8);
        CU_ASSERT_EQUAL(ev(find("rdma_on_lossy_priority"), "rx_class_share_pct"), 100);
        CU_ASSERT_EQUAL(ev(find("rdma_on_lossy_priority"), "rdma_bytes_per_s"), 50e6);
        CU_ASSERT_PTR_NOT_NULL(strstr(find("rdma_on_lossy_priority")->summary, "98.8% of the RoCE bytes sent"));
        P.class_share = 0.95;                      /* --class-share 95 */
        run();
        CU_ASSERT_EQUAL(count("rdma_on_lossy_priority"), 0);
        P.class_share = 0.99;
        r->v[1].per_s = 39.6e6;
        r->v[4].per_s = 9e6;                            /* received: 90% */
        run();
        CU_ASSERT_EQUAL_FATAL(count("rdma_on_lossy_priority"), 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(find("rdma_on_lossy_priority")->summary, "90.0% of the RoCE bytes received"));
        r->v[0].per_s = 0.9e6;                          /* below the floor of RoCE traffic, both ways */
        r->v[3].per_s = 0.9e6;
        run();
        CU_ASSERT_EQUAL(count("rdma_on_lossy_priority"), 0);

        /* a NetXtreme: bnxt_re's RoCE bytes (hw_counters "tx_bytes"), bnxt_en's bytes per priority */
        healthy();
        r = &iface_of("gpu1")->rates;
        rate(r, "tx_bytes rdma:bnxt_re0/1", DOCTOR_RDMA_BYTES, -1, 40e6);
        rate(r, "tx_bytes_pri3", DOCTOR_PRIO_BYTES, 3, 30e6);
        rate(r, "tx_bytes_pri0", DOCTOR_PRIO_BYTES, 0, 10e6);
        run();
        CU_ASSERT_EQUAL_FATAL(count("rdma_on_lossy_priority"), 1);
        CU_ASSERT_EQUAL(ev(find("rdma_on_lossy_priority"), "tx_class_share_pct"), 75);
        CU_ASSERT_EQUAL(ev(find("rdma_on_lossy_priority"), "priority"), 0);
}

/* NCCL's traffic class: NCCL_IB_TC of its file, 0 without one; MLNX_OFED's global value overrides it. */
static void test_nccl_tc(void)
{
        struct doctor_iface *g;

        healthy();
        g = iface_of("gpu1");
        g->st.present |= STATE_BIT(STATE_FIELD_NCCL);
        g->st.nccl = (struct state_nccl){ .has = 1u << STATE_NCCL_IB_TC, .value = { 106, 0 }, .read = true,
                                          .exists = true, .eol = true };
        run();
        CU_ASSERT_EQUAL(count("nccl_tc_lossy"), 0);     /* DSCP 26: priority 3, lossless */
        g->st.nccl.has = 0;                             /* no NCCL_IB_TC: NCCL sends 0 */
        g->st.dscp_prio[0] = 0;
        port_of("leaf1", 0)->st.dscp_prio[0] = 0;
        run();
        CU_ASSERT_EQUAL_FATAL(count("nccl_tc_lossy"), 2);       /* the host's own class and its port's */
        CU_ASSERT_EQUAL(find("nccl_tc_lossy")->severity, DOCTOR_CRITICAL);
        CU_ASSERT_EQUAL(ev(find("nccl_tc_lossy"), "nccl_ib_tc"), 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(find("nccl_tc_lossy")->summary, "no NCCL_IB_TC in NCCL's file"));
        g->st.nccl.exists = false;                      /* no file: whether NCCL runs here is not known */
        run();
        CU_ASSERT_EQUAL(count("nccl_tc_lossy"), 0);
        g->st.nccl.exists = true;
        g->st.present |= STATE_BIT(STATE_FIELD_ROCE_TOS);       /* MLNX_OFED's global value rules every QP */
        g->st.roce_tos = 106;
        g->st.roce.n_ports = 1;
        g->st.roce.ports[0] = (struct state_rdma_port){ .dev = "mlx5_0", .port = 1, .has_ofed = true,
                                                        .ofed_tclass = 106 };
        run();
        CU_ASSERT_EQUAL(count("nccl_tc_lossy"), 0);
        g->st.roce.ports[0].ofed_tclass = STATE_TCLASS_UNSET;
        g->rdma = false;                                /* no RDMA device: no RoCE host */
        run();
        CU_ASSERT_EQUAL(count("nccl_tc_lossy"), 0);
        CU_ASSERT_EQUAL(count("roce_mode_v1"), 0);
        g->st.roce.ports[0].roce_mode = STATE_ROCE_MODE_V1;     /* rdma_cm keeps the port on RoCE v1 */
        run();
        CU_ASSERT_EQUAL_FATAL(count("roce_mode_v1"), 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(find("roce_mode_v1")->summary, "RDMA port mlx5_0/1 is on RoCE v1"));
}

/* A field serve's enforcement gave up to another writer: one finding for its node, read back from JSON too. */
static void test_second_writer(void)
{
        struct doctor_node back;
        struct errbuf e = { 0 };
        json_t *j;

        healthy();
        run();
        CU_ASSERT_EQUAL(count("second_writer"), 0);
        F.nodes[0].n_second_writers = 1;
        F.nodes[0].second_writers[0] = (struct doctor_second_writer){ .target = "ens1f0np0", .field = "trust",
                                                                      .times = 3, .values = "\"pcp\"" };
        run();
        CU_ASSERT_EQUAL_FATAL(count("second_writer"), 1);
        CU_ASSERT_EQUAL(find("second_writer")->severity, DOCTOR_WARNING);
        CU_ASSERT_PTR_NOT_NULL(strstr(find("second_writer")->summary, "ens1f0np0 trust, 3 times"));
        CU_ASSERT_PTR_NOT_NULL(strstr(find("second_writer")->fix, "external_owners"));
        j = doctor_node_to_json(&F.nodes[0]);
        CU_ASSERT_EQUAL_FATAL(doctor_node_from_json(j, "gpu1", &back, &e), 0);
        CU_ASSERT_EQUAL(back.n_second_writers, 1);
        CU_ASSERT_STRING_EQUAL(back.second_writers[0].field, "trust");
        CU_ASSERT_EQUAL(back.second_writers[0].times, 3);
        CU_ASSERT_STRING_EQUAL(back.second_writers[0].values, "\"pcp\"");
        doctor_node_free(&back);
        json_decref(j);
        F.nodes[0].n_second_writers = 0;
}

/* Across the cable: a switch policy moving RoCE to 4 breaks both hosts' paths; waived, nothing kept. */
static void test_cable_check(void)
{
        static const char sw4[] = "{\"apiVersion\": \"nettune/v1\", \"kind\": \"Policy\", \"metadata\": {\"name\": \"l4\"},"
                "\"targets\": {\"switches\": [\"leaf1\"]}, \"spec\": {\"trust\": \"dscp\", \"dscp_to_priority\": "
                "{\"26\": 4, \"48\": 6}, \"pfc\": {\"priorities\": [4]}, \"ecn\": {\"queues\": [4], "
                "\"min_threshold_bytes\": 150000, \"max_threshold_bytes\": 1500000}}%s}";
        const char *rollout[] = { "fabric1" }, *hosts[] = { "gpu1" };
        char doc[1024];
        struct doctor_cable c;
        struct policy *pol = NULL;
        struct errbuf e = { 0 };

        healthy();
        snprintf(doc, sizeof(doc), sw4, "");
        CU_ASSERT_EQUAL_FATAL(policy_parse_buffer(doc, strlen(doc), "l4.json", &pol, &e), 0);
        /* hosts that declare nothing of their own (no committed policy): noted, not refused */
        CU_ASSERT_EQUAL_FATAL(doctor_cable_check(&F, pol, rollout, 1, &P, &c), 0);
        CU_ASSERT_EQUAL(c.n_broken, 0);
        CU_ASSERT_EQUAL(c.n_undeclared, 4);
        doctor_cable_free(&c);
        healthy();
        iface_of("gpu1")->managed = iface_of("gpu2")->managed = true;    /* their committed policy's targets */
        CU_ASSERT_EQUAL_FATAL(doctor_cable_check(&F, pol, rollout, 1, &P, &c), 0);
        /* two hosts, dscp_map_mismatch (DSCP 26) and pfc_priority_mismatch on each path */
        CU_ASSERT_EQUAL(c.n_broken, 4);
        CU_ASSERT_EQUAL(c.n_already, 0);
        CU_ASSERT_STRING_EQUAL(c.broken[0].ends[1], "leaf1:swp1");
        CU_ASSERT_EQUAL(port_of("leaf1", 0)->st.dscp_prio[26], 4);     /* the facts hold the merged intent */
        doctor_cable_free(&c);
        policy_free(pol);

        /* the same change to nodes that do not manage leaf1: nothing of theirs changes */
        healthy();
        CU_ASSERT_EQUAL_FATAL(policy_parse_buffer(doc, strlen(doc), "l4.json", &pol, &e), 0);
        CU_ASSERT_EQUAL_FATAL(doctor_cable_check(&F, pol, hosts, 1, &P, &c), 0);
        CU_ASSERT_EQUAL(c.n_broken, 0);
        doctor_cable_free(&c);
        policy_free(pol);

        /* a path inconsistent already (swp1 MTU below the host's) is kept apart, not as broken */
        healthy();
        iface_of("gpu1")->managed = iface_of("gpu2")->managed = true;
        port_of("leaf1", 0)->st.mtu = 1500;
        snprintf(doc, sizeof(doc), sw4, ", \"checks\": {\"allow\": [\"dscp_map_mismatch\", \"pfc_priority_mismatch\"]}");
        CU_ASSERT_EQUAL_FATAL(policy_parse_buffer(doc, strlen(doc), "l4.json", &pol, &e), 0);
        CU_ASSERT_EQUAL_FATAL(doctor_cable_check(&F, pol, rollout, 1, &P, &c), 0);
        CU_ASSERT_EQUAL(c.n_broken, 0);
        CU_ASSERT_EQUAL(c.n_waived, 4);
        CU_ASSERT_EQUAL_FATAL(c.n_already, 1);
        CU_ASSERT_STRING_EQUAL(c.already[0].code, "mtu_mismatch");
        CU_ASSERT_STRING_EQUAL(c.already[0].ends[0], "gpu1:eth0");
        doctor_cable_free(&c);
        policy_free(pol);
}

int suite_doctor(void);
int suite_doctor(void)
{
        CU_pSuite s = CU_add_suite("doctor", setup, NULL);

        if (!s || !CU_add_test(s, "healthy_is_clean", test_healthy_is_clean) || !CU_add_test(s, "mtu", test_mtu) ||
            !CU_add_test(s, "path_unknown", test_path_unknown) || !CU_add_test(s, "trust", test_trust) ||
            !CU_add_test(s, "dscp_map", test_dscp_map) || !CU_add_test(s, "pfc", test_pfc) ||
            !CU_add_test(s, "ecn_disabled", test_ecn_disabled) || !CU_add_test(s, "ecn_low", test_ecn_low) ||
            !CU_add_test(s, "cnp", test_cnp) || !CU_add_test(s, "pause_storm", test_pause_storm) ||
            !CU_add_test(s, "pause_burst", test_pause_burst) ||
            !CU_add_test(s, "watchdog_missing", test_watchdog_missing) ||
            !CU_add_test(s, "watchdog_flapping", test_watchdog_flapping) ||
            !CU_add_test(s, "downshift", test_downshift) || !CU_add_test(s, "lldpad_and_drift", test_lldpad_and_drift) ||
            !CU_add_test(s, "uncollected_node", test_uncollected_node) ||
            !CU_add_test(s, "proposal_one_kind", test_proposal_one_kind) ||
            !CU_add_test(s, "proposal_linux_ports", test_proposal_linux_ports) ||
            !CU_add_test(s, "json_roundtrip", test_json_roundtrip) || !CU_add_test(s, "report_json", test_report_json) ||
            !CU_add_test(s, "switch_against_itself", test_switch_against_itself) ||
            !CU_add_test(s, "switch_split_over_agents", test_switch_split_over_agents) ||
            !CU_add_test(s, "roce_tos", test_roce_tos) || !CU_add_test(s, "rdma_on_lossy", test_rdma_on_lossy) ||
            !CU_add_test(s, "cnp_class", test_cnp_class) || !CU_add_test(s, "nccl_tc", test_nccl_tc) ||
            !CU_add_test(s, "second_writer", test_second_writer) ||
            !CU_add_test(s, "cable_check", test_cable_check) || !CU_add_test(s, "cleanup", reset))
                return -1;
        return 0;
}
