/* Seed port: the create call (POST /api/sandboxes) — the exact request body,
 * extra-mount forwarding, and failures — through the public host API,
 * against the provisioner emulator. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <stdio.h>

#include "tests/remote/remote_fixture.h"
#include "tests/support/cunit_main.h"

/* The seed's legacy answer to a create of abc123. */
static const char legacy_abc123[] =
    "{\"sandbox_id\":\"abc123\",\"sandbox_url\":\"http://k3s:31001\"}";

/* A contract-2 answer echoing alice's thread-1 create of abc123. */
static const char alice_abc123_v2[] =
    "{\"sandbox_id\":\"abc123\",\"sandbox_url\":\"http://k3s:31001\",\"user_id\":\"alice\","
    "\"thread_id\":\"thread-1\",\"mount_contract_version\":2}";

/* Emulator arguments of a contract-2 provisioner. */
static const char *const contract_2[] = { "--contract", "2", NULL };

/* Whether `mounts` (a JSON array of extra mounts) has one at `container_path`. */
static int has_container_path(json_object *mounts, const char *container_path)
{
    size_t n = mounts != NULL ? json_object_array_length(mounts) : 0;
    for (size_t i = 0; i < n; i++)
        if (sbx_rt_json_string_is(json_object_array_get_idx(mounts, i),
                                  "container_path", container_path))
            return 1;
    return 0;
}

/* The "extra_mounts" array of a create body (borrowed), or NULL. */
static json_object *extra_mounts_of(json_object *body)
{
    json_object *mounts = NULL;
    if (body == NULL || !json_object_object_get_ex(body, "extra_mounts", &mounts) ||
        !json_object_is_type(mounts, json_type_array))
        return NULL;
    return mounts;
}

/* Whether extra mount `mount` is exactly (host_path, container_path, read_only). */
static int mount_is(json_object *mount, const char *host_path, const char *container_path,
                    int read_only)
{
    return sbx_rt_json_field_count(mount) == 3 &&
           sbx_rt_json_string_is(mount, "host_path", host_path) &&
           sbx_rt_json_string_is(mount, "container_path", container_path) &&
           sbx_rt_json_bool_is(mount, "read_only", read_only);
}

/* Create with `request`: SBX_OK with sandbox `id` served where the
 * provisioner serves it (`scripted_url` on the emulator, sbx_rt_url). */
static void expect_created(sbx_rt *rt, const sbx_create_request *request, const char *id,
                           const char *scripted_url)
{
    sbx_error err;
    sbx_sandbox *sandbox = sbx_rt_create_ok(rt, request, &err);
    if (sandbox != NULL) {
        SBX_RT_ASSERT_STR(sandbox->sandbox_id, id);
        SBX_RT_ASSERT_STR(sandbox->sandbox_url, sbx_rt_url(rt, id, scripted_url));
        sbx_backend_free_sandboxes(rt->backend, sandbox, 1);
    }
}

/* Create with `request` and expect SBX_OK; the sandbox is released. */
static void expect_create_ok(sbx_rt *rt, const sbx_create_request *request)
{
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_rt_create_discarding(rt, request, &err), SBX_OK);
    if (err.kind != SBX_OK)
        fprintf(stderr, "create: %s: %s\n", sbx_status_name(err.kind), err.message);
}

/* The last create body is a default-user create at contract 0 with exactly
 * its seven fields: `sandbox_id`, `thread_id` (NULL: null), user_id
 * "default", include_legacy_skills `legacy`, both lark-cli flags off. */
static void expect_default_user_body(sbx_rt *rt, const char *sandbox_id,
                                     const char *thread_id, int legacy)
{
    json_object *body = sbx_rt_last_create_body(rt);
    CU_ASSERT_EQUAL(sbx_rt_json_field_count(body), 7);
    CU_ASSERT(sbx_rt_json_string_is(body, "sandbox_id", sandbox_id));
    CU_ASSERT(sbx_rt_json_string_is(body, "thread_id", thread_id));
    CU_ASSERT(sbx_rt_json_string_is(body, "user_id", "default"));
    CU_ASSERT(sbx_rt_json_int_is(body, "required_mount_contract_version", 0));
    CU_ASSERT(sbx_rt_json_bool_is(body, "include_legacy_skills", legacy));
    CU_ASSERT(sbx_rt_json_bool_is(body, "provision_lark_cli_runtime", 0));
    CU_ASSERT(sbx_rt_json_bool_is(body, "provision_lark_cli_broker", 0));
    json_object_put(body);
}

/* Create abc123 for the default user on a legacy provisioner with
 * include_legacy_skills = `include_legacy`, and check it was forwarded as
 * given. */
