/* SPDX-License-Identifier: MIT */
/*
 * JSON form of struct state (see state_json.h). Live state may differ per queue
 * and per priority, so ECN and host ECN are written per member, with the same
 * names the diff uses:
 *
 *   "ecn": { "queue3": { "enabled": true, "min_threshold_bytes": 150000,
 *                        "max_threshold_bytes": 1500000, "mark_probability_pct": 100 } },
 *   "host_ecn": { "priority3": { "reaction_point": true, "notification_point": true },
 *                 "cnp_dscp": 48, "cnp_priority": 6, "dcqcn": { "rp_time_reset": 300, ... } },
 *   "dcb_device": { "dcbx": 9, "pfc_delay": 7, "dscp_apps": [[26, 3], [48, 6]], "trust_table": [5, 255] },
 *   "buffers": { "prio_to_buffer": [0, 0, 0, 1, 0, 0, 0, 0], "buffer_size_bytes": [...8], "total_bytes": N },
 *   "qdisc": { "root": "foreign", "kind": "htb", "handle": 65536 },
 *   "roce_ports": { "mlx5_0/1": { "default_roce_tos": 106, "traffic_class": -1 } }
 *
 * "qdisc" says what sat where the tc qdisc driver attaches its tree (interface
 * targets of a switch-role agent, read with ets/ecn); kind and handle only for
 * a foreign one.
 *
 * dcb_device is what a host NIC's DCB looked like beyond the managed fields
 * (struct state_dcb_device): a snapshot restores it exactly. roce_ports, read
 * with roce_tos, is each RDMA port's default ToS where it is held: rdma_cm's
 * default_roce_tos and MLNX_OFED's traffic_class (-1: no global value), each
 * only where the port has it.
 *
 * A switch target is one state per port: { "ports": { "swp1": { "mtu": 9216, ... } } }.
 * mtu, trust, dscp_to_priority, pfc and ets are written and read by spec_json.c,
 * exactly as in a policy's spec.
 */
#include "policies/state/spec_json.h"
#include "policies/state/state_json.h"

#define U32_MAX 4294967295LL

static json_t *ecn_to_json(const struct state_ecn *ecn, bool *ok)
{
        json_t *o = json_object();
        char key[16];

        for (unsigned i = 0; o && i < STATE_TC_COUNT; i++) {
                const struct state_ecn_queue *q = &ecn->q[i];

                if (!(ecn->queues & (1u << i)))
                        continue;
                snprintf(key, sizeof(key), "queue%u", i);
                spec_json_set(o, key, json_pack("{s:b,s:I,s:I,s:i}", "enabled", q->enabled,
                                                "min_threshold_bytes", (json_int_t)q->min_bytes,
                                                "max_threshold_bytes", (json_int_t)q->max_bytes,
                                                "mark_probability_pct", q->probability_pct), ok);
        }
        return o;
}

static json_t *host_ecn_to_json(const struct state_host_ecn *h, bool *ok)
{
        json_t *o = json_object();
        char key[16];

        for (unsigned i = 0; o && i < STATE_PRIO_COUNT; i++) {
                if (!(h->prios & (1u << i)))
                        continue;
                snprintf(key, sizeof(key), "priority%u", i);
                spec_json_set(o, key, json_pack("{s:b,s:b}", "reaction_point", (h->rp_enabled >> i) & 1,
                                                "notification_point", (h->np_enabled >> i) & 1), ok);
        }
        if (o && h->has_cnp) {
                spec_json_set(o, "cnp_dscp", json_integer(h->cnp_dscp), ok);
                spec_json_set(o, "cnp_priority", json_integer(h->cnp_prio), ok);
        }
        if (o && h->dcqcn_set)
                spec_json_set(o, "dcqcn", spec_json_dcqcn(h, ok), ok);
        if (o && h->has_prio_mode)
                spec_json_set(o, "cnp_priority_mode", json_integer(h->cnp_prio_mode), ok);
        return o;
}

static json_t *dcb_device_to_json(const struct state_dcb_device *dd, bool *ok)
{
        json_t *o = json_object();

        if (o && dd->has_dcbx)
                spec_json_set(o, "dcbx", json_integer(dd->dcbx), ok);
        if (o && dd->has_pfc_delay)
                spec_json_set(o, "pfc_delay", json_integer(dd->pfc_delay), ok);
        if (o && dd->has_apps) {
                json_t *a = json_array();

                for (unsigned i = 0; a && i < dd->n_apps && i < STATE_DCB_APPS_MAX; i++)
                        spec_json_append(a, json_pack("[i,i]", dd->apps[i].dscp, dd->apps[i].prio), ok);
                spec_json_set(o, "dscp_apps", a, ok);
        }
        if (o && dd->has_trust_table) {
                json_t *a = json_array();

                for (unsigned i = 0; a && i < dd->n_trust && i < STATE_TRUST_TABLE_MAX; i++)
                        spec_json_append(a, json_integer(dd->trust_table[i]), ok);
                spec_json_set(o, "trust_table", a, ok);
        }
        return o;
}

