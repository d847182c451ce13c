/* SPDX-License-Identifier: MIT */
/* The netlink helper: ack/extack handling, policy tables, timeouts, bad replies. */
#include <CUnit/CUnit.h>
#include <pthread.h>
#include <limits.h>
#include <sched.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/rtnetlink.h>

#include "drivers/host/host_io.h"
#include "drivers/host/link.h"
#include "drivers/host/nl.h"
#include "tests/nicmodel/nm_server.h"
#include "tests/nicmodel/nm_transport.h"

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

        nm_serve(&s->m, s->sock, s->ctl, NULL, &s->stop, NULL);
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

/* Writes queued, sent back to back and checked in one loop: the first refusal names its interface. */
static void test_queue(void)
{
        struct nl *nl = open_model();
        struct nlmsghdr *nlh;
        struct link_info l;
        struct errbuf e = { 0 };
        uint64_t before;

        CU_ASSERT_FATAL(nm_add(&model, "mlx5:mlx1:8") == 0);
        before = nl_writes(nl);
        CU_ASSERT_EQUAL(nl_flush(nl, &e), 0);                  /* nothing queued: nothing sent */
        for (int i = 0; i < 3; i++) {
                struct ifinfomsg *ifi;

                nlh = nl_msg_new(nl, RTM_NEWLINK, NLM_F_ACK);
                ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
                ifi->ifi_index = i == 1 ? 8 : 7;
                CU_ASSERT_FATAL(nl_put_u32(nlh, IFLA_MTU, i == 1 ? 20000 : 4000 + 1000 * i) == 0);
                CU_ASSERT_EQUAL(nl_queue(nl, nlh, i == 1 ? "interface 'mlx1'" : "interface 'mlx0'",
                                         i == 1 ? "set mtu 20000" : "set mtu", &e), 0);
        }
        CU_ASSERT_EQUAL(nl_writes(nl), before);                 /* not sent yet */
        CU_ASSERT_EQUAL(nl_flush(nl, &e), -EINVAL);
        CU_ASSERT_STRING_EQUAL(e.where, "interface 'mlx1'");
        CU_ASSERT_STRING_EQUAL(e.msg, "set mtu 20000: invalid argument (kernel: mtu greater than device maximum)");
        CU_ASSERT_EQUAL(nl_writes(nl), before + 3);
        /* the kernel went on past the refusal, as it does with a batch of requests */
        CU_ASSERT(link_rtnl_get(nl, 7, NULL, &l, &e) == 0);
        CU_ASSERT_EQUAL(l.mtu, 6000);
        /* a request sent while writes wait sends them first, in order */
        nlh = nl_msg_new(nl, RTM_NEWLINK, NLM_F_ACK);
        ((struct ifinfomsg *)mnl_nlmsg_put_extra_header(nlh, sizeof(struct ifinfomsg)))->ifi_index = 7;
        CU_ASSERT_FATAL(nl_put_u32(nlh, IFLA_MTU, 3000) == 0);
        CU_ASSERT_EQUAL(nl_queue(nl, nlh, "interface 'mlx0'", "set mtu 3000", &e), 0);
        CU_ASSERT(link_rtnl_get(nl, 7, NULL, &l, &e) == 0);
        CU_ASSERT_EQUAL(l.mtu, 3000);
        close_model(nl);
}

static int batch_name(const struct nlmsghdr *nlh, unsigned i, void *data)
{
        struct link_info l;
        int r = link_rtnl_parse(nlh, &l);

        if (r >= 0)
                snprintf(((char (*)[IF_NAMESIZE])data)[i], IF_NAMESIZE, "%s", l.name);
        return r;
}

