/* SPDX-License-Identifier: MIT */
/* One node's flows of a fabric probe: the request body, concurrent runs at one start time, the answer. */
#include <math.h>
#include <pthread.h>
#include <time.h>

#include "drivers/probe/probe_flows.h"
#include "drivers/probe/probe_request.h"
#include "policies/json/jsonv.h"

/* ---- the request body ---- */

/* Indexes are enum probe_mode values. */
static const char *const mode_names[] = { "auto", "verbs", "tcp", NULL };

struct flow_in {
        unsigned id;
        enum probe_mode mode;
        int dscp;
        struct probe_params params;
};

static int check_peer(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_check_hostport(v, "peer", json_string_value(j));
}

static int check_netdev(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_check_chars(v, "interface", json_string_value(j), "-_.@+");
}

static const struct jsonv_field flow_fields[] = {
        JSONV_UINT_REQ("id", struct flow_in, id, 0, PROBE_FLOWS_ID_MAX),
        { .key = "peer", .type = JSONV_STRING, .flags = JSONV_REQUIRED | JSONV_NONEMPTY,
          JSONV_MEMBER(struct flow_in, params.peer), .parse = check_peer },
        JSONV_ENUM("mode", struct flow_in, mode, mode_names, 0),
        JSONV_UINT("dscp", struct flow_in, dscp, 0, 63),
        JSONV_UINT("priority", struct flow_in, params.priority, 0, 7),
        JSONV_UINT("streams", struct flow_in, params.streams, 1, PROBE_STREAMS_MAX),
        JSONV_UINT("message_size", struct flow_in, params.message_size, PROBE_MESSAGE_MIN, PROBE_MESSAGE_MAX),
        { .key = "interface", .type = JSONV_STRING, .flags = JSONV_NONEMPTY,
          JSONV_MEMBER(struct flow_in, params.netdev), .parse = check_netdev },
        { 0 },
};

static int parse_flow(struct jsonv *v, const json_t *j, size_t i, void *ctx)
{
        struct probe_flows *f = ctx;
        struct flow_in in = { .mode = PROBE_MODE_AUTO, .dscp = -1 };
        struct probe_flow *fl = &f->v[i];
        int r;

        probe_params_init(&in.params);
        r = jsonv_object(v, j, flow_fields, &in);
        if (r < 0)
                return r;
        for (size_t k = 0; k < i; k++)
                if (f->v[k].id == in.id) {
                        jsonv_push_key(v, "id");
                        r = jsonv_error(v, "duplicate flow id %u", in.id);
                        jsonv_pop(v);
                        return r;
                }
        *fl = (struct probe_flow) { .id = in.id, .mode = in.mode, .params = in.params };
        if (in.dscp >= 0)
                fl->params.traffic_class = in.dscp << 2;
        fl->params.timeout_ms = PROBE_FLOWS_TIMEOUT_MS;
        fl->params.opaque = true;       /* a flow to a peer that never answered says only that */
        f->n = (unsigned)i + 1;
        return 0;
}

static int parse_flows(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object_array(v, j, "flow", "flows", 1, PROBE_FLOWS_MAX, parse_flow, obj);
}

static const struct jsonv_field request_fields[] = {
        { .key = "start_at_ms", .type = JSONV_INTEGER, .flags = JSONV_REQUIRED, .min = 1, .max = INT64_MAX / 2,
          JSONV_MEMBER(struct probe_flows, start_at_ms) },
        JSONV_UINT("duration_ms", struct probe_flows, duration_ms, PROBE_REQUEST_DURATION_MIN_MS,
                   PROBE_REQUEST_DURATION_MAX_MS),
        JSONV_CUSTOM("flows", JSONV_ARRAY, JSONV_REQUIRED, parse_flows),
        { 0 },
};

int probe_flows_request_parse(const char *body, size_t len, struct probe_flows *ret, struct errbuf *e)
{
        _cleanup_free_ struct probe_flows *f = calloc(1, sizeof(*f));
        json_auto_t *root = NULL;
        struct jsonv v;
        int r;

        if (!f)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        f->duration_ms = 2000;
        r = jsonv_parse(body, len, "request body", PROBE_FLOWS_BODY_MAX, &root, e);
        if (r < 0)
                return r;
        jsonv_init(&v, NULL, e);
        r = jsonv_object(&v, root, request_fields, f);
        if (r < 0)
                return r;
        for (unsigned i = 0; i < f->n; i++)
                f->v[i].params.duration_ms = f->duration_ms;
        *ret = *f;
        return 0;
}

/* ---- running the flows ---- */

int64_t probe_flows_now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

struct flow_job {
        struct probe_flow *fl;
        struct probe_params pinned;
        int64_t start_at_ms;
        pthread_t tid;
        bool started;
        bool unanswered;                /* its route failed: it ends as a peer that never answered */
};

static void sleep_until(int64_t at_ms)
{
        struct timespec ts = { .tv_sec = at_ms / 1000, .tv_nsec = (long)(at_ms % 1000) * 1000000 };

        while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &ts, NULL) == EINTR)
                ;
}

