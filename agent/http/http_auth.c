/* SPDX-License-Identifier: MIT */
/*
 * Client certificates, judged alone (the connection guard asks, http_guard.c). In
 * the TLS handshake: the chain must verify against tls.client_ca
 * (http_auth_verify), or the handshake fails — a client without one never reaches
 * libmicrohttpd's request parser. Its role: the leaf must carry extendedKeyUsage
 * clientAuth (an agent's server certificate, or one made for anything else, is
 * refused), and with tls.allowed_clients its subject CN or a subjectAltName DNS
 * name must match one of them.
 */
#include <gnutls/x509.h>
#include <ctype.h>
#include <strings.h>

#include "agent/http/http_internal.h"

#define NAME_MAX_LEN 256

/* GnuTLS's reason, in our style: "the certificate is not trusted; the certificate issuer is unknown". */
static void status_text(unsigned status, char *buf, size_t size)
{
        gnutls_datum_t out = { 0 };
        size_t n = 0;

        if (gnutls_certificate_verification_status_print(status, GNUTLS_CRT_X509, &out, 0) < 0 || !out.data)
                snprintf(buf, size, "not verified");
        for (const char *p = out.data ? (const char *)out.data : ""; *p && n + 1 < size; p++) {
                if (p[0] == '.' && (p[1] == ' ' || !p[1])) {
                        if (p[1] && p[2] && n + 2 < size) {
                                buf[n++] = ';';
                                buf[n++] = ' ';
                        }
                        p += p[1] ? 1 : 0;
                        continue;
                }
                buf[n++] = (char)tolower((unsigned char)*p);
        }
        if (out.data)
                buf[n] = '\0';
        http_lib_gnutls_free(out.data);
}

int http_auth_verify(gnutls_session_t s, char *why, size_t size)
{
        unsigned status = 0;

        if (gnutls_certificate_verify_peers2(s, &status) < 0 || status) {
                status_text(status, why, size);
                return -EPERM;
        }
        return 0;
}

bool http_auth_name_matches(const char *pattern, const char *name)
{
        size_t pl = strlen(pattern), nl = strlen(name);

        if (pattern[0] == '*' && pattern[1] == '.')
                return nl > pl - 1 && name[nl - pl] != '.' && strcasecmp(name + nl - (pl - 1), pattern + 1) == 0;
        return strcasecmp(pattern, name) == 0;
}

static bool allowed(const char (*list)[128], unsigned n, const char *name)
{
        for (unsigned i = 0; i < n; i++)
                if (http_auth_name_matches(list[i], name))
                        return true;
        return false;
}

/* Does a CN of the subject or a SAN dNSName match the allow-list? */
static bool names_allowed(gnutls_x509_crt_t crt, const char (*list)[128], unsigned n)
{
        char name[NAME_MAX_LEN];

        for (unsigned i = 0;; i++) {
                size_t size = sizeof(name);

                if (gnutls_x509_crt_get_dn_by_oid(crt, GNUTLS_OID_X520_COMMON_NAME, i, 0, name, &size) < 0)
                        break;
                if (allowed(list, n, name))
                        return true;
        }
        for (unsigned i = 0;; i++) {
                size_t size = sizeof(name);
                int type = gnutls_x509_crt_get_subject_alt_name(crt, i, name, &size, NULL);

                if (type == GNUTLS_E_REQUESTED_DATA_NOT_AVAILABLE)
                        break;
                if (type == GNUTLS_SAN_DNSNAME && allowed(list, n, name))
                        return true;
        }
        return false;
}

/* "serverAuth", "clientAuth", or the OID: the purposes, comma-separated, into buf. */
static bool client_purpose(gnutls_x509_crt_t crt, char *buf, size_t size)
{
        bool client = false;
        size_t used = 0;

        buf[0] = '\0';
        for (unsigned i = 0;; i++) {
                char oid[128];
                size_t os = sizeof(oid);
                unsigned critical;
                const char *name;

                if (gnutls_x509_crt_get_key_purpose_oid(crt, i, oid, &os, &critical) < 0)
                        break;
                client |= streq(oid, GNUTLS_KP_TLS_WWW_CLIENT);
                name = streq(oid, GNUTLS_KP_TLS_WWW_CLIENT) ? "clientAuth" :
                       streq(oid, GNUTLS_KP_TLS_WWW_SERVER) ? "serverAuth" : oid;
                if (used < size)
                        used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? ", " : "", name);
        }
        return client;
}

static int check_leaf(gnutls_x509_crt_t crt, const char (*list)[128], unsigned n, struct http_conn *hc)
{
        char purposes[160];

        if (!client_purpose(crt, purposes, sizeof(purposes))) {
                snprintf(hc->role_why, sizeof(hc->role_why),
                         "client certificate '%s' is not for clients: its extendedKeyUsage is %s, clientAuth is required",
                         hc->subject, purposes[0] ? purposes : "missing");
                return -EPERM;
        }
        if (n && !names_allowed(crt, list, n)) {
                snprintf(hc->role_why, sizeof(hc->role_why),
                         "client certificate '%s' names no client of tls.allowed_clients", hc->subject);
                return -EPERM;
        }
        return 0;
}

int http_auth_role(gnutls_session_t s, const char (*list)[128], unsigned n, struct http_conn *hc)
{
        const gnutls_datum_t *certs;
        gnutls_x509_crt_t crt;
        unsigned count = 0;
        size_t size = sizeof(hc->subject);
        char why[160];
        int r;

        if (!s || !(certs = gnutls_certificate_get_peers(s, &count)) || count == 0)
                return -EACCES;
        if (http_auth_verify(s, why, sizeof(why)) < 0) {
                snprintf(hc->role_why, sizeof(hc->role_why), "client certificate refused: %s", why);
                return -EPERM;
        }
        if (gnutls_x509_crt_init(&crt) < 0)
                return -ENOMEM;
        r = gnutls_x509_crt_import(crt, &certs[0], GNUTLS_X509_FMT_DER);
        if (r >= 0 && gnutls_x509_crt_get_dn(crt, hc->subject, &size) < 0)
                snprintf(hc->subject, sizeof(hc->subject), "unknown");
        if (r < 0) {
                snprintf(hc->role_why, sizeof(hc->role_why), "client certificate cannot be read");
                r = -EPERM;
        } else {
                r = check_leaf(crt, list, n, hc);
        }
        gnutls_x509_crt_deinit(crt);
        return r;
}
