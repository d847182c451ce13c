/* SPDX-License-Identifier: MIT */
/* Congestion counters over the ethtool ioctl and the RDMA hw_counters in sysfs (see counters.h). */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "common/util.h"
#include "drivers/host/counters.h"
#include "drivers/host/ethtool.h"
#include "drivers/host/iface.h"
#include "drivers/host/sysfs.h"
#include "policies/doctor/doctor.h"

#define ETHTOOL_STATS_MAX 16384         /* a device reporting more is not believed */
#define ETHTOOL_SLACK_MIN 256           /* room for counters that appear between the calls */
#define ETHTOOL_TRIES 3

/*
 * The congestion counters of each driver family, as the drivers name them; "%u"
 * is a priority 0-7, "%t" a traffic class 0-7 (a name can say "prio" and count a
 * traffic class). Ethtool names and the RDMA driver's hw_counters together, every
 * name a kernel release or the vendor's own driver has used.
 */
struct family {
        const char *kdrv;
        const char *const *names;
};

static const char *const mlx5_names[] = {
        /*
         * en_stats.c: pport_per_prio_pfc_stats_desc (only for priorities with PFC on) and
         * pport_per_prio_traffic_stats_desc, per priority (PPCNT per-priority group); the
         * per_port_buff_congest group, rx_prio%d_buf_discard / _cong_discard / _marked, is
         * read with grp MLX5_PER_TRAFFIC_CLASS_(CONGESTION_)COUNTERS_GROUP and prio_tc = the
         * index: per traffic class, whatever its name says (by default TC 0 holds priority 1,
         * mlx5e_ets_init()).
         */
        "rx_prio%u_pause", "rx_prio%u_pause_duration", "tx_prio%u_pause", "tx_prio%u_pause_duration",
        "rx_prio%u_pause_transition", "rx_prio%u_discards", "rx_prio%t_buf_discard", "rx_prio%t_cong_discard",
        "rx_prio%t_marked", "rx_global_pause", "tx_global_pause", "rx_global_pause_duration",
        "tx_global_pause_duration", "rx_pause_ctrl_phy", "tx_pause_ctrl_phy", "rx_discards_phy",
        "rx_out_of_buffer", "tx_pause_storm_warning_events", "tx_pause_storm_error_events",
        /* en_stats.c: pport_per_prio_traffic_stats_desc (per priority), vport_stats_desc (RoCE bytes) */
        "rx_prio%u_bytes", "tx_prio%u_bytes", "rx_vport_rdma_unicast_bytes", "tx_vport_rdma_unicast_bytes",
        "rx_vport_rdma_multicast_bytes", "tx_vport_rdma_multicast_bytes",
        /* infiniband/hw/mlx5/counters.c: q counters and congestion counters */
        "out_of_buffer", "out_of_sequence", "packet_seq_err", "implied_nak_seq_err", "local_ack_timeout_err",
        "np_cnp_sent", "np_ecn_marked_roce_packets", "rp_cnp_handled", "rp_cnp_ignored", NULL,
};

