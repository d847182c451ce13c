/* SPDX-License-Identifier: MIT */
/*
 * The "nic-ecn" driver against a fake sysfs tree in the MLNX_OFED layout.
 * "Read-only" knobs are files without write bits: the driver judges them by the
 * mode bits as kernfs does (root can write a 0444 regular file, sysfs refuses).
 * A write that fails midway is produced with the immutable attribute
 * (FS_IOC_SETFLAGS), which stops even root; skipped where the file system
 * lacks it.
 */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "drivers/host/ecn_dcqcn.h"
#include "drivers/host/ecn_sysfs.h"
#include "policies/state/field.h"
#include "tests/lib/drvtest.h"
#include "tests/nicmodel/nm_transport.h"

static char root[64];
static struct driver_env env;
static struct target tgt;

static void put(const char *rel, const char *text)
{
        char path[256];
        FILE *f;

        snprintf(path, sizeof(path), "%s/class/net/mlx0/ecn/%s", root, rel);
        f = fopen(path, "we");
        CU_ASSERT_FATAL(f != NULL);
        fputs(text, f);
        fclose(f);
}

static unsigned get(const char *rel)
{
        char path[256], buf[16] = "";
        FILE *f;

        snprintf(path, sizeof(path), "%s/class/net/mlx0/ecn/%s", root, rel);
        f = fopen(path, "re");
        if (!f)
                return 999;
        if (!fgets(buf, sizeof(buf), f))
                buf[0] = '\0';
        fclose(f);
        return (unsigned)strtoul(buf, NULL, 10);
}

static void build_tree(void)
{
        char cmd[512];

        snprintf(root, sizeof(root), "/tmp/nettune-sysfs.XXXXXX");
        CU_ASSERT_FATAL(mkdtemp(root) != NULL);
        snprintf(cmd, sizeof(cmd), "mkdir -p %s/class/net/mlx0/ecn/roce_rp/enable %s/class/net/mlx0/ecn/roce_np/enable",
                 root, root);
        CU_ASSERT_FATAL(system(cmd) == 0);
        for (unsigned p = 0; p < 8; p++) {
                char rel[64];

                snprintf(rel, sizeof(rel), "roce_rp/enable/%u", p);
                put(rel, "0\n");
                snprintf(rel, sizeof(rel), "roce_np/enable/%u", p);
                put(rel, p == 1 ? "1\n" : "0\n");
        }
        put("roce_np/cnp_dscp", "0\n");
        put("roce_np/cnp_802p_prio", "0\n");
        memset(&env, 0, sizeof(env));
        snprintf(env.sysfs_root, sizeof(env.sysfs_root), "%s", root);
        snprintf(env.debugfs_root, sizeof(env.debugfs_root), "%s/debug", root);
        memset(&tgt, 0, sizeof(tgt));
        tgt.kind = TARGET_INTERFACE;
        snprintf(tgt.name, sizeof(tgt.name), "mlx0");
        snprintf(tgt.kernel_driver, sizeof(tgt.kernel_driver), "mlx5_core");
        tgt.env = &env;
}

static void remove_tree(void)
{
        char cmd[128];

        snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
        CU_ASSERT(system(cmd) == 0);
}

static void desired(struct state *d)
{
        state_init(d);
        d->present = STATE_BIT(STATE_FIELD_HOST_ECN);
        d->host_ecn.prios = 0x08;
        d->host_ecn.rp_enabled = 0x08;
        d->host_ecn.np_enabled = 0x08;
        d->host_ecn.has_cnp = true;
        d->host_ecn.cnp_dscp = 48;
        d->host_ecn.cnp_prio = 6;
}