static json_t *qdisc_to_json(const struct state_qdisc *q)
{
        if (q->root != STATE_QDISC_FOREIGN)
                return json_pack("{s:s}", "root", state_qdisc_root_name(q->root));
        return json_pack("{s:s,s:s,s:I}", "root", state_qdisc_root_name(q->root), "kind", q->kind,
                         "handle", (json_int_t)q->handle);
}

static json_t *roce_ports_to_json(const struct state_roce *r, bool *ok)
{
        json_t *o = json_object();
        char key[STATE_RDMA_DEV_MAX + 8];

        for (unsigned i = 0; o && i < r->n_ports && i < STATE_RDMA_PORTS_MAX; i++) {
                const struct state_rdma_port *x = &r->ports[i];
                json_t *p = json_object();

                if (p && x->has_cm)
                        spec_json_set(p, "default_roce_tos", json_integer(x->cm_tos), ok);
                if (p && x->has_ofed)
                        spec_json_set(p, "traffic_class", json_integer(x->ofed_tclass), ok);
                if (p && state_roce_mode_name(x->roce_mode))
                        spec_json_set(p, "default_roce_mode", json_string(state_roce_mode_name(x->roce_mode)), ok);
                snprintf(key, sizeof(key), "%s/%u", x->dev, x->port);
                spec_json_set(o, key, p, ok);
        }
        return o;
}

json_t *state_to_json(const struct state *s)
{
        json_t *o = json_object();
        bool ok = true;

        if (!o)
                return NULL;
        spec_json_put_common(o, s, &ok);
        spec_json_put_pfc_storm(o, s, true, &ok);
        if (state_has(s, STATE_FIELD_ECN))
                spec_json_set(o, "ecn", ecn_to_json(&s->ecn, &ok), &ok);
        if (state_has(s, STATE_FIELD_HOST_ECN))
                spec_json_set(o, "host_ecn", host_ecn_to_json(&s->host_ecn, &ok), &ok);
        if (s->dcb.present)
                spec_json_set(o, "dcb_device", dcb_device_to_json(&s->dcb, &ok), &ok);
        if (s->qdisc.root != STATE_QDISC_UNKNOWN)
                spec_json_set(o, "qdisc", qdisc_to_json(&s->qdisc), &ok);
        if (s->roce.n_ports)
                spec_json_set(o, "roce_ports", roce_ports_to_json(&s->roce, &ok), &ok);
        if (!ok) {
                json_decref(o);
                return NULL;
        }
        return o;
}

/* ---- parsing ---- */

static int parse_ets(struct jsonv *v, const json_t *j, void *obj)
{
        return spec_json_parse_ets(v, j, &((struct state *)obj)->ets, true);
}

static const struct jsonv_field ecn_queue_fields[] = {
        { .key = "enabled", .type = JSONV_BOOL, .flags = JSONV_REQUIRED, JSONV_MEMBER(struct state_ecn_queue, enabled) },
        { .key = "min_threshold_bytes", .type = JSONV_INTEGER, .flags = JSONV_REQUIRED, .min = 0, .max = U32_MAX,
          JSONV_MEMBER(struct state_ecn_queue, min_bytes) },
        { .key = "max_threshold_bytes", .type = JSONV_INTEGER, .flags = JSONV_REQUIRED, .min = 0, .max = U32_MAX,
          JSONV_MEMBER(struct state_ecn_queue, max_bytes) },
        { .key = "mark_probability_pct", .type = JSONV_INTEGER, .flags = JSONV_REQUIRED, .min = 0, .max = 100,
          JSONV_MEMBER(struct state_ecn_queue, probability_pct) },
        { 0 },
};

/* "queue3" / "priority3" -> 3; -1 if key is not prefix followed by one digit 0-7. */
static int indexed_key(const char *key, const char *prefix)
{
        size_t n = strlen(prefix);

        if (strncmp(key, prefix, n) || key[n] < '0' || key[n] > '7' || key[n + 1])
                return -1;
        return key[n] - '0';
}

