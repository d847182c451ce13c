/* SPDX-License-Identifier: MIT */
/*
 * nettunectl conform --profile NAME [--node N]... [--selector KEY=VALUE]...: is the
 * fleet what a vendor reference profile says? Every selected agent plans the profile
 * against what it reads now (POST /v1/plan?compare=1: the field table's comparison, field by
 * field, on every interface and switch port the profile targets there) and says what
 * it last committed (GET /v1/state). Each difference is a departure: the live value,
 * the profile's, and the policy that owns the place when nettune manages it. What
 * cannot be verified is listed with its reason: a field the target cannot read, what
 * the plan left out (its notes), a node that refused or could not be asked, and every
 * setting the profile lists as beyond nettune (metadata.unmanaged). Changes nothing.
 * Only the nodes whose plan has a change are asked their state (the owner of a
 * departure): a conforming node costs one request.
 * Exit 1 on a departure.
 *
 * The owner is the committed policy whose targets hold the place (owner_of()): the
 * one function to change when policies are layered and each field names its layer.
 */
#include <stdio.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/fleet/fleet.h"
#include "controller/rollout/rollout.h"
#include "policies/policy/policy.h"
#include "policies/state/state_text.h"

struct conform_node {
        const struct inventory_node *node;
        json_t *plan;                   /* the plan answer, NULL when none */
        char error[440];                /* why there is none */
        char path[128];                 /* the refusal's JSON path */
        bool unreached, refused;
        json_t *state;                  /* GET /v1/state, NULL when none */
};

struct conform {
        const char *profile;
        json_t *sources;                /* metadata.source of the profile (borrowed from doc) */
        json_t *departures, *unverified;
        unsigned n_departing, n_conforming, n_unreachable, n_refused, n_not_target;
};

static void take_plan(const struct http_req *q, unsigned i, void *ud)
{
        struct conform_node *n = (struct conform_node *)ud + i;
        struct errbuf e = { 0 };
        char msg[300];

        n->node = q->user;
        n->path[0] = '\0';
        if (q->err < 0) {
                http_req_error(q, n->error, sizeof(n->error));
                n->unreached = true;
        } else if (q->status != 200) {
                n->refused = outcome_of_http_status((int)q->status) == OUTCOME_INVALID;
                reply_error_path(q->resp, q->resp_len, n->path, sizeof(n->path));
                if (!reply_error_message(q->resp, q->resp_len, msg, sizeof(msg))[0])
                        reply_error_text(q->status, q->resp, q->resp_len, msg, sizeof(msg));
                snprintf(n->error, sizeof(n->error), "%.127s%s%.299s", n->path, n->path[0] ? ": " : "", msg);
        } else if (reply_load(q->resp, q->resp_len, &n->plan, &e) < 0 ||
                   !json_is_array(json_object_get(n->plan, "targets"))) {
                snprintf(n->error, sizeof(n->error), "invalid answer to POST /v1/plan: %.200s",
                         e.msg[0] ? e.msg : "no \"targets\" array");
                json_decref(n->plan);
                n->plan = NULL;
        }
}

/* GET /v1/state goes to the nodes with a change in their plan only: map[i] is the node's index in v. */
struct state_ud {
        struct conform_node *v;
        const unsigned *map;
};

static void take_state(const struct http_req *q, unsigned i, void *ud)
{
        const struct state_ud *s = ud;
        struct conform_node *n = &s->v[s->map[i]];
        struct errbuf e = { 0 };

        if (q->err == 0 && q->status == 200 && reply_load(q->resp, q->resp_len, &n->state, &e) < 0)
                n->state = NULL;
}

/*
 * Who manages the place: the committed policy that targets it. (Policy layers: the
 * layer that declares the field; this is where that answer goes.)
 */
