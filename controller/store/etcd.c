/* SPDX-License-Identifier: MIT */
/* etcd v3 over its JSON gateway: calls, endpoint failover, mTLS, watch. */
#include <curl/curl.h>

#include "controller/store/store_etcd_internal.h"

struct etcd_client {
        char endpoints[ETCD_ENDPOINTS_MAX][256];
        unsigned n_endpoints, current;
        char *ca, *cert, *key;
        unsigned timeout_ms;
        CURL *easy;
};

struct body {
        char *data;
        size_t len, cap;
        /* watch */
        bool watch, changed, canceled;
        long long rev;
        struct errbuf *e;
        int err;
};

static int parse_endpoints(struct etcd_client *c, const char *list, struct errbuf *e)
{
        const char *p = list;

        while (*p) {
                size_t n = strcspn(p, ",");
                const char *colon = memchr(p, ':', n);

                if (n == 0 || n >= sizeof(c->endpoints[0]) || !colon || colon == p || colon + 1 == p + n ||
                    c->n_endpoints == ETCD_ENDPOINTS_MAX)
                        return errbuf_set(e, EINVAL, "--store", "'%.*s': expected HOST:PORT (at most %d endpoints)",
                                          (int)n, p, ETCD_ENDPOINTS_MAX);
                for (const char *q = colon + 1; q < p + n; q++)
                        if (*q < '0' || *q > '9')
                                return errbuf_set(e, EINVAL, "--store", "'%.*s': the port is not a number", (int)n, p);
                snprintf(c->endpoints[c->n_endpoints++], sizeof(c->endpoints[0]), "%.*s", (int)n, p);
                p += n + (p[n] == ',');
        }
        if (c->n_endpoints == 0)
                return errbuf_set(e, EINVAL, "--store", "no etcd endpoint given");
        return 0;
}

int etcd_client_new(const char *endpoints, const struct etcd_tls *tls, unsigned timeout_ms,
                    struct etcd_client **ret, struct errbuf *e)
{
        static bool global_done;
        struct etcd_client *c = calloc(1, sizeof(*c));
        int r;

        if (!c)
                return errbuf_set(e, ENOMEM, "etcd", "out of memory");
        if (!global_done) {
                curl_global_init(CURL_GLOBAL_DEFAULT);
                global_done = true;
        }
        r = parse_endpoints(c, endpoints, e);
        if (r < 0) {
                free(c);
                return r;
        }
        c->timeout_ms = timeout_ms ? timeout_ms : 5000;
        if (tls && tls->ca) {
                c->ca = strdup(tls->ca);
                c->cert = tls->cert ? strdup(tls->cert) : NULL;
                c->key = tls->key ? strdup(tls->key) : NULL;
                if (!c->ca || (tls->cert && !c->cert) || (tls->key && !c->key)) {
                        etcd_client_free(c);
                        return errbuf_set(e, ENOMEM, "etcd", "out of memory");
                }
        }
        c->easy = curl_easy_init();
        if (!c->easy) {
                etcd_client_free(c);
                return errbuf_set(e, ENOMEM, "etcd", "cannot initialise libcurl");
        }
        *ret = c;
        return 0;
}

int etcd_client_clone(const struct etcd_client *c, unsigned timeout_ms, struct etcd_client **ret,
                      struct errbuf *e)
{
        char list[ETCD_ENDPOINTS_MAX * 257] = "";
        struct etcd_tls tls = { c->ca, c->cert, c->key };
        int r;

        for (unsigned i = 0; i < c->n_endpoints; i++) {
                strcat(list, i ? "," : "");
                strcat(list, c->endpoints[i]);
        }
        r = etcd_client_new(list, &tls, timeout_ms, ret, e);
        if (r >= 0)
                (*ret)->current = c->current;
        return r;
}

void etcd_client_free(struct etcd_client *c)
{
        if (!c)
                return;
        if (c->easy)
                curl_easy_cleanup(c->easy);
        free(c->ca);
        free(c->cert);
        free(c->key);
        free(c);
}

const char *etcd_endpoint(const struct etcd_client *c)
{
        return c->endpoints[c->current];
}

/* A complete watch message (one line) in b->data[0..n): note events; 0 to stop the transfer. */
static bool watch_message(struct body *b, size_t n)
{
        struct etcd_reply r;
        struct errbuf pe = { 0 };

        if (etcd_reply_parse(ETCD_REPLY_WATCH, b->data, n, &r, &pe) < 0) {
                b->err = errbuf_set(b->e, EBADMSG, "etcd", "watch: %s", pe.msg);
                return false;
        }
        if (r.canceled)
                b->canceled = true;
        if (r.n_kvs > 0) {
                b->changed = true;
                b->rev = r.kvs[r.n_kvs - 1].mod_rev;
        }
        etcd_reply_done(&r);
        return !b->changed && !b->canceled;
}

