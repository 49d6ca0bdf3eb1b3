/* The remote backend against a misbehaving or hostile provisioner, and
 * against bad input of its own caller: broken bodies, oversize answers,
 * wrong keys, redirects, configured timeouts, invalid identifiers.  Each
 * case checks what a user of the public host API sees and, where it
 * matters, what went (or did not go) over the wire. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/remote/remote_fixture.h"
#include "tests/support/remote_helpers.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"

/* The emulator's key, and a wrong one; neither may show up in a message or
 * a log line. */
#define RIGHT_KEY "right-key-20c4e1"
#define WRONG_KEY "wrong-key-7f3a9c"

/* discover("abc123") and expect `status` (and no sandbox on an error). */
static void expect_discover(sbx_rt *rt, sbx_status status, sbx_error *err)
{
    sbx_sandbox *sandbox = NULL;
    CU_ASSERT_EQUAL(sbx_backend_discover(rt->backend, "abc123", &sandbox, err), status);
    if (status != SBX_OK)
        CU_ASSERT_PTR_NULL(sandbox);
    if (sandbox != NULL)
        sbx_backend_free_sandboxes(rt->backend, sandbox, 1);
}

/* ---------------------------------------------------------------- bodies */

static void test_garbage_get_body_is_protocol_error(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_fault(&rt, "get", "garbage", 1);
    sbx_error err;
    expect_discover(&rt, SBX_ERR_PROTOCOL, &err);
    CU_ASSERT(sbx_rt_contains(err.message, "abc123"));
    sbx_rt_stop(&rt);
}

static void test_garbage_create_body_is_protocol_error(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_fault(&rt, "create", "garbage", 1);
    sbx_create_request request = sbx_rt_create_request("abc123", "thread-1", NULL);
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_rt_create_discarding(&rt, &request, &err), SBX_ERR_PROTOCOL);
    sbx_rt_stop(&rt);
}

/* A create answer that is JSON but lacks its sandbox_url is a protocol
 * error, not a sandbox with a NULL url. */
static void test_create_answer_without_url_is_protocol_error(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_respond(&rt, "create", 200, "{\"sandbox_id\":\"abc123\"}", NULL, 1);
    sbx_create_request request = sbx_rt_create_request("abc123", "thread-1", NULL);
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_rt_create_discarding(&rt, &request, &err), SBX_ERR_PROTOCOL);
    sbx_rt_stop(&rt);
}

/* A probe that gets garbage fails quietly: capabilities never fails, it
 * reports the version unknown. */
static void test_garbage_capabilities_leaves_contract_unknown(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_fault(&rt, "capabilities", "garbage", 1);
    CU_ASSERT_EQUAL(sbx_rt_contract(&rt), -2);
    sbx_rt_stop(&rt);
}

/* The connection closes before the announced body length: transport. */
static void test_truncated_get_body_is_transport_error(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_fault(&rt, "get", "truncate", 1);
    sbx_error err;
    expect_discover(&rt, SBX_ERR_TRANSPORT, &err);
    sbx_rt_stop(&rt);
}

static void test_truncated_create_body_is_transport_error(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_fault(&rt, "create", "truncate", 1);
    sbx_create_request request = sbx_rt_create_request("abc123", "thread-1", NULL);
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_rt_create_discarding(&rt, &request, &err), SBX_ERR_TRANSPORT);
    sbx_rt_stop(&rt);
}

/* A list answer of about 4 KiB against max_response_bytes = 1024 is a
 * protocol error; the same answer under a roomy limit is read. */
static void expect_list_with_limit(const char *limit, sbx_status status)
{
    const sbx_option options[] = { { "max_response_bytes", limit } };
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, options, 1))
        return;
    char body[4200];
    char padding[4000];
    memset(padding, 'x', sizeof(padding) - 1);
    padding[sizeof(padding) - 1] = '\0';
    snprintf(body, sizeof(body),
             "{\"sandboxes\":[{\"sandbox_id\":\"abc123\",\"sandbox_url\":\"http://k3s:31001\","
             "\"padding\":\"%s\"}],\"count\":1}", padding);
    sbx_rt_respond(&rt, "list", 200, body, NULL, 1);
    sbx_sandbox *sandboxes = NULL;
    size_t count = 0;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_list_running(rt.backend, &sandboxes, &count, &err), status);
    CU_ASSERT_EQUAL(count, status == SBX_OK ? 1 : 0);
    sbx_backend_free_sandboxes(rt.backend, sandboxes, count);
    sbx_rt_stop(&rt);
}

