/* SPDX-License-Identifier: MIT */
/*
 * probe-server: one acceptor thread, one thread per session, at most
 * max_clients sessions at once. The acceptor refuses clients that are not
 * allowed before a session exists, and cuts sessions at their deadline.
 * Stopping closes the listener, shuts down the sessions' control connections
 * (which ends them) and joins every thread.
 * A session thread runs PROBE_SESSION_NICE_BOOST nice levels above the process
 * where it may (CAP_SYS_NICE), like the measuring thread on the other end: both
 * ends of a measurement get ahead of the hosts' other work alike.
 */
#include <arpa/inet.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "drivers/probe/probe_server.h"

#define WATCH_MS 200                    /* how often the acceptor looks for expired sessions */
#define WATCH_GRACE_MS 2000u            /* a session's own waits end at its deadline; the watch ends it this much later */
#define PROBE_SESSION_NICE_BOOST 5

struct slot {
        struct probe_server *srv;
        pthread_t tid;
        bool used;                      /* a thread was started and not joined yet */
        bool finished;                  /* the thread is about to return */
        bool expired;                   /* the acceptor shut it down at its deadline */
        int fd;                         /* control connection, -1 once closed */
        struct probe_addr from;
        char peer[INET6_ADDRSTRLEN + 16];
        uint64_t deadline_ns;           /* under lock */
        uint64_t bytes;                 /* pinned memory counted in the budget, under lock */
};

struct probe_server {
        int lfd;
        int stop_pipe[2];
        pthread_t acceptor;
        pthread_mutex_t lock;
        struct probe_addr addr;
        char sysfs_root[256];
        unsigned max_clients;
        unsigned n_allow;
        struct probe_cidr allow[PROBE_SERVER_ALLOW_MAX];
        uint64_t max_bytes, bytes_in_use;
        unsigned hello_ms, slack_ms;
        void (*on_session)(void *userdata, const char *peer, const char *mode, int r,
                           const struct errbuf *e);
        void *userdata;
        unsigned long n_ok, n_failed, n_not_allowed, n_expired;
        struct slot slots[PROBE_SERVER_CLIENTS_MAX];
};

int probe_server_admit(const struct probe_oob_msg *hello, uint64_t in_use, uint64_t max_bytes, unsigned slack_ms,
                       uint64_t *ret_bytes, unsigned *ret_ms, struct errbuf *e)
{
        uint64_t bytes;
        unsigned run_ms;

        if (hello->type != PROBE_OOB_HELLO)
                return errbuf_set(e, EBADMSG, "probe server", "expected hello, got %s",
                                  probe_oob_type_name(hello->type));
        bytes = hello->mode == PROBE_MODE_VERBS ? hello->message_size : PROBE_TCP_SINK_BUF;
        if (bytes > max_bytes || in_use > max_bytes - bytes)
                return errbuf_set(e, EBUSY, "probe server",
                                  "busy: the session needs %llu bytes of memory, %llu of %llu are in use; "
                                  "try again later", (unsigned long long)bytes, (unsigned long long)in_use,
                                  (unsigned long long)max_bytes);
        run_ms = hello->duration_ms ? hello->duration_ms :
                 hello->mode == PROBE_MODE_VERBS ? PROBE_VERBS_ITERATION_BOUND_MS : PROBE_TCP_ITERATION_BOUND_MS;
        *ret_bytes = bytes;
        *ret_ms = run_ms + slack_ms;
        return 0;
}

/* Rule 4: count the session's memory and set its deadline, or refuse it. */
static int admit(struct slot *sl, const struct probe_oob_msg *hello, struct probe_session *s, struct errbuf *e)
{
        struct probe_server *srv = sl->srv;
        uint64_t bytes;
        unsigned ms;
        int r;

        pthread_mutex_lock(&srv->lock);
        r = probe_server_admit(hello, srv->bytes_in_use, srv->max_bytes, srv->slack_ms, &bytes, &ms, e);
        if (r >= 0) {
                srv->bytes_in_use += bytes;
                sl->bytes = bytes;
                sl->deadline_ns = probe_now_ns() + (uint64_t)ms * 1000000ull;
                s->deadline_ns = sl->deadline_ns;
        }
        pthread_mutex_unlock(&srv->lock);
        return r;
}

