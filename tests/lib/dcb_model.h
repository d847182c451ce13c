/* SPDX-License-Identifier: MIT */
/*
 * A userspace rtnetlink + dcbnl device model that sits behind the netlink
 * transport (struct nl_transport), so the real driver code talks to it exactly
 * as it talks to the kernel. It answers RTM_GETLINK/RTM_NEWLINK (MTU, carrier)
 * and RTM_GETDCB/RTM_SETDCB like the kernel's dcbnl core in front of an
 * mlx5-like driver:
 *   - IEEE GET reply laid out as dcbnl_ieee_fill() (ETS, MAXRATE, PFC, BUFFER,
 *     APP table, DCBX), pfc_cap 8, ets_cap 8;
 *   - SET/DEL replies carry the driver's errno in-band (u8 in DCB_ATTR_IEEE),
 *     followed by a clean ACK;
 *   - mlx5 APP semantics: DSCP selector only; the first DSCP entry switches the
 *     port to DSCP trust, deleting the last one back to PCP; setting a DSCP that
 *     has an entry replaces it; deleting an entry that does not match -ENOENT;
 *   - a PFC change flaps the link (no carrier for flap_ms);
 *   - DCBX setdcbx like mlx5 (HOST required, 1 = failure);
 *   - devices without DCB answer every dcbnl request with EOPNOTSUPP, unknown
 *     names with ENODEV, MTU out of range with EINVAL and the kernel's extack.
 */
#pragma once

#include <linux/dcbnl.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nl.h"

#define DCB_MODEL_DEVS_MAX 4
#define DCB_MODEL_APPS_MAX 64
#define DCB_MODEL_QUEUE_MAX 16
#define DCB_MODEL_LOG_MAX 64

struct dcb_model_dev {
        char name[16];
        int ifindex;
        uint32_t mtu, min_mtu, max_mtu;
        bool dcb;                               /* has dcbnl ops (else EOPNOTSUPP) */
        struct ieee_ets ets;
        struct ieee_pfc pfc;
        uint64_t maxrate[8];
        uint8_t buffer[44];                     /* struct dcbnl_buffer */
        unsigned n_apps;
        struct dcb_app apps[DCB_MODEL_APPS_MAX]; /* newest first, like dcb_app_list */
        uint8_t dscp2prio[64];
        unsigned dscp_app_cnt;
        bool trust_dscp;
        uint8_t dcbx;
        unsigned flap_ms;                       /* carrier loss after a PFC change */
        uint64_t carrier_back_ms;               /* monotonic ms when carrier returns */
        int fail_pfc;                           /* > 0: next setpfc fails with -fail_pfc */
};

struct dcb_model_msg {
        size_t len;
        unsigned char *buf;
};

struct dcb_model {
        unsigned n_devs;
        struct dcb_model_dev devs[DCB_MODEL_DEVS_MAX];
        /* replies waiting for recv(), one datagram each */
        unsigned q_head, q_len;
        struct dcb_model_msg q[DCB_MODEL_QUEUE_MAX];
        /* every request received, in order (for byte comparisons) */
        unsigned n_log;
        struct dcb_model_msg log[DCB_MODEL_LOG_MAX];
        /* counts of what the device was asked to do */
        unsigned n_setets, n_setpfc, n_setapp, n_delapp, n_setdcbx, n_setmtu;
        unsigned min_dscp_entries_seen;         /* lowest DSCP entry count after any change (starts at UINT_MAX) */
        struct nl_transport transport;
        struct nl_transport_ops ops;
};

void dcb_model_init(struct dcb_model *m);
void dcb_model_done(struct dcb_model *m);

/* An mlx5-like device in zero configuration (pfc_cap 8, ets_cap 8, DCBX host+IEEE). */
struct dcb_model_dev *dcb_model_add_mlx5(struct dcb_model *m, const char *name, int ifindex);
/* A device without DCB (like veth). */
struct dcb_model_dev *dcb_model_add_plain(struct dcb_model *m, const char *name, int ifindex);

const struct nl_transport *dcb_model_transport(struct dcb_model *m);

/* Feed one request and collect the replies directly (vector replay). Returns the reply count. */
int dcb_model_request(struct dcb_model *m, const void *req, size_t len);
/* Pop the next queued reply datagram; caller frees *ret. -EAGAIN when empty. */
int dcb_model_pop(struct dcb_model *m, unsigned char **ret, size_t *ret_len);
