/* SPDX-License-Identifier: MIT */
/* Wave planning and failure-budget arithmetic; a new rollout record planned. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "controller/rollout/rollout.h"
#include "policies/policy/policy.h"

int rollout_count_parse(const char *s, struct rollout_count *ret)
{
        unsigned long v;
        char *end;

        if (!s || !*s || *s < '0' || *s > '9')
                return -EINVAL;
        errno = 0;
        v = strtoul(s, &end, 10);
        if (errno || v > 100000)
                return -ERANGE;
        if (streq(end, "%")) {
                if (v > 100)
                        return -ERANGE;
                *ret = (struct rollout_count) { .value = (unsigned)v, .pct = true };
                return 0;
        }
        if (*end)
                return -EINVAL;
        *ret = (struct rollout_count) { .value = (unsigned)v, .pct = false };
        return 0;
}

const char *rollout_count_str(struct rollout_count c, char *buf, unsigned size)
{
        snprintf(buf, size, "%u%s", c.value, c.pct ? "%" : "");
        return buf;
}

unsigned rollout_wave_size(struct rollout_count c, unsigned n)
{
        unsigned long long v = c.pct ? ((unsigned long long)c.value * n + 99) / 100 : c.value;

        return v == 0 ? 1 : (unsigned)(v > UINT_MAX ? UINT_MAX : v);
}

unsigned rollout_budget(struct rollout_count c, unsigned n)
{
        if (c.pct)
                return (unsigned)((unsigned long long)c.value * n / 100);
        return c.value;
}

/* ---- waves from labels: the canary by selector, waves within groups ---- */

/* Does node carry every K=V of the selector "K=V[,K=V...]"? ("" selects nothing.) */
static bool selector_matches(const char *sel, const struct inventory_node *node)
{
        char buf[STORE_SELECTOR_MAX], *save = NULL;
        bool any = false;

        snprintf(buf, sizeof(buf), "%s", sel);
        for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save)) {
                char *eq = strchr(kv, '=');

                if (!eq)
                        return false;
                *eq = '\0';
                if (!inventory_node_has_label(node, kv, eq + 1))
                        return false;
                any = true;
        }
        return any;
}

/* The node's value of label key, or NULL. */
static const char *label_of(const struct inventory_node *node, const char *key)
{
        for (unsigned i = 0; i < node->n_labels; i++)
                if (streq(node->labels[i].key, key))
                        return node->labels[i].value;
        return NULL;
}

int rollout_selector_parse(const char *s, struct errbuf *e)
{
        char buf[STORE_SELECTOR_MAX], *save = NULL;
        unsigned n = 0;

        if (!s || !*s || strlen(s) >= sizeof(buf))
                return errbuf_set(e, EINVAL, "--canary-selector", "'%.80s': expected KEY=VALUE[,KEY=VALUE...] "
                                  "(at most %zu characters)", s ? s : "", sizeof(buf) - 1);
        snprintf(buf, sizeof(buf), "%s", s);
        for (char *kv = strtok_r(buf, ",", &save); kv; kv = strtok_r(NULL, ",", &save), n++) {
                char *eq = strchr(kv, '=');

                if (!eq || eq == kv || !eq[1] || strchr(eq + 1, '='))
                        return errbuf_set(e, EINVAL, "--canary-selector", "'%.80s': '%.60s' is not KEY=VALUE", s, kv);
        }
        return n > 0 ? 0 : errbuf_set(e, EINVAL, "--canary-selector", "'%.80s': expected KEY=VALUE", s);
}

int rollout_plan_check(const struct rollout_opts *o, const struct inventory_node *const *nodes, unsigned n,
                       struct errbuf *e)
{
        char missing[200] = "";
        unsigned k = 0, none = 0;

        for (unsigned i = 0; o->canary_selector[0] && i < n; i++)
                k += selector_matches(o->canary_selector, nodes[i]);
        if (o->canary_selector[0] && o->canary == 0)
                return errbuf_set(e, EINVAL, "--canary-selector", "'%s' picks the canary, but --canary 0 asks for none",
                                  o->canary_selector);
        if (o->canary_selector[0] && k == 0)
                return errbuf_set(e, EINVAL, "--canary-selector", "'%s' matches none of the %u selected node%s",
                                  o->canary_selector, n, n == 1 ? "" : "s");
        for (unsigned i = 0; o->wave_by[0] && i < n; i++) {
                size_t len = strlen(missing);

                if (label_of(nodes[i], o->wave_by))
                        continue;
                if (none++ < 5 && len + 70 < sizeof(missing))
                        snprintf(missing + len, sizeof(missing) - len, "%s'%s'", len ? ", " : "", nodes[i]->name);
        }
        if (none)
                return errbuf_set(e, EINVAL, "--wave-by", "%u selected node%s no label '%s' (%s%s): every node "
                                  "of the rollout needs one", none, none == 1 ? " has" : "s have", o->wave_by, missing,
                                  none > 5 ? ", ..." : "");
        return 0;
}

