/* SPDX-License-Identifier: MIT */
/*
 * The verbs probe (ib_write_bw class): RC QPs, RDMA WRITEs of message_size
 * bytes with a bounded number in flight per QP, for duration_ms or a number of
 * iterations per QP. Rate as perftest defines it: bytes completed * 8 / (last
 * completion - first post). QP numbers, PSNs, rkey, address and GIDs travel
 * over the out-of-band TCP control connection (probe_oob.h).
 *
 * Completions are moderated (one signaled WRITE in a quarter of the send queue,
 * and the last: an RC QP completes in order, so a completion stands for every
 * WRITE posted before it on its QP), which keeps three quarters of the queue in
 * flight while the next completion is awaited. The free slots of a send queue
 * are filled with chained lists of at most VERBS_LIST_BYTES: small WRITEs share
 * one ibv_post_send, a list is never a larger burst than one 64 KiB WRITE
 * (Soft-RoCE sends a whole list inside the call, and a burst larger than the
 * receiver's backlog is dropped and retransmitted).
 */
#include <arpa/inet.h>

#include "drivers/probe/probe_net.h"
#include "drivers/probe/probe_server.h"
#include "drivers/probe/probe_verbs.h"

#define VERBS_DEPTH 128u                /* WRITEs in flight per QP (perftest's tx_depth) */
#define VERBS_CQ_MOD 100u               /* at most one completion per this many WRITEs (perftest's cq_mod) */
#define VERBS_POST_LIST 32u             /* WRITEs handed over in one ibv_post_send, at most */
#define VERBS_LIST_BYTES 65536u         /* ... and bytes */
#define WR_QP_SHIFT 48                  /* wr_id: QP index << 48 | the WRITE's number on its QP */
#define VERBS_STALL_MS 10000u           /* no completion for this long: the peer is gone */
#define VERBS_HANDSHAKE_MS 10000u

struct writer {
        uint64_t posted[PROBE_STREAMS_MAX];     /* WRITEs posted on QP i */
        uint64_t done[PROBE_STREAMS_MAX];       /* ... known complete: up to its last completion */
        uint64_t signaled[PROBE_STREAMS_MAX];   /* the number of its last signaled WRITE */
        uint64_t completed;
        uint64_t first_post_ns, last_cqe_ns;
        unsigned cq_mod;                        /* one signaled WRITE in this many */
        unsigned list;                          /* WRITEs in one ibv_post_send */
        bool stop_posting;
};

/* How the WRITEs of v are posted: completions moderated, lists bounded (above). */
static void writer_init(struct writer *w, const struct probe_verbs *v)
{
        size_t list = v->size ? VERBS_LIST_BYTES / v->size : VERBS_POST_LIST;

        w->cq_mod = v->depth / 4 < VERBS_CQ_MOD ? v->depth / 4 : VERBS_CQ_MOD;
        if (!w->cq_mod)
                w->cq_mod = 1;
        w->list = list < 1 ? 1 : list > VERBS_POST_LIST ? VERBS_POST_LIST : (unsigned)list;
}

/* WRITE number k (from 1) of QP i asks for a completion: every cq_mod-th, and the last. */
static bool signal_at(const struct probe_params *p, const struct writer *w, uint64_t k, bool last)
{
        return last || k % w->cq_mod == 0 || (!p->duration_ms && k == p->iterations);
}

/* Up to n WRITEs on QP i in one chained list; the last of them signaled when last is set. */
static int post_writes(const struct probe_params *p, struct probe_verbs *v, unsigned i, const struct probe_oob_msg *rm,
                       struct writer *w, unsigned n, bool last, struct errbuf *e)
{
        struct ibv_sge sge = {
                .addr = (uint64_t)(uintptr_t)v->buf, .length = (uint32_t)v->size, .lkey = v->mr->lkey,
        };
        struct ibv_send_wr wr[VERBS_POST_LIST], *bad = NULL;
        int r;

        for (unsigned k = 0; k < n; k++) {
                uint64_t seq = w->posted[i] + k + 1;
                bool sig = signal_at(p, w, seq, last && k + 1 == n);

                wr[k] = (struct ibv_send_wr){
                        .wr_id = (uint64_t)i << WR_QP_SHIFT | seq, .sg_list = &sge, .num_sge = 1,
                        .opcode = IBV_WR_RDMA_WRITE, .send_flags = sig ? IBV_SEND_SIGNALED : 0,
                        .wr.rdma = { .remote_addr = rm->addr, .rkey = rm->rkey },
                        .next = k + 1 < n ? &wr[k + 1] : NULL,
                };
                if (sig)
                        w->signaled[i] = seq;
        }
        r = ibv_post_send(v->qp[i], wr, &bad);
        if (r) {
                /* The WRITEs before the one refused went out. */
                unsigned ok = bad ? (unsigned)(bad - wr) : 0;

                w->posted[i] += ok;
                return errbuf_set(e, r, NULL, "ibv_post_send on qp %u: %s", i, strerror(r));
        }
        if (!w->first_post_ns)
                w->first_post_ns = probe_now_ns();
        w->posted[i] += n;
        return 0;
}

