/* SPDX-License-Identifier: MIT */
/* The one netlink helper: transport, sequence numbers, ack/extack, policy parsing. */
#include <ctype.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/utsname.h>
#include <time.h>

#include "drivers/host/nl.h"

#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif
#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NLM_F_CAPPED
#define NLM_F_CAPPED 0x100
#endif
#ifndef NLM_F_ACK_TLVS
#define NLM_F_ACK_TLVS 0x200
#endif

/* A request queued by nl_queue(): its sequence number and how a refusal is named. */
struct nl_pending {
        uint32_t seq;
        char where[96];
        char what[64];
};

struct nl {
        const struct nl_transport *t;
        struct nl_transport seam;       /* NETTUNE_NETLINK_SOCKET: t points here */
        void *ctx;
        uint32_t seq;
        uint32_t portid;
        int protocol;                   /* NETLINK_ROUTE, NETLINK_GENERIC */
        uint64_t writes;                /* requests sent that are not GETs */
        char extack[NL_EXTACK_MAX];
        char *queue;                    /* nl_queue(): requests not sent yet, back to back */
        size_t queue_len, queue_size;
        struct nl_pending *pending;     /* [n_pending], in queue order */
        unsigned n_pending, max_pending;
        bool batching;                  /* the queue holds nl_batch_add() requests, not writes */
        _Alignas(8) char req[NL_MSG_MAX];
        _Alignas(8) char rx[NL_RECV_MAX];
};

/* One request in flight: the caller's callback and what the replies said. */
struct talk {
        struct nl *nl;
        mnl_cb_t cb;
        void *data;
        bool done;
        int err;
};

/* ---- the kernel transport ---- */

static int kernel_open(void *userdata, int protocol, void **ret_ctx)
{
        struct mnl_socket *s;
        int one = 1;

        s = mnl_socket_open2(protocol, SOCK_CLOEXEC);
        if (!s)
                return -errno;
        if (mnl_socket_bind(s, 0, MNL_SOCKET_AUTOPID) < 0) {
                int r = -errno;

                mnl_socket_close(s);
                return r;
        }
        /* Both are best effort: old kernels answer without them. */
        (void)mnl_socket_setsockopt(s, NETLINK_EXT_ACK, &one, sizeof(one));
        (void)mnl_socket_setsockopt(s, NETLINK_CAP_ACK, &one, sizeof(one));
        *ret_ctx = s;
        return 0;
}

static ssize_t kernel_send(void *ctx, const void *buf, size_t len)
{
        ssize_t n = mnl_socket_sendto(ctx, buf, len);

        return n < 0 ? -errno : n;
}

/* 0 when fd is readable, -ETIMEDOUT after timeout_ms, or -errno. */
static int wait_readable(int fd, unsigned timeout_ms)
{
        struct pollfd p = { .fd = fd, .events = POLLIN };
        int r;

        do
                r = poll(&p, 1, (int)timeout_ms);
        while (r < 0 && errno == EINTR);
        if (r < 0)
                return -errno;
        return r == 0 ? -ETIMEDOUT : 0;
}

/*
 * One datagram. The kernel answers a request inside sendmsg(), so the reply is
 * usually queued already: try without waiting first, poll only when it is not.
 */
static ssize_t kernel_recv(void *ctx, void *buf, size_t size, unsigned timeout_ms)
{
        struct sockaddr_nl addr;
        struct iovec iov = { .iov_base = buf, .iov_len = size };
        struct msghdr msg = { .msg_name = &addr, .msg_namelen = sizeof(addr), .msg_iov = &iov, .msg_iovlen = 1 };
        int fd = mnl_socket_get_fd(ctx);
        ssize_t n;

        for (;;) {
                int r;

                msg.msg_namelen = sizeof(addr);
                n = recvmsg(fd, &msg, MSG_DONTWAIT);
                if (n >= 0 || (errno != EAGAIN && errno != EINTR))
                        break;
                r = wait_readable(fd, timeout_ms);
                if (r < 0)
                        return r;
        }
        if (n < 0)
                return -errno;
        if (msg.msg_flags & MSG_TRUNC)
                return -ENOSPC;
        if (msg.msg_namelen != sizeof(addr))
                return -EINVAL;
        return n;
}