static void test_oversize_answer_is_protocol_error(void)
{
    expect_list_with_limit("1024", SBX_ERR_PROTOCOL);
}

static void test_answer_under_the_limit_is_read(void)
{
    expect_list_with_limit("65536", SBX_OK);
}

/* ---------------------------------------------------------------- answers */

/* A Kubernetes failure on create: a provisioner error carrying the status,
 * the provisioner's detail text and the sandbox id. */
static void test_create_500_detail_is_provisioner_error(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_respond(&rt, "create", 500, "{\"detail\":\"Pod creation failed: quota exceeded\"}",
                   NULL, 1);
    sbx_create_request request = sbx_rt_create_request("abc123", "thread-1", NULL);
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_rt_create_discarding(&rt, &request, &err), SBX_ERR_PROVISIONER);
    CU_ASSERT_EQUAL(err.http_status, 500);
    CU_ASSERT(sbx_rt_contains(err.message, "Pod creation failed: quota exceeded"));
    CU_ASSERT(sbx_rt_contains(err.message, "abc123"));
    sbx_rt_stop(&rt);
}

/* Some internal failures answer 500 with a plain-text body: its text is
 * the detail. */
static void test_plain_text_500_is_provisioner_error(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_respond(&rt, "get", 500, "Internal Server Error", "text/plain", 1);
    sbx_error err;
    expect_discover(&rt, SBX_ERR_PROVISIONER, &err);
    CU_ASSERT_EQUAL(err.http_status, 500);
    CU_ASSERT(sbx_rt_contains(err.message, "Internal Server Error"));
    sbx_rt_stop(&rt);
}

/* 403 is unauthorized like 401. */
static void test_403_is_unauthorized(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_respond(&rt, "get", 403, "{\"detail\":\"Forbidden\"}", NULL, 1);
    sbx_error err;
    expect_discover(&rt, SBX_ERR_UNAUTHORIZED, &err);
    CU_ASSERT_EQUAL(err.http_status, 403);
    sbx_rt_stop(&rt);
}

/* A 404 on destroy means the sandbox is already gone: success. */
static void test_destroy_404_is_success(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_respond(&rt, "delete", 404, "{\"detail\":\"Sandbox 'abc123' not found\"}", NULL, 1);
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_destroy(rt.backend, "abc123", &err), SBX_OK);
    sbx_rt_stop(&rt);
}

/* A partial cleanup on destroy is reported, not swallowed. */
static void test_destroy_partial_cleanup_is_provisioner_error(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_respond(&rt, "delete", 500,
                   "{\"detail\":\"Partial cleanup: service: gone, pod: busy\"}", NULL, 1);
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_destroy(rt.backend, "abc123", &err), SBX_ERR_PROVISIONER);
    CU_ASSERT_EQUAL(err.http_status, 500);
    CU_ASSERT(sbx_rt_contains(err.message, "Partial cleanup"));
    sbx_rt_stop(&rt);
}

/* The provisioner's 422 validation list is a provisioner error too (the
 * backend's own checks make it rare). */
static void test_create_422_is_provisioner_error(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_rt_respond(&rt, "create", 422,
                   "{\"detail\":[{\"type\":\"missing\",\"loc\":[\"body\",\"sandbox_id\"],"
                   "\"msg\":\"Field required\",\"input\":{}}]}", NULL, 1);
    sbx_create_request request = sbx_rt_create_request("abc123", "thread-1", NULL);
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_rt_create_discarding(&rt, &request, &err), SBX_ERR_PROVISIONER);
    CU_ASSERT_EQUAL(err.http_status, 422);
    sbx_rt_stop(&rt);
}

/* Nobody listens any more: every call is a transport error, except those
 * defined never to fail for it (capabilities: unknown; reconcile: unknown). */
