/* SPDX-License-Identifier: MIT */
/*
 * The TLS files of the agent configuration, checked before they are used: the
 * server certificate (and its extendedKeyUsage serverAuth), its key, and the client
 * CA bundle (at least one certificate: an empty bundle would refuse every client).
 */
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

#include "agent/config/config.h"
#include "agent/http/http.h"
#include "policies/json/jsonv.h"

#define TLS_FILE_MAX (1u << 20)

static void where_of(const struct agent_config *c, const char *key, char *buf, size_t size)
{
        snprintf(buf, size, "%s%s$.tls.%s", c->path, c->path[0] ? ": " : "", key);
}

static int read_datum(const char *path, const char *where, char **ret, gnutls_datum_t *d, struct errbuf *e)
{
        char why[sizeof(e->msg)];
        size_t len = 0;
        int r = jsonv_read_file(path, TLS_FILE_MAX, ret, &len, e);

        if (r < 0) {
                snprintf(why, sizeof(why), "%s", e->msg);
                return errbuf_set(e, -r, where, "'%s': %s", path, why);
        }
        d->data = (unsigned char *)*ret;
        d->size = (unsigned)len;
        return 0;
}

/* Has the certificate extendedKeyUsage `oid`? */
static bool has_purpose(gnutls_x509_crt_t crt, const char *oid)
{
        char buf[128];

        for (unsigned i = 0;; i++) {
                size_t size = sizeof(buf);
                unsigned critical;

                if (gnutls_x509_crt_get_key_purpose_oid(crt, i, buf, &size, &critical) < 0)
                        return false;
                if (streq(buf, oid))
                        return true;
        }
}

static int check_certs(const struct agent_config *c, const char *key, const char *path, bool server,
                       struct errbuf *e)
{
        _cleanup_free_ char *text = NULL;
        gnutls_x509_crt_t *list = NULL;
        unsigned n = 0;
        gnutls_datum_t d;
        char where[CONFIG_PATH_MAX + 32];
        int r;

        where_of(c, key, where, sizeof(where));
        r = read_datum(path, where, &text, &d, e);
        if (r < 0)
                return r;
        if (gnutls_x509_crt_list_import2(&list, &n, &d, GNUTLS_X509_FMT_PEM, 0) < 0 || n == 0)
                r = errbuf_set(e, EINVAL, where, "'%s' holds no PEM certificate%s", path,
                               server ? "" : "; every client would be refused");
        else if (server && !has_purpose(list[0], GNUTLS_KP_TLS_WWW_SERVER))
                r = errbuf_set(e, EINVAL, where, "the certificate in '%s' has no extendedKeyUsage serverAuth;"
                               " nettunectl refuses such an agent", path);
        for (unsigned i = 0; i < n; i++)
                gnutls_x509_crt_deinit(list[i]);
        http_lib_gnutls_free(list);
        return r;
}

static int check_key(const struct agent_config *c, const char *path, struct errbuf *e)
{
        _cleanup_free_ char *text = NULL;
        gnutls_x509_privkey_t key;
        gnutls_datum_t d;
        char where[CONFIG_PATH_MAX + 32];
        int r;

        where_of(c, "key", where, sizeof(where));
        r = read_datum(path, where, &text, &d, e);
        if (r < 0)
                return r;
        if (gnutls_x509_privkey_init(&key) < 0)
                return errbuf_set(e, ENOMEM, where, "out of memory");
        if (gnutls_x509_privkey_import2(key, &d, GNUTLS_X509_FMT_PEM, NULL, 0) < 0)
                r = errbuf_set(e, EINVAL, where, "'%s' holds no unencrypted PEM private key", path);
        gnutls_x509_privkey_deinit(key);
        explicit_bzero(text, d.size);
        return r;
}

int config_check_tls(const struct agent_config *c, struct errbuf *e)
{
        int r = 0;

        if (c->tls_cert[0] || c->tls_key[0] || c->tls_client_ca[0])
                r = http_lib_open(e);
        if (r >= 0 && c->tls_cert[0])
                r = check_certs(c, "cert", c->tls_cert, true, e);
        if (r >= 0 && c->tls_key[0])
                r = check_key(c, c->tls_key, e);
        if (r >= 0 && c->tls_client_ca[0])
                r = check_certs(c, "client_ca", c->tls_client_ca, false, e);
        return r;
}
