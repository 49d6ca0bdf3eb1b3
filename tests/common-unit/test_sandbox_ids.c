/* common/sandbox_ids: the identifier rules (docs/protocol.md "Transport")
 * and what a user sees when an id is wrong. */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "common/sandbox_ids.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <string.h>

static sbx_status check_sandbox(const char *id, sbx_error *err)
{
    sbx_error_clear(err);
    return common_check_sandbox_id(id, err);
}

static void test_sandbox_ids_are_dns_labels_of_at_most_51(void)
{
    sbx_error err;
    const char *good[] = { "abc123", "a", "0", "sandbox-v2", "a-b-c",
                           "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghij1" /* 51 */ };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        CU_ASSERT_EQUAL(check_sandbox(good[i], &err), SBX_OK);
    const char *bad[] = { "", "ABC", "-abc", "abc-", "a_b", "a.b", "../x", "a/b", "a b",
                          "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghij12" /* 52 */ };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CU_ASSERT_EQUAL(check_sandbox(bad[i], &err), SBX_ERR_REFUSED);
        CU_ASSERT_EQUAL(err.kind, SBX_ERR_REFUSED);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "sandbox_id"));
    }
    CU_ASSERT_EQUAL(check_sandbox(NULL, &err), SBX_ERR_REFUSED);
}

static void test_invalid_sandbox_id_message_names_the_value(void)
{
    sbx_error err;
    check_sandbox("../etc", &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "invalid sandbox_id '../etc'"));
    check_sandbox("a\nb", &err); /* control characters never reach a message */
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "'a?b'"));
}

static void test_thread_and_user_ids_follow_the_provisioner_pattern(void)
{
    sbx_error err;
    char longest[65], too_long[66];
    memset(longest, 'a', 64);
    longest[64] = '\0';
    memset(too_long, 'a', 65);
    too_long[65] = '\0';
    const char *good[] = { "thread-1", "A_b-9", "default", longest };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        CU_ASSERT_EQUAL(common_check_principal_id("thread_id", good[i], &err), SBX_OK);
    const char *bad[] = { "", "../x", "a b", "a.b", "é", too_long };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CU_ASSERT_EQUAL(common_check_principal_id("user_id", bad[i], &err), SBX_ERR_REFUSED);
    common_check_principal_id("user_id", "../x", &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "invalid user_id '../x'"));
    common_check_principal_id("thread_id", too_long, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "thread_id"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "...")); /* long values are cut */
}

void sbx_test_register(void)
{
    static const CU_TestInfo ids[] = {
        { "sandbox_ids_are_dns_labels_of_at_most_51", test_sandbox_ids_are_dns_labels_of_at_most_51 },
        { "invalid_sandbox_id_message_names_the_value", test_invalid_sandbox_id_message_names_the_value },
        { "thread_and_user_ids_follow_the_provisioner_pattern",
          test_thread_and_user_ids_follow_the_provisioner_pattern },
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("sandbox ids", NULL, NULL, ids);
}
