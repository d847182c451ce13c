/* SPDX-License-Identifier: MIT */
/* The TLS material of the fan-out's connections: read once, given to every connection by reference. */
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "controller/fleet/fleet_internal.h"

struct fleet_tls {
        X509_STORE *store;              /* the CA */
        X509 *cert;
        STACK_OF(X509) *chain;          /* certificates after the first in the certificate file */
        EVP_PKEY *key;
};

void fleet_tls_free(struct fleet_tls *t)
{
        if (!t)
                return;
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
        t->store = X509_STORE_new();
        if (!t->store)
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
        const struct fleet_tls *t = userdata;
        SSL_CTX *ctx = ssl_ctx;
        bool ok;

        SSL_CTX_set1_cert_store(ctx, t->store);
        ok = SSL_CTX_use_certificate(ctx, t->cert) == 1 && SSL_CTX_use_PrivateKey(ctx, t->key) == 1;

        for (int i = 0; ok && i < sk_X509_num(t->chain); i++)
                ok = SSL_CTX_add1_chain_cert(ctx, sk_X509_value(t->chain, i)) == 1;
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, verify_server_purpose);
        return ok ? CURLE_OK : CURLE_SSL_CERTPROBLEM;
}
