/* SPDX-License-Identifier: MIT */
/* libcurl multi transport: bounded concurrency, deadlines, retries for idempotent requests. */
#include <curl/curl.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <time.h>

#include "controller/fleet/fleet.h"

/* TLS 1.2 only with ECDHE and AEAD ciphers (no CBC, no SHA-1 MACs); TLS 1.3 suites are all AEAD. */
#define HTTP_TLS12_CIPHERS "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:" \
        "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:" \
        "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256"

struct http_client {
        CURLM *multi;
        CURLSH *share;
        char *ca, *cert, *key;
        struct http_opts o;
        bool (*may_send)(void *ud);
        void *gate_ud;
};

void http_client_set_gate(struct http_client *c, bool (*may_send)(void *ud), void *ud)
{
        c->may_send = may_send;
        c->gate_ud = ud;
}

unsigned http_client_set_parallel(struct http_client *c, unsigned parallel)
{
        unsigned old = c->o.parallel;

        c->o.parallel = parallel ? parallel : 1;
        return old;
}

long long http_now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int http_url(char *buf, size_t size, const char *base, const char *path)
{
        int n = snprintf(buf, size, "%s%s", base, path);

        return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

void http_opts_defaults(struct http_opts *o)
{
        *o = (struct http_opts) {
                .parallel = 32, .connect_timeout_ms = 3000, .retries = 2, .backoff_ms = 200,
                .max_conns = 256,
        };
}

/*
 * The agent's certificate must be for a server: extendedKeyUsage present and naming
 * serverAuth (OpenSSL alone lets a certificate without the extension pass). The
 * chain and the host name are checked by OpenSSL and libcurl as usual.
 */
static int verify_server_purpose(int ok, X509_STORE_CTX *ctx)
{
        X509 *cert = X509_STORE_CTX_get_current_cert(ctx);

        if (!ok || X509_STORE_CTX_get_error_depth(ctx) != 0 || !cert)
                return ok;
        if (!(X509_get_extension_flags(cert) & EXFLAG_XKUSAGE) || !(X509_get_extended_key_usage(cert) & XKU_SSL_SERVER)) {
                X509_STORE_CTX_set_error(ctx, X509_V_ERR_INVALID_PURPOSE);
                return 0;
        }
        return 1;
}

static CURLcode on_ssl_ctx(CURL *easy, void *ssl_ctx, void *userdata)
{
        SSL_CTX_set_verify(ssl_ctx, SSL_VERIFY_PEER, verify_server_purpose);
        return CURLE_OK;
}

/* The purpose check needs libcurl's OpenSSL backend. */
static int check_backend(struct errbuf *e)
{
        const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);

        if (!v || !v->ssl_version || strncmp(v->ssl_version, "OpenSSL", 7) != 0)
                return errbuf_set(e, ENOTSUP, "libcurl", "TLS backend '%s' is not OpenSSL; the agents' certificate"
                                  " purpose (serverAuth) cannot be checked", v && v->ssl_version ? v->ssl_version : "none");
        return 0;
}

int http_client_new(const struct http_tls *tls, const struct http_opts *o, struct http_client **ret,
                    struct errbuf *e)
{
        static bool global_done;
        struct http_client *c;

        if (!global_done) {
                if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
                        return errbuf_set(e, EIO, "libcurl", "cannot initialise libcurl");
                global_done = true;
        }
        if (check_backend(e) < 0)
                return -ENOTSUP;
        c = calloc(1, sizeof(*c));
        if (!c)
                return errbuf_set(e, ENOMEM, "libcurl", "out of memory");
        c->o = *o;
        if (c->o.parallel == 0)
                c->o.parallel = 1;
        c->multi = curl_multi_init();
        c->share = curl_share_init();
        c->ca = strdup(tls->ca);
        c->cert = strdup(tls->cert);
        c->key = strdup(tls->key);
        if (!c->multi || !c->share || !c->ca || !c->cert || !c->key) {
                http_client_free(c);
                return errbuf_set(e, ENOMEM, "libcurl", "out of memory");
        }
        curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
        curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
        curl_multi_setopt(c->multi, CURLMOPT_MAXCONNECTS, (long)(o->max_conns ? o->max_conns : 256));
        *ret = c;
        return 0;
}

void http_client_free(struct http_client *c)
{
        if (!c)
                return;
        if (c->multi)
                curl_multi_cleanup(c->multi);
        if (c->share)
                curl_share_cleanup(c->share);
        free(c->ca);
        free(c->cert);
        free(c->key);
        free(c);
}

void http_req_done(struct http_req *r)
{
        free(r->resp);
        r->resp = NULL;
        r->resp_len = r->cap_ = 0;
        r->status = 0;
        r->err = 0;
        r->errmsg[0] = '\0';
        r->attempts = 0;
        r->queued_ = r->done_ = false;
        r->not_before_ms_ = 0;
}

