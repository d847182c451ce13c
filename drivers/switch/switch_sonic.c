/* SPDX-License-Identifier: MIT */
/*
 * SONiC. Read: `sonic-cfggen -d --print-data` (CONFIG_DB as JSON). Apply:
 * `config checkpoint TX`, then one RFC 6902 patch through `config apply-patch
 * /dev/stdin` (PORT mtu, PORT_QOS_MAP dscp_to_tc_map / pfc_enable, WRED_PROFILE
 * NETTUNE_Q<n> bound through QUEUE|port|n). The generic config updater refuses
 * DSCP_TO_TC_MAP changes, so the DSCP map is written with `sonic-db-cli
 * CONFIG_DB hset/hdel` and its old content kept to put back. SONiC has no
 * commit timer: commit deletes the checkpoint, restore puts the DSCP map back
 * and runs `config rollback TX`. trust: dscp = the port has a dscp_to_tc_map.
 */
#include "switch.h"

#define SONIC_MAP_DEFAULT "AZURE"

static json_t *row(const json_t *db, const char *table, const char *key)
{
        return json_object_get(json_object_get(db, table), key);
}

static const char *field(const json_t *db, const char *table, const char *key, const char *f)
{
        return json_string_value(json_object_get(row(db, table, key), f));
}

/* The DSCP map nettune manages: the one the first port uses, else AZURE, else NETTUNE. */
static const char *map_name(const json_t *db, const struct switch_config *sw)
{
        const char *bound = sw->n_ports ? field(db, "PORT_QOS_MAP", sw->ports[0], "dscp_to_tc_map") : NULL;

        if (bound)
                return bound;
        return row(db, "DSCP_TO_TC_MAP", SONIC_MAP_DEFAULT) ? SONIC_MAP_DEFAULT : "NETTUNE";
}

static int queue_ecn(const json_t *db, const char *port, unsigned q, const char *where,
                     struct state_ecn *ecn, struct errbuf *e)
{
        char key[STATE_NAME_MAX + 8];
        const char *prof, *mode;
        const json_t *w;
        uint64_t min, max, prob = 100;

        snprintf(key, sizeof(key), "%s|%u", port, q);
        prof = field(db, "QUEUE", key, "wred_profile");
        if (!prof || !(w = row(db, "WRED_PROFILE", prof)))
                return 0;
        mode = json_string_value(json_object_get(w, "ecn"));
        if (!mode || streq(mode, "ecn_none"))
                return 0;
        if (switch_json_uint(json_object_get(w, "green_min_threshold"), UINT32_MAX, &min) < 0 ||
            switch_json_uint(json_object_get(w, "green_max_threshold"), UINT32_MAX, &max) < 0 ||
            (json_object_get(w, "green_drop_probability") &&
             switch_json_uint(json_object_get(w, "green_drop_probability"), 100, &prob) < 0))
                return errbuf_set(e, EBADMSG, where, "WRED_PROFILE|%s: green thresholds or probability are "
                                  "not numbers", prof);
        ecn->queues |= (uint8_t)(1u << q);
        ecn->q[q] = (struct state_ecn_queue) { .enabled = true, .min_bytes = (uint32_t)min,
                                               .max_bytes = (uint32_t)max, .probability_pct = (uint8_t)prob };
        return 0;
}

