/* SPDX-License-Identifier: MIT */
/*
 * doctor's lossless-headroom rules over hand-built facts: headroom_insufficient,
 * cable_length_unset and lossless_drops each fire on their fault with the evidence,
 * stay silent without it, and hold their boundary.
 */
#include <CUnit/CUnit.h>

#include "policies/doctor/doctor.h"
#include "policies/state/headroom.h"

static struct doctor_facts facts;
static struct doctor_report rep;

static void fresh(void)
{
        doctor_report_free(&rep);
        doctor_facts_free(&facts);
        doctor_facts_init(&facts);
        doctor_report_init(&rep);
}

/* A GPU node with a ConnectX port at 100 Gb/s, MTU 9000, PFC on 3; declared cable length `declared` (0 none). */
static struct doctor_iface *gpu(const char *name, unsigned declared)
{
        struct doctor_node *n = doctor_facts_add_node(&facts);
        struct doctor_iface *x;

        CU_ASSERT_FATAL(n != NULL);
        snprintf(n->name, sizeof(n->name), "%s", name);
        snprintf(n->policy, sizeof(n->policy), "lossless");
        n->declared_cable_m = declared;
        x = doctor_node_add_iface(n);
        CU_ASSERT_FATAL(x != NULL);
        snprintf(x->name, sizeof(x->name), "ens1f0np0");
        snprintf(x->driver, sizeof(x->driver), "mlx5_core");
        x->link = (struct doctor_link){ .state_known = true, .up = true, .speed_mbps = 100000 };
        x->st.present = STATE_BIT(STATE_FIELD_MTU) | STATE_BIT(STATE_FIELD_PFC) | STATE_BIT(STATE_FIELD_CABLE_LEN);
        x->st.mtu = 9000;
        x->st.pfc_enabled = 0x08;
        x->st.cable_len_m = 7;
        return x;
}

static void buffers(struct doctor_iface *x, uint32_t lossless_size)
{
        x->st.present |= STATE_BIT(STATE_FIELD_BUFFERS);
        x->st.buffers.prio_buffer[3] = 1;
        x->st.buffers.size[0] = 130944;
        x->st.buffers.size[1] = lossless_size;
}

static struct doctor_port *sonic_port(const char *mgr, unsigned cable)
{
        struct doctor_node *n = doctor_facts_add_node(&facts);
        struct doctor_switch *sw;

        CU_ASSERT_FATAL(n != NULL);
        snprintf(n->name, sizeof(n->name), "%s", mgr);
        sw = doctor_node_add_switch(n, 1);
        CU_ASSERT_FATAL(sw != NULL);
        snprintf(sw->name, sizeof(sw->name), "leaf1");
        snprintf(sw->dialect, sizeof(sw->dialect), "sonic");
        snprintf(sw->ports[0].name, sizeof(sw->ports[0].name), "Ethernet0");
        sw->ports[0].st.present = STATE_BIT(STATE_FIELD_PFC) | STATE_BIT(STATE_FIELD_CABLE_LEN);
        sw->ports[0].st.pfc_enabled = 0x08;
        sw->ports[0].st.cable_len_m = cable;
        return &sw->ports[0];
}

static const struct doctor_finding *only(const char *code)
{
        const struct doctor_finding *f = NULL;
        unsigned n = 0;

        CU_ASSERT_EQUAL_FATAL(doctor_run(&facts, &(struct doctor_params){ 0 }, &rep), 0);
        for (unsigned i = 0; i < rep.n; i++)
                if (streq(rep.v[i].rule->code, code)) {
                        f = &rep.v[i];
                        n++;
                }
        return n == 1 ? f : NULL;
}

static bool silent(const char *code)
{
        CU_ASSERT_EQUAL_FATAL(doctor_run(&facts, &(struct doctor_params){ 0 }, &rep), 0);
        for (unsigned i = 0; i < rep.n; i++)
                if (streq(rep.v[i].rule->code, code))
                        return false;
        return true;
}

