/* SPDX-License-Identifier: MIT */
/*
 * agent/http: the agent's HTTPS server (libmicrohttpd + GnuTLS, loaded on first use):
 * client certificates in the handshake, roles, connection budgets and deadlines,
 * request bodies. Knows nothing of routes (agent/api).
 *
 * May call: common/, policies/json (the JSON validator). Called by agent/api,
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
 * an untrusted, expired or wrong-CA one: the handshake fails); inside the
 * handshake its role is decided (extendedKeyUsage clientAuth, then the role
 * lists): a client without a role is never counted as authenticated, its first
 * request is answered 403 and its connection closed. Unauthenticated connections
 * are budgeted and must send a request's headers within header_timeout_s. Request
 * bodies are bounded (413 before the body is read when Content-Length is too
 * large) and must be JSON (415). Plain HTTP only on a loopback address and only
 * when asked for explicitly (its clients operate).
 */

/* What a client may do; the routes decide which role each needs (agent/api). */
enum http_role {
        HTTP_ROLE_NONE,                 /* refused: no request runs */
        HTTP_ROLE_READ,
        HTTP_ROLE_OPERATE,
        HTTP_ROLE_MAX,
};

/* "none", "read", "operate". */
const char *http_role_name(enum http_role r);

/*
 * Who has which role: client names (exact, or "*.suffix") matched against the
 * certificate's subject CN and subjectAltName DNS names; a certificate matching
 * both lists operates. key NULL: no list, every clientAuth certificate operates.
 */
struct http_roles {
        const char *key;                        /* "tls.roles", "tls.allowed_clients": named in refusals */
        const char (*operate)[128];
        unsigned n_operate;
        const char (*read)[128];
        unsigned n_read;
};

/* One query parameter, percent-decoded (a NUL in either is refused before a route runs). */
struct http_param {
        char *key, *value;              /* value "" for "?key" and "?key=" */
};

/* Query parameters a request may carry: more is 400 before a route runs. */
#define HTTP_QUERY_MAX 16

struct http_request {
        const char *method;
        const char *url;                /* the path as sent: not percent-decoded, without the query */
        const struct http_param *query; /* each key once (a duplicate is 400 before a route runs) */
        unsigned n_query;
        const char *body;               /* NUL-terminated; "" when none */
        size_t body_len;
        void *conn;                     /* struct MHD_Connection *, for query arguments */
        char client[128];               /* certificate subject, or "insecure-loopback" */
        enum http_role role;            /* READ or OPERATE (a refused client never gets here) */
};

struct http_response {
        int status;
        char *body;                     /* owned (malloc) */
        const char *content_type;       /* static string */
        bool close;                     /* close the connection after this answer */
        bool drop;                      /* close it with no answer at all (the load generator's lost requests) */
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
        struct http_roles roles;
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
/* Connections the server accepted so far (each a TLS handshake where TLS is on). */
unsigned long long http_accepted(struct http_server *s);
/* Of those, how many resumed a TLS session (a session ticket: no certificates exchanged). */
unsigned long long http_resumed(struct http_server *s);

/*
 * The value of a query argument, or NULL. The query is parsed strictly before a
 * route runs: a parameter given twice, a NUL (%00) or a bad percent escape in a
 * name or value, an empty name, or more than HTTP_QUERY_MAX parameters is 400
 * naming it; which names a route takes is the route's (agent/api).
 */
const char *http_query(const struct http_request *req, const char *key);
/*
 * The SHA-256 of data as 64 lowercase hex digits (GnuTLS, loaded by http_start);
 * 0, or -EIO with out "".
 */
int http_sha256_hex(const void *data, size_t len, char out[65]);
/* Fill resp with {"error":{"code","message","path"}}. */
void http_error(struct http_response *resp, int status, const char *code, const char *path,
                const char *fmt, ...) _printf_(5, 6);


/* libmicrohttpd and GnuTLS, loaded on first use (http_lib.c, common/lazylib.h). */


extern struct lazylib mhd_lib, gnutls_lib;

/* Load both; -ENOENT with the loader's reason ("https: cannot load libmicrohttpd.so.12 (...)"). */
int http_lib_open(struct errbuf *e);

/* gnutls_free(p): GnuTLS's deallocator, which is a variable of the library, not a function. */
void http_lib_gnutls_free(void *p);
