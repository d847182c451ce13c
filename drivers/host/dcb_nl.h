/* SPDX-License-Identifier: MIT */
/*
 * dcbnl requests over the netlink helper: the IEEE 802.1Qaz GET (ETS, PFC, port
 * buffers, APP table, APP trust table, DCBX mode) and the SETs the "dcb" and
 * "dcb-buffer" drivers need. The
 * requests are byte-for-byte what iproute2's `dcb` sends (tests compare them).
 *
 * A SET's result travels in-band (a u8 in DCB_ATTR_IEEE / DCB_ATTR_DCBX): the
 * netlink ACK alone proves nothing. The u8 is the driver's int truncated
 * (dcbnl_ieee_set(): nla_put_u8(skb, DCB_ATTR_IEEE, err)): 0 is success, a
 * truncated -errno is a refusal, and 1 or 2 are Intel ice's own success codes
 * (ICE_DCB_NO_HW_CHG, ICE_DCB_HW_CHG from ice_dcbnl_setapp/delapp). The kernel
 * stops a multi-entry APP request at the first nonzero result, so after a
 * positive result the caller must read the table back and go on from there.
 */
#pragma once

#include <linux/dcbnl.h>
#include <stdbool.h>
#include <stdint.h>

#include "drivers/host/nl.h"

/* Newer than Debian 12's uapi headers (enumerators, so always define the value). */
#ifndef DCB_ATTR_DCB_APP_TRUST_TABLE
#define DCB_ATTR_DCB_APP_TRUST_TABLE 11
#endif
#ifndef DCB_ATTR_DCB_REWR_TABLE
#define DCB_ATTR_DCB_REWR_TABLE 12
#endif
#define DCB_NL_IEEE_ATTR_MAX 12
#define DCB_NL_APP_ATTR_DCB 2           /* DCB_ATTR_DCB_APP: non-IEEE selectors in the trust table */
#define DCB_NL_SEL_PCP 255              /* DCB_APP_SEL_PCP */

#define DCB_NL_APPS_MAX 256             /* larger APP tables are refused */
#define DCB_NL_TRUST_MAX 8

struct dcb_nl_ieee {
        bool has_ets;
        struct ieee_ets ets;
        bool has_pfc;
        struct ieee_pfc pfc;
        bool has_apps;                  /* the APP table nest was present */
        unsigned n_apps;
        struct dcb_app apps[DCB_NL_APPS_MAX];
        bool has_trust;                 /* DCB_ATTR_DCB_APP_TRUST_TABLE was present */
        unsigned n_trust;
        uint8_t trust[DCB_NL_TRUST_MAX]; /* selectors, most trusted first */
        bool has_dcbx;
        uint8_t dcbx;                   /* DCB_CAP_DCBX_* */
        bool has_buffer;                /* DCB_ATTR_DCB_BUFFER: the driver has dcbnl_getbuffer and it answered */
        struct dcbnl_buffer buffer;
};

/* Parse an RTM_GETDCB DCB_CMD_IEEE_GET reply. -EBADMSG/-EINVAL/-E2BIG on bad input. */
int dcb_nl_parse_ieee(const struct nlmsghdr *nlh, struct dcb_nl_ieee *ret);

/* The in-band result of a SET reply: 0, a driver success code 1 or 2, or -errno the driver returned. */
int dcb_nl_parse_set_reply(const struct nlmsghdr *nlh, uint8_t cmd, int *ret_result);

/* The device's whole IEEE configuration. */
int dcb_nl_get(struct nl *nl, const char *ifname, struct dcb_nl_ieee *ret, struct errbuf *e);

/*
 * The IEEE GET of many interfaces at once (nl_batch_*: a request's capability
 * probes), kept while the handle writes nothing. dcb_cache_get() answers as
 * dcb_nl_get() would have then: 0 with *ret, or -errno with its message in e;
 * 1 when the cache cannot say (another interface, or written since).
 */
struct dcb_cache;
int dcb_cache_fill(struct nl *nl, const char (*names)[16], const bool *software, unsigned n, struct dcb_cache **ret,
                   struct errbuf *e);
int dcb_cache_get(const struct dcb_cache *c, const struct nl *nl, const char *ifname, struct dcb_nl_ieee *ret,
                  struct errbuf *e);
void dcb_cache_free(struct dcb_cache *c);

/*
 * Whole-struct SETs (read-modify-write is the caller's). Each returns the
 * in-band result when it is not a refusal: 0, or a driver success code (1, 2)
 * that asks for a read-back.
 */
int dcb_nl_set_ets(struct nl *nl, const char *ifname, const struct ieee_ets *ets, struct errbuf *e);
int dcb_nl_set_pfc(struct nl *nl, const char *ifname, const struct ieee_pfc *pfc, struct errbuf *e);
/* Port receive buffers: the whole struct dcbnl_buffer (total_size is ignored on a SET). */
int dcb_nl_set_buffer(struct nl *nl, const char *ifname, const struct dcbnl_buffer *b, struct errbuf *e);

/* Add (DCB_CMD_IEEE_SET) or delete (DCB_CMD_IEEE_DEL) APP entries in one request. */
int dcb_nl_apps(struct nl *nl, const char *ifname, uint8_t cmd, const struct dcb_app *apps,
                unsigned n, struct errbuf *e);

/* The APP trust table (DCB_ATTR_DCB_APP_TRUST_TABLE, kernel 6.3+): selectors, most trusted first. */
int dcb_nl_set_trust(struct nl *nl, const char *ifname, const uint8_t *sel, unsigned n, struct errbuf *e);

/* DCBX mode (DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE ...). */
int dcb_nl_get_dcbx(struct nl *nl, const char *ifname, uint8_t *ret, struct errbuf *e);
int dcb_nl_set_dcbx(struct nl *nl, const char *ifname, uint8_t mode, struct errbuf *e);
