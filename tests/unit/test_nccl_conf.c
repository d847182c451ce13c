/* SPDX-License-Identifier: MIT */
/*
 * The "nccl-conf" driver against real files in a temporary directory, judged by a
 * model of the reader NCCL runs at start (NVIDIA/nccl src/misc/param.cc):
 * setEnvFile() reads the file with getline(), skips a line whose first byte is '#',
 * cuts the trailing '\n', takes the bytes before the first '=' as the name (a line
 * without '=' is skipped) and the rest as the value, and calls setenv(name, value, 0)
 * (src/os/linux.cc ncclOsSetEnv: never overwrite, so the first line of a name wins);
 * ncclLoadParam() takes strtoll(value, NULL, 0), the default 0 when the value is
 * empty or strtoll sets errno. The model is written from that text alone, apart from
 * the driver's own parser, so that the two are compared, not one with itself.
 */
#include <CUnit/CUnit.h>
#include <sys/stat.h>

#include "drivers/host/nccl_conf.h"
#include "policies/state/field.h"
#include "tests/lib/drvtest.h"

/* ---- the model: what NCCL's traffic class is after reading the file at path ---- */

struct model_env {
        unsigned n;
        char name[64][1024];
        char value[64][1024];
};

static void model_setenv(struct model_env *m, const char *name, const char *value)
{
        for (unsigned i = 0; i < m->n; i++)
                if (!strcmp(m->name[i], name))
                        return;                 /* setenv(name, value, 0) */
        if (m->n < 64) {
                snprintf(m->name[m->n], sizeof(m->name[0]), "%s", name);
                snprintf(m->value[m->n++], sizeof(m->value[0]), "%s", value);
        }
}

static void model_read(const char *path, struct model_env *m)
{
        FILE *f = fopen(path, "re");
        char *line = NULL, var[1024], val[1024];
        size_t n = 0;
        ssize_t rd;

        memset(m, 0, sizeof(*m));
        if (!f)
                return;
        while ((rd = getline(&line, &n, f)) != -1) {
                int s = 0;

                if (line[0] == '#')
                        continue;
                if (line[rd - 1] == '\n')
                        line[rd - 1] = '\0';
                while (line[s] != '\0' && line[s] != '=')
                        s++;
                if (line[s] == '\0')
                        continue;
                snprintf(var, sizeof(var), "%.*s", s < 1023 ? s : 1023, line);
                snprintf(val, sizeof(val), "%s", line + s + 1);
                model_setenv(m, var, val);
        }
        free(line);
        fclose(f);
}

/* ncclLoadParam(): -1 here stands for "not set" (NCCL's default, 0). */
static long long model_param(const struct model_env *m, const char *name)
{
        for (unsigned i = 0; i < m->n; i++) {
                long long v;

                if (strcmp(m->name[i], name) || !m->value[i][0])
                        continue;
                errno = 0;
                v = strtoll(m->value[i], NULL, 0);
                return errno ? 0 : v;
        }
        return -1;
}

/* ---- the tree ---- */

static char root[64], conf[128];
static struct driver_env env;
static struct target tgt;

static void put(const char *text, size_t len, mode_t mode)
{
        FILE *f = fopen(conf, "we");

        CU_ASSERT_FATAL(f != NULL);
        CU_ASSERT_FATAL(fwrite(text, 1, len, f) == len);
        fclose(f);
        CU_ASSERT_FATAL(chmod(conf, mode) == 0);
}

static size_t slurp(char *buf, size_t size)
{
        FILE *f = fopen(conf, "re");
        size_t n;

        if (!f)
                return (size_t)-1;
        n = fread(buf, 1, size - 1, f);
        buf[n] = '\0';
        fclose(f);
        return n;
}

