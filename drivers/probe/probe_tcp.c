/* SPDX-License-Identifier: MIT */
/*
 * The TCP probe: one or more streams from the client to probe-server, which
 * sinks the data and reports what it received and over how long (first byte to
 * last byte): the result is the receiver's view.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>

#include "common/pages.h"
#include "drivers/probe/probe.h"
#include "drivers/probe/probe_net.h"
#include "drivers/probe/probe_oob.h"
#include "drivers/probe/probe_server.h"

#define TCP_HANDSHAKE_MS 10000u

/* ---- server side: accept the data streams and sink them ---- */

static bool same_host(const struct probe_addr *a, const struct probe_addr *b)
{
        if (a->ss.ss_family != b->ss.ss_family)
                return false;
        if (a->ss.ss_family == AF_INET)
                return ((const struct sockaddr_in *)&a->ss)->sin_addr.s_addr ==
                       ((const struct sockaddr_in *)&b->ss)->sin_addr.s_addr;
        return memcmp(&((const struct sockaddr_in6 *)&a->ss)->sin6_addr,
                      &((const struct sockaddr_in6 *)&b->ss)->sin6_addr, 16) == 0;
}

static void set_port(struct probe_addr *a, uint16_t port)
{
        if (a->ss.ss_family == AF_INET)
                ((struct sockaddr_in *)&a->ss)->sin_port = htons(port);
        else
                ((struct sockaddr_in6 *)&a->ss)->sin6_port = htons(port);
}

static uint16_t get_port(const struct probe_addr *a)
{
        if (a->ss.ss_family == AF_INET)
                return ntohs(((const struct sockaddr_in *)&a->ss)->sin_port);
        return ntohs(((const struct sockaddr_in6 *)&a->ss)->sin6_port);
}

static bool ctrl_alive(int ctrl)
{
        char c;
        ssize_t k = recv(ctrl, &c, 1, MSG_PEEK | MSG_DONTWAIT);

        return k > 0 || (k < 0 && (errno == EAGAIN || errno == EINTR));
}

/* Accept the hello's data connections from the control connection's peer host. */
static int accept_streams(const struct probe_session *s, int lfd, int *fds, struct errbuf *e)
{
        const struct probe_addr *peer = s->peer;
        uint64_t deadline = probe_now_ns() + TCP_HANDSHAKE_MS * 1000000ull;
        int ctrl = s->fd;
        unsigned n = s->hello->streams;
        struct pollfd pfd[2];
        bool watch_ctrl = true;
        unsigned got = 0;

        if (deadline > s->deadline_ns)
                deadline = s->deadline_ns;
        while (got < n) {
                struct probe_addr from = { .len = sizeof(from.ss) };
                int fd;

                if (probe_now_ns() >= deadline)
                        return errbuf_set(e, ETIMEDOUT, NULL, "%u of %u data streams connected in time", got, n);
                pfd[0] = (struct pollfd) { .fd = lfd, .events = POLLIN };
                pfd[1] = (struct pollfd) { .fd = watch_ctrl ? ctrl : -1, .events = POLLIN };
                if (poll(pfd, 2, 500) <= 0)
                        continue;
                if (pfd[1].revents) {
                        /* A fast client may already have sent DONE: only an end of the connection aborts. */
                        if (!ctrl_alive(ctrl))
                                return errbuf_set(e, ECONNABORTED, NULL,
                                                  "control connection ended before the data streams");
                        watch_ctrl = false;
                }
                if (!pfd[0].revents)
                        continue;
                fd = accept4(lfd, (struct sockaddr *)&from.ss, &from.len, SOCK_CLOEXEC | SOCK_NONBLOCK);
                if (fd < 0)
                        continue;
                if (!same_host(&from, peer)) {
                        close(fd);      /* not our client: refuse it, keep waiting */
                        continue;
                }
                fds[got++] = fd;
        }
        return 0;
}

struct sink {
        uint64_t bytes, first_ns, last_ns;
        unsigned open;
        bool done;                      /* DONE received */
        uint64_t client_bytes;
};

static int sink_ctrl(int ctrl, struct sink *k, struct errbuf *e)
{
        struct probe_oob_msg m;
        int r = probe_oob_expect(ctrl, PROBE_OOB_DONE, &m, TCP_HANDSHAKE_MS, e);

        if (r < 0)
                return r;
        k->done = true;
        k->client_bytes = m.bytes;
        return 0;
}

