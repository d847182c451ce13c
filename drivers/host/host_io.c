/* SPDX-License-Identifier: MIT */
/* The host's part of a request: its rtnetlink handle and caches (see host_io.h). */
#include "drivers/host/dcb_nl.h"
#include "drivers/host/host_io.h"
#include "drivers/host/link.h"

/* The writes queued on the handle while io->batch: sent, their ACKs checked; the first refusal names its target. */
static int host_flush(void *part, struct errbuf *e)
{
        struct host_io *h = part;

        return h->rtnl ? nl_flush(h->rtnl, e) : 0;
}

static void host_close(void *part)
{
        struct host_io *h = part;

        link_cache_free(h->links);
        dcb_cache_free(h->dcb);
        nl_close(h->rtnl);
        free(h);
}

static const struct driver_io_ops host_io_ops = {
        .name = "host",
        .flush = host_flush,
        .close = host_close,
};

struct host_io *host_io_of(struct driver_io *io)
{
        return driver_io_part(io, &host_io_ops, sizeof(struct host_io));
}

struct host_io *host_io_find(const struct driver_io *io)
{
        return driver_io_find(io, &host_io_ops);
}

int driver_io_rtnl(struct driver_io *io, const struct driver_env *env, struct nl **ret, struct errbuf *e)
{
        struct host_io *h = host_io_of(io);

        if (!h)
                return errbuf_set(e, ENOMEM, NULL, "out of memory");
        if (!h->rtnl) {
                int r = nl_open(env ? env->nl : NULL, NETLINK_ROUTE, &h->rtnl, e);

                if (r < 0)
                        return r;
        }
        *ret = h->rtnl;
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