static uint32_t kernel_portid(void *ctx)
{
        return mnl_socket_get_portid(ctx);
}

static void kernel_close(void *ctx)
{
        mnl_socket_close(ctx);
}

static const struct nl_transport_ops kernel_ops = {
        .name = "kernel",
        .open = kernel_open,
        .send = kernel_send,
        .recv = kernel_recv,
        .portid = kernel_portid,
        .close = kernel_close,
};

const struct nl_transport nl_kernel_transport = { .ops = &kernel_ops };

/* ---- the test seam: NETTUNE_NETLINK_SOCKET=PATH ---- */

struct seam {
        int fd;
};

int nl_seam_connect(const char *path)
{
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        int fd, r;

        if (strlen(path) >= sizeof(sa.sun_path))
                return -ENAMETOOLONG;
        memcpy(sa.sun_path, path, strlen(path) + 1);
        fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
        if (fd < 0)
                return -errno;
        if (connect(fd, (const struct sockaddr *)&sa, sizeof(sa)) < 0) {
                r = -errno;
                close(fd);
                return r;
        }
        return fd;
}

/* NETLINK_ROUTE at the seam's path, NETLINK_GENERIC at PATH.genl. */
static int seam_open(void *userdata, int protocol, void **ret_ctx)
{
        char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
        struct seam *s;
        int fd;

        if (protocol != NETLINK_ROUTE && protocol != NETLINK_GENERIC)
                return -EPROTONOSUPPORT;
        if ((size_t)snprintf(path, sizeof(path), "%s%s", (const char *)userdata,
                             protocol == NETLINK_GENERIC ? NL_SEAM_GENL_SUFFIX : "") >= sizeof(path))
                return -ENAMETOOLONG;
        fd = nl_seam_connect(path);
        if (fd < 0)
                return fd;
        s = malloc(sizeof(*s));
        if (!s) {
                close(fd);
                return -ENOMEM;
        }
        s->fd = fd;
        *ret_ctx = s;
        return 0;
}

static ssize_t seam_send(void *ctx, const void *buf, size_t len)
{
        struct seam *s = ctx;
        ssize_t n = send(s->fd, buf, len, MSG_NOSIGNAL);

        return n < 0 ? -errno : n;
}

static ssize_t seam_recv(void *ctx, void *buf, size_t size, unsigned timeout_ms)
{
        struct seam *s = ctx;
        ssize_t n;
        int r = wait_readable(s->fd, timeout_ms);

        if (r < 0)
                return r;
        n = recv(s->fd, buf, size, 0);
        if (n == 0)
                return -ECONNRESET;     /* the peer closed the connection */
        return n < 0 ? -errno : n;
}

static void seam_close(void *ctx)
{
        struct seam *s = ctx;

        close(s->fd);
        free(s);
}

/* No port id: replies over the seam are not addressed to one (nlmsg_pid 0). */
static const struct nl_transport_ops seam_ops = {
        .name = "socket",
        .open = seam_open,
        .send = seam_send,
        .recv = seam_recv,
        .close = seam_close,
};

const char *nl_seam_path(void)
{
        const char *p = getenv(NL_SEAM_ENV);

        return p && *p ? p : NULL;
}

/* ---- handle ---- */

bool nl_is_kernel(const struct nl *nl)
{
        return nl && nl->t == &nl_kernel_transport;
}

bool nl_kernel_older(const struct nl *nl, unsigned major, unsigned minor)
{
        struct utsname u;
        unsigned a, b;

        if (!nl_is_kernel(nl) || uname(&u) != 0 || sscanf(u.release, "%u.%u", &a, &b) != 2)
                return false;
        return a < major || (a == major && b < minor);
}

