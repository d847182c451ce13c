/* SPDX-License-Identifier: MIT */
/*
 * nettunectl intent [--node NAME]... [--selector EXPR]...: every node's intent, the
 * merge of its committed layers (GET /v1/intent): each managed field with its desired
 * value, live value and owner policy and revision. And which nodes hold a layer, for
 * `remove` and `rollback --policy` (ctl_layer_holders).
 */
#include <jansson.h>
#include <stdio.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/fleet/fleet.h"
#include "controller/rollout/rollout.h"
#include "policies/state/state_text.h"

/* One node's answer: its document, or why there is none. */
struct intent_node {
        json_t *doc;                    /* {"layers": [...], "fields": [...]}, NULL: error says why */
        char error[400];
};

static void take_answer(const struct http_req *q, struct intent_node *out)
{
        json_error_t je;

        if (q->err < 0) {
                http_req_error(q, out->error, sizeof(out->error));
        } else if (q->status != 200) {
                reply_error_text(q->status, q->resp, q->resp_len, out->error, sizeof(out->error));
                if (q->status == 404)   /* an agent from before layers answers no intent */
                        snprintf(out->error, sizeof(out->error), "its agent has no GET /v1/intent (an agent from "
                                 "before layers)");
        } else if (!(out->doc = json_loadb(q->resp, q->resp_len, 0, &je)) || !json_is_array(json_object_get(out->doc,
                                                                                                       "fields")) ||
                   !json_is_array(json_object_get(out->doc, "layers"))) {
                json_decref(out->doc);
                out->doc = NULL;
                snprintf(out->error, sizeof(out->error), "invalid answer: %s", je.text[0] ? je.text :
                         "expected {\"layers\": [...], \"fields\": [...]}");
        }
}

/* Ask every node of sel for its intent at once; out[i] is node i's. 0, or -errno (nothing could be sent). */
static int collect(struct ctl *c, const struct inventory_node *const *sel, unsigned n, struct intent_node *out)
{
        struct http_req *reqs = NULL;
        int r = ctl_query(c, sel, n, "GET", "/v1/intent", NULL, &reqs);

        if (r < 0)
                return r;
        for (unsigned i = 0; i < n; i++)
                take_answer(&reqs[i], &out[i]);
        ctl_query_free(reqs, n);
        return 0;
}

static bool holds(const json_t *doc, const char *name)
{
        size_t i;
        json_t *l;

        json_array_foreach(json_object_get(doc, "layers"), i, l)
                if (json_is_string(json_object_get(l, "policy")) &&
                    streq(json_string_value(json_object_get(l, "policy")), name))
                        return true;
        return false;
}

int ctl_layer_holders(struct ctl *c, const char *name, const struct inventory_node **sel, unsigned *n,
                      bool skip_unreachable, char *without, size_t size)
{
        struct intent_node *in = calloc(*n + 1, sizeof(*in));
        unsigned k = 0, unreachable = 0;
        size_t used = 0;
        int r;

        without[0] = '\0';
        if (!in)
                return -ENOMEM;
        r = collect(c, sel, *n, in);
        for (unsigned i = 0; r >= 0 && i < *n; i++) {
                if (!in[i].doc) {
                        if (skip_unreachable)
                                log_warn("pre-flight: %s left out (--skip-unreachable): %s", sel[i]->name, in[i].error);
                        else
                                log_err("node %s did not answer the pre-flight: %s", sel[i]->name, in[i].error);
                        unreachable++;
                } else if (holds(in[i].doc, name)) {
                        sel[k++] = sel[i];
                } else if (used < size) {
                        used += (size_t)snprintf(without + used, size - used, "%s%s", used ? ", " : "", sel[i]->name);
                }
        }
        for (unsigned i = 0; i < *n; i++)
                json_decref(in[i].doc);
        free(in);
        if (r < 0)
                return r;
        if (unreachable && !skip_unreachable) {
                log_err("pre-flight: %u of %u node%s did not answer (--skip-unreachable leaves them out); no node was "
                        "changed", unreachable, *n, *n == 1 ? "" : "s");
                return -EHOSTUNREACH;
        }
        *n = k;
        return 0;
}

