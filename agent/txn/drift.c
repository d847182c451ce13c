/* SPDX-License-Identifier: MIT */
/* Drift: the live state against the node's intent, the merge of its committed layers; enforcement of it. */
#include "agent/txn/txn.h"
#include "agent/txn/txn_internal.h"
#include "policies/doctor/doctor.h"

int drift_check(struct txn_env *env, struct plan *ret, struct errbuf *e)
{
        struct intent in;
        int r;

        txn_plan_init(env, ret);
        r = intent_load(env->journal, &in, e);
        if (r >= 0 && !in.n)
                r = errbuf_set(e, ENOENT, NULL, "no committed policy to compare with");
        if (r >= 0)
                r = intent_plan(env, &in, ret, e);
        if (r >= 0)
                r = plan_read(ret, e);
        plan_close(ret);
        intent_free(&in);
        return r < 0 ? r : (int)ret->n_changes;
}

/* Fields a second writer holds leave the enforcement's plan: not read, compared or written. */
static int leave_second_writers(struct txn_env *env, struct plan *p, struct errbuf *e)
{
        struct second_writer *w = calloc(SECOND_WRITERS_MAX, sizeof(*w));
        int n = w ? second_writers_find(env->journal, env->config, w, SECOND_WRITERS_MAX, e) : -ENOMEM;

        for (int i = 0; i < n; i++)
                for (unsigned t = 0; t < p->n; t++) {
                        struct plan_target *pt = &p->v[t];

                        if (!streq(pt->t.name, w[i].target))
                                continue;
                        pt->want &= ~STATE_BIT(w[i].field);
                        for (unsigned u = 0; u < pt->n_units; u++)
                                pt->desired[u].present &= ~STATE_BIT(w[i].field);
                }
        free(w);
        return n < 0 ? n : 0;
}

int txn_enforce(struct txn_env *env, struct txn_result *ret)
{
        _cleanup_free_ char *json = NULL;
        struct intent in;
        struct plan plan;
        int r;

        txn_plan_init(env, &plan);
        r = intent_load(env->journal, &in, &ret->error);
        if (r >= 0 && !in.n)
                r = errbuf_set(&ret->error, ENOENT, NULL, "no committed policy to enforce");
        /* the revision an enforcement records keeps the newest committed policy, as before layers */
        if (r >= 0)
                r = journal_revision(env->journal, 0, NULL, NULL, &json, &ret->error);
        if (r >= 0)
                r = intent_plan(env, &in, &plan, &ret->error);
        if (r >= 0)
                r = leave_second_writers(env, &plan, &ret->error);
        if (r >= 0)
                r = txn_run(env, &(struct txn_request){ .kind = "enforce", .expect_revision = -1 }, json, NULL, 0,
                            &plan, ret);
        else
                txn_finish(ret, TXN_PLANNED, outcome_of_errno(r), "refused");
        plan_free(&plan);
        intent_free(&in);
        return r;
}

/* ---- second writers: fields enforcement keeps restoring ---- */

static struct second_writer *writer_of(struct second_writer *v, unsigned *n, unsigned max, const char *target,
                                       int field)
{
        for (unsigned i = 0; i < *n; i++)
                if ((int)v[i].field == field && streq(v[i].target, target))
                        return &v[i];
        if (*n >= max)
                return NULL;
        memset(&v[*n], 0, sizeof(v[*n]));
        snprintf(v[*n].target, sizeof(v[*n].target), "%s", target);
        v[*n].field = (enum state_field)field;
        return &v[(*n)++];
}

static void add_value(struct second_writer *w, const json_t *from)
{
        char *s = json_dumps(from, JSON_ENCODE_ANY | JSON_COMPACT);

        for (unsigned i = 0; s && i < w->n_values; i++)
                if (streq(w->values[i], s)) {
                        free(s);
                        return;
                }
        if (s && w->n_values < SECOND_WRITER_VALUES_MAX)
                snprintf(w->values[w->n_values++], sizeof(w->values[0]), "%s", s);
        free(s);
}

