/* SPDX-License-Identifier: MIT */
/*
 * YAML documents for the validator, as Kubernetes and nmstate users write policies:
 * libyaml's events become the JSON tree the tables validate (jsonv.h), and every
 * node's line and column is kept under its JSON path, so an error reads
 *
 *   policy.yaml:7:5: $.spec.pfc.priorities[1]: priority 9 out of range 0-7
 *
 * One document; plain scalars typed by the YAML 1.2 core schema (null, true/false,
 * decimal, 0o octal and 0x hex integers, floats; "yes", "on" and "010"-style
 * octals stay what 1.2 makes of them), quoted scalars always strings; keys are
 * scalars, each once. Aliases, anchors' copies and tags other than the core ones
 * are refused: a policy is data, and a document must not grow when it is read.
 * libyaml is loaded on first use (yaml_lib.c): a JSON policy never loads it.
 */
#include <ctype.h>
#include <math.h>
#include <yaml.h>

#include "policies/json/jsonv.h"
#include "policies/json/yaml_lib.h"

struct ybuild {
        yaml_parser_t p;
        struct jsonv path;              /* the JSON path of the node being read */
        struct jsonv_locs *locs;
        const char *file;
        struct errbuf *e;
};

/* The position of the node at the current path, unless it has one (a member's is its key's). */
static int remember(struct ybuild *b, const yaml_mark_t *m)
{
        unsigned line, col;

        if (jsonv_locs_find(b->locs, b->path.path, &line, &col))
                return 0;
        if (jsonv_locs_add(b->locs, b->path.path, (unsigned)m->line + 1, (unsigned)m->column + 1) < 0)
                return errbuf_set(b->e, ENOMEM, b->file, "out of memory");
        return 0;
}

static int fail_at(struct ybuild *b, const yaml_mark_t *m, const char *fmt, ...) _printf_(3, 4);
static int fail_at(struct ybuild *b, const yaml_mark_t *m, const char *fmt, ...)
{
        char where[sizeof(b->e->where)];
        va_list ap;

        snprintf(where, sizeof(where), "%s:%zu:%zu%s%s", b->file ? b->file : "<input>", m->line + 1, m->column + 1,
                 b->path.depth ? ": " : "", b->path.depth ? b->path.path : "");
        snprintf(b->e->where, sizeof(b->e->where), "%s", where);
        va_start(ap, fmt);
        vsnprintf(b->e->msg, sizeof(b->e->msg), fmt, ap);
        va_end(ap);
        return -EINVAL;
}

static int next(struct ybuild *b, yaml_event_t *ev)
{
        if (yaml_parser_parse(&b->p, ev))
                return 0;
        return fail_at(b, &b->p.problem_mark, "%s%s%s", b->p.problem ? b->p.problem : "invalid YAML",
                       b->p.context ? " " : "", b->p.context ? b->p.context : "");
}

/* ---- scalars: the YAML 1.2 core schema ---- */

static bool is_null(const char *s)
{
        return !*s || streq(s, "~") || streq(s, "null") || streq(s, "Null") || streq(s, "NULL");
}

static int is_bool(const char *s)
{
        if (streq(s, "true") || streq(s, "True") || streq(s, "TRUE"))
                return 1;
        if (streq(s, "false") || streq(s, "False") || streq(s, "FALSE"))
                return 0;
        return -1;
}

/* [-+]?[0-9]+, 0o[0-7]+, 0x[0-9a-fA-F]+: 1 and *ret; 0 not an integer; -ERANGE too large. */
static int as_integer(const char *s, long long *ret)
{
        int base = 10;
        const char *d = s;
        char *end;
        long long x;

        if (!strncmp(s, "0o", 2) || !strncmp(s, "0x", 2)) {
                base = s[1] == 'o' ? 8 : 16;
                d = s + 2;
        } else if (*d == '-' || *d == '+') {
                d++;
        }
        if (!*d)
                return 0;
        for (const char *c = d; *c; c++)
                if (base == 16 ? !isxdigit((unsigned char)*c) : (*c < '0' || *c > (base == 8 ? '7' : '9')))
                        return 0;
        errno = 0;
        x = strtoll(base == 10 ? s : d, &end, base);
        if (errno == ERANGE)
                return -ERANGE;
        *ret = x;
        return 1;
}

/* [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)? */
static bool is_float(const char *s)
{
        const char *c = s + (*s == '-' || *s == '+');
        bool digits = false;

        while (isdigit((unsigned char)*c))
                c++, digits = true;
        if (*c == '.')
                for (c++; isdigit((unsigned char)*c); c++)
                        digits = true;
        if (!digits)
                return false;
        if (*c == 'e' || *c == 'E') {
                c += 1 + (c[1] == '-' || c[1] == '+');
                if (!isdigit((unsigned char)*c))
                        return false;
                while (isdigit((unsigned char)*c))
                        c++;
        }
        return *c == '\0';
}