static size_t on_write(char *data, size_t size, size_t nmemb, void *userdata)
{
        struct body *b = userdata;
        size_t len = size * nmemb;
        char *nl;

        if (b->len + len > ETCD_REPLY_MAX)
                return 0;
        if (b->len + len + 1 > b->cap) {
                size_t cap = b->cap ? b->cap : 4096;
                char *p;

                while (cap < b->len + len + 1)
                        cap *= 2;
                p = realloc(b->data, cap);
                if (!p)
                        return 0;
                b->data = p;
                b->cap = cap;
        }
        memcpy(b->data + b->len, data, len);
        b->len += len;
        b->data[b->len] = '\0';
        while (b->watch && (nl = memchr(b->data, '\n', b->len))) {
                size_t n = (size_t)(nl - b->data);
                bool go_on = n == 0 || watch_message(b, n);

                memmove(b->data, nl + 1, b->len - n - 1);
                b->len -= n + 1;
                if (!go_on)
                        return 0;
        }
        return len;
}

/* One POST to one endpoint. Returns the HTTP status, or -errno of the transport. */
static long post_once(struct etcd_client *c, const char *path, const char *req, unsigned timeout_ms,
                      struct body *b, char *err, size_t err_size)
{
        char url[512], errbuf[CURL_ERROR_SIZE] = "";
        struct curl_slist *h = curl_slist_append(NULL, "Content-Type: application/json");
        CURL *easy = c->easy;
        long status = 0;
        CURLcode rc;

        snprintf(url, sizeof(url), "%s://%s%s", c->ca ? "https" : "http", c->endpoints[c->current], path);
        curl_easy_reset(easy);
        curl_easy_setopt(easy, CURLOPT_URL, url);
        curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(easy, CURLOPT_POSTFIELDS, req);
        curl_easy_setopt(easy, CURLOPT_HTTPHEADER, h);
        curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, (long)(timeout_ms < 2000 ? timeout_ms : 2000));
        curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, (long)timeout_ms);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_write);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, b);
        curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, errbuf);
        if (c->ca) {
                curl_easy_setopt(easy, CURLOPT_CAINFO, c->ca);
                curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 1L);
                curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 2L);
                if (c->cert)
                        curl_easy_setopt(easy, CURLOPT_SSLCERT, c->cert);
                if (c->key)
                        curl_easy_setopt(easy, CURLOPT_SSLKEY, c->key);
        }
        rc = curl_easy_perform(easy);
        curl_slist_free_all(h);
        if (rc == CURLE_OK) {
                curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
                return status;
        }
        snprintf(err, err_size, "%s", errbuf[0] ? errbuf : curl_easy_strerror(rc));
        if (rc == CURLE_WRITE_ERROR && b->watch && (b->changed || b->canceled || b->err))
                return 200;
        if (rc == CURLE_OPERATION_TIMEDOUT)
                return b->watch ? 200 : -ETIMEDOUT;
        if (rc == CURLE_WRITE_ERROR)
                return -EFBIG;
        if (rc == CURLE_COULDNT_CONNECT || rc == CURLE_COULDNT_RESOLVE_HOST)
                return -ECONNREFUSED;
        if (rc == CURLE_SSL_CONNECT_ERROR || rc == CURLE_PEER_FAILED_VERIFICATION || rc == CURLE_SSL_CERTPROBLEM)
                return -EPROTO;
        return -EIO;
}

/* etcd's gateway says "unavailable" (code 14) or a 5xx while a member has no leader: try another. */
static bool try_next(long status, const struct body *b)
{
        if (status < 0)
                return status != -EPROTO && status != -EFBIG;
        return status >= 500 || (b->data && strstr(b->data, "\"code\":14"));
}

static int post(struct etcd_client *c, const char *path, json_t *req, unsigned timeout_ms, struct body *b,
                struct errbuf *e)
{
        char *text = json_dumps(req, JSON_COMPACT);
        char err[256] = "";
        long status = -EIO;

