/* SPDX-License-Identifier: MIT */
#include <arpa/inet.h>
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <jansson.h>
#include <microhttpd.h>
#include <stdarg.h>
#include <strings.h>

#include "agent/http/http_internal.h"
#include "common/log.h"
#include "common/netaddr.h"
#include "policies/json/jsonv.h"

/*
 * Connections in all (one thread each): the unauthenticated budget below, plus room
 * for authenticated clients that the budget can never take. Unauthenticated: at most
 * HTTP_PENDING_MAX in all and HTTP_PENDING_PER_ADDR per address (http_guard.c).
 * Authenticated: readers at most HTTP_READ_MAX in all and HTTP_READ_PER_CLIENT per
 * certificate, one operate certificate at most HTTP_OPERATE_PER_CLIENT; so
 * HTTP_CONNECTIONS_MAX - HTTP_PENDING_MAX - HTTP_READ_MAX (64) slots are the operate
 * clients' whatever readers and strangers do.
 */
#define HTTP_CONNECTIONS_MAX 160
#define HTTP_PENDING_MAX 32
#define HTTP_PENDING_PER_ADDR 8
#define HTTP_READ_MAX 64
#define HTTP_READ_PER_CLIENT 16
#define HTTP_OPERATE_PER_CLIENT 96
/* TLS 1.3 first, TLS 1.2 only with ECDHE and AEAD ciphers (no CBC, no SHA-1 MACs). */
#define HTTP_TLS_PRIORITIES "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2:-CIPHER-ALL:+AES-256-GCM:" \
        "+CHACHA20-POLY1305:+AES-128-GCM:-MAC-ALL:+AEAD:-KX-ALL:+ECDHE-ECDSA:+ECDHE-RSA"

struct http_server {
        struct MHD_Daemon *d;
        struct http_options o;
        struct http_guard guard;
        char *cert, *key, *ca;          /* PEM text, kept for the daemon's lifetime */
};

/* Request paths longer than this are answered 414 (no route is near it). */
#define HTTP_PATH_MAX 512

struct conn_ctx {
        char *buf;
        size_t len;
        bool started;                   /* the request's first call was made */
        bool too_big;
        bool refused;
        bool path_too_long;
        char path[HTTP_PATH_MAX];       /* the path as sent: not percent-decoded, no query */
        char *raw_query;                /* what follows '?' as sent, NULL without one */
        struct http_param query[HTTP_QUERY_MAX];
        unsigned n_query;
};

/*
 * MHD_OPTION_URI_LOG_CALLBACK: the request line's URI as received, before
 * libmicrohttpd decodes it. Its path is what the API routes on, so that "%31" or
 * "1%00" never reads as "1". The context it returns is the request's (freed in
 * on_completed).
 */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *conn)
{
        struct conn_ctx *ctx = calloc(1, sizeof(*ctx));
        size_t n = strcspn(uri, "?");

        if (!ctx)
                return NULL;
        if (n >= sizeof(ctx->path))
                ctx->path_too_long = true;
        else
                memcpy(ctx->path, uri, n);
        if (uri[n] == '?' && !(ctx->raw_query = strdup(uri + n + 1))) {
                free(ctx);
                return NULL;
        }
        return ctx;
}

static int hex_digit(char c)
{
        if (c >= '0' && c <= '9')
                return c - '0';
        if (c >= 'a' && c <= 'f')
                return c - 'a' + 10;
        if (c >= 'A' && c <= 'F')
                return c - 'A' + 10;
        return -1;
}

/* Percent-decode s[0..n) into a new string; NULL with *why set when it holds a NUL or a bad escape. */
static char *unescape(const char *s, size_t n, const char **why)
{
        char *out = malloc(n + 1), *o = out;

        if (!out) {
                *why = "out of memory";
                return NULL;
        }
        for (size_t i = 0; i < n; i++) {
                int hi, lo;

                if (s[i] != '%') {
                        *o++ = s[i];
                        continue;
                }
                hi = i + 2 < n ? hex_digit(s[i + 1]) : -1;
                lo = i + 2 < n ? hex_digit(s[i + 2]) : -1;
                if (hi < 0 || lo < 0) {
                        *why = "a '%' not followed by two hex digits";
                        free(out);
                        return NULL;
                }
                if (hi == 0 && lo == 0) {
                        *why = "a NUL (%00)";
                        free(out);
                        return NULL;
                }
                *o++ = (char)(hi * 16 + lo);
                i += 2;
        }
        *o = '\0';
        return out;
}

