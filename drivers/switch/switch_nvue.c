/* SPDX-License-Identifier: MIT */
/*
 * NVIDIA Cumulus Linux, NVUE. Read: `nv show qos -o json`, `nv show interface -o json`.
 * Apply: `nv config detach`, `nv set/unset ...` into the pending revision, then
 * `nv config apply -y [--confirm Ns]`. Commit: `nv config apply --confirm-yes`;
 * abort: `nv config apply --confirm-no`; the switch rolls back by itself when
 * the confirm time runs out. A confirmation left pending by an interrupted
 * agent (`--confirm-status`) is aborted before a restore. trust: pcp = l2, dscp = l3 (both/port are not
 * nettune modes: read leaves trust out, apply replaces it). MTU 552-9216.
 */
#include "switch.h"

#define NV_MAP "qos mapping default-global"
#define NV_PFC "qos pfc default-global"
#define NV_ECN "qos congestion-control default-global traffic-class"

static json_t *path(json_t *j, const char *a, const char *b, const char *c)
{
        j = json_object_get(j, a);
        j = b ? json_object_get(j, b) : j;
        return c ? json_object_get(j, c) : j;
}

static int load(const char *text, const char *where, const char *cmd, json_t **ret, struct errbuf *e)
{
        json_error_t err;
        json_t *j = json_loads(text, JSON_REJECT_DUPLICATES, &err);

        if (!j || !json_is_object(j)) {
                json_decref(j);
                return errbuf_set(e, EBADMSG, where, "'%s' printed invalid JSON (line %d column %d: %s)",
                                  cmd, err.line, err.column, j ? "not an object" : err.text);
        }
        *ret = j;
        return 0;
}

/* A threshold: a JSON number of bytes or a string with a unit ("40000 B", "146.48 KB"). */
static int bytes_value(const json_t *v, uint32_t *ret)
{
        uint64_t n;

        if (json_is_string(v) ? switch_parse_bytes(json_string_value(v), &n) < 0
                              : switch_json_uint(v, UINT32_MAX, &n) < 0)
                return -EINVAL;
        if (n > UINT32_MAX)
                return -ERANGE;
        *ret = (uint32_t)n;
        return 0;
}

static bool enabled(const json_t *v)
{
        const char *s = json_string_value(v);

        return s && (streq(s, "enable") || streq(s, "enabled") || streq(s, "on"));
}

static int parse_ecn(json_t *tcs, const char *where, struct state *ret, struct errbuf *e)
{
        const char *k;
        json_t *v;
        uint64_t tc, prob;

        json_object_foreach(tcs, k, v) {
                struct state_ecn_queue *q;
                if (switch_parse_uint(k, 0, 7, &tc) < 0)
                        return errbuf_set(e, EBADMSG, where, "traffic-class '%.16s' out of range 0-7", k);
                if (!enabled(json_object_get(v, "ecn")))
                        continue;
                q = &ret->ecn.q[tc];
                if (bytes_value(json_object_get(v, "min-threshold"), &q->min_bytes) < 0 ||
                    bytes_value(json_object_get(v, "max-threshold"), &q->max_bytes) < 0)
                        return errbuf_set(e, EBADMSG, where, "traffic-class %s: thresholds missing or not "
                                          "bytes", k);
                if (switch_json_uint(json_object_get(v, "probability"), 100, &prob) < 0)
                        prob = 100;
                q->probability_pct = (uint8_t)prob;
                q->enabled = true;
                ret->ecn.queues |= (uint8_t)(1u << tc);
        }
        return 0;
}

static int parse_dscp(json_t *map, const char *where, struct state *ret, struct errbuf *e)
{
        const char *k;
        json_t *v;
        uint64_t d, prio;

        json_object_foreach(map, k, v) {
                if (switch_parse_uint(k, 0, 63, &d) < 0 ||
                    switch_json_uint(json_object_get(v, "switch-priority"), 7, &prio) < 0)
                        return errbuf_set(e, EBADMSG, where, "dscp '%.16s': bad switch-priority", k);
                ret->dscp_prio[d] = (uint8_t)prio;
        }
        return 0;
}