static void test_unreachable_provisioner(void)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_test_emu_stop(rt.emu);
    rt.emu = NULL;
    sbx_error err;
    expect_discover(&rt, SBX_ERR_TRANSPORT, &err);
    int alive = -1;
    CU_ASSERT_EQUAL(sbx_backend_is_alive(rt.backend, "abc123", &alive, &err), SBX_ERR_TRANSPORT);
    CU_ASSERT_EQUAL(sbx_backend_destroy(rt.backend, "abc123", &err), SBX_ERR_TRANSPORT);
    sbx_create_request request = sbx_rt_create_request("abc123", "thread-1", NULL);
    CU_ASSERT_EQUAL(sbx_rt_create_discarding(&rt, &request, &err), SBX_ERR_TRANSPORT);
    CU_ASSERT_EQUAL(sbx_rt_contract(&rt), -2);
    sbx_reconciliation result;
    memset(&result, 0, sizeof(result));
    CU_ASSERT_EQUAL(sbx_backend_reconcile(rt.backend, "abc123", &result, &err), SBX_OK);
    CU_ASSERT_EQUAL(result.status, SBX_RECONCILE_UNKNOWN);
    sbx_backend_clear_reconciliation(rt.backend, &result);
    sbx_rt_stop(&rt);
}

/* Proxy variables must not capture traffic to a loopback provisioner: with
 * every proxy variable pointing at a port where nothing listens, calls
 * still reach the emulator. */
static void test_proxy_variables_bypassed_for_loopback(void)
{
    static const char *const proxy_vars[] = {
        "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"
    };
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    for (size_t i = 0; i < sizeof(proxy_vars) / sizeof(proxy_vars[0]); i++)
        setenv(proxy_vars[i], "http://127.0.0.1:9", 1);
    sbx_sandbox *sandboxes = NULL;
    size_t count = 0;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_backend_list_running(rt.backend, &sandboxes, &count, &err), SBX_OK);
    sbx_backend_free_sandboxes(rt.backend, sandboxes, count);
    for (size_t i = 0; i < sizeof(proxy_vars) / sizeof(proxy_vars[0]); i++)
        unsetenv(proxy_vars[i]);
    CU_ASSERT_EQUAL(sbx_rt_count_requests(&rt, "GET", "/api/sandboxes"), 1);
    sbx_rt_stop(&rt);
}

/* ---------------------------------------------------------------- keys */

/* Every /api call with a wrong key is unauthorized, and the key appears in
 * no message and no log line (it did go over the wire, as a header). */
static void test_wrong_key_is_unauthorized_and_never_echoed(void)
{
    static const char *const args[] = { "--api-key", RIGHT_KEY, NULL };
    sbx_rt rt;
    if (!sbx_rt_start(&rt, args, WRONG_KEY, NULL, 0))
        return;
    sbx_error err;
    sbx_sandbox *sandboxes = NULL;
    size_t count = 0;
    CU_ASSERT_EQUAL(sbx_backend_list_running(rt.backend, &sandboxes, &count, &err),
                    SBX_ERR_UNAUTHORIZED);
    CU_ASSERT_EQUAL(err.http_status, 401);
    CU_ASSERT_FALSE(sbx_rt_contains(err.message, WRONG_KEY));
    sbx_backend_free_sandboxes(rt.backend, sandboxes, count);

    expect_discover(&rt, SBX_ERR_UNAUTHORIZED, &err);
    CU_ASSERT_FALSE(sbx_rt_contains(err.message, WRONG_KEY));

    int alive = -1;
    CU_ASSERT_EQUAL(sbx_backend_is_alive(rt.backend, "abc123", &alive, &err),
                    SBX_ERR_UNAUTHORIZED);
    CU_ASSERT_FALSE(sbx_rt_contains(err.message, WRONG_KEY));

    CU_ASSERT_EQUAL(sbx_backend_destroy(rt.backend, "abc123", &err), SBX_ERR_UNAUTHORIZED);
    CU_ASSERT_FALSE(sbx_rt_contains(err.message, WRONG_KEY));

    sbx_create_request request = sbx_rt_create_request("abc123", "thread-1", NULL);
    CU_ASSERT_EQUAL(sbx_rt_create_discarding(&rt, &request, &err), SBX_ERR_UNAUTHORIZED);
    CU_ASSERT_FALSE(sbx_rt_contains(err.message, WRONG_KEY));

    json_object *req = sbx_rt_last_request(&rt, "GET", "/api/sandboxes");
    CU_ASSERT(sbx_rt_json_string_is(req, "api_key", WRONG_KEY));
    json_object_put(req);
    CU_ASSERT_FALSE(sbx_test_log_contains(rt.log, WRONG_KEY));
    sbx_rt_stop(&rt);
}

