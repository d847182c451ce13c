/* SPDX-License-Identifier: MIT */
/* The "nic-ecn" driver: DCQCN RP/NP enables and CNP marking over sysfs. */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include "drivers/host/ecn_dcqcn.h"
#include "drivers/host/ecn_sysfs.h"
#include "drivers/host/link_rtnl.h"
#include "drivers/host/sysfs.h"

#define KNOBS_MAX (2 * STATE_PRIO_COUNT + 2 + STATE_DCQCN_MAX)

struct knob {
        char rel[48];                   /* "roce_np/enable/3": named in messages */
        char path[PATH_MAX];
        unsigned old;
        unsigned want;
        bool written;
};

static const char *kdrv(const struct target *t)
{
        return t->kernel_driver[0] ? t->kernel_driver : "unknown";
}

static void ecn_dir(const struct target *t, char *buf, size_t size)
{
        snprintf(buf, size, "%s/class/net/%s/ecn", t->env ? t->env->sysfs_root : "/sys", t->name);
}

static bool exists(const char *path)
{
        return access(path, F_OK) == 0;
}

static int pci_name(const struct target *t, char *buf, size_t size);

/* Where a target's knobs are: the MLNX_OFED sysfs tree, or upstream mlx5's debugfs cc_params (CNP only). */
enum backend {
        BACKEND_NONE,
        BACKEND_OFED,
        BACKEND_CC_PARAMS,
};

struct place {
        enum backend b;
        char dir[PATH_MAX];
};

static void cc_dir(const struct target *t, const char *pci, char *buf, size_t size)
{
        snprintf(buf, size, "%s/mlx5/%s/cc_params", t->env ? t->env->debugfs_root : "/sys/kernel/debug", pci);
}

static void place_of(const struct target *t, struct place *p)
{
        char pci[128], knob[PATH_MAX + 16];

        ecn_dir(t, p->dir, sizeof(p->dir));
        p->b = BACKEND_NONE;
        if (pci_name(t, pci, sizeof(pci)) == -ENXIO)
                return;         /* a virtual link: the NIC driver makes both trees under a device */
        p->b = BACKEND_OFED;
        if (exists(p->dir))
                return;
        p->b = BACKEND_NONE;
        if (pci_name(t, pci, sizeof(pci)) < 0)
                return;
        cc_dir(t, pci, p->dir, sizeof(p->dir));
        snprintf(knob, sizeof(knob), "%s/np_cnp_dscp", p->dir);
        if (exists(knob))
                p->b = BACKEND_CC_PARAMS;
}

/* The CNP knobs' names: roce_np/cnp_dscp and roce_np/cnp_802p_prio, or cc_params np_cnp_dscp and np_cnp_prio. */
static const char *cnp_dscp_knob(const struct place *p)
{
        return p->b == BACKEND_OFED ? "roce_np/cnp_dscp" : "np_cnp_dscp";
}

static const char *cnp_prio_knob(const struct place *p)
{
        return p->b == BACKEND_OFED ? "roce_np/cnp_802p_prio" : "np_cnp_prio";
}

