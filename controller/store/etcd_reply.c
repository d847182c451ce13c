/* SPDX-License-Identifier: MIT */
/* Strict parsing of etcd v3 JSON gateway replies. */
#include <jansson.h>

#include "controller/store/store_etcd_internal.h"

static const char b64_alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *etcd_b64_encode(const void *data, size_t len)
{
        const unsigned char *p = data;
        char *out = malloc((len + 2) / 3 * 4 + 1), *o = out;

        if (!out)
                return NULL;
        for (size_t i = 0; i < len; i += 3) {
                unsigned v = (unsigned)p[i] << 16 | (i + 1 < len ? (unsigned)p[i + 1] << 8 : 0) |
                             (i + 2 < len ? p[i + 2] : 0);

                *o++ = b64_alphabet[v >> 18 & 63];
                *o++ = b64_alphabet[v >> 12 & 63];
                *o++ = i + 1 < len ? b64_alphabet[v >> 6 & 63] : '=';
                *o++ = i + 2 < len ? b64_alphabet[v & 63] : '=';
        }
        *o = '\0';
        return out;
}

static int b64_value(char c)
{
        const char *p = c ? strchr(b64_alphabet, c) : NULL;

        return p ? (int)(p - b64_alphabet) : -1;
}

int etcd_b64_decode(const char *s, size_t len, size_t max, char **ret, size_t *ret_len)
{
        size_t pad = 0, n;
        char *out;

        if (len % 4)
                return -EBADMSG;
        while (pad < 2 && pad < len && s[len - 1 - pad] == '=')
                pad++;
        n = len / 4 * 3 - pad;
        if (n > max)
                return -EFBIG;
        out = malloc(n + 1);
        if (!out)
                return -ENOMEM;
        for (size_t i = 0, k = 0; i < len; i += 4) {
                int v[4];
                unsigned w;

                for (int j = 0; j < 4; j++) {
                        bool padded = s[i + j] == '=' && i + 4 == len && j >= 4 - (int)pad;

                        v[j] = padded ? 0 : b64_value(s[i + j]);
                        if (v[j] < 0) {
                                free(out);
                                return -EBADMSG;
                        }
                }
                w = (unsigned)v[0] << 18 | (unsigned)v[1] << 12 | (unsigned)v[2] << 6 | (unsigned)v[3];
                if (k < n)
                        out[k++] = (char)(w >> 16);
                if (k < n)
                        out[k++] = (char)(w >> 8 & 0xff);
                if (k < n)
                        out[k++] = (char)(w & 0xff);
        }
        out[n] = '\0';
        *ret = out;
        *ret_len = n;
        return 0;
}

/* An int64 member: a decimal string (the gateway's form) or an integer; absent = 0; never negative. */
static int get_i64(const json_t *o, const char *key, int64_t *ret, const char *path, struct errbuf *e)
{
        const json_t *v = json_object_get(o, key);
        const char *s;
        int64_t x = 0;

        *ret = 0;
        if (!v)
                return 0;
        if (json_is_integer(v)) {
                x = json_integer_value(v);
        } else if (json_is_string(v)) {
                s = json_string_value(v);
                if (!s[0] || json_string_length(v) > 19)
                        return errbuf_set(e, EBADMSG, "etcd", "%s.%s: expected a decimal number", path, key);
                for (size_t i = 0; s[i]; i++) {
                        if (s[i] < '0' || s[i] > '9')
                                return errbuf_set(e, EBADMSG, "etcd", "%s.%s: expected a decimal number", path, key);
                        if (x > (INT64_MAX - (s[i] - '0')) / 10)
                                return errbuf_set(e, EBADMSG, "etcd", "%s.%s: out of range", path, key);
                        x = x * 10 + (s[i] - '0');
                }
        } else {
                return errbuf_set(e, EBADMSG, "etcd", "%s.%s: expected a number", path, key);
        }
        if (x < 0)
                return errbuf_set(e, EBADMSG, "etcd", "%s.%s: negative", path, key);
        *ret = x;
        return 0;
}

