/* SPDX-License-Identifier: MIT */
/* The probe of a plan (see plan.h): path, target check, DSCP and priority. */
#include "agent/plan/plan.h"
#include "common/log.h"
#include "drivers/probe/probe_net.h"
#include "policies/state/field.h"

#define DSCP_PFC_BITS (STATE_BIT(STATE_FIELD_DSCP_MAP) | STATE_BIT(STATE_FIELD_PFC))

static const enum probe_mode probe_modes[POLICY_PROBE_MAX] = {
        [POLICY_PROBE_AUTO] = PROBE_MODE_AUTO,
        [POLICY_PROBE_VERBS] = PROBE_MODE_VERBS,
        [POLICY_PROBE_TCP] = PROBE_MODE_TCP,
        [POLICY_PROBE_NONE] = PROBE_MODE_AUTO,
};

static struct plan_target *iface_target(struct plan *p, const char *netdev)
{
        for (unsigned i = 0; i < p->n; i++)
                if (p->v[i].t.kind == TARGET_INTERFACE && streq(p->v[i].t.name, netdev))
                        return &p->v[i];
        return NULL;
}

/* Read `fields` of t through the drivers that serve them here; what cannot be read stays absent. */
static void read_live(struct plan *p, struct target *t, uint32_t fields, struct state *ret)
{
        const struct driver_ops *ops[PLAN_DRIVERS_MAX];
        unsigned n = driver_select(p->env.drivers, TARGET_INTERFACE, fields, ops, PLAN_DRIVERS_MAX);

        for (unsigned i = 0; i < n && (fields & ~ret->present); i++) {
                struct errbuf e = { .msg = "" };
                uint32_t caps = ops[i]->fields;

                if (ops[i]->caps && ops[i]->caps(t, &caps, &e) < 0)
                        continue;
                caps &= ops[i]->fields & fields & ~ret->present;
                if (caps)
                        (void)ops[i]->read(t, caps, ret, &e);
        }
}

/*
 * The interface's `fields` as they are: from the plan when it read them (unless
 * fresh: after the change, read again), else read now.
 */
static void read_class(struct plan *p, struct plan_target *pt, const char *netdev, uint32_t fields, bool fresh,
                       struct state *ret)
{
        struct target_list l = { 0 };
        char glob[1][64];
        struct errbuf e;

        state_init(ret);
        if (pt) {
                if (!fresh)
                        state_copy_fields(ret, &pt->live[0], pt->live[0].present & fields);
                read_live(p, &pt->t, fields, ret);
                return;
        }
        snprintf(glob[0], sizeof(glob[0]), "%s", netdev);
        if (targets_for_interfaces(&p->env, (const char (*)[64])glob, 1, &l, &e) >= 0 && l.n == 1) {
                l.v[0].io = &p->io;
                read_live(p, &l.v[0], fields, ret);
        }
        targets_free(&l);
}

/* The interface's live DSCP map and PFC: from the plan when it read them, else read now. */
static void live_class(struct plan *p, struct plan_target *pt, const char *netdev, struct state *ret)
{
        read_class(p, pt, netdev, DSCP_PFC_BITS, false, ret);
}

/*
 * The policy's own setting of field f for the probe's interface: that target's
 * desired state, else any target's (a switch-only policy: the class it makes
 * lossless across the switches). NULL when the policy does not manage f.
 */
static const struct state *policy_setting(const struct plan *p, const struct plan_target *pt, enum state_field f)
{
        if (pt && state_has(&pt->desired[0], f))
                return &pt->desired[0];
        for (unsigned i = 0; i < p->n; i++)
                if (p->v[i].n_units && state_has(&p->v[i].desired[0], f))
                        return &p->v[i].desired[0];
        return NULL;
}