int second_writers_find(struct journal *j, const struct agent_config *c, struct second_writer *ret, unsigned max,
                        struct errbuf *e)
{
        unsigned need = c->second_writer_restores ? c->second_writer_restores : SECOND_WRITER_RESTORES;
        int64_t window_ms = 1000 * (int64_t)(c->second_writer_window_s ? c->second_writer_window_s
                                                                       : SECOND_WRITER_WINDOW_S);
        struct journal_enforcement *v = NULL;
        struct second_writer *all;
        unsigned n = 0, n_all = 0, found = 0;
        int r = journal_enforcements(j, &v, &n, e);

        if (r < 0)
                return r;
        all = calloc(SECOND_WRITERS_MAX * 4, sizeof(*all));
        for (unsigned i = 0; all && i < n; i++) {
                json_t *changes = v[i].changes_json ? json_loads(v[i].changes_json, 0, NULL) : NULL;
                json_t *ch;
                size_t k;

                json_array_foreach(changes, k, ch) {
                        const char *t = json_string_value(json_object_get(ch, "target"));
                        int f = state_field_from_name(json_string_value(json_object_get(ch, "field")) ?: "");
                        struct second_writer *w = t && f >= 0 ? writer_of(all, &n_all, SECOND_WRITERS_MAX * 4, t, f)
                                                              : NULL;

                        if (!w)
                                continue;
                        add_value(w, json_object_get(ch, "from"));
                        if (w->times && w->at_ms[(w->times - 1) % SECOND_WRITER_TIMES_MAX] == v[i].at_ms)
                                continue;       /* one restore per transaction */
                        w->at_ms[w->times % SECOND_WRITER_TIMES_MAX] = v[i].at_ms;
                        w->times++;
                        if (!w->first_ms)
                                w->first_ms = v[i].at_ms;
                        w->last_ms = v[i].at_ms;
                        /* `need` restores within the window: the newest need of them, in the ring */
                        if (w->times >= need &&
                            v[i].at_ms - w->at_ms[(w->times - need) % SECOND_WRITER_TIMES_MAX] <= window_ms)
                                w->detected = true;
                }
                json_decref(changes);
        }
        for (unsigned i = 0; all && i < n_all && found < max; i++)
                if (all[i].detected)
                        ret[found++] = all[i];
        free(all);
        journal_enforcements_free(v, n);
        return (int)found;
}

json_t *second_writers_json(const struct second_writer *v, unsigned n)
{
        json_t *arr = json_array();

        for (unsigned i = 0; arr && i < n; i++) {
                json_t *vals = json_array();

                for (unsigned k = 0; vals && k < v[i].n_values; k++)
                        json_array_append_new(vals, json_loads(v[i].values[k], JSON_DECODE_ANY, NULL));
                json_array_append_new(arr, json_pack("{s:s, s:s, s:s, s:i, s:o, s:I, s:I}", "code", "second_writer",
                                                     "target", v[i].target, "field", state_field_name(v[i].field),
                                                     "times", (int)v[i].times, "values_seen", vals, "first_ms",
                                                     (json_int_t)v[i].first_ms, "last_ms", (json_int_t)v[i].last_ms));
        }
        return arr;
}

unsigned second_writers_doctor(struct journal *j, const struct agent_config *c, struct doctor_second_writer *ret,
                               unsigned max)
{
        struct second_writer *w = j ? calloc(SECOND_WRITERS_MAX, sizeof(*w)) : NULL;
        int n = w ? second_writers_find(j, c, w, SECOND_WRITERS_MAX, NULL) : 0;
        unsigned k = 0;

        for (int i = 0; i < n && k < max; i++, k++) {
                size_t len = 0;

                ret[k] = (struct doctor_second_writer){ .times = w[i].times };
                snprintf(ret[k].target, sizeof(ret[k].target), "%s", w[i].target);
                snprintf(ret[k].field, sizeof(ret[k].field), "%s", state_field_name(w[i].field));
                for (unsigned v = 0; v < w[i].n_values && len < sizeof(ret[k].values); v++)
                        len += (size_t)snprintf(ret[k].values + len, sizeof(ret[k].values) - len, "%s%s",
                                                v ? ", " : "", w[i].values[v]);
        }
        free(w);
        return k;
}
