/* SPDX-License-Identifier: MIT */
/*
 * Every API connection from accept to close. A client that has not proved who it
 * is yet (TLS handshake not done, or no request headers yet) counts against two
 * budgets: all such connections, and those from its address. A new connection
 * always gets in: when its address is at its budget, that address's oldest
 * unauthenticated connection is shut down to make room; when the whole budget is
 * full, the oldest one of the address holding the most. A slow client holds its
 * place only until someone newer needs it, and a lone client on an address of its
 * own is not the one to go while another address holds several. Independently, a
 * connection that has not sent a request's headers within header_timeout_ms of its
 * accept is shut down. An authenticated client leaves those budgets at once for
 * those of its role: a certificate holds at most so many connections, readers all
 * together at most read_max, so that the rest of the daemon's slots are the operate
 * clients' (the controller's confirm always gets in); at a budget, or when the
 * daemon has no free slot left, the keep-alive connection idle the longest is shut
 * (a reader's first), and a client whose role's connections are all busy is refused.
 * Shutting down is shutdown(2) on the socket, under the lock that the CLOSED
 * notification takes before libmicrohttpd closes the descriptor.
 *
 * With TLS, the daemon issues session tickets (one key per daemon, GnuTLS derives
 * and rotates what it encrypts them with), so that a controller reconnecting to ask
 * its next question skips the certificates and signatures. A resumed session
 * carries no certificate message, so the hook that verifies one in the handshake
 * does not run: its role is decided at its first request from the certificate the
 * ticket carries, verified again first against the trust and the clock of now.
 */
#include <arpa/inet.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <time.h>

#include "agent/http/http_internal.h"
#include "common/clock.h"
#include "common/log.h"

#define REAPER_TICK_MS 200
#define LOG_LINES_PER_SECOND 10
#define LOG_NOUN "refused connection(s) or client(s)"
#define TICKET_LIFETIME_S 3600          /* a ticket older than this gets a full handshake */

static void peer_text(const struct sockaddr *sa, char *buf, size_t size)
{
        const void *a = NULL;

        if (sa && sa->sa_family == AF_INET)
                a = &((const struct sockaddr_in *)sa)->sin_addr;
        else if (sa && sa->sa_family == AF_INET6)
                a = &((const struct sockaddr_in6 *)sa)->sin6_addr;
        if (!a || !inet_ntop(sa->sa_family, a, buf, (socklen_t)size))
                snprintf(buf, size, "unknown");
}

void http_guard_log(struct http_guard *g, const char *fmt, ...)
{
        char msg[512];
        va_list ap;

        va_start(ap, fmt);
        vsnprintf(msg, sizeof(msg), fmt, ap);
        va_end(ap);
        log_limited(&g->log, "%s", msg);
}

static bool pending(const struct http_conn *hc)
{
        return !hc->authenticated && !hc->closed_by;
}

/* Shut hc down (under the lock). */
static void shut(struct http_guard *g, struct http_conn *hc, const char *why)
{
        if (pending(hc))
                g->pending--;
        hc->closed_by = why;
        shutdown(hc->fd, SHUT_RDWR);
}

/* The oldest pending connection, of one address (peer) or of all (NULL). */
static struct http_conn *oldest_pending(struct http_guard *g, const char *peer, unsigned *ret_count)
{
        struct http_conn *old = NULL;
        unsigned n = 0;

        for (struct http_conn *hc = g->head; hc; hc = hc->next) {
                if (!pending(hc) || (peer && !streq(hc->peer, peer)))
                        continue;
                n++;
                if (!old || hc->started_ms < old->started_ms)
                        old = hc;
        }
        *ret_count = n;
        return old;
}

/* The oldest pending connection of the address that holds the most pending ones. */
static struct http_conn *oldest_of_heaviest(struct http_guard *g)
{
        struct http_conn *victim = NULL;
        unsigned most = 0;

        for (struct http_conn *hc = g->head; hc; hc = hc->next) {
                struct http_conn *old;
                unsigned n;

                if (!pending(hc))
                        continue;
                old = oldest_pending(g, hc->peer, &n);
                if (n > most || (n == most && old->started_ms < victim->started_ms)) {
                        most = n;
                        victim = old;
                }
        }
        return victim;
}