static int sink_data(struct pollfd *p, uint8_t *buf, struct sink *k)
{
        ssize_t n = recv(p->fd, buf, PROBE_TCP_SINK_BUF, MSG_DONTWAIT);

        if (n > 0) {
                uint64_t now = probe_now_ns();

                if (!k->bytes)
                        k->first_ns = now;
                k->bytes += (uint64_t)n;
                k->last_ns = now;
        } else if (n == 0) {
                p->fd = -p->fd - 1;     /* closed: stop polling it, keep it for close() */
                k->open--;
        } else if (errno != EAGAIN && errno != EINTR) {
                return -errno;
        }
        return 0;
}

static int sink_with(int ctrl, int *fds, unsigned n, uint64_t deadline, struct sink *k, uint8_t *buf,
                     struct errbuf *e)
{
        struct pollfd pfd[PROBE_STREAMS_MAX + 1];

        if (!buf)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        for (unsigned i = 0; i < n; i++)
                pfd[i] = (struct pollfd) { .fd = fds[i], .events = POLLIN };
        pfd[n] = (struct pollfd) { .fd = ctrl, .events = POLLIN };
        k->open = n;
        while (k->open > 0 || !k->done) {
                int r;

                if (probe_now_ns() >= deadline)
                        return errbuf_set(e, ETIMEDOUT, NULL, "data streams did not finish in time");
                r = poll(pfd, n + 1, 1000);
                if (r < 0 && errno != EINTR)
                        return errbuf_set(e, errno, NULL, "poll: %s", strerror(errno));
                for (unsigned i = 0; r > 0 && i < n; i++)
                        if (pfd[i].fd >= 0 && pfd[i].revents && sink_data(&pfd[i], buf, k) < 0)
                                return errbuf_set(e, errno, NULL, "data stream %u: %s", i, strerror(errno));
                if (r > 0 && pfd[n].fd >= 0 && pfd[n].revents) {
                        r = sink_ctrl(ctrl, k, e);
                        if (r < 0)
                                return r;
                        pfd[n].fd = -1;
                }
        }
        return 0;
}

static int sink_streams(int ctrl, int *fds, unsigned n, uint64_t deadline, struct sink *k, struct errbuf *e)
{
        uint8_t *buf = pages_alloc(PROBE_TCP_SINK_BUF);
        int r = sink_with(ctrl, fds, n, deadline, k, buf, e);

        pages_free(buf, PROBE_TCP_SINK_BUF);
        return r;
}

static int serve_streams(const struct probe_session *s, int lfd, int *fds, struct errbuf *e)
{
        const struct probe_oob_msg *h = s->hello;
        struct probe_oob_msg res = { .type = PROBE_OOB_RESULT, .mode = PROBE_MODE_TCP };
        struct sink k = { .bytes = 0 };
        int r;

        r = accept_streams(s, lfd, fds, e);
        if (r < 0)
                return r;
        r = sink_streams(s->fd, fds, h->streams, s->deadline_ns, &k, e);
        if (r < 0)
                return r;
        if (k.client_bytes != k.bytes)
                return errbuf_set(e, EIO, NULL, "received %llu bytes, client sent %llu",
                                  (unsigned long long)k.bytes, (unsigned long long)k.client_bytes);
        res.bytes = k.bytes;
        res.elapsed_ns = k.bytes ? (k.last_ns > k.first_ns ? k.last_ns - k.first_ns : 1) : 0;
        res.streams = h->streams;
        return probe_oob_send(s->fd, &res, TCP_HANDSHAKE_MS, e);
}

int probe_tcp_serve(const struct probe_session *s, struct errbuf *e)
{
        struct probe_oob_msg ready = { .type = PROBE_OOB_READY, .mode = PROBE_MODE_TCP };
        struct probe_addr local;
        int fds[PROBE_STREAMS_MAX];
        _cleanup_close_ int lfd = -1;
        int r;

        for (unsigned i = 0; i < PROBE_STREAMS_MAX; i++)
                fds[i] = -1;
        r = probe_net_local(s->fd, &local);
        if (r < 0)
                return errbuf_set(e, -r, NULL, "getsockname: %s", strerror(-r));
        set_port(&local, 0);
        lfd = probe_net_listen(&local, (int)s->hello->streams, e);
        if (lfd < 0)
                return lfd;
        /* Before any SYN: the handshake's SYN-ACK and the accepted streams inherit the class. */
        r = probe_net_set_class(lfd, local.ss.ss_family, s->hello->traffic_class, s->hello->priority, e);
        if (r < 0)
                return r;
        r = probe_net_local(lfd, &local);
        if (r < 0)
                return errbuf_set(e, -r, NULL, "getsockname: %s", strerror(-r));
        ready.port = get_port(&local);
        ready.streams = s->hello->streams;
        r = probe_oob_send(s->fd, &ready, TCP_HANDSHAKE_MS, e);
        if (r >= 0)
                r = serve_streams(s, lfd, fds, e);
        for (unsigned i = 0; i < PROBE_STREAMS_MAX; i++)
                if (fds[i] != -1)
                        close(fds[i] < 0 ? -fds[i] - 1 : fds[i]);
        return r;
}