int nl_open(const struct nl_transport *t, int protocol, struct nl **ret, struct errbuf *e)
{
        struct nl *nl;
        int r;

        nl = calloc(1, sizeof(*nl));
        if (!nl)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        if (!t && (protocol == NETLINK_ROUTE || protocol == NETLINK_GENERIC) && nl_seam_path()) {
                nl->seam = (struct nl_transport){ .ops = &seam_ops, .userdata = (void *)nl_seam_path() };
                t = &nl->seam;
        }
        if (!t)
                t = &nl_kernel_transport;
        r = t->ops->open(t->userdata, protocol, &nl->ctx);
        if (r < 0) {
                if (t == &nl->seam)
                        errbuf_set(e, -r, NULL, "cannot connect to the netlink socket %s='%s'%s: %s",
                                   NL_SEAM_ENV, (const char *)t->userdata,
                                   protocol == NETLINK_GENERIC ? " (" NL_SEAM_GENL_SUFFIX ")" : "", strerror(-r));
                else
                        errbuf_set(e, -r, NULL, "cannot open a netlink socket: %s", strerror(-r));
                free(nl);
                return r;
        }
        nl->t = t;
        nl->protocol = protocol;
        nl->seq = (uint32_t)time(NULL);
        nl->portid = t->ops->portid ? t->ops->portid(nl->ctx) : 0;
        *ret = nl;
        return 0;
}

void nl_close(struct nl *nl)
{
        if (!nl)
                return;
        if (nl->t->ops->close)
                nl->t->ops->close(nl->ctx);
        free(nl->queue);
        free(nl->pending);
        free(nl);
}

uint64_t nl_writes(const struct nl *nl)
{
        return nl->writes;
}

struct nlmsghdr *nl_msg_new(struct nl *nl, uint16_t type, uint16_t flags)
{
        struct nlmsghdr *nlh;
        size_t used;

        /* libmnl 1.0.4 leaves attribute padding as it was: start from zeros. Beyond the
         * previous request's length (every builder keeps nlmsg_len) the buffer still is. */
        used = ((const struct nlmsghdr *)nl->req)->nlmsg_len;
        memset(nl->req, 0, used < sizeof(nl->req) ? used : sizeof(nl->req));
        nlh = mnl_nlmsg_put_header(nl->req);
        nlh->nlmsg_type = type;
        nlh->nlmsg_flags = NLM_F_REQUEST | flags;
        nlh->nlmsg_seq = ++nl->seq;
        return nlh;
}

int nl_put(struct nlmsghdr *nlh, uint16_t type, size_t len, const void *data)
{
        return mnl_attr_put_check(nlh, NL_MSG_MAX, type, len, data) ? 0 : -EMSGSIZE;
}

int nl_put_u8(struct nlmsghdr *nlh, uint16_t type, uint8_t v)
{
        return mnl_attr_put_u8_check(nlh, NL_MSG_MAX, type, v) ? 0 : -EMSGSIZE;
}

int nl_put_u32(struct nlmsghdr *nlh, uint16_t type, uint32_t v)
{
        return mnl_attr_put_u32_check(nlh, NL_MSG_MAX, type, v) ? 0 : -EMSGSIZE;
}

int nl_put_strz(struct nlmsghdr *nlh, uint16_t type, const char *s)
{
        return mnl_attr_put_strz_check(nlh, NL_MSG_MAX, type, s) ? 0 : -EMSGSIZE;
}

struct nlattr *nl_nest_start(struct nlmsghdr *nlh, uint16_t type)
{
        return mnl_attr_nest_start_check(nlh, NL_MSG_MAX, type);
}

void nl_nest_end(struct nlmsghdr *nlh, struct nlattr *nest)
{
        mnl_attr_nest_end(nlh, nest);
}

const char *nl_last_extack(const struct nl *nl)
{
        return nl->extack;
}

/* ---- replies ---- */