static void test_read_apply_restore(void)
{
        struct state before, want, after;
        struct errbuf e;
        uint32_t caps = 0;

        build_tree();
        CU_ASSERT(nic_ecn_driver.caps(&tgt, &caps, &e) == 0);
        CU_ASSERT_EQUAL(caps, STATE_BIT(STATE_FIELD_HOST_ECN));
        state_init(&before);
        CU_ASSERT_FATAL(nic_ecn_driver.read(&tgt, caps, &before, &e) == 0);
        CU_ASSERT_EQUAL(before.host_ecn.prios, 0xff);
        CU_ASSERT_EQUAL(before.host_ecn.rp_enabled, 0);
        CU_ASSERT_EQUAL(before.host_ecn.np_enabled, 0x02);
        CU_ASSERT(before.host_ecn.has_cnp);
        desired(&want);
        CU_ASSERT(drvtest_apply(&nic_ecn_driver, &tgt, &want, &e) == 0);
        CU_ASSERT_EQUAL(get("roce_rp/enable/3"), 1);
        CU_ASSERT_EQUAL(get("roce_np/enable/3"), 1);
        CU_ASSERT_EQUAL(get("roce_np/enable/1"), 1);            /* not managed: untouched */
        CU_ASSERT_EQUAL(get("roce_np/cnp_dscp"), 48);
        CU_ASSERT_EQUAL(get("roce_np/cnp_802p_prio"), 6);
        state_init(&after);
        CU_ASSERT(nic_ecn_driver.read(&tgt, caps, &after, &e) == 0);
        CU_ASSERT_EQUAL(after.host_ecn.rp_enabled, 0x08);
        CU_ASSERT_EQUAL(after.host_ecn.np_enabled, 0x0a);
        CU_ASSERT(drvtest_restore(&nic_ecn_driver, &tgt, &before, &e) == 0);
        CU_ASSERT_EQUAL(get("roce_rp/enable/3"), 0);
        CU_ASSERT_EQUAL(get("roce_np/enable/1"), 1);
        CU_ASSERT_EQUAL(get("roce_np/cnp_dscp"), 0);
        remove_tree();
}

static void test_missing_and_readonly(void)
{
        char path[256];
        struct state want;
        struct errbuf e;

        build_tree();
        desired(&want);
        snprintf(path, sizeof(path), "%s/class/net/mlx0/ecn/roce_np/cnp_802p_prio", root);
        CU_ASSERT(unlink(path) == 0);
        CU_ASSERT_EQUAL(drvtest_apply(&nic_ecn_driver, &tgt, &want, &e), -ENOENT);
        CU_ASSERT_STRING_EQUAL(e.msg, "interface 'mlx0' (driver mlx5_core): NIC ECN knob 'roce_np/cnp_802p_prio' "
                                      "does not exist; nothing was changed");
        CU_ASSERT_EQUAL(get("roce_rp/enable/3"), 0);
        put("roce_np/cnp_802p_prio", "0\n");
        CU_ASSERT(chmod(path, 0444) == 0);
        CU_ASSERT_EQUAL(drvtest_apply(&nic_ecn_driver, &tgt, &want, &e), -EACCES);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "'roce_np/cnp_802p_prio' is read-only; nothing was changed"));
        CU_ASSERT_EQUAL(get("roce_rp/enable/3"), 0);
        CU_ASSERT_EQUAL(get("roce_np/cnp_dscp"), 0);
        remove_tree();
}

static void test_midway_failure_restores(void)
{
        char path[256];
        struct state want;
        struct errbuf e;
        int fd, flags = 0;

        build_tree();
        desired(&want);
        snprintf(path, sizeof(path), "%s/class/net/mlx0/ecn/roce_np/cnp_802p_prio", root);
        fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || ioctl(fd, FS_IOC_GETFLAGS, &flags) < 0 ||
            (flags |= FS_IMMUTABLE_FL, ioctl(fd, FS_IOC_SETFLAGS, &flags) < 0)) {
                fprintf(stderr, "test_ecn_sysfs: no immutable files here: midway failure not tested\n");
                if (fd >= 0)
                        close(fd);
                remove_tree();
                return;
        }
        CU_ASSERT(drvtest_apply(&nic_ecn_driver, &tgt, &want, &e) < 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "the knobs written before were restored"));
        CU_ASSERT_EQUAL(get("roce_rp/enable/3"), 0);
        CU_ASSERT_EQUAL(get("roce_np/enable/3"), 0);
        CU_ASSERT_EQUAL(get("roce_np/cnp_dscp"), 0);
        flags &= ~FS_IMMUTABLE_FL;
        CU_ASSERT(ioctl(fd, FS_IOC_SETFLAGS, &flags) == 0);
        close(fd);
        remove_tree();
}

