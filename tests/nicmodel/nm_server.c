/* SPDX-License-Identifier: MIT */
/*
 * The model as a process: a unix SOCK_SEQPACKET listener where every accepted
 * connection is one NETLINK_ROUTE socket of the client (one datagram in = one
 * sendmsg, each reply datagram = one recvmsg), a second one at PATH.genl for
 * NETLINK_GENERIC sockets (drivers/host/nl.h), a SOCK_STREAM control listener
 * that runs one nm_control() line per connection, and (optionally) the ethtool
 * seam: a SOCK_SEQPACKET listener, one SIOCETHTOOL per connection. One thread, poll();
 * the link timeline advances whenever poll() returns.
 */
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "common/util.h"
#include "tests/nicmodel/nicmodel.h"
#include "tests/nicmodel/nm_server.h"

#define CLIENTS_MAX 64
#define CONTROL_LINE_MAX 256

static int listen_on(const char *path, int type)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int fd;

        if (strlen(path) >= sizeof(sa.sun_path))
                return -ENAMETOOLONG;
        memcpy(sa.sun_path, path, strlen(path) + 1);
        (void)unlink(path);
        fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        if (bind(fd, (const struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 16) < 0) {
                int r = -errno;

                close(fd);
                return r;
        }
        return fd;
}

/* One datagram from a client: the replies go back one datagram each. -errno = drop the client. */
static int client_datagram(struct nm *m, int fd, bool genl, struct nm_out *out)
{
        static unsigned char buf[65536];
        ssize_t n = recv(fd, buf, sizeof(buf), 0);

        if (n <= 0)
                return n == 0 ? -ECONNRESET : -errno;
        if (genl)
                nm_genl_request(m, buf, (size_t)n, out);
        else
                nm_request(m, buf, (size_t)n, out);
        for (unsigned i = 0; i < out->n; i++)
                if (send(fd, out->buf[i], out->len[i], MSG_NOSIGNAL) < 0)
                        return -errno;
        return 0;
}

/* One ethtool seam connection: one request datagram, one reply (drivers/host/ethtool.h). */
static void ethtool_conn(struct nm *m, int lfd)
{
        static unsigned char req[1 << 20], reply[(1 << 20) + 8];
        struct pollfd p;
        size_t len = 0;
        ssize_t n;
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

        if (fd < 0)
                return;
        p = (struct pollfd){ .fd = fd, .events = POLLIN };
        if (poll(&p, 1, 2000) > 0 && (n = recv(fd, req, sizeof(req), 0)) > 0) {
                nm_ethtool(m, req, (size_t)n, reply, sizeof(reply), &len);
                (void)!send(fd, reply, len, MSG_NOSIGNAL);
        }
        close(fd);
}

static void control_conn(struct nm *m, int lfd)
{
        char line[CONTROL_LINE_MAX] = "", *text = NULL;
        size_t len = 0, got = 0;
        struct pollfd p;
        FILE *f;
        int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

        if (fd < 0)
                return;
        p = (struct pollfd){ .fd = fd, .events = POLLIN };
        while (got < sizeof(line) - 1 && !strchr(line, '\n') && poll(&p, 1, 2000) > 0) {
                ssize_t n = read(fd, line + got, sizeof(line) - 1 - got);

                if (n <= 0)
                        break;
                got += (size_t)n;
                line[got] = '\0';
        }
        line[strcspn(line, "\r\n")] = '\0';
        f = open_memstream(&text, &len);
        if (f) {
                nm_control(m, line, f);
                fclose(f);
                for (size_t off = 0; text && off < len;) {
                        ssize_t n = write(fd, text + off, len - off);

                        if (n <= 0)
                                break;
                        off += (size_t)n;
                }
        }
        free(text);
        close(fd);
}