static void expect_include_legacy_skills_forwarded(int include_legacy)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    if (sbx_rt_is_emulator(&rt))
        sbx_rt_respond(&rt, "create", 200, legacy_abc123, NULL, 1);
    /* the seed's "user-1" is the storage's user; the create is the default
     * user's, the only one a legacy provisioner may serve (and one that
     * sbx-provisiond, at contract 2, serves as well) */
    sbx_create_request request = sbx_rt_create_request("abc123", "thread-1", NULL);
    request.include_legacy_skills = include_legacy;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_rt_create_discarding(&rt, &request, &err), SBX_OK);
    if (sbx_rt_is_emulator(&rt)) {
        json_object *body = sbx_rt_last_create_body(&rt);
        CU_ASSERT(sbx_rt_json_bool_is(body, "include_legacy_skills", include_legacy));
        json_object_put(body);
    }
    sbx_rt_stop(&rt);
}

/* The seed checks the skills storage's visibility rule, which is host policy:
 * the host computes include_legacy_skills and the backend must forward it as
 * given.  Each parameter set maps to the flag value the rule yields. */

/* seed: test_user_should_see_legacy_skills_follows_storage_visibility_rule[categories0-True] */
static void test_legacy_skills_forwarded_legacy_category(void)
{
    expect_include_legacy_skills_forwarded(1);
}

/* seed: test_user_should_see_legacy_skills_follows_storage_visibility_rule[categories1-True] */
static void test_legacy_skills_forwarded_legacy_string(void)
{
    expect_include_legacy_skills_forwarded(1);
}

/* seed: test_user_should_see_legacy_skills_follows_storage_visibility_rule[categories2-False] */
static void test_legacy_skills_not_forwarded_custom_category(void)
{
    expect_include_legacy_skills_forwarded(0);
}

/* Create thread-1/abc123 with a mount the allowlist drops and the lark-cli
 * runtime flag on a contract-2 provisioner, as `user_id` (NULL: default). */
static void expect_create_delegates(const char *user_id)
{
    const char *wire_user = user_id != NULL ? user_id : "default";
    sbx_rt rt;
    if (!sbx_rt_start(&rt, contract_2, NULL, NULL, 0))
        return;
    char answer[256];
    snprintf(answer, sizeof(answer),
             "{\"sandbox_id\":\"abc123\",\"sandbox_url\":\"http://k3s:31001\",\"user_id\":\"%s\","
             "\"thread_id\":\"thread-1\",\"mount_contract_version\":2}", wire_user);
    if (sbx_rt_is_emulator(&rt))
        sbx_rt_respond(&rt, "create", 200, answer, NULL, 1);
    static const sbx_mount mounts[] = { { "/host", "/container", 0 } };
    sbx_create_request request = sbx_rt_create_request("abc123", "thread-1", user_id);
    request.extra_mounts = mounts;
    request.extra_mount_count = 1;
    request.provision_lark_cli_runtime = 1;
    /* against sbx-provisiond over the local backend, which answers 400 to
     * any extra mount, the create's success also shows nothing was sent */
    expect_created(&rt, &request, "abc123", "http://k3s:31001");
    if (!sbx_rt_is_emulator(&rt)) {
        sbx_rt_stop(&rt);
        return;
    }
    json_object *body = sbx_rt_last_create_body(&rt);
    CU_ASSERT(sbx_rt_json_string_is(body, "thread_id", "thread-1"));
    CU_ASSERT(sbx_rt_json_string_is(body, "sandbox_id", "abc123"));
    CU_ASSERT(sbx_rt_json_string_is(body, "user_id", wire_user));
    CU_ASSERT(sbx_rt_json_bool_is(body, "provision_lark_cli_runtime", 1));
    CU_ASSERT(sbx_rt_json_bool_is(body, "provision_lark_cli_broker", 0));
    CU_ASSERT(sbx_rt_json_int_is(body, "required_mount_contract_version", 2));
    /* "/container" is not on the forwarding allowlist: nothing to forward */
    CU_ASSERT_FALSE(sbx_rt_json_has(body, "extra_mounts"));
    json_object_put(body);
    sbx_rt_stop(&rt);
}

/* The seed stubs _provisioner_create and checks its arguments; here the
 * public wrapper must put the same values on the wire (user None travels as
 * "default"; the mount is filtered out by the allowlist before sending). */

/* seed: test_create_delegates_to_provisioner_create[None] */
static void test_create_delegates_default_user(void)
{
    expect_create_delegates(NULL);
}

/* seed: test_create_delegates_to_provisioner_create[owner-1] */
static void test_create_delegates_named_user(void)
{
    expect_create_delegates("owner-1");
}

