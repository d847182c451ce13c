/* SPDX-License-Identifier: MIT */
/*
 * libibverbs, loaded when the first verbs probe or responder asks for a device
 * (common/lazylib.h): one trampoline per function the probe calls, with the
 * library's own prototype. ibv_post_send, ibv_poll_cq and the port query are inline
 * in verbs.h (they call through the device context), not symbols.
 *
 * verbs.h wraps ibv_get_device_list, ibv_query_port and ibv_reg_mr in macros; the
 * trampolines define the functions under their plain names, so the macros go first.
 * dlsym() gives the default version of each symbol, the one a link would bind.
 */
#include <infiniband/verbs.h>

#include "common/lazylib.h"
#include "drivers/probe/probe_verbs.h"

#undef ibv_get_device_list
#undef ibv_query_port
#undef ibv_reg_mr

struct lazylib verbs_lib = LAZYLIB_INIT("libibverbs.so.1", "verbs");

LAZYLIB_FN(verbs_lib, struct ibv_device **, ibv_get_device_list, (int *num_devices), (num_devices))
LAZYLIB_VOID(verbs_lib, ibv_free_device_list, (struct ibv_device **list), (list))
LAZYLIB_FN(verbs_lib, const char *, ibv_get_device_name, (struct ibv_device *device), (device))
LAZYLIB_FN(verbs_lib, struct ibv_context *, ibv_open_device, (struct ibv_device *device), (device))
LAZYLIB_FN(verbs_lib, int, ibv_close_device, (struct ibv_context *context), (context))
LAZYLIB_FN(verbs_lib, int, ibv_query_port,
           (struct ibv_context *context, uint8_t port_num, struct _compat_ibv_port_attr *port_attr),
           (context, port_num, port_attr))
LAZYLIB_FN(verbs_lib, int, ibv_query_gid, (struct ibv_context *context, uint8_t port_num, int index, union ibv_gid *gid),
           (context, port_num, index, gid))
LAZYLIB_FN(verbs_lib, struct ibv_pd *, ibv_alloc_pd, (struct ibv_context *context), (context))
LAZYLIB_FN(verbs_lib, int, ibv_dealloc_pd, (struct ibv_pd *pd), (pd))
LAZYLIB_FN(verbs_lib, struct ibv_mr *, ibv_reg_mr, (struct ibv_pd *pd, void *addr, size_t length, int access),
           (pd, addr, length, access))
LAZYLIB_FN(verbs_lib, struct ibv_mr *, ibv_reg_mr_iova2,
           (struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access),
           (pd, addr, length, iova, access))
LAZYLIB_FN(verbs_lib, int, ibv_dereg_mr, (struct ibv_mr *mr), (mr))
LAZYLIB_FN(verbs_lib, struct ibv_cq *, ibv_create_cq,
           (struct ibv_context *context, int cqe, void *cq_context, struct ibv_comp_channel *channel,
            int comp_vector),
           (context, cqe, cq_context, channel, comp_vector))
LAZYLIB_FN(verbs_lib, int, ibv_destroy_cq, (struct ibv_cq *cq), (cq))
LAZYLIB_FN(verbs_lib, struct ibv_qp *, ibv_create_qp, (struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr),
           (pd, qp_init_attr))
LAZYLIB_FN(verbs_lib, int, ibv_modify_qp, (struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask),
           (qp, attr, attr_mask))
LAZYLIB_FN(verbs_lib, int, ibv_query_qp,
           (struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask, struct ibv_qp_init_attr *init_attr),
           (qp, attr, attr_mask, init_attr))
LAZYLIB_FN(verbs_lib, int, ibv_destroy_qp, (struct ibv_qp *qp), (qp))
LAZYLIB_FN(verbs_lib, const char *, ibv_wc_status_str, (enum ibv_wc_status status), (status))
