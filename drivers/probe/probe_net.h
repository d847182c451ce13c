/* SPDX-License-Identifier: MIT */
/*
 * Sockets for the probes: "host:port" parsing, bounded connect/read/write with
 * timeouts, and a monotonic clock. Every descriptor is close-on-exec.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "common/errbuf.h"

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
/* The address alone ("1.2.3.4", "::1") into buf. */
const char *probe_net_host(const struct probe_addr *a, char *buf, size_t size);

/* How a probe socket leaves: source address, interface, traffic class and priority. */
struct probe_sockopt {
        const char *source;             /* local address to bind, NULL/"" = the route's */
        const char *netdev;             /* SO_BINDTODEVICE, NULL/"" = none */
        int tos;                        /* IP_TOS / IPV6_TCLASS byte (DSCP << 2), -1 = leave */
        int priority;                   /* SO_PRIORITY 0-7, -1 = leave (set after the TOS, which resets it) */
};

/* Connect within timeout_ms with the options o (NULL: none). Returns the fd (blocking,
 * TCP_NODELAY) or -errno with e filled. */
int probe_net_connect(const struct probe_addr *a, const struct probe_sockopt *o, unsigned timeout_ms,
                      struct errbuf *e);

/* Traffic class and priority of a socket (tos/priority -1 = leave): 0 or -errno with e filled. */
int probe_net_set_class(int fd, int family, int tos, int priority, struct errbuf *e);
/* What the kernel reports for a socket: *ret_tos (IP_TOS / IPV6_TCLASS byte) and *ret_priority. */
int probe_net_get_class(int fd, int family, int *ret_tos, int *ret_priority);

/* The base round trip the kernel measured on a TCP socket, ms (probe_rtt.c); 0 when unknown. */
double probe_net_rtt_ms(int fd);

/* An allowed client network: "10.0.0.0/24", "10.0.0.5" (/32), "fd00::/8", "::1" (/128). */
struct probe_cidr {
        int family;                     /* AF_INET, AF_INET6 */
        uint8_t addr[16];
        unsigned prefix;
};

/* Parse one CIDR (host bits must be zero). -EINVAL with a message naming `what`. */
int probe_cidr_parse(const char *s, const char *what, struct probe_cidr *ret, struct errbuf *e);

/* Is sa (IPv4-mapped IPv6 counts as IPv4) inside one of allow[0..n)? */
bool probe_cidr_match(const struct probe_cidr *allow, unsigned n, const struct sockaddr *sa);

/* Is sa loopback or an address of one of this namespace's interfaces (getifaddrs)? */
bool probe_net_is_local(const struct sockaddr *sa);

/*
 * The addresses probe traffic may go to (the agent's probe.peers): v[0..n), or with
 * n 0 the networks this host's addresses are on (each interface address with its
 * prefix length, loopback included).
 */
struct probe_peers {
        const struct probe_cidr *v;
        unsigned n;
};

/*
 * May probe traffic go to hostport? Resolves it (numeric or a name) and checks the
 * address against pp, before any socket is opened to it. 0, or -EACCES with the
 * reason in why (for the agent's log; a client is told only "peer refused").
 */
int probe_peer_check(const struct probe_peers *pp, const char *hostport, char *why, size_t size);

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