/* One port's trust (a bound dscp_to_tc_map), PFC and per-queue ECN. */
static int parse_port(const json_t *db, const char *port, const char *where, struct state *u, struct errbuf *e)
{
        const char *pfc = field(db, "PORT_QOS_MAP", port, "pfc_enable");
        uint64_t bits = 0, mtu;

        if (!row(db, "PORT", port))
                return errbuf_set(e, ENODEV, where, "port '%s' does not exist on the switch", port);
        if (switch_json_uint(json_object_get(row(db, "PORT", port), "mtu"), 65535, &mtu) < 0)
                mtu = 9100;     /* the SONiC default when PORT has no mtu */
        u->mtu = (uint32_t)mtu;
        u->trust = field(db, "PORT_QOS_MAP", port, "dscp_to_tc_map") ? STATE_TRUST_DSCP : STATE_TRUST_PCP;
        if (pfc && switch_parse_list(pfc, 7, &bits) < 0)
                return errbuf_set(e, EBADMSG, where, "PORT_QOS_MAP|%s: pfc_enable '%.32s' is not a list of "
                                  "priorities 0-7", port, pfc);
        u->pfc_enabled = (uint8_t)bits;
        for (unsigned q = 0; q < STATE_TC_COUNT; q++)
                if (queue_ecn(db, port, q, where, &u->ecn, e) < 0)
                        return -EBADMSG;
        u->present |= STATE_BIT(STATE_FIELD_MTU) | STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_PFC) |
                      STATE_BIT(STATE_FIELD_ECN);
        return 0;
}

static int parse_map(const json_t *db, const char *name, const char *where, struct state *ret, struct errbuf *e)
{
        const char *k;
        json_t *v;
        uint64_t d, tc;

        json_object_foreach(row(db, "DSCP_TO_TC_MAP", name), k, v)
                if (switch_parse_uint(k, 0, 63, &d) < 0 || switch_json_uint(v, 7, &tc) < 0)
                        return errbuf_set(e, EBADMSG, where, "DSCP_TO_TC_MAP|%s: entry '%.8s' is not dscp 0-63 "
                                          "to class 0-7", name, k);
                else
                        ret->dscp_prio[d] = (uint8_t)tc;
        return 0;
}

int switch_sonic_parse(const char *text, const char *where, const struct switch_config *sw,
                       struct state *units, json_t **ret_db, struct errbuf *e)
{
        json_error_t err;
        json_t *db = json_loads(text, JSON_REJECT_DUPLICATES, &err);
        struct state map;
        int r;

        if (!json_is_object(db)) {
                json_decref(db);
                return errbuf_set(e, EBADMSG, where, "'sonic-cfggen -d --print-data' printed invalid JSON "
                                  "(line %d column %d: %s)", err.line, err.column, db ? "not an object" : err.text);
        }
        /* The DSCP map is one shared table: every port reads it. */
        state_init(&map);
        r = parse_map(db, map_name(db, sw), where, &map, e);
        map.present = STATE_BIT(STATE_FIELD_DSCP_MAP);
        for (unsigned i = 0; r >= 0 && i < sw->n_ports && i < STATE_PORTS_MAX; i++)
                r = parse_port(db, sw->ports[i], where, &units[i], e);
        if (r < 0) {
                json_decref(db);
                return r;
        }
        switch_units_fill(units, sw->n_ports, &map, map.present);
        if (ret_db)
                *ret_db = db;
        else
                json_decref(db);
        return 0;
}

static int sonic_read(struct switch_session *s, struct state *units, struct errbuf *e)
{
        _cleanup_free_ char *out = NULL;
        json_t *db = NULL;
        int r;

        r = switch_run(s, "sonic-cfggen -d --print-data", NULL, &out, e);
        if (r >= 0)
                r = switch_sonic_parse(out, s->where, s->sw, units, &db, e);
        if (r >= 0) {
                json_decref(s->native);
                s->native = db;
        }
        return r;
}

/* Queues covered by a range key ("Ethernet0|3-4") cannot be changed one by one. */
static int sonic_check(struct switch_session *s, const struct driver_change *c, struct errbuf *e)
{
        const char *k;
        json_t *v;

        if (!(c->fields & STATE_BIT(STATE_FIELD_ECN)))
                return 0;
        json_object_foreach(json_object_get(s->native, "QUEUE"), k, v)
                for (unsigned i = 0; i < s->sw->n_ports; i++) {
                        size_t n = strlen(s->sw->ports[i]);
                        if (!strncmp(k, s->sw->ports[i], n) && k[n] == '|' && strchr(k + n, '-'))
                                return errbuf_set(e, EOPNOTSUPP, s->where, "QUEUE key '%s' covers several queues; "
                                                  "split it into one key per queue first; nothing was changed", k);
                }
        return 0;
}