/* Independent requests at once: each its replies and its own result; a failure stops no other. */
static void test_batch(void)
{
        struct nl *nl = open_model();
        char names[3][IF_NAMESIZE] = { "", "", "" }, msg[3][NL_BATCH_MSG];
        int err[3], want[3] = { 7, 99, 8 };
        struct errbuf e = { 0 };
        uint64_t before = nl_writes(nl);

        CU_ASSERT_FATAL(nm_add(&model, "mlx5:mlx1:8") == 0);
        for (int i = 0; i < 3; i++) {
                struct nlmsghdr *nlh = nl_msg_new(nl, RTM_GETLINK, NLM_F_ACK);

                ((struct ifinfomsg *)mnl_nlmsg_put_extra_header(nlh, sizeof(struct ifinfomsg)))->ifi_index = want[i];
                CU_ASSERT_EQUAL(nl_batch_add(nl, nlh, &e), 0);
        }
        CU_ASSERT_EQUAL(nl_batch_run(nl, "read link", batch_name, names, err, msg, &e), 0);
        CU_ASSERT_EQUAL(err[0], 0);
        CU_ASSERT_STRING_EQUAL(names[0], "mlx0");
        CU_ASSERT_EQUAL(err[1], -ENODEV);
        CU_ASSERT_STRING_EQUAL(msg[1], "read link: no such device");
        CU_ASSERT_EQUAL(err[2], 0);
        CU_ASSERT_STRING_EQUAL(names[2], "mlx1");
        CU_ASSERT_EQUAL(nl_writes(nl), before);                 /* GETs write nothing */
        close_model(nl);
}

/* The request's link cache: one dump for many reads, dropped by a write, refilled by a read-back. */
static void test_link_cache(void)
{
        struct driver_io io = { .n_targets[TARGET_INTERFACE] = 2 };
        struct driver_env env = { .sysfs_root = "/nonexistent" };
        struct target t = { .kind = TARGET_INTERFACE, .ifindex = 8, .env = &env, .io = &io };
        const struct link_info *all;
        struct link_info l;
        struct errbuf e = { 0 };
        char dev[LINK_DEVICE_MAX];
        unsigned n = 0, base;
        struct nl *nl;

        nm_init(&model);
        CU_ASSERT_FATAL(nm_add(&model, "mlx5:mlx0:7") == 0 && nm_add(&model, "mlx5:mlx1:8") == 0);
        nm_transport_init(&xport, &model);
        env.nl = nm_transport_get(&xport);
        snprintf(t.name, sizeof(t.name), "mlx1");
        CU_ASSERT_EQUAL_FATAL(driver_io_rtnl(&io, &env, &nl, &e), 0);
        CU_ASSERT_EQUAL_FATAL(link_cache_links(&io, nl, &all, &n, &e), 0);
        CU_ASSERT_EQUAL(n, 2);
        CU_ASSERT_EQUAL(all[0].ifindex, 7);
        CU_ASSERT_EQUAL(all[1].ifindex, 8);
        base = xport.n_log;
        CU_ASSERT_EQUAL(link_rtnl_read(&t, host_io_find(&io)->rtnl, &l, &e), 0);
        CU_ASSERT_EQUAL(l.mtu, 1500);
        CU_ASSERT_EQUAL(xport.n_log, base);                     /* from the dump */
        CU_ASSERT_EQUAL(link_rtnl_set_mtu(host_io_find(&io)->rtnl, 8, 9000, &e), 0);
        base = xport.n_log;
        CU_ASSERT_EQUAL(link_rtnl_read(&t, host_io_find(&io)->rtnl, &l, &e), 0);        /* after a write: asked */
        CU_ASSERT_EQUAL(l.mtu, 9000);
        CU_ASSERT_EQUAL(xport.n_log, base + 1);
        CU_ASSERT_EQUAL(link_rtnl_read(&t, host_io_find(&io)->rtnl, &l, &e), 0);        /* a second read in a row: one dump */
        CU_ASSERT_EQUAL(xport.n_log, base + 2);
        CU_ASSERT_EQUAL(link_rtnl_read(&t, host_io_find(&io)->rtnl, &l, &e), 0);        /* ... which serves the rest */
        CU_ASSERT_EQUAL(xport.n_log, base + 2);
        /* no device link in this tree: none (not a virtual link: that needs the class link) */
        CU_ASSERT_EQUAL(link_rtnl_device(&t, dev, sizeof(dev)), -ENOENT);
        driver_io_close(&io);
        nm_transport_done(&xport);
        nm_done(&model);
}

/*
 * On the real kernel and sysfs, each link's device from the dump's parent
 * (IFLA_PARENT_DEV_NAME) is what SYSFS/class/net/IF/device points at, and a link
 * without one is a software link: read-only, this namespace's own links.
 */