static int parse_ecn(struct jsonv *v, const json_t *j, void *obj)
{
        struct state_ecn *ecn = &((struct state *)obj)->ecn;
        const char *key;
        json_t *val;
        char q[80];

        json_object_foreach((json_t *)j, key, val) {
                int i = indexed_key(key, "queue"), r;

                if (i < 0)
                        return jsonv_error(v, "unknown key '%s', expected queue0 to queue7",
                                           jsonv_quote(key, q, sizeof(q)));
                jsonv_push_key(v, key);
                r = jsonv_object(v, val, ecn_queue_fields, &ecn->q[i]);
                jsonv_pop(v);
                if (r < 0)
                        return r;
                ecn->queues |= (uint8_t)(1u << i);
        }
        return 0;
}

struct prio_doc {
        bool rp, np;
};

static const struct jsonv_field host_prio_fields[] = {
        { .key = "reaction_point", .type = JSONV_BOOL, .flags = JSONV_REQUIRED, JSONV_MEMBER(struct prio_doc, rp) },
        { .key = "notification_point", .type = JSONV_BOOL, .flags = JSONV_REQUIRED, JSONV_MEMBER(struct prio_doc, np) },
        { 0 },
};

static int host_ecn_member(struct jsonv *v, const char *key, const json_t *val, struct state_host_ecn *h)
{
        struct prio_doc d = { 0 };
        long long x;
        int i = indexed_key(key, "priority"), r;

        if (streq(key, "dcqcn"))
                return jsonv_check_type(v, val, JSONV_OBJECT) < 0 ? -EINVAL : spec_json_parse_dcqcn(v, val, h);
        if (streq(key, "cnp_priority_mode")) {
                r = jsonv_int(v, val, key, 0, 1, &x);
                if (r >= 0) {
                        h->has_prio_mode = true;
                        h->cnp_prio_mode = (uint8_t)x;
                }
                return r;
        }
        if (streq(key, "cnp_dscp") || streq(key, "cnp_priority")) {
                r = jsonv_int(v, val, key, 0, streq(key, "cnp_dscp") ? 63 : 7, &x);
                if (r >= 0 && streq(key, "cnp_dscp"))
                        h->cnp_dscp = (uint8_t)x;
                else if (r >= 0)
                        h->cnp_prio = (uint8_t)x;
                return r;
        }
        r = jsonv_object(v, val, host_prio_fields, &d);
        if (r < 0)
                return r;
        h->prios |= (uint8_t)(1u << i);
        h->rp_enabled |= (uint8_t)(d.rp << i);
        h->np_enabled |= (uint8_t)(d.np << i);
        return 0;
}

static int parse_host_ecn(struct jsonv *v, const json_t *j, void *obj)
{
        struct state_host_ecn *h = &((struct state *)obj)->host_ecn;
        bool has_dscp = json_object_get(j, "cnp_dscp"), has_prio = json_object_get(j, "cnp_priority");
        const char *key;
        json_t *val;

        char q[80];

        json_object_foreach((json_t *)j, key, val) {
                int r;

                if (indexed_key(key, "priority") < 0 && !streq(key, "cnp_dscp") && !streq(key, "cnp_priority") &&
                    !streq(key, "cnp_priority_mode") && !streq(key, "dcqcn"))
                        return jsonv_error(v, "unknown key '%s', expected priority0 to priority7, cnp_dscp, "
                                           "cnp_priority, cnp_priority_mode or dcqcn", jsonv_quote(key, q, sizeof(q)));
                jsonv_push_key(v, key);
                r = host_ecn_member(v, key, val, h);
                jsonv_pop(v);
                if (r < 0)
                        return r;
        }
        if (has_dscp != has_prio)
                return jsonv_error(v, "%s is given without %s; give both or neither",
                                   has_dscp ? "cnp_dscp" : "cnp_priority", has_dscp ? "cnp_priority" : "cnp_dscp");
        h->has_cnp = has_dscp;
        return 0;
}

static int parse_dscp_apps(struct jsonv *v, const json_t *j, void *obj)
{
        struct state_dcb_device *dd = obj;
        size_t i;
        json_t *el;

        if (json_array_size(j) > STATE_DCB_APPS_MAX)
                return jsonv_error(v, "expected at most %d elements, found %zu", STATE_DCB_APPS_MAX,
                                   json_array_size(j));
        json_array_foreach(j, i, el) {
                long long pair[2];
                size_t n = 0;
                int r;

                jsonv_push_index(v, i);
                r = jsonv_int_array(v, el, "dscp", 0, 63, 2, 2, 0, pair, &n);
                if (r >= 0 && pair[1] > 7)
                        r = jsonv_error(v, "priority %lld out of range 0-7", pair[1]);
                jsonv_pop(v);
                if (r < 0)
                        return r;
                dd->apps[i] = (struct state_dcb_app){ .dscp = (uint8_t)pair[0], .prio = (uint8_t)pair[1] };
        }
        dd->n_apps = (uint8_t)json_array_size(j);
        dd->has_apps = true;
        return 0;
}

