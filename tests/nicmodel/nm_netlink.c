/* SPDX-License-Identifier: MIT */
/*
 * The kernel side of a NETLINK_ROUTE conversation, for the devices of a model:
 *   - netlink_rcv_skb()/netlink_ack(): one reply skb per answer, an ACK when
 *     NLM_F_ACK was asked or on error; the ACK is capped with extack TLVs, as for
 *     a socket with NETLINK_CAP_ACK and NETLINK_EXT_ACK set (what nl.c sets);
 *   - rtnetlink links: rtnl_getlink()/rtnl_dump_ifinfo() with rtnl_fill_ifinfo()'s
 *     attributes, and do_setlink() IFLA_MTU through dev_validate_mtu();
 *   - dcbnl (net/dcb/dcbnl.c, 6.3+): dcb_doit(), dcbnl_ieee_fill(),
 *     dcbnl_ieee_set(), dcbnl_ieee_del(), dcbnl_getdcbx(), dcbnl_setdcbx().
 * Replies carry nlmsg_pid 0: the seam has no netlink port id.
 */
#include <linux/if_link.h>
#include <linux/rtnetlink.h>
#include <libmnl/libmnl.h>

#include "common/util.h"
#include "tests/nicmodel/nicmodel.h"

#ifndef NLM_F_CAPPED
#define NLM_F_CAPPED 0x100
#endif
#ifndef NLM_F_ACK_TLVS
#define NLM_F_ACK_TLVS 0x200
#endif
#ifndef DCB_ATTR_DCB_APP_TRUST_TABLE
#define DCB_ATTR_DCB_APP_TRUST_TABLE 11
#endif
#define DCB_ATTR_DCB_APP_TYPE 2         /* DCB_ATTR_DCB_APP: an APP entry with a non-IEEE selector */
#define DCB_APP_SEL_PCP_VAL 255
#define OPER_UP 6                       /* IF_OPER_UP (linux/if.h) */
#define OPER_DOWN 2                     /* IF_OPER_DOWN */

/* ---- replies ---- */

unsigned char *nm_out_new(struct nm_out *o)
{
        if (o->n >= NM_OUT_MAX)
                return NULL;
        memset(o->buf[o->n], 0, NM_REPLY_MAX);
        o->len[o->n] = 0;
        return o->buf[o->n++];
}

struct nlmsghdr *nm_msg_start(unsigned char *buf, const struct nlmsghdr *req, uint16_t type, uint16_t flags)
{
        struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);

        nlh->nlmsg_type = type;
        nlh->nlmsg_flags = flags;
        nlh->nlmsg_seq = req->nlmsg_seq;
        nlh->nlmsg_pid = 0;
        return nlh;
}

/* netlink_ack() with NETLINK_CAP_ACK: the request's header only, extack text as NLMSGERR_ATTR_MSG. */
void nm_put_ack(struct nm_out *o, const struct nlmsghdr *req, int error, const char *extack)
{
        unsigned char *buf = nm_out_new(o);
        struct nlmsghdr *nlh;
        struct nlmsgerr *err;

        if (!buf)
                return;
        nlh = nm_msg_start(buf, req, NLMSG_ERROR, NLM_F_CAPPED | (extack ? NLM_F_ACK_TLVS : 0));
        err = mnl_nlmsg_put_extra_header(nlh, sizeof(*err));
        err->error = error;
        err->msg = *req;
        if (extack)
                mnl_attr_put_strz(nlh, NLMSGERR_ATTR_MSG, extack);
        o->len[o->n - 1] = nlh->nlmsg_len;
}

size_t nm_put_done(unsigned char *buf, const struct nlmsghdr *req)
{
        struct nlmsghdr *nlh = nm_msg_start(buf, req, NLMSG_DONE, NLM_F_MULTI);

        mnl_nlmsg_put_extra_header(nlh, sizeof(int));
        return NLMSG_ALIGN(nlh->nlmsg_len);
}

/* ---- rtnetlink links ---- */

