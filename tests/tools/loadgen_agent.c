/* SPDX-License-Identifier: MIT */
/*
 * loadgen_agent: a LOAD GENERATOR for controller benchmarks, NOT an agent. It
 * changes nothing on any host; it answers the agent API from a table in memory
 * so that one process can stand in for thousands of nodes when the controller
 * alone is measured (bench/ctl_store_2000.sh). Real agents are measured with
 * real agents (bench/rollout_200.sh, bench/ctl_etcd_200.sh).
 *
 *   loadgen_agent --listen 0.0.0.0:PORT --endpoints N --client-ca CA
 *                 (--sign-ca CA.crt --sign-key CA.key | --cert C --key K) [--apply-ms MS] [--close]
 *                 [--lose-applies N]
 *
 * Design: one process, one mTLS listener (the agent's own HTTPS server code,
 * agent/http/http.c: client certificates required and verified) bound to every
 * address of a private network namespace; endpoint i (0-based) is the loopback
 * address 127.1.0.1 + i, so an inventory names N distinct https://127.1.x.y:PORT
 * URLs and the endpoint is told by the connection's local address. With --sign-ca
 * and --sign-key each endpoint presents a certificate of its own, for its own
 * address only, as every agent does (minted at start by that CA, one key shared by
 * all: a handshake costs what it costs with one agent, whatever N); with --cert and
 * --key every endpoint presents that one certificate (which must then name all N
 * addresses: its size, and what a client parses per handshake, grow with N). One shared
 * table holds each endpoint's committed policy, pending transactions with their
 * confirm deadlines, its idempotency keys and a short history:
 *   GET  /v1/state (interface lg0 and the name "loadgen" when something was committed),
 *   GET  /v1/health, /v1/drift (never drifted), /v1/history (newest first, each commit
 *        with its revision number, as an agent numbers them), /v1/transactions/{tx}
 *   POST /v1/plan (one change, or none when the document is the committed one)
 *   POST /v1/apply?confirm_timeout_s=S&idempotency_key=K  (a known key: replayed)
 *   POST /v1/confirm/{tx}, POST /v1/rollback
 * --apply-ms makes every apply take that long (a stand-in for device work); --close
 * closes every connection after its answer (the client reconnects for each request,
 * resuming its TLS session when it kept the ticket). --lose-applies N: the first N
 * applies (counted over all endpoints) are lost on the way, as when a connection fails
 * as the request goes out: the connection closes with no answer, nothing is recorded.
 * On SIGUSR1 it prints its counters (requests, connections accepted, applies, replays)
 * on stderr, and once more on SIGTERM.
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <gnutls/abstract.h>
#include <gnutls/x509.h>
#include <jansson.h>
#include <microhttpd.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/socket.h>
#include <time.h>

#include "agent/http/http.h"
#include "common/version.h"

#define LG_ENDPOINTS_MAX 65000
#define LG_HIST 16
#define LG_BASE 0x7F010001u             /* 127.1.0.1 */

enum lg_state { LG_PENDING, LG_COMMITTED, LG_ROLLED_BACK };

struct lg_tx {
        long long id, deadline_ms, started_ms;
        long long rev;                  /* the revision its commit recorded, 0 = none */
        unsigned long long hash;
        enum lg_state state;
        char key[64];
};

struct lg_slot {
        pthread_mutex_t lock;
        unsigned long long committed;   /* hash of the committed policy, 0 = none */
        long long next_tx, next_rev;
        unsigned n;                     /* history entries, newest at hist[(n - 1) % LG_HIST] */
        struct lg_tx hist[LG_HIST];
};

static struct lg_slot *slots;
static gnutls_pcert_st *certs;          /* --sign-ca: endpoint i's certificate */
static gnutls_privkey_t cert_key;       /* ... and the key of all of them */
static unsigned n_slots, apply_ms;
static bool close_each;
static atomic_ullong n_requests, n_applies, n_replays, n_confirms, n_unknown, n_apply_requests;
static unsigned long long lose_applies;      /* --lose-applies: the first this many applies are lost */
static volatile sig_atomic_t stopping, reporting;

static long long now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_REALTIME, &ts);
        return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *state_name(enum lg_state s)
{
        return s == LG_PENDING ? "pending_confirm" : s == LG_COMMITTED ? "committed" : "rolled_back";
}

