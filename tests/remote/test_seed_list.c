/* Seed port: listing sandboxes (GET /api/sandboxes) through the public host
 * API, against the provisioner emulator. */
#include <config.h>

#include <CUnit/CUnit.h>

#include "tests/remote/remote_fixture.h"
#include "tests/support/cunit_main.h"

/* How a WARN line of the remote backend starts in the log capture: skipped
 * entries and unusable list answers are warned about (docs/protocol.md). */
#define SKIP_WARNING "WARN remote:"

/* List through the public wrapper: it must return `want` with `want_count`
 * sandboxes (none: a NULL array); when one is wanted it must be `id` at
 * `url`.  The sandboxes are released. */
static void expect_listed(sbx_rt *rt, sbx_status want, size_t want_count, const char *id,
                          const char *url, sbx_error *err)
{
    sbx_sandbox *sandboxes = NULL;
    size_t count = 0;
    CU_ASSERT_EQUAL(sbx_backend_list_running(rt->backend, &sandboxes, &count, err), want);
    CU_ASSERT_EQUAL(count, want_count);
    if (want_count == 0)
        CU_ASSERT_PTR_NULL(sandboxes);
    if (want_count == 1 && count == 1) {
        SBX_RT_ASSERT_STR(sandboxes[0].sandbox_id, id);
        SBX_RT_ASSERT_STR(sandboxes[0].sandbox_url, url);
    }
    sbx_backend_free_sandboxes(rt->backend, sandboxes, count);
}

/* Start a fixture whose provisioner answers the next list with 200 and
 * `body`.  Returns 1, or 0 after a CUnit failure. */
static int start_answering_list(sbx_rt *rt, const char *body)
{
    if (!sbx_rt_start(rt, NULL, NULL, NULL, 0))
        return 0;
    sbx_rt_respond(rt, "list", 200, body, NULL, 1);
    return 1;
}

/* A list answered with `body` must keep `want_count` sandboxes (when one,
 * abc123 at http://k3s:31001) and warn about what it skipped. */
static void expect_list_of_answer(const char *body, size_t want_count)
{
    sbx_rt rt;
    if (!start_answering_list(&rt, body))
        return;
    sbx_error err;
    expect_listed(&rt, SBX_OK, want_count, "abc123", "http://k3s:31001", &err);
    CU_ASSERT(sbx_test_log_contains(rt.log, SKIP_WARNING));
    sbx_rt_stop(&rt);
}

/* seed: test_list_running_delegates_to_provisioner_list */
/* The seed stubs _provisioner_list; here the public wrapper must reach the
 * list call on the wire and return what the provisioner stores. */
static void test_list_running_delegates_to_provisioner_list(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_put_sandbox(&rt, "test-id",
                       "{\"sandbox_id\":\"test-id\",\"sandbox_url\":\"http://localhost:8080\","
                       "\"status\":\"Running\"}");
    sbx_error err;
    expect_listed(&rt, SBX_OK, 1, "test-id", sbx_rt_url(&rt, "test-id", "http://localhost:8080"),
                  &err);
    CU_ASSERT_EQUAL(sbx_rt_count_requests(&rt, "GET", "/api/sandboxes"), 1);
    sbx_rt_stop(&rt);
}

/* seed: test_provisioner_list_returns_sandbox_infos_and_filters_invalid_entries */
/* The seed's 10 s timeout is the default list_timeout_ms, checked in
 * tests/remote-unit/test_ids_options.c; test_remote_faults checks that a
 * configured list timeout is honoured. */
