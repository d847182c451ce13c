/* SPDX-License-Identifier: MIT */
/* Wait for the carrier edge and the RDMA ports after a change that may flap the link. */
#include <limits.h>
#include <time.h>

#include "common/clock.h"
#include "drivers/host/link.h"
#include "drivers/host/sysfs.h"

#define POLL_MS 20

static void nap(void)
{
        nanosleep(&(struct timespec){ .tv_nsec = POLL_MS * 1000000L }, NULL);
}

static const char *root(const struct target *t)
{
        return t->env && t->env->sysfs_root[0] ? t->env->sysfs_root : "/sys";
}

/* drivers/infiniband/core/sysfs.c show_port_state(): "4: ACTIVE". */
static bool port_active(const char *path)
{
        char line[64];

        return sysfs_read_line(path, line, sizeof(line)) == 0 && line[0] == '4';
}

struct port_list {
        const char *sysfs_root;
        char (*v)[320];
        unsigned n, max;
};

static void add_port(const char *dev, const char *port, void *data)
{
        struct port_list *l = data;
        int k;

        if (l->n >= l->max)
                return;
        k = snprintf(l->v[l->n], sizeof(l->v[l->n]), "%s/class/infiniband/%s/ports/%s/state", l->sysfs_root, dev, port);
        if (k > 0 && (size_t)k < sizeof(l->v[l->n]))
                l->n++;
}

/* Mb/s up to which a bound holds: judgement, not a published figure (link.h). */
static const struct {
        uint32_t up_to_mbps;
        unsigned ms;
} bounds[] = {
        { 10000, 3000 }, { 25000, 5000 }, { 50000, 8000 }, { 100000, 10000 },
        { 200000, 15000 }, { 400000, 20000 }, { UINT32_MAX, 30000 },
};

unsigned link_wait_bound_ms(uint32_t speed_mbps, unsigned settle_ms, unsigned max_ms)
{
        unsigned ms = max_ms;

        for (size_t i = 0; speed_mbps && i < ARRAY_SIZE(bounds); i++)
                if (speed_mbps <= bounds[i].up_to_mbps) {
                        ms = bounds[i].ms;
                        break;
                }
        if (ms < settle_ms)
                ms = settle_ms;
        return max_ms && ms > max_ms ? max_ms : ms;
}

/* SYSFS/class/net/IF/speed in Mb/s; 0 when unknown (the kernel prints -1 without a link). */
static uint32_t link_speed(const struct target *t)
{
        char path[PATH_MAX], line[32];
        long v;

        snprintf(path, sizeof(path), "%s/class/net/%s/speed", root(t), t->name);
        if (sysfs_read_line(path, line, sizeof(line)) < 0)
                return 0;
        v = strtol(line, NULL, 10);
        return v > 0 && v < 100000000 ? (uint32_t)v : 0;
}

unsigned link_wait_rdma_ports(const char *sysfs_root, const char *ifname, char (*ret)[320], unsigned max)
{
        struct port_list l = { .sysfs_root = sysfs_root, .v = ret, .max = max };

        sysfs_rdma_ports(sysfs_root, ifname, add_port, &l);
        return l.n;
}

int link_wait_begin(struct nl *nl, const struct target *t, struct link_wait *ret, struct errbuf *e)
{
        char all[LINK_WAIT_PORTS_MAX][320];
        struct link_info l;
        unsigned n;
        int r = link_rtnl_read(t, nl, &l, e);

        if (r < 0)
                return r;
        memset(ret, 0, sizeof(*ret));
        /* a virtual link (veth, bond, ...) has no PHY to renegotiate: nothing to wait for */
        ret->carrier = (l.flags & IFF_LOWER_UP) && !l.kind[0];
        ret->counts = l.has_carrier_counts;
        ret->down_count = l.carrier_down_count;
        if (!ret->carrier)
                return 0;               /* link_wait_end() waits for nothing, RDMA ports included */
        ret->speed_mbps = link_speed(t);
        ret->bound_ms = link_wait_bound_ms(ret->speed_mbps, t->env ? t->env->settle_ms : 0,
                                           t->env ? t->env->link_up_max_ms : 0);
        n = link_wait_rdma_ports(root(t), t->name, all, LINK_WAIT_PORTS_MAX);
        for (unsigned i = 0; i < n; i++)
                if (port_active(all[i]))
                        memcpy(ret->ports[ret->n_ports++], all[i], sizeof(all[i]));
        return 0;
}

static int no_carrier(const struct target *t, const struct link_wait *w, struct errbuf *e)
{
        char speed[32] = "speed unknown";

        if (w->speed_mbps)
                snprintf(speed, sizeof(speed), "%u Mb/s", w->speed_mbps);
        return errbuf_set(e, ETIMEDOUT, NULL, "link has no carrier %u ms after it dropped for the change (the bound "
                          "of a %s link, at least settle_ms %u, at most link_up_max_ms %u)", w->bound_ms, speed,
                          t->env ? t->env->settle_ms : 0, t->env ? t->env->link_up_max_ms : 0);
}

/* Carrier down then up again, or no drop within flap_wait_ms. */
static int wait_edge(struct nl *nl, const struct target *t, const struct link_wait *w, struct errbuf *e)
{
        unsigned settle = w->bound_ms, flap = t->env ? t->env->flap_wait_ms : 0;
        int64_t start = clock_mono_ms(), down_at = 0;
        struct link_info l;

        for (;;) {
                int r = link_rtnl_get(nl, t->ifindex, t->name, &l, e);
                bool up = l.flags & IFF_LOWER_UP;

                if (r < 0)
                        return r;
                if (!down_at && (!up || (w->counts && l.has_carrier_counts && l.carrier_down_count != w->down_count)))
                        down_at = clock_mono_ms();
                if (down_at && up)
                        return 0;
                if (down_at && clock_mono_ms() >= down_at + settle)
                        return no_carrier(t, w, e);
                if (!down_at && clock_mono_ms() >= start + flap)
                        return 0;       /* the link did not flap */
                nap();
        }
}

static int wait_rdma(const struct target *t, const struct link_wait *w, struct errbuf *e)
{
        unsigned bound = t->env ? t->env->rdma_wait_ms : 0;
        int64_t deadline = clock_mono_ms() + bound;

        for (unsigned i = 0; i < w->n_ports; i++) {
                while (!port_active(w->ports[i])) {
                        if (clock_mono_ms() >= deadline)
                                return errbuf_set(e, ETIMEDOUT, NULL,
                                                  "RDMA port '%s' is not ACTIVE %u ms after the change (rdma_wait_ms)",
                                                  w->ports[i], bound);
                        nap();
                }
        }
        return 0;
}

int link_wait_end(struct nl *nl, const struct target *t, const struct link_wait *w, struct errbuf *e)
{
        int r;

        if (!w->carrier)
                return 0;
        r = wait_edge(nl, t, w, e);
        return r < 0 ? r : wait_rdma(t, w, e);
}
