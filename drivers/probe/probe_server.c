/* SPDX-License-Identifier: MIT */
/*
 * probe-server: one acceptor thread, one thread per session, at most
 * max_clients sessions at once. Stopping closes the listener, shuts down the
 * sessions' control connections (which ends them) and joins every thread.
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

#include "probe_net.h"
#include "probe_server.h"

#define HELLO_TIMEOUT_MS 10000u
#define PROBE_SESSION_NICE_BOOST 5

struct slot {
        struct probe_server *srv;
        pthread_t tid;
        bool used;                      /* a thread was started and not joined yet */
        bool finished;                  /* the thread is about to return */
        int fd;                         /* control connection, -1 once closed */
        char peer[INET6_ADDRSTRLEN + 16];
};

struct probe_server {
        int lfd;
        int stop_pipe[2];
        pthread_t acceptor;
        pthread_mutex_t lock;
        struct probe_addr addr;
        char sysfs_root[256];
        unsigned max_clients;
        void (*on_session)(void *userdata, const char *peer, const char *mode, int r,
                           const struct errbuf *e);
        void *userdata;
        unsigned long n_ok, n_failed;
        struct slot slots[PROBE_SERVER_CLIENTS_MAX];
};

static int session(struct slot *sl, const char **ret_mode, struct errbuf *e)
{
        struct probe_oob_msg hello;
        struct probe_session s = { .fd = sl->fd, .sysfs_root = sl->srv->sysfs_root, .hello = &hello };
        int r;

        r = probe_oob_expect(sl->fd, PROBE_OOB_HELLO, &hello, HELLO_TIMEOUT_MS, e);
        if (r < 0)
                return r;
        *ret_mode = hello.mode == PROBE_MODE_VERBS ? "verbs" : "tcp";
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
        int r, nice;

        errno = 0;
        nice = getpriority(PRIO_PROCESS, tid);
        if (errno == 0)
                (void)setpriority(PRIO_PROCESS, tid, nice - PROBE_SESSION_NICE_BOOST);  /* best effort */
        r = session(sl, &mode, &e);
        if (r < 0)
                probe_oob_send_error(sl->fd, r, &e);
        if (srv->on_session)
                srv->on_session(srv->userdata, sl->peer, mode, r, &e);
        pthread_mutex_lock(&srv->lock);
        close(sl->fd);
        sl->fd = -1;
        sl->finished = true;
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

static void refuse_busy(int fd, unsigned max)
{
        struct errbuf e;

        errbuf_set(&e, EBUSY, NULL, "probe server busy: %u sessions running, try again later", max);
        probe_oob_send_error(fd, EBUSY, &e);
        close(fd);
}

static void start_session(struct probe_server *srv, int fd, const struct probe_addr *from)
{
        struct slot *sl;

        pthread_mutex_lock(&srv->lock);
        sl = free_slot(srv);
        if (!sl) {
                pthread_mutex_unlock(&srv->lock);
                refuse_busy(fd, srv->max_clients);
                return;
        }
        *sl = (struct slot) { .srv = srv, .used = true, .fd = fd };
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

        for (;;) {
                struct pollfd pfd[2] = {
                        { .fd = srv->lfd, .events = POLLIN },
                        { .fd = srv->stop_pipe[0], .events = POLLIN },
                };
                struct probe_addr from = { .len = sizeof(from.ss) };
                int fd;

                if (poll(pfd, 2, -1) < 0 && errno != EINTR)
                        break;
                if (pfd[1].revents)
                        break;
                if (!pfd[0].revents)
                        continue;
                fd = accept4(srv->lfd, (struct sockaddr *)&from.ss, &from.len, SOCK_CLOEXEC);
                if (fd >= 0)
                        start_session(srv, fd, &from);
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

int probe_server_start_opts(const struct probe_server_options *o, struct probe_server **ret,
                            struct errbuf *e)
{
        struct probe_server *s;
        int r;

        if (o->max_clients > PROBE_SERVER_CLIENTS_MAX)
                return errbuf_set(e, EINVAL, NULL, "max clients %u out of range 1-%u",
                                  o->max_clients, PROBE_SERVER_CLIENTS_MAX);
        s = calloc(1, sizeof(*s));
        if (!s)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        s->lfd = s->stop_pipe[0] = s->stop_pipe[1] = -1;
        pthread_mutex_init(&s->lock, NULL);
        snprintf(s->sysfs_root, sizeof(s->sysfs_root), "%s", o->sysfs_root ? o->sysfs_root : "/sys");
        s->max_clients = o->max_clients ? o->max_clients : PROBE_SERVER_CLIENTS_DEFAULT;
        s->on_session = o->on_session;
        s->userdata = o->userdata;
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
