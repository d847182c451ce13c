/* SPDX-License-Identifier: MIT */
/* The plan (see plan.h): targets, routes, desired and live state, the diff, the checks. */
#include <stdarg.h>

#include "agent/plan/plan_internal.h"
#include "policies/state/field.h"
#include "policies/state/state_json.h"

void plan_init(struct plan *p, const struct plan_env *env)
{
        memset(p, 0, sizeof(*p));
        p->env = *env;
        p->env.io = &p->io;
        if (!p->env.drivers)
                p->env.drivers = driver_table;
}

static void target_free(struct plan_target *pt)
{
        free(pt->desired);
        free(pt->live);
        free(pt->before);
        free(pt->delta);
        diff_done(&pt->diff);
}

void plan_close(struct plan *p)
{
        for (unsigned i = 0; i < p->n; i++)
                for (unsigned r = 0; r < p->v[i].n_routes; r++) {
                        struct plan_route *rt = &p->v[i].routes[r];

                        if (rt->opened && rt->ops->close)
                                rt->ops->close(&p->v[i].t);
                        rt->opened = false;
                }
        driver_io_close(&p->io);
}

void plan_free(struct plan *p)
{
        if (!p)
                return;
        plan_close(p);
        for (unsigned i = 0; i < p->n; i++)
                target_free(&p->v[i]);
        free(p->v);
        p->v = NULL;
        p->n = 0;
}

void plan_note(struct plan *p, const char *fmt, ...)
{
        va_list ap;

        if (p->n_notes >= PLAN_NOTES_MAX)
                return;
        va_start(ap, fmt);
        vsnprintf(p->notes[p->n_notes++], PLAN_NOTE_MAX, fmt, ap);
        va_end(ap);
}

/* ---- routing: each field to the first driver (registry order) that serves it here ---- */

/* A driver's fields here: owned (want), or read only (extra: best effort, never a driver with a session). */
static void add_route(struct plan_target *pt, const struct driver_ops *ops, uint32_t fields, uint32_t extra)
{
        if (fields)
                pt->routes[pt->n_routes++] = (struct plan_route){ .ops = ops, .fields = fields, .extra = extra };
        else if (extra && !ops->open)
                pt->reads[pt->n_reads++] = (struct plan_route){ .ops = ops, .extra = extra };
}

/* extra: fields read too where a driver can (a driver that fails its caps for them alone is left out). */
static int route(struct plan *p, struct plan_target *pt, uint32_t want, uint32_t extra, struct errbuf *e)
{
        const struct driver_ops *ops[PLAN_DRIVERS_MAX];
        unsigned n = driver_select(p->env.drivers, pt->t.kind, want | extra, ops, PLAN_DRIVERS_MAX);
        uint32_t routed = 0;

        pt->n_routes = pt->n_reads = 0;
        for (unsigned i = 0; i < n; i++) {
                struct errbuf scratch = { 0 };  /* what a driver of extra fields only says is not the request's */
                uint32_t caps = ops[i]->fields;
                int r = ops[i]->caps ? ops[i]->caps(&pt->t, &caps, ops[i]->fields & want ? e : &scratch) : 0;

                if (r == -EOPNOTSUPP || (r < 0 && !(ops[i]->fields & want)))
                        continue;
                if (r < 0)
                        return r;
                caps &= ops[i]->fields & ~routed;
                add_route(pt, ops[i], caps & want, caps & extra & ~want);
                routed |= caps & (want | extra);
        }
        return 0;
}

/* The extra fields some driver reads here. */
static uint32_t extra_fields(const struct plan_target *pt)
{
        uint32_t f = 0;

        for (unsigned r = 0; r < pt->n_routes; r++)
                f |= pt->routes[r].extra;
        for (unsigned r = 0; r < pt->n_reads; r++)
                f |= pt->reads[r].extra;
        return f;
}

static uint32_t routed_fields(const struct plan_target *pt)
{
        uint32_t f = 0;

        for (unsigned r = 0; r < pt->n_routes; r++)
                f |= pt->routes[r].fields;
        return f;
}

