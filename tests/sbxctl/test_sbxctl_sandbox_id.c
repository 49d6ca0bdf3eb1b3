/* The derived sandbox id is the documented function of user and thread
 * (sbxctl(1)): expected values computed independently of this code. */
#include <CUnit/CUnit.h>
#include <string.h>

#include "tests/support/cunit_main.h"
#include "tools/sbxctl/sandbox_id.h"

static void test_known_values(void)
{
    char id[SBX_CTL_DERIVED_ID_SIZE];
    sbx_ctl_derive_sandbox_id(NULL, "th-1", id);
    CU_ASSERT_STRING_EQUAL(id, "t-8092cd6fdb1ddec0");
    sbx_ctl_derive_sandbox_id("default", "th-1", id);
    CU_ASSERT_STRING_EQUAL(id, "t-8092cd6fdb1ddec0");
    sbx_ctl_derive_sandbox_id("alice", "th-1", id);
    CU_ASSERT_STRING_EQUAL(id, "t-d2c93f3eaf1e03df");
    sbx_ctl_derive_sandbox_id(NULL, "thread-42", id);
    CU_ASSERT_STRING_EQUAL(id, "t-1e8a609caab52f6f");
}

/* The NUL between user and thread keeps ("ab","c") apart from ("a","bc"). */
static void test_user_and_thread_are_separated(void)
{
    char first[SBX_CTL_DERIVED_ID_SIZE], second[SBX_CTL_DERIVED_ID_SIZE];
    sbx_ctl_derive_sandbox_id("ab", "c", first);
    sbx_ctl_derive_sandbox_id("a", "bc", second);
    CU_ASSERT_STRING_NOT_EQUAL(first, second);
}

static void test_ids_are_dns_labels(void)
{
    char id[SBX_CTL_DERIVED_ID_SIZE];
    sbx_ctl_derive_sandbox_id("user_1", "T-Thread_With-Upper", id);
    CU_ASSERT_EQUAL(strlen(id), 18);
    CU_ASSERT_EQUAL(strspn(id, "abcdefghijklmnopqrstuvwxyz0123456789-"), strlen(id));
    CU_ASSERT_EQUAL(strncmp(id, "t-", 2), 0);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"known values", test_known_values},
        {"user and thread separated", test_user_and_thread_are_separated},
        {"ids are DNS labels", test_ids_are_dns_labels},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("sbxctl sandbox id", NULL, NULL, tests);
}
