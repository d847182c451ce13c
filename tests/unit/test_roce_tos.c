/* SPDX-License-Identifier: MIT */
/*
 * The "roce-tos" driver against fake sysfs and configfs trees:
 *   - mlx0, a NIC whose PCI device lists mlx5_0 (class/net/mlx0/device/infiniband),
 *     with MLNX_OFED's tc/1/traffic_class beside rdma_cm's default_roce_tos;
 *   - veth0 under rxe0 (Soft-RoCE: class/infiniband/rxe0/parent names it);
 *   - eth9 whose port only its GID table names (gid_attrs/ndevs/0).
 * The OFED file is a plain file here: after each write, ofed_show() turns what was
 * written into what the kernel's traffic_class_show() prints ("Global tclass=V",
 * nothing once "tclass=-1" cleared it), as mlx5_ib main_ext.c traffic_class_store() does.
 */
#include <CUnit/CUnit.h>
#include <sys/stat.h>

#include "drivers/host/roce_tos.h"
#include "tests/lib/drvtest.h"

static char root[64];
static struct driver_env env;
static struct target tgt;

static void put(const char *rel, const char *text)
{
        char path[512];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", root, rel);
        f = fopen(path, "we");
        CU_ASSERT_FATAL(f != NULL);
        fputs(text, f);
        fclose(f);
}

static void get(const char *rel, char *buf, size_t size)
{
        char path[512];
        FILE *f;

        snprintf(path, sizeof(path), "%s/%s", root, rel);
        buf[0] = '\0';
        f = fopen(path, "re");
        if (!f)
                return;
        if (!fgets(buf, (int)size, f))
                buf[0] = '\0';
        fclose(f);
        buf[strcspn(buf, "\n")] = '\0';
}

#define OFED "sys/class/infiniband/mlx5_0/tc/1/traffic_class"
#define CM_MLX "cfg/rdma_cm/mlx5_0/ports/1/default_roce_tos"
#define CM_RXE "cfg/rdma_cm/rxe0/ports/1/default_roce_tos"

/* The kernel's show after a store: "tclass=V" -> "Global tclass=V", "tclass=-1" -> nothing. */
static void ofed_show(void)
{
        char buf[64];
        int v;

        get(OFED, buf, sizeof(buf));
        if (sscanf(buf, "tclass=%d", &v) != 1)
                return;
        if (v < 0) {
                put(OFED, "");
        } else {
                snprintf(buf, sizeof(buf), "Global tclass=%d\n", v);
                put(OFED, buf);
        }
}

/* A shell command in the tree's root. */
static void sh(const char *cmd)
{
        char buf[2048];

        snprintf(buf, sizeof(buf), "cd %s && %s", root, cmd);
        CU_ASSERT_FATAL(system(buf) == 0);
}

static void build_tree(void)
{
        snprintf(root, sizeof(root), "/tmp/nettune-rocetos.XXXXXX");
        CU_ASSERT_FATAL(mkdtemp(root) != NULL);
        sh("mkdir -p sys/devices/pci0/0000:08:00.0/infiniband/mlx5_0 sys/class/net/veth0 sys/class/net/eth9 "
           "sys/class/infiniband/mlx5_0/ports/1 sys/class/infiniband/mlx5_0/tc/1 sys/class/infiniband/rxe0/ports/1 "
           "sys/class/infiniband/ib9/ports/1/gid_attrs/ndevs sys/class/infiniband/ib9/ports/2/gid_attrs/ndevs "
           "cfg/rdma_cm/mlx5_0/ports/1 cfg/rdma_cm/rxe0/ports/1 cfg/rdma_cm/ib9/ports/1 cfg/rdma_cm/ib9/ports/2 && "
           "mkdir -p sys/class/net/mlx0 && ln -s ../../../devices/pci0/0000:08:00.0 sys/class/net/mlx0/device && "
           "echo veth0 > sys/class/infiniband/rxe0/parent && echo eth9 > sys/class/infiniband/ib9/ports/2/gid_attrs/ndevs/0 && "
           "echo other > sys/class/infiniband/ib9/ports/1/gid_attrs/ndevs/0");
        put(OFED, "");
        put(CM_MLX, "0\n");
        put(CM_RXE, "0\n");
        put("cfg/rdma_cm/ib9/ports/1/default_roce_tos", "0\n");
        put("cfg/rdma_cm/ib9/ports/2/default_roce_tos", "0\n");
        memset(&env, 0, sizeof(env));
        snprintf(env.sysfs_root, sizeof(env.sysfs_root), "%s/sys", root);
        snprintf(env.configfs_root, sizeof(env.configfs_root), "%s/cfg", root);
        memset(&tgt, 0, sizeof(tgt));
        tgt.kind = TARGET_INTERFACE;
        snprintf(tgt.name, sizeof(tgt.name), "mlx0");
        snprintf(tgt.kernel_driver, sizeof(tgt.kernel_driver), "mlx5_core");
        tgt.env = &env;
}