/*
 * rtnl_fill_ifinfo(); IFLA_LINKINFO from rtnl_link_fill(): IFLA_INFO_KIND of a
 * software link's rtnl_link_ops, and for a port of a bond IFLA_INFO_SLAVE_KIND,
 * the upper's kind (rtnl_link_slave_info_fill()), beside IFLA_MASTER.
 */
static void fill_link(struct nm *m, struct nlmsghdr *nlh, const struct nm_dev *d)
{
        const struct nm_dev *up = d->master ? nm_dev_by_index(m, d->master) : NULL;
        struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
        static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

        ifi->ifi_family = AF_UNSPEC;
        ifi->ifi_type = 1;                                      /* ARPHRD_ETHER */
        ifi->ifi_index = d->ifindex;
        ifi->ifi_flags = IFF_UP | IFF_BROADCAST | IFF_MULTICAST |
                         (d->carrier ? IFF_RUNNING | 0x10000 /* IFF_LOWER_UP */ : 0);
        mnl_attr_put_strz(nlh, IFLA_IFNAME, d->name);
        mnl_attr_put_u32(nlh, IFLA_TXQLEN, 1000);
        mnl_attr_put_u8(nlh, IFLA_OPERSTATE, d->carrier ? OPER_UP : OPER_DOWN);
        mnl_attr_put_u8(nlh, IFLA_LINKMODE, 0);
        mnl_attr_put_u32(nlh, IFLA_MTU, d->mtu);
        mnl_attr_put_u32(nlh, IFLA_MIN_MTU, d->min_mtu);
        mnl_attr_put_u32(nlh, IFLA_MAX_MTU, d->max_mtu);
        mnl_attr_put_u32(nlh, IFLA_GROUP, 0);
        mnl_attr_put_u32(nlh, IFLA_PROMISCUITY, 0);
        mnl_attr_put_u32(nlh, IFLA_NUM_TX_QUEUES, 8);
        mnl_attr_put_u32(nlh, IFLA_NUM_RX_QUEUES, 8);
        mnl_attr_put_u8(nlh, IFLA_CARRIER, d->carrier);
        mnl_attr_put_strz(nlh, IFLA_QDISC, d->drv->has_dcbnl ? "mq" : "noqueue");
        mnl_attr_put_u32(nlh, IFLA_CARRIER_CHANGES, d->carrier_up_count + d->carrier_down_count);
        mnl_attr_put_u32(nlh, IFLA_CARRIER_UP_COUNT, d->carrier_up_count);
        mnl_attr_put_u32(nlh, IFLA_CARRIER_DOWN_COUNT, d->carrier_down_count);
        mnl_attr_put(nlh, IFLA_ADDRESS, sizeof(d->mac), d->mac);
        mnl_attr_put(nlh, IFLA_BROADCAST, sizeof(bcast), bcast);
        if (up)
                mnl_attr_put_u32(nlh, IFLA_MASTER, (uint32_t)up->ifindex);
        if (!d->drv->kernel_driver || (up && !up->drv->kernel_driver)) {
                struct nlattr *info = mnl_attr_nest_start(nlh, IFLA_LINKINFO);

                if (!d->drv->kernel_driver)
                        mnl_attr_put_strz(nlh, IFLA_INFO_KIND, d->drv->name);
                if (up && !up->drv->kernel_driver)
                        mnl_attr_put_strz(nlh, IFLA_INFO_SLAVE_KIND, up->drv->name);
                mnl_attr_nest_end(nlh, info);
        }
}

