/* SPDX-License-Identifier: MIT */
/* Progress lines: what each mode writes (escape codes only on a terminal), the cut to
 * the terminal's width, the mode chosen for a file and for a pseudo-terminal. */
#include <CUnit/CUnit.h>
#include <fcntl.h>
#include <pty.h>

#include "common/progress.h"

/* Run one operation of 3 units in mode and return what it wrote (caller frees). */
static char *run(enum progress_mode mode, const char *label)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        struct progress p;

        CU_ASSERT_FATAL(f != NULL);
        progress_init(&p, mode, f);
        progress_begin(&p, "collect", 3, "item", "%s", label);
        progress_item(&p, false, "dcb: ok");
        progress_note(&p, "%u MiB", 4u);
        progress_item(&p, true, "ethtool: %s", "no such device");
        progress_item(&p, false, "sysfs: ok");
        progress_end(&p);
        fclose(f);
        return buf;
}

static void test_modes(void)
{
        char *lines = run(PROGRESS_LINES, "host1"), *off = run(PROGRESS_OFF, "host1"),
             *tty = run(PROGRESS_TTY, "host1");

        CU_ASSERT_STRING_EQUAL(lines, "collect: host1: 3 items\n"
                                      "collect: dcb: ok\n"
                                      "collect: ethtool: no such device\n"
                                      "collect: sysfs: ok\n");
        CU_ASSERT_PTR_NULL(strchr(lines, '\033'));
        CU_ASSERT_PTR_NULL(strchr(lines, '\r'));
        CU_ASSERT_STRING_EQUAL(off, "");
        /* begin, three items and the end redraw the one line; a newline ends it */
        CU_ASSERT_STRING_EQUAL(tty, "\r\033[Kcollect: host1: 0/3 items done"
                                    "\r\033[Kcollect: host1: 1/3 items done"
                                    "\r\033[Kcollect: host1: 2/3 items done, 1 failed, 4 MiB"
                                    "\r\033[Kcollect: host1: 3/3 items done, 1 failed, 4 MiB"
                                    "\r\033[Kcollect: host1: 3/3 items done, 1 failed, 4 MiB\n");
        free(lines);
        free(off);
        free(tty);
}

static void test_cut_to_width(void)
{
        char label[300], *tty, *last;

        memset(label, 'x', sizeof(label) - 1);
        label[sizeof(label) - 1] = '\0';
        tty = run(PROGRESS_TTY, label);        /* not a terminal: 80 columns */
        last = strrchr(tty, '\r');
        CU_ASSERT_FATAL(last != NULL);
        /* "\r\033[K" + 79 characters + "\n": never wraps, so "\r" redraws in place */
        CU_ASSERT_EQUAL(strlen(last), 4 + 79 + 1);
        free(tty);
}

static void test_mode_for(void)
{
        int fd = open("/dev/null", O_WRONLY | O_CLOEXEC), master, slave;
        const char *term = getenv("TERM");
        char *saved = term ? strdup(term) : NULL;

        CU_ASSERT_FATAL(fd >= 0);
        CU_ASSERT_EQUAL(progress_mode_for(fd, false, false, true), PROGRESS_LINES);
        CU_ASSERT_EQUAL(progress_mode_for(fd, false, false, false), PROGRESS_OFF);
        CU_ASSERT_EQUAL(progress_mode_for(fd, true, false, true), PROGRESS_OFF);
        close(fd);
        CU_ASSERT_FATAL(openpty(&master, &slave, NULL, NULL, NULL) == 0);
        setenv("TERM", "xterm", 1);
        CU_ASSERT_EQUAL(progress_mode_for(slave, false, false, false), PROGRESS_TTY);
        CU_ASSERT_EQUAL(progress_mode_for(slave, false, true, true), PROGRESS_OFF);     /* --output json */
        CU_ASSERT_EQUAL(progress_mode_for(slave, true, false, true), PROGRESS_OFF);     /* --quiet */
        setenv("TERM", "dumb", 1);
        CU_ASSERT_EQUAL(progress_mode_for(slave, false, false, true), PROGRESS_LINES);
        if (saved)
                setenv("TERM", saved, 1);
        else
                unsetenv("TERM");
        free(saved);
        close(master);
        close(slave);
}

int suite_progress(void);
int suite_progress(void)
{
        CU_pSuite s = CU_add_suite("progress", NULL, NULL);

        if (!s || !CU_add_test(s, "modes", test_modes) || !CU_add_test(s, "cut_to_width", test_cut_to_width) ||
            !CU_add_test(s, "mode_for", test_mode_for))
                return -1;
        return 0;
}