/*
 * Make room for a new pending connection from peer (under the lock): its address
 * gives up its oldest when it is at its budget; when all are, the address that
 * holds the most gives up its oldest — one client on an address of its own is
 * never the one to go while another address holds several.
 */
static void admit(struct http_guard *g, const char *peer)
{
        struct http_conn *old;
        unsigned n;

        old = oldest_pending(g, peer, &n);
        if (old && n >= g->lim.pending_per_addr) {
                shut(g, old, "evicted");
                g->evicted++;
        }
        if (g->pending >= g->lim.pending_max && (old = oldest_of_heaviest(g))) {
                shut(g, old, "evicted");
                g->evicted++;
        }
}

/* A connection that holds a slot of its role: authenticated, not shut. */
static bool holds(const struct http_conn *hc, enum http_role role, const char *subject)
{
        return hc->authenticated && !hc->closed_by && hc->role == role && (!subject || streq(hc->subject, subject));
}

/*
 * Connections of role (of one certificate subject, or all: NULL) that hold a slot,
 * under the lock; *idle: the one of them idle the longest (keep-alive, no request
 * being served), NULL when every one is busy.
 */
static unsigned count_role(struct http_guard *g, enum http_role role, const char *subject, struct http_conn **idle)
{
        unsigned n = 0;

        *idle = NULL;
        for (struct http_conn *hc = g->head; hc; hc = hc->next) {
                if (!holds(hc, role, subject))
                        continue;
                n++;
                if (!hc->busy && (!*idle || hc->idle_since_ms < (*idle)->idle_since_ms))
                        *idle = hc;
        }
        return n;
}

static void close_idle(struct http_guard *g, struct http_conn *hc)
{
        shut(g, hc, "idle");
        g->idle_closed++;
}

/*
 * The budgets of authenticated connections (under the lock), for hc whose role was
 * just decided: one certificate holds at most read_per_client (read) or
 * operate_per_client (operate) connections, and readers all together at most
 * read_max, so that conn_max - pending_max - read_max slots are the operate clients'
 * whatever readers do. At a budget, the connection of it idle the longest (a
 * keep-alive between requests) is shut to make room; when all are busy, hc is
 * refused (-EBUSY, role_why): it never holds a slot.
 */
static int admit_role(struct http_guard *g, struct http_conn *hc)
{
        bool reader = hc->role == HTTP_ROLE_READ;
        unsigned per = reader ? g->lim.read_per_client : g->lim.operate_per_client, n;
        struct http_conn *idle;

        if (per && (n = count_role(g, hc->role, hc->subject, &idle)) >= per) {
                if (!idle) {
                        snprintf(hc->role_why, sizeof(hc->role_why), "client certificate '%s' (role %s) holds %u "
                                 "connections, the most one certificate of its role may, each busy; retry when one "
                                 "is done", hc->subject, http_role_name(hc->role), n);
                        return -EBUSY;
                }
                close_idle(g, idle);
        }
        if (reader && g->lim.read_max && (n = count_role(g, HTTP_ROLE_READ, NULL, &idle)) >= g->lim.read_max) {
                if (!idle) {
                        snprintf(hc->role_why, sizeof(hc->role_why), "clients of role read hold %u connections, the "
                                 "most they may, each busy; retry when one is done", n);
                        return -EBUSY;
                }
                close_idle(g, idle);
        }
        return 0;
}

/*
 * Under pressure (under the lock): when the connection just accepted leaves the
 * daemon no free slot, the idle keep-alive connection of a reader idle the longest
 * is shut (else an operate client's), so that the next connection gets in.
 */
static void relieve(struct http_guard *g)
{
        struct http_conn *idle;
        unsigned n = 1;                 /* the one just accepted */

        for (struct http_conn *hc = g->head; hc; hc = hc->next)
                n += !hc->closed_by;
        if (!g->lim.conn_max || n < g->lim.conn_max)
                return;
        count_role(g, HTTP_ROLE_READ, NULL, &idle);
        if (!idle)
                count_role(g, HTTP_ROLE_OPERATE, NULL, &idle);
        if (idle)
                close_idle(g, idle);
}