static const char *attr_name(const struct nlmsghdr *req, size_t hdrlen)
{
        const struct nlattr *a;

        mnl_attr_for_each(a, req, hdrlen)
                if (mnl_attr_get_type(a) == IFLA_IFNAME && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
                        return mnl_attr_get_str(a);
        return NULL;
}

/* rtnl_dump_ifinfo(): every link, NLM_F_MULTI, then NLMSG_DONE in the same skb (netlink_dump_done). */
static void dump_links(struct nm *m, const struct nlmsghdr *req, struct nm_out *o)
{
        unsigned char *buf = nm_out_new(o);
        size_t off = 0;
        struct nlmsghdr *nlh;

        if (!buf)
                return;
        for (unsigned i = 0; i < m->n_devs; i++) {
                nlh = nm_msg_start(buf + off, req, RTM_NEWLINK, NLM_F_MULTI);
                fill_link(m, nlh, &m->devs[i]);
                off += NLMSG_ALIGN(nlh->nlmsg_len);
        }
        o->len[o->n - 1] = off + nm_put_done(buf + off, req);
}

/* rtnl_getlink(): by ifi_index, else by IFLA_IFNAME; -ENODEV when there is none. */
static int getlink(struct nm *m, const struct nlmsghdr *req, struct nm_out *o, const char **extack)
{
        const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(req);
        const char *name;
        struct nm_dev *d;
        unsigned char *buf;
        struct nlmsghdr *nlh;

        if (req->nlmsg_flags & NLM_F_DUMP) {
                dump_links(m, req, o);
                return 1;               /* the dump's NLMSG_DONE ends it: no ACK */
        }
        if (mnl_nlmsg_get_payload_len(req) < sizeof(*ifi))
                return -EINVAL;
        name = attr_name(req, sizeof(*ifi));
        if (ifi->ifi_index > 0)
                d = nm_dev_by_index(m, ifi->ifi_index);
        else if (name)
                d = nm_dev_by_name(m, name);
        else
                return *extack = "No ifindex or name provided", -EINVAL;
        if (!d)
                return -ENODEV;
        if (!(buf = nm_out_new(o)))
                return -ENOBUFS;
        nlh = nm_msg_start(buf, req, RTM_NEWLINK, 0);
        fill_link(m, nlh, d);
        o->len[o->n - 1] = nlh->nlmsg_len;
        return 0;
}

/* dev_set_mtu_ext(): dev_validate_mtu()'s range check and extack, then ndo_change_mtu. */
int nm_set_mtu(struct nm *m, struct nm_dev *d, uint32_t mtu, const char **ret_extack)
{
        int r;

        if (mtu == d->mtu)
                return 0;
        if (mtu < d->min_mtu) {
                *ret_extack = "mtu less than device minimum";
                return -EINVAL;
        }
        if (d->max_mtu > 0 && mtu > d->max_mtu) {
                *ret_extack = "mtu greater than device maximum";
                return -EINVAL;
        }
        d->n_sets++;
        r = nm_fault(d, NM_OP_SETMTU);
        if (r < 0)
                return r;
        r = d->drv->change_mtu ? d->drv->change_mtu(m, d, mtu) : 0;
        if (r >= 0)
                d->mtu = mtu;
        nm_logf(m, "%s: mtu %u: %d", d->name, mtu, r);
        return r;
}

/* rtnl_setlink()/rtnl_newlink() on an existing link: IFLA_MTU only. */
static int setlink(struct nm *m, const struct nlmsghdr *req, const char **extack)
{
        const struct ifinfomsg *ifi = mnl_nlmsg_get_payload(req);
        const struct nlattr *a;
        const char *name;
        struct nm_dev *d;

        if (mnl_nlmsg_get_payload_len(req) < sizeof(*ifi))
                return -EINVAL;
        name = attr_name(req, sizeof(*ifi));
        d = ifi->ifi_index > 0 ? nm_dev_by_index(m, ifi->ifi_index) : name ? nm_dev_by_name(m, name) : NULL;
        if (!d)
                return -ENODEV;
        mnl_attr_for_each(a, req, sizeof(*ifi)) {
                if (mnl_attr_get_type(a) != IFLA_MTU)
                        continue;
                if (mnl_attr_validate(a, MNL_TYPE_U32) < 0)
                        return -ERANGE;
                return nm_set_mtu(m, d, mnl_attr_get_u32(a), extack);
        }
        return 0;
}

/* ---- dcbnl ---- */

static struct nlmsghdr *dcb_reply(struct nm_out *o, const struct nlmsghdr *req, uint16_t type, uint8_t cmd)
{
        unsigned char *buf = nm_out_new(o);
        struct nlmsghdr *nlh;
        struct dcbmsg *dm;

        if (!buf)
                return NULL;
        nlh = nm_msg_start(buf, req, type, req->nlmsg_flags);     /* dcbnl_newmsg(): the request's flags */
        dm = mnl_nlmsg_put_extra_header(nlh, sizeof(*dm));
        dm->dcb_family = AF_UNSPEC;
        dm->cmd = cmd;
        return nlh;
}

static void reply_end(struct nm_out *o, const struct nlmsghdr *nlh)
{
        o->len[o->n - 1] = nlh->nlmsg_len;
}

/* dcbnl_app_attr_type_get(): PCP entries are DCB_ATTR_DCB_APP, IEEE selectors DCB_ATTR_IEEE_APP. */
static uint16_t app_attr_type(uint8_t selector)
{
        return selector == DCB_APP_SEL_PCP_VAL ? DCB_ATTR_DCB_APP_TYPE : DCB_ATTR_IEEE_APP;
}

/* dcbnl_ieee_fill() */
static void ieee_fill(struct nm *m, struct nm_dev *d, struct nlmsghdr *nlh)
{
        const struct nm_driver *ops = d->drv;
        struct nlattr *ieee, *app;

        mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, d->name);
        ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
        if (ops->getets) {
                struct ieee_ets ets = { 0 };

                if (ops->getets(m, d, &ets) == 0)
                        mnl_attr_put(nlh, DCB_ATTR_IEEE_ETS, sizeof(ets), &ets);
        }
        if (ops->getmaxrate) {
                struct ieee_maxrate r = { 0 };

                if (ops->getmaxrate(m, d, &r) == 0)
                        mnl_attr_put(nlh, DCB_ATTR_IEEE_MAXRATE, sizeof(r), &r);
        }
        if (ops->getpfc) {
                struct ieee_pfc pfc = { 0 };

                if (ops->getpfc(m, d, &pfc) == 0)
                        mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc);
        }
        if (ops->getbuffer) {
                struct dcbnl_buffer b = { 0 };

                if (ops->getbuffer(m, d, &b) == 0)
                        mnl_attr_put(nlh, DCB_ATTR_DCB_BUFFER, sizeof(b), &b);
        }
        app = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE_APP_TABLE);
        for (unsigned i = 0; i < m->n_apps; i++)
                if (m->apps[i].ifindex == d->ifindex)
                        mnl_attr_put(nlh, app_attr_type(m->apps[i].app.selector), sizeof(struct dcb_app),
                                     &m->apps[i].app);
        mnl_attr_nest_end(nlh, app);
        if (ops->getapptrust) {
                uint8_t sel[IEEE_8021QAZ_APP_SEL_MAX + 1] = { 0 };
                struct nlattr *trust = mnl_attr_nest_start(nlh, DCB_ATTR_DCB_APP_TRUST_TABLE);
                int n = 0;

                if (ops->getapptrust(m, d, sel, &n) == 0)
                        for (int i = 0; i < n; i++)
                                mnl_attr_put_u8(nlh, app_attr_type(sel[i]), sel[i]);
                mnl_attr_nest_end(nlh, trust);
        }
        mnl_attr_nest_end(nlh, ieee);
        if (ops->getdcbx)
                mnl_attr_put_u8(nlh, DCB_ATTR_DCBX, ops->getdcbx(m, d));
}

