/* SPDX-License-Identifier: MIT */
/*
 * The headroom calculator against (1) the numbers upstream published, (2) the
 * independent reference implementation's table (tests/data/headroom/reference.tsv,
 * made by headroom_ref.py there), (3) its input ranges and helpers.
 */
#include <CUnit/CUnit.h>
#include <stdio.h>
#include <stdlib.h>

#include "common/util.h"
#include "policies/state/headroom.h"

#define TABLE "tests/data/headroom/reference.tsv"

static struct headroom calc(enum headroom_asic a, unsigned speed, unsigned cable, unsigned mtu, unsigned lanes,
                            bool no_comp)
{
        struct headroom_input in;
        struct headroom h = { 0 };
        struct headroom_problem why;

        headroom_input_init(&in, a);
        in.speed_gbps = speed;
        in.cable_m = cable;
        in.mtu = mtu;
        in.lanes = lanes;
        in.no_compensation = no_comp;
        CU_ASSERT_EQUAL(headroom_calc(&in, &h, &why), 0);
        return h;
}

#define EXPECT(h, xoff, xon, size)                      \
        do {                                            \
                CU_ASSERT_EQUAL((h).xoff_bytes, xoff);  \
                CU_ASSERT_EQUAL((h).xon_bytes, xon);    \
                CU_ASSERT_EQUAL((h).size_bytes, size);  \
        } while (0)

/*
 * sonic-swss PR #3235 (merged as 3943093d), the author's figures "by lua" for port
 * MTU 9100, RDMA MTU 1024, small packets 50% — before the 2 KiB compensation existed.
 */
static void test_sonic_swss_3235(void)
{
        EXPECT(calc(HEADROOM_SPECTRUM3, 400, 300, 9100, 0, true), 272384, 38912, 320512);
        EXPECT(calc(HEADROOM_SPECTRUM3, 100, 40, 9100, 0, true), 51200, 19456, 70656);
        EXPECT(calc(HEADROOM_SPECTRUM4, 800, 300, 9100, 0, true), 474112, 38912, 522240);
        EXPECT(calc(HEADROOM_SPECTRUM4, 200, 40, 9100, 0, true), 65536, 19456, 84992);
        /* with the compensation (b20a5969) every one of them gains 2 KiB of xoff */
        EXPECT(calc(HEADROOM_SPECTRUM3, 400, 300, 9100, 0, false), 274432, 38912, 322560);
        EXPECT(calc(HEADROOM_SPECTRUM4, 200, 40, 9100, 0, false), 67584, 19456, 87040);
}

/*
 * sonic-mgmt PR #26696 ("Fix test failure introduced by sonic-swss#4757"): an 8-lane
 * profile was {xoff 118784, xon 38912, size 166912} before the compensation and
 * {xoff 120832, xon 38912, size 168960} after. SPC3 400G 53 m MTU 9100 is one input
 * that gives both (the PR does not name it).
 */
static void test_sonic_mgmt_26696(void)
{
        EXPECT(calc(HEADROOM_SPECTRUM3, 400, 53, 9100, 0, true), 118784, 38912, 166912);
        EXPECT(calc(HEADROOM_SPECTRUM3, 400, 53, 9100, 0, false), 120832, 38912, 168960);
        EXPECT(calc(HEADROOM_SPECTRUM4, 800, 15, 9100, 0, false), 120832, 38912, 168960);
}

/* The 8-lane branch follows the lane count: the default rule, and given lanes. */
static void test_eight_lanes(void)
{
        struct headroom a = calc(HEADROOM_SPECTRUM3, 400, 100, 9100, 0, false);
        struct headroom b = calc(HEADROOM_SPECTRUM3, 400, 100, 9100, 4, false);
        struct headroom c = calc(HEADROOM_SPECTRUM2, 200, 100, 9100, 8, false);

        CU_ASSERT_EQUAL(a.lanes, 8);
        CU_ASSERT_EQUAL(b.lanes, 4);
        CU_ASSERT_EQUAL(a.xoff_bytes, b.xoff_bytes);
        CU_ASSERT_EQUAL(a.xon_bytes, 2 * b.xon_bytes);
        /* size = xoff + xon + port MTU, rounded up to 1 KiB: not xoff + xon */
        CU_ASSERT_EQUAL(a.size_bytes, a.xoff_bytes + a.xon_bytes + 9216);
        CU_ASSERT_EQUAL(b.size_bytes, b.xoff_bytes + b.xon_bytes);
        CU_ASSERT_EQUAL(c.lanes, 8);
        CU_ASSERT_EQUAL(c.xon_bytes, 38912);
        CU_ASSERT_EQUAL(calc(HEADROOM_SPECTRUM4, 800, 100, 9100, 0, false).lanes, 8);
        CU_ASSERT_EQUAL(calc(HEADROOM_SPECTRUM4, 400, 100, 9100, 0, false).lanes, 4);
}