static void remove_tree(void)
{
        char cmd[256];

        snprintf(cmd, sizeof(cmd), "chattr -i %s/" OFED " 2>/dev/null; rm -rf %s", root, root);
        CU_ASSERT(system(cmd) == 0);
}

static void want_tos(struct state *s, uint8_t tos)
{
        state_init(s);
        s->present = STATE_BIT(STATE_FIELD_ROCE_TOS);
        s->roce_tos = tos;
}

/* Read, apply 106 to both places, read back, restore the snapshot (OFED back to unset). */
static void test_read_apply_restore(void)
{
        struct state before, want, after;
        struct errbuf e;
        uint32_t caps = 0;
        char buf[64];

        build_tree();
        CU_ASSERT(roce_tos_driver.caps(&tgt, &caps, &e) == 0);
        CU_ASSERT_EQUAL(caps, STATE_BIT(STATE_FIELD_ROCE_TOS));
        state_init(&before);
        CU_ASSERT_FATAL(roce_tos_driver.read(&tgt, caps, &before, &e) == 0);
        CU_ASSERT_EQUAL_FATAL(before.roce.n_ports, 1);
        CU_ASSERT_STRING_EQUAL(before.roce.ports[0].dev, "mlx5_0");
        CU_ASSERT_EQUAL(before.roce.ports[0].port, 1);
        CU_ASSERT(before.roce.ports[0].has_cm && before.roce.ports[0].has_ofed);
        CU_ASSERT_EQUAL(before.roce.ports[0].ofed_tclass, STATE_TCLASS_UNSET);
        CU_ASSERT_EQUAL(before.roce_tos, 0);
        want_tos(&want, 106);
        CU_ASSERT_FATAL(drvtest_apply(&roce_tos_driver, &tgt, &want, &e) == 0);
        get(CM_MLX, buf, sizeof(buf));
        CU_ASSERT_STRING_EQUAL(buf, "106");
        get(OFED, buf, sizeof(buf));
        CU_ASSERT_STRING_EQUAL(buf, "tclass=106");             /* what traffic_class_store() takes */
        get(CM_RXE, buf, sizeof(buf));
        CU_ASSERT_STRING_EQUAL(buf, "0");                      /* another interface's port: untouched */
        ofed_show();
        state_init(&after);
        CU_ASSERT(roce_tos_driver.read(&tgt, caps, &after, &e) == 0);
        CU_ASSERT_EQUAL(after.roce.ports[0].cm_tos, 106);
        CU_ASSERT_EQUAL(after.roce.ports[0].ofed_tclass, 106);
        CU_ASSERT_EQUAL(after.roce_tos, 106);
        CU_ASSERT(drvtest_restore(&roce_tos_driver, &tgt, &before, &e) == 0);
        get(CM_MLX, buf, sizeof(buf));
        CU_ASSERT_STRING_EQUAL(buf, "0");
        get(OFED, buf, sizeof(buf));
        CU_ASSERT_STRING_EQUAL(buf, "tclass=-1");              /* the global value cleared again */
        remove_tree();
}

