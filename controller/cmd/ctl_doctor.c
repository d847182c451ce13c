/* SPDX-License-Identifier: MIT */
/*
 * nettunectl doctor [--selector KEY=VALUE]... [--window S] [--propose FILE] [--probe] [--locate] [--rtt-ms MS]
 *                   [--pause-storm-pps N] [--watchdog-flaps N] [--roce-dscp D] [--roce-priority P] [--class-share PCT]
 *                   [--save-facts FILE | --facts FILE] [--svg FILE] [--node-labels FILE] [--profile NAME]...
 *
 * Asks every selected agent for its facts at once (GET /v1/doctor?window_s=S: each
 * samples its counters over the same window), merges them under the inventory's node
 * names and runs the same rules as `nettune-agent doctor`, now across nodes: a host
 * interface meets the switch port it faces even when another agent manages that
 * switch. --probe measures point-to-point bandwidth between every ordered pair of
 * reached nodes (POST /v1/probe on the sender, one pair at a time, to the responder the
 * receiver advertises for fabric probes: its data path), then every pair at
 * once with the fabric probe's all-to-all (fabric_run.c): the seed's signature is the
 * pairs fine alone and slow together. --locate runs nettunectl locate over the
 * reached nodes (racks by the label "rack") and judges its suspects (fabric_suspect).
 * --propose writes
 * the fixing policy with a selector: the labels every node that manages its targets
 * carries. --facts judges a file --save-facts wrote (as `nettune-agent doctor --facts`
 * does a node's). --svg draws the lossless class along every path with the findings on
 * their hops, --node-labels writes each node's verdict as Kubernetes node labels
 * (ctl_doctor_svg.c). Read only.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>

#include "common/log.h"
#include "controller/cmd/ctl_internal.h"
#include "controller/fabric/fabric.h"
#include "controller/fleet/fleet.h"
#include "controller/rollout/rollout.h"
#include "policies/doctor/doctor.h"

#define LABELS_MAX 16
#define PROFILES_NAMED_MAX 8
#define PROFILES_MAX 64

struct doctor_opts {
        struct doctor_params params;
        struct ctl_selector sel;        /* --selector (--label) */
        const char *propose, *save_facts, *facts, *svg, *node_labels;
        bool probe, locate;
        const char *named[PROFILES_NAMED_MAX];  /* --profile NAME: cnp_class_mismatch names profile versions */
        unsigned n_named;
        struct doctor_profile profiles[PROFILES_MAX];
};

static int num(const char *opt, const char *v, double min, double max, double *ret)
{
        char *end;
        double d = strtod(v, &end);

        if (!*v || *end || !isfinite(d) || d < min || d > max) {
                log_err("doctor: %s '%s': expected a number in %g-%g", opt, v, min, max);
                return -EINVAL;
        }
        *ret = d;
        return 0;
}

static int parse_opt(const char *a, const char *v, struct doctor_opts *o)
{
        double d;
        int r;

        if (streq(a, "--window"))
                return num(a, v, 0.1, DOCTOR_WINDOW_MAX_S, &o->params.window_s);
        if (streq(a, "--pause-storm-pps"))
                return num(a, v, 1, 1e9, &o->params.pause_storm_pps);
        if (streq(a, "--watchdog-flaps"))
                return num(a, v, 1, 1e6, &o->params.watchdog_flaps);
        if (streq(a, "--class-share")) {
                r = num(a, v, 1, 100, &d);
                o->params.class_share = d / 100;
                return r;
        }
        if (streq(a, "--rtt-ms"))
                return num(a, v, 0.001, 600000, &o->params.rtt_ms);
        if (streq(a, "--roce-dscp") || streq(a, "--roce-priority")) {
                r = num(a, v, 0, streq(a, "--roce-dscp") ? 63 : 7, &d);
                *(streq(a, "--roce-dscp") ? &o->params.roce_dscp : &o->params.roce_prio) = (int)d;
                return r;
        }
        if (streq(a, "--profile")) {
                if (o->n_named == PROFILES_NAMED_MAX) {
                        log_err("doctor: --profile: at most %d", PROFILES_NAMED_MAX);
                        return -EINVAL;
                }
                o->named[o->n_named++] = v;
                return 0;
        }
        if (streq(a, "--propose"))
                o->propose = v;
        else if (streq(a, "--save-facts"))
                o->save_facts = v;
        else if (streq(a, "--facts"))
                o->facts = v;
        else if (streq(a, "--svg"))
                o->svg = v;
        else if (streq(a, "--node-labels"))
                o->node_labels = v;
        else
                return 1;
        return 0;
}

