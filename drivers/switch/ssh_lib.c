/* SPDX-License-Identifier: MIT */
/*
 * libssh2, loaded when the first switch session opens (common/lazylib.h): one
 * trampoline per function ssh_session.c calls, with libssh2's own prototype.
 */
#include <libssh2.h>

#include "common/lazylib.h"
#include "drivers/switch/ssh_session.h"

struct lazylib ssh_lib = LAZYLIB_INIT("libssh2.so.1", "ssh");

LAZYLIB_FN(ssh_lib, int, libssh2_init, (int flags), (flags))
LAZYLIB_VOID(ssh_lib, libssh2_free, (LIBSSH2_SESSION *s, void *p), (s, p))
LAZYLIB_FN(ssh_lib, LIBSSH2_SESSION *, libssh2_session_init_ex,
           (LIBSSH2_ALLOC_FUNC((*a)), LIBSSH2_FREE_FUNC((*f)), LIBSSH2_REALLOC_FUNC((*r)), void *abstract),
           (a, f, r, abstract))
LAZYLIB_FN(ssh_lib, int, libssh2_session_free, (LIBSSH2_SESSION *s), (s))
LAZYLIB_FN(ssh_lib, int, libssh2_session_handshake, (LIBSSH2_SESSION *s, libssh2_socket_t sock), (s, sock))
LAZYLIB_FN(ssh_lib, int, libssh2_session_disconnect_ex,
           (LIBSSH2_SESSION *s, int reason, const char *description, const char *lang),
           (s, reason, description, lang))
LAZYLIB_FN(ssh_lib, const char *, libssh2_session_hostkey, (LIBSSH2_SESSION *s, size_t *len, int *type),
           (s, len, type))
LAZYLIB_FN(ssh_lib, int, libssh2_session_last_error, (LIBSSH2_SESSION *s, char **msg, int *len, int want_buf),
           (s, msg, len, want_buf))
LAZYLIB_FN(ssh_lib, int, libssh2_session_last_errno, (LIBSSH2_SESSION *s), (s))
LAZYLIB_FN(ssh_lib, int, libssh2_session_block_directions, (LIBSSH2_SESSION *s), (s))
LAZYLIB_FN(ssh_lib, int, libssh2_session_method_pref, (LIBSSH2_SESSION *s, int method_type, const char *prefs),
           (s, method_type, prefs))
LAZYLIB_VOID(ssh_lib, libssh2_session_set_blocking, (LIBSSH2_SESSION *s, int blocking), (s, blocking))
LAZYLIB_VOID(ssh_lib, libssh2_keepalive_config, (LIBSSH2_SESSION *s, int want_reply, unsigned interval),
             (s, want_reply, interval))
LAZYLIB_FN(ssh_lib, int, libssh2_keepalive_send, (LIBSSH2_SESSION *s, int *seconds_to_next), (s, seconds_to_next))
LAZYLIB_FN(ssh_lib, LIBSSH2_KNOWNHOSTS *, libssh2_knownhost_init, (LIBSSH2_SESSION *s), (s))
LAZYLIB_VOID(ssh_lib, libssh2_knownhost_free, (LIBSSH2_KNOWNHOSTS *h), (h))
LAZYLIB_FN(ssh_lib, int, libssh2_knownhost_readfile, (LIBSSH2_KNOWNHOSTS *h, const char *filename, int type),
           (h, filename, type))
LAZYLIB_FN(ssh_lib, int, libssh2_knownhost_checkp,
           (LIBSSH2_KNOWNHOSTS *h, const char *host, int port, const char *key, size_t keylen, int typemask,
            struct libssh2_knownhost **knownhost),
           (h, host, port, key, keylen, typemask, knownhost))
LAZYLIB_FN(ssh_lib, int, libssh2_userauth_publickey_fromfile_ex,
           (LIBSSH2_SESSION *s, const char *user, unsigned int user_len, const char *pub, const char *priv,
            const char *passphrase),
           (s, user, user_len, pub, priv, passphrase))
LAZYLIB_FN(ssh_lib, LIBSSH2_CHANNEL *, libssh2_channel_open_ex,
           (LIBSSH2_SESSION *s, const char *type, unsigned int type_len, unsigned int window_size,
            unsigned int packet_size, const char *message, unsigned int message_len),
           (s, type, type_len, window_size, packet_size, message, message_len))
LAZYLIB_FN(ssh_lib, int, libssh2_channel_process_startup,
           (LIBSSH2_CHANNEL *c, const char *request, unsigned int request_len, const char *message,
            unsigned int message_len),
           (c, request, request_len, message, message_len))
LAZYLIB_FN(ssh_lib, ssize_t, libssh2_channel_read_ex, (LIBSSH2_CHANNEL *c, int stream_id, char *buf, size_t len),
           (c, stream_id, buf, len))
LAZYLIB_FN(ssh_lib, ssize_t, libssh2_channel_write_ex,
           (LIBSSH2_CHANNEL *c, int stream_id, const char *buf, size_t len), (c, stream_id, buf, len))
LAZYLIB_FN(ssh_lib, int, libssh2_channel_send_eof, (LIBSSH2_CHANNEL *c), (c))
LAZYLIB_FN(ssh_lib, int, libssh2_channel_eof, (LIBSSH2_CHANNEL *c), (c))
LAZYLIB_FN(ssh_lib, int, libssh2_channel_close, (LIBSSH2_CHANNEL *c), (c))
LAZYLIB_FN(ssh_lib, int, libssh2_channel_wait_closed, (LIBSSH2_CHANNEL *c), (c))
LAZYLIB_FN(ssh_lib, int, libssh2_channel_free, (LIBSSH2_CHANNEL *c), (c))
LAZYLIB_FN(ssh_lib, int, libssh2_channel_get_exit_status, (LIBSSH2_CHANNEL *c), (c))
LAZYLIB_FN(ssh_lib, int, libssh2_channel_get_exit_signal,
           (LIBSSH2_CHANNEL *c, char **sig, size_t *sig_len, char **errmsg, size_t *errmsg_len, char **langtag,
            size_t *langtag_len),
           (c, sig, sig_len, errmsg, errmsg_len, langtag, langtag_len))