/* What a missing field needs, named after the driver that would own it. */
static const char *mechanism(const struct plan *p, enum target_kind kind, enum state_field f)
{
        const struct driver_ops *ops[1];

        if (!driver_select(p->env.drivers, kind, STATE_BIT(f), ops, 1))
                return NULL;
        if (streq(ops[0]->name, "dcb"))
                return "DCB";
        if (streq(ops[0]->name, "nic-ecn"))
                return "NIC ECN (DCQCN) knobs";
        if (streq(ops[0]->name, "nic-stall"))
                return "the PFC stall prevention tunable (ethtool pfc-prevention-tout)";
        if (streq(ops[0]->name, "roce-tos"))
                return "an RDMA default ToS (an RDMA port with rdma_cm's configfs or MLNX_OFED's tc/N/traffic_class)";
        if (streq(ops[0]->name, "qdisc"))
                return "the tc qdiscs ets and red (kernel sch_ets, sch_red)";
        if (streq(ops[0]->name, "dcb-buffer"))
                return "a cable length or port buffers over DCB (mlx5, mlxsw)";
        return ops[0]->name;
}

static void field_list(uint32_t fields, char *buf, size_t size)
{
        size_t len = 0;

        buf[0] = '\0';
        for (int f = 0; f < STATE_FIELD_MAX && len < size; f++)
                if (fields & STATE_BIT(f))
                        len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "",
                                                state_field_name(f));
}

/* -EOPNOTSUPP with the clear message when a managed field has no driver here. */
static int refuse_unsupported(const struct plan *p, const struct plan_target *pt, struct errbuf *e)
{
        const struct target *t = &pt->t;
        uint32_t missing = pt->want & ~routed_fields(pt);
        char drv[64] = "", fields[128];

        if (!missing)
                return 0;
        if (t->kind == TARGET_INTERFACE)
                snprintf(drv, sizeof(drv), " (driver %s)", t->kernel_driver[0] ? t->kernel_driver : "unknown");
        for (int f = 0; f < STATE_FIELD_MAX; f++) {
                const char *m = (missing & STATE_BIT(f)) ? mechanism(p, t->kind, f) : NULL;
                uint32_t same = 0;

                if (!(missing & STATE_BIT(f)))
                        continue;
                if (!m)
                        return errbuf_set(e, EOPNOTSUPP, NULL, "%s '%s'%s cannot manage '%s'; nothing was changed",
                                          target_kind_name(t->kind), t->name, drv, state_field_name(f));
                for (int g = f; g < STATE_FIELD_MAX; g++)
                        if ((missing & STATE_BIT(g)) && streq(mechanism(p, t->kind, g), m))
                                same |= STATE_BIT(g);
                field_list(same, fields, sizeof(fields));
                return errbuf_set(e, EOPNOTSUPP, NULL, "%s '%s'%s does not support %s (needed for %s); nothing was changed",
                                  target_kind_name(t->kind), t->name, drv, m, fields);
        }
        return 0;
}

/* The fields `out` leave target pt: not read, compared or written there. */
static void leave_out(struct plan_target *pt, uint32_t out)
{
        pt->want &= ~out;
        for (unsigned u = 0; u < pt->n_units; u++) {
                pt->desired[u].present &= ~out;
                pt->live[u].present &= ~out;            /* nor snapshotted: a rollback leaves it alone too */
                pt->delta[u] &= ~out;
        }
        for (unsigned r = 0; r < pt->n_routes; r++)
                pt->routes[r].fields &= ~out;
}

/* "interface 'X' (driver D)" for notes. */
static void target_words(const struct target *t, char *buf, size_t size)
{
        if (t->kind == TARGET_INTERFACE)
                snprintf(buf, size, "interface '%s' (driver %s)", t->name, t->kernel_driver[0] ? t->kernel_driver : "unknown");
        else
                snprintf(buf, size, "%s '%s'", target_kind_name(t->kind), t->name);
}

/* Optional fields no driver serves here are left out, with a note, instead of refusing the policy. */
static void leave_out_unserved(struct plan *p, struct plan_target *pt)
{
        uint32_t out = field_optional(&pt->desired[0], pt->want & ~routed_fields(pt));
        char who[STATE_NAME_MAX + 64], names[128];

        if (!out)
                return;
        leave_out(pt, out);
        target_words(&pt->t, who, sizeof(who));
        field_list(out, names, sizeof(names));
        plan_note(p, "%s: %s is optional and left out here: it has no %s this agent can reach; the rest of the "
                  "policy applies", who, names, mechanism(p, pt->t.kind, (enum state_field)__builtin_ctz(out)));
}

/* ---- building ---- */

/*
 * The fields a kind of target can carry: an agent in the switch role (on a Linux
 * switch) manages its interfaces' queues too (ecn, through tc qdiscs).
 */
