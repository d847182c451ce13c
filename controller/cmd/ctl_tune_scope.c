/* SPDX-License-Identifier: MIT */
/*
 * What `nettunectl tune` changes and measures, resolved before anything is changed:
 * the pattern's nodes (the selector), the scope (the switch's managing node and the
 * ports under test, or the canary hosts), the values there now (the agents' doctor
 * facts, read only), the winner's selector, and the ceiling when it is the port rate.
 */
#include <fnmatch.h>
#include <math.h>

#include "common/log.h"
#include "controller/cmd/ctl_internal.h"
#include "policies/doctor/doctor.h"

#define TUNE_ECN_PROBABILITY_PCT 10     /* RED's ramp peaks at 10% at max = 10 x min (docs/operations.md) */

/* Only KEY=VALUE selectors, one each: the winner policy of tune dcqcn carries them as labels. */
static bool selectors_plain(const struct tune_args *a)
{
        for (unsigned i = 0; i < a->n_selector; i++)
                if (!inventory_selector_plain(a->selector[i]) || strpbrk(a->selector[i], ", \t") ||
                    strstr(a->selector[i], "=="))
                        return false;
        return true;
}

int ctl_tune_check_args(struct tune_args *a)
{
        struct tune *t = &a->t;
        const char *bad = NULL;

        if (t->kind == TUNE_ECN) {
                bad = !a->sw ? "tune ecn needs --switch NAME" : !a->queue_given ? "tune ecn needs --queue Q"
                      : a->param || a->interfaces || a->canary ? "--param, --interfaces and --canary are for tune dcqcn"
                      : NULL;
                snprintf(t->subject, sizeof(t->subject), "%s", a->sw ? a->sw : "");
                if (!t->probability_pct)
                        t->probability_pct = TUNE_ECN_PROBABILITY_PCT;
        } else {
                t->param = a->param ? state_dcqcn_from_name(a->param) : -1;
                bad = t->param < 0 ? "tune dcqcn needs --param NAME, one of spec.host_ecn.dcqcn's (rp_ai_rate, ...)"
                      : !a->interfaces ? "tune dcqcn needs --interfaces GLOB (the hosts' NICs)"
                      : !a->n_selector ? "tune dcqcn needs --selector KEY=VALUE (the canary hosts)"
                      : !selectors_plain(a) ? "tune dcqcn: the winner policy selects by --selector: give each as "
                        "one KEY=VALUE (repeat --selector for more)"
                      : a->sw || a->queue_given || a->ports || t->probability_pct
                        ? "--switch, --queue, --ports and --probability-pct are for tune ecn" : NULL;
                if (!bad && !isfinite(t->ceiling_gbps))
                        a->ceiling_port = true;         /* no marking to take out of the way on a NIC */
                snprintf(t->subject, sizeof(t->subject), "%s", a->param ? a->param : "");
                snprintf(t->interfaces, sizeof(t->interfaces), "%s", a->interfaces ? a->interfaces : "");
        }
        if (!bad && a->receiver && t->pattern.pattern != FABRIC_INCAST)
                bad = "--receiver is for --pattern incast";
        if (!bad && a->keep && !a->out)
                bad = "--keep keeps the winner on the scope; give --out POLICY too, for the rest of the fleet";
        if (bad) {
                log_err("tune: %s; nothing was changed", bad);
                return -EINVAL;
        }
        t->confirm_timeout_s = a->confirm_timeout_s;
        if (a->confirm_timeout_s && a->confirm_timeout_s < t->runs * (t->pattern.duration_ms / 1000 + 10) + 20) {
                log_err("tune: --confirm-timeout %u is shorter than a trial's measurement may take (%u runs of %u ms, "
                        "each with its lead, answers and a margin of 10 s, and 20 s for the change itself: at least "
                        "%u s); nothing was changed", a->confirm_timeout_s, t->runs, t->pattern.duration_ms,
                        t->runs * (t->pattern.duration_ms / 1000 + 10) + 20);
                return -EINVAL;
        }
        return 0;
}

static bool in_scope(const struct tune_args *a, const struct inventory_node *n)
{
        for (unsigned i = 0; i < a->n_scope; i++)
                if (a->scope[i] == n)
                        return true;
        return false;
}

