/* SPDX-License-Identifier: MIT */
/* libcurl multi transport: bounded concurrency, deadlines, retries for idempotent requests. */
#include <curl/curl.h>
#include <sys/resource.h>
#include <time.h>

#include "controller/fleet/fleet_internal.h"

/* TLS 1.2 only with ECDHE and AEAD ciphers (no CBC, no SHA-1 MACs); TLS 1.3 suites are all AEAD. */
#define HTTP_TLS12_CIPHERS "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:" \
        "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:" \
        "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256"

#define HTTP_RESERVE_FDS 256            /* descriptors left to the store, files and the rest */
#define HTTP_IDLE_REUSE_S 20            /* a kept connection idle longer is closed, not reused */

struct http_client {
        CURLM *multi;
        struct fleet_tls *tls;
        struct http_opts o;
        bool (*may_send)(void *ud);
        void *gate_ud;
        struct curl_slist *headers;     /* the same for every request */
        CURL **idle;                    /* easy handles of finished requests, for the next ones */
        unsigned n_idle, cap_idle;
        unsigned keep, keep_max;        /* connections kept now, and at most (as descriptors allow) */
        struct http_stats stats;
};

void http_client_set_gate(struct http_client *c, bool (*may_send)(void *ud), void *ud)
{
        c->may_send = may_send;
        c->gate_ud = ud;
}

unsigned http_client_set_parallel(struct http_client *c, unsigned parallel)
{
        unsigned old = c->o.parallel;

        if (c->keep_max && parallel > c->keep_max)
                parallel = c->keep_max;         /* one descriptor each: never past the open-file limit */
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

/* Descriptors for kept connections: raise the soft open-file limit to the hard one, keep a reserve. */
static unsigned keep_limit(void)
{
        struct rlimit rl;
        rlim_t want;

        if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
                return 0;
        want = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > 65536 ? 65536 : rl.rlim_max;
        if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
                rl.rlim_cur = want;
                if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
                        getrlimit(RLIMIT_NOFILE, &rl);
        }
        if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > HTTP_KEEP_MAX + HTTP_RESERVE_FDS)
                return HTTP_KEEP_MAX;
        return rl.rlim_cur > 2 * HTTP_RESERVE_FDS ? (unsigned)rl.rlim_cur - HTTP_RESERVE_FDS : (unsigned)rl.rlim_cur / 2;
}

int http_client_new(const struct http_tls *tls, const struct http_opts *o, struct http_client **ret,
                    struct errbuf *e)
{
        static bool global_done;
        struct http_client *c;
        int r;

        if (!global_done) {
                if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
                        return errbuf_set(e, EIO, "libcurl", "cannot initialise libcurl");
                global_done = true;
        }
        if (fleet_tls_check_backend(e) < 0)
                return -ENOTSUP;
        c = calloc(1, sizeof(*c));
        if (!c)
                return errbuf_set(e, ENOMEM, "libcurl", "out of memory");
        c->o = *o;
        if (c->o.parallel == 0)
                c->o.parallel = 1;
        if (c->o.max_conns == 0)
                c->o.max_conns = 256;
        c->keep_max = keep_limit();
        c->multi = curl_multi_init();
        c->headers = curl_slist_append(NULL, "Accept: application/json");
        if (!c->headers || !curl_slist_append(c->headers, "Content-Type: application/json") ||
            !curl_slist_append(c->headers, "Expect:") || !c->multi) {
                http_client_free(c);
                return errbuf_set(e, ENOMEM, "libcurl", "out of memory");
        }
        r = fleet_tls_load(tls, &c->tls, e);
        if (r < 0) {
                http_client_free(c);
                return r;
        }
        http_client_keep(c, 0);
        *ret = c;
        return 0;
}

/* Connections the TLS budget allows beside a session for each node of the fleet (fleet.h). */
static unsigned keep_budget(unsigned fleet)
{
        unsigned long long sessions = (unsigned long long)fleet * HTTP_SESSION_COST;
        unsigned long long conns;

        if (sessions > HTTP_SESSIONS_BYTES)
                sessions = HTTP_SESSIONS_BYTES;
        conns = (HTTP_TLS_BUDGET - sessions) / HTTP_CONN_COST;
        return conns > HTTP_KEEP_MAX ? HTTP_KEEP_MAX : (unsigned)conns;
}

