/* SPDX-License-Identifier: MIT */
/* Inventory loading and strict validation. */
#include <fcntl.h>
#include <jansson.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/stat.h>

#include "inventory.h"

struct key_rule {
        const char *key;
        json_type type;
        bool required;
};

static const struct key_rule top_rules[] = {
        { "tls", JSON_OBJECT, true },
        { "nodes", JSON_ARRAY, true },
};

static const struct key_rule tls_rules[] = {
        { "ca", JSON_STRING, true },
        { "cert", JSON_STRING, true },
        { "key", JSON_STRING, true },
};

static const struct key_rule node_rules[] = {
        { "name", JSON_STRING, true },
        { "url", JSON_STRING, true },
        { "labels", JSON_OBJECT, false },
};

static const char *type_name(json_type t)
{
        switch (t) {
        case JSON_OBJECT: return "an object";
        case JSON_ARRAY: return "an array";
        case JSON_STRING: return "a string";
        case JSON_INTEGER: return "an integer";
        case JSON_REAL: return "a number";
        case JSON_TRUE: case JSON_FALSE: return "a boolean";
        default: return "null";
        }
}

static int fail(struct errbuf *e, const char *file, const char *path, const char *fmt, ...) _printf_(4, 5);
static int fail(struct errbuf *e, const char *file, const char *path, const char *fmt, ...)
{
        char where[sizeof(e->where)], msg[sizeof(e->msg)];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        snprintf(where, sizeof(where), "%s: %s", file, path);
        return errbuf_set(e, EINVAL, where, "%s", msg);
}

/* Walk one object against its table: wrong types, missing and unknown keys are errors. */
static int check_object(const json_t *obj, const struct key_rule *rules, size_t n,
                        const char *file, const char *path, struct errbuf *e)
{
        char sub[256];
        const char *k;
        json_t *v;

        json_object_foreach((json_t *)obj, k, v) {
                size_t i;

                for (i = 0; i < n && !streq(rules[i].key, k); i++)
                        ;
                snprintf(sub, sizeof(sub), "%s.%s", path, k);
                if (i == n)
                        return fail(e, file, sub, "unknown key '%s'", k);
                if (json_typeof(v) != rules[i].type)
                        return fail(e, file, sub, "expected %s", type_name(rules[i].type));
        }
        for (size_t i = 0; i < n; i++)
                if (rules[i].required && !json_object_get(obj, rules[i].key)) {
                        snprintf(sub, sizeof(sub), "%s.%s", path, rules[i].key);
                        return fail(e, file, sub, "required key '%s' is missing", rules[i].key);
                }
        return 0;
}

static bool name_ok(const char *s)
{
        size_t len = strlen(s);

        if (len == 0 || len >= INVENTORY_NAME_MAX)
                return false;
        for (; *s; s++)
                if (!(*s >= 'a' && *s <= 'z') && !(*s >= 'A' && *s <= 'Z') && !(*s >= '0' && *s <= '9') &&
                    *s != '.' && *s != '_' && *s != '-')
                        return false;
        return true;
}

static bool url_ok(const char *s)
{
        if (strncmp(s, "https://", 8) != 0 || strlen(s) >= INVENTORY_URL_MAX || !s[8])
                return false;
        for (const char *p = s + 8; *p; p++)
                if (*p <= ' ' || *p == '?' || *p == '#' || *p == '"' || *p == '\\' || (unsigned char)*p >= 0x7f)
                        return false;
        return true;
}

static int parse_tls(const json_t *tls, const char *file, const char *basedir,
                     struct inventory *inv, struct errbuf *e)
{
        struct { const char *key; char *dst; } f[] = {
                { "ca", inv->ca }, { "cert", inv->cert }, { "key", inv->key },
        };
        int r = check_object(tls, tls_rules, ARRAY_SIZE(tls_rules), file, "$.tls", e);

        if (r < 0)
                return r;
        for (size_t i = 0; i < ARRAY_SIZE(f); i++) {
                const char *v = json_string_value(json_object_get(tls, f[i].key));
                char path[32];
                int n;

                snprintf(path, sizeof(path), "$.tls.%s", f[i].key);
                if (!*v)
                        return fail(e, file, path, "empty file name");
                if (v[0] == '/' || !basedir)
                        n = snprintf(f[i].dst, INVENTORY_PATH_MAX, "%s", v);
                else
                        n = snprintf(f[i].dst, INVENTORY_PATH_MAX, "%s/%s", basedir, v);
                if (n < 0 || n >= INVENTORY_PATH_MAX)
                        return fail(e, file, path, "file name '%s' is too long", v);
        }
        return 0;
}

static int parse_labels(const json_t *labels, const char *file, const char *path,
                        struct inventory_node *n, struct errbuf *e)
{
        char sub[256];
        const char *k;
        json_t *v;

        if (!labels)
                return 0;
        if (json_object_size(labels) > POLICY_LABELS_MAX)
                return fail(e, file, path, "too many labels (at most %d)", POLICY_LABELS_MAX);
        json_object_foreach((json_t *)labels, k, v) {
                snprintf(sub, sizeof(sub), "%s.%s", path, k);
                if (!json_is_string(v))
                        return fail(e, file, sub, "expected a string");
                if (!*k || strlen(k) >= POLICY_LABEL_MAX)
                        return fail(e, file, sub, "label key '%s' must be 1-63 characters", k);
                if (strlen(json_string_value(v)) >= POLICY_LABEL_MAX)
                        return fail(e, file, sub, "label value '%s' is longer than 63 characters",
                                    json_string_value(v));
                snprintf(n->labels[n->n_labels].key, POLICY_LABEL_MAX, "%s", k);
                snprintf(n->labels[n->n_labels].value, POLICY_LABEL_MAX, "%s", json_string_value(v));
                n->n_labels++;
        }
        return 0;
}