static int session(struct slot *sl, const char **ret_mode, struct errbuf *e)
{
        struct probe_oob_msg hello;
        struct probe_session s = { .fd = sl->fd, .sysfs_root = sl->srv->sysfs_root, .hello = &hello,
                                   .peer = &sl->from };
        int r;

        r = probe_oob_expect(sl->fd, PROBE_OOB_HELLO, &hello, sl->srv->hello_ms, e);
        if (r < 0)
                return r;
        *ret_mode = hello.mode == PROBE_MODE_VERBS ? "verbs" : "tcp";
        r = admit(sl, &hello, &s, e);
        if (r < 0)
                return r;
        if (hello.mode == PROBE_MODE_VERBS)
                return probe_verbs_serve(&s, e);
        return probe_tcp_serve(&s, e);
}

static void *session_thread(void *arg)
{
        struct slot *sl = arg;
        struct probe_server *srv = sl->srv;
        struct errbuf e = { .msg = "" };
        const char *mode = "unknown";
        id_t tid = (id_t)syscall(SYS_gettid);
        bool expired;
        int r, nice;

        errno = 0;
        nice = getpriority(PRIO_PROCESS, tid);
        if (errno == 0)
                (void)setpriority(PRIO_PROCESS, tid, nice - PROBE_SESSION_NICE_BOOST);  /* best effort */
        r = session(sl, &mode, &e);
        pthread_mutex_lock(&srv->lock);
        expired = sl->expired;
        pthread_mutex_unlock(&srv->lock);
        if (r < 0 && expired)
                errbuf_set(&e, ETIMEDOUT, "probe server", "session from %s cut at its deadline (%s)", sl->peer,
                           e.msg[0] ? e.msg : "no reason given");
        if (r < 0)
                probe_oob_send_error(sl->fd, expired ? -ETIMEDOUT : r, &e);
        if (srv->on_session)
                srv->on_session(srv->userdata, sl->peer, mode, r, &e);
        pthread_mutex_lock(&srv->lock);
        close(sl->fd);
        sl->fd = -1;
        sl->finished = true;
        srv->bytes_in_use -= sl->bytes;
        sl->bytes = 0;
        if (r < 0)
                srv->n_failed++;
        else
                srv->n_ok++;
        pthread_mutex_unlock(&srv->lock);
        return NULL;
}

/* Join finished sessions and return a free slot, or NULL when all are busy. Under lock. */
static struct slot *free_slot(struct probe_server *srv)
{
        struct slot *free_one = NULL;

        for (unsigned i = 0; i < srv->max_clients; i++) {
                struct slot *sl = &srv->slots[i];

                if (sl->used && sl->finished) {
                        pthread_join(sl->tid, NULL);
                        sl->used = false;
                }
                if (!sl->used && !free_one)
                        free_one = sl;
        }
        return free_one;
}

/*
 * Shut down sessions past their deadline and a grace (their threads notice and end):
 * the backstop for a session whose own waits would outlast it (a client trickling
 * its QPs, each inside the handshake bound). Returns how many sessions run.
 */
static unsigned expire(struct probe_server *srv)
{
        uint64_t now = probe_now_ns();
        unsigned running = 0;

        pthread_mutex_lock(&srv->lock);
        for (unsigned i = 0; i < srv->max_clients; i++) {
                struct slot *sl = &srv->slots[i];

                if (!sl->used || sl->finished)
                        continue;
                running++;
                if (!sl->expired && sl->fd >= 0 && now >= sl->deadline_ns + WATCH_GRACE_MS * 1000000ull) {
                        shutdown(sl->fd, SHUT_RDWR);
                        sl->expired = true;
                        srv->n_expired++;
                }
        }
        pthread_mutex_unlock(&srv->lock);
        return running;
}

static void refuse(int fd, int err, const struct errbuf *e)
{
        probe_oob_send_error(fd, err, e);
        close(fd);
}