static unsigned kind_on(const struct target *t)
{
        if (t->kind == TARGET_SWITCH)
                return FIELD_ON_SWITCH;
        return t->env && t->env->switch_role ? FIELD_ON_INTERFACE | FIELD_ON_SWITCH : FIELD_ON_INTERFACE;
}

uint32_t plan_fields_of(const struct target *t)
{
        return field_mask_on(kind_on(t), STATE_ALL_FIELDS);
}

/* A new target with its units' arrays; desired all empty. */
static int add_target(struct plan *p, const struct target *t, struct plan_target **ret, struct errbuf *e)
{
        struct plan_target *pt, *v;
        unsigned n;

        /* Room for twice as many whenever the count reaches a power of two (from 16 on). */
        if (p->n < 16 ? !p->v : !(p->n & (p->n - 1))) {
                v = realloc(p->v, (p->n < 16 ? 16 : 2 * p->n) * sizeof(*v));
                if (!v)
                        return errbuf_set(e, ENOMEM, NULL, "out of memory");
                p->v = v;
        }
        pt = &p->v[p->n];
        memset(pt, 0, sizeof(*pt));
        pt->t = *t;
        pt->t.io = &p->io;
        n = pt->n_units = target_units(t);
        pt->desired = calloc(n ? n : 1, sizeof(*pt->desired));
        pt->live = calloc(n ? n : 1, sizeof(*pt->live));
        pt->delta = calloc(n ? n : 1, sizeof(*pt->delta));
        p->n++;
        if (!pt->desired || !pt->live || !pt->delta)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        for (unsigned u = 0; u < n; u++) {
                state_init(&pt->desired[u]);
                state_init(&pt->live[u]);
        }
        *ret = pt;
        return 0;
}

/*
 * A host agent's interfaces carry no switch-queue field (ecn): say so once when the
 * policy names one and no switch would take it here, instead of a silent "no changes".
 */
static void note_switch_only(struct plan *p, const struct target *t, const struct policy *pol)
{
        uint32_t only = pol->spec.present & ~field_mask_on(kind_on(t), STATE_ALL_FIELDS) &
                        field_mask_on(FIELD_ON_SWITCH, STATE_ALL_FIELDS);
        char names[128] = "";
        size_t n = 0;

        if (t->kind != TARGET_INTERFACE || !only || pol->n_switches || p->noted_switch_only)
                return;
        p->noted_switch_only = true;
        for (unsigned f = 0; f < STATE_FIELD_MAX; f++)
                if (only & STATE_BIT(f) && n < sizeof(names))
                        n += snprintf(names + n, sizeof(names) - n, "%s%s", n ? ", " : "", state_field_name(f));
        plan_note(p, "%s is a switch-port field: this agent (role host) leaves it alone on its interfaces;"
                  " it is applied by the agent of a Linux switch (\"role\": \"switch\") or on targets.switches", names);
}

/*
 * What the lossless class relates to the fields a policy changes here: read too (where
 * the target can) so that plan_check() judges the change against the unit as a whole.
 */
static uint32_t lossless_extra(const struct target *t, uint32_t want, unsigned flags)
{
        if ((flags & PLAN_ALL_FIELDS) || !(want & LOSSLESS_FIELDS))
                return 0;
        return field_mask_on(kind_on(t), LOSSLESS_FIELDS) & ~want;
}

/*
 * roce_tos reaches rdma_cm's users, not NCCL: NCCL sets its QPs' traffic class from
 * NCCL_IB_TC (src/transport/net_ib.cc), 0 without it. Said once where a policy sets
 * roce_tos for a DSCP-trusting host and declares no nccl.
 */
static void note_nccl(struct plan *p, const struct target *t, const struct policy *pol)
{
        const struct state *s = &pol->spec;

        if (t->kind != TARGET_INTERFACE || p->noted_nccl || !state_has(s, STATE_FIELD_ROCE_TOS) ||
            !state_has(s, STATE_FIELD_TRUST) || s->trust != STATE_TRUST_DSCP || state_has(s, STATE_FIELD_NCCL))
                return;
        p->noted_nccl = true;
        plan_note(p, "NCCL will not follow roce_tos %u: it builds its RoCE connections with verbs, not rdma_cm, and "
                  "sends traffic class 0 unless NCCL_IB_TC is set (only MLNX_OFED's global traffic_class overrides "
                  "it): declare nccl.ib_tc (\"auto\" takes roce_tos)", s->roce_tos);
}