        json_decref(req);
        if (!text)
                return errbuf_set(e, ENOMEM, "etcd", "out of memory");
        for (unsigned i = 0; i < c->n_endpoints; i++) {
                b->len = 0;
                b->changed = b->canceled = false;
                status = post_once(c, path, text, timeout_ms, b, err, sizeof(err));
                if (!try_next(status, b) || b->err)
                        break;
                c->current = (c->current + 1) % c->n_endpoints;
        }
        free(text);
        if (b->err)
                return b->err;
        if (status < 0)
                return errbuf_set(e, -status, "etcd", "%s%s: %s", etcd_endpoint(c), path, err);
        if (status != 200) {
                char why[400];

                return errbuf_set(e, EREMOTEIO, "etcd", "%s%s: %s", etcd_endpoint(c), path,
                                  etcd_reply_error(status, b->data, b->len, why, sizeof(why)));
        }
        return 0;
}

int etcd_call(struct etcd_client *c, const char *path, json_t *req, enum etcd_reply_kind kind,
              struct etcd_reply *ret, struct errbuf *e)
{
        struct body b = { .e = e };
        int r;

        if (!req)
                return errbuf_set(e, ENOMEM, "etcd", "out of memory");
        r = post(c, path, req, c->timeout_ms, &b, e);
        if (r >= 0) {
                r = etcd_reply_parse(kind, b.data, b.len, ret, e);
                if (r < 0)
                        errbuf_prefix(e, "%s%s", etcd_endpoint(c), path);
        }
        free(b.data);
        return r;
}

int etcd_watch(struct etcd_client *c, const char *key, const char *range_end, long long start_rev,
               unsigned timeout_ms, bool *ret_changed, long long *ret_rev, struct errbuf *e)
{
        struct body b = { .watch = true, .e = e };
        json_t *req = json_pack("{s:{s:o, s:o, s:s}}", "create_request", "key", etcd_key(key),
                                "range_end", etcd_key(range_end), "start_revision", "0");
        char rev[32];
        int r;

        snprintf(rev, sizeof(rev), "%lld", start_rev);
        if (req)
                json_object_set_new(json_object_get(req, "create_request"), "start_revision", json_string(rev));
        if (!req)
                return errbuf_set(e, ENOMEM, "etcd", "out of memory");
        r = post(c, "/v3/watch", req, timeout_ms, &b, e);
        free(b.data);
        if (r < 0)
                return r;
        if (b.canceled && !b.changed)
                return errbuf_set(e, ESTALE, "etcd", "watch canceled (revision %lld compacted)", start_rev);
        *ret_changed = b.changed;
        if (b.changed)
                *ret_rev = b.rev;
        return 0;
}

json_t *etcd_key(const char *key)
{
        char *b = etcd_b64_encode(key, strlen(key));
        json_t *j = b ? json_string(b) : NULL;

        free(b);
        return j;
}

json_t *etcd_range_req(const char *key, const char *range_end, long long limit, bool descend)
{
        json_t *j = json_pack("{s:o}", "key", etcd_key(key));
        char n[32];

        if (j && range_end)
                json_object_set_new(j, "range_end", etcd_key(range_end));
        if (j && limit > 0) {
                snprintf(n, sizeof(n), "%lld", limit);
                json_object_set_new(j, "limit", json_string(n));
        }
        if (j && descend) {
                json_object_set_new(j, "sort_order", json_string("DESCEND"));
                json_object_set_new(j, "sort_target", json_string("KEY"));
        }
        return j;
}

json_t *etcd_put_op(const char *key, const char *value, long long lease)
{
        json_t *put = json_pack("{s:o, s:o}", "key", etcd_key(key), "value", etcd_key(value));
        char n[32];

        if (put && lease) {
                snprintf(n, sizeof(n), "%lld", lease);
                json_object_set_new(put, "lease", json_string(n));
        }
        return put ? json_pack("{s:o}", "request_put", put) : NULL;
}

json_t *etcd_range_op(const char *key)
{
        return json_pack("{s:{s:o}}", "request_range", "key", etcd_key(key));
}

json_t *etcd_delete_op(const char *key)
{
        return json_pack("{s:{s:o}}", "request_delete_range", "key", etcd_key(key));
}

json_t *etcd_cmp(const char *key, const char *target, long long value)
{
        const char *field = streq(target, "CREATE") ? "create_revision" : streq(target, "MOD") ? "mod_revision" :
                            "lease";
        char n[32];

        snprintf(n, sizeof(n), "%lld", value);
        return json_pack("{s:o, s:s, s:s, s:s}", "key", etcd_key(key), "target", target, "result", "EQUAL",
                         field, n);
}

void etcd_prefix_end(const char *prefix, char *buf, size_t size)
{
        size_t n = strlen(prefix);

        snprintf(buf, size, "%s", prefix);
        if (n > 0 && n < size)
                buf[n - 1]++;
}
