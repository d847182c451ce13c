/* SPDX-License-Identifier: MIT */
/*
 * The driver registry: adding a host mechanism = one file + one line here; a switch
 * vendor is a dialect in drivers/switch/ (its own table, switch_dialects[]).
 */
#include <stdarg.h>

#include "drivers/driver.h"
#include "drivers/host/dcb_nl.h"
#include "drivers/host/link_rtnl.h"
#include "drivers/host/nl.h"

extern const struct driver_ops link_driver;
extern const struct driver_ops dcb_driver;
extern const struct driver_ops nic_ecn_driver;
extern const struct driver_ops nic_stall_driver;
extern const struct driver_ops qdisc_driver;
extern const struct driver_ops switch_driver;

const struct driver_ops *const driver_table[] = {
        &link_driver,
        &dcb_driver,
        &nic_ecn_driver,
        &nic_stall_driver,
        &qdisc_driver,
        &switch_driver,
        NULL,
};

unsigned driver_select(const struct driver_ops *const *table, enum target_kind kind, uint32_t fields,
                       const struct driver_ops **ret, unsigned max)
{
        unsigned n = 0;

        for (const struct driver_ops *const *d = table; *d; d++)
                if ((*d)->kind == kind && ((*d)->fields & fields) && n < max)
                        ret[n++] = *d;
        return n;
}

const char *target_kind_name(enum target_kind k)
{
        return k == TARGET_SWITCH ? "switch" : "interface";
}

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

void driver_note(const struct target *t, const char *fmt, ...)
{
        struct driver_io *io = t ? t->io : NULL;
        char text[DRIVER_NOTE_MAX];
        va_list ap;

        if (!io)
                return;
        va_start(ap, fmt);
        vsnprintf(text, sizeof(text), fmt, ap);
        va_end(ap);
        for (unsigned i = 0; i < io->n_notes; i++)
                if (streq(io->notes[i], text))
                        return;
        if (io->n_notes < DRIVER_NOTES_MAX)
                snprintf(io->notes[io->n_notes++], DRIVER_NOTE_MAX, "%s", text);
}