/* The selected nodes but the scope (ECN: the switch does not send), the incast receiver resolved. */
static int pattern_nodes(struct ctl *c, struct tune_args *a, struct errbuf *e)
{
        struct tune *t = &a->t;
        bool found = !a->receiver;

        a->pattern = calloc(c->inv->n_nodes + 1, sizeof(*a->pattern));
        if (!a->pattern)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        for (unsigned i = 0; i < c->inv->n_nodes && a->n_pattern < FABRIC_NODES_MAX; i++) {
                const struct inventory_node *n = &c->inv->nodes[i];

                if (!ctl_labels_match(a->selector, a->n_selector, n) || (t->kind == TUNE_ECN && in_scope(a, n)))
                        continue;
                if (a->receiver && streq(a->receiver, n->name)) {
                        t->pattern.receiver = a->n_pattern;
                        found = true;
                }
                if (a->n_pattern < TUNE_SCOPE_MAX)
                        snprintf(t->pattern_nodes[a->n_pattern], INVENTORY_NAME_MAX, "%s", n->name);
                a->pattern[a->n_pattern++] = n;
        }
        t->n_pattern = a->n_pattern;
        if (a->n_pattern < 2)
                return errbuf_set(e, EINVAL, NULL, "the pattern needs 2 nodes at least, the selector leaves %u",
                                  a->n_pattern);
        if (!found)
                return errbuf_set(e, EINVAL, NULL, "--receiver '%s' is not one of the pattern's %u nodes", a->receiver,
                                  a->n_pattern);
        return 0;
}

static const struct state_ecn_queue *queue_of(const struct state *st, unsigned q)
{
        return state_has(st, STATE_FIELD_ECN) && (st->ecn.queues & (1u << q)) ? &st->ecn.q[q] : NULL;
}

/*
 * A port under test: whether the queue carries one of its PFC priorities (a lossless
 * queue: the lossless class keeps its marking on), and the lowest rate of the ports
 * (its shaper where that is lower than its speed), for doctor's floor.
 */
static void port_facts(struct tune *t, const struct state *st, const struct doctor_link *l)
{
        uint32_t rate = l->shaper_mbps && (!l->speed_mbps || l->shaper_mbps < l->speed_mbps) ? l->shaper_mbps
                                                                                          : l->speed_mbps;

        for (unsigned p = 0; state_has(st, STATE_FIELD_PFC) && p < STATE_PRIO_COUNT; p++)
                if ((st->pfc_enabled & (1u << p)) &&
                    (state_has(st, STATE_FIELD_ETS) ? st->ets.prio_tc[p] % STATE_TC_COUNT : p) == t->queue)
                        t->lossless = true;
        if (rate && (!t->port_mbps || rate < t->port_mbps))
                t->port_mbps = rate;
}

/* --ports, or every port that marks ECN on the queue now; the first one's settings are the start. */
static int linux_ports(struct tune_args *a, const struct doctor_node *n, const struct state_ecn_queue **ret,
                       struct errbuf *e)
{
        struct tune *t = &a->t;

        for (unsigned i = 0; i < n->n_ifs && t->n_ports < TUNE_PORTS_MAX; i++) {
                const struct state_ecn_queue *q = queue_of(&n->ifs[i].st, t->queue);
                char list[512];
                bool listed;

                snprintf(list, sizeof(list), ",%s,", a->ports ? a->ports : "");
                listed = a->ports ? strstr(list, n->ifs[i].name) && strstr(list, n->ifs[i].name)[-1] == ','
                         : q && q->enabled;
                if (!listed)
                        continue;
                snprintf(t->ports[t->n_ports++], DOCTOR_NAME_MAX, "%s", n->ifs[i].name);
                port_facts(t, &n->ifs[i].st, &n->ifs[i].link);
                if (!*ret && q && q->enabled)
                        *ret = q;
        }
        if (!t->n_ports)
                return errbuf_set(e, ENOENT, NULL, "%s: %s", n->name,
                                  a->ports ? "none of --ports is one of its interfaces"
                                           : "no port marks ECN on that queue now; name the ports with --ports");
        return 0;
}

/* No node that answered manages sw: not found (-ENOENT), or not known when some did not answer (named). */
static int unanswered(const struct doctor_facts *f, const char *sw, struct errbuf *e)
{
        unsigned n = 0, first = 0;

        for (unsigned i = 0; i < f->n_nodes; i++)
                if (f->nodes[i].error[0] && n++ == 0)
                        first = i;
        if (!n)
                return errbuf_set(e, EINVAL, NULL, "no node of the inventory is switch '%s' or manages it", sw);
        return errbuf_set(e, EHOSTUNREACH, NULL, "no node that answered manages switch '%s'; %u did not answer, "
                           "%s first: %.200s", sw, n, f->nodes[first].name, f->nodes[first].error);
}

/* The node managing switch `sw` among the facts (*ret, node *ret_i): 0, or -errno when none or several. */
static int manager(const struct doctor_facts *f, const char *sw, const struct doctor_switch **ret, unsigned *ret_i,
                   struct errbuf *e)
{
        unsigned k = 0;

