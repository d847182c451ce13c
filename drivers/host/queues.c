/* SPDX-License-Identifier: MIT */
/* Per-queue counters of nettune's qdisc tree for state, /metrics and doctor (see queues.h). */
#include <linux/pkt_sched.h>

#include "drivers/host/queues.h"

unsigned queues_read_link(const struct driver_env *env, const char *name, int ifindex, struct qdisc_queue_stats *q)
{
        struct errbuf e = { 0 };
        unsigned n = 0;

        if (!env->switch_role ||
            qdisc_driver_stats(env->nl, ifindex, driver_env_qdisc_parent(env, name), q, STATE_TC_COUNT, &n, &e) < 0)
                return 0;
        return n;
}

unsigned queues_read(const struct target *t, struct qdisc_queue_stats *q)
{
        return t->env ? queues_read_link(t->env, t->name, t->ifindex, q) : 0;
}

uint32_t queues_shaper_mbps(const struct target *t)
{
        uint32_t parent = t->env && t->env->switch_role ? driver_env_qdisc_parent(t->env, t->name) : TC_H_ROOT;
        struct errbuf e = { 0 };
        uint64_t Bps = 0;

        if (parent == TC_H_ROOT || !TC_H_MIN(parent) ||
            qdisc_driver_shaper_rate(t->env->nl, t->ifindex, parent, &Bps, &e) < 0)
                return 0;
        return (uint32_t)(Bps * 8 / 1000000 ? Bps * 8 / 1000000 : 1);
}

json_t *queues_json(const struct target *t)
{
        struct qdisc_queue_stats q[STATE_TC_COUNT];
        unsigned n = queues_read(t, q);
        json_t *a = json_array();

        for (unsigned i = 0; a && i < n; i++)
                json_array_append_new(a, json_pack("{s:i,s:b,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}",
                                                   "queue", (int)q[i].queue, "ecn", q[i].ecn,
                                                   "marked", (json_int_t)q[i].marked,
                                                   "early_drops", (json_int_t)q[i].early,
                                                   "limit_drops", (json_int_t)q[i].pdrop,
                                                   "other_drops", (json_int_t)q[i].other,
                                                   "drops", (json_int_t)q[i].drops,
                                                   "backlog_bytes", (json_int_t)q[i].backlog_bytes,
                                                   "backlog_packets", (json_int_t)q[i].backlog_packets,
                                                   "sent_bytes", (json_int_t)q[i].bytes,
                                                   "sent_packets", (json_int_t)q[i].packets));
        return a;
}
