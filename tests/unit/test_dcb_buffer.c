/* SPDX-License-Identifier: MIT */
/*
 * The "dcb-buffer" driver (cable_length, buffers) against the NIC behaviour
 * models: mlx5 (en/port_buffer.c: firmware vs manual buffer mode, what it refuses
 * and what it recomputes by itself) and mlxsw (spectrum_dcb.c, spectrum_buffers.c:
 * the delay in bits, DCB vs TC headroom mode). Applies, reads back and restores
 * with the model's state compared to where it began; the plan-time refusals
 * change nothing.
 */
#include <CUnit/CUnit.h>
#include <stdlib.h>

#include "drivers/host/dcb_driver.h"
#include "drivers/host/dcb_nl.h"
#include "drivers/host/host_io.h"
#include "drivers/host/link.h"
#include "policies/state/diff.h"
#include "policies/state/field.h"
#include "policies/state/headroom.h"
#include "policies/policy/policy.h"
#include "tests/lib/drvtest.h"
#include "tests/lib/nltrace.h"
#include "tests/nicmodel/nm_transport.h"

static struct fixture {
        struct nm model;
        struct nm_transport xport;
        struct driver_env env;
        struct target t;
        char sys[64];
} fx;

static struct nm_dev *up(const char *spec)
{
        struct nm_dev *d;

        snprintf(fx.sys, sizeof(fx.sys), "/tmp/nettune-hr.XXXXXX");
        CU_ASSERT_FATAL(mkdtemp(fx.sys) != NULL);
        nm_init(&fx.model);
        snprintf(fx.model.sysfs_root, sizeof(fx.model.sysfs_root), "%s", fx.sys);
        fx.model.flap_delay_ms = 20;
        fx.model.link_up_ms = 40;
        fx.model.rdma_lag_ms = 20;
        CU_ASSERT_FATAL(nm_add(&fx.model, spec) == 0);
        d = &fx.model.devs[0];
        CU_ASSERT_FATAL(nm_sysfs_create(&fx.model, d) == 0);
        nm_transport_init(&fx.xport, &fx.model);
        fx.env = (struct driver_env){ .nl = nm_transport_get(&fx.xport), .settle_ms = 5000, .flap_wait_ms = 300,
                                      .rdma_wait_ms = 5000 };
        snprintf(fx.env.sysfs_root, sizeof(fx.env.sysfs_root), "%s", fx.sys);
        fx.t = (struct target){ .kind = TARGET_INTERFACE, .ifindex = d->ifindex, .max_mtu = d->max_mtu,
                                .env = &fx.env };
        snprintf(fx.t.name, sizeof(fx.t.name), "%s", d->name);
        snprintf(fx.t.kernel_driver, sizeof(fx.t.kernel_driver), "%s",
                 d->kernel_driver[0] ? d->kernel_driver : d->drv->kernel_driver);
        return d;
}

static void down(void)
{
        char cmd[96];

        nm_transport_done(&fx.xport);
        nm_done(&fx.model);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fx.sys);
        CU_ASSERT(system(cmd) == 0);
}

static char *dump(void)
{
        return nm_transport_dump(&fx.xport);
}

static bool dump_has(const char *text)
{
        char *s = dump();
        bool r = s && strstr(s, text);

        if (!r)
                fprintf(stderr, "test_dcb_buffer: '%s' not in the model's state:\n%s", text, s ? s : "");
        free(s);
        return r;
}

static void control(const char *line)
{
        FILE *f = fopen("/dev/null", "w");

        nm_transport_lock(&fx.xport);
        CU_ASSERT(nm_control(&fx.model, line, f) == 0);
        nm_transport_unlock(&fx.xport);
        fclose(f);
}

/* Both drivers' fields read as a snapshot would be. */
static void snapshot(struct state *s)
{
        struct errbuf e;

        state_init(s);
        CU_ASSERT_FATAL(dcb_driver.read(&fx.t, STATE_BIT(STATE_FIELD_PFC), s, &e) == 0);
        CU_ASSERT_FATAL(dcb_buffer_driver.read(&fx.t, STATE_ALL_FIELDS, s, &e) == 0);
}

