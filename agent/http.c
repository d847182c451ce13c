/* SPDX-License-Identifier: MIT */
#include <arpa/inet.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <jansson.h>
#include <microhttpd.h>
#include <stdarg.h>

#include "http.h"
#include "netaddr.h"
#include "jsonv.h"

#define HTTP_CONNECTIONS_MAX 64

struct http_server {
        struct MHD_Daemon *d;
        struct http_options o;
        char *cert, *key, *ca;          /* PEM text, kept for the daemon's lifetime */
};

struct conn_ctx {
        char *buf;
        size_t len;
        bool too_big;
        bool refused;
};

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

const char *http_query(const struct http_request *req, const char *key)
{
        return MHD_lookup_connection_value(req->conn, MHD_GET_ARGUMENT_KIND, key);
}

static enum MHD_Result send_response(struct MHD_Connection *conn, struct http_response *resp)
{
        const char *body = resp->body ? resp->body : "";
        struct MHD_Response *r = MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_MUST_COPY);
        enum MHD_Result ret;

        if (!r)
                return MHD_NO;
        MHD_add_response_header(r, "Content-Type", resp->content_type ? resp->content_type : "application/json");
        ret = MHD_queue_response(conn, (unsigned)resp->status, r);
        MHD_destroy_response(r);
        free(resp->body);
        resp->body = NULL;
        return ret;
}

/* 0 when the peer presented a certificate our CA verifies; else fills resp (401/403). */
static int check_client(struct MHD_Connection *conn, struct http_request *req, struct http_response *resp)
{
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
        gnutls_session_t s = ci ? (gnutls_session_t)ci->tls_session : NULL;
        const gnutls_datum_t *certs;
        unsigned n = 0, status = 0;
        gnutls_datum_t out = { 0 };
        gnutls_x509_crt_t crt;
        size_t size = sizeof(req->client);

        if (!s || !(certs = gnutls_certificate_get_peers(s, &n)) || n == 0) {
                http_error(resp, 401, "unauthenticated", NULL, "a client certificate is required");
                return -EACCES;
        }
        if (gnutls_certificate_verify_peers2(s, &status) < 0 || status) {
                if (gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &out, 0) < 0)
                        out.data = NULL;
                http_error(resp, 403, "forbidden", NULL, "client certificate refused: %s",
                           out.data ? (const char *)out.data : "not verified");
                gnutls_free(out.data);
                return -EACCES;
        }
        if (gnutls_x509_crt_init(&crt) >= 0) {
                if (gnutls_x509_crt_import(crt, &certs[0], GNUTLS_X509_FMT_DER) < 0 ||
                    gnutls_x509_crt_get_dn(crt, req->client, &size) < 0)
                        snprintf(req->client, sizeof(req->client), "unknown");
                gnutls_x509_crt_deinit(crt);
        }
        return 0;
}

/* First call for a request: authenticate, refuse oversized bodies before reading them. */
static enum MHD_Result first_call(struct http_server *s, struct MHD_Connection *conn, struct conn_ctx *ctx,
                                  struct http_request *req)
{
        struct http_response resp = { 0 };
        const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");

        if (!s->o.insecure_loopback && check_client(conn, req, &resp) < 0) {
                ctx->refused = true;
                return send_response(conn, &resp);
        }
        if (cl && strtoull(cl, NULL, 10) > s->o.max_body) {
                ctx->refused = true;
                http_error(&resp, 413, "too_large", NULL, "request body of %s bytes is larger than the limit of %zu bytes; nothing was changed",
                           cl, s->o.max_body);
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
        struct http_request req = { .method = method, .url = url, .conn = conn };
        struct http_response resp = { 0 };

        snprintf(req.client, sizeof(req.client), "insecure-loopback");
        if (!ctx) {
                ctx = calloc(1, sizeof(*ctx));
                if (!ctx)
                        return MHD_NO;
                *con_cls = ctx;
                return first_call(s, conn, ctx, &req);
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
        if (!s->o.insecure_loopback && check_client(conn, &req, &resp) < 0)
                return send_response(conn, &resp);
        req.body = ctx->buf ? ctx->buf : "";
        req.body_len = ctx->len;
        s->o.handler(s->o.userdata, &req, &resp);
        return send_response(conn, &resp);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
                         enum MHD_RequestTerminationCode toe)
{
        struct conn_ctx *ctx = *con_cls;

        if (ctx) {
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
        unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
                         (a->sa.sa_family == AF_INET6 ? MHD_USE_IPv6 : 0);

        if (s->o.insecure_loopback)
                s->d = MHD_start_daemon(flags, 0, NULL, NULL, on_request, s,
                                        MHD_OPTION_SOCK_ADDR, &a->sa,
                                        MHD_OPTION_CONNECTION_TIMEOUT, s->o.timeout_s,
                                        MHD_OPTION_CONNECTION_LIMIT, s->o.max_connections ? s->o.max_connections : HTTP_CONNECTIONS_MAX,
                                        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
                                        MHD_OPTION_END);
        else
                s->d = MHD_start_daemon(flags | MHD_USE_TLS, 0, NULL, NULL, on_request, s,
                                        MHD_OPTION_SOCK_ADDR, &a->sa,
                                        MHD_OPTION_CONNECTION_TIMEOUT, s->o.timeout_s,
                                        MHD_OPTION_CONNECTION_LIMIT, s->o.max_connections ? s->o.max_connections : HTTP_CONNECTIONS_MAX,
                                        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
                                        MHD_OPTION_HTTPS_MEM_CERT, s->cert,
                                        MHD_OPTION_HTTPS_MEM_KEY, s->key,
                                        MHD_OPTION_HTTPS_MEM_TRUST, s->ca,
                                        MHD_OPTION_HTTPS_PRIORITIES, "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2",
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
        if (o->insecure_loopback && !loopback)
                return errbuf_set(e, EPERM, "listen", "'%s' is not a loopback address; plain HTTP is refused there, configure tls",
                                  o->listen);
        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->o = *o;
        if (!o->insecure_loopback) {
                r = read_pem("tls.cert", o->cert, &s->cert, e);
                if (r >= 0)
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

void http_stop(struct http_server *s)
{
        if (!s)
                return;
        if (s->d)
                MHD_stop_daemon(s->d);
        free(s->cert);
        if (s->key)
                explicit_bzero(s->key, strlen(s->key));
        free(s->key);
        free(s->ca);
        free(s);
}
