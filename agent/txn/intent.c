/* SPDX-License-Identifier: MIT */
/*
 * The node's intent (txn.h): its committed layers (the journal's layer_versions),
 * merged field by field (policies/policy/layers.c) into one plan; the plan of a change of
 * one layer (apply, remove, rollback --policy), whose released fields go back to the
 * layer below or to the value before nettune took them (the journal's originals).
 */
#include "agent/txn/txn.h"
#include "agent/txn/txn_internal.h"
#include "policies/state/field.h"
#include "policies/state/state_json.h"

void intent_free(struct intent *in)
{
        for (unsigned i = 0; i < in->n; i++)
                policy_free((struct policy *)in->v[i].p);
        in->n = 0;
}

int intent_load(struct journal *j, struct intent *ret, struct errbuf *e)
{
        return intent_load_at(j, 0, ret, e);
}

int intent_load_at(struct journal *j, int64_t rev, struct intent *ret, struct errbuf *e)
{
        struct journal_layer *rows = NULL;
        unsigned n = 0;
        int r = journal_layers_at(j, rev, &rows, &n, e);

        memset(ret, 0, sizeof(*ret));
        for (unsigned i = 0; r >= 0 && i < n && ret->n < LAYERS_MAX; i++) {
                struct policy *p = NULL;

                r = policy_parse_committed(rows[i].policy_json, strlen(rows[i].policy_json), "committed layer", &p, e);
                if (r < 0)
                        break;
                ret->prev[ret->n] = rows[i].prev;
                ret->v[ret->n++] = (struct layer){ .p = p, .revision = rows[i].rev };
        }
        journal_layers_free(rows, n);
        if (r < 0)
                intent_free(ret);
        return r < 0 ? r : 0;
}

int intent_find(const struct intent *in, const char *name)
{
        for (unsigned i = 0; i < in->n; i++)
                if (streq(in->v[i].p->name, name))
                        return (int)i;
        return -1;
}

/* The layers of in with layer `name` replaced by p (NULL: taken out); the policies stay in's and p's. */
static void intent_with(const struct intent *in, const char *name, const struct policy *p, struct layer *ret,
                        unsigned *ret_n)
{
        unsigned n = 0;

        for (unsigned i = 0; i < in->n; i++)
                if (!streq(in->v[i].p->name, name))
                        ret[n++] = in->v[i];
        if (p && n < LAYERS_MAX)
                ret[n++] = (struct layer){ .p = p, .revision = INT64_MAX };     /* the version this change commits */
        *ret_n = n;
}

/* Every interface and configured switch of this node (the layers' globs are matched per field). */
static int all_targets(struct txn_env *env, struct plan *p, struct target_list *ifs, struct target_list *sws,
                       struct errbuf *e)
{
        int r = targets_for_interfaces(&p->env, NULL, 0, ifs, e);

        (void)env;
        if (r >= 0)
                r = targets_for_switches(&p->env, NULL, 0, sws, e);
        return r;
}

static void set_owners(struct plan *p, const struct layer *v, unsigned n)
{
        p->n_owners = 0;
        for (unsigned i = 0; i < n && i < PLAN_OWNERS_MAX; i++) {
                snprintf(p->owners[i].policy, sizeof(p->owners[i].policy), "%s", v[i].p->name);
                p->owners[i].revision = v[i].revision;
                p->n_owners++;
        }
}

/*
 * What a snapshot keeps beside the fields, for the drivers that put it back
 * (policies/state/state.h): the DCB device (DCBX mode, APP entries) with the DCB fields,
 * what sat where the tc qdisc driver attaches with its fields. Once every such field
 * of a target is released, the oldest original of them gives it back too, as a
 * rollback to that snapshot would (the DCBX mode nettune switched; the kernel's
 * default qdisc, nettune's tree gone).
 */
#define QDISC_STATE_FIELDS (STATE_BIT(STATE_FIELD_ETS) | STATE_BIT(STATE_FIELD_ECN))
#define DCB_DEVICE_FIELDS (STATE_BIT(STATE_FIELD_TRUST) | STATE_BIT(STATE_FIELD_DSCP_MAP) | \
                           STATE_BIT(STATE_FIELD_PFC) | STATE_BIT(STATE_FIELD_ETS) | \
                           STATE_BIT(STATE_FIELD_CABLE_LEN) | STATE_BIT(STATE_FIELD_BUFFERS))