static size_t on_write(char *data, size_t size, size_t nmemb, void *userdata)
{
        struct http_req *r = userdata;
        size_t len = size * nmemb;

        if (r->resp_len + len > HTTP_BODY_MAX)
                return 0;
        if (r->resp_len + len + 1 > r->cap_) {
                size_t cap = r->cap_ ? r->cap_ : 4096;
                char *p;

                while (cap < r->resp_len + len + 1)
                        cap *= 2;
                p = realloc(r->resp, cap);
                if (!p)
                        return 0;
                r->resp = p;
                r->cap_ = cap;
        }
        memcpy(r->resp + r->resp_len, data, len);
        r->resp_len += len;
        r->resp[r->resp_len] = '\0';
        return len;
}

static int start(struct http_client *c, struct http_req *r, long long deadline)
{
        struct curl_slist *h = NULL;
        long timeout = r->timeout_ms ? (long)r->timeout_ms : 30000;
        CURL *easy = curl_easy_init();

        if (!easy)
                return -ENOMEM;
        if (deadline && deadline - http_now_ms() < timeout)
                timeout = (long)(deadline - http_now_ms() > 1 ? deadline - http_now_ms() : 1);
        h = curl_slist_append(h, "Accept: application/json");
        h = curl_slist_append(h, "Content-Type: application/json");
        h = curl_slist_append(h, "Expect:");
        curl_easy_setopt(easy, CURLOPT_URL, r->url);
        curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "https");
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(easy, CURLOPT_SHARE, c->share);
        curl_easy_setopt(easy, CURLOPT_CAINFO, c->ca);
        curl_easy_setopt(easy, CURLOPT_SSLCERT, c->cert);
        curl_easy_setopt(easy, CURLOPT_SSLKEY, c->key);
        curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 1L);
        curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 2L);
        curl_easy_setopt(easy, CURLOPT_SSL_CTX_FUNCTION, on_ssl_ctx);
        curl_easy_setopt(easy, CURLOPT_SSLVERSION, (long)(CURL_SSLVERSION_TLSv1_2 | CURL_SSLVERSION_MAX_DEFAULT));
        curl_easy_setopt(easy, CURLOPT_SSL_CIPHER_LIST, HTTP_TLS12_CIPHERS);
        curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, (long)c->o.connect_timeout_ms);
        curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, timeout);
        curl_easy_setopt(easy, CURLOPT_HTTPHEADER, h);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_write);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, r);
        curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, r->errmsg);
        curl_easy_setopt(easy, CURLOPT_PRIVATE, r);
        if (streq(r->method, "POST")) {
                curl_easy_setopt(easy, CURLOPT_POST, 1L);
                curl_easy_setopt(easy, CURLOPT_POSTFIELDS, r->body ? r->body : "");
                curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(r->body ? r->body_len : 0));
        }
        r->errmsg[0] = '\0';
        r->easy_ = easy;
        r->headers_ = h;
        r->queued_ = true;
        r->attempts++;
        if (curl_multi_add_handle(c->multi, easy) != CURLM_OK)
                return -EIO;
        return 0;
}

static void release(struct http_client *c, struct http_req *r)
{
        if (r->easy_) {
                curl_multi_remove_handle(c->multi, r->easy_);
                curl_easy_cleanup(r->easy_);
        }
        curl_slist_free_all(r->headers_);
        r->easy_ = NULL;
        r->headers_ = NULL;
}

static int map_error(CURLcode rc, struct http_req *r)
{
        switch (rc) {
        case CURLE_OPERATION_TIMEDOUT:
                return -ETIMEDOUT;
        case CURLE_COULDNT_CONNECT:
        case CURLE_COULDNT_RESOLVE_HOST:
                return -ECONNREFUSED;
        case CURLE_WRITE_ERROR:
                return r->resp_len >= HTTP_BODY_MAX / 2 ? -EFBIG : -ENOMEM;
        case CURLE_PEER_FAILED_VERIFICATION:
        case CURLE_SSL_CONNECT_ERROR:
        case CURLE_SSL_CERTPROBLEM:
        case CURLE_SSL_CACERT_BADFILE:
        case CURLE_SSL_CIPHER:
        case CURLE_SSL_ISSUER_ERROR:
                return -EPROTO;
        default:
                return -EIO;
        }
}

static bool retryable(const struct http_req *r)
{
        if (r->err == -EPROTO || r->err == -EFBIG || r->err == -ENOMEM)
                return false;
        return r->err < 0 || r->status >= 500;
}

/* One attempt ended: keep the answer, or schedule the next attempt. */
static void finish(struct http_client *c, struct http_req *r, CURLcode rc)
{
        r->status = 0;
        r->err = 0;
        if (rc == CURLE_OK)
                curl_easy_getinfo(r->easy_, CURLINFO_RESPONSE_CODE, &r->status);
        else
                r->err = map_error(rc, r);
        if (r->err < 0 && !r->errmsg[0])
                snprintf(r->errmsg, sizeof(r->errmsg), "%s", curl_easy_strerror(rc));
        release(c, r);
        r->queued_ = false;
        if (r->idempotent && r->attempts <= c->o.retries && retryable(r)) {
                free(r->resp);
                r->resp = NULL;
                r->resp_len = r->cap_ = 0;
                r->not_before_ms_ = http_now_ms() + ((long long)c->o.backoff_ms << (r->attempts - 1));
                return;
        }
        r->done_ = true;
}

