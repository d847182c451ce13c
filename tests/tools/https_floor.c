/* SPDX-License-Identifier: MIT */
/*
 * https_floor: the protocol's own floor for a rollout, for bench/ctl_scale.sh. A
 * bare libcurl multi client that makes, per endpoint, the HTTPS requests a
 * rollout cannot do without and nothing else: POST /v1/apply with the policy
 * (confirm_timeout_s and an idempotency key, as the controller sends it), then,
 * once every apply of its wave has been answered, POST /v1/confirm/{tx}. Waves as
 * the controller cuts them (--canary, --wave-size), the same TLS settings as the
 * controller's fan-out (TLS 1.2 or newer with its ciphers, mTLS, the peer, its
 * name and its certificate's purpose verified, TLS sessions shared, the TLS material
 * read once: controller/fleet/fleet_tls.c), the same number of requests in flight,
 * easy handles reused, connections kept between a node's apply and its confirm
 * (--max-conns of them, by default the whole wave's: the newest applies keep theirs
 * and are confirmed first), closed after the confirm, no DNS cache in libcurl. No
 * store, no journal, no retries, no progress, answers parsed only for their "tx".
 *
 *   https_floor --endpoints N --port P --ca CA --cert C --key K --policy FILE
 *               [--parallel 64] [--canary 1] [--wave-size 25%] [--confirm-timeout 300]
 *               [--max-conns M] [--base 127.1.0.1]
 *
 * Endpoint i (0-based) is https://BASE+i:P, as the load generator numbers them.
 * Prints one line: "https_floor: N endpoints, W waves: A applied, C committed,
 * F failed; wall X ms, cpu Y s, peak rss Z MiB" and exits 1 unless every node committed.
 */
#include <arpa/inet.h>
#include <curl/curl.h>
#include <getopt.h>
#include <jansson.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <time.h>

#include "common/util.h"
#include "controller/fleet/fleet_internal.h"

#define FLOOR_CIPHERS "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:" \
        "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:" \
        "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256"      /* fleet_http.c's */

struct floor_opts {
        unsigned n, port, parallel, canary, wave_pct, wave_abs, confirm_s, max_conns;
        uint32_t base;
        const char *ca, *cert, *key;
        char *policy;
        size_t policy_len;
};

struct node {
        char tx[64];
        bool applied, committed;
};

struct slot {
        CURL *easy;
        unsigned node;
        char url[256], body[64], resp[2048];
        size_t len;
        bool busy;
};

static size_t on_write(char *data, size_t size, size_t nmemb, void *ud)
{
        struct slot *s = ud;
        size_t n = size * nmemb, room = sizeof(s->resp) - 1 - s->len;

        memcpy(s->resp + s->len, data, n < room ? n : room);
        s->len += n < room ? n : room;
        s->resp[s->len] = '\0';
        return n;
}

static CURL *easy_new(struct fleet_tls *tls, CURLSH *share, struct slot *s)
{
        static struct curl_slist *h;
        CURL *e = curl_easy_init();

        if (!h) {
                h = curl_slist_append(h, "Accept: application/json");
                h = curl_slist_append(h, "Content-Type: application/json");
                h = curl_slist_append(h, "Expect:");
        }
        if (!e)
                return NULL;
        curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "https");
        curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(e, CURLOPT_SHARE, share);
        curl_easy_setopt(e, CURLOPT_CAINFO, NULL);
        curl_easy_setopt(e, CURLOPT_CAPATH, NULL);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
        curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
        curl_easy_setopt(e, CURLOPT_SSL_CTX_FUNCTION, fleet_tls_on_ctx);
        curl_easy_setopt(e, CURLOPT_SSL_CTX_DATA, tls);
        curl_easy_setopt(e, CURLOPT_SSLVERSION, (long)(CURL_SSLVERSION_TLSv1_2 | CURL_SSLVERSION_MAX_DEFAULT));
        curl_easy_setopt(e, CURLOPT_SSL_CIPHER_LIST, FLOOR_CIPHERS);
        curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, 30000L);
        curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 60000L);
        curl_easy_setopt(e, CURLOPT_HTTPHEADER, h);
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_write);
        curl_easy_setopt(e, CURLOPT_WRITEDATA, s);
        curl_easy_setopt(e, CURLOPT_PRIVATE, s);
        curl_easy_setopt(e, CURLOPT_POST, 1L);
        curl_easy_setopt(e, CURLOPT_DNS_CACHE_TIMEOUT, 0L);
        return e;
}

static void url_of(const struct floor_opts *o, unsigned i, char *buf, size_t size, const char *path)
{
        struct in_addr a = { htonl(o->base + i) };
        char ip[INET_ADDRSTRLEN];

        inet_ntop(AF_INET, &a, ip, sizeof(ip));
        snprintf(buf, size, "https://%s:%u%s", ip, o->port, path);
}

/*
 * Queue node i's apply (confirm false) or confirm on a free slot. A connection is kept
 * from a node's apply to its confirm, for the last `keep` nodes of its wave (those
 * confirmed first), and closed after its confirm: libcurl's cache never fills.
 */
