/* SPDX-License-Identifier: MIT */
/*
 * doctor facts as JSON: what an agent answers on GET /v1/doctor and what the
 * controller reads back, strictly (a table per object kind, unknown keys refused,
 * every count and string bounded). The managed knobs are the state's own JSON
 * (state_json.c).
 */
#include <limits.h>
#include <math.h>

#include "policies/doctor/doctor.h"
#include "policies/json/jsonv.h"
#include "policies/state/spec_json.h"
#include "policies/state/state_json.h"

static const char *const counter_names[DOCTOR_COUNTER_MAX + 1] = {
        [DOCTOR_PAUSE_RX] = "pause_rx",
        [DOCTOR_PAUSE_TX] = "pause_tx",
        [DOCTOR_ECN_MARKED] = "ecn_marked",
        [DOCTOR_CNP_SENT] = "cnp_sent",
        [DOCTOR_CNP_HANDLED] = "cnp_handled",
        [DOCTOR_DISCARD] = "discard",
        [DOCTOR_WRED_DROP] = "wred_drop",
        [DOCTOR_PAUSE_STORM] = "pause_storm_events",
        [DOCTOR_TX_PACKETS] = "tx_packets",
        [DOCTOR_WD_STORMS] = "watchdog_storms",
        [DOCTOR_WD_RESTORES] = "watchdog_restores",
        [DOCTOR_PRIO_BYTES] = "priority_bytes",
        [DOCTOR_RDMA_BYTES] = "rdma_bytes",
        [DOCTOR_RX_DISCARD] = "rx_discard",
        [DOCTOR_COUNTER_MAX] = NULL,
};

static const char *const path_names[DOCTOR_PATH_SOURCE_MAX + 1] = { "none", "config", "lldp", NULL };

const char *doctor_counter_name(enum doctor_counter k)
{
        return (unsigned)k < DOCTOR_COUNTER_MAX ? counter_names[k] : "unknown";
}

int doctor_counter_from_name(const char *name)
{
        for (int k = 0; k < DOCTOR_COUNTER_MAX; k++)
                if (streq(counter_names[k], name))
                        return k;
        return -EINVAL;
}

/* ---- to JSON ---- */

static json_t *rates_json(const struct doctor_rates *r, bool *ok)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < r->n; i++) {
                const struct doctor_rate *x = &r->v[i];
                json_t *o = json_pack("{s:s,s:s,s:I,s:f}", "name", x->name, "kind", doctor_counter_name(x->kind),
                                      "delta", (json_int_t)(x->delta > LLONG_MAX ? LLONG_MAX : x->delta),
                                      "per_s", x->per_s);

                if (o && x->prio != DOCTOR_PRIO_ANY)
                        spec_json_set(o, "priority", json_integer(x->prio), ok);
                spec_json_append(a, o, ok);
        }
        return a;
}

static json_t *link_json(const struct doctor_link *l, bool *ok)
{
        json_t *o = json_object();

        if (l->state_known)
                spec_json_set(o, "up", json_boolean(l->up), ok);
        if (l->speed_mbps)
                spec_json_set(o, "speed_mbps", json_integer(l->speed_mbps), ok);
        if (l->max_speed_mbps)
                spec_json_set(o, "max_speed_mbps", json_integer(l->max_speed_mbps), ok);
        if (l->shaper_mbps)
                spec_json_set(o, "shaper_mbps", json_integer(l->shaper_mbps), ok);
        if (l->rate[0])
                spec_json_set(o, "rate", json_string(l->rate), ok);
        if (l->lanes)
                spec_json_set(o, "lanes", json_integer(l->lanes), ok);
        return o;
}

static json_t *bursts_json(const struct doctor_iface *x, bool *ok)
{
        json_t *a = json_array();

        for (unsigned i = 0; a && i < x->n_bursts; i++) {
                const struct doctor_burst *b = &x->bursts[i];
                json_t *o = json_pack("{s:s,s:s,s:b,s:I,s:I,s:I,s:f}", "name", b->name, "kind",
                                      doctor_counter_name(b->kind), "duration", b->duration, "start_ms",
                                      (json_int_t)b->start_ms, "length_ms", (json_int_t)b->length_ms, "count",
                                      (json_int_t)(b->count > LLONG_MAX ? LLONG_MAX : b->count), "peak_per_s",
                                      b->peak_per_s);

                if (o && b->prio != DOCTOR_PRIO_ANY)
                        spec_json_set(o, "priority", json_integer(b->prio), ok);
                spec_json_append(a, o, ok);
        }
        return a;
}

