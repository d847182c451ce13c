/* SPDX-License-Identifier: MIT */
/*
 * The qdisc driver's layers:
 *   - TC requests byte-for-byte equal to iproute2's tc (tests/data/tc vectors);
 *   - the kernel's qdisc dumps (captured in the lab guest) parsed, classified and read
 *     back as state: the thresholds and probability exactly as they were written;
 *   - RED arithmetic as tc's, the ets mapping, kernel support found read-only.
 * The driver end to end against a real kernel with sch_ets/sch_red runs in the VM
 * tier (tests/vmlab/qdisc-cases.sh, ecn-lab.sh).
 */
#include <CUnit/CUnit.h>
#include <linux/rtnetlink.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "drivers/host/qdisc_tree.h"
#include "drivers/host/tc_kmod.h"
#include "drivers/host/tc_nl.h"
#include "drivers/host/tc_red.h"
#include "tests/lib/nltrace.h"

#define RATE_200MBIT (200000000ull / 8)

/* A handle that sends nowhere and takes replies from any port: for building requests and
 * running captured replies through nl_process(). */
static int v_open(void *u, int protocol, void **ret)
{
        *ret = u;
        return 0;
}

static ssize_t v_send(void *ctx, const void *buf, size_t len)
{
        return (ssize_t)len;
}

static ssize_t v_recv(void *ctx, void *buf, size_t size, unsigned timeout_ms)
{
        return -ETIMEDOUT;
}

static const struct nl_transport_ops vector_ops = { .name = "vectors", .open = v_open, .send = v_send,
                                                    .recv = v_recv };
static const struct nl_transport vectors = { .ops = &vector_ops };

static struct nl *open_nl(void)
{
        struct nl *nl = NULL;
        struct errbuf e;

        CU_ASSERT_FATAL(nl_open(&vectors, NETLINK_ROUTE, &nl, &e) == 0);
        return nl;
}

/* The first request of a vector with this message type. */
static const struct nltrace_msg *request_of(struct nltrace *t, const char *file, uint16_t type)
{
        const struct nltrace_msg *m;

        if (nltrace_load(file, t) < 0)
                return NULL;
        for (unsigned i = 0; (m = nltrace_request(t, i)); i++)
                if (((const struct nlmsghdr *)m->buf)->nlmsg_type == type)
                        return m;
        return NULL;
}

/* tc's request, byte for byte (nl_talk adds NLM_F_ACK when it sends; tc's carries it). */
static bool same_as_tc(struct nlmsghdr *got, const char *file)
{
        static struct nltrace t;
        const struct nltrace_msg *want = request_of(&t, file, got->nlmsg_type);

        got->nlmsg_flags |= NLM_F_ACK;
        return want && nltrace_equal_masked(got, got->nlmsg_len, want->buf, want->len);
}

static void test_ets_requests(void)
{
        _cleanup_nl_ struct nl *nl = open_nl();
        struct state_ets s = { .prio_tc = { 0, 1, 2, 3, 4, 5, 6, 7 }, .tc_bw_pct = { 50, 10, 10, 30 } };
        struct tc_ets_opts o;
        struct nlmsghdr *nlh;
        struct errbuf e;

        qdisc_ets_default(NULL, &o);
        nlh = tc_nl_request(nl, TC_NL_REPLACE, 3, TC_H_ROOT, QDISC_ETS_HANDLE);
        CU_ASSERT_FATAL(tc_nl_put_ets(nlh, &o) == 0);
        CU_ASSERT(same_as_tc(nlh, "tc/01-ets-replace-strict8.trace"));
        nlh = tc_nl_request(nl, TC_NL_CHANGE, 2, TC_H_ROOT, QDISC_ETS_HANDLE);
        CU_ASSERT_FATAL(tc_nl_put_ets(nlh, &o) == 0);
        CU_ASSERT(same_as_tc(nlh, "tc/07-ets-change-strict8.trace"));
        /* traffic classes 7-4 strict, 3-0 sharing 30/10/10/50 %: quanta in band order */
        for (unsigned tc = 0; tc < 8; tc++)
                s.tc_tsa[tc] = tc >= 4 ? STATE_TSA_STRICT : STATE_TSA_ETS;
        CU_ASSERT_FATAL(qdisc_ets_from_state(&s, &o, &e) == 0);
        nlh = tc_nl_request(nl, TC_NL_REPLACE, 2, TC_H_ROOT, QDISC_ETS_HANDLE);
        CU_ASSERT_FATAL(tc_nl_put_ets(nlh, &o) == 0);
        CU_ASSERT(same_as_tc(nlh, "tc/06-ets-replace-quanta.trace"));
        nlh = tc_nl_request(nl, TC_NL_DEL, 2, TC_H_ROOT, QDISC_ETS_HANDLE);
        CU_ASSERT(same_as_tc(nlh, "tc/09-ets-del.trace"));
}