static const char *const bnxt_names[] = {
        /* bnxt_ethtool.c: bnxt_port_stats_arr, bnxt_port_stats_ext_arr */
        "rx_pfc_ena_frames_pri%u", "tx_pfc_ena_frames_pri%u", "rx_pfc_xon2xoff_frames_pri%u",
        "pfc_pri%u_rx_duration_us", "pfc_pri%u_rx_transitions", "pfc_pri%u_tx_duration_us",
        "pfc_pri%u_tx_transitions", "rx_pause_frames", "tx_pause_frames",
        /*
         * bnxt_re hw_counters, four generations of bnxt_re_stat_descs[]: Broadcom's older
         * driver (as ported to FreeBSD: sys/dev/bnxt/bnxt_re/stats.c) cnp_tx_pkts, cnp_rx_pkts,
         * rx_roce_discard_pkts, res_oob_drop_count; upstream up to ~6.5 (hw_counters.c: no CNP
         * counter) rx_roce_discards, rx_out_of_buffer; upstream from "bnxt_re: Expose the
         * missing hw counters" (2023-07, ~6.6) tx_cnp_pkts, rx_cnp_pkts, rx_ecn_marked_pkts;
         * rdma-next "RoCE related hardware counters update" (2025-08) np_cnp_pkts,
         * rp_cnp_handled, np_ecn_marked_roce_packets, out_of_buffer; Broadcom's newer driver
         * np_cnp_sent, rp_cnp_ignored with those.
         */
        /* bnxt_ethtool.c bnxt_rx_bytes_pri_arr, bnxt_tx_bytes_pri_arr: the CoS queues' bytes per priority (pri2cos_idx) */
        "rx_bytes_pri%u", "tx_bytes_pri%u",
        "cnp_tx_pkts", "cnp_rx_pkts", "rx_ecn_marked_pkts", "rx_roce_discard_pkts", "res_oob_drop_count",
        "rx_roce_discards", "rx_out_of_buffer", "tx_cnp_pkts", "rx_cnp_pkts", "np_cnp_pkts", "rp_cnp_handled",
        "np_ecn_marked_roce_packets", "out_of_buffer", "np_cnp_sent", "rp_cnp_ignored", NULL,
};

static const char *const ice_names[] = {
        /* ice_ethtool.c: per-priority flow control statistics */
        "rx_priority_%u_xon.nic", "rx_priority_%u_xoff.nic", "tx_priority_%u_xon.nic", "tx_priority_%u_xoff.nic",
        "link_xon_rx.nic", "link_xoff_rx.nic", "link_xon_tx.nic", "link_xoff_tx.nic", "rx_dropped.nic",
        /* infiniband/hw/irdma/verbs.c: irdma_hw_stat_names */
        "RxECNMrkd", "cnpHandled", "cnpIgnored", "cnpSent", NULL,
};

static const struct family families[] = {
        { "mlx5_core", mlx5_names },
        { "bnxt_en", bnxt_names },
        { "ice", ice_names },
};

/* name against a pattern, case-insensitively; "%u" takes a priority, "%t" a traffic class, one digit 0-7. */
static bool match_one(const char *pat, const char *name, int *ret_prio, int *ret_tc)
{
        int prio = -1, tc = -1;

        while (*pat) {
                if (pat[0] == '%' && (pat[1] == 'u' || pat[1] == 't')) {
                        if (*name < '0' || *name > '7' || isdigit((unsigned char)name[1]))
                                return false;
                        *(pat[1] == 'u' ? &prio : &tc) = *name++ - '0';
                        pat += 2;
                        continue;
                }
                if (tolower((unsigned char)*pat++) != tolower((unsigned char)*name++))
                        return false;
        }
        if (*name)
                return false;
        *ret_prio = prio;
        *ret_tc = tc;
        return true;
}

/* Does name contain "pause", "cnp" or "ecn", case-insensitively? (One pass: strcasestr sets up for longer texts.) */
static bool congestion_word(const char *name)
{
        for (const char *p = name; *p; p++)
                switch (tolower((unsigned char)*p)) {
                case 'p':
                        if (!strncasecmp(p, "pause", 5))
                                return true;
                        break;
                case 'c':
                        if (!strncasecmp(p, "cnp", 3))
                                return true;
                        break;
                case 'e':
                        if (!strncasecmp(p, "ecn", 3))
                                return true;
                        break;
                }
        return false;
}

bool counters_match(const char *kdrv, const char *name, int *ret_prio, int *ret_tc)
{
        for (size_t f = 0; f < ARRAY_SIZE(families); f++) {
                if (!streq(families[f].kdrv, kdrv))
                        continue;
                for (const char *const *p = families[f].names; *p; p++)
                        if (match_one(*p, name, ret_prio, ret_tc))
                                return true;
                return false;
        }
        *ret_prio = *ret_tc = -1;
        return congestion_word(name);
}

