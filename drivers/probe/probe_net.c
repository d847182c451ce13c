/* SPDX-License-Identifier: MIT */
#include <arpa/inet.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <time.h>

#include "drivers/probe/probe_net.h"

uint64_t probe_now_ns(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int split_hostport(const char *s, char *host, size_t hsize, const char **ret_port)
{
        const char *colon;
        size_t n;

        if (s[0] == '[') {
                const char *end = strchr(s, ']');

                if (!end || end[1] != ':')
                        return -EINVAL;
                n = (size_t)(end - s - 1);
                colon = end + 1;
                s++;
        } else {
                colon = strrchr(s, ':');
                if (!colon || memchr(s, ':', (size_t)(colon - s)))
                        return -EINVAL;
                n = (size_t)(colon - s);
        }
        if (n == 0 || n >= hsize)
                return -EINVAL;
        memcpy(host, s, n);
        host[n] = '\0';
        *ret_port = colon + 1;
        return 0;
}

static int parse_port(const char *s, bool allow_zero, unsigned *ret)
{
        char *end;
        unsigned long v;

        if (!s[0] || s[0] == '-' || s[0] == '+')
                return -EINVAL;
        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno || *end || (v == 0 && !allow_zero) || v > 65535)
                return -EINVAL;
        *ret = (unsigned)v;
        return 0;
}

static int parse_addr(const char *hostport, const char *what, bool listen, struct probe_addr *ret,
                      struct errbuf *e)
{
        struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
                                  .ai_flags = AI_NUMERICSERV | (listen ? AI_PASSIVE : 0) };
        struct addrinfo *res = NULL;
        char host[256];
        const char *port;
        unsigned pnum;
        int r;

        if (!hostport || split_hostport(hostport, host, sizeof(host), &port) < 0 ||
            parse_port(port, listen, &pnum) < 0)
                return errbuf_set(e, EINVAL, what, "'%s' is not ADDR:PORT (port %d-65535)",
                                  hostport ? hostport : "", listen ? 0 : 1);
        r = getaddrinfo(host, port, &hints, &res);
        if (r != 0 || !res) {
                errbuf_set(e, r == EAI_NONAME ? EINVAL : EHOSTUNREACH, what, "cannot resolve '%s': %s",
                           host, gai_strerror(r));
                return r == EAI_NONAME ? -EINVAL : -EHOSTUNREACH;
        }
        memset(ret, 0, sizeof(*ret));
        memcpy(&ret->ss, res->ai_addr, res->ai_addrlen);
        ret->len = res->ai_addrlen;
        freeaddrinfo(res);
        return 0;
}

int probe_net_parse(const char *hostport, const char *what, struct probe_addr *ret, struct errbuf *e)
{
        return parse_addr(hostport, what, false, ret, e);
}

int probe_net_parse_listen(const char *hostport, const char *what, struct probe_addr *ret, struct errbuf *e)
{
        return parse_addr(hostport, what, true, ret, e);
}

int probe_net_parse_host(const char *host, struct probe_addr *ret)
{
        struct probe_addr a = { .len = 0 };
        struct sockaddr_in *in4 = (struct sockaddr_in *)&a.ss;
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&a.ss;

        if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
                in4->sin_family = AF_INET;
                a.len = sizeof(*in4);
        } else if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
                in6->sin6_family = AF_INET6;
                a.len = sizeof(*in6);
        } else {
                return -EINVAL;
        }
        *ret = a;
        return 0;
}

const char *probe_net_host(const struct probe_addr *a, char *buf, size_t size)
{
        const void *bytes = a->ss.ss_family == AF_INET ? (const void *)&((const struct sockaddr_in *)&a->ss)->sin_addr
                                                        : (const void *)&((const struct sockaddr_in6 *)&a->ss)->sin6_addr;

        if (!inet_ntop(a->ss.ss_family, bytes, buf, (socklen_t)size))
                snprintf(buf, size, "?");
        return buf;
}

const char *probe_net_str(const struct probe_addr *a, char *buf, size_t size)
{
        char h[INET6_ADDRSTRLEN] = "?";

        if (a->ss.ss_family == AF_INET) {
                const struct sockaddr_in *in4 = (const struct sockaddr_in *)&a->ss;

                inet_ntop(AF_INET, &in4->sin_addr, h, sizeof(h));
                snprintf(buf, size, "%s:%u", h, ntohs(in4->sin_port));
        } else {
                const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&a->ss;

                inet_ntop(AF_INET6, &in6->sin6_addr, h, sizeof(h));
                snprintf(buf, size, "[%s]:%u", h, ntohs(in6->sin6_port));
        }
        return buf;
}

