/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: arbitrary bytes as a buffer of RTM_GETQDISC dump replies (what the qdisc
 * driver reads from the kernel), through the netlink helper, the TC parser
 * (ets/red options, TCA_STATS2, red xstats), the tree classification at the root
 * and under a class, and the mapping to state and its JSON.
 */
#include <jansson.h>
#include <linux/rtnetlink.h>

#include "drivers/host/qdisc_tree.h"
#include "drivers/host/tc_nl.h"
#include "policies/state/state_json.h"
#include "tests/fuzz/fuzz_nl.h"

struct trees {
        struct qdisc_tree at_root, at_class;
};

static int fuzz_nl_cb(const struct nlmsghdr *nlh, void *data)
{
        struct trees *t = data;
        struct tc_qdisc q;

        if (tc_nl_parse(nlh, &q) < 0)
                return MNL_CB_OK;
        if (strnlen(q.kind, sizeof(q.kind)) >= sizeof(q.kind))
                __builtin_trap();
        if (q.has_ets && (q.ets.nbands < 1 || q.ets.nbands > TC_NL_BANDS_MAX || q.ets.nstrict > q.ets.nbands))
                __builtin_trap();
        qdisc_tree_add(&t->at_root, &q);
        qdisc_tree_add(&t->at_class, &q);
        return MNL_CB_OK;
}

static void check(struct qdisc_tree *t)
{
        struct errbuf e;
        struct state s;
        json_t *j;

        if (qdisc_tree_finish(t, &e) < 0)
                return;
        state_init(&s);
        qdisc_tree_to_state(t, STATE_BIT(STATE_FIELD_ETS) | STATE_BIT(STATE_FIELD_ECN), &s);
        for (unsigned p = 0; p < STATE_PRIO_COUNT; p++)
                if (s.ets.prio_tc[p] >= STATE_TC_COUNT)
                        __builtin_trap();
        /* every queue described; one without nettune's red does not mark */
        for (unsigned q = 0; q < STATE_TC_COUNT; q++)
                if (!(s.ecn.queues & (1u << q)) || s.ecn.q[q].probability_pct > 100 ||
                    (!qdisc_tree_red(t, q) && s.ecn.q[q].enabled))
                        __builtin_trap();
        j = state_to_json(&s);
        json_decref(j);
}

static struct trees t;

static void fuzz_nl_start(void)
{
        qdisc_tree_init(&t.at_root, TC_H_ROOT);
        qdisc_tree_init(&t.at_class, 0x10001);
        fuzz_nl_data = &t;
}

static void fuzz_nl_done(void)
{
        check(&t.at_root);
        check(&t.at_class);
}