int switch_nvue_parse_qos(const char *text, const char *where, struct state *ret, struct errbuf *e)
{
        json_t *j, *mapping, *v;
        const char *trust, *k;
        uint64_t prio;
        int r;

        r = load(text, where, "nv show qos -o json", &j, e);
        if (r < 0)
                return r;
        mapping = path(j, "mapping", "default-global", NULL);
        trust = json_string_value(json_object_get(mapping, "trust"));
        if (streq(trust, "l2") || streq(trust, "l3")) {
                ret->trust = streq(trust, "l3") ? STATE_TRUST_DSCP : STATE_TRUST_PCP;
                ret->present |= STATE_BIT(STATE_FIELD_TRUST);
        }
        r = parse_dscp(json_object_get(mapping, "dscp"), where, ret, e);
        json_object_foreach(path(j, "pfc", "default-global", "switch-priority"), k, v) {
                if (r < 0 || switch_parse_uint(k, 0, 7, &prio) < 0) {
                        r = r < 0 ? r : errbuf_set(e, EBADMSG, where, "pfc switch-priority '%.16s' out of range 0-7", k);
                        break;
                }
                ret->pfc_enabled |= (uint8_t)(1u << prio);
        }
        if (r >= 0)
                r = parse_ecn(path(j, "congestion-control", "default-global", "traffic-class"), where, ret, e);
        json_decref(j);
        if (r >= 0)
                ret->present |= STATE_BIT(STATE_FIELD_DSCP_MAP) | STATE_BIT(STATE_FIELD_PFC) |
                                STATE_BIT(STATE_FIELD_ECN);
        return r;
}

int switch_nvue_parse_interfaces(const char *text, const char *where, const struct switch_config *sw,
                                 struct state *units, struct errbuf *e)
{
        json_t *j;
        uint64_t mtu;
        int r;

        r = load(text, where, "nv show interface -o json", &j, e);
        if (r < 0)
                return r;
        for (unsigned i = 0; i < sw->n_ports && i < STATE_PORTS_MAX && r >= 0; i++) {
                json_t *link = path(j, sw->ports[i], "link", NULL);
                if (!link)
                        r = errbuf_set(e, ENODEV, where, "port '%s' does not exist on the switch", sw->ports[i]);
                else if (switch_json_uint(json_object_get(link, "mtu"), 65535, &mtu) < 0)
                        r = errbuf_set(e, EBADMSG, where, "port '%s': no link mtu in the output", sw->ports[i]);
                else {
                        units[i].mtu = (uint32_t)mtu;
                        units[i].present |= STATE_BIT(STATE_FIELD_MTU);
                }
        }
        json_decref(j);
        return r;
}

/* The qos profiles are switch-wide (default-global): every port carries them. */
static int nvue_read(struct switch_session *s, struct state *units, struct errbuf *e)
{
        _cleanup_free_ char *qos = NULL, *ifs = NULL;
        struct state all;
        int r;

        state_init(&all);
        r = switch_run(s, "nv show qos -o json", NULL, &qos, e);
        if (r >= 0)
                r = switch_run(s, "nv show interface -o json", NULL, &ifs, e);
        if (r >= 0)
                r = switch_nvue_parse_qos(qos, s->where, &all, e);
        if (r >= 0)
                r = switch_nvue_parse_interfaces(ifs, s->where, s->sw, units, e);
        if (r >= 0)
                switch_units_fill(units, s->sw->n_ports, &all, all.present);
        return r;
}

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

static void render_ecn(struct switch_cmds *c, const struct state *live, const struct state *want)
{
        for (unsigned q = 0; q < STATE_TC_COUNT; q++) {
                const struct state_ecn_queue *w = &want->ecn.q[q], *l = &live->ecn.q[q];
                bool on = want->ecn.queues & (1u << q), was = live->ecn.queues & (1u << q);
                if (!on && was)
                        switch_cmds_add(c, "nv unset " NV_ECN " %u", q);
                if (!on || (was && w->min_bytes == l->min_bytes && w->max_bytes == l->max_bytes &&
                            w->probability_pct == l->probability_pct))
                        continue;
                switch_cmds_add(c, "nv set " NV_ECN " %u min-threshold %u", q, w->min_bytes);
                switch_cmds_add(c, "nv set " NV_ECN " %u max-threshold %u", q, w->max_bytes);
                switch_cmds_add(c, "nv set " NV_ECN " %u probability %u", q, w->probability_pct);
                switch_cmds_add(c, "nv set " NV_ECN " %u ecn enable", q);
        }
}