static void test_no_ecn_dir_and_cc_params(void)
{
        char cmd[512];
        struct ecn_sysfs_param p[8];
        struct state s;
        struct errbuf e;
        uint32_t caps = 1;
        unsigned n = 0;

        build_tree();
        snprintf(tgt.name, sizeof(tgt.name), "veth0");
        snprintf(tgt.kernel_driver, sizeof(tgt.kernel_driver), "veth");
        CU_ASSERT(nic_ecn_driver.caps(&tgt, &caps, &e) == 0);
        CU_ASSERT_EQUAL(caps, 0);
        state_init(&s);
        CU_ASSERT_EQUAL(nic_ecn_driver.read(&tgt, STATE_BIT(STATE_FIELD_HOST_ECN), &s, &e), -EOPNOTSUPP);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "interface 'veth0' (driver veth) has no NIC ECN knobs"));
        snprintf(tgt.name, sizeof(tgt.name), "mlx0");
        snprintf(cmd, sizeof(cmd),
                 "mkdir -p %s/devices/0000:08:00.0 %s/debug/mlx5/0000:08:00.0/cc_params && "
                 "ln -s ../../../devices/0000:08:00.0 %s/class/net/mlx0/device && "
                 "echo 2000 > %s/debug/mlx5/0000:08:00.0/cc_params/rp_time_reset", root, root, root, root);
        CU_ASSERT_FATAL(system(cmd) == 0);
        CU_ASSERT(ecn_sysfs_cc_params(&tgt, p, 8, &n, &e) == 0);
        CU_ASSERT_EQUAL_FATAL(n, 1);
        CU_ASSERT_STRING_EQUAL(p[0].name, "rp_time_reset");
        CU_ASSERT_EQUAL(p[0].value, 2000);
        remove_tree();
}

static unsigned cc_get(const char *name)
{
        char path[256], buf[16] = "";
        FILE *f;

        snprintf(path, sizeof(path), "%s/debug/mlx5/0000:08:00.0/cc_params/%s", root, name);
        f = fopen(path, "re");
        if (!f)
                return 999;
        if (!fgets(buf, sizeof(buf), f))
                buf[0] = '\0';
        fclose(f);
        return (unsigned)strtoul(buf, NULL, 10);
}

static void cc_put(const char *name, unsigned v)
{
        char path[256];
        FILE *f;

        snprintf(path, sizeof(path), "%s/debug/mlx5/0000:08:00.0/cc_params/%s", root, name);
        f = fopen(path, "we");
        CU_ASSERT_FATAL(f != NULL);
        fprintf(f, "%u\n", v);
        fclose(f);
}

/*
 * Upstream mlx5 without the MLNX_OFED tree: CNP DSCP and priority through debugfs
 * cc_params; the per-priority enables are the firmware's default (on), which a
 * policy may ask for and not turn off; the mode a priority write resets is put back.
 */