/* PFC (the dcb driver) then cable and buffers, as a transaction orders them. */
static int apply(const struct state *want, struct errbuf *e)
{
        int r = state_has(want, STATE_FIELD_PFC) ? drvtest_apply(&dcb_driver, &fx.t, want, e) : 0;

        if (r >= 0)
                r = drvtest_apply(&dcb_buffer_driver, &fx.t, want, e);
        if (r < 0 && getenv("TEST_VERBOSE"))
                fprintf(stderr, "test_dcb_buffer: apply: %s: %s\n", e->where, e->msg);
        return r;
}

static int restore(const struct state *snap, struct errbuf *e)
{
        int r = drvtest_restore(&dcb_buffer_driver, &fx.t, snap, e);

        if (r >= 0)
                r = drvtest_restore(&dcb_driver, &fx.t, snap, e);
        if (r < 0)
                fprintf(stderr, "test_dcb_buffer: restore: %s: %s\n", e->where, e->msg);
        return r;
}

static bool reads_as(const struct state *want)
{
        struct state live;
        struct diff d = { 0 };
        bool same;

        snapshot(&live);
        if (state_diff(want, &live, &d) < 0)
                return false;
        same = diff_empty(&d);
        for (unsigned i = 0; i < d.n; i++)
                fprintf(stderr, "test_dcb_buffer: %s is %s, wanted %s\n", d.entries[i].key, d.entries[i].from,
                        d.entries[i].to);
        diff_done(&d);
        return same;
}

/* PFC on 3, cable 40 m, priority 3 alone in buffer 1 of `size` bytes. */
static void lossless(struct state *s, uint32_t size)
{
        state_init(s);
        s->present = STATE_BIT(STATE_FIELD_PFC) | STATE_BIT(STATE_FIELD_CABLE_LEN) | STATE_BIT(STATE_FIELD_BUFFERS);
        s->pfc_enabled = 0x08;
        s->cable_len_m = 40;
        s->buffers.prio_buffer[3] = 1;
        s->buffers.size[0] = 130944;
        s->buffers.size[1] = size;
}

static void test_caps_and_read(void)
{
        uint32_t f = 0;
        struct state s;
        struct errbuf e;

        up("mlx5:vA:3");
        CU_ASSERT(dcb_buffer_driver.caps(&fx.t, &f, &e) == 0);
        CU_ASSERT_EQUAL(f, STATE_BIT(STATE_FIELD_CABLE_LEN) | STATE_BIT(STATE_FIELD_BUFFERS));
        snapshot(&s);
        CU_ASSERT_EQUAL(s.cable_len_m, 7);                      /* MLX5E_DEFAULT_CABLE_LEN */
        CU_ASSERT(s.dcb.has_pfc_delay && s.dcb.pfc_delay == 7);
        CU_ASSERT_EQUAL(s.buffers.size[0], 130944);
        CU_ASSERT_EQUAL(s.buffers.total, 524288);
        down();
        /* ice: no dcbnl_getbuffer and a delay nettune cannot read: neither field */
        up("ice:vA:3");
        CU_ASSERT(dcb_buffer_driver.caps(&fx.t, &f, &e) == 0);
        CU_ASSERT_EQUAL(f, 0);
        down();
        up("veth:vA:3");
        CU_ASSERT(dcb_buffer_driver.caps(&fx.t, &f, &e) == 0);
        CU_ASSERT_EQUAL(f, 0);
        down();
}

/* Firmware mode: the cable length is stored, no buffer changes; the rollback ends where it began. */
static void test_mlx5_cable_firmware_mode(void)
{
        char *start, *end;
        struct state before, want;
        struct errbuf e;

        up("mlx5:vA:3:host");
        start = dump();
        snapshot(&before);
        state_init(&want);
        want.present = STATE_BIT(STATE_FIELD_CABLE_LEN);
        want.cable_len_m = 100;
        CU_ASSERT(apply(&want, &e) == 0);
        CU_ASSERT(reads_as(&want));
        CU_ASSERT(dump_has("cable_len 100"));
        CU_ASSERT(dump_has("buffers firmware prio2buffer 0,0,0,0,0,0,0,0 size 130944,130944,0,"));
        CU_ASSERT(restore(&before, &e) == 0);
        end = dump();
        CU_ASSERT_STRING_EQUAL(end, start);
        free(start);
        free(end);
        down();
}