/* Rule 1: an allowed client address. */
static bool allowed(const struct probe_server *srv, const struct probe_addr *from)
{
        const struct sockaddr *sa = (const struct sockaddr *)&from->ss;

        if (srv->n_allow)
                return probe_cidr_match(srv->allow, srv->n_allow, sa);
        return probe_net_is_local(sa);
}

static void start_session(struct probe_server *srv, int fd, const struct probe_addr *from)
{
        char host[PROBE_ADDR_MAX];
        struct errbuf e;
        struct slot *sl;

        if (!allowed(srv, from)) {
                pthread_mutex_lock(&srv->lock);
                srv->n_not_allowed++;
                pthread_mutex_unlock(&srv->lock);
                errbuf_set(&e, EACCES, "probe server", "client %s is not allowed (probe.allow %s)",
                           probe_net_host(from, host, sizeof(host)),
                           srv->n_allow ? "does not list it" : "is not set: this host only");
                refuse(fd, EACCES, &e);
                return;
        }
        pthread_mutex_lock(&srv->lock);
        sl = free_slot(srv);
        if (!sl) {
                pthread_mutex_unlock(&srv->lock);
                errbuf_set(&e, EBUSY, "probe server", "busy: %u sessions running, try again later", srv->max_clients);
                refuse(fd, EBUSY, &e);
                return;
        }
        *sl = (struct slot) { .srv = srv, .used = true, .fd = fd, .from = *from,
                              .deadline_ns = probe_now_ns() + (uint64_t)srv->hello_ms * 1000000ull };
        probe_net_str(from, sl->peer, sizeof(sl->peer));
        if (pthread_create(&sl->tid, NULL, session_thread, sl) != 0) {
                sl->used = false;
                close(fd);
        }
        pthread_mutex_unlock(&srv->lock);
}

static void *acceptor_thread(void *arg)
{
        struct probe_server *srv = arg;
        unsigned running = 0;

        for (;;) {
                struct pollfd pfd[2] = {
                        { .fd = srv->lfd, .events = POLLIN },
                        { .fd = srv->stop_pipe[0], .events = POLLIN },
                };
                struct probe_addr from = { .len = sizeof(from.ss) };
                int fd, k;

                k = poll(pfd, 2, running ? WATCH_MS : -1);
                if (k < 0 && errno != EINTR)
                        break;
                if (k > 0 && pfd[1].revents)
                        break;
                if (k > 0 && pfd[0].revents) {
                        fd = accept4(srv->lfd, (struct sockaddr *)&from.ss, &from.len, SOCK_CLOEXEC);
                        if (fd >= 0)
                                start_session(srv, fd, &from);
                }
                running = expire(srv);
        }
        return NULL;
}

static void server_free(struct probe_server *s)
{
        if (s->lfd >= 0)
                close(s->lfd);
        if (s->stop_pipe[0] >= 0)
                close(s->stop_pipe[0]);
        if (s->stop_pipe[1] >= 0)
                close(s->stop_pipe[1]);
        pthread_mutex_destroy(&s->lock);
        free(s);
}

static int server_open(struct probe_server *s, const struct probe_server_options *o, struct errbuf *e)
{
        int r;

        r = probe_net_parse_listen(o->listen ? o->listen : "", "probe listen address", &s->addr, e);
        if (r < 0)
                return r;
        s->lfd = probe_net_listen(&s->addr, 16, e);
        if (s->lfd < 0)
                return s->lfd;
        r = probe_net_local(s->lfd, &s->addr);
        if (r < 0)
                return errbuf_set(e, -r, NULL, "getsockname: %s", strerror(-r));
        if (pipe2(s->stop_pipe, O_CLOEXEC) < 0)
                return errbuf_set(e, errno, NULL, "pipe: %s", strerror(errno));
        r = pthread_create(&s->acceptor, NULL, acceptor_thread, s);
        if (r != 0)
                return errbuf_set(e, r, NULL, "cannot start the probe server thread: %s", strerror(r));
        return 0;
}

