/* SPDX-License-Identifier: MIT */
#include <fnmatch.h>
#include <pthread.h>

#include "agent/api/api.h"
#include "agent/plan/plan.h"
#include "common/version.h"
#include "drivers/host/counters.h"
#include "drivers/host/iface.h"
#include "drivers/host/queues.h"
#include "drivers/switch/switch.h"
#include "drivers/switch/switch_counters.h"

static const char *const results[] = { "committed", "rolled_back", "failed", "pending_confirm",
                                       "nothing_to_do", "aborted", "refused" };

static struct {
        pthread_mutex_t lock;
        unsigned long tx_total[ARRAY_SIZE(results)];
        unsigned long rollbacks;
        unsigned drift[STATE_FIELD_MAX];
        double last_probe_gbps;
} m = { .lock = PTHREAD_MUTEX_INITIALIZER };

void metrics_record(const struct txn_result *r)
{
        pthread_mutex_lock(&m.lock);
        for (size_t i = 0; i < ARRAY_SIZE(results); i++)
                if (streq(r->result, results[i]))
                        m.tx_total[i]++;
        if (r->state == TXN_ROLLED_BACK && r->restored_by[0])
                m.rollbacks++;
        if (r->post.ok)
                m.last_probe_gbps = r->post.gbps;
        else if (r->baseline.ok)
                m.last_probe_gbps = r->baseline.gbps;
        pthread_mutex_unlock(&m.lock);
}

void metrics_set_drift(const struct plan *p)
{
        pthread_mutex_lock(&m.lock);
        memset(m.drift, 0, sizeof(m.drift));
        for (unsigned i = 0; i < p->n; i++)
                for (unsigned k = 0; k < p->v[i].diff.n; k++)
                        m.drift[p->v[i].diff.entries[k].field]++;
        pthread_mutex_unlock(&m.lock);
}

static unsigned pending_confirms(struct journal *j)
{
        int64_t *ids = NULL;
        unsigned n = 0, pending = 0;

        if (journal_unfinished(j, &ids, &n, NULL) < 0)
                return 0;
        for (unsigned i = 0; i < n; i++) {
                struct journal_tx t;

                if (journal_get(j, ids[i], &t, NULL) < 0)
                        continue;
                pending += t.state == TXN_PENDING_CONFIRM;
                journal_tx_done(&t);
        }
        free(ids);
        return pending;
}

/*
 * Every way back the journal recorded (gate, failed read-back or apply, expired
 * confirmation, recovery, rollback): from the decision to the last target restored
 * and read back. Buckets in seconds, as Prometheus histograms are.
 */
static void render_rollbacks(FILE *f, struct journal *j)
{
        static const double bounds_ms[] = { 5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000 };
        uint64_t counts[ARRAY_SIZE(bounds_ms)], n = 0;
        double sum_ms = 0;

        if (journal_rollback_histogram(j, bounds_ms, ARRAY_SIZE(bounds_ms), counts, &n, &sum_ms, NULL) < 0)
                return;
        fprintf(f, "# HELP nettune_rollback_seconds time from the decision to go back to the last target restored"
                " and read back\n# TYPE nettune_rollback_seconds histogram\n");
        for (size_t i = 0; i < ARRAY_SIZE(bounds_ms); i++)
                fprintf(f, "nettune_rollback_seconds_bucket{le=\"%g\"} %llu\n", bounds_ms[i] / 1000,
                        (unsigned long long)counts[i]);
        fprintf(f, "nettune_rollback_seconds_bucket{le=\"+Inf\"} %llu\nnettune_rollback_seconds_sum %.6f\n"
                "nettune_rollback_seconds_count %llu\n", (unsigned long long)n, sum_ms / 1000, (unsigned long long)n);
}

/*
 * The NIC's own pause storm events (mlx5 en_stats.c: tx_pause_storm_warning_events when it
 * paused past the minor stall watermark, tx_pause_storm_error_events when it stopped its
 * pause at the critical one; port-wide, no priority), written out of buf after the family
 * they were collected in.
 */
static void storm_event(FILE *storms, const char *ifname, const struct counter *x)
{
        bool warning = !strcmp(x->name, "tx_pause_storm_warning_events");

        if (warning || !strcmp(x->name, "tx_pause_storm_error_events"))
                fprintf(storms, "nettune_nic_pause_storm_events_total{interface=\"%s\",level=\"%s\"} %llu\n", ifname,
                        warning ? "warning" : "error", (unsigned long long)x->value);
}

/* Fields serve's enforcement stopped restoring: another writer keeps changing them (drift.c). */
static void render_second_writers(FILE *f, struct journal *j, const struct agent_config *c)
{
        struct second_writer *w = calloc(SECOND_WRITERS_MAX, sizeof(*w));
        int n = w ? second_writers_find(j, c, w, SECOND_WRITERS_MAX, NULL) : 0;

        fprintf(f, "# HELP nettune_second_writer restores of a field another writer keeps changing; enforcement "
                "leaves it alone until a person acts\n# TYPE nettune_second_writer gauge\n");
        for (int i = 0; i < n; i++)
                fprintf(f, "nettune_second_writer{target=\"%s\",field=\"%s\"} %u\n", w[i].target,
                        state_field_name(w[i].field), w[i].times);
        free(w);
}

