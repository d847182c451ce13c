/* SPDX-License-Identifier: MIT */
/*
 * One profile for hosts and switches: a policy's switch targets go to the nodes whose
 * agents manage those switches (the switches each names in GET /v1/health), whatever
 * its selector picks for hosts. Each node gets the part it carries: the host part
 * (targets.interfaces, to the nodes the selector picks), the switch part (the
 * switches it manages, by name), or both; each part is the same policy (the same
 * metadata.name: one layer on every node) with the other targets left out.
 */
#include <fnmatch.h>
#include <jansson.h>
#include <stdio.h>

#include "common/log.h"
#include "controller/cmd/ctl.h"
#include "controller/fleet/fleet.h"

/* The switches node i's agent names in its health answer (an older agent names none). */
static json_t *switches_of(const struct http_req *q, char *why, size_t size)
{
        json_error_t je;
        json_t *j, *sw;

        why[0] = '\0';
        if (q->err < 0 || q->status != 200) {
                if (q->err < 0)
                        http_req_error(q, why, size);
                else
                        reply_error_text(q->status, q->resp, q->resp_len, why, size);
                return NULL;
        }
        j = json_loadb(q->resp, q->resp_len, 0, &je);
        sw = json_incref(json_object_get(j, "switches"));
        json_decref(j);
        if (!json_is_array(sw)) {
                json_decref(sw);
                sw = json_array();
        }
        return sw;
}

static bool selected(const struct inventory_node *const *sel, unsigned n, const struct inventory_node *x)
{
        for (unsigned i = 0; i < n; i++)
                if (sel[i] == x)
                        return true;
        return false;
}

/* The policy's switch names/globs that name sw. */
static bool policy_names(const struct policy *p, const char *sw)
{
        for (unsigned i = 0; i < p->n_switches; i++)
                if (!fnmatch(p->switches[i], sw, 0))
                        return true;
        return false;
}

/* doc with targets.interfaces kept (hosts) or left out, and targets.switches = sw (NULL: left out). */
static char *part_doc(const json_t *doc, bool hosts, json_t *sw)
{
        json_t *d = json_deep_copy(doc), *t = json_object_get(d, "targets");
        char *text;

        if (!json_is_object(t)) {
                json_decref(d);
                return NULL;
        }
        if (!hosts)
                json_object_del(t, "interfaces");
        if (sw)
                json_object_set(t, "switches", sw);
        else
                json_object_del(t, "switches");
        text = json_dumps(d, JSON_COMPACT | JSON_SORT_KEYS);
        json_decref(d);
        return text;
}

static int add_doc(struct ctl_parts *pp, char *text)
{
        char **grown;

        for (unsigned i = 0; i < pp->n_docs; i++)
                if (streq(pp->docs[i], text)) {
                        free(text);
                        return (int)i;
                }
        grown = realloc(pp->docs, (pp->n_docs + 1) * sizeof(*grown));
        if (!grown) {
                free(text);
                return -ENOMEM;
        }
        pp->docs = grown;
        pp->docs[pp->n_docs] = text;
        return (int)pp->n_docs++;
}

/* Each non-glob switch of the policy is managed by exactly one node that answered. */
static int check_switches(const struct policy *p, json_t *const *sws, const struct inventory_node *const *all,
                          unsigned n_all, unsigned unreachable)
{
        for (unsigned k = 0; k < p->n_switches; k++) {
                const char *want = p->switches[k], *first = NULL;
                unsigned found = 0;

                for (unsigned i = 0; i < n_all; i++) {
                        json_t *s;
                        size_t j;

                        json_array_foreach(sws[i], j, s)
                                if (json_is_string(s) && !fnmatch(want, json_string_value(s), 0)) {
                                        if (found++ == 0)
                                                first = all[i]->name;
                                        else if (!strpbrk(want, "*?[") && strcmp(first, all[i]->name)) {
                                                log_err("switch '%s' of the policy is managed by the agents of %s and "
                                                        "%s: one node must manage it; nothing was changed", want, first,
                                                        all[i]->name);
                                                return -EINVAL;
                                        }
                                        break;
                                }
                }
                if (!found) {
                        log_err("switch '%s' of the policy: no node's agent manages it (asked %u node%s%s%s); nothing "
                                "was changed", want, n_all, n_all == 1 ? "" : "s", unreachable ? ", some did not "
                                "answer" : "", unreachable ? " (--skip-unreachable does not route it)" : "");
                        return unreachable ? -EHOSTUNREACH : -EINVAL;
                }
        }
        return 0;
}