static const char *owner_of(const struct conform_node *n, const char *target, const char *field)
{
        const char *policy = json_string_value(json_object_get(n->state, "policy"));
        json_t *t;
        size_t i;

        (void)field;
        if (!policy)
                return NULL;
        json_array_foreach(json_object_get(n->state, "targets"), i, t)
                if (streq(json_string_value(json_object_get(t, "name")), target))
                        return policy;
        return NULL;
}

/* The profile's citation for a field: the longest metadata.source key under spec.<field>. */
static const char *source_of(const struct conform *c, const char *field)
{
        const char *key, *best = NULL;
        char want[80];
        size_t n, best_n = 0;
        json_t *v;

        n = (size_t)snprintf(want, sizeof(want), "spec.%s", streq(field, "cable_length") ? "pfc.cable_length_m" :
                             field);
        json_object_foreach(c->sources, key, v) {
                bool under = !strncmp(key, want, n) && (!key[n] || key[n] == '.');
                bool above = !strncmp(want, key, strlen(key)) && want[strlen(key)] == '.';

                if ((under || above) && (!best || strlen(key) > best_n)) {
                        best = json_string_value(v);
                        best_n = strlen(key);
                }
        }
        return best;
}

static void unverified(struct conform *c, const char *node, const char *target, const char *what, const char *why)
{
        json_array_append_new(c->unverified, json_pack("{s:s?, s:s?, s:s, s:s}", "node", node, "target", target,
                                                       "field", what, "why", why));
}

static void judge_node(struct conform *c, const struct conform_node *n)
{
        const char *name = n->node->name;
        unsigned departs = 0;
        size_t i, k;
        json_t *t, *ch, *note;

        if (!n->plan) {
                if (n->refused && !strncmp(n->path, "$.targets", 9)) {
                        c->n_not_target++;      /* none of the profile's targets is here */
                        return;
                }
                if (n->unreached)
                        c->n_unreachable++;
                else
                        c->n_refused++;
                unverified(c, name, NULL, "*", n->error[0] ? n->error : "no answer");
                return;
        }
        json_array_foreach(json_object_get(n->plan, "targets"), i, t) {
                const char *target = json_string_value(json_object_get(t, "name"));

                json_array_foreach(json_object_get(t, "changes"), k, ch) {
                        const char *field = json_string_value(json_object_get(ch, "field"));
                        const char *key = json_string_value(json_object_get(ch, "key"));
                        json_t *from = json_object_get(ch, "from");
                        const char *owner;

                        if (!field || !key)
                                continue;
                        if (streq(json_string_value(from), "unsupported")) {
                                unverified(c, name, target, key, "the target cannot read it (no driver here serves "
                                           "this field)");
                                continue;
                        }
                        owner = owner_of(n, target, field);
                        departs++;
                        json_array_append_new(c->departures,
                                              json_pack("{s:s, s:s?, s:s, s:s, s:O?, s:O?, s:s?, s:s?}", "node", name,
                                                        "target", target, "field", field, "key", key, "live", from,
                                                        "profile", json_object_get(ch, "to"), "owner", owner,
                                                        "source", source_of(c, field)));
                }
        }
        json_array_foreach(json_object_get(n->plan, "notes"), i, note)
                if (json_is_string(note))
                        unverified(c, name, NULL, "note", json_string_value(note));
        if (departs)
                c->n_departing++;
        else
                c->n_conforming++;
}

static const char *s_of(const json_t *o, const char *k)
{
        const char *v = json_string_value(json_object_get(o, k));

        return v ? v : "-";
}