unsigned http_client_keep(struct http_client *c, unsigned n)
{
        unsigned keep = n > c->o.max_conns ? n : c->o.max_conns;
        unsigned most = keep_budget(c->o.fleet);

        if (keep < c->keep)
                keep = c->keep;         /* never fewer than asked before: those connections may be wanted still */
        if (keep > most)
                keep = most;
        if (c->keep_max && keep + c->o.parallel > c->keep_max)
                keep = c->keep_max > c->o.parallel ? c->keep_max - c->o.parallel : 1;
        if (keep != c->keep)
                curl_multi_setopt(c->multi, CURLMOPT_MAXCONNECTS, (long)(keep + c->o.parallel));
        c->keep = keep;
        return keep < n ? keep : n;
}

void http_client_stats(const struct http_client *c, struct http_stats *ret)
{
        *ret = c->stats;
}

void http_client_free(struct http_client *c)
{
        if (!c)
                return;
        for (unsigned i = 0; i < c->n_idle; i++)
                curl_easy_cleanup(c->idle[i]);
        free(c->idle);
        if (c->multi)
                curl_multi_cleanup(c->multi);
        curl_slist_free_all(c->headers);
        fleet_tls_free(c->tls);
        free(c);
}

void http_req_drop_answer(struct http_req *r)
{
        free(r->resp);
        r->resp = NULL;
        r->resp_len = r->cap_ = 0;
}

void http_req_done(struct http_req *r)
{
        http_req_drop_answer(r);
        r->status = 0;
        r->err = 0;
        r->errmsg[0] = '\0';
        r->attempts = 0;
        r->sent = false;
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
                size_t cap = r->cap_ ? r->cap_ : 1024;
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

/* A new easy handle with what every request shares: TLS (and its sessions), the headers. */
static CURL *easy_new(struct http_client *c)
{
        CURL *easy = curl_easy_init();

        if (!easy)
                return NULL;
        c->stats.handles++;
        curl_easy_setopt(easy, CURLOPT_PROTOCOLS_STR, "https");
        curl_easy_setopt(easy, CURLOPT_NOSIGNAL, 1L);
        /* The CA, certificate and key come from c->tls (fleet_tls_on_ctx), not from files per connection. */
        curl_easy_setopt(easy, CURLOPT_CAINFO, NULL);
        curl_easy_setopt(easy, CURLOPT_CAPATH, NULL);
        curl_easy_setopt(easy, CURLOPT_SSL_VERIFYPEER, 1L);
        curl_easy_setopt(easy, CURLOPT_SSL_VERIFYHOST, 2L);
        curl_easy_setopt(easy, CURLOPT_SSL_CTX_FUNCTION, fleet_tls_on_ctx);
        curl_easy_setopt(easy, CURLOPT_SSL_CTX_DATA, c->tls);
        curl_easy_setopt(easy, CURLOPT_SSL_SESSIONID_CACHE, 0L);       /* fleet_tls keeps the sessions */
        curl_easy_setopt(easy, CURLOPT_SSLVERSION, (long)(CURL_SSLVERSION_TLSv1_2 | CURL_SSLVERSION_MAX_DEFAULT));
        curl_easy_setopt(easy, CURLOPT_SSL_CIPHER_LIST, HTTP_TLS12_CIPHERS);
        curl_easy_setopt(easy, CURLOPT_CONNECTTIMEOUT_MS, (long)c->o.connect_timeout_ms);
        /*
         * A kept connection idle this long is not reused: an agent closes one idle for its
         * request_timeout_s (30 s by default), and a request sent as it does is lost.
         */
        curl_easy_setopt(easy, CURLOPT_MAXAGE_CONN, (long)HTTP_IDLE_REUSE_S);
        /* No DNS cache: a name is resolved for each new connection (by the system's resolver). */
        curl_easy_setopt(easy, CURLOPT_DNS_CACHE_TIMEOUT, 0L);
        curl_easy_setopt(easy, CURLOPT_HTTPHEADER, c->headers);
        curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, on_write);
        return easy;
}

