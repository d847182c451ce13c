/* SPDX-License-Identifier: MIT */
/* The probe control-message codec: round trips, and every malformed input refused. */
#include <CUnit/CUnit.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "drivers/probe/probe_oob.h"

static struct probe_oob_msg hello(void)
{
        return (struct probe_oob_msg) {
                .type = PROBE_OOB_HELLO, .mode = PROBE_MODE_VERBS, .message_size = 65536, .streams = 2,
                .duration_ms = 3000, .iterations = 0, .traffic_class = 104, .priority = 3,
        };
}

static struct probe_oob_msg qp(void)
{
        struct probe_oob_msg m = {
                .type = PROBE_OOB_QP, .mode = PROBE_MODE_VERBS, .index = 1, .qpn = 0x123456, .psn = 0xabcdef,
                .rkey = 0xdeadbeef, .addr = 0x00007f0012345000ull, .mtu = 4096, .message_size = 65536,
                .traffic_class = -1,
        };

        for (int i = 0; i < 16; i++)
                m.gid[i] = (uint8_t)(0xf0 + i);
        return m;
}

static int encode(const struct probe_oob_msg *m, uint8_t *buf)
{
        struct errbuf e = { .msg = "" };

        return probe_oob_encode(m, buf, PROBE_OOB_MSG_MAX, &e);
}

static void test_round_trip(void)
{
        struct probe_oob_msg in = qp(), out;
        uint8_t buf[PROBE_OOB_MSG_MAX];
        struct errbuf e = { .msg = "" };
        int n = encode(&in, buf);

        CU_ASSERT_EQUAL_FATAL(n, PROBE_OOB_HEADER_SIZE + PROBE_OOB_BODY_SIZE);
        CU_ASSERT_EQUAL(memcmp(buf, "NTPB\x02\x00", 6), 0);
        CU_ASSERT_EQUAL_FATAL(probe_oob_decode(buf, (size_t)n, &out, &e), 0);
        CU_ASSERT_EQUAL(out.qpn, 0x123456);
        CU_ASSERT_EQUAL(out.psn, 0xabcdef);
        CU_ASSERT_EQUAL(out.rkey, 0xdeadbeef);
        CU_ASSERT_EQUAL(out.addr, 0x00007f0012345000ull);
        CU_ASSERT_EQUAL(out.mtu, 4096);
        CU_ASSERT_EQUAL(out.traffic_class, -1);
        CU_ASSERT_EQUAL(memcmp(out.gid, in.gid, 16), 0);

        in = hello();
        n = encode(&in, buf);
        CU_ASSERT_EQUAL_FATAL(probe_oob_decode(buf, (size_t)n, &out, &e), 0);
        CU_ASSERT_EQUAL(out.mode, PROBE_MODE_VERBS);
        CU_ASSERT_EQUAL(out.message_size, 65536);
        CU_ASSERT_EQUAL(out.duration_ms, 3000);
        CU_ASSERT_EQUAL(out.traffic_class, 104);
        CU_ASSERT_EQUAL(out.priority, 3);
        in.priority = -1;
        n = encode(&in, buf);
        CU_ASSERT_EQUAL_FATAL(probe_oob_decode(buf, (size_t)n, &out, &e), 0);
        CU_ASSERT_EQUAL(out.priority, -1);
}

static void test_error_text(void)
{
        struct probe_oob_msg in = { .type = PROBE_OOB_ERROR, .status = 16 }, out;
        uint8_t buf[PROBE_OOB_MSG_MAX];
        struct errbuf e = { .msg = "" };
        int n;

        snprintf(in.text, sizeof(in.text), "probe server busy");
        n = encode(&in, buf);
        CU_ASSERT_EQUAL_FATAL(n, PROBE_OOB_HEADER_SIZE + PROBE_OOB_BODY_SIZE + 17);
        CU_ASSERT_EQUAL_FATAL(probe_oob_decode(buf, (size_t)n, &out, &e), 0);
        CU_ASSERT_STRING_EQUAL(out.text, "probe server busy");
        CU_ASSERT_EQUAL(out.status, 16);

        /* a control byte in the text is refused */
        buf[PROBE_OOB_HEADER_SIZE + PROBE_OOB_BODY_SIZE + 3] = '\n';
        CU_ASSERT_EQUAL(probe_oob_decode(buf, (size_t)n, &out, &e), -EBADMSG);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "not printable"));
}

