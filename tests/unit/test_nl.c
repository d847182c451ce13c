/* SPDX-License-Identifier: MIT */
/* The netlink helper: ack/extack handling, policy tables, timeouts, bad replies. */
#include <CUnit/CUnit.h>
#include <pthread.h>
#include <sys/stat.h>
#include <linux/rtnetlink.h>

#include "nm_server.h"
#include "nm_transport.h"
#include "link_rtnl.h"
#include "nl.h"

static struct nm model;
static struct nm_transport xport;

static struct nl *open_model(void)
{
        struct nl *nl = NULL;
        struct errbuf e;

        nm_init(&model);
        CU_ASSERT_FATAL(nm_add(&model, "mlx5:mlx0:7") == 0);
        nm_transport_init(&xport, &model);
        CU_ASSERT_FATAL(nl_open(nm_transport_get(&xport), NETLINK_ROUTE, &nl, &e) == 0);
        return nl;
}

static void close_model(struct nl *nl)
{
        nl_close(nl);
        nm_transport_done(&xport);
        nm_done(&model);
}

/* An NLMSG_ERROR with extended-ack TLVs, capped or carrying the whole request. */
static size_t make_error(unsigned char *buf, bool capped, int err, const char *text)
{
        struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
        struct nlmsgerr *ne;

        nlh->nlmsg_type = NLMSG_ERROR;
        nlh->nlmsg_flags = 0x200 | (capped ? 0x100 : 0);
        nlh->nlmsg_seq = 77;
        ne = mnl_nlmsg_put_extra_header(nlh, sizeof(*ne));
        ne->error = err;
        ne->msg.nlmsg_len = capped ? 16 : 24;
        if (!capped)
                mnl_nlmsg_put_extra_header(nlh, 8);     /* the request's payload */
        mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, text);
        mnl_attr_put_u32(nlh, NLMSGERR_ATTR_OFFS, 20);
        return nlh->nlmsg_len;
}

static void test_extack(void)
{
        _Alignas(8) unsigned char buf[256] = { 0 };
        struct nl *nl = open_model();
        size_t len;

        len = make_error(buf, true, -EINVAL, "mtu greater than device maximum");
        CU_ASSERT_EQUAL(nl_process(nl, buf, len, 77, NULL, NULL), -EINVAL);
        CU_ASSERT_STRING_EQUAL(nl_last_extack(nl), "mtu greater than device maximum");
        memset(buf, 0, sizeof(buf));
        len = make_error(buf, false, -ERANGE, "uncapped text");
        CU_ASSERT_EQUAL(nl_process(nl, buf, len, 77, NULL, NULL), -ERANGE);
        CU_ASSERT_STRING_EQUAL(nl_last_extack(nl), "uncapped text");
        /* the wrong sequence number is refused */
        CU_ASSERT_EQUAL(nl_process(nl, buf, len, 78, NULL, NULL), -EPROTO);
        /* a positive "error" is nonsense, not success */
        ((struct nlmsgerr *)mnl_nlmsg_get_payload((void *)buf))->error = 5;
        CU_ASSERT_EQUAL(nl_process(nl, buf, len, 77, NULL, NULL), -EPROTO);
        /* truncated: an ACK shorter than struct nlmsgerr */
        ((struct nlmsghdr *)buf)->nlmsg_len = 18;
        CU_ASSERT(nl_process(nl, buf, 18, 77, NULL, NULL) < 0);
        close_model(nl);
}

static void test_policy_tables(void)
{
        _Alignas(8) unsigned char buf[256] = { 0 };
        struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
        struct link_info l;

        nlh->nlmsg_type = RTM_NEWLINK;
        ((struct ifinfomsg *)mnl_nlmsg_put_extra_header(nlh, sizeof(struct ifinfomsg)))->ifi_index = 4;
        mnl_attr_put_strz(nlh, IFLA_IFNAME, "x0");
        mnl_attr_put_u16(nlh, IFLA_MTU, 1500);                  /* u16 where the policy says u32 */
        CU_ASSERT_EQUAL(link_rtnl_parse(nlh, &l), -EINVAL);
        memset(buf, 0, sizeof(buf));
        nlh = mnl_nlmsg_put_header(buf);
        nlh->nlmsg_type = RTM_NEWLINK;
        ((struct ifinfomsg *)mnl_nlmsg_put_extra_header(nlh, sizeof(struct ifinfomsg)))->ifi_index = 4;
        mnl_attr_put_strz(nlh, IFLA_IFNAME, "x0");
        CU_ASSERT_EQUAL(link_rtnl_parse(nlh, &l), -EBADMSG);    /* no MTU at all */
        mnl_attr_put_u32(nlh, IFLA_MTU, 1500);
        mnl_attr_put_u32(nlh, 0x7fff, 1);                       /* unknown attributes are skipped */
        CU_ASSERT(link_rtnl_parse(nlh, &l) == 0);
        CU_ASSERT_EQUAL(l.mtu, 1500);
        CU_ASSERT_STRING_EQUAL(l.name, "x0");
}

static ssize_t silent_recv(void *ctx, void *buf, size_t size, unsigned timeout_ms)
{
        return -ETIMEDOUT;
}

