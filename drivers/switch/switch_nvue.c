/* SPDX-License-Identifier: MIT */
/*
 * NVIDIA Cumulus Linux, NVUE (docs.nvidia.com/networking-ethernet-software: NVUE
 * reference "Common Options", "Config Commands", "QoS" show/set pages; CL 5.12 QoS
 * and RoCE chapters).
 *
 * View. nettune reads the applied view (`nv show --applied ...`, the configuration
 * `nv config apply` made): it is what nettune writes and compares, in the units it
 * was set in. The operational view shows what the ASIC made of it (thresholds
 * rounded to buffer cells, "153.00 KB") and is used only to know which ports exist.
 *   nv show --applied qos -o json        the profiles: mapping (trust, dscp), pfc,
 *                                        congestion-control (ECN per traffic class)
 *   nv show --applied interface -o json  each port's link mtu and the profiles it is
 *                                        bound to (qos mapping|pfc|congestion-control
 *                                        profile; none = default-global)
 *   nv show interface -o json            the ports that exist
 *   nv show --applied qos roce -o json   RoCE mode (enable, mode)
 * Each port reads the profiles it is bound to. A layout nettune does not know is
 * refused by name; thresholds must be exact bytes ("146.48 KB" is refused).
 *
 * Write. Only the default-global profiles (a port bound to another profile refuses
 * the change that would need it), only the delta: `nv set/unset` into a revision of
 * nettune's own, `nv config apply -y [--confirm Ns]`. Commit `--confirm-yes`, abort
 * `--confirm-no`, both only for the revision nettune applied; a revision nettune
 * staged and did not apply is detached (switch_nvue_rev.c has which revision is
 * whose). Save `nv config save` (CL 5.0+; the startup configuration,
 * /etc/nvue.d/startup.yaml), unless auto-save is on (`nv show system config
 * auto-save`, on by default from CL 5.9): then every apply saved already, and a
 * cancelled apply is saved over. Someone else's pending change (an apply awaiting
 * confirmation, an open revision, set but not applied changes: `nv config diff`)
 * makes check refuse. RoCE mode on: NVUE sets trust, the DSCP map, PFC and ECN
 * itself, and a policy that would change them is refused. trust: pcp = l2, dscp = l3
 * (port and both are not nettune modes). The words for on and off are the ones the
 * switch prints (enable/disable in CL 5.12's QoS guide, enabled/disabled in the
 * NVUE reference): nettune writes what it read. Cable length: the PFC profile's
 * `cable-length` (metres, 1-100000, NVUE reference "nv set qos pfc <profile-id>
 * cable-length"), from which the switch computes the port buffer and the xoff/xon
 * thresholds itself; unset reads as 0 (the switch's default) and a snapshot of it is
 * put back with `nv unset`. MTU 552-9216 (`nv set interface swp1 link mtu ?`).
 */
#include <ctype.h>
#include <stdarg.h>

#include "drivers/switch/switch.h"
#include "drivers/switch/switch_internal.h"

#define NV_DEFAULT "default-global"
#define NV_MAP "qos mapping " NV_DEFAULT
#define NV_PFC "qos pfc " NV_DEFAULT
#define NV_ECN "qos congestion-control " NV_DEFAULT " traffic-class"
#define NV_SHOW_QOS "nv show --applied qos -o json"
#define NV_SHOW_IFS "nv show --applied interface -o json"
#define NV_SHOW_OPER "nv show interface -o json"
#define NV_SHOW_ROCE "nv show --applied qos roce -o json"
#define NV_DEFAULT_MTU 9216             /* Cumulus Linux's default link mtu */
/* congestion-control defaults (nv show qos congestion-control default-global traffic-class) */
#define NV_ECN_MIN 150000
#define NV_ECN_MAX 1500000

static const char *const profile_kinds[] = { "mapping", "pfc", "congestion-control" };
enum { KIND_MAPPING, KIND_PFC, KIND_CC, KIND_MAX };

/* An object member the layout must have. */
static json_t *need(json_t *j, const char *key, const char *where, const char *cmd, const char *at,
                    struct errbuf *e)
{
        json_t *v = switch_member(j, key);