static void print_node(const char *name, const struct intent_node *in)
{
        const json_t *layers, *fields, *l, *f;
        size_t i;

        if (!in->doc) {
                printf("%s: unreachable: %s\n", name, in->error);
                return;
        }
        layers = json_object_get(in->doc, "layers");
        fields = json_object_get(in->doc, "fields");
        printf("%s:", name);
        json_array_foreach(layers, i, l)
                printf("%s layer '%s' revision %lld", i ? "," : "", json_string_value(json_object_get(l, "policy")),
                       (long long)json_integer_value(json_object_get(l, "revision")));
        printf("%s\n", json_array_size(layers) ? "" : " no committed policy: nettune manages nothing here");
        json_array_foreach(fields, i, f) {
                const json_t *o = json_object_get(f, "owner"), *live = json_object_get(f, "live");
                char v[256], lv[256];

                printf("  %s %s: %s (live %s) policy '%s' revision %lld\n",
                       json_string_value(json_object_get(f, "target")), json_string_value(json_object_get(f, "key")),
                       state_text_value("", json_object_get(f, "value"), v, sizeof(v)),
                       live && !json_is_null(live) ? state_text_value("", live, lv, sizeof(lv)) : "unread",
                       o ? json_string_value(json_object_get(o, "policy")) : "",
                       o ? (long long)json_integer_value(json_object_get(o, "revision")) : 0LL);
        }
}

/* {"nodes": [{"name", "reached", "layers", "fields", "error"}]}: each node's answer as its agent gave it. */
static void print_json(const struct inventory_node *const *sel, unsigned n, const struct intent_node *in)
{
        json_t *nodes = json_array(), *j;

        for (unsigned i = 0; i < n; i++)
                json_array_append_new(nodes, json_pack("{s:s, s:b, s:O?, s:O?, s:s?}", "name", sel[i]->name,
                                                       "reached", in[i].doc != NULL,
                                                       "layers", json_object_get(in[i].doc, "layers"),
                                                       "fields", json_object_get(in[i].doc, "fields"),
                                                       "error", in[i].doc ? NULL : in[i].error));
        j = json_pack("{s:o}", "nodes", nodes);
        output_json(j);
        json_decref(j);
}

int ctl_cmd_intent(struct ctl *c)
{
        _cleanup_free_ const struct inventory_node **sel = NULL;
        _cleanup_free_ const char **names = calloc((size_t)c->argc + 1, sizeof(*names));
        struct intent_node *in = NULL;
        struct ctl_selector only = { 0 };
        unsigned n = 0, n_names = 0, unreachable = 0;
        int r;

        if (!names)
                return OUTCOME_RUNTIME;
        for (int i = 0; i < c->argc; i++) {
                const char *a = c->argv[i];

                r = ctl_take_selector(c, &i, &only);
                if (r < 0)
                        return OUTCOME_INVALID;
                if (r > 0)
                        continue;
                if (streq(a, "--node") && i + 1 < c->argc)
                        names[n_names++] = c->argv[++i];
                else if (!strncmp(a, "--node=", 7) && a[7])
                        names[n_names++] = a + 7;
                else
                        return ctl_bad_arg(c, a), OUTCOME_INVALID;
        }
        if ((r = ctl_need_inventory(c)) > 0 || (r = ctl_select_only(c, NULL, &only, &sel, &n)) > 0)
                return r;
        if (ctl_only_nodes(c, sel, &n, names, n_names) < 0)
                return OUTCOME_INVALID;
        if ((r = ctl_need_http(c)) > 0)
                return r;
        in = calloc(n + 1, sizeof(*in));
        r = in ? collect(c, sel, n, in) : -ENOMEM;
        if (r < 0) {
                free(in);
                log_err("cannot query the agents: %s", strerror(-r));
                return OUTCOME_RUNTIME;
        }
        if (c->json)
                print_json(sel, n, in);
        else
                for (unsigned i = 0; i < n; i++)
                        print_node(sel[i]->name, &in[i]);
        for (unsigned i = 0; i < n; i++) {
                unreachable += !in[i].doc;
                json_decref(in[i].doc);
        }
        free(in);
        return unreachable ? OUTCOME_RUNTIME : OUTCOME_OK;
}

int ctl_layer_names(struct ctl *c, const struct inventory_node *const *sel, unsigned n,
                    char (*names)[POLICY_NAME_MAX], unsigned max, unsigned *ret_n)
{
        struct intent_node *in = calloc(n + 1, sizeof(*in));
        unsigned k = 0;
        int r = in ? collect(c, sel, n, in) : -ENOMEM;

        for (unsigned i = 0; r >= 0 && i < n; i++) {
                size_t j;
                json_t *l;

                json_array_foreach(json_object_get(in[i].doc, "layers"), j, l) {
                        const char *name = json_string_value(json_object_get(l, "policy"));
                        bool seen = false;

                        for (unsigned m = 0; name && m < k; m++)
                                seen |= streq(names[m], name);
                        if (name && !seen && k < max && strlen(name) < POLICY_NAME_MAX)
                                snprintf(names[k++], POLICY_NAME_MAX, "%s", name);
                }
        }
        for (unsigned i = 0; in && i < n; i++)
                json_decref(in[i].doc);
        free(in);
        *ret_n = k;
        return r;
}