static void server_settings(struct probe_server *s, const struct probe_server_options *o)
{
        snprintf(s->sysfs_root, sizeof(s->sysfs_root), "%s", o->sysfs_root ? o->sysfs_root : "/sys");
        s->max_clients = o->max_clients ? o->max_clients : PROBE_SERVER_CLIENTS_DEFAULT;
        s->n_allow = o->n_allow;
        if (o->n_allow)
                memcpy(s->allow, o->allow, o->n_allow * sizeof(*o->allow));
        s->max_bytes = o->max_bytes ? o->max_bytes : PROBE_SERVER_BYTES_DEFAULT;
        s->hello_ms = o->hello_timeout_ms ? o->hello_timeout_ms : PROBE_SERVER_HELLO_TIMEOUT_MS;
        s->slack_ms = o->slack_ms ? o->slack_ms : PROBE_SERVER_SLACK_MS_DEFAULT;
        s->on_session = o->on_session;
        s->userdata = o->userdata;
}

int probe_server_start_opts(const struct probe_server_options *o, struct probe_server **ret,
                            struct errbuf *e)
{
        struct probe_server *s;
        int r;

        if (o->max_clients > PROBE_SERVER_CLIENTS_MAX)
                return errbuf_set(e, EINVAL, NULL, "max clients %u out of range 1-%u",
                                  o->max_clients, PROBE_SERVER_CLIENTS_MAX);
        if (o->n_allow > PROBE_SERVER_ALLOW_MAX || (o->n_allow && !o->allow))
                return errbuf_set(e, EINVAL, NULL, "allowed client networks: %u given, at most %u",
                                  o->n_allow, PROBE_SERVER_ALLOW_MAX);
        s = calloc(1, sizeof(*s));
        if (!s)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        s->lfd = s->stop_pipe[0] = s->stop_pipe[1] = -1;
        pthread_mutex_init(&s->lock, NULL);
        server_settings(s, o);
        r = server_open(s, o, e);
        if (r < 0) {
                server_free(s);
                return r;
        }
        *ret = s;
        return 0;
}

int probe_server_start(const char *listen, struct probe_server **ret, struct errbuf *e)
{
        struct probe_server_options o = { .listen = listen };

        return probe_server_start_opts(&o, ret, e);
}

const char *probe_server_address(const struct probe_server *s, char *buf, size_t size)
{
        return probe_net_str(&s->addr, buf, size);
}

void probe_server_counts(const struct probe_server *s, unsigned long *ret_ok, unsigned long *ret_failed)
{
        struct probe_server *m = (struct probe_server *)s;

        pthread_mutex_lock(&m->lock);
        *ret_ok = s->n_ok;
        *ret_failed = s->n_failed;
        pthread_mutex_unlock(&m->lock);
}

void probe_server_refusals(const struct probe_server *s, unsigned long *ret_not_allowed,
                           unsigned long *ret_expired)
{
        struct probe_server *m = (struct probe_server *)s;

        pthread_mutex_lock(&m->lock);
        *ret_not_allowed = s->n_not_allowed;
        *ret_expired = s->n_expired;
        pthread_mutex_unlock(&m->lock);
}

unsigned probe_server_running(const struct probe_server *s)
{
        struct probe_server *m = (struct probe_server *)s;
        unsigned n = 0;

        pthread_mutex_lock(&m->lock);
        for (unsigned i = 0; i < s->max_clients; i++)
                n += s->slots[i].used && !s->slots[i].finished;
        pthread_mutex_unlock(&m->lock);
        return n;
}

void probe_server_stop(struct probe_server *s)
{
        if (!s)
                return;
        (void)!write(s->stop_pipe[1], "x", 1);
        pthread_join(s->acceptor, NULL);
        pthread_mutex_lock(&s->lock);
        for (unsigned i = 0; i < s->max_clients; i++)
                if (s->slots[i].used && s->slots[i].fd >= 0)
                        shutdown(s->slots[i].fd, SHUT_RDWR);
        pthread_mutex_unlock(&s->lock);
        for (unsigned i = 0; i < s->max_clients; i++)
                if (s->slots[i].used)
                        pthread_join(s->slots[i].tid, NULL);
        server_free(s);
}