struct released_extras {
        int64_t dcb_tx, qdisc_tx;               /* the original each was taken from, 0: none */
        struct state_dcb_device dcb;
        struct state_qdisc qdisc;
};

/* The fields of the driver that attaches tc qdiscs (it serves ecn) on pt, 0 when none does. */
static uint32_t qdisc_route_fields(const struct plan_target *pt)
{
        for (unsigned i = 0; i < pt->n_routes; i++)
                if (pt->routes[i].ops->fields & STATE_BIT(STATE_FIELD_ECN))
                        return pt->routes[i].fields & pt->want;
        return 0;
}

static void extras_note(struct released_extras *x, int f, int64_t tx, const struct state *orig)
{
        if ((DCB_DEVICE_FIELDS & STATE_BIT(f)) && orig->dcb.present && (!x->dcb_tx || tx < x->dcb_tx)) {
                x->dcb_tx = tx;
                x->dcb = orig->dcb;
        }
        if ((QDISC_STATE_FIELDS & STATE_BIT(f)) && orig->qdisc.root != STATE_QDISC_UNKNOWN &&
            (!x->qdisc_tx || tx < x->qdisc_tx)) {
                x->qdisc_tx = tx;
                x->qdisc = orig->qdisc;
        }
}

static void extras_put(struct plan_target *pt, const struct released_extras *x, uint32_t released)
{
        uint32_t q = qdisc_route_fields(pt);

        if (pt->n_units != 1)
                return;
        if (x->dcb_tx && !(pt->want & DCB_DEVICE_FIELDS & ~released))
                pt->desired[0].dcb = x->dcb;
        if (x->qdisc_tx && q && !(q & ~released))
                pt->desired[0].qdisc = x->qdisc;
}

/*
 * One target's part of a change of layer `name` from `before` to `after` (or, name
 * NULL, the whole of after): the fields either gives to `name`, desired as after has
 * them, a field after leaves to nobody back at its value before nettune.
 */
static int add_intent_target(struct txn_env *env, struct plan *p, const struct target *t, const struct layer *bv,
                             unsigned bn, const struct layer *av, unsigned an, const char *name, struct errbuf *e)
{
        bool sw = t->kind == TARGET_SWITCH;
        uint32_t on = plan_fields_of(t), released = 0, take = 0;
        struct released_extras x = { 0 };
        int own_before[STATE_FIELD_MAX], own_after[STATE_FIELD_MAX];
        struct state before, after;
        struct plan_target *pt;
        int r;

        layers_merge(bv, bn, sw, t->name, on, &before, own_before);
        layers_merge(av, an, sw, t->name, on, &after, own_after);
        for (int f = 0; f < STATE_FIELD_MAX; f++) {
                bool was = own_before[f] >= 0 && (!name || streq(bv[own_before[f]].p->name, name));
                bool is = own_after[f] >= 0 && (!name || streq(av[own_after[f]].p->name, name));

                if (!name && own_after[f] >= 0)
                        take |= STATE_BIT(f);
                else if (is || (was && own_after[f] >= 0))
                        take |= STATE_BIT(f);
                else if (was)
                        released |= STATE_BIT(f);
        }
        after.present &= take;
        /* released fields: their value before nettune, where the journal has it */
        for (int f = 0; f < STATE_FIELD_MAX && env->journal; f++) {
                _cleanup_free_ char *json = NULL;

                if (!(released & STATE_BIT(f)) ||
                    journal_original(env->journal, t->kind, t->name, f, &json, NULL, e) < 0) {
                        released &= ~STATE_BIT(f);
                        continue;
                }
                after.present |= STATE_BIT(f);
        }
        errbuf_clear(e);
        if (!(after.present & on))
                return 0;
        r = plan_add_state(p, t, &after, &pt, e);
        if (r < 0)
                return r;
        for (int f = 0; f < STATE_FIELD_MAX; f++)
                pt->owner[f] = own_after[f] >= 0 && (take & STATE_BIT(f)) ? (uint8_t)(own_after[f] + 1) : 0;
        for (int f = 0; f < STATE_FIELD_MAX && released; f++) {
                _cleanup_free_ char *json = NULL;
                _cleanup_free_ struct state *units = NULL;
                int64_t tx = 0;
                json_t *j;

                if (!(released & STATE_BIT(f)) || !(pt->want & STATE_BIT(f)))
                        continue;
                if (journal_original(env->journal, t->kind, t->name, f, &json, &tx, e) < 0 ||
                    !(j = json_loads(json, 0, NULL)))
                        return errbuf_set(e, EIO, NULL, "%s '%s': the value of '%s' before nettune cannot be read",
                                          target_kind_name(t->kind), t->name, state_field_name(f));
                units = calloc(pt->n_units ? pt->n_units : 1, sizeof(*units));
                r = units ? state_units_from_json(j, target_unit_names(&pt->t), pt->n_units, units, e) : -ENOMEM;
                json_decref(j);
                if (r < 0)
                        return r;
                for (unsigned u = 0; u < pt->n_units; u++) {
                        pt->desired[u].present &= ~STATE_BIT(f);
                        state_copy_fields(&pt->desired[u], &units[u], STATE_BIT(f));
                }
                extras_note(&x, f, tx, &units[0]);
        }
        extras_put(pt, &x, released);
        return 0;
}