/* The driver's ieee_setapp, else the core's dcb_ieee_setapp(). */
int nm_ieee_setapp(struct nm *m, struct nm_dev *d, struct dcb_app *app)
{
        int r = nm_fault(d, NM_OP_SETAPP);

        if (r == 0)
                r = d->drv->setapp ? d->drv->setapp(m, d, app) : nm_dcb_ieee_setapp(m, d, app);
        nm_logf(m, "%s: setapp %u:%u:%u -> %d", d->name, app->selector, app->protocol, app->priority, r);
        return r;
}

int nm_ieee_delapp(struct nm *m, struct nm_dev *d, struct dcb_app *app)
{
        int r = nm_fault(d, NM_OP_DELAPP);

        if (r == 0)
                r = d->drv->delapp ? d->drv->delapp(m, d, app) : nm_dcb_ieee_delapp(m, d, app);
        nm_logf(m, "%s: delapp %u:%u:%u -> %d", d->name, app->selector, app->protocol, app->priority, r);
        return r;
}

/* dcbnl_app_table_setdel(): typed entries, a selector that fits the type, stop at the first nonzero result. */
static int app_table_setdel(struct nm *m, struct nm_dev *d, const struct nlattr *table, bool del)
{
        const struct nlattr *a;

        mnl_attr_for_each_nested(a, table) {
                uint16_t type = mnl_attr_get_type(a);
                struct dcb_app app;
                int r;

                if (type != DCB_ATTR_IEEE_APP && type != DCB_ATTR_DCB_APP_TYPE)
                        continue;
                if (mnl_attr_get_payload_len(a) < sizeof(app))
                        return -ERANGE;
                memcpy(&app, mnl_attr_get_payload(a), sizeof(app));
                if (type == DCB_ATTR_IEEE_APP ? app.selector < IEEE_8021QAZ_APP_SEL_ETHERTYPE ||
                                                app.selector > IEEE_8021QAZ_APP_SEL_DSCP :
                                                app.selector != DCB_APP_SEL_PCP_VAL)
                        return -EINVAL;
                r = del ? nm_ieee_delapp(m, d, &app) : nm_ieee_setapp(m, d, &app);
                if (r)
                        return r;
        }
        return 0;
}