        if (!json_is_object(v)) {
                errbuf_set(e, EBADMSG, where, "'%s': %s%sno object '%s'; not an output nettune knows", cmd,
                           at, *at ? ": " : "", key);
                return NULL;
        }
        return v;
}

static int bad(struct errbuf *e, const char *where, const char *what, const char *fmt, ...) _printf_(4, 5);
static int bad(struct errbuf *e, const char *where, const char *what, const char *fmt, ...)
{
        char msg[300];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        return errbuf_set(e, EBADMSG, where, "'" NV_SHOW_QOS "': %s: %s", what, msg);
}

/* A JSON integer, or an exact byte string ("40000", "40000 B"); a rounded display is refused. */
static int bytes_value(const json_t *v, uint32_t dflt, uint32_t *ret)
{
        uint64_t n;

        if (!v) {
                *ret = dflt;
                return 0;
        }
        if (json_is_string(v) ? switch_parse_bytes(json_string_value(v), &n) < 0
                              : switch_json_uint(v, UINT32_MAX, &n) < 0 || !json_is_integer(v))
                return -EINVAL;
        if (n > UINT32_MAX)
                return -ERANGE;
        *ret = (uint32_t)n;
        return 0;
}

/* "enable"/"enabled"/"on" (CL 5.12 prints enable, the newer reference enabled). */
static int onoff(const json_t *v, bool dflt, bool *ret)
{
        const char *s = json_string_value(v);

        if (!v)
                *ret = dflt;
        else if (streq(s, "enable") || streq(s, "enabled") || streq(s, "on"))
                *ret = true;
        else if (streq(s, "disable") || streq(s, "disabled") || streq(s, "off"))
                *ret = false;
        else
                return -EINVAL;
        return 0;
}

static void quote(const json_t *v, char *buf, size_t size)
{
        char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

        snprintf(buf, size, "%.40s", s ? s : "?");
        free(s);
}

static int parse_tc(const char *prof, const char *k, json_t *v, const char *where, struct state *u,
                    struct errbuf *e)
{
        struct state_ecn_queue *q;
        uint64_t tc, prob = 100;
        char what[96], val[48];
        const json_t *p;
        bool on;

        snprintf(what, sizeof(what), "congestion-control %.32s traffic-class %.8s", prof, k);
        if (switch_parse_uint(k, 0, 7, &tc) < 0 || !json_is_object(v))
                return bad(e, where, what, "not a traffic class 0-7 with settings");
        q = &u->ecn.q[tc];
        if (onoff(switch_member(v, "ecn"), true, &on) < 0) {
                quote(switch_member(v, "ecn"), val, sizeof(val));
                return bad(e, where, what, "ecn %s is neither enable nor disable", val);
        }
        for (int i = 0; i < 2; i++) {
                const char *m = i ? "max-threshold" : "min-threshold";
                uint32_t *dst = i ? &q->max_bytes : &q->min_bytes;

                if (bytes_value(switch_member(v, m), i ? NV_ECN_MAX : NV_ECN_MIN, dst) < 0) {
                        quote(switch_member(v, m), val, sizeof(val));
                        return bad(e, where, what, "%s %s is not an exact number of bytes (a rounded display is "
                                   "not read)", m, val);
                }
        }
        p = switch_member(v, "probability");
        if (p && (!json_is_integer(p) || switch_json_uint(p, 100, &prob) < 0 || prob < 1)) {
                quote(p, val, sizeof(val));
                return bad(e, where, what, "probability %s is not a number 1-100", val);
        }
        q->probability_pct = (uint8_t)prob;
        q->enabled = on;
        if (!on)        /* a queue that does not mark has no thresholds worth showing */
                *q = (struct state_ecn_queue){ 0 };
        return 0;
}

static int parse_cc(const char *prof, json_t *p, const char *where, struct state *u, struct errbuf *e)
{
        json_t *tcs = switch_member(p, "traffic-class"), *v;
        const char *k;
        int r = 0;

        for (unsigned q = 0; q < STATE_TC_COUNT; q++)
                u->ecn.q[q] = (struct state_ecn_queue){ 0 };
        switch_ecn_all_queues(u);       /* a traffic class without settings does not mark */
        if (tcs && !json_is_object(tcs))
                return bad(e, where, "congestion-control", "traffic-class of profile '%.32s' is not an object", prof);
        json_object_foreach(tcs, k, v)
                if (r >= 0)
                        r = parse_tc(prof, k, v, where, u, e);
        return r;
}