/*
 * The request's query, strictly (0, or fills resp with 400 naming the parameter):
 * "k=v" pairs split at '&', each name and value percent-decoded; a NUL or a bad
 * escape in either, an empty name, a name given twice, or more than HTTP_QUERY_MAX
 * parameters is refused, so that "expect_revision=4%00junk" never reads as 4 and
 * no copy of a parameter silently wins over another.
 */
static int parse_query(struct conn_ctx *ctx, struct http_response *resp)
{
        const char *p = ctx->raw_query;

        while (p && *p) {
                size_t n = strcspn(p, "&"), kn = strcspn(p, "=");
                const char *why = NULL;
                char *key, *value;

                if (kn > n)
                        kn = n;
                key = unescape(p, kn, &why);
                if (!key) {
                        http_error(resp, 400, "invalid", "query", "query parameter '%.*s': its name holds %s; "
                                   "nothing was changed", (int)(kn > 80 ? 80 : kn), p, why);
                        return -EINVAL;
                }
                value = unescape(p + kn + (kn < n), n - kn - (kn < n), &why);
                if (!value || !key[0] || ctx->n_query >= HTTP_QUERY_MAX) {
                        if (!key[0])
                                http_error(resp, 400, "invalid", "query", "a query parameter without a name; "
                                           "nothing was changed");
                        else if (!value)
                                http_error(resp, 400, "invalid", key, "query parameter '%.80s': its value holds %s; "
                                           "nothing was changed", key, why);
                        else
                                http_error(resp, 400, "invalid", key, "more than %d query parameters; nothing was "
                                           "changed", HTTP_QUERY_MAX);
                        free(key);
                        free(value);
                        return -EINVAL;
                }
                for (unsigned i = 0; i < ctx->n_query; i++)
                        if (streq(ctx->query[i].key, key)) {
                                http_error(resp, 400, "invalid", key, "query parameter '%.80s' is given more than "
                                           "once; nothing was changed", key);
                                free(key);
                                free(value);
                                return -EINVAL;
                        }
                ctx->query[ctx->n_query++] = (struct http_param){ .key = key, .value = value };
                p += n + (p[n] == '&');
        }
        return 0;
}

void http_error(struct http_response *resp, int status, const char *code, const char *path,
                const char *fmt, ...)
{
        char msg[1024];
        va_list ap;
        json_t *j;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        j = json_pack("{s:{s:s, s:s, s:s}}", "error", "code", code, "message", msg, "path", path ? path : "");
        free(resp->body);
        resp->status = status;
        resp->body = j ? json_dumps(j, JSON_COMPACT) : NULL;
        resp->content_type = "application/json";
        json_decref(j);
}

int http_sha256_hex(const void *data, size_t len, char out[65])
{
        unsigned char d[32];

        out[0] = '\0';
        if (gnutls_hash_fast(GNUTLS_DIG_SHA256, data, len, d) < 0)
                return -EIO;
        for (unsigned i = 0; i < sizeof(d); i++)
                snprintf(out + 2 * i, 3, "%02x", d[i]);
        return 0;
}

const char *http_query(const struct http_request *req, const char *key)
{
        for (unsigned i = 0; i < req->n_query; i++)
                if (streq(req->query[i].key, key))
                        return req->query[i].value;
        return NULL;
}

static enum MHD_Result send_response(struct MHD_Connection *conn, struct http_response *resp)
{
        const char *body = resp->body ? resp->body : "";
        struct MHD_Response *r;
        enum MHD_Result ret;

