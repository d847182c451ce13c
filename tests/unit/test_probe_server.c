/* SPDX-License-Identifier: MIT */
/* probe-server and the tcp probe in-process over 127.0.0.1: real sockets, real threads. */
#include <CUnit/CUnit.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include "drivers/probe/probe.h"
#include "drivers/probe/probe_net.h"
#include "drivers/probe/probe_server.h"
#include "policies/json/jsonv.h"

static void peer_of(const struct probe_server *s, struct probe_params *p)
{
        probe_params_init(p);
        probe_server_address(s, p->peer, sizeof(p->peer));
        p->duration_ms = 200;
}

/* Poll the server (10 ms steps, bounded at 60 s) until cond holds: the threads get
 * there in their own time on a busy machine; nothing here races a timer. */
static bool running_is(struct probe_server *s, unsigned n)
{
        return probe_server_running(s) == n;
}

static bool finished_are(struct probe_server *s, unsigned long n)
{
        unsigned long ok, failed;

        probe_server_counts(s, &ok, &failed);
        return ok + failed >= n;
}

#define WAIT_UNTIL(cond) do {                                           \
                for (int w_ = 0; w_ < 6000 && !(cond); w_++)            \
                        usleep(10000);                                  \
        } while (0)

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
        uint64_t t0 = probe_now_ns();
        CU_ASSERT_EQUAL(probe_measure(&p, PROBE_MODE_AUTO, 3, &m, &e), 0);
        double wall = (double)(probe_now_ns() - t0) / 1e9;
        CU_ASSERT_EQUAL(m.mode, PROBE_MODE_TCP);        /* no RDMA device: auto picks tcp */
        CU_ASSERT_TRUE(m.ok);
        CU_ASSERT_EQUAL(m.n_runs, 3);
        for (unsigned i = 0; i < 3; i++) {
                CU_ASSERT(m.runs[i].bytes > 0);
                CU_ASSERT(m.runs[i].gbps > 0.01);
                /* no run lasts longer than the whole call took (no fixed bound: the machine may be busy) */
                CU_ASSERT(m.runs[i].seconds > 0.05 && m.runs[i].seconds <= wall);
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
        WAIT_UNTIL(finished_are(s, 4));        /* sessions count themselves after replying */
        probe_server_counts(s, &ok, &failed);
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

/*
 * A gate's probe at a busy responder waits its turn (busy_wait_ms) instead of failing
 * with "busy: 1 sessions running": the slot is held by a client that never says
 * hello, which the responder drops after its hello timeout; the waiting run then
 * measures (busy_and_bad_hello: without a wait, busy fails the run at once).
 */
static void test_busy_waits_its_turn(void)
{
        struct probe_server_options o = { .listen = "127.0.0.1:0", .max_clients = 1, .hello_timeout_ms = 1000 };
        struct probe_server *s = NULL;
        struct probe_measurement m;
        struct probe_params p;
        struct probe_addr a;
        struct errbuf e = { .msg = "" };
        int hold;

        CU_ASSERT_EQUAL_FATAL(probe_server_start_opts(&o, &s, &e), 0);
        peer_of(s, &p);
        CU_ASSERT_EQUAL_FATAL(probe_net_parse(p.peer, "peer", &a, &e), 0);
        hold = probe_net_connect(&a, NULL, 1000, &e);        /* occupies the only slot until its hello timeout */
        CU_ASSERT_FATAL(hold >= 0);
        WAIT_UNTIL(running_is(s, 1));
        p.busy_wait_ms = PROBE_BUSY_WAIT_MS;
        CU_ASSERT_EQUAL(probe_measure(&p, PROBE_MODE_TCP, 1, &m, &e), 0);
        CU_ASSERT_TRUE(m.ok);
        CU_ASSERT(m.runs[0].bytes > 0);
        close(hold);
        probe_server_stop(s);
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
        WAIT_UNTIL(running_is(s, 1));
        CU_ASSERT_EQUAL(probe_run(&p, PROBE_MODE_TCP, &res, &e), -EBUSY);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "busy"));
        close(hold);
        WAIT_UNTIL(running_is(s, 0));                 /* the slot is free again */

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
        WAIT_UNTIL(running_is(s, 1));
        CU_ASSERT_EQUAL(probe_server_running(s), 1);
        uint64_t t0 = probe_now_ns();
        probe_server_stop(s);
        /* stop ends the session itself: it does not wait for the HELLO timeout */
        CU_ASSERT(probe_now_ns() - t0 < PROBE_SERVER_HELLO_TIMEOUT_MS * 1000000ull);
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