/* mlx5 ignores 1000 m without an error: refused before anything is sent. */
static void test_mlx5_cable_refused(void)
{
        struct state want;
        struct errbuf e = { 0 };
        unsigned sets;

        up("mlx5:vA:3:host");
        sets = fx.model.devs[0].n_sets;
        state_init(&want);
        want.present = STATE_BIT(STATE_FIELD_CABLE_LEN);
        want.cable_len_m = 1000;
        CU_ASSERT(apply(&want, &e) == -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "pfc.cable_length_m 1000 is longer than mlx5 takes (1-999 m)"));
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "nothing was changed"));
        CU_ASSERT_EQUAL(fx.model.devs[0].n_sets, sets);
        /* the model does what the driver does with it: nothing */
        control("delay vA 1000");
        CU_ASSERT(dump_has("cable_len 7"));
        down();
}

/*
 * Buffers: manual mode from the first change, thresholds from the cable length
 * (recomputed when it changes), read back as written; the rollback restores map,
 * sizes, cable and PFC, and only the driver's mode stays manual.
 */
static void test_mlx5_buffers_round_trip(void)
{
        char *start, *end, *p;
        struct state before, want;
        struct errbuf e;
        struct headroom h;
        struct headroom_input in;
        struct headroom_problem why;

        up("mlx5:vA:3:host");
        start = dump();
        snapshot(&before);
        lossless(&want, 65536);
        CU_ASSERT(apply(&want, &e) == 0);
        CU_ASSERT(reads_as(&want));
        /* xoff = (301 + 216*40/100) * 100 + 272*1500/100 = 42780; threshold 65536 - 42780 -> cells */
        headroom_input_init(&in, HEADROOM_CONNECTX);
        in.speed_gbps = 100, in.cable_m = 40, in.mtu = 1500, in.max_mtu = 9978;
        CU_ASSERT_FATAL(headroom_calc(&in, &h, &why) == 0);
        CU_ASSERT_EQUAL(h.xoff_bytes, 42780);
        CU_ASSERT(dump_has("buffers manual prio2buffer 0,0,0,1,0,0,0,0 size 130944,65536,0,0,0,0,0,0 lossless 0x02 "
                           "xoff 0,22656,0,0,0,0,0,0 xon 0,12672,"));
        /* in manual mode a longer cable recomputes the thresholds by itself */
        want.cable_len_m = 50;
        CU_ASSERT(apply(&want, &e) == 0);
        CU_ASSERT(dump_has("cable_len 50"));
        CU_ASSERT(dump_has("xoff 0,20480,0,0,0,0,0,0"));       /* 65536 - (301+108)*100 - 4080 = 20556 */
        CU_ASSERT(restore(&before, &e) == 0);
        CU_ASSERT(reads_as(&before));
        end = dump();
        p = strstr(end, "buffers manual ");
        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
        /* the one thing a rollback cannot undo: the driver's manual mode */
        CU_ASSERT(asprintf(&p, "%.*sbuffers firmware %s", (int)(p - end), end, p + strlen("buffers manual ")) > 0);
        free(end);
        end = p;
        if (strcmp(end, start))
                fprintf(stderr, "test_dcb_buffer: --- start\n%s--- end\n%s", start, end);
        CU_ASSERT_STRING_EQUAL(end, start);
        free(start);
        free(end);
        down();
}

static void expect_refused(const struct state *want_, const char *text);

/* The notes the dcb-buffer driver's check leaves for a change to want (the plan's). */
static bool check_notes(const struct state *want, const char *text)
{
        struct driver_io io = { 0 };
        struct state live;
        uint32_t delta = want->present & (STATE_BIT(STATE_FIELD_CABLE_LEN) | STATE_BIT(STATE_FIELD_BUFFERS));
        struct driver_change c = { .n_units = 1, .desired = want, .live = &live, .delta = &delta, .fields = delta };
        struct errbuf e = { 0 };
        bool found = false;

        snapshot(&live);
        fx.t.io = &io;
        CU_ASSERT(dcb_buffer_driver.check(&fx.t, &c, &e) == 0);
        fx.t.io = NULL;
        for (unsigned i = 0; i < io.n_notes; i++)
                found |= strstr(io.notes[i], text) != NULL;
        if (!found)
                fprintf(stderr, "test_dcb_buffer: no note '%s' (%u notes)\n", text, io.n_notes);
        driver_io_close(&io);
        return found;
}