/* The endpoint this connection was made to (its local address). */
static struct lg_slot *slot_of(const struct http_request *req)
{
        const union MHD_ConnectionInfo *ci = MHD_get_connection_info(req->conn, MHD_CONNECTION_INFO_CONNECTION_FD);
        struct sockaddr_in a;
        socklen_t len = sizeof(a);
        uint32_t ip;

        if (!ci || getsockname(ci->connect_fd, (struct sockaddr *)&a, &len) < 0 || a.sin_family != AF_INET)
                return NULL;
        ip = ntohl(a.sin_addr.s_addr);
        return ip >= LG_BASE && ip - LG_BASE < n_slots ? &slots[ip - LG_BASE] : NULL;
}

/* Pending transactions past their deadline revert, as an agent's confirm timer would. */
static void expire(struct lg_slot *s)
{
        long long now = now_ms();

        for (unsigned i = 0; i < LG_HIST && i < s->n; i++)
                if (s->hist[i].state == LG_PENDING && s->hist[i].deadline_ms <= now)
                        s->hist[i].state = LG_ROLLED_BACK;
}

static struct lg_tx *find(struct lg_slot *s, long long id, const char *key)
{
        for (unsigned i = 0; i < LG_HIST && i < s->n; i++)
                if (key ? streq(s->hist[i].key, key) : s->hist[i].id == id)
                        return &s->hist[i];
        return NULL;
}

static json_t *tx_json(const struct lg_tx *t, bool replayed)
{
        /* rev: as the agent's apply and confirm answers name a commit's revision (agent/txn/txn_json.c) */
        return json_pack("{s:I, s:o*, s:s, s:s, s:i, s:[{s:s, s:s, s:i, s:i}], s:I, s:s, s:b}", "tx", (json_int_t)t->id,
                         "rev", t->rev && !replayed ? json_integer(t->rev) : NULL,
                         "state", state_name(t->state), "result", state_name(t->state),
                         "exit_code", t->state == LG_PENDING ? 4 : t->state == LG_COMMITTED ? 0 : 1,
                         "changes", "target", "lg0", "field", "mtu", "from", 1500, "to", 9000,
                         "confirm_deadline_ms", (json_int_t)t->deadline_ms, "idempotency_key", t->key,
                         "replayed", replayed);
}

static void reply(struct http_response *resp, int status, json_t *j)
{
        resp->status = status;
        resp->body = j ? json_dumps(j, JSON_COMPACT) : NULL;
        resp->content_type = "application/json";
        json_decref(j);
}

static unsigned long long hash(const char *s, size_t n)
{
        unsigned long long h = 1469598103934665603ull;

        for (size_t i = 0; i < n; i++)
                h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
        return h | 1;
}

static void do_apply(struct lg_slot *s, const struct http_request *req, struct http_response *resp)
{
        const char *ct = http_query(req, "confirm_timeout_s"), *key = http_query(req, "idempotency_key");
        unsigned long long h = hash(req->body, req->body_len);
        json_t *doc = json_loadb(req->body, req->body_len, 0, NULL);
        long long confirm = ct ? strtoll(ct, NULL, 10) : 0;
        struct lg_tx *t;

        if (!json_is_object(doc) || confirm < 0 || confirm > 86400 || (key && strlen(key) >= sizeof(t->key))) {
                json_decref(doc);
                http_error(resp, 400, "invalid", NULL, "not a policy, or a bad query; nothing was changed");
                return;
        }
        json_decref(doc);
        if (apply_ms)
                usleep(apply_ms * 1000u);
        pthread_mutex_lock(&s->lock);
        expire(s);
        if (key && (t = find(s, 0, key))) {
                atomic_fetch_add(&n_replays, 1);
                reply(resp, 200, tx_json(t, true));
        } else if (h == s->committed) {
                reply(resp, 200, json_pack("{s:i, s:s, s:s, s:i, s:[]}", "tx", 0, "state", "committed",
                                           "result", "nothing_to_do", "exit_code", 0, "changes"));
        } else {
                t = &s->hist[s->n++ % LG_HIST];
                *t = (struct lg_tx) { .id = ++s->next_tx, .hash = h, .started_ms = now_ms(),
                                      .state = confirm ? LG_PENDING : LG_COMMITTED };
                t->deadline_ms = confirm ? t->started_ms + confirm * 1000 : 0;
                snprintf(t->key, sizeof(t->key), "%s", key ? key : "");
                if (!confirm) {
                        s->committed = h;
                        t->rev = ++s->next_rev;
                }
                atomic_fetch_add(&n_applies, 1);
                reply(resp, 200, tx_json(t, false));
        }
        pthread_mutex_unlock(&s->lock);
}