/* Without a configured key no X-API-Key header is sent at all. */
static void test_missing_key_sends_no_header(void)
{
    static const char *const args[] = { "--api-key", RIGHT_KEY, NULL };
    sbx_rt rt;
    if (!sbx_rt_start(&rt, args, NULL, NULL, 0))
        return;
    sbx_error err;
    expect_discover(&rt, SBX_ERR_UNAUTHORIZED, &err);
    json_object *req = sbx_rt_last_request(&rt, "GET", "/api/sandboxes/abc123");
    CU_ASSERT_PTR_NOT_NULL(req);
    CU_ASSERT(sbx_rt_json_string_is(req, "api_key", NULL));
    json_object_put(req);
    sbx_rt_stop(&rt);
}

/* A key with CR or LF could inject headers: refused at open, before any
 * request, and the key is not echoed. */
static void expect_key_refused_at_open(const char *key)
{
    sbx_rt rt;
    if (!sbx_rt_start_emulator(&rt, NULL))
        return;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_rt_open(&rt, key, NULL, 0, &err), SBX_ERR_CONFIG);
    CU_ASSERT_PTR_NULL(rt.backend);
    CU_ASSERT_FALSE(sbx_rt_contains(err.message, "s3cret"));
    CU_ASSERT_EQUAL(sbx_rt_total_requests(&rt), 0);
    sbx_rt_stop(&rt);
}

/* Credentials written into provisioner_url reach no log line and no
 * message: the backend shows the URL without its user:password@. */
static void test_url_credentials_never_logged(void)
{
    sbx_rt rt;
    if (!sbx_rt_start_emulator(&rt, NULL))
        return;
    const char *url = sbx_test_emu_url(rt.emu);
    char with_password[256];
    snprintf(with_password, sizeof with_password, "http://user:pw-s3cret@%s",
             url + strlen("http://"));
    rt.host = sbx_test_host_new(rt.log);
    sbx_error err;
    rt.backend = sbx_test_open_remote(&rt.host, with_password, NULL, NULL, 0, &err);
    CU_ASSERT_PTR_NOT_NULL(rt.backend);
    if (rt.backend == NULL) {
        sbx_rt_stop(&rt);
        return;
    }
    sbx_sandbox *sandboxes = NULL;
    size_t count = 0;
    CU_ASSERT_EQUAL(sbx_backend_list_running(rt.backend, &sandboxes, &count, &err), SBX_OK);
    sbx_backend_free_sandboxes(rt.backend, sandboxes, count);
    char opened[256];
    snprintf(opened, sizeof opened, "opened for %s", url);
    CU_ASSERT(sbx_test_log_contains(rt.log, opened));
    CU_ASSERT_FALSE(sbx_test_log_contains(rt.log, "pw-s3cret"));
    sbx_rt_stop(&rt);
}

static void test_key_with_lf_refused_at_open(void)
{
    expect_key_refused_at_open("s3cret\nX-Injected: 1");
}

static void test_key_with_cr_refused_at_open(void)
{
    expect_key_refused_at_open("s3cret\rX-Injected: 1");
}

/* Typos in option names must not pass silently. */
static void test_unknown_option_refused_at_open(void)
{
    const sbx_option options[] = { { "timeout_msec", "100" } };
    sbx_rt rt;
    if (!sbx_rt_start_emulator(&rt, NULL))
        return;
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_rt_open(&rt, NULL, options, 1, &err), SBX_ERR_CONFIG);
    CU_ASSERT(sbx_rt_contains(err.message, "timeout_msec"));
    sbx_rt_stop(&rt);
}

/* ---------------------------------------------------------------- redirects */

/* Whether a raw GET of `url` (with the emulator's key) is answered with a
 * redirect to `location`: the precondition that makes the redirect case
 * mean something (the emulator must send the Location header). */
static int answer_redirects_to(const char *url, const char *location)
{
    CURL *curl = curl_easy_init();
    if (curl == NULL)
        return 0;
    struct curl_slist *headers = curl_slist_append(NULL, "X-API-Key: " RIGHT_KEY);
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 5000L);
    char *redirect = NULL;
    long status = 0;
    int ok = curl_easy_perform(curl) == CURLE_OK &&
             curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK &&
             curl_easy_getinfo(curl, CURLINFO_REDIRECT_URL, &redirect) == CURLE_OK &&
             status == 302 && sbx_rt_str_eq(redirect, location);
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    return ok;
}

