/* Seed port: destroy, is_alive and discover through the public host API,
 * against the provisioner emulator.  The seed's "*_delegates_to_*" cases
 * stub the private call; here they check that the public wrapper reaches
 * the HTTP call and returns what the provisioner holds. */
#include <config.h>

#include <CUnit/CUnit.h>

#include "tests/remote/remote_fixture.h"
#include "tests/support/cunit_main.h"

/* A running sandbox abc123 as the emulator stores it. */
static const char running_abc123[] =
    "{\"sandbox_id\":\"abc123\",\"sandbox_url\":\"http://k3s:31001\",\"status\":\"Running\"}";

/* is_alive("abc123") must return `want` and, when that is SBX_OK, answer
 * `want_alive` (the output starts at -1, so an unset one fails). */
static void expect_alive(sbx_rt *rt, sbx_status want, int want_alive, sbx_error *err)
{
    int alive = -1;
    CU_ASSERT_EQUAL(sbx_backend_is_alive(rt->backend, "abc123", &alive, err), want);
    if (want == SBX_OK)
        CU_ASSERT_EQUAL(alive, want_alive);
}

/* discover("abc123") must return `want`, with a sandbox exactly when that
 * is SBX_OK.  Returns the sandbox, which the caller frees (NULL: none). */
static sbx_sandbox *expect_discover(sbx_rt *rt, sbx_status want, sbx_error *err)
{
    sbx_sandbox *sandbox = NULL;
    CU_ASSERT_EQUAL(sbx_backend_discover(rt->backend, "abc123", &sandbox, err), want);
    if (want == SBX_OK) {
        CU_ASSERT_PTR_NOT_NULL(sandbox);
    } else {
        CU_ASSERT_PTR_NULL(sandbox);
    }
    return sandbox;
}

/* Release a sandbox the backend returned (NULL: none). */
static void free_found(sbx_rt *rt, sbx_sandbox *sandbox)
{
    sbx_backend_free_sandboxes(rt->backend, sandbox, sandbox != NULL);
}

/* seed: test_destroy_delegates_to_provisioner_destroy */
static void test_destroy_delegates_to_provisioner(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_put_sandbox(&rt, "abc123", running_abc123);
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_destroy(rt.backend, "abc123", &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_rt_count_requests(&rt, "DELETE", "/api/sandboxes/abc123"), 1);
    free_found(&rt, expect_discover(&rt, SBX_ERR_NOT_FOUND, &err));
    sbx_rt_stop(&rt);
}

/* seed: test_provisioner_destroy_calls_delete */
/* The 15 s default destroy timeout is checked in
 * tests/remote-unit/test_ids_options.c; test_remote_faults checks that a
 * configured one is honoured. */
static void test_destroy_sends_delete(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_destroy(rt.backend, "abc123", &err), SBX_OK);
    if (sbx_rt_is_emulator(&rt)) {
        json_object *req = sbx_rt_last_request(&rt, "DELETE", "/api/sandboxes/abc123");
        CU_ASSERT_PTR_NOT_NULL(req);
        CU_ASSERT(sbx_rt_json_string_is(req, "body", NULL));
        CU_ASSERT(sbx_rt_json_string_is(req, "api_key", NULL));
        json_object_put(req);
    }
    CU_ASSERT_EQUAL(sbx_rt_count_requests(&rt, "DELETE", "/api/sandboxes/abc123"), 1);
    CU_ASSERT_EQUAL(sbx_rt_count_requests(&rt, "DELETE", NULL), 1);
    sbx_rt_stop(&rt);
}

/* seed: test_provisioner_destroy_swallows_request_exception */
/* The seed logs and returns; our backend reports the transport error and the
 * host's release path applies "log and move on" (docs/protocol.md). */
static void test_destroy_transport_failure_is_reported(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_fault(&rt, "delete", "drop", -1);
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_destroy(rt.backend, "abc123", &err), SBX_ERR_TRANSPORT);
    CU_ASSERT(sbx_rt_contains(err.message, "abc123"));
    sbx_rt_stop(&rt);
}

/* seed: test_is_alive_delegates_to_provisioner_is_alive */
static void test_is_alive_delegates_to_provisioner(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_put_sandbox(&rt, "abc123", running_abc123);
    sbx_error err;
    expect_alive(&rt, SBX_OK, 1, &err);
    CU_ASSERT_EQUAL(sbx_rt_count_requests(&rt, "GET", "/api/sandboxes/abc123"), 1);
    sbx_rt_stop(&rt);
}