int nm_serve(struct nm *m, const char *sock_path, const char *control_path, const char *ethtool_path,
             volatile sig_atomic_t *stop, FILE *ready)
{
        enum { LISTEN_RTNL, LISTEN_CONTROL, LISTEN_GENL, LISTEN_ETHTOOL, LISTENERS };
        struct pollfd p[LISTENERS + CLIENTS_MAX];
        bool genl[CLIENTS_MAX] = { false };
        struct nm_out *out = malloc(sizeof(*out));
        char genl_path[PATH_MAX];
        unsigned n_clients = 0;
        int lfd, cfd, gfd = -1, efd = -1, r = 0;

        if (!out)
                return -ENOMEM;
        snprintf(genl_path, sizeof(genl_path), "%s.genl", sock_path);
        lfd = listen_on(sock_path, SOCK_SEQPACKET);
        cfd = lfd < 0 ? lfd : listen_on(control_path, SOCK_STREAM);
        gfd = cfd < 0 ? cfd : listen_on(genl_path, SOCK_SEQPACKET);
        if (gfd >= 0 && ethtool_path)
                efd = listen_on(ethtool_path, SOCK_SEQPACKET);
        if (lfd < 0 || cfd < 0 || gfd < 0 || (ethtool_path && efd < 0)) {
                r = lfd < 0 ? lfd : cfd < 0 ? cfd : gfd < 0 ? gfd : efd;
                goto out;
        }
        p[LISTEN_RTNL] = (struct pollfd){ .fd = lfd, .events = POLLIN };
        p[LISTEN_CONTROL] = (struct pollfd){ .fd = cfd, .events = POLLIN };
        p[LISTEN_GENL] = (struct pollfd){ .fd = gfd, .events = POLLIN };
        p[LISTEN_ETHTOOL] = (struct pollfd){ .fd = efd, .events = POLLIN };    /* -1: ignored by poll() */
        if (ready) {
                fprintf(ready, "ready\n");
                fflush(ready);
        }
        while (!*stop) {
                uint64_t next = nm_tick(m), now = nm_now_ms();
                int timeout = next ? (int)(next > now ? next - now : 0) : 1000, k;

                k = poll(p, LISTENERS + n_clients, timeout);
                if (k < 0 && errno != EINTR) {
                        r = -errno;
                        break;
                }
                if (k <= 0)
                        continue;
                for (int j = 0; j < 2; j++) {
                        int l = j ? LISTEN_GENL : LISTEN_RTNL, fd;

                        if (!(p[l].revents & POLLIN) || n_clients >= CLIENTS_MAX)
                                continue;
                        fd = accept4(p[l].fd, NULL, NULL, SOCK_CLOEXEC);
                        if (fd < 0)
                                continue;
                        genl[n_clients] = l == LISTEN_GENL;
                        p[LISTENERS + n_clients++] = (struct pollfd){ .fd = fd, .events = POLLIN };
                }
                if (p[LISTEN_CONTROL].revents & POLLIN)
                        control_conn(m, cfd);
                if (p[LISTEN_ETHTOOL].revents & POLLIN)
                        ethtool_conn(m, efd);
                for (unsigned i = 0; i < n_clients; i++) {
                        struct pollfd *c = &p[LISTENERS + i];

                        if (!c->revents)
                                continue;
                        if ((c->revents & POLLIN) && client_datagram(m, c->fd, genl[i], out) == 0)
                                continue;
                        close(c->fd);
                        n_clients--;
                        p[LISTENERS + i] = p[LISTENERS + n_clients];
                        genl[i] = genl[n_clients];
                        i--;
                }
        }
        for (unsigned i = 0; i < n_clients; i++)
                close(p[LISTENERS + i].fd);
out:
        if (lfd >= 0)
                close(lfd);
        if (cfd >= 0)
                close(cfd);
        if (gfd >= 0)
                close(gfd);
        if (efd >= 0)
                close(efd);
        (void)unlink(sock_path);
        (void)unlink(control_path);
        (void)unlink(genl_path);
        if (ethtool_path)
                (void)unlink(ethtool_path);
        free(out);
        return r;
}

int nm_ctl(const char *control_path, const char *line, FILE *f)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        char buf[4096];
        ssize_t n;
        int fd, failed = 0;

        if (strlen(control_path) >= sizeof(sa.sun_path))
                return -ENAMETOOLONG;
        memcpy(sa.sun_path, control_path, strlen(control_path) + 1);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        if (connect(fd, (const struct sockaddr *)&sa, sizeof(sa)) < 0 ||
            write(fd, line, strlen(line)) != (ssize_t)strlen(line) || write(fd, "\n", 1) != 1) {
                int r = -errno;

                close(fd);
                return r;
        }
        while ((n = read(fd, buf, sizeof(buf))) > 0) {
                fwrite(buf, 1, (size_t)n, f);
                if (n >= 6 && !memcmp(buf, "error:", 6))
                        failed = 1;
        }
        close(fd);
        return failed ? -EIO : 0;
}
