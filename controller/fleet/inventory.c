/* SPDX-License-Identifier: MIT */
/* Inventory loading and strict validation through the shared table-driven validator (jsonv.h). */
#include <arpa/inet.h>
#include <ctype.h>
#include <libgen.h>

#include "controller/fleet/fleet.h"
#include "policies/json/jsonv.h"

/* A DNS name: labels of 1-63 letters, digits and '-' (not at either end), 253 characters at most. */
static bool dns_name_ok(const char *h, size_t len)
{
        size_t label = 0;

        if (len == 0 || len > 253)
                return false;
        for (size_t i = 0; i <= len; i++) {
                char c = i < len ? h[i] : '.';

                if (c == '.') {
                        if (label == 0 || label > 63 || h[i - 1] == '-' || h[i - label] == '-')
                                return false;
                        label = 0;
                } else if (isalnum((unsigned char)c) || c == '-') {
                        label++;
                } else {
                        return false;
                }
        }
        return true;
}

/* The host of an authority: "[v6]", a dotted IPv4 address or a DNS name. NULL, or what is wrong. */
static const char *host_problem(const char *h, size_t len)
{
        char buf[64];
        unsigned char a[16];

        if (len > 0 && h[0] == '[') {
                if (len < 3 || h[len - 1] != ']' || len - 2 >= sizeof(buf))
                        return "an IPv6 address in brackets ('[::1]') is expected";
                snprintf(buf, sizeof(buf), "%.*s", (int)(len - 2), h + 1);
                return inet_pton(AF_INET6, buf, a) == 1 ? NULL : "the address in brackets is not an IPv6 address";
        }
        if (memchr(h, ':', len))
                return "write IPv6 addresses in brackets ('https://[::1]:7440')";
        if (len > 0 && strspn(h, "0123456789.") >= len) {
                snprintf(buf, sizeof(buf), "%.*s", (int)(len < sizeof(buf) ? len : sizeof(buf) - 1), h);
                return inet_pton(AF_INET, buf, a) == 1 ? NULL : "the host is not an IPv4 address";
        }
        return dns_name_ok(h, len) ? NULL : "the host is not a DNS name, an IPv4 address or a bracketed IPv6 address";
}

/*
 * https://HOST[:PORT][/]: scheme https, no user information, HOST a DNS name, an IPv4
 * address or a bracketed IPv6 address, PORT 1-65535, no path, query or fragment.
 * NULL when it is one, else what is wrong.
 */
static const char *url_problem(const char *s)
{
        const char *auth = s + 8, *end, *colon, *close;
        size_t hlen;

        if (strncmp(s, "https://", 8) != 0)
                return "the scheme must be https://";
        end = auth + strcspn(auth, "/?#");
        if (*end && strspn(end, "/") != strlen(end))
                return "a path, query or fragment is not allowed";
        if (memchr(auth, '@', (size_t)(end - auth)))
                return "user information (user:password@) is not allowed";
        if (auth[0] == '[') {
                close = memchr(auth, ']', (size_t)(end - auth));
                if (!close)
                        return "the '[' around the IPv6 address is not closed";
                colon = close + 1 < end ? close + 1 : NULL;
                if (colon && *colon != ':')
                        return "only ':PORT' may follow the bracketed address";
        } else {
                colon = memchr(auth, ':', (size_t)(end - auth));
                if (colon && memchr(colon + 1, ':', (size_t)(end - colon - 1)))
                        return "write IPv6 addresses in brackets ('https://[::1]:7440')";
        }
        hlen = (size_t)((colon ? colon : end) - auth);
        if (hlen == 0)
                return "the host is empty";
        if (host_problem(auth, hlen))
                return host_problem(auth, hlen);
        if (colon) {
                size_t digits = strspn(colon + 1, "0123456789");
                unsigned long port = strtoul(colon + 1, NULL, 10);

                if (digits == 0 || colon + 1 + digits != end || digits > 5 || port < 1 || port > 65535)
                        return "the port must be a number 1-65535";
        }
        return NULL;
}

/* v->user: the inventory being filled (nodes before the current one are complete). */
static int check_name(struct jsonv *v, const json_t *j, void *obj)
{
        const struct inventory *inv = v->user;
        const char *name = json_string_value(j);
        char q[80];
        int r = jsonv_check_chars(v, "node name", name, "-_.");

        if (r < 0)
                return r;
        if (inventory_find(inv, name))
                return jsonv_error(v, "duplicate node name '%s'", jsonv_quote(name, q, sizeof(q)));
        return 0;
}