static int add_policy_target(struct plan *p, const struct target *t, const struct policy *pol, unsigned flags,
                             struct errbuf *e)
{
        struct plan_target *pt;
        uint32_t want = field_mask_on(kind_on(t), flags & PLAN_ALL_FIELDS ? STATE_ALL_FIELDS : pol->spec.present);
        uint32_t extra = lossless_extra(t, want, flags);
        int r = add_target(p, t, &pt, e);

        if (r >= 0)
                r = route(p, pt, want, extra, e);
        if (r < 0)
                return r;
        if (flags & PLAN_ALL_FIELDS) {
                pt->want = routed_fields(pt);
                return 0;
        }
        pt->want = want;
        pt->extra = extra_fields(pt);
        note_switch_only(p, t, pol);
        note_nccl(p, t, pol);
        for (unsigned u = 0; u < pt->n_units; u++) {
                pt->desired[u] = pol->spec;
                pt->desired[u].present = want;
        }
        leave_out_unserved(p, pt);
        return refuse_unsupported(p, pt, e);
}

int plan_add_state(struct plan *p, const struct target *t, const struct state *desired, struct plan_target **ret,
                   struct errbuf *e)
{
        struct plan_target *pt;
        uint32_t want = field_mask_on(kind_on(t), desired->present);
        uint32_t extra = lossless_extra(t, want, 0);
        int r = add_target(p, t, &pt, e);

        if (r >= 0)
                r = route(p, pt, want, extra, e);
        if (r < 0)
                return r;
        p->io.n_targets[t->kind]++;
        pt->want = want;
        pt->extra = extra_fields(pt);
        for (unsigned u = 0; u < pt->n_units; u++) {
                pt->desired[u] = *desired;
                pt->desired[u].present = want;
        }
        leave_out_unserved(p, pt);
        r = refuse_unsupported(p, pt, e);
        if (r >= 0 && ret)
                *ret = pt;
        return r;
}

const struct plan_owner *plan_owner_of(const struct plan *p, const struct plan_target *pt, enum state_field f)
{
        unsigned o = (unsigned)f < STATE_FIELD_MAX ? pt->owner[f] : 0;

        return o && o <= p->n_owners ? &p->owners[o - 1] : NULL;
}

json_t *plan_owner_json(const struct plan *p, const struct plan_target *pt, enum state_field f)
{
        const struct plan_owner *o = plan_owner_of(p, pt, f);

        return o ? json_pack("{s:s, s:I}", "policy", o->policy, "revision", (json_int_t)o->revision) : NULL;
}

/* How many targets of each kind the request holds, known before the first driver probes one (driver_io). */
static void count_targets(struct plan *p, const struct target_list *l)
{
        for (unsigned i = 0; i < l->n; i++)
                p->io.n_targets[l->v[i].kind]++;
}

int plan_for_policy(struct plan *p, const struct policy *pol, unsigned flags, struct errbuf *e)
{
        struct target_list l = { 0 };
        int r = targets_for_policy(&p->env, pol, &l, e);

        snprintf(p->policy, sizeof(p->policy), "%s", pol->name);
        snprintf(p->io.policy, sizeof(p->io.policy), "%s", pol->name);
        p->lossless.active = !(flags & PLAN_ALL_FIELDS);
        p->lossless.refuse = true;
        p->lossless.roce_dscp = pol->verify.dscp;
        p->lossless.allow = pol->checks_allow;
        if (r >= 0)
                count_targets(p, &l);
        for (unsigned i = 0; r >= 0 && i < l.n; i++)
                r = add_policy_target(p, &l.v[i], pol, flags, e);
        targets_free(&l);
        return r;
}

static int add_all(struct plan *p, const struct target_list *l, struct errbuf *e)
{
        int r = 0;

        count_targets(p, l);
        for (unsigned i = 0; r >= 0 && i < l->n; i++) {
                struct plan_target *pt;

                r = add_target(p, &l->v[i], &pt, e);
                if (r >= 0)
                        r = route(p, pt, field_mask_on(kind_on(&pt->t), STATE_ALL_FIELDS), 0, e);
                if (r >= 0)
                        pt->want = routed_fields(pt);
        }
        return r;
}

