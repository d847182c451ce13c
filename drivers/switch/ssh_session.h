/* SPDX-License-Identifier: MIT */
/*
 * One SSH connection (libssh2) to a switch, many commands: every command runs
 * on its own exec channel of the same session. Key authentication only
 * (ed25519/ECDSA), host keys pinned in an OpenSSH known_hosts file: an unknown
 * or changed host key is refused, never accepted. Every wait is bounded by the
 * connect, command and total timeouts; outputs are bounded; nothing secret is
 * ever put in a message.
 */
#pragma once

#include <stddef.h>

#include "common/errbuf.h"
#include "common/lazylib.h"

/* libssh2, loaded when the first session opens (ssh_lib.c). */
extern struct lazylib ssh_lib;

#define SSH_OUT_MAX (4u << 20)          /* bytes of stdout kept per command */
#define SSH_ERR_MAX (64u << 10)         /* bytes of stderr kept per command */

struct ssh_options {
        const char *host;
        unsigned port;                  /* 0 = 22 */
        const char *user;
        const char *key;                /* private key file */
        const char *known_hosts;        /* OpenSSH known_hosts with the pinned host key */
        unsigned connect_timeout_ms;    /* 0 = 5000 */
        unsigned command_timeout_ms;    /* 0 = 30000 */
        unsigned total_timeout_ms;      /* whole session, 0 = 300000 */
        unsigned keepalive_s;           /* 0 = 10 */
};

struct ssh_result {
        int exit_status;                /* remote exit status; 255 if killed by a signal */
        char *out;                      /* NUL-terminated, owned (ssh_result_done) */
        size_t out_len;
        char *err;                      /* NUL-terminated, owned */
        size_t err_len;
};

struct ssh_session;

/* Connect, verify the host key, authenticate. *ret is owned by the caller (ssh_session_close). */
int ssh_session_open(const struct ssh_options *o, struct ssh_session **ret, struct errbuf *e);

/*
 * Run one command; `input` (may be NULL) is written to its stdin. Returns 0 when
 * the command ran (whatever its exit status, see ret->exit_status), -ETIMEDOUT,
 * -ECONNRESET (session lost: ssh_session_alive() is false afterwards),
 * -EMSGSIZE (output too large) or another -errno. ret is filled only on success.
 */
int ssh_session_exec(struct ssh_session *s, const char *cmd, const char *input,
                     struct ssh_result *ret, struct errbuf *e);

/* False once the connection broke or a command timed out (the session is unusable). */
int ssh_session_alive(const struct ssh_session *s);

/* Commands run on this session so far. */
unsigned ssh_session_commands(const struct ssh_session *s);

/* Accepts NULL. */
void ssh_session_close(struct ssh_session *s);
void ssh_result_done(struct ssh_result *r);