static void expire(struct http_client *c, struct http_req *r)
{
        release(c, r);
        r->queued_ = false;
        r->done_ = true;
        r->status = 0;
        r->err = -ETIMEDOUT;
        snprintf(r->errmsg, sizeof(r->errmsg), "overall deadline passed");
}

/* Requests that end without being sent (gate, no memory) count as finished at once. */
static void end_unsent(struct http_req *r, int err, const char *why, size_t *finished,
                       void (*on_done)(struct http_req *, void *), void *ud)
{
        r->done_ = true;
        r->err = err;
        snprintf(r->errmsg, sizeof(r->errmsg), "%s", why);
        (*finished)++;
        if (on_done)
                on_done(r, ud);
}

static size_t start_ready(struct http_client *c, struct http_req **reqs, size_t n, size_t active,
                          long long deadline, long long *next_wakeup, size_t *finished,
                          void (*on_done)(struct http_req *, void *), void *ud)
{
        long long now = http_now_ms();

        for (size_t i = 0; i < n && active < c->o.parallel; i++) {
                struct http_req *r = reqs[i];

                if (r->done_ || r->queued_)
                        continue;
                if (r->not_before_ms_ > now) {
                        if (!*next_wakeup || r->not_before_ms_ < *next_wakeup)
                                *next_wakeup = r->not_before_ms_;
                        continue;
                }
                if (c->may_send && !c->may_send(c->gate_ud)) {
                        end_unsent(r, -ECANCELED, "not sent: this controller stopped acting", finished, on_done, ud);
                        continue;
                }
                if (start(c, r, deadline) < 0) {
                        release(c, r);
                        r->queued_ = false;
                        end_unsent(r, -ENOMEM, "cannot start the request", finished, on_done, ud);
                        continue;
                }
                active++;
        }
        return active;
}

static size_t collect(struct http_client *c, void (*on_done)(struct http_req *, void *), void *ud,
                      size_t *active)
{
        size_t finished = 0;
        CURLMsg *m;
        int left;

        while ((m = curl_multi_info_read(c->multi, &left))) {
                struct http_req *r = NULL;

                if (m->msg != CURLMSG_DONE)
                        continue;
                curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&r);
                finish(c, r, m->data.result);
                (*active)--;
                if (r->done_) {
                        finished++;
                        if (on_done)
                                on_done(r, ud);
                }
        }
        return finished;
}

int http_run(struct http_client *c, struct http_req **reqs, size_t n, unsigned overall_ms,
             void (*on_done)(struct http_req *r, void *userdata), void *userdata)
{
        long long deadline = overall_ms ? http_now_ms() + overall_ms : 0;
        size_t done = 0, active = 0;

        for (size_t i = 0; i < n; i++)
                http_req_done(reqs[i]);
        while (done < n) {
                long long wake = 0, now, wait;
                int running;

                active = start_ready(c, reqs, n, active, deadline, &wake, &done, on_done, userdata);
                if (done == n)
                        break;
                if (curl_multi_perform(c->multi, &running) != CURLM_OK)
                        return -EIO;
                done += collect(c, on_done, userdata, &active);
                now = http_now_ms();
                if (deadline && now >= deadline && done < n) {
                        for (size_t i = 0; i < n; i++)
                                if (!reqs[i]->done_) {
                                        expire(c, reqs[i]);
                                        if (on_done)
                                                on_done(reqs[i], userdata);
                                }
                        break;
                }
                if (done == n)
                        break;
                wait = 200;
                if (wake && wake - now < wait)
                        wait = wake - now > 0 ? wake - now : 0;
                if (deadline && deadline - now < wait)
                        wait = deadline - now;
                if (curl_multi_poll(c->multi, NULL, 0, (int)wait, NULL) != CURLM_OK)
                        return -EIO;
        }
        return 0;
}

const char *http_req_error(const struct http_req *r, char *buf, size_t size)
{
        if (r->err == -ETIMEDOUT)
                snprintf(buf, size, "timed out (%s)", r->errmsg);
        else if (r->err == -ECONNREFUSED)
                snprintf(buf, size, "cannot connect (%s)", r->errmsg);
        else if (r->err == -EPROTO)
                snprintf(buf, size, "tls failure (%s)", r->errmsg);
        else if (r->err == -EFBIG)
                snprintf(buf, size, "answer larger than %u bytes", HTTP_BODY_MAX);
        else if (r->err < 0)
                snprintf(buf, size, "transport error (%s)", r->errmsg);
        else
                snprintf(buf, size, "HTTP %ld", r->status);
        return buf;
}