/* The same names by what they count (the drivers' sources above name each). */
static const struct {
        const char *pattern;
        enum doctor_counter kind;
} kinds[] = {
        { "rx_prio%u_pause", DOCTOR_PAUSE_RX }, { "rx_global_pause", DOCTOR_PAUSE_RX },
        { "rx_pause_ctrl_phy", DOCTOR_PAUSE_RX }, { "rx_pfc_ena_frames_pri%u", DOCTOR_PAUSE_RX },
        { "rx_pause_frames", DOCTOR_PAUSE_RX }, { "rx_priority_%u_xoff.nic", DOCTOR_PAUSE_RX },
        { "link_xoff_rx.nic", DOCTOR_PAUSE_RX },
        { "tx_prio%u_pause", DOCTOR_PAUSE_TX }, { "tx_global_pause", DOCTOR_PAUSE_TX },
        { "tx_pause_ctrl_phy", DOCTOR_PAUSE_TX }, { "tx_pfc_ena_frames_pri%u", DOCTOR_PAUSE_TX },
        { "tx_pause_frames", DOCTOR_PAUSE_TX }, { "tx_priority_%u_xoff.nic", DOCTOR_PAUSE_TX },
        { "link_xoff_tx.nic", DOCTOR_PAUSE_TX },
        { "rx_prio%t_marked", DOCTOR_ECN_MARKED }, { "np_ecn_marked_roce_packets", DOCTOR_ECN_MARKED },
        { "rx_ecn_marked_pkts", DOCTOR_ECN_MARKED }, { "RxECNMrkd", DOCTOR_ECN_MARKED },
        { "np_cnp_sent", DOCTOR_CNP_SENT }, { "cnp_tx_pkts", DOCTOR_CNP_SENT }, { "tx_cnp_pkts", DOCTOR_CNP_SENT },
        { "np_cnp_pkts", DOCTOR_CNP_SENT }, { "cnpSent", DOCTOR_CNP_SENT },
        { "rp_cnp_handled", DOCTOR_CNP_HANDLED }, { "cnp_rx_pkts", DOCTOR_CNP_HANDLED },
        { "rx_cnp_pkts", DOCTOR_CNP_HANDLED }, { "cnpHandled", DOCTOR_CNP_HANDLED },
        /*
         * en_stats.c: "dropped due to lack of buffers" on the port, per priority (lossless_drops
         * judges those) and per traffic class (a TC, not a priority: counted as a discard only)
         */
        { "rx_prio%u_discards", DOCTOR_RX_DISCARD }, { "rx_prio%t_buf_discard", DOCTOR_DISCARD },
        { "rx_prio%t_cong_discard", DOCTOR_DISCARD }, { "rx_discards_phy", DOCTOR_RX_DISCARD },
        { "rx_out_of_buffer", DOCTOR_DISCARD }, { "out_of_buffer", DOCTOR_DISCARD },
        { "rx_roce_discard_pkts", DOCTOR_DISCARD }, { "res_oob_drop_count", DOCTOR_DISCARD },
        { "rx_roce_discards", DOCTOR_DISCARD }, { "rx_dropped.nic", DOCTOR_DISCARD },
        { "tx_pause_storm_warning_events", DOCTOR_PAUSE_STORM }, { "tx_pause_storm_error_events", DOCTOR_PAUSE_STORM },
        { "rx_prio%u_bytes", DOCTOR_PRIO_BYTES }, { "tx_prio%u_bytes", DOCTOR_PRIO_BYTES },
        { "rx_vport_rdma_unicast_bytes", DOCTOR_RDMA_BYTES }, { "tx_vport_rdma_unicast_bytes", DOCTOR_RDMA_BYTES },
        { "rx_vport_rdma_multicast_bytes", DOCTOR_RDMA_BYTES }, { "tx_vport_rdma_multicast_bytes", DOCTOR_RDMA_BYTES },
        /*
         * bnxt_ethtool.c: each priority's bytes, read from the CoS queue the firmware maps it to
         * (bnxt_get_ethtool_stats(): base_off + bp->pri2cos_idx[i]); priorities sharing a queue
         * show its bytes each
         */
        { "rx_bytes_pri%u", DOCTOR_PRIO_BYTES }, { "tx_bytes_pri%u", DOCTOR_PRIO_BYTES },
};