void plan_probe_class(struct plan *p, const char *netdev, int dscp, int *ret_dscp, int *ret_priority,
                      char *from, size_t from_size)
{
        struct plan_target *pt = iface_target(p, netdev);
        const struct state *want_map = policy_setting(p, pt, STATE_FIELD_DSCP_MAP);
        const struct state *want_pfc = policy_setting(p, pt, STATE_FIELD_PFC);
        struct state live;
        const uint8_t *map = NULL;
        bool map_policy = want_map != NULL;
        bool given = dscp >= 0;
        int pfc = -1, d;

        live_class(p, pt, netdev, &live);
        if (map_policy || state_has(&live, STATE_FIELD_DSCP_MAP))
                map = map_policy ? want_map->dscp_prio : live.dscp_prio;
        if (want_pfc || state_has(&live, STATE_FIELD_PFC))
                pfc = want_pfc ? want_pfc->pfc_enabled : live.pfc_enabled;
        d = map && pfc >= 0 ? policy_lossless_dscp(map, (uint8_t)pfc) : -1;
        if (given)
                snprintf(from, from_size, "verify.dscp");
        else if (d >= 0)
                snprintf(from, from_size, "%s", map_policy ? "policy" : "live");
        else
                snprintf(from, from_size, "none");
        dscp = given ? dscp : d >= 0 ? d : 0;
        *ret_dscp = dscp;
        *ret_priority = map && map[dscp] != STATE_DSCP_UNMAPPED ? map[dscp] : -1;
        if (!given && d < 0 && (!map || pfc < 0))
                plan_note(p, "probe: '%s' has no DSCP map and PFC priorities to choose a lossless DSCP from; the "
                          "probe uses DSCP 0 and leaves the priority to the kernel (set verify.dscp to choose)", netdev);
        else if (!given && d < 0)
                plan_note(p, "probe: no DSCP of the %s DSCP map goes to a PFC-enabled priority on '%s'; the probe "
                          "uses DSCP 0 (set verify.dscp to choose)", map_policy ? "policy's" : "live", netdev);
        else if (given && *ret_priority < 0)
                plan_note(p, "probe: DSCP %d is in no DSCP map of '%s'; its priority is left to the kernel "
                          "(verbs SL 0)", dscp, netdev);
        else if (given && !(pfc >= 0 && (pfc & (1 << *ret_priority))))
                plan_note(p, "probe: verify.dscp %d maps to priority %d on '%s', which is not PFC-enabled: the gate "
                          "measures a lossy class%s", dscp, *ret_priority, netdev,
                          pfc > 0 ? ", and fails (its traffic proves nothing of the lossless class)" : "");
}

static void warn(struct plan *p, struct plan_probe *pp, const char *text)
{
        if (pp->n_warnings < PLAN_PROBE_WARNINGS_MAX)
                snprintf(pp->warnings[pp->n_warnings++], PLAN_NOTE_MAX, "%s", text);
        plan_note(p, "warning: %s", text);
}

/* Without verify.device the probe's interface must be a target of the plan. */
static int check_target(struct plan *p, const struct policy_verify *v, unsigned flags, const struct plan_probe *pp,
                        struct errbuf *e)
{
        char names[256] = "";
        size_t len = 0;

        if (v->device[0] || iface_target(p, pp->path.netdev))
                return 0;
        if (flags & PLAN_PROBE_ANY_INTERFACE) {
                plan_note(p, "probe: leaves by interface '%s', which this change does not touch; measured there "
                          "all the same", pp->path.netdev);
                return 0;
        }
        for (unsigned i = 0; i < p->n && len < sizeof(names); i++)
                if (p->v[i].t.kind == TARGET_INTERFACE)
                        len += (size_t)snprintf(names + len, sizeof(names) - len, "%s'%s'", len ? ", " : "",
                                                p->v[i].t.name);
        return errbuf_set(e, EINVAL, "$.verify", "the probe to %s leaves by interface '%s', which is not an "
                          "interface target of this policy (%s): it would not measure the change; add it to "
                          "targets.interfaces or name it in verify.device; nothing was changed", v->peer,
                          pp->path.netdev, len ? names : "none");
}

static void params_of(const struct plan *p, const struct policy_verify *v, struct probe_params *ret)
{
        const struct agent_config *c = p->env.config;

        probe_params_init(ret);
        snprintf(ret->peer, sizeof(ret->peer), "%s", v->peer);
        ret->duration_ms = v->duration_ms;
        ret->message_size = v->message_size;
        ret->streams = v->streams ? v->streams : 1;
        ret->busy_wait_ms = PROBE_BUSY_WAIT_MS;         /* a gate (a restore's too) waits its turn at a busy peer */
        snprintf(ret->netdev, sizeof(ret->netdev), "%.*s", (int)sizeof(ret->netdev) - 1, v->device);
        if (c && c->env.sysfs_root[0])
                snprintf(ret->sysfs_root, sizeof(ret->sysfs_root), "%s", c->env.sysfs_root);
}