/* A 302 pointing at another server is not followed: the other server sees
 * nothing (so the key cannot travel there) and the call fails.  The fault
 * answers twice: once to a raw client, proving the Location is sent, then
 * to the backend. */
static void test_redirect_is_not_followed(void)
{
    static const char *const args[] = { "--api-key", RIGHT_KEY, NULL };
    sbx_rt elsewhere;
    if (!sbx_rt_start_emulator(&elsewhere, NULL))
        return;
    sbx_rt rt;
    if (!sbx_rt_start(&rt, args, RIGHT_KEY, NULL, 0)) {
        sbx_rt_stop(&elsewhere);
        return;
    }
    char location[200], url[200];
    snprintf(location, sizeof(location), "%s/api/sandboxes/abc123",
             sbx_test_emu_url(elsewhere.emu));
    snprintf(url, sizeof(url), "%s/api/sandboxes/abc123", sbx_test_emu_url(rt.emu));
    json_object *fault = json_object_new_object();
    json_object_object_add(fault, "route", json_object_new_string("get"));
    json_object_object_add(fault, "action", json_object_new_string("respond"));
    json_object_object_add(fault, "status", json_object_new_int(302));
    json_object_object_add(fault, "body", json_object_new_string(""));
    json_object_object_add(fault, "location", json_object_new_string(location));
    json_object_object_add(fault, "times", json_object_new_int(2));
    int queued = sbx_test_emu_fault(rt.emu, json_object_to_json_string(fault));
    json_object_put(fault);
    CU_ASSERT(queued >= 200 && queued < 300);
    CU_ASSERT(answer_redirects_to(url, location));
    sbx_error err;
    sbx_sandbox *sandbox = NULL;
    CU_ASSERT_NOT_EQUAL(sbx_backend_discover(rt.backend, "abc123", &sandbox, &err), SBX_OK);
    CU_ASSERT_PTR_NULL(sandbox);
    CU_ASSERT_EQUAL(err.http_status, 302);
    CU_ASSERT_FALSE(sbx_rt_contains(err.message, RIGHT_KEY));
    CU_ASSERT_EQUAL(sbx_rt_total_requests(&elsewhere), 0);
    sbx_rt_stop(&rt);
    sbx_rt_stop(&elsewhere);
}

/* ---------------------------------------------------------------- timeouts */

/* One backend call against a route the emulator holds. */
typedef sbx_status (*held_call_fn)(sbx_rt *rt, sbx_error *err);

/* With `option` set to 300 ms, `call` against a route held by the emulator
 * fails as a transport error well before the 10-30 s defaults. */
static void expect_configured_timeout(const char *option, const char *route, held_call_fn call)
{
    const sbx_option options[] = { { option, "300" } };
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, options, 1))
        return;
    CU_ASSERT_EQUAL(sbx_rt_contract(&rt), 0);    /* learn it now: no probe inside */
    sbx_rt_fault(&rt, route, "hold", 1);
    sbx_error err;
    long started = sbx_test_now_ms();
    CU_ASSERT_EQUAL(call(&rt, &err), SBX_ERR_TRANSPORT);
    long elapsed = sbx_test_now_ms() - started;
    CU_ASSERT(elapsed >= 250 && elapsed < 5000);
    sbx_rt_release(&rt, route);
    sbx_rt_stop(&rt);
}

static sbx_status held_list(sbx_rt *rt, sbx_error *err)
{
    sbx_sandbox *sandboxes = NULL;
    size_t count = 0;
    sbx_status status = sbx_backend_list_running(rt->backend, &sandboxes, &count, err);
    sbx_backend_free_sandboxes(rt->backend, sandboxes, count);
    return status;
}

static sbx_status held_create(sbx_rt *rt, sbx_error *err)
{
    sbx_create_request request = sbx_rt_create_request("abc123", "thread-1", NULL);
    return sbx_rt_create_discarding(rt, &request, err);
}

static sbx_status held_destroy(sbx_rt *rt, sbx_error *err)
{
    return sbx_backend_destroy(rt->backend, "abc123", err);
}

static sbx_status held_is_alive(sbx_rt *rt, sbx_error *err)
{
    int alive = -1;
    return sbx_backend_is_alive(rt->backend, "abc123", &alive, err);
}