static double ev(const struct doctor_finding *f, const char *key)
{
        for (unsigned i = 0; f && i < f->n_ev; i++)
                if (streq(f->ev[i].key, key))
                        return f->ev[i].num;
        return -1;
}

/* The calculator's size for that port: connectx, 100 Gb/s, 40 m, MTU 9000. */
static uint32_t need_40m(void)
{
        struct headroom_input in;
        struct headroom h;
        struct headroom_problem why;

        headroom_input_init(&in, HEADROOM_CONNECTX);
        in.speed_gbps = 100, in.cable_m = 40, in.mtu = 9000;
        CU_ASSERT_FATAL(headroom_calc(&in, &h, &why) == 0);
        return h.size_bytes;
}

static void test_headroom_insufficient(void)
{
        const struct doctor_finding *f;
        uint32_t need = need_40m();
        struct doctor_iface *x;

        CU_ASSERT_EQUAL(need, 72576);           /* xoff (301 + 86) * 100 + 24480 = 63180, + 9216 + 128, cells */
        fresh();
        x = gpu("gpu1", 0);
        x->st.cable_len_m = 40;
        buffers(x, 32768);
        f = only("headroom_insufficient");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        CU_ASSERT_EQUAL(f->severity, DOCTOR_CRITICAL);
        CU_ASSERT_EQUAL(ev(f, "configured_bytes"), 32768);      /* both numbers */
        CU_ASSERT_EQUAL(ev(f, "needed_bytes"), need);
        CU_ASSERT_EQUAL(ev(f, "priority"), 3);
        CU_ASSERT_EQUAL(ev(f, "buffer"), 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(f->fix, "nettunectl headroom --asic connectx --speed-gbps 100 --cable-m 40"));
        /* the boundary: one cell short fires, exactly enough is silent */
        fresh();
        x = gpu("gpu1", 0);
        x->st.cable_len_m = 40;
        buffers(x, need - 128);
        CU_ASSERT_PTR_NOT_NULL(only("headroom_insufficient"));
        fresh();
        x = gpu("gpu1", 0);
        x->st.cable_len_m = 40;
        buffers(x, need);
        CU_ASSERT(silent("headroom_insufficient"));
        /* a lossy priority's buffer is nobody's headroom */
        fresh();
        x = gpu("gpu1", 0);
        x->st.cable_len_m = 40;
        buffers(x, 32768);
        x->st.pfc_enabled = 0;
        CU_ASSERT(silent("headroom_insufficient"));
        /* the cable the policy declares counts when the device has none */
        fresh();
        x = gpu("gpu1", 40);
        x->st.present &= ~STATE_BIT(STATE_FIELD_CABLE_LEN);
        buffers(x, 32768);
        f = only("headroom_insufficient");
        CU_ASSERT_EQUAL(ev(f, "cable_m"), 40);
        fresh();
}

/*
 * A Linux switch port of 8 lanes (mlxsw): its buffer is split over two
 * (mlxsw_sp_port_headroom_8x_adjust()) and dcbnl shows the sum, so each half must
 * hold the headroom: a buffer short of twice the calculator's size fires there, and
 * is silent where ethtool said 4 lanes or nothing.
 */