static json_t *iface_json(const struct doctor_iface *x, bool *ok)
{
        json_t *o = json_pack("{s:s,s:s,s:b,s:b}", "name", x->name, "driver", x->driver, "rdma", x->rdma,
                              "managed", x->managed);

        spec_json_set(o, "link", link_json(&x->link, ok), ok);
        spec_json_set(o, "state", state_to_json(&x->st), ok);
        if (x->peer.source != DOCTOR_PATH_NONE)
                spec_json_set(o, "peer", json_pack("{s:s,s:s,s:s}", "source", path_names[x->peer.source],
                                                   "switch", x->peer.sw, "port", x->peer.port), ok);
        spec_json_set(o, "rates", rates_json(&x->rates, ok), ok);
        if (x->n_bursts)
                spec_json_set(o, "bursts", bursts_json(x, ok), ok);
        return o;
}

static json_t *switch_json(const struct doctor_switch *sw, bool *ok)
{
        json_t *o = json_pack("{s:s,s:s}", "name", sw->name, "dialect", sw->dialect), *ports = json_array();

        if (sw->mtu_max)
                spec_json_set(o, "mtu_max", json_integer(sw->mtu_max), ok);
        if (sw->error[0])
                spec_json_set(o, "error", json_string(sw->error), ok);
        for (unsigned i = 0; ports && i < sw->n_ports; i++) {
                const struct doctor_port *p = &sw->ports[i];
                json_t *po = json_pack("{s:s}", "name", p->name);

                spec_json_set(po, "link", link_json(&p->link, ok), ok);
                spec_json_set(po, "state", state_to_json(&p->st), ok);
                spec_json_set(po, "rates", rates_json(&p->rates, ok), ok);
                spec_json_append(ports, po, ok);
        }
        spec_json_set(o, "ports", ports, ok);
        return o;
}

json_t *doctor_node_to_json(const struct doctor_node *n)
{
        json_t *o = json_pack("{s:s,s:b,s:b,s:s,s:f}", "name", n->name, "switch_role", n->switch_role,
                              "lldpad", n->lldpad, "policy", n->policy, "window_s", n->window_s);
        json_t *ifs = json_array(), *sws = json_array(), *notes = json_array(), *drift = json_array();
        bool ok = true;

        if (n->error[0])
                spec_json_set(o, "error", json_string(n->error), &ok);
        if (n->lldpad)
                spec_json_set(o, "lldpad_pid", json_integer(n->lldpad_pid), &ok);
        if (n->probe_port)
                spec_json_set(o, "probe_port", json_integer(n->probe_port), &ok);
        if (n->sample_ms)
                spec_json_set(o, "sample_ms", json_integer(n->sample_ms), &ok);
        if (n->declared_cable_m)
                spec_json_set(o, "declared_cable_length_m", json_integer(n->declared_cable_m), &ok);
        for (unsigned i = 0; i < n->n_ifs; i++)
                spec_json_append(ifs, iface_json(&n->ifs[i], &ok), &ok);
        for (unsigned i = 0; i < n->n_switches; i++)
                spec_json_append(sws, switch_json(&n->switches[i], &ok), &ok);
        for (unsigned i = 0; i < n->n_notes; i++)
                spec_json_append(notes, json_string(n->notes[i]), &ok);
        for (unsigned i = 0; i < n->n_drift && i < DOCTOR_DRIFT_MAX; i++)
                spec_json_append(drift, json_pack("{s:s,s:s,s:s,s:s,s:s*}", "target", n->drift[i].target, "key",
                                                  n->drift[i].key, "live", n->drift[i].live, "committed",
                                                  n->drift[i].committed, "owner",
                                                  n->drift[i].owner[0] ? n->drift[i].owner : NULL), &ok);
        if (n->drift_known)
                spec_json_set(o, "drift", json_pack("{s:i,s:o}", "count", (int)n->n_drift, "changes", drift), &ok);
        else
                json_decref(drift);
        if (n->n_second_writers) {
                json_t *sw = json_array();

                for (unsigned i = 0; i < n->n_second_writers && i < DOCTOR_SECOND_WRITERS_MAX; i++)
                        spec_json_append(sw, json_pack("{s:s,s:s,s:i,s:s}", "target", n->second_writers[i].target,
                                                       "field", n->second_writers[i].field, "times",
                                                       (int)n->second_writers[i].times, "values_seen",
                                                       n->second_writers[i].values), &ok);
                spec_json_set(o, "second_writers", sw, &ok);
        }
        spec_json_set(o, "interfaces", ifs, &ok);
        spec_json_set(o, "switches", sws, &ok);
        spec_json_set(o, "notes", notes, &ok);
        if (!ok) {
                json_decref(o);
                return NULL;
        }
        return o;
}