static void print_text(const struct conform *c, unsigned n)
{
        char live[256], want[256];
        size_t i;
        json_t *d;

        printf("conform: profile '%s' on %u node%s: %u departing (%zu departure%s), %u conforming, %u not targeted, "
               "%u refused, %u unreachable\n", c->profile, n, n == 1 ? "" : "s", c->n_departing,
               json_array_size(c->departures), json_array_size(c->departures) == 1 ? "" : "s", c->n_conforming,
               c->n_not_target, c->n_refused, c->n_unreachable);
        json_array_foreach(c->departures, i, d) {
                const char *owner = json_string_value(json_object_get(d, "owner"));

                printf("  %s %s %s: %s (profile: %s; %s%s%s)\n", s_of(d, "node"), s_of(d, "target"), s_of(d, "key"),
                       state_text_value("", json_object_get(d, "live"), live, sizeof(live)),
                       state_text_value("", json_object_get(d, "profile"), want, sizeof(want)),
                       owner ? "owner: policy '" : "not managed by nettune", owner ? owner : "", owner ? "'" : "");
        }
        if (json_array_size(c->unverified))
                printf("cannot verify:\n");
        json_array_foreach(c->unverified, i, d) {
                const char *node = json_string_value(json_object_get(d, "node"));
                const char *target = json_string_value(json_object_get(d, "target"));

                bool whole = streq(s_of(d, "field"), "note") || streq(s_of(d, "field"), "*");

                if (!node)      /* the profile's own: "profile: SETTING = VALUE: not managed by nettune: WHY" */
                        printf("  profile: %s = %s: %s\n", s_of(d, "field"), s_of(d, "value"), s_of(d, "why"));
                else
                        printf("  %s%s%s%s%s: %s\n", node, target ? " " : "", target ? target : "", whole ? "" : " ",
                               whole ? "" : s_of(d, "field"), s_of(d, "why"));
        }
}

static void print_json(const struct conform *c, unsigned n)
{
        json_t *j = json_pack("{s:s, s:{s:i, s:i, s:i, s:i, s:i, s:i, s:i}, s:O, s:O}", "profile", c->profile,
                              "summary", "nodes", (int)n, "departing", (int)c->n_departing, "departures",
                              (int)json_array_size(c->departures), "conforming", (int)c->n_conforming,
                              "not_targeted", (int)c->n_not_target, "refused", (int)c->n_refused, "unreachable",
                              (int)c->n_unreachable, "departures", c->departures, "unverified", c->unverified);

        output_json(j);
        json_decref(j);
}

/* The profile's metadata.unmanaged: settings nobody can verify through nettune, once for the fleet. */
static void add_unmanaged(struct conform *c, const json_t *doc)
{
        json_t *u;
        size_t i;

        json_array_foreach(json_object_get(json_object_get(doc, "metadata"), "unmanaged"), i, u) {
                char why[700];

                snprintf(why, sizeof(why), "not managed by nettune: %s", s_of(u, "why"));
                json_array_append_new(c->unverified, json_pack("{s:n, s:n, s:s, s:s, s:s, s:s}", "node", "target",
                                                               "field", s_of(u, "setting"), "value",
                                                               s_of(u, "value"), "why", why, "source",
                                                               s_of(u, "source")));
        }
}

