/* SPDX-License-Identifier: MIT */
/*
 * The one netlink helper (libmnl). It owns the transport, the sequence numbers,
 * NETLINK_EXT_ACK/NETLINK_CAP_ACK and the ack/error callback that puts the
 * kernel's extended-ack text into struct errbuf. Replies are parsed through
 * attribute policy tables (nl_parse_*) into tb[] arrays.
 *
 * libmnl serves rtnetlink (MTU, link state), dcbnl and generic netlink (devlink):
 * one idiom for every request, and libnl has no DCB API.
 *
 * The transport is pluggable: NULL means a real NETLINK_ROUTE socket in the
 * caller's network namespace; tests put a userspace device model behind it.
 *
 * The seam (docs/design.md, "Test seams"): with NETTUNE_NETLINK_SOCKET=PATH in
 * the environment, a NULL transport for NETLINK_ROUTE is instead a new
 * connection to the unix SOCK_SEQPACKET socket at PATH, one per nl_open().
 * Each datagram sent holds exactly the bytes a netlink sendmsg would carry;
 * each datagram received is one recvmsg's worth of replies. A NETLINK_GENERIC
 * handle (devlink) connects to PATH.genl the same way.
 */
#pragma once

#include <libmnl/libmnl.h>
#include <linux/netlink.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/errbuf.h"

#define NL_MSG_MAX 8192                 /* request buffer: every request fits */
#define NL_RECV_MAX 32768               /* one datagram of replies */
#define NL_TIMEOUT_MS 5000              /* bound on waiting for one reply */
#define NL_EXTACK_MAX 256

/* Where requests go and replies come from. */
struct nl_transport_ops {
        const char *name;
        /* Open a channel for `protocol` (NETLINK_ROUTE); *ret_ctx is passed to the others. */
        int (*open)(void *userdata, int protocol, void **ret_ctx);
        /* Send one request; returns bytes sent or -errno. */
        ssize_t (*send)(void *ctx, const void *buf, size_t len);
        /* Receive one datagram; -ETIMEDOUT when nothing came within timeout_ms. */
        ssize_t (*recv)(void *ctx, void *buf, size_t size, unsigned timeout_ms);
        /* The port id replies are addressed to (0: do not check). */
        uint32_t (*portid)(void *ctx);
        void (*close)(void *ctx);
};

struct nl_transport {
        const struct nl_transport_ops *ops;
        void *userdata;
};

/* The kernel transport (a SOCK_CLOEXEC netlink socket). */
extern const struct nl_transport nl_kernel_transport;

#define NL_SEAM_ENV "NETTUNE_NETLINK_SOCKET"
#define NL_SEAM_GENL_SUFFIX ".genl"
/* The seam's socket path from the environment, or NULL when it is not set. */
const char *nl_seam_path(void);
/* A SOCK_SEQPACKET connection to a seam's unix socket (also the ethtool seam, ethtool.h): fd or -errno. */
int nl_seam_connect(const char *path);

struct nl;

/* Open a handle. t NULL = the kernel. *ret is owned by the caller (nl_close). */
int nl_open(const struct nl_transport *t, int protocol, struct nl **ret, struct errbuf *e);
void nl_close(struct nl *nl);
/* The handle talks to the kernel (not to the test seam or a model). */
bool nl_is_kernel(const struct nl *nl);
/* The handle talks to a running kernel older than MAJOR.MINOR (uname); false for the seam and a model. */
bool nl_kernel_older(const struct nl *nl, unsigned major, unsigned minor);
static inline void nl_closep(struct nl **nl)
{
        nl_close(*nl);
}
#define _cleanup_nl_ _cleanup_(nl_closep)

/* Start a new request in the handle's buffer (previous request is discarded). */
struct nlmsghdr *nl_msg_new(struct nl *nl, uint16_t type, uint16_t flags);

/* Bounded builders: -EMSGSIZE when the attribute does not fit in NL_MSG_MAX. */
int nl_put(struct nlmsghdr *nlh, uint16_t type, size_t len, const void *data);
int nl_put_u8(struct nlmsghdr *nlh, uint16_t type, uint8_t v);
int nl_put_u32(struct nlmsghdr *nlh, uint16_t type, uint32_t v);
int nl_put_strz(struct nlmsghdr *nlh, uint16_t type, const char *s);
struct nlattr *nl_nest_start(struct nlmsghdr *nlh, uint16_t type);   /* NULL: no room */
void nl_nest_end(struct nlmsghdr *nlh, struct nlattr *nest);