static int intent_build(struct txn_env *env, struct plan *ret, const struct layer *bv, unsigned bn,
                        const struct layer *av, unsigned an, const char *name, struct errbuf *e)
{
        struct target_list ifs = { 0 }, sws = { 0 };
        int r = all_targets(env, ret, &ifs, &sws, e);

        set_owners(ret, av, an);
        for (unsigned i = 0; r >= 0 && i < ifs.n; i++)
                r = add_intent_target(env, ret, &ifs.v[i], bv, bn, av, an, name, e);
        for (unsigned i = 0; r >= 0 && i < sws.n; i++)
                r = add_intent_target(env, ret, &sws.v[i], bv, bn, av, an, name, e);
        targets_free(&ifs);
        targets_free(&sws);
        return r;
}

int intent_back_plan(struct txn_env *env, const struct intent *now, const struct intent *then, struct plan *ret,
                     struct errbuf *e)
{
        return intent_build(env, ret, now->v, now->n, then->v, then->n, NULL, e);
}

int intent_plan(struct txn_env *env, const struct intent *in, struct plan *ret, struct errbuf *e)
{
        return intent_build(env, ret, in->v, in->n, in->v, in->n, NULL, e);
}

/* A field the agent configuration gives another system (external_owners): refused, the owner named. */
static int external_conflict(struct txn_env *env, const struct policy *p, const struct target *t, struct errbuf *e)
{
        uint32_t on = plan_fields_of(t);

        for (int f = 0; f < STATE_FIELD_MAX; f++) {
                const struct config_external_owner *o;

                if (!layer_declares(p, t->kind == TARGET_SWITCH, t->name, on, (enum state_field)f) ||
                    !(o = config_external_owner(env->config, t->kind, t->name, f)))
                        continue;
                return errbuf_set(e, EINVAL, NULL, "%s: field '%s' of %s '%s' is owned by '%s' (external_owners of "
                                  "the agent configuration): nettune reads it but never writes it; nothing was changed",
                                  LAYER_FIELD_OWNED, state_field_name(f), target_kind_name(t->kind), t->name,
                                  o->owner);
        }
        return 0;
}

/*
 * field_owned on field f of t: every committed layer that declares f there and that p
 * does not override (or that overrides p) must be listed in p's metadata.overrides,
 * not only the one that owns it now (first: the first such layer). The message names
 * the owner now and each of them.
 */