static int check_url(struct jsonv *v, const json_t *j, void *obj)
{
        struct inventory_node *n = obj;
        char q[80];
        size_t len;

        const char *why = url_problem(json_string_value(j));

        if (why)
                return jsonv_error(v, "'%s' is not an agent URL https://HOST[:PORT]: %s",
                                   jsonv_quote(json_string_value(j), q, sizeof(q)), why);
        for (len = strlen(n->url); len > 8 && n->url[len - 1] == '/'; len--)
                n->url[len - 1] = '\0';
        return 0;
}

/* Labels take what they need (a node's record is small: 10,000 of them fit in a few MiB). */
static int parse_labels(struct jsonv *v, const json_t *j, void *obj)
{
        struct policy_label tmp[POLICY_LABELS_MAX];
        struct inventory_node *n = obj;
        unsigned k = 0;
        int r = policy_labels_parse(v, j, tmp, &k);

        if (r < 0 || k == 0)
                return r;
        n->labels = malloc(k * sizeof(*n->labels));
        if (!n->labels)
                return errbuf_set(v->e, ENOMEM, v->file, "out of memory");
        memcpy(n->labels, tmp, k * sizeof(*n->labels));
        n->n_labels = k;
        return 0;
}

#define REQ_STR(k, st, m, fn) { .key = (k), .type = JSONV_STRING, .flags = JSONV_REQUIRED | JSONV_NONEMPTY, \
                                JSONV_MEMBER(st, m), .parse = (fn) }

static const struct jsonv_field node_fields[] = {
        REQ_STR("name", struct inventory_node, name, check_name),
        REQ_STR("url", struct inventory_node, url, check_url),
        JSONV_CUSTOM("labels", JSONV_OBJECT, 0, parse_labels),
        { 0 },
};

static const struct jsonv_field tls_fields[] = {
        REQ_STR("ca", struct inventory, ca, NULL),
        REQ_STR("cert", struct inventory, cert, NULL),
        REQ_STR("key", struct inventory, key, NULL),
        { 0 },
};

/* The top level's keys and types first; its members are parsed after (parse_doc). */
static const struct jsonv_field top_fields[] = {
        JSONV_CUSTOM("tls", JSONV_OBJECT, JSONV_REQUIRED, NULL),
        JSONV_CUSTOM("nodes", JSONV_ARRAY, JSONV_REQUIRED, NULL),
        { 0 },
};

/* Resolve the TLS file names against basedir (NULL: as given). */
static int resolve_tls(struct jsonv *v, const char *basedir, struct inventory *inv)
{
        struct { const char *key; char *p; } f[] = {
                { "ca", inv->ca }, { "cert", inv->cert }, { "key", inv->key },
        };
        char buf[2 * INVENTORY_PATH_MAX], q[80];
        int r = 0;

        for (size_t i = 0; i < ARRAY_SIZE(f) && r >= 0 && basedir; i++) {
                if (f[i].p[0] == '/')
                        continue;
                snprintf(buf, sizeof(buf), "%s/%s", basedir, f[i].p);
                jsonv_push_key(v, f[i].key);
                if (strlen(buf) >= INVENTORY_PATH_MAX)
                        r = jsonv_error(v, "file name '%s' is too long once resolved against '%s' (max %d bytes)",
                                        jsonv_quote(f[i].p, q, sizeof(q)), basedir, INVENTORY_PATH_MAX - 1);
                else
                        snprintf(f[i].p, INVENTORY_PATH_MAX, "%s", buf);
                jsonv_pop(v);
        }
        return r;
}

static size_t name_hash(const char *k)
{
        size_t h = 1469598103934665603ull;

        while (*k)
                h = (h ^ (unsigned char)*k++) * 1099511628211ull;
        return h;
}

/* The slot of name in the index: its node, or the empty slot where it would go. */
static unsigned *name_slot(const struct inventory *inv, const char *name)
{
        for (size_t i = name_hash(name) & (inv->by_name_cap_ - 1);; i = (i + 1) & (inv->by_name_cap_ - 1))
                if (!inv->by_name_[i] || streq(inv->nodes[inv->by_name_[i] - 1].name, name))
                        return &inv->by_name_[i];
}