static void test_cidr(void)
{
        struct sockaddr_in a = { .sin_family = AF_INET };
        struct sockaddr_in6 m = { .sin6_family = AF_INET6 }, b = { .sin6_family = AF_INET6 };
        struct probe_cidr c[3];
        struct errbuf e = { .msg = "" };

        CU_ASSERT_EQUAL(probe_cidr_parse("10.201.0.0/24", "allow", &c[0], &e), 0);
        CU_ASSERT_EQUAL(probe_cidr_parse("fd00::/8", "allow", &c[1], &e), 0);
        CU_ASSERT_EQUAL(probe_cidr_parse("192.0.2.7", "allow", &c[2], &e), 0);
        CU_ASSERT_EQUAL(c[2].prefix, 32);
        inet_pton(AF_INET, "10.201.0.77", &a.sin_addr);
        CU_ASSERT_TRUE(probe_cidr_match(c, 3, (struct sockaddr *)&a));
        inet_pton(AF_INET, "10.201.1.1", &a.sin_addr);
        CU_ASSERT_FALSE(probe_cidr_match(c, 3, (struct sockaddr *)&a));
        inet_pton(AF_INET, "192.0.2.7", &a.sin_addr);
        CU_ASSERT_TRUE(probe_cidr_match(c, 3, (struct sockaddr *)&a));
        CU_ASSERT_FALSE(probe_cidr_match(c, 2, (struct sockaddr *)&a));
        inet_pton(AF_INET6, "::ffff:10.201.0.9", &m.sin6_addr);     /* a v4 client on a [::] listener */
        CU_ASSERT_TRUE(probe_cidr_match(c, 1, (struct sockaddr *)&m));
        inet_pton(AF_INET6, "fd12::1", &b.sin6_addr);
        CU_ASSERT_TRUE(probe_cidr_match(c, 2, (struct sockaddr *)&b));
        inet_pton(AF_INET6, "fe80::1", &b.sin6_addr);
        CU_ASSERT_FALSE(probe_cidr_match(c, 3, (struct sockaddr *)&b));
        CU_ASSERT_EQUAL(probe_cidr_parse("10.201.0.1/24", "allow", &c[0], &e), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "host bits set beyond /24"));
        CU_ASSERT_EQUAL(probe_cidr_parse("10.0.0.0/33", "allow", &c[0], &e), -EINVAL);
        CU_ASSERT_EQUAL(probe_cidr_parse("10.0.0.0/", "allow", &c[0], &e), -EINVAL);
        CU_ASSERT_EQUAL(probe_cidr_parse("gpu01", "allow", &c[0], &e), -EINVAL);
        CU_ASSERT_EQUAL(probe_cidr_parse("", "allow", &c[0], &e), -EINVAL);
        inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
        CU_ASSERT_TRUE(probe_net_is_local((struct sockaddr *)&a));
        inet_pton(AF_INET, "192.0.2.200", &a.sin_addr);
        CU_ASSERT_FALSE(probe_net_is_local((struct sockaddr *)&a));
}

/* A client outside the allowed networks is refused before any session: no hello is read. */
static void test_not_allowed(void)
{
        struct probe_cidr other;
        struct probe_server_options o = { .listen = "127.0.0.1:0", .allow = &other, .n_allow = 1 };
        struct probe_server *s = NULL;
        struct probe_measurement m;
        struct probe_params p;
        struct errbuf e = { .msg = "" };
        unsigned long ok = 1, failed = 1, refused = 0, expired = 1;

        CU_ASSERT_EQUAL_FATAL(probe_cidr_parse("10.0.0.0/8", "allow", &other, &e), 0);
        CU_ASSERT_EQUAL_FATAL(probe_server_start_opts(&o, &s, &e), 0);
        peer_of(s, &p);
        CU_ASSERT_EQUAL(probe_measure(&p, PROBE_MODE_TCP, 1, &m, &e), -EACCES);
        CU_ASSERT_PTR_NOT_NULL(strstr(m.error, "client 127.0.0.1 is not allowed"));
        probe_server_counts(s, &ok, &failed);
        probe_server_refusals(s, &refused, &expired);
        CU_ASSERT_EQUAL(ok + failed, 0);                /* no session was started */
        CU_ASSERT_EQUAL(refused, 1);
        CU_ASSERT_EQUAL(expired, 0);
        probe_server_stop(s);
}

