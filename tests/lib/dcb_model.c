/* SPDX-License-Identifier: MIT */
/* A userspace rtnetlink/dcbnl device model with mlx5-like semantics (see dcb_model.h). */
#include <limits.h>
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <time.h>

#include "dcb_model.h"
#include "dcb_nl.h"

#define MODEL_PID 0x25e7
#define REPLY_MAX 8192
#define IFF_MODEL_UP 0x11043    /* UP|BROADCAST|RUNNING|MULTICAST|LOWER_UP */

static uint64_t now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- queue ---- */

static void push(struct dcb_model *m, const void *buf, size_t len)
{
        struct dcb_model_msg *x;

        if (m->q_len >= DCB_MODEL_QUEUE_MAX)
                return;
        x = &m->q[(m->q_head + m->q_len++) % DCB_MODEL_QUEUE_MAX];
        x->buf = malloc(len);
        x->len = len;
        if (x->buf)
                memcpy(x->buf, buf, len);
}

int dcb_model_pop(struct dcb_model *m, unsigned char **ret, size_t *ret_len)
{
        struct dcb_model_msg *x;

        if (!m->q_len)
                return -EAGAIN;
        x = &m->q[m->q_head];
        m->q_head = (m->q_head + 1) % DCB_MODEL_QUEUE_MAX;
        m->q_len--;
        *ret = x->buf;
        *ret_len = x->len;
        return 0;
}

/* NLMSG_ERROR: error 0 = ACK; capped (NETLINK_CAP_ACK); extack text when given. */
static void push_ack(struct dcb_model *m, const struct nlmsghdr *req, int error, const char *extack)
{
        _Alignas(8) unsigned char buf[512] = { 0 };
        struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
        struct nlmsgerr *err;

        nlh->nlmsg_type = NLMSG_ERROR;
        nlh->nlmsg_flags = 0x100;                       /* NLM_F_CAPPED */
        nlh->nlmsg_seq = req->nlmsg_seq;
        nlh->nlmsg_pid = MODEL_PID;
        err = mnl_nlmsg_put_extra_header(nlh, sizeof(*err));
        err->error = error;
        memcpy(&err->msg, req, sizeof(*req));
        if (extack) {
                nlh->nlmsg_flags |= 0x200;              /* NLM_F_ACK_TLVS */
                mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, extack);
        }
        push(m, buf, nlh->nlmsg_len);
}

static struct nlmsghdr *reply_start(void *buf, const struct nlmsghdr *req, uint16_t type, uint16_t flags)
{
        struct nlmsghdr *nlh;

        memset(buf, 0, REPLY_MAX / 2);          /* libmnl 1.0.4 does not zero attribute padding */
        nlh = mnl_nlmsg_put_header(buf);
        nlh->nlmsg_type = type;
        nlh->nlmsg_flags = flags;
        nlh->nlmsg_seq = req->nlmsg_seq;
        nlh->nlmsg_pid = MODEL_PID;
        return nlh;
}

static struct dcb_model_dev *find(struct dcb_model *m, int ifindex, const char *name)
{
        for (unsigned i = 0; i < m->n_devs; i++)
                if ((ifindex > 0 && m->devs[i].ifindex == ifindex) ||
                    (ifindex <= 0 && name && streq(m->devs[i].name, name)))
                        return &m->devs[i];
        return NULL;
}

/* ---- rtnetlink links ---- */

static void put_link(struct nlmsghdr *nlh, const struct dcb_model_dev *d)
{
        struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
        bool carrier = now_ms() >= d->carrier_back_ms;

        ifi->ifi_type = 1;                              /* ARPHRD_ETHER */
        ifi->ifi_index = d->ifindex;
        ifi->ifi_flags = carrier ? IFF_MODEL_UP : IFF_UP | IFF_BROADCAST | IFF_MULTICAST;
        mnl_attr_put_strz(nlh, IFLA_IFNAME, d->name);
        mnl_attr_put_u32(nlh, IFLA_MTU, d->mtu);
        mnl_attr_put_u32(nlh, IFLA_MIN_MTU, d->min_mtu);
        mnl_attr_put_u32(nlh, IFLA_MAX_MTU, d->max_mtu);
        mnl_attr_put_u8(nlh, IFLA_OPERSTATE, carrier ? 6 : 2);  /* IF_OPER_UP / DOWN */
}