/* seed: test_provisioner_is_alive_true_only_when_status_running */
static void test_is_alive_only_when_running(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_respond(&rt, "get", 200, "{\"status\":\"Running\"}", NULL, 1);
    sbx_rt_respond(&rt, "get", 200, "{\"status\":\"Pending\"}", NULL, 1);
    sbx_error err;
    expect_alive(&rt, SBX_OK, 1, &err);
    expect_alive(&rt, SBX_OK, 0, &err);
    sbx_rt_stop(&rt);
}

/* seed: test_provisioner_is_alive_returns_false_on_404 */
static void test_is_alive_false_on_404(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_error err;
    expect_alive(&rt, SBX_OK, 0, &err);
    sbx_rt_stop(&rt);
}

/* seed: test_provisioner_is_alive_raises_on_request_exception */
static void test_is_alive_transport_failure_is_reported(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_fault(&rt, "get", "drop", -1);
    sbx_error err;
    expect_alive(&rt, SBX_ERR_TRANSPORT, 0, &err);
    CU_ASSERT(sbx_rt_contains(err.message, "Provisioner health check failed for abc123"));
    sbx_rt_stop(&rt);
}

/* seed: test_provisioner_is_alive_raises_on_server_error */
static void test_is_alive_server_error_is_reported(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_respond(&rt, "get", 503, "unavailable", "text/plain", 1);
    sbx_error err;
    expect_alive(&rt, SBX_ERR_PROVISIONER, 0, &err);
    CU_ASSERT_EQUAL(err.http_status, 503);
    CU_ASSERT(sbx_rt_contains(err.message, "HTTP 503 unavailable"));
    sbx_rt_stop(&rt);
}

/* seed: test_discover_delegates_to_provisioner_discover */
static void test_discover_delegates_to_provisioner(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_put_sandbox(&rt, "abc123", running_abc123);
    sbx_error err;
    sbx_sandbox *sandbox = expect_discover(&rt, SBX_OK, &err);
    if (sandbox != NULL) {
        SBX_RT_ASSERT_STR(sandbox->sandbox_id, "abc123");
        SBX_RT_ASSERT_STR(sandbox->sandbox_url, sbx_rt_url(&rt, "abc123", "http://k3s:31001"));
    }
    free_found(&rt, sandbox);
    CU_ASSERT_EQUAL(sbx_rt_count_requests(&rt, "GET", "/api/sandboxes/abc123"), 1);
    sbx_rt_stop(&rt);
}

/* seed: test_provisioner_discover_returns_none_on_404 */
/* The seed's None is SBX_ERR_NOT_FOUND in the C API. */
static void test_discover_not_found_on_404(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_error err;
    free_found(&rt, expect_discover(&rt, SBX_ERR_NOT_FOUND, &err));
    CU_ASSERT(sbx_rt_contains(err.message, "abc123"));
    sbx_rt_stop(&rt);
}

/* seed: test_provisioner_discover_returns_info_on_success */
static void test_discover_returns_identity(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    /* sbx-provisiond answers from what it holds: alice's sandbox */
    if (sbx_rt_is_emulator(&rt))
        sbx_rt_respond(&rt, "get", 200,
                       "{\"sandbox_id\":\"abc123\",\"sandbox_url\":\"http://k3s:31001\","
                       "\"user_id\":\"alice\",\"thread_id\":\"thread-1\","
                       "\"mount_contract_version\":2}",
                       NULL, 1);
    else
        sbx_rt_put_sandbox(&rt, "abc123", "{\"user_id\":\"alice\",\"thread_id\":\"thread-1\"}");
    sbx_error err;
    sbx_sandbox *sandbox = expect_discover(&rt, SBX_OK, &err);
    if (sandbox != NULL) {
        SBX_RT_ASSERT_STR(sandbox->sandbox_id, "abc123");
        SBX_RT_ASSERT_STR(sandbox->sandbox_url, sbx_rt_url(&rt, "abc123", "http://k3s:31001"));
        SBX_RT_ASSERT_STR(sandbox->user_id, "alice");
        SBX_RT_ASSERT_STR(sandbox->thread_id, "thread-1");
        CU_ASSERT_EQUAL(sandbox->mount_contract_version, 2);
    }
    free_found(&rt, sandbox);
    sbx_rt_stop(&rt);
}