/* The memory a session pins must fit the budget beside the sessions running. */
static void test_budget(void)
{
        struct probe_oob_msg h = { .type = PROBE_OOB_HELLO, .mode = PROBE_MODE_VERBS, .message_size = 1u << 20,
                                   .streams = 1, .duration_ms = 3000 };
        struct probe_server_options o = { .listen = "127.0.0.1:0", .max_bytes = PROBE_TCP_SINK_BUF - 1 };
        struct probe_server *s = NULL;
        struct probe_measurement m;
        struct probe_params p;
        struct errbuf e = { .msg = "" };
        uint64_t bytes = 0;
        unsigned ms = 0;

        CU_ASSERT_EQUAL(probe_server_admit(&h, 0, 4u << 20, 20000, &bytes, &ms, &e), 0);
        CU_ASSERT_EQUAL(bytes, 1u << 20);
        CU_ASSERT_EQUAL(ms, 23000);
        CU_ASSERT_EQUAL(probe_server_admit(&h, (3u << 20) + 1, 4u << 20, 20000, &bytes, &ms, &e), -EBUSY);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "needs 1048576 bytes of memory"));
        h.duration_ms = 0;      /* iterations: the mode's bound */
        CU_ASSERT_EQUAL(probe_server_admit(&h, 0, 4u << 20, 5, &bytes, &ms, &e), 0);
        CU_ASSERT_EQUAL(ms, PROBE_VERBS_ITERATION_BOUND_MS + 5);
        h.type = PROBE_OOB_DONE;
        CU_ASSERT_EQUAL(probe_server_admit(&h, 0, 4u << 20, 5, &bytes, &ms, &e), -EBADMSG);

        /* a server whose budget cannot hold one tcp sink refuses with busy */
        CU_ASSERT_EQUAL_FATAL(probe_server_start_opts(&o, &s, &e), 0);
        peer_of(s, &p);
        CU_ASSERT_EQUAL(probe_measure(&p, PROBE_MODE_TCP, 1, &m, &e), -EBUSY);
        CU_ASSERT_PTR_NOT_NULL(strstr(m.error, "busy: the session needs"));
        probe_server_stop(s);
}

/* No client holds the responder past its deadline: before the hello, and after it. */
static void test_deadline(void)
{
        struct probe_server_options o = { .listen = "127.0.0.1:0", .hello_timeout_ms = 300, .slack_ms = 300 };
        struct probe_oob_msg hello = { .type = PROBE_OOB_HELLO, .mode = PROBE_MODE_TCP, .message_size = 1000,
                                       .streams = 1, .duration_ms = 200, .traffic_class = -1, .priority = -1 };
        struct probe_server *s = NULL;
        struct probe_params p;
        struct probe_addr a;
        struct probe_oob_msg m = { .type = 0 }, n = { .type = 0 };
        struct errbuf e = { .msg = "" };
        unsigned long ok = 1, failed = 0;
        int silent, idle;

        CU_ASSERT_EQUAL_FATAL(probe_server_start_opts(&o, &s, &e), 0);
        peer_of(s, &p);
        CU_ASSERT_EQUAL_FATAL(probe_net_parse(p.peer, "peer", &a, &e), 0);
        silent = probe_net_connect(&a, NULL, 1000, &e);         /* never says hello */
        idle = probe_net_connect(&a, NULL, 1000, &e);           /* says hello, then opens no data stream */
        CU_ASSERT_FATAL(silent >= 0 && idle >= 0);
        CU_ASSERT_EQUAL(probe_oob_send(idle, &hello, 1000, &e), 0);
        CU_ASSERT_EQUAL(probe_oob_expect(idle, PROBE_OOB_READY, &m, 5000, &e), 0);
        /* The server ends both with a timeout of its own; 30 s only bounds a broken server. */
        CU_ASSERT_EQUAL(probe_oob_recv(silent, &m, 30000, &e), 0);
        CU_ASSERT_EQUAL(m.type, PROBE_OOB_ERROR);
        CU_ASSERT_EQUAL(m.status, ETIMEDOUT);
        CU_ASSERT_EQUAL(probe_oob_recv(idle, &n, 30000, &e), 0);
        CU_ASSERT_EQUAL(n.type, PROBE_OOB_ERROR);
        CU_ASSERT_EQUAL(n.status, ETIMEDOUT);
        for (int i = 0; i < 500 && failed < 2; i++) {
                probe_server_counts(s, &ok, &failed);
                usleep(10000);
        }
        CU_ASSERT_EQUAL(ok, 0);
        CU_ASSERT_EQUAL(failed, 2);
        close(silent);
        close(idle);
        probe_server_stop(s);
}