static int get_bool(const json_t *o, const char *key, bool *ret, const char *path, struct errbuf *e)
{
        const json_t *v = json_object_get(o, key);

        *ret = false;
        if (!v)
                return 0;
        if (!json_is_boolean(v))
                return errbuf_set(e, EBADMSG, "etcd", "%s.%s: expected true or false", path, key);
        *ret = json_is_true(v);
        return 0;
}

/* An optional member that must be an object (absent: NULL). */
static int get_obj(const json_t *o, const char *key, const json_t **ret, const char *path, struct errbuf *e)
{
        const json_t *v = json_object_get(o, key);

        *ret = NULL;
        if (v && !json_is_object(v))
                return errbuf_set(e, EBADMSG, "etcd", "%s.%s: expected an object", path, key);
        *ret = v;
        return 0;
}

static int get_arr(const json_t *o, const char *key, const json_t **ret, const char *path, struct errbuf *e)
{
        const json_t *v = json_object_get(o, key);

        *ret = NULL;
        if (v && !json_is_array(v))
                return errbuf_set(e, EBADMSG, "etcd", "%s.%s: expected an array", path, key);
        *ret = v;
        return 0;
}

static int get_b64(const json_t *o, const char *key, size_t max, bool text, char **ret, size_t *ret_len,
                   const char *path, struct errbuf *e)
{
        const json_t *v = json_object_get(o, key);
        int r;

        *ret = NULL;
        *ret_len = 0;
        if (v && !json_is_string(v))
                return errbuf_set(e, EBADMSG, "etcd", "%s.%s: expected a base64 string", path, key);
        r = etcd_b64_decode(v ? json_string_value(v) : "", v ? json_string_length(v) : 0, max, ret, ret_len);
        if (r == -EFBIG)
                return errbuf_set(e, EFBIG, "etcd", "%s.%s: longer than %zu bytes", path, key, max);
        if (r < 0)
                return errbuf_set(e, r == -ENOMEM ? ENOMEM : EBADMSG, "etcd", "%s.%s: %s", path, key,
                                  r == -ENOMEM ? "out of memory" : "not base64");
        if (text && memchr(*ret, '\0', *ret_len)) {
                free(*ret);
                *ret = NULL;
                return errbuf_set(e, EBADMSG, "etcd", "%s.%s: contains a NUL byte", path, key);
        }
        return 0;
}

static int parse_kv(const json_t *o, struct etcd_kv *kv, const char *path, struct errbuf *e)
{
        size_t klen;
        int r;

        if (!json_is_object(o))
                return errbuf_set(e, EBADMSG, "etcd", "%s: expected an object", path);
        if ((r = get_b64(o, "key", ETCD_KEY_MAX, true, &kv->key, &klen, path, e)) < 0 ||
            (r = get_b64(o, "value", ETCD_VALUE_MAX, false, &kv->value, &kv->value_len, path, e)) < 0 ||
            (r = get_i64(o, "create_revision", &kv->create_rev, path, e)) < 0 ||
            (r = get_i64(o, "mod_revision", &kv->mod_rev, path, e)) < 0 ||
            (r = get_i64(o, "version", &kv->version, path, e)) < 0 ||
            (r = get_i64(o, "lease", &kv->lease, path, e)) < 0)
                return r;
        if (klen == 0)
                return errbuf_set(e, EBADMSG, "etcd", "%s.key: empty", path);
        return 0;
}

static int add_kvs(struct etcd_reply *r, size_t more, struct errbuf *e)
{
        struct etcd_kv *k;

        if (r->n_kvs + more > ETCD_KVS_MAX)
                return errbuf_set(e, EFBIG, "etcd", "more than %u keys in one answer", ETCD_KVS_MAX);
        k = realloc(r->kvs, (r->n_kvs + more + 1) * sizeof(*k));
        if (!k)
                return errbuf_set(e, ENOMEM, "etcd", "out of memory");
        memset(k + r->n_kvs, 0, (more + 1) * sizeof(*k));
        r->kvs = k;
        return 0;
}