/*
 * The probe's peer is one this agent sends probe traffic to (probe.peers), or the
 * transaction is refused before anything is touched: "peer refused" (the reason
 * goes to the log).
 */
static int check_peer(const struct agent_config *c, const char *peer, struct errbuf *e)
{
        struct probe_cidr cidrs[CONFIG_PROBE_ALLOW_MAX];
        struct probe_peers peers;
        char why[256];

        if (!c)
                return 0;
        config_probe_peers(c, cidrs, &peers);
        if (probe_peer_check(&peers, peer, why, sizeof(why)) >= 0)
                return 0;
        log_warn("probe to %s refused: %s", peer, why);
        return errbuf_set(e, EPERM, "$.verify.peer", "peer refused");
}

int plan_probe_pin(struct plan *p, const struct policy_verify *v, unsigned flags, struct plan_probe *ret,
                   struct errbuf *e)
{
        int (*pin)(const struct probe_params *, enum probe_mode, struct probe_params *, struct probe_path *, char *,
                   size_t, struct errbuf *) = p->env.pin ? p->env.pin : probe_pin;
        const struct agent_config *c = p->env.config;
        struct probe_params q;
        char warning[PLAN_NOTE_MAX];
        int r;

        memset(ret, 0, sizeof(*ret));
        if (!v || !v->present || v->probe == POLICY_PROBE_NONE)
                return 0;
        ret->active = true;
        ret->requested = probe_modes[v->probe];
        r = check_peer(c, v->peer, e);
        if (r < 0)
                return r;
        params_of(p, v, &q);
        r = pin(&q, ret->requested, &ret->params, &ret->path, warning, sizeof(warning), e);
        if (r < 0) {
                errbuf_prefix(e, "probe to %s", v->peer);
                return r;
        }
        if (warning[0])
                warn(p, ret, warning);
        r = check_target(p, v, flags, ret, e);
        if (r < 0)
                return r;
        plan_probe_class(p, ret->path.netdev, v->dscp, &ret->path.dscp, &ret->path.priority, ret->dscp_from,
                         sizeof(ret->dscp_from));
        ret->params.traffic_class = ret->path.dscp << 2;
        ret->params.priority = ret->path.priority;
        ret->runs = v->runs ? v->runs : c && c->probe_runs ? c->probe_runs : 1;
        return 0;
}

json_t *plan_probe_to_json(const struct plan_probe *pp)
{
        json_t *o, *w;

        if (!pp->active)
                return json_null();
        o = probe_path_to_json(&pp->path);
        w = json_array();
        for (unsigned i = 0; w && i < pp->n_warnings; i++)
                json_array_append_new(w, json_string(pp->warnings[i]));
        if (o) {
                json_object_set_new(o, "requested", json_string(probe_mode_name(pp->requested)));
                json_object_set_new(o, "dscp_from", json_string(pp->dscp_from));
                json_object_set_new(o, "runs", json_integer(pp->runs));
                json_object_set_new(o, "warnings", w ? w : json_array());
        } else {
                json_decref(w);
        }
        return o;
}

const char *plan_probe_str(const struct plan_probe *pp, char *buf, size_t size)
{
        const struct probe_path *h = &pp->path;
        char prio[32] = "priority left to the kernel";

        if (!pp->active) {
                snprintf(buf, size, "none");
                return buf;
        }
        if (h->priority >= 0)
                snprintf(prio, sizeof(prio), "priority %d", h->priority);
        if (h->mode == PROBE_MODE_VERBS)
                snprintf(buf, size, "verbs via %s (%s GID %d %s) to %s, DSCP %d (%s), %s, %u QP%s", h->netdev,
                         h->device, h->gid_index, h->gid, h->peer, h->dscp, pp->dscp_from, prio, h->streams,
                         h->streams == 1 ? "" : "s");
        else
                snprintf(buf, size, "tcp via %s (%s) to %s, DSCP %d (%s), %s, %u stream%s", h->netdev, h->source,
                         h->peer, h->dscp, pp->dscp_from, prio, h->streams, h->streams == 1 ? "" : "s");
        return buf;
}