int plan_for_globs(struct plan *p, const char (*ifglobs)[64], unsigned n_if, const char (*swglobs)[64],
                   unsigned n_sw, bool no_switches, struct errbuf *e)
{
        struct target_list l = { 0 };
        int r = targets_for_interfaces(&p->env, ifglobs, n_if, &l, e);

        if (r >= 0)
                r = add_all(p, &l, e);
        targets_free(&l);
        if (r < 0 || no_switches)
                return r;
        r = targets_for_switches(&p->env, swglobs, n_sw, &l, e);
        if (r >= 0)
                r = add_all(p, &l, e);
        targets_free(&l);
        return r;
}

int plan_add_snapshot(struct plan *p, int kind, const char *name, uint32_t fields, const char *state_json,
                      struct errbuf *e)
{
        struct target_list l = { 0 };
        struct plan_target *pt;
        json_t *j = json_loads(state_json ? state_json : "", JSON_REJECT_DUPLICATES, NULL);
        char glob[1][64];
        int r;

        if (!j)
                return errbuf_set(e, EIO, name, "snapshot is not valid JSON");
        snprintf(glob[0], sizeof(glob[0]), "%s", name);
        r = kind == TARGET_SWITCH ? targets_for_switches(&p->env, (const char (*)[64])glob, 1, &l, e)
                                  : targets_for_interfaces(&p->env, (const char (*)[64])glob, 1, &l, e);
        if (r >= 0)
                count_targets(p, &l);
        if (r >= 0)
                r = add_target(p, &l.v[0], &pt, e);
        if (r >= 0)
                r = route(p, pt, fields, 0, e);
        if (r >= 0 && !(pt->before = calloc(pt->n_units ? pt->n_units : 1, sizeof(*pt->before))))
                r = errbuf_set(e, ENOMEM, NULL, "out of memory");
        if (r >= 0)
                r = state_units_from_json(j, target_unit_names(&pt->t), pt->n_units, pt->before, e);
        if (r >= 0) {
                pt->want = fields;
                memcpy(pt->desired, pt->before, pt->n_units * sizeof(*pt->desired));
        }
        if (r < 0)
                errbuf_prefix(e, "snapshot of %s '%s'", kind == TARGET_SWITCH ? "switch" : "interface", name);
        json_decref(j);
        targets_free(&l);
        return r;
}

/* ---- reading ---- */

static int open_routes(struct plan_target *pt, struct errbuf *e)
{
        for (unsigned r = 0; r < pt->n_routes; r++) {
                struct plan_route *rt = &pt->routes[r];
                int k;

                if (!rt->ops->open || rt->opened)
                        continue;
                k = rt->ops->open(&pt->t, e);
                if (k < 0)
                        return k;
                rt->opened = true;
        }
        return 0;
}

/*
 * One route's read: its fields and its extra ones in one call; when that fails with
 * extra fields in it, its fields alone (the extra ones are best effort).
 */
static int read_route(struct plan_target *pt, const struct plan_route *rt, struct state *ret, struct errbuf *e)
{
        uint32_t f = rt->fields & pt->want, extra = rt->extra;
        struct errbuf ignored = { 0 };
        int k;

        if (!(f | extra))
                return 0;
        k = rt->ops->read(&pt->t, f | extra, ret, extra ? &ignored : e);
        if (k >= 0 || !extra)
                return k;
        for (unsigned u = 0; u < pt->n_units; u++)
                ret[u].present &= ~extra;
        return f ? rt->ops->read(&pt->t, f, ret, e) : 0;
}

int plan_read_target(struct plan *p, unsigned i, struct state *ret, struct errbuf *e)
{
        struct plan_target *pt = &p->v[i];
        int k = open_routes(pt, e);

        for (unsigned u = 0; u < pt->n_units; u++)
                state_init(&ret[u]);
        for (unsigned r = 0; k >= 0 && r < pt->n_routes; r++)
                k = read_route(pt, &pt->routes[r], ret, e);
        for (unsigned r = 0; k >= 0 && r < pt->n_reads; r++)
                k = read_route(pt, &pt->reads[r], ret, e);
        return k;
}

