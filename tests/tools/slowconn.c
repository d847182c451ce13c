/* SPDX-License-Identifier: MIT */
/*
 * slowconn: hostile, unauthenticated clients for the API's limits tests and the
 * hostile-clients benchmark. Keeps N TCP connections open to HOST:PORT for S
 * seconds; each trickles the start of a TLS ClientHello one byte every INTERVAL ms
 * and never finishes it (--idle: sends nothing at all). A connection the server
 * closes is opened again after --reconnect-ms, so the pressure stays.
 *
 *   slowconn --connect HOST:PORT [--bind ADDR] [--conns N] [--duration-s S]
 *            [--interval-ms I] [--reconnect-ms R] [--idle]
 *
 * Prints {"opened", "closed_by_server", "max_open", "open_at_end",
 * "longest_ms"} on stdout when the time is up or on SIGTERM (longest_ms: the
 * longest life of a connection the server closed). Exit 0, 2 for usage, 3 when no
 * connection could be opened at all.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CONNS_MAX 4096

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
        stop = 1;
}

/* A TLS 1.2 handshake record header and the start of a ClientHello: what a real client sends first. */
static const unsigned char hello[] = { 0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03, 0x03 };

struct conn {
        int fd;                 /* -1: closed, reopen at reopen_ms */
        bool connected;
        size_t sent;
        long long opened_ms, next_ms;
};

struct opts {
        struct sockaddr_storage to, from;
        socklen_t to_len, from_len;
        unsigned conns, duration_s, interval_ms, reconnect_ms;
        bool idle;
};

static long long now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int parse_addr(const char *s, bool port, struct sockaddr_storage *ret, socklen_t *ret_len)
{
        char host[128];
        const char *colon = port ? strrchr(s, ':') : NULL;
        struct sockaddr_in *in4 = (struct sockaddr_in *)ret;
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ret;
        size_t hl = colon ? (size_t)(colon - s) : strlen(s);
        unsigned long p = colon ? strtoul(colon + 1, NULL, 10) : 0;

        if ((port && (!colon || p == 0 || p > 65535)) || hl == 0 || hl >= sizeof(host))
                return -1;
        if (s[0] == '[' && hl >= 2)
                snprintf(host, sizeof(host), "%.*s", (int)(hl - 2), s + 1);
        else
                snprintf(host, sizeof(host), "%.*s", (int)hl, s);
        memset(ret, 0, sizeof(*ret));
        if (inet_pton(AF_INET, host, &in4->sin_addr) == 1) {
                in4->sin_family = AF_INET;
                in4->sin_port = htons((uint16_t)p);
                *ret_len = sizeof(*in4);
        } else if (inet_pton(AF_INET6, host, &in6->sin6_addr) == 1) {
                in6->sin6_family = AF_INET6;
                in6->sin6_port = htons((uint16_t)p);
                *ret_len = sizeof(*in6);
        } else {
                return -1;
        }
        return 0;
}

static void open_conn(const struct opts *o, struct conn *c, long long now)
{
        int fd = socket(o->to.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

        c->fd = -1;
        c->next_ms = now + o->reconnect_ms;
        if (fd < 0)
                return;
        if ((o->from_len && bind(fd, (const struct sockaddr *)&o->from, o->from_len) < 0) ||
            (connect(fd, (const struct sockaddr *)&o->to, o->to_len) < 0 && errno != EINPROGRESS)) {
                close(fd);
                return;
        }
        *c = (struct conn){ .fd = fd, .opened_ms = now, .next_ms = now };
}

static int usage(void)
{
        fprintf(stderr, "usage: slowconn --connect HOST:PORT [--bind ADDR] [--conns N] [--duration-s S]\n"
                        "                [--interval-ms I] [--reconnect-ms R] [--idle]\n");
        return 2;
}

static int parse_args(int argc, char **argv, struct opts *o)
{
        static const struct option longopts[] = {
                { "connect", required_argument, NULL, 'c' }, { "bind", required_argument, NULL, 'b' },
                { "conns", required_argument, NULL, 'n' }, { "duration-s", required_argument, NULL, 'd' },
                { "interval-ms", required_argument, NULL, 'i' }, { "reconnect-ms", required_argument, NULL, 'r' },
                { "idle", no_argument, NULL, 'I' }, { 0 },
        };
        bool have_to = false;
        int ch;

        *o = (struct opts){ .conns = 200, .duration_s = 10, .interval_ms = 1000, .reconnect_ms = 500 };
        while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
                switch (ch) {
                case 'c': if (parse_addr(optarg, true, &o->to, &o->to_len) < 0) return -1; have_to = true; break;
                case 'b': if (parse_addr(optarg, false, &o->from, &o->from_len) < 0) return -1; break;
                case 'n': o->conns = (unsigned)strtoul(optarg, NULL, 10); break;
                case 'd': o->duration_s = (unsigned)strtoul(optarg, NULL, 10); break;
                case 'i': o->interval_ms = (unsigned)strtoul(optarg, NULL, 10); break;
                case 'r': o->reconnect_ms = (unsigned)strtoul(optarg, NULL, 10); break;
                case 'I': o->idle = true; break;
                default: return -1;
                }
        }
        return have_to && o->conns >= 1 && o->conns <= CONNS_MAX && optind == argc ? 0 : -1;
}