static void test_cc_params_cnp(void)
{
        struct state before, want, live;
        struct errbuf e;
        uint32_t caps = 0;
        char cmd[768];

        build_tree();
        snprintf(cmd, sizeof(cmd),
                 "rm -rf %s/class/net/mlx0/ecn && mkdir -p %s/devices/0000:08:00.0 %s/debug/mlx5/0000:08:00.0/cc_params && "
                 "ln -s ../../../devices/0000:08:00.0 %s/class/net/mlx0/device && cd %s/debug/mlx5/0000:08:00.0/cc_params && "
                 "echo 26 > np_cnp_dscp && echo 7 > np_cnp_prio && echo 1 > np_cnp_prio_mode && echo 4 > np_min_time_between_cnps",
                 root, root, root, root, root);
        CU_ASSERT_FATAL(system(cmd) == 0);
        CU_ASSERT(nic_ecn_driver.caps(&tgt, &caps, &e) == 0);
        CU_ASSERT_EQUAL(caps, STATE_BIT(STATE_FIELD_HOST_ECN));
        state_init(&before);
        CU_ASSERT_FATAL(nic_ecn_driver.read(&tgt, caps, &before, &e) == 0);
        CU_ASSERT(before.host_ecn.has_cnp && before.host_ecn.cnp_dscp == 26 && before.host_ecn.cnp_prio == 7);
        CU_ASSERT(before.host_ecn.has_prio_mode && before.host_ecn.cnp_prio_mode == 1);
        /* not readable upstream: described as the firmware's default, DCQCN on every priority */
        CU_ASSERT(before.host_ecn.prios == 0xff && before.host_ecn.rp_enabled == 0xff && before.host_ecn.np_enabled == 0xff);
        /* off on a priority cannot be done here: refused, naming the alternatives, nothing written */
        desired(&want);
        want.host_ecn.rp_enabled = 0;
        CU_ASSERT_EQUAL(drvtest_apply(&nic_ecn_driver, &tgt, &want, &e), -EOPNOTSUPP);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "turns DCQCN off on priority 3"));
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "MLNX_OFED"));
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "ROCE_CC_PRIO_MASK_P1"));
        CU_ASSERT_EQUAL(cc_get("np_cnp_dscp"), 26);
        /* a value the firmware field cannot hold: the kernel would mask it, nettune refuses it */
        desired(&want);
        want.host_ecn.cnp_dscp = 64;
        CU_ASSERT_EQUAL(drvtest_apply(&nic_ecn_driver, &tgt, &want, &e), -ERANGE);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "takes 0-63"));
        CU_ASSERT_EQUAL(cc_get("np_cnp_dscp"), 26);
        /* on, as the firmware's default: the CNP knobs are written */
        desired(&want);
        CU_ASSERT(drvtest_apply(&nic_ecn_driver, &tgt, &want, &e) == 0);
        CU_ASSERT_EQUAL(cc_get("np_cnp_dscp"), 48);
        CU_ASSERT_EQUAL(cc_get("np_cnp_prio"), 6);
        cc_put("np_cnp_prio_mode", 0);                          /* what cong.c does on that write */
        state_init(&live);
        CU_ASSERT(nic_ecn_driver.read(&tgt, caps, &live, &e) == 0);
        CU_ASSERT(live.host_ecn.cnp_dscp == 48 && live.host_ecn.cnp_prio == 6 && live.host_ecn.cnp_prio_mode == 0);
        /* the snapshot back: the priority, then the mode it reset */
        CU_ASSERT(drvtest_restore(&nic_ecn_driver, &tgt, &before, &e) == 0);
        CU_ASSERT_EQUAL(cc_get("np_cnp_dscp"), 26);
        CU_ASSERT_EQUAL(cc_get("np_cnp_prio"), 7);
        CU_ASSERT_EQUAL(cc_get("np_cnp_prio_mode"), 1);
        remove_tree();
}


/* ---- DCQCN parameters (spec.host_ecn.dcqcn) in both layouts ---- */

/* The firmware defaults of an untouched ConnectX-4 Lx (mlxconfig q), in the table's order. */
static const unsigned fw_default[STATE_DCQCN_MAX] = { 0, 1, 300, 32767, 1, 0, 5, 50, 50, 1, 0, 1019, 1, 4, 1023, 11, 4 };

static void dcqcn_path(bool ofed, unsigned p, char *buf, size_t size)
{
        if (ofed)
                snprintf(buf, size, "%s/class/net/mlx0/ecn/%s", root, ecn_dcqcn_file(p, true));
        else
                snprintf(buf, size, "%s/debug/mlx5/0000:08:00.0/cc_params/%s", root, ecn_dcqcn_file(p, false));
}