/* seed: test_provisioner_discover_returns_none_on_request_exception */
/* The seed's None hides the failure; our backend reports it as a transport
 * error (distinct from NOT_FOUND: absence was not learnt), and the host
 * decides what a failed discover means. */
static void test_discover_transport_failure_is_reported(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_fault(&rt, "get", "drop", -1);
    sbx_error err;
    free_found(&rt, expect_discover(&rt, SBX_ERR_TRANSPORT, &err));
    sbx_rt_stop(&rt);
}

/* Not in the seed: the whole life of a sandbox against the emulator's own
 * answers at contract 2 (no faults): create, the idempotent repeat, alive,
 * discover with identity, listed, destroyed, then gone everywhere. */
static void test_whole_lifecycle_at_contract_2(void)
{
    static const char *const args[] = { "--contract", "2", "--initial-status", "Running", NULL };
    sbx_rt rt;
    if (!sbx_rt_start(&rt, args, NULL, NULL, 0))
        return;
    sbx_create_request request = sbx_rt_create_request("abc123", "thread-1", "alice");
    sbx_sandbox *created = NULL, *again = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_create(rt.backend, &request, &created, &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_backend_create(rt.backend, &request, &again, &err), SBX_OK);
    if (created != NULL && again != NULL) {
        SBX_RT_ASSERT_STR(created->user_id, "alice");
        SBX_RT_ASSERT_STR(created->thread_id, "thread-1");
        CU_ASSERT_EQUAL(created->mount_contract_version, 2);
        SBX_RT_ASSERT_STR(again->sandbox_url, created->sandbox_url);
    }
    expect_alive(&rt, SBX_OK, 1, &err);
    sbx_sandbox *found = expect_discover(&rt, SBX_OK, &err);
    if (found != NULL && created != NULL) {
        SBX_RT_ASSERT_STR(found->sandbox_url, created->sandbox_url);
        SBX_RT_ASSERT_STR(found->user_id, "alice");
        CU_ASSERT_EQUAL(found->mount_contract_version, 2);
    }
    free_found(&rt, found);
    free_found(&rt, created);
    free_found(&rt, again);
    sbx_sandbox *listed = NULL;
    size_t count = 0;
    CU_ASSERT_EQUAL(sbx_backend_list_running(rt.backend, &listed, &count, &err), SBX_OK);
    CU_ASSERT_EQUAL(count, 1);
    if (count == 1)
        SBX_RT_ASSERT_STR(listed[0].sandbox_id, "abc123");
    sbx_backend_free_sandboxes(rt.backend, listed, count);
    CU_ASSERT_EQUAL(sbx_backend_destroy(rt.backend, "abc123", &err), SBX_OK);
    expect_alive(&rt, SBX_OK, 0, &err);
    free_found(&rt, expect_discover(&rt, SBX_ERR_NOT_FOUND, &err));
    CU_ASSERT_EQUAL(sbx_backend_destroy(rt.backend, "abc123", &err), SBX_OK);
    sbx_rt_stop(&rt);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "destroy_delegates_to_provisioner", test_destroy_delegates_to_provisioner },
        { "destroy_sends_delete", test_destroy_sends_delete },
        { "destroy_transport_failure_is_reported", test_destroy_transport_failure_is_reported },
        { "is_alive_delegates_to_provisioner", test_is_alive_delegates_to_provisioner },
        { "is_alive_only_when_running", test_is_alive_only_when_running },
        { "is_alive_false_on_404", test_is_alive_false_on_404 },
        { "is_alive_transport_failure_is_reported", test_is_alive_transport_failure_is_reported },
        { "is_alive_server_error_is_reported", test_is_alive_server_error_is_reported },
        { "discover_delegates_to_provisioner", test_discover_delegates_to_provisioner },
        { "discover_not_found_on_404", test_discover_not_found_on_404 },
        { "discover_returns_identity", test_discover_returns_identity },
        { "discover_transport_failure_is_reported", test_discover_transport_failure_is_reported },
        { "whole_lifecycle_at_contract_2", test_whole_lifecycle_at_contract_2 },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("seed_lifecycle", NULL, NULL, tests);
}
