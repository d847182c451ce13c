/* SPDX-License-Identifier: MIT */
/* Discovery of a request's targets: local interfaces by glob, configured switches by glob. */
#include <fnmatch.h>

#include "agent/plan/plan.h"
#include "drivers/host/iface.h"

void targets_free(struct target_list *l)
{
        if (!l)
                return;
        free(l->v);
        l->v = NULL;
        l->n = 0;
}

/* A new target (new: the caller knows it is not in the list yet), else the one of that name. */
static struct target *add_new(struct target_list *l, const struct agent_config *c, enum target_kind kind,
                              const char *name, bool new)
{
        struct target *t;

        for (unsigned i = 0; !new && i < l->n; i++)
                if (l->v[i].kind == kind && streq(l->v[i].name, name))
                        return &l->v[i];
        if (l->n >= TARGETS_MAX)
                return NULL;
        if (!(l->n & (l->n - 1)) && l->n >= 16) {              /* full at 16, 32, 64...: twice the room */
                struct target *v = realloc(l->v, 2 * l->n * sizeof(*v));

                if (!v)
                        return NULL;
                l->v = v;
        }
        t = &l->v[l->n++];
        memset(t, 0, sizeof(*t));
        t->kind = kind;
        t->env = &c->env;
        strcopy(t->name, sizeof(t->name), name);
        return t;
}

static struct target *add(struct target_list *l, const struct agent_config *c, enum target_kind kind,
                          const char *name)
{
        return add_new(l, c, kind, name, false);
}

static void fill_iface(struct target *t, const struct iface *x)
{
        t->ifindex = x->ifindex;
        t->min_mtu = x->min_mtu;
        t->max_mtu = x->max_mtu;
        strcopy(t->kernel_driver, sizeof(t->kernel_driver), x->kernel_driver);
}

static int list_ifaces(const struct plan_env *env, struct iface **ret, unsigned *ret_n, struct errbuf *e)
{
        const struct agent_config *c = env->config;

        if (env->interfaces)
                return env->interfaces(c, ret, ret_n, e);
        if (env->io)            /* the request's dump: its plan reads the same links */
                return iface_list_io(env->io, &c->env, ret, ret_n, e);
        return iface_list(c->env.nl, c->env.sysfs_root, ret, ret_n, e);
}

/* Would the glob match a loopback or virtual device (that it does not select)? */
static bool virtual_matches(const struct iface *v, unsigned n, const char *glob)
{
        for (unsigned i = 0; i < n; i++)
                if (iface_is_virtual(&v[i]) && fnmatch(glob, v[i].name, 0) == 0)
                        return true;
        return false;
}

/* " (here: eth0, vA, vB and 3 more)": what a glob could have matched, loopback left out. */
static void names_here(const struct iface *v, unsigned n, char *buf, size_t size)
{
        size_t o = (size_t)snprintf(buf, size, " (interfaces here:");
        unsigned shown = 0, left = 0;

        for (unsigned i = 0; i < n; i++) {
                if (v[i].flags & IFF_LOOPBACK)
                        continue;
                if (shown < 16 && o + strlen(v[i].name) + 3 < size - 24)
                        o += (size_t)snprintf(buf + o, size - o, "%s %s", shown ? "," : "", v[i].name), shown++;
                else
                        left++;
        }
        if (!shown)
                snprintf(buf, size, " (no interface here but loopback)");
        else if (left)
                snprintf(buf + o, size - o, " and %u more)", left);
        else
                snprintf(buf + o, size - o, ")");
}