/* ---- the JSON patch, built against a working copy of CONFIG_DB ---- */

struct patch {
        json_t *ops;
        json_t *w;              /* CONFIG_DB as it will be after ops */
};

static void pointer(char *buf, size_t size, const char *table, const char *key, const char *f)
{
        const char *parts[3] = { table, key, f };
        size_t off = 0;

        for (int i = 0; i < 3 && parts[i]; i++) {
                if (off + 1 < size)
                        buf[off++] = '/';
                for (const char *c = parts[i]; *c && off + 2 < size; c++) {
                        if (*c == '~' || *c == '/') {
                                buf[off++] = '~';
                                buf[off++] = *c == '~' ? '0' : '1';
                        } else
                                buf[off++] = *c;
                }
        }
        buf[off < size ? off : size - 1] = '\0';
}

static void op_add(struct patch *p, const char *table, const char *key, const char *f, json_t *value)
{
        char ptr[512];

        pointer(ptr, sizeof(ptr), table, key, f);
        json_array_append_new(p->ops, json_pack("{s:s,s:s,s:o}", "op", "add", "path", ptr, "value", value));
}

static json_t *wrow(json_t *w, const char *table, const char *key)
{
        json_t *t = json_object_get(w, table), *r;

        if (!t) {
                t = json_object();
                json_object_set_new(w, table, t);
        }
        r = json_object_get(t, key);
        if (!r) {
                r = json_object();
                json_object_set_new(t, key, r);
        }
        return r;
}

/* TABLE|key.field = value, creating the table or row when missing. */
static void patch_set(struct patch *p, const char *table, const char *key, const char *f, const char *value)
{
        json_t *t = json_object_get(p->w, table), *r = json_object_get(t, key);

        if (!t)
                op_add(p, table, NULL, NULL, json_pack("{s:{s:s}}", key, f, value));
        else if (!r)
                op_add(p, table, key, NULL, json_pack("{s:s}", f, value));
        else
                op_add(p, table, key, f, json_string(value));
        json_t *wr = wrow(p->w, table, key);
        json_object_set_new(wr, f, json_string(value));
}

static void patch_del(struct patch *p, const char *table, const char *key, const char *f)
{
        json_t *r = json_object_get(json_object_get(p->w, table), key);
        char ptr[512];

        if (!json_object_get(r, f))
                return;
        pointer(ptr, sizeof(ptr), table, key, f);
        json_array_append_new(p->ops, json_pack("{s:s,s:s}", "op", "remove", "path", ptr));
        json_object_del(r, f);
}

static void patch_row(struct patch *p, const char *table, const char *key, json_t *row_value)
{
        if (!json_object_get(p->w, table)) {
                op_add(p, table, NULL, NULL, json_pack("{s:O}", key, row_value));
                json_object_set_new(p->w, table, json_object());
        } else {
                op_add(p, table, key, NULL, json_incref(row_value));
        }
        json_object_set_new(json_object_get(p->w, table), key, row_value);
}

static void render_ecn(struct patch *p, const struct switch_config *sw, const struct driver_change *c)
{
        for (unsigned q = 0; q < STATE_TC_COUNT; q++) {
                char prof[32], key[STATE_NAME_MAX + 8], n1[16], n2[16], n3[8];
                bool profile = false;

                snprintf(prof, sizeof(prof), "NETTUNE_Q%u", q);
                for (unsigned i = 0; i < c->n_units && i < STATE_PORTS_MAX; i++) {
                        const struct state *want = &c->desired[i];
                        const struct state_ecn_queue *x = &want->ecn.q[q];
                        bool on = want->ecn.queues & (1u << q);

                        if (!(c->delta[i] & STATE_BIT(STATE_FIELD_ECN)))
                                continue;
                        if (on && !profile) {
                                snprintf(n1, sizeof(n1), "%u", x->min_bytes);
                                snprintf(n2, sizeof(n2), "%u", x->max_bytes);
                                snprintf(n3, sizeof(n3), "%u", x->probability_pct);
                                patch_row(p, "WRED_PROFILE", prof, json_pack("{s:s,s:s,s:s,s:s,s:s}", "ecn",
                                          "ecn_all", "wred_green_enable", "true", "green_min_threshold", n1,
                                          "green_max_threshold", n2, "green_drop_probability", n3));
                                profile = true;
                        }
                        snprintf(key, sizeof(key), "%s|%u", sw->ports[i], q);
                        if (on)
                                patch_set(p, "QUEUE", key, "wred_profile", prof);
                        else
                                patch_del(p, "QUEUE", key, "wred_profile");
                }
        }
}