/*
 * dcbnl_ieee_set(), DCB_ATTR_DCB_APP_TRUST_TABLE: u8 selectors typed like APP
 * entries, no duplicates, then the driver's dcbnl_setapptrust (-EOPNOTSUPP without).
 */
static int set_trust(struct nm *m, struct nm_dev *d, const struct nlattr *table)
{
        uint8_t sel[IEEE_8021QAZ_APP_SEL_MAX + 1] = { 0 };
        const struct nlattr *a;
        int n = 0, r;

        if (!d->drv->setapptrust)
                return -EOPNOTSUPP;
        mnl_attr_for_each_nested(a, table) {
                uint16_t type = mnl_attr_get_type(a);
                uint8_t s;

                if ((type != DCB_ATTR_IEEE_APP && type != DCB_ATTR_DCB_APP_TYPE) ||
                    mnl_attr_get_payload_len(a) != 1 || n >= (int)sizeof(sel))
                        return -EINVAL;
                s = mnl_attr_get_u8(a);
                if (type == DCB_ATTR_IEEE_APP ? s < IEEE_8021QAZ_APP_SEL_ETHERTYPE || s > IEEE_8021QAZ_APP_SEL_DSCP :
                                                s != DCB_APP_SEL_PCP_VAL)
                        return -EINVAL;
                for (int i = 0; i < n; i++)
                        if (sel[i] == s)
                                return -EINVAL;
                sel[n++] = s;
        }
        r = d->drv->setapptrust(m, d, sel, n);
        nm_logf(m, "%s: setapptrust (%d selectors) -> %d", d->name, n, r);
        return r;
}

/* nla_parse_nested(ieee, DCB_ATTR_IEEE_MAX, ..., dcbnl_ieee_policy): minimum lengths. */
static int ieee_parse(const struct nlattr *nest, const struct nlattr **tb)
{
        static const size_t minlen[DCB_ATTR_IEEE_MAX + 1] = {
                [DCB_ATTR_IEEE_ETS] = sizeof(struct ieee_ets),
                [DCB_ATTR_IEEE_PFC] = sizeof(struct ieee_pfc),
                [DCB_ATTR_IEEE_MAXRATE] = sizeof(struct ieee_maxrate),
                [DCB_ATTR_DCB_BUFFER] = sizeof(struct dcbnl_buffer),
        };
        const struct nlattr *a;

        memset(tb, 0, sizeof(*tb) * (DCB_ATTR_DCB_APP_TRUST_TABLE + 1));
        mnl_attr_for_each_nested(a, nest) {
                uint16_t type = mnl_attr_get_type(a);

                if (type > DCB_ATTR_DCB_APP_TRUST_TABLE)
                        continue;
                if (type <= DCB_ATTR_IEEE_MAX && minlen[type] && mnl_attr_get_payload_len(a) < minlen[type])
                        return -ERANGE;
                tb[type] = a;
        }
        return 0;
}

