/* SPDX-License-Identifier: MIT */
/*
 * An inventory from Kubernetes' own list of nodes: `kubectl get nodes -o json` (a
 * List or NodeList of v1 Node objects, core/v1 types.go: metadata.name,
 * metadata.labels, status.addresses[] of {type, address}) into the document
 * inventory.c reads, then read back by inventory.c itself: what comes out is
 * validated exactly as a hand-written inventory is, and an error names the
 * Kubernetes node it came from (fleet.h, inventory_from_kubernetes).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "controller/fleet/fleet.h"
#include "policies/json/jsonv.h"

#define K8S_NAME_MAX 254                /* a node's name: a DNS subdomain, 253 characters at most */

static int refuse(struct errbuf *e, const char *file, const char *name, size_t i, const char *fmt, ...)
        _printf_(5, 6);
static int refuse(struct errbuf *e, const char *file, const char *name, size_t i, const char *fmt, ...)
{
        char where[512], msg[600];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        if (name)
                snprintf(where, sizeof(where), "%s: $.items[%zu] (node '%.*s')", file, i, K8S_NAME_MAX, name);
        else
                snprintf(where, sizeof(where), "%s: $.items[%zu]", file, i);
        return errbuf_set(e, EINVAL, where, "%s; no inventory was written", msg);
}

/* The first address of type o->address_type, or NULL; *ret_types lists the types it has. */
static const char *pick_address(const json_t *addrs, const char *type, char *types, size_t size)
{
        const char *found = NULL;
        size_t i, n = 0;
        json_t *a;

        types[0] = '\0';
        json_array_foreach(addrs, i, a) {
                const char *t = json_string_value(json_object_get(a, "type")),
                           *v = json_string_value(json_object_get(a, "address"));

                if (!t || !v)
                        continue;
                if (!found && streq(t, type))
                        found = v;
                if (!strstr(types, t) && n + strlen(t) + 3 < size)
                        n += (size_t)snprintf(types + n, size - n, "%s%s", n ? ", " : "", t);
        }
        return found;
}

/* The agent's URL: the template with {name} and {address} (an IPv6 address in brackets). */
static int make_url(const char *tmpl, const char *name, const char *address, char *buf, size_t size)
{
        unsigned char a6[16];
        bool v6 = inet_pton(AF_INET6, address, a6) == 1;
        size_t n = 0;

        for (const char *p = tmpl; *p; ) {
                int w;

                if (!strncmp(p, "{address}", 9)) {
                        w = snprintf(buf + n, size - n, v6 ? "[%s]" : "%s", address);
                        p += 9;
                } else if (!strncmp(p, "{name}", 6)) {
                        w = snprintf(buf + n, size - n, "%s", name);
                        p += 6;
                } else {
                        w = snprintf(buf + n, size - n, "%c", *p++);
                }
                if (w < 0 || (size_t)w >= size - n)
                        return -ENAMETOOLONG;
                n += (size_t)w;
        }
        return 0;
}

static bool label_wanted(const struct inventory_k8s_opts *o, const char *key)
{
        if (o->all_labels)
                return true;
        for (unsigned i = 0; i < o->n_prefixes; i++)
                if (!strncmp(key, o->prefixes[i], strlen(o->prefixes[i])))
                        return true;
        return false;
}

/* Is the node one the agent runs on (it carries o->agent_label, with o->agent_value when given)? */
static bool runs_agent(const struct inventory_k8s_opts *o, const json_t *labels)
{
        const json_t *v = json_object_get(labels, o->agent_label);

        if (!o->agent_label || !*o->agent_label)
                return true;
        return json_is_string(v) && (!o->agent_value || streq(json_string_value(v), o->agent_value));
}

/* One item into an inventory node (NULL when it is left out: *left_out set). */
static int one_node(const struct inventory_k8s_opts *o, const char *file, const json_t *item, size_t i,
                    json_t **ret, bool *left_out)
{
        const json_t *meta = json_object_get(item, "metadata"), *labels, *addrs;
        const char *name, *addr, *key;
        char types[128], url[INVENTORY_URL_MAX + 64];
        json_t *node, *lab, *val;
        struct errbuf *e = o->e;
        const char *k;

        *ret = NULL;
        *left_out = false;
        if (!json_is_object(item) || !json_is_object(meta))
                return refuse(e, file, NULL, i, "expected a Node object with 'metadata'");
        name = json_string_value(json_object_get(meta, "name"));
        if (!name || !*name)
                return refuse(e, file, NULL, i, "the node has no metadata.name");
        k = json_string_value(json_object_get(item, "kind"));
        if (json_object_get(item, "kind") && (!k || !streq(k, "Node")))
                return refuse(e, file, name, i, "kind '%.40s' is not a Node", k ? k : "(not a string)");
        labels = json_object_get(meta, "labels");
        if (labels && !json_is_object(labels))
                return refuse(e, file, name, i, "metadata.labels is not an object");
        if (!runs_agent(o, labels)) {
                *left_out = true;
                return 0;
        }
        addrs = json_object_get(json_object_get(item, "status"), "addresses");
        if (!json_is_array(addrs))
                return refuse(e, file, name, i, "status.addresses is missing: no address to reach its agent at");
        addr = pick_address(addrs, o->address_type, types, sizeof(types));
        if (!addr)
                return refuse(e, file, name, i, "no %s address (it has: %s); choose another with --address-type",
                              o->address_type, types[0] ? types : "none");
        if (make_url(o->url_template, name, addr, url, sizeof(url)) < 0)
                return refuse(e, file, name, i, "the agent URL made from '%s' is too long", o->url_template);
        node = json_pack("{s:s, s:s}", "name", name, "url", url);
        lab = json_object();
        if (!node || !lab) {
                json_decref(node);
                json_decref(lab);
                return errbuf_set(e, ENOMEM, file, "out of memory");
        }
        json_object_foreach((json_t *)labels, key, val)
                if (label_wanted(o, key))
                        json_object_set(lab, key, val);
        json_object_set_new(node, "labels", lab);
        *ret = node;
        return 0;
}

