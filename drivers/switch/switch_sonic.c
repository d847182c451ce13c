/* SPDX-License-Identifier: MIT */
/*
 * SONiC (sonic-utilities config/main.py and generic_config_updater; sonic-buildimage
 * yang models and qos templates; the SONiC "Generic Config Update and Rollback"
 * design).
 *
 * Read: `sonic-cfggen -d --print-data` (CONFIG_DB as JSON). Per port: PORT mtu
 * (default 9100); the DSCP map the port uses (PORT_QOS_MAP|port dscp_to_tc_map,
 * else the switch-level PORT_QOS_MAP|global one) and with it trust dscp (a
 * dot1p_to_tc_map without a DSCP map: pcp); pfc_enable; per queue the WRED_PROFILE
 * bound in QUEUE|port|q (range keys port|3-4 included): marking = green ECN on.
 *
 * Write: every change is one RFC 6902 patch through `sudo config apply-patch
 * /dev/stdin` (GCU: validated against yang, applied atomically; it takes a port
 * down and up while it changes that port's PORT_QOS_MAP, QUEUE or BUFFER_PG,
 * patch_sorter.py RequiredValueIdentifier). Shared tables are never edited:
 *   - DSCP_TO_TC_MAP|NETTUNE_<policy> (and DOT1P_TO_TC_MAP|NETTUNE_<policy>, 0-7
 *     to 0-7, for trust pcp) is nettune's own map, bound per managed port;
 *   - WRED_PROFILE|NETTUNE_<policy>_Q<q> is a copy of the queue's lossless profile
 *     (or AZURE_LOSSLESS) with the policy's green thresholds, so its yellow and red
 *     settings are kept, bound in QUEUE|port|q for the listed queues only;
 *   - a restore (no policy) binds an existing map or profile that holds exactly
 *     the snapshot's values, else NETTUNE_RESTORE[_Q<q>].
 * PFC is enabled only on priorities with a lossless BUFFER_PG on that port (a
 * profile with xoff, or NULL under the dynamic buffer model); else check refuses.
 * Cable length: CABLE_LENGTH|<its first key, AZURE by default> <port> "<n>m", the
 * row `config interface cable-length` writes (sonic-utilities config/main.py
 * cable_length()); under the dynamic buffer model (DEVICE_METADATA|localhost
 * buffer_model dynamic) buffermgrd derives the lossless BUFFER_PG profile from it
 * and the port's speed and MTU (sonic-swss cfgmgr/buffermgrdyn.cpp,
 * buffer_headroom_mellanox.lua). The traditional model looks the pair up in the
 * SKU's pg_profile_lookup.ini and leaves a port without a lossless profile for a
 * length it lacks (cfgmgr/buffermgr.cpp), so check refuses a cable length there.
 * Unset reads as 0, "0m" (the dynamic model then removes the lossless PGs) too.
 * Native transaction: `sudo config checkpoint TX` before, `sudo config rollback
 * TX` to undo, `sudo config delete-checkpoint TX` after; commit saves with `sudo
 * config save -y` (/etc/sonic/config_db.json, loaded at boot). SONiC has no commit
 * timer. Someone else's unsaved change that `config save` would persist (running
 * CONFIG_DB differs from /etc/sonic/config_db.json where this change does not
 * write) makes check refuse.
 */
#include "drivers/switch/switch.h"

#define SONIC_DEFAULT_MTU 9100          /* sonic-port.yang default */
#define SONIC_LOSSLESS_TEMPLATE "AZURE_LOSSLESS"
#define SONIC_SAVED "/etc/sonic/config_db.json"
#define SONIC_SHOW "sonic-cfggen -d --print-data"

static json_t *row(const json_t *db, const char *table, const char *key)
{
        return switch_member(switch_member(db, table), key);
}

static const char *field(const json_t *db, const char *table, const char *key, const char *f)
{
        return json_string_value(switch_member(row(db, table, key), f));
}

/* ---- reading ---- */

/* The DSCP map a port uses: its own binding, else the switch-level one; NULL when none. */
static const char *dscp_map_of(const json_t *db, const char *port)
{
        const char *m = field(db, "PORT_QOS_MAP", port, "dscp_to_tc_map");

        return m ? m : field(db, "PORT_QOS_MAP", "global", "dscp_to_tc_map");
}

/* Green marking on: ECN for green packets (sonic-wred-profile.yang `ecn`) and green WRED enabled. */
static bool green_marks(const char *mode)
{
        return streq(mode, "ecn_green") || streq(mode, "ecn_green_yellow") || streq(mode, "ecn_green_red") ||
               streq(mode, "ecn_all");
}

