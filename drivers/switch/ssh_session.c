/* SPDX-License-Identifier: MIT */
/* SSH sessions to switches over libssh2, non-blocking with bounded waits. */
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/socket.h>
#include <time.h>

#include <libssh2.h>

#include "common/clock.h"
#include "drivers/switch/ssh_session.h"

struct ssh_session {
        int fd;
        LIBSSH2_SESSION *ssh;
        char where[300];                /* "ssh 'user@host:port'" for messages */
        uint64_t deadline_total;        /* monotonic ms */
        unsigned command_timeout_ms;
        unsigned commands;
        int alive;
};

struct buf {
        char *p;
        size_t len, max;
};

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static int init_rc;

static void ssh_lib_init(void)
{
        init_rc = libssh2_init(0);
}

static unsigned or_default(unsigned v, unsigned def)
{
        return v ? v : def;
}

/* Wait until the socket is ready in the direction libssh2 is blocked on. */
static int wait_socket(struct ssh_session *s, uint64_t deadline)
{
        struct pollfd p = { .fd = s->fd };
        int dir = libssh2_session_block_directions(s->ssh);
        uint64_t now = clock_mono_ms();
        int next_ka = 0, r;

        if (now >= deadline)
                return -ETIMEDOUT;
        if (dir & LIBSSH2_SESSION_BLOCK_INBOUND)
                p.events |= POLLIN;
        if (dir & LIBSSH2_SESSION_BLOCK_OUTBOUND)
                p.events |= POLLOUT;
        if (!p.events)
                p.events = POLLIN;
        if (s->alive)   /* never in the middle of key exchange */
                libssh2_keepalive_send(s->ssh, &next_ka);
        uint64_t wait = deadline - now;
        if (next_ka > 0 && (uint64_t)next_ka * 1000 < wait)
                wait = (uint64_t)next_ka * 1000;
        if (wait > 1000)
                wait = 1000;
        r = poll(&p, 1, (int)wait);
        if (r < 0 && errno != EINTR)
                return -errno;
        if (r > 0 && (p.revents & (POLLERR | POLLNVAL)))
                return -ECONNRESET;
        return 0;
}

static int connect_fd(const struct ssh_options *o, uint64_t deadline, int *ret_fd, struct errbuf *e,
                      const char *where)
{
        struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai = NULL;
        char port[16];
        int r, fd = -1;

        snprintf(port, sizeof(port), "%u", or_default(o->port, 22));
        r = getaddrinfo(o->host, port, &hints, &ai);
        if (r != 0)
                return errbuf_set(e, EHOSTUNREACH, where, "cannot resolve host '%s': %s", o->host,
                                  gai_strerror(r));
        for (struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
                fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
                if (fd < 0)
                        continue;
                if (connect(fd, a->ai_addr, a->ai_addrlen) < 0 && errno != EINPROGRESS) {
                        r = -errno;
                        close(fd);
                        fd = -1;
                        continue;
                }
                struct pollfd p = { .fd = fd, .events = POLLOUT };
                uint64_t now = clock_mono_ms();
                int err = 0;
                socklen_t len = sizeof(err);
                if (now >= deadline || poll(&p, 1, (int)(deadline - now)) <= 0)
                        err = ETIMEDOUT;
                else if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
                        err = errno;
                if (err) {
                        r = -err;
                        close(fd);
                        fd = -1;
                }
        }
        freeaddrinfo(ai);
        if (fd < 0)
                return errbuf_set(e, r < 0 ? -r : ECONNREFUSED, where, "cannot connect: %s",
                                  strerror(r < 0 ? -r : ECONNREFUSED));
        *ret_fd = fd;
        return 0;
}

static const char *ssh_errmsg(LIBSSH2_SESSION *ssh)
{
        char *msg = NULL;

        libssh2_session_last_error(ssh, &msg, NULL, 0);
        return msg ? msg : "unknown error";
}

/* Run a libssh2 call until it stops saying EAGAIN. */
#define SSH_RETRY(s, deadline, call)                                            \
        ({                                                                      \
                long _r;                                                        \
                while ((_r = (long)(call)) == LIBSSH2_ERROR_EAGAIN) {           \
                        int _w = wait_socket((s), (deadline));                  \
                        if (_w < 0) {                                           \
                                _r = _w == -ETIMEDOUT ? -ETIMEDOUT - 100000 : _w - 100000; \
                                break;                                          \
                        }                                                       \
                }                                                               \
                _r;                                                             \
        })