static void test_timeout_and_talk(void)
{
        struct nl *nl = open_model();
        struct link_info l;
        struct errbuf e;

        CU_ASSERT(link_rtnl_get(nl, 7, NULL, &l, &e) == 0);
        CU_ASSERT_STRING_EQUAL(l.name, "mlx0");
        CU_ASSERT(l.flags & IFF_LOWER_UP);
        CU_ASSERT(l.has_carrier_counts);
        CU_ASSERT_EQUAL(l.max_mtu, 9978);
        CU_ASSERT_EQUAL(link_rtnl_set_mtu(nl, 7, 20000, &e), -EINVAL);
        CU_ASSERT_STRING_EQUAL(e.msg, "set mtu 20000: invalid argument (kernel: mtu greater than device maximum)");
        nl_close(nl);
        xport.ops.recv = silent_recv;
        CU_ASSERT_FATAL(nl_open(nm_transport_get(&xport), NETLINK_ROUTE, &nl, &e) == 0);
        CU_ASSERT_EQUAL(link_rtnl_get(nl, 7, NULL, &l, &e), -ETIMEDOUT);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "no reply from netlink"));
        close_model(nl);
}

struct served {
        struct nm m;
        char dir[64], sock[96], ctl[96];
        volatile sig_atomic_t stop;
        pthread_t thread;
};

static void *serve_thread(void *arg)
{
        struct served *s = arg;

        nm_serve(&s->m, s->sock, s->ctl, &s->stop, NULL);
        return NULL;
}

/*
 * NETTUNE_NETLINK_SOCKET: nl_open(NULL) talks to the socket instead of the
 * kernel, one connection per handle; the same bytes a netlink socket would carry.
 */
static void test_seam(void)
{
        static struct served s;
        struct link_info l;
        struct nl *nl = NULL, *nl2 = NULL;
        struct errbuf e;
        struct stat st;

        nm_init(&s.m);
        CU_ASSERT_FATAL(nm_add(&s.m, "mlx5:seam0:7") == 0);
        snprintf(s.dir, sizeof(s.dir), "/tmp/nettune-seam.XXXXXX");
        CU_ASSERT_FATAL(mkdtemp(s.dir) != NULL);
        snprintf(s.sock, sizeof(s.sock), "%s/nl.sock", s.dir);
        snprintf(s.ctl, sizeof(s.ctl), "%s/ctl.sock", s.dir);
        s.stop = 0;
        CU_ASSERT_FATAL(pthread_create(&s.thread, NULL, serve_thread, &s) == 0);
        for (int i = 0; i < 500 && stat(s.ctl, &st) < 0; i++)
                nanosleep(&(struct timespec){ .tv_nsec = 10000000 }, NULL);
        CU_ASSERT_FATAL(setenv(NL_SEAM_ENV, s.sock, 1) == 0);
        CU_ASSERT_STRING_EQUAL(nl_seam_path(), s.sock);
        CU_ASSERT_FATAL(nl_open(NULL, NETLINK_ROUTE, &nl, &e) == 0);
        CU_ASSERT_FATAL(nl_open(NULL, NETLINK_ROUTE, &nl2, &e) == 0);     /* a second connection */
        CU_ASSERT(link_rtnl_get(nl, 7, NULL, &l, &e) == 0);
        CU_ASSERT_STRING_EQUAL(l.name, "seam0");
        CU_ASSERT(link_rtnl_get(nl2, 0, "seam0", &l, &e) == 0);
        CU_ASSERT_EQUAL(l.ifindex, 7);
        CU_ASSERT_EQUAL(link_rtnl_set_mtu(nl, 7, 20000, &e), -EINVAL);   /* the extack travels too */
        CU_ASSERT_STRING_EQUAL(e.msg, "set mtu 20000: invalid argument (kernel: mtu greater than device maximum)");
        CU_ASSERT_EQUAL(link_rtnl_get(nl, 99, NULL, &l, &e), -ENODEV);
        nl_close(nl);
        nl_close(nl2);
        s.stop = 1;
        pthread_join(s.thread, NULL);
        /* nobody listening: the error names the variable and the path */
        CU_ASSERT(nl_open(NULL, NETLINK_ROUTE, &nl, &e) < 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "NETTUNE_NETLINK_SOCKET"));
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, s.sock));
        /* without the variable: the kernel */
        unsetenv(NL_SEAM_ENV);
        CU_ASSERT_PTR_NULL(nl_seam_path());
        CU_ASSERT_FATAL(nl_open(NULL, NETLINK_ROUTE, &nl, &e) == 0);
        CU_ASSERT(link_rtnl_get(nl, 0, "lo", &l, &e) == 0);
        nl_close(nl);
        nm_done(&s.m);
        rmdir(s.dir);
}

int suite_nl(void);
int suite_nl(void)
{
        CU_pSuite s = CU_add_suite("nl", NULL, NULL);

        if (!s || !CU_add_test(s, "extack", test_extack) ||
            !CU_add_test(s, "policy_tables", test_policy_tables) ||
            !CU_add_test(s, "timeout_and_talk", test_timeout_and_talk) ||
            !CU_add_test(s, "seam", test_seam))
                return -1;
        return 0;
}