static int parse_mapping(const char *prof, json_t *p, const char *where, struct state *u, struct errbuf *e)
{
        const char *trust = json_string_value(switch_member(p, "trust")), *k;
        json_t *map = switch_member(p, "dscp"), *v;
        char what[64];
        uint64_t d, prio;

        snprintf(what, sizeof(what), "mapping %.32s", prof);
        if (streq(trust, "l2") || streq(trust, "l3")) {
                u->trust = streq(trust, "l3") ? STATE_TRUST_DSCP : STATE_TRUST_PCP;
                u->present |= STATE_BIT(STATE_FIELD_TRUST);
        }
        if (map && !json_is_object(map))
                return bad(e, where, what, "dscp is not an object");
        json_object_foreach(map, k, v) {
                const json_t *sp = switch_member(v, "switch-priority");

                if (switch_parse_uint(k, 0, 63, &d) < 0 || !json_is_integer(sp) || switch_json_uint(sp, 7, &prio) < 0)
                        return bad(e, where, what, "dscp '%.8s' has no switch-priority number 0-7", k);
                u->dscp_prio[d] = (uint8_t)prio;
        }
        u->present |= STATE_BIT(STATE_FIELD_DSCP_MAP);
        return 0;
}

static int parse_pfc(const char *prof, json_t *p, const char *where, struct state *u, struct errbuf *e)
{
        json_t *sps = switch_member(p, "switch-priority"), *v, *cable = switch_member(p, "cable-length");
        uint64_t prio, m = 0;
        const char *k;

        if (cable && (!json_is_integer(cable) || switch_json_uint(cable, 100000, &m) < 0))
                return bad(e, where, "pfc", "cable-length of profile '%.32s' is not a number of metres", prof);
        u->cable_len_m = (uint32_t)m;
        u->present |= STATE_BIT(STATE_FIELD_CABLE_LEN);

        if (sps && !json_is_object(sps))
                return bad(e, where, "pfc", "switch-priority of profile '%.32s' is not an object", prof);
        json_object_foreach(sps, k, v) {
                if (switch_parse_uint(k, 0, 7, &prio) < 0)
                        return bad(e, where, "pfc", "switch-priority '%.16s' of profile '%.32s' out of range 0-7", k,
                                   prof);
                u->pfc_enabled |= (uint8_t)(1u << prio);
        }
        u->present |= STATE_BIT(STATE_FIELD_PFC);
        return 0;
}

/* The profile of `kind` a port is bound to (`nv set interface swp1 qos pfc profile X`). */
static const char *bound(json_t *ifa, const char *port, int kind)
{
        json_t *q = switch_member(switch_member(ifa, port), "qos");
        const char *p = json_string_value(switch_member(switch_member(q, profile_kinds[kind]), "profile"));

        return p && *p ? p : NV_DEFAULT;
}

static int parse_port(json_t *qos[KIND_MAX], json_t *ifa, const char *port, const char *where, struct state *u,
                      json_t *binds, struct errbuf *e)
{
        static int (*const parse[KIND_MAX])(const char *, json_t *, const char *, struct state *, struct errbuf *) = {
                parse_mapping, parse_pfc, parse_cc,
        };
        json_t *link = switch_member(switch_member(ifa, port), "link"), *b = json_object();
        uint64_t mtu = NV_DEFAULT_MTU;
        int r = 0;

        for (int k = 0; k < KIND_MAX && r >= 0; k++) {
                const char *prof = bound(ifa, port, k);
                json_t *p = switch_member(qos[k], prof);

                if (!json_is_object(p))
                        r = errbuf_set(e, EBADMSG, where, "port '%s' is bound to qos %s profile '%.32s', which '"
                                       NV_SHOW_QOS "' does not have", port, profile_kinds[k], prof);
                else
                        r = parse[k](prof, p, where, u, e);
                json_object_set_new(b, profile_kinds[k], json_string(prof));
        }
        if (r >= 0 && switch_member(link, "mtu") &&
            (!json_is_integer(switch_member(link, "mtu")) || switch_json_uint(switch_member(link, "mtu"), 65535, &mtu) < 0))
                r = errbuf_set(e, EBADMSG, where, "'" NV_SHOW_IFS "': port '%s': link mtu is not a number", port);
        u->mtu = (uint32_t)mtu;
        u->present |= STATE_BIT(STATE_FIELD_MTU);
        if (binds)
                json_object_set_new(binds, port, b);
        else
                json_decref(b);
        return r;
}