/* Errors of SSH_RETRY: libssh2 error codes (negative, > -100000) or -errno - 100000. */
static int retry_errno(long r)
{
        if (r <= -100000)
                return (int)(r + 100000);
        if (r == LIBSSH2_ERROR_TIMEOUT)
                return -ETIMEDOUT;
        if (r == LIBSSH2_ERROR_SOCKET_RECV || r == LIBSSH2_ERROR_SOCKET_SEND ||
            r == LIBSSH2_ERROR_SOCKET_DISCONNECT || r == LIBSSH2_ERROR_CHANNEL_CLOSED ||
            r == LIBSSH2_ERROR_CHANNEL_EOF_SENT)
                return -ECONNRESET;
        return -EIO;
}

static int knownhost_type(int hostkey_type)
{
        switch (hostkey_type) {
        case LIBSSH2_HOSTKEY_TYPE_ED25519: return LIBSSH2_KNOWNHOST_KEY_ED25519;
        case LIBSSH2_HOSTKEY_TYPE_ECDSA_256: return LIBSSH2_KNOWNHOST_KEY_ECDSA_256;
        case LIBSSH2_HOSTKEY_TYPE_ECDSA_384: return LIBSSH2_KNOWNHOST_KEY_ECDSA_384;
        case LIBSSH2_HOSTKEY_TYPE_ECDSA_521: return LIBSSH2_KNOWNHOST_KEY_ECDSA_521;
        case LIBSSH2_HOSTKEY_TYPE_RSA: return LIBSSH2_KNOWNHOST_KEY_SSHRSA;
        default: return LIBSSH2_KNOWNHOST_KEY_UNKNOWN;
        }
}

static int verify_host_key(struct ssh_session *s, const struct ssh_options *o, struct errbuf *e)
{
        LIBSSH2_KNOWNHOSTS *kh;
        struct libssh2_knownhost *found = NULL;
        const char *key;
        size_t len;
        int type, r;

        key = libssh2_session_hostkey(s->ssh, &len, &type);
        if (!key)
                return errbuf_set(e, EPROTO, s->where, "the server sent no host key; nothing was changed");
        kh = libssh2_knownhost_init(s->ssh);
        if (!kh)
                return errbuf_set(e, ENOMEM, s->where, "out of memory");
        if (!o->known_hosts || !*o->known_hosts) {
                libssh2_knownhost_free(kh);
                return errbuf_set(e, EPERM, s->where, "no known_hosts file configured: host keys must be pinned; "
                                  "refusing to connect");
        }
        r = libssh2_knownhost_readfile(kh, o->known_hosts, LIBSSH2_KNOWNHOST_FILE_OPENSSH);
        if (r < 0) {
                libssh2_knownhost_free(kh);
                return errbuf_set(e, EPERM, s->where, "cannot read known_hosts file '%s': %s; refusing to connect",
                                  o->known_hosts, ssh_errmsg(s->ssh));
        }
        r = libssh2_knownhost_checkp(kh, o->host, (int)or_default(o->port, 22), key, len,
                                     LIBSSH2_KNOWNHOST_TYPE_PLAIN | LIBSSH2_KNOWNHOST_KEYENC_RAW |
                                     knownhost_type(type), &found);
        libssh2_knownhost_free(kh);
        switch (r) {
        case LIBSSH2_KNOWNHOST_CHECK_MATCH:
                return 0;
        case LIBSSH2_KNOWNHOST_CHECK_MISMATCH:
                return errbuf_set(e, EPERM, s->where, "host key does not match the one pinned in '%s' "
                                  "(the switch was replaced or someone is intercepting); refusing to connect",
                                  o->known_hosts);
        case LIBSSH2_KNOWNHOST_CHECK_NOTFOUND:
                return errbuf_set(e, EPERM, s->where, "host key is not in '%s' (unknown host); "
                                  "refusing to connect", o->known_hosts);
        default:
                return errbuf_set(e, EPERM, s->where, "cannot check the host key against '%s'; "
                                  "refusing to connect", o->known_hosts);
        }
}

static int handshake_and_auth(struct ssh_session *s, const struct ssh_options *o, uint64_t deadline,
                              struct errbuf *e)
{
        long r;

        libssh2_session_method_pref(s->ssh, LIBSSH2_METHOD_HOSTKEY,
                                    "ssh-ed25519,ecdsa-sha2-nistp256,ecdsa-sha2-nistp384,"
                                    "ecdsa-sha2-nistp521,rsa-sha2-512,rsa-sha2-256");
        r = SSH_RETRY(s, deadline, libssh2_session_handshake(s->ssh, s->fd));
        if (r < 0)
                return errbuf_set(e, r <= -100000 ? -retry_errno(r) : EPROTO, s->where, "ssh handshake failed: %s",
                                  r <= -100000 ? strerror(-retry_errno(r)) : ssh_errmsg(s->ssh));
        r = verify_host_key(s, o, e);
        if (r < 0)
                return (int)r;
        r = SSH_RETRY(s, deadline, libssh2_userauth_publickey_fromfile_ex(s->ssh, o->user,
                                (unsigned)strlen(o->user), NULL, o->key, NULL));
        if (r < 0) {
                if (r <= -100000)
                        return errbuf_set(e, -retry_errno(r), s->where, "authentication failed: %s",
                                          strerror(-retry_errno(r)));
                return errbuf_set(e, EACCES, s->where, "authentication as '%s' with key '%s' was refused: %s",
                                  o->user, o->key, ssh_errmsg(s->ssh));
        }
        return 0;
}

