/* SPDX-License-Identifier: MIT */
/* The "roce-tos" driver: the default ToS of RDMA connections (see roce_tos.h). */
#include <dirent.h>
#include <limits.h>
#include <sys/stat.h>

#include "common/util.h"
#include "drivers/host/host_io.h"
#include "drivers/host/roce_tos.h"
#include "drivers/host/sysfs.h"

#define WRITES_MAX (2 * STATE_RDMA_PORTS_MAX)
#define OFED_GLOBAL "Global tclass="

static const char *sysfs_of(const struct target *t)
{
        return t->env && t->env->sysfs_root[0] ? t->env->sysfs_root : "/sys";
}

static const char *configfs_of(const struct target *t)
{
        return t->env && t->env->configfs_root[0] ? t->env->configfs_root : "/sys/kernel/config";
}

static const char *kdrv(const struct target *t)
{
        return t->kernel_driver[0] ? t->kernel_driver : "unknown";
}

static bool exists(const char *path)
{
        return access(path, F_OK) == 0;
}

/* ---- which RDMA ports are behind the interface ---- */

static void add_port(struct state_roce *r, const char *dev, unsigned port)
{
        struct state_rdma_port *x;

        if (port < 1 || port > 255 || strlen(dev) >= sizeof(x->dev) || r->n_ports >= STATE_RDMA_PORTS_MAX)
                return;
        for (unsigned i = 0; i < r->n_ports; i++)
                if (streq(r->ports[i].dev, dev) && r->ports[i].port == port)
                        return;
        x = &r->ports[r->n_ports++];
        memset(x, 0, sizeof(*x));
        memcpy(x->dev, dev, strlen(dev) + 1);
        x->port = (uint8_t)port;
        x->ofed_tclass = STATE_TCLASS_UNSET;
}

static void add_pci_port(const char *dev, const char *port, void *data)
{
        add_port(data, dev, (unsigned)strtoul(port, NULL, 10));
}

/* Does the first line of SYSFS/class/infiniband/DEV/REL name the interface? */
static bool names_iface(const char *sysfs, const char *dev, const char *rel, const char *ifname)
{
        char path[PATH_MAX], text[64];

        return snprintf(path, sizeof(path), "%s/class/infiniband/%s/%s", sysfs, dev, rel) < (int)sizeof(path) &&
               sysfs_read_line(path, text, sizeof(text)) >= 0 && streq(text, ifname);
}

/* The ports of one device that belong to the interface: all of them (its parent), or those whose GIDs do. */
static void scan_device(const char *sysfs, const char *dev, const char *ifname, struct state_roce *r)
{
        bool parent = names_iface(sysfs, dev, "parent", ifname);
        char dir[PATH_MAX], rel[64];
        struct dirent *de;
        DIR *d;

        snprintf(dir, sizeof(dir), "%s/class/infiniband/%s/ports", sysfs, dev);
        if (!(d = opendir(dir)))
                return;
        while ((de = readdir(d))) {
                bool mine = parent;

                if (de->d_name[0] == '.' || strlen(de->d_name) > 3)
                        continue;
                for (unsigned g = 0; g < 2 && !mine; g++) {
                        snprintf(rel, sizeof(rel), "ports/%s/gid_attrs/ndevs/%u", de->d_name, g);
                        mine = names_iface(sysfs, dev, rel, ifname);
                }
                if (mine)
                        add_port(r, dev, (unsigned)strtoul(de->d_name, NULL, 10));
        }
        closedir(d);
}

static int port_cmp(const void *a, const void *b)
{
        const struct state_rdma_port *x = a, *y = b;
        int c = strcmp(x->dev, y->dev);

        return c ? c : x->port - y->port;
}

/* Paths of a port's two places. */
static void cm_path(const struct target *t, const struct state_rdma_port *x, char *buf, size_t size)
{
        snprintf(buf, size, "%s/rdma_cm/%s/ports/%u/default_roce_tos", configfs_of(t), x->dev, x->port);
}

static void ofed_path(const struct target *t, const struct state_rdma_port *x, char *buf, size_t size)
{
        snprintf(buf, size, "%s/class/infiniband/%s/tc/%u/traffic_class", sysfs_of(t), x->dev, x->port);
}

/*
 * The ports and where each keeps a default: rdma_cm (its configfs is there) and MLNX_OFED
 * (the file is there). A port with neither has nothing to manage and is left out.
 */
