/* SPDX-License-Identifier: MIT */
#include <arpa/inet.h>

#include "drivers/probe/probe_gid.h"
#include "drivers/probe/probe_net.h"
#include "drivers/probe/probe_oob.h"

static const uint8_t magic[4] = { 'N', 'T', 'P', 'B' };

static const char *const type_names[PROBE_OOB_TYPE_MAX] = {
        [PROBE_OOB_HELLO] = "hello",
        [PROBE_OOB_READY] = "ready",
        [PROBE_OOB_QP] = "qp",
        [PROBE_OOB_DONE] = "done",
        [PROBE_OOB_RESULT] = "result",
        [PROBE_OOB_ERROR] = "error",
};

const char *probe_oob_type_name(unsigned type)
{
        return type > 0 && type < PROBE_OOB_TYPE_MAX ? type_names[type] : "unknown";
}

static void put16(uint8_t *p, uint16_t v)
{
        p[0] = (uint8_t)(v >> 8);
        p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
        put16(p, (uint16_t)(v >> 16));
        put16(p + 2, (uint16_t)v);
}

static void put64(uint8_t *p, uint64_t v)
{
        put32(p, (uint32_t)(v >> 32));
        put32(p + 4, (uint32_t)v);
}

static uint16_t get16(const uint8_t *p)
{
        return (uint16_t)((p[0] << 8) | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
        return ((uint32_t)get16(p) << 16) | get16(p + 2);
}

static uint64_t get64(const uint8_t *p)
{
        return ((uint64_t)get32(p) << 32) | get32(p + 4);
}

static bool mtu_ok(uint32_t mtu)
{
        return mtu == 256 || mtu == 512 || mtu == 1024 || mtu == 2048 || mtu == 4096;
}

static int check_hello(const struct probe_oob_msg *m, struct errbuf *e)
{
        if (m->mode != PROBE_MODE_VERBS && m->mode != PROBE_MODE_TCP)
                return errbuf_set(e, EBADMSG, "probe hello", "mode %u is not verbs or tcp", m->mode);
        if (m->message_size < PROBE_MESSAGE_MIN || m->message_size > PROBE_MESSAGE_MAX)
                return errbuf_set(e, EBADMSG, "probe hello", "message size %u out of range %u-%u",
                                  m->message_size, PROBE_MESSAGE_MIN, PROBE_MESSAGE_MAX);
        if (m->streams < 1 || m->streams > PROBE_STREAMS_MAX)
                return errbuf_set(e, EBADMSG, "probe hello", "streams %u out of range 1-%u",
                                  m->streams, PROBE_STREAMS_MAX);
        if (m->duration_ms > PROBE_DURATION_MAX_MS)
                return errbuf_set(e, EBADMSG, "probe hello", "duration %u ms out of range 0-%u",
                                  m->duration_ms, PROBE_DURATION_MAX_MS);
        if (m->duration_ms == 0 && (m->iterations < 1 || m->iterations > PROBE_ITERATIONS_MAX))
                return errbuf_set(e, EBADMSG, "probe hello", "iterations %u out of range 1-%u",
                                  m->iterations, PROBE_ITERATIONS_MAX);
        if (m->traffic_class < -1 || m->traffic_class > 255)
                return errbuf_set(e, EBADMSG, "probe hello", "traffic class %d out of range 0-255",
                                  (int)m->traffic_class);
        if (m->priority < -1 || m->priority > 7)
                return errbuf_set(e, EBADMSG, "probe hello", "priority %d out of range 0-7", (int)m->priority);
        return 0;
}

static int check_qp(const struct probe_oob_msg *m, struct errbuf *e)
{
        if (m->index >= PROBE_STREAMS_MAX)
                return errbuf_set(e, EBADMSG, "probe qp", "qp index %u out of range 0-%u",
                                  m->index, PROBE_STREAMS_MAX - 1);
        if (m->qpn > 0xffffff || m->qpn == 0)
                return errbuf_set(e, EBADMSG, "probe qp", "qp number %u out of range 1-16777215", m->qpn);
        if (m->psn > 0xffffff)
                return errbuf_set(e, EBADMSG, "probe qp", "psn %u out of range 0-16777215", m->psn);
        if (!mtu_ok(m->mtu))
                return errbuf_set(e, EBADMSG, "probe qp", "mtu %u is not 256, 512, 1024, 2048 or 4096", m->mtu);
        return 0;
}

static int check_text(const struct probe_oob_msg *m, size_t n, struct errbuf *e)
{
        if (m->type != PROBE_OOB_ERROR && n > 0)
                return errbuf_set(e, EBADMSG, "probe message", "%s message carries %zu bytes of text",
                                  probe_oob_type_name(m->type), n);
        for (size_t i = 0; i < n; i++)
                if ((unsigned char)m->text[i] < 0x20 || (unsigned char)m->text[i] > 0x7e)
                        return errbuf_set(e, EBADMSG, "probe message", "error text byte %zu is not printable", i);
        return 0;
}

static int check_msg(const struct probe_oob_msg *m, size_t text_len, struct errbuf *e)
{
        int r;

        if (m->type < 1 || m->type >= PROBE_OOB_TYPE_MAX)
                return errbuf_set(e, EBADMSG, "probe message", "unknown message type %u", m->type);
        r = check_text(m, text_len, e);
        if (r < 0)
                return r;
        if (m->elapsed_ns > PROBE_OOB_ELAPSED_MAX_NS)
                return errbuf_set(e, EBADMSG, "probe message", "elapsed time %llu ns out of range",
                                  (unsigned long long)m->elapsed_ns);
        switch (m->type) {
        case PROBE_OOB_HELLO:
                return check_hello(m, e);
        case PROBE_OOB_QP:
                return check_qp(m, e);
        case PROBE_OOB_READY:
                if (m->mode == PROBE_MODE_TCP && m->port == 0)
                        return errbuf_set(e, EBADMSG, "probe ready", "tcp data port is 0");
                return 0;
        case PROBE_OOB_ERROR:
                if (m->status < 1 || m->status > 4095)
                        return errbuf_set(e, EBADMSG, "probe error", "status %d out of range 1-4095",
                                          (int)m->status);
                return 0;
        default:
                return 0;
        }
}

int probe_oob_encode(const struct probe_oob_msg *m, uint8_t *buf, size_t size, struct errbuf *e)
{
        size_t text = m->type == PROBE_OOB_ERROR ? strnlen(m->text, PROBE_OOB_TEXT_MAX) : 0;
        size_t body = PROBE_OOB_BODY_SIZE + text;
        uint8_t *b = buf + PROBE_OOB_HEADER_SIZE;
        int r;

        r = check_msg(m, text, e);
        if (r < 0)
                return r;
        if (size < PROBE_OOB_HEADER_SIZE + body)
                return errbuf_set(e, EMSGSIZE, "probe message", "buffer of %zu bytes too small", size);
        memcpy(buf, magic, 4);
        buf[4] = PROBE_OOB_VERSION;
        buf[5] = 0;
        put16(buf + 6, (uint16_t)body);
        b[0] = m->type;
        b[1] = m->mode;
        put16(b + 2, m->port);
        put32(b + 4, m->message_size);
        put32(b + 8, m->streams);
        put32(b + 12, m->duration_ms);
        put32(b + 16, m->iterations);
        put32(b + 20, (uint32_t)m->traffic_class);
        put32(b + 24, m->index);
        put32(b + 28, m->qpn);
        put32(b + 32, m->psn);
        put32(b + 36, m->rkey);
        put64(b + 40, m->addr);
        memcpy(b + 48, m->gid, 16);
        put32(b + 64, m->mtu);
        put64(b + 68, m->bytes);
        put64(b + 76, m->elapsed_ns);
        put32(b + 84, (uint32_t)m->status);
        put32(b + 88, (uint32_t)m->priority);
        memcpy(b + PROBE_OOB_BODY_SIZE, m->text, text);
        return (int)(PROBE_OOB_HEADER_SIZE + body);
}

int probe_oob_header(const uint8_t hdr[PROBE_OOB_HEADER_SIZE], size_t *ret_body, struct errbuf *e)
{
        size_t body;

        if (memcmp(hdr, magic, 4) != 0)
                return errbuf_set(e, EBADMSG, "probe message", "not a nettune probe message (bad magic)");
        if (hdr[4] != PROBE_OOB_VERSION)
                return errbuf_set(e, EPROTONOSUPPORT, "probe message",
                                  "peer speaks probe protocol version %u, this side speaks %u",
                                  hdr[4], PROBE_OOB_VERSION);
        if (hdr[5] != 0)
                return errbuf_set(e, EBADMSG, "probe message", "reserved header byte is %u, expected 0", hdr[5]);
        body = get16(hdr + 6);
        if (body < PROBE_OOB_BODY_SIZE)
                return errbuf_set(e, EBADMSG, "probe message", "body of %zu bytes is shorter than %u",
                                  body, PROBE_OOB_BODY_SIZE);
        if (body > PROBE_OOB_BODY_SIZE + PROBE_OOB_TEXT_MAX)
                return errbuf_set(e, EMSGSIZE, "probe message", "body of %zu bytes exceeds the limit of %u",
                                  body, PROBE_OOB_BODY_SIZE + PROBE_OOB_TEXT_MAX);
        *ret_body = body;
        return 0;
}

static void decode_body(const uint8_t *b, size_t text, struct probe_oob_msg *m)
{
        m->type = b[0];
        m->mode = b[1];
        m->port = get16(b + 2);
        m->message_size = get32(b + 4);
        m->streams = get32(b + 8);
        m->duration_ms = get32(b + 12);
        m->iterations = get32(b + 16);
        m->traffic_class = (int32_t)get32(b + 20);
        m->index = get32(b + 24);
        m->qpn = get32(b + 28);
        m->psn = get32(b + 32);
        m->rkey = get32(b + 36);
        m->addr = get64(b + 40);
        memcpy(m->gid, b + 48, 16);
        m->mtu = get32(b + 64);
        m->bytes = get64(b + 68);
        m->elapsed_ns = get64(b + 76);
        m->status = (int32_t)get32(b + 84);
        m->priority = (int32_t)get32(b + 88);
        memcpy(m->text, b + PROBE_OOB_BODY_SIZE, text);
        m->text[text] = '\0';
}

int probe_oob_decode(const uint8_t *buf, size_t len, struct probe_oob_msg *ret, struct errbuf *e)
{
        struct probe_oob_msg m = { .type = 0 };
        size_t body;
        int r;

        if (len < PROBE_OOB_HEADER_SIZE)
                return errbuf_set(e, EBADMSG, "probe message", "%zu bytes is shorter than a header", len);
        r = probe_oob_header(buf, &body, e);
        if (r < 0)
                return r;
        if (len != PROBE_OOB_HEADER_SIZE + body)
                return errbuf_set(e, EBADMSG, "probe message", "length %zu does not match the header's %zu",
                                  len, PROBE_OOB_HEADER_SIZE + body);
        decode_body(buf + PROBE_OOB_HEADER_SIZE, body - PROBE_OOB_BODY_SIZE, &m);
        r = check_msg(&m, body - PROBE_OOB_BODY_SIZE, e);
        if (r < 0)
                return r;
        *ret = m;
        return 0;
}

int probe_oob_send(int fd, const struct probe_oob_msg *m, unsigned timeout_ms, struct errbuf *e)
{
        uint8_t buf[PROBE_OOB_MSG_MAX];
        int n, r;

        n = probe_oob_encode(m, buf, sizeof(buf), e);
        if (n < 0)
                return n;
        r = probe_net_write_full(fd, buf, (size_t)n, timeout_ms);
        if (r < 0)
                return errbuf_set(e, -r, "probe control connection", "cannot send %s: %s",
                                  probe_oob_type_name(m->type), strerror(-r));
        return 0;
}

int probe_oob_recv(int fd, struct probe_oob_msg *ret, unsigned timeout_ms, struct errbuf *e)
{
        uint8_t buf[PROBE_OOB_MSG_MAX];
        size_t body;
        int r;

        r = probe_net_read_full(fd, buf, PROBE_OOB_HEADER_SIZE, timeout_ms);
        if (r == 0)
                r = probe_oob_header(buf, &body, e);
        else
                return errbuf_set(e, -r, "probe control connection", "%s",
                                  r == -ECONNRESET ? "peer closed the connection" :
                                  r == -ETIMEDOUT ? "peer did not answer in time" : strerror(-r));
        if (r < 0)
                return r;
        r = probe_net_read_full(fd, buf + PROBE_OOB_HEADER_SIZE, body, timeout_ms);
        if (r < 0)
                return errbuf_set(e, -r, "probe control connection", "truncated message: %s", strerror(-r));
        return probe_oob_decode(buf, PROBE_OOB_HEADER_SIZE + body, ret, e);
}

int probe_oob_expect(int fd, unsigned type, struct probe_oob_msg *ret, unsigned timeout_ms,
                     struct errbuf *e)
{
        struct probe_oob_msg m;
        int r;

        r = probe_oob_recv(fd, &m, timeout_ms, e);
        if (r < 0)
                return r;
        if (m.type == PROBE_OOB_ERROR && type != PROBE_OOB_ERROR)
                return errbuf_set(e, m.status, "probe server", "%s", m.text);
        if (m.type != type)
                return errbuf_set(e, EBADMSG, "probe control connection", "expected %s message, got %s",
                                  probe_oob_type_name(type), probe_oob_type_name(m.type));
        *ret = m;
        return 0;
}

void probe_oob_send_error(int fd, int err, const struct errbuf *e)
{
        struct probe_oob_msg m = { .type = PROBE_OOB_ERROR };
        char text[sizeof(e->where) + sizeof(e->msg) + 4];

        m.status = err < 0 ? -err : err;
        if (m.status < 1 || m.status > 4095)
                m.status = EIO;
        errbuf_str(e, text, sizeof(text));
        for (size_t i = 0; i < PROBE_OOB_TEXT_MAX && text[i]; i++)
                m.text[i] = (unsigned char)text[i] < 0x20 || (unsigned char)text[i] > 0x7e ? '?' : text[i];
        (void)probe_oob_send(fd, &m, 1000, NULL);
}

int probe_oob_check_gid(const struct probe_oob_msg *qp, const struct sockaddr *ctrl_peer, struct errbuf *e)
{
        uint8_t want[16];
        char a[INET6_ADDRSTRLEN] = "?", b[INET6_ADDRSTRLEN] = "?";

        if (probe_gid_from_addr(ctrl_peer, want) < 0)
                return errbuf_set(e, EACCES, "probe qp", "control connection of address family %d has no GID form",
                                  ctrl_peer->sa_family);
        if (memcmp(qp->gid, want, 16) == 0)
                return 0;
        inet_ntop(AF_INET6, qp->gid, a, sizeof(a));
        inet_ntop(AF_INET6, want, b, sizeof(b));
        return errbuf_set(e, EACCES, "probe qp", "qp %u names GID %s, but the control connection comes from %s",
                          qp->index, a, b);
}
