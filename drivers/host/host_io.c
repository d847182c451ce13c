/* SPDX-License-Identifier: MIT */
/* The host handles of a request: its rtnetlink handle and caches (see host_io.h). */
#include "drivers/host/dcb_nl.h"
#include "drivers/host/host_io.h"
#include "drivers/host/link.h"

int driver_io_rtnl(struct driver_io *io, const struct driver_env *env, struct nl **ret, struct errbuf *e)
{
        if (!io->rtnl) {
                int r = nl_open(env ? env->nl : NULL, NETLINK_ROUTE, &io->rtnl, e);

                if (r < 0)
                        return r;
        }
        *ret = io->rtnl;
        return 0;
}

int driver_rtnl(const struct target *t, struct nl **ret, struct nl **ret_own, struct errbuf *e)
{
        int r;

        *ret_own = NULL;
        if (t->io)
                return driver_io_rtnl(t->io, t->env, ret, e);
        r = nl_open(t->env ? t->env->nl : NULL, NETLINK_ROUTE, ret_own, e);
        if (r >= 0)
                *ret = *ret_own;
        return r;
}

int driver_io_flush(struct driver_io *io, struct errbuf *e)
{
        return io && io->rtnl ? nl_flush(io->rtnl, e) : 0;
}

void driver_io_close(struct driver_io *io)
{
        if (!io)
                return;
        link_cache_free(io->links);
        io->links = NULL;
        dcb_cache_free(io->dcb);
        io->dcb = NULL;
        nl_close(io->rtnl);
        io->rtnl = NULL;
}
