/* SPDX-License-Identifier: MIT */
/* The "link" driver: interface MTU over rtnetlink (see link.h). */
#include "drivers/host/host_io.h"
#include "drivers/host/link.h"

/* The MTU, queued on the request's handle (nl_queue): a refusal names the interface. */
static int queue_mtu(struct nl *nl, const struct target *t, uint32_t mtu, struct errbuf *e)
{
        struct nlmsghdr *nlh = link_rtnl_mtu_msg(nl, t->ifindex, mtu);
        char where[96], what[64], num[24];

        /* Every queued change carries these (for its refusal): no formatting on the way. */
        strcat2(where, sizeof(where), "interface '", t->name);
        strcat2(where, sizeof(where), where, "'");
        if (!nlh)
                return errbuf_set(e, EMSGSIZE, where, "set mtu: request too large");
        strcat2(what, sizeof(what), "set mtu ", fmt_ulong(num, mtu));
        return nl_queue(nl, nlh, where, what, e);
}

static int link_caps(struct target *t, uint32_t *ret_fields, struct errbuf *e)
{
        *ret_fields = STATE_BIT(STATE_FIELD_MTU);
        return 0;
}

/* The kernel refuses an MTU outside the link's range (dev_validate_mtu()): say so before anything changes. */
static int link_check(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        uint32_t mtu = c->desired[0].mtu;

        if (!(c->fields & STATE_BIT(STATE_FIELD_MTU)))
                return 0;
        if ((t->min_mtu && mtu < t->min_mtu) || (t->max_mtu && mtu > t->max_mtu))
                return errbuf_set(e, ERANGE, NULL, "interface '%s' (driver %s): mtu %u out of the kernel's range "
                                  "%u-%u for this link; nothing was changed", t->name,
                                  t->kernel_driver[0] ? t->kernel_driver : "unknown", mtu, t->min_mtu,
                                  t->max_mtu ? t->max_mtu : UINT32_MAX);
        return 0;
}

static int link_read(struct target *t, uint32_t fields, struct state *ret, struct errbuf *e)
{
        _cleanup_nl_ struct nl *own = NULL;
        struct link_info l;
        struct nl *nl;
        int r;

        if (!(fields & STATE_BIT(STATE_FIELD_MTU)))
                return 0;
        r = driver_rtnl(t, &nl, &own, e);
        if (r >= 0)
                r = link_rtnl_read(t, nl, &l, e);
        if (r < 0)
                return link_rtnl_where(t, e, r);
        ret->mtu = l.mtu;
        ret->present |= STATE_BIT(STATE_FIELD_MTU);
        return 0;
}

static int link_apply(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        _cleanup_nl_ struct nl *own = NULL;
        struct link_wait w;
        struct nl *nl;
        int r;

        if (!(c->delta[0] & STATE_BIT(STATE_FIELD_MTU)))
                return 0;
        r = driver_rtnl(t, &nl, &own, e);
        if (r >= 0)
                r = link_wait_begin(nl, t, &w, e);
        /* Nothing to wait for and a transaction's apply: the ACK is collected with the others'. */
        if (r >= 0 && !w.carrier && t->io && t->io->batch)
                return queue_mtu(nl, t, c->desired[0].mtu, e);
        /* ice and bnxt reopen the netdev for a new MTU: wait for the link like after DCB changes */
        if (r >= 0)
                r = link_rtnl_set_mtu(nl, t->ifindex, c->desired[0].mtu, e);
        if (r >= 0)
                r = link_wait_end(nl, t, &w, e);
        return r < 0 ? link_rtnl_where(t, e, r) : 0;
}

const struct driver_ops link_driver = {
        .name = "link",
        .kind = TARGET_INTERFACE,
        .fields = STATE_BIT(STATE_FIELD_MTU),
        .caps = link_caps,
        .check = link_check,
        .read = link_read,
        .apply = link_apply,
};