static int parse_args(struct ctl *c, struct doctor_opts *o)
{
        doctor_params_default(&o->params);
        for (int i = 0; i < c->argc; i++) {
                const char *a = c->argv[i];
                int r = ctl_take_selector(c, &i, &o->sel);

                if (r != 0) {
                        if (r < 0)
                                return r;
                        continue;
                }
                if (streq(a, "--probe") || streq(a, "--locate")) {
                        *(streq(a, "--probe") ? &o->probe : &o->locate) = true;
                        continue;
                }
                r = i + 1 < c->argc ? parse_opt(a, c->argv[i + 1], o) : 1;
                if (r < 0)
                        return r;
                if (r > 0)
                        return ctl_bad_arg(c, a);
                i++;
        }
        if (o->facts && (o->save_facts || o->probe || o->locate || o->sel.n)) {
                log_err("doctor: --facts judges a saved file: it takes no collection option (--selector, --probe, "
                        "--locate, --save-facts)");
                return -EINVAL;
        }
        return 0;
}

/* One profile into o->profiles (0, or -EINVAL printed); a known one already there is marked named. */
static int add_profile(struct doctor_opts *o, const char *path, bool named)
{
        struct policy *pol = NULL;
        struct errbuf e = { 0 };
        char msg[ERRBUF_STR_MAX];
        struct doctor_profile *d;

        if (policy_load_file(path, &pol, &e) < 0) {
                if (!named)
                        return 0;       /* not a profile: only the named ones must be */
                log_err("doctor: --profile: %s", errbuf_str(&e, msg, sizeof(msg)));
                return -EINVAL;
        }
        for (unsigned i = 0; i < o->params.n_profiles; i++)
                if (streq(o->profiles[i].name, pol->name)) {
                        o->profiles[i].named |= named;
                        policy_free(pol);
                        return 0;
                }
        if (o->params.n_profiles < PROFILES_MAX) {
                d = &o->profiles[o->params.n_profiles++];
                *d = (struct doctor_profile){ .named = named, .spec = pol->spec };
                snprintf(d->name, sizeof(d->name), "%s", pol->name);
        }
        policy_free(pol);
        return 0;
}

/*
 * --profile NAME...: the named profiles, then every other profile of their directories,
 * known and not named (cnp_class_mismatch says which version a NIC's marking follows).
 */
static int load_profiles(struct doctor_opts *o)
{
        char path[4096], dir[4096], *slash;

        for (unsigned i = 0; i < o->n_named; i++) {
                if (ctl_profile_find(o->named[i], path, sizeof(path)) < 0 || add_profile(o, path, true) < 0)
                        return -EINVAL;
        }
        for (unsigned i = 0; i < o->n_named; i++) {
                DIR *d;
                struct dirent *de;

                if (ctl_profile_find(o->named[i], path, sizeof(path)) < 0)
                        return -EINVAL;
                snprintf(dir, sizeof(dir), "%s", path);
                slash = strrchr(dir, '/');
                if (slash)
                        *slash = '\0';
                else
                        snprintf(dir, sizeof(dir), ".");
                if (!(d = opendir(dir)))
                        continue;
                while ((de = readdir(d))) {
                        size_t n = strlen(de->d_name);

                        if (n < 6 || !streq(de->d_name + n - 5, ".json"))
                                continue;
                        snprintf(path, sizeof(path), "%.2000s/%.1000s", dir, de->d_name);
                        add_profile(o, path, false);
                }
                closedir(d);
        }
        o->params.profiles = o->profiles;
        return 0;
}

