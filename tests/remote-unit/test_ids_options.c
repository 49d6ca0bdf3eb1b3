/* Identifier rules (PROTOCOL.md "Transport") and option parsing: what a
 * user sees when an id or a configuration value is wrong. */
#include "tests/support/cunit_main.h"

#include "common/sandbox_ids.h"
#include "plugin/remote/options.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <string.h>

static sbx_status check_sandbox(const char *id, sbx_error *err)
{
    sbx_error_clear(err);
    return sbx_check_sandbox_id(id, err);
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
        CU_ASSERT_EQUAL(sbx_check_principal_id("thread_id", good[i], &err), SBX_OK);
    const char *bad[] = { "", "../x", "a b", "a.b", "é", too_long };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CU_ASSERT_EQUAL(sbx_check_principal_id("user_id", bad[i], &err), SBX_ERR_REFUSED);
    sbx_check_principal_id("user_id", "../x", &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "invalid user_id '../x'"));
    sbx_check_principal_id("thread_id", too_long, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "thread_id"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "...")); /* long values are cut */
}

/* Parse a NULL-terminated list of key, value pairs. */
static sbx_status parse(sbx_remote_options *opts, sbx_error *err, const char *const *kv)
{
    sbx_option options[16];
    size_t n = 0;
    for (; kv[2 * n] != NULL; n++)
        options[n] = (sbx_option){ kv[2 * n], kv[2 * n + 1] };
    sbx_error_clear(err);
    return sbx_remote_options_parse(options, n, opts, err);
}

static void test_defaults_of_the_reference_client(void)
{
    sbx_remote_options o;
    sbx_error err;
    const char *kv[] = { "provisioner_url", "http://provisioner:8002/", NULL };
    CU_ASSERT_EQUAL_FATAL(parse(&o, &err, kv), SBX_OK);
    CU_ASSERT_STRING_EQUAL(o.provisioner_url, "http://provisioner:8002");
    CU_ASSERT_PTR_NULL(o.api_key);
    CU_ASSERT_EQUAL(o.list_timeout_ms, 10000);
    CU_ASSERT_EQUAL(o.create_timeout_ms, 30000);
    CU_ASSERT_EQUAL(o.destroy_timeout_ms, 15000);
    CU_ASSERT_EQUAL(o.get_timeout_ms, 10000);
    CU_ASSERT_EQUAL(o.max_response_bytes, (size_t)16 * 1024 * 1024);
    CU_ASSERT_EQUAL(o.forward_mount_count, 6u);
    for (size_t i = 0; i < o.forward_mount_count; i++)
        CU_ASSERT_STRING_NOT_EQUAL(o.forward_mounts[i], "/mnt/skills/custom");
    sbx_remote_options_free(&o);
}

static void test_timeout_ms_overrides_every_call(void)
{
    sbx_remote_options o;
    sbx_error err;
    const char *kv[] = { "timeout_ms", "1500", "provisioner_url", "https://p.example",
                         "create_timeout_ms", "99", "connect_timeout_ms", "250",
                         "api_key", "secret", NULL };
    CU_ASSERT_EQUAL_FATAL(parse(&o, &err, kv), SBX_OK);
    CU_ASSERT_EQUAL(o.list_timeout_ms, 1500);
    CU_ASSERT_EQUAL(o.create_timeout_ms, 1500);
    CU_ASSERT_EQUAL(o.destroy_timeout_ms, 1500);
    CU_ASSERT_EQUAL(o.get_timeout_ms, 1500);
    CU_ASSERT_EQUAL(o.connect_timeout_ms, 250);
    CU_ASSERT_STRING_EQUAL(o.api_key, "secret");
    sbx_remote_options_free(&o);
}

static void expect_config_error(const char *const *kv, const char *needle)
{
    sbx_remote_options o;
    sbx_error err;
    CU_ASSERT_EQUAL(parse(&o, &err, kv), SBX_ERR_CONFIG);
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, needle));
    sbx_remote_options_free(&o);
}