        if (resp->drop) {
                free(resp->body);
                resp->body = NULL;
                return MHD_NO;          /* libmicrohttpd closes the connection, answering nothing */
        }
        r = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
        if (!r)
                return MHD_NO;
        MHD_add_response_header(r, "Content-Type", resp->content_type ? resp->content_type : "application/json");
        if (resp->close)
                MHD_add_response_header(r, "Connection", "close");
        ret = MHD_queue_response(conn, (unsigned)resp->status, r);
        MHD_destroy_response(r);
        free(resp->body);
        resp->body = NULL;
        return ret;
}

/*
 * The client's role, decided in the handshake (http_guard.c) or, when its hook did
 * not run, now; 0 or fills resp (401/403: the connection is closed after it).
 */
static int check_client(struct http_server *s, struct MHD_Connection *conn, struct http_conn *hc,
                        struct http_response *resp)
{
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
        int verdict;

        if (!hc) {
                http_error(resp, 500, "internal", NULL, "connection not tracked");
                return -EIO;
        }
        verdict = http_guard_decide(&s->guard, ci ? (gnutls_session_t)ci->tls_session : NULL, hc);
        if (verdict == -EACCES)
                http_error(resp, 401, "unauthenticated", NULL, "a client certificate is required");
        else if (verdict == -EBUSY)
                http_error(resp, 503, "busy", NULL, "%s", hc->role_why);
        else if (verdict < 0)
                http_error(resp, 403, "forbidden", NULL, "%s", hc->role_why[0] ? hc->role_why : "client refused");
        resp->close = verdict < 0;
        return verdict < 0 ? -EACCES : 0;
}

/* "application/json", any case, optionally with parameters ("; charset=utf-8"). */
static bool is_json(const char *ct)
{
        static const char json[] = "application/json";

        if (!ct)
                return false;
        ct += strspn(ct, " \t");
        if (strncasecmp(ct, json, sizeof(json) - 1) != 0)
                return false;
        ct += sizeof(json) - 1;
        ct += strspn(ct, " \t");
        return *ct == '\0' || *ct == ';';
}

/* A POST that carries a body must say it is JSON; 0 or fills resp (413/415). */
static int check_body_headers(struct http_server *s, struct MHD_Connection *conn, const char *method,
                              struct http_response *resp)
{
        const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
        const char *te = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Transfer-Encoding");
        const char *ct = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Type");
        unsigned long long len = cl ? strtoull(cl, NULL, 10) : 0;

        if (len > s->o.max_body) {
                http_error(resp, 413, "too_large", NULL, "request body of %s bytes is larger than the limit of %zu bytes; nothing was changed",
                           cl, s->o.max_body);
                return -EFBIG;
        }
        if (streq(method, "POST") && (len > 0 || te) && !is_json(ct)) {
                http_error(resp, 415, "unsupported_media_type", NULL,
                           "request body has Content-Type '%s'; the API takes application/json; nothing was changed",
                           ct ? ct : "(none)");
                return -EPROTO;
        }
        return 0;
}