static int knob_path(const struct place *p, const char *rel, char *buf, size_t size)
{
        int n = snprintf(buf, size, "%s/%s", p->dir, rel);

        return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

static int ecn_caps(struct target *t, uint32_t *ret_fields, struct errbuf *e)
{
        struct place p;

        place_of(t, &p);
        *ret_fields = p.b != BACKEND_NONE ? STATE_BIT(STATE_FIELD_HOST_ECN) : 0;
        return 0;
}

static int knob_fail(const struct target *t, const char *rel, int r, const char *what, struct errbuf *e)
{
        return errbuf_set(e, r, NULL, "interface '%s' (driver %s): NIC ECN knob '%s' %s",
                          t->name, kdrv(t), rel, what);
}

/* Read one knob of the live state; ENOENT = the knob does not exist here. */
static int read_knob(const struct target *t, const struct place *pl, const char *rel, unsigned *ret,
                     struct errbuf *e)
{
        char path[PATH_MAX];
        int r;

        r = knob_path(pl, rel, path, sizeof(path));
        if (r >= 0)
                r = sysfs_read_uint(path, ret);
        if (r < 0 && r != -ENOENT) {
                char why[128];

                snprintf(why, sizeof(why), "cannot be read: %s", strerror(-r));
                return knob_fail(t, rel, r, why, e);
        }
        return r;
}

static int read_prio(const struct target *t, const struct place *pl, unsigned p, struct state_host_ecn *h,
                     struct errbuf *e)
{
        char rp[48], np[48];
        unsigned v_rp, v_np;
        int r1, r2;

        snprintf(rp, sizeof(rp), "roce_rp/enable/%u", p);
        snprintf(np, sizeof(np), "roce_np/enable/%u", p);
        r1 = read_knob(t, pl, rp, &v_rp, e);
        if (r1 < 0 && r1 != -ENOENT)
                return r1;
        r2 = read_knob(t, pl, np, &v_np, e);
        if (r2 < 0 && r2 != -ENOENT)
                return r2;
        if (r1 < 0 || r2 < 0)
                return 0;               /* priority not described: both knobs needed */
        h->prios |= 1u << p;
        h->rp_enabled |= (v_rp ? 1u : 0u) << p;
        h->np_enabled |= (v_np ? 1u : 0u) << p;
        return 0;
}

/* Every DCQCN parameter this layout has (a kernel without one has no file: not read). */
static int read_dcqcn(const struct target *t, const struct place *pl, struct state_host_ecn *h, struct errbuf *e)
{
        for (unsigned p = 0; p < STATE_DCQCN_MAX; p++) {
                unsigned v;
                int r = read_knob(t, pl, ecn_dcqcn_file(p, pl->b == BACKEND_OFED), &v, e);

                if (r == -ENOENT)
                        continue;
                if (r < 0)
                        return r;
                h->dcqcn[p] = v;
                h->dcqcn_set |= 1u << p;
        }
        return 0;
}

static int ecn_read(struct target *t, uint32_t fields, struct state *ret, struct errbuf *e)
{
        struct state_host_ecn h = { 0 };
        struct place pl;
        unsigned dscp, prio;
        int r1, r2;

        if (!(fields & STATE_BIT(STATE_FIELD_HOST_ECN)))
                return 0;
        place_of(t, &pl);
        if (pl.b == BACKEND_NONE) {
                char dir[PATH_MAX];

                ecn_dir(t, dir, sizeof(dir));
                return errbuf_set(e, EOPNOTSUPP, NULL,
                                  "interface '%s' (driver %s) has no NIC ECN knobs (no '%s')",
                                  t->name, kdrv(t), dir);
        }
        /* debugfs cc_params have no per-priority enables: no priority is described */
        for (unsigned p = 0; pl.b == BACKEND_OFED && p < STATE_PRIO_COUNT; p++) {
                int r = read_prio(t, &pl, p, &h, e);

                if (r < 0)
                        return r;
        }
        r1 = read_knob(t, &pl, cnp_dscp_knob(&pl), &dscp, e);
        if (r1 < 0 && r1 != -ENOENT)
                return r1;
        r2 = read_knob(t, &pl, cnp_prio_knob(&pl), &prio, e);
        if (r2 < 0 && r2 != -ENOENT)
                return r2;
        if (r1 == 0 && r2 == 0) {
                h.has_cnp = true;
                h.cnp_dscp = (uint8_t)(dscp & 0x3f);
                h.cnp_prio = (uint8_t)(prio & 0x7);
        }
        r1 = read_dcqcn(t, &pl, &h, e);
        if (r1 < 0)
                return r1;
        ret->host_ecn = h;
        ret->present |= STATE_BIT(STATE_FIELD_HOST_ECN);
        return 0;
}

/* ---- apply ---- */

/* A knob "BASE" (prio < 0) or "BASE/PRIO". */
static void add_knob(struct knob *k, unsigned *n, const char *base, int prio, unsigned want)
{
        struct knob *x = &k[(*n)++];

        memset(x, 0, sizeof(*x));
        if (prio < 0)
                snprintf(x->rel, sizeof(x->rel), "%s", base);
        else
                snprintf(x->rel, sizeof(x->rel), "%s/%d", base, prio);
        x->want = want;
}

static unsigned plan_knobs(const struct place *pl, const struct state_host_ecn *d, struct knob *k)
{
        unsigned n = 0;

        for (unsigned p = 0; p < STATE_PRIO_COUNT; p++) {
                if (!(d->prios & (1u << p)))
                        continue;
                add_knob(k, &n, "roce_rp/enable", (int)p, (d->rp_enabled >> p) & 1u);
                add_knob(k, &n, "roce_np/enable", (int)p, (d->np_enabled >> p) & 1u);
        }
        if (d->has_cnp) {
                add_knob(k, &n, cnp_dscp_knob(pl), -1, d->cnp_dscp);
                add_knob(k, &n, cnp_prio_knob(pl), -1, d->cnp_prio);
        }
        for (unsigned p = 0; p < STATE_DCQCN_MAX; p++)
                if (d->dcqcn_set & (1u << p))
                        add_knob(k, &n, ecn_dcqcn_file(p, pl->b == BACKEND_OFED), -1, d->dcqcn[p]);
        return n;
}

/*
 * Upstream mlx5 (drivers/infiniband/hw/mlx5/cong.c) writes the firmware's
 * np_cnp_dscp and np_cnp_prio (which also sets np_cnp_prio_mode to 0) through
 * debugfs; it has no per-priority reaction/notification point enables.
 */
static int cc_params_only(const struct target *t, const struct state_host_ecn *d, struct errbuf *e)
{
        if (!d->prios)
                return 0;
        return errbuf_set(e, EOPNOTSUPP, NULL,
                          "interface '%s' (driver %s): per-priority reaction/notification point enables need the "
                          "MLNX_OFED sysfs knobs (class/net/%s/ecn); this driver offers only cnp_dscp and "
                          "cnp_priority (debugfs cc_params); nothing was changed", t->name, kdrv(t), t->name);
}

/* Every knob exists, is writable (a write bit, like sysfs checks) and readable. */
static int check_knobs(const struct target *t, const struct place *pl, struct knob *k, unsigned n, struct errbuf *e)
{
        for (unsigned i = 0; i < n; i++) {
                struct stat st;
                int r;

                if (knob_path(pl, k[i].rel, k[i].path, sizeof(k[i].path)) < 0)
                        return knob_fail(t, k[i].rel, ENAMETOOLONG, "path is too long; nothing was changed", e);
                if (stat(k[i].path, &st) < 0)
                        return knob_fail(t, k[i].rel, errno, "does not exist; nothing was changed", e);
                if (S_ISDIR(st.st_mode) || !(st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)))
                        return knob_fail(t, k[i].rel, EACCES, "is read-only; nothing was changed", e);
                r = sysfs_read_uint(k[i].path, &k[i].old);
                if (r < 0)
                        return knob_fail(t, k[i].rel, r, "cannot be read; nothing was changed", e);
        }
        return 0;
}