static int start(struct http_client *c, struct http_req *r, long long deadline)
{
        long timeout = r->timeout_ms ? (long)r->timeout_ms : 30000;
        CURL *easy = c->n_idle ? c->idle[--c->n_idle] : easy_new(c);

        if (!easy)
                return -ENOMEM;
        if (deadline && deadline - http_now_ms() < timeout)
                timeout = (long)(deadline - http_now_ms() > 1 ? deadline - http_now_ms() : 1);
        curl_easy_setopt(easy, CURLOPT_URL, r->url);
        curl_easy_setopt(easy, CURLOPT_TIMEOUT_MS, timeout);
        curl_easy_setopt(easy, CURLOPT_WRITEDATA, r);
        curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, r->errmsg);
        curl_easy_setopt(easy, CURLOPT_PRIVATE, r);
        curl_easy_setopt(easy, CURLOPT_FORBID_REUSE, r->close_after ? 1L : 0L);
        if (streq(r->method, "POST")) {
                curl_easy_setopt(easy, CURLOPT_POST, 1L);
                curl_easy_setopt(easy, CURLOPT_POSTFIELDS, r->body ? r->body : "");
                curl_easy_setopt(easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)(r->body ? r->body_len : 0));
        } else {
                curl_easy_setopt(easy, CURLOPT_HTTPGET, 1L);
        }
        r->errmsg[0] = '\0';
        r->easy_ = easy;
        r->queued_ = true;
        r->sent = false;
        c->stats.retries += r->attempts > 0;
        r->attempts++;
        c->stats.attempts++;
        if (curl_multi_add_handle(c->multi, easy) != CURLM_OK)
                return -EIO;
        return 0;
}