/*
 * Send the request and run cb on every reply message for it until the kernel's
 * ACK (NLM_F_ACK), NLMSG_DONE (dumps) or an error. A negative kernel error is
 * returned as -errno with the extended-ack text in e->msg ("<what>: <strerror>:
 * <ext ack>"); `what` names the request in messages. cb may be NULL.
 */
int nl_talk(struct nl *nl, struct nlmsghdr *nlh, mnl_cb_t cb, void *data,
            const char *what, struct errbuf *e);

/*
 * Queue a request (built with nl_msg_new()) instead of talking: queued requests go
 * out back to back, NL_WINDOW to a datagram, and their ACKs are collected in one
 * receive loop — at nl_flush(), before the next nl_talk(), or when NL_QUEUE_MAX
 * are waiting. A refusal is reported like nl_talk's, for the first refused request
 * in queue order, with its `where` ("interface 'vA'") and `what` ("set mtu 9000");
 * requests of a later window are then not sent.
 */
#define NL_WINDOW 64
#define NL_QUEUE_MAX 1024
int nl_queue(struct nl *nl, struct nlmsghdr *nlh, const char *where, const char *what, struct errbuf *e);
/* Send what is queued and check every ACK; 0 when nothing is queued. */
int nl_flush(struct nl *nl, struct errbuf *e);

/*
 * Many independent requests at once (a GET for every interface): each request is
 * built with nl_msg_new() and added; nl_batch_run() sends them back to back,
 * NL_WINDOW to a datagram, and runs cb(reply, data, i) on the replies of request
 * i. Each request ends with its ACK or error: ret_err[i] is 0 or its -errno, and
 * when it is an error, ret_msg (if not NULL, char[n][NL_BATCH_MSG]) holds the
 * message nl_talk() would have set ("<what>: <strerror> (kernel: <ext ack>)").
 * A failing request does not stop the others; the return value is < 0 only when
 * the transport or a reply's shape fails.
 */
#define NL_BATCH_MSG 256
typedef int (*nl_batch_cb)(const struct nlmsghdr *nlh, unsigned i, void *data);   /* 0 or -errno */
int nl_batch_add(struct nl *nl, struct nlmsghdr *nlh, struct errbuf *e);
int nl_batch_run(struct nl *nl, const char *what, nl_batch_cb cb, void *data, int *ret_err,
                 char (*ret_msg)[NL_BATCH_MSG], struct errbuf *e);

/* How many requests that are not GETs (rtnetlink: type % 4 != 2) the handle has sent: a cache is valid while it holds. */
uint64_t nl_writes(const struct nl *nl);

/* strerror(3) in the house style: "operation not supported". Returns buf. */
const char *nl_strerror(int err, char *buf, size_t size);

/* The extended-ack text of the last failed request, "" if none. */
const char *nl_last_extack(const struct nl *nl);

/*
 * Run a buffer of replies through the same callbacks nl_talk uses, without a
 * transport (fuzzing, tests). seq 0 accepts any sequence number. Returns > 0 while
 * more replies are expected, 0 when the request is complete, or -errno.
 */
int nl_process(struct nl *nl, const void *buf, size_t len, uint32_t seq,
               mnl_cb_t cb, void *data);

/* Attribute policy: MNL_TYPE_* and, for MNL_TYPE_BINARY, the minimum payload length. */
struct nl_policy {
        uint8_t type;                   /* enum mnl_attr_data_type; 0 (MNL_TYPE_UNSPEC) = ignore */
        uint16_t len;
};

/*
 * Validate attributes against pol[0..max] into tb[0..max] (zeroed first).
 * Unknown attribute types are skipped; an attribute that fails its policy is an
 * error (-EINVAL). The _nested form parses a nest's payload.
 */
int nl_parse_msg(const struct nlmsghdr *nlh, size_t hdrlen, const struct nl_policy *pol,
                 unsigned max, const struct nlattr **tb);
int nl_parse_nested(const struct nlattr *nest, const struct nl_policy *pol,
                    unsigned max, const struct nlattr **tb);