static int parse_all(const char *qos_text, const char *ifs_text, const char *oper_text, const char *where,
                     const struct switch_config *sw, struct state *units, json_t **ret_binds, struct errbuf *e)
{
        json_t *qos = NULL, *ifa = NULL, *oper = NULL, *prof[KIND_MAX], *binds = NULL;
        int r;

        r = nvue_load(qos_text, where, NV_SHOW_QOS, &qos, e);
        if (r >= 0)
                r = nvue_load(ifs_text, where, NV_SHOW_IFS, &ifa, e);
        if (r >= 0)
                r = nvue_load(oper_text, where, NV_SHOW_OPER, &oper, e);
        for (int k = 0; k < KIND_MAX && r >= 0; k++)
                if (!(prof[k] = need(qos, profile_kinds[k], where, NV_SHOW_QOS, "", e)) ||
                    !need(prof[k], NV_DEFAULT, where, NV_SHOW_QOS, profile_kinds[k], e))
                        r = -EBADMSG;
        if (r >= 0 && ret_binds && !(binds = json_object()))
                r = errbuf_set(e, ENOMEM, where, "out of memory");
        for (unsigned i = 0; r >= 0 && i < sw->n_ports && i < STATE_PORTS_MAX; i++) {
                if (!json_is_object(switch_member(oper, sw->ports[i])))
                        r = errbuf_set(e, ENODEV, where, "port '%s' does not exist on the switch ('" NV_SHOW_OPER
                                       "' does not list it)", sw->ports[i]);
                else
                        r = parse_port(prof, ifa, sw->ports[i], where, &units[i], binds, e);
        }
        json_decref(qos);
        json_decref(ifa);
        json_decref(oper);
        if (r >= 0 && ret_binds)
                *ret_binds = binds;
        else
                json_decref(binds);
        return r;
}

int switch_nvue_parse(const char *qos, const char *ifs_applied, const char *ifs_oper, const char *where,
                      const struct switch_config *sw, struct state *units, struct errbuf *e)
{
        return parse_all(qos, ifs_applied, ifs_oper, where, sw, units, NULL, e);
}

int switch_nvue_parse_roce(const char *text, const char *where, struct switch_nvue_roce *ret, struct errbuf *e)
{
        json_t *j = NULL;
        const char *mode;
        int r = nvue_load(text, where, NV_SHOW_ROCE, &j, e);
        bool on = false;

        if (r >= 0 && onoff(switch_member(j, "enable"), false, &on) < 0)
                r = errbuf_set(e, EBADMSG, where, "'" NV_SHOW_ROCE "': enable is neither on nor off");
        else if (r >= 0 && !switch_member(j, "enable"))
                r = errbuf_set(e, EBADMSG, where, "'" NV_SHOW_ROCE "': no member 'enable'; not an output nettune "
                               "knows");
        if (r >= 0) {
                mode = json_string_value(switch_member(j, "mode"));
                ret->on = on;
                snprintf(ret->mode, sizeof(ret->mode), "%s", mode ? mode : "");
        }
        json_decref(j);
        return r;
}

/*
 * The word this NVUE uses for "on" in the QoS switches it printed (congestion-control
 * ecn/red, pfc tx/rx): "enable" (CL 5.12 QoS guide) or "enabled" (NVUE reference);
 * "enable" when it printed none.
 */
