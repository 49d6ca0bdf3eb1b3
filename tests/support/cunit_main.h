/* Shared main() for the CUnit suites: each test program defines
 * sbx_test_register() to add its suites; the runner runs them all in verbose
 * mode and exits non-zero when any test fails (automake counts that as FAIL). */
#ifndef SBX_TEST_CUNIT_MAIN_H
#define SBX_TEST_CUNIT_MAIN_H

#include <CUnit/CUnit.h>

/* Defined by each test program: add suites to the CUnit registry. */
void sbx_test_register(void);

/* Add a suite and its tests; aborts the program with a message when CUnit
 * cannot (only test code may). `tests` ends with CU_TEST_INFO_NULL. */
void sbx_test_add_suite(const char *name, CU_InitializeFunc init,
                        CU_CleanupFunc cleanup, const CU_TestInfo *tests);

#endif
