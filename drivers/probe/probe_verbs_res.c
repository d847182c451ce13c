/* SPDX-License-Identifier: MIT */
#include <fcntl.h>
#include <sys/random.h>

#include "common/pages.h"
#include "drivers/probe/probe_verbs.h"

bool probe_verbs_any_device(void)
{
        struct ibv_device **list;
        struct errbuf e;
        int n = 0;

        if (lazylib_open(&verbs_lib, &e) < 0)
                return false;
        list = ibv_get_device_list(&n);
        if (!list)
                return false;
        ibv_free_device_list(list);
        return n > 0;
}

static unsigned mtu_bytes(enum ibv_mtu m)
{
        return m >= IBV_MTU_256 && m <= IBV_MTU_4096 ? 128u << m : 0;
}

static enum ibv_mtu mtu_enum(unsigned bytes)
{
        enum ibv_mtu m = IBV_MTU_256;

        while (m < IBV_MTU_4096 && (128u << (m + 1)) <= bytes)
                m++;
        return m;
}

static uint32_t random_psn(void)
{
        uint32_t v = 0;

        if (getrandom(&v, sizeof(v), GRND_NONBLOCK) != sizeof(v))
                v = (uint32_t)getpid() * 2654435761u;
        return v & 0xffffff;
}

/* Device, port and GID index: given, or from sysfs for the local address. */
static int choose_gid(const struct probe_verbs_want *w, struct probe_gid *ret, struct errbuf *e)
{
        struct probe_gid g = { .port = 1 };
        int r;

        if (w->gid_index >= 0 && w->device && w->device[0]) {
                snprintf(g.device, sizeof(g.device), "%s", w->device);
                g.index = (unsigned)w->gid_index;
                *ret = g;
                return 0;
        }
        r = probe_gid_find(w->sysfs_root, w->device, w->local, &g, e);
        if (r < 0)
                return r;
        if (w->gid_index >= 0)
                g.index = (unsigned)w->gid_index;
        *ret = g;
        return 0;
}

static int open_device(const char *name, struct ibv_context **ret, struct errbuf *e)
{
        struct ibv_device **list;
        int n = 0;

        errno = 0;
        list = ibv_get_device_list(&n);
        if (!list || n == 0) {
                int err = errno;

                if (list)
                        ibv_free_device_list(list);
                return errbuf_set(e, ENODEV, NULL, "no RDMA device on this host%s%s",
                                  err ? ": " : "", err ? strerror(err) : "");
        }
        for (int i = 0; i < n; i++)
                if (streq(ibv_get_device_name(list[i]), name))
                        *ret = ibv_open_device(list[i]);
        ibv_free_device_list(list);
        if (!*ret)
                return errbuf_set(e, ENODEV, NULL, "cannot open RDMA device '%s'", name);
        return 0;
}