/* The NLMSGERR_ATTR_MSG text after an error, bounded by the message. */
static void read_extack(struct nl *nl, const struct nlmsghdr *nlh, const struct nlmsgerr *err)
{
        size_t payload = mnl_nlmsg_get_payload_len(nlh);
        size_t off = sizeof(*err);
        const struct nlattr *a;

        nl->extack[0] = '\0';
        if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
                return;
        if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
                if (err->msg.nlmsg_len < sizeof(struct nlmsghdr) ||
                    err->msg.nlmsg_len > payload)
                        return;
                off += err->msg.nlmsg_len - sizeof(struct nlmsghdr);
        }
        if (off > payload)
                return;
        mnl_attr_for_each(a, nlh, off) {
                if (mnl_attr_get_type(a) != NLMSGERR_ATTR_MSG ||
                    mnl_attr_validate(a, MNL_TYPE_NUL_STRING) < 0)
                        continue;
                snprintf(nl->extack, sizeof(nl->extack), "%s", mnl_attr_get_str(a));
        }
}

static int cb_error(const struct nlmsghdr *nlh, void *data)
{
        struct talk *tk = data;
        const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);

        if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*err)) {
                tk->err = -EBADMSG;
                return MNL_CB_ERROR;
        }
        tk->done = true;
        if (err->error > 0 || err->error < -4095)
                tk->err = -EPROTO;
        else
                tk->err = err->error;
        if (tk->err)
                read_extack(tk->nl, nlh, err);
        return MNL_CB_STOP;
}

static int cb_done(const struct nlmsghdr *nlh, void *data)
{
        struct talk *tk = data;

        tk->done = true;
        if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(int)) {
                int v;

                memcpy(&v, mnl_nlmsg_get_payload(nlh), sizeof(v));
                if (v < 0 && v >= -4095)
                        tk->err = v;
        }
        return MNL_CB_STOP;
}

static int cb_overrun(const struct nlmsghdr *nlh, void *data)
{
        struct talk *tk = data;

        tk->err = -ENOBUFS;
        return MNL_CB_ERROR;
}

static int cb_data(const struct nlmsghdr *nlh, void *data)
{
        struct talk *tk = data;
        int r;

        if (!tk->cb)
                return MNL_CB_OK;
        errno = 0;
        r = tk->cb(nlh, tk->data);
        if (r == MNL_CB_ERROR) {
                tk->err = errno > 0 ? -errno : -EBADMSG;
                return MNL_CB_ERROR;
        }
        if (r == MNL_CB_STOP && !(nlh->nlmsg_flags & NLM_F_MULTI))
                return MNL_CB_OK;       /* keep going until the ACK */
        return r;
}

static mnl_cb_t ctl_cbs[NLMSG_MIN_TYPE] = {
        [NLMSG_ERROR] = cb_error,
        [NLMSG_DONE] = cb_done,
        [NLMSG_OVERRUN] = cb_overrun,
};

/*
 * Every message length within the datagram. libmnl's mnl_nlmsg_ok() compares
 * (int)nlmsg_len, so a length of 2^31 or more would walk off the buffer.
 */
static bool lengths_ok(const unsigned char *buf, size_t len)
{
        size_t off = 0;

        while (len - off >= sizeof(struct nlmsghdr)) {
                const struct nlmsghdr *nlh = (const void *)(buf + off);

                if (nlh->nlmsg_len < sizeof(*nlh) || nlh->nlmsg_len > len - off)
                        return false;
                off += NLMSG_ALIGN(nlh->nlmsg_len);
                if (off >= len)
                        break;
        }
        return true;
}

static int run_replies(struct talk *tk, const void *buf, size_t len, uint32_t seq)
{
        int r;

        if (len > INT32_MAX || !lengths_ok(buf, len))
                return -EBADMSG;
        errno = 0;
        r = mnl_cb_run2(buf, len, seq, tk->nl->portid, cb_data, tk, ctl_cbs, ARRAY_SIZE(ctl_cbs));
        if (tk->err)
                return tk->err;
        if (r < 0)
                return errno > 0 ? -errno : -EBADMSG;
        return tk->done ? 0 : 1;
}

int nl_process(struct nl *nl, const void *buf, size_t len, uint32_t seq, mnl_cb_t cb, void *data)
{
        struct talk tk = { .nl = nl, .cb = cb, .data = data };

        return run_replies(&tk, buf, len, seq);
}