static void undo_knobs(struct knob *k, unsigned n)
{
        for (unsigned i = n; i-- > 0;)
                if (k[i].written)
                        (void)sysfs_write_uint(k[i].path, k[i].old);
}

/* Every knob the desired value names exists and can be written: what apply would refuse. */
static int ecn_check(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        const struct state *d = &c->desired[0];
        struct knob k[KNOBS_MAX];
        struct place pl;
        int r;

        if (!(c->fields & STATE_BIT(STATE_FIELD_HOST_ECN)) || !state_has(d, STATE_FIELD_HOST_ECN))
                return 0;
        place_of(t, &pl);
        if (pl.b == BACKEND_CC_PARAMS && (r = cc_params_only(t, &d->host_ecn, e)) < 0)
                return r;
        return check_knobs(t, &pl, k, plan_knobs(&pl, &d->host_ecn, k), e);
}

static int ecn_apply(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        const struct state *d = &c->desired[0];
        struct knob k[KNOBS_MAX];
        struct place pl;
        unsigned n;
        int r;

        if (!(c->delta[0] & STATE_BIT(STATE_FIELD_HOST_ECN)) || !state_has(d, STATE_FIELD_HOST_ECN))
                return 0;
        place_of(t, &pl);
        if (pl.b == BACKEND_CC_PARAMS && (r = cc_params_only(t, &d->host_ecn, e)) < 0)
                return r;
        n = plan_knobs(&pl, &d->host_ecn, k);
        r = check_knobs(t, &pl, k, n, e);
        if (r < 0)
                return r;
        for (unsigned i = 0; i < n; i++) {
                if (k[i].old == k[i].want)
                        continue;
                r = sysfs_write_uint(k[i].path, k[i].want);
                if (r < 0) {
                        char why[160];

                        undo_knobs(k, i);
                        snprintf(why, sizeof(why), "write %u failed: %s; the knobs written before were restored",
                                 k[i].want, strerror(-r));
                        return knob_fail(t, k[i].rel, r, why, e);
                }
                k[i].written = true;
        }
        return 0;
}

/* ---- debugfs cc_params (read-only report) ---- */

/* The PCI function of the netdev (its device link), read once per request. */
static int pci_name(const struct target *t, char *buf, size_t size)
{
        return link_rtnl_device(t, buf, size);
}

int ecn_sysfs_cc_params(const struct target *t, struct ecn_sysfs_param *ret, unsigned max,
                        unsigned *ret_n, struct errbuf *e)
{
        char pci[128], dir[PATH_MAX], path[PATH_MAX + 64];
        struct dirent *de;
        unsigned n = 0;
        DIR *d;

        *ret_n = 0;
        if (pci_name(t, pci, sizeof(pci)) < 0)
                return 0;
        cc_dir(t, pci, dir, sizeof(dir));
        d = opendir(dir);
        if (!d)
                return 0;
        while ((de = readdir(d)) && n < max) {
                unsigned v;

                if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof(ret[n].name))
                        continue;
                if (snprintf(path, sizeof(path), "%s/%s", dir, de->d_name) >= (int)sizeof(path) ||
                    sysfs_read_uint(path, &v) < 0)
                        continue;
                memcpy(ret[n].name, de->d_name, strlen(de->d_name) + 1);
                ret[n++].value = v;
        }
        closedir(d);
        *ret_n = n;
        return 0;
}

const struct driver_ops nic_ecn_driver = {
        .name = "nic-ecn",
        .kind = TARGET_INTERFACE,
        .fields = STATE_BIT(STATE_FIELD_HOST_ECN),
        .caps = ecn_caps,
        .check = ecn_check,
        .read = ecn_read,
        .apply = ecn_apply,
};