static bool want_more(const struct probe_params *p, const struct writer *w, unsigned i, uint64_t now)
{
        if (w->stop_posting)
                return false;
        if (p->duration_ms)
                return !w->first_post_ns || now - w->first_post_ns < (uint64_t)p->duration_ms * 1000000ull;
        return w->posted[i] < p->iterations;
}

/*
 * Fill every send queue's free slots. When posting stops while a QP's newest WRITEs
 * asked for no completion, one more signaled WRITE closes it (a duration run does not
 * know its last WRITE in advance).
 */
static int fill_queues(const struct probe_params *p, struct probe_verbs *v, const struct probe_oob_msg *rm,
                       struct writer *w, struct errbuf *e)
{
        for (unsigned i = 0; i < v->n_qp; i++) {
                for (;;) {
                        uint64_t room = v->depth - (w->posted[i] - w->done[i]);
                        unsigned n = room < w->list ? (unsigned)room : w->list;
                        int r;

                        if (!n)
                                break;
                        if (!want_more(p, w, i, probe_now_ns())) {
                                r = w->posted[i] > w->signaled[i] ? post_writes(p, v, i, &rm[i], w, 1, true, e) : 0;
                                if (r < 0)
                                        return r;
                                break;
                        }
                        if (!p->duration_ms && w->posted[i] + n > p->iterations)
                                n = (unsigned)(p->iterations - w->posted[i]);
                        r = post_writes(p, v, i, &rm[i], w, n, false, e);
                        if (r < 0)
                                return r;
                }
        }
        return 0;
}

static int reap(struct probe_verbs *v, struct writer *w, struct errbuf *e)
{
        struct ibv_wc wc[16];
        int n = ibv_poll_cq(v->cq, 16, wc);

        if (n < 0)
                return errbuf_set(e, EIO, NULL, "ibv_poll_cq failed on '%s'", v->gid.device);
        for (int k = 0; k < n; k++) {
                if (wc[k].status != IBV_WC_SUCCESS)
                        return errbuf_set(e, EIO, NULL, "RDMA WRITE completion failed on '%s': %s (status %d)",
                                          v->gid.device, ibv_wc_status_str(wc[k].status), wc[k].status);
                unsigned i = (unsigned)(wc[k].wr_id >> WR_QP_SHIFT);
                uint64_t seq = wc[k].wr_id & ((1ull << WR_QP_SHIFT) - 1);

                /* In order on an RC QP: every WRITE up to this one is complete. */
                if (i < v->n_qp && seq > w->done[i] && seq <= w->posted[i]) {
                        w->completed += seq - w->done[i];
                        w->done[i] = seq;
                }
        }
        if (n > 0)
                w->last_cqe_ns = probe_now_ns();
        return n;
}

static bool outstanding(const struct writer *w, unsigned n)
{
        for (unsigned i = 0; i < n; i++)
                if (w->posted[i] != w->done[i])
                        return true;
        return false;
}

static int write_loop(const struct probe_params *p, struct probe_verbs *v, const struct probe_oob_msg *rm,
                      struct writer *w, struct errbuf *e)
{
        uint64_t start = probe_now_ns(), last_progress = start;
        uint64_t bound = (uint64_t)(p->duration_ms ? p->duration_ms : PROBE_VERBS_ITERATION_BOUND_MS) * 1000000ull;

        for (;;) {
                uint64_t now = probe_now_ns();
                int r = fill_queues(p, v, rm, w, e);

                if (r < 0)
                        return r;
                if (now - start > bound)
                        w->stop_posting = true;
                if (!outstanding(w, v->n_qp))
                        break;
                r = reap(v, w, e);
                if (r < 0)
                        return r;
                if (r > 0)
                        last_progress = now;
                else if (now - last_progress > VERBS_STALL_MS * 1000000ull)
                        return errbuf_set(e, ETIMEDOUT, NULL, "no RDMA WRITE completed for %u ms on '%s'",
                                          VERBS_STALL_MS, v->gid.device);
        }
        if (!p->duration_ms && w->stop_posting)
                return errbuf_set(e, ETIMEDOUT, NULL, "%u iterations did not finish within %u ms",
                                  p->iterations, PROBE_VERBS_ITERATION_BOUND_MS);
        return 0;
}