static void render_counters(FILE *f, const struct agent_config *c, char (*ifs)[STATE_NAME_MAX], unsigned n)
{
        static struct counters cs;      /* large: not on the stack; render is serialised by caller */
        char *buf = NULL;
        size_t len = 0;
        FILE *storms = open_memstream(&buf, &len);

        fprintf(f, "# HELP nettune_nic_counter NIC pause, PFC, discard, ECN and CNP counters (the driver's names)\n"
                "# TYPE nettune_nic_counter counter\n");
        for (unsigned i = 0; i < n; i++) {
                if (counters_read(ifs[i], c->env.sysfs_root, &cs, NULL) < 0)
                        continue;
                for (unsigned k = 0; k < cs.n; k++) {
                        char prio[32] = "";

                        if (!cs.c[k].exported)
                                continue;
                        if (cs.c[k].prio >= 0)
                                snprintf(prio, sizeof(prio), ",priority=\"%d\"", cs.c[k].prio);
                        else if (cs.c[k].tc >= 0)
                                snprintf(prio, sizeof(prio), ",traffic_class=\"%d\"", cs.c[k].tc);
                        fprintf(f, "nettune_nic_counter{interface=\"%s\",counter=\"%s\",source=\"%s\"%s} %llu\n",
                                ifs[i], cs.c[k].name, cs.c[k].source, prio, (unsigned long long)cs.c[k].value);
                        if (storms)
                                storm_event(storms, ifs[i], &cs.c[k]);
                }
        }
        if (storms)
                fclose(storms);
        fprintf(f, "# HELP nettune_nic_pause_storm_events_total times the NIC's PFC stall prevention saw it pausing "
                "too long (warning) and stopped its pause (error)\n# TYPE nettune_nic_pause_storm_events_total "
                "counter\n%s", buf ? buf : "");
        free(buf);
}

static bool selected(const char *name, char (*globs)[STATE_NAME_MAX], unsigned n)
{
        for (unsigned i = 0; i < n; i++)
                if (!fnmatch(globs[i], name, 0))
                        return true;
        return false;
}

/* One switch's watchdog as the three families' samples (buffers: detected, restored, stormed). */
static void switch_watchdog(const struct agent_config *c, const struct switch_config *sw, FILE *out[4])
{
        static struct switch_wd_stats st;       /* large; render is serialised */
        struct target t = { .kind = TARGET_SWITCH, .sw = sw, .env = &c->env };
        struct errbuf e = { 0 };
        int r;

        snprintf(t.name, sizeof(t.name), "%s", sw->name);
        r = switch_driver.open(&t, &e);
        if (r >= 0)
                r = switch_wd_stats_read(&t, &st, &e);
        switch_driver.close(&t);
        fprintf(out[3], "nettune_pfc_watchdog_read{switch=\"%s\"} %d\n", sw->name, r >= 0);
        for (unsigned u = 0; r >= 0 && u < st.n_ports; u++)
                for (unsigned q = 0; q < STATE_TC_COUNT; q++) {
                        const struct switch_wd_queue *x = &st.q[u][q];
                        char labels[160];

                        if (!x->watched && !x->detected)
                                continue;
                        snprintf(labels, sizeof(labels), "{switch=\"%s\",port=\"%s\",priority=\"%u\"}", sw->name,
                                 sw->ports[u], q);
                        fprintf(out[0], "nettune_pfc_watchdog_storms_detected_total%s %llu\n", labels,
                                (unsigned long long)x->detected);
                        if (x->restored_known)
                                fprintf(out[1], "nettune_pfc_watchdog_storms_restored_total%s %llu\n", labels,
                                        (unsigned long long)x->restored);
                        fprintf(out[2], "nettune_pfc_watchdog_stormed%s %d\n", labels, x->stormed);
                }
}

/*
 * The PFC watchdog of the selected switches: storms detected and restored per port and
 * priority (the queue the switch names: under the factory maps the priority's own), and
 * whether a queue is stormed now; a switch whose counters could not be read says so.
 */