/* hw_counters names of an RDMA driver that mean something else under ethtool (the port's bytes there). */
static const struct {
        const char *name;
        enum doctor_counter kind;
} rdma_kinds[] = {
        /* bnxt_re hw_counters.c: the RoCE function's unicast bytes (bnxt_re_ib_get_hw_stats()) */
        { "rx_bytes", DOCTOR_RDMA_BYTES }, { "tx_bytes", DOCTOR_RDMA_BYTES },
};

int counters_kind(const char *name, int *ret_prio, int *ret_tc)
{
        for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
                if (match_one(kinds[i].pattern, name, ret_prio, ret_tc))
                        return (int)kinds[i].kind;
        *ret_prio = *ret_tc = -1;
        return -1;
}

int counters_kind_source(const char *name, const char *source, int *ret_prio, int *ret_tc)
{
        for (size_t i = 0; !strncmp(source, "rdma:", 5) && i < ARRAY_SIZE(rdma_kinds); i++)
                if (streq(name, rdma_kinds[i].name)) {
                        *ret_prio = *ret_tc = -1;
                        return (int)rdma_kinds[i].kind;
                }
        return counters_kind(name, ret_prio, ret_tc);
}

/*
 * The pause duration counters, in microseconds: mlx5 en_stats.c pport_per_prio_pfc_stats_desc
 * ("rx_prio%d_pause_duration", "tx_prio%d_pause_duration": PPCNT rx/tx_pause_duration, "the
 * time in microseconds that the port was paused", Documentation/networking/device_drivers/
 * ethernet/mellanox/mlx5/counters.rst) and the global pause group's; bnxt_ethtool.c
 * bnxt_port_stats_ext_arr ("pfc_pri%d_rx_duration_us", "pfc_pri%d_tx_duration_us").
 */
static const struct {
        const char *pattern;
        enum doctor_counter kind;
} durations[] = {
        { "rx_prio%u_pause_duration", DOCTOR_PAUSE_RX }, { "tx_prio%u_pause_duration", DOCTOR_PAUSE_TX },
        { "rx_global_pause_duration", DOCTOR_PAUSE_RX }, { "tx_global_pause_duration", DOCTOR_PAUSE_TX },
        { "pfc_pri%u_rx_duration_us", DOCTOR_PAUSE_RX }, { "pfc_pri%u_tx_duration_us", DOCTOR_PAUSE_TX },
};

int counters_duration(const char *name, int *ret_prio)
{
        int tc;

        for (size_t i = 0; i < ARRAY_SIZE(durations); i++)
                if (match_one(durations[i].pattern, name, ret_prio, &tc))
                        return (int)durations[i].kind;
        *ret_prio = -1;
        return -1;
}

static void add(struct counters *c, const char *name, const char *source, uint64_t v, const char *kdrv)
{
        struct counter *x;
        int prio = -1, tc = -1;
        bool exported = counters_match(kdrv, name, &prio, &tc);

        if (c->n >= COUNTERS_MAX || strlen(name) >= sizeof(x->name) || strlen(source) >= sizeof(x->source))
                return;
        x = &c->c[c->n++];
        memcpy(x->name, name, strlen(name) + 1);
        memcpy(x->source, source, strlen(source) + 1);
        x->value = v;
        x->prio = prio;
        x->tc = tc;
        x->exported = exported;
}

/* ---- ethtool ---- */

struct ethtool_fd {
        int fd;
};

/* The kernel's SIOCETHTOOL, or the test seam (drivers/host/ethtool.h). */
static int real_ioctl(void *ctx, const char *ifname, void *cmd)
{
        struct ethtool_fd *s = ctx;

        return ethtool_call(s->fd, ifname, cmd, 0);
}