/*
 * Buffer ownership (upstream 451d2849ea66, nm_mlx5.h): where the firmware owns the
 * buffers (FW_OWNED until the first PBMC write, or UNKNOWN without PCAM
 * buffer_ownership), setpfc stores a new cable length and recomputes nothing; the
 * cable goes first, so that setbuffer computes xoff at the new cable: 65536 - 42780
 * at 40 m (not 65536 - 35680 at the 7 m a buffers-first order leaves). After it a
 * cable alone recomputes only where the firmware says SW_OWNED; the plan says so.
 */
static void test_mlx5_ownership(void)
{
        static const char *const variants[] = { "mlx5:vA:3:host+fw-owner", "mlx5:vA:3:host+owner-unknown" };
        static const char *const owned[] = { "buffers sw_owned ", "buffers unknown " };
        static const char *const xoff50[] = { "xoff 0,20480,0,", "xoff 0,22656,0," };

        for (unsigned v = 0; v < 2; v++) {
                char *start, *end, *p;
                struct state before, want;
                struct errbuf e;

                up(variants[v]);
                start = dump();
                snapshot(&before);
                lossless(&want, 65536);
                CU_ASSERT(check_notes(&want, "the cable length is written first, so that setbuffer computes xoff from "
                                             "it (calculate_xoff())"));
                CU_ASSERT(apply(&want, &e) == 0);
                CU_ASSERT(reads_as(&want));
                CU_ASSERT(dump_has("cable_len 40"));
                CU_ASSERT(dump_has(owned[v]));
                CU_ASSERT(dump_has("prio2buffer 0,0,0,1,0,0,0,0 size 130944,65536,0,0,0,0,0,0 lossless 0x02 "
                                   "xoff 0,22656,0,0,0,0,0,0 xon 0,12672,"));
                /* the cable alone: recomputed where the firmware says SW_OWNED, kept where it says UNKNOWN */
                want.cable_len_m = 50;
                want.present &= ~STATE_BIT(STATE_FIELD_BUFFERS);
                CU_ASSERT(check_notes(&want, "a new cable length moves xoff only where the driver owns the buffers"));
                CU_ASSERT(apply(&want, &e) == 0);
                CU_ASSERT(dump_has("cable_len 50"));
                CU_ASSERT(dump_has(xoff50[v]));
                /*
                 * The rollback: sizes, map and cable back; the ownership stays. Where the firmware
                 * says UNKNOWN, the PFC restored after the buffers recomputes nothing: buffer 0,
                 * which held priority 3 while PFC was still on, stays lossless (xoff at 7 m), as the
                 * plan's note says; dcbnl cannot see it.
                 */
                CU_ASSERT(restore(&before, &e) == 0);
                CU_ASSERT(reads_as(&before));
                end = dump();
                if (v) {
                        static const char left[] = "lossless 0x01 xoff 95232,0,0,0,0,0,0,0 xon 85248,0,";

                        p = strstr(end, left);
                        CU_ASSERT_PTR_NOT_NULL_FATAL(p);
                        CU_ASSERT(asprintf(&p, "%.*slossless 0x00 xoff 0,0,0,0,0,0,0,0 xon 0,0,%s", (int)(p - end), end,
                                           p + strlen(left)) > 0);
                        free(end);
                        end = p;
                }
                p = strstr(end, owned[v]);
                CU_ASSERT_PTR_NOT_NULL_FATAL(p);
                CU_ASSERT(asprintf(&p, "%.*sbuffers %s %s", (int)(p - end), end, v ? "unknown" : "fw_owned",
                                   p + strlen(owned[v])) > 0);
                free(end);
                end = p;
                if (strcmp(end, start))
                        fprintf(stderr, "test_dcb_buffer: --- start\n%s--- end\n%s", start, end);
                CU_ASSERT_STRING_EQUAL(end, start);
                free(start);
                free(end);
                down();
        }
}

/*
 * Where the driver owns the buffers, a longer cable first is refused when the port's
 * buffers are too small for it (update_xoff_threshold(): -ENOMEM, the cable length
 * put back): the buffers go first then, and the cable after them recomputes xoff:
 * 130944 - 77380 at 200 m, floored to cells.
 */
