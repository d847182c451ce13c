/* SPDX-License-Identifier: MIT */
/*
 * The probe responder (probe-server): accepts TCP control connections, reads a
 * HELLO, and serves a tcp or verbs measurement. It runs in its own threads so the
 * agent's serve daemon can host it beside the API.
 *
 * What a client must get past before the responder spends anything on it:
 *   1. its address is allowed (options.allow; none given: this host only,
 *      loopback and the addresses of its own interfaces) — else ERROR EACCES;
 *   2. a free session slot (max_clients) — else ERROR EBUSY;
 *   3. a well-formed HELLO of our protocol version within hello_timeout_ms;
 *   4. the memory the session would pin (verbs: the registered buffer of
 *      message_size bytes; tcp: the sink buffer) fits the budget max_bytes
 *      beside the sessions running — else ERROR EBUSY;
 *   5. verbs: every QP it describes carries the GID of the control connection's
 *      address (probe_oob_check_gid) — only then is memory registered.
 * A session never lasts past its HELLO's duration_ms (or the iteration bound of
 * its mode) plus slack_ms: its own waits end at that deadline, and the acceptor
 * shuts down whatever still runs 2 s later.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "common/errbuf.h"
#include "drivers/probe/probe_net.h"
#include "drivers/probe/probe_oob.h"

#define PROBE_SERVER_CLIENTS_DEFAULT 4
#define PROBE_SERVER_CLIENTS_MAX 16
#define PROBE_SERVER_ALLOW_MAX 64
#define PROBE_SERVER_BYTES_DEFAULT (64ull << 20)        /* pinned memory over every session */
/* A session that sends no HELLO within this time ends (and frees its slot); the default of hello_timeout_ms. */
#define PROBE_SERVER_HELLO_TIMEOUT_MS 10000u
#define PROBE_SERVER_SLACK_MS_DEFAULT 20000u            /* handshakes, QP setup, the result */
#define PROBE_TCP_SINK_BUF (256u * 1024)                /* a tcp session's receive buffer */

struct probe_server;

struct probe_server_options {
        const char *listen;             /* "ADDR:PORT"; port 0 = any free port */
        const char *sysfs_root;         /* NULL = "/sys" */
        unsigned max_clients;           /* concurrent sessions; 0 = default, at most _MAX */
        const struct probe_cidr *allow; /* allowed clients; n_allow 0 = this host only */
        unsigned n_allow;
        uint64_t max_bytes;             /* pinned-memory budget; 0 = default */
        unsigned hello_timeout_ms;      /* 0 = default */
        unsigned slack_ms;              /* 0 = default */
        /* Called from a session thread when a session ends (r: 0 or -errno). May be NULL. */
        void (*on_session)(void *userdata, const char *peer, const char *mode, int r,
                           const struct errbuf *e);
        void *userdata;
};

/* Start listening and serving in background threads. *ret owned by the caller (probe_server_stop). */
int probe_server_start(const char *listen, struct probe_server **ret, struct errbuf *e);
int probe_server_start_opts(const struct probe_server_options *o, struct probe_server **ret,
                            struct errbuf *e);

/* The bound address ("10.0.0.2:18515"), with the real port when 0 was asked for. */
const char *probe_server_address(const struct probe_server *s, char *buf, size_t size);

/* Sessions served so far (ok, failed). */
void probe_server_counts(const struct probe_server *s, unsigned long *ret_ok, unsigned long *ret_failed);
/* Clients refused before a session (address not allowed), sessions cut at their deadline. */
void probe_server_refusals(const struct probe_server *s, unsigned long *ret_not_allowed,
                           unsigned long *ret_expired);
/* Sessions running now (accepted, not yet ended). */
unsigned probe_server_running(const struct probe_server *s);

/* Stop: close the listener, end running sessions, join every thread, free. Accepts NULL. */
void probe_server_stop(struct probe_server *s);

/*
 * Rule 4 and the deadline, without side effects: the bytes the session pins and
 * the milliseconds it may last from its HELLO. -EBUSY with e filled when in_use +
 * the session's bytes exceed max_bytes; -EBADMSG when hello is not a HELLO.
 */
int probe_server_admit(const struct probe_oob_msg *hello, uint64_t in_use, uint64_t max_bytes, unsigned slack_ms,
                       uint64_t *ret_bytes, unsigned *ret_ms, struct errbuf *e);

/* One session after its HELLO: what the server calls per mode (drivers-internal). */
struct probe_session {
        int fd;                                 /* the control connection */
        const char *sysfs_root;
        const struct probe_oob_msg *hello;
        const struct probe_addr *peer;          /* the control connection's peer */
        uint64_t deadline_ns;                   /* probe_now_ns() by which the session is over */
};

/* Milliseconds left until the session's deadline (0 when past); the engines' serve functions ask it. */
static inline unsigned probe_session_left_ms(const struct probe_session *s)
{
        uint64_t now = probe_now_ns();

        return now >= s->deadline_ns ? 0 : (unsigned)((s->deadline_ns - now) / 1000000 + 1);
}

int probe_tcp_serve(const struct probe_session *s, struct errbuf *e);
int probe_verbs_serve(const struct probe_session *s, struct errbuf *e);
