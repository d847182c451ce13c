/* SPDX-License-Identifier: MIT */
/*
 * Inside the agent's HTTPS server; not for other modules. Calls go one way:
 * http.c -> http_guard.c -> http_auth.c (and http.c -> http_auth.c).
 *   http.c        the daemon: options, request callbacks, body limits, media type
 *   http_guard.c  every connection from accept to close: admission of clients that
 *                 have not authenticated yet (a budget in all and per address, the
 *                 oldest evicted first), the budgets of authenticated ones per role
 *                 and per certificate (the idle keep-alive ones closed first), the
 *                 handshake-and-header deadline, the verification inside the
 *                 handshake (http_auth.c's check), logging
 *   http_auth.c   the client certificate: verified in the TLS handshake (no valid
 *                 certificate, no connection), then its role (extendedKeyUsage
 *                 clientAuth, tls.allowed_clients) before the first request runs
 */
#pragma once

#include <gnutls/gnutls.h>
#include <microhttpd.h>
#include <pthread.h>
#include <stdbool.h>

#include "agent/http/http.h"
#include "common/log.h"

/* One connection, from accept to close (MHD's socket context). */
struct http_conn {
        struct http_conn *prev, *next;
        struct http_guard *guard;
        int fd;
        char peer[64];                  /* the client's address, the key of the per-address budget */
        long long started_ms;           /* monotonic */
        bool authenticated;             /* a verified client certificate (or a request, without TLS) */
        bool requested;                 /* a request's headers arrived: no more header deadline */
        bool busy;                      /* a request is being served (from its headers to its answer) */
        long long idle_since_ms;        /* monotonic: when its last answer went (started_ms before one) */
        const char *closed_by;          /* "deadline", "evicted" when the guard shut it, else NULL */
        char refused[160];              /* why the handshake refused the client's certificate */
        int verdict;                    /* 0 not decided yet, 1 a role (role), -EPERM refused (role_why), -EACCES no
                                         * certificate, -EBUSY its role's or certificate's budget is full (role_why) */
        enum http_role role;
        char subject[128];              /* the certificate's subject DN */
        char role_why[256];
};

struct http_guard_limits {
        unsigned pending_max;           /* connections not authenticated yet, in all */
        unsigned pending_per_addr;      /* ... and from one address */
        unsigned header_timeout_ms;     /* from accept to a request's headers */
        bool tls;                       /* require and verify client certificates in the handshake; tickets */
        unsigned conn_max;              /* connections in all (the daemon's limit) */
        unsigned read_max;              /* authenticated connections of role read, in all */
        unsigned read_per_client;       /* ... and of one read certificate (subject) */
        unsigned operate_per_client;    /* authenticated connections of one operate certificate */
        const struct http_roles *roles; /* who has which role, decided in the handshake */
};

struct http_guard {
        pthread_mutex_t lock;
        pthread_cond_t wake;
        pthread_t reaper;
        bool initialised, reaper_started, stop;
        struct http_conn *head;
        struct http_guard_limits lim;
        unsigned pending;               /* not authenticated, not shut */
        unsigned long long accepted, evicted, expired, resumed;
        unsigned long long idle_closed;        /* idle keep-alive connections shut to make room */
        struct log_limit log;           /* refusal lines: a few a second */
        gnutls_datum_t ticket_key;      /* TLS session tickets: this daemon's key (GnuTLS rotates what it derives) */
};

/* ---- http_guard.c ---- */
int http_guard_start(struct http_guard *g, const struct http_guard_limits *lim, struct errbuf *e);
void http_guard_stop(struct http_guard *g);     /* the reaper: before MHD_stop_daemon; accepts a guard never started */
void http_guard_done(struct http_guard *g);     /* after MHD_stop_daemon */
/* MHD_OPTION_NOTIFY_CONNECTION (cls: the guard). */
void http_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                       enum MHD_ConnectionNotificationCode code);
/* The connection's record (NULL before STARTED). */
struct http_conn *http_guard_conn(struct MHD_Connection *c);
/* The client proved who it is: it leaves the budget of unauthenticated connections. */
void http_guard_authenticated(struct http_guard *g, struct http_conn *hc);
/*
 * Decide hc's role once (in the handshake, or at its first request when the
 * handshake's hook did not run): a client with a role leaves the budget; a refused
 * one stays in it and its refusal is logged with the certificate's subject. Returns
 * hc->verdict.
 */
int http_guard_decide(struct http_guard *g, gnutls_session_t s, struct http_conn *hc);
/* A request's headers arrived: the connection is busy until http_guard_answered. */
void http_guard_requested(struct http_guard *g, struct http_conn *hc);
/* Its answer went: the connection is idle (keep-alive) until its next request. */
void http_guard_answered(struct http_guard *g, struct http_conn *hc);
/* Log a refusal, at most a few lines a second (the rest are counted and summed up). */
void http_guard_log(struct http_guard *g, const char *fmt, ...) _printf_(2, 3);

/* ---- http_auth.c: the certificate alone (calls nothing of the module) ---- */
/* Does the peer's chain verify against the trusted CAs? 0, or -EPERM with GnuTLS's reason in why. */
int http_auth_verify(gnutls_session_t s, char *why, size_t size);
/*
 * The role of a client whose chain verified: its certificate must verify (again: a
 * resumed session skips the handshake's check), carry extendedKeyUsage clientAuth
 * and, with role lists, name a client of one. Fills hc->subject. Returns the role
 * (HTTP_ROLE_READ, HTTP_ROLE_OPERATE); -EACCES no certificate; -EPERM refused
 * (hc->role_why).
 */
int http_auth_role(gnutls_session_t s, const struct http_roles *roles, struct http_conn *hc);
/* Does name match pattern (an exact name, or "*.suffix": any name ending in ".suffix")? */
bool http_auth_name_matches(const char *pattern, const char *name);