static void test_header_refused(void)
{
        struct probe_oob_msg in = hello(), out = { .type = 0 };
        uint8_t buf[PROBE_OOB_MSG_MAX + 16];
        struct errbuf e = { .msg = "" };
        int n = encode(&in, buf);

        /* a version 1 peer (no priority) is refused, not misread */
        buf[4] = 1;
        CU_ASSERT_EQUAL(probe_oob_decode(buf, (size_t)n, &out, &e), -EPROTONOSUPPORT);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "version 1, this side speaks 2"));
        buf[4] = 2;
        buf[0] = 'X';
        CU_ASSERT_EQUAL(probe_oob_decode(buf, (size_t)n, &out, &e), -EBADMSG);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "bad magic"));
        buf[0] = 'N';
        buf[5] = 1;
        CU_ASSERT_EQUAL(probe_oob_decode(buf, (size_t)n, &out, &e), -EBADMSG);
        buf[5] = 0;
        /* oversized body announced */
        buf[6] = 0x10;
        buf[7] = 0x00;
        CU_ASSERT_EQUAL(probe_oob_decode(buf, (size_t)n, &out, &e), -EMSGSIZE);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "exceeds the limit"));
        /* truncated and trailing bytes */
        buf[6] = 0;
        buf[7] = PROBE_OOB_BODY_SIZE;
        CU_ASSERT_EQUAL(probe_oob_decode(buf, (size_t)n - 1, &out, &e), -EBADMSG);
        CU_ASSERT_EQUAL(probe_oob_decode(buf, (size_t)n + 1, &out, &e), -EBADMSG);
        CU_ASSERT_EQUAL(probe_oob_decode(buf, 3, &out, &e), -EBADMSG);
        buf[7] = PROBE_OOB_BODY_SIZE - 1;
        CU_ASSERT_EQUAL(probe_oob_decode(buf, (size_t)n - 1, &out, &e), -EBADMSG);
        CU_ASSERT_EQUAL(out.type, 0);   /* nothing written on failure */
}

/* Patch one field of an encoded message and expect the decoder to refuse it. */
static void expect_refused(struct probe_oob_msg m, size_t off, const uint8_t *bytes, size_t n, const char *needle)
{
        uint8_t buf[PROBE_OOB_MSG_MAX];
        struct probe_oob_msg out;
        struct errbuf e = { .msg = "" };
        int len = encode(&m, buf);

        CU_ASSERT_FATAL(len > 0);
        memcpy(buf + PROBE_OOB_HEADER_SIZE + off, bytes, n);
        CU_ASSERT_EQUAL(probe_oob_decode(buf, (size_t)len, &out, &e), -EBADMSG);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, needle));
}