int ctl_parts_make(struct ctl *c, const struct policy *p, const char *doc, const struct ctl_selector *only,
                   struct ctl_parts *ret)
{
        const struct inventory_node **hosts = NULL, **all = calloc(c->inv->n_nodes + 1, sizeof(*all));
        json_t **sws = calloc(c->inv->n_nodes + 1, sizeof(*sws)), *docj = json_loads(doc, 0, NULL);
        struct http_req *reqs = NULL;
        unsigned n_hosts = 0, n_all = 0, unreachable = 0;
        int r = all && sws && docj ? 0 : -ENOMEM;

        *ret = (struct ctl_parts) { 0 };
        if (r >= 0)
                r = ctl_select(c, p, &hosts, &n_hosts);
        for (unsigned i = 0; r >= 0 && i < c->inv->n_nodes; i++)
                if (ctl_labels_match(only->labels, only->n, &c->inv->nodes[i]))
                        all[n_all++] = &c->inv->nodes[i];
        if (r >= 0 && (r = ctl_query(c, all, n_all, "GET", "/v1/health", NULL, &reqs)) >= 0) {
                for (unsigned i = 0; i < n_all; i++) {
                        char why[300];

                        sws[i] = switches_of(&reqs[i], why, sizeof(why));
                        if (!sws[i]) {
                                unreachable++;
                                log_warn("%s did not say which switches it manages: %s", all[i]->name, why);
                                sws[i] = json_array();
                        }
                }
                ctl_query_free(reqs, n_all);
        }
        if (r >= 0)
                r = check_switches(p, sws, all, n_all, unreachable);
        ret->nodes = calloc(n_all + 1, sizeof(*ret->nodes));
        ret->doc_of = calloc(n_all + 1, sizeof(*ret->doc_of));
        ret->what = calloc(n_all + 1, sizeof(*ret->what));
        if (r >= 0 && (!ret->nodes || !ret->doc_of || !ret->what))
                r = -ENOMEM;
        for (unsigned i = 0; r >= 0 && i < n_all; i++) {
                bool host = p->n_interfaces > 0 && selected(hosts, n_hosts, all[i]);
                json_t *mine = json_array(), *s;
                size_t j, len = 0;
                int d;

                json_array_foreach(sws[i], j, s)
                        if (json_is_string(s) && policy_names(p, json_string_value(s)))
                                json_array_append(mine, s);
                if (!host && !json_array_size(mine)) {
                        json_decref(mine);
                        continue;
                }
                d = add_doc(ret, part_doc(docj, host, json_array_size(mine) ? mine : NULL));
                if (d < 0) {
                        json_decref(mine);
                        r = d;
                        break;
                }
                len = (size_t)snprintf(ret->what[ret->n], sizeof(ret->what[0]), "%s", host ? "hosts" : "");
                json_array_foreach(mine, j, s)
                        if (len < sizeof(ret->what[0]))
                                len += (size_t)snprintf(ret->what[ret->n] + len, sizeof(ret->what[0]) - len, "%s%s%s",
                                                        len ? ", " : "", j ? "" : "switch ", json_string_value(s));
                json_decref(mine);
                ret->nodes[ret->n] = all[i];
                ret->doc_of[ret->n++] = (unsigned)d;
        }
        for (unsigned i = 0; sws && i < n_all; i++)
                json_decref(sws[i]);
        free(sws);
        free(all);
        free(hosts);
        json_decref(docj);
        if (r < 0)
                ctl_parts_free(ret);
        if (r == -ENOMEM)
                log_err("out of memory");
        return r;
}

void ctl_parts_free(struct ctl_parts *pp)
{
        for (unsigned i = 0; i < pp->n_docs; i++)
                free(pp->docs[i]);
        free(pp->docs);
        free(pp->nodes);
        free(pp->doc_of);
        free(pp->what);
        *pp = (struct ctl_parts) { 0 };
}

json_t *ctl_parts_args(const struct ctl_parts *pp)
{
        json_t *docs = json_array(), *of = json_object();

        for (unsigned i = 0; docs && i < pp->n_docs; i++)
                json_array_append_new(docs, json_string(pp->docs[i]));
        for (unsigned i = 0; of && i < pp->n; i++)
                json_object_set_new(of, pp->nodes[i]->name, json_integer(pp->doc_of[i]));
        return json_pack("{s:o, s:o}", "docs", docs, "node_doc", of);
}