static void test_mlx5_cable_after_buffers_when_owned(void)
{
        struct state want;
        struct errbuf e;

        up("mlx5:vA:3:host+fw-owner");
        lossless(&want, 65536);
        CU_ASSERT(apply(&want, &e) == 0);               /* SW_OWNED, 40 m */
        lossless(&want, 130944);
        want.cable_len_m = 200;
        CU_ASSERT(apply(&want, &e) == 0);
        CU_ASSERT(reads_as(&want));
        CU_ASSERT(dump_has("cable_len 200"));
        CU_ASSERT(dump_has("size 130944,130944,0,0,0,0,0,0 lossless 0x02 xoff 0,53504,0,"));
        down();
}

/*
 * A ConnectX whose firmware has SBCAM: the cell is its cap_cell_size (the model's
 * 256), every size the port reports is whole cells, and a size that is not is
 * refused before anything is sent; thresholds are floored to it.
 */
static void test_mlx5_sbcam_cell(void)
{
        struct state before, want;
        struct errbuf e;

        up("mlx5:vA:3:host+sbcam");
        snapshot(&before);
        CU_ASSERT_EQUAL(before.buffers.size[0], 130816);        /* 511 cells of 256 */
        lossless(&want, 65664);                                 /* 513 cells of 128 */
        want.buffers.size[0] = 130816;
        expect_refused(&want, "buffers.buffer_size_bytes[1] 65664 is not a whole number of the port's 256-byte cells "
                              "(every size the port reports is a multiple of it");
        lossless(&want, 65536);
        want.buffers.size[0] = 130816;
        CU_ASSERT(apply(&want, &e) == 0);
        CU_ASSERT(reads_as(&want));
        CU_ASSERT(dump_has("buffers manual cell 256 prio2buffer 0,0,0,1,0,0,0,0 size 130816,65536,0,0,0,0,0,0 "
                           "lossless 0x02 xoff 0,22528,0,"));          /* 65536 - 42780 = 22756 -> 88 cells */
        CU_ASSERT(restore(&before, &e) == 0);
        CU_ASSERT(reads_as(&before));
        down();
}

/*
 * A ConnectX port takes an MTU up to its max_mtu (mlx5: 9978), above the 9216 of the
 * switches; its lossless buffer is checked and its xoff computed for that MTU
 * (calculate_xoff(): 272 * 9978 / 100). An E810 (ICE_MAX_MTU 9702) refuses 9978
 * before anything is sent.
 */
static void test_connectx_mtu_above_9216(void)
{
        struct state want;
        struct errbuf e = { 0 };

        up("mlx5:vA:3:host");
        lossless(&want, 130944);
        want.present |= STATE_BIT(STATE_FIELD_MTU);
        want.mtu = POLICY_MTU_MAX;
        CU_ASSERT_EQUAL(want.mtu, 9978);
        CU_ASSERT(drvtest_apply(&link_driver, &fx.t, &want, &e) == 0);
        CU_ASSERT(apply(&want, &e) == 0);
        CU_ASSERT(dump_has("link mtu 9978"));
        /* xoff (301 + 86) * 100 + 27140 = 65840: 130944 - 65840 = 65104, floored to cells */
        CU_ASSERT(dump_has("size 130944,130944,0,0,0,0,0,0 lossless 0x02 xoff 0,65024,0,"));
        down();
        up("ice:vA:3");
        state_init(&want);
        want.present = STATE_BIT(STATE_FIELD_MTU);
        want.mtu = 9978;
        CU_ASSERT_EQUAL(drvtest_apply(&link_driver, &fx.t, &want, &e), -ERANGE);
        if (!strstr(e.msg, "mtu 9978 out of the kernel's range"))
                fprintf(stderr, "test_dcb_buffer: %s\n", e.msg);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "mtu 9978 out of the kernel's range"));
        down();
}

static void expect_refused_pfc(const struct state *want, const char *text);