static int wred_queue(const json_t *db, const char *prof, const char *where, struct state_ecn_queue *q,
                      struct errbuf *e)
{
        const json_t *w = row(db, "WRED_PROFILE", prof);
        const char *mode = json_string_value(switch_member(w, "ecn"));
        uint64_t min, max, prob = 100;

        *q = (struct state_ecn_queue){ 0 };
        if (!w)
                return errbuf_set(e, EBADMSG, where, "a QUEUE names WRED_PROFILE '%.64s', which CONFIG_DB does not have",
                                  prof);
        if (!green_marks(mode) || !streq(json_string_value(switch_member(w, "wred_green_enable")), "true"))
                return 0;
        if (switch_json_uint(switch_member(w, "green_min_threshold"), UINT32_MAX, &min) < 0 ||
            switch_json_uint(switch_member(w, "green_max_threshold"), UINT32_MAX, &max) < 0 ||
            (switch_member(w, "green_drop_probability") &&
             switch_json_uint(switch_member(w, "green_drop_probability"), 100, &prob) < 0))
                return errbuf_set(e, EBADMSG, where, "WRED_PROFILE|%.64s: green thresholds or probability are not "
                                  "numbers", prof);
        *q = (struct state_ecn_queue){ .enabled = true, .min_bytes = (uint32_t)min, .max_bytes = (uint32_t)max,
                                       .probability_pct = (uint8_t)prob };
        return 0;
}

/* "Ethernet0|3" or "Ethernet0|3-4" of this port: the queues it covers (0 when another port's). */
static uint8_t key_queues(const char *key, const char *port)
{
        size_t n = strlen(port);
        uint64_t bits;

        if (strncmp(key, port, n) || key[n] != '|' || switch_parse_list(key + n + 1, 7, &bits) < 0)
                return 0;
        return (uint8_t)bits;
}

static int parse_queues(const json_t *db, const char *port, const char *where, struct state *u, struct errbuf *e)
{
        const char *k;
        json_t *v;

        switch_ecn_all_queues(u);
        json_object_foreach(switch_member(db, "QUEUE"), k, v) {
                uint8_t qs = key_queues(k, port);
                const char *prof = json_string_value(switch_member(v, "wred_profile"));

                for (unsigned q = 0; prof && q < STATE_TC_COUNT; q++)
                        if ((qs & (1u << q)) && wred_queue(db, prof, where, &u->ecn.q[q], e) < 0)
                                return -EBADMSG;
        }
        return 0;
}

static int parse_map(const json_t *db, const char *name, const char *where, struct state *u, struct errbuf *e)
{
        const json_t *m = row(db, "DSCP_TO_TC_MAP", name);
        const char *k;
        json_t *v;
        uint64_t d, tc;

        if (!json_is_object(m))
                return errbuf_set(e, EBADMSG, where, "PORT_QOS_MAP names DSCP_TO_TC_MAP '%.64s', which CONFIG_DB does "
                                  "not have", name);
        json_object_foreach((json_t *)m, k, v)
                if (switch_parse_uint(k, 0, 63, &d) < 0 || switch_json_uint(v, 7, &tc) < 0)
                        return errbuf_set(e, EBADMSG, where, "DSCP_TO_TC_MAP|%.64s: entry '%.8s' is not dscp 0-63 to "
                                          "class 0-7", name, k);
                else
                        u->dscp_prio[d] = (uint8_t)tc;
        return 0;
}

/* CABLE_LENGTH has one row (its key is AZURE on the shipped templates, any name works). */
static const char *cable_key(const json_t *db)
{
        void *it = json_object_iter(switch_member(db, "CABLE_LENGTH"));

        return it ? json_object_iter_key(it) : "AZURE";
}

/* "40m" -> 40 (sonic-cable-length.yang: '[0-9]+m'); absent: 0. */
static int parse_cable(const json_t *db, const char *port, const char *where, struct state *u, struct errbuf *e)
{
        const char *v = field(db, "CABLE_LENGTH", cable_key(db), port);
        char num[16];
        size_t n = v ? strlen(v) : 0;
        uint64_t m = 0;

        if (v && (n < 2 || n >= sizeof(num) || v[n - 1] != 'm' ||
                  (snprintf(num, sizeof(num), "%.*s", (int)(n - 1), v), switch_parse_uint(num, 0, 65535, &m) < 0)))
                return errbuf_set(e, EBADMSG, where, "CABLE_LENGTH|%s: '%s' is '%.16s', not a length like 40m",
                                  cable_key(db), port, v);
        u->cable_len_m = (uint32_t)m;
        return 0;
}