        *ret = NULL;
        for (unsigned i = 0; i < f->n_nodes; i++)
                for (unsigned s = 0; s < f->nodes[i].n_switches; s++)
                        if (streq(f->nodes[i].switches[s].name, sw) && k++ == 0) {
                                *ret = &f->nodes[i].switches[s];
                                *ret_i = i;
                        }
        if (!k)
                return unanswered(f, sw, e);
        if (k > 1)
                return errbuf_set(e, EINVAL, NULL, "switch '%s' is managed by %u agents; tune needs exactly one", sw, k);
        return 0;
}

static int remote_ports(struct tune_args *a, const struct doctor_switch *sw, const struct state_ecn_queue **ret,
                        struct errbuf *e)
{
        if (sw->error[0])
                return errbuf_set(e, EIO, NULL, "switch '%s' could not be read: %s", sw->name, sw->error);
        for (unsigned p = 0; p < sw->n_ports && a->t.n_ports < TUNE_PORTS_MAX; p++) {
                const struct state_ecn_queue *q = queue_of(&sw->ports[p].st, a->t.queue);

                snprintf(a->t.ports[a->t.n_ports++], DOCTOR_NAME_MAX, "%s", sw->ports[p].name);
                port_facts(&a->t, &sw->ports[p].st, &sw->ports[p].link);
                if (!*ret && q && q->enabled)
                        *ret = q;
        }
        return 0;
}

static void ecn_start(struct tune *t, const struct state_ecn_queue *q)
{
        t->baseline.value = q ? q->min_bytes : 0;
        t->baseline.max_bytes = q ? q->max_bytes : 0;
        t->baseline.probability_pct = q ? q->probability_pct : 0;
        t->search.o = (struct tune_search_opts){ .start = t->baseline.value, .floor = TUNE_ECN_FLOOR_BYTES,
                                                 .ceiling = POLICY_ECN_BYTES_MAX / t->max_ratio, .growth = TUNE_GROWTH,
                                                 .resolution = TUNE_RESOLUTION, .max_trials = t->search.o.max_trials,
                                                 .quantum = 500 };
}

static int ecn_scope(struct ctl *c, struct tune_args *a, struct doctor_facts *f, struct errbuf *e)
{
        const struct inventory_node *node = inventory_find(c->inv, a->sw);
        const struct inventory_node **ask = node ? &node : NULL;
        const struct state_ecn_queue *q = NULL;
        const struct doctor_switch *sw;
        unsigned n = node ? 1 : c->inv->n_nodes, mi = 0;
        int r;

        if (!node && !(ask = calloc(n + 1, sizeof(*ask))))
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        for (unsigned i = 0; !node && i < n; i++)
                ask[i] = &c->inv->nodes[i];
        r = ctl_doctor_collect(c, 0.1, ask, n, f);
        if (r >= 0 && node && f->nodes[0].error[0])
                r = errbuf_set(e, EHOSTUNREACH, NULL, "cannot ask '%s': %s", node->name, f->nodes[0].error);
        a->t.linux_switch = r >= 0 && node && f->nodes[0].switch_role;
        if (r >= 0 && a->t.linux_switch)
                r = linux_ports(a, &f->nodes[0], &q, e);
        else if (r >= 0 && (r = manager(f, a->sw, &sw, &mi, e)) >= 0)
                r = remote_ports(a, sw, &q, e);
        if (r >= 0) {
                a->scope[a->n_scope++] = node ? node : ask[mi];
                ecn_start(&a->t, q);
        }
        if (!node)
                free(ask);
        return r;
}

/* The canary hosts' current value of the parameter (the first interface that has it). */
static int dcqcn_scope(struct ctl *c, struct tune_args *a, struct doctor_facts *f, struct errbuf *e)
{
        struct tune *t = &a->t;
        unsigned n = a->canary && a->canary < a->n_pattern ? a->canary : a->n_pattern;
        const struct state_dcqcn_info *p = &state_dcqcn_params[t->param];
        int r;

        for (unsigned i = 0; i < n && a->n_scope < TUNE_SCOPE_MAX; i++)
                a->scope[a->n_scope++] = a->pattern[i];
        r = ctl_doctor_collect(c, 0.1, a->scope, a->n_scope, f);
        for (unsigned i = 0; r >= 0 && i < f->n_nodes; i++) {
                const struct doctor_node *x = &f->nodes[i];
                bool have = false;

                for (unsigned k = 0; k < x->n_ifs; k++) {
                        const struct state_host_ecn *h = &x->ifs[k].st.host_ecn;

                        if (fnmatch(t->interfaces, x->ifs[k].name, 0) || !(h->dcqcn_set & (1u << t->param)))
                                continue;
                        have = true;
                        if (!t->baseline.value)
                                t->baseline.value = h->dcqcn[t->param];
                }
                if (!have && x->error[0] && !x->n_ifs)
                        r = errbuf_set(e, EHOSTUNREACH, NULL, "cannot ask '%s': %s", x->name, x->error);
                else if (!have)
                        r = errbuf_set(e, EOPNOTSUPP, NULL, "%s: no interface matching '%s' has the DCQCN parameter "
                                       "'%s' (an mlx5 NIC's debugfs cc_params or MLNX_OFED ecn tree)%s%s", x->name,
                                       t->interfaces, p->name, x->error[0] ? ": " : "", x->error);
        }
        t->search.o = (struct tune_search_opts){ .start = t->baseline.value, .floor = p->min ? p->min : 1,
                                                 .ceiling = p->max, .growth = TUNE_GROWTH,
                                                 .resolution = TUNE_RESOLUTION, .max_trials = t->search.o.max_trials,
                                                 .quantum = 1 };
        return r;
}