/* First call for a request: authenticate, refuse oversized or non-JSON bodies before reading them. */
static enum MHD_Result first_call(struct http_server *s, struct MHD_Connection *conn, struct conn_ctx *ctx,
                                  const char *method)
{
        struct http_response resp = { 0 };
        struct http_conn *hc = http_guard_conn(conn);

        if (hc)
                http_guard_requested(&s->guard, hc);
        if (s->o.insecure_loopback) {
                if (hc) {
                        hc->verdict = 1;
                        hc->role = HTTP_ROLE_OPERATE;
                        http_guard_authenticated(&s->guard, hc);
                }
        } else if (check_client(s, conn, hc, &resp) < 0) {
                ctx->refused = true;
                return send_response(conn, &resp);
        }
        if (check_body_headers(s, conn, method, &resp) < 0) {
                ctx->refused = true;
                return send_response(conn, &resp);
        }
        return MHD_YES;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls)
{
        struct http_server *s = cls;
        struct conn_ctx *ctx = *con_cls;
        struct http_request req = { .method = method, .conn = conn };
        struct http_response resp = { 0 };

        if (!ctx)
                return MHD_NO;          /* on_uri could not allocate */
        if (!ctx->started) {
                ctx->started = true;
                return first_call(s, conn, ctx, method);
        }
        if (ctx->refused)
                return MHD_YES;
        if (*upload_data_size) {
                if (!ctx->too_big && ctx->len + *upload_data_size <= s->o.max_body) {
                        char *nb = realloc(ctx->buf, ctx->len + *upload_data_size + 1);

                        if (!nb)
                                return MHD_NO;
                        ctx->buf = nb;
                        memcpy(ctx->buf + ctx->len, upload_data, *upload_data_size);
                        ctx->len += *upload_data_size;
                        ctx->buf[ctx->len] = '\0';
                } else {
                        ctx->too_big = true;
                }
                *upload_data_size = 0;
                return MHD_YES;
        }
        if (ctx->too_big) {
                http_error(&resp, 413, "too_large", NULL, "request body is larger than the limit of %zu bytes; nothing was changed",
                           s->o.max_body);
                return send_response(conn, &resp);
        }
        if (ctx->path_too_long) {
                http_error(&resp, 414, "uri_too_long", NULL, "request path longer than %d bytes; nothing was changed",
                           HTTP_PATH_MAX - 1);
                return send_response(conn, &resp);
        }
        if (parse_query(ctx, &resp) < 0)
                return send_response(conn, &resp);
        req.url = ctx->path;
        req.query = ctx->query;
        req.n_query = ctx->n_query;
        req.role = http_guard_conn(conn) ? http_guard_conn(conn)->role : HTTP_ROLE_NONE;
        if (s->o.insecure_loopback)
                snprintf(req.client, sizeof(req.client), "insecure-loopback");
        else
                snprintf(req.client, sizeof(req.client), "%s",
                         http_guard_conn(conn) ? http_guard_conn(conn)->subject : "unknown");
        req.body = ctx->buf ? ctx->buf : "";
        req.body_len = ctx->len;
        s->o.handler(s->o.userdata, &req, &resp);
        return send_response(conn, &resp);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
        struct http_server *s = cls;
        struct conn_ctx *ctx = *con_cls;
        struct http_conn *hc = http_guard_conn(conn);

        if (hc && ctx && ctx->started)
                http_guard_answered(&s->guard, hc);
        if (ctx) {
                for (unsigned i = 0; i < ctx->n_query; i++) {
                        free(ctx->query[i].key);
                        free(ctx->query[i].value);
                }
                free(ctx->raw_query);
                free(ctx->buf);
                free(ctx);
                *con_cls = NULL;
        }
}

static int read_pem(const char *what, const char *path, char **ret, struct errbuf *e)
{
        size_t len;
        int r;

        if (!path || !path[0])
                return errbuf_set(e, EINVAL, what, "not configured; HTTPS needs tls.cert, tls.key and tls.client_ca");
        r = jsonv_read_file(path, 1u << 20, ret, &len, e);
        if (r < 0)
                errbuf_prefix(e, "%s", what);
        return r;
}