/* The mlx5 formula by hand: ((301 + 2.16 * len) * speed + 2.72 * MTU), the u32 truncations. */
static void test_connectx(void)
{
        /* (301 + 216*7/100 = 316) * 100000 / 1000 + 272*1500/100 = 31600 + 4080 */
        EXPECT(calc(HEADROOM_CONNECTX, 100, 7, 1500, 0, false), 35680, 9216, 45056);
        CU_ASSERT_EQUAL(headroom_mlx5_xoff(100000, 7, 1500), 35680);
        /* below 40 Gb/s the driver counts 40 */
        CU_ASSERT_EQUAL(headroom_mlx5_xoff(25000, 7, 1500), headroom_mlx5_xoff(40000, 7, 1500));
        /* size: the smallest multiple of 128 with size >= xoff + 9216 + 128 */
        for (unsigned m = 1; m < 300; m += 7) {
                struct headroom h = calc(HEADROOM_CONNECTX, 200, m, 9000, 0, false);

                CU_ASSERT_EQUAL(h.size_bytes % 128, 0);
                CU_ASSERT(h.size_bytes >= h.xoff_bytes + 9216 + 128);
                CU_ASSERT(h.size_bytes - 128 < h.xoff_bytes + 9216 + 128);
        }
}

struct row {
        char asic[16];
        unsigned speed, cable, mtu, lanes, spp, lmtu;
        unsigned long xoff, xon, size;
};

/* The larger of *max and |got - want|. */
static void deviation(double *max, unsigned long got, unsigned long want)
{
        double d = got > want ? (double)(got - want) : (double)(want - got);

        if (d > *max)
                *max = d;
}

/* Every row of the reference table, exactly; the largest deviation is printed. */
static void test_reference_table(void)
{
        FILE *f = fopen(TABLE, "re");
        unsigned n = 0, bad = 0;
        double max_dev = 0;
        char line[256];

        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        while (fgets(line, sizeof(line), f)) {
                struct row w;
                struct headroom_input in;
                struct headroom h;
                struct headroom_problem why;
                int a;

                if (line[0] == '#')
                        continue;
                CU_ASSERT_EQUAL_FATAL(sscanf(line, "%15s %u %u %u %u %u %u %lu %lu %lu", w.asic, &w.speed, &w.cable,
                                             &w.mtu, &w.lanes, &w.spp, &w.lmtu, &w.xoff, &w.xon, &w.size), 10);
                a = headroom_asic_from_name(w.asic);
                CU_ASSERT_FATAL(a >= 0);
                headroom_input_init(&in, (enum headroom_asic)a);
                in.speed_gbps = w.speed;
                in.cable_m = w.cable;
                in.mtu = w.mtu;
                in.lanes = w.lanes;
                in.small_packet_pct = w.spp;
                in.lossless_mtu = w.lmtu;
                CU_ASSERT_EQUAL_FATAL(headroom_calc(&in, &h, &why), 0);
                deviation(&max_dev, h.xoff_bytes, w.xoff);
                deviation(&max_dev, h.xon_bytes, w.xon);
                deviation(&max_dev, h.size_bytes, w.size);
                if (h.xoff_bytes != w.xoff || h.xon_bytes != w.xon || h.size_bytes != w.size) {
                        if (bad++ < 5)
                                printf("  headroom differs: %s", line);
                }
                n++;
        }
        fclose(f);
        printf("  headroom: %u reference rows, %u differ, max deviation %.0f bytes\n", n, bad, max_dev);
        CU_ASSERT(n > 5000);
        CU_ASSERT_EQUAL(bad, 0);
}