static int parse_node(const json_t *j, unsigned idx, const char *file,
                      struct inventory *inv, struct errbuf *e)
{
        struct inventory_node *n = &inv->nodes[idx];
        char path[64], sub[96];
        const char *name, *url;
        int r;

        snprintf(path, sizeof(path), "$.nodes[%u]", idx);
        if (!json_is_object(j))
                return fail(e, file, path, "expected an object");
        r = check_object(j, node_rules, ARRAY_SIZE(node_rules), file, path, e);
        if (r < 0)
                return r;
        name = json_string_value(json_object_get(j, "name"));
        url = json_string_value(json_object_get(j, "url"));
        snprintf(sub, sizeof(sub), "%s.name", path);
        if (!name_ok(name))
                return fail(e, file, sub, "node name '%s' must be 1-63 characters of A-Z a-z 0-9 . _ -", name);
        if (inventory_find(inv, name))
                return fail(e, file, sub, "duplicate node name '%s'", name);
        snprintf(sub, sizeof(sub), "%s.url", path);
        if (!url_ok(url))
                return fail(e, file, sub, "'%s' is not an https:// URL (host[:port], no query)", url);
        snprintf(n->name, sizeof(n->name), "%s", name);
        snprintf(n->url, sizeof(n->url), "%s", url);
        while (strlen(n->url) > 8 && n->url[strlen(n->url) - 1] == '/')
                n->url[strlen(n->url) - 1] = '\0';
        snprintf(sub, sizeof(sub), "%s.labels", path);
        r = parse_labels(json_object_get(j, "labels"), file, sub, n, e);
        if (r < 0)
                return r;
        inv->n_nodes = idx + 1;
        return 0;
}

static int parse_doc(const json_t *root, const char *file, const char *basedir,
                     struct inventory *inv, struct errbuf *e)
{
        const json_t *nodes;
        int r;

        if (!json_is_object(root))
                return fail(e, file, "$", "expected an object");
        r = check_object(root, top_rules, ARRAY_SIZE(top_rules), file, "$", e);
        if (r < 0)
                return r;
        r = parse_tls(json_object_get(root, "tls"), file, basedir, inv, e);
        if (r < 0)
                return r;
        nodes = json_object_get(root, "nodes");
        if (json_array_size(nodes) == 0)
                return fail(e, file, "$.nodes", "no nodes: at least one is needed");
        if (json_array_size(nodes) > INVENTORY_NODES_MAX)
                return fail(e, file, "$.nodes", "too many nodes (at most %d)", INVENTORY_NODES_MAX);
        inv->nodes = calloc(json_array_size(nodes), sizeof(*inv->nodes));
        if (!inv->nodes)
                return errbuf_set(e, ENOMEM, file, "out of memory");
        for (size_t i = 0; i < json_array_size(nodes); i++) {
                r = parse_node(json_array_get(nodes, i), (unsigned)i, file, inv, e);
                if (r < 0)
                        return r;
        }
        return 0;
}

int inventory_parse_buffer(const char *buf, size_t len, const char *name, const char *basedir,
                           struct inventory **ret, struct errbuf *e)
{
        struct inventory *inv;
        json_error_t jerr;
        json_t *root;
        int r;

        root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
        if (!root) {
                char where[sizeof(e->where)];

                snprintf(where, sizeof(where), "%s:%d:%d", name, jerr.line, jerr.column);
                return errbuf_set(e, EINVAL, where, "%s", jerr.text);
        }
        inv = calloc(1, sizeof(*inv));
        if (!inv) {
                json_decref(root);
                return errbuf_set(e, ENOMEM, name, "out of memory");
        }
        r = parse_doc(root, name, basedir, inv, e);
        json_decref(root);
        if (r < 0) {
                inventory_free(inv);
                return r;
        }
        *ret = inv;
        return 0;
}

static int read_file(const char *path, char **ret, size_t *ret_len, struct errbuf *e)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        _cleanup_free_ char *buf = NULL;
        struct stat st;
        ssize_t n;

        if (fd < 0 || fstat(fd, &st) < 0)
                return errbuf_set(e, errno, path, "cannot read inventory: %s", strerror(errno));
        if (!S_ISREG(st.st_mode) || (size_t)st.st_size > INVENTORY_DOC_MAX)
                return errbuf_set(e, EINVAL, path, "not a regular file of at most 16 MiB");
        buf = malloc((size_t)st.st_size + 1);
        if (!buf)
                return errbuf_set(e, ENOMEM, path, "out of memory");
        n = read(fd, buf, (size_t)st.st_size);
        if (n < 0)
                return errbuf_set(e, errno, path, "cannot read inventory: %s", strerror(errno));
        buf[n] = '\0';
        *ret_len = (size_t)n;
        *ret = TAKE_PTR(buf);
        return 0;
}

int inventory_load_file(const char *path, struct inventory **ret, struct errbuf *e)
{
        _cleanup_free_ char *buf = NULL, *dir = NULL;
        size_t len = 0;
        int r;

        r = read_file(path, &buf, &len, e);
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
        free(inv->nodes);
        free(inv);
}

const struct inventory_node *inventory_find(const struct inventory *inv, const char *name)
{
        for (unsigned i = 0; i < inv->n_nodes; i++)
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