static void test_red_requests(void)
{
        _cleanup_nl_ struct nl *nl = open_nl();
        struct tc_red_params p;
        struct nlmsghdr *nlh;

        /* tc ... red limit 65536 min 3000 max 15000 avpkt 1000 probability 0.5 bandwidth 200mbit ecn */
        CU_ASSERT_FATAL(tc_red_eval(3000, 15000, 50, true, RATE_200MBIT, &p) == 0);
        CU_ASSERT_EQUAL(p.limit, 65536);
        CU_ASSERT_EQUAL(p.wlog, 4);
        nlh = tc_nl_request(nl, TC_NL_REPLACE, 3, QDISC_BAND_CLASS(0), QDISC_RED_HANDLE(0));
        CU_ASSERT_FATAL(tc_nl_put_red(nlh, &p) == 0);
        CU_ASSERT(same_as_tc(nlh, "tc/02-red-replace-low.trace"));
        /* ... limit 6000000 min 150000 max 1500000 probability 0.1 ...: band 5 is traffic class 3 */
        CU_ASSERT_FATAL(tc_red_eval(150000, 1500000, 10, true, RATE_200MBIT, &p) == 0);
        CU_ASSERT_EQUAL(p.limit, 6000000);
        CU_ASSERT_EQUAL(p.wlog, 10);
        CU_ASSERT_EQUAL(p.max_p, 429496729u);
        nlh = tc_nl_request(nl, TC_NL_REPLACE, 3, QDISC_BAND_CLASS(3), QDISC_RED_HANDLE(3));
        CU_ASSERT_FATAL(tc_nl_put_red(nlh, &p) == 0);
        CU_ASSERT(same_as_tc(nlh, "tc/03-red-replace-high.trace"));
        nlh = tc_nl_request(nl, TC_NL_CHANGE, 3, QDISC_BAND_CLASS(0), QDISC_RED_HANDLE(0));
        CU_ASSERT_FATAL(tc_nl_put_red(nlh, &p) == 0);
        CU_ASSERT(same_as_tc(nlh, "tc/04-red-change.trace"));
        nlh = tc_nl_request(nl, TC_NL_DEL, 3, QDISC_BAND_CLASS(3), QDISC_RED_HANDLE(3));
        CU_ASSERT(same_as_tc(nlh, "tc/08-red-del.trace"));
}

/* ---- the kernel's dumps ---- */

struct collect {
        int ifindex;
        struct qdisc_tree tree;
        unsigned n, bad;
};

static int collect_cb(const struct nlmsghdr *nlh, void *data)
{
        struct collect *c = data;
        struct tc_qdisc q;

        if (nlh->nlmsg_type != RTM_NEWQDISC)
                return MNL_CB_OK;
        if (tc_nl_parse(nlh, &q) < 0) {
                c->bad++;
                return MNL_CB_OK;
        }
        c->n++;
        if (q.ifindex == c->ifindex)
                qdisc_tree_add(&c->tree, &q);
        return MNL_CB_OK;
}

