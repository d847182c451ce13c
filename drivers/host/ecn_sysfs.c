/* SPDX-License-Identifier: MIT */
/* The "nic-ecn" driver: DCQCN RP/NP enables and CNP marking over sysfs or debugfs (see ecn_sysfs.h). */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <sys/stat.h>

#include "drivers/host/ecn_dcqcn.h"
#include "drivers/host/ecn_sysfs.h"
#include "drivers/host/link.h"
#include "drivers/host/sysfs.h"

/* Where a target's knobs are: the MLNX_OFED sysfs tree, upstream mlx5's debugfs cc_params, bnxt_re's cc_config. */
enum backend {
        BACKEND_NONE,
        BACKEND_OFED,
        BACKEND_CC_PARAMS,
        BACKEND_BNXT_CC,
};

struct place {
        enum backend b;
        char dir[PATH_MAX];
        int why;                        /* BACKEND_NONE: why not cc_params (errno), 0 when not looked for */
};

/*
 * The knobs that are one value each, in the order they are written. A new
 * congestion parameter is one row (its member of struct state_host_ecn, its file in
 * each tree). `max` is the firmware field's width: the kernel does not check a
 * value, MLX5_SET masks it (cong.c set_param(), en_ecn.c), so nettune refuses what
 * would not fit. A detail row is device state, read and put back by a restore after
 * the others (writing np_cnp_prio also writes cnp_prio_mode 0:
 * mlx5_ib_set_cc_param_mask_val()), never a policy's. A policy's cnp_priority is the
 * fixed priority of every CNP (mode 0): where the mode reads otherwise, np_cnp_prio
 * is written even when it already holds that priority, and the field table lists the
 * mode's change (policies/state/field.c).
 */
struct scalar {
        const char *key;                /* state JSON, messages */
        const char *ofed;               /* under class/net/IF/ecn; NULL: not in that tree */
        const char *cc;                 /* under cc_params; NULL: not there */
        const char *bnxt;               /* under bnxt_re's cc_config; NULL: not there */
        unsigned max;
        size_t off;                     /* uint8_t in struct state_host_ecn */
        size_t has_off;                 /* its bool "present" (rows may share one) */
        bool detail;
};

#define HE(m) offsetof(struct state_host_ecn, m)

static const struct scalar scalars[] = {
        { "cnp_dscp", "roce_np/cnp_dscp", "np_cnp_dscp", "alt_vlan_dscp", 63, HE(cnp_dscp), HE(has_cnp), false },
        { "cnp_priority", "roce_np/cnp_802p_prio", "np_cnp_prio", "alt_vlan_pcp", 7, HE(cnp_prio), HE(has_cnp), false },
        { "cnp_priority_mode", NULL, "np_cnp_prio_mode", NULL, 1, HE(cnp_prio_mode), HE(has_prio_mode), true },
};

#define KNOBS_MAX (2 * STATE_PRIO_COUNT + ARRAY_SIZE(scalars) + STATE_DCQCN_MAX)

struct knob {
        char rel[48];                   /* "roce_np/enable/3", "np_cnp_prio": named in messages */
        char path[PATH_MAX];
        unsigned old;
        unsigned want;
        bool detail;                    /* read again just before it is written */
        bool written;
};

static const char *kdrv(const struct target *t)
{
        return t->kernel_driver[0] ? t->kernel_driver : "unknown";
}

static const char *scalar_rel(const struct scalar *s, const struct place *p)
{
        return p->b == BACKEND_OFED ? s->ofed : p->b == BACKEND_CC_PARAMS ? s->cc : p->b == BACKEND_BNXT_CC ? s->bnxt : NULL;
}

static uint8_t *value_of(struct state_host_ecn *h, const struct scalar *s)
{
        return (uint8_t *)h + s->off;
}

static bool *has_of(struct state_host_ecn *h, const struct scalar *s)
{
        return (bool *)((char *)h + s->has_off);
}

/* ---- where ---- */

static void ecn_dir(const struct target *t, char *buf, size_t size)
{
        snprintf(buf, size, "%s/class/net/%s/ecn", t->env ? t->env->sysfs_root : "/sys", t->name);
}