json_t *doctor_probes_to_json(const struct doctor_probes *p)
{
        json_t *a = json_array();
        bool ok = true;

        for (unsigned i = 0; a && i < p->n; i++) {
                const struct doctor_probe *x = &p->v[i];
                json_t *o = json_pack("{s:s,s:s,s:b}", "from", x->from, "to", x->to, "ok", x->ok);

                spec_json_set(o, "gbps", x->ok ? json_real(x->gbps) : json_null(), &ok);
                if (x->rtt_ms > 0)
                        spec_json_set(o, "rtt_ms", json_real(round(x->rtt_ms * 1000) / 1000), &ok);
                if (x->error[0])
                        spec_json_set(o, "error", json_string(x->error), &ok);
                spec_json_append(a, o, &ok);
        }
        if (!ok) {
                json_decref(a);
                return NULL;
        }
        return a;
}

/* ---- from JSON ---- */

struct parse_ctx {
        struct doctor_node *n;
        struct doctor_rates *rates;
        struct doctor_switch *sw;
};

static const struct jsonv_field rate_fields[] = {
        JSONV_STR("name", struct doctor_rate, name, JSONV_REQUIRED | JSONV_NONEMPTY),
        JSONV_ENUM("kind", struct doctor_rate, kind, counter_names, JSONV_REQUIRED),
        { .key = "priority", .type = JSONV_INTEGER, .min = 0, .max = 7, JSONV_MEMBER(struct doctor_rate, prio) },
        { .key = "delta", .type = JSONV_INTEGER, .flags = JSONV_REQUIRED, .min = 0, .max = LLONG_MAX,
          JSONV_MEMBER(struct doctor_rate, delta) },
        { .key = "per_s", .type = JSONV_NUMBER, .flags = JSONV_REQUIRED, .min = 0, .max = 1000000000000000LL,
          JSONV_MEMBER(struct doctor_rate, per_s) },
        { 0 },
};

static int parse_rate(struct jsonv *v, const json_t *j, size_t i, void *ctx)
{
        struct doctor_rate *x = doctor_rates_add(ctx);

        if (!x)
                return jsonv_error(v, "out of memory");
        return jsonv_object(v, j, rate_fields, x);
}

static int parse_rates(struct jsonv *v, const json_t *j, struct doctor_rates *r)
{
        return jsonv_object_array(v, j, "rate", "rates", 0, DOCTOR_RATES_MAX, parse_rate, r);
}

static const struct jsonv_field burst_fields[] = {
        JSONV_STR("name", struct doctor_burst, name, JSONV_REQUIRED | JSONV_NONEMPTY),
        JSONV_ENUM("kind", struct doctor_burst, kind, counter_names, JSONV_REQUIRED),
        { .key = "priority", .type = JSONV_INTEGER, .min = 0, .max = 7, JSONV_MEMBER(struct doctor_burst, prio) },
        JSONV_BOOLEAN("duration", struct doctor_burst, duration),
        { .key = "start_ms", .type = JSONV_INTEGER, .flags = JSONV_REQUIRED, .min = 0, .max = LLONG_MAX,
          JSONV_MEMBER(struct doctor_burst, start_ms) },
        JSONV_UINT("length_ms", struct doctor_burst, length_ms, 0, 86400000),
        { .key = "count", .type = JSONV_INTEGER, .flags = JSONV_REQUIRED, .min = 0, .max = LLONG_MAX,
          JSONV_MEMBER(struct doctor_burst, count) },
        { .key = "peak_per_s", .type = JSONV_NUMBER, .flags = JSONV_REQUIRED, .min = 0, .max = 1000000000000000LL,
          JSONV_MEMBER(struct doctor_burst, peak_per_s) },
        { 0 },
};