static void do_confirm(struct lg_slot *s, const char *id, struct http_response *resp)
{
        struct lg_tx *t;

        pthread_mutex_lock(&s->lock);
        expire(s);
        t = find(s, strtoll(id, NULL, 10), NULL);
        if (!t || t->state != LG_PENDING) {
                http_error(resp, t ? 409 : 404, t ? "not_pending" : "not_found", NULL, "transaction '%.20s' is %s",
                           id, t ? state_name(t->state) : "unknown");
        } else {
                t->state = LG_COMMITTED;
                s->committed = t->hash;
                t->rev = ++s->next_rev;
                atomic_fetch_add(&n_confirms, 1);
                reply(resp, 200, tx_json(t, false));
        }
        pthread_mutex_unlock(&s->lock);
}

/* One transaction as the agent's history writes it (agent/txn/txn_history.c tx_json). */
static json_t *hist_json(const struct lg_tx *t)
{
        return json_pack("{s:I, s:o, s:s, s:s, s:s, s:i, s:I, s:s}", "tx", (json_int_t)t->id,
                         "rev", t->rev ? json_integer(t->rev) : json_null(), "kind", "apply",
                         "state", state_name(t->state), "result", state_name(t->state),
                         "exit_code", t->state == LG_PENDING ? 4 : 0, "confirm_deadline_ms", (json_int_t)t->deadline_ms,
                         "idempotency_key", t->key);
}

static void do_history(struct lg_slot *s, struct http_response *resp)
{
        json_t *arr = json_array();

        pthread_mutex_lock(&s->lock);
        expire(s);
        for (unsigned k = 0; k < LG_HIST && k < s->n; k++)
                json_array_append_new(arr, hist_json(&s->hist[(s->n - 1 - k) % LG_HIST]));
        pthread_mutex_unlock(&s->lock);
        reply(resp, 200, json_pack("{s:o}", "transactions", arr));
}

/* GET /v1/transactions/{tx}: that transaction, with the agent's clock (agent/txn/txn_history.c transaction_json). */
static void do_transaction(struct lg_slot *s, const char *id, struct http_response *resp)
{
        const struct lg_tx *t;

        pthread_mutex_lock(&s->lock);
        expire(s);
        t = find(s, strtoll(id, NULL, 10), NULL);
        if (!t) {
                http_error(resp, 404, "not_found", NULL, "no transaction %.20s", id);
        } else {
                json_t *o = hist_json(t);

                json_object_set_new(o, "now_ms", json_integer(now_ms()));
                reply(resp, 200, o);
        }
        pthread_mutex_unlock(&s->lock);
}

/* A plan: one change unless the document is the committed one (what apply would do). */
static void do_plan(struct lg_slot *s, const struct http_request *req, struct http_response *resp)
{
        unsigned long long h = hash(req->body, req->body_len);
        bool same;

        pthread_mutex_lock(&s->lock);
        same = h == s->committed;
        pthread_mutex_unlock(&s->lock);
        if (same)
                reply(resp, 200, json_pack("{s:s, s:i, s:[], s:[]}", "policy", "", "changes", 0, "targets", "notes"));
        else
                reply(resp, 200, json_pack("{s:s, s:i, s:[{s:s, s:s, s:[{s:s, s:s, s:s, s:s}]}], s:[]}", "policy", "",
                                           "changes", 1, "targets", "kind", "interface", "name", "lg0", "changes",
                                           "field", "mtu", "key", "mtu", "from", "1500", "to", "9000", "notes"));
}

/* What an agent's GET /v1/state says: its committed policy's targets, read (the load generator has no name: "loadgen"). */
static void do_state(struct lg_slot *s, struct http_response *resp)
{
        bool committed;

        pthread_mutex_lock(&s->lock);
        committed = s->committed != 0;
        pthread_mutex_unlock(&s->lock);
        if (!committed)
                reply(resp, 200, json_pack("{s:n, s:[]}", "policy", "targets"));
        else
                reply(resp, 200, json_pack("{s:s, s:[{s:s, s:s, s:{s:i}}]}", "policy", "loadgen", "targets", "name",
                                           "lg0", "kind", "interface", "state", "mtu", 9000));
}