static const char *spelling(const char *qos_text)
{
        static const char *const kinds[] = { "congestion-control", "pfc" };
        json_t *qos = json_loads(qos_text ? qos_text : "", 0, NULL), *p, *v;
        const char *k, *word = "enable";

        for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
                p = switch_member(switch_member(qos, kinds[i]), NV_DEFAULT);
                json_object_foreach(i ? p : switch_member(p, "traffic-class"), k, v) {
                        const char *w = json_string_value(i ? v : switch_member(v, "ecn"));

                        if (w && (streq(w, "enabled") || streq(w, "disabled")))
                                word = "enabled";
                }
        }
        json_decref(qos);
        return word;
}

/* The switch's word for on (enable) or off (disable), as it printed them. */
static const char *word_for(const struct switch_session *s, bool on)
{
        bool ed = streq(json_string_value(switch_member(s->extra, "enable")), "enabled");

        return on ? (ed ? "enabled" : "enable") : (ed ? "disabled" : "disable");
}

static int nvue_read(struct switch_session *s, struct state *units, struct errbuf *e)
{
        _cleanup_free_ char *qos = NULL, *ifs = NULL, *oper = NULL, *roce = NULL;
        struct switch_nvue_roce rc = { 0 };
        json_t *binds = NULL, *extra;
        int r;

        r = switch_run(s, NV_SHOW_QOS, NULL, &qos, e);
        if (r >= 0)
                r = switch_run(s, NV_SHOW_IFS, NULL, &ifs, e);
        if (r >= 0)
                r = switch_run(s, NV_SHOW_OPER, NULL, &oper, e);
        if (r >= 0)
                r = switch_run(s, NV_SHOW_ROCE, NULL, &roce, e);
        if (r >= 0)
                r = parse_all(qos, ifs, oper, s->where, s->sw, units, &binds, e);
        if (r >= 0)
                r = switch_nvue_parse_roce(roce, s->where, &rc, e);
        if (r < 0) {
                json_decref(binds);
                return r;
        }
        json_decref(s->native);
        s->native = binds;
        extra = json_pack("{s:b,s:s,s:s}", "on", rc.on, "mode", rc.mode, "enable", spelling(qos));
        if (extra && json_is_boolean(switch_member(s->extra, "auto_save")))       /* read by check, kept */
                json_object_set(extra, "auto_save", switch_member(s->extra, "auto_save"));
        json_decref(s->extra);
        s->extra = extra;
        r = nvue_wd_read(s, qos, ifs, units, e);
        if (r < 0)
                return r;
        if (rc.on)
                switch_note(s, "RoCE mode '%s' is on ('nv show qos roce'): NVUE sets trust, the DSCP map, PFC and "
                            "ECN for RoCE itself", rc.mode[0] ? rc.mode : "lossless");
        return 0;
}

/* ---- check: what NVUE would refuse or fight, and someone else's pending change ---- */

static uint32_t kind_fields(int kind)
{
        return kind == KIND_MAPPING ? STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_DSCP_MAP)
               : kind == KIND_PFC   ? STATE_BIT(STATE_FIELD_PFC) | STATE_BIT(STATE_FIELD_CABLE_LEN)
                                    : STATE_BIT(STATE_FIELD_ECN);
}

static int check_profiles(struct switch_session *s, const struct driver_change *c, struct errbuf *e)
{
        for (unsigned u = 0; u < c->n_units; u++)
                for (int k = 0; k < KIND_MAX; k++) {
                        const char *prof = json_string_value(
                                switch_member(switch_member(s->native, s->sw->ports[u]), profile_kinds[k]));

                        if ((c->delta[u] & kind_fields(k)) && prof && !streq(prof, NV_DEFAULT))
                                return errbuf_set(e, EOPNOTSUPP, s->where, "port '%s' is bound to qos %s profile "
                                                  "'%s'; nettune writes the %s profiles only; nothing was changed",
                                                  s->sw->ports[u], profile_kinds[k], prof, NV_DEFAULT);
                }
        return 0;
}