static int add_interfaces(struct target_list *l, const struct plan_env *env, const char (*globs)[64],
                          unsigned n, bool policy, struct errbuf *e)
{
        const struct agent_config *c = env->config;
        _cleanup_free_ struct iface *v = NULL;
        _cleanup_free_ bool *taken = NULL;
        _cleanup_free_ unsigned *order = NULL;
        unsigned nv = 0, first = l->n, k = 0;
        int r;

        r = list_ifaces(env, &v, &nv, e);
        if (r < 0)
                return r;
        taken = calloc(nv ? nv : 1, sizeof(*taken));
        order = calloc(nv ? nv : 1, sizeof(*order));
        if (!taken || !order)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        for (unsigned g = 0; g < (n ? n : 1); g++) {
                bool found = false;

                for (unsigned i = 0; i < nv; i++) {
                        struct target *t;

                        /* A glob never picks loopback or a virtual device; its exact name does. */
                        if (n ? !iface_selects(globs[g], &v[i]) : (v[i].flags & IFF_LOOPBACK) != 0)
                                continue;
                        found = true;
                        if (taken[i])           /* an earlier glob picked it */
                                continue;
                        /* Names are unique in a namespace: no need to look for it among the targets. */
                        t = add_new(l, c, TARGET_INTERFACE, v[i].name, true);
                        if (!t)
                                return errbuf_set(e, E2BIG, NULL, "more than %d targets", TARGETS_MAX);
                        taken[i] = true;
                        order[k++] = i;
                }
                if (n && !found) {
                        char where[64] = "", here[400];

                        if (policy)
                                snprintf(where, sizeof(where), "$.targets.interfaces[%u]", g);
                        names_here(v, nv, here, sizeof(here));
                        return errbuf_set(e, ENOENT, where, "no interface matches '%s'%s%s; nothing was changed",
                                          globs[g], here, virtual_matches(v, nv, globs[g]) ?
                                          "; loopback and virtual devices match only by their exact name" : "");
                }
        }
        /* The kernel drivers of the links taken (a dump's discovery leaves them to us). */
        iface_kernel_drivers(v, nv, taken, c->env.sysfs_root);
        for (unsigned j = 0; j < k; j++)
                fill_iface(&l->v[first + j], &v[order[j]]);
        return 0;
}

static int add_switches(struct target_list *l, const struct plan_env *env, const char (*globs)[64],
                        unsigned n, bool policy, struct errbuf *e)
{
        const struct agent_config *c = env->config;

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
                        char where[64] = "", here[400] = " (it has none)";
                        size_t o = 0;

                        if (policy)
                                snprintf(where, sizeof(where), "$.targets.switches[%u]", g);
                        for (unsigned i = 0; i < c->n_switches && o < sizeof(here) - 70; i++)
                                o += (size_t)snprintf(here + o, sizeof(here) - o, "%s%s", i ? ", " : " (it has: ",
                                                      c->switches[i].name);
                        if (o)
                                snprintf(here + o, sizeof(here) - o, ")");
                        return errbuf_set(e, ENOENT, where,
                                          "no switch of the agent configuration matches '%s'%s; nothing was changed",
                                          globs[g], here);
                }
        }
        return 0;
}

static int list_new(struct target_list *ret, struct target_list *l, struct errbuf *e)
{
        l->n = 0;
        l->v = calloc(16, sizeof(*l->v));      /* grows by doubling (add_new) */
        if (!l->v)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        return 0;
}

int targets_for_policy(const struct plan_env *env, const struct policy *p, struct target_list *ret,
                       struct errbuf *e)
{
        struct target_list l;
        int r;

        r = list_new(ret, &l, e);
        if (r >= 0 && p->n_interfaces)
                r = add_interfaces(&l, env, p->interfaces, p->n_interfaces, true, e);
        if (r >= 0 && p->n_switches)
                r = add_switches(&l, env, p->switches, p->n_switches, true, e);
        if (r < 0) {
                targets_free(&l);
                return r;
        }
        *ret = l;
        return 0;
}

/* A list of one kind of target: add_kind is add_interfaces or add_switches. */
static int targets_for(int (*add_kind)(struct target_list *, const struct plan_env *, const char (*)[64],
                                       unsigned, bool, struct errbuf *),
                       const struct plan_env *env, const char (*globs)[64], unsigned n,
                       struct target_list *ret, struct errbuf *e)
{
        struct target_list l;
        int r;

        r = list_new(ret, &l, e);
        if (r >= 0)
                r = add_kind(&l, env, globs, n, false, e);
        if (r < 0) {
                targets_free(&l);
                return r;
        }
        *ret = l;
        return 0;
}

int targets_for_interfaces(const struct plan_env *env, const char (*globs)[64], unsigned n,
                           struct target_list *ret, struct errbuf *e)
{
        return targets_for(add_interfaces, env, globs, n, ret, e);
}

int targets_for_switches(const struct plan_env *env, const char (*globs)[64], unsigned n,
                         struct target_list *ret, struct errbuf *e)
{
        return targets_for(add_switches, env, globs, n, ret, e);
}