/* A payload copy: attribute data is 4-aligned, struct ieee_pfc wants 8. */
#define PAYLOAD(a, var) memcpy(&(var), mnl_attr_get_payload(a), sizeof(var))

/*
 * dcbnl_ieee_set(), DCB_ATTR_DCB_BUFFER (after PFC, before the APP table): a buffer
 * index of 8 or more is refused by the core (297e77e53ead "net: DCB: Validate
 * DCB_ATTR_DCB_BUFFER argument"), then the driver's dcbnl_setbuffer.
 */
static int set_buffer(struct nm *m, struct nm_dev *d, const struct nlattr *a)
{
        struct dcbnl_buffer b;
        int err;

        PAYLOAD(a, b);
        for (unsigned prio = 0; prio < 8; prio++)
                if (b.prio2buffer[prio] >= DCBX_MAX_BUFFERS)
                        return -EINVAL;
        err = nm_fault(d, NM_OP_SETBUFFER);
        if (!err)
                err = d->drv->setbuffer(m, d, &b);
        nm_logf(m, "%s: setbuffer -> %d", d->name, err);
        return err;
}

/* dcbnl_ieee_set(): ETS, PFC, APP table in that order, stop at the first nonzero result; the result in-band. */
static int ieee_set(struct nm *m, struct nm_dev *d, const struct nlattr *nest, int *ret)
{
        const struct nlattr *tb[DCB_ATTR_DCB_APP_TRUST_TABLE + 1];
        const struct nm_driver *ops = d->drv;
        int err = ieee_parse(nest, tb);

        if (err < 0)
                return err;
        d->n_sets++;
        if (tb[DCB_ATTR_IEEE_ETS] && ops->setets) {
                struct ieee_ets ets;

                PAYLOAD(tb[DCB_ATTR_IEEE_ETS], ets);
                err = nm_fault(d, NM_OP_SETETS);
                if (!err)
                        err = ops->setets(m, d, &ets);
                nm_logf(m, "%s: setets -> %d", d->name, err);
                if (err)
                        goto out;
        }
        if (tb[DCB_ATTR_IEEE_PFC] && ops->setpfc) {
                struct ieee_pfc pfc;

                PAYLOAD(tb[DCB_ATTR_IEEE_PFC], pfc);
                err = nm_fault(d, NM_OP_SETPFC);
                if (!err)
                        err = ops->setpfc(m, d, &pfc);
                nm_logf(m, "%s: setpfc 0x%02x delay %u -> %d", d->name, pfc.pfc_en, pfc.delay, err);
                if (err)
                        goto out;
        }
        if (tb[DCB_ATTR_DCB_BUFFER] && ops->setbuffer) {
                err = set_buffer(m, d, tb[DCB_ATTR_DCB_BUFFER]);
                if (err)
                        goto out;
        }
        if (tb[DCB_ATTR_IEEE_APP_TABLE])
                err = app_table_setdel(m, d, tb[DCB_ATTR_IEEE_APP_TABLE], false);
        if (!err && tb[DCB_ATTR_DCB_APP_TRUST_TABLE])
                err = set_trust(m, d, tb[DCB_ATTR_DCB_APP_TRUST_TABLE]);
out:
        *ret = err;
        return 0;
}