static struct probe_oob_msg qp_msg(unsigned i, uint8_t last)
{
        struct probe_oob_msg m = { .type = PROBE_OOB_QP, .mode = PROBE_MODE_VERBS, .index = i, .qpn = 100 + i,
                                   .psn = 1, .mtu = 1024, .message_size = 4096, .traffic_class = -1 };
        static const uint8_t lo[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 127, 0, 0, 1 };

        memcpy(m.gid, lo, 16);
        m.gid[15] = last;
        return m;
}

/*
 * The verbs responder reads the client's QPs before it opens a device or
 * registers memory: a QP naming another host's GID is refused, and a client
 * trickling its QPs is cut at the session deadline by the server's watch.
 */
static void test_verbs_rules(void)
{
        struct probe_server_options o = { .listen = "127.0.0.1:0", .slack_ms = 300 };
        struct probe_oob_msg hello = { .type = PROBE_OOB_HELLO, .mode = PROBE_MODE_VERBS, .message_size = 4096,
                                       .streams = 16, .duration_ms = 100, .traffic_class = 104, .priority = 3 };
        struct probe_server *s = NULL;
        struct probe_params p;
        struct probe_addr a;
        struct probe_oob_msg m = { .type = 0 }, q;
        struct errbuf e = { .msg = "" };
        unsigned long refused, expired = 0;
        int fd, r = 0;

        CU_ASSERT_EQUAL_FATAL(probe_server_start_opts(&o, &s, &e), 0);
        peer_of(s, &p);
        CU_ASSERT_EQUAL_FATAL(probe_net_parse(p.peer, "peer", &a, &e), 0);

        fd = probe_net_connect(&a, NULL, 1000, &e);
        CU_ASSERT_FATAL(fd >= 0);
        q = qp_msg(0, 2);       /* ::ffff:127.0.0.2: not the control connection's address */
        CU_ASSERT_EQUAL(probe_oob_send(fd, &hello, 1000, &e), 0);
        CU_ASSERT_EQUAL(probe_oob_send(fd, &q, 1000, &e), 0);
        CU_ASSERT_EQUAL(probe_oob_recv(fd, &m, 10000, &e), 0);
        CU_ASSERT_EQUAL(m.type, PROBE_OOB_ERROR);
        CU_ASSERT_EQUAL(m.status, EACCES);
        CU_ASSERT_PTR_NOT_NULL(strstr(m.text, "control connection comes from ::ffff:127.0.0.1"));
        close(fd);

        fd = probe_net_connect(&a, NULL, 1000, &e);
        CU_ASSERT_FATAL(fd >= 0);
        CU_ASSERT_EQUAL(probe_oob_send(fd, &hello, 1000, &e), 0);
        /*
         * Each QP well inside the 10 s handshake bound, never all 16: only the
         * server's watch can end this session before a handshake bound does.
         */
        for (unsigned i = 0; i < 15 && r == 0; i++) {
                usleep(250000);
                q = qp_msg(i, 1);
                r = probe_oob_send(fd, &q, 1000, NULL);
                probe_server_refusals(s, &refused, &expired);
                if (expired)
                        break;
        }
        for (int i = 0; i < 500 && !expired; i++) {
                usleep(10000);
                probe_server_refusals(s, &refused, &expired);
        }
        CU_ASSERT_EQUAL(expired, 1);
        CU_ASSERT_NOT_EQUAL(probe_oob_recv(fd, &m, 10000, &e), -ETIMEDOUT);    /* closed, maybe after an ERROR */
        close(fd);
        probe_server_stop(s);
}

