/* SPDX-License-Identifier: MIT */
/*
 * The probes' out-of-band control messages, exchanged over TCP between a probe
 * client and probe-server before, during and after a measurement.
 *
 * Wire format, version 2, all integers big-endian:
 *   header (8 bytes):  "NTPB" | version u8 (2) | reserved u8 (0) | body length u16
 *   body (92 bytes + text): type u8 | mode u8 | port u16 | message_size u32 |
 *       streams u32 | duration_ms u32 | iterations u32 | traffic_class i32 |
 *       index u32 | qpn u32 | psn u32 | rkey u32 | addr u64 | gid[16] | mtu u32 |
 *       bytes u64 | elapsed_ns u64 | status i32 | priority i32 |
 *       text (ERROR only, 0-200 bytes)
 * Version 2 added the priority (SO_PRIORITY / the address handle's SL); a peer
 * speaking another version is refused by the header check.
 *
 * Exchange: client HELLO -> (verbs: client QP x streams) -> server READY
 * (tcp: data port) -> (verbs: server QP x streams) -> data -> client DONE ->
 * server RESULT (tcp: receiver's byte count and elapsed time). Either side may
 * send ERROR instead and close. Everything decoded is validated; anything out
 * of range is refused with a message and nothing is acted on.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "common/errbuf.h"
#include "drivers/probe/probe.h"

#define PROBE_OOB_VERSION 2
#define PROBE_OOB_HEADER_SIZE 8
#define PROBE_OOB_BODY_SIZE 92
#define PROBE_OOB_TEXT_MAX 200
#define PROBE_OOB_MSG_MAX (PROBE_OOB_HEADER_SIZE + PROBE_OOB_BODY_SIZE + PROBE_OOB_TEXT_MAX)
#define PROBE_OOB_ELAPSED_MAX_NS (3600ull * 1000000000ull)

enum probe_oob_type {
        PROBE_OOB_HELLO = 1,    /* client: mode, message_size, streams, duration/iterations, tc, priority */
        PROBE_OOB_READY,        /* server: accepted; tcp: data port */
        PROBE_OOB_QP,           /* verbs: one QP's qpn, psn, rkey, addr, gid, mtu */
        PROBE_OOB_DONE,         /* client: finished sending (bytes, elapsed_ns as measured) */
        PROBE_OOB_RESULT,       /* server: bytes received, elapsed_ns (receiver's view) */
        PROBE_OOB_ERROR,        /* either: status (errno) and text */
        PROBE_OOB_TYPE_MAX,
};

struct probe_oob_msg {
        uint8_t type;                   /* enum probe_oob_type */
        uint8_t mode;                   /* PROBE_MODE_VERBS or PROBE_MODE_TCP */
        uint16_t port;
        uint32_t message_size;
        uint32_t streams;
        uint32_t duration_ms;
        uint32_t iterations;
        int32_t traffic_class;          /* -1 = leave, else 0-255 */
        uint32_t index;                 /* QP: which of `streams` */
        uint32_t qpn;                   /* 24 bits */
        uint32_t psn;                   /* 24 bits */
        uint32_t rkey;
        uint64_t addr;
        uint8_t gid[16];
        uint32_t mtu;                   /* QP: path MTU in bytes, 256-4096 */
        uint64_t bytes;
        uint64_t elapsed_ns;
        int32_t status;                 /* ERROR: a positive errno */
        int32_t priority;               /* HELLO: 0-7, -1 = leave (SO_PRIORITY, verbs SL) */
        char text[PROBE_OOB_TEXT_MAX + 1];
};

const char *probe_oob_type_name(unsigned type);

/* Encode into buf (at least PROBE_OOB_MSG_MAX bytes). Returns the length or -EINVAL
 * when the message would not pass probe_oob_decode. */
int probe_oob_encode(const struct probe_oob_msg *m, uint8_t *buf, size_t size, struct errbuf *e);

/* Check a header; *ret_body is the body length that follows. -EBADMSG (not ours),
 * -EPROTONOSUPPORT (other version), -EMSGSIZE (too long). */
int probe_oob_header(const uint8_t hdr[PROBE_OOB_HEADER_SIZE], size_t *ret_body, struct errbuf *e);

/* Decode and validate one whole message (header + body, exactly len bytes). */
int probe_oob_decode(const uint8_t *buf, size_t len, struct probe_oob_msg *ret, struct errbuf *e);

/* Over a connected socket, each bounded by timeout_ms. */
int probe_oob_send(int fd, const struct probe_oob_msg *m, unsigned timeout_ms, struct errbuf *e);
int probe_oob_recv(int fd, struct probe_oob_msg *ret, unsigned timeout_ms, struct errbuf *e);

/* Receive and require `type`; an ERROR from the peer becomes -status with its text. */
int probe_oob_expect(int fd, unsigned type, struct probe_oob_msg *ret, unsigned timeout_ms,
                     struct errbuf *e);

/* Best effort: tell the peer why we stop (errno and the text of e). */
void probe_oob_send_error(int fd, int err, const struct errbuf *e);

/*
 * A QP message's GID must be the GID form of the control connection's peer address
 * (IPv4 as ::ffff:a.b.c.d): RoCE traffic then comes from the host that holds the
 * control connection, not from a third party it names. -EACCES with e filled.
 */
int probe_oob_check_gid(const struct probe_oob_msg *qp, const struct sockaddr *ctrl_peer, struct errbuf *e);