/* dcbnl_ieee_del(): APP entries only. */
static int ieee_del(struct nm *m, struct nm_dev *d, const struct nlattr *nest, int *ret)
{
        const struct nlattr *tb[DCB_ATTR_DCB_APP_TRUST_TABLE + 1];
        int err = ieee_parse(nest, tb);

        if (err < 0)
                return err;
        d->n_sets++;
        *ret = tb[DCB_ATTR_IEEE_APP_TABLE] ? app_table_setdel(m, d, tb[DCB_ATTR_IEEE_APP_TABLE], true) : 0;
        return 0;
}

/* dcb_doit() and the reply_funcs[] this model serves. */
static int dcb_doit(struct nm *m, const struct nlmsghdr *req, struct nm_out *o)
{
        const struct dcbmsg *dm = mnl_nlmsg_get_payload(req);
        const struct nlattr *a, *tb[DCB_ATTR_MAX + 1] = { 0 };
        struct nlmsghdr *nlh;
        struct nm_dev *d;
        int result = 0, r = 0;

        if (mnl_nlmsg_get_payload_len(req) < sizeof(*dm))
                return -EINVAL;
        mnl_attr_for_each(a, req, sizeof(*dm))
                if (mnl_attr_get_type(a) <= DCB_ATTR_MAX)
                        tb[mnl_attr_get_type(a)] = a;
        if (dm->cmd > DCB_CMD_MAX)
                return -EINVAL;
        if (!tb[DCB_ATTR_IFNAME] || mnl_attr_validate(tb[DCB_ATTR_IFNAME], MNL_TYPE_NUL_STRING) < 0)
                return -EINVAL;
        d = nm_dev_by_name(m, mnl_attr_get_str(tb[DCB_ATTR_IFNAME]));
        if (!d)
                return -ENODEV;
        if (!d->drv->has_dcbnl)
                return -EOPNOTSUPP;
        switch (dm->cmd) {
        case DCB_CMD_IEEE_GET:
                if (!(nlh = dcb_reply(o, req, RTM_GETDCB, dm->cmd)))
                        return -ENOBUFS;
                ieee_fill(m, d, nlh);
                break;
        case DCB_CMD_IEEE_SET:
        case DCB_CMD_IEEE_DEL:
                if (!tb[DCB_ATTR_IEEE])
                        return -EINVAL;
                r = dm->cmd == DCB_CMD_IEEE_SET ? ieee_set(m, d, tb[DCB_ATTR_IEEE], &result) :
                                                  ieee_del(m, d, tb[DCB_ATTR_IEEE], &result);
                if (r < 0)
                        return r;
                if (!(nlh = dcb_reply(o, req, RTM_SETDCB, dm->cmd)))
                        return -ENOBUFS;
                mnl_attr_put_u8(nlh, DCB_ATTR_IEEE, (uint8_t)result);   /* nla_put_u8(skb, DCB_ATTR_IEEE, err) */
                break;
        case DCB_CMD_GDCBX:
                if (!d->drv->getdcbx)
                        return -EOPNOTSUPP;
                if (!(nlh = dcb_reply(o, req, RTM_GETDCB, dm->cmd)))
                        return -ENOBUFS;
                mnl_attr_put_u8(nlh, DCB_ATTR_DCBX, d->drv->getdcbx(m, d));
                break;
        case DCB_CMD_SDCBX:
                if (!d->drv->setdcbx)
                        return -EOPNOTSUPP;
                if (!tb[DCB_ATTR_DCBX] || mnl_attr_validate(tb[DCB_ATTR_DCBX], MNL_TYPE_U8) < 0)
                        return -EINVAL;
                d->n_sets++;
                result = nm_fault(d, NM_OP_SETDCBX) ? 1 : d->drv->setdcbx(m, d, mnl_attr_get_u8(tb[DCB_ATTR_DCBX]));
                nm_logf(m, "%s: setdcbx 0x%02x -> %d", d->name, mnl_attr_get_u8(tb[DCB_ATTR_DCBX]), result);
                if (!(nlh = dcb_reply(o, req, RTM_SETDCB, dm->cmd)))
                        return -ENOBUFS;
                mnl_attr_put_u8(nlh, DCB_ATTR_DCBX, (uint8_t)result);
                break;
        default:
                /* The CEE commands exist for these drivers but are not modelled: say so loudly. */
                nm_logf(m, "%s: dcb command %u is not modelled", d->name, dm->cmd);
                return -EOPNOTSUPP;
        }
        reply_end(o, nlh);
        return 0;
}