static void handle(void *ud, const struct http_request *req, struct http_response *resp)
{
        struct lg_slot *s = slot_of(req);
        bool get = streq(req->method, "GET"), post = streq(req->method, "POST");

        atomic_fetch_add(&n_requests, 1);
        if (!s) {
                atomic_fetch_add(&n_unknown, 1);
                http_error(resp, 404, "not_found", NULL, "no endpoint at this address");
        } else if (get && streq(req->url, "/v1/health")) {
                reply(resp, 200, json_pack("{s:s, s:s, s:b}", "status", "ok", "version", NETTUNE_VERSION,
                                           "load_generator", 1));
        } else if (get && streq(req->url, "/v1/state")) {
                do_state(s, resp);
        } else if (get && streq(req->url, "/v1/drift")) {
                reply(resp, 200, json_pack("{s:b, s:[]}", "drifted", 0, "entries"));
        } else if (get && streq(req->url, "/v1/history")) {
                do_history(s, resp);
        } else if (get && !strncmp(req->url, "/v1/transactions/", 17)) {
                do_transaction(s, req->url + 17, resp);
        } else if (post && streq(req->url, "/v1/plan")) {
                do_plan(s, req, resp);
        } else if (post && streq(req->url, "/v1/apply")) {
                if (atomic_fetch_add(&n_apply_requests, 1) < lose_applies)
                        resp->drop = true;
                else
                        do_apply(s, req, resp);
        } else if (post && !strncmp(req->url, "/v1/confirm/", 12)) {
                do_confirm(s, req->url + 12, resp);
        } else if (post && streq(req->url, "/v1/rollback")) {
                reply(resp, 200, json_pack("{s:i, s:s, s:s, s:i}", "tx", 0, "state", "committed",
                                           "result", "committed", "exit_code", 0));
        } else {
                http_error(resp, 404, "not_found", NULL, "no such endpoint");
        }
        resp->close |= close_each;
}

/* ---- one certificate per endpoint (--sign-ca, --sign-key) ---- */

static int load_datum(const char *path, gnutls_datum_t *ret)
{
        return gnutls_load_file(path, ret) < 0 ? -ENOENT : 0;
}

/* Endpoint i's certificate: CN lg<i>, its address as the only subjectAltName, serverAuth. */
static int mint_one(unsigned i, gnutls_x509_crt_t ca, gnutls_x509_privkey_t ca_key, gnutls_x509_privkey_t key,
                    gnutls_pcert_st *ret)
{
        uint32_t ip = htonl(LG_BASE + i);
        unsigned char serial[8] = { 0x10, 0, 0, 0, (unsigned char)(i >> 24), (unsigned char)(i >> 16),
                                    (unsigned char)(i >> 8), (unsigned char)i };
        unsigned char kid[64];
        size_t kid_len = sizeof(kid);
        time_t now = time(NULL);
        gnutls_x509_crt_t crt;
        char cn[32];
        int r;

        snprintf(cn, sizeof(cn), "lg%u", i);
        if (gnutls_x509_crt_init(&crt) < 0)
                return -ENOMEM;
        r = gnutls_x509_crt_set_version(crt, 3);
        r = r < 0 ? r : gnutls_x509_crt_set_serial(crt, serial, sizeof(serial));
        r = r < 0 ? r : gnutls_x509_crt_set_activation_time(crt, now - 3600);
        r = r < 0 ? r : gnutls_x509_crt_set_expiration_time(crt, now + 7 * 86400);
        r = r < 0 ? r : gnutls_x509_crt_set_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, 0, cn, strlen(cn));
        r = r < 0 ? r : gnutls_x509_crt_set_subject_alt_name(crt, GNUTLS_SAN_IPADDRESS, &ip, 4, GNUTLS_FSAN_SET);
        r = r < 0 ? r : gnutls_x509_crt_set_key_purpose_oid(crt, GNUTLS_KP_TLS_WWW_SERVER, 0);
        r = r < 0 ? r : gnutls_x509_crt_set_key_usage(crt, GNUTLS_KEY_DIGITAL_SIGNATURE);
        r = r < 0 ? r : gnutls_x509_crt_set_basic_constraints(crt, 0, -1);
        r = r < 0 ? r : gnutls_x509_crt_set_key(crt, key);
        if (r >= 0 && gnutls_x509_crt_get_subject_key_id(ca, kid, &kid_len, NULL) >= 0)
                r = gnutls_x509_crt_set_authority_key_id(crt, kid, kid_len);
        r = r < 0 ? r : gnutls_x509_crt_sign2(crt, ca, ca_key, GNUTLS_DIG_SHA256, 0);
        r = r < 0 ? r : gnutls_pcert_import_x509(ret, crt, 0);
        gnutls_x509_crt_deinit(crt);
        return r < 0 ? -EINVAL : 0;
}

