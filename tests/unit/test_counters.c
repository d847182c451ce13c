/* SPDX-License-Identifier: MIT */
/* Counters: RDMA hw_counters from a fake sysfs tree, per-driver names, a race-free ethtool read. */
#include <CUnit/CUnit.h>
#include <linux/ethtool.h>

#include "drivers/host/counters.h"
#include "policies/doctor/doctor.h"
#include "tests/lib/testfile.h"

#define DATA "tests/data/counters/"

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
        int prio = 9, tc = 9;

        CU_ASSERT(counters_match("mlx5_core", "rx_prio3_pause", &prio, &tc) && prio == 3);
        CU_ASSERT(counters_match("mlx5_core", "tx_prio3_pause_duration", &prio, &tc) && prio == 3);
        CU_ASSERT(counters_match("mlx5_core", "rx_prio5_discards", &prio, &tc) && prio == 5);
        CU_ASSERT(counters_match("mlx5_core", "out_of_buffer", &prio, &tc) && prio == -1);
        CU_ASSERT_FALSE(counters_match("mlx5_core", "rx_prio3_packets", &prio, &tc));
        /* the per-priority traffic and the RoCE bytes doctor compares (rdma_on_lossy_priority) */
        CU_ASSERT(counters_match("mlx5_core", "rx_prio3_bytes", &prio, &tc) && prio == 3);
        CU_ASSERT(counters_kind("tx_prio5_bytes", &prio, &tc) == DOCTOR_PRIO_BYTES && prio == 5);
        CU_ASSERT(counters_kind("tx_vport_rdma_unicast_bytes", &prio, &tc) == DOCTOR_RDMA_BYTES && prio == -1);
        CU_ASSERT(counters_kind("rx_vport_rdma_multicast_bytes", &prio, &tc) == DOCTOR_RDMA_BYTES);
        /* bnxt: each priority's bytes from its CoS queue (bnxt_ethtool.c), the RoCE bytes of bnxt_re's hw_counters */
        CU_ASSERT(counters_kind("tx_bytes_pri3", &prio, &tc) == DOCTOR_PRIO_BYTES && prio == 3);
        CU_ASSERT(counters_kind("rx_bytes_pri0", &prio, &tc) == DOCTOR_PRIO_BYTES && prio == 0);
        CU_ASSERT(counters_kind_source("tx_bytes", "rdma:bnxt_re0/1", &prio, &tc) == DOCTOR_RDMA_BYTES && prio == -1);
        CU_ASSERT(counters_kind_source("rx_bytes", "rdma:bnxt_re0/1", &prio, &tc) == DOCTOR_RDMA_BYTES);
        CU_ASSERT(counters_kind_source("tx_bytes", "ethtool", &prio, &tc) == -1);      /* the port's bytes there */
        CU_ASSERT(counters_kind_source("tx_prio5_bytes", "ethtool", &prio, &tc) == DOCTOR_PRIO_BYTES && prio == 5);
        CU_ASSERT(counters_match("bnxt_en", "tx_bytes_pri7", &prio, &tc) && prio == 7);
        CU_ASSERT_FALSE(counters_match("mlx5_core", "rx_prio33_pause", &prio, &tc));
        CU_ASSERT(counters_match("bnxt_en", "rx_pfc_ena_frames_pri3", &prio, &tc) && prio == 3);
        CU_ASSERT(counters_match("bnxt_en", "cnp_rx_pkts", &prio, &tc));
        CU_ASSERT(counters_match("ice", "rx_priority_3_xoff.nic", &prio, &tc) && prio == 3);
        CU_ASSERT(counters_match("ice", "RxECNMrkd", &prio, &tc) && prio == -1);
        CU_ASSERT(counters_match("ice", "rxecnmrkd", &prio, &tc));                   /* case-insensitive */
        CU_ASSERT(counters_match("ice", "cnpSent", &prio, &tc));
        CU_ASSERT_FALSE(counters_match("ice", "rx_bytes.nic", &prio, &tc));
        CU_ASSERT(counters_match("veth", "rx_pause", &prio, &tc) && prio == -1);     /* others: "pause" */
        CU_ASSERT_FALSE(counters_match("veth", "rx_bytes", &prio, &tc));
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
        int prio, tc;

        CU_ASSERT_FATAL(c != NULL);
        CU_ASSERT(counters_read_ethtool("ens1f0np0", "mlx5_core", &io, c, &e) == 0);
        CU_ASSERT_EQUAL(c->n, 2);
        CU_ASSERT_STRING_EQUAL(c->c[0].name, "tx_pause_storm_warning_events");
        CU_ASSERT_EQUAL(c->c[0].value, 7);
        CU_ASSERT(c->c[0].exported);
        CU_ASSERT_EQUAL(counters_kind(c->c[0].name, &prio, &tc), DOCTOR_PAUSE_STORM);
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