static void getlink(struct dcb_model *m, const struct nlmsghdr *req)
{
        _Alignas(8) unsigned char buf[REPLY_MAX];
        const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(req);
        const struct nlattr *a, *name = NULL;
        struct dcb_model_dev *d;

        if (req->nlmsg_flags & NLM_F_DUMP) {
                size_t off = 0;

                memset(buf, 0, sizeof(buf));
                for (unsigned i = 0; i < m->n_devs; i++) {
                        struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf + off);

                        nlh->nlmsg_type = RTM_NEWLINK;
                        nlh->nlmsg_flags = NLM_F_MULTI;
                        nlh->nlmsg_seq = req->nlmsg_seq;
                        nlh->nlmsg_pid = MODEL_PID;

                        put_link(nlh, &m->devs[i]);
                        off += NLMSG_ALIGN(nlh->nlmsg_len);
                }
                push(m, buf, off);
                reply_start(buf, req, NLMSG_DONE, NLM_F_MULTI);
                mnl_nlmsg_put_extra_header((struct nlmsghdr *)buf, sizeof(int));
                push(m, buf, ((struct nlmsghdr *)buf)->nlmsg_len);
                return;
        }
        mnl_attr_for_each(a, req, sizeof(*ifi))
                if (mnl_attr_get_type(a) == IFLA_IFNAME && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
                        name = a;
        d = find(m, ifi->ifi_index, name ? mnl_attr_get_str(name) : NULL);
        if (!d)
                return push_ack(m, req, -ENODEV, NULL);
        put_link(reply_start(buf, req, RTM_NEWLINK, 0), d);
        push(m, buf, ((struct nlmsghdr *)buf)->nlmsg_len);
        push_ack(m, req, 0, NULL);
}

static void newlink(struct dcb_model *m, const struct nlmsghdr *req)
{
        const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(req);
        struct dcb_model_dev *d = find(m, ifi->ifi_index, NULL);
        const struct nlattr *a;

        if (!d)
                return push_ack(m, req, -ENODEV, NULL);
        mnl_attr_for_each(a, req, sizeof(*ifi)) {
                uint32_t mtu;

                if (mnl_attr_get_type(a) != IFLA_MTU || mnl_attr_validate(a, MNL_TYPE_U32) < 0)
                        continue;
                mtu = mnl_attr_get_u32(a);
                if (mtu > d->max_mtu)
                        return push_ack(m, req, -EINVAL, "mtu greater than device maximum");
                if (mtu < d->min_mtu)
                        return push_ack(m, req, -EINVAL, "mtu less than device minimum");
                d->mtu = mtu;
                m->n_setmtu++;
        }
        push_ack(m, req, 0, NULL);
}

/* ---- dcbnl: the GET ---- */

static void ieee_fill(struct nlmsghdr *nlh, const struct dcb_model_dev *d)
{
        struct nlattr *ieee, *app;

        mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, d->name);
        ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
        mnl_attr_put(nlh, DCB_ATTR_IEEE_ETS, sizeof(d->ets), &d->ets);
        mnl_attr_put(nlh, DCB_ATTR_IEEE_MAXRATE, sizeof(d->maxrate), d->maxrate);
        mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, sizeof(d->pfc), &d->pfc);
        mnl_attr_put(nlh, DCB_ATTR_DCB_BUFFER, sizeof(d->buffer), d->buffer);
        app = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE_APP_TABLE);
        for (unsigned i = 0; i < d->n_apps; i++)
                mnl_attr_put(nlh, DCB_ATTR_IEEE_APP, sizeof(d->apps[i]), &d->apps[i]);
        mnl_attr_nest_end(nlh, app);
        mnl_attr_nest_end(nlh, ieee);
        mnl_attr_put_u8(nlh, DCB_ATTR_DCBX, d->dcbx);
}

/* ---- dcbnl: mlx5-like driver operations ---- */

static void note_dscp_count(struct dcb_model *m, const struct dcb_model_dev *d)
{
        if (d->dscp_app_cnt < m->min_dscp_entries_seen)
                m->min_dscp_entries_seen = d->dscp_app_cnt;
}

static int list_del(struct dcb_model_dev *d, const struct dcb_app *a)
{
        for (unsigned i = 0; i < d->n_apps; i++)
                if (!memcmp(&d->apps[i], a, sizeof(*a))) {
                        memmove(&d->apps[i], &d->apps[i + 1], (d->n_apps - i - 1) * sizeof(*a));
                        d->n_apps--;
                        return 0;
                }
        return -ENOENT;
}