static int plain_scalar(struct ybuild *b, const yaml_event_t *ev, const char *s, json_t **ret)
{
        long long x;
        int k;

        if (is_null(s))
                *ret = json_null();
        else if ((k = is_bool(s)) >= 0)
                *ret = json_boolean(k);
        else if ((k = as_integer(s, &x)) != 0) {
                if (k < 0)
                        return fail_at(b, &ev->start_mark, "integer '%.40s' out of range", s);
                *ret = json_integer(x);
        } else if (is_float(s)) {
                double d = strtod(s, NULL);

                if (!isfinite(d))       /* 2e900: JSON has no infinity */
                        return fail_at(b, &ev->start_mark, "number '%.40s' out of range", s);
                *ret = json_real(d);
        }
        else if (streq(s, ".inf") || streq(s, "-.inf") || streq(s, ".nan") || streq(s, ".NaN"))
                return fail_at(b, &ev->start_mark, "'%s' has no JSON value", s);
        else
                *ret = json_string(s);
        return *ret ? 0 : fail_at(b, &ev->start_mark, "a string that is not UTF-8");
}

/* A scalar as JSON: a core tag (!!str, !!int, ...) says which, else its style and text. */
static int scalar(struct ybuild *b, const yaml_event_t *ev, json_t **ret)
{
        const char *s = (const char *)ev->data.scalar.value, *tag = (const char *)ev->data.scalar.tag;
        bool plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;

        if (strlen(s) != ev->data.scalar.length)
                return fail_at(b, &ev->start_mark, "a string with a NUL character");
        if (tag && streq(tag, YAML_STR_TAG))
                plain = false;
        else if (tag && !streq(tag, YAML_INT_TAG) && !streq(tag, YAML_FLOAT_TAG) && !streq(tag, YAML_BOOL_TAG) &&
                 !streq(tag, YAML_NULL_TAG) && !streq(tag, "!"))
                return fail_at(b, &ev->start_mark, "YAML tag '%.60s' is not supported", tag);
        if (!plain) {
                *ret = json_stringn(s, ev->data.scalar.length);
                return *ret ? 0 : fail_at(b, &ev->start_mark, "a string that is not UTF-8");
        }
        return plain_scalar(b, ev, s, ret);
}

/* ---- collections ---- */

static int node(struct ybuild *b, yaml_event_t *ev, json_t **ret);

static int sequence(struct ybuild *b, json_t *arr)
{
        for (size_t i = 0;; i++) {
                yaml_event_t ev;
                json_t *child = NULL;
                int r = next(b, &ev);

                if (r < 0)
                        return r;
                if (ev.type == YAML_SEQUENCE_END_EVENT) {
                        yaml_event_delete(&ev);
                        return 0;
                }
                jsonv_push_index(&b->path, i);
                r = node(b, &ev, &child);
                jsonv_pop(&b->path);
                yaml_event_delete(&ev);
                if (r < 0)
                        return r;
                json_array_append_new(arr, child);
        }
}

static int member(struct ybuild *b, json_t *obj, const yaml_event_t *key)
{
        const char *k = (const char *)key->data.scalar.value;
        yaml_event_t ev;
        json_t *child = NULL;
        char q[80];
        int r;

        if (key->type != YAML_SCALAR_EVENT)
                return fail_at(b, &key->start_mark, "a key must be a string, not a %s",
                               key->type == YAML_ALIAS_EVENT ? "YAML alias" : "list or mapping");
        if (strlen(k) != key->data.scalar.length)
                return fail_at(b, &key->start_mark, "a key with a NUL character");
        jsonv_push_key(&b->path, k);
        if (json_object_get(obj, k))
                r = fail_at(b, &key->start_mark, "duplicate key '%s'", jsonv_quote(k, q, sizeof(q)));
        else
                r = remember(b, &key->start_mark);
        if (r >= 0 && (r = next(b, &ev)) >= 0) {
                r = node(b, &ev, &child);
                yaml_event_delete(&ev);
        }
        jsonv_pop(&b->path);
        if (r >= 0 && json_object_set_new(obj, k, child) < 0)
                r = fail_at(b, &key->start_mark, "a key that is not UTF-8");
        return r;
}

static int mapping(struct ybuild *b, json_t *obj)
{
        for (;;) {
                yaml_event_t key;
                int r = next(b, &key);

                if (r < 0)
                        return r;
                if (key.type == YAML_MAPPING_END_EVENT) {
                        yaml_event_delete(&key);
                        return 0;
                }
                r = member(b, obj, &key);
                yaml_event_delete(&key);
                if (r < 0)
                        return r;
        }
}

