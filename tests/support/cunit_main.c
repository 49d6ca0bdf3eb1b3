/* The one main() every CUnit suite program shares. */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "tests/support/holders_left.h"

#include <CUnit/Basic.h>
#include <stdio.h>
#include <stdlib.h>

void sbx_test_add_suite(const char *name, CU_InitializeFunc init,
                        CU_CleanupFunc cleanup, const CU_TestInfo *tests)
{
    CU_pSuite suite = CU_add_suite(name, init, cleanup);
    if (suite == NULL) {
        fprintf(stderr, "cannot add suite %s: %s\n", name, CU_get_error_msg());
        exit(99);
    }
    for (const CU_TestInfo *t = tests; t->pName != NULL; t++) {
        if (CU_add_test(suite, t->pName, t->pTestFunc) == NULL) {
            fprintf(stderr, "cannot add test %s: %s\n", t->pName, CU_get_error_msg());
            exit(99);
        }
    }
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS) {
        fprintf(stderr, "CUnit: %s\n", CU_get_error_msg());
        return 99;
    }
    sbx_test_register();
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_tests_failed()
                    + CU_get_number_of_suites_failed();
    unsigned run = CU_get_number_of_tests_run();
    CU_cleanup_registry();
    /* Every suite destroys what it creates: a holder left is a leak. */
    int holders = sbx_test_holders_left(NULL);
    if (holders > 0) {
        fprintf(stderr, "%d sandbox holders left running\n", holders);
        failed++;
    }
    /* A program that ran nothing is a broken test, not a pass. */
    return (failed > 0 || run == 0) ? 1 : 0;
}