static int list_add(struct dcb_model_dev *d, const struct dcb_app *a)
{
        if (d->n_apps >= DCB_MODEL_APPS_MAX)
                return -ENOMEM;
        memmove(&d->apps[1], &d->apps[0], d->n_apps * sizeof(*a));
        d->apps[0] = *a;
        d->n_apps++;
        return 0;
}

static int setapp(struct dcb_model *m, struct dcb_model_dev *d, const struct dcb_app *a)
{
        struct dcb_app old = { IEEE_8021QAZ_APP_SEL_DSCP, 0, 0 };
        bool is_new;

        if (a->selector != IEEE_8021QAZ_APP_SEL_DSCP || a->protocol >= 64)
                return -EINVAL;
        old.protocol = a->protocol;
        old.priority = d->dscp2prio[a->protocol];
        if (!d->dscp_app_cnt)
                d->trust_dscp = true;
        d->dscp2prio[a->protocol] = a->priority;
        is_new = list_del(d, &old) != 0;
        if (list_add(d, a) < 0)
                return -ENOMEM;
        if (is_new)
                d->dscp_app_cnt++;
        m->n_setapp++;
        return 0;
}

static int delapp(struct dcb_model *m, struct dcb_model_dev *d, const struct dcb_app *a)
{
        if (a->selector != IEEE_8021QAZ_APP_SEL_DSCP || a->protocol >= 64)
                return -EINVAL;
        if (!d->dscp_app_cnt || a->priority != d->dscp2prio[a->protocol])
                return -ENOENT;
        if (list_del(d, a) < 0)
                return -ENOENT;
        d->dscp2prio[a->protocol] = 0;
        if (!--d->dscp_app_cnt)
                d->trust_dscp = false;
        m->n_delapp++;
        note_dscp_count(m, d);
        return 0;
}

static int setets(struct dcb_model *m, struct dcb_model_dev *d, const struct ieee_ets *ets)
{
        unsigned sum = 0;
        bool have_ets = false;

        for (unsigned i = 0; i < 8; i++) {
                if (ets->prio_tc[i] >= 8)
                        return -EINVAL;
                if (ets->tc_tsa[i] != IEEE_8021QAZ_TSA_STRICT && ets->tc_tsa[i] != IEEE_8021QAZ_TSA_ETS &&
                    ets->tc_tsa[i] != IEEE_8021QAZ_TSA_VENDOR)
                        return -EINVAL;
                if (ets->tc_tsa[i] == IEEE_8021QAZ_TSA_ETS) {
                        have_ets = true;
                        sum += ets->tc_tx_bw[i];
                }
        }
        if (have_ets && sum != 100)
                return -EINVAL;
        memcpy(d->ets.tc_tx_bw, ets->tc_tx_bw, 8);
        memcpy(d->ets.tc_tsa, ets->tc_tsa, 8);
        memcpy(d->ets.prio_tc, ets->prio_tc, 8);
        d->ets.willing = ets->willing;
        m->n_setets++;
        return 0;
}

static int setpfc(struct dcb_model *m, struct dcb_model_dev *d, const struct ieee_pfc *pfc)
{
        if (d->fail_pfc > 0) {
                int r = -d->fail_pfc;

                d->fail_pfc = 0;
                return r;
        }
        if (pfc->pfc_en != d->pfc.pfc_en && d->flap_ms)
                d->carrier_back_ms = now_ms() + d->flap_ms;     /* mlx5_toggle_port_link() */
        d->pfc.pfc_en = pfc->pfc_en;
        d->pfc.delay = pfc->delay;
        m->n_setpfc++;
        return 0;
}

static int apps_each(struct dcb_model *m, struct dcb_model_dev *d, const struct nlattr *table, bool del)
{
        const struct nlattr *a;

        mnl_attr_for_each_nested(a, table) {
                int r;

                if (mnl_attr_get_type(a) != DCB_ATTR_IEEE_APP)
                        continue;
                if (mnl_attr_get_payload_len(a) < sizeof(struct dcb_app))
                        return -ERANGE;
                r = del ? delapp(m, d, mnl_attr_get_payload(a)) : setapp(m, d, mnl_attr_get_payload(a));
                if (r < 0)
                        return r;
        }
        return 0;
}