/* Every DCQCN file of the layout, concatenated (what "byte-identical" compares); skip: a parameter left out. */
static void dcqcn_files(bool ofed, int skip, char *buf, size_t size)
{
        size_t o = 0;

        buf[0] = '\0';
        for (unsigned p = 0; p < STATE_DCQCN_MAX && o < size; p++) {
                char path[256], line[32] = "";
                FILE *f;

                if ((int)p == skip)
                        continue;
                dcqcn_path(ofed, p, path, sizeof(path));
                f = fopen(path, "re");
                CU_ASSERT_FATAL(f != NULL);
                if (!fgets(line, sizeof(line), f))
                        line[0] = '\0';
                fclose(f);
                o += (size_t)snprintf(buf + o, size - o, "%u=%s", p, line);
        }
}

/* The layout's tree with the firmware defaults; skip: a parameter this kernel does not have. */
static void dcqcn_tree(bool ofed, int skip)
{
        char cmd[768];

        build_tree();
        if (!ofed) {
                snprintf(cmd, sizeof(cmd), "rm -rf %s/class/net/mlx0/ecn && mkdir -p %s/devices/0000:08:00.0 "
                         "%s/debug/mlx5/0000:08:00.0/cc_params && ln -s ../../../devices/0000:08:00.0 "
                         "%s/class/net/mlx0/device && cd %s/debug/mlx5/0000:08:00.0/cc_params && "
                         "echo 48 > np_cnp_dscp && echo 6 > np_cnp_prio", root, root, root, root, root);
                CU_ASSERT_FATAL(system(cmd) == 0);
        }
        for (unsigned p = 0; p < STATE_DCQCN_MAX; p++) {
                char path[256];
                FILE *f;

                if ((int)p == skip)
                        continue;
                dcqcn_path(ofed, p, path, sizeof(path));
                f = fopen(path, "we");
                CU_ASSERT_FATAL(f != NULL);
                fprintf(f, "%u\n", fw_default[p]);
                fclose(f);
        }
}

static void dcqcn_want(struct state *d)
{
        state_init(d);
        d->present = STATE_BIT(STATE_FIELD_HOST_ECN);
        d->host_ecn.dcqcn_set = 1u << STATE_DCQCN_RP_TIME_RESET | 1u << STATE_DCQCN_RP_AI_RATE |
                                1u << STATE_DCQCN_RP_MIN_DEC_FAC | 1u << STATE_DCQCN_NP_MIN_TIME_BETWEEN_CNPS;
        d->host_ecn.dcqcn[STATE_DCQCN_RP_TIME_RESET] = 600;
        d->host_ecn.dcqcn[STATE_DCQCN_RP_AI_RATE] = 10;
        d->host_ecn.dcqcn[STATE_DCQCN_RP_MIN_DEC_FAC] = 25;
        d->host_ecn.dcqcn[STATE_DCQCN_NP_MIN_TIME_BETWEEN_CNPS] = 0;
}

static void dcqcn_layout(bool ofed)
{
        char start[1024], now[1024], path[256];
        struct state before, want, live;
        struct errbuf e;
        uint32_t caps = 0;

        dcqcn_tree(ofed, -1);
        dcqcn_files(ofed, -1, start, sizeof(start));
        CU_ASSERT(nic_ecn_driver.caps(&tgt, &caps, &e) == 0);
        state_init(&before);
        CU_ASSERT_FATAL(nic_ecn_driver.read(&tgt, caps, &before, &e) == 0);
        CU_ASSERT_EQUAL(before.host_ecn.dcqcn_set, (1u << STATE_DCQCN_MAX) - 1);
        CU_ASSERT_EQUAL(before.host_ecn.dcqcn[STATE_DCQCN_RP_GD], 11);
        dcqcn_want(&want);
        CU_ASSERT_FATAL(drvtest_apply(&nic_ecn_driver, &tgt, &want, &e) == 0);
        state_init(&live);
        CU_ASSERT(nic_ecn_driver.read(&tgt, caps, &live, &e) == 0);
        CU_ASSERT(state_matches(&want, &live));
        CU_ASSERT_EQUAL(live.host_ecn.dcqcn[STATE_DCQCN_RP_TIME_RESET], 600);
        CU_ASSERT_EQUAL(live.host_ecn.dcqcn[STATE_DCQCN_NP_MIN_TIME_BETWEEN_CNPS], 0);
        CU_ASSERT_EQUAL(live.host_ecn.dcqcn[STATE_DCQCN_RP_HAI_RATE], 50);     /* not named: untouched */
        dcqcn_path(ofed, STATE_DCQCN_RP_AI_RATE, path, sizeof(path));
        CU_ASSERT_PTR_NOT_NULL(strstr(path, ofed ? "ecn/roce_rp/rpg_ai_rate" : "cc_params/rp_ai_rate"));
        CU_ASSERT(drvtest_restore(&nic_ecn_driver, &tgt, &before, &e) == 0);
        dcqcn_files(ofed, -1, now, sizeof(now));
        CU_ASSERT_STRING_EQUAL(now, start);                     /* byte-identical */
        remove_tree();
}

