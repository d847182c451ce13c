/* SPDX-License-Identifier: MIT */
/*
 * The TLS material of the fan-out's connections: read once, given to every connection
 * by reference; and the sessions the agents' tickets let it resume.
 *
 * Sessions: libcurl's own cache holds 8 sessions per share (lib/share.c, 7.88), so a
 * controller that talks to thousands of agents never finds one there when it
 * reconnects (a pre-flight's connection closed, its node's wave an instant later). This
 * cache keeps the newest session of each agent (host:port), serialised (about 1.6 KB
 * with its ticket and the agent's certificate), HTTP_SESSIONS_BYTES of them at most
 * (fleet.h: past it, a new session is not kept and its agent's next connection makes
 * a full handshake), and takes a session out when a connection uses it (a TLS 1.3
 * ticket is for one use; the agent sends a new one on the resumed connection). libcurl makes a new SSL_CTX for each
 * connection and calls CURLOPT_SSL_CTX_FUNCTION (fleet_tls_on_ctx) on it before it
 * makes the SSL: the SSL_CTX remembers the agent (ex_data), its new-session callback
 * stores what the agent issues, and its info callback, at the start of the handshake
 * (SSL_CB_HANDSHAKE_START: nothing is built or sent yet), gives the SSL the session to
 * resume. A resumed session carries the agent's certificate as verified in the full
 * handshake; libcurl checks the host name against it as on every connection.
 */
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "controller/fleet/fleet_internal.h"

#define SESSION_BYTES_MAX 4096          /* a larger one is not kept */
#define SESSION_BUCKETS 4096

struct session {
        struct session *next;
        size_t cost;                    /* bytes it holds, as counted against HTTP_SESSIONS_BYTES */
        size_t len;                     /* of der */
        unsigned char *der;             /* i2d_SSL_SESSION */
        char agent[];                   /* host:port */
};

struct fleet_tls {
        X509_STORE *store;              /* the CA */
        X509 *cert;
        STACK_OF(X509) *chain;          /* certificates after the first in the certificate file */
        EVP_PKEY *key;
        struct session **buckets;       /* SESSION_BUCKETS chains */
        size_t session_bytes;           /* the cost of those kept */
};

static int agent_index = -1;            /* SSL_CTX ex_data: the agent's host:port (malloc'd) */

static void free_agent(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl, void *argp)
{
        free(ptr);
}

static unsigned bucket_of(const char *agent)
{
        unsigned h = 2166136261u;

        for (const char *p = agent; *p; p++)
                h = (h ^ (unsigned char)*p) * 16777619u;
        return h % SESSION_BUCKETS;
}

/* The session stored for agent, taken out of the cache (NULL: none). */
static struct session *session_take(struct fleet_tls *t, const char *agent)
{
        for (struct session **pp = &t->buckets[bucket_of(agent)]; *pp; pp = &(*pp)->next)
                if (streq((*pp)->agent, agent)) {
                        struct session *s = *pp;

                        *pp = s->next;
                        t->session_bytes -= s->cost;
                        return s;
                }
        return NULL;
}

static void session_free(struct session *s)
{
        if (s)
                OPENSSL_free(s->der);
        free(s);
}

/* SSL_CTX_sess_set_new_cb: the agent issued a session (ticket): keep its newest. Never holds sess. */
static int on_new_session(SSL *ssl, SSL_SESSION *sess)
{
        SSL_CTX *ctx = SSL_get_SSL_CTX(ssl);
        struct fleet_tls *t = ctx ? SSL_CTX_get_app_data(ctx) : NULL;
        const char *agent = ctx ? SSL_CTX_get_ex_data(ctx, agent_index) : NULL;
        struct session *s;
        size_t cost;
        int len;

        if (!t || !agent || !SSL_SESSION_is_resumable(sess))
                return 0;
        session_free(session_take(t, agent));
        len = i2d_SSL_SESSION(sess, NULL);
        cost = sizeof(*s) + strlen(agent) + 1 + (size_t)len;
        if (len <= 0 || len > SESSION_BYTES_MAX || t->session_bytes + cost > HTTP_SESSIONS_BYTES)
                return 0;
        s = calloc(1, sizeof(*s) + strlen(agent) + 1);
        if (!s)
                return 0;
        strcpy(s->agent, agent);
        s->cost = cost;
        s->len = (size_t)i2d_SSL_SESSION(sess, &s->der);
        if (!s->der || s->len != (size_t)len) {
                session_free(s);
                return 0;
        }
        s->next = t->buckets[bucket_of(agent)];
        t->buckets[bucket_of(agent)] = s;
        t->session_bytes += cost;
        return 0;
}

/*
 * SSL_CTX_set_info_callback: at the start of the handshake, the session stored for this
 * agent (if any) becomes the one this connection offers. The callback's SSL is const
 * because OpenSSL only reports through it; SSL_set_session() here is what it would have
 * been before SSL_connect(): the handshake has built nothing yet.
 */
static void on_info(const SSL *cssl, int where, int ret)
{
        SSL *ssl = (SSL *)cssl;
        SSL_CTX *ctx = SSL_get_SSL_CTX(ssl);
        struct fleet_tls *t = ctx ? SSL_CTX_get_app_data(ctx) : NULL;
        const char *agent = ctx ? SSL_CTX_get_ex_data(ctx, agent_index) : NULL;
        const unsigned char *p;
        struct session *s;
        SSL_SESSION *sess;

        if (!(where & SSL_CB_HANDSHAKE_START) || !t || !agent || SSL_get_session(ssl) || !(s = session_take(t, agent)))
                return;
        p = s->der;
        sess = d2i_SSL_SESSION(NULL, &p, (long)s->len);
        if (sess)
                SSL_set_session(ssl, sess);
        SSL_SESSION_free(sess);
        session_free(s);
        ERR_clear_error();
}