/* Every reply of a vector through the netlink helper's reply path into a tree of ifindex. */
static int tree_from(const char *file, int ifindex, uint32_t parent, struct collect *c, struct errbuf *e)
{
        static struct nltrace t;
        _cleanup_nl_ struct nl *nl = open_nl();
        const struct nltrace_msg *m;

        memset(c, 0, sizeof(*c));
        c->ifindex = ifindex;
        qdisc_tree_init(&c->tree, parent);
        if (nltrace_load(file, &t) < 0)
                return -ENOENT;
        for (unsigned i = 0; (m = nltrace_reply(&t, i)); i++)
                (void)nl_process(nl, m->buf, m->len, 0, collect_cb, c);
        return qdisc_tree_finish(&c->tree, e);
}

static void test_dump_read_back(void)
{
        struct collect c;
        struct state s;
        struct errbuf e;

        /* va (ifindex 3): ets 4e54: at the root, red 4e60: (queue 0) and 4e63: (queue 3) */
        CU_ASSERT_FATAL(tree_from("tc/05-qdisc-show.trace", 3, TC_H_ROOT, &c, &e) == 0);
        CU_ASSERT_EQUAL(c.bad, 0);
        CU_ASSERT_EQUAL(c.n, 4);                        /* noqueue of vb, ets, two red */
        CU_ASSERT_EQUAL(c.tree.root, STATE_QDISC_NETTUNE);
        CU_ASSERT_EQUAL(c.tree.top.ets.nstrict, 8);
        CU_ASSERT_PTR_NOT_NULL(qdisc_tree_red(&c.tree, 0));
        CU_ASSERT_PTR_NOT_NULL(qdisc_tree_red(&c.tree, 3));
        CU_ASSERT_PTR_NULL(qdisc_tree_red(&c.tree, 1));
        CU_ASSERT_FALSE(qdisc_tree_foreign_child(&c.tree, 1));
        CU_ASSERT(qdisc_tree_red(&c.tree, 3)->stats.has_red);
        CU_ASSERT(qdisc_tree_red(&c.tree, 3)->stats.has_queue);
        /* the kernel puts TCA_HW_OFFLOAD in every qdisc it dumps; a veth offloads nothing */
        CU_ASSERT(c.tree.top.has_offload);
        CU_ASSERT_FALSE(c.tree.top.offloaded);
        CU_ASSERT(qdisc_tree_red(&c.tree, 3)->has_offload);
        CU_ASSERT_FALSE(qdisc_tree_red(&c.tree, 3)->offloaded);
        state_init(&s);
        qdisc_tree_to_state(&c.tree, STATE_BIT(STATE_FIELD_ETS) | STATE_BIT(STATE_FIELD_ECN), &s);
        CU_ASSERT_EQUAL(s.ecn.queues, 0xff);            /* every queue: those without red do not mark */
        CU_ASSERT_FALSE(s.ecn.q[1].enabled);
        for (unsigned q = 0; q <= 3; q += 3) {
                CU_ASSERT(s.ecn.q[q].enabled);
                CU_ASSERT_EQUAL(s.ecn.q[q].min_bytes, 150000);     /* exactly what was written */
                CU_ASSERT_EQUAL(s.ecn.q[q].max_bytes, 1500000);
                CU_ASSERT_EQUAL(s.ecn.q[q].probability_pct, 10);
        }
        for (unsigned p = 0; p < 8; p++) {
                CU_ASSERT_EQUAL(s.ets.prio_tc[p], p);
                CU_ASSERT_EQUAL(s.ets.tc_tsa[p], STATE_TSA_STRICT);
        }
        CU_ASSERT_EQUAL(s.qdisc.root, STATE_QDISC_NETTUNE);
        /* vb (ifindex 2): the default noqueue */
        CU_ASSERT_FATAL(tree_from("tc/05-qdisc-show.trace", 2, TC_H_ROOT, &c, &e) == 0);
        CU_ASSERT_EQUAL(c.tree.root, STATE_QDISC_DEFAULT);
        state_init(&s);
        qdisc_tree_to_state(&c.tree, STATE_BIT(STATE_FIELD_ETS) | STATE_BIT(STATE_FIELD_ECN), &s);
        CU_ASSERT_EQUAL(s.ecn.queues, 0xff);            /* the default qdisc marks nowhere */
        for (unsigned q = 0; q < 8; q++)
                CU_ASSERT_FALSE(s.ecn.q[q].enabled);
        CU_ASSERT_EQUAL(s.present, STATE_BIT(STATE_FIELD_ETS) | STATE_BIT(STATE_FIELD_ECN));
}