static void test_list_timeout_is_honoured(void)
{
    expect_configured_timeout("list_timeout_ms", "list", held_list);
}

static void test_create_timeout_is_honoured(void)
{
    expect_configured_timeout("create_timeout_ms", "create", held_create);
}

static void test_destroy_timeout_is_honoured(void)
{
    expect_configured_timeout("destroy_timeout_ms", "delete", held_destroy);
}

static void test_get_timeout_is_honoured(void)
{
    expect_configured_timeout("get_timeout_ms", "get", held_is_alive);
}

static void test_timeout_ms_overrides_every_call(void)
{
    expect_configured_timeout("timeout_ms", "create", held_create);
}

/* ---------------------------------------------------------------- identifiers */

/* Run every id-taking operation with sandbox id `id`: each is refused,
 * names the field, and nothing at all reaches the provisioner. */
static void expect_sandbox_id_refused(const char *id)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_error err;
    sbx_create_request request = sbx_rt_create_request(id, "thread-1", NULL);
    CU_ASSERT_EQUAL(sbx_rt_create_discarding(&rt, &request, &err), SBX_ERR_REFUSED);
    CU_ASSERT(sbx_rt_contains(err.message, "sandbox"));
    CU_ASSERT_EQUAL(sbx_backend_destroy(rt.backend, id, &err), SBX_ERR_REFUSED);
    int alive = -1;
    CU_ASSERT_EQUAL(sbx_backend_is_alive(rt.backend, id, &alive, &err), SBX_ERR_REFUSED);
    sbx_sandbox *sandbox = NULL;
    CU_ASSERT_EQUAL(sbx_backend_discover(rt.backend, id, &sandbox, &err), SBX_ERR_REFUSED);
    CU_ASSERT_PTR_NULL(sandbox);
    sbx_reconciliation result;
    memset(&result, 0, sizeof(result));
    CU_ASSERT_EQUAL(sbx_backend_reconcile(rt.backend, id, &result, &err), SBX_ERR_REFUSED);
    sbx_backend_clear_reconciliation(rt.backend, &result);
    CU_ASSERT_EQUAL(sbx_rt_total_requests(&rt), 0);
    sbx_rt_stop(&rt);
}

static void test_path_traversal_sandbox_id_refused(void)
{
    expect_sandbox_id_refused("../etc");
}

static void test_uppercase_sandbox_id_refused(void)
{
    expect_sandbox_id_refused("Abc123");
}

static void test_underscore_sandbox_id_refused(void)
{
    expect_sandbox_id_refused("abc_123");
}

static void test_leading_dash_sandbox_id_refused(void)
{
    expect_sandbox_id_refused("-abc");
}

static void test_trailing_dash_sandbox_id_refused(void)
{
    expect_sandbox_id_refused("abc-");
}

static void test_empty_sandbox_id_refused(void)
{
    expect_sandbox_id_refused("");
}

static void test_query_in_sandbox_id_refused(void)
{
    expect_sandbox_id_refused("abc?x=1");
}

/* 52 characters: one more than a DNS label leaves room for. */
static void test_long_sandbox_id_refused(void)
{
    expect_sandbox_id_refused("a123456789012345678901234567890123456789012345678901");
}

/* 51 characters is still accepted (the other side of the bound). */
static void test_longest_sandbox_id_accepted(void)
{
    const char *id = "a12345678901234567890123456789012345678901234567890";
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    CU_ASSERT_EQUAL(strlen(id), 51);
    sbx_create_request request = sbx_rt_create_request(id, "thread-1", NULL);
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_rt_create_discarding(&rt, &request, &err), SBX_OK);
    CU_ASSERT_EQUAL(sbx_rt_count_requests(&rt, "POST", "/api/sandboxes"), 1);
    sbx_rt_stop(&rt);
}

/* A create with `thread_id` and `user_id` is refused, names `field`, and
 * nothing at all is sent. */
static void expect_create_refused(const char *thread_id, const char *user_id, const char *field)
{
    sbx_rt rt;
    if (!sbx_rt_start(&rt, NULL, NULL, NULL, 0))
        return;
    sbx_create_request request = sbx_rt_create_request("abc123", thread_id, user_id);
    sbx_error err;
    CU_ASSERT_EQUAL(sbx_rt_create_discarding(&rt, &request, &err), SBX_ERR_REFUSED);
    CU_ASSERT(sbx_rt_contains(err.message, field));
    CU_ASSERT_EQUAL(sbx_rt_total_requests(&rt), 0);
    sbx_rt_stop(&rt);
}