/* ---- routes: not a NIC's; the kernel of the model's namespace answers (--kernel-routes) ---- */

/* Are the datagram's messages the end of an answer (an error or the ack)? Their pid becomes the model's 0. */
static bool route_answer_end(unsigned char *buf, size_t len)
{
        bool end = false;

        for (struct nlmsghdr *h = (struct nlmsghdr *)buf; mnl_nlmsg_ok(h, (int)len);
             h = mnl_nlmsg_next(h, (int *)&len)) {
                h->nlmsg_pid = 0;
                end |= h->nlmsg_type == NLMSG_ERROR;
        }
        return end;
}

/*
 * One RTM_GETROUTE (not a dump) to a real NETLINK_ROUTE socket; its answer (the
 * route, then the ack when asked for: two datagrams) as the model's own.
 */
static int kernel_route(struct nm *m, const struct nlmsghdr *req, struct nm_out *o)
{
        bool want_ack = req->nlmsg_flags & NLM_F_ACK, end = false;
        struct mnl_socket *nl;
        int r = 1;

        if (!m->kernel_routes || (req->nlmsg_flags & NLM_F_DUMP))
                return -EOPNOTSUPP;
        if (!(nl = mnl_socket_open2(NETLINK_ROUTE, SOCK_CLOEXEC)))
                return -errno;
        if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0 || mnl_socket_sendto(nl, req, req->nlmsg_len) < 0)
                r = -errno;
        for (unsigned k = 0; r == 1 && !end && k < 4; k++) {
                unsigned char *buf = nm_out_new(o);
                ssize_t n;

                if (!buf) {
                        r = -ENOBUFS;
                        break;
                }
                if ((n = mnl_socket_recvfrom(nl, buf, NM_REPLY_MAX)) < 0) {
                        r = -errno;
                        o->n--;
                        break;
                }
                o->len[o->n - 1] = (size_t)n;
                end = route_answer_end(buf, (size_t)n) || !want_ack;
        }
        mnl_socket_close(nl);
        nm_logf(m, "route lookup -> %d", r == 1 ? 0 : r);
        return r;
}

/* ---- dispatch ---- */

static void one(struct nm *m, const struct nlmsghdr *req, struct nm_out *o)
{
        const char *extack = NULL;
        int r;

        m->n_requests++;
        switch (req->nlmsg_type) {
        case RTM_GETLINK: r = getlink(m, req, o, &extack); break;
        case RTM_NEWLINK:
        case RTM_SETLINK: r = setlink(m, req, &extack); break;
        case RTM_GETDCB:
        case RTM_SETDCB: r = dcb_doit(m, req, o); break;
        case RTM_NEWQDISC:
        case RTM_DELQDISC:
        case RTM_GETQDISC: r = nm_tc_request(m, req, o, &extack); break;
        case RTM_GETROUTE: r = kernel_route(m, req, o); break;
        default: r = -EOPNOTSUPP; break;
        }
        if (r == 1)
                return;
        if (r < 0 || (req->nlmsg_flags & NLM_F_ACK))
                nm_put_ack(o, req, r < 0 ? r : 0, r < 0 ? extack : NULL);
}

void nm_request(struct nm *m, const void *buf, size_t len, struct nm_out *out)
{
        const struct nlmsghdr *nlh = buf;
        int rem = (int)len;

        out->n = 0;
        nm_tick(m);
        while (mnl_nlmsg_ok(nlh, rem)) {
                if (nlh->nlmsg_flags & NLM_F_REQUEST)
                        one(m, nlh, out);
                nlh = mnl_nlmsg_next(nlh, &rem);
        }
}