static void setup(void)
{
        snprintf(root, sizeof(root), "/tmp/nettune-nccl.XXXXXX");
        CU_ASSERT_FATAL(mkdtemp(root) != NULL);
        snprintf(conf, sizeof(conf), "%s/nccl.conf", root);
        memset(&env, 0, sizeof(env));
        snprintf(env.nccl_conf, sizeof(env.nccl_conf), "%s", conf);
        memset(&tgt, 0, sizeof(tgt));
        tgt.kind = TARGET_INTERFACE;
        snprintf(tgt.name, sizeof(tgt.name), "mlx0");
        tgt.env = &env;
}

static void teardown(void)
{
        char cmd[128];

        snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
        CU_ASSERT(system(cmd) == 0);
}

static void want_nccl(struct state *s, int tc, int sl)
{
        state_init(s);
        s->present = STATE_BIT(STATE_FIELD_NCCL);
        if (tc >= 0) {
                s->nccl.has |= 1u << STATE_NCCL_IB_TC;
                s->nccl.value[STATE_NCCL_IB_TC] = (uint8_t)tc;
        }
        if (sl >= 0) {
                s->nccl.has |= 1u << STATE_NCCL_IB_SL;
                s->nccl.value[STATE_NCCL_IB_SL] = (uint8_t)sl;
        }
}

static void read_live(struct state *s)
{
        struct errbuf e;

        state_init(s);
        CU_ASSERT_FATAL(nccl_conf_driver.read(&tgt, STATE_BIT(STATE_FIELD_NCCL), s, &e) == 0);
}

/* The driver's parser and the model agree on every quirk of the format. */
static void test_format_like_nccl(void)
{
        static const char *const texts[] = {
                "NCCL_IB_TC=106\n",
                "# NCCL_IB_TC=5\nNCCL_IB_TC=106\n",             /* a comment */
                "NCCL_IB_TC=0x6a\n",                            /* strtoll base 0: hex */
                "NCCL_IB_TC=010\n",                             /* and octal: 8 */
                "NCCL_IB_TC=\"106\"\n",                         /* no quoting: 0 */
                "NCCL_IB_TC=106 \n",                            /* strtoll stops at the blank: 106 */
                " NCCL_IB_TC=106\n",                            /* the name is not trimmed: not NCCL_IB_TC */
                "NCCL_IB_TC = 106\n",                           /* "NCCL_IB_TC " */
                "NCCL_IB_TC=104\nNCCL_IB_TC=106\n",             /* the first line wins */
                "NCCL_IB_TC=\nNCCL_IB_TC=106\n",                /* even an empty one: the default */
                "NCCL_IB_TC\nNCCL_IB_TC=96",                    /* no '=': skipped; no final newline */
                "NCCL_IB_TC=106\r\n",                           /* a CR stays in the value: still 106 */
                "NCCL_IB_TC=362\n",                             /* a uint8_t traffic class: 106 */
                "NCCL_IB_SL=3\nNCCL_DEBUG=WARN\n",
                "",
        };
        struct model_env m;
        struct state s;

        setup();
        for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
                long long tc, sl;

                put(texts[i], strlen(texts[i]), 0644);
                model_read(conf, &m);
                read_live(&s);
                tc = model_param(&m, "NCCL_IB_TC");
                sl = model_param(&m, "NCCL_IB_SL");
                CU_ASSERT_EQUAL(!!(s.nccl.has & (1u << STATE_NCCL_IB_TC)), tc >= 0);
                if (tc >= 0)
                        CU_ASSERT_EQUAL(s.nccl.value[STATE_NCCL_IB_TC], (uint8_t)tc);
                CU_ASSERT_EQUAL(!!(s.nccl.has & (1u << STATE_NCCL_IB_SL)), sl >= 0);
                if (sl >= 0)
                        CU_ASSERT_EQUAL(s.nccl.value[STATE_NCCL_IB_SL], (uint8_t)sl);
                if ((tc >= 0) != !!(s.nccl.has & 1) || (tc >= 0 && (uint8_t)tc != s.nccl.value[0]))
                        fprintf(stderr, "\n  text %zu: model %lld, driver %u\n", i, tc, s.nccl.value[0]);
        }
        teardown();
}