static int parse_trust_table(struct jsonv *v, const json_t *j, void *obj)
{
        struct state_dcb_device *dd = obj;
        long long vals[STATE_TRUST_TABLE_MAX];
        size_t n = 0;
        int r = jsonv_int_array(v, j, "selector", 0, 255, 0, STATE_TRUST_TABLE_MAX, 0, vals, &n);

        for (size_t i = 0; r >= 0 && i < n; i++)
                dd->trust_table[i] = (uint8_t)vals[i];
        if (r >= 0) {
                dd->n_trust = (uint8_t)n;
                dd->has_trust_table = true;
        }
        return r;
}

static const struct jsonv_field dcb_device_fields[] = {
        { .key = "dcbx", .type = JSONV_INTEGER, .min = 0, .max = 255, JSONV_MEMBER(struct state_dcb_device, dcbx) },
        { .key = "pfc_delay", .type = JSONV_INTEGER, .min = 0, .max = 65535,
          JSONV_MEMBER(struct state_dcb_device, pfc_delay) },
        JSONV_CUSTOM("dscp_apps", JSONV_ARRAY, 0, parse_dscp_apps),
        JSONV_CUSTOM("trust_table", JSONV_ARRAY, 0, parse_trust_table),
        { 0 },
};

static int parse_dcb_device(struct jsonv *v, const json_t *j, void *obj)
{
        struct state_dcb_device *dd = &((struct state *)obj)->dcb;
        int r = jsonv_object(v, j, dcb_device_fields, dd);

        if (r < 0)
                return r;
        dd->has_dcbx = json_object_get(j, "dcbx") != NULL;
        dd->has_pfc_delay = json_object_get(j, "pfc_delay") != NULL;
        dd->present = true;
        return 0;
}

static const char *const qdisc_roots[] = { "unknown", "default", "nettune", "foreign", NULL };

static const struct jsonv_field qdisc_fields[] = {
        JSONV_ENUM("root", struct state_qdisc, root, qdisc_roots, JSONV_REQUIRED),
        JSONV_STR("kind", struct state_qdisc, kind, 0),
        { .key = "handle", .type = JSONV_INTEGER, .min = 0, .max = U32_MAX, JSONV_MEMBER(struct state_qdisc, handle) },
        { 0 },
};

static int parse_qdisc(struct jsonv *v, const json_t *j, void *obj)
{
        return jsonv_object(v, j, qdisc_fields, &((struct state *)obj)->qdisc);
}

static int parse_roce_mode(struct jsonv *v, const json_t *j, void *obj)
{
        int m = state_roce_mode_from_name(json_string_value(j));
        char q[80];

        if (m < 0)
                return jsonv_error(v, "default_roce_mode '%s' is not one of 'IB/RoCE v1', 'RoCE v2'",
                                   jsonv_quote(json_string_value(j), q, sizeof(q)));
        ((struct state_rdma_port *)obj)->roce_mode = (uint8_t)m;
        return 0;
}

static const struct jsonv_field rdma_port_fields[] = {
        JSONV_CUSTOM("default_roce_mode", JSONV_STRING, 0, parse_roce_mode),
        { .key = "default_roce_tos", .type = JSONV_INTEGER, .min = 0, .max = 255,
          JSONV_MEMBER(struct state_rdma_port, cm_tos) },
        { .key = "traffic_class", .type = JSONV_INTEGER, .min = STATE_TCLASS_UNSET, .max = 255,
          JSONV_MEMBER(struct state_rdma_port, ofed_tclass) },
        { 0 },
};