const char *nl_strerror(int err, char *buf, size_t size)
{
        snprintf(buf, size, "%s", strerror(err));
        if (buf[0] && !(buf[0] == 'I' && buf[1] == '/'))
                buf[0] = (char)tolower((unsigned char)buf[0]);
        return buf;
}

static int talk_fail(struct nl *nl, int r, const char *what, struct errbuf *e)
{
        char t[128];

        if (nl->extack[0])
                return errbuf_set(e, -r, NULL, "%s: %s (kernel: %s)", what, nl_strerror(-r, t, sizeof(t)),
                                  nl->extack);
        if (r == -ETIMEDOUT)
                return errbuf_set(e, ETIMEDOUT, NULL, "%s: no reply from netlink within %d ms",
                                  what, NL_TIMEOUT_MS);
        return errbuf_set(e, -r, NULL, "%s: %s", what, nl_strerror(-r, t, sizeof(t)));
}

/*
 * A dump is a GET (rtnetlink: type % 4 == 2) with both bits of NLM_F_DUMP. On a NEW,
 * the same bits mean NLM_F_REPLACE (0x100) and NLM_F_EXCL (0x200): an ACK is wanted.
 */
/* A dump request: NLM_F_DUMP, and for rtnetlink a GET (generic netlink says it in the command). */
static bool is_dump(const struct nl *nl, const struct nlmsghdr *nlh)
{
        return (nlh->nlmsg_flags & NLM_F_DUMP) == NLM_F_DUMP &&
               (nl->protocol != NETLINK_ROUTE || (nlh->nlmsg_type & 3) == 2);
}

/* rtnetlink's convention: GET requests have a type of 2 modulo 4 (RTM_GETLINK, RTM_GETDCB, RTM_GETQDISC). */
static void count_write(struct nl *nl, const struct nlmsghdr *nlh)
{
        if ((nlh->nlmsg_type & 3) != 2)
                nl->writes++;
}

int nl_talk(struct nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data,
            const char *what, struct errbuf *e)
{
        struct talk tk = { .nl = nl, .cb = cb, .data = data };
        uint32_t seq = nlh->nlmsg_seq;
        ssize_t n;
        int r;

        if (nl->n_pending && !nl->batching) {
                r = nl_flush(nl, e);
                if (r < 0)
                        return r;
        }
        nl->extack[0] = '\0';
        if (!is_dump(nl, nlh))
                nlh->nlmsg_flags |= NLM_F_ACK;
        count_write(nl, nlh);
        n = nl->t->ops->send(nl->ctx, nlh, nlh->nlmsg_len);
        if (n < 0)
                return talk_fail(nl, (int)n, what, e);
        do {
                n = nl->t->ops->recv(nl->ctx, nl->rx, sizeof(nl->rx), NL_TIMEOUT_MS);
                if (n < 0)
                        return talk_fail(nl, (int)n, what, e);
                r = run_replies(&tk, nl->rx, (size_t)n, seq);
        } while (r > 0);
        return r < 0 ? talk_fail(nl, r, what, e) : 0;
}

/* ---- queued requests: sent back to back, their ACKs collected in one loop ---- */

