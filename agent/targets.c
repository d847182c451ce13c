/* SPDX-License-Identifier: MIT */
/* Targets of a policy, field routing to drivers, caps checks, live state reads. */
#include <fnmatch.h>

#include "iface.h"
#include "qdisc_ets.h"
#include "targets.h"

void targets_free(struct target_list *l)
{
        if (!l)
                return;
        free(l->v);
        l->v = NULL;
        l->n = 0;
}

static struct target *add(struct target_list *l, const struct agent_config *c, enum target_kind kind,
                          const char *name)
{
        struct target *t;

        for (unsigned i = 0; i < l->n; i++)
                if (l->v[i].kind == kind && streq(l->v[i].name, name))
                        return &l->v[i];
        if (l->n >= TARGETS_MAX)
                return NULL;
        t = &l->v[l->n++];
        memset(t, 0, sizeof(*t));
        t->kind = kind;
        t->env = &c->env;
        snprintf(t->name, sizeof(t->name), "%s", name);
        return t;
}

static void fill_iface(struct target *t, const struct iface *x)
{
        t->ifindex = x->ifindex;
        snprintf(t->kernel_driver, sizeof(t->kernel_driver), "%s", x->kernel_driver);
}

static int add_interfaces(struct target_list *l, const struct agent_config *c, const char (*globs)[64],
                          unsigned n, bool policy, struct errbuf *e)
{
        _cleanup_free_ struct iface *v = NULL;
        unsigned nv = 0;
        int r;

        r = iface_list(c->env.nl, c->env.sysfs_root, &v, &nv, e);
        if (r < 0)
                return r;
        for (unsigned g = 0; g < (n ? n : 1); g++) {
                bool found = false;

                for (unsigned i = 0; i < nv; i++) {
                        struct target *t;

                        if (n ? fnmatch(globs[g], v[i].name, 0) != 0 : (v[i].flags & IFF_LOOPBACK) != 0)
                                continue;
                        t = add(l, c, TARGET_INTERFACE, v[i].name);
                        if (!t)
                                return errbuf_set(e, E2BIG, NULL, "more than %d targets", TARGETS_MAX);
                        fill_iface(t, &v[i]);
                        found = true;
                }
                if (n && !found) {
                        char where[64] = "";

                        if (policy)
                                snprintf(where, sizeof(where), "$.targets.interfaces[%u]", g);
                        return errbuf_set(e, ENOENT, where, "no interface matches '%s' here; nothing was changed",
                                          globs[g]);
                }
        }
        return 0;
}

static int add_switches(struct target_list *l, const struct agent_config *c, const char (*globs)[64],
                        unsigned n, bool policy, struct errbuf *e)
{
        for (unsigned g = 0; g < (n ? n : 1) && (n || c->n_switches); g++) {
                bool found = false;

                for (unsigned i = 0; i < c->n_switches; i++) {
                        struct target *t;

                        if (n && fnmatch(globs[g], c->switches[i].name, 0) != 0)
                                continue;
                        t = add(l, c, TARGET_SWITCH, c->switches[i].name);
                        if (!t)
                                return errbuf_set(e, E2BIG, NULL, "more than %d targets", TARGETS_MAX);
                        t->sw = &c->switches[i];
                        found = true;
                }
                if (n && !found) {
                        char where[64] = "";

                        if (policy)
                                snprintf(where, sizeof(where), "$.targets.switches[%u]", g);
                        return errbuf_set(e, ENOENT, where,
                                          "no switch of the agent configuration matches '%s'; nothing was changed",
                                          globs[g]);
                }
        }
        return 0;
}

static int list_new(struct target_list *ret, struct target_list *l, struct errbuf *e)
{
        l->n = 0;
        l->v = calloc(TARGETS_MAX, sizeof(*l->v));
        if (!l->v)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        return 0;
}