/* The request's easy handle goes back to the pool (the connection stays in the multi's cache). */
static void release(struct http_client *c, struct http_req *r)
{
        CURL *easy = r->easy_;

        r->easy_ = NULL;
        if (!easy)
                return;
        curl_multi_remove_handle(c->multi, easy);
        curl_easy_setopt(easy, CURLOPT_ERRORBUFFER, NULL);
        if (c->n_idle == c->cap_idle) {
                unsigned cap = c->cap_idle ? c->cap_idle * 2 : 64;
                CURL **more = cap <= c->o.parallel * 2 + 64 ? realloc(c->idle, cap * sizeof(*more)) : NULL;

                if (!more) {
                        curl_easy_cleanup(easy);
                        return;
                }
                c->idle = more;
                c->cap_idle = cap;
        }
        c->idle[c->n_idle++] = easy;
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

/*
 * Worth another attempt: an idempotent request that failed in transport or got a 5xx,
 * and any request that never went out (its connection or handshake failed: an apply
 * among them is not sent twice). Never a certificate refused or an answer too large.
 */
static bool retryable(const struct http_req *r)
{
        if (r->err == -EPROTO || r->err == -EFBIG || r->err == -ENOMEM)
                return false;
        if (!r->idempotent)
                return r->err < 0 && !r->sent;
        return r->err < 0 || r->status >= 500;
}

/* One attempt ended: keep the answer, or schedule the next attempt. */
static void finish(struct http_client *c, struct http_req *r, CURLcode rc)
{
        long connects = 0, request_size = 0;

        r->status = 0;
        r->err = 0;
        curl_easy_getinfo(r->easy_, CURLINFO_NUM_CONNECTS, &connects);
        curl_easy_getinfo(r->easy_, CURLINFO_REQUEST_SIZE, &request_size);
        c->stats.connects += (unsigned long long)(connects > 0 ? connects : 0);
        c->stats.resumed += connects > 0 && fleet_tls_resumed(r->easy_);
        r->sent = request_size > 0;
        if (rc == CURLE_OK)
                curl_easy_getinfo(r->easy_, CURLINFO_RESPONSE_CODE, &r->status);
        else
                r->err = map_error(rc, r);
        if (r->err < 0 && !r->errmsg[0])
                snprintf(r->errmsg, sizeof(r->errmsg), "%s", curl_easy_strerror(rc));
        release(c, r);
        r->queued_ = false;
        if (r->attempts <= c->o.retries && retryable(r)) {
                http_req_drop_answer(r);
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

/*
 * One http_run: requests not started yet from a cursor, attempts to retry in a
 * min-heap by when they are due; nothing in it is ever scanned whole.
 */
struct run {
        struct http_client *c;
        struct http_req **reqs;
        size_t n, next, done, active;
        struct http_req **due;          /* heap by not_before_ms_ */
        size_t n_due;
        long long deadline;
        void (*on_done)(struct http_req *, void *);
        void *ud;
};

static void due_push(struct run *u, struct http_req *r)
{
        size_t i = u->n_due++;

        while (i > 0 && u->due[(i - 1) / 2]->not_before_ms_ > r->not_before_ms_) {
                u->due[i] = u->due[(i - 1) / 2];
                i = (i - 1) / 2;
        }
        u->due[i] = r;
}

static struct http_req *due_pop(struct run *u)
{
        struct http_req *top = u->due[0], *last = u->due[--u->n_due];
        size_t i = 0;

        for (;;) {
                size_t k = 2 * i + 1;

                if (k >= u->n_due)
                        break;
                if (k + 1 < u->n_due && u->due[k + 1]->not_before_ms_ < u->due[k]->not_before_ms_)
                        k++;
                if (u->due[k]->not_before_ms_ >= last->not_before_ms_)
                        break;
                u->due[i] = u->due[k];
                i = k;
        }
        if (u->n_due)
                u->due[i] = last;
        return top;
}

/* A request ended for good. */
static void ended(struct run *u, struct http_req *r)
{
        u->done++;
        if (u->on_done)
                u->on_done(r, u->ud);
}

/* Requests that end without being sent (gate, no memory) count as finished at once. */
static void end_unsent(struct run *u, struct http_req *r, int err, const char *why)
{
        r->done_ = true;
        r->err = err;
        snprintf(r->errmsg, sizeof(r->errmsg), "%s", why);
        ended(u, r);
}

/* Start what may start now: retries that are due first, then the next requests in order. */
static void start_ready(struct run *u, long long *next_wakeup)
{
        struct http_client *c = u->c;
        long long now = http_now_ms();

        while (u->active < c->o.parallel) {
                struct http_req *r;

                if (u->n_due && u->due[0]->not_before_ms_ <= now)
                        r = due_pop(u);
                else if (u->next < u->n)
                        r = u->reqs[u->next++];
                else
                        break;
                if (c->may_send && !c->may_send(c->gate_ud)) {
                        end_unsent(u, r, -ECANCELED, "not sent: this controller stopped acting");
                        continue;
                }
                if (start(c, r, u->deadline) < 0) {
                        release(c, r);
                        r->queued_ = false;
                        end_unsent(u, r, -ENOMEM, "cannot start the request");
                        continue;
                }
                u->active++;
        }
        if (u->n_due)
                *next_wakeup = u->due[0]->not_before_ms_;
}

static void collect(struct run *u)
{
        CURLMsg *m;
        int left;

        while ((m = curl_multi_info_read(u->c->multi, &left))) {
                struct http_req *r = NULL;

                if (m->msg != CURLMSG_DONE)
                        continue;
                curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&r);
                finish(u->c, r, m->data.result);
                u->active--;
                if (r->done_)
                        ended(u, r);
                else
                        due_push(u, r);
        }
}

/* The overall deadline passed: what is left ends as timed out. */
static void expire_all(struct run *u)
{
        for (size_t i = 0; i < u->n; i++)
                if (!u->reqs[i]->done_) {
                        expire(u->c, u->reqs[i]);
                        if (u->on_done)
                                u->on_done(u->reqs[i], u->ud);
                }
}

/* How long to wait for sockets: until a retry is due or the deadline, 200 ms at most. */
static int wait_ms(const struct run *u, long long wake, long long now)
{
        long long wait = 200;

        if (wake && wake - now < wait)
                wait = wake - now > 0 ? wake - now : 0;
        if (u->deadline && u->deadline - now < wait)
                wait = u->deadline - now;
        return (int)wait;
}

int http_run(struct http_client *c, struct http_req **reqs, size_t n, unsigned overall_ms,
             void (*on_done)(struct http_req *r, void *userdata), void *userdata)
{
        struct run u = { .c = c, .reqs = reqs, .n = n, .on_done = on_done, .ud = userdata,
                         .deadline = overall_ms ? http_now_ms() + overall_ms : 0 };
        int r = 0;

        u.due = calloc(n + 1, sizeof(*u.due));
        if (!u.due)
                return -ENOMEM;
        for (size_t i = 0; i < n; i++)
                http_req_done(reqs[i]);
        while (u.done < n) {
                long long wake = 0, now;
                int running;

                start_ready(&u, &wake);
                if (u.done == n)
                        break;
                if (curl_multi_perform(c->multi, &running) != CURLM_OK) {
                        r = -EIO;
                        break;
                }
                collect(&u);
                now = http_now_ms();
                if (u.deadline && now >= u.deadline && u.done < n) {
                        expire_all(&u);
                        break;
                }
                if (u.done == n)
                        break;
                if (curl_multi_poll(c->multi, NULL, 0, wait_ms(&u, wake, now), NULL) != CURLM_OK) {
                        r = -EIO;
                        break;
                }
        }
        free(u.due);
        return r;
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