static int parse_header(const json_t *o, struct etcd_reply *r, const char *path, struct errbuf *e)
{
        const json_t *h;
        char p[64];
        int rc = get_obj(o, "header", &h, path, e);

        snprintf(p, sizeof(p), "%s.header", path);
        return rc < 0 || !h ? rc : get_i64(h, "revision", &r->revision, p, e);
}

/* "kvs" of a range (or the events' kvs of a watch) appended to r->kvs. */
static int parse_kvs(const json_t *o, const char *member, struct etcd_reply *r, const char *path, struct errbuf *e)
{
        const json_t *arr, *x;
        char p[96];
        size_t i;
        int rc = get_arr(o, member, &arr, path, e);

        if (rc < 0 || !arr)
                return rc;
        rc = add_kvs(r, json_array_size(arr), e);
        json_array_foreach(arr, i, x) {
                struct etcd_kv *kv = &r->kvs[r->n_kvs];

                if (rc < 0)
                        break;
                snprintf(p, sizeof(p), "%s.%s[%zu]", path, member, i);
                if (streq(member, "events")) {
                        const json_t *t = json_is_object(x) ? json_object_get(x, "type") : NULL, *kvo;

                        if (!json_is_object(x))
                                return errbuf_set(e, EBADMSG, "etcd", "%s: expected an object", p);
                        if (t && (!json_is_string(t) || (!streq(json_string_value(t), "PUT") &&
                                                         !streq(json_string_value(t), "DELETE"))))
                                return errbuf_set(e, EBADMSG, "etcd", "%s.type: expected PUT or DELETE", p);
                        kv->deleted = t && streq(json_string_value(t), "DELETE");
                        kvo = json_object_get(x, "kv");
                        strncat(p, ".kv", sizeof(p) - strlen(p) - 1);
                        rc = parse_kv(kvo, kv, p, e);
                } else {
                        rc = parse_kv(x, kv, p, e);
                }
                r->n_kvs++;             /* counted even when partial: etcd_reply_done frees it */
        }
        return rc;
}

static int parse_range(const json_t *o, struct etcd_reply *r, const char *path, struct errbuf *e)
{
        int rc = parse_kvs(o, "kvs", r, path, e);

        if (rc >= 0)
                rc = get_i64(o, "count", &r->count, path, e);
        if (rc >= 0)
                rc = get_bool(o, "more", &r->more, path, e);
        return rc;
}

static int parse_txn(const json_t *o, struct etcd_reply *r, struct errbuf *e)
{
        const json_t *arr, *x;
        size_t i;
        int rc = get_bool(o, "succeeded", &r->succeeded, "$", e);

        if (rc >= 0)
                rc = get_arr(o, "responses", &arr, "$", e);
        if (rc < 0 || !arr)
                return rc;
        json_array_foreach(arr, i, x) {
                const json_t *range, *put, *del;
                char p[64];

                snprintf(p, sizeof(p), "$.responses[%zu]", i);
                if (!json_is_object(x))
                        return errbuf_set(e, EBADMSG, "etcd", "%s: expected an object", p);
                if ((rc = get_obj(x, "response_range", &range, p, e)) < 0 ||
                    (rc = get_obj(x, "response_put", &put, p, e)) < 0 ||
                    (rc = get_obj(x, "response_delete_range", &del, p, e)) < 0)
                        return rc;
                if (!range && !put && !del)
                        return errbuf_set(e, EBADMSG, "etcd", "%s: expected response_range, response_put or "
                                          "response_delete_range", p);
                if (range) {
                        strncat(p, ".response_range", sizeof(p) - strlen(p) - 1);
                        if ((rc = parse_range(range, r, p, e)) < 0)
                                return rc;
                }
                r->n_responses++;
        }
        return 0;
}

