/* SPDX-License-Identifier: MIT */
/* The probe table, `auto` selection, and measurements of N runs with their median. */
#include <math.h>
#include <netinet/in.h>
#include <time.h>

#include "drivers/probe/probe.h"
#include "drivers/probe/probe_net.h"

const struct probe_ops *probe_ops_for(enum probe_mode m)
{
        switch (m) {
        case PROBE_MODE_VERBS:
                return &probe_verbs_ops;
        case PROBE_MODE_TCP:
                return &probe_tcp_ops;
        default:
                return NULL;
        }
}

int probe_run(const struct probe_params *p, enum probe_mode mode, struct probe_result *ret, struct errbuf *e)
{
        struct probe_params pinned;
        struct probe_path path;
        const struct probe_ops *ops;
        struct probe_result r;
        int k;

        k = probe_params_check(p, e);
        if (k < 0)
                return k;
        if (mode == PROBE_MODE_AUTO) {
                k = probe_pin(p, mode, &pinned, &path, NULL, 0, e);
                if (k < 0)
                        return k;
                p = &pinned;
                mode = path.mode;
        }
        ops = probe_ops_for(mode);
        if (!ops)
                return errbuf_set(e, EINVAL, NULL, "unknown probe mode %d", (int)mode);
        k = ops->run(p, &r, e);
        if (k < 0)
                return k;
        *ret = r;
        return 0;
}

/* A run that ran somewhere else than the pinned path does not count. */
static int check_run(const struct probe_path *path, const struct probe_result *r, struct errbuf *e)
{
        if (path->mode == PROBE_MODE_VERBS && (!streq(r->device, path->device) || r->gid_index != path->gid_index ||
                                               !streq(r->gid, path->gid)))
                return errbuf_set(e, EXDEV, NULL, "run used RDMA device '%s' GID %d (%s), pinned '%s' GID %d (%s)",
                                  r->device, r->gid_index, r->gid, path->device, path->gid_index, path->gid);
        if (path->source[0] && r->source[0] && !streq(r->source, path->source))
                return errbuf_set(e, EXDEV, NULL, "run left from '%s', pinned '%s'", r->source, path->source);
        if (path->dscp >= 0 && r->dscp != path->dscp)
                return errbuf_set(e, EXDEV, NULL, "run sent DSCP %d, pinned %d", r->dscp, path->dscp);
        /* Verbs: Soft-RoCE keeps no SL in its address vector (rxe_av_to_attr), so the device's word on
         * the SL is not a check there; the run reports it. */
        if (path->mode == PROBE_MODE_TCP && path->priority >= 0 && r->priority != path->priority)
                return errbuf_set(e, EXDEV, NULL, "run sent priority %d, pinned %d", r->priority, path->priority);
        return 0;
}

/*
 * An opaque measurement that no responder answered: the cause kept for the log, the
 * answer the same words, EHOSTUNREACH, timeout_ms after started_ns whatever the cause.
 */
static int no_answer(const struct probe_params *p, uint64_t started_ns, struct probe_measurement *m,
                     struct errbuf *e)
{
        uint64_t until = started_ns + (uint64_t)p->timeout_ms * 1000000ull, now;

        errbuf_str(e, m->cause, sizeof(m->cause));
        m->unanswered = true;
        while ((now = probe_now_ns()) < until) {
                struct timespec ts = { .tv_sec = (time_t)((until - now) / 1000000000ull),
                                       .tv_nsec = (long)((until - now) % 1000000000ull) };

                nanosleep(&ts, NULL);
        }
        return errbuf_set(e, EHOSTUNREACH, NULL, PROBE_NO_RESPONDER);
}

static void fail_all(struct probe_measurement *m, const struct errbuf *e)
{
        errbuf_str(e, m->error, sizeof(m->error));
        m->ok = false;
        m->median_gbps = NAN;
}

/* A run that waits its turn at a busy responder, at most p->busy_wait_ms in all. */
static int run_waiting(const struct probe_params *p, enum probe_mode mode, struct probe_result *ret,
                       struct errbuf *e)
{
        uint64_t t0 = probe_now_ns();
        unsigned step = 0;

        for (;;) {
                int r = probe_run(p, mode, ret, e);
                uint64_t waited_ms = (probe_now_ns() - t0) / 1000000ull;
                /* spread the clients that were turned away together: 1 to 1.5 retry periods */
                unsigned pause = PROBE_BUSY_RETRY_MS + (unsigned)((step++ * 7919u + (unsigned)t0) % (PROBE_BUSY_RETRY_MS / 2));
                struct timespec ts = { .tv_sec = pause / 1000, .tv_nsec = (long)(pause % 1000) * 1000000 };

                if (r != -EBUSY || !streq(e->where, "probe server") || waited_ms + pause > p->busy_wait_ms)
                        return r;
                nanosleep(&ts, NULL);
        }
}