/* ---- client side: send for duration_ms (or iterations per stream) ---- */

struct sender {
        int fds[PROBE_STREAMS_MAX];
        size_t off[PROBE_STREAMS_MAX];          /* position inside the current message */
        uint64_t msgs[PROBE_STREAMS_MAX];       /* whole messages sent per stream */
        uint64_t bytes;
        unsigned n;
};

static void sender_close(struct sender *t)
{
        for (unsigned i = 0; i < t->n; i++)
                if (t->fds[i] >= 0)
                        close(t->fds[i]);
}

static int open_streams(const struct probe_params *p, const struct probe_addr *peer, uint16_t port,
                        struct sender *t, struct errbuf *e)
{
        struct probe_sockopt o = { .source = p->source, .netdev = p->netdev, .tos = p->traffic_class,
                                   .priority = p->priority };
        struct probe_addr a = *peer;

        set_port(&a, port);
        for (unsigned i = 0; i < p->streams; i++) {
                int fd = probe_net_connect(&a, &o, p->timeout_ms, e);

                if (fd < 0)
                        return fd;
                t->fds[t->n++] = fd;
        }
        return 0;
}

static bool stream_done(const struct probe_params *p, const struct sender *t, unsigned i)
{
        return !p->duration_ms && t->msgs[i] >= p->iterations;
}

static int send_some(const struct probe_params *p, struct sender *t, unsigned i, const uint8_t *buf)
{
        ssize_t k = send(t->fds[i], buf + t->off[i], p->message_size - t->off[i],
                         MSG_DONTWAIT | MSG_NOSIGNAL);

        if (k < 0)
                return errno == EAGAIN || errno == EINTR ? 0 : -errno;
        t->bytes += (uint64_t)k;
        t->off[i] += (size_t)k;
        if (t->off[i] == p->message_size) {
                t->off[i] = 0;
                t->msgs[i]++;
        }
        return 0;
}

static int send_streams(const struct probe_params *p, struct sender *t, uint8_t *buf, struct errbuf *e)
{
        uint64_t end = probe_now_ns() + (uint64_t)(p->duration_ms ? p->duration_ms : PROBE_TCP_ITERATION_BOUND_MS) * 1000000ull;
        struct pollfd pfd[PROBE_STREAMS_MAX];
        unsigned active = t->n;

        if (!buf)
                return errbuf_set(e, ENOMEM, NULL, "out of memory for a %u-byte message", p->message_size);
        for (unsigned i = 0; i < p->message_size; i++)
                buf[i] = (uint8_t)(i * 131u + 7u);
        while (active > 0 && probe_now_ns() < end) {
                active = 0;
                for (unsigned i = 0; i < t->n; i++) {
                        pfd[i] = (struct pollfd) { .fd = stream_done(p, t, i) ? -1 : t->fds[i], .events = POLLOUT };
                        active += pfd[i].fd >= 0;
                }
                if (!active || poll(pfd, t->n, 100) <= 0)
                        continue;
                for (unsigned i = 0; i < t->n; i++) {
                        int r = pfd[i].revents ? send_some(p, t, i, buf) : 0;

                        if (r < 0)
                                return errbuf_set(e, -r, NULL, "data stream %u: %s", i, strerror(-r));
                }
        }
        if (!p->duration_ms && active > 0)
                return errbuf_set(e, ETIMEDOUT, NULL, "%u iterations did not finish within %u ms",
                                  p->iterations, PROBE_TCP_ITERATION_BOUND_MS);
        return 0;
}

static int send_loop(const struct probe_params *p, struct sender *t, struct errbuf *e)
{
        uint8_t *buf = pages_alloc(p->message_size);    /* the request's size: its own mapping, returned at once */
        int r = send_streams(p, t, buf, e);

        pages_free(buf, p->message_size);
        return r;
}

/* The lowest base round trip of the data streams, else of the control connection. */
static double streams_rtt(const struct sender *t, int ctrl)
{
        double best = 0;

        for (unsigned i = 0; i < t->n; i++) {
                double v = probe_net_rtt_ms(t->fds[i]);

                if (v > 0 && (best == 0 || v < best))
                        best = v;
        }
        return best > 0 ? best : probe_net_rtt_ms(ctrl);
}

