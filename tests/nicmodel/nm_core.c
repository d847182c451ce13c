/* SPDX-License-Identifier: MIT */
/* The model's devices, link timeline, sysfs files, the kernel's APP list and dumps. */
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <time.h>

#include "common/util.h"
#include "tests/nicmodel/nicmodel.h"

static const struct nm_driver *const drivers[] = { &nm_mlx5, &nm_ice, &nm_bnxt, &nm_sparx5, &nm_mlxsw, &nm_veth };

uint64_t nm_now_ms(void)
{
        struct timespec ts;

        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

void nm_logf(struct nm *m, const char *fmt, ...)
{
        va_list ap;

        if (!m->log)
                return;
        va_start(ap, fmt);
        vfprintf(m->log, fmt, ap);
        va_end(ap);
        fputc('\n', m->log);
        fflush(m->log);
}

void nm_init(struct nm *m)
{
        memset(m, 0, sizeof(*m));
        m->flap_delay_ms = 80;
        m->link_up_ms = 0;              /* each driver's own (nm_driver.link_up_ms) */
        m->rdma_lag_ms = 200;
}

void nm_done(struct nm *m)
{
        for (unsigned i = 0; i < m->n_devs; i++)
                free(m->devs[i].priv);
        m->n_devs = 0;
}

const struct nm_driver *nm_driver_by_name(const char *name)
{
        for (size_t i = 0; i < ARRAY_SIZE(drivers); i++)
                if (streq(drivers[i]->name, name))
                        return drivers[i];
        return NULL;
}

struct nm_dev *nm_dev_by_name(struct nm *m, const char *name)
{
        for (unsigned i = 0; i < m->n_devs; i++)
                if (streq(m->devs[i].name, name))
                        return &m->devs[i];
        return NULL;
}

struct nm_dev *nm_dev_by_index(struct nm *m, int ifindex)
{
        for (unsigned i = 0; i < m->n_devs; i++)
                if (m->devs[i].ifindex == ifindex)
                        return &m->devs[i];
        return NULL;
}

/* ":VARIANT[:SPEED]" after DRIVER:NAME:IFINDEX; the variant may be empty ("::400000"). */
static int variant_speed(const char *rest, char *variant, size_t size, uint32_t *speed)
{
        const char *colon = strchr(rest, ':');
        size_t n = colon ? (size_t)(colon - rest) : strlen(rest);
        char *end;
        unsigned long v;

        *speed = NM_SPEED_MBPS;
        if (n >= size)
                return -EINVAL;
        memcpy(variant, rest, n);
        variant[n] = '\0';
        if (!colon)
                return 0;
        v = strtoul(colon + 1, &end, 10);
        if (*end || !v || v > 1600000)
                return -EINVAL;
        *speed = (uint32_t)v;
        return 0;
}

/* "DRIVER:NAME:IFINDEX[:VARIANT[:SPEED]]" */
int nm_add(struct nm *m, const char *spec)
{
        char drv[16] = "", name[IF_NAMESIZE + 1] = "", variant[32] = "", rest[48] = "";
        const struct nm_driver *ops;
        uint32_t speed = NM_SPEED_MBPS;
        struct nm_dev *d;
        int ifindex = 0, n, r;

        n = sscanf(spec, "%15[^:]:%16[^:]:%d:%47s", drv, name, &ifindex, rest);
        if (n < 3 || ifindex <= 0 || strlen(name) >= IF_NAMESIZE || !(ops = nm_driver_by_name(drv)) ||
            variant_speed(rest, variant, sizeof(variant), &speed) < 0) {
                fprintf(stderr, "nicmodel: bad device '%s', expected DRIVER:NAME:IFINDEX[:VARIANT[:SPEED]] "
                        "with DRIVER mlx5, ice, bnxt, sparx5, mlxsw or veth\n", spec);
                return -EINVAL;
        }
        if (m->n_devs >= NM_DEVS_MAX || nm_dev_by_name(m, name) || nm_dev_by_index(m, ifindex)) {
                fprintf(stderr, "nicmodel: device '%s': too many devices or a duplicate name/ifindex\n", spec);
                return -EINVAL;
        }
        d = &m->devs[m->n_devs];
        memset(d, 0, sizeof(*d));
        snprintf(d->name, sizeof(d->name), "%s", name);
        d->ifindex = ifindex;
        d->drv = ops;
        d->mtu = 1500;
        d->speed_mbps = speed;
        d->mac[0] = 0x02;
        d->mac[5] = (uint8_t)ifindex;
        d->carrier = true;
        d->carrier_up_count = 1;        /* the driver's open: carrier off, then on at link up */
        d->carrier_down_count = 1;
        d->rdma_active = true;
        if (ops->rdma_prefix) {
                unsigned same = 0;

                for (unsigned i = 0; i < m->n_devs; i++)
                        same += m->devs[i].drv == ops;
                snprintf(d->rdma, sizeof(d->rdma), "%s%u", ops->rdma_prefix, same);
        }
        d->priv = calloc(1, ops->priv_size ? ops->priv_size : 1);
        if (!d->priv)
                return -ENOMEM;
        r = ops->init(m, d, variant);
        if (r < 0) {
                fprintf(stderr, "nicmodel: device '%s': unknown variant '%s'\n", spec, variant);
                free(d->priv);
                return r;
        }
        m->n_devs++;
        return 0;
}

int nm_fault(struct nm_dev *d, enum nm_op op)
{
        int r = d->fail[op];

        if (r > 0 && d->fail_skip[op]) {
                d->fail_skip[op]--;
                return 0;
        }
        d->fail[op] = 0;
        return r > 0 ? -r : 0;
}

/* ---- sysfs ---- */

int nm_mkdirs(const char *path, unsigned mode)
{
        char buf[PATH_MAX];

        snprintf(buf, sizeof(buf), "%s", path);
        for (char *p = buf + 1; *p; p++) {
                if (*p != '/')
                        continue;
                *p = '\0';
                if (mkdir(buf, 0755) < 0 && errno != EEXIST)
                        return -errno;
                *p = '/';
        }
        if (mkdir(buf, mode) < 0 && errno != EEXIST)
                return -errno;
        return chmod(buf, mode) < 0 ? -errno : 0;
}

static int mkdirs(const char *path)
{
        return nm_mkdirs(path, 0755);
}

int nm_write_file(const char *path, const char *text, unsigned mode)
{
        char tmp[PATH_MAX + 8];
        int fd, r = 0;

        snprintf(tmp, sizeof(tmp), "%s.tmp", path);
        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        if (fd < 0)
                return -errno;
        if (write(fd, text, strlen(text)) != (ssize_t)strlen(text) || fchmod(fd, mode) < 0)
                r = -EIO;
        close(fd);
        if (r >= 0 && rename(tmp, path) < 0)
                r = -errno;
        return r;
}

static int write_file(const char *path, const char *text)
{
        return nm_write_file(path, text, 0444);
}

void nm_bdf(const struct nm_dev *d, char *buf, size_t size)
{
        snprintf(buf, size, "0000:%02x:00.%d", 0x10 + d->ifindex / 2, d->ifindex % 2);
}

/* drivers/infiniband/core/sysfs.c show_port_state(): "4: ACTIVE", "1: DOWN". */
static void rdma_state_file(struct nm *m, const struct nm_dev *d)
{
        char path[PATH_MAX];

        if (!m->sysfs_root[0] || !d->rdma[0])
                return;
        snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/1/state", m->sysfs_root, d->rdma);
        (void)write_file(path, d->rdma_active ? "4: ACTIVE\n" : "1: DOWN\n");
}

/* net-sysfs speed_show(): the ethtool speed, SPEED_UNKNOWN (-1) without a link. */
void nm_sysfs_speed(struct nm *m, const struct nm_dev *d)
{
        char path[PATH_MAX], text[16];

        if (!m->sysfs_root[0])
                return;
        snprintf(path, sizeof(path), "%s/class/net/%s/speed", m->sysfs_root, d->name);
        snprintf(text, sizeof(text), "%d\n", d->carrier ? (int)d->speed_mbps : -1);
        (void)write_file(path, text);
}

int nm_sysfs_create(struct nm *m, struct nm_dev *d)
{
        const char *kdrv = d->kernel_driver[0] ? d->kernel_driver : d->drv->kernel_driver;
        char pci[32], path[PATH_MAX], target[PATH_MAX];
        int r;

        if (m->debugfs_root[0] && d->drv->debugfs_create && (r = d->drv->debugfs_create(m, d)) < 0)
                return r;
        if (!m->sysfs_root[0])
                return 0;
        nm_bdf(d, pci, sizeof(pci));
        snprintf(path, sizeof(path), "%s/bus/pci/drivers/%s", m->sysfs_root, kdrv ? kdrv : d->drv->name);
        if ((r = mkdirs(path)) < 0)
                return r;
        snprintf(path, sizeof(path), "%s/devices/pci0000:00/%s", m->sysfs_root, pci);
        if ((r = mkdirs(path)) < 0)
                return r;
        if (kdrv) {
                snprintf(path, sizeof(path), "%s/devices/pci0000:00/%s/driver", m->sysfs_root, pci);
                snprintf(target, sizeof(target), "../../../bus/pci/drivers/%s", kdrv);
                if (symlink(target, path) < 0 && errno != EEXIST)
                        return -errno;
        }
        snprintf(path, sizeof(path), "%s/class/net/%s", m->sysfs_root, d->name);
        if ((r = mkdirs(path)) < 0)
                return r;
        snprintf(path, sizeof(path), "%s/class/net/%s/device", m->sysfs_root, d->name);
        snprintf(target, sizeof(target), "../../../devices/pci0000:00/%s", pci);
        if (symlink(target, path) < 0 && errno != EEXIST)
                return -errno;
        nm_sysfs_speed(m, d);
        if (!d->rdma[0])
                return 0;
        snprintf(path, sizeof(path), "%s/devices/pci0000:00/%s/infiniband/%s", m->sysfs_root, pci, d->rdma);
        if ((r = mkdirs(path)) < 0)
                return r;
        snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/1/hw_counters", m->sysfs_root, d->rdma);
        if ((r = mkdirs(path)) < 0)
                return r;
        for (const char *const *c = d->drv->hw_counters; c && *c; c++) {
                snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/1/hw_counters/%s", m->sysfs_root,
                         d->rdma, *c);
                if ((r = write_file(path, "0\n")) < 0)
                        return r;
        }
        rdma_state_file(m, d);
        return 0;
}