/* --facts FILE: what an earlier --save-facts wrote. */
static int load_facts(const char *path, struct doctor_facts *f)
{
        struct errbuf e = { 0 };
        char msg[ERRBUF_STR_MAX];
        int r = doctor_facts_load(path, f, &e);

        if (r < 0)
                log_err("doctor: %s", errbuf_str(&e, msg, sizeof(msg)));
        return r;
}

/* ---- collection ---- */

static void node_answer(const struct http_req *q, struct doctor_node *n)
{
        const struct inventory_node *inv = q->user;
        json_auto_t *j = NULL;
        struct errbuf e = { 0 };
        char why[DOCTOR_ERROR_MAX];

        if (q->err < 0 || q->status != 200) {
                if (q->err < 0)
                        http_req_error(q, why, sizeof(why));
                else
                        reply_error_text(q->status, q->resp, q->resp_len, why, sizeof(why));
        } else if (!(j = json_loads(q->resp, JSON_REJECT_DUPLICATES, NULL))) {
                snprintf(why, sizeof(why), "invalid answer: not JSON");
        } else if (doctor_node_from_json(j, inv->name, n, &e) < 0) {
                snprintf(why, sizeof(why), "invalid answer: %.80s: %.150s", e.where, e.msg);
        } else {
                why[0] = '\0';
        }
        if (why[0]) {
                doctor_node_free(n);
                memset(n, 0, sizeof(*n));
                snprintf(n->error, sizeof(n->error), "%s", why);
        }
        snprintf(n->name, sizeof(n->name), "%s", inv->name);    /* the inventory names the node */
}

struct facts_fill {
        struct doctor_facts *f;
        unsigned base;                  /* the first of this query's nodes in f */
};

static void on_facts(const struct http_req *q, unsigned i, void *ud)
{
        struct facts_fill *ff = ud;

        node_answer(q, &ff->f->nodes[ff->base + i]);
}

/*
 * Every node's facts, parsed as each answer comes and dropped (appended to f in
 * inventory order). The agents spend the window waiting, not working: up to
 * HTTP_KEEP_MAX of them are asked at once.
 */
int ctl_doctor_collect(struct ctl *c, double window_s, const struct inventory_node *const *sel, unsigned n,
                       struct doctor_facts *f)
{
        struct facts_fill ff = { f, f->n_nodes };
        struct ctl_query_each each = { .fn = on_facts, .ud = &ff };
        unsigned saved = c->timeout_s, wide = n < HTTP_KEEP_MAX ? n : HTTP_KEEP_MAX, parallel;
        char path[64];
        int r = 0;

        for (unsigned i = 0; i < n && r >= 0; i++)      /* in inventory order, filled as answers come */
                if (!doctor_facts_add_node(f))
                        r = -ENOMEM;
        if (r < 0) {
                log_err("doctor: cannot query the agents: %s", strerror(-r));
                return r;
        }
        snprintf(path, sizeof(path), "/v1/doctor?window_s=%g", window_s);
        c->timeout_s = saved + (unsigned)ceil(window_s);        /* every agent waits out the window */
        parallel = http_client_set_parallel(c->http, wide);
        if (parallel > wide)
                http_client_set_parallel(c->http, parallel);
        r = ctl_query_each(c, sel, n, "GET", path, NULL, &each, NULL);
        http_client_set_parallel(c->http, parallel);
        c->timeout_s = saved;
        if (r < 0)
                log_err("doctor: cannot query the agents: %s", strerror(-r));
        return r;
}

/* ---- point-to-point bandwidth between every ordered pair ---- */

/* "https://host:port" -> "host" (bracketed IPv6 kept). */
static void url_host(const char *url, char *buf, size_t size)
{
        const char *h = strstr(url, "://") ? strstr(url, "://") + 3 : url;
        size_t n = h[0] == '[' ? strcspn(h, "]") + 1 : strcspn(h, ":/");

        snprintf(buf, size, "%.*s", (int)n, h);
}