/* A certificate for every endpoint, signed by the CA of ca_path/key_path; one new P-256 key for all. */
static int mint_all(const char *ca_path, const char *key_path)
{
        gnutls_datum_t ca_pem = { 0 }, key_pem = { 0 };
        gnutls_x509_crt_t ca = NULL;
        gnutls_x509_privkey_t ca_key = NULL, key = NULL;
        int r = load_datum(ca_path, &ca_pem);

        r = r < 0 ? r : load_datum(key_path, &key_pem);
        if (r >= 0 && (gnutls_x509_crt_init(&ca) < 0 || gnutls_x509_crt_import(ca, &ca_pem, GNUTLS_X509_FMT_PEM) < 0 ||
                       gnutls_x509_privkey_init(&ca_key) < 0 ||
                       gnutls_x509_privkey_import(ca_key, &key_pem, GNUTLS_X509_FMT_PEM) < 0 ||
                       gnutls_x509_privkey_init(&key) < 0 ||
                       gnutls_x509_privkey_generate(key, GNUTLS_PK_ECDSA,
                                                    GNUTLS_CURVE_TO_BITS(GNUTLS_ECC_CURVE_SECP256R1), 0) < 0 ||
                       gnutls_privkey_init(&cert_key) < 0 ||
                       gnutls_privkey_import_x509(cert_key, key, GNUTLS_PRIVKEY_IMPORT_COPY) < 0))
                r = -EINVAL;
        certs = r < 0 ? NULL : calloc(n_slots, sizeof(*certs));
        if (r >= 0 && !certs)
                r = -ENOMEM;
        for (unsigned i = 0; r >= 0 && i < n_slots; i++)
                r = mint_one(i, ca, ca_key, key, &certs[i]);
        gnutls_x509_crt_deinit(ca);
        gnutls_x509_privkey_deinit(ca_key);
        gnutls_x509_privkey_deinit(key);
        gnutls_free(ca_pem.data);
        gnutls_free(key_pem.data);
        return r;
}

/* gnutls_certificate_retrieve_function2: the certificate of the endpoint the connection was made to. */
static int pick_cert(gnutls_session_t session, const gnutls_datum_t *req_ca_rdn, int nreqs,
                     const gnutls_pk_algorithm_t *pk_algos, int pk_algos_length, gnutls_pcert_st **pcert,
                     unsigned int *pcert_length, gnutls_privkey_t *pkey)
{
        struct sockaddr_in a;
        socklen_t len = sizeof(a);
        uint32_t ip;

        if (getsockname(gnutls_transport_get_int(session), (struct sockaddr *)&a, &len) < 0 ||
            a.sin_family != AF_INET)
                return -1;
        ip = ntohl(a.sin_addr.s_addr);
        if (ip < LG_BASE || ip - LG_BASE >= n_slots)
                return -1;
        *pcert = &certs[ip - LG_BASE];
        *pcert_length = 1;
        *pkey = cert_key;
        return 0;
}

static void certs_free(void)
{
        for (unsigned i = 0; certs && i < n_slots; i++)
                gnutls_pcert_deinit(&certs[i]);
        free(certs);
        if (cert_key)
                gnutls_privkey_deinit(cert_key);
}

static void on_signal(int sig)
{
        if (sig == SIGUSR1)
                reporting = 1;
        else
                stopping = 1;
}

/* "loadgen_agent: R requests, C connections, S resumed, ...": C counts the TLS handshakes it answered, S those that resumed a session. */
static void report(struct http_server *srv)
{
        unsigned long long asked = atomic_load(&n_apply_requests);

        fprintf(stderr, "loadgen_agent: %llu requests, %llu connections, %llu resumed, %llu applies, %llu replayed keys, "
                "%llu confirms, %llu to unknown addresses, %llu applies lost\n", atomic_load(&n_requests),
                http_accepted(srv), http_resumed(srv), atomic_load(&n_applies), atomic_load(&n_replays),
                atomic_load(&n_confirms), atomic_load(&n_unknown), asked < lose_applies ? asked : lose_applies);
}

