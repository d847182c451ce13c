/* SPDX-License-Identifier: MIT */
/*
 * The round trip a probe's own TCP connection saw, as the kernel measured it
 * (include/uapi/linux/tcp.h struct tcp_info; net/ipv4/tcp.c tcp_get_info()):
 * tcpi_min_rtt, the windowed minimum of the RTT samples (Linux 4.6+) — the path's
 * base round trip without the queueing the probe itself caused — else the smoothed
 * tcpi_rtt. Its own file: glibc's <netinet/tcp.h> struct tcp_info predates
 * tcpi_min_rtt, and the two headers cannot be included together.
 */
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>

#include "drivers/probe/probe_net.h"

double probe_net_rtt_ms(int fd)
{
        struct tcp_info ti = { 0 };
        socklen_t len = sizeof(ti);

        if (fd < 0 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) < 0)
                return 0;
        if (len >= offsetof(struct tcp_info, tcpi_min_rtt) + sizeof(ti.tcpi_min_rtt) && ti.tcpi_min_rtt &&
            ti.tcpi_min_rtt != ~0u)
                return ti.tcpi_min_rtt / 1000.0;
        return ti.tcpi_rtt / 1000.0;
}