static void add_mtu(void *ctx, uint32_t mtu, const char *ports)
{
        switch_cmds_add(ctx, "nv set interface %s link mtu %u", ports, mtu);
}

/* The switch-wide knobs from the first port (the profiles are global), MTU per port. */
static void render(struct switch_cmds *c, const struct switch_config *sw, const struct driver_change *ch)
{
        const struct state *live = &ch->live[0], *want = &ch->desired[0];
        uint32_t delta = ch->fields;
        char list[64];

        if (delta & STATE_BIT(STATE_FIELD_TRUST))
                switch_cmds_add(c, "nv set " NV_MAP " trust %s", want->trust == STATE_TRUST_DSCP ? "l3" : "l2");
        if (delta & STATE_BIT(STATE_FIELD_DSCP_MAP))
                render_dscp(c, live, want);
        if (delta & STATE_BIT(STATE_FIELD_PFC)) {
                uint8_t off = live->pfc_enabled & ~want->pfc_enabled, on = want->pfc_enabled & ~live->pfc_enabled;
                if (off)
                        switch_cmds_add(c, "nv unset " NV_PFC " switch-priority %s",
                                        switch_format_list(off, list, sizeof(list)));
                if (on)
                        switch_cmds_add(c, "nv set " NV_PFC " switch-priority %s",
                                        switch_format_list(on, list, sizeof(list)));
        }
        if (delta & STATE_BIT(STATE_FIELD_ECN))
                render_ecn(c, live, want);
        if (delta & STATE_BIT(STATE_FIELD_MTU))
                switch_mtu_groups(sw, ch, ',', add_mtu, c);
}

static int nvue_apply(struct switch_session *s, const struct driver_change *ch, unsigned confirm_s,
                      struct errbuf *e)
{
        struct switch_cmds *c = switch_cmds_new();
        int r;

        if (!c)
                return errbuf_set(e, ENOMEM, s->where, "out of memory");
        switch_cmds_add(c, "nv config detach");
        render(c, s->sw, ch);
        r = c->overflow ? errbuf_set(e, E2BIG, s->where, "too many commands; nothing was changed") : 0;
        for (unsigned i = 0; i < c->n && r >= 0; i++)
                r = switch_run(s, c->line[i], NULL, NULL, e);
        bool applying = r >= 0;
        if (r >= 0)
                r = confirm_s ? switch_runf(s, NULL, e, "nv config apply -y --confirm %us", confirm_s)
                              : switch_run(s, "nv config apply -y", NULL, NULL, e);
        switch_cmds_free(c);
        if (r < 0) {
                struct errbuf ignore;
                if (ssh_session_alive(s->ssh))
                        switch_run(s, "nv config detach", NULL, NULL, &ignore);
                /* If the apply itself may have run, a confirm timer may be pending. */
                s->pending = s->timer = applying && confirm_s > 0;
                s->timer_s = confirm_s;
                return r;
        }
        s->pending = s->timer = confirm_s > 0;
        s->timer_s = confirm_s;
        return 0;
}

static int nvue_commit(struct switch_session *s, struct errbuf *e)
{
        return switch_run(s, "nv config apply --confirm-yes", NULL, NULL, e);
}

static int nvue_abort(struct switch_session *s, struct errbuf *e)
{
        if (!s->timer)
                return -EOPNOTSUPP;
        return switch_run(s, "nv config apply --confirm-no", NULL, NULL, e);
}

/* `nv config apply --confirm-status`: "No pending confirmation" or "N seconds left". */
static int nvue_adopt(struct switch_session *s, struct errbuf *e)
{
        _cleanup_free_ char *out = NULL;
        unsigned long left;
        int r = switch_run(s, "nv config apply --confirm-status", NULL, &out, e);

        if (r < 0)
                return r;
        if (sscanf(out, "%lu seconds left", &left) != 1)
                return 0;
        s->pending = s->timer = true;
        s->timer_s = (unsigned)left;
        return 0;
}

const struct switch_dialect switch_nvue_dialect = {
        .name = "nvue",
        .lim = { .mtu_min = 552, .mtu_max = 9216, .thr_min = 1, .thr_max = INT32_MAX },
        .read = nvue_read,
        .apply = nvue_apply,
        .commit = nvue_commit,
        .abort = nvue_abort,
        .adopt = nvue_adopt,
};