static void test_dump_foreign(void)
{
        struct collect c;
        struct state s;
        struct errbuf e;

        /* vb (ifindex 2) got an htb 1: at its root */
        CU_ASSERT_FATAL(tree_from("tc/10-qdisc-show-foreign.trace", 2, TC_H_ROOT, &c, &e) == 0);
        CU_ASSERT_EQUAL(c.tree.root, STATE_QDISC_FOREIGN);
        state_init(&s);
        qdisc_tree_to_state(&c.tree, STATE_BIT(STATE_FIELD_ECN), &s);
        CU_ASSERT_STRING_EQUAL(s.qdisc.kind, "htb");
        CU_ASSERT_EQUAL(s.qdisc.handle, 0x10000);
        /* attached under its class 1:1 instead: nothing of ours there yet, the default */
        CU_ASSERT_FATAL(tree_from("tc/10-qdisc-show-foreign.trace", 2, 0x10001, &c, &e) == 0);
        CU_ASSERT_EQUAL(c.tree.root, STATE_QDISC_DEFAULT);
        /* a class whose qdisc is not there */
        CU_ASSERT_EQUAL(tree_from("tc/10-qdisc-show-foreign.trace", 3, 0x10001, &c, &e), -ENOENT);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "the class 1:1 where nettune attaches its qdiscs"));
}

static void test_kernel_error(void)
{
        static struct nltrace t;
        _cleanup_nl_ struct nl *nl = open_nl();
        const struct nltrace_msg *req = request_of(&t, "tc/11-ets-replace-nokernel.trace", RTM_NEWQDISC);
        const struct nltrace_msg *m;
        int r = 1;

        CU_ASSERT_FATAL(req != NULL);
        for (unsigned i = 0; r > 0 && (m = nltrace_reply(&t, i)); i++) {
                const struct nlmsghdr *nlh = (const void *)m->buf;

                if (nlh->nlmsg_type == NLMSG_ERROR)
                        r = nl_process(nl, m->buf, m->len, 0, NULL, NULL);
        }
        CU_ASSERT_EQUAL(r, -ENOENT);
        CU_ASSERT_STRING_EQUAL(nl_last_extack(nl), "Specified qdisc kind is unknown");
}

/* Fuzz-found shapes: a red without parameters, priomap bands beyond nbands. */
static void test_parse_rejects(void)
{
        char buf[256];
        struct nlmsghdr *nlh = mnl_nlmsg_put_header(memset(buf, 0, sizeof(buf)));
        struct tcmsg *t;
        struct nlattr *o, *pm;
        struct tc_qdisc q;

        nlh->nlmsg_type = RTM_NEWQDISC;
        t = mnl_nlmsg_put_extra_header(nlh, sizeof(*t));
        t->tcm_handle = QDISC_ETS_HANDLE;
        mnl_attr_put_strz(nlh, TCA_KIND, "ets");
        o = mnl_attr_nest_start(nlh, TCA_OPTIONS);
        mnl_attr_put_u8(nlh, TCA_ETS_NBANDS, 2);
        pm = mnl_attr_nest_start(nlh, TCA_ETS_PRIOMAP);
        mnl_attr_put_u8(nlh, TCA_ETS_PRIOMAP_BAND, 5);
        mnl_attr_nest_end(nlh, pm);
        mnl_attr_nest_end(nlh, o);
        CU_ASSERT_EQUAL(tc_nl_parse(nlh, &q), -EBADMSG);
        nlh = mnl_nlmsg_put_header(memset(buf, 0, sizeof(buf)));
        nlh->nlmsg_type = RTM_NEWQDISC;
        mnl_nlmsg_put_extra_header(nlh, sizeof(*t));
        mnl_attr_put_strz(nlh, TCA_KIND, "red");
        o = mnl_attr_nest_start(nlh, TCA_OPTIONS);
        mnl_attr_put_u32(nlh, TCA_RED_MAX_P, 1);
        mnl_attr_nest_end(nlh, o);
        CU_ASSERT_EQUAL(tc_nl_parse(nlh, &q), -EBADMSG);
}