static int stats_count(const struct counters_ethtool *io, const char *ifname, uint32_t *ret)
{
        union {
                struct ethtool_sset_info hdr;
                unsigned char raw[sizeof(struct ethtool_sset_info) + sizeof(uint32_t)];
        } s = { 0 };
        int r;

        s.hdr.cmd = ETHTOOL_GSSET_INFO;
        s.hdr.sset_mask = 1ull << ETH_SS_STATS;
        r = io->ioctl(io->ctx, ifname, &s);
        if (r < 0)
                return r;
        *ret = (s.hdr.sset_mask & (1ull << ETH_SS_STATS)) ? s.hdr.data[0] : 0;
        return 0;
}

/*
 * Stat i's name, NUL-terminated, without trailing blanks: some kernels spelled one
 * ("tx_pause_storm_warning_events ", mlx5 en_stats.c @ 9ac669fc) with a trailing space.
 */
static void stat_name(const struct ethtool_gstrings *strs, uint32_t i, char name[ETH_GSTRING_LEN + 1])
{
        size_t n;

        memcpy(name, strs->data + (size_t)i * ETH_GSTRING_LEN, ETH_GSTRING_LEN);
        name[ETH_GSTRING_LEN] = '\0';
        n = strlen(name);
        while (n && name[n - 1] == ' ')
                name[--n] = '\0';
}

/*
 * One consistent read: buffers for n plus slack (the kernel fills them with as
 * many entries as it has *now*), both answers and a fresh count equal to n.
 * -EAGAIN with *ret_n updated when the set changed under us. The names come
 * first: when none of them is a congestion counter (veth), the values are not
 * asked for.
 */
static int read_stats(const struct counters_ethtool *io, const char *ifname, const char *kdrv, uint32_t *ret_n,
                      struct counters *c)
{
        uint32_t n = *ret_n, cap = n + (n > ETHTOOL_SLACK_MIN ? n : ETHTOOL_SLACK_MIN), again = 0, wanted = 0;
        _cleanup_free_ struct ethtool_gstrings *strs = NULL;
        _cleanup_free_ struct ethtool_stats *vals = NULL;
        char name[ETH_GSTRING_LEN + 1];
        int prio, tc, r;

        strs = malloc(sizeof(*strs) + (size_t)cap * ETH_GSTRING_LEN);        /* the kernel fills what it reports */
        if (!strs)
                return -ENOMEM;
        *strs = (struct ethtool_gstrings){ .cmd = ETHTOOL_GSTRINGS, .string_set = ETH_SS_STATS, .len = n };
        r = io->ioctl(io->ctx, ifname, strs);
        if (r < 0)
                return r;
        if (strs->len > cap)
                return -EOVERFLOW;      /* more than the slack appeared at once: not believed */
        if (strs->len != n) {
                *ret_n = strs->len;
                return -EAGAIN;
        }
        for (uint32_t i = 0; i < n; i++) {
                stat_name(strs, i, name);
                wanted += counters_match(kdrv, name, &prio, &tc);
        }
        if (!wanted)
                return 0;
        vals = malloc(sizeof(*vals) + (size_t)cap * sizeof(uint64_t));
        if (!vals)
                return -ENOMEM;
        *vals = (struct ethtool_stats){ .cmd = ETHTOOL_GSTATS, .n_stats = n };
        r = io->ioctl(io->ctx, ifname, vals);
        if (r >= 0)
                r = stats_count(io, ifname, &again);
        if (r < 0)
                return r;
        if (vals->n_stats > cap)
                return -EOVERFLOW;
        if (vals->n_stats != n || again != n) {
                *ret_n = again;
                return -EAGAIN;
        }
        for (uint32_t i = 0; i < n; i++) {
                stat_name(strs, i, name);
                if (counters_match(kdrv, name, &prio, &tc))
                        add(c, name, "ethtool", vals->data[i], kdrv);
        }
        return 0;
}

static int ethtool_fail(const char *ifname, int r, struct errbuf *e)
{
        return errbuf_set(e, -r, NULL, "interface '%s': ethtool statistics: %s", ifname, strerror(-r));
}

int counters_read_ethtool(const char *ifname, const char *kdrv, const struct counters_ethtool *io,
                          struct counters *c, struct errbuf *e)
{
        unsigned start = c->n;
        uint32_t n = 0;
        int r = stats_count(io, ifname, &n);