static void probe_pair(struct ctl *c, const struct inventory_node *from, const struct inventory_node *to,
                       const char *peer, struct doctor_probe *x)
{
        struct http_req *reqs = NULL;
        char body[PROBE_PEER_MAX + 128];
        json_auto_t *j = NULL;

        snprintf(body, sizeof(body), "{\"peer\": \"%s\", \"mode\": \"auto\", \"duration_ms\": 1000, \"runs\": 1}",
                 peer);
        snprintf(x->from, sizeof(x->from), "%s", from->name);
        snprintf(x->to, sizeof(x->to), "%s", to->name);
        if (ctl_query(c, &from, 1, "POST", "/v1/probe", body, &reqs) < 0) {
                snprintf(x->error, sizeof(x->error), "cannot query the agent");
                return;
        }
        if (reqs[0].err < 0)
                http_req_error(&reqs[0], x->error, sizeof(x->error));
        else if (reqs[0].status != 200)
                reply_error_text(reqs[0].status, reqs[0].resp, reqs[0].resp_len, x->error, sizeof(x->error));
        else if (!(j = json_loads(reqs[0].resp, 0, NULL)) || !json_is_number(json_object_get(j, "gbps")))
                snprintf(x->error, sizeof(x->error), "invalid answer: no 'gbps'");
        else {
                x->ok = true;
                x->gbps = json_number_value(json_object_get(j, "gbps"));
                x->rtt_ms = json_is_number(json_object_get(j, "rtt_ms")) &&
                                    json_number_value(json_object_get(j, "rtt_ms")) > 0 &&
                                    json_number_value(json_object_get(j, "rtt_ms")) <= 600000
                            ? json_number_value(json_object_get(j, "rtt_ms")) : 0;
        }
        ctl_query_free(reqs, 1);
}

/*
 * Where each node's probe responder is: the address it advertises for fabric probes
 * (GET /v1/fabric: probe.listen, on the data path), else its URL's host and probe
 * port (the management address). "" when neither is known.
 */
static void responders(struct ctl *c, const struct inventory_node **sel, unsigned n, const struct doctor_facts *f,
                       char (*ret)[PROBE_PEER_MAX])
{
        struct http_req *reqs = NULL;
        int r = ctl_query(c, sel, n, "GET", "/v1/fabric", NULL, &reqs);

        for (unsigned i = 0; i < n; i++) {
                struct fabric_info_reply info;
                struct errbuf e = { 0 };
                char host[INVENTORY_URL_MAX];

                ret[i][0] = '\0';
                if (r >= 0 && reqs[i].status == 200 &&
                    fabric_reply_info(reqs[i].resp, reqs[i].resp_len, &info, &e) >= 0 && info.address[0]) {
                        snprintf(ret[i], PROBE_PEER_MAX, "%s", info.address);
                } else if (f->nodes[i].probe_port) {
                        url_host(sel[i]->url, host, sizeof(host));
                        snprintf(ret[i], PROBE_PEER_MAX, "%.100s:%u", host, f->nodes[i].probe_port);
                }
        }
        if (r >= 0)
                ctl_query_free(reqs, n);
}

/*
 * The probes doctor runs, by the facts' kind: "p2p", one pair at a time, and "fabric",
 * every ordered pair at once (the fabric probe's all-to-all), flow by flow in the same
 * shape: the seed's "point to point fine, the fabric slow" is one beside the other.
 */