static int owned_error(const struct intent *in, const struct policy *p, const struct target *t, enum state_field f,
                       int first, struct errbuf *e)
{
        bool sw = t->kind == TARGET_SWITCH;
        uint32_t on = plan_fields_of(t);
        struct state *st = malloc(sizeof(*st));
        int owner[STATE_FIELD_MAX], o = first;
        char names[600] = "";
        size_t len = 0;
        unsigned n = 0;

        if (st) {
                layers_merge(in->v, in->n, sw, t->name, on, st, owner);
                if (owner[f] >= 0 && !streq(in->v[owner[f]].p->name, p->name))
                        o = owner[f];
                free(st);
        }
        for (unsigned i = 0; i < in->n && len < sizeof(names); i++) {
                const struct policy *x = in->v[i].p;

                if (streq(x->name, p->name) || !layer_declares(x, sw, t->name, on, f) || layer_overrides(p, x) ||
                    layer_overrides(x, p))
                        continue;
                len += (size_t)snprintf(names + len, sizeof(names) - len, "%s'%s'", n++ ? ", " : "", x->name);
        }
        if (n > 1 || !streq(in->v[o].p->name, in->v[first].p->name))
                return errbuf_set(e, EINVAL, NULL, "%s: field '%s' of %s '%s' is owned by policy '%s' (revision %lld) "
                                  "and declared by %u committed layers it does not override (%s); list each of them "
                                  "in metadata.overrides to win over it; nothing was changed", LAYER_FIELD_OWNED,
                                  state_field_name(f), target_kind_name(t->kind), t->name, in->v[o].p->name,
                                  (long long)in->v[o].revision, n, names);
        return errbuf_set(e, EINVAL, NULL, "%s: field '%s' of %s '%s' is owned by policy '%s' (revision %lld); list '%s' "
                          "in metadata.overrides to win over it; nothing was changed", LAYER_FIELD_OWNED,
                          state_field_name(f), target_kind_name(t->kind), t->name, in->v[o].p->name,
                          (long long)in->v[o].revision, in->v[o].p->name);
}

int intent_conflict(struct txn_env *env, const struct intent *in, const struct policy *p, struct errbuf *e)
{
        struct plan scratch;
        struct target_list ifs = { 0 }, sws = { 0 };
        int r;

        txn_plan_init(env, &scratch);
        r = all_targets(env, &scratch, &ifs, &sws, e);
        for (unsigned k = 0; r >= 0 && k < 2; k++) {
                const struct target_list *l = k ? &sws : &ifs;

                for (unsigned i = 0; r >= 0 && i < l->n; i++) {
                        const struct target *t = &l->v[i];
                        enum state_field f;
                        int o;

                        r = external_conflict(env, p, t, e);
                        if (r < 0 || !layers_conflict(in->v, in->n, p, t->kind == TARGET_SWITCH, t->name,
                                                      plan_fields_of(t), &f, &o))
                                continue;
                        r = owned_error(in, p, t, f, o, e);
                }
        }
        targets_free(&ifs);
        targets_free(&sws);
        plan_free(&scratch);
        return r;
}

/* Can layers a and b never declare the same field of the same target? (no common field, or target kind) */
static bool disjoint(const struct policy *a, const struct policy *b)
{
        return !(a->spec.present & b->spec.present) || (!a->n_switches && !b->n_interfaces) ||
               (!a->n_interfaces && !b->n_switches);
}

bool intent_is_layered(const struct intent *in, const struct policy *p)
{
        int i = intent_find(in, p->name);
        bool apart = true;

        /* a new layer beside others it cannot touch: its own plan is the change */
        for (unsigned k = 0; k < in->n && apart; k++)
                apart = (int)k == i || disjoint(in->v[k].p, p);
        if (i < 0 && apart)
                return false;
        if (in->n > 1 || (in->n == 1 && i < 0))
                return true;
        /* the same layer alone: a change plan only when the new version releases something */
        return i >= 0 && ((in->v[i].p->spec.present & ~p->spec.present) ||
                          in->v[i].p->n_interfaces != p->n_interfaces || in->v[i].p->n_switches != p->n_switches ||
                          memcmp(in->v[i].p->interfaces, p->interfaces, sizeof(p->interfaces)) ||
                          memcmp(in->v[i].p->switches, p->switches, sizeof(p->switches)));
}

int intent_change_plan(struct txn_env *env, const struct intent *in, const char *name, const struct policy *p,
                       struct plan *ret, struct errbuf *e)
{
        struct layer *after = calloc(LAYERS_MAX, sizeof(*after));
        unsigned an = 0;
        int r;

        if (!after)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        if (p) {        /* a glob of the new version that matches nothing is refused, as without layers */
                struct target_list l = { 0 };

                r = targets_for_policy(&ret->env, p, &l, e);
                targets_free(&l);
                if (r < 0) {
                        free(after);
                        return r;
                }
        }
        intent_with(in, name, p, after, &an);
        r = intent_build(env, ret, in->v, in->n, after, an, name, e);
        snprintf(ret->policy, sizeof(ret->policy), "%s", name);
        if (p) {
                ret->lossless.active = true;
                ret->lossless.refuse = true;
                ret->lossless.roce_dscp = p->verify.dscp;
                ret->lossless.allow = p->checks_allow;
        }
        free(after);
        return r;
}