/* Mark the canary nodes: the selector's (else the first ones), at most o->canary. Returns how many. */
static unsigned pick_canary(const struct rollout_opts *o, const struct inventory_node *const *nodes, unsigned n,
                            bool *is_canary)
{
        unsigned k = 0;

        for (unsigned i = 0; o->canary_selector[0] && i < n && k < o->canary; i++)
                if (selector_matches(o->canary_selector, nodes[i])) {
                        is_canary[i] = true;
                        k++;
                }
        /* none of them matches (an enforce rollout of a few drifted nodes): the first ones */
        for (unsigned i = 0; k == 0 && i < n && i < o->canary; i++)
                is_canary[i] = true;
        return k ? k : (o->canary < n ? o->canary : n);
}

/* Waves of one group: its nodes (in inventory order) in waves of --wave-size, a percentage of the group. */
static unsigned plan_group(const struct rollout_opts *o, const struct inventory_node *const *nodes, unsigned n,
                           const bool *is_canary, const char *group, unsigned size_of, unsigned wave, unsigned *ret_wave)
{
        unsigned size = rollout_wave_size(o->wave_size, size_of), in_wave = 0;

        for (unsigned i = 0; i < n; i++) {
                const char *v = o->wave_by[0] ? label_of(nodes[i], o->wave_by) : NULL;

                if (is_canary[i] || (group && !streq(v ? v : "", group)))
                        continue;
                if (in_wave == size) {
                        wave++;
                        in_wave = 0;
                }
                ret_wave[i] = wave;
                in_wave++;
        }
        return in_wave ? wave + 1 : wave;
}

unsigned rollout_plan_nodes(const struct rollout_opts *o, const struct inventory_node *const *nodes, unsigned n,
                            unsigned *ret_wave, char (*ret_group)[STORE_LABEL_MAX])
{
        bool *is_canary = calloc(n + 1, sizeof(*is_canary));
        unsigned canary, waves;

        if (!is_canary)
                return 0;
        canary = pick_canary(o, nodes, n, is_canary);
        for (unsigned i = 0; i < n; i++) {
                const char *v = o->wave_by[0] ? label_of(nodes[i], o->wave_by) : NULL;

                snprintf(ret_group[i], STORE_LABEL_MAX, "%s", v ? v : "");
                ret_wave[i] = 0;
        }
        waves = canary > 0 ? 1 : 0;
        if (!o->wave_by[0]) {
                waves = plan_group(o, nodes, n, is_canary, NULL, n, waves, ret_wave);
        } else {
                /* groups in the order their first node comes, each its own waves */
                for (unsigned i = 0; i < n; i++) {
                        unsigned size_of = 0;
                        bool first = !is_canary[i];

                        for (unsigned k = 0; first && k < i; k++)
                                first = is_canary[k] || !streq(ret_group[k], ret_group[i]);
                        if (!first)
                                continue;
                        for (unsigned k = 0; k < n; k++)
                                size_of += streq(ret_group[k], ret_group[i]);
                        waves = plan_group(o, nodes, n, is_canary, ret_group[i], size_of, waves, ret_wave);
                }
        }
        free(is_canary);
        return waves ? waves : n > 0;
}

bool rollout_over_budget(const struct rollout_rec *r, unsigned w)
{
        unsigned failed = 0, in_wave = 0;

        for (unsigned i = 0; i < r->n_nodes; i++) {
                bool f = rollout_failed_state(r->nodes[i].state);

                failed += f;
                in_wave += f && r->nodes[i].wave == w;
        }
        if (w == 0 && r->opts.canary > 0 && in_wave > 0)
                return true;                            /* the canary: any failure */
        if (!r->opts.wave_by[0])
                return failed > rollout_budget(r->opts.max_unavailable, r->n_nodes);
        /* per group: the failures of each against its own budget */
        for (unsigned i = 0; i < r->n_nodes; i++) {
                unsigned size_of = 0, f = 0;

                for (unsigned k = 0; k < r->n_nodes; k++)
                        if (streq(r->nodes[k].group, r->nodes[i].group)) {
                                size_of++;
                                f += rollout_failed_state(r->nodes[k].state);
                        }
                if (f > rollout_budget(r->opts.max_unavailable, size_of))
                        return true;
        }
        return false;
}