static void *flow_thread(void *arg)
{
        struct flow_job *j = arg;
        struct probe_flow *fl = j->fl;
        struct probe_measurement *m = malloc(sizeof(*m));
        struct errbuf e = { .msg = "" };

        sleep_until(j->start_at_ms);
        fl->started_ms = probe_flows_now_ms();
        if (j->unanswered) {
                sleep_until(fl->started_ms + fl->params.timeout_ms);
                fl->ended_ms = probe_flows_now_ms();
                free(m);
                return NULL;
        }
        if (!m) {
                fl->err = -ENOMEM;
                snprintf(fl->error, sizeof(fl->error), "out of memory");
                fl->ended_ms = fl->started_ms;
                return NULL;
        }
        fl->err = probe_measure_pinned(&j->pinned, &fl->path, 1, NULL, m, &e);
        fl->ended_ms = probe_flows_now_ms();
        if (fl->err >= 0 && m->n_ok == 1)
                fl->result = m->runs[0];
        else
                snprintf(fl->error, sizeof(fl->error), "%.500s", m->error[0] ? m->error : e.msg);
        if (fl->err >= 0 && m->n_ok != 1)
                fl->err = -EIO;
        free(m);
        return NULL;
}

/* Route, mode and device of one flow, before anything is sent. */
static int pin(struct flow_job *j, struct errbuf *e)
{
        struct probe_flow *fl = j->fl;
        int r = probe_params_check(&fl->params, e);

        if (r >= 0)
                r = probe_pin(&fl->params, fl->mode, &j->pinned, &fl->path, NULL, 0, e);
        return r;
}

int probe_flows_run(struct probe_flows *f, struct errbuf *e)
{
        struct flow_job jobs[PROBE_FLOWS_MAX];
        unsigned started = 0;
        int ok = 0;

        for (unsigned i = 0; i < f->n && i < PROBE_FLOWS_MAX; i++) {
                struct probe_flow *fl = &f->v[i];
                struct errbuf pe = { .msg = "" };

                jobs[i] = (struct flow_job) { .fl = fl, .start_at_ms = f->start_at_ms };
                fl->ran = false;
                fl->err = pin(&jobs[i], &pe);
                if (fl->err < 0 && fl->params.opaque && probe_unanswered(&pe)) {
                        jobs[i].unanswered = true;
                        fl->err = -EHOSTUNREACH;
                        snprintf(fl->error, sizeof(fl->error), "%s", PROBE_NO_RESPONDER);
                } else if (fl->err < 0) {
                        errbuf_str(&pe, fl->error, sizeof(fl->error));
                        continue;
                }
                if (pthread_create(&jobs[i].tid, NULL, flow_thread, &jobs[i]) != 0) {
                        fl->err = -EAGAIN;
                        snprintf(fl->error, sizeof(fl->error), "cannot start a thread for the flow");
                        continue;
                }
                jobs[i].started = fl->ran = true;
                started++;
        }
        for (unsigned i = 0; i < f->n && i < PROBE_FLOWS_MAX; i++)
                if (jobs[i].started) {
                        pthread_join(jobs[i].tid, NULL);
                        ok += f->v[i].err >= 0;
                }
        if (!started && f->n && f->v[0].err == -EAGAIN)
                return errbuf_set(e, EAGAIN, NULL, "cannot start threads for the flows");
        return ok;
}

/* ---- the answer ---- */

static json_t *flow_json(const struct probe_flow *fl)
{
        const struct probe_result *r = &fl->result;
        bool ok = fl->err >= 0;
        /* A flow no responder answered shows nothing its cause would tell apart: no path, the mode asked. */
        bool silent = !ok && streq(fl->error, PROBE_NO_RESPONDER);
        json_t *o = json_pack("{s:i, s:s, s:b, s:o, s:I, s:f, s:i, s:I, s:I, s:o, s:o}",
                              "id", (int)fl->id, "peer", fl->params.peer, "ok", ok,
                              "gbps", probe_json_gbps(ok ? r->gbps : NAN), "bytes", (json_int_t)(ok ? r->bytes : 0),
                              "seconds", ok ? r->seconds : 0.0, "streams", (int)fl->params.streams,
                              "started_ms", (json_int_t)fl->started_ms, "ended_ms", (json_int_t)fl->ended_ms,
                              "dscp", ok && r->dscp >= 0 ? json_integer(r->dscp) : json_null(),
                              "priority", ok && r->priority >= 0 ? json_integer(r->priority) : json_null());

        if (!o)
                return NULL;
        json_object_set_new(o, "mode", json_string(!silent && (fl->ran || fl->path.mode != PROBE_MODE_AUTO) ?
                                                   probe_mode_name(fl->path.mode) : probe_mode_name(fl->mode)));
        json_object_set_new(o, "path", fl->ran && !silent ? probe_path_to_json(&fl->path) : json_null());
        json_object_set_new(o, "error", ok ? json_null() : json_string(fl->error[0] ? fl->error : strerror(-fl->err)));
        json_object_set_new(o, "rtt_ms", probe_json_rtt(ok ? r->rtt_ms : 0));
        return o;
}

json_t *probe_flows_to_json(const struct probe_flows *f)
{
        json_t *arr = json_array();

        for (unsigned i = 0; arr && i < f->n; i++)
                if (json_array_append_new(arr, flow_json(&f->v[i])) < 0) {
                        json_decref(arr);
                        return NULL;
                }
        return arr;
}
