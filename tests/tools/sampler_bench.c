/* SPDX-License-Identifier: MIT */
/*
 * The counter sampler's cost, for bench/counter_sampler.sh. Three modes, each running for
 * SECONDS at PERIOD_MS and printing "cpu_ms=N samples=N overruns=N rss_kib=N series=N":
 *   sample PERIOD_MS SECONDS IF...     the sampler itself (drivers/host/sampler.c) on its thread
 *   floor PERIOD_MS SECONDS IF...      the same reads alone, nothing kept, on plain sockets: per
 *                                      period the links' RTM_GETSTATS as the sampler asks for
 *                                      them (one dump of every link when the interfaces are at
 *                                      least half of them, else one GET each, sent together);
 *                                      with SAMPLER_FLOOR_GSTATS=1 also one ETHTOOL_GSTATS per
 *                                      interface (what a NIC's statistics read adds; a veth has
 *                                      no congestion counter, so the sampler does not read its)
 *   account PERIOD_MS SECONDS PORTS COUNTERS
 *                                      the sampler's bookkeeping alone over PORTS x COUNTERS
 *                                      series fed every period (what a NIC's 40 congestion
 *                                      counters cost besides reading them)
 * cpu_ms is the process's user + system time (getrusage), the work of every thread.
 */
#include <linux/ethtool.h>
#include <stdbool.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "drivers/host/sampler.h"

static int64_t mono_ns(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static long cpu_ms(void)
{
        struct rusage u;

        getrusage(RUSAGE_SELF, &u);
        return (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000 + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1000;
}

static long rss_kib(void)
{
        char line[256];
        long kib = 0;
        FILE *f = fopen("/proc/self/status", "r");

        while (f && fgets(line, sizeof(line), f))
                if (!strncmp(line, "VmRSS:", 6))
                        kib = strtol(line + 6, NULL, 10);
        if (f)
                fclose(f);
        return kib;
}

static void sleep_until(int64_t t)
{
        struct timespec ts = { .tv_sec = t / 1000000000, .tv_nsec = t % 1000000000 };

        while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL))
                ;
}

static int run_sampler(unsigned period, unsigned secs, char **ifs, unsigned n)
{
        char (*names)[IF_NAMESIZE] = calloc(n, IF_NAMESIZE);
        struct sampler *s = calloc(1, sizeof(*s));
        struct sampler_opts o = { .period_ms = period };
        struct errbuf e = { 0 };
        long c0, c1, r0 = rss_kib();

        for (unsigned i = 0; i < n; i++)
                snprintf(names[i], IF_NAMESIZE, "%s", ifs[i]);
        if (sampler_open(s, &o, (const char (*)[IF_NAMESIZE])names, n, &e) < 0 || sampler_start(s) < 0) {
                fprintf(stderr, "sampler: %s\n", e.msg);
                return 1;
        }
        c0 = cpu_ms();
        sleep(secs);
        c1 = cpu_ms();
        sampler_stop(s);
        printf("cpu_ms=%ld samples=%llu overruns=%llu rss_kib=%ld series=%u\n", c1 - c0,
               (unsigned long long)s->samples, (unsigned long long)s->overruns, rss_kib() - r0, s->n);
        sampler_close(s);
        free(s);
        free(names);
        return 0;
}

/* One RTM_GETSTATS dump of every link, read to its end. */
static void dump_stats(int nl, char *buf, size_t size)
{
        struct {
                struct nlmsghdr h;
                struct if_stats_msg m;
        } req = { .h = { .nlmsg_len = sizeof(req), .nlmsg_type = RTM_GETSTATS,
                         .nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP },
                  .m = { .family = AF_UNSPEC, .filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64) } };

        if (send(nl, &req, sizeof(req), 0) < 0)
                return;
        for (;;) {
                ssize_t k = recv(nl, buf, size, 0);
                const struct nlmsghdr *h = (const void *)buf;

                if (k <= 0)
                        return;
                for (; NLMSG_OK(h, (unsigned)k); h = NLMSG_NEXT(h, k))
                        if (h->nlmsg_type == NLMSG_DONE || h->nlmsg_type == NLMSG_ERROR)
                                return;
        }
}

/* One RTM_GETSTATS GET per interface, sent in one datagram; the n replies read. */
static void get_stats(int nl, const int *ifindex, unsigned n, char *buf, size_t size)
{
        struct req {
                struct nlmsghdr h;
                struct if_stats_msg m;
        } *r = calloc(n, sizeof(*r));
        unsigned got = 0;

        for (unsigned i = 0; i < n; i++)
                r[i] = (struct req){ .h = { .nlmsg_len = sizeof(*r), .nlmsg_type = RTM_GETSTATS,
                                            .nlmsg_flags = NLM_F_REQUEST, .nlmsg_seq = i + 1 },
                                     .m = { .family = AF_UNSPEC, .ifindex = (uint32_t)ifindex[i],
                                            .filter_mask = IFLA_STATS_FILTER_BIT(IFLA_STATS_LINK_64) } };
        if (send(nl, r, n * sizeof(*r), 0) < 0)
                got = n;
        while (got < n) {
                ssize_t k = recv(nl, buf, size, 0);
                const struct nlmsghdr *h = (const void *)buf;

                if (k <= 0)
                        break;
                for (; NLMSG_OK(h, (unsigned)k); h = NLMSG_NEXT(h, k))
                        got++;
        }
        free(r);
}