static int parse_port(const json_t *db, const char *port, const char *where, struct state *u, struct errbuf *e)
{
        const char *pfc = field(db, "PORT_QOS_MAP", port, "pfc_enable"), *map = dscp_map_of(db, port);
        const json_t *p = row(db, "PORT", port);
        uint64_t bits = 0, mtu = SONIC_DEFAULT_MTU;

        if (!json_is_object(p))
                return errbuf_set(e, ENODEV, where, "port '%s' does not exist on the switch (no PORT|%s)", port, port);
        if (switch_member(p, "mtu") && switch_json_uint(switch_member(p, "mtu"), 65535, &mtu) < 0)
                return errbuf_set(e, EBADMSG, where, "PORT|%s: mtu is not a number", port);
        u->mtu = (uint32_t)mtu;
        u->trust = map ? STATE_TRUST_DSCP : STATE_TRUST_PCP;
        if (map && parse_map(db, map, where, u, e) < 0)
                return -EBADMSG;
        if (pfc && switch_parse_list(pfc, 7, &bits) < 0)
                return errbuf_set(e, EBADMSG, where, "PORT_QOS_MAP|%s: pfc_enable '%.32s' is not a list of "
                                  "priorities 0-7", port, pfc);
        u->pfc_enabled = (uint8_t)bits;
        if (parse_queues(db, port, where, u, e) < 0 || parse_cable(db, port, where, u, e) < 0)
                return -EBADMSG;
        u->present |= SWITCH_FIELDS;
        return 0;
}

int switch_sonic_parse(const char *text, const char *where, const struct switch_config *sw,
                       struct state *units, json_t **ret_db, struct errbuf *e)
{
        json_error_t err;
        json_t *db = json_loads(text ? text : "", JSON_REJECT_DUPLICATES, &err);
        int r = 0;

        if (!json_is_object(db)) {
                r = errbuf_set(e, EBADMSG, where, "'" SONIC_SHOW "' printed invalid JSON (line %d column %d: %s)",
                               err.line, err.column, db ? "not an object" : err.text);
        } else if (!json_is_object(switch_member(db, "PORT"))) {
                r = errbuf_set(e, EBADMSG, where, "'" SONIC_SHOW "': no table 'PORT'; not a CONFIG_DB nettune knows");
        }
        for (unsigned i = 0; r >= 0 && i < sw->n_ports && i < STATE_PORTS_MAX; i++)
                r = parse_port(db, sw->ports[i], where, &units[i], e);
        if (r < 0 || !ret_db)
                json_decref(db);
        else
                *ret_db = db;
        return r;
}

static int sonic_read(struct switch_session *s, struct state *units, struct errbuf *e)
{
        _cleanup_free_ char *out = NULL;
        json_t *db = NULL;
        int r;

        r = switch_run(s, SONIC_SHOW, NULL, &out, e);
        if (r >= 0)
                r = switch_sonic_parse(out, s->where, s->sw, units, &db, e);
        if (r >= 0) {
                json_decref(s->native);
                s->native = db;
        }
        return r;
}

/* ---- the JSON patch, built against a working copy of CONFIG_DB ---- */

