/* SPDX-License-Identifier: MIT */
/* Counters: RDMA hw_counters from a fake sysfs tree, per-driver names, a race-free ethtool read. */
#include <CUnit/CUnit.h>
#include <linux/ethtool.h>

#include "drivers/host/counters.h"
#include "policies/doctor.h"

static void test_rdma_tree(void)
{
        char root[] = "/tmp/nettune-cnt.XXXXXX", cmd[1024];
        struct counters *c = calloc(1, sizeof(*c));
        struct errbuf e;
        bool cnp = false, oob = false;

        CU_ASSERT_FATAL(c != NULL && mkdtemp(root) != NULL);
        snprintf(cmd, sizeof(cmd),
                 "set -e; cd %s; mkdir -p devices/pci0/infiniband/mlx5_0 class/net/mlx0 "
                 "class/infiniband/mlx5_0/ports/1/hw_counters; ln -s ../../../devices/pci0 class/net/mlx0/device; "
                 "echo 42 > class/infiniband/mlx5_0/ports/1/hw_counters/np_cnp_sent; "
                 "echo 7 > class/infiniband/mlx5_0/ports/1/hw_counters/out_of_buffer; "
                 "echo garbage > class/infiniband/mlx5_0/ports/1/hw_counters/broken", root);
        CU_ASSERT_FATAL(system(cmd) == 0);
        CU_ASSERT(counters_read_rdma("mlx0", "mlx5_core", root, c, &e) == 0);
        CU_ASSERT_EQUAL(c->n, 2);
        for (unsigned i = 0; i < c->n; i++) {
                CU_ASSERT_STRING_EQUAL(c->c[i].source, "rdma:mlx5_0/1");
                cnp |= streq(c->c[i].name, "np_cnp_sent") && c->c[i].value == 42 && c->c[i].exported;
                oob |= streq(c->c[i].name, "out_of_buffer") && c->c[i].value == 7 && c->c[i].exported;
        }
        CU_ASSERT(cnp && oob);
        c->n = 0;
        CU_ASSERT(counters_read_rdma("eth9", "mlx5_core", root, c, &e) == 0);    /* none: empty, no error */
        CU_ASSERT_EQUAL(c->n, 0);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
        CU_ASSERT(system(cmd) == 0);
        free(c);
}

/* Each driver's own names, case-insensitive, with the priority they carry. */
static void test_driver_names(void)
{
        int prio = 9;

        CU_ASSERT(counters_match("mlx5_core", "rx_prio3_pause", &prio) && prio == 3);
        CU_ASSERT(counters_match("mlx5_core", "tx_prio3_pause_duration", &prio) && prio == 3);
        CU_ASSERT(counters_match("mlx5_core", "rx_prio5_discards", &prio) && prio == 5);
        CU_ASSERT(counters_match("mlx5_core", "out_of_buffer", &prio) && prio == -1);
        CU_ASSERT_FALSE(counters_match("mlx5_core", "rx_prio3_bytes", &prio));
        CU_ASSERT_FALSE(counters_match("mlx5_core", "rx_prio33_pause", &prio));
        CU_ASSERT(counters_match("bnxt_en", "rx_pfc_ena_frames_pri3", &prio) && prio == 3);
        CU_ASSERT(counters_match("bnxt_en", "cnp_rx_pkts", &prio));
        CU_ASSERT(counters_match("ice", "rx_priority_3_xoff.nic", &prio) && prio == 3);
        CU_ASSERT(counters_match("ice", "RxECNMrkd", &prio) && prio == -1);
        CU_ASSERT(counters_match("ice", "rxecnmrkd", &prio));                   /* case-insensitive */
        CU_ASSERT(counters_match("ice", "cnpSent", &prio));
        CU_ASSERT_FALSE(counters_match("ice", "rx_bytes.nic", &prio));
        CU_ASSERT(counters_match("veth", "rx_pause", &prio) && prio == -1);     /* others: "pause" */
        CU_ASSERT_FALSE(counters_match("veth", "rx_bytes", &prio));
}

/*
 * A fake ethtool that grows between the calls (mlx5 adds per-priority PFC counters
 * when PFC changes): the kernel writes all it has, whatever the caller's len.
 */
struct grower {
        unsigned calls;
        uint32_t count[8];              /* the count the device has at each call */
};

static void fill_name(char *dst, uint32_t i)
{
        memset(dst, 0, ETH_GSTRING_LEN);
        if (i < 8)
                snprintf(dst, ETH_GSTRING_LEN, "rx_prio%u_pause", i);
        else
                snprintf(dst, ETH_GSTRING_LEN, "rx_vport_unicast_%u", i);
}

static int grow_ioctl(void *ctx, const char *ifname, void *cmd)
{
        struct grower *g = ctx;
        uint32_t n = g->count[g->calls < 8 ? g->calls : 7];

        g->calls++;
        switch (*(uint32_t *)cmd) {
        case ETHTOOL_GSSET_INFO: {
                struct ethtool_sset_info *s = cmd;

                s->data[0] = n;
                return 0;
        }
        case ETHTOOL_GSTRINGS: {
                struct ethtool_gstrings *s = cmd;

                s->len = n;
                for (uint32_t i = 0; i < n; i++)
                        fill_name((char *)s->data + (size_t)i * ETH_GSTRING_LEN, i);
                return 0;
        }
        case ETHTOOL_GSTATS: {
                struct ethtool_stats *s = cmd;

                s->n_stats = n;
                for (uint32_t i = 0; i < n; i++)
                        s->data[i] = 1000 + i;
                return 0;
        }
        default:
                return -EOPNOTSUPP;
        }
}