/* Does SYSFS/class/infiniband list any device? Asked once per request (a thousand veths, no RDMA). */
static bool any_rdma_device(const struct target *t)
{
        char dir[PATH_MAX];
        struct dirent *de;
        bool any = false;
        DIR *d;

        struct host_io *h = host_io_of(t->io);

        if (h && h->rdma_devices)
                return h->rdma_devices > 0;
        snprintf(dir, sizeof(dir), "%s/class/infiniband", sysfs_of(t));
        if ((d = opendir(dir))) {
                while (!any && (de = readdir(d)))
                        any = de->d_name[0] != '.';
                closedir(d);
        }
        if (h)
                h->rdma_devices = any ? 1 : -1;
        return any;
}

/* Every RDMA port behind the interface, whether or not a default ToS is kept for it. */
static void all_ports(const struct target *t, struct state_roce *r)
{
        char dir[PATH_MAX];
        struct dirent *de;
        DIR *d;

        memset(r, 0, sizeof(*r));
        if (!any_rdma_device(t))
                return;
        sysfs_rdma_ports(sysfs_of(t), t->name, add_pci_port, r);
        snprintf(dir, sizeof(dir), "%s/class/infiniband", sysfs_of(t));
        if ((d = opendir(dir))) {
                while ((de = readdir(d)))
                        if (de->d_name[0] != '.')
                                scan_device(sysfs_of(t), de->d_name, t->name, r);
                closedir(d);
        }
}

static void find_ports(const struct target *t, struct state_roce *r)
{
        char dir[PATH_MAX], path[PATH_MAX];
        bool cm;
        unsigned n = 0;

        all_ports(t, r);
        snprintf(dir, sizeof(dir), "%s/rdma_cm", configfs_of(t));
        cm = exists(dir);
        for (unsigned i = 0; i < r->n_ports; i++) {
                struct state_rdma_port *x = &r->ports[i];

                ofed_path(t, x, path, sizeof(path));
                x->has_cm = cm;
                x->has_ofed = exists(path);
                if (x->has_cm || x->has_ofed)
                        r->ports[n++] = *x;
        }
        r->n_ports = (uint8_t)n;
        qsort(r->ports, n, sizeof(r->ports[0]), port_cmp);
}

/* ---- reading ---- */

static int port_fail(const struct target *t, const struct state_rdma_port *x, int r, const char *what,
                     const char *path, struct errbuf *e)
{
        return errbuf_set(e, r, NULL, "interface '%s' (driver %s): RDMA port %s/%u: %s '%s': %s", t->name, kdrv(t),
                          x->dev, x->port, what, path, strerror(r));
}

/* rdma_cm shows a device's settings once its directory exists: make it where it is missing (and keep it). */
static int read_cm(const struct target *t, struct state_rdma_port *x, struct errbuf *e)
{
        char dir[PATH_MAX], path[PATH_MAX];
        unsigned v;
        int r;

        snprintf(dir, sizeof(dir), "%s/rdma_cm/%s", configfs_of(t), x->dev);
        if (mkdir(dir, 0755) < 0 && errno != EEXIST)
                return port_fail(t, x, errno, "cannot make the rdma_cm configfs directory", dir, e);
        cm_path(t, x, path, sizeof(path));
        r = sysfs_read_uint(path, &v);
        if (r < 0)
                return port_fail(t, x, -r, "cannot read", path, e);
        if (v > 255)
                return port_fail(t, x, EBADMSG, "out of range 0-255", path, e);
        x->cm_tos = (uint8_t)v;
        /*
         * default_roce_mode beside it (cma_configfs.c default_roce_mode_show():
         * ib_cache_gid_type_str(), "IB/RoCE v1" or "RoCE v2"; cma.c cma_add_one()
         * starts every port on RoCE v2 where the device supports it). Read only,
         * best effort: an older kernel without the file leaves it unknown.
         */
        snprintf(path, sizeof(path), "%s/rdma_cm/%s/ports/%u/default_roce_mode", configfs_of(t), x->dev, x->port);
        {
                char text[32];
                int m = sysfs_read_line(path, text, sizeof(text)) >= 0 ? state_roce_mode_from_name(text) : -EINVAL;

                x->roce_mode = m > 0 ? (uint8_t)m : STATE_ROCE_MODE_UNKNOWN;
        }
        return 0;
}

