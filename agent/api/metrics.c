/* SPDX-License-Identifier: MIT */
#include <fnmatch.h>
#include <pthread.h>

#include "agent/api/api.h"
#include "agent/plan/plan.h"
#include "common/version.h"
#include "drivers/host/counters.h"
#include "drivers/host/iface.h"
#include "drivers/host/queues.h"
#include "drivers/host/sampler.h"
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

/* ---- the counter sampler of serve (drivers/host/sampler.h) ---- */

static struct {
        pthread_mutex_t lock;
        bool open;
        struct sampler s;
        unsigned n;
        char ifs[SAMPLER_IFS_MAX][IF_NAMESIZE];
} smp = { .lock = PTHREAD_MUTEX_INITIALIZER };

static bool same_ifs(char (*ifs)[STATE_NAME_MAX], unsigned n)
{
        if (!smp.open || n != smp.n)
                return false;
        for (unsigned i = 0; i < n; i++)
                if (!streq(ifs[i], smp.ifs[i]))
                        return false;
        return true;
}

int metrics_sampler_sync(const struct agent_config *c, char (*ifs)[STATE_NAME_MAX], unsigned n, struct errbuf *e)
{
        struct sampler_opts o = { .period_ms = c->counters_sample_ms, .sysfs_root = c->env.sysfs_root,
                                  .nl = c->env.nl };
        int r = 0;

        if (n > SAMPLER_IFS_MAX)
                n = SAMPLER_IFS_MAX;
        pthread_mutex_lock(&smp.lock);
        if (!same_ifs(ifs, n)) {
                if (smp.open)
                        sampler_close(&smp.s);
                smp.open = false;
                smp.n = 0;
                for (unsigned i = 0; i < n; i++)
                        if (strlen(ifs[i]) < IF_NAMESIZE)
                                snprintf(smp.ifs[smp.n++], IF_NAMESIZE, "%s", ifs[i]);
                r = sampler_open(&smp.s, &o, (const char (*)[IF_NAMESIZE])smp.ifs, smp.n, e);
                if (r >= 0 && (r = sampler_start(&smp.s)) < 0)
                        errbuf_set(e, -r, NULL, "counter sampler: cannot start its thread");
                if (r >= 0)
                        smp.open = true;
                else
                        sampler_close(&smp.s);
        }
        pthread_mutex_unlock(&smp.lock);
        return r;
}

void metrics_sampler_close(void)
{
        pthread_mutex_lock(&smp.lock);
        if (smp.open)
                sampler_close(&smp.s);
        smp.open = false;
        smp.n = 0;
        pthread_mutex_unlock(&smp.lock);
}

static void series_labels(const struct sampler_series *x, char *buf, size_t size)
{
        int k = snprintf(buf, size, "interface=\"%s\",counter=\"%s\",kind=\"%s\"", x->ifname, x->name,
                         doctor_counter_name(x->kind));

        if (x->prio != DOCTOR_PRIO_ANY && k > 0 && (size_t)k < size)
                snprintf(buf + k, size - (size_t)k, ",priority=\"%d\"", x->prio);
}

static void histogram(FILE *f, const char *family, const struct sampler_series *x, const double *bounds,
                      const char *labels)
{
        uint64_t cum = 0;

        for (unsigned b = 0; b < SAMPLER_BUCKETS; b++) {
                cum += x->bucket[b];
                fprintf(f, "%s_bucket{%s,le=\"%g\"} %llu\n", family, labels, bounds[b], (unsigned long long)cum);
        }
        fprintf(f, "%s_bucket{%s,le=\"+Inf\"} %llu\n%s_sum{%s} %.6g\n%s_count{%s} %llu\n", family, labels,
                (unsigned long long)x->count, family, labels, x->sum, family, labels, (unsigned long long)x->count);
}

/*
 * Every series of the sampler: its rate per sample as a histogram (a pause duration: the
 * share of the sample paused), the peak and the mean of the last complete window, and
 * the pause bursts it saw.
 */