int nl_queue(struct nl *nl, struct nlmsghdr *nlh, const char *where, const char *what, struct errbuf *e)
{
        size_t len = NLMSG_ALIGN(nlh->nlmsg_len);
        struct nl_pending *p;

        if (nl->n_pending >= NL_QUEUE_MAX && !nl->batching) {
                int r = nl_flush(nl, e);

                if (r < 0)
                        return r;
        }
        if (nl->queue_len + len > nl->queue_size) {
                size_t size = nl->queue_size ? nl->queue_size * 2 : NL_MSG_MAX;
                char *q;

                while (size < nl->queue_len + len)
                        size *= 2;
                q = realloc(nl->queue, size);
                if (!q)
                        return errbuf_set(e, ENOMEM, where, "%s: out of memory", what);
                nl->queue = q;
                nl->queue_size = size;
        }
        if (nl->n_pending >= nl->max_pending) {
                unsigned max = nl->max_pending ? nl->max_pending * 2 : 16;

                p = realloc(nl->pending, max * sizeof(*p));
                if (!p)
                        return errbuf_set(e, ENOMEM, where, "%s: out of memory", what);
                nl->pending = p;
                nl->max_pending = max;
        }
        nlh->nlmsg_flags |= NLM_F_ACK;
        memset(nl->queue + nl->queue_len, 0, len);
        memcpy(nl->queue + nl->queue_len, nlh, nlh->nlmsg_len);
        nl->queue_len += len;
        p = &nl->pending[nl->n_pending++];
        p->seq = nlh->nlmsg_seq;
        strcopy(p->where, sizeof(p->where), where ? where : "");
        strcopy(p->what, sizeof(p->what), what);
        return 0;
}

/*
 * The answers of one datagram: done[i] for each pending request answered (the last
 * one's ACK, the others' refusals), the first refusal in *first.
 */
static int collect_acks(struct nl *nl, const void *buf, size_t len, unsigned from, unsigned n, bool *done,
                        int *first, unsigned *first_at)
{
        const struct nlmsghdr *nlh = buf;
        int rem = (int)len;

        if (len > INT32_MAX || !lengths_ok(buf, len))
                return -EBADMSG;
        for (; mnl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem)) {
                const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
                uint32_t k = nlh->nlmsg_seq - nl->pending[from].seq;

                if (nl->portid && nlh->nlmsg_pid && nlh->nlmsg_pid != nl->portid)
                        return -ESRCH;
                if (nlh->nlmsg_type != NLMSG_ERROR || k >= n || done[k])
                        return -EPROTO;         /* only ACKs and refusals were asked for, each once */
                if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*err))
                        return -EBADMSG;
                if (!err->error && k != n - 1)
                        return -EPROTO;         /* an ACK nobody asked for */
                done[k] = true;
                if (err->error && (*first == 0 || from + k < *first_at)) {
                        *first = err->error > 0 || err->error < -4095 ? -EPROTO : err->error;
                        *first_at = from + k;
                        read_extack(nl, nlh, err);
                }
        }
        return 0;
}

/*
 * Send pending[from, from + n) in one datagram, only the last asking for an ACK, and
 * wait for its answer. The kernel takes the requests of a datagram in order, goes on
 * past a refusal and answers every refusal at once, ACK asked or not
 * (netlink_rcv_skb()): once the last request is answered, every refusal before it
 * has come, and the silent others were done. One answer for a window, not n.
 */
static int flush_window(struct nl *nl, char *buf, size_t len, unsigned from, unsigned n, int *first,
                        unsigned *first_at)
{
        struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
        bool done[NL_WINDOW];
        ssize_t k;
        int rem = (int)len;

        for (unsigned i = 0; i < n && mnl_nlmsg_ok(nlh, rem); i++, nlh = mnl_nlmsg_next(nlh, &rem))
                nlh->nlmsg_flags = (uint16_t)(i == n - 1 ? nlh->nlmsg_flags | NLM_F_ACK : nlh->nlmsg_flags & ~NLM_F_ACK);
        memset(done, 0, sizeof(done));
        k = nl->t->ops->send(nl->ctx, buf, len);
        if (k < 0)
                return (int)k;
        nl->writes += n;
        while (!done[n - 1]) {
                int r;

                k = nl->t->ops->recv(nl->ctx, nl->rx, sizeof(nl->rx), NL_TIMEOUT_MS);
                if (k < 0)
                        return (int)k;
                r = collect_acks(nl, nl->rx, (size_t)k, from, n, done, first, first_at);
                if (r < 0)
                        return r;
        }
        return 0;
}