/* What the kernel reports for the first data stream: its DSCP and priority. */
static void stream_class(const struct sender *t, const struct probe_addr *peer, struct probe_result *r)
{
        int tos, prio;

        r->dscp = r->priority = -1;
        if (t->n && probe_net_get_class(t->fds[0], peer->ss.ss_family, &tos, &prio) == 0) {
                r->dscp = tos >> 2;
                r->priority = prio;
        }
}

static void fill_result(const struct probe_params *p, int ctrl, const struct probe_oob_msg *res,
                        struct probe_result *ret)
{
        struct probe_result r = *ret;
        struct probe_addr local;

        snprintf(r.mode, sizeof(r.mode), "tcp");
        r.gid_index = -1;
        if (probe_net_local(ctrl, &local) == 0)
                probe_net_host(&local, r.source, sizeof(r.source));
        r.bytes = res->bytes;
        r.seconds = (double)res->elapsed_ns / 1e9;
        r.gbps = r.seconds > 0 ? (double)r.bytes * 8.0 / r.seconds / 1e9 : 0.0;
        r.iterations = (unsigned)(res->bytes / p->message_size);
        r.streams = p->streams;
        *ret = r;
}

/* After a local failure: if the server said why (ERROR), that is the better message. */
static void server_reason(int ctrl, struct errbuf *e)
{
        struct probe_oob_msg m;

        if (probe_oob_recv(ctrl, &m, 500, NULL) == 0 && m.type == PROBE_OOB_ERROR)
                errbuf_set(e, m.status, "probe server", "%s", m.text);
}

static int tcp_exchange(const struct probe_params *p, int ctrl, const struct probe_addr *peer, uint64_t t0,
                        struct probe_result *ret, struct errbuf *e)
{
        struct probe_oob_msg hello = {
                .type = PROBE_OOB_HELLO, .mode = PROBE_MODE_TCP, .message_size = p->message_size,
                .streams = p->streams, .duration_ms = p->duration_ms, .iterations = p->iterations,
                .traffic_class = p->traffic_class, .priority = p->priority,
        };
        struct probe_oob_msg ready, done = { .type = PROBE_OOB_DONE, .mode = PROBE_MODE_TCP }, res;
        struct sender t = { .n = 0 };
        struct probe_result out = { .mode = "" };
        int r;

        /* The responder's first answer within timeout_ms of the connect's start, all told. */
        r = probe_oob_send(ctrl, &hello, probe_left_ms(t0, p->timeout_ms), e);
        if (r >= 0)
                r = probe_oob_expect(ctrl, PROBE_OOB_READY, &ready, probe_left_ms(t0, p->timeout_ms), e);
        if (r < 0)
                probe_mark_unanswered(e);
        if (r >= 0)
                r = open_streams(p, peer, ready.port, &t, e);
        if (r >= 0)
                stream_class(&t, peer, &out);
        if (r >= 0)
                r = send_loop(p, &t, e);
        if (r < 0 && !probe_unanswered(e))
                server_reason(ctrl, e);
        for (unsigned i = 0; r >= 0 && i < t.n; i++)
                (void)shutdown(t.fds[i], SHUT_WR);
        done.bytes = t.bytes;
        if (r >= 0)
                r = probe_oob_send(ctrl, &done, p->timeout_ms, e);
        if (r >= 0)
                r = probe_oob_expect(ctrl, PROBE_OOB_RESULT, &res, p->timeout_ms + TCP_HANDSHAKE_MS, e);
        out.rtt_ms = streams_rtt(&t, ctrl);
        sender_close(&t);
        if (r < 0)
                return r;
        if (res.bytes != t.bytes)
                return errbuf_set(e, EIO, "probe server", "received %llu bytes of the %llu sent",
                                  (unsigned long long)res.bytes, (unsigned long long)t.bytes);
        fill_result(p, ctrl, &res, &out);
        *ret = out;
        return 0;
}

static int tcp_run(const struct probe_params *p, struct probe_result *ret, struct errbuf *e)
{
        struct probe_addr peer;
        uint64_t t0 = probe_now_ns();
        _cleanup_close_ int ctrl = probe_connect_control(p, &peer, e);

        if (ctrl < 0)
                return ctrl;
        return tcp_exchange(p, ctrl, &peer, t0, ret, e);
}

static bool tcp_available(const struct probe_params *p)
{
        return true;
}

const struct probe_ops probe_tcp_ops = {
        .name = "tcp",
        .available = tcp_available,
        .run = tcp_run,
};