static int parse_burst(struct jsonv *v, const json_t *j, size_t i, void *ctx)
{
        struct doctor_iface *x = ctx;
        struct doctor_burst *b;

        if (x->n_bursts >= DOCTOR_BURSTS_MAX)
                return jsonv_error(v, "more than %d bursts", DOCTOR_BURSTS_MAX);
        b = &x->bursts[x->n_bursts++];
        *b = (struct doctor_burst){ .prio = DOCTOR_PRIO_ANY };
        return jsonv_object(v, j, burst_fields, b);
}

static int if_bursts(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object_array(v, j, "burst", "bursts", 0, DOCTOR_BURSTS_MAX, parse_burst, obj);
}

static const struct jsonv_field link_fields[] = {
        { .key = "up", .type = JSONV_BOOL, JSONV_MEMBER(struct doctor_link, up) },
        JSONV_UINT("speed_mbps", struct doctor_link, speed_mbps, 1, 100000000),
        JSONV_UINT("max_speed_mbps", struct doctor_link, max_speed_mbps, 1, 100000000),
        JSONV_UINT("shaper_mbps", struct doctor_link, shaper_mbps, 1, 100000000),
        JSONV_STR("rate", struct doctor_link, rate, 0),
        JSONV_UINT("lanes", struct doctor_link, lanes, 1, 8),
        { 0 },
};

static int parse_link(struct jsonv *v, const json_t *j, struct doctor_link *l)
{
        int r = jsonv_object(v, j, link_fields, l);

        l->state_known = json_object_get(j, "up") != NULL;
        return r;
}

static int parse_state(struct jsonv *v, const json_t *j, struct state *st)
{
        struct errbuf sub = { 0 };
        int r = state_from_json(j, st, &sub);

        if (r < 0)
                return jsonv_error(v, "%s%s%s", strchr(sub.where, '$') ? strchr(sub.where, '$') + 1 : "",
                                   sub.where[0] ? ": " : "", sub.msg);
        return 0;
}

static const struct jsonv_field peer_fields[] = {
        JSONV_ENUM("source", struct doctor_peer, source, path_names, JSONV_REQUIRED),
        JSONV_STR("switch", struct doctor_peer, sw, JSONV_REQUIRED | JSONV_NONEMPTY),
        JSONV_STR("port", struct doctor_peer, port, JSONV_REQUIRED | JSONV_NONEMPTY),
        { 0 },
};

#define IF_CUSTOM(k, t, fn) JSONV_CUSTOM(k, t, 0, fn)

static int if_link(struct jsonv *v, const json_t *j, void *obj)
{
        return parse_link(v, j, &((struct doctor_iface *)obj)->link);
}

static int if_state(struct jsonv *v, const json_t *j, void *obj)
{
        return parse_state(v, j, &((struct doctor_iface *)obj)->st);
}

static int if_peer(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object(v, j, peer_fields, &((struct doctor_iface *)obj)->peer);
}

static int if_rates(struct jsonv *v, const json_t *j, void *obj)
{
        return parse_rates(v, j, &((struct doctor_iface *)obj)->rates);
}

/*
 * Names a proposal may target keep to what a policy and an agent configuration accept:
 * switches as the configuration names them, interfaces as a policy's targets can.
 */
static int check_switch_name(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_check_switch_name(v, json_string_value(j));
}

static int check_iface_name(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_check_ifname(v, json_string_value(j));
}

static int check_port_name(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_check_port_name(v, json_string_value(j));
}

static const struct jsonv_field iface_fields[] = {
        { .key = "name", .type = JSONV_STRING, .flags = JSONV_REQUIRED | JSONV_NONEMPTY,
          JSONV_MEMBER(struct doctor_iface, name), .parse = check_iface_name },
        JSONV_STR("driver", struct doctor_iface, driver, 0),
        JSONV_BOOLEAN("rdma", struct doctor_iface, rdma),
        JSONV_BOOLEAN("managed", struct doctor_iface, managed),
        IF_CUSTOM("link", JSONV_OBJECT, if_link),
        IF_CUSTOM("state", JSONV_OBJECT, if_state),
        IF_CUSTOM("peer", JSONV_OBJECT, if_peer),
        IF_CUSTOM("rates", JSONV_ARRAY, if_rates),
        IF_CUSTOM("bursts", JSONV_ARRAY, if_bursts),
        { 0 },
};