static void start(const struct floor_opts *o, CURLM *m, struct slot *s, struct node *nodes, unsigned i,
                  bool confirm, uint32_t nonce, long long not_after_ms, bool close_after)
{
        char path[128];

        curl_easy_setopt(s->easy, CURLOPT_FORBID_REUSE, close_after ? 1L : 0L);

        s->node = i;
        s->len = 0;
        s->busy = true;
        if (confirm) {
                snprintf(path, sizeof(path), "/v1/confirm/%s", nodes[i].tx);
                snprintf(s->body, sizeof(s->body), "{\"not_after_ms\":%lld}", not_after_ms);
                curl_easy_setopt(s->easy, CURLOPT_POSTFIELDS, s->body);
                curl_easy_setopt(s->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(s->body));
        } else {
                snprintf(path, sizeof(path), "/v1/apply?confirm_timeout_s=%u&idempotency_key=floor-%08x-%u",
                         o->confirm_s, nonce, i);
                curl_easy_setopt(s->easy, CURLOPT_POSTFIELDS, o->policy);
                curl_easy_setopt(s->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)o->policy_len);
        }
        url_of(o, i, s->url, sizeof(s->url), path);
        curl_easy_setopt(s->easy, CURLOPT_URL, s->url);
        curl_multi_add_handle(m, s->easy);
}

/* The answer of a slot's request: an apply's tx (pending), a confirm's commit. */
static void finish(struct slot *s, struct node *nodes, bool confirm, CURLcode rc)
{
        const char *state;
        long status = 0;
        json_t *j;

        curl_easy_getinfo(s->easy, CURLINFO_RESPONSE_CODE, &status);
        s->busy = false;
        if (rc != CURLE_OK || status != 200 || !(j = json_loads(s->resp, 0, NULL)))
                return;
        state = json_string_value(json_object_get(j, "state"));
        if (!confirm && json_is_integer(json_object_get(j, "tx"))) {
                snprintf(nodes[s->node].tx, sizeof(nodes[s->node].tx), "%lld",
                         (long long)json_integer_value(json_object_get(j, "tx")));
                nodes[s->node].applied = true;
                /* Nothing to do (the policy is there already): committed without a confirm. */
                nodes[s->node].committed = state && streq(state, "committed");
        } else if (confirm) {
                nodes[s->node].committed = state && streq(state, "committed");
        }
        json_decref(j);
}

/*
 * Nodes [from, to) of one wave, every request answered before this returns: applies in
 * order, the last `keep` of them keeping their connections; confirms newest first.
 */
static void run_step(const struct floor_opts *o, CURLM *m, struct slot *slots, struct node *nodes, unsigned from,
                     unsigned to, bool confirm, uint32_t nonce, long long not_after_ms, unsigned keep)
{
        unsigned n = to - from, next = 0, active = 0;

        while (next < n || active > 0) {
                CURLMsg *msg;
                int running, left;

                for (unsigned k = 0; k < o->parallel && next < n; k++) {
                        unsigned i;

                        if (slots[k].busy)
                                continue;
                        while (next < n && confirm && (!nodes[to - 1 - next].applied || nodes[to - 1 - next].committed))
                                next++;
                        if (next == n)
                                break;
                        i = confirm ? to - 1 - next : from + next;
                        start(o, m, &slots[k], nodes, i, confirm, nonce, not_after_ms, confirm || next + keep < n);
                        next++;
                        active++;
                }
                curl_multi_perform(m, &running);
                while ((msg = curl_multi_info_read(m, &left))) {
                        struct slot *s = NULL;

                        if (msg->msg != CURLMSG_DONE)
                                continue;
                        curl_easy_getinfo(msg->easy_handle, CURLINFO_PRIVATE, (char **)&s);
                        curl_multi_remove_handle(m, msg->easy_handle);
                        finish(s, nodes, confirm, msg->data.result);
                        active--;
                }
                if (active > 0)
                        curl_multi_poll(m, NULL, 0, 200, NULL);
        }
}