/* gnutls_certificate_verify_function, installed on every session: 0 lets the handshake go on. */
static int verify_in_handshake(gnutls_session_t s)
{
        struct MHD_Connection *c = gnutls_session_get_ptr(s);
        struct http_conn *hc = c ? http_guard_conn(c) : NULL;
        char why[sizeof(hc->refused)];

        if (http_auth_verify(s, why, sizeof(why)) < 0) {
                if (hc)
                        snprintf(hc->refused, sizeof(hc->refused), "%s", why);
                return -1;
        }
        /* The role is part of the handshake's accounting: a client that will be refused never leaves the budget. */
        if (hc)
                http_guard_decide(hc->guard, s, hc);
        return 0;
}

int http_guard_decide(struct http_guard *g, gnutls_session_t s, struct http_conn *hc)
{
        int r;

        if (hc->verdict)
                return hc->verdict;
        if (s && gnutls_session_is_resumed(s)) {
                char why[sizeof(hc->refused)];

                pthread_mutex_lock(&g->lock);
                g->resumed++;
                pthread_mutex_unlock(&g->lock);
                if (http_auth_verify(s, why, sizeof(why)) < 0) {
                        snprintf(hc->role_why, sizeof(hc->role_why),
                                 "client certificate refused on session resumption: %s", why);
                        http_guard_log(g, "refused client from %s: %s", hc->peer, hc->role_why);
                        return hc->verdict = -EPERM;
                }
        }
        r = http_auth_role(s, g->lim.roles, hc);
        hc->role = r > 0 ? (enum http_role)r : HTTP_ROLE_NONE;
        if (r > 0) {
                pthread_mutex_lock(&g->lock);
                r = admit_role(g, hc);
                if (r >= 0 && pending(hc))
                        g->pending--;
                hc->authenticated = r >= 0;
                pthread_mutex_unlock(&g->lock);
                r = r < 0 ? r : 1;
        }
        hc->verdict = r;
        if (r == -EPERM || r == -EBUSY)
                http_guard_log(g, "refused client from %s: %s", hc->peer, hc->role_why);
        return hc->verdict;
}

/* Require a client certificate and verify it inside the handshake; offer a session ticket. */
static void tls_setup(struct http_guard *g, gnutls_session_t s)
{
        gnutls_certificate_server_set_request(s, GNUTLS_CERT_REQUIRE);
        gnutls_session_set_verify_function(s, verify_in_handshake);
        if (g->ticket_key.data && gnutls_session_ticket_enable_server(s, &g->ticket_key) >= 0)
                gnutls_db_set_cache_expiration(s, TICKET_LIFETIME_S);
}

static void started(struct http_guard *g, struct MHD_Connection *c, void **socket_context)
{
        const union MHD_ConnectionInfo *fd = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        const union MHD_ConnectionInfo *addr = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
        const union MHD_ConnectionInfo *tls = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION);
        struct http_conn *hc = calloc(1, sizeof(*hc));

        if (!hc || !fd) {
                /* Without a record the connection cannot be guarded: refuse it. */
                if (fd)
                        shutdown(fd->connect_fd, SHUT_RDWR);
                free(hc);
                return;
        }
        hc->guard = g;
        hc->fd = fd->connect_fd;
        hc->started_ms = hc->idle_since_ms = clock_mono_ms();
        peer_text(addr ? addr->client_addr : NULL, hc->peer, sizeof(hc->peer));
        if (g->lim.tls && tls && tls->tls_session)
                tls_setup(g, (gnutls_session_t)tls->tls_session);
        pthread_mutex_lock(&g->lock);
        admit(g, hc->peer);
        relieve(g);
        hc->next = g->head;
        if (g->head)
                g->head->prev = hc;
        g->head = hc;
        g->pending++;
        g->accepted++;
        pthread_mutex_unlock(&g->lock);
        *socket_context = hc;
}

static void closed(struct http_guard *g, struct http_conn *hc)
{
        const char *why = NULL;
        char what[256] = "";

        pthread_mutex_lock(&g->lock);
        if (pending(hc))
                g->pending--;
        if (hc->prev)
                hc->prev->next = hc->next;
        else
                g->head = hc->next;
        if (hc->next)
                hc->next->prev = hc->prev;
        if (!hc->authenticated) {
                why = hc->closed_by;
                if (hc->refused[0])
                        snprintf(what, sizeof(what), "client certificate refused in the TLS handshake: %s",
                                 hc->refused);
        }
        pthread_mutex_unlock(&g->lock);
        if (what[0])
                http_guard_log(g, "refused connection from %s: %s", hc->peer, what);
        else if (why && streq(why, "deadline"))
                http_guard_log(g, "closed connection from %s: no authenticated request within %u ms",
                               hc->peer, g->lim.header_timeout_ms);
        else if (!hc->authenticated && !why && g->lim.tls && hc->verdict == 0)
                http_guard_log(g, "refused connection from %s: TLS handshake failed (no valid client certificate)",
                               hc->peer);
        free(hc);
}