static int parse_iface(struct jsonv *v, const json_t *j, size_t i, void *ctx)
{
        struct doctor_iface *x = doctor_node_add_iface(ctx);

        if (!x)
                return jsonv_error(v, "out of memory");
        return jsonv_object(v, j, iface_fields, x);
}

static int port_link(struct jsonv *v, const json_t *j, void *obj)
{
        return parse_link(v, j, &((struct doctor_port *)obj)->link);
}

static int port_state(struct jsonv *v, const json_t *j, void *obj)
{
        return parse_state(v, j, &((struct doctor_port *)obj)->st);
}

static int port_rates(struct jsonv *v, const json_t *j, void *obj)
{
        return parse_rates(v, j, &((struct doctor_port *)obj)->rates);
}

static const struct jsonv_field port_fields[] = {
        { .key = "name", .type = JSONV_STRING, .flags = JSONV_REQUIRED | JSONV_NONEMPTY,
          JSONV_MEMBER(struct doctor_port, name), .parse = check_port_name },
        IF_CUSTOM("link", JSONV_OBJECT, port_link),
        IF_CUSTOM("state", JSONV_OBJECT, port_state),
        IF_CUSTOM("rates", JSONV_ARRAY, port_rates),
        { 0 },
};

static int parse_port(struct jsonv *v, const json_t *j, size_t i, void *ctx)
{
        struct doctor_switch *sw = ctx;

        return jsonv_object(v, j, port_fields, &sw->ports[i]);
}

static int sw_ports(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object_array(v, j, "port", "ports", ((struct doctor_switch *)obj)->n_ports,
                                  ((struct doctor_switch *)obj)->n_ports, parse_port, obj);
}

static const struct jsonv_field switch_fields[] = {
        { .key = "name", .type = JSONV_STRING, .flags = JSONV_REQUIRED | JSONV_NONEMPTY,
          JSONV_MEMBER(struct doctor_switch, name), .parse = check_switch_name },
        JSONV_STR("dialect", struct doctor_switch, dialect, JSONV_REQUIRED | JSONV_NONEMPTY),
        JSONV_UINT("mtu_max", struct doctor_switch, mtu_max, 68, 65535),
        JSONV_STR("error", struct doctor_switch, error, 0),
        { .key = "ports", .type = JSONV_ARRAY, .flags = JSONV_REQUIRED, .parse = sw_ports },
        { 0 },
};

static int parse_switch(struct jsonv *v, const json_t *j, size_t i, void *ctx)
{
        const json_t *ports = json_object_get(j, "ports");
        size_t n = json_is_array(ports) ? json_array_size(ports) : 0;
        struct doctor_switch *sw;

        if (n > DOCTOR_PORTS_MAX) {
                jsonv_push_key(v, "ports");
                return jsonv_error(v, "expected at most %d ports, found %zu", DOCTOR_PORTS_MAX, n);
        }
        sw = doctor_node_add_switch(ctx, (unsigned)n);
        if (!sw)
                return jsonv_error(v, "out of memory");
        return jsonv_object(v, j, switch_fields, sw);
}

static const struct jsonv_field drift_entry_fields[] = {
        JSONV_STR("target", struct doctor_drift, target, JSONV_REQUIRED),
        JSONV_STR("key", struct doctor_drift, key, JSONV_REQUIRED),
        JSONV_STR("live", struct doctor_drift, live, JSONV_REQUIRED),
        JSONV_STR("committed", struct doctor_drift, committed, JSONV_REQUIRED),
        JSONV_STR("owner", struct doctor_drift, owner, 0),
        { 0 },
};

static int parse_drift_entry(struct jsonv *v, const json_t *j, size_t i, void *ctx)
{
        return jsonv_object(v, j, drift_entry_fields, &((struct doctor_node *)ctx)->drift[i]);
}