/* "the lossless 3" or "a lossless one (3, 4)" */
static void lossless_words(uint8_t pfc, char *buf, size_t size)
{
        size_t len = 0;
        unsigned n = 0;

        for (int q = 0; q < STATE_PRIO_COUNT; q++)
                n += !!(pfc & (1u << q));
        len = (size_t)snprintf(buf, size, n == 1 ? "the lossless " : "a lossless one (");
        for (int q = 0, k = 0; q < STATE_PRIO_COUNT && len < size; q++)
                if (pfc & (1u << q))
                        len += (size_t)snprintf(buf + len, size - len, "%s%d", k++ ? ", " : "", q);
        if (n > 1 && len < size)
                snprintf(buf + len, size - len, ")");
}

/*
 * Under trust dscp the frame's priority is its DSCP through the APP table, for
 * RoCE (the GRH traffic class) and for a socket (mlx5e_get_up() ->
 * mlx5e_get_dscp_up(), en/selq.c); a DSCP without an APP entry goes to priority
 * 0 (mlx5e_dcbnl_delapp() sets its dscp2prio entry back to 0). Under trust pcp a
 * socket's untagged frames ride priority 0 (mlx5e_get_up(): the VLAN tag's PCP, else
 * 0), a verbs QP its SL; trusting nothing, everything rides 0.
 */
static int rode_of(const struct state *st, const struct probe_path *path, char *how, size_t size)
{
        int dscp = path->dscp < 0 ? 0 : path->dscp;
        bool dscp_trust = state_has(st, STATE_FIELD_TRUST) && st->trust == STATE_TRUST_DSCP;

        if (dscp_trust && !state_has(st, STATE_FIELD_DSCP_MAP)) {
                snprintf(how, size, "trust dscp on '%s', but its DSCP map could not be read", path->netdev);
                return -1;
        }
        if (dscp_trust && st->dscp_prio[dscp] == STATE_DSCP_UNMAPPED) {
                snprintf(how, size, "DSCP %d, in no entry of the DSCP map of '%s' (trust dscp): priority 0", dscp,
                         path->netdev);
                return 0;
        }
        if (dscp_trust) {
                snprintf(how, size, "DSCP %d through the DSCP map of '%s' (trust dscp)", dscp, path->netdev);
                return st->dscp_prio[dscp];
        }
        if (state_has(st, STATE_FIELD_TRUST) && st->trust == STATE_TRUST_NONE) {
                snprintf(how, size, "'%s' trusts neither DSCP nor PCP: priority 0", path->netdev);
                return 0;
        }
        if (path->mode == PROBE_MODE_VERBS) {
                snprintf(how, size, "SL %d of the probe's QP ('%s' trusts pcp)", path->priority < 0 ? 0 : path->priority,
                         path->netdev);
                return path->priority < 0 ? 0 : path->priority;
        }
        snprintf(how, size, "untagged frames of '%s' under trust pcp ride priority 0 whatever the socket's priority",
                 path->netdev);
        return 0;
}

void plan_probe_rode(struct plan *p, const struct probe_path *path, struct plan_probe_rode *ret)
{
        struct state st;
        char lossless[48];

        memset(ret, 0, sizeof(*ret));
        ret->priority = -1;
        read_class(p, iface_target(p, path->netdev), path->netdev, DSCP_PFC_BITS | STATE_BIT(STATE_FIELD_TRUST), true,
                   &st);
        if (!state_has(&st, STATE_FIELD_PFC) || !st.pfc_enabled) {
                snprintf(ret->how, sizeof(ret->how), "'%s' has no PFC priority: there is no lossless class for the "
                         "probe to prove", path->netdev);
                return;
        }
        ret->pfc = st.pfc_enabled;
        ret->priority = rode_of(&st, path, ret->how, sizeof(ret->how));
        if (ret->priority < 0)
                return;
        ret->judged = true;
        ret->lossless = (st.pfc_enabled & (1u << ret->priority)) != 0;
        if (ret->lossless)
                return;
        lossless_words(st.pfc_enabled, lossless, sizeof(lossless));
        snprintf(ret->reason, sizeof(ret->reason), "the probe's traffic rode priority %d, not %s: the change is not "
                 "what the workload will see (%s)", ret->priority, lossless, ret->how);
}
