/* The derived sandbox id is the documented function of user and thread
 * (sbxctl(1), docs/manager.md rule 1): expected values computed independently of
 * this code (Python's hashlib.sha256("<user>:<thread>")[:16]), the ids
 * DeerFlow's provider gives the same threads. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <string.h>

#include "tests/support/cunit_main.h"
#include "tools/sbxctl/sandbox_id.h"

static void test_known_values(void)
{
    char id[CTL_DERIVED_ID_SIZE];
    sbx_error err;
    CU_ASSERT_EQUAL(ctl_derive_sandbox_id(NULL, "th-1", id, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(id, "0b415aece4ed938c");
    CU_ASSERT_EQUAL(ctl_derive_sandbox_id("default", "th-1", id, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(id, "0b415aece4ed938c");
    CU_ASSERT_EQUAL(ctl_derive_sandbox_id("alice", "th-1", id, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(id, "06ee6a9723b9e3f3");
    CU_ASSERT_EQUAL(ctl_derive_sandbox_id(NULL, "thread-42", id, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(id, "4a8de5c7054086ae");
}

/* The ':' between user and thread keeps ("ab","c") apart from ("a","bc"). */
static void test_user_and_thread_are_separated(void)
{
    char first[CTL_DERIVED_ID_SIZE], second[CTL_DERIVED_ID_SIZE];
    sbx_error err;
    CU_ASSERT_EQUAL(ctl_derive_sandbox_id("ab", "c", first, &err), SBX_OK);
    CU_ASSERT_EQUAL(ctl_derive_sandbox_id("a", "bc", second, &err), SBX_OK);
    CU_ASSERT_STRING_NOT_EQUAL(first, second);
}

static void test_ids_are_dns_labels(void)
{
    char id[CTL_DERIVED_ID_SIZE];
    sbx_error err;
    CU_ASSERT_EQUAL(ctl_derive_sandbox_id("user_1", "T-Thread_With-Upper", id, &err), SBX_OK);
    CU_ASSERT_STRING_EQUAL(id, "af469806cc7b6f75");
    CU_ASSERT_EQUAL(strlen(id), 16);
    CU_ASSERT_EQUAL(strspn(id, "0123456789abcdef"), strlen(id));
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
