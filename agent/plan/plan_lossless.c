/* SPDX-License-Identifier: MIT */
/*
 * The plan's lossless check (plan.h): each unit of each target judged by the
 * lossless rules (policies/policy/lossless.h) as it is and as the change would leave it
 * — live state with the policy's fields put over it as applying them would
 * (state_merge: whole fields, ecn and host_ecn by their listed queues and
 * priorities). What the change would break is refused before anything is
 * touched; what was broken already is said in a note, one per rule.
 */
#include <stdarg.h>

#include "agent/plan/plan_internal.h"
#include "policies/state/field.h"

/* The notes the check leaves for the plan. */
struct notes {
        char (*v)[PLAN_NOTE_MAX];
        unsigned max, n;
};

static void note(struct notes *n, const char *fmt, ...) _printf_(2, 3);
static void note(struct notes *n, const char *fmt, ...)
{
        va_list ap;

        if (n->n >= n->max)
                return;
        va_start(ap, fmt);
        vsnprintf(n->v[n->n++], PLAN_NOTE_MAX, fmt, ap);
        va_end(ap);
}

struct already {
        unsigned n_targets;             /* targets already breaking this rule */
        char first[PLAN_NOTE_MAX];      /* "interface 'vA': PATH: MSG" of the first */
};

/* "interface 'vA'" or "switch 'leaf1' port 'swp1'". */
static const char *unit_name(const struct plan_target *pt, unsigned u, char *buf, size_t size)
{
        const char (*ports)[STATE_NAME_MAX] = target_unit_names(&pt->t);

        if (ports)
                snprintf(buf, size, "switch '%s' port '%s'", pt->t.name, ports[u]);
        else
                snprintf(buf, size, "%s '%s'", target_kind_name(pt->t.kind), pt->t.name);
        return buf;
}

static void ctx_of(const struct plan *p, uint32_t declared, struct lossless_ctx *ret)
{
        *ret = (struct lossless_ctx){ .document = false, .declared = declared, .roce_dscp = p->lossless.roce_dscp,
                                      .roce_dscp_path = "$.verify.dscp", .allow = p->lossless.allow };
}

/* The first violation of `merged` that `live` does not have: what the change breaks. */
static const struct lossless_violation *broken_by(const struct lossless_report *live,
                                                  const struct lossless_report *merged)
{
        for (unsigned i = 0; i < merged->n; i++)
                if (!lossless_has(live, merged->v[i].code, merged->v[i].key))
                        return &merged->v[i];
        return NULL;
}

/* Remember a rule the unit breaks already (and still does after the change), once per rule and unit. */
static void remember(struct already *a, const struct lossless_report *live, const struct lossless_report *merged,
                     const char *unit)
{
        bool counted[LOSSLESS_CODE_MAX] = { false };

        for (unsigned i = 0; i < live->n; i++) {
                const struct lossless_violation *v = &live->v[i];

                if (!lossless_has(merged, v->code, v->key) || counted[v->code])
                        continue;
                counted[v->code] = true;
                if (!a[v->code].n_targets++)
                        snprintf(a[v->code].first, sizeof(a[v->code].first), "%s: %s: %s", unit, v->where, v->msg);
        }
}

static int check_unit(const struct plan *p, const struct plan_target *pt, unsigned u, struct lossless_report *rl,
                      struct lossless_report *rm, struct already *a, struct notes *n, struct errbuf *e)
{
        const struct lossless_violation *v;
        struct lossless_ctx cl, cm;
        struct state live = pt->live[u], merged = pt->live[u];
        uint32_t declared = pt->desired[u].present & pt->want;
        char unit[2 * STATE_NAME_MAX + 32];

        if (!live.present)
                return 0;
        state_merge(&merged, &pt->desired[u], pt->want);
        /* the RoCE DSCP is the policy's roce_tos, else its verify.dscp: a device's own default is doctor's */
        if (!(declared & STATE_BIT(STATE_FIELD_ROCE_TOS))) {
                live.present &= ~STATE_BIT(STATE_FIELD_ROCE_TOS);
                merged.present &= ~STATE_BIT(STATE_FIELD_ROCE_TOS);
        }
        ctx_of(p, 0, &cl);
        ctx_of(p, declared, &cm);
        lossless_check(&live, &cl, rl);
        lossless_check(&merged, &cm, rm);
        unit_name(pt, u, unit, sizeof(unit));
        v = broken_by(rl, rm);
        if (v && p->lossless.refuse)
                return errbuf_set(e, EINVAL, NULL, "%s: %s: %s (a policy that means it lists '%s' in "
                                  "$.checks.allow); nothing was changed", unit, v->where, v->msg,
                                  lossless_code_name(v->code));
        if (v)
                note(n, "lossless class: %s: %s: %s (not refused: the way back)", unit, v->where, v->msg);
        remember(a, rl, rm, unit);
        return 0;
}

static void note_already(struct notes *n, const struct already *a)
{
        for (unsigned c = 0; c < LOSSLESS_CODE_MAX; c++) {
                if (!a[c].n_targets)
                        continue;
                if (a[c].n_targets == 1)
                        note(n, "lossless class, so before this change already: %s", a[c].first);
                else
                        note(n, "lossless class, so before this change already in %u places, the first: %s",
                             a[c].n_targets, a[c].first);
        }
}

int plan_lossless_check(const struct plan *p, char (*notes)[PLAN_NOTE_MAX], unsigned max, unsigned *ret_n,
                        struct errbuf *e)
{
        struct lossless_report *rl = malloc(sizeof(*rl)), *rm = malloc(sizeof(*rm));
        struct already a[LOSSLESS_CODE_MAX] = { { 0 } };
        struct notes n = { notes, max, 0 };
        int r = 0;

        if (!rl || !rm)
                r = errbuf_set(e, ENOMEM, NULL, "out of memory");
        for (unsigned i = 0; r >= 0 && p->lossless.active && i < p->n; i++)
                for (unsigned u = 0; r >= 0 && u < p->v[i].n_units; u++)
                        r = check_unit(p, &p->v[i], u, rl, rm, a, &n, e);
        if (r >= 0)
                note_already(&n, a);
        *ret_n = r >= 0 ? n.n : 0;
        free(rl);
        free(rm);
        return r;
}