static void test_headroom_8_lanes(void)
{
        struct headroom_input in;
        struct headroom h;
        struct headroom_problem why;
        const struct doctor_finding *f;
        struct doctor_iface *x;

        headroom_input_init(&in, HEADROOM_SPECTRUM2);
        in.speed_gbps = 100, in.cable_m = 40, in.mtu = 1500, in.lanes = 8;
        CU_ASSERT_FATAL(headroom_calc(&in, &h, &why) == 0);
        for (unsigned lanes = 0; lanes <= 8; lanes += 4) {
                fresh();
                x = gpu("sw1", 0);
                snprintf(x->driver, sizeof(x->driver), "mlxsw_spectrum2");
                x->st.mtu = 1500;
                x->st.cable_len_m = 40;
                x->link.lanes = lanes;
                buffers(x, 2 * h.size_bytes - 2 * 144);
                if (lanes != 8) {
                        CU_ASSERT(silent("headroom_insufficient"));
                        continue;
                }
                f = only("headroom_insufficient");
                CU_ASSERT_PTR_NOT_NULL_FATAL(f);
                CU_ASSERT_EQUAL(ev(f, "configured_bytes"), h.size_bytes - 144);
                CU_ASSERT_EQUAL(ev(f, "needed_bytes"), h.size_bytes);
                CU_ASSERT_EQUAL(ev(f, "lanes"), 8);
                CU_ASSERT_PTR_NOT_NULL(strstr(f->summary, "(each half of it on an 8-lane port)"));
                CU_ASSERT_PTR_NOT_NULL(strstr(f->fix, "--lanes 8 (twice its size"));
                fresh();
                x = gpu("sw1", 0);
                snprintf(x->driver, sizeof(x->driver), "mlxsw_spectrum2");
                x->st.mtu = 1500;
                x->st.cable_len_m = 40;
                x->link.lanes = 8;
                buffers(x, 2 * h.size_bytes);
                CU_ASSERT(silent("headroom_insufficient"));
        }
        fresh();
}

static void test_cable_length_unset(void)
{
        const struct doctor_finding *f;
        struct doctor_iface *x;

        /* mlx5 at its 7 m default, the policy declares 40 m */
        fresh();
        gpu("gpu1", 40);
        f = only("cable_length_unset");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        CU_ASSERT_EQUAL(f->severity, DOCTOR_WARNING);
        CU_ASSERT_EQUAL(ev(f, "link_m"), 40);
        CU_ASSERT_EQUAL(ev(f, "device_default_m"), 7);
        CU_ASSERT_PTR_NOT_NULL(strstr(f->summary, "7 m, the mlx5 driver's default"));
        /* boundary: a declared length no longer than the default is no finding; PFC off neither */
        fresh();
        gpu("gpu1", 7);
        CU_ASSERT(silent("cable_length_unset"));
        fresh();
        gpu("gpu1", 8);
        CU_ASSERT_PTR_NOT_NULL(only("cable_length_unset"));
        fresh();
        x = gpu("gpu1", 40);
        x->st.pfc_enabled = 0;
        CU_ASSERT(silent("cable_length_unset"));
        /* the length set on the port is no default */
        fresh();
        x = gpu("gpu1", 40);
        x->st.cable_len_m = 40;
        CU_ASSERT(silent("cable_length_unset"));
        /* the other end tells: the host has 40 m, its SONiC port none (no lossless profile at all) */
        fresh();
        x = gpu("gpu1", 0);
        x->st.cable_len_m = 40;
        x->peer.source = DOCTOR_PATH_CONFIG;
        snprintf(x->peer.sw, sizeof(x->peer.sw), "leaf1");
        snprintf(x->peer.port, sizeof(x->peer.port), "Ethernet0");
        sonic_port("mgr", 0);
        f = only("cable_length_unset");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        CU_ASSERT_PTR_NOT_NULL(strstr(f->summary, "leaf1:Ethernet0 is lossless with a cable length of none"));
        CU_ASSERT_PTR_NOT_NULL(strstr(f->summary, "gpu1:ens1f0np0, the other end, has it"));
        /* the other end at its own device's default (mlx5's 7 m) says nothing about the cable */
        fresh();
        x = gpu("gpu1", 0);
        x->peer.source = DOCTOR_PATH_CONFIG;
        snprintf(x->peer.sw, sizeof(x->peer.sw), "leaf1");
        snprintf(x->peer.port, sizeof(x->peer.port), "Ethernet0");
        sonic_port("mgr", 0);
        CU_ASSERT(silent("cable_length_unset"));
        fresh();
}