static int parse_node(struct jsonv *v, const json_t *el, size_t i, void *ctx)
{
        struct inventory *inv = ctx;
        int r = jsonv_object(v, el, node_fields, &inv->nodes[i]);

        if (r >= 0) {
                inv->n_nodes = (unsigned)i + 1;
                *name_slot(inv, inv->nodes[i].name) = (unsigned)i + 1;
        } else {
                free(inv->nodes[i].labels);     /* not counted: inventory_free would not see it */
                inv->nodes[i].labels = NULL;
        }
        return r;
}

static int parse_nodes(struct jsonv *v, const json_t *nodes, struct inventory *inv)
{
        size_t n = json_array_size(nodes) ? json_array_size(nodes) : 1;

        inv->nodes = calloc(n, sizeof(*inv->nodes));
        for (inv->by_name_cap_ = 16; inv->by_name_cap_ < 2 * n && inv->by_name_cap_ < (1u << 30);)
                inv->by_name_cap_ *= 2;
        inv->by_name_ = calloc(inv->by_name_cap_, sizeof(*inv->by_name_));
        if (!inv->nodes || !inv->by_name_)
                return errbuf_set(v->e, ENOMEM, v->file, "out of memory");
        return jsonv_object_array(v, nodes, "node", "nodes", 1, INVENTORY_NODES_MAX, parse_node, inv);
}

static int parse_doc(struct jsonv *v, const json_t *root, const char *basedir, struct inventory *inv)
{
        int r = jsonv_object(v, root, top_fields, NULL);

        if (r < 0)
                return r;
        jsonv_push_key(v, "tls");
        r = jsonv_object(v, json_object_get(root, "tls"), tls_fields, inv);
        if (r >= 0)
                r = resolve_tls(v, basedir, inv);
        jsonv_pop(v);
        if (r < 0)
                return r;
        jsonv_push_key(v, "nodes");
        r = parse_nodes(v, json_object_get(root, "nodes"), inv);
        jsonv_pop(v);
        return r;
}

int inventory_parse_buffer(const char *buf, size_t len, const char *name, const char *basedir,
                           struct inventory **ret, struct errbuf *e)
{
        struct inventory *inv;
        json_t *root;
        struct jsonv v;
        int r;

        r = jsonv_parse(buf, len, name, INVENTORY_DOC_MAX, &root, e);
        if (r < 0)
                return r;
        inv = calloc(1, sizeof(*inv));
        if (!inv) {
                json_decref(root);
                return errbuf_set(e, ENOMEM, name, "out of memory");
        }
        jsonv_init(&v, name, e);
        v.user = inv;
        r = parse_doc(&v, root, basedir, inv);
        json_decref(root);
        if (r < 0) {
                inventory_free(inv);
                return r;
        }
        *ret = inv;
        return 0;
}

int inventory_load_file(const char *path, struct inventory **ret, struct errbuf *e)
{
        _cleanup_free_ char *buf = NULL, *dir = NULL;
        size_t len = 0;
        int r;

        r = jsonv_read_file(path, INVENTORY_DOC_MAX, &buf, &len, e);
        if (r < 0)
                return r;
        dir = strdup(path);
        if (!dir)
                return errbuf_set(e, ENOMEM, path, "out of memory");
        return inventory_parse_buffer(buf, len, path, dirname(dir), ret, e);
}

void inventory_free(struct inventory *inv)
{
        if (!inv)
                return;
        for (unsigned i = 0; inv->nodes && i < inv->n_nodes; i++)
                free(inv->nodes[i].labels);
        free(inv->nodes);
        free(inv->by_name_);
        free(inv);
}

const struct inventory_node *inventory_find(const struct inventory *inv, const char *name)
{
        if (inv->by_name_) {
                unsigned k = *name_slot(inv, name);

                return k ? &inv->nodes[k - 1] : NULL;
        }
        for (unsigned i = 0; i < inv->n_nodes; i++)     /* an inventory made by hand */
                if (streq(inv->nodes[i].name, name))
                        return &inv->nodes[i];
        return NULL;
}

bool inventory_node_has_label(const struct inventory_node *n, const char *key, const char *value)
{
        for (unsigned i = 0; i < n->n_labels; i++)
                if (streq(n->labels[i].key, key) && streq(n->labels[i].value, value))
                        return true;
        return false;
}