static int check_roce(struct switch_session *s, const struct driver_change *c, struct errbuf *e)
{
        uint32_t fight = c->fields & ~(STATE_BIT(STATE_FIELD_MTU) | STATE_BIT(STATE_FIELD_PFC_WATCHDOG));
        char names[96] = "";
        size_t n = 0;

        if (!json_is_true(switch_member(s->extra, "on")) || !fight)
                return 0;
        for (int f = 0; f < STATE_FIELD_MAX; f++)
                if (fight & STATE_BIT(f))
                        n += (size_t)snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "", state_field_name(f));
        return errbuf_set(e, EBUSY, s->where, "RoCE mode '%s' is on: NVUE sets trust, the DSCP map, PFC and ECN for "
                          "RoCE itself and the policy's %s would fight it; turn RoCE mode off (nv unset qos roce) or "
                          "leave those fields out; nothing was changed",
                          json_string_value(switch_member(s->extra, "mode")), names);
}

static int nvue_check(struct switch_session *s, const struct driver_change *c, struct errbuf *e)
{
        struct errbuf ignore;
        int r = check_roce(s, c, e);

        if (r >= 0)
                r = check_profiles(s, c, e);
        if (r >= 0)
                r = nvue_wd_check(s, c, e);
        if (r >= 0 && !s->pending)
                r = nvue_check_foreign(s, e);
        if (r < 0)
                return r;
        nvue_read_auto_save(s);
        /* Every NVUE command has -h (NVUE reference, Common Options): is there a save here? */
        s->no_save = !nvue_auto_save(s) && switch_run(s, "nv config save -h", NULL, NULL, &ignore) < 0 &&
                     ssh_session_alive(s->ssh);
        if (s->no_save)
                switch_note(s, "'nv config save' is not available here: a commit is applied but not saved and does "
                            "not survive a reboot");
        return 0;
}

/* ---- apply ---- */

static void render_dscp(struct switch_cmds *c, const struct state *live, const struct state *want)
{
        uint64_t unset = 0;
        char list[256];

        for (unsigned d = 0; d < STATE_DSCP_COUNT; d++)
                if (want->dscp_prio[d] == STATE_DSCP_UNMAPPED && live->dscp_prio[d] != STATE_DSCP_UNMAPPED)
                        unset |= UINT64_C(1) << d;
        if (unset)
                switch_cmds_add(c, "nv unset " NV_MAP " dscp %s", switch_format_list(unset, list, sizeof(list)));
        for (unsigned prio = 0; prio < 8; prio++) {
                uint64_t set = 0;
                for (unsigned d = 0; d < STATE_DSCP_COUNT; d++)
                        if (want->dscp_prio[d] == prio && live->dscp_prio[d] != prio)
                                set |= UINT64_C(1) << d;
                if (set)
                        switch_cmds_add(c, "nv set " NV_MAP " dscp %s switch-priority %u",
                                        switch_format_list(set, list, sizeof(list)), prio);
        }
}

/* The listed queues that differ, and of those only the members that differ. */
static void render_ecn(struct switch_cmds *c, const struct switch_session *s, const struct driver_change *ch,
                       unsigned u)
{
        const struct state *want = &ch->desired[u], *live = &ch->live[u];
        uint8_t qs = switch_ecn_changed(ch, u);

        for (unsigned q = 0; q < STATE_TC_COUNT; q++) {
                const struct state_ecn_queue *w = &want->ecn.q[q], *l = &live->ecn.q[q];
                bool marks = (live->ecn.queues & (1u << q)) && l->enabled;

                if (!(qs & (1u << q)))
                        continue;
                if (!w->enabled) {
                        switch_cmds_add(c, "nv set " NV_ECN " %u ecn %s", q, word_for(s, false));
                        continue;
                }
                if (!marks || w->min_bytes != l->min_bytes)
                        switch_cmds_add(c, "nv set " NV_ECN " %u min-threshold %u", q, w->min_bytes);
                if (!marks || w->max_bytes != l->max_bytes)
                        switch_cmds_add(c, "nv set " NV_ECN " %u max-threshold %u", q, w->max_bytes);
                if (!marks || w->probability_pct != l->probability_pct)
                        switch_cmds_add(c, "nv set " NV_ECN " %u probability %u", q, w->probability_pct);
                if (!marks)
                        switch_cmds_add(c, "nv set " NV_ECN " %u ecn %s", q, word_for(s, true));
        }
}