/* The diff of every unit and the per-unit delta; unit keys are "ports.NAME." on a switch. */
static int diff_target(struct plan_target *pt)
{
        const char (*names)[STATE_NAME_MAX] = target_unit_names(&pt->t);
        int r = 0;

        diff_done(&pt->diff);
        pt->changed = 0;
        for (unsigned u = 0; u < pt->n_units && r >= 0; u++) {
                char prefix[STATE_NAME_MAX + 8] = "";
                uint32_t before = pt->diff.fields;
                unsigned n = pt->diff.n;

                if (names)
                        snprintf(prefix, sizeof(prefix), "ports.%s.", names[u]);
                pt->diff.fields = 0;
                r = diff_append(&pt->diff, prefix, &pt->desired[u], &pt->live[u]);
                pt->delta[u] = pt->diff.n > n ? pt->diff.fields : 0;
                pt->diff.fields |= before;
                pt->changed |= pt->delta[u];
        }
        return r;
}

void plan_change(const struct plan_target *pt, unsigned r, uint32_t *delta_buf, struct driver_change *ret)
{
        uint32_t f = pt->routes[r].fields, all = 0;

        for (unsigned u = 0; u < pt->n_units; u++) {
                delta_buf[u] = pt->delta[u] & f;
                all |= delta_buf[u];
        }
        *ret = (struct driver_change){ .n_units = pt->n_units, .desired = pt->desired, .live = pt->live,
                                       .delta = delta_buf, .fields = all, .owned = f };
}

/*
 * A driver that cannot reach optional fields here (its check says EACCES or EPERM:
 * a root-only file, a missing capability) leaves them out, with a note, instead of
 * refusing the policy. 1 when they were left out.
 */
static int leave_out_unreachable(struct plan *p, struct plan_target *pt, const struct driver_change *c, int k,
                                 const struct errbuf *e)
{
        uint32_t f = c->owned & pt->want;
        char names[128];

        if ((k != -EACCES && k != -EPERM) || !f || field_optional(&pt->desired[0], f) != f)
                return 0;
        leave_out(pt, f);
        if (diff_target(pt) < 0)
                return -ENOMEM;
        field_list(f, names, sizeof(names));
        plan_note(p, "%s is optional and left out here: %s; the rest of the policy applies", names, e->msg);
        return 1;
}

/*
 * A policy's roce_tos on a port that rdma_cm keeps on RoCE v1 (default_roce_mode
 * "IB/RoCE v1", cma_configfs.c): those packets carry no IP header, so the ToS sets
 * no DSCP and the class rules judge a value the port never sends. Refused whether
 * or not the value differs (a snapshot's ports are its own: a restore is not refused).
 */
static int refuse_roce_v1(const struct plan_target *pt, struct errbuf *e)
{
        const struct state *want = &pt->desired[0], *live = &pt->live[0];

        if (pt->t.kind != TARGET_INTERFACE || !(pt->want & STATE_BIT(STATE_FIELD_ROCE_TOS)) ||
            !state_has(live, STATE_FIELD_ROCE_TOS) || want->roce.n_ports)
                return 0;
        for (unsigned i = 0; i < live->roce.n_ports && i < STATE_RDMA_PORTS_MAX; i++) {
                const struct state_rdma_port *x = &live->roce.ports[i];

                if (x->roce_mode == STATE_ROCE_MODE_V1)
                        return errbuf_set(e, EOPNOTSUPP, NULL, "interface '%s': RDMA port %s/%u is on RoCE v1 "
                                          "(rdma_cm default_roce_mode 'IB/RoCE v1'): its packets carry no IP header, "
                                          "so roce_tos %u sets no DSCP there; put the port on RoCE v2 (write 'RoCE v2' "
                                          "to rdma_cm/%s/ports/%u/default_roce_mode in configfs) or leave roce_tos "
                                          "out (roce_mode_v1); nothing was changed", pt->t.name, x->dev, x->port,
                                          want->roce_tos, x->dev, x->port);
        }
        return 0;
}

static int check_target(struct plan *p, struct plan_target *pt, struct errbuf *e)
{
        _cleanup_free_ uint32_t *delta = calloc(pt->n_units ? pt->n_units : 1, sizeof(*delta));
        int k = 0;

        if (!delta)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        k = refuse_roce_v1(pt, e);
        for (unsigned r = 0; r < pt->n_routes && k >= 0; r++) {
                struct driver_change c;

                plan_change(pt, r, delta, &c);
                if (!c.fields || !pt->routes[r].ops->check)
                        continue;
                k = pt->routes[r].ops->check(&pt->t, &c, e);
                if (k < 0) {
                        int left = leave_out_unreachable(p, pt, &c, k, e);

                        if (left < 0)
                                k = errbuf_set(e, ENOMEM, NULL, "out of memory");
                        else if (left)
                                k = 0;
                        if (left > 0)
                                errbuf_clear(e);
                }
        }
        return k;
}

