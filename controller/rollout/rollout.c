/* SPDX-License-Identifier: MIT */
/* Wave planning and failure-budget arithmetic; a new rollout record planned. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <time.h>

#include "controller/rollout/rollout.h"
#include "policies/policy.h"

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

unsigned rollout_plan(const struct rollout_opts *o, unsigned n, unsigned *ret_wave)
{
        unsigned canary = o->canary < n ? o->canary : n;
        unsigned size = rollout_wave_size(o->wave_size, n);
        unsigned wave = 0, in_wave = 0;

        if (n == 0)
                return 0;
        for (unsigned i = 0; i < canary; i++)
                ret_wave[i] = 0;
        if (canary > 0 && canary < n)
                wave = 1;
        for (unsigned i = canary; i < n; i++) {
                if (in_wave == size) {
                        wave++;
                        in_wave = 0;
                }
                ret_wave[i] = wave;
                in_wave++;
        }
        return wave + 1;
}

bool rollout_should_halt(const struct rollout_opts *o, unsigned n_selected, bool canary_wave,
                         unsigned failed_in_wave, unsigned failed_total)
{
        if (canary_wave && failed_in_wave > 0)
                return true;
        return failed_total > rollout_budget(o->max_unavailable, n_selected);
}

struct rollout_rec *rollout_rec_new(const char *kind, const char *policy_name, const char *doc,
                                    const char *args, const struct rollout_opts *o,
                                    const struct inventory_node *const *nodes, unsigned n)
{
        struct rollout_rec *r = calloc(1, sizeof(*r));
        unsigned *wave = calloc(n + 1, sizeof(*wave));

        if (!r || !wave)
                goto fail;
        snprintf(r->kind, sizeof(r->kind), "%s", kind);
        snprintf(r->policy_name, sizeof(r->policy_name), "%s", policy_name);
        r->policy_doc = doc ? strdup(doc) : NULL;
        r->args = args ? strdup(args) : NULL;
        r->opts = *o;
        r->state = ROLLOUT_RUNNING;
        r->created_at = r->updated_at = (long long)time(NULL);
        r->exit_code = -1;
        r->n_waves = rollout_plan(o, n, wave);
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
                x->exit_code = -1;
                x->baseline_gbps = x->post_gbps = NAN;
                x->pre_rev = -1;
        }
        free(wave);
        return r;
fail:
        free(wave);
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