int nl_flush(struct nl *nl, struct errbuf *e)
{
        unsigned n = nl->n_pending, at = 0, first_at = 0;
        size_t off = 0;
        int first = 0, r = 0;

        nl->n_pending = 0;
        nl->queue_len = 0;
        nl->extack[0] = '\0';
        /* Windows of NL_WINDOW requests: their ACKs fit in the socket's receive buffer. */
        while (at < n && r >= 0 && !first) {
                unsigned w = n - at < NL_WINDOW ? n - at : NL_WINDOW;
                size_t len = 0;

                for (unsigned i = 0; i < w; i++)
                        len += NLMSG_ALIGN(((const struct nlmsghdr *)(nl->queue + off + len))->nlmsg_len);
                r = flush_window(nl, nl->queue + off, len, at, w, &first, &first_at);
                if (r < 0 && !first)
                        first_at = at;          /* the transport failed: name the window's first request */
                off += len;
                at += w;
        }
        if (!first && r >= 0)
                return 0;
        r = first ? first : r;
        talk_fail(nl, r, nl->pending[first_at].what, e);
        if (e)
                snprintf(e->where, sizeof(e->where), "%s", nl->pending[first_at].where);
        return r;
}

/* ---- batches of independent requests ---- */

int nl_batch_add(struct nl *nl, struct nlmsghdr *nlh, struct errbuf *e)
{
        if (nl->n_pending && !nl->batching) {
                int r = nl_flush(nl, e);        /* queued writes go first */

                if (r < 0)
                        return r;
        }
        nl->batching = true;
        return nl_queue(nl, nlh, NULL, "", e);
}

struct batch {
        struct nl *nl;
        const char *what;
        nl_batch_cb cb;
        void *data;
        int *err;
        char (*msg)[NL_BATCH_MSG];
        unsigned from, n, done_n;
        bool done[NL_WINDOW];
};

/* One reply message of the window; 0 or -errno when the reply is not what was asked for. */
static int batch_reply(struct batch *b, const struct nlmsghdr *nlh)
{
        uint32_t k = nlh->nlmsg_seq - b->nl->pending[b->from].seq;
        const struct nlmsgerr *err;
        char t[128];
        int r;

        if (b->nl->portid && nlh->nlmsg_pid && nlh->nlmsg_pid != b->nl->portid)
                return -ESRCH;
        if (k >= b->n || b->done[k])
                return -EPROTO;
        if (nlh->nlmsg_type != NLMSG_ERROR) {
                if (!b->cb || b->err[b->from + k])
                        return 0;
                r = b->cb(nlh, b->from + k, b->data);
                if (r < 0)
                        b->err[b->from + k] = r;
                if (r < 0 && b->msg)
                        snprintf(b->msg[b->from + k], NL_BATCH_MSG, "%s: %s", b->what, nl_strerror(-r, t, sizeof(t)));
                return 0;
        }
        err = mnl_nlmsg_get_payload(nlh);
        if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*err))
                return -EBADMSG;
        b->done[k] = true;
        b->done_n++;
        if (!err->error || b->err[b->from + k])
                return 0;
        r = err->error > 0 || err->error < -4095 ? -EPROTO : err->error;
        b->err[b->from + k] = r;
        read_extack(b->nl, nlh, err);
        if (b->msg && b->nl->extack[0])
                snprintf(b->msg[b->from + k], NL_BATCH_MSG, "%s: %s (kernel: %.160s)", b->what,
                         nl_strerror(-r, t, sizeof(t)), b->nl->extack);
        else if (b->msg)
                snprintf(b->msg[b->from + k], NL_BATCH_MSG, "%s: %s", b->what, nl_strerror(-r, t, sizeof(t)));
        return 0;
}

