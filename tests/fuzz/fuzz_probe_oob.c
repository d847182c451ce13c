/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the probe control messages (outside input: any peer can
 * connect to probe-server).
 *
 * 1. The input as one message: a decoded message must re-encode to the same
 *    bytes, and the stream reader's header check must agree with decode.
 * 2. The input as what a client sends on a control connection, read by the
 *    responder's own reader (probe_oob_recv over a socketpair) and judged by its
 *    rules, from an allowed and from a refused address:
 *      - a client outside probe.allow gets nothing read at all;
 *      - nothing but a well-formed HELLO of our version opens a session;
 *      - an admitted session fits the memory budget and its deadline is its
 *        duration (or its mode's iteration bound) plus the slack, nothing more;
 *      - a verbs QP is accepted only when its GID is the control connection's
 *        address in GID form.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "drivers/probe/probe_net.h"
#include "drivers/probe/probe_oob.h"
#include "drivers/probe/probe_server.h"

#define BUDGET (8ull << 20)
#define SLACK_MS 20000u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void one_message(const uint8_t *data, size_t size)
{
        struct probe_oob_msg m;
        struct errbuf e = { .msg = "" };
        uint8_t buf[PROBE_OOB_MSG_MAX];
        size_t body;
        int n;

        if (probe_oob_decode(data, size, &m, &e) < 0)
                return;
        if (probe_oob_header(data, &body, &e) < 0 || body + PROBE_OOB_HEADER_SIZE != size)
                __builtin_trap();
        n = probe_oob_encode(&m, buf, sizeof(buf), &e);
        if (n < 0 || (size_t)n != size || memcmp(buf, data, size) != 0)
                __builtin_trap();
}

/* The QPs after a verbs HELLO: accepted only with the peer's own GID. */
static void judge_qps(int fd, const struct sockaddr_in *peer)
{
        static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
        struct probe_oob_msg q;
        struct errbuf e = { .msg = "" };

        while (probe_oob_recv(fd, &q, 0, &e) == 0) {
                if (q.type != PROBE_OOB_QP)
                        return;
                if (probe_oob_check_gid(&q, (const struct sockaddr *)peer, &e) < 0)
                        return;
                if (memcmp(q.gid, prefix, 12) != 0 || memcmp(q.gid + 12, &peer->sin_addr, 4) != 0)
                        __builtin_trap();
        }
}

static void judge_session(int fd, const struct sockaddr_in *peer, const struct probe_cidr *allow, uint64_t in_use)
{
        struct probe_oob_msg hello;
        struct errbuf e = { .msg = "" };
        uint64_t bytes = 0;
        unsigned ms = 0, run;

        if (!probe_cidr_match(allow, 1, (const struct sockaddr *)peer))
                return;                 /* refused before a single byte is read */
        if (probe_oob_recv(fd, &hello, 0, &e) < 0 || hello.type != PROBE_OOB_HELLO)
                return;
        if (probe_server_admit(&hello, in_use, BUDGET, SLACK_MS, &bytes, &ms, &e) < 0)
                return;
        run = hello.duration_ms ? hello.duration_ms : hello.mode == PROBE_MODE_VERBS ?
              PROBE_VERBS_ITERATION_BOUND_MS : PROBE_TCP_ITERATION_BOUND_MS;
        if (in_use + bytes > BUDGET || ms != run + SLACK_MS || hello.streams < 1 || hello.streams > PROBE_STREAMS_MAX ||
            hello.message_size > PROBE_MESSAGE_MAX || hello.priority < -1 || hello.priority > 7)
                __builtin_trap();
        if (hello.mode == PROBE_MODE_VERBS && bytes != hello.message_size)
                __builtin_trap();
        if (hello.mode == PROBE_MODE_VERBS)
                judge_qps(fd, peer);
}

/* Feed the input through a socketpair, as a client's bytes reach the responder's reader. */
static void as_stream(const uint8_t *data, size_t size, const struct sockaddr_in *peer, uint64_t in_use)
{
        struct probe_cidr allow = { .family = AF_INET, .addr = { 10, 77, 0, 0 }, .prefix = 24 };
        int sv[2];
        size_t off = 0;

        if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0)
                return;
        (void)fcntl(sv[0], F_SETFL, O_NONBLOCK);
        while (off < size) {
                ssize_t k = send(sv[0], data + off, size - off, MSG_NOSIGNAL);

                if (k <= 0)
                        break;
                off += (size_t)k;
        }
        close(sv[0]);
        judge_session(sv[1], peer, &allow, in_use);
        close(sv[1]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        struct sockaddr_in allowed = { .sin_family = AF_INET }, refused = { .sin_family = AF_INET };

        one_message(data, size);
        inet_pton(AF_INET, "10.77.0.1", &allowed.sin_addr);
        inet_pton(AF_INET, "192.0.2.9", &refused.sin_addr);
        as_stream(data, size, &allowed, 0);
        as_stream(data, size, &allowed, BUDGET - (1u << 20));
        as_stream(data, size, &refused, 0);
        return 0;
}
