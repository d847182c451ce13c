/* SPDX-License-Identifier: MIT */
/*
 * Verbs resources of one probe endpoint (drivers-internal): device, PD, CQ, one
 * registered buffer and N RC QPs, moved INIT -> RTR -> RTS with the peer's
 * values from the out-of-band exchange.
 */
#pragma once

#include <infiniband/verbs.h>
#include <sys/socket.h>

#include "common/lazylib.h"
#include "drivers/probe/probe.h"
#include "drivers/probe/probe_gid.h"
#include "drivers/probe/probe_oob.h"

struct probe_verbs {
        struct ibv_context *ctx;
        struct ibv_pd *pd;
        struct ibv_cq *cq;
        struct ibv_mr *mr;
        void *buf;
        size_t size;
        unsigned depth;                         /* send queue depth per QP */
        unsigned n_qp;
        struct ibv_qp *qp[PROBE_STREAMS_MAX];
        uint32_t psn[PROBE_STREAMS_MAX];
        struct probe_gid gid;                   /* local device, port, GID index */
        enum ibv_mtu active_mtu;
};

struct probe_verbs_want {
        const char *sysfs_root;
        const char *device;                     /* "" = the device whose GID carries `local` */
        int gid_index;                          /* -1 = from sysfs */
        const struct sockaddr *local;           /* the control connection's local address */
        unsigned n_qp;
        size_t size;
        unsigned depth;
};

/* Open everything; QPs end in INIT. On failure everything opened is closed. */
int probe_verbs_open(const struct probe_verbs_want *w, struct probe_verbs *ret, struct errbuf *e);
void probe_verbs_close(struct probe_verbs *v);

/* Our side of QP i for the peer. */
void probe_verbs_describe(const struct probe_verbs *v, unsigned i, struct probe_oob_msg *ret);

/* Move QP i to RTR and RTS towards the peer's QP `remote`; tc = GRH traffic class (-1 = 0),
 * sl = the address handle's service level, the priority (-1 = 0). */
int probe_verbs_connect(struct probe_verbs *v, unsigned i, const struct probe_oob_msg *remote,
                        int tc, int sl, struct errbuf *e);

/* QP i's address handle as the device reports it (ibv_query_qp): GRH traffic class and SL. */
int probe_verbs_class(const struct probe_verbs *v, unsigned i, int *ret_tc, int *ret_sl);

/* Is there any RDMA device (ibv_get_device_list non-empty)? false too when libibverbs cannot be loaded. */
bool probe_verbs_any_device(void);

/* libibverbs, loaded on first use (verbs_lib.c, common/lazylib.h). */
extern struct lazylib verbs_lib;