static void render_watchdog(FILE *f, const struct agent_config *c, char (*globs)[STATE_NAME_MAX], unsigned n)
{
        static const char *const head[4] = {
                "# HELP nettune_pfc_watchdog_storms_detected_total PFC storms a switch's watchdog detected\n"
                "# TYPE nettune_pfc_watchdog_storms_detected_total counter\n",
                "# HELP nettune_pfc_watchdog_storms_restored_total PFC storms after which a switch's watchdog gave the "
                "queue back (NVUE counts none)\n# TYPE nettune_pfc_watchdog_storms_restored_total counter\n",
                "# HELP nettune_pfc_watchdog_stormed 1 while the watchdog holds the queue out of a storm\n"
                "# TYPE nettune_pfc_watchdog_stormed gauge\n",
                "# HELP nettune_pfc_watchdog_read 1 when the switch's watchdog counters were read\n"
                "# TYPE nettune_pfc_watchdog_read gauge\n",
        };
        char *buf[4] = { NULL };
        size_t len[4] = { 0 };
        FILE *out[4];
        unsigned k = 0;

        while (k < 4 && (out[k] = open_memstream(&buf[k], &len[k])))
                k++;
        for (unsigned i = 0; k == 4 && i < c->n_switches; i++)
                if (selected(c->switches[i].name, globs, n))
                        switch_watchdog(c, &c->switches[i], out);
        for (unsigned i = 0; i < k; i++)
                fclose(out[i]);
        for (unsigned i = 0; k == 4 && i < 4; i++)
                fprintf(f, "%s%s", head[i], buf[i] ? buf[i] : "");
        for (unsigned i = 0; i < 4; i++)
                free(buf[i]);
}

static void queue_family(FILE *f, const char *name, const char *type, const char *help)
{
        fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* The Prometheus families nettune_queue_* for every interface of this namespace (switch role only). */
static void render_queues(FILE *f, const struct agent_config *c)
{
        static struct qdisc_queue_stats q[STATE_TC_COUNT];     /* render is serialised by the caller */
        _cleanup_free_ struct iface *v = NULL;
        struct errbuf e = { 0 };
        unsigned nv = 0;

        if (!c->env.switch_role)
                return;
        queue_family(f, "nettune_queue_ecn_marked_total", "counter", "packets marked CE by a queue of nettune's red qdiscs");
        queue_family(f, "nettune_queue_drops_total", "counter", "packets a queue dropped, by reason (early: RED, pdrop: "
               "queue limit, other)");
        queue_family(f, "nettune_queue_backlog_bytes", "gauge", "bytes queued now");
        queue_family(f, "nettune_queue_backlog_packets", "gauge", "packets queued now");
        if (iface_list(c->env.nl, c->env.sysfs_root, &v, &nv, &e) < 0)
                return;
        for (unsigned i = 0; i < nv; i++) {
                unsigned n = queues_read_link(&c->env, v[i].name, v[i].ifindex, q);

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

char *metrics_render(struct journal *j, const struct agent_config *c, char (*ifs)[STATE_NAME_MAX],
                     unsigned n_ifs, char (*switch_globs)[STATE_NAME_MAX], unsigned n_switch_globs)
{
        static pthread_mutex_t render_lock = PTHREAD_MUTEX_INITIALIZER;
        char *buf = NULL;
        size_t len = 0;
        unsigned pending = pending_confirms(j);
        FILE *f = open_memstream(&buf, &len);

        if (!f)
                return NULL;
        pthread_mutex_lock(&render_lock);
        pthread_mutex_lock(&m.lock);
        fprintf(f, "# HELP nettune_build_info build version\n# TYPE nettune_build_info gauge\n"
                "nettune_build_info{version=\"%s\"} 1\n", NETTUNE_VERSION);
        fprintf(f, "# HELP nettune_transactions_total finished transactions by result\n"
                "# TYPE nettune_transactions_total counter\n");
        for (size_t i = 0; i < ARRAY_SIZE(results); i++)
                fprintf(f, "nettune_transactions_total{result=\"%s\"} %lu\n", results[i], m.tx_total[i]);
        fprintf(f, "# HELP nettune_rollbacks_total transactions restored from their snapshot\n"
                "# TYPE nettune_rollbacks_total counter\nnettune_rollbacks_total %lu\n", m.rollbacks);
        fprintf(f, "# HELP nettune_drift_fields differences from the committed policy by field\n"
                "# TYPE nettune_drift_fields gauge\n");
        for (int i = 0; i < STATE_FIELD_MAX; i++)
                fprintf(f, "nettune_drift_fields{field=\"%s\"} %u\n", state_field_name(i), m.drift[i]);
        fprintf(f, "# HELP nettune_last_probe_gbps the newest probe rate\n# TYPE nettune_last_probe_gbps gauge\n"
                "nettune_last_probe_gbps %.3f\n", m.last_probe_gbps);
        pthread_mutex_unlock(&m.lock);
        fprintf(f, "# HELP nettune_pending_confirm transactions waiting for confirmation\n"
                "# TYPE nettune_pending_confirm gauge\nnettune_pending_confirm %u\n", pending);
        render_rollbacks(f, j);
        render_second_writers(f, j, c);
        render_counters(f, c, ifs, n_ifs);
        render_watchdog(f, c, switch_globs, n_switch_globs);
        render_queues(f, c);
        pthread_mutex_unlock(&render_lock);
        fclose(f);
        return buf;
}