/* "... $.nodes[K]..." in an error of inventory.c: which Kubernetes item became node K. */
static void name_the_node(struct errbuf *e, const char *file, const json_t *nodes, const size_t *item_of)
{
        const char *p = strstr(e->where, "$.nodes[");
        char where[sizeof(e->where)];
        unsigned long k;

        if (!p)
                return;
        k = strtoul(p + 8, NULL, 10);
        if (k >= json_array_size(nodes))
                return;
        snprintf(where, sizeof(where), "%s: $.items[%zu] (node '%s'), as the inventory's %s", file, item_of[k],
                 json_string_value(json_object_get(json_array_get(nodes, k), "name")), p);
        snprintf(e->where, sizeof(e->where), "%s", where);
}

int inventory_from_kubernetes(const char *buf, size_t len, const char *file, const struct inventory_k8s_opts *o,
                              struct inventory_k8s *ret)
{
        json_t *root = NULL, *items, *item, *nodes = NULL, *doc = NULL;
        _cleanup_free_ size_t *item_of = NULL;
        struct inventory *inv = NULL;
        char *text = NULL;
        const char *kind;
        struct errbuf *e = o->e;
        size_t i;
        int r;

        memset(ret, 0, sizeof(*ret));
        r = jsonv_parse(buf, len, file, INVENTORY_K8S_DOC_MAX, &root, e);
        if (r < 0)
                return r;
        kind = json_string_value(json_object_get(root, "kind"));
        items = json_object_get(root, "items");
        if (!json_is_object(root) || !kind || !(streq(kind, "List") || streq(kind, "NodeList")) ||
            !json_is_array(items)) {
                r = errbuf_set(e, EINVAL, file, "expected the output of 'kubectl get nodes -o json' (kind List or "
                               "NodeList with 'items'), found %s%s%s", kind ? "kind '" : "", kind ? kind : "no kind",
                               kind ? "'" : "");
                goto out;
        }
        nodes = json_array();
        item_of = calloc(json_array_size(items) + 1, sizeof(*item_of));
        if (!nodes || !item_of) {
                r = errbuf_set(e, ENOMEM, file, "out of memory");
                goto out;
        }
        json_array_foreach(items, i, item) {
                json_t *node;
                bool left;

                r = one_node(o, file, item, i, &node, &left);
                if (r < 0)
                        goto out;
                ret->n_items++;
                if (left) {
                        if (ret->n_left_out < INVENTORY_K8S_NAMED_MAX)
                                snprintf(ret->left_out[ret->n_left_out], sizeof(ret->left_out[0]), "%s",
                                         json_string_value(json_object_get(json_object_get(item, "metadata"),
                                                                           "name")));
                        ret->n_left_out++;
                        continue;
                }
                item_of[json_array_size(nodes)] = i;
                json_array_append_new(nodes, node);
        }
        if (!json_array_size(nodes)) {
                r = errbuf_set(e, EINVAL, file, "none of its %u nodes carries the agent's label '%s'%s%s: an "
                               "inventory needs at least one node; no inventory was written", ret->n_items,
                               o->agent_label, o->agent_value ? " = " : "", o->agent_value ? o->agent_value : "");
                goto out;
        }
        doc = json_pack("{s:{s:s, s:s, s:s}, s:O}", "tls", "ca", o->ca, "cert", o->cert, "key", o->key, "nodes",
                        nodes);
        text = doc ? json_dumps(doc, JSON_INDENT(2) | JSON_PRESERVE_ORDER) : NULL;
        if (!text) {
                r = errbuf_set(e, ENOMEM, file, "out of memory");
                goto out;
        }
        /* read back as a hand-written inventory is */
        r = inventory_parse_buffer(text, strlen(text), file, NULL, &inv, e);
        if (r < 0) {
                name_the_node(e, file, nodes, item_of);
                errbuf_suffix(e, "; no inventory was written");
                goto out;
        }
        ret->n_nodes = inv->n_nodes;
        ret->text = text;
        text = NULL;
out:
        inventory_free(inv);
        free(text);
        json_decref(doc);
        json_decref(nodes);
        json_decref(root);
        return r;
}