int main(int argc, char **argv)
{
        static const struct option opts[] = {
                { "listen", required_argument, NULL, 'l' }, { "endpoints", required_argument, NULL, 'n' },
                { "cert", required_argument, NULL, 'c' }, { "key", required_argument, NULL, 'k' },
                { "client-ca", required_argument, NULL, 'a' }, { "apply-ms", required_argument, NULL, 'm' },
                { "sign-ca", required_argument, NULL, 'S' }, { "sign-key", required_argument, NULL, 'K' },
                { "close", no_argument, NULL, 'C' }, { "lose-applies", required_argument, NULL, 'L' },
                { 0 },
        };
        struct http_options o = { .max_body = 1u << 20, .timeout_s = 30, .header_timeout_s = 5, .max_connections = 8192,
                                  .pending_max = 4096, .pending_per_addr = 4096, .handler = handle };
        struct sigaction sa = { .sa_handler = on_signal };
        sigset_t mask, old;
        struct http_server *srv = NULL;
        struct errbuf e = { 0 };
        const char *sign_ca = NULL, *sign_key = NULL;
        char buf[ERRBUF_STR_MAX];
        int c;

        while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                switch (c) {
                case 'l': o.listen = optarg; break;
                case 'n': n_slots = (unsigned)strtoul(optarg, NULL, 10); break;
                case 'c': o.cert = optarg; break;
                case 'k': o.key = optarg; break;
                case 'a': o.client_ca = optarg; break;
                case 'm': apply_ms = (unsigned)strtoul(optarg, NULL, 10); break;
                case 'S': sign_ca = optarg; break;
                case 'K': sign_key = optarg; break;
                case 'C': close_each = true; break;
                case 'L': lose_applies = strtoull(optarg, NULL, 10); break;
                default:
                        fprintf(stderr, "usage: loadgen_agent --listen ADDR:PORT --endpoints N --client-ca CA "
                                        "(--sign-ca CA.crt --sign-key CA.key | --cert C --key K) [--apply-ms MS] [--close] "
                                        "[--lose-applies N]\n");
                        return 2;
                }
        }
        if (!o.listen || n_slots == 0 || n_slots > LG_ENDPOINTS_MAX || !o.client_ca ||
            (sign_ca || sign_key ? !sign_ca || !sign_key : !o.cert || !o.key)) {
                fprintf(stderr, "loadgen_agent: --listen, --endpoints 1-%d, --client-ca, and --sign-ca with --sign-key "
                                "or --cert with --key are required\n", LG_ENDPOINTS_MAX);
                return 2;
        }
        slots = calloc(n_slots, sizeof(*slots));
        if (!slots)
                return 3;
        if (sign_ca && mint_all(sign_ca, sign_key) < 0) {
                fprintf(stderr, "loadgen_agent: cannot make the endpoints' certificates with '%s' and '%s'\n",
                        sign_ca, sign_key);
                certs_free();
                free(slots);
                return 3;
        }
        o.cert_callback = sign_ca ? (void *)pick_cert : NULL;
        for (unsigned i = 0; i < n_slots; i++)
                pthread_mutex_init(&slots[i].lock, NULL);
        if (http_start(&o, &srv, &e) < 0) {
                fprintf(stderr, "loadgen_agent: %s\n", errbuf_str(&e, buf, sizeof(buf)));
                return 3;
        }
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGUSR1, &sa, NULL);
        fprintf(stderr, "loadgen_agent: load generator (not an agent): %u endpoints 127.1.0.1.. on %s\n",
                n_slots, o.listen);
        /* the signals wait while the flags are read: none comes between the test and the wait */
        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGUSR1);
        sigprocmask(SIG_BLOCK, &mask, &old);
        while (!stopping) {
                sigsuspend(&old);
                if (reporting) {
                        reporting = 0;
                        report(srv);
                }
        }
        report(srv);
        http_stop(srv);
        for (unsigned i = 0; i < n_slots; i++)
                pthread_mutex_destroy(&slots[i].lock);
        free(slots);
        certs_free();
        return 0;
}