/* The labels every scope node carries (ECN), or the selector's (DCQCN: the fleet the canary stands for). */
static void winner_labels(struct tune_args *a)
{
        if (a->t.kind == TUNE_DCQCN) {
                for (unsigned i = 0; i < a->n_selector; i++) {
                        const char *eq = strchr(a->selector[i], '=');

                        snprintf(a->labels[a->n_labels].key, POLICY_LABEL_MAX, "%.*s", (int)(eq - a->selector[i]),
                                 a->selector[i]);
                        snprintf(a->labels[a->n_labels++].value, POLICY_LABEL_MAX, "%s", eq + 1);
                }
                return;
        }
        for (unsigned l = 0; a->n_scope && l < a->scope[0]->n_labels; l++) {
                bool all = true;

                for (unsigned i = 1; i < a->n_scope; i++)
                        all &= inventory_node_has_label(a->scope[i], a->scope[0]->labels[l].key,
                                                        a->scope[0]->labels[l].value);
                if (all)
                        a->labels[a->n_labels++] = a->scope[0]->labels[l];
        }
}

/* --ceiling port: the incast receiver's link rate, else the slowest node's (GET /v1/fabric). */
static int port_ceiling(struct ctl *c, struct tune_args *a, struct errbuf *e)
{
        struct http_req *reqs = NULL;
        double lo = INFINITY;
        int r = ctl_query(c, a->pattern, a->n_pattern, "GET", "/v1/fabric", NULL, &reqs);

        for (unsigned i = 0; r >= 0 && i < a->n_pattern; i++) {
                struct fabric_info_reply info;
                struct errbuf ie = { 0 };

                if (a->t.pattern.pattern == FABRIC_INCAST && i != a->t.pattern.receiver)
                        continue;
                if (reqs[i].status != 200 || fabric_reply_info(reqs[i].resp, reqs[i].resp_len, &info, &ie) < 0 ||
                    info.speed_mbps <= 0)
                        r = errbuf_set(e, EIO, NULL, "--ceiling port: %s does not say its link rate",
                                       a->pattern[i]->name);
                else
                        lo = fmin(lo, info.speed_mbps / 1000.0);
        }
        ctl_query_free(reqs, a->n_pattern);
        if (r >= 0) {
                a->t.ceiling_gbps = lo;
                a->t.ceiling_is_port = true;
        }
        return r;
}

int ctl_tune_scope(struct ctl *c, struct tune_args *a, struct errbuf *e)
{
        struct doctor_facts f;
        int r;

        doctor_facts_init(&f);
        a->scope = calloc(TUNE_SCOPE_MAX + 1, sizeof(*a->scope));
        if (!a->scope)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        r = a->t.kind == TUNE_ECN ? ecn_scope(c, a, &f, e) : 0;
        if (r >= 0)
                r = pattern_nodes(c, a, e);
        if (r >= 0 && a->t.kind == TUNE_DCQCN)
                r = dcqcn_scope(c, a, &f, e);
        if (r >= 0 && a->ceiling_port)
                r = port_ceiling(c, a, e);
        doctor_facts_free(&f);
        if (r < 0)
                return r;
        a->t.n_scope = a->n_scope;
        for (unsigned i = 0; i < a->n_scope; i++)
                snprintf(a->t.scope[i], INVENTORY_NAME_MAX, "%s", a->scope[i]->name);
        winner_labels(a);
        a->tls = (struct http_tls){ c->inv->ca, c->inv->cert, c->inv->key };
        return 0;
}

void ctl_tune_env(struct ctl *c, struct tune_args *a, struct tune_env *ret)
{
        *ret = (struct tune_env){ .http = c->http, .tls = &a->tls, .store = c->store, .timeout_s = c->timeout_s,
                                  .progress = c->progress, .scope = a->scope, .n_scope = a->n_scope,
                                  .pattern = a->pattern, .n_pattern = a->n_pattern, .labels = a->labels,
                                  .n_labels = a->n_labels, .keep = a->keep };
}

void ctl_tune_args_free(struct tune_args *a)
{
        if (!a)
                return;
        free(a->scope);
        free(a->pattern);
}