void http_guard_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                       enum MHD_ConnectionNotificationCode code)
{
        struct http_guard *g = cls;

        if (code == MHD_CONNECTION_NOTIFY_STARTED)
                started(g, c, socket_context);
        else if (code == MHD_CONNECTION_NOTIFY_CLOSED && *socket_context) {
                closed(g, *socket_context);
                *socket_context = NULL;
        }
}

struct http_conn *http_guard_conn(struct MHD_Connection *c)
{
        const union MHD_ConnectionInfo *i = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);

        return i ? i->socket_context : NULL;
}

void http_guard_authenticated(struct http_guard *g, struct http_conn *hc)
{
        pthread_mutex_lock(&g->lock);
        if (pending(hc))
                g->pending--;
        hc->authenticated = true;
        pthread_mutex_unlock(&g->lock);
}

void http_guard_requested(struct http_guard *g, struct http_conn *hc)
{
        pthread_mutex_lock(&g->lock);
        hc->requested = true;
        hc->busy = true;
        pthread_mutex_unlock(&g->lock);
}

void http_guard_answered(struct http_guard *g, struct http_conn *hc)
{
        pthread_mutex_lock(&g->lock);
        hc->busy = false;
        hc->idle_since_ms = clock_mono_ms();
        pthread_mutex_unlock(&g->lock);
}

static void *reaper(void *arg)
{
        struct http_guard *g = arg;

        pthread_mutex_lock(&g->lock);
        while (!g->stop) {
                struct timespec ts;
                long long now = clock_mono_ms();

                for (struct http_conn *hc = g->head; hc; hc = hc->next)
                        if (!hc->requested && !hc->closed_by &&
                            now - hc->started_ms >= (long long)g->lim.header_timeout_ms) {
                                shut(g, hc, "deadline");
                                g->expired++;
                        }
                clock_gettime(CLOCK_REALTIME, &ts);
                ts.tv_nsec += REAPER_TICK_MS * 1000000L;
                ts.tv_sec += ts.tv_nsec / 1000000000L;
                ts.tv_nsec %= 1000000000L;
                pthread_cond_timedwait(&g->wake, &g->lock, &ts);
        }
        pthread_mutex_unlock(&g->lock);
        return NULL;
}

int http_guard_start(struct http_guard *g, const struct http_guard_limits *lim, struct errbuf *e)
{
        int r;

        memset(g, 0, sizeof(*g));
        g->lim = *lim;
        g->log = (struct log_limit)LOG_LIMIT_INIT("api", LOG_NOUN, LOG_LINES_PER_SECOND);
        pthread_mutex_init(&g->lock, NULL);
        pthread_cond_init(&g->wake, NULL);
        g->initialised = true;
        /* Without a key (no entropy?) every handshake is a full one: slower, never less safe. */
        if (lim->tls && gnutls_session_ticket_key_generate(&g->ticket_key) < 0)
                g->ticket_key = (gnutls_datum_t) { 0 };
        r = pthread_create(&g->reaper, NULL, reaper, g);
        if (r != 0)
                return errbuf_set(e, r, "listen", "cannot start the connection guard: %s", strerror(r));
        g->reaper_started = true;
        return 0;
}

void http_guard_stop(struct http_guard *g)
{
        if (!g->reaper_started)
                return;
        pthread_mutex_lock(&g->lock);
        g->stop = true;
        pthread_cond_signal(&g->wake);
        pthread_mutex_unlock(&g->lock);
        pthread_join(g->reaper, NULL);
        g->reaper_started = false;
}

void http_guard_done(struct http_guard *g)
{
        if (!g->initialised)
                return;
        http_guard_stop(g);
        if (g->ticket_key.data) {
                gnutls_memset(g->ticket_key.data, 0, g->ticket_key.size);
                http_lib_gnutls_free(g->ticket_key.data);
                g->ticket_key = (gnutls_datum_t) { 0 };
        }
        pthread_cond_destroy(&g->wake);
        pthread_mutex_destroy(&g->lock);
        g->initialised = false;
}