static void render(struct patch *p, const struct switch_config *sw, const char *map, const struct driver_change *c)
{
        char buf[32];

        for (unsigned i = 0; i < c->n_units && i < STATE_PORTS_MAX; i++) {
                const struct state *want = &c->desired[i];
                const char *port = sw->ports[i];
                uint32_t delta = c->delta[i];

                if (delta & STATE_BIT(STATE_FIELD_MTU)) {
                        snprintf(buf, sizeof(buf), "%u", want->mtu);
                        patch_set(p, "PORT", port, "mtu", buf);
                }
                if ((delta & STATE_BIT(STATE_FIELD_TRUST)) && want->trust == STATE_TRUST_DSCP)
                        patch_set(p, "PORT_QOS_MAP", port, "dscp_to_tc_map", map);
                else if (delta & STATE_BIT(STATE_FIELD_TRUST))
                        patch_del(p, "PORT_QOS_MAP", port, "dscp_to_tc_map");
                if ((delta & STATE_BIT(STATE_FIELD_PFC)) && want->pfc_enabled)
                        patch_set(p, "PORT_QOS_MAP", port, "pfc_enable",
                                  switch_format_list(want->pfc_enabled, buf, sizeof(buf)));
                else if (delta & STATE_BIT(STATE_FIELD_PFC))
                        patch_del(p, "PORT_QOS_MAP", port, "pfc_enable");
        }
        if (c->fields & STATE_BIT(STATE_FIELD_ECN))
                render_ecn(p, sw, c);
}

/* hset/hdel so that DSCP_TO_TC_MAP|map holds exactly `prio` (STATE_DSCP_UNMAPPED = absent). */
static int write_map(struct switch_session *s, const char *map, const uint8_t *now, const uint8_t *want,
                     struct errbuf *e)
{
        char set[SWITCH_CMD_MAX] = "", del[SWITCH_CMD_MAX] = "";
        size_t so = 0, dl = 0;
        int r = 0;

        for (unsigned d = 0; d < STATE_DSCP_COUNT; d++) {
                if (want[d] == now[d])
                        continue;
                if (want[d] == STATE_DSCP_UNMAPPED)
                        dl += (size_t)snprintf(del + dl, sizeof(del) - dl, " %u", d);
                else
                        so += (size_t)snprintf(set + so, sizeof(set) - so, " %u %u", d, want[d]);
        }
        if (so)
                r = switch_runf(s, NULL, e, "sonic-db-cli CONFIG_DB hset \"DSCP_TO_TC_MAP|%s\"%s", map, set);
        if (r >= 0 && dl)
                r = switch_runf(s, NULL, e, "sonic-db-cli CONFIG_DB hdel \"DSCP_TO_TC_MAP|%s\"%s", map, del);
        return r;
}

static int save_map(struct switch_session *s, const char *map, const struct state *live, const struct state *want)
{
        json_t *before = json_array(), *after = json_array();

        for (unsigned d = 0; d < STATE_DSCP_COUNT; d++) {
                json_array_append_new(before, json_integer(live->dscp_prio[d]));
                json_array_append_new(after, json_integer(want->dscp_prio[d]));
        }
        json_decref(s->saved);
        s->saved = json_pack("{s:s,s:o,s:o}", "map", map, "before", before, "after", after);
        return s->saved ? 0 : -ENOMEM;
}