int targets_for_policy(const struct policy *p, const struct agent_config *c, struct target_list *ret,
                       struct errbuf *e)
{
        struct target_list l;
        int r;

        r = list_new(ret, &l, e);
        if (r >= 0 && p->n_interfaces)
                r = add_interfaces(&l, c, p->interfaces, p->n_interfaces, true, e);
        if (r >= 0 && p->n_switches)
                r = add_switches(&l, c, p->switches, p->n_switches, true, e);
        if (r < 0) {
                targets_free(&l);
                return r;
        }
        *ret = l;
        return 0;
}

/* A list of one kind of target: add_kind is add_interfaces or add_switches. */
static int targets_for(int (*add_kind)(struct target_list *, const struct agent_config *, const char (*)[64],
                                       unsigned, bool, struct errbuf *),
                       const struct agent_config *c, const char (*globs)[64], unsigned n,
                       struct target_list *ret, struct errbuf *e)
{
        struct target_list l;
        int r;

        r = list_new(ret, &l, e);
        if (r >= 0)
                r = add_kind(&l, c, globs, n, false, e);
        if (r < 0) {
                targets_free(&l);
                return r;
        }
        *ret = l;
        return 0;
}

int targets_for_interfaces(const struct agent_config *c, const char (*globs)[64], unsigned n,
                           struct target_list *ret, struct errbuf *e)
{
        return targets_for(add_interfaces, c, globs, n, ret, e);
}

int targets_for_switches(const struct agent_config *c, const char (*globs)[64], unsigned n,
                         struct target_list *ret, struct errbuf *e)
{
        return targets_for(add_switches, c, globs, n, ret, e);
}

uint32_t targets_wanted(const struct driver_env *env, enum target_kind kind, uint32_t spec_fields)
{
        if (kind == TARGET_INTERFACE && !(env && env->switch_role))
                return spec_fields & ~STATE_BIT(STATE_FIELD_ECN);
        if (kind == TARGET_INTERFACE)
                return spec_fields;
        return spec_fields & ~STATE_BIT(STATE_FIELD_HOST_ECN);
}

/* ---- routing ---- */

int targets_route(struct target *t, uint32_t want, struct targets_route *ret, struct errbuf *e)
{
        const struct driver_ops *ops[TARGETS_DRIVERS_MAX];
        unsigned n = driver_select(t->kind, want, ops, TARGETS_DRIVERS_MAX);
        uint32_t routed = 0;

        ret->n = 0;
        for (unsigned i = 0; i < n; i++) {
                uint32_t caps = 0;
                int r = ops[i]->caps ? ops[i]->caps(t, &caps, e) : (caps = ops[i]->fields, 0);

                if (r == -EOPNOTSUPP)
                        continue;
                if (r < 0)
                        return r;
                caps &= ops[i]->fields & want & ~routed;
                if (!caps)
                        continue;
                ret->ops[ret->n] = ops[i];
                ret->fields[ret->n++] = caps;
                routed |= caps;
        }
        return 0;
}

int targets_caps(struct target *t, uint32_t want, uint32_t *ret_fields, struct errbuf *e)
{
        struct targets_route rt;
        uint32_t f = 0;
        int r;

        r = targets_route(t, want, &rt, e);
        if (r < 0)
                return r;
        for (unsigned i = 0; i < rt.n; i++)
                f |= rt.fields[i];
        *ret_fields = f;
        return 0;
}