/* One connection's turn: finish connecting, send the next byte, notice the server closing. */
static void step(const struct opts *o, struct conn *c, short revents, long long now, unsigned long long *closed,
                 long long *longest)
{
        char buf[256];
        bool gone = false;

        if (revents & (POLLERR | POLLHUP))
                gone = true;
        else if (revents & POLLIN)
                gone = read(c->fd, buf, sizeof(buf)) <= 0;     /* an alert or EOF: the server gave up on us */
        if (!gone && (revents & POLLOUT) && !c->connected) {
                int err = 0;
                socklen_t len = sizeof(err);

                getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
                c->connected = err == 0;
                gone = err != 0;
        }
        if (!gone && c->connected && !o->idle && now >= c->next_ms) {
                if (write(c->fd, &hello[c->sent % sizeof(hello)], 1) < 0 && errno != EAGAIN)
                        gone = true;
                c->sent++;
                c->next_ms = now + o->interval_ms;
        }
        if (gone) {
                if (c->connected) {
                        (*closed)++;
                        if (now - c->opened_ms > *longest)
                                *longest = now - c->opened_ms;
                }
                close(c->fd);
                c->fd = -1;
                c->next_ms = now + o->reconnect_ms;
        }
}

int main(int argc, char **argv)
{
        static struct conn conns[CONNS_MAX];
        static struct pollfd pfd[CONNS_MAX];
        unsigned long long opened = 0, closed = 0;
        unsigned max_open = 0, open_now = 0;
        long long end, longest = 0;
        struct opts o;

        if (parse_args(argc, argv, &o) < 0)
                return usage();
        signal(SIGPIPE, SIG_IGN);
        signal(SIGTERM, on_term);
        signal(SIGINT, on_term);
        end = now_ms() + (long long)o.duration_s * 1000;
        for (unsigned i = 0; i < o.conns; i++)
                conns[i] = (struct conn){ .fd = -1 };
        while (!stop && now_ms() < end) {
                long long now = now_ms();

                open_now = 0;
                for (unsigned i = 0; i < o.conns; i++) {
                        if (conns[i].fd < 0 && now >= conns[i].next_ms) {
                                open_conn(&o, &conns[i], now);
                                opened += conns[i].fd >= 0;
                        }
                        pfd[i] = (struct pollfd){ .fd = conns[i].fd, .events = POLLIN | (conns[i].connected ? 0 : POLLOUT) };
                        open_now += conns[i].fd >= 0 && conns[i].connected;
                }
                if (open_now > max_open)
                        max_open = open_now;
                if (poll(pfd, o.conns, 50) < 0 && errno != EINTR)
                        break;
                now = now_ms();
                for (unsigned i = 0; i < o.conns; i++)
                        if (conns[i].fd >= 0)
                                step(&o, &conns[i], pfd[i].revents, now, &closed, &longest);
        }
        printf("{\"opened\": %llu, \"closed_by_server\": %llu, \"max_open\": %u, \"open_at_end\": %u, \"longest_ms\": %lld}\n",
               opened, closed, max_open, open_now, longest);
        return opened ? 0 : 3;
}