static int parse_watch(const json_t *o, struct etcd_reply *r, struct errbuf *e)
{
        int rc;

        if ((rc = get_obj(o, "result", &o, "$", e)) < 0)
                return rc;
        if (!o)
                return errbuf_set(e, EBADMSG, "etcd", "$.result: missing");
        if ((rc = parse_header(o, r, "$.result", e)) < 0 ||
            (rc = get_bool(o, "created", &r->created, "$.result", e)) < 0 ||
            (rc = get_bool(o, "canceled", &r->canceled, "$.result", e)) < 0)
                return rc;
        return parse_kvs(o, "events", r, "$.result", e);
}

static int parse_obj(enum etcd_reply_kind kind, const json_t *o, struct etcd_reply *r, struct errbuf *e)
{
        int rc;

        if (json_object_get(o, "error"))
                return errbuf_set(e, EREMOTEIO, "etcd", "an error answer where a result was expected");
        if (kind == ETCD_REPLY_WATCH)
                return parse_watch(o, r, e);
        if (kind == ETCD_REPLY_KEEPALIVE) {
                if ((rc = get_obj(o, "result", &o, "$", e)) < 0)
                        return rc;
                if (!o)
                        return errbuf_set(e, EBADMSG, "etcd", "$.result: missing");
        }
        rc = parse_header(o, r, "$", e);
        if (rc < 0)
                return rc;
        switch (kind) {
        case ETCD_REPLY_RANGE:
                return parse_range(o, r, "$", e);
        case ETCD_REPLY_TXN:
                return parse_txn(o, r, e);
        case ETCD_REPLY_LEASE:
        case ETCD_REPLY_KEEPALIVE:
                if ((rc = get_i64(o, "ID", &r->id, "$", e)) < 0)
                        return rc;
                return get_i64(o, "TTL", &r->ttl, "$", e);
        default:
                return 0;
        }
}

int etcd_reply_parse(enum etcd_reply_kind kind, const char *body, size_t len, struct etcd_reply *ret,
                     struct errbuf *e)
{
        struct etcd_reply r = { 0 };
        json_error_t jerr;
        json_t *j;
        int rc;

        if ((unsigned)kind >= ETCD_REPLY_KIND_MAX)
                return errbuf_set(e, EINVAL, "etcd", "unknown kind of answer");
        if (!body || len == 0)
                return errbuf_set(e, EBADMSG, "etcd", "empty answer");
        if (len > ETCD_REPLY_MAX)
                return errbuf_set(e, EFBIG, "etcd", "answer larger than %u bytes", ETCD_REPLY_MAX);
        j = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
        if (!j)
                return errbuf_set(e, EBADMSG, "etcd", "not JSON: %s", jerr.text);
        if (!json_is_object(j)) {
                json_decref(j);
                return errbuf_set(e, EBADMSG, "etcd", "not a JSON object");
        }
        rc = parse_obj(kind, j, &r, e);
        json_decref(j);
        if (rc < 0) {
                etcd_reply_done(&r);
                return rc;
        }
        *ret = r;
        return 0;
}

void etcd_reply_done(struct etcd_reply *r)
{
        if (!r)
                return;
        for (unsigned i = 0; i < r->n_kvs; i++) {
                free(r->kvs[i].key);
                free(r->kvs[i].value);
        }
        free(r->kvs);
        memset(r, 0, sizeof(*r));
}

const char *etcd_reply_error(long status, const char *body, size_t len, char *buf, size_t size)
{
        json_t *j = body && len ? json_loadb(body, len, 0, NULL) : NULL;
        const json_t *m = json_is_object(j) ? json_object_get(j, "message") : NULL;
        const json_t *c = json_is_object(j) ? json_object_get(j, "code") : NULL;

        if (!json_is_string(m) && json_is_object(j))
                m = json_object_get(j, "error");
        if (json_is_string(m))
                snprintf(buf, size, "%.300s (code %lld)", json_string_value(m),
                         json_is_integer(c) ? (long long)json_integer_value(c) : -1LL);
        else
                snprintf(buf, size, "HTTP %ld", status);
        json_decref(j);
        return buf;
}