static int drift_changes(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object_array(v, j, "change", "changes", 0, DOCTOR_DRIFT_MAX, parse_drift_entry, obj);
}

static const struct jsonv_field drift_fields[] = {
        JSONV_UINT_REQ("count", struct doctor_node, n_drift, 0, 1000000),
        { .key = "changes", .type = JSONV_ARRAY, .flags = JSONV_REQUIRED, .parse = drift_changes },
        { 0 },
};

static int node_drift(struct jsonv *v, const json_t *j, void *obj)
{
        struct doctor_node *n = obj;
        int r = jsonv_object(v, j, drift_fields, n);

        n->drift_known = r >= 0;
        if (r >= 0 && n->n_drift < json_array_size(json_object_get(j, "changes")))
                r = jsonv_error(v, "count %u is less than the %zu changes listed", n->n_drift,
                                json_array_size(json_object_get(j, "changes")));
        return r;
}

static int node_ifs(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object_array(v, j, "interface", "interfaces", 0, DOCTOR_IFACES_MAX, parse_iface, obj);
}

static int node_switches(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object_array(v, j, "switch", "switches", 0, DOCTOR_SWITCHES_MAX, parse_switch, obj);
}

static int node_notes(struct jsonv *v, const json_t *j, void *obj)
{
        struct doctor_node *n = obj;
        size_t count;
        int r = jsonv_string_array(v, j, "note", DOCTOR_NOTES_MAX, n->notes[0], DOCTOR_NOTE_MAX, &count, NULL);

        n->n_notes = r < 0 ? 0 : (unsigned)count;
        return r;
}

static const struct jsonv_field second_writer_fields[] = {
        JSONV_STR("target", struct doctor_second_writer, target, JSONV_REQUIRED | JSONV_NONEMPTY),
        JSONV_STR("field", struct doctor_second_writer, field, JSONV_REQUIRED | JSONV_NONEMPTY),
        JSONV_UINT_REQ("times", struct doctor_second_writer, times, 0, 1000000),
        JSONV_STR("values_seen", struct doctor_second_writer, values, 0),
        { 0 },
};

static int parse_second_writer(struct jsonv *v, const json_t *j, size_t i, void *ctx)
{
        struct doctor_node *n = ctx;
        int r = jsonv_object(v, j, second_writer_fields, &n->second_writers[i]);

        if (r >= 0)
                n->n_second_writers = (unsigned)i + 1;
        return r;
}

static int node_second_writers(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object_array(v, j, "second writer", "second_writers", 0, DOCTOR_SECOND_WRITERS_MAX,
                                  parse_second_writer, obj);
}

static const struct jsonv_field node_fields[] = {
        JSONV_STR("name", struct doctor_node, name, JSONV_REQUIRED | JSONV_NONEMPTY),
        JSONV_STR("error", struct doctor_node, error, 0),
        JSONV_BOOLEAN("switch_role", struct doctor_node, switch_role),
        JSONV_BOOLEAN("lldpad", struct doctor_node, lldpad),
        JSONV_UINT("lldpad_pid", struct doctor_node, lldpad_pid, 1, INT_MAX),
        JSONV_STR("policy", struct doctor_node, policy, 0),
        JSONV_NUM("window_s", struct doctor_node, window_s, 0, 86400),
        JSONV_UINT("probe_port", struct doctor_node, probe_port, 1, 65535),
        JSONV_UINT("sample_ms", struct doctor_node, sample_ms, 1, 1000),
        JSONV_UINT("declared_cable_length_m", struct doctor_node, declared_cable_m, STATE_CABLE_LEN_MIN,
                   STATE_CABLE_LEN_MAX),
        JSONV_CUSTOM("drift", JSONV_OBJECT, 0, node_drift),
        JSONV_CUSTOM("interfaces", JSONV_ARRAY, 0, node_ifs),
        JSONV_CUSTOM("switches", JSONV_ARRAY, 0, node_switches),
        JSONV_CUSTOM("notes", JSONV_ARRAY, 0, node_notes),
        JSONV_CUSTOM("second_writers", JSONV_ARRAY, 0, node_second_writers),
        { 0 },
};