/* dcbnl_ieee_set()/dcbnl_ieee_del(): the result travels in-band. */
static int ieee_set(struct dcb_model *m, struct dcb_model_dev *d, const struct nlattr *nest, bool del)
{
        const struct nlattr *tb[DCB_NL_IEEE_ATTR_MAX + 1] = { 0 }, *a;
        int r = 0;

        mnl_attr_for_each_nested(a, nest)
                if (mnl_attr_get_type(a) <= DCB_NL_IEEE_ATTR_MAX)
                        tb[mnl_attr_get_type(a)] = a;
        if (!del && tb[DCB_ATTR_IEEE_ETS] && mnl_attr_get_payload_len(tb[DCB_ATTR_IEEE_ETS]) >= sizeof(struct ieee_ets))
                r = setets(m, d, mnl_attr_get_payload(tb[DCB_ATTR_IEEE_ETS]));
        if (!del && !r && tb[DCB_ATTR_IEEE_MAXRATE] && mnl_attr_get_payload_len(tb[DCB_ATTR_IEEE_MAXRATE]) >= 64)
                memcpy(d->maxrate, mnl_attr_get_payload(tb[DCB_ATTR_IEEE_MAXRATE]), 64);
        if (!del && !r && tb[DCB_ATTR_IEEE_PFC] && mnl_attr_get_payload_len(tb[DCB_ATTR_IEEE_PFC]) >= sizeof(struct ieee_pfc)) {
                struct ieee_pfc pfc;    /* payloads are 4-aligned, the struct needs 8 */

                memcpy(&pfc, mnl_attr_get_payload(tb[DCB_ATTR_IEEE_PFC]), sizeof(pfc));
                r = setpfc(m, d, &pfc);
        }
        if (!r && tb[DCB_ATTR_IEEE_APP_TABLE])
                r = apps_each(m, d, tb[DCB_ATTR_IEEE_APP_TABLE], del);
        note_dscp_count(m, d);
        return r;
}

static uint8_t mlx5_setdcbx(struct dcb_model *m, struct dcb_model_dev *d, uint8_t mode)
{
        if ((mode & DCB_CAP_DCBX_LLD_MANAGED) || !(mode & DCB_CAP_DCBX_HOST))
                return 1;
        d->dcbx = mode;
        m->n_setdcbx++;
        return 0;
}

static void dcb_request(struct dcb_model *m, const struct nlmsghdr *req)
{
        _Alignas(8) unsigned char buf[REPLY_MAX];
        const struct dcbmsg *dm = mnl_nlmsg_get_payload(req);
        const struct nlattr *a, *tb[DCB_ATTR_MAX + 1] = { 0 };
        struct dcb_model_dev *d;
        struct nlmsghdr *nlh;
        uint16_t type;

        if (mnl_nlmsg_get_payload_len(req) < sizeof(*dm))
                return push_ack(m, req, -EINVAL, NULL);
        mnl_attr_for_each(a, req, sizeof(*dm))
                if (mnl_attr_get_type(a) <= DCB_ATTR_MAX)
                        tb[mnl_attr_get_type(a)] = a;
        if (!tb[DCB_ATTR_IFNAME] || mnl_attr_validate(tb[DCB_ATTR_IFNAME], MNL_TYPE_NUL_STRING) < 0)
                return push_ack(m, req, -EINVAL, NULL);
        d = find(m, 0, mnl_attr_get_str(tb[DCB_ATTR_IFNAME]));
        if (!d)
                return push_ack(m, req, -ENODEV, NULL);
        if (!d->dcb)
                return push_ack(m, req, -EOPNOTSUPP, NULL);
        type = dm->cmd == DCB_CMD_IEEE_GET || dm->cmd == DCB_CMD_GDCBX ? RTM_GETDCB : RTM_SETDCB;
        nlh = reply_start(buf, req, type, req->nlmsg_flags);
        ((struct dcbmsg *)mnl_nlmsg_put_extra_header(nlh, sizeof(*dm)))->cmd = dm->cmd;
        switch (dm->cmd) {
        case DCB_CMD_IEEE_GET:
                ieee_fill(nlh, d);
                break;
        case DCB_CMD_IEEE_SET:
        case DCB_CMD_IEEE_DEL:
                if (!tb[DCB_ATTR_IEEE])
                        return push_ack(m, req, -EINVAL, NULL);
                mnl_attr_put_u8(nlh, DCB_ATTR_IEEE,
                                (uint8_t)ieee_set(m, d, tb[DCB_ATTR_IEEE], dm->cmd == DCB_CMD_IEEE_DEL));
                break;
        case DCB_CMD_GDCBX:
                mnl_attr_put_u8(nlh, DCB_ATTR_DCBX, d->dcbx);
                break;
        case DCB_CMD_SDCBX:
                if (!tb[DCB_ATTR_DCBX] || mnl_attr_validate(tb[DCB_ATTR_DCBX], MNL_TYPE_U8) < 0)
                        return push_ack(m, req, -EINVAL, NULL);
                mnl_attr_put_u8(nlh, DCB_ATTR_DCBX, mlx5_setdcbx(m, d, mnl_attr_get_u8(tb[DCB_ATTR_DCBX])));
                break;
        default:
                return push_ack(m, req, -EOPNOTSUPP, NULL);
        }
        push(m, buf, nlh->nlmsg_len);
        if (req->nlmsg_flags & NLM_F_ACK)
                push_ack(m, req, 0, NULL);
}

