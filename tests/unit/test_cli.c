/* SPDX-License-Identifier: MIT */
/* The shared command line: edit distance and its suggestions, help from a table, flag lookup. */
#include <CUnit/CUnit.h>

#include "common/cli.h"

static const char *closest(const char *word, const char *const *names)
{
        struct cli_suggest s;

        cli_suggest_init(&s, word);
        for (size_t i = 0; names[i]; i++)
                cli_suggest_offer(&s, names[i]);
        return cli_suggest_best(&s);
}

static void test_distance(void)
{
        CU_ASSERT_EQUAL(cli_edit_distance("apply", "apply"), 0);
        CU_ASSERT_EQUAL(cli_edit_distance("aply", "apply"), 1);         /* a letter left out */
        CU_ASSERT_EQUAL(cli_edit_distance("--conifg", "--config"), 1);  /* two neighbours swapped */
        CU_ASSERT_EQUAL(cli_edit_distance("mtuu", "mtu"), 1);
        CU_ASSERT_EQUAL(cli_edit_distance("", "abc"), 3);
        CU_ASSERT_EQUAL(cli_edit_distance("kitten", "sitting"), 3);
        CU_ASSERT_EQUAL(cli_edit_distance("STATE", "state"), 0);        /* case does not count */
}

static void test_suggest(void)
{
        static const char *const commands[] = { "plan", "apply", "status", "state", "drift", "doctor", NULL };
        static const char *const keys[] = { "mtu", "trust", "dscp_to_priority", "pfc", "ets", NULL };

        CU_ASSERT_STRING_EQUAL(closest("aply", commands), "apply");
        CU_ASSERT_STRING_EQUAL(closest("drfit", commands), "drift");
        CU_ASSERT_STRING_EQUAL(closest("stat", commands), "state");
        CU_ASSERT_STRING_EQUAL(closest("mtuu", keys), "mtu");
        CU_ASSERT_STRING_EQUAL(closest("dscp_to_priorty", keys), "dscp_to_priority");
        CU_ASSERT_PTR_NULL(closest("dscp_to_prio", keys));          /* a stem, not a typo */
        CU_ASSERT_PTR_NULL(closest("frobnicate", commands));            /* close to nothing */
        CU_ASSERT_PTR_NULL(closest("x", keys));                         /* a word of one letter is no typo */
        CU_ASSERT_PTR_NULL(closest("apply", commands));                 /* itself: nothing to suggest */
}

static const struct cli_flag flags[] = {
        { "--selector", "KEY=VALUE", "only these nodes", "--label" },
        { "--probe", NULL, "measure", NULL },
        { 0 },
};
static const struct cli_command cmd = { "drift", NULL, "scan", "Scans.", flags, "0 ok" };

static void test_help(void)
{
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);

        CU_ASSERT_FATAL(f != NULL);
        cli_help(f, "prog", "[--yes]", &cmd, NULL, "0 ok, 2 invalid");
        fclose(f);
        CU_ASSERT_PTR_NOT_NULL(strstr(buf, "usage: prog [--yes] drift [OPTIONS]\n"));
        CU_ASSERT_PTR_NOT_NULL(strstr(buf, "\nScans.\n"));
        CU_ASSERT_PTR_NOT_NULL(strstr(buf, "  --selector KEY=VALUE    only these nodes\n"));
        CU_ASSERT_PTR_NOT_NULL(strstr(buf, "  --label KEY=VALUE       the same as --selector\n"));
        CU_ASSERT_PTR_NOT_NULL(strstr(buf, "exit codes: 0 ok\n"));      /* the command's own */
        free(buf);
}

static void test_flag_of(void)
{
        CU_ASSERT_PTR_EQUAL(cli_flag_of(&cmd, NULL, "--selector"), &flags[0]);
        CU_ASSERT_PTR_EQUAL(cli_flag_of(&cmd, NULL, "--label=a=b"), &flags[0]);
        CU_ASSERT_PTR_EQUAL(cli_flag_of(&cmd, NULL, "--probe"), &flags[1]);
        CU_ASSERT_PTR_NULL(cli_flag_of(&cmd, NULL, "--prob"));
        CU_ASSERT_PTR_NULL(cli_flag_of(&cmd, NULL, "--selectors"));
        {
                char *argv[] = { "x", "--help", NULL }, *after[] = { "--", "--help", NULL };

                CU_ASSERT_TRUE(cli_help_wanted(2, argv));
                CU_ASSERT_FALSE(cli_help_wanted(2, after));     /* after "--" it is an argument */
        }
}

static void test_confirm_without_terminal(void)
{
        /* the runner's stdin is no terminal: nothing is asked and the answer is yes */
        if (isatty(STDIN_FILENO))
                return;
        CU_ASSERT_TRUE(cli_confirm(false, "apply?"));
        CU_ASSERT_TRUE(cli_confirm(true, "apply?"));
}

int suite_cli(void);
int suite_cli(void)
{
        CU_pSuite s = CU_add_suite("cli", NULL, NULL);

        if (!s || !CU_add_test(s, "distance", test_distance) || !CU_add_test(s, "suggest", test_suggest) ||
            !CU_add_test(s, "help", test_help) || !CU_add_test(s, "flag_of", test_flag_of) ||
            !CU_add_test(s, "confirm_without_terminal", test_confirm_without_terminal))
                return -1;
        return 0;
}