static int start_daemon(struct http_server *s, const union netaddr *a, struct errbuf *e)
{
        /* poll(), not select(): a descriptor past FD_SETSIZE (1024) is served too (the load generator holds thousands). */
        unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL |
                         (a->sa.sa_family == AF_INET6 ? MHD_USE_IPv6 : 0);
        struct http_guard_limits lim = {
                .pending_max = s->o.pending_max ? s->o.pending_max : HTTP_PENDING_MAX,
                .pending_per_addr = s->o.pending_per_addr ? s->o.pending_per_addr : HTTP_PENDING_PER_ADDR,
                .header_timeout_ms = s->o.header_timeout_s * 1000, .tls = !s->o.insecure_loopback,
                .roles = &s->o.roles,
                .conn_max = s->o.max_connections ? s->o.max_connections : HTTP_CONNECTIONS_MAX,
                .read_max = HTTP_READ_MAX, .read_per_client = HTTP_READ_PER_CLIENT,
                .operate_per_client = s->o.max_connections ? 0 : HTTP_OPERATE_PER_CLIENT,
        };
        int r = http_guard_start(&s->guard, &lim, e);

        if (r < 0)
                return r;
        if (s->o.insecure_loopback)
                s->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, s,
                                        MHD_OPTION_SOCK_ADDR, &a->sa,
                                        MHD_OPTION_CONNECTION_TIMEOUT, s->o.timeout_s,
                                        MHD_OPTION_CONNECTION_LIMIT, s->o.max_connections ? s->o.max_connections : HTTP_CONNECTIONS_MAX,
                                        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
                                        MHD_OPTION_URI_LOG_CALLBACK, on_uri, s,
                                        MHD_OPTION_NOTIFY_CONNECTION, http_guard_notify, &s->guard,
                                        MHD_OPTION_END);
        else
                s->d = MHD_start_daemon(flags | MHD_USE_TLS, 0, NULL, NULL, on_request, s,
                                        MHD_OPTION_SOCK_ADDR, &a->sa,
                                        MHD_OPTION_CONNECTION_TIMEOUT, s->o.timeout_s,
                                        MHD_OPTION_CONNECTION_LIMIT, s->o.max_connections ? s->o.max_connections : HTTP_CONNECTIONS_MAX,
                                        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
                                        MHD_OPTION_URI_LOG_CALLBACK, on_uri, s,
                                        MHD_OPTION_NOTIFY_CONNECTION, http_guard_notify, &s->guard,
                                        MHD_OPTION_HTTPS_MEM_CERT, s->cert,
                                        MHD_OPTION_HTTPS_MEM_KEY, s->key,
                                        MHD_OPTION_HTTPS_CERT_CALLBACK, s->o.cert_callback,
                                        MHD_OPTION_HTTPS_MEM_TRUST, s->ca,
                                        MHD_OPTION_HTTPS_PRIORITIES, HTTP_TLS_PRIORITIES,
                                        MHD_OPTION_END);
        if (!s->d)
                return errbuf_set(e, EADDRINUSE, "listen", "cannot listen on '%s' (address in use, or bad TLS key/certificate)",
                                  s->o.listen);
        return 0;
}

int http_start(const struct http_options *o, struct http_server **ret, struct errbuf *e)
{
        struct http_server *s;
        union netaddr a;
        bool loopback = false;
        int r = netaddr_parse(o->listen, "listen", &a, &loopback, e);

        if (r < 0)
                return r;
        if (!o->timeout_s || !o->header_timeout_s)     /* a zero deadline would shut every connection at once */
                return errbuf_set(e, EINVAL, "listen", "the request and header timeouts must be at least 1 s (%u s, %u s)",
                                  o->timeout_s, o->header_timeout_s);
        if (o->insecure_loopback && !loopback)
                return errbuf_set(e, EPERM, "listen", "'%s' is not a loopback address; plain HTTP is refused there, configure tls",
                                  o->listen);
        r = http_lib_open(e);
        if (r < 0)
                return r;
        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->o = *o;
        if (!o->insecure_loopback) {
                if (!o->cert_callback)
                        r = read_pem("tls.cert", o->cert, &s->cert, e);
                if (r >= 0 && !o->cert_callback)
                        r = read_pem("tls.key", o->key, &s->key, e);
                if (r >= 0)
                        r = read_pem("tls.client_ca", o->client_ca, &s->ca, e);
        }
        if (r >= 0)
                r = start_daemon(s, &a, e);
        if (r < 0) {
                http_stop(s);
                return r;
        }
        *ret = s;
        return 0;
}

static unsigned long long guard_count(struct http_server *s, const unsigned long long *field)
{
        unsigned long long n;

        pthread_mutex_lock(&s->guard.lock);
        n = *field;
        pthread_mutex_unlock(&s->guard.lock);
        return n;
}

unsigned long long http_accepted(struct http_server *s)
{
        return guard_count(s, &s->guard.accepted);
}

unsigned long long http_resumed(struct http_server *s)
{
        return guard_count(s, &s->guard.resumed);
}

void http_stop(struct http_server *s)
{
        if (!s)
                return;
        http_guard_stop(&s->guard);
        if (s->d)
                MHD_stop_daemon(s->d);
        http_guard_done(&s->guard);
        free(s->cert);
        if (s->key)
                explicit_bzero(s->key, strlen(s->key));
        free(s->key);
        free(s->ca);
        free(s);
}
