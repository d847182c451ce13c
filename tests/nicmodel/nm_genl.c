/* SPDX-License-Identifier: MIT */
/*
 * The kernel side of a NETLINK_GENERIC conversation, for the devices of a model:
 *   - the generic netlink controller (net/netlink/genetlink.c ctrl_getfamily()):
 *     CTRL_CMD_GETFAMILY by CTRL_ATTR_FAMILY_NAME, answered for "devlink" only
 *     (-ENOENT for any other family, as for a kernel without it);
 *   - devlink's rate objects (net/devlink/rate.c devlink_nl_rate_get_dumpit(),
 *     devlink_nl_rate_fill()): DEVLINK_CMD_RATE_GET as a dump of every device's
 *     objects under its devlink handle pci/BDF, each a DEVLINK_CMD_RATE_NEW message.
 * Acks and errors as in nm_netlink.c (NETLINK_CAP_ACK, no extack text).
 */
#include <linux/devlink.h>
#include <linux/genetlink.h>
#include <libmnl/libmnl.h>

#include "common/util.h"
#include "tests/nicmodel/nicmodel.h"

static struct nlmsghdr *genl_start(unsigned char *buf, const struct nlmsghdr *req, uint16_t type,
                                   uint16_t flags, uint8_t cmd)
{
        struct nlmsghdr *nlh = nm_msg_start(buf, req, type, flags);
        struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

        g->cmd = cmd;
        g->version = 1;
        return nlh;
}

static const char *family_name(const struct nlmsghdr *req)
{
        const struct nlattr *a;

        mnl_attr_for_each(a, req, sizeof(struct genlmsghdr))
                if (mnl_attr_get_type(a) == CTRL_ATTR_FAMILY_NAME && mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
                        return mnl_attr_get_str(a);
        return NULL;
}

/* ctrl_getfamily() -> ctrl_fill_info(): the family's id, name, version (the ops and groups left out). */
static int getfamily(const struct nlmsghdr *req, struct nm_out *o)
{
        const char *name = family_name(req);
        unsigned char *buf;
        struct nlmsghdr *nlh;

        if (!name)
                return -EINVAL;
        if (!streq(name, DEVLINK_GENL_NAME))
                return -ENOENT;
        if (!(buf = nm_out_new(o)))
                return -ENOBUFS;
        nlh = genl_start(buf, req, GENL_ID_CTRL, 0, CTRL_CMD_NEWFAMILY);
        mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, DEVLINK_GENL_NAME);
        mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, NM_DEVLINK_FAMILY);
        mnl_attr_put_u32(nlh, CTRL_ATTR_VERSION, DEVLINK_GENL_VERSION);
        mnl_attr_put_u32(nlh, CTRL_ATTR_HDRSIZE, 0);
        mnl_attr_put_u32(nlh, CTRL_ATTR_MAXATTR, DEVLINK_ATTR_MAX);
        o->len[o->n - 1] = nlh->nlmsg_len;
        return 0;
}

/* devlink_nl_rate_fill(): the handle, the type, the port or node name, the rates, the parent. */
static void fill_rate(struct nlmsghdr *nlh, const char *bdf, const struct nm_rate *r)
{
        mnl_attr_put_strz(nlh, DEVLINK_ATTR_BUS_NAME, "pci");
        mnl_attr_put_strz(nlh, DEVLINK_ATTR_DEV_NAME, bdf);
        mnl_attr_put_u16(nlh, DEVLINK_ATTR_RATE_TYPE, r->node ? DEVLINK_RATE_TYPE_NODE : DEVLINK_RATE_TYPE_LEAF);
        if (r->node)
                mnl_attr_put_strz(nlh, DEVLINK_ATTR_RATE_NODE_NAME, r->name);
        else
                mnl_attr_put_u32(nlh, DEVLINK_ATTR_PORT_INDEX, r->port_index);
        mnl_attr_put_u64(nlh, DEVLINK_ATTR_RATE_TX_SHARE, r->tx_share);
        mnl_attr_put_u64(nlh, DEVLINK_ATTR_RATE_TX_MAX, r->tx_max);
        if (r->parent[0])
                mnl_attr_put_strz(nlh, DEVLINK_ATTR_RATE_PARENT_NODE_NAME, r->parent);
}

/* devlink_nl_rate_get_dumpit(): every device's objects, NLM_F_MULTI, then NLMSG_DONE. */
static int dump_rates(struct nm *m, const struct nlmsghdr *req, struct nm_out *o)
{
        unsigned char *buf = nm_out_new(o);
        struct nlmsghdr *nlh;
        size_t off = 0;

        if (!buf)
                return -ENOBUFS;
        for (unsigned i = 0; i < m->n_devs; i++) {
                const struct nm_dev *d = &m->devs[i];
                struct nm_rate v[NM_RATES_MAX];
                char bdf[32];
                unsigned n;

                if (!d->drv->rates)
                        continue;
                n = d->drv->rates(m, d, v, NM_RATES_MAX);
                nm_bdf(d, bdf, sizeof(bdf));
                for (unsigned k = 0; k < n && off + 512 < NM_REPLY_MAX; k++) {
                        nlh = genl_start(buf + off, req, NM_DEVLINK_FAMILY, NLM_F_MULTI, DEVLINK_CMD_RATE_NEW);
                        fill_rate(nlh, bdf, &v[k]);
                        off += NLMSG_ALIGN(nlh->nlmsg_len);
                }
        }
        o->len[o->n - 1] = off + nm_put_done(buf + off, req);
        return 1;
}

static int handle(struct nm *m, const struct nlmsghdr *req, struct nm_out *o)
{
        const struct genlmsghdr *g = mnl_nlmsg_get_payload(req);

        if (mnl_nlmsg_get_payload_len(req) < sizeof(*g))
                return -EINVAL;
        if (req->nlmsg_type == GENL_ID_CTRL && g->cmd == CTRL_CMD_GETFAMILY)
                return getfamily(req, o);
        if (req->nlmsg_type == NM_DEVLINK_FAMILY && g->cmd == DEVLINK_CMD_RATE_GET && (req->nlmsg_flags & NLM_F_DUMP))
                return dump_rates(m, req, o);
        return -EOPNOTSUPP;
}

void nm_genl_request(struct nm *m, const void *buf, size_t len, struct nm_out *out)
{
        const struct nlmsghdr *nlh = buf;
        int n = (int)len;

        out->n = 0;
        nm_tick(m);
        m->n_requests++;
        for (; mnl_nlmsg_ok(nlh, n); nlh = mnl_nlmsg_next(nlh, &n)) {
                int r;

                if (!(nlh->nlmsg_flags & NLM_F_REQUEST))
                        continue;
                r = handle(m, nlh, out);
                if (r < 0 || (r == 0 && (nlh->nlmsg_flags & NLM_F_ACK)))
                        nm_put_ack(out, nlh, r < 0 ? r : 0, NULL);
        }
}