/* The dcb-buffer driver's check refuses want: nothing is sent (its PFC left to the dcb driver, not applied here). */
static void expect_refused(const struct state *want_, const char *text)
{
        struct state want = *want_;
        struct errbuf e = { 0 };
        char *start = dump(), *end;

        want.present &= ~STATE_BIT(STATE_FIELD_PFC);
        CU_ASSERT(apply(&want, &e) == -EINVAL);
        if (!strstr(e.msg, text))
                fprintf(stderr, "test_dcb_buffer: got '%s', wanted '%s'\n", e.msg, text);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, text));
        end = dump();
        CU_ASSERT_STRING_EQUAL(end, start);             /* nothing was changed */
        free(start);
        free(end);
}

/*
 * mlx5 takes a new map before new sizes, against the sizes the port has
 * (mlx5e_port_manual_buffer_config(): update_buffer_lossy() then the sizes): priority
 * 3 moved to buffer 2, still 0 bytes, would be -ENOMEM in one request; nettune sends
 * the sizes under the port's map first, then the map. A map and sizes that fit in
 * neither order are refused at plan time.
 */
static void test_mlx5_map_after_sizes(void)
{
        struct state before, want;
        struct errbuf e = { 0 };

        up("mlx5:vA:3:host");
        snapshot(&before);
        lossless(&want, 130944);
        want.buffers.prio_buffer[3] = 2;
        want.buffers.size[2] = 65536;
        CU_ASSERT(apply(&want, &e) == 0);
        if (e.msg[0])
                fprintf(stderr, "test_dcb_buffer: %s\n", e.msg);
        CU_ASSERT(reads_as(&want));
        CU_ASSERT(dump_has("prio2buffer 0,0,0,2,0,0,0,0 size 130944,130944,65536,0,0,0,0,0 lossless 0x04"));
        CU_ASSERT(restore(&before, &e) == 0);
        down();
        /* buffer 1 to 0 bytes while it holds the lossless priority, and buffer 2 too small for it before */
        up("mlx5:vA:3:host");
        lossless(&want, 130944);
        CU_ASSERT(apply(&want, &e) == 0);               /* priority 3 lossless in buffer 1 */
        lossless(&want, 0);
        want.buffers.prio_buffer[3] = 2;
        want.buffers.size[2] = 65536;
        expect_refused_pfc(&want, "buffers: mlx5 takes a new priority->buffer map against the sizes the port has "
                                  "now");
        down();
}

/* What mlx5 would refuse or round, refused at plan time with the calculator's figure. */
static void test_mlx5_buffers_refused(void)
{
        struct state want;

        up("mlx5:vA:3:host");
        lossless(&want, 32768);
        expect_refused(&want, "buffer 1 of 32768 bytes holds lossless priority 3, below the 52992 bytes of headroom "
                              "this port needs (connectx at 100000 Mb/s, 40 m, mtu 1500: xoff 42780, xon 9978");
        lossless(&want, 65500);
        expect_refused(&want, "buffers.buffer_size_bytes[1] 65500 is not a whole number of the port's 128-byte cells "
                              "(mlx5 floors it and keeps 65408)");
        lossless(&want, 524288);
        expect_refused(&want, "buffers: 655232 bytes in all, the port has 524288");
        down();
}

/* mlxsw: the check sees the policy's PFC (the lossiness of every priority), then refuses: nothing is sent. */
static void expect_refused_pfc(const struct state *want, const char *text)
{
        struct errbuf e = { 0 };
        char *start = dump(), *end;

        CU_ASSERT(drvtest_apply(&dcb_buffer_driver, &fx.t, want, &e) == -EINVAL);
        if (!strstr(e.msg, text))
                fprintf(stderr, "test_dcb_buffer: got '%s', wanted '%s'\n", e.msg, text);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, text));
        end = dump();
        CU_ASSERT_STRING_EQUAL(end, start);             /* nothing was changed */
        free(start);
        free(end);
}

/*
 * mlxsw in DCB headroom mode: the buffer it reserves is ETS's traffic class, 2 x MTU
 * + 2 x delay + MTU (spectrum_buffers.c mlxsw_sp_hdroom_bufs_reset_sizes()); PFC alone
 * shares class 0 with every lossy priority, and a class of its own cannot reach the
 * calculator's size through a __u16 delay: both refused, nothing sent. A delay set by
 * hand (the bare round trip) reads back as its cable, and a snapshot puts the raw
 * delay back as it was.
 */
