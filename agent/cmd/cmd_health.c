/* SPDX-License-Identifier: MIT */
/*
 * nettune-agent health [--timeout S]: is the agent serving here? A liveness check for
 * a supervisor (the Kubernetes DaemonSet's livenessProbe, examples/kubernetes/): the
 * configuration loads and the API's listen address accepts a TCP connection within
 * the timeout (0.0.0.0 and :: are asked on loopback). It needs no client certificate
 * and changes nothing; whether the API answers a request is GET /v1/health's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "agent/cmd/cmd.h"
#include "common/netaddr.h"

/* Connect to a within timeout_ms: 0, or -errno. */
static int try_connect(const union netaddr *a, unsigned timeout_ms)
{
        socklen_t len = a->sa.sa_family == AF_INET6 ? sizeof(a->in6) : sizeof(a->in4);
        int fd = socket(a->sa.sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), r = 0, err = 0;
        struct pollfd p;

        if (fd < 0)
                return -errno;
        if (connect(fd, &a->sa, len) < 0 && errno != EINPROGRESS) {
                r = -errno;
                goto out;
        }
        p = (struct pollfd){ .fd = fd, .events = POLLOUT };
        do
                r = poll(&p, 1, (int)timeout_ms);
        while (r < 0 && errno == EINTR);
        if (r == 0) {
                r = -ETIMEDOUT;
                goto out;
        }
        if (r < 0) {
                r = -errno;
                goto out;
        }
        len = sizeof(err);
        r = getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0 ? -errno : -err;
out:
        close(fd);
        return r;
}

int cmd_health(struct cli *c)
{
        struct errbuf e = { 0 };
        union netaddr a;
        unsigned timeout_s = 5;
        char host[INET6_ADDRSTRLEN];
        int r;

        for (int i = 1; i < c->argc; i++) {
                const char *v = cli_opt_value(c, &i, "--timeout");

                if (!v)
                        return cli_bad_arg(c, c->argv[i]), OUTCOME_INVALID;
                if (cli_parse_uint(c, "--timeout", v, 1, 600, &timeout_s) < 0)
                        return OUTCOME_INVALID;
        }
        if (netaddr_parse(c->config.listen, "listen", &a, NULL, &e) < 0)
                return cli_fail(c, &e, OUTCOME_INVALID);
        if (a.sa.sa_family == AF_INET && a.in4.sin_addr.s_addr == htonl(INADDR_ANY))
                a.in4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        else if (a.sa.sa_family == AF_INET6 && !memcmp(&a.in6.sin6_addr, &in6addr_any, sizeof(in6addr_any)))
                a.in6.sin6_addr = in6addr_loopback;
        inet_ntop(a.sa.sa_family, a.sa.sa_family == AF_INET ? (void *)&a.in4.sin_addr : (void *)&a.in6.sin6_addr,
                  host, sizeof(host));
        r = try_connect(&a, timeout_s * 1000);
        if (r < 0) {
                fprintf(stderr, "%s: health: the API at '%s' (asked at %s) does not accept connections: %s\n",
                        c->prog, c->config.listen, host, strerror(-r));
                return OUTCOME_RUNTIME;
        }
        printf("ok: the API at '%s' accepts connections\n", c->config.listen);
        return OUTCOME_OK;
}