/* Exchange QP descriptions: ours out, theirs in, in index order. */
static int send_qps(int fd, const struct probe_verbs *v, unsigned timeout_ms, struct errbuf *e)
{
        for (unsigned i = 0; i < v->n_qp; i++) {
                struct probe_oob_msg m;
                int r;

                probe_verbs_describe(v, i, &m);
                r = probe_oob_send(fd, &m, timeout_ms, e);
                if (r < 0)
                        return r;
        }
        return 0;
}

/* The peer's QPs, each naming the GID of the control connection's peer address. */
static int recv_qps(int fd, const struct probe_addr *peer, unsigned n, uint32_t size, struct probe_oob_msg *rm,
                    unsigned timeout_ms, struct errbuf *e)
{
        for (unsigned i = 0; i < n; i++) {
                int r = probe_oob_expect(fd, PROBE_OOB_QP, &rm[i], timeout_ms, e);

                if (r >= 0)
                        r = probe_oob_check_gid(&rm[i], (const struct sockaddr *)&peer->ss, e);
                if (r < 0)
                        return r;
                if (rm[i].index != i)
                        return errbuf_set(e, EBADMSG, "probe control connection", "qp %u arrived as number %u",
                                          i, rm[i].index);
                if (rm[i].message_size < size)
                        return errbuf_set(e, EBADMSG, "probe control connection",
                                          "peer buffer of %u bytes is smaller than the %u-byte message",
                                          rm[i].message_size, size);
        }
        return 0;
}

static int connect_qps(struct probe_verbs *v, const struct probe_oob_msg *rm, int tc, int sl, struct errbuf *e)
{
        for (unsigned i = 0; i < v->n_qp; i++) {
                int r = probe_verbs_connect(v, i, &rm[i], tc, sl, e);

                if (r < 0)
                        return r;
        }
        return 0;
}

static void fill_result(const struct probe_params *p, const struct probe_verbs *v, const struct writer *w,
                        const struct probe_addr *local, struct probe_result *ret)
{
        struct probe_result r = { .mode = "verbs" };

        int tc, sl;

        if (!inet_ntop(AF_INET6, v->gid.gid, r.gid, sizeof(r.gid)))
                r.gid[0] = '\0';
        probe_net_host(local, r.source, sizeof(r.source));
        r.dscp = r.priority = -1;
        if (probe_verbs_class(v, 0, &tc, &sl) == 0) {
                r.dscp = tc >> 2;
                r.priority = sl;
        }

        r.bytes = w->completed * p->message_size;
        r.seconds = w->last_cqe_ns > w->first_post_ns ? (double)(w->last_cqe_ns - w->first_post_ns) / 1e9 : 0.0;
        r.gbps = r.seconds > 0 ? (double)r.bytes * 8.0 / r.seconds / 1e9 : 0.0;
        r.iterations = (unsigned)(w->completed / v->n_qp);
        r.streams = v->n_qp;
        snprintf(r.device, sizeof(r.device), "%s", v->gid.device);
        r.gid_index = (int)v->gid.index;
        *ret = r;
}

static int client_exchange(const struct probe_params *p, int ctrl, const struct probe_addr *peer,
                           const struct probe_addr *local, struct probe_verbs *v, uint64_t t0,
                           struct probe_result *ret, struct errbuf *e)
{
        struct probe_oob_msg hello = {
                .type = PROBE_OOB_HELLO, .mode = PROBE_MODE_VERBS, .message_size = p->message_size,
                .streams = p->streams, .duration_ms = p->duration_ms, .iterations = p->iterations,
                .traffic_class = p->traffic_class, .priority = p->priority,
        };
        struct probe_oob_msg ready, res, done = { .type = PROBE_OOB_DONE, .mode = PROBE_MODE_VERBS };
        struct probe_oob_msg rm[PROBE_STREAMS_MAX];
        struct writer w = { 0 };
        int r;