static void expect_bad(struct headroom_input in, const char *input)
{
        struct headroom h;
        struct headroom_problem why = { 0 };

        CU_ASSERT_EQUAL(headroom_calc(&in, &h, &why), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(why.input);
        CU_ASSERT_STRING_EQUAL(why.input, input);
        CU_ASSERT(why.msg[0] != '\0');
}

static void test_ranges(void)
{
        struct headroom_input ok, in;

        headroom_input_init(&ok, HEADROOM_SPECTRUM2);
        ok.speed_gbps = 100;
        ok.cable_m = 5;
        ok.mtu = 9100;
        in = ok, in.speed_gbps = 0, expect_bad(in, "speed_gbps");
        in = ok, in.speed_gbps = 801, expect_bad(in, "speed_gbps");
        in = ok, in.cable_m = 0, expect_bad(in, "cable_m");
        in = ok, in.cable_m = 3001, expect_bad(in, "cable_m");
        in = ok, in.mtu = 67, expect_bad(in, "mtu");
        in = ok, in.mtu = 9217, expect_bad(in, "mtu");
        in = ok, in.lanes = 3, expect_bad(in, "lanes");
        in = ok, in.small_packet_pct = 101, expect_bad(in, "small_packet_pct");
        in = ok, in.asic = HEADROOM_CONNECTX, in.cable_m = 1000, expect_bad(in, "cable_m");
        in = ok, in.cable_m = 3000;
        calc(HEADROOM_SPECTRUM2, 100, 3000, 9216, 0, false);
        calc(HEADROOM_CONNECTX, 800, 999, 9216, 0, false);
        /* a ConnectX port up to its max_mtu (mlx5: 9978), not the Spectrum's 9216 */
        headroom_input_init(&in, HEADROOM_CONNECTX);
        in.speed_gbps = 100, in.cable_m = 7, in.mtu = 9978, in.max_mtu = 9978;
        {
                struct headroom h;
                struct headroom_problem why;

                CU_ASSERT_EQUAL(headroom_calc(&in, &h, &why), 0);
                CU_ASSERT_EQUAL(h.xoff_bytes, headroom_mlx5_xoff(100000, 7, 9978));
                CU_ASSERT_EQUAL(h.xon_bytes, 9978);
        }
        in.mtu = 9979, expect_bad(in, "mtu");
}

static void test_names_and_delay(void)
{
        for (int a = 0; a < HEADROOM_ASIC_MAX; a++)
                CU_ASSERT_EQUAL(headroom_asic_from_name(headroom_asic_name(a)), a);
        CU_ASSERT_EQUAL(headroom_asic_from_name("spectrum5"), -EINVAL);
        CU_ASSERT_EQUAL(headroom_asic_of_driver("mlx5_core"), HEADROOM_CONNECTX);
        CU_ASSERT_EQUAL(headroom_asic_of_driver("mlxsw_spectrum"), HEADROOM_SPECTRUM1);
        CU_ASSERT_EQUAL(headroom_asic_of_driver("mlxsw_spectrum3"), HEADROOM_SPECTRUM3);
        CU_ASSERT_EQUAL(headroom_asic_of_driver("ice"), -ENOENT);
        CU_ASSERT_EQUAL(headroom_cell_bytes(HEADROOM_SPECTRUM2), 144);
        CU_ASSERT_EQUAL(headroom_cell_bytes(HEADROOM_CONNECTX), 128);
        /* 2 * 1 m * 100e9 b/s / 1.98e8 m/s = 1010.1 bits */
        CU_ASSERT_EQUAL(headroom_delay_bits(100000, 1), 1011);
        CU_ASSERT_EQUAL(headroom_delay_max_cable_m(100000), 64);
        CU_ASSERT(headroom_delay_bits(100000, 64) <= HEADROOM_DELAY_BITS_MAX);
        CU_ASSERT(headroom_delay_bits(100000, 65) > HEADROOM_DELAY_BITS_MAX);
        CU_ASSERT_EQUAL(headroom_delay_max_cable_m(25000), 259);
        /* the read-back inverse gives back every length it was made from */
        for (unsigned speed = 1000; speed <= 400000; speed *= 5)
                for (unsigned m = 1; m < 300; m++)
                        if (headroom_delay_bits(speed, m) <= HEADROOM_DELAY_BITS_MAX)
                                CU_ASSERT_EQUAL(headroom_delay_cable_m(speed, (uint32_t)headroom_delay_bits(speed, m)), m);
        CU_ASSERT_EQUAL(headroom_delay_cable_m(100000, 0), 0);
}

int suite_headroom(void)
{
        CU_pSuite s = CU_add_suite("headroom", NULL, NULL);

        if (!s || !CU_add_test(s, "sonic_swss_3235", test_sonic_swss_3235) ||
            !CU_add_test(s, "sonic_mgmt_26696", test_sonic_mgmt_26696) ||
            !CU_add_test(s, "eight_lanes", test_eight_lanes) || !CU_add_test(s, "connectx", test_connectx) ||
            !CU_add_test(s, "reference_table", test_reference_table) || !CU_add_test(s, "ranges", test_ranges) ||
            !CU_add_test(s, "names_and_delay", test_names_and_delay))
                return -1;
        return 0;
}