/* Soft-RoCE (rxe's parent) and a port only its GID table names; an interface with none has no field. */
static void test_ports_of_interfaces(void)
{
        struct state s;
        struct errbuf e;
        uint32_t caps = 1;

        build_tree();
        snprintf(tgt.name, sizeof(tgt.name), "veth0");
        state_init(&s);
        CU_ASSERT(roce_tos_driver.read(&tgt, STATE_BIT(STATE_FIELD_ROCE_TOS), &s, &e) == 0);
        CU_ASSERT_EQUAL_FATAL(s.roce.n_ports, 1);
        CU_ASSERT_STRING_EQUAL(s.roce.ports[0].dev, "rxe0");
        CU_ASSERT(s.roce.ports[0].has_cm && !s.roce.ports[0].has_ofed);
        snprintf(tgt.name, sizeof(tgt.name), "eth9");
        state_init(&s);
        CU_ASSERT(roce_tos_driver.read(&tgt, STATE_BIT(STATE_FIELD_ROCE_TOS), &s, &e) == 0);
        CU_ASSERT_EQUAL_FATAL(s.roce.n_ports, 1);
        CU_ASSERT_STRING_EQUAL(s.roce.ports[0].dev, "ib9");
        CU_ASSERT_EQUAL(s.roce.ports[0].port, 2);
        snprintf(tgt.name, sizeof(tgt.name), "lo");
        CU_ASSERT(roce_tos_driver.caps(&tgt, &caps, &e) == 0);
        CU_ASSERT_EQUAL(caps, 0);
        state_init(&s);
        CU_ASSERT_EQUAL(roce_tos_driver.read(&tgt, STATE_BIT(STATE_FIELD_ROCE_TOS), &s, &e), -EOPNOTSUPP);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "interface 'lo' (driver mlx5_core) has no RDMA port with a default ToS"));
        remove_tree();
}

/* The rdma_cm directory of a device is made when missing; a read-only file refuses before any write. */
static void test_configfs_dir_and_readonly(void)
{
        char path[512], buf[64];
        struct state s, want;
        struct errbuf e;
        struct stat st;

        build_tree();
        snprintf(tgt.name, sizeof(tgt.name), "veth0");
        sh("rm -rf cfg/rdma_cm/rxe0");
        state_init(&s);
        /* a plain directory is not configfs: rdma_cm would have made ports/1 itself */
        CU_ASSERT_EQUAL(roce_tos_driver.read(&tgt, STATE_BIT(STATE_FIELD_ROCE_TOS), &s, &e), -ENOENT);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "RDMA port rxe0/1: cannot read"));
        snprintf(path, sizeof(path), "%s/cfg/rdma_cm/rxe0", root);
        CU_ASSERT(stat(path, &st) == 0 && S_ISDIR(st.st_mode));
        sh("mkdir -p cfg/rdma_cm/rxe0/ports/1 && echo 0 > " CM_RXE);
        snprintf(path, sizeof(path), "%s/" CM_RXE, root);
        CU_ASSERT(chmod(path, 0444) == 0);
        want_tos(&want, 104);
        CU_ASSERT_EQUAL(drvtest_apply(&roce_tos_driver, &tgt, &want, &e), -EACCES);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "rdma_cm rxe0/1 default_roce_tos"));
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "is read-only; nothing was changed"));
        get(CM_RXE, buf, sizeof(buf));
        CU_ASSERT_STRING_EQUAL(buf, "0");
        remove_tree();
}

/* A write that fails midway puts back what was written before it (immutable file: even root cannot write). */
static void test_midway_failure(void)
{
        struct state want;
        struct errbuf e;
        char buf[64], cmd[600];

        build_tree();
        snprintf(cmd, sizeof(cmd), "chattr +i %s/" OFED " 2>/dev/null", root);
        if (system(cmd) != 0) {
                fprintf(stderr, "test_roce_tos: no immutable files here: midway failure not tested\n");
                remove_tree();
                return;
        }
        want_tos(&want, 106);
        CU_ASSERT(drvtest_apply(&roce_tos_driver, &tgt, &want, &e) < 0);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "MLNX_OFED mlx5_0/1 traffic_class: write 106 failed"));
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "the values written before were put back"));
        get(CM_MLX, buf, sizeof(buf));
        CU_ASSERT_STRING_EQUAL(buf, "0");
        remove_tree();
}

int suite_roce_tos(void)
{
        CU_pSuite s = CU_add_suite("roce_tos", NULL, NULL);

        if (!s || !CU_add_test(s, "read_apply_restore", test_read_apply_restore) ||
            !CU_add_test(s, "ports_of_interfaces", test_ports_of_interfaces) ||
            !CU_add_test(s, "configfs_dir_and_readonly", test_configfs_dir_and_readonly) ||
            !CU_add_test(s, "midway_failure", test_midway_failure))
                return -1;
        return 0;
}