static int run_floor(unsigned period, unsigned secs, char **ifs, unsigned n)
{
        bool gstats = getenv("SAMPLER_FLOOR_GSTATS") && !strcmp(getenv("SAMPLER_FLOOR_GSTATS"), "1");
        int *ifindex = calloc(n, sizeof(*ifindex));
        struct if_nameindex *all = if_nameindex();
        unsigned links = 0;
        bool dump;
        int nl = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), fd = socket(AF_INET, SOCK_DGRAM, 0);
        uint32_t *count = calloc(n, sizeof(*count));
        struct ethtool_stats *st = malloc(sizeof(*st) + 4096 * sizeof(uint64_t));
        static char buf[65536];
        unsigned long long rounds = 0, overruns = 0;
        int64_t next = mono_ns(), end = next + (int64_t)secs * 1000000000;
        long c0 = cpu_ms(), r0 = rss_kib();

        for (struct if_nameindex *p = all; p && p->if_index; p++)
                links++;
        if_freenameindex(all);
        dump = n * 2 >= links;
        for (unsigned i = 0; i < n; i++)
                ifindex[i] = (int)if_nametoindex(ifs[i]);
        for (unsigned i = 0; i < n; i++) {      /* the count once, as the sampler keeps its names */
                union {
                        struct ethtool_sset_info h;
                        char raw[sizeof(struct ethtool_sset_info) + 4];
                } x = { .h = { .cmd = ETHTOOL_GSSET_INFO, .sset_mask = 1ull << ETH_SS_STATS } };
                struct ifreq ifr = { .ifr_data = (void *)&x };

                snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifs[i]);
                if (ioctl(fd, SIOCETHTOOL, &ifr) == 0 && x.h.sset_mask)
                        count[i] = x.h.data[0] < 4096 ? x.h.data[0] : 4096;
        }
        while (mono_ns() < end) {
                for (unsigned i = 0; gstats && i < n; i++) {
                        struct ifreq ifr = { .ifr_data = (void *)st };

                        *st = (struct ethtool_stats){ .cmd = ETHTOOL_GSTATS, .n_stats = count[i] };
                        snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifs[i]);
                        ioctl(fd, SIOCETHTOOL, &ifr);
                }
                if (dump)
                        dump_stats(nl, buf, sizeof(buf));
                else
                        get_stats(nl, ifindex, n, buf, sizeof(buf));
                rounds++;
                next += (int64_t)period * 1000000;
                if (mono_ns() > next) {
                        overruns++;
                        next = mono_ns() + (int64_t)period * 1000000;
                }
                sleep_until(next);
        }
        printf("cpu_ms=%ld samples=%llu overruns=%llu rss_kib=%ld series=0\n", cpu_ms() - c0, rounds, overruns,
               rss_kib() - r0);
        free(count);
        free(ifindex);
        free(st);
        close(nl);
        close(fd);
        return 0;
}

static int run_account(unsigned period, unsigned secs, unsigned ports, unsigned counters)
{
        struct sampler *s = calloc(1, sizeof(*s));
        int64_t next = mono_ns(), end = next + (int64_t)secs * 1000000000, t;
        unsigned long long rounds = 0;
        long c0, r0 = rss_kib();
        uint64_t v = 0;

        s->v = calloc(SAMPLER_SERIES_MAX, sizeof(*s->v));
        for (unsigned p = 0; p < ports; p++)
                for (unsigned c = 0; c < counters; c++) {
                        char ifn[IF_NAMESIZE], name[32];

                        snprintf(ifn, sizeof(ifn), "port%u", p);
                        snprintf(name, sizeof(name), "rx_prio%u_pause%u", c % 8, c);
                        sampler_series_get(s, ifn, name, c % 2 ? DOCTOR_PAUSE_RX : DOCTOR_ECN_MARKED, (int)(c % 8),
                                           c % 5 == 0);
                }
        c0 = cpu_ms();
        while ((t = mono_ns()) < end) {
                v += 7;
                for (unsigned i = 0; i < s->n; i++)
                        sampler_account(s, &s->v[i], v + (rounds % 100 < 5 ? v : 0), t, t / 1000000);
                rounds++;
                next += (int64_t)period * 1000000;
                sleep_until(next);
        }
        printf("cpu_ms=%ld samples=%llu overruns=0 rss_kib=%ld series=%u\n", cpu_ms() - c0, rounds, rss_kib() - r0,
               s->n);
        free(s->v);
        free(s);
        return 0;
}

int main(int argc, char **argv)
{
        unsigned period = argc > 2 ? (unsigned)atoi(argv[2]) : 0, secs = argc > 3 ? (unsigned)atoi(argv[3]) : 0;

        if (argc >= 5 && !strcmp(argv[1], "sample"))
                return run_sampler(period, secs, argv + 4, (unsigned)argc - 4);
        if (argc >= 5 && !strcmp(argv[1], "floor"))
                return run_floor(period, secs, argv + 4, (unsigned)argc - 4);
        if (argc == 6 && !strcmp(argv[1], "account"))
                return run_account(period, secs, (unsigned)atoi(argv[4]), (unsigned)atoi(argv[5]));
        fprintf(stderr, "usage: sampler_bench sample|floor PERIOD_MS SECONDS IF... | account PERIOD_MS SECONDS "
                "PORTS COUNTERS\n");
        return 2;
}