static void test_link_parent_is_sysfs_device(void)
{
        struct driver_io io = { .n_targets[TARGET_INTERFACE] = 2 };
        struct driver_env env = { .sysfs_root = "/sys" };
        const struct link_info *all;
        struct errbuf e = { 0 };
        unsigned n = 0, checked = 0;
        struct nl *nl;

        CU_ASSERT_EQUAL_FATAL(driver_io_rtnl(&io, &env, &nl, &e), 0);
        CU_ASSERT_EQUAL_FATAL(link_cache_links(&io, nl, &all, &n, &e), 0);
        for (unsigned i = 0; i < n && access("/sys/class/net/lo", F_OK) == 0; i++) {
                struct target t = { .kind = TARGET_INTERFACE, .ifindex = all[i].ifindex, .env = &env, .io = &io };
                char dev[LINK_DEVICE_MAX], path[PATH_MAX], target[PATH_MAX], *base;
                ssize_t len;
                int r;

                snprintf(t.name, sizeof(t.name), "%s", all[i].name);
                snprintf(path, sizeof(path), "/sys/class/net/%s/device", t.name);
                r = link_rtnl_device(&t, dev, sizeof(dev));
                len = readlink(path, target, sizeof(target) - 1);
                if (len < 0) {
                        CU_ASSERT_EQUAL(r, -ENXIO);
                        CU_ASSERT_EQUAL(all[i].parent[0], '\0');       /* the dump names no parent */
                } else {
                        target[len] = '\0';
                        base = strrchr(target, '/');
                        CU_ASSERT_EQUAL(r, 0);
                        CU_ASSERT_STRING_EQUAL(dev, base ? base + 1 : target);
                        CU_ASSERT_FALSE(link_cache_software(&io, &all[i]));
                }
                checked++;
        }
        CU_ASSERT(checked > 0);         /* loopback at least */
        driver_io_close(&io);
}
/* In a network namespace of its own (a child): two veth, queued MTU writes, the kernel's answers. */
static int kernel_queue_child(void)
{
        struct nl *nl = NULL;
        struct link_info a, b;
        struct errbuf e = { 0 };
        int idx[2], fails = 0;
        const char *names[2] = { "qa", "qb" };

        if (unshare(CLONE_NEWNET) < 0 || system("ip link add qa type veth peer name qb") != 0)
                return 100;
        if (nl_open(NULL, NETLINK_ROUTE, &nl, &e) < 0)
                return 101;
        for (int i = 0; i < 2; i++) {
                struct link_info l;

                if (link_rtnl_get(nl, 0, names[i], &l, &e) < 0)
                        return 102;
                idx[i] = l.ifindex;
        }
        /* 64 writes, only the window's last ACKed: every one done */
        for (int i = 0; i < 64; i++) {
                struct nlmsghdr *nlh = nl_msg_new(nl, RTM_NEWLINK, NLM_F_ACK);
                struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

                ifi->ifi_index = idx[i % 2];
                nl_put_u32(nlh, IFLA_MTU, 2000 + (unsigned)i);
                fails += nl_queue(nl, nlh, names[i % 2], "set mtu", &e) < 0;
        }
        fails += nl_flush(nl, &e) != 0;
        fails += link_rtnl_get(nl, idx[0], NULL, &a, &e) < 0 || a.mtu != 2062;
        fails += link_rtnl_get(nl, idx[1], NULL, &b, &e) < 0 || b.mtu != 2063;
        /* a refusal in the middle comes back unasked, named; the kernel went on past it */
        for (int i = 0; i < 3; i++) {
                struct nlmsghdr *nlh = nl_msg_new(nl, RTM_NEWLINK, NLM_F_ACK);
                struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

                ifi->ifi_index = idx[i == 1];
                nl_put_u32(nlh, IFLA_MTU, i == 1 ? 70000 : 3000 + (unsigned)i);
                fails += nl_queue(nl, nlh, i == 1 ? "interface 'qb'" : "interface 'qa'", "set mtu", &e) < 0;
        }
        fails += nl_flush(nl, &e) != -EINVAL;
        fails += strcmp(e.where, "interface 'qb'") != 0;
        fails += link_rtnl_get(nl, idx[0], NULL, &a, &e) < 0 || a.mtu != 3002;
        fails += link_rtnl_get(nl, idx[1], NULL, &b, &e) < 0 || b.mtu != 2063;
        /* the same refusal last: its own answer ends the window */
        for (int i = 0; i < 2; i++) {
                struct nlmsghdr *nlh = nl_msg_new(nl, RTM_NEWLINK, NLM_F_ACK);
                struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

                ifi->ifi_index = idx[i];
                nl_put_u32(nlh, IFLA_MTU, i == 1 ? 70000 : 3500);
                fails += nl_queue(nl, nlh, names[i], "set mtu", &e) < 0;
        }
        fails += nl_flush(nl, &e) != -EINVAL;
        fails += strcmp(e.where, "qb") != 0;
        fails += link_rtnl_get(nl, idx[0], NULL, &a, &e) < 0 || a.mtu != 3500;
        /* and the handle talks on: no stray answer is left behind */
        fails += link_rtnl_get(nl, idx[1], NULL, &b, &e) < 0 || b.mtu != 2063;
        nl_close(nl);
        return fails;
}