static void add_rate(struct doctor_rates *r, const char *name, enum doctor_counter kind, int prio, uint64_t delta)
{
        struct doctor_rate *x = doctor_rates_add(r);

        CU_ASSERT_FATAL(x != NULL);
        snprintf(x->name, sizeof(x->name), "%s", name);
        x->kind = (uint8_t)kind;
        x->prio = (int8_t)prio;
        x->delta = delta;
        x->per_s = (double)delta;
}

static void test_lossless_drops(void)
{
        const struct doctor_finding *f;
        struct doctor_iface *x;
        struct doctor_port *p;

        fresh();
        x = gpu("gpu1", 0);
        add_rate(&x->rates, "rx_prio3_discards", DOCTOR_RX_DISCARD, 3, 5);
        f = only("lossless_drops");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        CU_ASSERT_EQUAL(f->severity, DOCTOR_CRITICAL);
        CU_ASSERT_EQUAL(ev(f, "dropped"), 5);
        CU_ASSERT_EQUAL(ev(f, "priority"), 3);
        /* a lossy priority's drops, a zero count: silent */
        fresh();
        x = gpu("gpu1", 0);
        add_rate(&x->rates, "rx_prio0_discards", DOCTOR_RX_DISCARD, 0, 5);
        add_rate(&x->rates, "rx_prio3_discards", DOCTOR_RX_DISCARD, 3, 0);
        CU_ASSERT(silent("lossless_drops"));
        /* one drop is enough */
        fresh();
        x = gpu("gpu1", 0);
        add_rate(&x->rates, "rx_prio3_discards", DOCTOR_RX_DISCARD, 3, 1);
        CU_ASSERT_PTR_NOT_NULL(only("lossless_drops"));
        /* a port-wide counter: a warning, the priority not told */
        fresh();
        x = gpu("gpu1", 0);
        add_rate(&x->rates, "rx_discards_phy", DOCTOR_RX_DISCARD, -1, 9);
        f = only("lossless_drops");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        CU_ASSERT_EQUAL(f->severity, DOCTOR_WARNING);
        /* a host's other discards (RQ starvation) are not lossless drops */
        fresh();
        x = gpu("gpu1", 0);
        add_rate(&x->rates, "rx_out_of_buffer", DOCTOR_DISCARD, -1, 9);
        CU_ASSERT(silent("lossless_drops"));
        /* SONiC: PG drops at the lossless PG, and the lossless queue's egress drops */
        fresh();
        p = sonic_port("mgr", 40);
        add_rate(&p->rates, "PG3 dropped", DOCTOR_RX_DISCARD, 3, 12);
        add_rate(&p->rates, "UC3 Drop/pkts", DOCTOR_DISCARD, 3, 4);
        add_rate(&p->rates, "UC0 Drop/pkts", DOCTOR_DISCARD, 0, 400);
        CU_ASSERT_EQUAL_FATAL(doctor_run(&facts, &(struct doctor_params){ 0 }, &rep), 0);
        {
                unsigned n = 0;

                for (unsigned i = 0; i < rep.n; i++)
                        n += streq(rep.v[i].rule->code, "lossless_drops");
                CU_ASSERT_EQUAL(n, 2);          /* PG3 and queue 3; queue 0 is lossy */
        }
        fresh();
}

int suite_doctor_headroom(void)
{
        CU_pSuite s = CU_add_suite("doctor_headroom", NULL, NULL);

        if (!s || !CU_add_test(s, "headroom_insufficient", test_headroom_insufficient) ||
            !CU_add_test(s, "headroom_8_lanes", test_headroom_8_lanes) ||
            !CU_add_test(s, "cable_length_unset", test_cable_length_unset) ||
            !CU_add_test(s, "lossless_drops", test_lossless_drops))
                return -1;
        return 0;
}