static void test_mlxsw_delay_bits(void)
{
        char *start, *end;
        struct state before, want, hand;
        struct errbuf e = { 0 };

        up("mlxsw:swp1:5");
        start = dump();
        snapshot(&before);
        CU_ASSERT_EQUAL(before.cable_len_m, 0);
        state_init(&want);
        want.present = STATE_BIT(STATE_FIELD_PFC) | STATE_BIT(STATE_FIELD_CABLE_LEN);
        want.pfc_enabled = 0x08;
        want.cable_len_m = 40;
        expect_refused_pfc(&want, "pfc: lossy priority 0 would share buffer 0 with PFC priority 3 on the port's ETS "
                                  "priority_to_tc");
        want.present |= STATE_BIT(STATE_FIELD_ETS);
        want.ets.prio_tc[3] = 3;
        expect_refused_pfc(&want, "in DCB headroom mode mlxsw sizes buffer 3 of lossless priorities 3 from the PFC "
                                  "delay alone");
        expect_refused_pfc(&want, "(at most 21168 bytes of buffer): put the port in TC headroom mode");
        want.cable_len_m = 100;                                 /* 101011 bits: no __u16 holds it */
        expect_refused_pfc(&want, "pfc.cable_length_m 100 is 101011 bits of delay at 100000 Mb/s; mlxsw takes at "
                                  "most 65535 (struct ieee_pfc.delay is a __u16: 64 m at this speed)");
        /* by hand, as an older nettune left it: 2 * 40 m * 100 Gb/s / 1.98e8 m/s -> 40405 bits */
        control("pfc swp1 8");
        control("delay swp1 40405");
        CU_ASSERT(dump_has("lossless 0x01 size 15120,"));       /* (2*11 + 2*36 + 11) * 144 */
        snapshot(&hand);
        CU_ASSERT_EQUAL(hand.cable_len_m, 40);
        CU_ASSERT_EQUAL(hand.dcb.pfc_delay, 40405);
        CU_ASSERT(restore(&before, &e) == 0);
        control("pfc swp1 0");
        end = dump();
        CU_ASSERT_STRING_EQUAL(end, start);
        free(start);
        free(end);
        down();
}

/*
 * mlxsw in TC mode (a root qdisc offloaded): every priority in buffer 0 until the
 * map is set; with it only the lossless priority's buffer is lossless, sized as
 * given; DCB mode refuses the map.
 */
static void test_mlxsw_tc_mode_buffers(void)
{
        char *start, *end;
        struct state before, want;
        struct errbuf e = { 0 };

        up("mlxsw:swp1:5");
        control("qdisc swp1 root");
        start = dump();
        snapshot(&before);
        CU_ASSERT(dump_has("headroom tc cell 144"));
        lossless(&want, 67680);                 /* 470 cells; spectrum2 100G 40 m mtu 1500 needs 63488 */
        want.buffers.size[0] = 3168;            /* 2 x MTU in cells: 22 * 144 */
        /* no ethtool here to say the lanes: checked as 4 lanes, and the plan says so */
        CU_ASSERT(check_notes(&want, "ethtool does not say how many lanes the port has, so its buffers were checked "
                                     "as a 4-lane port's"));
        CU_ASSERT(apply(&want, &e) == 0);
        if (e.msg[0])
                fprintf(stderr, "test_dcb_buffer: %s\n", e.msg);
        CU_ASSERT(reads_as(&want));
        CU_ASSERT(dump_has("buf_idx 0,0,0,1,0,0,0,0 lossless 0x02 size 3168,67680,0,"));
        CU_ASSERT(restore(&before, &e) == 0);
        end = dump();
        if (strcmp(end, start))
                fprintf(stderr, "test_dcb_buffer: --- start\n%s--- end\n%s", start, end);
        CU_ASSERT_STRING_EQUAL(end, start);
        free(start);
        free(end);
        /* below the threshold mlxsw raises it: refused */
        lossless(&want, 67680);
        want.buffers.size[0] = 1440;
        expect_refused(&want, "buffers.buffer_size_bytes[0] 1440: mlxsw raises a buffer that holds priorities to "
                              "2 x MTU, 3168 bytes");
        lossless(&want, 43200);
        want.buffers.size[0] = 3168;
        expect_refused_pfc(&want, "buffer 1 holds lossless priorities 3, and mlxsw will reserve 43200 bytes for it, "
                                  "below the 63488 bytes of headroom this port needs (spectrum2 at 100000 Mb/s, 40 m, "
                                  "mtu 1500: xoff 44032, xon 19456");
        /* without buffers TC mode keeps every priority in buffer 0 */
        want.present &= ~STATE_BIT(STATE_FIELD_BUFFERS);
        expect_refused_pfc(&want, "pfc: lossy priority 0 would share buffer 0 with PFC priority 3 on the port's "
                                  "buffer map in TC headroom mode");
        /* DCB mode: the driver refuses dcbnl_setbuffer, and the reason is named */
        control("qdisc swp1 none");
        lossless(&want, 67680);
        want.buffers.size[0] = 3168;
        CU_ASSERT(apply(&want, &e) == -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "mlxsw takes dcb buffer only while egress is configured with tc"));
        CU_ASSERT(restore(&before, &e) == 0);
        down();
}