/* ---- RED arithmetic ---- */

static void test_red_math(void)
{
        struct tc_red_params p;
        uint8_t stab[256];

        CU_ASSERT_EQUAL(tc_red_eval_ewma(3000, 7, 1000), 4);           /* tc printed "ewma 4" */
        CU_ASSERT_EQUAL(tc_red_eval_ewma(150000, 600, 1000), 10);
        CU_ASSERT_EQUAL(tc_red_eval_ewma(3000, 2, 1000), -1);          /* burst too small for tc */
        CU_ASSERT_EQUAL(tc_red_eval_p(3000, 15000, 1.0), 14);
        CU_ASSERT_EQUAL(tc_red_eval_p(3000, 3000, 1.0), -1);
        CU_ASSERT(tc_red_eval_idle_damping(4, 1000, RATE_200MBIT, stab) >= 0);
        CU_ASSERT_EQUAL(stab[0], 0);
        CU_ASSERT_EQUAL(stab[255], 31);
        for (unsigned pct = 1; pct <= 100; pct++)
                CU_ASSERT_EQUAL(tc_red_pct(tc_red_max_p(pct)), pct);
        CU_ASSERT_EQUAL(tc_red_max_p(100), UINT32_MAX);
        /* min == max and 1-byte thresholds: tc would fail, the kernel accepts these */
        CU_ASSERT_EQUAL(tc_red_eval(3000, 3000, 100, true, RATE_200MBIT, &p), 0);
        CU_ASSERT_EQUAL(tc_red_eval(1, 1, 1, true, RATE_200MBIT, &p), 0);
        CU_ASSERT_EQUAL(p.limit, TC_RED_LIMIT_MIN);
        /* 64 MiB: Wlog kept below what red_check_params allows (fls(max) + Wlog < 32) */
        CU_ASSERT_EQUAL(tc_red_eval(1u << 26, 1u << 26, 100, true, RATE_200MBIT, &p), 0);
        CU_ASSERT(27 + p.wlog < 32);
        CU_ASSERT_EQUAL(p.limit, 1u << 28);
        /* a transmit time below one tick (400 Gbit/s) still gives a table tc would not */
        CU_ASSERT_EQUAL(tc_red_eval(150000, 1500000, 10, true, 50000000000ull, &p), 0);
        for (unsigned i = 0; i < 256; i++)
                CU_ASSERT(p.stab[i] <= 31);
        CU_ASSERT_EQUAL(tc_red_eval(0, 15000, 10, true, RATE_200MBIT, &p), -EINVAL);
        CU_ASSERT_EQUAL(tc_red_eval(20000, 15000, 10, true, RATE_200MBIT, &p), -EINVAL);
        CU_ASSERT_EQUAL(tc_red_eval(3000, 15000, 0, true, RATE_200MBIT, &p), -EINVAL);
}

/* ---- ets mapping ---- */