static void test_dcqcn_ofed(void)
{
        dcqcn_layout(true);
}

static void test_dcqcn_debugfs(void)
{
        dcqcn_layout(false);
}

/* A 4.x kernel's debugfs has no np_min_time_between_cnps: refused before anything is written. */
static void test_dcqcn_missing_param(void)
{
        char start[1024], now[1024];
        struct state want;
        struct errbuf e;

        dcqcn_tree(false, STATE_DCQCN_NP_MIN_TIME_BETWEEN_CNPS);
        dcqcn_files(false, STATE_DCQCN_NP_MIN_TIME_BETWEEN_CNPS, start, sizeof(start));
        dcqcn_want(&want);
        CU_ASSERT_EQUAL(drvtest_apply(&nic_ecn_driver, &tgt, &want, &e), -ENOENT);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "'np_min_time_between_cnps' does not exist; nothing was changed"));
        dcqcn_files(false, STATE_DCQCN_NP_MIN_TIME_BETWEEN_CNPS, now, sizeof(now));
        CU_ASSERT_STRING_EQUAL(now, start);
        remove_tree();
}

/* One bnxt_re cc_config file: bnxt_re/PCI/cc_config/NAME under the debugfs root. */
static unsigned bnxt_get(const char *name)
{
        char path[256], buf[16] = "";
        FILE *f;

        snprintf(path, sizeof(path), "%s/debug/bnxt_re/0000:3b:00.0/cc_config/%s", root, name);
        f = fopen(path, "re");
        if (!f)
                return 999;
        if (!fgets(buf, sizeof(buf), f))
                buf[0] = '\0';
        fclose(f);
        return (unsigned)strtoul(buf, NULL, 0);
}

/*
 * A NetXtreme (bnxt_en) with upstream bnxt_re's debugfs cc_config (debugfs.c,
 * 656dff55da19): files of mode 0400 that root writes; the CNP's DSCP and priority
 * are alt_vlan_dscp and alt_vlan_pcp (ALT_TOS_DSCP, ALT_VLAN_PCP), and one enable_cc
 * stands for both points of every priority. Applied, read back, rolled back; what
 * enable_cc cannot express is refused with nothing written.
 */
