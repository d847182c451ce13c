/* SPDX-License-Identifier: MIT */
#include <pthread.h>

#include "agent/api/api.h"
#include "agent/plan/plan.h"
#include "common/version.h"
#include "drivers/host/counters.h"

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

static void render_counters(FILE *f, const struct agent_config *c, char (*ifs)[STATE_NAME_MAX], unsigned n)
{
        static struct counters cs;      /* large: not on the stack; render is serialised by caller */

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
                }
        }
}

char *metrics_render(struct journal *j, const struct agent_config *c, char (*ifs)[STATE_NAME_MAX],
                     unsigned n_ifs)
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
        render_counters(f, c, ifs, n_ifs);
        queues_render_metrics(f, c);
        pthread_mutex_unlock(&render_lock);
        fclose(f);
        return buf;
}