int dcb_model_request(struct dcb_model *m, const void *req, size_t len)
{
        const struct nlmsghdr *nlh = req;
        unsigned before = m->q_len;

        if (!mnl_nlmsg_ok(nlh, (int)len))
                return -EINVAL;
        if (m->n_log < DCB_MODEL_LOG_MAX) {
                m->log[m->n_log].buf = malloc(len);
                if (m->log[m->n_log].buf) {
                        memcpy(m->log[m->n_log].buf, req, len);
                        m->log[m->n_log++].len = len;
                }
        }
        switch (nlh->nlmsg_type) {
        case RTM_GETLINK: getlink(m, nlh); break;
        case RTM_NEWLINK: newlink(m, nlh); break;
        case RTM_GETDCB:
        case RTM_SETDCB: dcb_request(m, nlh); break;
        default: push_ack(m, nlh, -EOPNOTSUPP, NULL); break;
        }
        return (int)(m->q_len - before);
}

/* ---- transport ---- */

static int t_open(void *userdata, int protocol, void **ret_ctx)
{
        *ret_ctx = userdata;
        return protocol == NETLINK_ROUTE ? 0 : -EPROTONOSUPPORT;
}

static ssize_t t_send(void *ctx, const void *buf, size_t len)
{
        int r = dcb_model_request(ctx, buf, len);

        return r < 0 ? r : (ssize_t)len;
}

static ssize_t t_recv(void *ctx, void *buf, size_t size, unsigned timeout_ms)
{
        unsigned char *msg;
        size_t len;

        if (dcb_model_pop(ctx, &msg, &len) < 0)
                return -ETIMEDOUT;
        if (len > size)
                len = size;
        memcpy(buf, msg, len);
        free(msg);
        return (ssize_t)len;
}

static void t_close(void *ctx)
{
        struct dcb_model *m = ctx;
        unsigned char *msg;
        size_t len;

        while (dcb_model_pop(m, &msg, &len) == 0)
                free(msg);
}

void dcb_model_init(struct dcb_model *m)
{
        memset(m, 0, sizeof(*m));
        m->min_dscp_entries_seen = UINT_MAX;
        m->ops = (struct nl_transport_ops){ .name = "dcb-model", .open = t_open, .send = t_send,
                                            .recv = t_recv, .close = t_close };
        m->transport = (struct nl_transport){ .ops = &m->ops, .userdata = m };
}

void dcb_model_done(struct dcb_model *m)
{
        t_close(m);
        for (unsigned i = 0; i < m->n_log; i++)
                free(m->log[i].buf);
        m->n_log = 0;
}

const struct nl_transport *dcb_model_transport(struct dcb_model *m)
{
        return &m->transport;
}

static struct dcb_model_dev *add(struct dcb_model *m, const char *name, int ifindex)
{
        struct dcb_model_dev *d;

        if (m->n_devs >= DCB_MODEL_DEVS_MAX)
                return NULL;
        d = &m->devs[m->n_devs++];
        memset(d, 0, sizeof(*d));
        snprintf(d->name, sizeof(d->name), "%s", name);
        d->ifindex = ifindex;
        d->mtu = 1500;
        d->min_mtu = 68;
        d->max_mtu = 9978;
        return d;
}

struct dcb_model_dev *dcb_model_add_mlx5(struct dcb_model *m, const char *name, int ifindex)
{
        struct dcb_model_dev *d = add(m, name, ifindex);

        if (!d)
                return NULL;
        d->dcb = true;
        d->ets.ets_cap = 8;
        d->pfc.pfc_cap = 8;
        d->dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
        return d;
}

struct dcb_model_dev *dcb_model_add_plain(struct dcb_model *m, const char *name, int ifindex)
{
        struct dcb_model_dev *d = add(m, name, ifindex);

        if (d)
                d->max_mtu = 65535;
        return d;
}
