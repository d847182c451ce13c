/* SPDX-License-Identifier: MIT */
/* probe-server and the tcp probe in-process over 127.0.0.1: real sockets, real threads. */
#include <CUnit/CUnit.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "probe.h"
#include "probe_net.h"
#include "probe_server.h"

static void peer_of(const struct probe_server *s, struct probe_params *p)
{
        probe_params_init(p);
        probe_server_address(s, p->peer, sizeof(p->peer));
        p->duration_ms = 200;
}

static void test_tcp_measure(void)
{
        struct probe_server *s = NULL;
        struct probe_measurement m;
        struct probe_params p;
        struct errbuf e = { .msg = "" };
        unsigned long ok = 0, failed = 0;

        CU_ASSERT_EQUAL_FATAL(probe_server_start("127.0.0.1:0", &s, &e), 0);
        peer_of(s, &p);
        p.streams = 2;
        CU_ASSERT_EQUAL(probe_measure(&p, PROBE_MODE_AUTO, 3, &m, &e), 0);
        CU_ASSERT_EQUAL(m.mode, PROBE_MODE_TCP);        /* no RDMA device: auto picks tcp */
        CU_ASSERT_TRUE(m.ok);
        CU_ASSERT_EQUAL(m.n_runs, 3);
        for (unsigned i = 0; i < 3; i++) {
                CU_ASSERT(m.runs[i].bytes > 0);
                CU_ASSERT(m.runs[i].gbps > 0.01);
                CU_ASSERT(m.runs[i].seconds > 0.05 && m.runs[i].seconds < 2.0);
                CU_ASSERT_EQUAL(m.runs[i].streams, 2);
        }
        CU_ASSERT(m.median_gbps > 0.01);

        /* iteration mode: exactly iterations x size bytes per stream */
        p.duration_ms = 0;
        p.iterations = 50;
        p.message_size = 10000;
        CU_ASSERT_EQUAL(probe_measure(&p, PROBE_MODE_TCP, 1, &m, &e), 0);
        if (!m.ok)
                printf("  iteration run: %s\n", m.error);
        CU_ASSERT_EQUAL(m.runs[0].bytes, 2u * 50u * 10000u);
        CU_ASSERT_EQUAL(m.runs[0].iterations, 100);
        for (int i = 0; i < 100 && ok < 4; i++) {      /* sessions count themselves after replying */
                probe_server_counts(s, &ok, &failed);
                if (ok < 4)
                        usleep(10000);
        }
        CU_ASSERT_EQUAL(ok, 4);
        CU_ASSERT_EQUAL(failed, 0);
        probe_server_stop(s);
}

static void test_unreachable_and_verbs(void)
{
        struct probe_server *s = NULL;
        struct probe_measurement m;
        struct probe_params p;
        struct errbuf e = { .msg = "" };

        CU_ASSERT_EQUAL_FATAL(probe_server_start("127.0.0.1:0", &s, &e), 0);
        peer_of(s, &p);
        probe_server_stop(s);           /* nothing listens there any more */
        CU_ASSERT_EQUAL(probe_measure(&p, PROBE_MODE_TCP, 2, &m, &e), -ECONNREFUSED);
        CU_ASSERT_FALSE(m.ok);
        CU_ASSERT_EQUAL(m.n_runs, 2);
        CU_ASSERT_EQUAL(m.n_ok, 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(m.error, "cannot connect to probe server"));
        if (!probe_verbs_ops.available(&p)) {
                CU_ASSERT_EQUAL(probe_run(&p, PROBE_MODE_VERBS, &m.runs[0], &e), -ENODEV);
                CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "no RDMA device"));
        }
        CU_ASSERT_EQUAL(probe_measure(&p, PROBE_MODE_TCP, 0, &m, &e), -EINVAL);
}

