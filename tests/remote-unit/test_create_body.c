/* The create request body, byte for byte, for the seed cases that pin it
 * down, and the mount forwarding filter. */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "plugin/remote/remote_create.h"
#include "plugin/remote/remote_options.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <stdlib.h>
#include <string.h>

/* The default allowlist, as a configuration without forward_mounts gets. */
static remote_options defaults;

static int load_defaults(void)
{
    sbx_option url = { "provisioner_url", "http://provisioner:8002" };
    sbx_error err;
    return remote_options_parse(&url, 1, &defaults, &err) == SBX_OK ? 0 : 1;
}

static int free_defaults(void)
{
    remote_options_clear(&defaults);
    return 0;
}

/* The body for `req` under the default allowlist (caller frees). */
static char *body_for(const sbx_create_request *req, const char *user, int frozen)
{
    sbx_error err;
    char *body = remote_create_body(req, user, frozen,
                                    (const char *const *)defaults.forward_mounts,
                                    defaults.forward_mount_count, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(body);
    return body;
}

/* A request for `sandbox_id` and `thread_id` (NULL: anonymous) with the
 * `n` extra `mounts` (borrowed); every flag off. */
static sbx_create_request request_for(const char *sandbox_id, const char *thread_id,
                                      const sbx_mount *mounts, size_t n)
{
    sbx_create_request req = SBX_CREATE_REQUEST_INIT;
    req.sandbox_id = sandbox_id;
    req.thread_id = thread_id;
    req.extra_mounts = mounts;
    req.extra_mount_count = n;
    return req;
}

/* The body for `req` must be `expected`, byte for byte. */
static void expect_body(const sbx_create_request *req, const char *user, int frozen,
                        const char *expected)
{
    char *body = body_for(req, user, frozen);
    CU_ASSERT_STRING_EQUAL(body, expected);
    free(body);
}

/* Port of test_provisioner_create_returns_sandbox_info (the body it asserts). */
static void test_provisioner_create_returns_sandbox_info(void)
{
    sbx_create_request req = request_for("abc123", "thread-1", NULL, 0);
    req.include_legacy_skills = 1;
    expect_body(&req, "test-user-autouse", 0,
        "{\"sandbox_id\":\"abc123\",\"thread_id\":\"thread-1\",\"user_id\":\"test-user-autouse\","
        "\"required_mount_contract_version\":0,\"include_legacy_skills\":true,"
        "\"provision_lark_cli_runtime\":false,\"provision_lark_cli_broker\":false}");
}

/* Port of test_provisioner_create_forwards_supported_extra_mounts. */
static void test_provisioner_create_forwards_supported_extra_mounts(void)
{
    const sbx_mount mounts[] = {
        { "/state/users/alice/threads/thread-1/user-data/workspace", "/mnt/user-data/workspace", 0 },
        { "/skills", "/mnt/skills", 1 },
        { "/state/users/alice/skills/integrations", "/mnt/skills/integrations", 1 },
        { "/state/users/alice/integrations/lark-cli/config", "/mnt/integrations/lark-cli/config", 0 },
    };
    sbx_create_request req = request_for("abc123", "thread-1", mounts, 4);
    expect_body(&req, "alice", 0,
        "{\"sandbox_id\":\"abc123\",\"thread_id\":\"thread-1\",\"user_id\":\"alice\","
        "\"required_mount_contract_version\":0,\"include_legacy_skills\":false,"
        "\"provision_lark_cli_runtime\":false,\"provision_lark_cli_broker\":false,"
        "\"extra_mounts\":["
        "{\"host_path\":\"/state/users/alice/skills/integrations\","
        "\"container_path\":\"/mnt/skills/integrations\",\"read_only\":true},"
        "{\"host_path\":\"/state/users/alice/integrations/lark-cli/config\","
        "\"container_path\":\"/mnt/integrations/lark-cli/config\",\"read_only\":false}]}");
}

static const sbx_mount lark_mounts[] = {
    { "/state/users/alice/integrations/lark-cli/config", "/mnt/integrations/lark-cli/config", 0 },
    { "/state/users/alice/integrations/lark-cli/data", "/mnt/integrations/lark-cli/data", 0 },
    { "/state/integrations/lark-cli/sandbox-cli", "/mnt/integrations/lark-cli/runtime", 1 },
};

/* Port of test_provisioner_create_strips_runtime_mount_when_init_container_enabled. */
static void test_provisioner_create_strips_runtime_mount_when_init_container_enabled(void)
{
    sbx_create_request req = request_for("abc123", "thread-1", lark_mounts, 3);
    req.provision_lark_cli_runtime = 1;
    expect_body(&req, "alice", 0,
        "{\"sandbox_id\":\"abc123\",\"thread_id\":\"thread-1\",\"user_id\":\"alice\","
        "\"required_mount_contract_version\":0,\"include_legacy_skills\":false,"
        "\"provision_lark_cli_runtime\":true,\"provision_lark_cli_broker\":false,"
        "\"extra_mounts\":["
        "{\"host_path\":\"/state/users/alice/integrations/lark-cli/config\","
        "\"container_path\":\"/mnt/integrations/lark-cli/config\",\"read_only\":false},"
        "{\"host_path\":\"/state/users/alice/integrations/lark-cli/data\","
        "\"container_path\":\"/mnt/integrations/lark-cli/data\",\"read_only\":false}]}");
}

/* The broker flag drops the runtime mount too (docs/protocol.md: "either flag"). */
static void test_broker_flag_also_strips_the_runtime_mount(void)
{
    sbx_create_request req = request_for("abc123", NULL, lark_mounts, 3);
    req.provision_lark_cli_broker = 1;
    char *body = body_for(&req, "alice", 1);
    CU_ASSERT_PTR_NULL(strstr(body, "/mnt/integrations/lark-cli/runtime"));
    CU_ASSERT_PTR_NOT_NULL(strstr(body, "/mnt/integrations/lark-cli/data"));
    CU_ASSERT_PTR_NOT_NULL(strstr(body, "\"provision_lark_cli_broker\":true"));
    free(body);
}

/* Port of test_provisioner_create_keeps_runtime_mount_when_init_container_disabled. */
static void test_provisioner_create_keeps_runtime_mount_when_init_container_disabled(void)
{
    sbx_create_request req = request_for("abc123", "thread-1", &lark_mounts[2], 1);
    expect_body(&req, "alice", 0,
        "{\"sandbox_id\":\"abc123\",\"thread_id\":\"thread-1\",\"user_id\":\"alice\","
        "\"required_mount_contract_version\":0,\"include_legacy_skills\":false,"
        "\"provision_lark_cli_runtime\":false,\"provision_lark_cli_broker\":false,"
        "\"extra_mounts\":["
        "{\"host_path\":\"/state/integrations/lark-cli/sandbox-cli\","
        "\"container_path\":\"/mnt/integrations/lark-cli/runtime\",\"read_only\":true}]}");
}

/* Port of test_provisioner_create_accepts_anonymous_thread_id (its body). */
static void test_provisioner_create_accepts_anonymous_thread_id(void)
{
    sbx_create_request req = request_for("anon123", NULL, NULL, 0);
    expect_body(&req, "test-user-autouse", 0,
        "{\"sandbox_id\":\"anon123\",\"thread_id\":null,\"user_id\":\"test-user-autouse\","
        "\"required_mount_contract_version\":0,\"include_legacy_skills\":false,"
        "\"provision_lark_cli_runtime\":false,\"provision_lark_cli_broker\":false}");
}

/* Port of test_create_sends_frozen_mount_contract_as_a_provisioner_precondition
 * (the body half; the freeze itself is exercised over HTTP in tests/remote). */
static void test_body_carries_the_frozen_version(void)
{
    sbx_create_request req = request_for("sandbox-v2", "thread-1", NULL, 0);
    char *body = body_for(&req, "alice", 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(body, "\"required_mount_contract_version\":2,"));
    free(body);
}

static void test_json_special_characters_are_escaped(void)
{
    const sbx_mount mounts[] = { { "/state/a\"b\\c\n", "/mnt/acp-workspace", 0 } };
    sbx_create_request req = request_for("abc", NULL, mounts, 1);
    char *body = body_for(&req, "default", 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(body, "\"host_path\":\"/state/a\\\"b\\\\c\\n\""));
    free(body);
}

static void test_only_allowlisted_container_paths_are_forwarded(void)
{
    const char *const allow[] = { "/mnt/acp-workspace" };
    sbx_mount m = { "/h", "/mnt/acp-workspace", 0 };
    CU_ASSERT_EQUAL(remote_mount_forwarded(&m, allow, 1, 0, 0), 1);
    m.container_path = "/mnt/acp-workspace/";
    CU_ASSERT_EQUAL(remote_mount_forwarded(&m, allow, 1, 0, 0), 0);
    m.container_path = "/mnt/skills/custom"; /* not in the default list either */
    CU_ASSERT_EQUAL(remote_mount_forwarded(&m, (const char *const *)defaults.forward_mounts,
                                           defaults.forward_mount_count, 0, 0), 0);
    m.container_path = "/etc";
    CU_ASSERT_EQUAL(remote_mount_forwarded(&m, (const char *const *)defaults.forward_mounts,
                                           defaults.forward_mount_count, 0, 0), 0);
}

/* The members of ABI 1.5 follow the reference client's, only those set:
 * env and labels as objects (a later env value of a name wins). */
static void test_spec_members_follow_the_reference_fields(void)
{
    static const sbx_env_var env[] = {{"A", "1"}, {"B", "x\"y"}, {"A", "2"}};
    static const sbx_label labels[] = {{"team", "red"}};
    sbx_create_request req = request_for("spec1", NULL, NULL, 0);
    req.image = "python:3.12";
    req.env = env;
    req.env_count = 3;
    req.labels = labels;
    req.label_count = 1;
    req.memory_bytes = INT64_C(2147483648);
    req.pids_limit = 256;
    req.network = SBX_NETWORK_NONE;
    req.expires_at = INT64_C(1900000000000);
    expect_body(&req, "default", 2,
        "{\"sandbox_id\":\"spec1\",\"thread_id\":null,\"user_id\":\"default\","
        "\"required_mount_contract_version\":2,\"include_legacy_skills\":false,"
        "\"provision_lark_cli_runtime\":false,\"provision_lark_cli_broker\":false,"
        "\"image\":\"python:3.12\",\"env\":{\"A\":\"2\",\"B\":\"x\\\"y\"},"
        "\"labels\":{\"team\":\"red\"},\"memory_bytes\":2147483648,\"pids_limit\":256,"
        "\"network\":\"none\",\"expires_at\":1900000000000}");
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "provisioner_create_returns_sandbox_info", test_provisioner_create_returns_sandbox_info },
        { "provisioner_create_forwards_supported_extra_mounts",
          test_provisioner_create_forwards_supported_extra_mounts },
        { "provisioner_create_strips_runtime_mount_when_init_container_enabled",
          test_provisioner_create_strips_runtime_mount_when_init_container_enabled },
        { "broker_flag_also_strips_the_runtime_mount", test_broker_flag_also_strips_the_runtime_mount },
        { "provisioner_create_keeps_runtime_mount_when_init_container_disabled",
          test_provisioner_create_keeps_runtime_mount_when_init_container_disabled },
        { "provisioner_create_accepts_anonymous_thread_id",
          test_provisioner_create_accepts_anonymous_thread_id },
        { "body_carries_the_frozen_version", test_body_carries_the_frozen_version },
        { "json_special_characters_are_escaped", test_json_special_characters_are_escaped },
        { "only_allowlisted_container_paths_are_forwarded",
          test_only_allowlisted_container_paths_are_forwarded },
        { "spec_members_follow_the_reference_fields",
          test_spec_members_follow_the_reference_fields },
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("remote create body", load_defaults, free_defaults, tests);
}