int probe_net_wait(int fd, short events, unsigned timeout_ms)
{
        struct pollfd pfd = { .fd = fd, .events = events };
        int r;

        do
                r = poll(&pfd, 1, (int)timeout_ms);
        while (r < 0 && errno == EINTR);
        if (r < 0)
                return -errno;
        if (r == 0)
                return -ETIMEDOUT;
        return 0;
}

int probe_net_set_class(int fd, int family, int tos, int priority, struct errbuf *e)
{
        int r = 0;

        if (tos >= 0)
                r = family == AF_INET6 ? setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, sizeof(tos))
                                       : setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
        if (r < 0)
                return errbuf_set(e, errno, NULL, "cannot set traffic class %d (DSCP %d): %s", tos, tos >> 2,
                                  strerror(errno));
        /* After the TOS: setting IP_TOS resets the socket's priority from the TOS bits. */
        if (priority >= 0 && setsockopt(fd, SOL_SOCKET, SO_PRIORITY, &priority, sizeof(priority)) < 0)
                return errbuf_set(e, errno, NULL, "cannot set socket priority %d: %s%s", priority, strerror(errno),
                                  errno == EPERM ? " (priority 7 needs CAP_NET_ADMIN)" : "");
        return 0;
}

int probe_net_get_class(int fd, int family, int *ret_tos, int *ret_priority)
{
        int tos = 0, prio = 0;
        socklen_t lt = sizeof(tos), lp = sizeof(prio);
        int r = family == AF_INET6 ? getsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos, &lt)
                                   : getsockopt(fd, IPPROTO_IP, IP_TOS, &tos, &lt);

        if (r < 0 || getsockopt(fd, SOL_SOCKET, SO_PRIORITY, &prio, &lp) < 0)
                return -errno;
        *ret_tos = tos;
        *ret_priority = prio;
        return 0;
}

static int bind_device(int fd, const char *netdev, struct errbuf *e)
{
        if (!netdev || !netdev[0])
                return 0;
        if (setsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, netdev, (socklen_t)strlen(netdev)) < 0)
                return errbuf_set(e, errno, NULL, "cannot bind to interface '%s': %s", netdev, strerror(errno));
        return 0;
}

static int bind_source(int fd, const struct probe_addr *peer, const char *source)
{
        struct probe_addr src;

        if (!source || !source[0])
                return 0;
        if (probe_net_parse_host(source, &src) < 0 || src.ss.ss_family != peer->ss.ss_family)
                return -EINVAL;
        if (bind(fd, (struct sockaddr *)&src.ss, src.len) < 0)
                return -errno;
        return 0;
}

static int finish_connect(int fd, unsigned timeout_ms)
{
        int err = 0, r;
        socklen_t len = sizeof(err);

        r = probe_net_wait(fd, POLLOUT, timeout_ms);
        if (r < 0)
                return r;
        if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
                return -errno;
        return -err;
}

int probe_net_connect(const struct probe_addr *a, const struct probe_sockopt *o, unsigned timeout_ms,
                      struct errbuf *e)
{
        static const struct probe_sockopt none = { .tos = -1, .priority = -1 };
        _cleanup_close_ int fd = -1;
        char where[INET6_ADDRSTRLEN + 16];
        int one = 1, r;