/* ---- the link timeline ---- */

/* netif_carrier_off(): the RDMA port follows (ib_dispatch_event IB_EVENT_PORT_ERR). */
static void carrier_off(struct nm *m, struct nm_dev *d)
{
        if (!d->carrier)
                return;
        d->carrier = false;
        d->carrier_down_count++;
        d->rdma_active = false;
        d->rdma_active_at_ms = 0;
        rdma_state_file(m, d);
        nm_sysfs_speed(m, d);
        nm_logf(m, "%s: carrier off", d->name);
}

static void carrier_on(struct nm *m, struct nm_dev *d, uint64_t now)
{
        if (d->carrier)
                return;
        d->carrier = true;
        d->carrier_up_count++;
        if (d->rdma[0])
                d->rdma_active_at_ms = now + m->rdma_lag_ms;
        nm_sysfs_speed(m, d);
        nm_logf(m, "%s: carrier on", d->name);
}

/* The model's override, else the driver's own figure for this device. */
static unsigned link_up_ms(const struct nm *m, const struct nm_dev *d)
{
        if (m->link_up_ms)
                return m->link_up_ms;
        return d->drv->link_up_ms ? d->drv->link_up_ms(d) : NM_LINK_UP_MS;
}

void nm_flap(struct nm *m, struct nm_dev *d, unsigned delay_ms)
{
        uint64_t now = nm_now_ms();
        unsigned up = link_up_ms(m, d);

        if (delay_ms == 0) {
                carrier_off(m, d);
                d->down_at_ms = 0;
                d->up_at_ms = now + up;
                return;
        }
        if (!d->down_at_ms || d->down_at_ms > now + delay_ms)
                d->down_at_ms = now + delay_ms;
        if (d->up_at_ms < d->down_at_ms + up)
                d->up_at_ms = d->down_at_ms + up;
}