        if (r == -EOPNOTSUPP || r == -ENODEV || (r >= 0 && n == 0))
                return 0;               /* no statistics: an empty set */
        if (r < 0)
                return ethtool_fail(ifname, r, e);
        for (int t = 0; t < ETHTOOL_TRIES; t++) {
                if (n > ETHTOOL_STATS_MAX)
                        return errbuf_set(e, E2BIG, NULL, "interface '%s': %u ethtool statistics, more than %u",
                                          ifname, n, ETHTOOL_STATS_MAX);
                c->n = start;
                r = read_stats(io, ifname, kdrv, &n, c);
                if (r != -EAGAIN)
                        break;
        }
        if (r == -EAGAIN)
                return errbuf_set(e, EAGAIN, NULL, "interface '%s': its ethtool statistics kept changing "
                                  "while they were read (%d tries)", ifname, ETHTOOL_TRIES);
        return r < 0 && r != -EOPNOTSUPP ? ethtool_fail(ifname, r, e) : 0;
}

/* ---- RDMA hw_counters: SYSFS/class/infiniband/DEV/ports/PORT/hw_counters/NAME ---- */

struct rdma_ctx {
        const char *sysfs_root;
        const char *kdrv;
        struct counters *c;
};

static void read_port(const char *dev, const char *port, void *data)
{
        struct rdma_ctx *x = data;
        char dir[PATH_MAX], path[PATH_MAX + 256], source[32];
        struct dirent *de;
        DIR *d;

        snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports/%s/hw_counters", x->sysfs_root, dev, port);
        snprintf(source, sizeof(source), "rdma:%.16s/%.8s", dev, port);
        d = opendir(dir);
        if (!d)
                return;
        while ((de = readdir(d))) {
                uint64_t v = 0;

                /* not a counter: how long a read is cached (ib core sysfs.c, RDMA_HW_STATS_DEFAULT_LIFESPAN) */
                if (de->d_name[0] == '.' || streq(de->d_name, "lifespan") ||
                    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path) ||
                    sysfs_read_u64(path, &v) < 0)
                        continue;
                add(x->c, de->d_name, source, v, x->kdrv);
        }
        closedir(d);
}

int counters_read_rdma(const char *ifname, const char *kdrv, const char *sysfs_root, struct counters *c,
                       struct errbuf *e)
{
        struct rdma_ctx x = { sysfs_root, kdrv, c };

        sysfs_rdma_ports(sysfs_root, ifname, read_port, &x);
        return 0;
}

int counters_read_at(int fd, const char *ifname, const char *kdrv, int device, const char *sysfs_root,
                     struct counters *ret, struct errbuf *e)
{
        const char *root = sysfs_root && *sysfs_root ? sysfs_root : "/sys";
        struct ethtool_fd s = { .fd = fd };
        struct counters_ethtool io = { real_ioctl, &s };
        char name[32];
        int r;

        ret->n = 0;
        if (fd < 0)
                return errbuf_set(e, EBADF, NULL, "interface '%s': no ethtool socket", ifname);
        if (device == -ENXIO)
                return 0;
        if (!kdrv) {
                iface_kernel_driver(ifname, root, NULL, name, sizeof(name));
                kdrv = name;
        }
        r = counters_read_ethtool(ifname, kdrv, &io, ret, e);
        if (r >= 0 && device == 0)
                r = counters_read_rdma(ifname, kdrv, root, ret, e);
        return r;
}

int counters_socket(void)
{
        return socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
}

int counters_read(const char *ifname, const char *sysfs_root, struct counters *ret, struct errbuf *e)
{
        _cleanup_close_ int fd = counters_socket();

        if (fd < 0) {
                ret->n = 0;
                return errbuf_set(e, errno, NULL, "interface '%s': ethtool socket: %s", ifname, strerror(errno));
        }
        return counters_read_at(fd, ifname, NULL, 0, sysfs_root, ret, e);
}