struct patch {
        json_t *ops;
        json_t *w;              /* CONFIG_DB as it will be after ops */
        json_t *touched;        /* {"TABLE|key": true (whole row) | {"field": true}} */
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

static void touch(struct patch *p, const char *table, const char *key, const char *f)
{
        char k[256];
        json_t *t;

        snprintf(k, sizeof(k), "%s|%s", table, key);
        t = json_object_get(p->touched, k);
        if (json_is_true(t))
                return;
        if (!f) {
                json_object_set_new(p->touched, k, json_true());
                return;
        }
        if (!t) {
                t = json_object();
                json_object_set_new(p->touched, k, t);
        }
        json_object_set_new(t, f, json_true());
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

/* TABLE|key.field = value, creating the table or row when missing; nothing when it already is. */
static void patch_set(struct patch *p, const char *table, const char *key, const char *f, const char *value)
{
        json_t *t = json_object_get(p->w, table), *r = json_object_get(t, key);

        if (streq(json_string_value(json_object_get(r, f)), value))
                return;
        if (!t)
                op_add(p, table, NULL, NULL, json_pack("{s:{s:s}}", key, f, value));
        else if (!r)
                op_add(p, table, key, NULL, json_pack("{s:s}", f, value));
        else
                op_add(p, table, key, f, json_string(value));
        json_object_set_new(wrow(p->w, table, key), f, json_string(value));
        touch(p, table, key, f);
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
        touch(p, table, key, f);
}

/* TABLE|key = the whole row (steals value); nothing when it already is exactly that. */
static void patch_row(struct patch *p, const char *table, const char *key, json_t *value)
{
        if (json_equal(json_object_get(json_object_get(p->w, table), key), value)) {
                json_decref(value);
                return;
        }
        if (!json_object_get(p->w, table)) {
                op_add(p, table, NULL, NULL, json_pack("{s:O}", key, value));
                json_object_set_new(p->w, table, json_object());
        } else {
                op_add(p, table, key, NULL, json_incref(value));
        }
        json_object_set_new(json_object_get(p->w, table), key, value);
        touch(p, table, key, NULL);
}

/* ---- what to bind: nettune's own maps and profiles ---- */

static json_t *dscp_map_json(const struct state *want)
{
        json_t *m = json_object();
        char k[4], v[4];

        for (unsigned d = 0; m && d < STATE_DSCP_COUNT; d++)
                if (want->dscp_prio[d] != STATE_DSCP_UNMAPPED) {
                        snprintf(k, sizeof(k), "%u", d);
                        snprintf(v, sizeof(v), "%u", want->dscp_prio[d]);
                        json_object_set_new(m, k, json_string(v));
                }
        return m;
}

/* A table's row equal to value (a restore binds what held the snapshot's values), or NULL. */
static const char *equal_row(const json_t *db, const char *table, const json_t *value)
{
        const char *k;
        json_t *v;

        json_object_foreach(switch_member(db, table), k, v)
                if (json_equal(v, value))
                        return k;
        return NULL;
}

/* NETTUNE_<policy><suffix>, or for a restore an existing row with exactly `value`. */
static void own_name(const struct switch_session *s, const json_t *db, const char *table, const json_t *value,
                     const char *suffix, char *buf, size_t size)
{
        const char *pol = switch_policy(s), *same;

        if (!*pol && value && (same = equal_row(db, table, value))) {
                snprintf(buf, size, "%s", same);
                return;
        }
        snprintf(buf, size, "NETTUNE_%s%s", *pol ? pol : "RESTORE", suffix);
}

static void render_trust(struct patch *p, const struct switch_session *s, const struct driver_change *c, unsigned u)
{
        const struct state *want = &c->desired[u];
        const char *port = s->sw->ports[u];
        uint32_t delta = c->delta[u];
        char name[STATE_NAME_MAX + 16];

        if (!(delta & (STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_DSCP_MAP))))
                return;
        if (state_has(want, STATE_FIELD_DSCP_MAP) && (!state_has(want, STATE_FIELD_TRUST) ||
                                                       want->trust == STATE_TRUST_DSCP)) {
                json_t *m = dscp_map_json(want);

                own_name(s, p->w, "DSCP_TO_TC_MAP", m, "", name, sizeof(name));
                patch_row(p, "DSCP_TO_TC_MAP", name, m);
                patch_set(p, "PORT_QOS_MAP", port, "dscp_to_tc_map", name);
                return;
        }
        if (want->trust == STATE_TRUST_PCP && (delta & STATE_BIT(STATE_FIELD_TRUST))) {
                json_t *m = json_object();
                char k[4];

                for (unsigned i = 0; m && i < 8; i++) {
                        snprintf(k, sizeof(k), "%u", i);
                        json_object_set_new(m, k, json_string(k));
                }
                own_name(s, p->w, "DOT1P_TO_TC_MAP", m, "", name, sizeof(name));
                patch_row(p, "DOT1P_TO_TC_MAP", name, m);
                patch_set(p, "PORT_QOS_MAP", port, "dot1p_to_tc_map", name);
                patch_del(p, "PORT_QOS_MAP", port, "dscp_to_tc_map");
        }
}

/* The profile whose yellow and red settings a queue keeps: the bound one, else the lossless template. */
static const json_t *wred_base(const json_t *db, const char *port, unsigned q)
{
        const char *k;
        json_t *v;

        json_object_foreach(switch_member(db, "QUEUE"), k, v) {
                const char *prof = json_string_value(switch_member(v, "wred_profile"));

                if ((key_queues(k, port) & (1u << q)) && prof && row(db, "WRED_PROFILE", prof))
                        return row(db, "WRED_PROFILE", prof);
        }
        return row(db, "WRED_PROFILE", SONIC_LOSSLESS_TEMPLATE);
}

/* ecn mode with green marking switched on or off, the other colours as they were. */
static const char *green_mode(const char *mode, bool on)
{
        static const char *const modes[][2] = {         /* [without green, with green] */
                { "ecn_none", "ecn_green" }, { "ecn_yellow", "ecn_green_yellow" },
                { "ecn_red", "ecn_green_red" }, { "ecn_yellow_red", "ecn_all" },
        };

        for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
                if (streq(mode, modes[i][0]) || streq(mode, modes[i][1]))
                        return modes[i][on];
        return on ? "ecn_green" : "ecn_none";
}

static json_t *wred_json(const json_t *base, const struct state_ecn_queue *x)
{
        json_t *w = base ? json_deep_copy(base) : json_object();
        char n[16];

        if (!w)
                return NULL;
        json_object_set_new(w, "ecn", json_string(green_mode(json_string_value(switch_member(base, "ecn")), x->enabled)));
        json_object_set_new(w, "wred_green_enable", json_string(x->enabled ? "true" : "false"));
        if (x->enabled) {
                snprintf(n, sizeof(n), "%u", x->min_bytes);
                json_object_set_new(w, "green_min_threshold", json_string(n));
                snprintf(n, sizeof(n), "%u", x->max_bytes);
                json_object_set_new(w, "green_max_threshold", json_string(n));
                snprintf(n, sizeof(n), "%u", x->probability_pct);
                json_object_set_new(w, "green_drop_probability", json_string(n));
        }
        return w;
}

static void render_ecn(struct patch *p, const struct switch_session *s, const json_t *db,
                       const struct driver_change *c, unsigned u)
{
        uint8_t qs = switch_ecn_changed(c, u);
        const char *port = s->sw->ports[u];
        char name[STATE_NAME_MAX + 24], suffix[8], key[STATE_NAME_MAX + 8];

        for (unsigned q = 0; q < STATE_TC_COUNT; q++) {
                json_t *w;

                if (!(qs & (1u << q)))
                        continue;
                w = wred_json(wred_base(db, port, q), &c->desired[u].ecn.q[q]);
                snprintf(suffix, sizeof(suffix), "_Q%u", q);
                own_name(s, p->w, "WRED_PROFILE", w, suffix, name, sizeof(name));
                patch_row(p, "WRED_PROFILE", name, w);
                snprintf(key, sizeof(key), "%s|%u", port, q);
                patch_set(p, "QUEUE", key, "wred_profile", name);
        }
}

static void render(struct patch *p, const struct switch_session *s, const struct driver_change *c)
{
        char buf[32];

        for (unsigned u = 0; u < c->n_units && u < STATE_PORTS_MAX; u++) {
                const struct state *want = &c->desired[u];
                const char *port = s->sw->ports[u];
                uint32_t delta = c->delta[u];

                if (delta & STATE_BIT(STATE_FIELD_MTU)) {
                        snprintf(buf, sizeof(buf), "%u", want->mtu);
                        patch_set(p, "PORT", port, "mtu", buf);
                }
                render_trust(p, s, c, u);
                if ((delta & STATE_BIT(STATE_FIELD_PFC)) && want->pfc_enabled)
                        patch_set(p, "PORT_QOS_MAP", port, "pfc_enable",
                                  switch_format_list(want->pfc_enabled, buf, sizeof(buf)));
                else if (delta & STATE_BIT(STATE_FIELD_PFC))
                        patch_del(p, "PORT_QOS_MAP", port, "pfc_enable");
                render_ecn(p, s, s->native, c, u);
                if ((delta & STATE_BIT(STATE_FIELD_CABLE_LEN)) && want->cable_len_m) {
                        snprintf(buf, sizeof(buf), "%um", want->cable_len_m);
                        patch_set(p, "CABLE_LENGTH", cable_key(s->native), port, buf);
                } else if (delta & STATE_BIT(STATE_FIELD_CABLE_LEN)) {
                        patch_del(p, "CABLE_LENGTH", cable_key(s->native), port);
                }
        }
}

static int patch_build(const struct switch_session *s, const struct driver_change *c, struct patch *p,
                       struct errbuf *e)
{
        *p = (struct patch){ .ops = json_array(), .w = json_deep_copy(s->native), .touched = json_object() };
        if (!p->ops || !p->w || !p->touched)
                return errbuf_set(e, ENOMEM, s->where, "out of memory");
        render(p, s, c);
        return 0;
}

static void patch_done(struct patch *p)
{
        json_decref(p->ops);
        json_decref(p->w);
        json_decref(p->touched);
}

/* ---- check ---- */

/* Queues covered by a range key ("Ethernet0|3-4") cannot be rebound one by one. */
static int check_ranges(const struct switch_session *s, const struct driver_change *c, struct errbuf *e)
{
        const char *k;
        json_t *v;

        for (unsigned u = 0; u < c->n_units; u++) {
                uint8_t qs = switch_ecn_changed(c, u);

                json_object_foreach(switch_member(s->native, "QUEUE"), k, v) {
                        uint8_t covers = key_queues(k, s->sw->ports[u]);

                        if ((covers & qs) && (covers & (covers - 1)))
                                return errbuf_set(e, EOPNOTSUPP, s->where, "QUEUE key '%s' covers several queues; "
                                                  "split it into one key per queue first; nothing was changed", k);
                }
        }
        return 0;
}

/* The yellow/red settings one profile per queue keeps must be the same on every port it binds to. */
static int check_bases(const struct switch_session *s, const struct driver_change *c, struct errbuf *e)
{
        for (unsigned q = 0; q < STATE_TC_COUNT; q++) {
                const json_t *first = NULL;
                int fu = -1;

                for (unsigned u = 0; u < c->n_units; u++) {
                        const json_t *b;

                        if (!(switch_ecn_changed(c, u) & (1u << q)))
                                continue;
                        b = wred_base(s->native, s->sw->ports[u], q);
                        if (fu < 0) {
                                first = b;
                                fu = (int)u;
                        } else if (!json_equal(first, b) && (first || b)) {
                                return errbuf_set(e, EOPNOTSUPP, s->where, "queue %u of ports '%s' and '%s' uses WRED "
                                                  "profiles with different yellow/red settings; nettune keeps one "
                                                  "profile per queue; nothing was changed", q, s->sw->ports[fu],
                                                  s->sw->ports[u]);
                        }
                }
        }
        return 0;
}

/* The BUFFER_PG of port covering priority group pg: lossless (a profile with xoff, or NULL: dynamic). */
static bool lossless_pg(const json_t *db, const char *port, unsigned pg)
{
        const char *k;
        json_t *v;

        json_object_foreach(switch_member(db, "BUFFER_PG"), k, v) {
                const char *prof = json_string_value(switch_member(v, "profile"));

                if (!(key_queues(k, port) & (1u << pg)) || !prof)
                        continue;
                if (streq(prof, "NULL") || switch_member(row(db, "BUFFER_PROFILE", prof), "xoff"))
                        return true;
        }
        return false;
}

/* The priority group of a priority: PORT_QOS_MAP pfc_to_pg_map when the port has one, else the same number. */
static unsigned pg_of(const json_t *db, const char *port, unsigned prio)
{
        const char *map = field(db, "PORT_QOS_MAP", port, "pfc_to_pg_map");
        char k[4];
        uint64_t pg;

        snprintf(k, sizeof(k), "%u", prio);
        if (map && switch_json_uint(switch_member(row(db, "PFC_PRIORITY_TO_PRIORITY_GROUP_MAP", map), k), 7, &pg) >= 0)
                return (unsigned)pg;
        return prio;
}

static int check_pfc(const struct switch_session *s, const struct driver_change *c, struct errbuf *e)
{
        for (unsigned u = 0; u < c->n_units; u++) {
                uint8_t on = c->desired[u].pfc_enabled & ~c->live[u].pfc_enabled;
                const char *port = s->sw->ports[u];

                if (!(c->delta[u] & STATE_BIT(STATE_FIELD_PFC)))
                        continue;
                for (unsigned prio = 0; prio < 8; prio++)
                        if ((on & (1u << prio)) && !lossless_pg(s->native, port, pg_of(s->native, port, prio)))
                                return errbuf_set(e, EOPNOTSUPP, s->where, "port '%s': pfc priority %u has no lossless "
                                                  "BUFFER_PG ('%s|%u' or a range covering it, with a profile that has "
                                                  "xoff); PFC without headroom drops instead of pausing; set up the "
                                                  "lossless buffers first; nothing was changed", port, prio, port,
                                                  pg_of(s->native, port, prio));
        }
        return 0;
}

static int check_trust(const struct switch_session *s, const struct driver_change *c, struct errbuf *e)
{
        for (unsigned u = 0; u < c->n_units; u++) {
                const struct state *want = &c->desired[u];
                const char *port = s->sw->ports[u];

                if (!(c->delta[u] & (STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_DSCP_MAP))))
                        continue;
                if (state_has(want, STATE_FIELD_TRUST) && want->trust == STATE_TRUST_PCP &&
                    state_has(want, STATE_FIELD_DSCP_MAP))
                        return errbuf_set(e, EINVAL, s->where, "trust pcp with a dscp_to_priority map: a SONiC port "
                                          "trusts DSCP exactly when a DSCP_TO_TC_MAP applies to it; nothing was changed");
                if (want->trust == STATE_TRUST_PCP && state_has(want, STATE_FIELD_TRUST) &&
                    field(s->native, "PORT_QOS_MAP", "global", "dscp_to_tc_map"))
                        return errbuf_set(e, EOPNOTSUPP, s->where, "port '%s' would still classify by DSCP through "
                                          "the switch-level PORT_QOS_MAP|global map; nettune does not change it; "
                                          "nothing was changed", port);
                if (want->trust == STATE_TRUST_DSCP && state_has(want, STATE_FIELD_TRUST) &&
                    !state_has(want, STATE_FIELD_DSCP_MAP) && !dscp_map_of(s->native, port))
                        return errbuf_set(e, EINVAL, s->where, "port '%s': trust dscp needs a DSCP_TO_TC_MAP; give "
                                          "dscp_to_priority in the policy; nothing was changed", port);
        }
        return 0;
}