/* The member of a state's JSON a field's dotted name points at ("pfc.cable_length_m"); NULL when absent. */
static json_t *member(json_t *o, const char *dotted)
{
        char name[64];
        const char *dot;

        while (o && (dot = strchr(dotted, '.'))) {
                snprintf(name, sizeof(name), "%.*s", (int)(dot - dotted), dotted);
                o = json_object_get(o, name);
                dotted = dot + 1;
        }
        return o ? json_object_get(o, dotted) : NULL;
}

static int intent_unit_json(json_t *arr, const struct plan *p, const struct plan_target *pt, unsigned u)
{
        const char (*names)[STATE_NAME_MAX] = target_unit_names(&pt->t);
        json_auto_t *want = state_to_json(&pt->desired[u]), *live = state_to_json(&pt->live[u]);

        if (!want || !live)
                return -ENOMEM;
        for (int f = 0; f < STATE_FIELD_MAX; f++) {
                json_t *v, *l, *owner, *o;
                char key[STATE_NAME_MAX + 48];

                if (!(pt->desired[u].present & STATE_BIT(f)))
                        continue;
                v = member(want, state_field_name(f));
                l = (pt->live[u].present & STATE_BIT(f)) ? member(live, state_field_name(f)) : NULL;
                owner = plan_owner_json(p, pt, (enum state_field)f);
                snprintf(key, sizeof(key), "%s%s%s%s", names ? "ports." : "", names ? names[u] : "", names ? "." : "",
                         state_field_name(f));
                o = json_pack("{s:s, s:s, s:s, s:O?, s:O?, s:o?}", "target", pt->t.name, "kind",
                              target_kind_name(pt->t.kind), "key", key, "value", v, "live", l, "owner", owner);
                if (!o || json_array_append_new(arr, o) < 0)
                        return -ENOMEM;
        }
        return 0;
}

json_t *intent_to_json(const struct plan *p)
{
        json_t *arr = json_array();
        int r = arr ? 0 : -ENOMEM;

        for (unsigned i = 0; r >= 0 && i < p->n; i++)
                for (unsigned u = 0; r >= 0 && u < p->v[i].n_units; u++)
                        r = intent_unit_json(arr, p, &p->v[i], u);
        if (r < 0) {
                json_decref(arr);
                return NULL;
        }
        return arr;
}

json_t *intent_layers_json(const struct intent *in)
{
        json_t *arr = json_array();

        for (unsigned i = 0; arr && i < in->n; i++)
                if (json_array_append_new(arr, json_pack("{s:s, s:I}", "policy", in->v[i].p->name, "revision",
                                                         (json_int_t)in->v[i].revision)) < 0) {
                        json_decref(arr);
                        return NULL;
                }
        return arr;
}

int intent_read(struct txn_env *env, struct plan *ret, json_t **ret_doc, struct errbuf *e)
{
        struct intent in;
        json_t *fields = NULL, *layers = NULL;
        int r;

        txn_plan_init(env, ret);
        r = intent_load(env->journal, &in, e);
        if (r >= 0)
                r = intent_plan(env, &in, ret, e);
        if (r >= 0)
                r = plan_read(ret, e);
        plan_close(ret);
        if (r >= 0 && (!(fields = intent_to_json(ret)) || !(layers = intent_layers_json(&in))))
                r = errbuf_set(e, ENOMEM, NULL, "out of memory");
        if (r >= 0 && !(*ret_doc = json_pack("{s:o, s:o}", "layers", layers, "fields", fields)))
                r = errbuf_set(e, ENOMEM, NULL, "out of memory");
        else if (r < 0) {
                json_decref(fields);
                json_decref(layers);
        }
        intent_free(&in);
        return r;
}

int txn_plan_policy(struct txn_env *env, const struct policy *p, struct plan *ret, struct errbuf *e)
{
        struct intent in;
        int r;

        txn_plan_init(env, ret);
        memset(&in, 0, sizeof(in));
        r = env->journal ? intent_load(env->journal, &in, e) : 0;
        if (r >= 0)
                r = intent_conflict(env, &in, p, e);
        if (r >= 0)
                r = intent_is_layered(&in, p) ? intent_change_plan(env, &in, p->name, p, ret, e)
                                              : plan_for_policy(ret, p, 0, e);
        intent_free(&in);
        return r;
}