/* ---- real listings (tests/data/counters/SOURCE) ---- */

struct listing {
        unsigned n;
        char name[512][ETH_GSTRING_LEN];
        uint64_t value[512];
};

/* The "name: value" lines of an `ethtool -S` listing. */
static void load_ethtool(const char *file, struct listing *l)
{
        char *text = test_slurp(file, 1 << 20), *save = NULL;

        CU_ASSERT_FATAL(text != NULL);
        l->n = 0;
        for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char name[ETH_GSTRING_LEN];
                unsigned long long v;

                if (sscanf(line, " %31[^:]: %llu", name, &v) == 2 && l->n < 512) {
                        snprintf(l->name[l->n], ETH_GSTRING_LEN, "%s", name);
                        l->value[l->n++] = v;
                }
        }
        free(text);
}

/* The driver as the ethtool ioctl shows the listing. */
static int listing_ioctl(void *ctx, const char *ifname, void *cmd)
{
        const struct listing *l = ctx;

        switch (*(uint32_t *)cmd) {
        case ETHTOOL_GSSET_INFO:
                ((struct ethtool_sset_info *)cmd)->data[0] = l->n;
                return 0;
        case ETHTOOL_GSTRINGS:
                ((struct ethtool_gstrings *)cmd)->len = l->n;
                memcpy(((struct ethtool_gstrings *)cmd)->data, l->name, (size_t)l->n * ETH_GSTRING_LEN);
                return 0;
        case ETHTOOL_GSTATS:
                ((struct ethtool_stats *)cmd)->n_stats = l->n;
                memcpy(((struct ethtool_stats *)cmd)->data, l->value, (size_t)l->n * sizeof(uint64_t));
                return 0;
        default:
                return -EOPNOTSUPP;
        }
}

static const struct counter *find(const struct counters *c, const char *name)
{
        for (unsigned i = 0; i < c->n; i++)
                if (streq(c->c[i].name, name))
                        return &c->c[i];
        return NULL;
}

/* Read a listing as kdrv's ethtool statistics: the counters read, how many. */
static unsigned read_listing(const char *file, const char *kdrv, struct counters *c)
{
        struct listing *l = calloc(1, sizeof(*l));
        struct counters_ethtool io = { listing_ioctl, l };
        struct errbuf e;

        CU_ASSERT_FATAL(l != NULL);
        load_ethtool(file, l);
        CU_ASSERT(l->n > 50);
        c->n = 0;
        CU_ASSERT(counters_read_ethtool("eth0", kdrv, &io, c, &e) == 0);
        free(l);
        return c->n;
}

/* A counter of the listing: read, with what it counts, its priority and traffic class. */
static bool has(const struct counters *c, const char *name, int kind, int prio, int tc)
{
        const struct counter *x = find(c, name);
        int p, t, k = x ? counters_kind(name, &p, &t) : -2;

        return x && x->exported && k == kind && x->prio == prio && x->tc == tc && p == prio && t == tc;
}

/*
 * ConnectX: the pause, discard and storm counters, and the congestion group whose
 * names say "prio" but count a traffic class (en_stats.c reads them per TC); the
 * software rx_ecn_mark (CE seen by the netdev's RQs) is not the port's ECN counter.
 */
static void test_real_mlx5(void)
{
        struct counters *c = calloc(1, sizeof(*c));
        const struct counter *x;

        CU_ASSERT_FATAL(c != NULL);
        CU_ASSERT_EQUAL(read_listing(DATA "mlx5_core_ethtool_S_excerpt.txt", "mlx5_core", c), 12);
        CU_ASSERT(has(c, "rx_pause_ctrl_phy", DOCTOR_PAUSE_RX, -1, -1));
        CU_ASSERT(has(c, "tx_pause_ctrl_phy", DOCTOR_PAUSE_TX, -1, -1));
        CU_ASSERT((x = find(c, "tx_pause_ctrl_phy")) && x->value == 2);
        CU_ASSERT(has(c, "rx_discards_phy", DOCTOR_RX_DISCARD, -1, -1));
        CU_ASSERT(has(c, "rx_out_of_buffer", DOCTOR_DISCARD, -1, -1));
        CU_ASSERT(has(c, "rx_prio0_discards", DOCTOR_RX_DISCARD, 0, -1));       /* PPCNT per priority */
        CU_ASSERT(has(c, "tx_pause_storm_warning_events", DOCTOR_PAUSE_STORM, -1, -1));
        CU_ASSERT(has(c, "tx_pause_storm_error_events", DOCTOR_PAUSE_STORM, -1, -1));
        CU_ASSERT(has(c, "rx_prio0_buf_discard", DOCTOR_DISCARD, -1, 0));       /* per traffic class */
        CU_ASSERT(has(c, "rx_prio0_cong_discard", DOCTOR_DISCARD, -1, 0));
        CU_ASSERT(has(c, "rx_prio0_marked", DOCTOR_ECN_MARKED, -1, 0));
        CU_ASSERT_PTR_NULL(find(c, "rx_ecn_mark"));
        CU_ASSERT_PTR_NULL(find(c, "rx0_ecn_mark"));
        CU_ASSERT_PTR_NULL(find(c, "rx_prio0_packets"));
        /* per priority, for rdma_on_lossy_priority: what priority 0 carried */
        CU_ASSERT(has(c, "rx_prio0_bytes", DOCTOR_PRIO_BYTES, 0, -1));
        CU_ASSERT(has(c, "tx_prio0_bytes", DOCTOR_PRIO_BYTES, 0, -1));
        free(c);
}