static void render_sampler(FILE *f)
{
        static const char *const head[5] = {
                "# HELP nettune_counter_rate_per_second a congestion counter's rate over each sample of "
                "counters.sample_ms\n# TYPE nettune_counter_rate_per_second histogram\n",
                "# HELP nettune_pause_paused_ratio the share of each sample a port was paused (pause duration "
                "counters)\n# TYPE nettune_pause_paused_ratio histogram\n",
                "# HELP nettune_counter_window_peak_per_second the highest rate of one sample in the last window "
                "(1 s)\n# TYPE nettune_counter_window_peak_per_second gauge\n",
                "# HELP nettune_counter_window_mean_per_second the mean rate over the last window (1 s)\n"
                "# TYPE nettune_counter_window_mean_per_second gauge\n",
                "# HELP nettune_pause_bursts_total bursts of pause (samples at or above 1000 pause frames/s, or "
                "paused half the sample) that ended\n# TYPE nettune_pause_bursts_total counter\n",
        };
        char *buf[5] = { NULL };
        size_t len[5] = { 0 };
        FILE *out[5];
        unsigned k = 0;

        pthread_mutex_lock(&smp.lock);
        if (!smp.open) {
                pthread_mutex_unlock(&smp.lock);
                return;
        }
        while (k < 5 && (out[k] = open_memstream(&buf[k], &len[k])))
                k++;
        sampler_lock(&smp.s);
        fprintf(f, "# HELP nettune_counter_sampler_period_seconds the counter sampler's period (counters.sample_ms)\n"
                "# TYPE nettune_counter_sampler_period_seconds gauge\nnettune_counter_sampler_period_seconds %g\n"
                "# HELP nettune_counter_sampler_samples_total samples the counter sampler took\n"
                "# TYPE nettune_counter_sampler_samples_total counter\nnettune_counter_sampler_samples_total %llu\n"
                "# HELP nettune_counter_sampler_overruns_total periods a sample did not fit in\n"
                "# TYPE nettune_counter_sampler_overruns_total counter\nnettune_counter_sampler_overruns_total %llu\n",
                smp.s.o.period_ms / 1000.0, (unsigned long long)smp.s.samples, (unsigned long long)smp.s.overruns);
        for (unsigned i = 0; k == 5 && i < smp.s.n; i++) {
                const struct sampler_series *x = &smp.s.v[i];
                char labels[256];

                series_labels(x, labels, sizeof(labels));
                histogram(out[x->duration], x->duration ? "nettune_pause_paused_ratio" :
                          "nettune_counter_rate_per_second", x, x->duration ? sampler_share_bounds :
                          sampler_rate_bounds, labels);
                fprintf(out[2], "nettune_counter_window_peak_per_second{%s} %.6g\n", labels,
                        x->last_window ? x->lw_peak : x->w_peak);
                fprintf(out[3], "nettune_counter_window_mean_per_second{%s} %.6g\n", labels,
                        x->last_window ? x->lw_mean : x->w_dt > 0 ? (double)x->w_delta / x->w_dt : 0);
                if (x->kind == DOCTOR_PAUSE_RX || x->kind == DOCTOR_PAUSE_TX)
                        fprintf(out[4], "nettune_pause_bursts_total{%s} %llu\n", labels,
                                (unsigned long long)x->bursts);
        }
        sampler_unlock(&smp.s);
        pthread_mutex_unlock(&smp.lock);
        for (unsigned i = 0; i < k; i++)
                fclose(out[i]);
        for (unsigned i = 0; k == 5 && i < 5; i++)
                fprintf(f, "%s%s", head[i], buf[i] ? buf[i] : "");
        for (unsigned i = 0; i < 5; i++)
                free(buf[i]);
}

/* An instant as "2026-12-08T12:00:01.230Z". */
static void iso_ms(int64_t ms, char *buf, size_t size)
{
        time_t t = (time_t)(ms / 1000);
        struct tm tm;
        char s[32];

        gmtime_r(&t, &tm);
        strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
        snprintf(buf, size, "%s.%03dZ", s, (int)(ms % 1000));
}