/* seed: test_provisioner_create_returns_sandbox_info */
/* The seed's user "test-user-autouse" comes from a Python test fixture; the
 * C caller names no user, which travels as "default".  The 30 s default
 * create timeout is checked in tests/remote-unit/test_ids_options.c, and
 * test_remote_faults checks that a configured one is honoured. */
static void test_create_sends_exact_body_and_returns_sandbox(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    if (sbx_rt_is_emulator(&rt))
        sbx_rt_respond(&rt, "create", 200, legacy_abc123, NULL, 1);
    sbx_create_request request = sbx_rt_create_request("abc123", "thread-1", NULL);
    request.include_legacy_skills = 1;
    expect_created(&rt, &request, "abc123", "http://k3s:31001");
    CU_ASSERT_EQUAL(sbx_rt_count_requests(&rt, "POST", "/api/sandboxes"), 1);
    if (!sbx_rt_is_emulator(&rt)) {
        sbx_rt_stop(&rt);
        return;
    }
    json_object *req = sbx_rt_last_request(&rt, "POST", "/api/sandboxes");
    CU_ASSERT_PTR_NOT_NULL(req);
    CU_ASSERT(sbx_rt_json_string_is(req, "content_type", "application/json"));
    CU_ASSERT(sbx_rt_json_string_is(req, "api_key", NULL));
    json_object_put(req);
    expect_default_user_body(&rt, "abc123", "thread-1", 1);
    sbx_rt_stop(&rt);
}

/* seed: test_provisioner_create_forwards_supported_extra_mounts */
/* The seed calls _provisioner_create for alice directly, below the isolation
 * rule; through the public API alice is only served by a provisioner that
 * isolates users, so the emulator runs contract 2 and echoes her identity. */
static void test_create_forwards_supported_extra_mounts(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, contract_2, NULL, NULL, 0))
        return;
    if (sbx_rt_is_emulator(&rt))
        sbx_rt_respond(&rt, "create", 200, alice_abc123_v2, NULL, 1);
    static const sbx_mount mounts[] = {
        { "/state/users/alice/threads/thread-1/user-data/workspace", "/mnt/user-data/workspace", 0 },
        { "/skills", "/mnt/skills", 1 },
        { "/state/users/alice/skills/integrations", "/mnt/skills/integrations", 1 },
        { "/state/users/alice/integrations/lark-cli/config", "/mnt/integrations/lark-cli/config", 0 },
    };
    sbx_create_request request = sbx_rt_create_request("abc123", "thread-1", "alice");
    request.extra_mounts = sbx_rt_mounts(&rt, mounts, 4);
    request.extra_mount_count = 4;
    /* against sbx-provisiond over docker: its mount rules accept what was
     * forwarded, and the engine binds it */
    expect_create_ok(&rt, &request);
    if (!sbx_rt_is_emulator(&rt)) {
        sbx_rt_stop(&rt);
        return;
    }
    json_object *body = sbx_rt_last_create_body(&rt);
    CU_ASSERT(sbx_rt_json_bool_is(body, "include_legacy_skills", 0));
    json_object *sent = extra_mounts_of(body);
    CU_ASSERT_PTR_NOT_NULL(sent);
    if (sent != NULL) {
        CU_ASSERT_EQUAL(json_object_array_length(sent), 2);
        CU_ASSERT(mount_is(json_object_array_get_idx(sent, 0),
                           "/state/users/alice/skills/integrations",
                           "/mnt/skills/integrations", 1));
        CU_ASSERT(mount_is(json_object_array_get_idx(sent, 1),
                           "/state/users/alice/integrations/lark-cli/config",
                           "/mnt/integrations/lark-cli/config", 0));
    }
    json_object_put(body);
    sbx_rt_stop(&rt);
}

/* The lark-cli mounts of the two runtime-mount seed cases. */
static const sbx_mount lark_mounts[] = {
    { "/state/users/alice/integrations/lark-cli/config", "/mnt/integrations/lark-cli/config", 0 },
    { "/state/users/alice/integrations/lark-cli/data", "/mnt/integrations/lark-cli/data", 0 },
    { "/state/integrations/lark-cli/sandbox-cli", "/mnt/integrations/lark-cli/runtime", 1 },
};