/* NetXtreme-E: PFC frames, durations and transitions per priority, link pause; nothing else. */
static void test_real_bnxt(void)
{
        struct counters *c = calloc(1, sizeof(*c));
        char name[48];

        CU_ASSERT_FATAL(c != NULL);
        CU_ASSERT_EQUAL(read_listing(DATA "bnxt_en_ethtool_S_excerpt.txt", "bnxt_en", c), 58);
        CU_ASSERT(has(c, "rx_pause_frames", DOCTOR_PAUSE_RX, -1, -1));
        CU_ASSERT(has(c, "tx_pause_frames", DOCTOR_PAUSE_TX, -1, -1));
        for (int p = 0; p < 8; p++) {
                snprintf(name, sizeof(name), "rx_pfc_ena_frames_pri%d", p);
                CU_ASSERT(has(c, name, DOCTOR_PAUSE_RX, p, -1));
                snprintf(name, sizeof(name), "tx_pfc_ena_frames_pri%d", p);
                CU_ASSERT(has(c, name, DOCTOR_PAUSE_TX, p, -1));
                snprintf(name, sizeof(name), "pfc_pri%d_rx_duration_us", p);
                CU_ASSERT(find(c, name) && find(c, name)->prio == p);           /* a duration: no kind */
        }
        CU_ASSERT_PTR_NULL(find(c, "rx_pfc_frames"));
        CU_ASSERT_PTR_NULL(find(c, "rx_discard_packets_cos3"));
        /* each priority's bytes, for rdma_on_lossy_priority (the port's rx_bytes is not RoCE's) */
        CU_ASSERT(has(c, "rx_bytes_pri3", DOCTOR_PRIO_BYTES, 3, -1));
        CU_ASSERT_PTR_NULL(find(c, "rx_bytes"));
        free(c);
}

/* E810: PFC XON/XOFF per priority (XOFF frames are the pause counts), link pause, drops. */
static void test_real_ice(void)
{
        struct counters *c = calloc(1, sizeof(*c));
        char name[48];

        CU_ASSERT_FATAL(c != NULL);
        CU_ASSERT_EQUAL(read_listing(DATA "ice_ethtool_S_excerpt.txt", "ice", c), 37);
        CU_ASSERT(has(c, "link_xoff_rx.nic", DOCTOR_PAUSE_RX, -1, -1));
        CU_ASSERT(has(c, "rx_dropped.nic", DOCTOR_DISCARD, -1, -1));
        for (int p = 0; p < 8; p++) {
                snprintf(name, sizeof(name), "rx_priority_%d_xoff.nic", p);
                CU_ASSERT(has(c, name, DOCTOR_PAUSE_RX, p, -1));
                snprintf(name, sizeof(name), "tx_priority_%d_xon.nic", p);
                CU_ASSERT(find(c, name) && find(c, name)->prio == p);
        }
        CU_ASSERT_PTR_NULL(find(c, "rx_crc_errors.nic"));
        free(c);
}

/*
 * ConnectX RDMA port: the listing as its hw_counters directory, with the file the ib
 * core adds to every such directory (lifespan: how long a read is cached, not a counter).
 */