json_t *metrics_burst_json(const char *ifname, const struct doctor_burst *b)
{
        char at[40];
        json_t *o;

        iso_ms(b->start_ms, at, sizeof(at));
        o = json_pack("{s:s,s:s,s:s,s:s,s:I,s:I,s:I,s:f,s:b}", "interface", ifname, "counter", b->name, "kind",
                      doctor_counter_name(b->kind), "start", at, "start_ms", (json_int_t)b->start_ms, "length_ms",
                      (json_int_t)b->length_ms, "count", (json_int_t)b->count, "peak_per_s", b->peak_per_s,
                      "duration", b->duration);
        if (o && b->prio != DOCTOR_PRIO_ANY)
                json_object_set_new(o, "priority", json_integer(b->prio));
        return o;
}

json_t *metrics_sampler_json(void)
{
        struct doctor_burst *b = calloc(SAMPLER_BURSTS_MAX * 2, sizeof(*b));
        json_t *o = json_object(), *ifs = json_array(), *cs = json_array(), *bs = json_array();

        if (!b || !o || !ifs || !cs || !bs) {
                free(b);
                json_decref(o);
                json_decref(ifs);
                json_decref(cs);
                json_decref(bs);
                return NULL;
        }
        pthread_mutex_lock(&smp.lock);
        json_object_set_new(o, "running", json_boolean(smp.open));
        if (smp.open) {
                sampler_lock(&smp.s);
                json_object_set_new(o, "sample_ms", json_integer(smp.s.o.period_ms));
                json_object_set_new(o, "window_ms", json_integer(SAMPLER_WINDOW_MS));
                json_object_set_new(o, "samples", json_integer((json_int_t)smp.s.samples));
                json_object_set_new(o, "overruns", json_integer((json_int_t)smp.s.overruns));
                for (unsigned i = 0; i < smp.s.n_ifs; i++) {
                        unsigned n = sampler_bursts(&smp.s, smp.ifs[i], 0, b, SAMPLER_BURSTS_MAX * 2);

                        json_array_append_new(ifs, json_string(smp.ifs[i]));
                        for (unsigned k = 0; k < n; k++)
                                json_array_append_new(bs, metrics_burst_json(smp.ifs[i], &b[k]));
                }
                for (unsigned i = 0; i < smp.s.n; i++) {
                        const struct sampler_series *x = &smp.s.v[i];
                        int64_t peak_ms = x->last_window ? x->lw_peak_ms : x->w_peak_ms;
                        char at[40] = "";
                        json_t *c;

                        if (peak_ms)
                                iso_ms(peak_ms, at, sizeof(at));
                        c = json_pack("{s:s,s:s,s:s,s:f,s:s,s:f,s:I,s:I,s:I}", "interface", x->ifname, "counter",
                                      x->name, "kind", doctor_counter_name(x->kind), "peak_per_s",
                                      x->last_window ? x->lw_peak : x->w_peak, "peak_at", at, "mean_per_s",
                                      x->last_window ? x->lw_mean : x->w_dt > 0 ? (double)x->w_delta / x->w_dt : 0,
                                      "total", (json_int_t)x->total, "bursts", (json_int_t)x->bursts,
                                      "resets", (json_int_t)x->resets);
                        if (c && x->prio != DOCTOR_PRIO_ANY)
                                json_object_set_new(c, "priority", json_integer(x->prio));
                        if (c && x->max_ms) {
                                iso_ms(x->max_ms, at, sizeof(at));
                                json_object_set_new(c, "max_per_s", json_real(x->max));
                                json_object_set_new(c, "max_at", json_string(at));
                        }
                        json_array_append_new(cs, c);
                }
                sampler_unlock(&smp.s);
        }
        pthread_mutex_unlock(&smp.lock);
        free(b);
        json_object_set_new(o, "interfaces", ifs);
        json_object_set_new(o, "counters", cs);
        json_object_set_new(o, "bursts", bs);
        return o;
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
        render_sampler(f);
        render_watchdog(f, c, switch_globs, n_switch_globs);
        render_queues(f, c);
        pthread_mutex_unlock(&render_lock);
        fclose(f);
        return buf;
}