/* "DEV/PORT": a device name of [A-Za-z0-9_.-] shorter than STATE_RDMA_DEV_MAX, a port 1-255. */
static int rdma_port_key(struct jsonv *v, const char *key, struct state_rdma_port *ret)
{
        const char *slash = strrchr(key, '/');
        char q[80], *end;
        unsigned long port = slash ? strtoul(slash + 1, &end, 10) : 0;
        size_t n = slash ? (size_t)(slash - key) : 0;

        if (!slash || !n || n >= sizeof(ret->dev) || !slash[1] || *end || port < 1 || port > 255 ||
            strspn(key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != n)
                return jsonv_error(v, "RDMA port '%s' is not DEVICE/PORT (port 1-255)", jsonv_quote(key, q, sizeof(q)));
        memcpy(ret->dev, key, n);
        ret->dev[n] = '\0';
        ret->port = (uint8_t)port;
        return 0;
}

static int parse_roce_ports(struct jsonv *v, const json_t *j, void *obj)
{
        struct state_roce *r = &((struct state *)obj)->roce;
        const char *key;
        json_t *val;

        if (json_object_size(j) > STATE_RDMA_PORTS_MAX)
                return jsonv_error(v, "expected at most %d RDMA ports, found %zu", STATE_RDMA_PORTS_MAX,
                                   json_object_size(j));
        json_object_foreach((json_t *)j, key, val) {
                struct state_rdma_port *x = &r->ports[r->n_ports];
                int k = rdma_port_key(v, key, x);

                jsonv_push_key(v, key);
                x->ofed_tclass = STATE_TCLASS_UNSET;
                if (k >= 0)
                        k = jsonv_object(v, val, rdma_port_fields, x);
                jsonv_pop(v);
                if (k < 0)
                        return k;
                x->has_cm = json_object_get(val, "default_roce_tos") != NULL;
                x->has_ofed = json_object_get(val, "traffic_class") != NULL;
                r->n_ports++;
        }
        return 0;
}

static const struct jsonv_field state_fields[] = {
        { .key = "mtu", .type = JSONV_INTEGER, .min = 0, .max = U32_MAX, JSONV_MEMBER(struct state, mtu) },
        JSONV_ENUM("trust", struct state, trust, spec_json_trust_live_names, 0),
        SPEC_JSON_SHARED_FIELDS,
        JSONV_CUSTOM("pfc", JSONV_OBJECT, 0, spec_json_parse_pfc_live),
        JSONV_CUSTOM("ets", JSONV_OBJECT, 0, parse_ets),
        JSONV_CUSTOM("ecn", JSONV_OBJECT, 0, parse_ecn),
        JSONV_CUSTOM("host_ecn", JSONV_OBJECT, 0, parse_host_ecn),
        JSONV_CUSTOM("buffers", JSONV_OBJECT, 0, spec_json_parse_buffers_live),
        JSONV_CUSTOM("dcb_device", JSONV_OBJECT, 0, parse_dcb_device),
        JSONV_CUSTOM("qdisc", JSONV_OBJECT, 0, parse_qdisc),
        JSONV_CUSTOM("roce_ports", JSONV_OBJECT, 0, parse_roce_ports),
        JSONV_CUSTOM("nccl", JSONV_OBJECT, 0, spec_json_parse_nccl_live),
        { 0 },
};

int state_from_json(const json_t *j, struct state *ret, struct errbuf *e)
{
        _cleanup_free_ struct state *s = malloc(sizeof(*s));
        struct jsonv v;
        int r;

        if (!s)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        state_init(s);
        jsonv_init(&v, NULL, e);
        r = jsonv_object(&v, j, state_fields, s);
        if (r < 0)
                return r;
        s->present = spec_json_present(j);
        memcpy(ret, s, sizeof(*s));
        return 0;
}

json_t *state_units_to_json(const struct state *units, const char (*names)[STATE_NAME_MAX], unsigned n)
{
        json_t *ports;

        if (!names)
                return n ? state_to_json(&units[0]) : json_object();
        ports = json_object();
        for (unsigned i = 0; ports && i < n; i++) {
                json_t *u = state_to_json(&units[i]);

                if (!u || json_object_set_new(ports, names[i], u) < 0) {
                        json_decref(ports);
                        return NULL;
                }
        }
        return ports ? json_pack("{s:o}", "ports", ports) : NULL;
}

int state_units_from_json(const json_t *j, const char (*names)[STATE_NAME_MAX], unsigned n,
                          struct state *ret, struct errbuf *e)
{
        const json_t *ports = json_object_get(j, "ports");
        const char *key;
        json_t *val;

        if (!names)
                return state_from_json(j, &ret[0], e);
        if (!json_is_object(ports) || json_object_size(j) != 1)
                return errbuf_set(e, EINVAL, NULL, "expected {\"ports\": {PORT: STATE, ...}}");
        for (unsigned i = 0; i < n; i++)
                state_init(&ret[i]);
        json_object_foreach((json_t *)ports, key, val) {
                unsigned i = 0;
                int r;

                while (i < n && !streq(names[i], key))
                        i++;
                if (i == n)
                        return errbuf_set(e, ENOENT, NULL, "port '%s' is not one of the target's ports", key);
                r = state_from_json(val, &ret[i], e);
                if (r < 0) {
                        errbuf_prefix(e, "port '%s'", key);
                        return r;
                }
        }
        return 0;
}