int ssh_session_open(const struct ssh_options *o, struct ssh_session **ret, struct errbuf *e)
{
        struct ssh_session *s;
        uint64_t start = clock_mono_ms();
        int r;

        r = lazylib_open(&ssh_lib, e);
        if (r < 0)
                return r;
        pthread_once(&init_once, ssh_lib_init);
        if (init_rc != 0)
                return errbuf_set(e, EIO, "ssh", "cannot initialise libssh2");
        s = calloc(1, sizeof(*s));
        if (!s)
                return errbuf_set(e, ENOMEM, "ssh", "out of memory");
        s->fd = -1;
        snprintf(s->where, sizeof(s->where), "ssh '%s@%s:%u'", o->user, o->host, or_default(o->port, 22));
        s->command_timeout_ms = or_default(o->command_timeout_ms, 30000);
        s->deadline_total = start + or_default(o->total_timeout_ms, 300000);
        r = connect_fd(o, start + or_default(o->connect_timeout_ms, 5000), &s->fd, e, s->where);
        if (r < 0)
                goto fail;
        s->ssh = libssh2_session_init();
        if (!s->ssh) {
                r = errbuf_set(e, ENOMEM, s->where, "cannot create an ssh session");
                goto fail;
        }
        libssh2_session_set_blocking(s->ssh, 0);
        r = handshake_and_auth(s, o, start + or_default(o->connect_timeout_ms, 5000), e);
        if (r < 0)
                goto fail;
        libssh2_keepalive_config(s->ssh, 1, or_default(o->keepalive_s, 10));
        s->alive = 1;
        *ret = s;
        return 0;
fail:
        ssh_session_close(s);
        return r;
}

static int buf_add(struct buf *b, const char *p, size_t n)
{
        if (b->len + n > b->max)
                return -EMSGSIZE;
        char *np = realloc(b->p, b->len + n + 1);
        if (!np)
                return -ENOMEM;
        memcpy(np + b->len, p, n);
        b->p = np;
        b->len += n;
        b->p[b->len] = '\0';
        return 0;
}

static int write_input(struct ssh_session *s, LIBSSH2_CHANNEL *ch, const char *input, uint64_t deadline)
{
        size_t off = 0, len = input ? strlen(input) : 0;
        long r;

        while (off < len) {
                r = SSH_RETRY(s, deadline, libssh2_channel_write(ch, input + off, len - off));
                if (r < 0)
                        return retry_errno(r);
                off += (size_t)r;
        }
        r = SSH_RETRY(s, deadline, libssh2_channel_send_eof(ch));
        return r < 0 ? retry_errno(r) : 0;
}

/* Read stdout and stderr until EOF, both bounded. */
static int read_output(struct ssh_session *s, LIBSSH2_CHANNEL *ch, struct buf *out, struct buf *err,
                       uint64_t deadline)
{
        char chunk[16384];

        for (;;) {
                int progress = 0;
                for (int stream = 0; stream < 2; stream++) {
                        ssize_t n = libssh2_channel_read_ex(ch, stream ? SSH_EXTENDED_DATA_STDERR : 0,
                                                            chunk, sizeof(chunk));
                        if (n == LIBSSH2_ERROR_EAGAIN)
                                continue;
                        if (n < 0)
                                return retry_errno(n);
                        if (n > 0) {
                                int r = buf_add(stream ? err : out, chunk, (size_t)n);
                                if (r < 0)
                                        return r;
                                progress = 1;
                        }
                }
                if (libssh2_channel_eof(ch))
                        return 0;
                if (!progress) {
                        int r = wait_socket(s, deadline);
                        if (r < 0)
                                return r;
                }
        }
}

static int run_channel(struct ssh_session *s, LIBSSH2_CHANNEL *ch, const char *cmd, const char *input,
                       struct buf *out, struct buf *err, uint64_t deadline, int *ret_status)
{
        long r;
        char *sig = NULL;