static void test_bnxt_cc_config(void)
{
        struct state before, want, live;
        struct errbuf e;
        uint32_t caps = 0;
        char cmd[1024];

        build_tree();
        snprintf(tgt.name, sizeof(tgt.name), "bnxt0");
        snprintf(tgt.kernel_driver, sizeof(tgt.kernel_driver), "bnxt_en");
        snprintf(cmd, sizeof(cmd),
                 "mkdir -p %s/class/net/bnxt0 %s/devices/0000:3b:00.0 %s/debug/bnxt_re/0000:3b:00.0/cc_config && "
                 "ln -s ../../../devices/0000:3b:00.0 %s/class/net/bnxt0/device && "
                 "cd %s/debug/bnxt_re/0000:3b:00.0/cc_config && for f in g num_phase_per_state init_cr init_tr "
                 "tos_dscp rtt cc_mode tcp_cp tx_queue inactivity_cp; do echo 0 > $f; done && "
                 "echo 1 > enable_cc && echo 1 > tos_ecn && echo 26 > alt_vlan_dscp && echo 7 > alt_vlan_pcp && "
                 "echo 0 > alt_vlan_pcp && echo 7 > alt_vlan_pcp && chmod 0400 *",
                 root, root, root, root, root);
        CU_ASSERT_FATAL(system(cmd) == 0);
        CU_ASSERT(nic_ecn_driver.caps(&tgt, &caps, &e) == 0);
        CU_ASSERT_EQUAL(caps, STATE_BIT(STATE_FIELD_HOST_ECN));
        state_init(&before);
        CU_ASSERT_FATAL(nic_ecn_driver.read(&tgt, caps, &before, &e) == 0);
        CU_ASSERT(before.host_ecn.has_cnp && before.host_ecn.cnp_dscp == 26 && before.host_ecn.cnp_prio == 7);
        CU_ASSERT_FALSE(before.host_ecn.has_prio_mode);
        CU_ASSERT(before.host_ecn.prios == 0xff && before.host_ecn.rp_enabled == 0xff && before.host_ecn.np_enabled == 0xff);
        /* the reaction point off on priority 3 alone: enable_cc cannot, refused, nothing written */
        desired(&want);
        want.host_ecn.rp_enabled = 0;
        CU_ASSERT_EQUAL(drvtest_apply(&nic_ecn_driver, &tgt, &want, &e), -EOPNOTSUPP);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "bnxt_re has one congestion control switch"));
        CU_ASSERT_EQUAL(bnxt_get("enable_cc"), 1);
        /* mlx5's DCQCN parameters are not bnxt_re's */
        desired(&want);
        want.host_ecn.dcqcn_set = 1;
        CU_ASSERT_EQUAL(drvtest_apply(&nic_ecn_driver, &tgt, &want, &e), -EOPNOTSUPP);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "bnxt_re's cc_config has its own"));
        /* on for priority 3, CNPs on DSCP 48 and priority 6: written through the 0400 files (root) */
        desired(&want);
        if (geteuid() == 0) {
                CU_ASSERT(drvtest_apply(&nic_ecn_driver, &tgt, &want, &e) == 0);
                CU_ASSERT_EQUAL(bnxt_get("alt_vlan_dscp"), 48);
                CU_ASSERT_EQUAL(bnxt_get("alt_vlan_pcp"), 6);
                state_init(&live);
                CU_ASSERT(nic_ecn_driver.read(&tgt, caps, &live, &e) == 0);
                CU_ASSERT(live.host_ecn.cnp_dscp == 48 && live.host_ecn.cnp_prio == 6 && live.host_ecn.rp_enabled == 0xff);
                /* off on every priority: enable_cc 0, and the snapshot puts it back */
                want.host_ecn.prios = 0xff;
                want.host_ecn.rp_enabled = want.host_ecn.np_enabled = 0;
                CU_ASSERT(drvtest_apply(&nic_ecn_driver, &tgt, &want, &e) == 0);
                CU_ASSERT_EQUAL(bnxt_get("enable_cc"), 0);
                CU_ASSERT(drvtest_restore(&nic_ecn_driver, &tgt, &before, &e) == 0);
                CU_ASSERT_EQUAL(bnxt_get("enable_cc"), 1);
                CU_ASSERT_EQUAL(bnxt_get("alt_vlan_dscp"), 26);
                CU_ASSERT_EQUAL(bnxt_get("alt_vlan_pcp"), 7);
        }
        remove_tree();
}

/*
 * The same over the bnxt model (tests/nicmodel/nm_bnxt.c, bnxt_re debugfs.c): the
 * files the driver made at load (enable_cc and tos_ecn on, bnxt_re_setup_cc()), a
 * write taken in by the firmware at the model's next tick and shown back, and the
 * snapshot put back.
 */