/*
 * Apply ib_tc 106 and ib_sl 3 to a file with comments, a later duplicate, other
 * keys and no final newline: NCCL reads 106 and 3, every other byte stays; the
 * restore gives back the file byte for byte, with its mode.
 */
static void test_apply_restore_byte_identical(void)
{
        static const char orig[] = "# site NCCL settings\nNCCL_DEBUG=WARN\nNCCL_IB_TC=0\n#NCCL_IB_SL=1\n"
                                   "NCCL_IB_TC=96\nNCCL_SOCKET_IFNAME==ens1f0";
        char buf[1024];
        struct state before, want, after;
        struct model_env m;
        struct errbuf e;
        struct stat st;

        setup();
        put(orig, strlen(orig), 0640);
        read_live(&before);
        CU_ASSERT(before.nccl.has == (1u << STATE_NCCL_IB_TC) && before.nccl.value[STATE_NCCL_IB_TC] == 0);
        CU_ASSERT_STRING_EQUAL(before.nccl.line[STATE_NCCL_IB_TC], "NCCL_IB_TC=0");
        CU_ASSERT(!before.nccl.eol);
        want_nccl(&want, 106, 3);
        CU_ASSERT_FATAL(drvtest_apply(&nccl_conf_driver, &tgt, &want, &e) == 0);
        slurp(buf, sizeof(buf));
        CU_ASSERT_STRING_EQUAL(buf, "# site NCCL settings\nNCCL_DEBUG=WARN\nNCCL_IB_TC=106\n#NCCL_IB_SL=1\n"
                                    "NCCL_IB_TC=96\nNCCL_SOCKET_IFNAME==ens1f0\nNCCL_IB_SL=3\n");
        model_read(conf, &m);
        CU_ASSERT_EQUAL(model_param(&m, "NCCL_IB_TC"), 106);
        CU_ASSERT_EQUAL(model_param(&m, "NCCL_IB_SL"), 3);
        CU_ASSERT(stat(conf, &st) == 0 && (st.st_mode & 07777) == 0640);
        read_live(&after);
        {
                struct diff d = { 0 };

                CU_ASSERT(state_diff(&want, &after, &d) == 0);
                CU_ASSERT_EQUAL(d.n, 0);                        /* read back: met */
                diff_done(&d);
        }
        CU_ASSERT(drvtest_apply(&nccl_conf_driver, &tgt, &want, &e) == 0);    /* again: nothing to do */
        CU_ASSERT_FATAL(drvtest_restore(&nccl_conf_driver, &tgt, &before, &e) == 0);
        CU_ASSERT_EQUAL(slurp(buf, sizeof(buf)), strlen(orig));
        CU_ASSERT_STRING_EQUAL(buf, orig);
        CU_ASSERT(stat(conf, &st) == 0 && (st.st_mode & 07777) == 0640);
        teardown();
}

/* No file: apply makes one (0644) holding the declared key only; the restore removes it. */
static void test_absent_file(void)
{
        struct state before, want, s;
        struct model_env m;
        struct errbuf e;
        struct stat st;
        char buf[256];

        setup();
        read_live(&before);
        CU_ASSERT(!before.nccl.exists && !before.nccl.has);
        want_nccl(&want, 106, -1);
        CU_ASSERT_FATAL(drvtest_apply(&nccl_conf_driver, &tgt, &want, &e) == 0);
        slurp(buf, sizeof(buf));
        CU_ASSERT_STRING_EQUAL(buf, "NCCL_IB_TC=106\n");
        CU_ASSERT(stat(conf, &st) == 0 && (st.st_mode & 07777) == 0644);
        model_read(conf, &m);
        CU_ASSERT_EQUAL(model_param(&m, "NCCL_IB_TC"), 106);
        CU_ASSERT_EQUAL(model_param(&m, "NCCL_IB_SL"), -1);    /* not declared: not written */
        CU_ASSERT_FATAL(drvtest_restore(&nccl_conf_driver, &tgt, &before, &e) == 0);
        CU_ASSERT(access(conf, F_OK) < 0 && errno == ENOENT);
        read_live(&s);
        {
                struct diff d = { 0 };

                CU_ASSERT(state_diff(&before, &s, &d) == 0);
                CU_ASSERT_EQUAL(d.n, 0);
                diff_done(&d);
        }
        teardown();
}