static void test_option_errors_name_the_key(void)
{
    const char *unknown[] = { "provisioner_url", "http://p", "api_kee", "x", NULL };
    expect_config_error(unknown, "unknown option 'api_kee'");
    const char *missing[] = { "api_key", "k", NULL };
    expect_config_error(missing, "provisioner_url is required");
    const char *scheme[] = { "provisioner_url", "ftp://p", NULL };
    expect_config_error(scheme, "provisioner_url='ftp://p'");
    const char *no_host[] = { "provisioner_url", "http://", NULL };
    expect_config_error(no_host, "has no host");
    const char *zero[] = { "provisioner_url", "http://p", "timeout_ms", "0", NULL };
    expect_config_error(zero, "timeout_ms='0'");
    const char *negative[] = { "provisioner_url", "http://p", "list_timeout_ms", "-5", NULL };
    expect_config_error(negative, "list_timeout_ms='-5'");
    const char *junk[] = { "provisioner_url", "http://p", "get_timeout_ms", "10s", NULL };
    expect_config_error(junk, "get_timeout_ms='10s'");
    const char *huge[] = { "provisioner_url", "http://p", "max_response_bytes",
                           "99999999999999999999999", NULL };
    expect_config_error(huge, "max_response_bytes");
    const char *ca[] = { "provisioner_url", "https://p", "ca_file", "/nonexistent/ca.pem", NULL };
    expect_config_error(ca, "ca_file='/nonexistent/ca.pem'");
    const char *relative[] = { "provisioner_url", "http://p", "forward_mounts", "mnt/x", NULL };
    expect_config_error(relative, "forward_mounts");
}

static void test_api_key_is_never_echoed(void)
{
    sbx_remote_options o;
    sbx_error err;
    const char *kv[] = { "provisioner_url", "http://p", "api_key", "top-secret\r\nX-Evil: 1",
                         NULL };
    CU_ASSERT_EQUAL(parse(&o, &err, kv), SBX_ERR_CONFIG);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "api_key"));
    CU_ASSERT_PTR_NULL(strstr(err.message, "top-secret"));
    sbx_remote_options_free(&o);

    const char *empty[] = { "provisioner_url", "http://p", "api_key", "", NULL };
    CU_ASSERT_EQUAL(parse(&o, &err, empty), SBX_OK);
    CU_ASSERT_PTR_NULL(o.api_key); /* an empty key means "no key" */
    sbx_remote_options_free(&o);
}

static void test_forward_mounts_replaces_the_default_allowlist(void)
{
    sbx_remote_options o;
    sbx_error err;
    const char *kv[] = { "provisioner_url", "http://p", "forward_mounts",
                         " /mnt/skills/custom , /mnt/acp-workspace,,", NULL };
    CU_ASSERT_EQUAL_FATAL(parse(&o, &err, kv), SBX_OK);
    CU_ASSERT_EQUAL_FATAL(o.forward_mount_count, 2u);
    CU_ASSERT_STRING_EQUAL(o.forward_mounts[0], "/mnt/skills/custom");
    CU_ASSERT_STRING_EQUAL(o.forward_mounts[1], "/mnt/acp-workspace");
    sbx_remote_options_free(&o);

    const char *none[] = { "provisioner_url", "http://p", "forward_mounts", "", NULL };
    CU_ASSERT_EQUAL(parse(&o, &err, none), SBX_OK);
    CU_ASSERT_EQUAL(o.forward_mount_count, 0u);
    sbx_remote_options_free(&o);
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
    static const CU_TestInfo options[] = {
        { "defaults_of_the_reference_client", test_defaults_of_the_reference_client },
        { "timeout_ms_overrides_every_call", test_timeout_ms_overrides_every_call },
        { "option_errors_name_the_key", test_option_errors_name_the_key },
        { "api_key_is_never_echoed", test_api_key_is_never_echoed },
        { "forward_mounts_replaces_the_default_allowlist",
          test_forward_mounts_replaces_the_default_allowlist },
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("remote ids", NULL, NULL, ids);
    sbx_test_add_suite("remote options", NULL, NULL, options);
}