/* seed: test_provisioner_create_strips_runtime_mount_when_init_container_enabled */
/* Served at contract 2 for alice, as in the extra-mounts case above. */
static void test_create_strips_runtime_mount_when_runtime_provisioned(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, contract_2, NULL, NULL, 0))
        return;
    if (sbx_rt_is_emulator(&rt))
        sbx_rt_respond(&rt, "create", 200, alice_abc123_v2, NULL, 1);
    sbx_create_request request = sbx_rt_create_request("abc123", "thread-1", "alice");
    request.extra_mounts = sbx_rt_mounts(&rt, lark_mounts, 3);
    request.extra_mount_count = 3;
    request.provision_lark_cli_runtime = 1;
    expect_create_ok(&rt, &request);
    if (!sbx_rt_is_emulator(&rt)) {
        sbx_rt_stop(&rt);
        return;
    }
    json_object *body = sbx_rt_last_create_body(&rt);
    CU_ASSERT(sbx_rt_json_bool_is(body, "provision_lark_cli_runtime", 1));
    json_object *sent = extra_mounts_of(body);
    CU_ASSERT_FALSE(has_container_path(sent, "/mnt/integrations/lark-cli/runtime"));
    CU_ASSERT(has_container_path(sent, "/mnt/integrations/lark-cli/config"));
    CU_ASSERT(has_container_path(sent, "/mnt/integrations/lark-cli/data"));
    json_object_put(body);
    sbx_rt_stop(&rt);
}

/* seed: test_provisioner_create_keeps_runtime_mount_when_init_container_disabled */
/* Served at contract 2 for alice, as in the extra-mounts case above. */
static void test_create_keeps_runtime_mount_without_runtime_provisioning(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, contract_2, NULL, NULL, 0))
        return;
    if (sbx_rt_is_emulator(&rt))
        sbx_rt_respond(&rt, "create", 200, alice_abc123_v2, NULL, 1);
    sbx_create_request request = sbx_rt_create_request("abc123", "thread-1", "alice");
    request.extra_mounts = sbx_rt_mounts(&rt, &lark_mounts[2], 1);
    request.extra_mount_count = 1;
    expect_create_ok(&rt, &request);
    if (!sbx_rt_is_emulator(&rt)) {
        sbx_rt_stop(&rt);
        return;
    }
    json_object *body = sbx_rt_last_create_body(&rt);
    CU_ASSERT(sbx_rt_json_bool_is(body, "provision_lark_cli_runtime", 0));
    CU_ASSERT(has_container_path(extra_mounts_of(body), "/mnt/integrations/lark-cli/runtime"));
    json_object_put(body);
    sbx_rt_stop(&rt);
}

/* seed: test_provisioner_create_accepts_anonymous_thread_id */
/* "test-user-autouse" (a Python fixture) is our default user "default". */
static void test_create_accepts_anonymous_thread_id(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    if (sbx_rt_is_emulator(&rt))
        sbx_rt_respond(&rt, "create", 200,
                       "{\"sandbox_id\":\"anon123\",\"sandbox_url\":\"http://k3s:31002\"}",
                       NULL, 1);
    sbx_create_request request = sbx_rt_create_request("anon123", NULL, NULL);
    expect_created(&rt, &request, "anon123", "http://k3s:31002");
    CU_ASSERT_EQUAL(sbx_rt_count_requests(&rt, "POST", "/api/sandboxes"), 1);
    if (sbx_rt_is_emulator(&rt))
        expect_default_user_body(&rt, "anon123", NULL, 0);
    sbx_rt_stop(&rt);
}

/* seed: test_provisioner_create_raises_runtime_error_on_request_exception */
static void test_create_transport_failure_is_reported(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_fault(&rt, "create", "drop", -1);
    sbx_create_request request = sbx_rt_create_request("abc123", "thread-1", NULL);
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_rt_create_discarding(&rt, &request, &err), SBX_ERR_TRANSPORT);
    CU_ASSERT(sbx_rt_contains(err.message, "Provisioner create failed"));
    CU_ASSERT(sbx_rt_contains(err.message, "abc123"));
    sbx_rt_stop(&rt);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "legacy_skills_forwarded_legacy_category", test_legacy_skills_forwarded_legacy_category },
        { "legacy_skills_forwarded_legacy_string", test_legacy_skills_forwarded_legacy_string },
        { "legacy_skills_not_forwarded_custom_category", test_legacy_skills_not_forwarded_custom_category },
        { "create_delegates_default_user", test_create_delegates_default_user },
        { "create_delegates_named_user", test_create_delegates_named_user },
        { "create_sends_exact_body_and_returns_sandbox", test_create_sends_exact_body_and_returns_sandbox },
        { "create_forwards_supported_extra_mounts", test_create_forwards_supported_extra_mounts },
        { "create_strips_runtime_mount_when_runtime_provisioned", test_create_strips_runtime_mount_when_runtime_provisioned },
        { "create_keeps_runtime_mount_without_runtime_provisioning", test_create_keeps_runtime_mount_without_runtime_provisioning },
        { "create_accepts_anonymous_thread_id", test_create_accepts_anonymous_thread_id },
        { "create_transport_failure_is_reported", test_create_transport_failure_is_reported },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("seed_create", NULL, NULL, tests);
}
