/* SPDX-License-Identifier: MIT */
/*
 * The counter sampler (drivers/host/sampler.h): its accounting on a clock of the test's
 * own (a 50 ms pause burst in a quiet second: caught, while the second's mean stays
 * under pause_storm's bound), and its RDMA hw_counters read from files kept open.
 */
#include <CUnit/CUnit.h>

#include "drivers/host/sampler.h"

#define MS 1000000LL
#define T0_MS 1796731200000LL           /* 2026-12-08T12:00:00Z */

static struct sampler S;

static struct sampler_series *fresh(const char *name, enum doctor_counter kind, bool duration)
{
        memset(&S, 0, sizeof(S));
        S.v = calloc(SAMPLER_SERIES_MAX, sizeof(*S.v));
        CU_ASSERT_FATAL(S.v != NULL);
        return sampler_series_get(&S, "ens1f0", name, kind, 3, duration);
}

/* A second of 10 ms samples; from_ms..to_ms the counter climbs by step per sample. */
static void second(struct sampler_series *x, uint64_t *v, int64_t t0_ms, int from_ms, int to_ms, uint64_t step)
{
        for (int ms = 0; ms <= 1000; ms += 10) {
                if (ms > from_ms && ms <= to_ms)
                        *v += step;
                sampler_account(&S, x, *v, (t0_ms + ms) * MS, t0_ms + ms);
        }
}

static void test_burst_caught(void)
{
        struct sampler_series *x = fresh("rx_prio3_pause", DOCTOR_PAUSE_RX, false);
        struct doctor_burst b[4];
        uint64_t v = 1000;
        unsigned n;

        CU_ASSERT_FATAL(x != NULL);
        second(x, &v, T0_MS, 200, 250, 50);             /* 250 frames in 50 ms: 5000/s */
        CU_ASSERT_EQUAL(x->total, 250);
        /* what a poll of the whole second sees: 250/s, under the bound of 1000 */
        CU_ASSERT((double)x->w_delta / x->w_dt < SAMPLER_BURST_PPS);
        n = sampler_bursts(&S, "ens1f0", 0, b, 4);
        CU_ASSERT_EQUAL_FATAL(n, 1);
        CU_ASSERT_EQUAL(b[0].length_ms, 50);
        CU_ASSERT_EQUAL(b[0].count, 250);
        CU_ASSERT_EQUAL(b[0].start_ms, T0_MS + 200);
        CU_ASSERT_DOUBLE_EQUAL(b[0].peak_per_s, 5000, 1e-6);
        CU_ASSERT_EQUAL(b[0].prio, 3);
        CU_ASSERT_EQUAL(x->bursts, 1);
        CU_ASSERT_EQUAL(sampler_bursts(&S, "ens1f0", T0_MS + 201, b, 4), 0);   /* began before */
        CU_ASSERT_EQUAL(sampler_bursts(&S, "ens1f1", 0, b, 4), 0);
        /* the histogram: 5 samples in (1000, 10000], the other 95 at 0 */
        CU_ASSERT_EQUAL(x->count, 100);
        CU_ASSERT_EQUAL(x->bucket[sampler_bucket(sampler_rate_bounds, 5000)], 5);
        CU_ASSERT_EQUAL(x->bucket[0], 95);
        CU_ASSERT_EQUAL(sampler_bucket(sampler_rate_bounds, 1000), 3);        /* le is inclusive */
        /* the sample at 1000 ms rolled the window: its peak and mean kept */
        CU_ASSERT(x->last_window);
        CU_ASSERT_DOUBLE_EQUAL(x->lw_peak, 5000, 1e-6);
        CU_ASSERT_EQUAL(x->lw_peak_ms, T0_MS + 200);
        CU_ASSERT(x->lw_mean > 200 && x->lw_mean < 300);
        /* a quiet second after it: the last window's peak is 0 again */
        second(x, &v, T0_MS + 1010, 0, 0, 0);
        CU_ASSERT_DOUBLE_EQUAL(x->lw_peak, 0, 1e-9);
        free(S.v);
}