static void test_path_traversal_thread_id_refused(void)
{
    expect_create_refused("../x", NULL, "thread");
}

static void test_thread_id_with_space_refused(void)
{
    expect_create_refused("thread 1", NULL, "thread");
}

static void test_empty_thread_id_refused(void)
{
    expect_create_refused("", NULL, "thread");
}

/* 65 characters: one more than the provisioner allows. */
static void test_long_thread_id_refused(void)
{
    expect_create_refused("t1234567890123456789012345678901234567890123456789012345678901234",
                          NULL, "thread");
}

static void test_user_id_with_slash_refused(void)
{
    expect_create_refused("thread-1", "alice/bob", "user");
}

static void test_user_id_with_newline_refused(void)
{
    expect_create_refused("thread-1", "alice\nbob", "user");
}

static void test_empty_user_id_refused(void)
{
    expect_create_refused("thread-1", "", "user");
}

/* ---------------------------------------------------------------- isolation */

/* The provisioner refuses a repeated create of alice's id for bob, or for
 * another thread, with a 409 whose detail says why (as the real one does):
 * that is `refused`, naming it.  A provisioner that hands the existing
 * sandbox over instead is caught by the identity echo under a contract >= 1:
 * bob is never given alice's sandbox either way. */
static void test_existing_sandbox_never_handed_to_another_user(void)
{
    static const char *const args[] = { "--contract", "2", NULL };
    sbx_rt rt;
    if (!sbx_rt_start(&rt, args, NULL, NULL, 0))
        return;
    sbx_error err;
    sbx_create_request alice = sbx_rt_create_request("shared-id", "thread-1", "alice");
    sbx_sandbox *mine = sbx_rt_create_ok(&rt, &alice, &err);
    CU_ASSERT_PTR_NOT_NULL(mine);
    sbx_backend_free_sandboxes(rt.backend, mine, mine ? 1 : 0);

    sbx_create_request bob = sbx_rt_create_request("shared-id", "thread-1", "bob");
    sbx_sandbox *stolen = NULL;
    CU_ASSERT_EQUAL(sbx_backend_create(rt.backend, &bob, &stolen, &err), SBX_ERR_REFUSED);
    CU_ASSERT_PTR_NULL(stolen);
    CU_ASSERT_EQUAL(err.http_status, 409);
    CU_ASSERT(sbx_rt_contains(err.message, "belongs to another user"));

    sbx_create_request other_thread = sbx_rt_create_request("shared-id", "thread-2", "alice");
    CU_ASSERT_EQUAL(sbx_backend_create(rt.backend, &other_thread, &stolen, &err),
                    SBX_ERR_REFUSED);
    CU_ASSERT_PTR_NULL(stolen);
    CU_ASSERT(sbx_rt_contains(err.message, "another thread"));

    /* A provisioner that answers with alice's sandbox. */
    sbx_rt_respond(&rt, "create", 200,
                   "{\"sandbox_id\":\"shared-id\",\"sandbox_url\":\"http://k3s:31001\","
                   "\"status\":\"Running\",\"user_id\":\"alice\",\"thread_id\":\"thread-1\","
                   "\"mount_contract_version\":2}", NULL, 1);
    CU_ASSERT_EQUAL(sbx_backend_create(rt.backend, &bob, &stolen, &err), SBX_ERR_PROTOCOL);
    CU_ASSERT_PTR_NULL(stolen);
    CU_ASSERT(sbx_rt_contains(err.message, "mount contract response"));
    sbx_rt_stop(&rt);
}