        r = SSH_RETRY(s, deadline, libssh2_channel_process_startup(ch, "exec", 4, cmd, (unsigned)strlen(cmd)));
        if (r < 0)
                return retry_errno(r);
        r = write_input(s, ch, input, deadline);
        if (r < 0)
                return (int)r;
        r = read_output(s, ch, out, err, deadline);
        if (r < 0)
                return (int)r;
        r = SSH_RETRY(s, deadline, libssh2_channel_close(ch));
        if (r < 0)
                return retry_errno(r);
        r = SSH_RETRY(s, deadline, libssh2_channel_wait_closed(ch));
        if (r < 0)
                return retry_errno(r);
        *ret_status = libssh2_channel_get_exit_status(ch);
        libssh2_channel_get_exit_signal(ch, &sig, NULL, NULL, NULL, NULL, NULL);
        if (sig) {
                *ret_status = 255;
                libssh2_free(s->ssh, sig);
        }
        return 0;
}

static int exec_fail(struct ssh_session *s, int r, const char *cmd, struct errbuf *e)
{
        /* A timed-out or broken channel leaves the session in an unknown state. */
        s->alive = 0;
        if (r == -ETIMEDOUT)
                return errbuf_set(e, ETIMEDOUT, s->where, "command '%.80s' timed out after %u ms; the session "
                                  "was closed", cmd, s->command_timeout_ms);
        if (r == -EMSGSIZE)
                return errbuf_set(e, EMSGSIZE, s->where, "command '%.80s' printed more than %u bytes; the "
                                  "session was closed", cmd, SSH_OUT_MAX);
        if (r == -ECONNRESET)
                return errbuf_set(e, ECONNRESET, s->where, "connection lost during '%.80s'", cmd);
        return errbuf_set(e, -r, s->where, "command '%.80s' failed: %s", cmd, s->ssh ? ssh_errmsg(s->ssh) :
                          strerror(-r));
}

int ssh_session_exec(struct ssh_session *s, const char *cmd, const char *input,
                     struct ssh_result *ret, struct errbuf *e)
{
        struct buf out = { .max = SSH_OUT_MAX }, err = { .max = SSH_ERR_MAX };
        LIBSSH2_CHANNEL *ch = NULL;
        uint64_t deadline;
        int r, status = -1;

        if (!s->alive)
                return errbuf_set(e, ECONNRESET, s->where, "session is closed (an earlier command failed)");
        deadline = clock_mono_ms() + s->command_timeout_ms;
        if (deadline > s->deadline_total)
                deadline = s->deadline_total;
        s->commands++;
        while (!(ch = libssh2_channel_open_session(s->ssh))) {
                if (libssh2_session_last_errno(s->ssh) != LIBSSH2_ERROR_EAGAIN) {
                        r = retry_errno(libssh2_session_last_errno(s->ssh));
                        goto fail;
                }
                r = wait_socket(s, deadline);
                if (r < 0)
                        goto fail;
        }
        r = run_channel(s, ch, cmd, input, &out, &err, deadline, &status);
        if (r < 0)
                goto fail;
        libssh2_channel_free(ch);
        if (buf_add(&out, "", 0) < 0 || buf_add(&err, "", 0) < 0) {
                free(out.p);
                free(err.p);
                return errbuf_set(e, ENOMEM, s->where, "out of memory");
        }
        *ret = (struct ssh_result) { .exit_status = status, .out = out.p, .out_len = out.len,
                                     .err = err.p, .err_len = err.len };
        return 0;
fail:
        if (ch && r != -ETIMEDOUT && r != -ECONNRESET)
                libssh2_channel_free(ch);
        free(out.p);
        free(err.p);
        return exec_fail(s, r, cmd, e);
}

int ssh_session_alive(const struct ssh_session *s)
{
        return s && s->alive;
}

unsigned ssh_session_commands(const struct ssh_session *s)
{
        return s ? s->commands : 0;
}

void ssh_session_close(struct ssh_session *s)
{
        if (!s)
                return;
        if (s->ssh) {
                if (s->alive) {
                        /* Best effort, bounded: a polite goodbye, then drop the socket. */
                        uint64_t deadline = clock_mono_ms() + 1000;
                        SSH_RETRY(s, deadline, libssh2_session_disconnect(s->ssh, "done"));
                }
                /* With the socket shut, freeing never waits on the peer. */
                if (s->fd >= 0)
                        shutdown(s->fd, SHUT_RDWR);
                for (int i = 0; i < 100 && libssh2_session_free(s->ssh) == LIBSSH2_ERROR_EAGAIN; i++)
                        ;
        }
        if (s->fd >= 0)
                close(s->fd);
        free(s);
}

void ssh_result_done(struct ssh_result *r)
{
        if (!r)
                return;
        free(r->out);
        free(r->err);
        r->out = r->err = NULL;
}
