/* SPDX-License-Identifier: MIT */
/*
 * HTTPS fan-out over libcurl multi: many requests to many agents at once, with
 * the controller's client certificate, agent certificates verified against the
 * inventory's CA, connections kept and reused across batches, a per-request and
 * an overall deadline, bounded concurrency, and retries with exponential backoff
 * for idempotent requests only (an apply is never sent twice).
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "common/errbuf.h"

#define HTTP_BODY_MAX (4u << 20)        /* bytes: larger answers are refused */
#define HTTP_URL_MAX 512

struct http_tls {
        const char *ca, *cert, *key;
};

struct http_opts {
        unsigned parallel;              /* requests in flight at most (default 32) */
        unsigned connect_timeout_ms;    /* default 3000 */
        unsigned retries;               /* extra attempts for idempotent requests (default 2) */
        unsigned backoff_ms;            /* first retry delay, doubled each time (default 200) */
        unsigned max_conns;             /* connections kept for reuse (default 256) */
};

struct http_req {
        /* Set by the caller. */
        const char *method;             /* "GET" or "POST" */
        char url[HTTP_URL_MAX];
        const char *body;               /* POST body (not owned), NULL = empty */
        size_t body_len;
        bool idempotent;                /* may be retried */
        unsigned timeout_ms;            /* per attempt */
        void *user;

        /* Results. */
        long status;                    /* HTTP status, 0 = no answer */
        char *resp;                     /* owned, NUL-terminated; http_req_done frees */
        size_t resp_len;
        int err;                        /* 0 or -errno: -ETIMEDOUT, -ECONNREFUSED, -EPROTO (TLS), -EFBIG, -EIO,
                                           -ECANCELED (the gate said no: never sent) */
        char errmsg[256];               /* transport error text when err < 0 */
        unsigned attempts;

        /* Private to http.c. */
        void *easy_;
        void *headers_;
        long long not_before_ms_;
        size_t cap_;
        bool queued_, done_;
};

struct http_client;

void http_opts_defaults(struct http_opts *o);
int http_client_new(const struct http_tls *tls, const struct http_opts *o, struct http_client **ret,
                    struct errbuf *e);
void http_client_free(struct http_client *c);

/*
 * Run n requests to completion (or until overall_ms passes: those left get
 * -ETIMEDOUT). on_done (optional) is called once per request as it finishes,
 * from this thread. Returns 0, or -ENOMEM/-EIO when libcurl itself failed.
 */
int http_run(struct http_client *c, struct http_req **reqs, size_t n, unsigned overall_ms,
             void (*on_done)(struct http_req *r, void *userdata), void *userdata);

/*
 * A gate asked before each request is started: when it says no, the request is
 * not sent and ends with -ECANCELED (a controller that lost its leadership
 * sends nothing more). NULL removes it.
 */
void http_client_set_gate(struct http_client *c, bool (*may_send)(void *ud), void *ud);

/* Requests in flight at most from now on (at least 1); returns the bound it replaces. */
unsigned http_client_set_parallel(struct http_client *c, unsigned parallel);

/* Free the answer and reset the results so the request can be run again. */
void http_req_done(struct http_req *r);

/* "connection refused", "timed out after 5000 ms", "HTTP 409: ..." for messages. */
const char *http_req_error(const struct http_req *r, char *buf, size_t size);

long long http_now_ms(void);
