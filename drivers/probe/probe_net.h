/* SPDX-License-Identifier: MIT */
/*
 * Sockets for the probes: "host:port" parsing, bounded connect/read/write with
 * timeouts, and a monotonic clock. Every descriptor is close-on-exec.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "errbuf.h"

struct probe_addr {
        struct sockaddr_storage ss;
        socklen_t len;
};

/* "1.2.3.4:18515", "[fe80::1]:18515", "name:18515". -EINVAL with a message naming `what`. */
int probe_net_parse(const char *hostport, const char *what, struct probe_addr *ret, struct errbuf *e);

/* The same for a listen address: port 0 (any free port) allowed. */
int probe_net_parse_listen(const char *hostport, const char *what, struct probe_addr *ret, struct errbuf *e);

/* Numeric address without port ("10.0.0.1"), port 0. */
int probe_net_parse_host(const char *host, struct probe_addr *ret);

/* "1.2.3.4:5" / "[::1]:5" into buf. */
const char *probe_net_str(const struct probe_addr *a, char *buf, size_t size);

/* Connect within timeout_ms, optionally bound to `source` ("" = any) and with IP TOS
 * `tos` (-1 = leave). Returns the fd (blocking, TCP_NODELAY) or -errno with e filled. */
int probe_net_connect(const struct probe_addr *a, const char *source, int tos,
                      unsigned timeout_ms, struct errbuf *e);

/* A listening TCP socket (SO_REUSEADDR). Returns the fd or -errno with e filled. */
int probe_net_listen(const struct probe_addr *a, int backlog, struct errbuf *e);

/* Local / peer address of a connected socket. */
int probe_net_local(int fd, struct probe_addr *ret);

/* Wait until fd is readable (POLLIN) within timeout_ms: 0, -ETIMEDOUT, -errno. */
int probe_net_wait(int fd, short events, unsigned timeout_ms);

/* Exactly n bytes within timeout_ms in total: 0, -ETIMEDOUT, -ECONNRESET (peer closed), -errno. */
int probe_net_read_full(int fd, void *buf, size_t n, unsigned timeout_ms);
int probe_net_write_full(int fd, const void *buf, size_t n, unsigned timeout_ms);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t probe_now_ns(void);