static uint64_t earliest(uint64_t a, uint64_t b)
{
        return !a ? b : !b ? a : a < b ? a : b;
}

uint64_t nm_tick(struct nm *m)
{
        uint64_t now = nm_now_ms(), next = 0;

        for (unsigned i = 0; i < m->n_devs; i++) {
                struct nm_dev *d = &m->devs[i];

                if (d->drv->files_tick)
                        d->drv->files_tick(m, d);
                if (d->down_at_ms && now >= d->down_at_ms) {
                        d->down_at_ms = 0;
                        carrier_off(m, d);
                }
                if (d->up_at_ms && !d->down_at_ms && now >= d->up_at_ms) {
                        d->up_at_ms = 0;
                        carrier_on(m, d, now);
                }
                if (d->rdma_active_at_ms && now >= d->rdma_active_at_ms) {
                        d->rdma_active_at_ms = 0;
                        d->rdma_active = true;
                        rdma_state_file(m, d);
                        nm_logf(m, "%s: rdma port %s/1 ACTIVE", d->name, d->rdma);
                }
                next = earliest(next, d->down_at_ms);
                next = earliest(next, d->up_at_ms);
                next = earliest(next, d->rdma_active_at_ms);
        }
        return next;
}

/* ---- net/dcb/dcbnl.c: dcb_app_list ---- */