static void test_ets_mapping(void)
{
        struct state_ets s = { .prio_tc = { 0, 0, 0, 3, 0, 0, 6, 0 } }, back;
        struct tc_ets_opts o;
        struct errbuf e;

        for (unsigned tc = 0; tc < 8; tc++)
                s.tc_tsa[tc] = STATE_TSA_STRICT;
        CU_ASSERT_FATAL(qdisc_ets_from_state(&s, &o, &e) == 0);
        CU_ASSERT_EQUAL(o.nstrict, 8);
        CU_ASSERT_EQUAL(o.priomap[3], 4);       /* priority 3 -> tc 3 -> band 4 */
        CU_ASSERT_EQUAL(o.priomap[6], 1);
        CU_ASSERT_EQUAL(o.priomap[12], 7);      /* skb priorities 8-15 go with priority 0 */
        qdisc_ets_to_state(&o, &back);
        CU_ASSERT_EQUAL(memcmp(&back, &s, sizeof(s)), 0);
        /* 50/50 between tc 0 and tc 3 is not expressible: tc 1 and 2 would be strict below tc 3 */
        s.tc_tsa[0] = s.tc_tsa[3] = STATE_TSA_ETS;
        s.tc_bw_pct[0] = s.tc_bw_pct[3] = 50;
        CU_ASSERT_EQUAL(qdisc_ets_from_state(&s, &o, &e), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "strict tc 1 is below ets tc 3"));
        s.tc_tsa[1] = s.tc_tsa[2] = STATE_TSA_ETS;
        CU_ASSERT_EQUAL(qdisc_ets_from_state(&s, &o, &e), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "tc 1 is an ets class with bandwidth 0"));
        s.tc_bw_pct[0] = 40;
        s.tc_bw_pct[1] = s.tc_bw_pct[2] = 5;
        CU_ASSERT_FATAL(qdisc_ets_from_state(&s, &o, &e) == 0);
        CU_ASSERT_EQUAL(o.nstrict, 4);
        CU_ASSERT_EQUAL(o.quanta[4], 50 * QDISC_ETS_QUANTUM_PER_PCT);
        CU_ASSERT_EQUAL(o.quanta[7], 40 * QDISC_ETS_QUANTUM_PER_PCT);
        qdisc_ets_to_state(&o, &back);
        CU_ASSERT_EQUAL(memcmp(&back, &s, sizeof(s)), 0);
        /* quanta someone else wrote (MTU-sized): nearest percent, summing to 100 */
        o.quanta[4] = o.quanta[5] = o.quanta[6] = 1514;
        o.quanta[7] = 1500;
        qdisc_ets_to_state(&o, &back);
        CU_ASSERT_EQUAL(back.tc_bw_pct[0] + back.tc_bw_pct[1] + back.tc_bw_pct[2] + back.tc_bw_pct[3], 100);
        s.tc_tsa[5] = STATE_TSA_VENDOR;
        CU_ASSERT_EQUAL(qdisc_ets_from_state(&s, &o, &e), -EINVAL);
}

static void test_handles(void)
{
        char b[16];
        uint32_t h;

        CU_ASSERT_STRING_EQUAL(tc_nl_handle_str(TC_H_ROOT, b, sizeof(b)), "root");
        CU_ASSERT_STRING_EQUAL(tc_nl_handle_str(QDISC_ETS_HANDLE, b, sizeof(b)), "4e54:");
        CU_ASSERT_STRING_EQUAL(tc_nl_handle_str(QDISC_BAND_CLASS(3), b, sizeof(b)), "4e54:5");
        CU_ASSERT(tc_nl_handle_parse("1:1", &h) == 0 && h == 0x10001);
        CU_ASSERT(tc_nl_handle_parse("ffff:", &h) == 0 && h == 0xffff0000);
        CU_ASSERT(tc_nl_handle_parse("root", &h) == 0 && h == TC_H_ROOT);
        CU_ASSERT_EQUAL(tc_nl_handle_parse(":1", &h), -EINVAL);
        CU_ASSERT_EQUAL(tc_nl_handle_parse("10000:1", &h), -EINVAL);
        CU_ASSERT_EQUAL(tc_nl_handle_parse("1:x", &h), -EINVAL);
        CU_ASSERT_EQUAL(tc_nl_handle_parse("1", &h), -EINVAL);
}

/* ---- kernel support, read-only ---- */

static char kroot[64];

static void put_file(const char *rel, const char *text)
{
        char path[256];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", kroot, rel);
        for (char *s = strchr(path + strlen(kroot) + 1, '/'); s; s = strchr(s + 1, '/')) {
                *s = '\0';
                mkdir(path, 0755);
                *s = '/';
        }
        f = fopen(path, "we");
        CU_ASSERT_FATAL(f != NULL);
        fputs(text, f);
        fclose(f);
}

static void put_config(const char *text)
{
        char path[256];
        gzFile g;

        snprintf(path, sizeof(path), "%s/proc", kroot);
        mkdir(path, 0755);
        snprintf(path, sizeof(path), "%s/proc/config.gz", kroot);
        g = gzopen(path, "wb");
        CU_ASSERT_FATAL(g != NULL);
        gzputs(g, text);
        gzclose(g);
}