/* "Global tclass=V" on the first line when a global value is set; rules alone or nothing: unset. */
static int read_ofed(const struct target *t, struct state_rdma_port *x, struct errbuf *e)
{
        char path[PATH_MAX], text[128], *end;
        long v;
        int r;

        ofed_path(t, x, path, sizeof(path));
        r = sysfs_read_line(path, text, sizeof(text));
        if (r < 0)
                return port_fail(t, x, -r, "cannot read", path, e);
        x->ofed_tclass = STATE_TCLASS_UNSET;
        if (strncmp(text, OFED_GLOBAL, strlen(OFED_GLOBAL)))
                return 0;
        v = strtol(text + strlen(OFED_GLOBAL), &end, 10);
        if (*end || v < -1 || v > 255)
                return port_fail(t, x, EBADMSG, "unexpected global tclass", path, e);
        x->ofed_tclass = (int16_t)v;
        return 0;
}

int roce_tos_read_ports(const struct target *t, struct state *ret, struct errbuf *e)
{
        struct state_roce r;
        int k = 0;

        find_ports(t, &r);
        for (unsigned i = 0; i < r.n_ports && k >= 0; i++) {
                if (r.ports[i].has_cm)
                        k = read_cm(t, &r.ports[i], e);
                if (k >= 0 && r.ports[i].has_ofed)
                        k = read_ofed(t, &r.ports[i], e);
        }
        if (k < 0)
                return k;
        ret->roce = r;
        ret->roce_tos = !r.n_ports ? 0 : r.ports[0].has_cm ? r.ports[0].cm_tos : (uint8_t)r.ports[0].ofed_tclass;
        return 0;
}

unsigned roce_tos_port_count(const struct target *t)
{
        struct state_roce r;

        all_ports(t, &r);
        return r.n_ports;
}

static int tos_caps(struct target *t, uint32_t *ret_fields, struct errbuf *e)
{
        struct state_roce r;

        find_ports(t, &r);
        *ret_fields = r.n_ports ? STATE_BIT(STATE_FIELD_ROCE_TOS) : 0;
        return 0;
}

static int tos_read(struct target *t, uint32_t fields, struct state *ret, struct errbuf *e)
{
        int r;

        if (!(fields & STATE_BIT(STATE_FIELD_ROCE_TOS)))
                return 0;
        r = roce_tos_read_ports(t, ret, e);
        if (r >= 0 && !ret->roce.n_ports)
                return errbuf_set(e, EOPNOTSUPP, NULL, "interface '%s' (driver %s) has no RDMA port with a default "
                                  "ToS (rdma_cm configfs under '%s' or MLNX_OFED tc/N/traffic_class)", t->name,
                                  kdrv(t), configfs_of(t));
        if (r >= 0)
                ret->present |= STATE_BIT(STATE_FIELD_ROCE_TOS);
        return r;
}

/* ---- writing ---- */

struct tos_write {
        char path[PATH_MAX];
        char what[80];                  /* "rdma_cm rxe0/1 default_roce_tos" */
        bool ofed;
        int old, want;                  /* ofed: -1 = unset */
};

static void add_write(struct tos_write *w, unsigned *n, const struct target *t, const struct state_rdma_port *x,
                      bool ofed, int old, int want)
{
        struct tos_write *y = &w[(*n)++];

        memset(y, 0, sizeof(*y));
        if (ofed)
                ofed_path(t, x, y->path, sizeof(y->path));
        else
                cm_path(t, x, y->path, sizeof(y->path));
        snprintf(y->what, sizeof(y->what), "%s %s/%u %s", ofed ? "MLNX_OFED" : "rdma_cm", x->dev, x->port,
                 ofed ? "traffic_class" : "default_roce_tos");
        y->ofed = ofed;
        y->old = old;
        y->want = want;
}

static const struct state_rdma_port *port_in(const struct state_roce *r, const struct state_rdma_port *x)
{
        for (unsigned i = 0; i < r->n_ports; i++)
                if (streq(r->ports[i].dev, x->dev) && r->ports[i].port == x->port)
                        return &r->ports[i];
        return NULL;
}

/*
 * What makes live equal to want, as the field table compares them: a policy's value in
 * every place of every live port, a snapshot's values port by port (a port gone: refused).
 */