bool rollout_failed_state(enum rnode_state s)
{
        return s == RNODE_FAILED || s == RNODE_UNREACHABLE || s == RNODE_UNKNOWN || s == RNODE_REVERTED;
}

struct rollout_rec *rollout_rec_new(const char *kind, const char *policy_name, const char *doc,
                                    const char *args, const struct rollout_opts *o,
                                    const struct inventory_node *const *nodes, unsigned n)
{
        struct rollout_rec *r = calloc(1, sizeof(*r));
        unsigned *wave = calloc(n + 1, sizeof(*wave));
        char (*group)[STORE_LABEL_MAX] = calloc(n + 1, sizeof(*group));

        if (!r || !wave || !group)
                goto fail;
        snprintf(r->kind, sizeof(r->kind), "%s", kind);
        snprintf(r->policy_name, sizeof(r->policy_name), "%s", policy_name);
        r->policy_doc = doc ? strdup(doc) : NULL;
        r->args = args ? strdup(args) : NULL;
        r->opts = *o;
        r->state = ROLLOUT_RUNNING;
        r->created_at = r->updated_at = (long long)time(NULL);
        r->exit_code = -1;
        r->n_waves = rollout_plan_nodes(o, nodes, n, wave, group);
        r->nodes = calloc(n + 1, sizeof(*r->nodes));
        r->waves = calloc(r->n_waves + 1, sizeof(*r->waves));
        if ((doc && !r->policy_doc) || (args && !r->args) || !r->nodes || !r->waves)
                goto fail;
        r->n_nodes = n;
        for (unsigned i = 0; i < n; i++) {
                struct rnode *x = &r->nodes[i];

                snprintf(x->name, sizeof(x->name), "%s", nodes[i]->name);
                snprintf(x->url, sizeof(x->url), "%s", nodes[i]->url);
                x->wave = wave[i];
                memcpy(x->group, group[i], sizeof(x->group));
                x->exit_code = -1;
                x->baseline_gbps = x->post_gbps = NAN;
                x->pre_rev = -1;
        }
        free(wave);
        free(group);
        return r;
fail:
        free(wave);
        free(group);
        rollout_rec_free(r);
        return NULL;
}

#define POLICY_POST_RETRIES 2           /* agent/txn: TXN_LOAD_RETRIES post-change measurements more when inconclusive */
#define MEASURE_MARGIN_MS 2000ULL       /* per measurement: connections, verbs setup, the responder's handshake */
#define DEVICE_MARGIN_MS 10000ULL       /* the devices: netlink, DCB, a switch's CLI */

unsigned long long rollout_policy_time_ms(const char *doc)
{
        struct policy *p = NULL;
        struct errbuf e = { 0 };
        unsigned long long t = DEVICE_MARGIN_MS, measurements;

        if (!doc || policy_parse_buffer(doc, strlen(doc), "policy", &p, &e) < 0)
                return t;
        /* agent/txn settles and measures only for a policy that measures */
        if (p->verify.present && p->verify.probe != POLICY_PROBE_NONE) {
                t += p->verify.settle_ms;
                measurements = 2 + (p->verify.on_inconclusive == POLICY_INCONCLUSIVE_RETRY ? POLICY_POST_RETRIES : 0);
                t += measurements * ((unsigned long long)p->verify.duration_ms * (p->verify.runs ? p->verify.runs : 1) +
                                     MEASURE_MARGIN_MS);
        }
        policy_free(p);
        return t;
}

unsigned rollout_apply_timeout_ms(const char *doc, unsigned timeout_s)
{
        unsigned long long floor = rollout_policy_time_ms(doc), t = timeout_s * 1000ULL;

        t = t > floor ? t : floor;
        return t > UINT_MAX ? UINT_MAX : (unsigned)t;
}

json_t *rollout_parts_load(const struct rollout_rec *r)
{
        json_t *j = r->args && (streq(r->kind, "apply") || streq(r->kind, "enforce")) ? json_loads(r->args, 0, NULL)
                                                                                       : NULL;

        if (!json_is_array(json_object_get(j, "docs")) || !json_is_object(json_object_get(j, "node_doc"))) {
                json_decref(j);
                return NULL;
        }
        return j;
}

const char *rollout_node_doc(const struct rollout_rec *r, const json_t *parts, const char *node)
{
        const json_t *i = json_object_get(json_object_get(parts, "node_doc"), node);
        const char *doc = json_string_value(json_array_get(json_object_get(parts, "docs"),
                                                           (size_t)json_integer_value(i)));

        return i && doc ? doc : r->policy_doc;
}