static void test_busy_and_bad_hello(void)
{
        struct probe_server_options o = { .listen = "127.0.0.1:0", .max_clients = 1 };
        struct probe_server *s = NULL;
        struct probe_result res;
        struct probe_params p;
        struct probe_addr a;
        struct probe_oob_msg m;
        struct errbuf e = { .msg = "" };
        int hold, bad;

        CU_ASSERT_EQUAL_FATAL(probe_server_start_opts(&o, &s, &e), 0);
        peer_of(s, &p);
        CU_ASSERT_EQUAL_FATAL(probe_net_parse(p.peer, "peer", &a, &e), 0);
        hold = probe_net_connect(&a, NULL, 1000, &e);        /* occupies the only slot */
        CU_ASSERT_FATAL(hold >= 0);
        usleep(100000);
        CU_ASSERT_EQUAL(probe_run(&p, PROBE_MODE_TCP, &res, &e), -EBUSY);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "busy"));
        close(hold);
        usleep(100000);

        /* garbage instead of a HELLO: the server says why and closes */
        bad = probe_net_connect(&a, NULL, 1000, &e);
        CU_ASSERT_FATAL(bad >= 0);
        CU_ASSERT_EQUAL(write(bad, "GET / HTTP/1.0\r\n\r\n", 18), 18);
        CU_ASSERT_EQUAL(probe_oob_recv(bad, &m, 2000, &e), 0);
        CU_ASSERT_EQUAL(m.type, PROBE_OOB_ERROR);
        CU_ASSERT_PTR_NOT_NULL(strstr(m.text, "bad magic"));
        close(bad);

        /* a session stuck before its HELLO does not hold up stop */
        hold = probe_net_connect(&a, NULL, 1000, &e);
        usleep(50000);
        uint64_t t0 = probe_now_ns();
        probe_server_stop(s);
        CU_ASSERT(probe_now_ns() - t0 < 2000000000ull);
        if (hold >= 0)
                close(hold);
}

static void test_params(void)
{
        struct probe_params p;
        struct errbuf e = { .msg = "" };
        enum probe_mode m;

        probe_params_init(&p);
        CU_ASSERT_EQUAL(probe_params_check(&p, &e), -EINVAL);   /* no peer */
        snprintf(p.peer, sizeof(p.peer), "10.0.0.2:18515");
        CU_ASSERT_EQUAL(probe_params_check(&p, &e), 0);
        p.streams = 17;
        CU_ASSERT_EQUAL(probe_params_check(&p, &e), -EINVAL);
        CU_ASSERT_STRING_EQUAL(e.where, "streams");
        p.streams = 1;
        snprintf(p.peer, sizeof(p.peer), "10.0.0.2:0");
        CU_ASSERT_EQUAL(probe_params_check(&p, &e), -EINVAL);
        snprintf(p.peer, sizeof(p.peer), "[::1]:18515");
        CU_ASSERT_EQUAL(probe_params_check(&p, &e), 0);
        snprintf(p.source, sizeof(p.source), "not-an-ip");
        CU_ASSERT_EQUAL(probe_params_check(&p, &e), -EINVAL);
        CU_ASSERT_EQUAL(probe_mode_from_string("verbs", &m), 0);
        CU_ASSERT_EQUAL(m, PROBE_MODE_VERBS);
        CU_ASSERT_EQUAL(probe_mode_from_string("rdma", &m), -EINVAL);
        CU_ASSERT_STRING_EQUAL(probe_mode_name(PROBE_MODE_TCP), "tcp");
}

int suite_probe_server(void);
int suite_probe_server(void)
{
        CU_pSuite s = CU_add_suite("probe_server", NULL, NULL);

        if (!s ||
            !CU_add_test(s, "tcp_measure", test_tcp_measure) ||
            !CU_add_test(s, "unreachable_and_verbs", test_unreachable_and_verbs) ||
            !CU_add_test(s, "busy_and_bad_hello", test_busy_and_bad_hello) ||
            !CU_add_test(s, "params", test_params))
                return -1;
        return 0;
}