static void add_mtu(void *ctx, uint32_t mtu, const char *ports)
{
        switch_cmds_add(ctx, "nv set interface %s link mtu %u", ports, mtu);
}

/* The first port whose delta has field f: the default-global profiles are one for all of them. */
static int first_with(const struct driver_change *ch, enum state_field f)
{
        for (unsigned u = 0; u < ch->n_units; u++)
                if (ch->delta[u] & STATE_BIT(f))
                        return (int)u;
        return -1;
}

static void render(struct switch_cmds *c, const struct switch_session *s, const struct driver_change *ch)
{
        const struct switch_config *sw = s->sw;
        int u;
        char list[64];

        if ((u = first_with(ch, STATE_FIELD_TRUST)) >= 0 && ch->desired[u].trust != ch->live[u].trust)
                switch_cmds_add(c, "nv set " NV_MAP " trust %s",
                                ch->desired[u].trust == STATE_TRUST_DSCP ? "l3" : "l2");
        if ((u = first_with(ch, STATE_FIELD_DSCP_MAP)) >= 0)
                render_dscp(c, &ch->live[u], &ch->desired[u]);
        if ((u = first_with(ch, STATE_FIELD_PFC)) >= 0) {
                uint8_t want = ch->desired[u].pfc_enabled, live = ch->live[u].pfc_enabled;
                if (live & ~want)
                        switch_cmds_add(c, "nv unset " NV_PFC " switch-priority %s",
                                        switch_format_list(live & ~want, list, sizeof(list)));
                if (want & ~live)
                        switch_cmds_add(c, "nv set " NV_PFC " switch-priority %s",
                                        switch_format_list(want & ~live, list, sizeof(list)));
        }
        if ((u = first_with(ch, STATE_FIELD_CABLE_LEN)) >= 0) {
                if (ch->desired[u].cable_len_m)
                        switch_cmds_add(c, "nv set " NV_PFC " cable-length %u", ch->desired[u].cable_len_m);
                else
                        switch_cmds_add(c, "nv unset " NV_PFC " cable-length");
        }
        if ((u = first_with(ch, STATE_FIELD_ECN)) >= 0)
                render_ecn(c, s, ch, (unsigned)u);
        if (ch->fields & STATE_BIT(STATE_FIELD_MTU))
                switch_mtu_groups(sw, ch, ',', add_mtu, c);
        nvue_wd_render(c, s, ch);       /* after pfc: the watchdog needs the port's PFC */
}

/* Every command, the first one opening nettune's revision (taken as the staged one); a failure detaches it. */
static int send_all(struct switch_session *s, const struct driver_change *ch, struct errbuf *e)
{
        struct switch_cmds *c = switch_cmds_new();
        int r;

        if (!c)
                return errbuf_set(e, ENOMEM, s->where, "out of memory");
        render(c, s, ch);
        r = c->overflow ? errbuf_set(e, E2BIG, s->where, "too many commands; nothing was changed") : 0;
        for (unsigned i = 0; i < c->n && r >= 0; i++) {
                r = switch_run(s, c->line[i], NULL, NULL, e);
                if (r >= 0 && i == 0)
                        r = nvue_take_staged(s, e);
        }
        switch_cmds_free(c);
        return r;
}

/* The revision nettune staged is detached (its reason kept in e); a detach that fails is said too. */
static int unstage(struct switch_session *s, int r, struct errbuf *e)
{
        struct errbuf d = { 0 };
        char text[sizeof(d.msg) + 128];

        if (nvue_detach_staged(s, &d) < 0) {
                snprintf(text, sizeof(text), "; and revision %s nettune staged could not be detached now (%s): the "
                         "undo detaches it", s->rev, d.msg);
                errbuf_suffix(e, text);
        }
        return r;
}

static int nvue_apply(struct switch_session *s, const struct driver_change *ch, unsigned confirm_s,
                      struct errbuf *e)
{
        struct nvue_revs rv;
        int r;