int doctor_node_from_json(const json_t *j, const char *what, struct doctor_node *ret, struct errbuf *e)
{
        struct doctor_node *n = calloc(1, sizeof(*n));
        struct jsonv v;
        int r;

        if (!n)
                return errbuf_set(e, ENOMEM, what, "out of memory");
        jsonv_init(&v, what, e);
        r = jsonv_object(&v, j, node_fields, n);
        if (r < 0) {
                doctor_node_free(n);
                free(n);
                return r;
        }
        memcpy(ret, n, sizeof(*n));
        free(n);
        return 0;
}

/* ---- a whole facts document: {"nodes": [...], "probes": {"p2p": [...], "fabric": [...]},
 *      "suspects": [...] (when locate ran)} ---- */

static json_t *suspects_to_json(const struct doctor_suspects *s)
{
        json_t *a = json_array();
        bool ok = true;

        for (unsigned i = 0; a && i < s->n; i++) {
                const struct doctor_suspect *x = &s->v[i];

                spec_json_append(a, json_pack("{s:s,s:s,s:s,s:s,s:s,s:i,s:i,s:f,s:f,s:s}", "kind", x->kind, "name",
                                              x->name, "rack", x->rack, "side", x->side, "confidence",
                                              x->high ? "high" : "medium", "slow_pairs", (int)x->slow, "pairs",
                                              (int)x->of, "gbps", x->gbps, "peers_median_gbps", x->peers_gbps,
                                              "evidence", x->evidence), &ok);
        }
        if (!ok) {
                json_decref(a);
                return NULL;
        }
        return a;
}

static int suspect_confidence(struct jsonv *v, const json_t *j, void *obj)
{
        struct doctor_suspect *x = obj;

        if (!streq(json_string_value(j), "high") && !streq(json_string_value(j), "medium"))
                return jsonv_error(v, "expected 'high' or 'medium', found '%s'", json_string_value(j));
        x->high = streq(json_string_value(j), "high");
        return 0;
}

static const struct jsonv_field suspect_fields[] = {
        JSONV_STR("kind", struct doctor_suspect, kind, JSONV_REQUIRED | JSONV_NONEMPTY),
        JSONV_STR("name", struct doctor_suspect, name, JSONV_REQUIRED | JSONV_NONEMPTY),
        JSONV_STR("rack", struct doctor_suspect, rack, 0),
        JSONV_STR("side", struct doctor_suspect, side, 0),
        JSONV_CUSTOM("confidence", JSONV_STRING, JSONV_REQUIRED, suspect_confidence),
        JSONV_UINT("slow_pairs", struct doctor_suspect, slow, 0, 100000),
        JSONV_UINT("pairs", struct doctor_suspect, of, 0, 100000),
        JSONV_NUM("gbps", struct doctor_suspect, gbps, 0, 1e6),
        JSONV_NUM("peers_median_gbps", struct doctor_suspect, peers_gbps, 0, 1e6),
        JSONV_STR("evidence", struct doctor_suspect, evidence, 0),
        { 0 },
};

static int parse_suspect(struct jsonv *v, const json_t *j, size_t i, void *ctx)
{
        struct doctor_suspect *x = doctor_suspects_add(ctx);

        if (!x)
                return jsonv_error(v, "out of memory");
        return jsonv_object(v, j, suspect_fields, x);
}

static int parse_suspects(struct jsonv *v, const json_t *j, void *obj)
{
        struct doctor_facts *f = obj;

        f->suspects.run = true;
        return jsonv_object_array(v, j, "suspect", "suspects", 0, 100000, parse_suspect, &f->suspects);
}

json_t *doctor_facts_to_json(const struct doctor_facts *f)
{
        json_t *nodes = json_array(), *probes = json_object(), *o;
        bool ok = true;

        for (unsigned i = 0; i < f->n_nodes; i++)
                spec_json_append(nodes, doctor_node_to_json(&f->nodes[i]), &ok);
        for (unsigned k = 0; k < DOCTOR_PROBE_KINDS; k++)
                if (f->probes[k].kind[0])
                        spec_json_set(probes, f->probes[k].kind, doctor_probes_to_json(&f->probes[k]), &ok);
        o = json_pack("{s:o,s:o}", "nodes", nodes, "probes", probes);
        if (o && f->suspects.run)
                spec_json_set(o, "suspects", suspects_to_json(&f->suspects), &ok);
        if (!ok || !o) {
                json_decref(o);
                return NULL;
        }
        return o;
}