/* A difference between running and saved CONFIG_DB the patch does not write: someone else's, unsaved. */
static bool written(const json_t *touched, const char *table, const char *key, const char *f)
{
        char k[256];
        json_t *t;

        snprintf(k, sizeof(k), "%s|%s", table, key);
        t = json_object_get(touched, k);
        return json_is_true(t) || (f && json_is_true(json_object_get(t, f)));
}

static int foreign_row(const char *table, const char *key, const json_t *a, const json_t *b, const json_t *touched,
                       char *out, size_t size)
{
        const char *f;
        json_t *v;

        if (json_equal(a, b) || written(touched, table, key, NULL))
                return 0;
        if (!json_is_object(a) || !json_is_object(b))
                goto found;
        json_object_foreach((json_t *)a, f, v)
                if (!json_equal(v, json_object_get(b, f)) && !written(touched, table, key, f))
                        goto found;
        json_object_foreach((json_t *)b, f, v)
                if (!json_object_get(a, f) && !written(touched, table, key, f))
                        goto found;
        return 0;
found:
        snprintf(out, size, "%s|%s", table, key);
        return 1;
}

static int unsaved_elsewhere(const json_t *run, const json_t *saved, const json_t *touched, char *out, size_t size)
{
        const json_t *sides[2] = { run, saved };
        const char *t, *k;
        json_t *tv, *kv;

        for (int i = 0; i < 2; i++)
                json_object_foreach((json_t *)sides[i], t, tv)
                        json_object_foreach(tv, k, kv)
                                if (foreign_row(t, k, row(run, t, k), row(saved, t, k), touched, out, size))
                                        return 1;
        return 0;
}

