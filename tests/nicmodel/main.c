/* SPDX-License-Identifier: MIT */
/*
 * build/nicmodel: NIC behaviour models behind the netlink seam.
 *
 *   nicmodel serve --socket PATH --control PATH [--ethtool PATH] [--sysfs ROOT] [--debugfs ROOT]
 *                  [--log FILE] [--flap-delay-ms N] [--link-up-ms N] [--rdma-lag-ms N] [--kernel-routes]
 *                  DEVICE...
 *       DEVICE = DRIVER:NAME:IFINDEX[:VARIANT[:SPEED]], DRIVER mlx5, ice, bnxt, sparx5, mlxsw, veth
 *       or bond,
 *       SPEED in Mb/s (default 100000: link flaps last as long as the driver's at that speed;
 *       --link-up-ms sets one figure for every device).
 *       The agent reaches it with NETTUNE_NETLINK_SOCKET=PATH (NETLINK_GENERIC at PATH.genl;
 *       with --ethtool, NETTUNE_ETHTOOL_SOCKET=PATH). "ready" is printed on stdout once the
 *       sockets listen; SIGTERM stops it. A NIC has no routes: with --kernel-routes a route
 *       lookup (RTM_GETROUTE) is answered by the kernel of the namespace the model runs in,
 *       where a test made a real link under a model device's name and ifindex to carry a
 *       probe's traffic (the probe leaves by the real link; the agent reads the model's DCB).
 *   nicmodel ctl CONTROL COMMAND [ARGS...]
 *       One control command (tests/nicmodel/nm_control.c); exit 1 when it failed.
 */
#include <getopt.h>
#include <signal.h>

#include "common/util.h"
#include "tests/nicmodel/nicmodel.h"
#include "tests/nicmodel/nm_server.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
        stop = 1;
}

static int usage(void)
{
        fprintf(stderr, "usage: nicmodel serve --socket PATH --control PATH [--ethtool PATH] [--sysfs ROOT]\n"
                        "                      [--debugfs ROOT] [--log FILE]\n"
                        "                      [--flap-delay-ms N] [--link-up-ms N] [--rdma-lag-ms N]\n"
                        "                      [--kernel-routes] DEVICE...\n"
                        "       nicmodel ctl CONTROL COMMAND [ARGS...]\n");
        return 2;
}

static int serve(int argc, char **argv)
{
        static const struct option opts[] = {
                { "socket", required_argument, NULL, 's' }, { "control", required_argument, NULL, 'c' },
                { "sysfs", required_argument, NULL, 'y' }, { "log", required_argument, NULL, 'l' },
                { "flap-delay-ms", required_argument, NULL, 'f' }, { "link-up-ms", required_argument, NULL, 'u' },
                { "rdma-lag-ms", required_argument, NULL, 'r' }, { "ethtool", required_argument, NULL, 'e' },
                { "debugfs", required_argument, NULL, 'd' }, { "kernel-routes", no_argument, NULL, 'k' }, { 0 },
        };
        static struct nm m;
        const char *sock = NULL, *ctl = NULL, *eth = NULL;
        struct sigaction sa = { .sa_handler = on_signal };
        int c, r;

        nm_init(&m);
        while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                switch (c) {
                case 's': sock = optarg; break;
                case 'c': ctl = optarg; break;
                case 'e': eth = optarg; break;
                case 'y': snprintf(m.sysfs_root, sizeof(m.sysfs_root), "%s", optarg); break;
                case 'd': snprintf(m.debugfs_root, sizeof(m.debugfs_root), "%s", optarg); break;
                case 'l': m.log = fopen(optarg, "ae"); break;
                case 'f': m.flap_delay_ms = (unsigned)atoi(optarg); break;
                case 'u': m.link_up_ms = (unsigned)atoi(optarg); break;
                case 'r': m.rdma_lag_ms = (unsigned)atoi(optarg); break;
                case 'k': m.kernel_routes = true; break;
                default: return usage();
                }
        }
        if (!sock || !ctl || optind >= argc)
                return usage();
        for (int i = optind; i < argc; i++)
                if (nm_add(&m, argv[i]) < 0)
                        return 2;
        for (unsigned i = 0; i < m.n_devs; i++)
                if ((r = nm_sysfs_create(&m, &m.devs[i])) < 0) {
                        fprintf(stderr, "nicmodel: sysfs tree under '%s': %s\n", m.sysfs_root, strerror(-r));
                        return 1;
                }
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        signal(SIGPIPE, SIG_IGN);
        r = nm_serve(&m, sock, ctl, eth, &stop, stdout);
        if (r == 0 && !stop)
                r = -EIO;
        if (r < 0 && !stop)
                fprintf(stderr, "nicmodel: %s\n", strerror(-r));
        nm_done(&m);
        if (m.log)
                fclose(m.log);
        return r < 0 && !stop ? 1 : 0;
}

int main(int argc, char **argv)
{
        char line[256] = "";
        size_t len = 0;

        setvbuf(stdout, NULL, _IOLBF, 0);
        if (argc >= 2 && streq(argv[1], "serve"))
                return serve(argc - 1, argv + 1);
        if (argc < 4 || !streq(argv[1], "ctl"))
                return usage();
        for (int i = 3; i < argc; i++)
                len += (size_t)snprintf(line + len, sizeof(line) > len ? sizeof(line) - len : 0, "%s%s",
                                        i > 3 ? " " : "", argv[i]);
        if (len >= sizeof(line))
                return usage();
        if (nm_ctl(argv[2], line, stdout) < 0) {
                fprintf(stderr, "nicmodel ctl: '%s' failed\n", line);
                return 1;
        }
        return 0;
}