static void test_steady_is_no_burst(void)
{
        struct sampler_series *x = fresh("rx_prio3_pause", DOCTOR_PAUSE_RX, false);
        struct doctor_burst b[4];
        uint64_t v = 0;

        second(x, &v, T0_MS, 0, 1000, 9);               /* 900/s all second long: under the bound each sample */
        CU_ASSERT_EQUAL(sampler_bursts(&S, NULL, 0, b, 4), 0);
        /* a burst under way counts with what it has so far; a counter that went back ends it */
        v += 20;
        sampler_account(&S, x, v, (T0_MS + 1010) * MS, T0_MS + 1010);
        CU_ASSERT_EQUAL(sampler_bursts(&S, NULL, 0, b, 4), 1);
        sampler_account(&S, x, 5, (T0_MS + 1020) * MS, T0_MS + 1020);
        CU_ASSERT_EQUAL(x->resets, 1);
        CU_ASSERT_FALSE(x->in_burst);
        CU_ASSERT_EQUAL(S.n_bursts, 1);
        free(S.v);
}

static void test_duration_share(void)
{
        struct sampler_series *x = fresh("rx_prio3_pause_duration", DOCTOR_PAUSE_RX, true);
        struct doctor_burst b[4];
        uint64_t v = 0;

        second(x, &v, T0_MS, 300, 370, 8700);           /* paused 8.7 of every 10 ms for 70 ms: 60.9 ms */
        CU_ASSERT_EQUAL_FATAL(sampler_bursts(&S, NULL, 0, b, 4), 1);
        CU_ASSERT(b[0].duration);
        CU_ASSERT_EQUAL(b[0].length_ms, 70);
        CU_ASSERT_EQUAL(b[0].count, 60900);
        CU_ASSERT_DOUBLE_EQUAL(b[0].peak_per_s, 0.87, 1e-9);
        CU_ASSERT_EQUAL(x->bucket[sampler_bucket(sampler_share_bounds, 0.87)], 7);
        free(S.v);
}

static void test_rdma_files_kept_open(void)
{
        char root[] = "/tmp/nettune-smp.XXXXXX", cmd[1024], file[512];
        const char ifs[1][IF_NAMESIZE] = { "mlx0" };
        struct sampler *s = calloc(1, sizeof(*s));
        struct sampler_opts o = { .period_ms = 10 };
        struct errbuf e = { 0 };
        FILE *f;

        CU_ASSERT_FATAL(s != NULL && mkdtemp(root) != NULL);
        snprintf(cmd, sizeof(cmd),
                 "set -e; cd %s; mkdir -p devices/pci0/infiniband/mlx5_0 class/net/mlx0 "
                 "class/infiniband/mlx5_0/ports/1/hw_counters; ln -s ../../../devices/pci0 class/net/mlx0/device; "
                 "echo 42 > class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent", root);
        CU_ASSERT_FATAL(system(cmd) == 0);
        o.sysfs_root = root;
        CU_ASSERT_EQUAL_FATAL(sampler_open(s, &o, ifs, 1, &e), 0);
        sampler_sample(s);
        snprintf(file, sizeof(file), "%s/class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent", root);
        f = fopen(file, "r+");                          /* the same file, a new value: no new open needed */
        CU_ASSERT_FATAL(f != NULL);
        fprintf(f, "142\n");
        fclose(f);
        sampler_sample(s);
        CU_ASSERT_EQUAL_FATAL(s->n >= 1, true);
        for (unsigned i = 0; i < s->n; i++)
                if (strstr(s->v[i].name, "np_cnp_sent")) {
                        CU_ASSERT_EQUAL(s->v[i].kind, DOCTOR_CNP_SENT);
                        CU_ASSERT_EQUAL(s->v[i].total, 100);
                        CU_ASSERT_STRING_EQUAL(s->v[i].name, "np_cnp_sent rdma:mlx5_0/1");
                }
        CU_ASSERT_EQUAL(s->samples, 2);
        sampler_close(s);
        free(s);
        /* the bounds: a period outside 1-1000 ms is refused */
        s = calloc(1, sizeof(*s));
        o.period_ms = 1001;
        CU_ASSERT_EQUAL(sampler_open(s, &o, ifs, 1, &e), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "allowed 1-1000"));
        sampler_close(s);
        free(s);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
        CU_ASSERT(system(cmd) == 0);
}

int suite_sampler(void);
int suite_sampler(void)
{
        CU_pSuite s = CU_add_suite("sampler", NULL, NULL);

        if (!s || !CU_add_test(s, "burst_caught", test_burst_caught) ||
            !CU_add_test(s, "steady_is_no_burst", test_steady_is_no_burst) ||
            !CU_add_test(s, "duration_share", test_duration_share) ||
            !CU_add_test(s, "rdma_files_kept_open", test_rdma_files_kept_open))
                return -1;
        return 0;
}