static void test_bnxt_model(void)
{
        static struct nm m;
        struct nm_transport x;
        struct driver_env menv = { 0 };
        struct target t = { .kind = TARGET_INTERFACE, .name = "bnxt0", .ifindex = 3, .kernel_driver = "bnxt_en" };
        struct state before, want, live;
        struct errbuf e;
        char dir[64], cmd[96];

        if (geteuid() != 0)
                return;                         /* the 0400 files are root's, as on a real host */
        snprintf(dir, sizeof(dir), "/tmp/nettune-bnxtcc.XXXXXX");
        CU_ASSERT_FATAL(mkdtemp(dir) != NULL);
        nm_init(&m);
        snprintf(m.sysfs_root, sizeof(m.sysfs_root), "%s/sys", dir);
        snprintf(m.debugfs_root, sizeof(m.debugfs_root), "%s/debug", dir);
        CU_ASSERT_FATAL(nm_add(&m, "bnxt:bnxt0:3") == 0);
        CU_ASSERT_FATAL(nm_sysfs_create(&m, &m.devs[0]) == 0);
        nm_transport_init(&x, &m);
        menv.nl = nm_transport_get(&x);
        snprintf(menv.sysfs_root, sizeof(menv.sysfs_root), "%s", m.sysfs_root);
        snprintf(menv.debugfs_root, sizeof(menv.debugfs_root), "%s", m.debugfs_root);
        t.env = &menv;
        state_init(&before);
        CU_ASSERT_FATAL(nic_ecn_driver.read(&t, STATE_BIT(STATE_FIELD_HOST_ECN), &before, &e) == 0);
        CU_ASSERT(before.host_ecn.rp_enabled == 0xff && before.host_ecn.cnp_dscp == 0 && before.host_ecn.cnp_prio == 0);
        desired(&want);
        CU_ASSERT(drvtest_apply(&nic_ecn_driver, &t, &want, &e) == 0);
        nm_transport_lock(&x);
        nm_tick(&m);
        nm_transport_unlock(&x);
        state_init(&live);
        CU_ASSERT(nic_ecn_driver.read(&t, STATE_BIT(STATE_FIELD_HOST_ECN), &live, &e) == 0);
        CU_ASSERT(live.host_ecn.cnp_dscp == 48 && live.host_ecn.cnp_prio == 6 && live.host_ecn.np_enabled == 0xff);
        CU_ASSERT(drvtest_restore(&nic_ecn_driver, &t, &before, &e) == 0);
        nm_transport_lock(&x);
        nm_tick(&m);
        nm_transport_unlock(&x);
        state_init(&live);
        CU_ASSERT(nic_ecn_driver.read(&t, STATE_BIT(STATE_FIELD_HOST_ECN), &live, &e) == 0);
        CU_ASSERT(live.host_ecn.cnp_dscp == 0 && live.host_ecn.cnp_prio == 0);
        nm_transport_done(&x);
        nm_done(&m);
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        CU_ASSERT(system(cmd) == 0);
}

int suite_ecn_sysfs(void);
int suite_ecn_sysfs(void)
{
        CU_pSuite s = CU_add_suite("ecn_sysfs", NULL, NULL);

        if (!s || !CU_add_test(s, "read_apply_restore", test_read_apply_restore) ||
            !CU_add_test(s, "missing_and_readonly", test_missing_and_readonly) ||
            !CU_add_test(s, "midway_failure_restores", test_midway_failure_restores) ||
            !CU_add_test(s, "no_ecn_dir_and_cc_params", test_no_ecn_dir_and_cc_params) ||
            !CU_add_test(s, "cc_params_cnp", test_cc_params_cnp) ||
            !CU_add_test(s, "bnxt_cc_config", test_bnxt_cc_config) ||
            !CU_add_test(s, "bnxt_model", test_bnxt_model) ||
            !CU_add_test(s, "dcqcn_ofed", test_dcqcn_ofed) || !CU_add_test(s, "dcqcn_debugfs", test_dcqcn_debugfs) ||
            !CU_add_test(s, "dcqcn_missing_param", test_dcqcn_missing_param))
                return -1;
        return 0;
}