/* What a missing field needs, named after the driver that would own it. */
static const char *mechanism(enum target_kind kind, enum state_field f)
{
        const struct driver_ops *ops[1];

        if (!driver_select(kind, STATE_BIT(f), ops, 1))
                return NULL;
        if (streq(ops[0]->name, "dcb"))
                return "DCB";
        if (streq(ops[0]->name, "nic-ecn"))
                return "NIC ECN (DCQCN) knobs";
        if (streq(ops[0]->name, "qdisc"))
                return "the tc qdiscs ets and red (kernel sch_ets, sch_red)";
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

int targets_check_caps(struct target *t, uint32_t want, struct errbuf *e)
{
        const char *kind = t->kind == TARGET_SWITCH ? "switch" : "interface";
        char drv[64] = "", fields[128];
        uint32_t have = 0, missing;
        int r;

        r = targets_caps(t, want, &have, e);
        if (r < 0)
                return r;
        missing = want & ~have;
        if (!missing)
                return 0;
        if (t->kind == TARGET_INTERFACE)
                snprintf(drv, sizeof(drv), " (driver %s)", t->kernel_driver[0] ? t->kernel_driver : "unknown");
        for (int f = 0; f < STATE_FIELD_MAX; f++) {
                const char *m = (missing & STATE_BIT(f)) ? mechanism(t->kind, f) : NULL;
                uint32_t same = 0;

                if (!(missing & STATE_BIT(f)))
                        continue;
                if (!m)
                        return errbuf_set(e, EOPNOTSUPP, NULL, "%s '%s'%s cannot manage '%s'; nothing was changed",
                                          kind, t->name, drv, state_field_name(f));
                for (int g = f; g < STATE_FIELD_MAX; g++)
                        if ((missing & STATE_BIT(g)) && streq(mechanism(t->kind, g), m))
                                same |= STATE_BIT(g);
                field_list(same, fields, sizeof(fields));
                return errbuf_set(e, EOPNOTSUPP, NULL, "%s '%s'%s does not support %s (needed for %s); nothing was changed",
                                  kind, t->name, drv, m, fields);
        }
        return 0;
}

static int read_with(const struct driver_ops *ops, struct target *t, uint32_t f, struct state *ret,
                     struct errbuf *e)
{
        int r;

        if (ops->open && (r = ops->open(t, e)) < 0)
                return r;
        r = ops->read(t, f, ret, e);
        if (ops->close)
                ops->close(t);
        return r;
}

int targets_read_state(struct target *t, uint32_t fields, struct state *ret, struct errbuf *e)
{
        struct targets_route rt;
        int r;

        r = targets_route(t, fields, &rt, e);
        for (unsigned i = 0; r >= 0 && i < rt.n; i++)
                r = read_with(rt.ops[i], t, rt.fields[i], ret, e);
        return r;
}

/* mlxsw: DCB ETS and a tc ets qdisc cannot both be configured on one port. */
static int one_scheduler(const struct target *t, const struct targets_route *rt, struct errbuf *e)
{
        const struct driver_ops *ets = NULL, *ecn = NULL;

        for (unsigned i = 0; i < rt->n; i++) {
                if (rt->fields[i] & STATE_BIT(STATE_FIELD_ETS))
                        ets = rt->ops[i];
                if (rt->fields[i] & STATE_BIT(STATE_FIELD_ECN))
                        ecn = rt->ops[i];
        }
        if (!ets || !ecn || ets == ecn || ecn != &qdisc_driver)
                return 0;
        return errbuf_set(e, EOPNOTSUPP, NULL, "interface '%s': ets would go through %s and ecn through a tc ets "
                          "qdisc, but DCB ETS and a tc ets qdisc cannot both be configured on one port; leave ets "
                          "out of the policy (the tc ets qdisc maps priorities itself); nothing was changed",
                          t->name, streq(ets->name, "dcb") ? "DCB" : ets->name);
}

int targets_check(struct target *t, const struct state *desired, struct errbuf *e)
{
        struct targets_route rt = { 0 };
        int r = targets_check_caps(t, desired->present, e);

        if (r >= 0)
                r = targets_route(t, desired->present, &rt, e);
        if (r >= 0)
                r = one_scheduler(t, &rt, e);
        for (unsigned i = 0; r >= 0 && i < rt.n; i++)
                if (rt.ops[i] == &qdisc_driver)
                        r = qdisc_driver_check(t, desired, rt.fields[i], e);
        return r;
}