static void test_real_mlx5_ib(void)
{
        char root[] = "/tmp/nettune-cnt.XXXXXX", dir[256], path[400];
        char *text = test_slurp(DATA "mlx5_ib_rdma_statistic.txt", 1 << 16);
        struct counters *c = calloc(1, sizeof(*c));
        char *save = NULL, *tok, *name = NULL, cmd[512];
        struct errbuf e;
        unsigned files = 0;

        CU_ASSERT_FATAL(c != NULL && text != NULL && mkdtemp(root) != NULL);
        snprintf(cmd, sizeof(cmd), "set -e; cd %s; mkdir -p devices/pci0/infiniband/mlx5_1 class/net/mlx0 "
                 "class/infiniband/mlx5_1/ports/1/hw_counters; ln -s ../../../devices/pci0 class/net/mlx0/device; "
                 "echo 10 > class/infiniband/mlx5_1/ports/1/hw_counters/lifespan", root);
        CU_ASSERT_FATAL(system(cmd) == 0);
        snprintf(dir, sizeof(dir), "%s/class/infiniband/mlx5_1/ports/1/hw_counters", root);
        for (tok = strtok_r(text, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
                FILE *f;

                if (streq(tok, "link") || strchr(tok, '/'))
                        continue;
                if (!name) {
                        name = tok;
                        continue;
                }
                snprintf(path, sizeof(path), "%s/%s", dir, name);
                CU_ASSERT_FATAL((f = fopen(path, "we")) != NULL);
                fprintf(f, "%s\n", tok);
                fclose(f);
                files++;
                name = NULL;
        }
        CU_ASSERT_EQUAL(files, 31);
        CU_ASSERT(counters_read_rdma("mlx0", "mlx5_core", root, c, &e) == 0);
        CU_ASSERT_EQUAL(c->n, 31);                                      /* every counter, not lifespan */
        CU_ASSERT_PTR_NULL(find(c, "lifespan"));
        CU_ASSERT(has(c, "rp_cnp_handled", DOCTOR_CNP_HANDLED, -1, -1) && find(c, "rp_cnp_handled")->value == 144);
        CU_ASSERT(has(c, "np_cnp_sent", DOCTOR_CNP_SENT, -1, -1));
        CU_ASSERT(has(c, "np_ecn_marked_roce_packets", DOCTOR_ECN_MARKED, -1, -1));
        CU_ASSERT(has(c, "out_of_buffer", DOCTOR_DISCARD, -1, -1));
        CU_ASSERT(find(c, "rnr_nak_retry_err") && !find(c, "rnr_nak_retry_err")->exported);
        snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
        CU_ASSERT(system(cmd) == 0);
        free(text);
        free(c);
}

/*
 * bnxt_re's four generations of names (no real listing was found: the descriptor
 * tables of each source): every one read and classified.
 */
static void test_bnxt_re_generations(void)
{
        static const struct {
                const char *name;
                int kind;
        } names[] = {
                /* Broadcom's older driver (FreeBSD sys/dev/bnxt/bnxt_re/stats.c bnxt_re_stat_descs) */
                { "cnp_tx_pkts", DOCTOR_CNP_SENT }, { "cnp_rx_pkts", DOCTOR_CNP_HANDLED },
                { "rx_roce_discard_pkts", DOCTOR_DISCARD }, { "res_oob_drop_count", DOCTOR_DISCARD },
                /* upstream up to ~6.5 (hw_counters.c): discards only */
                { "rx_roce_discards", DOCTOR_DISCARD }, { "rx_out_of_buffer", DOCTOR_DISCARD },
                /* upstream "bnxt_re: Expose the missing hw counters" (2023-07) */
                { "tx_cnp_pkts", DOCTOR_CNP_SENT }, { "rx_cnp_pkts", DOCTOR_CNP_HANDLED },
                { "rx_ecn_marked_pkts", DOCTOR_ECN_MARKED },
                /* rdma-next "RoCE related hardware counters update" (2025-08) */
                { "np_cnp_pkts", DOCTOR_CNP_SENT }, { "rp_cnp_handled", DOCTOR_CNP_HANDLED },
                { "np_ecn_marked_roce_packets", DOCTOR_ECN_MARKED }, { "out_of_buffer", DOCTOR_DISCARD },
                /* Broadcom's newer driver */
                { "np_cnp_sent", DOCTOR_CNP_SENT },
        };
        int prio, tc;

        for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
                CU_ASSERT(counters_match("bnxt_en", names[i].name, &prio, &tc));
                CU_ASSERT_EQUAL(counters_kind(names[i].name, &prio, &tc), names[i].kind);
        }
        CU_ASSERT(counters_match("bnxt_en", "rp_cnp_ignored", &prio, &tc));
        CU_ASSERT_FALSE(counters_match("bnxt_en", "tx_roce_only_pkts", &prio, &tc));
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
            !CU_add_test(s, "lo", test_lo) ||
            !CU_add_test(s, "real_mlx5", test_real_mlx5) ||
            !CU_add_test(s, "real_bnxt", test_real_bnxt) ||
            !CU_add_test(s, "real_ice", test_real_ice) ||
            !CU_add_test(s, "real_mlx5_ib", test_real_mlx5_ib) ||
            !CU_add_test(s, "bnxt_re_generations", test_bnxt_re_generations))
                return -1;
        return 0;
}