        if (!o)
                o = &none;
        probe_net_str(a, where, sizeof(where));
        fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
        if (fd < 0)
                return errbuf_set(e, errno, NULL, "socket: %s", strerror(errno));
        r = bind_device(fd, o->netdev, e);
        if (r < 0)
                return r;
        r = bind_source(fd, a, o->source);
        if (r < 0)
                return errbuf_set(e, -r, NULL, "cannot bind source address '%s': %s", o->source, strerror(-r));
        r = probe_net_set_class(fd, a->ss.ss_family, o->tos, o->priority, e);
        if (r < 0)
                return r;
        (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
        r = connect(fd, (struct sockaddr *)&a->ss, a->len) < 0 ? -errno : 0;
        if (r == -EINPROGRESS)
                r = finish_connect(fd, timeout_ms);
        if (r < 0)
                return errbuf_set(e, -r, NULL, "cannot connect to probe server '%s': %s", where, strerror(-r));
        if (fcntl(fd, F_SETFL, 0) < 0)
                return errbuf_set(e, errno, NULL, "fcntl: %s", strerror(errno));
        return TAKE_FD(fd);
}

int probe_net_listen(const struct probe_addr *a, int backlog, struct errbuf *e)
{
        _cleanup_close_ int fd = -1;
        char where[INET6_ADDRSTRLEN + 16];
        int one = 1;

        probe_net_str(a, where, sizeof(where));
        fd = socket(a->ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return errbuf_set(e, errno, NULL, "socket: %s", strerror(errno));
        (void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, (const struct sockaddr *)&a->ss, a->len) < 0)
                return errbuf_set(e, errno, NULL, "cannot listen on '%s': %s", where, strerror(errno));
        if (listen(fd, backlog) < 0)
                return errbuf_set(e, errno, NULL, "cannot listen on '%s': %s", where, strerror(errno));
        return TAKE_FD(fd);
}

int probe_net_local(int fd, struct probe_addr *ret)
{
        struct probe_addr a = { .len = sizeof(a.ss) };

        if (getsockname(fd, (struct sockaddr *)&a.ss, &a.len) < 0)
                return -errno;
        *ret = a;
        return 0;
}

static unsigned left_ms(uint64_t deadline)
{
        uint64_t now = probe_now_ns();

        return now >= deadline ? 0 : (unsigned)((deadline - now) / 1000000 + 1);
}

int probe_net_read_full(int fd, void *buf, size_t n, unsigned timeout_ms)
{
        uint64_t deadline = probe_now_ns() + (uint64_t)timeout_ms * 1000000;
        size_t done = 0;

        while (done < n) {
                ssize_t k;
                int r = probe_net_wait(fd, POLLIN, left_ms(deadline));

                if (r < 0)
                        return r;
                k = recv(fd, (char *)buf + done, n - done, MSG_DONTWAIT);
                if (k == 0)
                        return -ECONNRESET;
                if (k < 0 && errno != EINTR && errno != EAGAIN)
                        return -errno;
                if (k > 0)
                        done += (size_t)k;
        }
        return 0;
}

int probe_net_write_full(int fd, const void *buf, size_t n, unsigned timeout_ms)
{
        uint64_t deadline = probe_now_ns() + (uint64_t)timeout_ms * 1000000;
        size_t done = 0;

        while (done < n) {
                ssize_t k;
                int r = probe_net_wait(fd, POLLOUT, left_ms(deadline));

                if (r < 0)
                        return r;
                k = send(fd, (const char *)buf + done, n - done, MSG_DONTWAIT | MSG_NOSIGNAL);
                if (k < 0 && errno != EINTR && errno != EAGAIN)
                        return -errno;
                if (k > 0)
                        done += (size_t)k;
        }
        return 0;
}

/* ---- allowed clients ---- */

int probe_cidr_parse(const char *s, const char *what, struct probe_cidr *ret, struct errbuf *e)
{
        struct probe_cidr c = { .family = AF_INET };
        char host[INET6_ADDRSTRLEN + 1];
        const char *slash = s ? strchr(s, '/') : NULL;
        size_t n = slash ? (size_t)(slash - s) : (s ? strlen(s) : 0);
        unsigned max;

        if (!s || n == 0 || n >= sizeof(host))
                return errbuf_set(e, EINVAL, what, "'%s' is not an address or ADDR/PREFIX", s ? s : "");
        memcpy(host, s, n);
        host[n] = '\0';
        if (inet_pton(AF_INET, host, c.addr) != 1) {
                c.family = AF_INET6;
                if (inet_pton(AF_INET6, host, c.addr) != 1)
                        return errbuf_set(e, EINVAL, what, "'%s' is not an IPv4 or IPv6 address", host);
        }
        max = c.family == AF_INET ? 32 : 128;
        c.prefix = max;
        if (slash) {
                char *end;
                unsigned long v;

                errno = 0;
                v = strtoul(slash + 1, &end, 10);
                if (!slash[1] || *end || errno || slash[1] == '-' || slash[1] == '+' || v > max)
                        return errbuf_set(e, EINVAL, what, "prefix length in '%s' out of range 0-%u", s, max);
                c.prefix = (unsigned)v;
        }
        for (unsigned bit = c.prefix; bit < max; bit++)
                if (c.addr[bit / 8] & (0x80 >> (bit % 8)))
                        return errbuf_set(e, EINVAL, what, "'%s' has host bits set beyond /%u", s, c.prefix);
        *ret = c;
        return 0;
}

/* The family and address bytes of sa, IPv4-mapped IPv6 as IPv4. */
static int addr_of(const struct sockaddr *sa, uint8_t ret[16])
{
        static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

        if (sa->sa_family == AF_INET) {
                memcpy(ret, &((const struct sockaddr_in *)sa)->sin_addr, 4);
                return AF_INET;
        }
        if (sa->sa_family != AF_INET6)
                return AF_UNSPEC;
        memcpy(ret, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
        if (memcmp(ret, mapped, sizeof(mapped)) == 0) {
                memmove(ret, ret + 12, 4);
                return AF_INET;
        }
        return AF_INET6;
}

static bool prefix_match(const uint8_t *a, const uint8_t *b, unsigned prefix)
{
        unsigned full = prefix / 8, rest = prefix % 8;

        if (memcmp(a, b, full) != 0)
                return false;
        return !rest || ((a[full] ^ b[full]) & (0xff00 >> rest) & 0xff) == 0;
}

bool probe_cidr_match(const struct probe_cidr *allow, unsigned n, const struct sockaddr *sa)
{
        uint8_t a[16];
        int family = addr_of(sa, a);

        for (unsigned i = 0; i < n && family != AF_UNSPEC; i++)
                if (allow[i].family == family && prefix_match(a, allow[i].addr, allow[i].prefix))
                        return true;
        return false;
}

/* Is sa on a network one of this host's addresses is on (its prefix from the netmask)? */
static bool on_local_network(const struct sockaddr *sa)
{
        struct ifaddrs *list = NULL;
        uint8_t a[16], b[16], m[16];
        int family = addr_of(sa, a);
        bool on = false;

        if (family == AF_UNSPEC || getifaddrs(&list) < 0)
                return false;
        for (struct ifaddrs *i = list; i && !on; i = i->ifa_next) {
                unsigned len = family == AF_INET ? 4 : 16, prefix = 0;

                if (!i->ifa_addr || !i->ifa_netmask || addr_of(i->ifa_addr, b) != family ||
                    addr_of(i->ifa_netmask, m) != family)
                        continue;
                while (prefix < len * 8 && (m[prefix / 8] & (0x80 >> (prefix % 8))))
                        prefix++;
                on = prefix_match(a, b, prefix);
        }
        freeifaddrs(list);
        return on;
}

int probe_peer_check(const struct probe_peers *pp, const char *hostport, char *why, size_t size)
{
        struct probe_addr a;
        char host[INET6_ADDRSTRLEN];
        bool ok;

        if (probe_net_parse(hostport, "peer", &a, NULL) < 0) {
                snprintf(why, size, "'%s' does not resolve to an address", hostport);
                return -EACCES;
        }
        ok = pp && pp->n ? probe_cidr_match(pp->v, pp->n, (const struct sockaddr *)&a.ss) :
                           on_local_network((const struct sockaddr *)&a.ss);
        if (ok)
                return 0;
        snprintf(why, size, "'%s' (%s) is %s", hostport, probe_net_host(&a, host, sizeof(host)),
                 pp && pp->n ? "in no network of probe.peers" : "on none of this host's networks (probe.peers and "
                 "probe.allow are not set)");
        return -EACCES;
}

bool probe_net_is_local(const struct sockaddr *sa)
{
        static const struct probe_cidr loopback[] = {
                { .family = AF_INET, .addr = { 127 }, .prefix = 8 },
                { .family = AF_INET6, .addr = { [15] = 1 }, .prefix = 128 },
        };
        struct ifaddrs *list = NULL;
        uint8_t a[16], b[16];
        int family = addr_of(sa, a);
        bool local = probe_cidr_match(loopback, ARRAY_SIZE(loopback), sa);

        if (local || family == AF_UNSPEC || getifaddrs(&list) < 0)
                return local;
        for (struct ifaddrs *i = list; i && !local; i = i->ifa_next)
                local = i->ifa_addr && addr_of(i->ifa_addr, b) == family &&
                        memcmp(a, b, family == AF_INET ? 4 : 16) == 0;
        freeifaddrs(list);
        return local;
}