/* The agent a connection goes to: its URL's authority ("host:port" as the inventory writes it). */
static char *agent_of(CURL *curl)
{
        const char *url = NULL, *h;

        if (curl_easy_getinfo(curl, CURLINFO_EFFECTIVE_URL, &url) != CURLE_OK || !url || !(h = strstr(url, "://")))
                return NULL;
        h += 3;
        return strndup(h, strcspn(h, "/?#"));
}

bool fleet_tls_resumed(CURL *easy)
{
        struct curl_tlssessioninfo *info = NULL;

        return curl_easy_getinfo(easy, CURLINFO_TLS_SSL_PTR, &info) == CURLE_OK && info &&
               info->backend == CURLSSLBACKEND_OPENSSL && info->internals && SSL_session_reused(info->internals) == 1;
}

void fleet_tls_free(struct fleet_tls *t)
{
        if (!t)
                return;
        for (unsigned b = 0; t->buckets && b < SESSION_BUCKETS; b++)
                for (struct session *s = t->buckets[b], *next; s; s = next) {
                        next = s->next;
                        session_free(s);
                }
        free(t->buckets);
        X509_STORE_free(t->store);
        X509_free(t->cert);
        sk_X509_pop_free(t->chain, X509_free);
        EVP_PKEY_free(t->key);
        free(t);
}

/* The certificate file: the first certificate, then its chain. */
static int load_cert(struct fleet_tls *t, const char *path, struct errbuf *e)
{
        BIO *b = BIO_new_file(path, "r");
        X509 *x;

        if (!b)
                return errbuf_set(e, ENOENT, path, "cannot read the client certificate");
        t->cert = PEM_read_bio_X509_AUX(b, NULL, NULL, NULL);
        t->chain = sk_X509_new_null();
        while (t->cert && t->chain && (x = PEM_read_bio_X509(b, NULL, NULL, NULL)))
                if (!sk_X509_push(t->chain, x))
                        X509_free(x);
        BIO_free(b);
        ERR_clear_error();
        if (!t->cert || !t->chain)
                return errbuf_set(e, EINVAL, path, "not a PEM certificate");
        return 0;
}

static int load_key(struct fleet_tls *t, const char *path, struct errbuf *e)
{
        BIO *b = BIO_new_file(path, "r");

        if (!b)
                return errbuf_set(e, ENOENT, path, "cannot read the client key");
        t->key = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
        BIO_free(b);
        ERR_clear_error();
        if (!t->key)
                return errbuf_set(e, EINVAL, path, "not a PEM private key (or one with a passphrase)");
        if (X509_check_private_key(t->cert, t->key) != 1) {
                ERR_clear_error();
                return errbuf_set(e, EINVAL, path, "this key does not belong to the client certificate");
        }
        return 0;
}

int fleet_tls_load(const struct http_tls *tls, struct fleet_tls **ret, struct errbuf *e)
{
        struct fleet_tls *t = calloc(1, sizeof(*t));
        int r = 0;

        if (!t)
                return errbuf_set(e, ENOMEM, "libcurl", "out of memory");
        if (agent_index < 0)
                agent_index = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, free_agent);
        t->store = X509_STORE_new();
        t->buckets = calloc(SESSION_BUCKETS, sizeof(*t->buckets));
        if (!t->store || !t->buckets || agent_index < 0)
                r = errbuf_set(e, ENOMEM, "libcurl", "out of memory");
        else if (X509_STORE_load_file(t->store, tls->ca) != 1)
                r = errbuf_set(e, EINVAL, tls->ca, "cannot read a PEM CA certificate from it");
        ERR_clear_error();
        if (r >= 0)
                r = load_cert(t, tls->cert, e);
        if (r >= 0)
                r = load_key(t, tls->key, e);
        if (r < 0) {
                fleet_tls_free(t);
                return r;
        }
        *ret = t;
        return 0;
}

int fleet_tls_check_backend(struct errbuf *e)
{
        const curl_version_info_data *v = curl_version_info(CURLVERSION_NOW);

        if (!v || !v->ssl_version || strncmp(v->ssl_version, "OpenSSL", 7) != 0)
                return errbuf_set(e, ENOTSUP, "libcurl", "TLS backend '%s' is not OpenSSL; the agents' certificate"
                                  " purpose (serverAuth) cannot be checked", v && v->ssl_version ? v->ssl_version : "none");
        return 0;
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

CURLcode fleet_tls_on_ctx(CURL *curl, void *ssl_ctx, void *userdata)
{
        struct fleet_tls *t = userdata;
        SSL_CTX *ctx = ssl_ctx;
        bool ok;

        SSL_CTX_set1_cert_store(ctx, t->store);
        ok = SSL_CTX_use_certificate(ctx, t->cert) == 1 && SSL_CTX_use_PrivateKey(ctx, t->key) == 1;

        for (int i = 0; ok && i < sk_X509_num(t->chain); i++)
                ok = SSL_CTX_add1_chain_cert(ctx, sk_X509_value(t->chain, i)) == 1;
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, verify_server_purpose);
        /* Sessions: this cache's, not libcurl's (the connections have CURLOPT_SSL_SESSIONID_CACHE off). */
        if (ok) {
                char *agent = agent_of(curl);

                if (agent && SSL_CTX_set_ex_data(ctx, agent_index, agent) == 1) {
                        SSL_CTX_set_app_data(ctx, t);
                        SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
                        SSL_CTX_sess_set_new_cb(ctx, on_new_session);
                        SSL_CTX_set_info_callback(ctx, on_info);
                } else {
                        free(agent);
                }
        }
        return ok ? CURLE_OK : CURLE_SSL_CERTPROBLEM;
}