/* iproute2's `dcb buffer show`: the GET nettune sends is its request, and the reply's buffer attribute parses. */
static void test_vector_buffer_show(void)
{
        const struct nltrace_msg *reply;
        struct dcb_nl_ieee ieee;
        struct nltrace t;
        struct errbuf e;
        struct nl *nl;

        CU_ASSERT_FATAL(nltrace_load("06-buffer-show.shim.trace", &t) == 0);
        CU_ASSERT_PTR_NOT_NULL_FATAL(reply = nltrace_reply(&t, 0));
        CU_ASSERT_EQUAL(dcb_nl_parse_ieee((const struct nlmsghdr *)reply->buf, &ieee), 0);
        CU_ASSERT(ieee.has_buffer);                     /* DCB_ATTR_DCB_BUFFER, 44 bytes */
        CU_ASSERT_EQUAL(ieee.buffer.total_size, 0);
        up("mlx5:vA:3");
        CU_ASSERT_FATAL(nl_open(nm_transport_get(&fx.xport), NETLINK_ROUTE, &nl, &e) == 0);
        CU_ASSERT(dcb_nl_get(nl, "vA", &ieee, &e) == 0);
        CU_ASSERT(nltrace_equal_masked(fx.xport.log[fx.xport.n_log - 1].buf, fx.xport.log[fx.xport.n_log - 1].len,
                                       nltrace_request(&t, 0)->buf, nltrace_request(&t, 0)->len));
        CU_ASSERT(ieee.has_buffer && ieee.buffer.total_size == 524288 && ieee.buffer.buffer_size[1] == 130944);
        nl_close(nl);
        down();
}

int suite_dcb_buffer(void)
{
        CU_pSuite s = CU_add_suite("dcb_buffer", NULL, NULL);

        if (!s || !CU_add_test(s, "caps_and_read", test_caps_and_read) ||
            !CU_add_test(s, "mlx5_ownership", test_mlx5_ownership) ||
            !CU_add_test(s, "mlx5_cable_after_buffers_when_owned", test_mlx5_cable_after_buffers_when_owned) ||
            !CU_add_test(s, "mlx5_sbcam_cell", test_mlx5_sbcam_cell) ||
            !CU_add_test(s, "connectx_mtu_above_9216", test_connectx_mtu_above_9216) ||
            !CU_add_test(s, "mlx5_map_after_sizes", test_mlx5_map_after_sizes) ||
            !CU_add_test(s, "vector_buffer_show", test_vector_buffer_show) ||
            !CU_add_test(s, "mlx5_cable_firmware_mode", test_mlx5_cable_firmware_mode) ||
            !CU_add_test(s, "mlx5_cable_refused", test_mlx5_cable_refused) ||
            !CU_add_test(s, "mlx5_buffers_round_trip", test_mlx5_buffers_round_trip) ||
            !CU_add_test(s, "mlx5_buffers_refused", test_mlx5_buffers_refused) ||
            !CU_add_test(s, "mlxsw_delay_bits", test_mlxsw_delay_bits) ||
            !CU_add_test(s, "mlxsw_tc_mode_buffers", test_mlxsw_tc_mode_buffers))
                return -1;
        return 0;
}