/* The pin over loopback: tcp, interface lo, source 127.0.0.1; the measurement says so. */
static void test_pinned_path(void)
{
        struct probe_server *s = NULL;
        struct probe_measurement m;
        struct probe_params p, q;
        struct probe_path path, back;
        struct errbuf e = { .msg = "" };
        char warning[256] = "x";
        json_t *j;
        struct jsonv v;

        CU_ASSERT_EQUAL_FATAL(probe_server_start("127.0.0.1:0", &s, &e), 0);
        peer_of(s, &p);
        p.traffic_class = 26 << 2;
        p.priority = 3;
        p.streams = 2;
        CU_ASSERT_EQUAL_FATAL(probe_pin(&p, PROBE_MODE_AUTO, &q, &path, warning, sizeof(warning), &e), 0);
        CU_ASSERT_EQUAL(path.mode, PROBE_MODE_TCP);
        CU_ASSERT_STRING_EQUAL(path.netdev, "lo");
        CU_ASSERT_STRING_EQUAL(path.source, "127.0.0.1");
        CU_ASSERT_EQUAL(path.dscp, 26);
        CU_ASSERT_EQUAL(path.priority, 3);
        CU_ASSERT_EQUAL(path.gid_index, -1);
        CU_ASSERT_STRING_EQUAL(warning, "");    /* no RDMA device here: nothing to warn about */
        CU_ASSERT_STRING_EQUAL(q.source, "127.0.0.1");
        CU_ASSERT_EQUAL(probe_measure_pinned(&q, &path, 2, NULL, &m, &e), 0);
        CU_ASSERT_TRUE(m.ok);
        CU_ASSERT_STRING_EQUAL(m.runs[0].source, "127.0.0.1");
        CU_ASSERT_EQUAL(m.runs[0].dscp, 26);            /* as the kernel reports the data socket */
        CU_ASSERT_EQUAL(m.runs[0].priority, 3);
        CU_ASSERT_EQUAL(m.runs[1].streams, 2);
        j = probe_measurement_to_json(&m);
        CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_object_get(j, "path"), "dscp")), 26);
        CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_object_get(j, "path"), "interface")), "lo");
        CU_ASSERT_TRUE(json_is_null(json_object_get(json_object_get(j, "path"), "gid")));
        jsonv_init(&v, "test", &e);
        CU_ASSERT_EQUAL(probe_path_from_json(&v, json_object_get(j, "path"), &back), 0);
        CU_ASSERT_FALSE(probe_path_diff(&path, &back, e.msg, sizeof(e.msg)));
        json_object_set_new(json_object_get(j, "path"), "mode", json_string("auto"));
        CU_ASSERT_EQUAL(probe_path_from_json(&v, json_object_get(j, "path"), &back), -EINVAL);
        json_decref(j);

        /* an interface that does not exist, a peer with no route */
        snprintf(p.netdev, sizeof(p.netdev), "nosuchif0");
        CU_ASSERT_EQUAL(probe_pin(&p, PROBE_MODE_TCP, &q, &path, NULL, 0, &e), -ENODEV);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "no interface 'nosuchif0'"));
        probe_server_stop(s);
}

int suite_probe_server(void);
int suite_probe_server(void)
{
        CU_pSuite s = CU_add_suite("probe_server", NULL, NULL);

        if (!s ||
            !CU_add_test(s, "tcp_measure", test_tcp_measure) ||
            !CU_add_test(s, "unreachable_and_verbs", test_unreachable_and_verbs) ||
            !CU_add_test(s, "busy_and_bad_hello", test_busy_and_bad_hello) ||
            !CU_add_test(s, "busy_waits_its_turn", test_busy_waits_its_turn) ||
            !CU_add_test(s, "params", test_params) ||
            !CU_add_test(s, "cidr", test_cidr) ||
            !CU_add_test(s, "not_allowed", test_not_allowed) ||
            !CU_add_test(s, "budget", test_budget) ||
            !CU_add_test(s, "deadline", test_deadline) ||
            !CU_add_test(s, "verbs_rules", test_verbs_rules) ||
            !CU_add_test(s, "pinned_path", test_pinned_path))
                return -1;
        return 0;
}
