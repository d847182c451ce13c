/* SPDX-License-Identifier: MIT */
/*
 * The one CUnit runner. Every tests/unit/test_NAME.c defines `int suite_NAME(void)`
 * that adds its suite; the build generates the list. Prints one PASS/FAIL line per
 * test for tests/check.sh, then CUnit's own run summary.
 *   unit-tests [SUITE...]   run only the named suites
 */
#include <CUnit/Basic.h>
#include <CUnit/TestRun.h>
#include <stdio.h>
#include <string.h>

static const struct {
        const char *name;
        int (*add)(void);
} suites[] = {
#define SUITE(name) { #name, suite_##name },
#include "unit_suites.h"
#undef SUITE
};

static void on_test_complete(const CU_pTest test, const CU_pSuite suite, const CU_pFailureRecord failure)
{
        if (!failure) {
                printf("PASS %s.%s\n", suite->pName, test->pName);
                return;
        }
        printf("FAIL %s.%s: %s:%u: %s\n", suite->pName, test->pName,
               failure->strFileName, failure->uiLineNumber, failure->strCondition);
        for (CU_pFailureRecord f = failure->pNext; f; f = f->pNext)
                printf("  %s:%u: %s\n", f->strFileName, f->uiLineNumber, f->strCondition);
}

static void on_suite_init_failure(const CU_pSuite suite)
{
        printf("FAIL %s: suite set-up failed\n", suite->pName);
}

static int wanted(const char *name, int argc, char **argv)
{
        if (argc < 2)
                return 1;
        for (int i = 1; i < argc; i++)
                if (strcmp(argv[i], name) == 0)
                        return 1;
        return 0;
}

int main(int argc, char **argv)
{
        unsigned failed;

        if (CU_initialize_registry() != CUE_SUCCESS)
                return 2;
        for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++)
                if (wanted(suites[i].name, argc, argv) && suites[i].add() != 0) {
                        fprintf(stderr, "unit-tests: cannot add suite %s: %s\n", suites[i].name, CU_get_error_msg());
                        CU_cleanup_registry();
                        return 2;
                }
        setvbuf(stdout, NULL, _IOLBF, 0);
        CU_set_test_complete_handler(on_test_complete);
        CU_set_suite_init_failure_handler(on_suite_init_failure);
        CU_run_all_tests();
        failed = CU_get_number_of_tests_failed() + CU_get_number_of_suites_failed();
        printf("\nunit: %u tests run, %u failed\n", CU_get_number_of_tests_run(), failed);
        CU_cleanup_registry();
        return failed ? 1 : 0;
}