static void test_ethtool_race_free(void)
{
        /* counted 4; strings and stats already answer 8 (the slack takes it); counted again: 8; retry */
        struct grower g = { .count = { 4, 8, 8, 8, 8, 8, 8, 8 } };
        struct counters_ethtool io = { grow_ioctl, &g };
        struct counters *c = calloc(1, sizeof(*c));
        struct errbuf e;

        CU_ASSERT_FATAL(c != NULL);
        CU_ASSERT(counters_read_ethtool("mlx0", "mlx5_core", &io, c, &e) == 0);
        CU_ASSERT_EQUAL(c->n, 8);
        CU_ASSERT(g.calls > 4);                                  /* the first read was thrown away */
        CU_ASSERT_STRING_EQUAL(c->c[3].name, "rx_prio3_pause");
        CU_ASSERT_EQUAL(c->c[3].prio, 3);
        CU_ASSERT_EQUAL(c->c[3].value, 1003);
        /* a set that never holds still is an error, not a mix of two reads */
        for (unsigned i = 0; i < 8; i++)
                g.count[i] = 4 + i;
        g.calls = 0;
        c->n = 0;
        CU_ASSERT_EQUAL(counters_read_ethtool("mlx0", "mlx5_core", &io, c, &e), -EAGAIN);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "kept changing"));
        free(c);
}

/* veth-like statistics: no name is a congestion counter, so the values are never asked for. */
static unsigned gstats_calls;

static int plain_ioctl(void *ctx, const char *ifname, void *cmd)
{
        switch (*(uint32_t *)cmd) {
        case ETHTOOL_GSSET_INFO:
                ((struct ethtool_sset_info *)cmd)->data[0] = 3;
                return 0;
        case ETHTOOL_GSTRINGS: {
                struct ethtool_gstrings *s = cmd;
                static const char *const names[] = { "peer_ifindex", "rx_queue_0_xdp_packets", "tx_queue_0_xdp_xmit" };

                s->len = 3;
                for (uint32_t i = 0; i < 3; i++) {
                        memset(s->data + (size_t)i * ETH_GSTRING_LEN, 0, ETH_GSTRING_LEN);
                        snprintf((char *)s->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN, "%s", names[i]);
                }
                return 0;
        }
        case ETHTOOL_GSTATS:
                gstats_calls++;
                return 0;
        default:
                return -EOPNOTSUPP;
        }
}

static void test_names_first(void)
{
        struct counters_ethtool io = { plain_ioctl, NULL };
        struct counters *c = calloc(1, sizeof(*c));
        struct errbuf e;

        CU_ASSERT_FATAL(c != NULL);
        gstats_calls = 0;
        CU_ASSERT(counters_read_ethtool("veth0", "veth", &io, c, &e) == 0);
        CU_ASSERT_EQUAL(c->n, 0);
        CU_ASSERT_EQUAL(gstats_calls, 0);
        free(c);
}

/* An older mlx5 spelled "tx_pause_storm_warning_events " with a trailing blank: it is the same counter. */
static int blank_ioctl(void *ctx, const char *ifname, void *cmd)
{
        static const char *const names[] = { "tx_pause_storm_warning_events ", "tx_pause_storm_error_events" };

        switch (*(uint32_t *)cmd) {
        case ETHTOOL_GSSET_INFO:
                ((struct ethtool_sset_info *)cmd)->data[0] = 2;
                return 0;
        case ETHTOOL_GSTRINGS: {
                struct ethtool_gstrings *s = cmd;

                s->len = 2;
                for (uint32_t i = 0; i < 2; i++) {
                        memset(s->data + (size_t)i * ETH_GSTRING_LEN, 0, ETH_GSTRING_LEN);
                        snprintf((char *)s->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN, "%s", names[i]);
                }
                return 0;
        }
        case ETHTOOL_GSTATS: {
                struct ethtool_stats *v = cmd;

                v->n_stats = 2;
                v->data[0] = 7;
                v->data[1] = 2;
                return 0;
        }
        default:
                return -EOPNOTSUPP;
        }
}

static void test_trailing_blank(void)
{
        struct counters_ethtool io = { blank_ioctl, NULL };
        struct counters *c = calloc(1, sizeof(*c));
        struct errbuf e;
        int prio;

        CU_ASSERT_FATAL(c != NULL);
        CU_ASSERT(counters_read_ethtool("ens1f0np0", "mlx5_core", &io, c, &e) == 0);
        CU_ASSERT_EQUAL(c->n, 2);
        CU_ASSERT_STRING_EQUAL(c->c[0].name, "tx_pause_storm_warning_events");
        CU_ASSERT_EQUAL(c->c[0].value, 7);
        CU_ASSERT(c->c[0].exported);
        CU_ASSERT_EQUAL(counters_kind(c->c[0].name, &prio), DOCTOR_PAUSE_STORM);
        free(c);
}

static void test_lo(void)
{
        struct counters *c = calloc(1, sizeof(*c));
        struct errbuf e;

        CU_ASSERT_FATAL(c != NULL);
        CU_ASSERT(counters_read("lo", "/sys", c, &e) == 0);        /* no ethtool stats: empty */
        CU_ASSERT_EQUAL(c->n, 0);
        free(c);
}

int suite_counters(void);
int suite_counters(void)
{
        CU_pSuite s = CU_add_suite("counters", NULL, NULL);

        if (!s || !CU_add_test(s, "rdma_tree", test_rdma_tree) ||
            !CU_add_test(s, "driver_names", test_driver_names) ||
            !CU_add_test(s, "ethtool_race_free", test_ethtool_race_free) ||
            !CU_add_test(s, "names_first", test_names_first) ||
            !CU_add_test(s, "trailing_blank", test_trailing_blank) ||
            !CU_add_test(s, "lo", test_lo))
                return -1;
        return 0;
}