/* Someone edits the line after the change: the diff (drift) names it; a later duplicate does not count. */
static void test_drift(void)
{
        static const char text[] = "NCCL_IB_TC=104\nNCCL_IB_TC=106\n";
        struct state want, live;
        struct diff d = { 0 };
        struct errbuf e;

        setup();
        want_nccl(&want, 106, -1);
        put(text, strlen(text), 0644);
        read_live(&live);
        CU_ASSERT(state_diff(&want, &live, &d) == 0);
        CU_ASSERT_EQUAL_FATAL(d.n, 1);
        CU_ASSERT_STRING_EQUAL(d.entries[0].key, "nccl.ib_tc");
        CU_ASSERT_STRING_EQUAL(d.entries[0].from, "104");
        CU_ASSERT_STRING_EQUAL(d.entries[0].to, "106");
        diff_done(&d);
        CU_ASSERT(drvtest_apply(&nccl_conf_driver, &tgt, &want, &e) == 0);
        read_live(&live);
        CU_ASSERT_EQUAL(live.nccl.value[STATE_NCCL_IB_TC], 106);
        teardown();
}

/* A link where the file should be, or a directory nobody may write: refused, nothing changed. */
static void test_refusals(void)
{
        char target[160], buf[64];
        struct state want;
        struct errbuf e;

        setup();
        snprintf(target, sizeof(target), "%s/real.conf", root);
        {
                FILE *f = fopen(target, "we");

                CU_ASSERT_FATAL(f != NULL);
                fputs("NCCL_IB_TC=0\n", f);
                fclose(f);
        }
        CU_ASSERT_FATAL(symlink(target, conf) == 0);
        want_nccl(&want, 106, -1);
        CU_ASSERT_EQUAL(drvtest_apply(&nccl_conf_driver, &tgt, &want, &e), -EINVAL);
        CU_ASSERT_PTR_NOT_NULL(strstr(e.msg, "is not a regular file"));
        {
                FILE *f = fopen(target, "re");

                CU_ASSERT_FATAL(f != NULL);
                CU_ASSERT(fgets(buf, sizeof(buf), f) != NULL);
                fclose(f);
                CU_ASSERT_STRING_EQUAL(buf, "NCCL_IB_TC=0\n");
        }
        teardown();
}

/* nccl_conf_edit alone: the first line of a name changed in place, its missing newline kept. */
static void test_edit(void)
{
        static const char text[] = "A=1\nNCCL_IB_TC=3";
        struct state_nccl w = { .has = 1u << STATE_NCCL_IB_TC, .value = { 106 } };
        char *out = NULL;
        size_t n = 0;

        CU_ASSERT_FATAL(nccl_conf_edit(text, strlen(text), &w, w.has, &out, &n) == 0);
        CU_ASSERT_STRING_EQUAL(out, "A=1\nNCCL_IB_TC=106");
        CU_ASSERT_EQUAL(n, strlen(out));
        free(out);
}

int suite_nccl_conf(void)
{
        CU_pSuite s = CU_add_suite("nccl_conf", NULL, NULL);

        if (!s || !CU_add_test(s, "format_like_nccl", test_format_like_nccl) ||
            !CU_add_test(s, "apply_restore_byte_identical", test_apply_restore_byte_identical) ||
            !CU_add_test(s, "absent_file", test_absent_file) || !CU_add_test(s, "drift", test_drift) ||
            !CU_add_test(s, "refusals", test_refusals) || !CU_add_test(s, "edit", test_edit))
                return -1;
        return 0;
}