static enum tc_kmod_answer have(const char *module, const char *config, char *why)
{
        char sys[96], proc[96], mods[96];
        struct tc_kmod_roots r = { sys, proc, mods, "6.1.0-57-amd64" };

        snprintf(sys, sizeof(sys), "%s/sys", kroot);
        snprintf(proc, sizeof(proc), "%s/proc", kroot);
        snprintf(mods, sizeof(mods), "%s/lib/modules", kroot);
        tc_kmod_forget();
        return tc_kmod_have(&r, module, config, why, 256);
}

static void test_kmod(void)
{
        char why[256], cmd[96];

        snprintf(kroot, sizeof(kroot), "/tmp/nettune-kmod.XXXXXX");
        CU_ASSERT_FATAL(mkdtemp(kroot) != NULL);
        CU_ASSERT_EQUAL(have("sch_ets", "CONFIG_NET_SCH_ETS", why), TC_KMOD_UNKNOWN);
        put_config("CONFIG_NET_SCH_HTB=y\n# CONFIG_NET_SCH_ETS is not set\nCONFIG_NET_SCH_RED=y\n");
        CU_ASSERT_EQUAL(have("sch_ets", "CONFIG_NET_SCH_ETS", why), TC_KMOD_ABSENT);
        CU_ASSERT_PTR_NOT_NULL(strstr(why, "CONFIG_NET_SCH_ETS is not set"));
        CU_ASSERT_EQUAL(have("sch_red", "CONFIG_NET_SCH_RED", why), TC_KMOD_PRESENT);
        put_config("CONFIG_NET_SCH_ETS=m\n");
        CU_ASSERT_EQUAL(have("sch_ets", "CONFIG_NET_SCH_ETS", why), TC_KMOD_ABSENT);   /* =m, no module files */
        put_file("lib/modules/6.1.0-57-amd64/modules.dep",
                 "kernel/net/sched/sch_ets_x.ko:\nkernel/net/sched/sch_ets.ko.xz: kernel/net/core/x.ko\n");
        CU_ASSERT_EQUAL(have("sch_ets", "CONFIG_NET_SCH_ETS", why), TC_KMOD_PRESENT);
        CU_ASSERT_PTR_NOT_NULL(strstr(why, "can be loaded"));
        put_file("proc/sys/kernel/modules_disabled", "1\n");
        CU_ASSERT_EQUAL(have("sch_ets", "CONFIG_NET_SCH_ETS", why), TC_KMOD_ABSENT);
        put_file("lib/modules/6.1.0-57-amd64/modules.builtin", "kernel/net/sched/sch_ets.ko\n");
        CU_ASSERT_EQUAL(have("sch_ets", "CONFIG_NET_SCH_ETS", why), TC_KMOD_PRESENT);
        CU_ASSERT_PTR_NOT_NULL(strstr(why, "built in"));
        put_file("sys/module/sch_red/refcnt", "0\n");
        CU_ASSERT_EQUAL(have("sch_red", "CONFIG_NET_SCH_RED", why), TC_KMOD_PRESENT);
        CU_ASSERT_PTR_NOT_NULL(strstr(why, "is loaded"));
        tc_kmod_forget();
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", kroot);
        CU_ASSERT(system(cmd) == 0);
}

int suite_qdisc(void);
int suite_qdisc(void)
{
        CU_pSuite s = CU_add_suite("qdisc", NULL, NULL);

        if (!s || !CU_add_test(s, "ets_requests", test_ets_requests) ||
            !CU_add_test(s, "red_requests", test_red_requests) ||
            !CU_add_test(s, "dump_read_back", test_dump_read_back) ||
            !CU_add_test(s, "dump_foreign", test_dump_foreign) ||
            !CU_add_test(s, "kernel_error", test_kernel_error) ||
            !CU_add_test(s, "parse_rejects", test_parse_rejects) ||
            !CU_add_test(s, "red_math", test_red_math) ||
            !CU_add_test(s, "ets_mapping", test_ets_mapping) ||
            !CU_add_test(s, "handles", test_handles) ||
            !CU_add_test(s, "kmod", test_kmod))
                return -1;
        return 0;
}
