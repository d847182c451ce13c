/* SPDX-License-Identifier: MIT */
/* devlink over generic netlink: the family's id, the rate objects of one instance (see devlink.h). */
#include <linux/devlink.h>
#include <linux/genetlink.h>

#include "common/util.h"
#include "drivers/host/devlink.h"

static const struct nl_policy ctrl_policy[CTRL_ATTR_MAX + 1] = {
        [CTRL_ATTR_FAMILY_ID] = { MNL_TYPE_U16, 0 },
        [CTRL_ATTR_FAMILY_NAME] = { MNL_TYPE_NUL_STRING, 0 },
};

static const struct nl_policy rate_policy[DEVLINK_ATTR_MAX + 1] = {
        [DEVLINK_ATTR_BUS_NAME] = { MNL_TYPE_NUL_STRING, 0 },
        [DEVLINK_ATTR_DEV_NAME] = { MNL_TYPE_NUL_STRING, 0 },
        [DEVLINK_ATTR_PORT_INDEX] = { MNL_TYPE_U32, 0 },
        [DEVLINK_ATTR_RATE_TYPE] = { MNL_TYPE_U16, 0 },
        [DEVLINK_ATTR_RATE_TX_SHARE] = { MNL_TYPE_U64, 0 },
        [DEVLINK_ATTR_RATE_TX_MAX] = { MNL_TYPE_U64, 0 },
        [DEVLINK_ATTR_RATE_NODE_NAME] = { MNL_TYPE_NUL_STRING, 0 },
        [DEVLINK_ATTR_RATE_PARENT_NODE_NAME] = { MNL_TYPE_NUL_STRING, 0 },
};

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
        const struct nlattr *tb[CTRL_ATTR_MAX + 1];

        if (nl_parse_msg(nlh, sizeof(struct genlmsghdr), ctrl_policy, CTRL_ATTR_MAX, tb) < 0 ||
            !tb[CTRL_ATTR_FAMILY_ID]) {
                errno = EBADMSG;
                return MNL_CB_ERROR;
        }
        *(uint16_t *)data = mnl_attr_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
        return MNL_CB_OK;
}

static struct nlmsghdr *genl_msg(struct nl *nl, uint16_t type, uint16_t flags, uint8_t cmd, uint8_t version)
{
        struct nlmsghdr *nlh = nl_msg_new(nl, type, flags);
        struct genlmsghdr *g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));

        g->cmd = cmd;
        g->version = version;
        return nlh;
}

/* CTRL_CMD_GETFAMILY: -ENOENT when the kernel has no such family. */
static int family_id(struct nl *gnl, const char *name, uint16_t *ret, struct errbuf *e)
{
        struct nlmsghdr *nlh = genl_msg(gnl, GENL_ID_CTRL, 0, CTRL_CMD_GETFAMILY, 1);
        int r;

        *ret = 0;
        if (nl_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name) < 0)
                return errbuf_set(e, EMSGSIZE, NULL, "family name too long");
        r = nl_talk(gnl, nlh, family_cb, ret, "resolve the generic netlink family", e);

        if (r < 0)
                return r;
        return *ret ? 0 : errbuf_set(e, EBADMSG, NULL, "the controller answered without a family id");
}

int devlink_rate_parse(const struct nlmsghdr *nlh, const char *bus, const char *dev, struct devlink_rates *ret)
{
        const struct nlattr *tb[DEVLINK_ATTR_MAX + 1];
        uint64_t share = 0, max = 0;
        int r = nl_parse_msg(nlh, sizeof(struct genlmsghdr), rate_policy, DEVLINK_ATTR_MAX, tb);

        if (r < 0)
                return r;
        if (!tb[DEVLINK_ATTR_BUS_NAME] || !tb[DEVLINK_ATTR_DEV_NAME] || !tb[DEVLINK_ATTR_RATE_TYPE])
                return -EBADMSG;
        if (!streq(mnl_attr_get_str(tb[DEVLINK_ATTR_BUS_NAME]), bus) ||
            !streq(mnl_attr_get_str(tb[DEVLINK_ATTR_DEV_NAME]), dev))
                return 0;
        ret->n++;
        if (tb[DEVLINK_ATTR_RATE_TX_SHARE])
                share = mnl_attr_get_u64(tb[DEVLINK_ATTR_RATE_TX_SHARE]);
        if (tb[DEVLINK_ATTR_RATE_TX_MAX])
                max = mnl_attr_get_u64(tb[DEVLINK_ATTR_RATE_TX_MAX]);
        if (!share && !max)
                return 1;
        if (!ret->configured++) {
                if (mnl_attr_get_u16(tb[DEVLINK_ATTR_RATE_TYPE]) == DEVLINK_RATE_TYPE_NODE &&
                    tb[DEVLINK_ATTR_RATE_NODE_NAME])
                        snprintf(ret->first, sizeof(ret->first), "node %s",
                                 mnl_attr_get_str(tb[DEVLINK_ATTR_RATE_NODE_NAME]));
                else if (tb[DEVLINK_ATTR_PORT_INDEX])
                        snprintf(ret->first, sizeof(ret->first), "leaf %s/%s/%u", bus, dev,
                                 mnl_attr_get_u32(tb[DEVLINK_ATTR_PORT_INDEX]));
                else
                        snprintf(ret->first, sizeof(ret->first), "a rate object");
                ret->first_tx_share = share;
                ret->first_tx_max = max;
        }
        return 1;
}

struct rate_ctx {
        const char *bus, *dev;
        struct devlink_rates *ret;
};

static int rate_cb(const struct nlmsghdr *nlh, void *data)
{
        struct rate_ctx *c = data;
        int r = devlink_rate_parse(nlh, c->bus, c->dev, c->ret);

        if (r < 0) {
                errno = -r;
                return MNL_CB_ERROR;
        }
        return MNL_CB_OK;
}

int devlink_rates_read(struct nl *gnl, const char *bus, const char *dev, struct devlink_rates *ret,
                       struct errbuf *e)
{
        struct rate_ctx c = { .bus = bus, .dev = dev, .ret = ret };
        struct nlmsghdr *nlh;
        uint16_t id;
        int r;

        memset(ret, 0, sizeof(*ret));
        r = family_id(gnl, DEVLINK_GENL_NAME, &id, e);
        if (r < 0)
                return r;
        /* A dump of every instance: a kernel before the dump filter (6.3) ignores the handle. */
        nlh = genl_msg(gnl, id, NLM_F_DUMP, DEVLINK_CMD_RATE_GET, DEVLINK_GENL_VERSION);
        if (nl_put_strz(nlh, DEVLINK_ATTR_BUS_NAME, bus) < 0 || nl_put_strz(nlh, DEVLINK_ATTR_DEV_NAME, dev) < 0)
                return errbuf_set(e, EMSGSIZE, NULL, "devlink handle too long");
        r = nl_talk(gnl, nlh, rate_cb, &c, "read the devlink-rate objects", e);
        return r < 0 ? r : 0;
}