static long long now_ms(int clock)
{
        struct timespec ts;

        clock_gettime(clock, &ts);
        return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static unsigned wave_size(const struct floor_opts *o)
{
        unsigned long long v = o->wave_pct ? ((unsigned long long)o->wave_pct * o->n + 99) / 100 : o->wave_abs;

        return v ? (unsigned)v : 1;
}

static int parse_args(int argc, char **argv, struct floor_opts *o)
{
        static const struct option opts[] = {
                { "endpoints", required_argument, NULL, 'n' }, { "port", required_argument, NULL, 'p' },
                { "ca", required_argument, NULL, 'a' }, { "cert", required_argument, NULL, 'c' },
                { "key", required_argument, NULL, 'k' }, { "policy", required_argument, NULL, 'f' },
                { "parallel", required_argument, NULL, 'P' }, { "canary", required_argument, NULL, 'C' },
                { "wave-size", required_argument, NULL, 'w' }, { "confirm-timeout", required_argument, NULL, 't' },
                { "max-conns", required_argument, NULL, 'M' }, { "base", required_argument, NULL, 'b' },
                { 0 },
        };
        const char *policy = NULL;
        struct in_addr base = { htonl(0x7F010001u) };
        char *end;
        int c;

        *o = (struct floor_opts) { .parallel = 64, .canary = 1, .wave_pct = 25, .confirm_s = 300 };
        while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                switch (c) {
                case 'n': o->n = (unsigned)strtoul(optarg, NULL, 10); break;
                case 'p': o->port = (unsigned)strtoul(optarg, NULL, 10); break;
                case 'a': o->ca = optarg; break;
                case 'c': o->cert = optarg; break;
                case 'k': o->key = optarg; break;
                case 'f': policy = optarg; break;
                case 'P': o->parallel = (unsigned)strtoul(optarg, NULL, 10); break;
                case 'C': o->canary = (unsigned)strtoul(optarg, NULL, 10); break;
                case 'w':
                        o->wave_abs = (unsigned)strtoul(optarg, &end, 10);
                        o->wave_pct = *end == '%' ? o->wave_abs : 0;
                        break;
                case 't': o->confirm_s = (unsigned)strtoul(optarg, NULL, 10); break;
                case 'M': o->max_conns = (unsigned)strtoul(optarg, NULL, 10); break;
                case 'b': if (inet_pton(AF_INET, optarg, &base) != 1) return -EINVAL; break;
                default: return -EINVAL;
                }
        }
        o->base = ntohl(base.s_addr);
        if (!o->n || o->n > 65000 || !o->port || !o->ca || !o->cert || !o->key || !policy || !o->parallel ||
            o->parallel > 4096)
                return -EINVAL;
        FILE *f = fopen(policy, "re");
        if (!f)
                return -errno;
        o->policy = calloc(1, 1u << 20);
        o->policy_len = o->policy ? fread(o->policy, 1, (1u << 20) - 1, f) : 0;
        fclose(f);
        return o->policy_len ? 0 : -EINVAL;
}

int main(int argc, char **argv)
{
        struct floor_opts o;
        struct node *nodes;
        struct slot *slots;
        struct fleet_tls *tls = NULL;
        struct errbuf e = { 0 };
        struct rusage ru;
        unsigned size, keep, waves = 0, applied = 0, committed = 0;
        uint32_t nonce = 0;
        long long t0 = now_ms(CLOCK_MONOTONIC);
        CURLSH *share;
        CURLM *m;

        if (parse_args(argc, argv, &o) < 0) {
                fprintf(stderr, "usage: https_floor --endpoints N --port P --ca CA --cert C --key K --policy FILE "
                                "[--parallel 64] [--canary 1] [--wave-size 25%%] [--confirm-timeout 300] "
                                "[--max-conns M] [--base 127.1.0.1]\n");
                return 2;
        }
        curl_global_init(CURL_GLOBAL_DEFAULT);
        if (getrandom(&nonce, sizeof(nonce), 0) != sizeof(nonce))
                nonce = (uint32_t)time(NULL);
        size = wave_size(&o);
        nodes = calloc(o.n, sizeof(*nodes));
        slots = calloc(o.parallel, sizeof(*slots));
        m = curl_multi_init();
        share = curl_share_init();
        if (!nodes || !slots || !m || !share)
                return 3;
        if (fleet_tls_load(&(struct http_tls) { o.ca, o.cert, o.key }, &tls, &e) < 0) {
                fprintf(stderr, "https_floor: %s: %s\n", e.where, e.msg);
                return 3;
        }
        curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
        keep = o.max_conns ? o.max_conns : size;
        curl_multi_setopt(m, CURLMOPT_MAXCONNECTS, (long)(keep + o.parallel));
        for (unsigned k = 0; k < o.parallel; k++)
                if (!(slots[k].easy = easy_new(tls, share, &slots[k])))
                        return 3;
        for (unsigned from = 0; from < o.n; waves++) {
                unsigned to = waves == 0 && o.canary ? (o.canary < o.n ? o.canary : o.n) :
                              (o.n - from < size ? o.n : from + size);

                run_step(&o, m, slots, nodes, from, to, false, nonce, 0, keep);
                run_step(&o, m, slots, nodes, from, to, true, nonce, now_ms(CLOCK_REALTIME) + 60000, keep);
                from = to;
        }
        for (unsigned i = 0; i < o.n; i++) {
                applied += nodes[i].applied;
                committed += nodes[i].committed;
        }
        getrusage(RUSAGE_SELF, &ru);
        printf("https_floor: %u endpoints, %u waves: %u applied, %u committed, %u failed; wall %lld ms, cpu %.2f s, "
               "peak rss %ld MiB\n", o.n, waves, applied, committed, o.n - committed, now_ms(CLOCK_MONOTONIC) - t0,
               ru.ru_utime.tv_sec + ru.ru_stime.tv_sec + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6,
               ru.ru_maxrss / 1024);
        for (unsigned k = 0; k < o.parallel; k++)
                curl_easy_cleanup(slots[k].easy);
        curl_multi_cleanup(m);
        curl_share_cleanup(share);
        fleet_tls_free(tls);
        free(slots);
        free(nodes);
        free(o.policy);
        return committed == o.n ? 0 : 1;
}