static int node(struct ybuild *b, yaml_event_t *ev, json_t **ret)
{
        json_t *j = NULL;
        int r = remember(b, &ev->start_mark);

        if (r < 0)
                return r;
        if (b->path.depth >= JSONV_DEPTH_MAX - 1 &&
            (ev->type == YAML_SEQUENCE_START_EVENT || ev->type == YAML_MAPPING_START_EVENT))
                return fail_at(b, &ev->start_mark, "nested deeper than %d levels", JSONV_DEPTH_MAX - 1);
        switch (ev->type) {
        case YAML_SCALAR_EVENT:
                r = scalar(b, ev, &j);
                break;
        case YAML_SEQUENCE_START_EVENT:
                j = json_array();
                r = j ? sequence(b, j) : -ENOMEM;
                break;
        case YAML_MAPPING_START_EVENT:
                j = json_object();
                r = j ? mapping(b, j) : -ENOMEM;
                break;
        case YAML_ALIAS_EVENT:
                return fail_at(b, &ev->start_mark, "YAML aliases ('*%.40s') are not supported: write the value out",
                               (const char *)ev->data.alias.anchor);
        default:
                return fail_at(b, &ev->start_mark, "unexpected YAML event");
        }
        if (r == -ENOMEM)
                errbuf_set(b->e, ENOMEM, b->file, "out of memory");
        if (r < 0) {
                json_decref(j);
                return r;
        }
        *ret = j;
        return 0;
}

/* STREAM-START DOCUMENT-START node DOCUMENT-END STREAM-END, nothing else. */
static int document(struct ybuild *b, json_t **ret)
{
        yaml_event_t ev;
        json_t *root = NULL;
        int r = 0;

        for (int step = 0; r >= 0 && step < 5; step++) {
                r = next(b, &ev);
                if (r < 0)
                        break;
                if (step == 1 && ev.type == YAML_STREAM_END_EVENT)
                        r = errbuf_set(b->e, EINVAL, b->file, "document is empty");
                else if (step == 2)
                        r = node(b, &ev, &root);
                else if (step == 4 && ev.type == YAML_DOCUMENT_START_EVENT)
                        r = fail_at(b, &ev.start_mark, "a second YAML document: a file holds one policy");
                yaml_event_delete(&ev);
        }
        if (r >= 0 && !json_is_object(root) && !json_is_array(root))
                r = errbuf_set(b->e, EINVAL, b->file, "document is a YAML %s, expected a mapping",
                               jsonv_type_name(root));
        if (r < 0) {
                json_decref(root);
                return r;
        }
        *ret = root;
        return 0;
}

int jsonv_parse_yaml(const char *buf, size_t len, const char *file, size_t max, json_t **ret,
                     struct jsonv_locs **ret_locs, struct errbuf *e)
{
        struct ybuild b = { .file = file, .e = e };
        json_t *root = NULL;
        int r;

        if (len > max)
                return errbuf_set(e, EINVAL, file, "document is %zu bytes, larger than the limit of %zu bytes",
                                  len, max);
        r = yaml_lib_open(e);
        if (r < 0)
                return r;
        b.locs = jsonv_locs_new();
        if (!b.locs || !yaml_parser_initialize(&b.p)) {
                jsonv_locs_free(b.locs);
                return errbuf_set(e, ENOMEM, file, "out of memory");
        }
        jsonv_init(&b.path, NULL, NULL);
        yaml_parser_set_input_string(&b.p, (const unsigned char *)buf, len);
        r = document(&b, &root);
        yaml_parser_delete(&b.p);
        if (r < 0) {
                jsonv_locs_free(b.locs);
                return r;
        }
        *ret = root;
        *ret_locs = b.locs;
        return 0;
}

bool jsonv_is_yaml(const char *file, const char *buf, size_t len)
{
        size_t n = file ? strlen(file) : 0;
        size_t i = 0;

        if ((n > 5 && !strcmp(file + n - 5, ".yaml")) || (n > 4 && !strcmp(file + n - 4, ".yml")))
                return true;
        if (n > 5 && !strcmp(file + n - 5, ".json"))
                return false;
        while (i < len && isspace((unsigned char)buf[i]))
                i++;
        return i < len && buf[i] != '{' && buf[i] != '[';
}

int jsonv_parse_doc(const char *buf, size_t len, const char *file, size_t max, json_t **ret,
                    struct jsonv_locs **ret_locs, struct errbuf *e)
{
        *ret_locs = NULL;
        if (jsonv_is_yaml(file, buf, len))
                return jsonv_parse_yaml(buf, len, file, max, ret, ret_locs, e);
        return jsonv_parse(buf, len, file, max, ret, e);
}