static void test_list_filters_invalid_entries(void)
{
    sbx_rt rt;
    if (!start_answering_list(&rt, "{\"sandboxes\":["
                                   "{\"sandbox_id\":\"abc123\",\"sandbox_url\":\"http://k3s:31001\"},"
                                   "{\"sandbox_id\":\"missing-url\"},"
                                   "{\"sandbox_url\":\"http://k3s:31002\"}]}"))
        return;
    sbx_error err;
    expect_listed(&rt, SBX_OK, 1, "abc123", "http://k3s:31001", &err);
    /* url == .../api/sandboxes and headers == {}: a GET of that path, no key */
    json_object *req = sbx_rt_last_request(&rt, "GET", "/api/sandboxes");
    CU_ASSERT_PTR_NOT_NULL(req);
    CU_ASSERT(sbx_rt_json_string_is(req, "api_key", NULL));
    CU_ASSERT(sbx_rt_json_string_is(req, "content_type", NULL));
    CU_ASSERT(sbx_rt_json_string_is(req, "body", NULL));
    json_object_put(req);
    CU_ASSERT(sbx_test_log_contains(rt.log, SKIP_WARNING));
    sbx_rt_stop(&rt);
}

/* seed: test_provisioner_list_sends_auth_header_when_api_key_set */
static void test_list_sends_auth_header_when_api_key_set(void)
{
    static const char *const args[] = { "--api-key", "secret", NULL };
    sbx_rt rt;
    if (!sbx_rt_start(&rt, args, "secret", NULL, 0))
        return;
    sbx_error err;
    /* sbx-provisiond with --api-key answers 401 to a missing or wrong key,
     * so against it the list's success is the key on the wire */
    expect_listed(&rt, SBX_OK, 0, NULL, NULL, &err);
    CU_ASSERT_EQUAL(sbx_rt_count_requests(&rt, "GET", "/api/sandboxes"), 1);
    if (sbx_rt_is_emulator(&rt)) {
        json_object *req = sbx_rt_last_request(&rt, "GET", "/api/sandboxes");
        CU_ASSERT_PTR_NOT_NULL(req);
        CU_ASSERT(sbx_rt_json_string_is(req, "api_key", "secret"));
        json_object_put(req);
    }
    sbx_rt_stop(&rt);
}

/* seed: test_provisioner_list_returns_empty_on_request_exception */
/* The seed swallows the error into []; our backend reports it (transport,
 * no sandboxes) and the host applies the "nothing learnt" policy
 * (docs/protocol.md, "Errors the backend distinguishes"). */
static void test_list_transport_error_yields_no_sandboxes(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_fault(&rt, "list", "drop", -1);
    sbx_error err;
    expect_listed(&rt, SBX_ERR_TRANSPORT, 0, NULL, NULL, &err);
    CU_ASSERT_EQUAL(err.kind, SBX_ERR_TRANSPORT);
    sbx_rt_stop(&rt);
}

/* seed: test_provisioner_list_returns_empty_when_payload_is_not_dict */
static void test_list_payload_not_an_object(void)
{
    expect_list_of_answer("[{\"sandbox_id\":\"abc\",\"sandbox_url\":\"http://k3s:31001\"}]", 0);
}

/* seed: test_provisioner_list_returns_empty_when_sandboxes_is_not_list */
static void test_list_sandboxes_not_an_array(void)
{
    expect_list_of_answer("{\"sandboxes\":{\"sandbox_id\":\"abc\"}}", 0);
}

/* seed: test_provisioner_list_skips_non_dict_sandbox_entries */
static void test_list_skips_non_object_entries(void)
{
    expect_list_of_answer("{\"sandboxes\":["
                          "{\"sandbox_id\":\"abc123\",\"sandbox_url\":\"http://k3s:31001\"},"
                          "\"bad-entry\",123,null]}",
                          1);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        { "list_running_delegates_to_provisioner_list", test_list_running_delegates_to_provisioner_list },
        { "list_filters_invalid_entries", test_list_filters_invalid_entries },
        { "list_sends_auth_header_when_api_key_set", test_list_sends_auth_header_when_api_key_set },
        { "list_transport_error_yields_no_sandboxes", test_list_transport_error_yields_no_sandboxes },
        { "list_payload_not_an_object", test_list_payload_not_an_object },
        { "list_sandboxes_not_an_array", test_list_sandboxes_not_an_array },
        { "list_skips_non_object_entries", test_list_skips_non_object_entries },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("seed_list", NULL, NULL, tests);
}