static void probe_p2p(struct ctl *c, const struct inventory_node **sel, unsigned n, struct doctor_facts *f)
{
        struct doctor_probes *out = &f->probes[0];
        char (*peer)[PROBE_PEER_MAX] = calloc(n + 1, sizeof(*peer));

        snprintf(out->kind, sizeof(out->kind), "p2p");
        if (!peer)
                return;
        responders(c, sel, n, f, peer);
        for (unsigned i = 0; i < n; i++)
                for (unsigned k = 0; k < n; k++) {
                        struct doctor_probe *x;

                        if (i == k || f->nodes[i].error[0] || f->nodes[k].error[0] || !peer[k][0] ||
                            !(x = doctor_probes_add(out)))
                                continue;
                        probe_pair(c, sel[i], sel[k], peer[k], x);
                }
        free(peer);
}

/* Every reached node sends to every other at once; each flow as the receiver measured it. */
static void probe_fabric(struct ctl *c, const struct inventory_node **sel, unsigned n, struct doctor_facts *facts)
{
        struct fabric_opts o = { .pattern = FABRIC_ALLTOALL, .duration_ms = FABRIC_DURATION_DEFAULT_MS,
                                 .mode = PROBE_MODE_AUTO, .dscp = -1, .priority = -1, .streams = 1 };
        struct fabric_env env = { .http = c->http, .timeout_s = c->timeout_s, .progress = c->progress };
        struct doctor_probes *out = &facts->probes[1];
        const struct inventory_node *reached[FABRIC_NODES_MAX];
        struct errbuf e = { 0 };
        struct fabric fab = { 0 };
        unsigned k = 0;

        for (unsigned i = 0; i < n && k < FABRIC_NODES_MAX; i++)
                if (!facts->nodes[i].error[0])
                        reached[k++] = sel[i];
        snprintf(out->kind, sizeof(out->kind), "fabric");
        if (k < 2 || fabric_init(&fab, &o, k, &e) < 0)
                return;
        for (unsigned i = 0; i < k; i++) {
                snprintf(fab.nodes[i].name, sizeof(fab.nodes[i].name), "%s", reached[i]->name);
                snprintf(fab.nodes[i].url, sizeof(fab.nodes[i].url), "%s", reached[i]->url);
        }
        if (fabric_run(&env, &fab, &e) < 0) {
                struct doctor_probe *x = doctor_probes_add(out);

                if (x) {
                        snprintf(x->from, sizeof(x->from), "all");
                        snprintf(x->to, sizeof(x->to), "all");
                        snprintf(x->error, sizeof(x->error), "%.150s", e.msg);
                }
        }
        for (unsigned i = 0; i < fab.n_flows; i++) {
                const struct fabric_flow *fl = &fab.flows[i];
                struct doctor_probe *x = doctor_probes_add(out);

                if (!x)
                        break;
                snprintf(x->from, sizeof(x->from), "%s", fab.nodes[fl->src].name);
                snprintf(x->to, sizeof(x->to), "%s", fab.nodes[fl->dst].name);
                x->ok = fl->ok;
                x->gbps = fl->ok ? fl->gbps : 0;
                x->rtt_ms = fl->ok ? fl->rtt_ms : 0;
                if (!fl->ok)
                        snprintf(x->error, sizeof(x->error), "%.150s", fl->error[0] ? fl->error : "not measured");
        }
        fabric_free(&fab);
}

/* ---- --locate: where the fabric is slow, among the reached nodes (controller/fabric/locate.h) ---- */

static const char *label_of(const struct inventory_node *n, const char *key)
{
        for (unsigned k = 0; k < n->n_labels; k++)
                if (streq(n->labels[k].key, key))
                        return n->labels[k].value;
        return "";
}