/* The real kernel answers queued writes as flush_window() expects (netlink_rcv_skb()). */
static void test_queue_kernel(void)
{
        int status = -1;
        pid_t pid;

        if (geteuid() != 0) {
                fprintf(stderr, "SKIP nl.queue_kernel: needs root for a network namespace\n");
                return;
        }
        pid = fork();
        CU_ASSERT_FATAL(pid >= 0);
        if (pid == 0)
                _exit(kernel_queue_child());
        CU_ASSERT_EQUAL_FATAL(waitpid(pid, &status, 0), pid);
        CU_ASSERT(WIFEXITED(status));
        CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
}


/* A family of its own beside the host's: driver_io flushes and closes every part, knowing none of them. */
struct fake_part {
        int flush_r;
        unsigned *flushed, *closed;
};

static int fake_flush(void *part, struct errbuf *e)
{
        struct fake_part *f = part;

        (*f->flushed)++;
        return f->flush_r < 0 ? errbuf_set(e, -f->flush_r, "switch 'x'", "refused") : 0;
}

static void fake_close(void *part)
{
        struct fake_part *f = part;

        (*f->closed)++;
        free(f);
}

static const struct driver_io_ops fake_a = { .name = "a", .flush = fake_flush, .close = fake_close };
static const struct driver_io_ops fake_b = { .name = "b", .flush = fake_flush, .close = fake_close };

static void test_io_parts(void)
{
        struct driver_io io = { 0 };
        struct errbuf e = { 0 };
        unsigned flushed = 0, closed = 0;
        struct fake_part *a = driver_io_part(&io, &fake_a, sizeof(*a)), *b;

        CU_ASSERT_PTR_NOT_NULL_FATAL(a);
        CU_ASSERT_PTR_EQUAL(driver_io_part(&io, &fake_a, sizeof(*a)), a);     /* one part per family */
        CU_ASSERT_PTR_NULL(driver_io_find(&io, &fake_b));
        b = driver_io_part(&io, &fake_b, sizeof(*b));
        CU_ASSERT_PTR_NOT_NULL_FATAL(b);
        *a = (struct fake_part){ 0, &flushed, &closed };
        *b = (struct fake_part){ -EPERM, &flushed, &closed };
        CU_ASSERT_PTR_NULL(host_io_find(&io));                  /* no host part until a host driver asks */
        CU_ASSERT_EQUAL(driver_io_flush(&io, &e), -EPERM);      /* every part flushed, the refusal returned */
        CU_ASSERT_EQUAL(flushed, 2);
        CU_ASSERT_STRING_EQUAL(e.where, "switch 'x'");
        CU_ASSERT_EQUAL(driver_io_flush(NULL, &e), 0);
        driver_io_close(&io);
        CU_ASSERT_EQUAL(closed, 2);
        CU_ASSERT_EQUAL(io.n_parts, 0);
        CU_ASSERT_PTR_NULL(driver_io_find(&io, &fake_a));
}

int suite_nl(void);
int suite_nl(void)
{
        CU_pSuite s = CU_add_suite("nl", NULL, NULL);

        if (!s || !CU_add_test(s, "extack", test_extack) ||
            !CU_add_test(s, "policy_tables", test_policy_tables) ||
            !CU_add_test(s, "timeout_and_talk", test_timeout_and_talk) ||
            !CU_add_test(s, "seam", test_seam) || !CU_add_test(s, "queue", test_queue) ||
            !CU_add_test(s, "queue_kernel", test_queue_kernel) ||
            !CU_add_test(s, "batch", test_batch) || !CU_add_test(s, "link_cache", test_link_cache) ||
            !CU_add_test(s, "link_parent_is_sysfs_device", test_link_parent_is_sysfs_device) ||
            !CU_add_test(s, "io_parts", test_io_parts))
                return -1;
        return 0;
}