int probe_measure_pinned(const struct probe_params *pinned, const struct probe_path *path, unsigned runs,
                         const struct probe_observer *obs, struct probe_measurement *ret, struct errbuf *e)
{
        struct probe_measurement m = { .mode = path->mode, .path = *path };
        double rates[PROBE_RUNS_MAX];
        int first = 0;

        if (runs < 1 || runs > PROBE_RUNS_MAX) {
                errbuf_set(e, EINVAL, "runs", "%u out of range 1-%u", runs, PROBE_RUNS_MAX);
                fail_all(&m, e);
                *ret = m;
                return -EINVAL;
        }
        for (unsigned i = 0; i < runs && !m.unanswered; i++) {
                struct errbuf re = { .msg = "" };
                uint64_t t0 = probe_now_ns();
                int r = run_waiting(pinned, m.mode, &m.runs[i], &re);

                if (r < 0 && pinned->opaque && probe_unanswered(&re))
                        r = no_answer(pinned, t0, &m, &re);     /* and no second run */
                if (r >= 0)
                        r = check_run(path, &m.runs[i], &re);
                m.n_runs++;
                m.run_error[i] = r < 0 ? r : 0;
                if (obs && obs->run_done)
                        obs->run_done(obs->userdata, i, runs, &m.runs[i], r);
                if (r >= 0) {
                        rates[m.n_ok++] = m.runs[i].gbps;
                        continue;
                }
                snprintf(m.runs[i].mode, sizeof(m.runs[i].mode), "%s", probe_mode_name(m.mode));
                if (!first) {
                        first = r;
                        errbuf_str(&re, m.error, sizeof(m.error));
                        if (e)
                                *e = re;
                }
        }
        m.ok = m.n_ok == runs;
        if (m.unanswered && !m.ok)
                snprintf(m.error, sizeof(m.error), "%s", PROBE_NO_RESPONDER);
        m.median_gbps = m.n_ok ? probe_median(rates, m.n_ok) : NAN;
        *ret = m;
        return first;
}

int probe_measure(const struct probe_params *p, enum probe_mode mode, unsigned runs,
                  struct probe_measurement *ret, struct errbuf *e)
{
        return probe_measure_observed(p, mode, runs, NULL, ret, e);
}

int probe_measure_observed(const struct probe_params *p, enum probe_mode mode, unsigned runs,
                           const struct probe_observer *obs, struct probe_measurement *ret,
                           struct errbuf *e)
{
        struct probe_measurement m = { .mode = mode };
        struct probe_params pinned;
        struct probe_path path;
        uint64_t t0 = probe_now_ns();
        int r;

        if (runs < 1 || runs > PROBE_RUNS_MAX)
                r = errbuf_set(e, EINVAL, "runs", "%u out of range 1-%u", runs, PROBE_RUNS_MAX);
        else
                r = probe_pin(p, mode, &pinned, &path, NULL, 0, e);
        if (r < 0 && p->opaque && probe_unanswered(e)) {
                r = no_answer(p, t0, &m, e);    /* one run that no responder answered, as a closed port's */
                m.mode = mode == PROBE_MODE_AUTO ? PROBE_MODE_TCP : mode;
                m.n_runs = 1;
                m.run_error[0] = r;
        }
        if (r < 0) {
                fail_all(&m, e);
                *ret = m;
                return r;
        }
        return probe_measure_pinned(&pinned, &path, runs, obs, ret, e);
}

static int cmp_double(const void *a, const void *b)
{
        double x = *(const double *)a, y = *(const double *)b;

        return (x > y) - (x < y);
}

double probe_median(const double *v, unsigned n)
{
        double s[PROBE_RUNS_MAX];

        if (n == 0 || n > PROBE_RUNS_MAX)
                return NAN;
        memcpy(s, v, n * sizeof(*v));
        qsort(s, n, sizeof(*s), cmp_double);
        return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
}

json_t *probe_json_gbps(double v)
{
        return isfinite(v) ? json_real(v) : json_null();
}

json_t *probe_json_rtt(double ms)
{
        return isfinite(ms) && ms > 0 ? json_real(round(ms * 1000) / 1000) : json_null();
}

double probe_measurement_rtt_ms(const struct probe_measurement *m)
{
        double best = 0;

        for (unsigned i = 0; i < m->n_runs && i < PROBE_RUNS_MAX; i++)
                if (m->run_error[i] >= 0 && m->runs[i].rtt_ms > 0 && (best == 0 || m->runs[i].rtt_ms < best))
                        best = m->runs[i].rtt_ms;
        return best;
}

static json_t *run_to_json(const struct probe_measurement *m, unsigned i)
{
        const struct probe_result *r = &m->runs[i];

        if (m->run_error[i] < 0)
                return json_pack("{s:s, s:i}", "error", m->unanswered ? PROBE_NO_RESPONDER : strerror(-m->run_error[i]),
                                 "errno", -m->run_error[i]);
        return json_pack("{s:s, s:f, s:I, s:f, s:i, s:i, s:s, s:i, s:s, s:i, s:i, s:o}", "mode", r->mode,
                         "gbps", r->gbps, "bytes", (json_int_t)r->bytes, "seconds", r->seconds,
                         "iterations", (int)r->iterations, "streams", (int)r->streams, "device", r->device,
                         "gid_index", r->gid_index, "source", r->source, "dscp", r->dscp, "priority", r->priority,
                         "rtt_ms", probe_json_rtt(r->rtt_ms));
}

json_t *probe_measurement_to_json(const struct probe_measurement *m)
{
        json_t *runs = json_array(), *o;

        if (!runs)
                return NULL;
        for (unsigned i = 0; i < m->n_runs && i < PROBE_RUNS_MAX; i++)
                json_array_append_new(runs, run_to_json(m, i));
        o = json_pack("{s:s, s:b, s:o, s:o, s:i, s:i}", "mode", probe_mode_name(m->mode), "ok", m->ok,
                      "median_gbps", probe_json_gbps(m->ok ? m->median_gbps : NAN), "runs", runs,
                      "n_runs", (int)m->n_runs, "n_ok", (int)m->n_ok);
        if (o && m->mode != PROBE_MODE_AUTO && !m->unanswered)
                json_object_set_new(o, "path", probe_path_to_json(&m->path));
        if (o && m->error[0])
                json_object_set_new(o, "error", json_string(m->error));
        return o;
}