        writer_init(&w, v);
        /* The responder's first answer within timeout_ms of the connect's start, all told. */
        r = probe_oob_send(ctrl, &hello, probe_left_ms(t0, p->timeout_ms), e);
        if (r >= 0)
                r = send_qps(ctrl, v, probe_left_ms(t0, p->timeout_ms), e);
        if (r >= 0)
                r = probe_oob_expect(ctrl, PROBE_OOB_READY, &ready, probe_left_ms(t0, p->timeout_ms), e);
        if (r < 0)
                probe_mark_unanswered(e);
        if (r >= 0)
                r = recv_qps(ctrl, peer, v->n_qp, p->message_size, rm, p->timeout_ms, e);
        if (r >= 0)
                r = connect_qps(v, rm, p->traffic_class, p->priority, e);
        if (r >= 0)
                r = write_loop(p, v, rm, &w, e);
        if (r < 0)
                return r;
        fill_result(p, v, &w, local, ret);
        done.bytes = ret->bytes;
        done.elapsed_ns = w.last_cqe_ns - w.first_post_ns;
        r = probe_oob_send(ctrl, &done, p->timeout_ms, e);
        if (r >= 0)
                r = probe_oob_expect(ctrl, PROBE_OOB_RESULT, &res, p->timeout_ms, e);
        return r;
}

static int verbs_run(const struct probe_params *p, struct probe_result *ret, struct errbuf *e)
{
        struct probe_verbs v = { .n_qp = 0 };
        struct probe_result res;
        struct probe_addr peer, local;
        _cleanup_close_ int ctrl = -1;
        uint64_t t0 = probe_now_ns();
        int r;

        r = lazylib_open(&verbs_lib, e);        /* a clear error when libibverbs is missing */
        if (r < 0)
                return r;
        if (!probe_verbs_any_device())
                return errbuf_set(e, ENODEV, NULL, "no RDMA device on this host; use the tcp probe");
        ctrl = probe_connect_control(p, &peer, e);
        if (ctrl < 0)
                return ctrl;
        r = probe_net_local(ctrl, &local);
        if (r < 0)
                return errbuf_set(e, -r, NULL, "getsockname: %s", strerror(-r));
        r = probe_verbs_open(&(struct probe_verbs_want) {
                .sysfs_root = p->sysfs_root, .device = p->device, .gid_index = p->gid_index,
                .local = (struct sockaddr *)&local.ss, .n_qp = p->streams, .size = p->message_size,
                .depth = VERBS_DEPTH }, &v, e);
        if (r < 0) {
                probe_oob_send_error(ctrl, r, e);
                return r;
        }
        r = client_exchange(p, ctrl, &peer, &local, &v, t0, &res, e);
        probe_verbs_close(&v);
        if (r < 0)
                return r;
        res.rtt_ms = probe_net_rtt_ms(ctrl);    /* the control connection crossed the same path */
        *ret = res;
        return 0;
}

/*
 * The responder: the client's QPs first (each GID bound to the control
 * connection's address), only then the device, the registered buffer and our QPs.
 */
int probe_verbs_serve(const struct probe_session *s, struct errbuf *e)
{
        const struct probe_oob_msg *h = s->hello;
        struct probe_oob_msg rm[PROBE_STREAMS_MAX], done;
        struct probe_oob_msg ready = { .type = PROBE_OOB_READY, .mode = PROBE_MODE_VERBS, .streams = h->streams };
        struct probe_oob_msg res = { .type = PROBE_OOB_RESULT, .mode = PROBE_MODE_VERBS };
        struct probe_verbs v = { .n_qp = 0 };
        struct probe_addr local;
        int r;

        r = probe_net_local(s->fd, &local);
        if (r < 0)
                return errbuf_set(e, -r, NULL, "getsockname: %s", strerror(-r));
        r = recv_qps(s->fd, s->peer, h->streams, 1, rm, VERBS_HANDSHAKE_MS, e);
        if (r >= 0)
                r = probe_verbs_open(&(struct probe_verbs_want) {
                        .sysfs_root = s->sysfs_root, .device = "", .gid_index = -1,
                        .local = (struct sockaddr *)&local.ss, .n_qp = h->streams, .size = h->message_size,
                        .depth = 1 }, &v, e);
        if (r >= 0)
                r = connect_qps(&v, rm, h->traffic_class, h->priority, e);
        if (r >= 0)
                r = probe_oob_send(s->fd, &ready, VERBS_HANDSHAKE_MS, e);
        if (r >= 0)
                r = send_qps(s->fd, &v, VERBS_HANDSHAKE_MS, e);
        if (r >= 0)
                r = probe_oob_expect(s->fd, PROBE_OOB_DONE, &done, probe_session_left_ms(s), e);
        if (r >= 0) {
                res.bytes = done.bytes;
                res.elapsed_ns = done.elapsed_ns;
                r = probe_oob_send(s->fd, &res, VERBS_HANDSHAKE_MS, e);
        }
        probe_verbs_close(&v);
        return r;
}

static bool verbs_available(const struct probe_params *p)
{
        return probe_verbs_any_device();
}

const struct probe_ops probe_verbs_ops = {
        .name = "verbs",
        .available = verbs_available,
        .run = verbs_run,
};
