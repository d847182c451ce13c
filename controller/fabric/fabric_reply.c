/* SPDX-License-Identifier: MIT */
/* Strict parsing of the agents' fabric answers. */
#include <math.h>

#include "controller/fabric/fabric.h"
#include "controller/fleet/fleet.h"

#define TIME_MAX_MS (1LL << 50)         /* ms since the epoch: far beyond any real clock */

/* An integer member in [min, max]; absent or null is allowed when optional (then *ret = dflt). */
static int get_int(const json_t *o, const char *path, const char *key, bool optional, long long min, long long max,
                   long long dflt, long long *ret, struct errbuf *e)
{
        const json_t *v = json_object_get(o, key);

        if (!v || json_is_null(v)) {
                if (!optional)
                        return errbuf_set(e, EBADMSG, "answer", "%s.%s: missing", path, key);
                *ret = dflt;
                return 0;
        }
        if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max)
                return errbuf_set(e, EBADMSG, "answer", "%s.%s: expected an integer %lld-%lld", path, key, min, max);
        *ret = json_integer_value(v);
        return 0;
}

/* An optional string member (null = ""), at most size - 1 bytes. */
static int get_str(const json_t *o, const char *path, const char *key, char *buf, size_t size, struct errbuf *e)
{
        const json_t *v = json_object_get(o, key);

        buf[0] = '\0';
        if (!v || json_is_null(v))
                return 0;
        if (!json_is_string(v))
                return errbuf_set(e, EBADMSG, "answer", "%s.%s: expected a string", path, key);
        if (json_string_length(v) >= size)
                return errbuf_set(e, EBADMSG, "answer", "%s.%s: longer than %zu bytes", path, key, size - 1);
        memcpy(buf, json_string_value(v), json_string_length(v) + 1);
        return 0;
}

int fabric_reply_info(const char *body, size_t len, struct fabric_info_reply *ret, struct errbuf *e)
{
        struct fabric_info_reply r = { 0 };
        json_t *j = NULL;
        const json_t *probe;
        long long clients = 0, speed = 0;
        int k = reply_load(body, len, &j, e);

        if (k < 0)
                return k;
        probe = json_object_get(j, "probe");
        if (!json_is_object(probe))
                k = errbuf_set(e, EBADMSG, "answer", "$.probe: expected an object");
        if (k >= 0)
                k = get_int(j, "$", "now_ms", false, 1, TIME_MAX_MS, 0, &r.now_ms, e);
        if (k >= 0)
                k = get_str(probe, "$.probe", "address", r.address, sizeof(r.address), e);
        if (k >= 0)
                k = get_str(probe, "$.probe", "interface", r.interface, sizeof(r.interface), e);
        if (k >= 0)
                k = get_int(probe, "$.probe", "max_clients", false, 1, 16, 0, &clients, e);
        if (k >= 0)
                k = get_int(probe, "$.probe", "speed_mbps", true, 1, 100000000, 0, &speed, e);
        json_decref(j);
        if (k < 0)
                return k;
        r.max_clients = (unsigned)clients;
        r.speed_mbps = (long)speed;
        *ret = r;
        return 0;
}

static int parse_flow(const json_t *o, const char *path, struct fabric_flow_reply *f, struct errbuf *e)
{
        const json_t *ok = json_object_get(o, "ok"), *gbps = json_object_get(o, "gbps"), *rtt;
        long long id = 0, dscp = -1;
        int k;

        if (!json_is_object(o))
                return errbuf_set(e, EBADMSG, "answer", "%s: expected an object", path);
        if (!json_is_boolean(ok))
                return errbuf_set(e, EBADMSG, "answer", "%s.ok: expected true or false", path);
        f->ok = json_is_true(ok);
        f->gbps = NAN;
        if (f->ok && (!json_is_number(gbps) || !(json_number_value(gbps) >= 0) || json_number_value(gbps) > 1e6))
                return errbuf_set(e, EBADMSG, "answer", "%s.gbps: expected a number 0-1000000", path);
        if (f->ok)
                f->gbps = json_number_value(gbps);
        rtt = json_object_get(o, "rtt_ms");     /* optional: older agents do not say */
        if (rtt && !json_is_null(rtt) && (!json_is_number(rtt) || !(json_number_value(rtt) > 0) ||
                                          json_number_value(rtt) > 600000))
                return errbuf_set(e, EBADMSG, "answer", "%s.rtt_ms: expected a number 0-600000 or null", path);
        f->rtt_ms = json_is_number(rtt) ? json_number_value(rtt) : 0;
        if ((k = get_int(o, path, "id", false, 0, PROBE_FLOWS_ID_MAX, 0, &id, e)) < 0 ||
            (k = get_int(o, path, "started_ms", true, 0, TIME_MAX_MS, 0, &f->started_ms, e)) < 0 ||
            (k = get_int(o, path, "ended_ms", true, 0, TIME_MAX_MS, 0, &f->ended_ms, e)) < 0 ||
            (k = get_int(o, path, "dscp", true, 0, 63, -1, &dscp, e)) < 0 ||
            (k = get_str(o, path, "mode", f->mode, sizeof(f->mode), e)) < 0 ||
            (k = get_str(o, path, "error", f->error, sizeof(f->error), e)) < 0)
                return k;
        f->id = (unsigned)id;
        f->dscp = (int)dscp;
        return 0;
}

int fabric_reply_flows(const char *body, size_t len, struct fabric_flows_reply *ret, struct errbuf *e)
{
        struct fabric_flows_reply *r = calloc(1, sizeof(*r));
        const json_t *flows;
        json_t *j = NULL;
        int k;

        if (!r)
                return errbuf_set(e, ENOMEM, "answer", "out of memory");
        k = reply_load(body, len, &j, e);
        if (k >= 0)
                k = get_int(j, "$", "start_at_ms", false, 1, TIME_MAX_MS, 0, &r->start_at_ms, e);
        flows = j ? json_object_get(j, "flows") : NULL;
        if (k >= 0 && (!json_is_array(flows) || json_array_size(flows) > PROBE_FLOWS_MAX))
                k = errbuf_set(e, EBADMSG, "answer", "$.flows: expected an array of at most %d flows", PROBE_FLOWS_MAX);
        for (size_t i = 0; k >= 0 && i < json_array_size(flows); i++) {
                char path[32];

                snprintf(path, sizeof(path), "$.flows[%zu]", i);
                k = parse_flow(json_array_get(flows, i), path, &r->v[i], e);
                r->n = (unsigned)i + 1;
        }
        json_decref(j);
        if (k >= 0)
                *ret = *r;
        free(r);
        return k;
}