int plan_read(struct plan *p, struct errbuf *e)
{
        int r = 0;

        p->n_changes = 0;
        for (unsigned i = 0; i < p->n && r >= 0; i++) {
                struct plan_target *pt = &p->v[i];

                r = plan_read_target(p, i, pt->live, e);
                if (r >= 0 && diff_target(pt) < 0)
                        r = errbuf_set(e, ENOMEM, NULL, "out of memory");
                p->n_changes += pt->diff.n;
        }
        return r;
}

int plan_check(struct plan *p, struct errbuf *e)
{
        char (*notes)[PLAN_NOTE_MAX] = NULL;
        unsigned n = 0;
        int r = 0;

        for (unsigned i = 0; i < p->n && r >= 0; i++)
                r = check_target(p, &p->v[i], e);
        /* optional fields a target cannot reach left the diff: count what remains */
        p->n_changes = 0;
        for (unsigned i = 0; i < p->n; i++)
                p->n_changes += p->v[i].diff.n;
        if (r >= 0 && p->lossless.active && !(notes = calloc(PLAN_NOTES_MAX, sizeof(*notes))))
                r = errbuf_set(e, ENOMEM, NULL, "out of memory");
        if (r >= 0 && notes)
                r = plan_lossless_check(p, notes, PLAN_NOTES_MAX, &n, e);
        for (unsigned i = 0; r >= 0 && i < n; i++)
                plan_note(p, "%s", notes[i]);
        free(notes);
        return r < 0 ? r : 0;
}

/* ---- JSON, at the edge ---- */

json_t *plan_notes_json(const struct plan *p)
{
        json_t *notes = json_array();

        for (unsigned i = 0; notes && i < p->n_notes; i++)
                json_array_append_new(notes, json_string(p->notes[i]));
        for (unsigned i = 0; notes && i < p->io.n_notes; i++)   /* the drivers' (driver_note) */
                json_array_append_new(notes, json_string(p->io.notes[i]));
        return notes;
}

json_t *plan_to_json(const struct plan *p)
{
        json_t *targets = json_array(), *notes = plan_notes_json(p);

        for (unsigned i = 0; targets && i < p->n; i++) {
                const struct plan_target *pt = &p->v[i];
                json_t *o = json_pack("{s:s,s:s,s:o}", "kind", target_kind_name(pt->t.kind), "name", pt->t.name,
                                      "changes", diff_to_json(&pt->diff));
                json_t *ch = o ? json_object_get(o, "changes") : NULL;

                for (unsigned k = 0; p->n_owners && ch && k < pt->diff.n; k++) {
                        json_t *owner = plan_owner_json(p, pt, pt->diff.entries[k].field);

                        if (owner)
                                json_object_set_new(json_array_get(ch, k), "owner", owner);
                }

                if (!o || json_array_append_new(targets, o) < 0) {
                        json_decref(targets);
                        targets = NULL;
                }
        }
        if (!targets || !notes) {
                json_decref(targets);
                json_decref(notes);
                return NULL;
        }
        return json_pack("{s:s,s:i,s:o,s:o}", "policy", p->policy, "changes", (int)p->n_changes, "targets", targets,
                         "notes", notes);
}

json_t *plan_change_json(const char *target, const struct diff_entry *d)
{
        return json_pack("{s:s, s:s, s:s, s:o, s:o}", "target", target, "field", state_field_name(d->field), "key",
                         d->key, "from", diff_value_json(d->from), "to", diff_value_json(d->to));
}

json_t *plan_changes_json(const struct plan *p)
{
        json_t *arr = json_array();

        for (unsigned i = 0; arr && i < p->n; i++) {
                const struct plan_target *pt = &p->v[i];

                for (unsigned k = 0; k < pt->diff.n; k++) {
                        json_t *c = plan_change_json(pt->t.name, &pt->diff.entries[k]);
                        json_t *owner = c && p->n_owners ? plan_owner_json(p, pt, pt->diff.entries[k].field) : NULL;

                        if (owner)
                                json_object_set_new(c, "owner", owner);
                        if (json_array_append_new(arr, c) < 0) {
                                json_decref(arr);
                                return NULL;
                        }
                }
        }
        return arr;
}