static int restore_map(struct switch_session *s, struct errbuf *e)
{
        uint8_t before[STATE_DSCP_COUNT], after[STATE_DSCP_COUNT];
        const char *map = json_string_value(json_object_get(s->saved, "map"));

        if (!map)
                return 0;
        for (unsigned d = 0; d < STATE_DSCP_COUNT; d++) {
                before[d] = (uint8_t)json_integer_value(json_array_get(json_object_get(s->saved, "before"), d));
                after[d] = (uint8_t)json_integer_value(json_array_get(json_object_get(s->saved, "after"), d));
        }
        int r = write_map(s, map, after, before, e);
        if (r >= 0) {
                json_decref(s->saved);
                s->saved = NULL;
        }
        return r;
}

static int sonic_abort(struct switch_session *s, struct errbuf *e)
{
        int r = restore_map(s, e);

        if (r >= 0)
                r = switch_runf(s, NULL, e, "config rollback %s", s->txid);
        if (r >= 0) {
                struct errbuf ignore;
                switch_runf(s, NULL, &ignore, "config delete-checkpoint %s", s->txid);
                s->restore_method = SWITCH_RESTORE_CHECKPOINT;
        }
        return r;
}

static int run_patch(struct switch_session *s, const struct driver_change *c, const char *map, struct errbuf *e)
{
        struct patch p = { .ops = json_array(), .w = json_deep_copy(s->native) };
        char *text = NULL;
        int r = 0;

        if (!p.ops || !p.w)
                r = errbuf_set(e, ENOMEM, s->where, "out of memory");
        else
                render(&p, s->sw, map, c);
        if (r >= 0 && json_array_size(p.ops) > 0) {
                text = json_dumps(p.ops, JSON_COMPACT);
                r = text ? switch_run(s, "config apply-patch /dev/stdin", text, NULL, e)
                         : errbuf_set(e, ENOMEM, s->where, "out of memory");
        }
        free(text);
        json_decref(p.ops);
        json_decref(p.w);
        return r;
}

/* The DSCP map is one table for every port: written from the first port's view. */
static int sonic_apply(struct switch_session *s, const struct driver_change *c, unsigned confirm_s,
                       struct errbuf *e)
{
        const struct state *live = &c->live[0], *want = &c->desired[0];
        char map[STATE_NAME_MAX];
        int r;

        snprintf(map, sizeof(map), "%s", map_name(s->native, s->sw));
        r = switch_runf(s, NULL, e, "config checkpoint %s", s->txid);
        if (r < 0)
                return r;
        s->pending = true;      /* the checkpoint exists: restore can roll back to it */
        s->timer = false;
        if (c->fields & STATE_BIT(STATE_FIELD_DSCP_MAP)) {
                r = save_map(s, map, live, want);
                if (r >= 0)
                        r = write_map(s, map, live->dscp_prio, want->dscp_prio, e);
        }
        if (r >= 0)
                r = run_patch(s, c, map, e);
        if (r < 0 && ssh_session_alive(s->ssh)) {
                /* Nothing half-done stays behind: the patch is atomic, the map is put back. */
                struct errbuf ignore;
                if (sonic_abort(s, &ignore) >= 0)
                        s->pending = false;
                errbuf_suffix(e, "; nothing was changed");
        }
        (void)confirm_s;        /* no native timer: the agent's restore rolls back */
        return r;
}

static int sonic_commit(struct switch_session *s, struct errbuf *e)
{
        int r = switch_runf(s, NULL, e, "config delete-checkpoint %s", s->txid);

        if (r >= 0) {
                json_decref(s->saved);
                s->saved = NULL;
        }
        return r;
}

const struct switch_dialect switch_sonic_dialect = {
        .name = "sonic",
        .lim = { .mtu_min = 68, .mtu_max = 9216, .thr_min = 1, .thr_max = UINT32_MAX },
        .read = sonic_read,
        .check = sonic_check,
        .apply = sonic_apply,
        .commit = sonic_commit,
        .abort = sonic_abort,
};
