/* SPDX-License-Identifier: MIT */
/* Counters: RDMA hw_counters from a fake sysfs tree, pause-name filter, empty sets. */
#include <CUnit/CUnit.h>

#include "counters.h"

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
        CU_ASSERT(counters_read_rdma("mlx0", root, c, &e) == 0);
        CU_ASSERT_EQUAL(c->n, 2);
        for (unsigned i = 0; i < c->n; i++) {
                CU_ASSERT_STRING_EQUAL(c->c[i].source, "rdma:mlx5_0/1");
                cnp |= streq(c->c[i].name, "np_cnp_sent") && c->c[i].value == 42;
                oob |= streq(c->c[i].name, "out_of_buffer") && c->c[i].value == 7;
        }
        CU_ASSERT(cnp && oob);
        c->n = 0;
        CU_ASSERT(counters_read_rdma("eth9", root, c, &e) == 0);    /* none: empty, no error */
        CU_ASSERT_EQUAL(c->n, 0);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
        CU_ASSERT(system(cmd) == 0);
        free(c);
}

static void test_pause_filter_and_lo(void)
{
        struct counters *c = calloc(1, sizeof(*c));
        struct errbuf e;

        CU_ASSERT(counters_is_pause("rx_prio3_pause"));
        CU_ASSERT(counters_is_pause("tx_prio3_pause_duration"));
        CU_ASSERT_FALSE(counters_is_pause("rx_prio3_bytes"));
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
            !CU_add_test(s, "pause_filter_and_lo", test_pause_filter_and_lo))
                return -1;
        return 0;
}