/* dcb_app_lookup(): selector, protocol and (unless prio is -1) priority on this ifindex. */
static int app_lookup(struct nm *m, const struct dcb_app *a, int ifindex, int prio)
{
        for (unsigned i = 0; i < m->n_apps; i++) {
                const struct nm_app *x = &m->apps[i];

                if (x->ifindex == ifindex && x->app.selector == a->selector &&
                    x->app.protocol == a->protocol && (prio == -1 || x->app.priority == prio))
                        return (int)i;
        }
        return -1;
}

/* dcb_ieee_setapp(): an exact duplicate is -EEXIST; dcb_app_add() puts the entry first (list_add). */
int nm_dcb_ieee_setapp(struct nm *m, struct nm_dev *d, const struct dcb_app *app)
{
        if (app_lookup(m, app, d->ifindex, app->priority) >= 0)
                return -EEXIST;
        if (m->n_apps >= NM_APPS_MAX)
                return -ENOMEM;
        memmove(&m->apps[1], &m->apps[0], m->n_apps * sizeof(m->apps[0]));
        m->apps[0] = (struct nm_app){ .ifindex = d->ifindex, .app = *app };
        m->n_apps++;
        return 0;
}

/* dcb_ieee_delapp(): the exact entry or -ENOENT. */
int nm_dcb_ieee_delapp(struct nm *m, struct nm_dev *d, const struct dcb_app *app)
{
        int i = app_lookup(m, app, d->ifindex, app->priority);

        if (i < 0)
                return -ENOENT;
        memmove(&m->apps[i], &m->apps[i + 1], (m->n_apps - (unsigned)i - 1) * sizeof(m->apps[0]));
        m->n_apps--;
        return 0;
}

/* ---- dumps ---- */

static int app_cmp(const void *a, const void *b)
{
        const struct dcb_app *x = a, *y = b;

        if (x->selector != y->selector)
                return x->selector - y->selector;
        if (x->protocol != y->protocol)
                return x->protocol - y->protocol;
        return x->priority - y->priority;
}

/* The list's order is not device state (a removed and re-added entry moves to the front): sorted. */
void nm_dump_apps(struct nm *m, const struct nm_dev *d, FILE *f)
{
        struct dcb_app v[NM_APPS_MAX];
        unsigned n = 0;

        for (unsigned i = 0; i < m->n_apps; i++)
                if (m->apps[i].ifindex == d->ifindex)
                        v[n++] = m->apps[i].app;
        qsort(v, n, sizeof(v[0]), app_cmp);
        fprintf(f, "  app");
        if (!n)
                fprintf(f, " -");
        for (unsigned i = 0; i < n; i++)
                fprintf(f, " %u:%u:%u", v[i].selector, v[i].protocol, v[i].priority);
        fprintf(f, "\n");
}

void nm_dump_u8s(FILE *f, const char *label, const uint8_t *v, unsigned n)
{
        fprintf(f, " %s", label);
        for (unsigned i = 0; i < n; i++)
                fprintf(f, "%s%u", i ? "," : " ", v[i]);
}

void nm_dump(struct nm *m, FILE *f)
{
        nm_tick(m);
        for (unsigned i = 0; i < m->n_devs; i++) {
                const struct nm_dev *d = &m->devs[i];

                fprintf(f, "device %s ifindex %d driver %s\n", d->name, d->ifindex, d->drv->name);
                fprintf(f, "  link mtu %u carrier %s", d->mtu, d->carrier ? "up" : "down");
                if (d->speed_mbps)
                        fprintf(f, " speed %u", d->speed_mbps);
                if (d->rdma[0])
                        fprintf(f, " rdma %s/1 %s", d->rdma, d->rdma_active ? "ACTIVE" : "DOWN");
                fprintf(f, "\n");
                if (d->drv->dump)
                        d->drv->dump(m, d, f);
                if (d->drv->has_dcbnl)
                        nm_dump_apps(m, d, f);
        }
        if (m->n_corrupt)
                fprintf(f, "CORRUPT: %u driver memory overrun(s); see the model's log\n", m->n_corrupt);
}