static void test_fields_refused(void)
{
        expect_refused(hello(), 0, (const uint8_t *)"\x09", 1, "unknown message type 9");
        expect_refused(hello(), 1, (const uint8_t *)"\x00", 1, "mode 0");
        expect_refused(hello(), 4, (const uint8_t *)"\x00\x00\x00\x00", 4, "message size 0 out of range");
        expect_refused(hello(), 4, (const uint8_t *)"\x01\x00\x00\x01", 4, "out of range 1-16777216");
        expect_refused(hello(), 8, (const uint8_t *)"\x00\x00\x00\x11", 4, "streams 17 out of range 1-16");
        expect_refused(hello(), 12, (const uint8_t *)"\xff\xff\xff\xff", 4, "duration");
        expect_refused(hello(), 12, (const uint8_t *)"\x00\x00\x00\x00", 4, "iterations 0");
        expect_refused(hello(), 20, (const uint8_t *)"\x00\x00\x01\x00", 4, "traffic class 256");
        expect_refused(hello(), 88, (const uint8_t *)"\x00\x00\x00\x08", 4, "priority 8 out of range 0-7");
        expect_refused(hello(), 88, (const uint8_t *)"\xff\xff\xff\xfe", 4, "priority -2");
        expect_refused(qp(), 28, (const uint8_t *)"\x01\x00\x00\x00", 4, "qp number 16777216");
        expect_refused(qp(), 28, (const uint8_t *)"\x00\x00\x00\x00", 4, "qp number 0");
        expect_refused(qp(), 32, (const uint8_t *)"\xff\x00\x00\x00", 4, "psn");
        expect_refused(qp(), 24, (const uint8_t *)"\x00\x00\x00\x10", 4, "qp index 16");
        expect_refused(qp(), 64, (const uint8_t *)"\x00\x00\x10\x01", 4, "mtu 4097");
        expect_refused(qp(), 76, (const uint8_t *)"\xff\xff\xff\xff\xff\xff\xff\xff", 8, "elapsed time");
}

static void test_encode_refuses_invalid(void)
{
        struct probe_oob_msg m = hello();
        uint8_t buf[PROBE_OOB_MSG_MAX];
        struct errbuf e = { .msg = "" };

        m.streams = 0;
        CU_ASSERT_EQUAL(probe_oob_encode(&m, buf, sizeof(buf), &e), -EBADMSG);
        m = hello();
        CU_ASSERT_EQUAL(probe_oob_encode(&m, buf, 20, &e), -EMSGSIZE);
        m = (struct probe_oob_msg) { .type = PROBE_OOB_READY, .mode = PROBE_MODE_TCP, .port = 0 };
        CU_ASSERT_EQUAL(probe_oob_encode(&m, buf, sizeof(buf), &e), -EBADMSG);
}

/* A QP's GID must be the control connection's peer address in GID form. */
static void test_gid_bound_to_peer(void)
{
        struct sockaddr_in peer = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(0x0a4d0001) };
        struct sockaddr_in6 peer6 = { .sin6_family = AF_INET6 };
        struct probe_oob_msg m = qp();
        struct errbuf e = { .msg = "" };
        static const uint8_t mapped[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 77, 0, 1 };

        memcpy(m.gid, mapped, 16);
        CU_ASSERT_EQUAL(probe_oob_check_gid(&m, (struct sockaddr *)&peer, &e), 0);
        m.gid[15] = 2;          /* a third party's address */
        CU_ASSERT_EQUAL(probe_oob_check_gid(&m, (struct sockaddr *)&peer, &e), -EACCES);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "names GID ::ffff:10.77.0.2, but the control connection comes from "
                                             "::ffff:10.77.0.1"));
        memcpy(peer6.sin6_addr.s6_addr, m.gid, 16);     /* IPv6: the address itself */
        CU_ASSERT_EQUAL(probe_oob_check_gid(&m, (struct sockaddr *)&peer6, &e), 0);
        peer6.sin6_addr.s6_addr[0] = 0xfe;
        CU_ASSERT_EQUAL(probe_oob_check_gid(&m, (struct sockaddr *)&peer6, &e), -EACCES);
}

int suite_probe_oob(void);
int suite_probe_oob(void)
{
        CU_pSuite s = CU_add_suite("probe_oob", NULL, NULL);

        if (!s ||
            !CU_add_test(s, "round_trip", test_round_trip) ||
            !CU_add_test(s, "error_text", test_error_text) ||
            !CU_add_test(s, "header_refused", test_header_refused) ||
            !CU_add_test(s, "fields_refused", test_fields_refused) ||
            !CU_add_test(s, "encode_refuses_invalid", test_encode_refuses_invalid) ||
            !CU_add_test(s, "gid_bound_to_peer", test_gid_bound_to_peer))
                return -1;
        return 0;
}