int nl_batch_run(struct nl *nl, const char *what, nl_batch_cb cb, void *data, int *ret_err,
                 char (*ret_msg)[NL_BATCH_MSG], struct errbuf *e)
{
        struct batch b = { .nl = nl, .what = what, .cb = cb, .data = data, .err = ret_err, .msg = ret_msg };
        unsigned n = nl->n_pending;
        size_t off = 0;
        int r = 0;

        nl->n_pending = 0;
        nl->queue_len = 0;
        nl->batching = false;
        memset(ret_err, 0, n * sizeof(*ret_err));
        for (unsigned at = 0; at < n && r >= 0; at += b.n) {
                size_t len = 0;
                ssize_t k;

                b.from = at;
                b.n = n - at < NL_WINDOW ? n - at : NL_WINDOW;
                b.done_n = 0;
                memset(b.done, 0, sizeof(b.done));
                for (unsigned i = 0; i < b.n; i++)
                        len += NLMSG_ALIGN(((const struct nlmsghdr *)(nl->queue + off + len))->nlmsg_len);
                k = nl->t->ops->send(nl->ctx, nl->queue + off, len);
                off += len;
                r = k < 0 ? (int)k : 0;
                while (r >= 0 && b.done_n < b.n) {
                        const struct nlmsghdr *nlh;
                        int rem;

                        k = nl->t->ops->recv(nl->ctx, nl->rx, sizeof(nl->rx), NL_TIMEOUT_MS);
                        if (k < 0 || (size_t)k > INT32_MAX || !lengths_ok((const unsigned char *)nl->rx, (size_t)k)) {
                                r = k < 0 ? (int)k : -EBADMSG;
                                break;
                        }
                        nlh = (const struct nlmsghdr *)nl->rx;
                        rem = (int)k;
                        for (; r >= 0 && mnl_nlmsg_ok(nlh, rem); nlh = mnl_nlmsg_next(nlh, &rem))
                                r = batch_reply(&b, nlh);
                }
        }
        nl->extack[0] = '\0';
        return r < 0 ? talk_fail(nl, r, what, e) : 0;
}

/* ---- attribute policy tables ---- */

/*
 * Attributes [a, a + len) into tb[] by policy: mnl_attr_parse()'s walk (it stops at
 * the first attribute that does not fit, silently) without a call per attribute —
 * a link dump carries some forty attributes a link and the policies name a handful;
 * the rest are skipped by their type alone. What a policy names is checked by
 * mnl_attr_validate() as before.
 */
static int parse_attrs(const struct nlattr *a, size_t len, const struct nl_policy *pol, unsigned max,
                       const struct nlattr **tb)
{
        memset(tb, 0, sizeof(*tb) * (max + 1));
        while (len >= sizeof(*a) && a->nla_len >= sizeof(*a) && a->nla_len <= len) {
                uint16_t type = a->nla_type & NLA_TYPE_MASK;
                size_t step = NLA_ALIGN(a->nla_len);

                if (type <= max && pol[type].type) {
                        const struct nl_policy *p = &pol[type];

                        if (mnl_attr_validate(a, (enum mnl_attr_data_type)p->type) < 0 ||
                            (p->type == MNL_TYPE_BINARY && mnl_attr_get_payload_len(a) < p->len)) {
                                errno = EINVAL;
                                return -EINVAL;
                        }
                        tb[type] = a;
                }
                if (step >= len)
                        break;
                len -= step;
                a = (const struct nlattr *)((const char *)a + step);
        }
        return 0;
}

int nl_parse_msg(const struct nlmsghdr *nlh, size_t hdrlen, const struct nl_policy *pol,
                 unsigned max, const struct nlattr **tb)
{
        size_t off = MNL_ALIGN(hdrlen);

        if (mnl_nlmsg_get_payload_len(nlh) < hdrlen) {
                memset(tb, 0, sizeof(*tb) * (max + 1));
                return -EBADMSG;
        }
        if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + off) {
                memset(tb, 0, sizeof(*tb) * (max + 1));
                return 0;
        }
        return parse_attrs((const struct nlattr *)((const char *)mnl_nlmsg_get_payload(nlh) + off),
                           nlh->nlmsg_len - MNL_NLMSG_HDRLEN - off, pol, max, tb);
}

int nl_parse_nested(const struct nlattr *nest, const struct nl_policy *pol,
                    unsigned max, const struct nlattr **tb)
{
        return parse_attrs(mnl_attr_get_payload(nest), mnl_attr_get_payload_len(nest), pol, max, tb);
}