static const struct jsonv_field probe_fields[] = {
        JSONV_STR("from", struct doctor_probe, from, JSONV_REQUIRED | JSONV_NONEMPTY),
        JSONV_STR("to", struct doctor_probe, to, JSONV_REQUIRED | JSONV_NONEMPTY),
        JSONV_BOOLEAN("ok", struct doctor_probe, ok),
        { .key = "gbps", .type = JSONV_ANY },
        JSONV_NUM("rtt_ms", struct doctor_probe, rtt_ms, 0, 600000),
        JSONV_STR("error", struct doctor_probe, error, 0),
        { 0 },
};

static int parse_probe(struct jsonv *v, const json_t *j, size_t i, void *ctx)
{
        struct doctor_probe *x = doctor_probes_add(ctx);
        const json_t *g = json_object_get(j, "gbps");
        int r;

        if (!x)
                return jsonv_error(v, "out of memory");
        r = jsonv_object(v, j, probe_fields, x);
        if (r >= 0 && !json_is_null(g) && g && !(json_is_number(g) && json_number_value(g) >= 0)) {
                jsonv_push_key(v, "gbps");
                r = jsonv_error(v, "expected a number of Gb/s or null, found %s", jsonv_type_name(g));
        }
        x->gbps = json_number_value(g);
        return r;
}

static int parse_probes(struct jsonv *v, const json_t *j, void *obj)
{
        static const char *const kinds[DOCTOR_PROBE_KINDS] = { "p2p", "fabric" };
        struct doctor_facts *f = obj;
        const char *key;
        json_t *val;

        json_object_foreach((json_t *)j, key, val) {
                unsigned k = 0;
                int r;

                while (k < DOCTOR_PROBE_KINDS && !streq(kinds[k], key))
                        k++;
                jsonv_push_key(v, key);
                if (k == DOCTOR_PROBE_KINDS)
                        return jsonv_error(v, "unknown probe kind (expected 'p2p' or 'fabric')");
                snprintf(f->probes[k].kind, sizeof(f->probes[k].kind), "%s", key);
                r = jsonv_object_array(v, val, "measurement", "measurements", 0, 100000, parse_probe, &f->probes[k]);
                jsonv_pop(v);
                if (r < 0)
                        return r;
        }
        return 0;
}

static int parse_doc_node(struct jsonv *v, const json_t *j, size_t i, void *ctx)
{
        struct doctor_facts *f = ctx;
        struct doctor_node *n = doctor_facts_add_node(f);

        if (!n)
                return jsonv_error(v, "out of memory");
        return jsonv_object(v, j, node_fields, n);
}

static int doc_nodes(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object_array(v, j, "node", "nodes", 0, 100000, parse_doc_node, obj);
}

static const struct jsonv_field facts_fields[] = {
        { .key = "nodes", .type = JSONV_ARRAY, .flags = JSONV_REQUIRED, .parse = doc_nodes },
        JSONV_CUSTOM("probes", JSONV_OBJECT, 0, parse_probes),
        JSONV_CUSTOM("suspects", JSONV_ARRAY, 0, parse_suspects),
        { 0 },
};

int doctor_facts_from_json(const json_t *j, const char *file, struct doctor_facts *ret, struct errbuf *e)
{
        struct doctor_facts f;
        struct jsonv v;
        int r;

        doctor_facts_init(&f);
        jsonv_init(&v, file, e);
        r = jsonv_object(&v, j, facts_fields, &f);
        if (r < 0) {
                doctor_facts_free(&f);
                return r;
        }
        *ret = f;
        return 0;
}

int doctor_facts_load(const char *path, struct doctor_facts *ret, struct errbuf *e)
{
        _cleanup_free_ char *buf = NULL;
        json_auto_t *root = NULL;
        size_t len;
        int r = jsonv_read_file(path, DOCTOR_FACTS_DOC_MAX, &buf, &len, e);

        if (r >= 0)
                r = jsonv_parse(buf, len, path, DOCTOR_FACTS_DOC_MAX, &root, e);
        if (r >= 0)
                r = doctor_facts_from_json(root, path, ret, e);
        return r;
}
