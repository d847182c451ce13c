/* SPDX-License-Identifier: MIT */
/*
 * agent/http: the agent's HTTPS server (libmicrohttpd + GnuTLS, loaded on first use):
 * client certificates in the handshake, roles, connection budgets and deadlines,
 * request bodies. Knows nothing of routes (agent/api).
 *
 * May call: common/, policies/ (the JSON validator). Called by agent/api,
 * agent/config (the TLS files checked before use) and agent/cmd (serve).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "common/errbuf.h"
#include "common/lazylib.h"

/*
 * The agent's HTTPS server (libmicrohttpd + GnuTLS): a client certificate that
 * verifies against the configured CA is required in the TLS handshake (none, or
 * an untrusted, expired or wrong-CA one: the handshake fails); before the first
 * request its role is checked (extendedKeyUsage clientAuth, tls.allowed_clients:
 * 403 otherwise). Unauthenticated connections are budgeted and must send a
 * request's headers within header_timeout_s. Request bodies are bounded (413
 * before the body is read when Content-Length is too large) and must be JSON (415).
 * Plain HTTP only on a loopback address and only when asked for explicitly.
 */



struct http_request {
        const char *method;
        const char *url;                /* the path as sent: not percent-decoded, without the query */
        const char *body;               /* NUL-terminated; "" when none */
        size_t body_len;
        void *conn;                     /* struct MHD_Connection *, for query arguments */
        char client[128];               /* certificate subject, or "insecure-loopback" */
};

struct http_response {
        int status;
        char *body;                     /* owned (malloc) */
        const char *content_type;       /* static string */
};

typedef void (*http_handler_t)(void *userdata, const struct http_request *req, struct http_response *resp);

struct http_options {
        const char *listen;             /* "ADDR:PORT", "[ADDR]:PORT" */
        bool insecure_loopback;         /* plain HTTP; refused unless ADDR is loopback */
        const char *cert, *key, *client_ca;
        /* A server that stands for many endpoints (the load generator): a
         * gnutls_certificate_retrieve_function2 that gives each connection the certificate of
         * the endpoint it was made to; cert and key are then not read. NULL: cert and key. */
        void *cert_callback;
        const char (*allowed_clients)[128];     /* tls.allowed_clients (n_allowed_clients of them) */
        unsigned n_allowed_clients;
        size_t max_body;
        unsigned timeout_s;                     /* idle connections are closed after it */
        unsigned header_timeout_s;              /* from accept to a request's headers */
        unsigned max_connections;               /* 0: the agent's HTTP_CONNECTIONS_MAX */
        /* Unauthenticated connections in all and per client address; 0: the agent's budgets
         * (a server that stands for many endpoints, such as the load generator, widens them). */
        unsigned pending_max, pending_per_addr;
        http_handler_t handler;
        void *userdata;
};

struct http_server;

int http_start(const struct http_options *o, struct http_server **ret, struct errbuf *e);
void http_stop(struct http_server *s);          /* accepts NULL */

/* The value of a query argument, or NULL. */
const char *http_query(const struct http_request *req, const char *key);
/* Fill resp with {"error":{"code","message","path"}}. */
void http_error(struct http_response *resp, int status, const char *code, const char *path,
                const char *fmt, ...) _printf_(5, 6);


/* libmicrohttpd and GnuTLS, loaded on first use (http_lib.c, common/lazylib.h). */


extern struct lazylib mhd_lib, gnutls_lib;

/* Load both; -ENOENT with the loader's reason ("https: cannot load libmicrohttpd.so.12 (...)"). */
int http_lib_open(struct errbuf *e);

/* gnutls_free(p): GnuTLS's deallocator, which is a variable of the library, not a function. */
void http_lib_gnutls_free(void *p);