static int plan_writes(const struct target *t, const struct state *want, const struct state *live,
                       struct tos_write *w, unsigned *ret_n, struct errbuf *e)
{
        unsigned n = 0;

        for (unsigned i = 0; i < live->roce.n_ports; i++) {
                const struct state_rdma_port *l = &live->roce.ports[i];
                struct state_rdma_port pw = { .has_cm = true, .cm_tos = want->roce_tos, .has_ofed = true,
                                              .ofed_tclass = want->roce_tos };
                const struct state_rdma_port *x = want->roce.n_ports ? port_in(&want->roce, l) : &pw;

                if (!x)
                        continue;
                if (x->has_cm && l->has_cm && x->cm_tos != l->cm_tos)
                        add_write(w, &n, t, l, false, l->cm_tos, x->cm_tos);
                if (x->has_ofed && l->has_ofed && x->ofed_tclass != l->ofed_tclass)
                        add_write(w, &n, t, l, true, l->ofed_tclass, x->ofed_tclass);
        }
        for (unsigned i = 0; i < want->roce.n_ports; i++)
                if (!port_in(&live->roce, &want->roce.ports[i]))
                        return errbuf_set(e, ENODEV, NULL, "interface '%s' (driver %s): RDMA port %s/%u is gone; "
                                          "its default ToS cannot be put back", t->name, kdrv(t),
                                          want->roce.ports[i].dev, want->roce.ports[i].port);
        *ret_n = n;
        return 0;
}

/* Every file exists and has a write bit (kernfs and configfs refuse writes without one, even to root). */
static int check_writes(const struct target *t, const struct tos_write *w, unsigned n, struct errbuf *e)
{
        for (unsigned i = 0; i < n; i++) {
                struct stat st;

                if (stat(w[i].path, &st) < 0)
                        return errbuf_set(e, errno, NULL, "interface '%s' (driver %s): %s ('%s') does not exist; "
                                          "nothing was changed", t->name, kdrv(t), w[i].what, w[i].path);
                if (S_ISDIR(st.st_mode) || !(st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)))
                        return errbuf_set(e, EACCES, NULL, "interface '%s' (driver %s): %s ('%s') is read-only; "
                                          "nothing was changed", t->name, kdrv(t), w[i].what, w[i].path);
        }
        return 0;
}

static int write_one(const struct tos_write *w, int v)
{
        char text[32];

        if (!w->ofed)
                return sysfs_write_uint(w->path, (unsigned)v);
        snprintf(text, sizeof(text), "tclass=%d\n", v);
        return sysfs_write_line(w->path, text);
}

static int tos_check(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        struct tos_write w[WRITES_MAX];
        unsigned n = 0;
        int r;

        if (!(c->fields & STATE_BIT(STATE_FIELD_ROCE_TOS)) || !state_has(&c->desired[0], STATE_FIELD_ROCE_TOS))
                return 0;
        r = plan_writes(t, &c->desired[0], &c->live[0], w, &n, e);
        return r < 0 ? r : check_writes(t, w, n, e);
}

static int tos_apply(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        struct tos_write w[WRITES_MAX];
        unsigned n = 0;
        int r;

        if (!(c->delta[0] & STATE_BIT(STATE_FIELD_ROCE_TOS)) || !state_has(&c->desired[0], STATE_FIELD_ROCE_TOS))
                return 0;
        r = plan_writes(t, &c->desired[0], &c->live[0], w, &n, e);
        if (r >= 0)
                r = check_writes(t, w, n, e);
        for (unsigned i = 0; r >= 0 && i < n; i++) {
                r = write_one(&w[i], w[i].want);
                if (r >= 0)
                        continue;
                for (unsigned k = i; k-- > 0;)
                        (void)write_one(&w[k], w[k].old);
                r = errbuf_set(e, -r, NULL, "interface '%s' (driver %s): %s: write %d failed: %s; the values written "
                               "before were put back", t->name, kdrv(t), w[i].what, w[i].want, strerror(-r));
        }
        return r;
}

const struct driver_ops roce_tos_driver = {
        .name = "roce-tos",
        .kind = TARGET_INTERFACE,
        .fields = STATE_BIT(STATE_FIELD_ROCE_TOS),
        .caps = tos_caps,
        .check = tos_check,
        .read = tos_read,
        .apply = tos_apply,
};