static void cc_dir(const struct target *t, const char *pci, char *buf, size_t size)
{
        snprintf(buf, size, "%s/mlx5/%s/cc_params", t->env ? t->env->debugfs_root : "/sys/kernel/debug", pci);
}

/* bnxt_re_debugfs_add_pdev() (hw/bnxt_re/debugfs.c, 656dff55da19): bnxt_re/PCI/cc_config, a 0400 file per parameter. */
static void bnxt_cc_dir(const struct target *t, const char *pci, char *buf, size_t size)
{
        snprintf(buf, size, "%s/bnxt_re/%s/cc_config", t->env ? t->env->debugfs_root : "/sys/kernel/debug", pci);
}

/* The PCI function of the netdev (its device link), read once per request. */
static int pci_name(const struct target *t, char *buf, size_t size)
{
        return link_rtnl_device(t, buf, size);
}

static void place_of(const struct target *t, struct place *p)
{
        char pci[128], knob[PATH_MAX + 16];
        struct stat st;
        int r = pci_name(t, pci, sizeof(pci));

        memset(p, 0, sizeof(*p));
        if (r == -ENXIO)
                return;         /* a virtual link: the NIC driver makes both trees under a device */
        ecn_dir(t, p->dir, sizeof(p->dir));
        p->b = BACKEND_OFED;
        if (access(p->dir, F_OK) == 0)
                return;
        p->b = BACKEND_NONE;
        if (r < 0)
                return;
        cc_dir(t, pci, p->dir, sizeof(p->dir));
        snprintf(knob, sizeof(knob), "%s/np_cnp_dscp", p->dir);
        if (stat(knob, &st) == 0) {
                p->b = BACKEND_CC_PARAMS;
                return;
        }
        p->why = errno;
        if (!streq(kdrv(t), "bnxt_en"))
                return;
        bnxt_cc_dir(t, pci, p->dir, sizeof(p->dir));
        snprintf(knob, sizeof(knob), "%s/enable_cc", p->dir);
        if (stat(knob, &st) == 0)
                p->b = BACKEND_BNXT_CC;
        else
                p->why = errno;
}

/* Why an mlx5 port has no knobs here, for the reader of a plan or of state. */
static void note_unreachable(const struct target *t, const struct place *p)
{
        const char *cc = strstr(p->dir, "mlx5/");

        if (p->b != BACKEND_NONE || !p->why || !streq(kdrv(t), "mlx5_core") || !cc)
                return;
        if (p->why == EACCES)
                driver_note(t, "interface '%s' (driver mlx5_core): no MLNX_OFED tree (class/net/%s/ecn), and debugfs "
                            "%s cannot be read by this user: debugfs is root's; the service needs "
                            "CAP_DAC_OVERRIDE", t->name, t->name, cc);
        else
                driver_note(t, "interface '%s' (driver mlx5_core): no MLNX_OFED tree (class/net/%s/ecn) and no debugfs "
                            "%s (%s): debugfs not mounted at debugfs_root, or a VF", t->name, t->name, cc,
                            strerror(p->why));
}

static int ecn_caps(struct target *t, uint32_t *ret_fields, struct errbuf *e)
{
        struct place p;

        place_of(t, &p);
        note_unreachable(t, &p);
        *ret_fields = p.b != BACKEND_NONE ? STATE_BIT(STATE_FIELD_HOST_ECN) : 0;
        return 0;
}

/* ---- read ---- */

static int knob_fail(const struct target *t, const char *rel, int r, const char *what, struct errbuf *e)
{
        return errbuf_set(e, r, NULL, "interface '%s' (driver %s): NIC ECN knob '%s' %s",
                          t->name, kdrv(t), rel, what);
}