static int check_unsaved(struct switch_session *s, const struct driver_change *c, struct errbuf *e)
{
        _cleanup_free_ char *out = NULL;
        json_error_t err;
        struct patch p;
        json_t *saved;
        char which[256];
        int r = switch_run(s, "cat " SONIC_SAVED, NULL, &out, e);

        if (r < 0)
                return r;
        saved = json_loads(out, 0, &err);
        if (!json_is_object(saved)) {
                json_decref(saved);
                return errbuf_set(e, EBADMSG, s->where, "'" SONIC_SAVED "' is not a CONFIG_DB JSON document (line %d: "
                                  "%s)", err.line, err.text);
        }
        r = patch_build(s, c, &p, e);
        if (r >= 0 && unsaved_elsewhere(s->native, saved, p.touched, which, sizeof(which)))
                r = errbuf_set(e, EBUSY, s->where, "CONFIG_DB has a change that is not saved and that nettune does not "
                               "make ('%s' differs from " SONIC_SAVED "); 'config save' at commit would save it too; "
                               "save or undo it first; nothing was changed", which);
        patch_done(&p);
        json_decref(saved);
        return r;
}

/* A cable length sizes headroom only under the dynamic buffer model (see the file comment). */
static int check_cable(const struct switch_session *s, const struct driver_change *c, struct errbuf *e)
{
        const char *model = field(s->native, "DEVICE_METADATA", "localhost", "buffer_model");

        if (!(c->fields & STATE_BIT(STATE_FIELD_CABLE_LEN)) || streq(model, "dynamic"))
                return 0;
        return errbuf_set(e, EOPNOTSUPP, s->where, "the buffer model is '%s', not dynamic: buffermgrd takes a "
                          "cable length only from the rows of the SKU's pg_profile_lookup.ini and leaves a port "
                          "without a lossless profile for any other ('No PG profile configured for speed ... and "
                          "cable length ...', cfgmgr/buffermgr.cpp); `config interface cable-length` refuses it for "
                          "the same reason; nothing was changed", model ? model : "traditional");
}