static void suspect_take(const struct locate *l, const struct locate_suspect *s, struct doctor_suspect *x)
{
        size_t len = 0;

        snprintf(x->kind, sizeof(x->kind), "%s", locate_kind_name(s->kind));
        if (s->kind == LOCATE_UPLINK)
                snprintf(x->name, sizeof(x->name), "%s", l->groups[s->group]);
        else if (s->kind == LOCATE_PATH)
                snprintf(x->name, sizeof(x->name), "%.60s -> %.60s", l->names[s->node], l->names[s->peer]);
        else
                snprintf(x->name, sizeof(x->name), "%.63s", l->names[s->node]);
        snprintf(x->rack, sizeof(x->rack), "%.63s", l->groups[s->group]);
        snprintf(x->side, sizeof(x->side), "%s", locate_side_name(s->side));
        x->high = s->high;
        x->slow = s->slow;
        x->of = s->of;
        x->gbps = isfinite(s->gbps) ? s->gbps : 0;
        x->peers_gbps = isfinite(s->peers_gbps) ? s->peers_gbps : 0;
        for (unsigned i = 0; i < s->n_ev && len < sizeof(x->evidence); i++) {
                const struct locate_pair *p = &l->pairs[s->ev[i]];
                double g = p->gbps[l->rounds - 1];

                len += (size_t)snprintf(x->evidence + len, sizeof(x->evidence) - len, "%s%.40s -> %.40s %.3f Gb/s",
                                        i ? ", " : "", l->names[p->src], l->names[p->dst], isfinite(g) ? g : 0.0);
        }
}

/* The reached nodes' locate (defaults, --by rack); its suspects, or a note why it did not run. */
static void locate_facts(struct ctl *c, const struct inventory_node **sel, unsigned n, struct doctor_facts *facts)
{
        _cleanup_free_ const char **names = calloc(n + 1, sizeof(*names));
        _cleanup_free_ const char **urls = calloc(n + 1, sizeof(*urls));
        _cleanup_free_ const char **rack = calloc(n + 1, sizeof(*rack));
        struct fabric_env env = { .http = c->http, .timeout_s = c->timeout_s, .progress = c->progress };
        struct locate_opts o;
        struct locate l = { 0 };
        struct errbuf e = { 0 };
        unsigned k = 0;

        locate_opts_default(&o);
        for (unsigned i = 0; names && urls && rack && i < n; i++)
                if (!facts->nodes[i].error[0]) {
                        names[k] = sel[i]->name;
                        urls[k] = sel[i]->url;
                        rack[k++] = label_of(sel[i], o.by);
                }
        if (k < 2 || locate_init(&l, &o, k, names, rack, NULL, &e) < 0 || locate_run(&env, &l, urls, &e) < 0) {
                log_warn("doctor: --locate did not run: %s", k < 2 ? "fewer than 2 nodes reached" : e.msg);
                locate_free(&l);
                return;
        }
        facts->suspects.run = true;
        for (unsigned i = 0; i < l.n_suspects; i++) {
                struct doctor_suspect *x = doctor_suspects_add(&facts->suspects);

                if (x)
                        suspect_take(&l, &l.suspects[i], x);
        }
        locate_free(&l);
}

/* ---- the proposal's selector: the labels every node that manages its targets carries ---- */

static unsigned common_labels(struct ctl *c, const struct doctor_proposal *pr, struct policy_label *ret)
{
        const struct inventory_node *first = NULL;
        unsigned n = 0;

        for (unsigned i = 0; i < pr->n_nodes && !first; i++)
                first = inventory_find(c->inv, pr->nodes[i]);
        for (unsigned l = 0; first && l < first->n_labels && n < LABELS_MAX; l++) {
                bool all = true;

                for (unsigned i = 0; i < pr->n_nodes; i++) {
                        const struct inventory_node *x = inventory_find(c->inv, pr->nodes[i]);

                        all &= x && inventory_node_has_label(x, first->labels[l].key, first->labels[l].value);
                }
                if (all)
                        ret[n++] = first->labels[l];
        }
        return n;
}