void sbx_test_register(void)
{
    static const CU_TestInfo bodies[] = {
        { "garbage_get_body_is_protocol_error", test_garbage_get_body_is_protocol_error },
        { "garbage_create_body_is_protocol_error", test_garbage_create_body_is_protocol_error },
        { "create_answer_without_url_is_protocol_error", test_create_answer_without_url_is_protocol_error },
        { "garbage_capabilities_leaves_contract_unknown", test_garbage_capabilities_leaves_contract_unknown },
        { "truncated_get_body_is_transport_error", test_truncated_get_body_is_transport_error },
        { "truncated_create_body_is_transport_error", test_truncated_create_body_is_transport_error },
        { "oversize_answer_is_protocol_error", test_oversize_answer_is_protocol_error },
        { "answer_under_the_limit_is_read", test_answer_under_the_limit_is_read },
        CU_TEST_INFO_NULL
    };
    static const CU_TestInfo answers[] = {
        { "create_500_detail_is_provisioner_error", test_create_500_detail_is_provisioner_error },
        { "plain_text_500_is_provisioner_error", test_plain_text_500_is_provisioner_error },
        { "403_is_unauthorized", test_403_is_unauthorized },
        { "destroy_404_is_success", test_destroy_404_is_success },
        { "destroy_partial_cleanup_is_provisioner_error", test_destroy_partial_cleanup_is_provisioner_error },
        { "create_422_is_provisioner_error", test_create_422_is_provisioner_error },
        { "unreachable_provisioner", test_unreachable_provisioner },
        { "proxy_variables_bypassed_for_loopback", test_proxy_variables_bypassed_for_loopback },
        CU_TEST_INFO_NULL
    };
    static const CU_TestInfo keys[] = {
        { "wrong_key_is_unauthorized_and_never_echoed", test_wrong_key_is_unauthorized_and_never_echoed },
        { "missing_key_sends_no_header", test_missing_key_sends_no_header },
        { "url_credentials_never_logged", test_url_credentials_never_logged },
        { "key_with_lf_refused_at_open", test_key_with_lf_refused_at_open },
        { "key_with_cr_refused_at_open", test_key_with_cr_refused_at_open },
        { "unknown_option_refused_at_open", test_unknown_option_refused_at_open },
        { "redirect_is_not_followed", test_redirect_is_not_followed },
        CU_TEST_INFO_NULL
    };
    static const CU_TestInfo timeouts[] = {
        { "list_timeout_is_honoured", test_list_timeout_is_honoured },
        { "create_timeout_is_honoured", test_create_timeout_is_honoured },
        { "destroy_timeout_is_honoured", test_destroy_timeout_is_honoured },
        { "get_timeout_is_honoured", test_get_timeout_is_honoured },
        { "timeout_ms_overrides_every_call", test_timeout_ms_overrides_every_call },
        CU_TEST_INFO_NULL
    };
    static const CU_TestInfo identifiers[] = {
        { "path_traversal_sandbox_id_refused", test_path_traversal_sandbox_id_refused },
        { "uppercase_sandbox_id_refused", test_uppercase_sandbox_id_refused },
        { "underscore_sandbox_id_refused", test_underscore_sandbox_id_refused },
        { "leading_dash_sandbox_id_refused", test_leading_dash_sandbox_id_refused },
        { "trailing_dash_sandbox_id_refused", test_trailing_dash_sandbox_id_refused },
        { "empty_sandbox_id_refused", test_empty_sandbox_id_refused },
        { "query_in_sandbox_id_refused", test_query_in_sandbox_id_refused },
        { "long_sandbox_id_refused", test_long_sandbox_id_refused },
        { "longest_sandbox_id_accepted", test_longest_sandbox_id_accepted },
        { "path_traversal_thread_id_refused", test_path_traversal_thread_id_refused },
        { "thread_id_with_space_refused", test_thread_id_with_space_refused },
        { "empty_thread_id_refused", test_empty_thread_id_refused },
        { "long_thread_id_refused", test_long_thread_id_refused },
        { "user_id_with_slash_refused", test_user_id_with_slash_refused },
        { "user_id_with_newline_refused", test_user_id_with_newline_refused },
        { "empty_user_id_refused", test_empty_user_id_refused },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("remote_fault_bodies", NULL, NULL, bodies);
    sbx_test_add_suite("remote_fault_answers", NULL, NULL, answers);
    sbx_test_add_suite("remote_fault_keys", NULL, NULL, keys);
    sbx_test_add_suite("remote_fault_timeouts", NULL, NULL, timeouts);
    sbx_test_add_suite("remote_fault_identifiers", NULL, NULL, identifiers);
    static const CU_TestInfo isolation[] = {
        { "existing_sandbox_never_handed_to_another_user",
          test_existing_sandbox_never_handed_to_another_user },
        CU_TEST_INFO_NULL
    };
    sbx_test_add_suite("remote_isolation", NULL, NULL, isolation);
}