static int create_qp(struct probe_verbs *v, unsigned i, struct errbuf *e)
{
        struct ibv_qp_init_attr ia = {
                .send_cq = v->cq, .recv_cq = v->cq, .qp_type = IBV_QPT_RC,
                .cap = { .max_send_wr = v->depth, .max_recv_wr = 1, .max_send_sge = 1, .max_recv_sge = 1 },
        };
        struct ibv_qp_attr a = {
                .qp_state = IBV_QPS_INIT, .pkey_index = 0, .port_num = (uint8_t)v->gid.port,
                .qp_access_flags = IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_LOCAL_WRITE,
        };
        int r;

        v->qp[i] = ibv_create_qp(v->pd, &ia);
        if (!v->qp[i])
                return errbuf_set(e, errno ? errno : EIO, NULL, "ibv_create_qp on '%s': %s",
                                  v->gid.device, strerror(errno ? errno : EIO));
        r = ibv_modify_qp(v->qp[i], &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
        if (r)
                return errbuf_set(e, r, NULL, "qp to INIT on '%s': %s", v->gid.device, strerror(r));
        v->psn[i] = random_psn();
        return 0;
}

static int open_rest(const struct probe_verbs_want *w, struct probe_verbs *v, struct errbuf *e)
{
        struct ibv_port_attr pa;
        int r;

        r = ibv_query_port(v->ctx, (uint8_t)v->gid.port, &pa);
        if (r)
                return errbuf_set(e, r, NULL, "RDMA device '%s' port %u: %s", v->gid.device, v->gid.port, strerror(r));
        if (pa.state != IBV_PORT_ACTIVE)
                return errbuf_set(e, ENETDOWN, NULL, "RDMA device '%s' port %u is not active",
                                  v->gid.device, v->gid.port);
        v->active_mtu = pa.active_mtu;
        v->pd = ibv_alloc_pd(v->ctx);
        v->cq = v->pd ? ibv_create_cq(v->ctx, (int)(v->depth * v->n_qp + 16), NULL, NULL, 0) : NULL;
        if (!v->cq)
                return errbuf_set(e, ENOMEM, NULL, "cannot allocate a PD/CQ on '%s'", v->gid.device);
        /* The request's size: a mapping of its own, given back at once when the session ends. */
        v->buf = pages_alloc(v->size);
        if (!v->buf)
                return errbuf_set(e, ENOMEM, NULL, "out of memory for a %zu-byte buffer", v->size);
        memset(v->buf, 0x5a, v->size);
        v->mr = ibv_reg_mr(v->pd, v->buf, v->size, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
        if (!v->mr)
                return errbuf_set(e, errno ? errno : ENOMEM, NULL,
                                  "cannot register %zu bytes on '%s': %s (is 'ulimit -l' too low?)",
                                  v->size, v->gid.device, strerror(errno ? errno : ENOMEM));
        for (unsigned i = 0; i < v->n_qp; i++) {
                r = create_qp(v, i, e);
                if (r < 0)
                        return r;
        }
        return 0;
}

int probe_verbs_open(const struct probe_verbs_want *w, struct probe_verbs *ret, struct errbuf *e)
{
        struct probe_verbs v = { .size = w->size, .depth = w->depth, .n_qp = w->n_qp };
        union ibv_gid g;
        int r;

        r = lazylib_open(&verbs_lib, e);
        if (r >= 0)
                r = choose_gid(w, &v.gid, e);
        if (r >= 0)
                r = open_device(v.gid.device, &v.ctx, e);
        if (r >= 0 && ibv_query_gid(v.ctx, (uint8_t)v.gid.port, (int)v.gid.index, &g) != 0)
                r = errbuf_set(e, EINVAL, NULL, "RDMA device '%s' has no GID index %u",
                               v.gid.device, v.gid.index);
        if (r >= 0) {
                memcpy(v.gid.gid, g.raw, 16);
                r = open_rest(w, &v, e);
        }
        if (r < 0) {
                probe_verbs_close(&v);
                return r;
        }
        *ret = v;
        return 0;
}

void probe_verbs_close(struct probe_verbs *v)
{
        for (unsigned i = 0; i < PROBE_STREAMS_MAX; i++)
                if (v->qp[i]) {
                        ibv_destroy_qp(v->qp[i]);
                        v->qp[i] = NULL;
                }
        if (v->mr)
                ibv_dereg_mr(v->mr);
        pages_free(v->buf, v->size);
        if (v->cq)
                ibv_destroy_cq(v->cq);
        if (v->pd)
                ibv_dealloc_pd(v->pd);
        if (v->ctx)
                ibv_close_device(v->ctx);
        v->mr = NULL;
        v->buf = NULL;
        v->cq = NULL;
        v->pd = NULL;
        v->ctx = NULL;
}

void probe_verbs_describe(const struct probe_verbs *v, unsigned i, struct probe_oob_msg *ret)
{
        struct probe_oob_msg m = { .type = PROBE_OOB_QP, .mode = PROBE_MODE_VERBS };

        m.index = i;
        m.qpn = v->qp[i]->qp_num;
        m.psn = v->psn[i];
        m.rkey = v->mr->rkey;
        m.addr = (uint64_t)(uintptr_t)v->buf;
        m.message_size = (uint32_t)v->size;
        m.streams = v->n_qp;
        m.traffic_class = -1;
        memcpy(m.gid, v->gid.gid, 16);
        m.mtu = mtu_bytes(v->active_mtu);
        *ret = m;
}

static int to_rtr(struct probe_verbs *v, unsigned i, const struct probe_oob_msg *rm, int tc, int sl,
                  struct errbuf *e)
{
        struct ibv_qp_attr a = {
                .qp_state = IBV_QPS_RTR,
                .path_mtu = mtu_enum(rm->mtu < mtu_bytes(v->active_mtu) ? rm->mtu : mtu_bytes(v->active_mtu)),
                .dest_qp_num = rm->qpn, .rq_psn = rm->psn,
                .max_dest_rd_atomic = 1, .min_rnr_timer = 12,
                .ah_attr = {
                        .is_global = 1, .port_num = (uint8_t)v->gid.port, .sl = (uint8_t)(sl < 0 ? 0 : sl),
                        .grh = { .sgid_index = (uint8_t)v->gid.index, .hop_limit = 64,
                                 .traffic_class = (uint8_t)(tc < 0 ? 0 : tc) },
                },
        };
        int r;

        memcpy(a.ah_attr.grh.dgid.raw, rm->gid, 16);
        r = ibv_modify_qp(v->qp[i], &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
                          IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER);
        if (r)
                return errbuf_set(e, r, NULL, "qp %u to RTR on '%s': %s", i, v->gid.device, strerror(r));
        return 0;
}

int probe_verbs_connect(struct probe_verbs *v, unsigned i, const struct probe_oob_msg *remote,
                        int tc, int sl, struct errbuf *e)
{
        struct ibv_qp_attr a = {
                .qp_state = IBV_QPS_RTS, .timeout = 14, .retry_cnt = 7, .rnr_retry = 7,
                .sq_psn = v->psn[i], .max_rd_atomic = 1,
        };
        int r;

        r = to_rtr(v, i, remote, tc, sl, e);
        if (r < 0)
                return r;
        r = ibv_modify_qp(v->qp[i], &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
                          IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC);
        if (r)
                return errbuf_set(e, r, NULL, "qp %u to RTS on '%s': %s", i, v->gid.device, strerror(r));
        return 0;
}

int probe_verbs_class(const struct probe_verbs *v, unsigned i, int *ret_tc, int *ret_sl)
{
        struct ibv_qp_attr a;
        struct ibv_qp_init_attr ia;
        int r;

        if (i >= v->n_qp || !v->qp[i])
                return -EINVAL;
        r = ibv_query_qp(v->qp[i], &a, IBV_QP_AV, &ia);
        if (r)
                return -r;
        *ret_tc = a.ah_attr.grh.traffic_class;
        *ret_sl = a.ah_attr.sl;
        return 0;
}