static int sonic_check(struct switch_session *s, const struct driver_change *c, struct errbuf *e)
{
        int r = check_ranges(s, c, e);

        if (r >= 0)
                r = check_cable(s, c, e);
        if (r >= 0)
                r = check_bases(s, c, e);
        if (r >= 0)
                r = check_pfc(s, c, e);
        if (r >= 0)
                r = check_trust(s, c, e);
        if (r >= 0 && !s->pending)
                r = check_unsaved(s, c, e);
        return r;
}

/* ---- the native transaction ---- */

static int sonic_abort(struct switch_session *s, struct errbuf *e)
{
        int r = switch_runf(s, NULL, e, "sudo config rollback %s", s->txid);

        if (r >= 0) {
                struct errbuf ignore;
                switch_runf(s, NULL, &ignore, "sudo config delete-checkpoint %s", s->txid);
                s->restore_method = SWITCH_RESTORE_CHECKPOINT;
        }
        return r;
}

static int run_patch(struct switch_session *s, const struct driver_change *c, struct errbuf *e)
{
        struct patch p;
        char *text = NULL;
        int r = patch_build(s, c, &p, e);

        if (r >= 0 && json_array_size(p.ops) > 0) {
                text = json_dumps(p.ops, JSON_COMPACT);
                r = text ? switch_run(s, "sudo config apply-patch /dev/stdin", text, NULL, e)
                         : errbuf_set(e, ENOMEM, s->where, "out of memory");
        }
        free(text);
        patch_done(&p);
        return r;
}