static int propose(struct ctl *c, const struct doctor_report *r, const char *path, json_t *doc)
{
        struct policy_label sel[LABELS_MAX];
        unsigned n = common_labels(c, &r->prop, sel);
        _cleanup_free_ char *text = NULL;
        struct errbuf e = { 0 };
        char msg[ERRBUF_STR_MAX];
        FILE *f;

        if (doctor_proposal_policy(r, "doctor-proposal", sel, n, &text, &e) < 0) {
                log_err("doctor: the proposal is not a valid policy: %s", errbuf_str(&e, msg, sizeof(msg)));
                return -EINVAL;
        }
        if (!text) {
                if (!doc)
                        printf("proposal: nothing a policy can fix; '%s' was not written\n", path);
                return 0;
        }
        f = fopen(path, "we");
        if (!f || fprintf(f, "%s\n", text) < 0 || fclose(f) != 0) {
                log_err("doctor: cannot write the proposal to '%s': %s", path, strerror(errno));
                return -EIO;
        }
        if (doc)
                json_object_set_new(doc, "proposal_file", json_string(path));
        else
                printf("proposal written to '%s'%s (nettunectl plan / apply it)\n", path,
                       n ? "" : "; its nodes share no label, so it selects every node: add a selector first");
        return 0;
}

static int save_facts(const char *path, const struct doctor_facts *f)
{
        json_auto_t *j = doctor_facts_to_json(f);
        FILE *out = j ? fopen(path, "we") : NULL;

        if (!out || json_dumpf(j, out, JSON_INDENT(1) | JSON_SORT_KEYS) < 0 || fclose(out) != 0) {
                log_err("doctor: cannot write the facts to '%s': %s", path, strerror(errno));
                return -EIO;
        }
        return 0;
}

static int report(struct ctl *c, const struct doctor_opts *o, const struct doctor_facts *f)
{
        struct doctor_report r;
        json_t *doc = NULL;
        int code;

        doctor_report_init(&r);
        doctor_run(f, &o->params, &r);
        if (c->json && !(doc = doctor_report_to_json(&r, f))) {
                doctor_report_free(&r);
                return OUTCOME_RUNTIME;
        }
        if (!c->json)
                doctor_report_print(stdout, &r, f);
        code = doctor_exit_code(f, &r);        /* OUTCOME_OK, OUTCOME_ROLLED_BACK, OUTCOME_RUNTIME */
        if (o->propose && propose(c, &r, o->propose, doc) < 0)
                code = OUTCOME_RUNTIME;
        if (o->svg && ctl_doctor_svg(f, &o->params, &r, o->svg) < 0)
                code = OUTCOME_RUNTIME;
        if (o->node_labels && ctl_doctor_labels(f, &r, c->json, o->node_labels) < 0)
                code = OUTCOME_RUNTIME;
        if (doc)
                output_json(doc);
        json_decref(doc);
        doctor_report_free(&r);
        return code;
}

int ctl_cmd_doctor(struct ctl *c)
{
        _cleanup_free_ const struct inventory_node **all = NULL;
        _cleanup_free_ struct doctor_opts *o = calloc(1, sizeof(*o));
        struct doctor_facts f;
        unsigned k = 0;
        int r;

        if (!o)
                return OUTCOME_RUNTIME;
        if (parse_args(c, o) < 0 || load_profiles(o) < 0)
                return OUTCOME_INVALID;
        if (o->facts) {
                /* the proposal's selector wants the inventory's labels: only then is it read */
                if (o->propose && (r = ctl_need_inventory(c)) > 0)
                        return r;
                doctor_facts_init(&f);
                r = load_facts(o->facts, &f) < 0 ? OUTCOME_INVALID : report(c, o, &f);
                doctor_facts_free(&f);
                return r;
        }
        if ((r = ctl_need_http(c)) > 0)
                return r;
        if ((r = ctl_select_only(c, NULL, &o->sel, &all, &k)) > 0)
                return r;
        doctor_facts_init(&f);
        r = ctl_doctor_collect(c, o->params.window_s, all, k, &f);
        if (r >= 0 && o->probe) {
                probe_p2p(c, all, k, &f);
                probe_fabric(c, all, k, &f);
        }
        if (r >= 0 && o->locate)
                locate_facts(c, all, k, &f);
        if (r >= 0 && o->save_facts)
                r = save_facts(o->save_facts, &f);
        r = r < 0 ? OUTCOME_RUNTIME : report(c, o, &f);
        doctor_facts_free(&f);
        return r;
}