        s->rev[0] = '\0';
        s->staged = false;
        r = nvue_revisions(s, &rv, e);
        s->base_rev = rv.max;
        if (r >= 0)
                r = nvue_record(s, e);
        if (r >= 0)
                r = send_all(s, ch, e);
        if (r < 0)
                return s->staged ? unstage(s, r, e) : r;
        s->sent_ms = switch_now_ms();
        s->timer_end_ms = 0;
        r = confirm_s ? switch_runf(s, NULL, e, "nv config apply -y --confirm %us", confirm_s)
                      : switch_run(s, "nv config apply -y", NULL, NULL, e);
        /*
         * Refused by the switch (it answered): nothing was applied and the revision is
         * still open. No answer: the apply may have run, or may run later (nvued takes
         * the CLI's apply as a request of its own, NVUE API page: one that waits behind
         * the switch's configuration lock runs when it gets it), so a confirm timer may
         * be pending, or start later: the undo waits for the switch (switch_txn.c).
         */
        if (r < 0 && ssh_session_alive(s->ssh))
                return unstage(s, r, e);
        s->pending = s->timer = confirm_s > 0;
        s->timer_s = confirm_s;
        s->unanswered = r < 0;
        if (r < 0)
                return r;
        if (!confirm_s) {
                s->staged = false;              /* applied, nothing awaits confirmation */
                return 0;
        }
        return nvue_take_applied(s, e);
}

static int nvue_commit(struct switch_session *s, struct errbuf *e)
{
        int r = nvue_ours(s, "confirm", e);

        return r < 0 ? r : switch_run(s, "nv config apply --confirm-yes", NULL, NULL, e);
}

static int nvue_save(struct switch_session *s, struct errbuf *e)
{
        int r;

        bool over = s->save_after_undo;        /* auto-save saved an apply that was cancelled since */

        if (nvue_auto_save(s) && !over) {
                snprintf(s->save_how, sizeof(s->save_how), "auto-save: 'nv config apply' saved it (nv show system "
                         "config auto-save)");
                return 1;
        }
        if (s->no_save) {
                snprintf(s->save_how, sizeof(s->save_how), "'nv config save' is not available here: lost on reboot");
                return 0;
        }
        r = switch_run(s, "nv config save", NULL, NULL, e);
        if (r < 0)
                return r;
        s->save_after_undo = false;
        snprintf(s->save_how, sizeof(s->save_how), over ? "nv config save (auto-save had saved the cancelled "
                 "apply)" : "nv config save");
        return 1;
}

/*
 * The native undo: an applied revision of ours awaiting confirmation is cancelled
 * (--confirm-no); with auto-save on, its apply saved it, so the configuration it
 * returned to is saved again. A revision of ours that was staged and never applied
 * is detached.
 */
static int nvue_abort(struct switch_session *s, struct errbuf *e)
{
        int r;

        /* An apply without an answer whose revision is still open never ran: detached, nothing is left to take. */
        if (s->unanswered && s->staged) {
                r = nvue_untaken(s, e);
                if (r < 0)
                        return r;
                if (r > 0) {
                        s->timer = false;
                        return 0;
                }
        }
        if (!s->timer)
                return s->staged ? nvue_detach_staged(s, e) : -EOPNOTSUPP;
        r = nvue_ours(s, "cancel", e);
        if (r >= 0)
                r = switch_run(s, "nv config apply --confirm-no", NULL, NULL, e);
        if (r >= 0 && nvue_auto_save(s))
                s->save_after_undo = true;
        return r;
}

/* The revision an interrupted session of ours applied, or the one it staged. */
static int nvue_adopt(struct switch_session *s, const struct switch_own *own, struct errbuf *e)
{
        int r = nvue_adopt_revision(s, own, e);

        if (r >= 0 && s->pending)
                nvue_read_auto_save(s);
        return r;
}

const struct switch_dialect switch_nvue_dialect = {
        .name = "nvue",
        .lim = { .mtu_min = 552, .mtu_max = 9216, .thr_min = 1, .thr_max = INT32_MAX },
        .read = nvue_read,
        .check = nvue_check,
        .apply = nvue_apply,
        .commit = nvue_commit,
        .save = nvue_save,
        .abort = nvue_abort,
        .adopt = nvue_adopt,
};