static int sonic_apply(struct switch_session *s, const struct driver_change *c, unsigned confirm_s,
                       struct errbuf *e)
{
        int r = switch_runf(s, NULL, e, "sudo config checkpoint %s", s->txid);

        (void)confirm_s;        /* no native timer: the agent's restore rolls back */
        if (r < 0)
                return r;
        s->pending = true;      /* the checkpoint exists: restore can roll back to it */
        s->timer = false;
        r = run_patch(s, c, e);
        if (r < 0 && ssh_session_alive(s->ssh)) {
                /* The patch is atomic: nothing of it stays; the checkpoint goes. */
                struct errbuf ignore;
                if (switch_runf(s, NULL, &ignore, "sudo config delete-checkpoint %s", s->txid) >= 0)
                        s->pending = false;
                errbuf_suffix(e, "; nothing was changed");
        }
        return r;
}

static int sonic_commit(struct switch_session *s, struct errbuf *e)
{
        return switch_runf(s, NULL, e, "sudo config delete-checkpoint %s", s->txid);
}

static int sonic_save(struct switch_session *s, struct errbuf *e)
{
        int r = switch_run(s, "sudo config save -y", NULL, NULL, e);

        if (r < 0)
                return r;
        snprintf(s->save_how, sizeof(s->save_how), "config save -y");
        return 1;
}

/* Our checkpoint an interrupted session left: roll back to it. Anyone else's is never touched. */
static int sonic_adopt(struct switch_session *s, const struct switch_own *own, struct errbuf *e)
{
        _cleanup_free_ char *out = NULL;
        json_t *list;
        size_t i;
        json_t *v;
        int r = switch_run(s, "sudo config list-checkpoints", NULL, &out, e);

        if (r < 0)
                return r;
        list = json_loads(out, 0, NULL);
        json_array_foreach(list, i, v)
                if (streq(json_string_value(v), own->txid)) {
                        snprintf(s->txid, sizeof(s->txid), "%s", own->txid);
                        s->pending = true;
                        s->timer = false;
                }
        json_decref(list);
        return 0;
}

const struct switch_dialect switch_sonic_dialect = {
        .name = "sonic",
        .lim = { .mtu_min = 68, .mtu_max = 9216, .thr_min = 1, .thr_max = UINT32_MAX },
        .read = sonic_read,
        .check = sonic_check,
        .apply = sonic_apply,
        .commit = sonic_commit,
        .save = sonic_save,
        .abort = sonic_abort,
        .adopt = sonic_adopt,
};
