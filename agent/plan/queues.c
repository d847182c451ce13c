/* SPDX-License-Identifier: MIT */
/* Per-queue counters of nettune's qdisc tree for state and /metrics (see plan.h). */
#include <linux/pkt_sched.h>

#include "agent/plan/plan.h"
#include "drivers/host/iface.h"
#include "drivers/host/qdisc_ets.h"

static unsigned read_queues(const struct driver_env *env, const char *name, int ifindex,
                            struct qdisc_queue_stats *q)
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
        return t->env ? read_queues(t->env, t->name, t->ifindex, q) : 0;
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

static json_int_t member(const json_t *o, const char *key)
{
        return json_integer_value(json_object_get(o, key));
}

void queues_print(const json_t *queues)
{
        const json_t *q;
        size_t i;

        json_array_foreach(queues, i, q)
                printf("  queue %" JSON_INTEGER_FORMAT " (%s): marked %" JSON_INTEGER_FORMAT ", drops %"
                       JSON_INTEGER_FORMAT " (early %" JSON_INTEGER_FORMAT ", limit %" JSON_INTEGER_FORMAT
                       ", other %" JSON_INTEGER_FORMAT "), backlog %" JSON_INTEGER_FORMAT " bytes / %"
                       JSON_INTEGER_FORMAT " packets\n", member(q, "queue"),
                       json_is_true(json_object_get(q, "ecn")) ? "ecn" : "red",
                       member(q, "marked"), member(q, "drops"), member(q, "early_drops"),
                       member(q, "limit_drops"), member(q, "other_drops"), member(q, "backlog_bytes"),
                       member(q, "backlog_packets"));
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
        fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

void queues_render_metrics(FILE *f, const struct agent_config *c)
{
        static struct qdisc_queue_stats q[STATE_TC_COUNT];     /* render is serialised by the caller */
        _cleanup_free_ struct iface *v = NULL;
        struct errbuf e = { 0 };
        unsigned nv = 0;

        if (!c->env.switch_role)
                return;
        family(f, "nettune_queue_ecn_marked_total", "counter", "packets marked CE by a queue of nettune's red qdiscs");
        family(f, "nettune_queue_drops_total", "counter", "packets a queue dropped, by reason (early: RED, pdrop: "
               "queue limit, other)");
        family(f, "nettune_queue_backlog_bytes", "gauge", "bytes queued now");
        family(f, "nettune_queue_backlog_packets", "gauge", "packets queued now");
        if (iface_list(c->env.nl, c->env.sysfs_root, &v, &nv, &e) < 0)
                return;
        for (unsigned i = 0; i < nv; i++) {
                unsigned n = read_queues(&c->env, v[i].name, v[i].ifindex, q);

                for (unsigned k = 0; k < n; k++) {
                        const char *l = v[i].name;
                        unsigned qu = q[k].queue;

                        fprintf(f, "nettune_queue_ecn_marked_total{interface=\"%s\",queue=\"%u\"} %u\n", l, qu,
                                q[k].marked);
                        fprintf(f, "nettune_queue_drops_total{interface=\"%s\",queue=\"%u\",reason=\"early\"} %u\n",
                                l, qu, q[k].early);
                        fprintf(f, "nettune_queue_drops_total{interface=\"%s\",queue=\"%u\",reason=\"pdrop\"} %u\n",
                                l, qu, q[k].pdrop);
                        fprintf(f, "nettune_queue_drops_total{interface=\"%s\",queue=\"%u\",reason=\"other\"} %u\n",
                                l, qu, q[k].other);
                        fprintf(f, "nettune_queue_backlog_bytes{interface=\"%s\",queue=\"%u\"} %u\n", l, qu,
                                q[k].backlog_bytes);
                        fprintf(f, "nettune_queue_backlog_packets{interface=\"%s\",queue=\"%u\"} %u\n", l, qu,
                                q[k].backlog_packets);
                }
        }
}
