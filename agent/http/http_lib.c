/* SPDX-License-Identifier: MIT */
/*
 * libmicrohttpd and GnuTLS, loaded when `serve` starts its API or a command checks
 * the TLS files (common/lazylib.h): one trampoline per function the agent calls,
 * with the library's own prototype. `apply`, `plan` and `state` never load them.
 *
 * Two of them are not plain functions:
 * - MHD_start_daemon and MHD_get_connection_info are variadic. The first forwards
 *   its options to MHD_start_daemon_va; the second ignores what follows the info
 *   type, as libmicrohttpd does for every type the agent asks for.
 * - gnutls_free is a variable (a function pointer), and gnutls.h makes it a macro:
 *   http_lib_gnutls_free() calls through the library's variable instead.
 */
#include <gnutls/crypto.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>
#include <microhttpd.h>
#include <stdarg.h>

#include "agent/http/http.h"

struct lazylib mhd_lib = LAZYLIB_INIT("libmicrohttpd.so.12", "https");
struct lazylib gnutls_lib = LAZYLIB_INIT("libgnutls.so.30", "tls");

int http_lib_open(struct errbuf *e)
{
        int r = lazylib_open(&gnutls_lib, e);

        return r < 0 ? r : lazylib_open(&mhd_lib, e);
}

void http_lib_gnutls_free(void *p)
{
        static gnutls_free_function *lazy_free;
        gnutls_free_function *f = __atomic_load_n(&lazy_free, __ATOMIC_ACQUIRE);

        if (!f) {
                f = lazylib_sym(&gnutls_lib, "gnutls_free");
                __atomic_store_n(&lazy_free, f, __ATOMIC_RELEASE);
        }
        (*f)(p);
}

/* ---- libmicrohttpd ---- */

struct MHD_Daemon *MHD_start_daemon(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc, void *apc_cls,
                                    MHD_AccessHandlerCallback dh, void *dh_cls, ...)
{
        static struct MHD_Daemon *(*lazy_fn)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
                                             MHD_AccessHandlerCallback, void *, va_list);
        struct MHD_Daemon *(*f)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
                                MHD_AccessHandlerCallback, void *, va_list) = __atomic_load_n(&lazy_fn, __ATOMIC_ACQUIRE);
        struct MHD_Daemon *d;
        va_list ap;

        if (!f) {
                f = (struct MHD_Daemon *(*)(unsigned int, uint16_t, MHD_AcceptPolicyCallback, void *,
                                            MHD_AccessHandlerCallback, void *, va_list))
                        lazylib_sym(&mhd_lib, "MHD_start_daemon_va");
                __atomic_store_n(&lazy_fn, f, __ATOMIC_RELEASE);
        }
        va_start(ap, dh_cls);
        d = f(flags, port, apc, apc_cls, dh, dh_cls, ap);
        va_end(ap);
        return d;
}

const union MHD_ConnectionInfo *MHD_get_connection_info(struct MHD_Connection *connection,
                                                        enum MHD_ConnectionInfoType info_type, ...)
{
        static const union MHD_ConnectionInfo *(*lazy_fn)(struct MHD_Connection *, enum MHD_ConnectionInfoType, ...);
        const union MHD_ConnectionInfo *(*f)(struct MHD_Connection *, enum MHD_ConnectionInfoType, ...) =
                __atomic_load_n(&lazy_fn, __ATOMIC_ACQUIRE);

        if (!f) {
                f = (const union MHD_ConnectionInfo *(*)(struct MHD_Connection *, enum MHD_ConnectionInfoType, ...))
                        lazylib_sym(&mhd_lib, "MHD_get_connection_info");
                __atomic_store_n(&lazy_fn, f, __ATOMIC_RELEASE);
        }
        return f(connection, info_type);
}

LAZYLIB_VOID(mhd_lib, MHD_stop_daemon, (struct MHD_Daemon *daemon), (daemon))
LAZYLIB_FN(mhd_lib, const char *, MHD_lookup_connection_value,
           (struct MHD_Connection *connection, enum MHD_ValueKind kind, const char *key), (connection, kind, key))
LAZYLIB_FN(mhd_lib, enum MHD_Result, MHD_queue_response,
           (struct MHD_Connection *connection, unsigned int status_code, struct MHD_Response *response),
           (connection, status_code, response))
LAZYLIB_VOID(mhd_lib, MHD_destroy_response, (struct MHD_Response *response), (response))
LAZYLIB_FN(mhd_lib, struct MHD_Response *, MHD_create_response_from_buffer,
           (size_t size, void *buffer, enum MHD_ResponseMemoryMode mode), (size, buffer, mode))