static int run(struct ctl *ctl, const char *doc, const json_t *docj, const struct policy *p,
               const struct inventory_node **sel, unsigned n)
{
        struct conform_node *v = calloc(n + 1, sizeof(*v));
        _cleanup_free_ const struct inventory_node **changed = calloc(n + 1, sizeof(*changed));
        _cleanup_free_ unsigned *map = calloc(n + 1, sizeof(*map));
        struct state_ud sud = { .v = v, .map = map };
        struct ctl_query_each pl = { .fn = take_plan, .ud = v, .flags = CTL_QUERY_KEEP },
                              st = { .fn = take_state, .ud = &sud, .flags = CTL_QUERY_REVERSE };
        struct conform c = { .profile = p->name, .departures = json_array(), .unverified = json_array(),
                             .sources = json_object_get(json_object_get(docj, "metadata"), "source") };
        unsigned k = 0;
        int r = v && changed && map ? ctl_query_each(ctl, sel, n, "POST", "/v1/plan?compare=1", doc, &pl, NULL) : -ENOMEM;

        /* the owner matters only where something departs: the others are not asked twice */
        for (unsigned i = 0; r >= 0 && i < n; i++)
                if (json_integer_value(json_object_get(v[i].plan, "changes")) > 0) {
                        changed[k] = sel[i];
                        map[k++] = i;
                }
        if (r >= 0 && k)
                r = ctl_query_each(ctl, changed, k, "GET", "/v1/state", NULL, &st, NULL);
        if (r < 0) {
                log_err("conform: cannot query the agents: %s", strerror(-r));
        } else {
                for (unsigned i = 0; i < n; i++) {
                        judge_node(&c, &v[i]);
                        json_decref(v[i].plan);
                        json_decref(v[i].state);
                        v[i].plan = v[i].state = NULL;
                }
                add_unmanaged(&c, docj);
                if (ctl->json)
                        print_json(&c, n);
                else
                        print_text(&c, n);
        }
        for (unsigned i = 0; v && i < n; i++) {
                json_decref(v[i].plan);
                json_decref(v[i].state);
        }
        free(v);
        r = r < 0 ? OUTCOME_RUNTIME : json_array_size(c.departures) ? OUTCOME_ROLLED_BACK :
            c.n_unreachable || c.n_refused ? OUTCOME_RUNTIME : OUTCOME_OK;
        json_decref(c.departures);
        json_decref(c.unverified);
        return r;
}

int ctl_cmd_conform(struct ctl *c)
{
        _cleanup_free_ const struct inventory_node **sel = NULL;
        _cleanup_free_ const char **names = calloc((size_t)c->argc + 1, sizeof(*names));
        _cleanup_free_ char *doc = NULL;
        struct ctl_selector only = { 0 };
        const char *profile = NULL;
        struct policy *p = NULL;
        struct errbuf e = { 0 };
        json_t *docj = NULL;
        json_error_t je;
        char path[4096], buf[ERRBUF_STR_MAX];
        unsigned n = 0, n_names = 0;
        size_t len;
        int r;

        if (!names)
                return OUTCOME_RUNTIME;
        for (int i = 0; i < c->argc; i++) {
                r = ctl_take_selector(c, &i, &only);
                if (r < 0)
                        return OUTCOME_INVALID;
                if (r > 0)
                        continue;
                if ((streq(c->argv[i], "--profile") || streq(c->argv[i], "--node")) && i + 1 >= c->argc) {
                        log_err("conform: %s needs a value", c->argv[i]);
                        return OUTCOME_INVALID;
                }
                if (streq(c->argv[i], "--profile"))
                        profile = c->argv[++i];
                else if (streq(c->argv[i], "--node"))
                        names[n_names++] = c->argv[++i];
                else
                        return ctl_bad_arg(c, c->argv[i]), OUTCOME_INVALID;
        }
        if (!profile) {
                log_err("conform: no --profile given; see 'nettunectl conform --help'");
                return OUTCOME_INVALID;
        }
        if (ctl_profile_find(profile, path, sizeof(path)) < 0 || ctl_read_file(path, POLICY_DOC_MAX, &doc, &len) < 0)
                return OUTCOME_INVALID;
        if (policy_parse_buffer(doc, len, path, &p, &e) < 0 || ctl_policy_json(path, &doc, &len, &e) < 0) {
                log_err("%s", errbuf_str(&e, buf, sizeof(buf)));
                policy_free(p);
                return OUTCOME_INVALID;
        }
        docj = json_loadb(doc, len, 0, &je);
        if ((r = ctl_need_inventory(c)) > 0 || (r = ctl_select_only(c, NULL, &only, &sel, &n)) > 0)
                goto out;
        if (ctl_only_nodes(c, sel, &n, names, n_names) < 0) {
                r = OUTCOME_INVALID;
                goto out;
        }
        r = ctl_need_http(c);
        if (r == 0)
                r = run(c, doc, docj, p, sel, n);
out:
        json_decref(docj);
        policy_free(p);
        return r;
}