static int knob_path(const struct place *p, const char *rel, char *buf, size_t size)
{
        int n = snprintf(buf, size, "%s/%s", p->dir, rel);

        return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

/* One knob of the live state; ENOENT = the knob does not exist here. An empty read is an error (en_ecn.c). */
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

/* Every scalar of the backend; rows sharing a presence flag are present only together. */
static int read_scalars(const struct target *t, const struct place *pl, struct state_host_ecn *h, struct errbuf *e)
{
        bool missing[ARRAY_SIZE(scalars)] = { false };

        for (size_t i = 0; i < ARRAY_SIZE(scalars); i++) {
                const char *rel = scalar_rel(&scalars[i], pl);
                unsigned v = 0;
                int r = rel ? read_knob(t, pl, rel, &v, e) : -ENOENT;

                if (r < 0 && r != -ENOENT)
                        return r;
                missing[i] = r < 0;
                *value_of(h, &scalars[i]) = (uint8_t)(v & scalars[i].max);
        }
        for (size_t i = 0; i < ARRAY_SIZE(scalars); i++)
                *has_of(h, &scalars[i]) = true;
        for (size_t i = 0; i < ARRAY_SIZE(scalars); i++)
                if (missing[i])
                        *has_of(h, &scalars[i]) = false;
        return 0;
}

/*
 * The DCQCN parameters (spec.host_ecn.dcqcn) this tree has: 32-bit values in a
 * bitmap of their own (ecn_dcqcn.h names each file); a kernel without one has no
 * file, and it is not read.
 */
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

/*
 * Upstream mlx5 has no per-priority enables (cong.c): DCQCN runs where the
 * firmware's NV ROCE_CC_PRIO_MASK says, every priority by default (NVIDIA's DCQCN
 * parameters table, "Enable"; mlxconfig shows 255), and no kernel interface reads
 * it. They are described as that default and said to be assumed.
 */
static void assume_default_enables(const struct target *t, struct state_host_ecn *h)
{
        h->prios = h->rp_enabled = h->np_enabled = 0xff;
        driver_note(t, "interface '%s' (driver %s): the upstream driver cannot read the per-priority DCQCN "
                    "enables: taken as the firmware's default, on for every priority (NV ROCE_CC_PRIO_MASK), "
                    "and not verified", t->name, kdrv(t));
}

/*
 * bnxt_re has one switch for congestion control, for every priority: cc_config/enable_cc
 * (bnxt_qplib_cc_param.enable, CMDQ_MODIFY_ROCE_CC_MODIFY_MASK_ENABLE_CC; the driver
 * turns it on at load, main.c bnxt_re_setup_cc()): both points of every priority.
 */
static int bnxt_enables(const struct target *t, const struct place *pl, struct state_host_ecn *h, struct errbuf *e)
{
        unsigned on;
        int r = read_knob(t, pl, "enable_cc", &on, e);

        if (r < 0)
                return r == -ENOENT ? knob_fail(t, "enable_cc", r, "does not exist", e) : r;
        h->prios = 0xff;
        h->rp_enabled = h->np_enabled = on ? 0xff : 0;
        return 0;
}

static int ecn_read(struct target *t, uint32_t fields, struct state *ret, struct errbuf *e)
{
        struct state_host_ecn h = { 0 };
        struct place pl;
        int r = 0;

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
        if (pl.b == BACKEND_CC_PARAMS)
                assume_default_enables(t, &h);
        if (pl.b == BACKEND_BNXT_CC)
                r = bnxt_enables(t, &pl, &h, e);
        for (unsigned p = 0; pl.b == BACKEND_OFED && p < STATE_PRIO_COUNT && r >= 0; p++)
                r = read_prio(t, &pl, p, &h, e);
        if (r >= 0)
                r = read_scalars(t, &pl, &h, e);
        if (r >= 0)
                r = read_dcqcn(t, &pl, &h, e);
        if (r < 0)
                return r;
        ret->host_ecn = h;
        ret->present |= STATE_BIT(STATE_FIELD_HOST_ECN);
        return 0;
}

/* ---- check and apply ---- */

/* A knob "BASE" (prio < 0) or "BASE/PRIO". */
static void add_knob(struct knob *k, unsigned *n, const char *base, int prio, unsigned want, bool detail)
{
        struct knob *x = &k[(*n)++];

        memset(x, 0, sizeof(*x));
        if (prio < 0)
                snprintf(x->rel, sizeof(x->rel), "%s", base);
        else
                snprintf(x->rel, sizeof(x->rel), "%s/%d", base, prio);
        x->want = want;
        x->detail = detail;
}

/* The knobs of d on this backend, in the order they are written: enables (MLNX_OFED), then the scalars. */
static unsigned plan_knobs(const struct place *pl, const struct state_host_ecn *d, struct knob *k)
{
        struct state_host_ecn want = *d;
        unsigned n = 0;

        if (pl->b == BACKEND_BNXT_CC && d->prios)
                add_knob(k, &n, "enable_cc", -1, (d->rp_enabled & d->prios) ? 1 : 0, false);
        for (unsigned p = 0; pl->b == BACKEND_OFED && p < STATE_PRIO_COUNT; p++) {
                if (!(d->prios & (1u << p)))
                        continue;
                add_knob(k, &n, "roce_rp/enable", (int)p, (d->rp_enabled >> p) & 1u, false);
                add_knob(k, &n, "roce_np/enable", (int)p, (d->np_enabled >> p) & 1u, false);
        }
        for (size_t i = 0; i < ARRAY_SIZE(scalars); i++) {
                const char *rel = scalar_rel(&scalars[i], pl);

                if (rel && *has_of(&want, &scalars[i]))
                        add_knob(k, &n, rel, -1, *value_of(&want, &scalars[i]), scalars[i].detail);
        }
        for (unsigned p = 0; p < STATE_DCQCN_MAX; p++)
                if (d->dcqcn_set & (1u << p))
                        add_knob(k, &n, ecn_dcqcn_file(p, pl->b == BACKEND_OFED), -1, d->dcqcn[p], false);
        return n;
}

/*
 * With the upstream driver the enables cannot be written (cong.c has none: only
 * MODIFY_CONG_STATUS, which only MLNX_OFED and fwctl issue): a policy may ask for
 * what the firmware does by default, DCQCN on, and nothing less.
 */
static int cc_params_enables(const struct target *t, const struct state_host_ecn *d, struct errbuf *e)
{
        uint8_t off = (uint8_t)(d->prios & ~(d->rp_enabled & d->np_enabled));
        char list[32] = "";
        size_t n = 0;

        if (!off)
                return 0;       /* on, the default: the read's note says it is not verified */
        for (unsigned p = 0; p < STATE_PRIO_COUNT; p++)
                if (off & (1u << p))
                        n += (size_t)snprintf(list + n, sizeof(list) - n, "%s%u", n ? "," : "", p);
        return errbuf_set(e, EOPNOTSUPP, NULL,
                          "interface '%s' (driver %s): host_ecn turns DCQCN off on priority %s, but the upstream "
                          "driver cannot change the per-priority enables (debugfs cc_params has none; the firmware "
                          "runs DCQCN on every priority by default); use MLNX_OFED (class/net/%s/ecn/roce_rp/enable/P "
                          "and roce_np/enable/P) or set NV ROCE_CC_PRIO_MASK_P1 with mlxconfig and reboot, or keep "
                          "reaction_point and notification_point true; nothing was changed",
                          t->name, kdrv(t), list, t->name);
}

/*
 * bnxt_re's one enable_cc stands for both points of every priority: a policy's
 * enables must be one value for both, and turning it off reaches every priority, so
 * the policy must name all eight (nettune manages only what is declared).
 */
static int bnxt_cc_enables(const struct target *t, const struct state_host_ecn *d, struct errbuf *e)
{
        uint8_t rp = d->rp_enabled & d->prios, np = d->np_enabled & d->prios;

        if (!d->prios || ((rp == d->prios || rp == 0) && rp == np && (rp || d->prios == 0xff)))
                return 0;
        return errbuf_set(e, EOPNOTSUPP, NULL,
                          "interface '%s' (driver %s): bnxt_re has one congestion control switch for both points of "
                          "every priority (debugfs cc_config/enable_cc): host_ecn must turn the reaction and "
                          "notification points on together, and off only on all eight priorities; nothing was changed",
                          t->name, kdrv(t));
}

/* Exists, is writable by this user (the mode bits, as kernfs checks, and access(2)), reads, takes the value. */
static int check_knob(const struct target *t, const struct place *pl, struct knob *k, unsigned max, struct errbuf *e)
{
        struct stat st;
        char why[160];
        int r;

        if (knob_path(pl, k->rel, k->path, sizeof(k->path)) < 0)
                return knob_fail(t, k->rel, ENAMETOOLONG, "path is too long; nothing was changed", e);
        if (stat(k->path, &st) < 0 && errno == EACCES) {
                snprintf(why, sizeof(why), "cannot be reached by this user (uid %u): the service needs "
                         "CAP_DAC_OVERRIDE", (unsigned)geteuid());
                return knob_fail(t, k->rel, EACCES, why, e);
        }
        if (stat(k->path, &st) < 0)
                return knob_fail(t, k->rel, errno, "does not exist; nothing was changed", e);
        /* debugfs checks no mode bits for root (bnxt_re makes its cc_config 0400 and takes writes), kernfs does */
        if (S_ISDIR(st.st_mode) || (!(st.st_mode & (S_IWUSR | S_IWGRP | S_IWOTH)) &&
                                    (pl->b != BACKEND_BNXT_CC || geteuid() != 0)))
                return knob_fail(t, k->rel, EACCES, "is read-only; nothing was changed", e);
        /* root's access(2) ignores the mode bits (kernfs does not: those decided above); another user's does not */
        if (geteuid() != 0 && faccessat(AT_FDCWD, k->path, W_OK, AT_EACCESS) < 0) {
                snprintf(why, sizeof(why), "cannot be written by this user (uid %u; the file is uid %u's, mode "
                         "%04o): the service needs CAP_DAC_OVERRIDE", (unsigned)geteuid(), (unsigned)st.st_uid,
                         (unsigned)(st.st_mode & 07777));
                return knob_fail(t, k->rel, EACCES, why, e);
        }
        if (k->want > max) {
                snprintf(why, sizeof(why), "takes 0-%u (the firmware field is masked, not checked); %u is out of range; "
                         "nothing was changed", max, k->want);
                return knob_fail(t, k->rel, ERANGE, why, e);
        }
        r = sysfs_read_uint(k->path, &k->old);
        if (r < 0)
                return knob_fail(t, k->rel, r, "cannot be read; nothing was changed", e);
        return 0;
}

static unsigned knob_max(const struct knob *k)
{
        for (size_t i = 0; i < ARRAY_SIZE(scalars); i++)
                if ((scalars[i].ofed && streq(k->rel, scalars[i].ofed)) || (scalars[i].cc && streq(k->rel, scalars[i].cc)) ||
                    (scalars[i].bnxt && streq(k->rel, scalars[i].bnxt)))
                        return scalars[i].max;
        for (unsigned p = 0; p < STATE_DCQCN_MAX; p++)
                if (streq(k->rel, ecn_dcqcn_file(p, true)) || streq(k->rel, ecn_dcqcn_file(p, false)))
                        return state_dcqcn_params[p].max;
        return 1;               /* an enable */
}

static int check_knobs(const struct target *t, const struct place *pl, struct knob *k, unsigned n, struct errbuf *e)
{
        for (unsigned i = 0; i < n; i++) {
                int r = check_knob(t, pl, &k[i], knob_max(&k[i]), e);

                if (r < 0)
                        return r;
        }
        return 0;
}

/* The same knobs, every one the change needs checked, before the first write. */
static int prepare(struct target *t, const struct state *d, struct place *pl, struct knob *k, unsigned *ret_n,
                   struct errbuf *e)
{
        int r = 0;

        place_of(t, pl);
        if (pl->b == BACKEND_CC_PARAMS)
                r = cc_params_enables(t, &d->host_ecn, e);
        if (pl->b == BACKEND_BNXT_CC)
                r = bnxt_cc_enables(t, &d->host_ecn, e);
        if (r >= 0 && pl->b == BACKEND_BNXT_CC && d->host_ecn.dcqcn_set)
                r = errbuf_set(e, EOPNOTSUPP, NULL, "interface '%s' (driver %s): host_ecn.dcqcn names mlx5's DCQCN "
                               "parameters; bnxt_re's cc_config has its own (g, init_cr, init_tr, rtt, ...), which "
                               "nettune does not manage; nothing was changed", t->name, kdrv(t));
        if (r < 0)
                return r;
        *ret_n = plan_knobs(pl, &d->host_ecn, k);
        return check_knobs(t, pl, k, *ret_n, e);
}

/* Every knob the desired value names exists and can be written: what apply would refuse. */
static int ecn_check(struct target *t, const struct driver_change *c, struct errbuf *e)
{
        const struct state *d = &c->desired[0];
        struct knob k[KNOBS_MAX];
        struct place pl;
        unsigned n;

        if (!(c->fields & STATE_BIT(STATE_FIELD_HOST_ECN)) || !state_has(d, STATE_FIELD_HOST_ECN))
                return 0;
        return prepare(t, d, &pl, k, &n, e);
}

/* Back to what was read, in writing order (a priority written again resets mlx5's mode: then the mode). */
static void undo_knobs(struct knob *k, unsigned n, const struct place *pl, bool had_mode, unsigned mode)
{
        char path[PATH_MAX];

        for (unsigned i = 0; i < n; i++)
                if (k[i].written)
                        (void)sysfs_write_uint(k[i].path, k[i].old);
        if (had_mode && knob_path(pl, "np_cnp_prio_mode", path, sizeof(path)) >= 0)
                (void)sysfs_write_uint(path, mode);
}

static int write_knobs(const struct target *t, const struct place *pl, struct knob *k, unsigned n, struct errbuf *e)
{
        char path[PATH_MAX];
        unsigned mode = 0;
        bool had_mode = pl->b == BACKEND_CC_PARAMS && knob_path(pl, "np_cnp_prio_mode", path, sizeof(path)) >= 0 &&
                        sysfs_read_uint(path, &mode) >= 0;
        bool wrote_prio = false, has_mode_knob = false;

        for (unsigned i = 0; i < n; i++) {
                int r = 0;

                if (k[i].detail)
                        r = sysfs_read_uint(k[i].path, &k[i].old);      /* an earlier write may have changed it */
                /* np_cnp_prio with a mode other than 0 is written even when equal: the write sets mode 0 */
                if (r >= 0 && k[i].old == k[i].want && !(mode && streq(k[i].rel, "np_cnp_prio")))
                        continue;
                if (r >= 0)
                        r = sysfs_write_uint(k[i].path, k[i].want);
                if (r < 0) {
                        char why[160];

                        undo_knobs(k, i, pl, had_mode, mode);
                        snprintf(why, sizeof(why), "write %u failed: %s; the knobs written before were restored",
                                 k[i].want, strerror(-r));
                        return knob_fail(t, k[i].rel, r, why, e);
                }
                k[i].written = true;
                wrote_prio |= streq(k[i].rel, "np_cnp_prio");
                has_mode_knob |= streq(k[i].rel, "np_cnp_prio_mode");
        }
        /*
         * The priority's write set mode 0 in the firmware; a policy (no mode of its own to
         * put) writes the 0 as well, so that the file says so at once, whatever the read
         * after it sees. A failure undoes the rest.
         */
        if (wrote_prio && mode && !has_mode_knob) {
                int r = sysfs_write_uint(path, 0);

                if (r < 0) {
                        char why[160];

                        undo_knobs(k, n, pl, had_mode, mode);
                        snprintf(why, sizeof(why), "write 0 failed: %s; the knobs written before were restored",
                                 strerror(-r));
                        return knob_fail(t, "np_cnp_prio_mode", r, why, e);
                }
        }
        return 0;
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
        r = prepare(t, d, &pl, k, &n, e);
        return r < 0 ? r : write_knobs(t, &pl, k, n, e);
}

/* ---- debugfs cc_params (read-only report) ---- */

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