LAZYLIB_FN(mhd_lib, enum MHD_Result, MHD_add_response_header,
           (struct MHD_Response *response, const char *header, const char *content), (response, header, content))

/* ---- GnuTLS ---- */

LAZYLIB_FN(gnutls_lib, const gnutls_datum_t *, gnutls_certificate_get_peers,
           (gnutls_session_t session, unsigned int *list_size), (session, list_size))
LAZYLIB_VOID(gnutls_lib, gnutls_certificate_server_set_request,
             (gnutls_session_t session, gnutls_certificate_request_t req), (session, req))
LAZYLIB_FN(gnutls_lib, int, gnutls_certificate_verification_status_print,
           (unsigned int status, gnutls_certificate_type_t type, gnutls_datum_t *out, unsigned int flags),
           (status, type, out, flags))
LAZYLIB_FN(gnutls_lib, int, gnutls_certificate_verify_peers2, (gnutls_session_t session, unsigned int *status),
           (session, status))
LAZYLIB_FN(gnutls_lib, void *, gnutls_session_get_ptr, (gnutls_session_t session), (session))
LAZYLIB_FN(gnutls_lib, int, gnutls_session_is_resumed, (gnutls_session_t session), (session))
LAZYLIB_FN(gnutls_lib, int, gnutls_session_ticket_key_generate, (gnutls_datum_t *key), (key))
LAZYLIB_FN(gnutls_lib, int, gnutls_session_ticket_enable_server, (gnutls_session_t session, const gnutls_datum_t *key),
           (session, key))
LAZYLIB_VOID(gnutls_lib, gnutls_db_set_cache_expiration, (gnutls_session_t session, int seconds), (session, seconds))
LAZYLIB_VOID(gnutls_lib, gnutls_memset, (void *data, int c, size_t size), (data, c, size))
LAZYLIB_VOID(gnutls_lib, gnutls_session_set_verify_function,
             (gnutls_session_t session, gnutls_certificate_verify_function *func), (session, func))
LAZYLIB_FN(gnutls_lib, int, gnutls_x509_crt_init, (gnutls_x509_crt_t *cert), (cert))
LAZYLIB_FN(gnutls_lib, int, gnutls_hash_fast,
           (gnutls_digest_algorithm_t algorithm, const void *text, size_t textlen, void *digest),
           (algorithm, text, textlen, digest))
LAZYLIB_VOID(gnutls_lib, gnutls_x509_crt_deinit, (gnutls_x509_crt_t cert), (cert))
LAZYLIB_FN(gnutls_lib, int, gnutls_x509_crt_import,
           (gnutls_x509_crt_t cert, const gnutls_datum_t *data, gnutls_x509_crt_fmt_t format), (cert, data, format))
LAZYLIB_FN(gnutls_lib, int, gnutls_x509_crt_list_import2,
           (gnutls_x509_crt_t **certs, unsigned int *size, const gnutls_datum_t *data, gnutls_x509_crt_fmt_t format,
            unsigned int flags),
           (certs, size, data, format, flags))
LAZYLIB_FN(gnutls_lib, int, gnutls_x509_crt_get_dn, (gnutls_x509_crt_t cert, char *buf, size_t *buf_size),
           (cert, buf, buf_size))
LAZYLIB_FN(gnutls_lib, int, gnutls_x509_crt_get_dn_by_oid,
           (gnutls_x509_crt_t cert, const char *oid, unsigned indx, unsigned int raw_flag, void *buf,
            size_t *buf_size),
           (cert, oid, indx, raw_flag, buf, buf_size))
LAZYLIB_FN(gnutls_lib, int, gnutls_x509_crt_get_key_purpose_oid,
           (gnutls_x509_crt_t cert, unsigned indx, void *oid, size_t *oid_size, unsigned int *critical),
           (cert, indx, oid, oid_size, critical))
LAZYLIB_FN(gnutls_lib, int, gnutls_x509_crt_get_subject_alt_name,
           (gnutls_x509_crt_t cert, unsigned int seq, void *san, size_t *san_size, unsigned int *critical),
           (cert, seq, san, san_size, critical))
LAZYLIB_FN(gnutls_lib, int, gnutls_x509_privkey_init, (gnutls_x509_privkey_t *key), (key))
LAZYLIB_VOID(gnutls_lib, gnutls_x509_privkey_deinit, (gnutls_x509_privkey_t key), (key))
LAZYLIB_FN(gnutls_lib, int, gnutls_x509_privkey_import2,
           (gnutls_x509_privkey_t key, const gnutls_datum_t *data, gnutls_x509_crt_fmt_t format, const char *password,
            unsigned int flags),
           (key, data, format, password, flags))
