/* The shared HTTP client (common/http_client.h): what it refuses at
 * creation, which hosts bypass proxies, and real requests against the
 * provisioner emulator on 127.0.0.1 (many threads on one client, proxy
 * variables ignored for loopback, the size bound, timeouts, headers). */
#include <config.h>

#include "tests/support/cunit_main.h"

#include "common/http_client.h"
#include "common/net_policy.h"
#include "tests/support/emulator.h"

#include <sbx/host.h>

#include <CUnit/CUnit.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* One buffered call without a body, as most of these cases make. */
static sbx_status request(common_http_client *c, const char *method, const char *path,
                          long timeout_ms, common_http_response *resp, sbx_error *err)
{
    common_http_call call = {.method = method, .path = path, .timeout_ms = timeout_ms};
    return common_http_perform(c, &call, resp, err);
}

static sbx_test_emu *emu; /* started with --api-key k for the whole suite */

static int start_emu(void)
{
    const char *args[] = { "--api-key", "k", NULL };
    emu = sbx_test_emu_start(args);
    return emu == NULL ? 1 : 0;
}

static int stop_emu(void)
{
    sbx_test_emu_stop(emu);
    emu = NULL;
    return 0;
}

/* A client of the suite's emulator with the right key. */
static common_http_client *client(size_t max_response_bytes)
{
    const char *headers[] = { "X-API-Key: k" };
    common_http_client_options o = {
        .base_url = sbx_test_emu_url(emu),
        .max_response_bytes = max_response_bytes,
        .headers = headers,
        .header_count = 1,
    };
    common_http_client *c = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(common_http_client_new(&o, &c, &err), SBX_OK);
    return c;
}

/* ---------------------------------------------------------------- creation */

static void test_header_values_with_cr_or_lf_are_refused(void)
{
    const char *headers[] = { "X-API-Key: secret\r\nX-Evil: 1" };
    common_http_client_options o = { .base_url = "http://127.0.0.1:1", .headers = headers,
                                  .header_count = 1 };
    common_http_client *c = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL(common_http_client_new(&o, &c, &err), SBX_ERR_CONFIG);
    CU_ASSERT_PTR_NULL(c);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "X-API-Key"));
    CU_ASSERT_PTR_NULL(strstr(err.message, "secret")); /* never the value */

    const char *nameless[] = { "no colon here" };
    o.headers = nameless;
    CU_ASSERT_EQUAL(common_http_client_new(&o, &c, &err), SBX_ERR_CONFIG);
}

static void test_only_http_and_https_base_urls(void)
{
    const char *bad[] = { "ftp://host", "file:///etc/passwd", "gopher://x", "127.0.0.1:8002" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        common_http_client_options o = { .base_url = bad[i] };
        common_http_client *c = NULL;
        sbx_error err;
        CU_ASSERT_EQUAL(common_http_client_new(&o, &c, &err), SBX_ERR_CONFIG);
    }
}

/* ---------------------------------------------------------------- proxies */

static void test_internal_hosts_bypass_proxies(void)
{
    const char *internal[] = {
        "127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1",
        "169.254.169.254", "0.0.0.0", "::1", "[::1]", "fe80::1", "[fe80::1%25eth0]", "fd00::5",
        "::ffff:10.0.0.1", "localhost", "LOCALHOST", "localhost.", "app.localhost",
        "provisioner.default.svc", "provisioner.default.svc.cluster.local",
        "x.svc.cluster.local.", "host.docker.internal",
        /* One label: a compose service name (DeerFlow's "provisioner"). */
        "mysvc", "provisioner", "PROVISIONER.", "sandbox-provisioner",
        "host.containers.internal", "HOST.CONTAINERS.INTERNAL.",
    };
    for (size_t i = 0; i < sizeof internal / sizeof internal[0]; i++)
        CU_ASSERT_EQUAL(common_host_bypasses_proxy(internal[i]), 1);
    const char *external[] = {
        "8.8.8.8", "172.15.0.1", "172.32.0.1", "192.169.0.1", "11.0.0.1", "2001:db8::1",
        "example.com", "svc.example.com", "localhost.example.com", "cluster.local.com",
        "containers.internal.example.com", "provisioner.example", ".", "", NULL,
    };
    for (size_t i = 0; i < sizeof external / sizeof external[0]; i++)
        CU_ASSERT_EQUAL(common_host_bypasses_proxy(external[i]), 0);
}

static void test_url_host_is_what_decides(void)
{
    int bypass = -1;
    sbx_error err;
    CU_ASSERT_EQUAL(common_url_host_bypasses_proxy("http://user:pw@10.0.0.1:8002/x", &bypass, &err),
                    SBX_OK);
    CU_ASSERT_EQUAL(bypass, 1);
    CU_ASSERT_EQUAL(
        common_url_host_bypasses_proxy("https://provisioner.example.com", &bypass, &err),
        SBX_OK);
    CU_ASSERT_EQUAL(bypass, 0);
    CU_ASSERT_EQUAL(common_url_host_bypasses_proxy("http://[::1]:8002", &bypass, &err), SBX_OK);
    CU_ASSERT_EQUAL(bypass, 1);
    CU_ASSERT_EQUAL(common_url_host_bypasses_proxy("http://provisioner:8002", &bypass, &err),
                    SBX_OK);
    CU_ASSERT_EQUAL(bypass, 1);
}

/* A proxy variable pointing at a closed port would break every request
 * that honoured it: the loopback emulator must still answer. */
static void test_proxy_variables_do_not_capture_loopback_traffic(void)
{
    setenv("http_proxy", "http://127.0.0.1:9", 1);
    setenv("HTTP_PROXY", "http://127.0.0.1:9", 1);
    setenv("ALL_PROXY", "http://127.0.0.1:9", 1);
    common_http_client *c = client(0);
    common_http_response resp;
    sbx_error err;
    CU_ASSERT_EQUAL(request(c, "GET", "/health", 5000, &resp, &err), SBX_OK);
    CU_ASSERT_EQUAL(resp.status, 200);
    common_http_response_clear(&resp);
    common_http_client_free(c);
    unsetenv("http_proxy");
    unsetenv("HTTP_PROXY");
    unsetenv("ALL_PROXY");
}

/* ---------------------------------------------------------------- requests */

static void test_headers_and_json_body_are_sent(void)
{
    common_http_client *c = client(0);
    sbx_test_emu_control(emu, "DELETE", "/_emu/requests", NULL, NULL);
    common_http_response resp;
    sbx_error err;
    common_http_call call = {.method = "POST", .path = "/api/sandboxes",
                             .json_body = "{\"sandbox_id\":\"hc1\",\"thread_id\":null,"
                                          "\"user_id\":\"default\"}", .timeout_ms = 5000};
    CU_ASSERT_EQUAL_FATAL(common_http_perform(c, &call, &resp, &err), SBX_OK);
    CU_ASSERT_EQUAL(resp.status, 200);
    CU_ASSERT_PTR_NOT_NULL(strstr(resp.body, "\"sandbox_id\":\"hc1\""));
    CU_ASSERT_EQUAL(resp.body_len, strlen(resp.body));
    common_http_response_clear(&resp);

    struct json_object *log = sbx_test_emu_requests(emu);
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    struct json_object *requests = NULL, *first = NULL, *field = NULL;
    CU_ASSERT_FATAL(json_object_object_get_ex(log, "requests", &requests));
    first = json_object_array_get_idx(requests, 0);
    CU_ASSERT_FATAL(json_object_object_get_ex(first, "api_key", &field));
    CU_ASSERT_STRING_EQUAL(json_object_get_string(field), "k");
    CU_ASSERT_FATAL(json_object_object_get_ex(first, "content_type", &field));
    CU_ASSERT_STRING_EQUAL(json_object_get_string(field), "application/json");
    json_object_put(log);

    CU_ASSERT_EQUAL(request(c, "DELETE", "/api/sandboxes/hc1", 5000, &resp, &err),
                    SBX_OK);
    CU_ASSERT_EQUAL(resp.status, 200);
    common_http_response_clear(&resp);
    common_http_client_free(c);
}

static void test_error_statuses_are_returned_not_interpreted(void)
{
    common_http_client *c = client(0);
    common_http_response resp;
    sbx_error err;
    CU_ASSERT_EQUAL(request(c, "GET", "/api/sandboxes/nope", 5000, &resp, &err),
                    SBX_OK);
    CU_ASSERT_EQUAL(resp.status, 404);
    common_http_response_clear(&resp);
    common_http_client_free(c);
}

static void test_a_body_over_the_bound_is_a_protocol_error(void)
{
    common_http_client *c = client(8); /* {"status":"ok"} is 15 bytes */
    common_http_response resp;
    sbx_error err;
    CU_ASSERT_EQUAL(request(c, "GET", "/health", 5000, &resp, &err),
                    SBX_ERR_PROTOCOL);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "max_response_bytes (8 bytes)"));
    CU_ASSERT_PTR_NULL(resp.body);
    common_http_client_free(c);
}

static void test_a_slow_answer_times_out_as_transport(void)
{
    common_http_client *c = client(0);
    CU_ASSERT_EQUAL(sbx_test_emu_fault(emu, "{\"route\":\"list\",\"action\":\"delay\","
                                            "\"delay_ms\":3000}"), 200);
    common_http_response resp;
    sbx_error err;
    CU_ASSERT_EQUAL(request(c, "GET", "/api/sandboxes", 200, &resp, &err),
                    SBX_ERR_TRANSPORT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "timed out after 200 ms"));
    common_http_client_free(c);
}

static void test_unreachable_peer_is_transport_without_the_key(void)
{
    sbx_test_emu *gone = sbx_test_emu_start(NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(gone);
    char url[64], with_password[96];
    snprintf(url, sizeof url, "%s", sbx_test_emu_url(gone));
    snprintf(with_password, sizeof with_password, "http://user:pass-word@%s",
             url + strlen("http://"));
    sbx_test_emu_stop(gone); /* its port is now closed */

    const char *headers[] = { "X-API-Key: very-secret-key" };
    common_http_client_options o = { .base_url = with_password, .headers = headers,
                                  .header_count = 1, .connect_timeout_ms = 2000 };
    common_http_client *c = NULL;
    sbx_error err;
    CU_ASSERT_EQUAL_FATAL(common_http_client_new(&o, &c, &err), SBX_OK);
    common_http_response resp;
    CU_ASSERT_EQUAL(request(c, "GET", "/api/sandboxes", 5000, &resp, &err),
                    SBX_ERR_TRANSPORT);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, url)); /* shown without user:password@ */
    CU_ASSERT_PTR_NULL(strstr(err.message, "very-secret-key"));
    CU_ASSERT_PTR_NULL(strstr(err.message, "pass-word"));
    common_http_client_free(c);
}

#define THREADS 8
#define CALLS_PER_THREAD 25

typedef struct worker {
    pthread_t thread;
    common_http_client *client;
    int ok;
} worker;

static void *hammer(void *arg)
{
    worker *w = arg;
    for (int i = 0; i < CALLS_PER_THREAD; i++) {
        common_http_response resp;
        sbx_error err;
        if (request(w->client, "GET", "/health", 10000, &resp, &err) == SBX_OK &&
            resp.status == 200 && strstr(resp.body, "\"ok\"") != NULL)
            w->ok++;
        common_http_response_clear(&resp);
    }
    return NULL;
}

static void test_many_threads_share_one_client(void)
{
    common_http_client *c = client(0);
    worker workers[THREADS];
    for (int i = 0; i < THREADS; i++) {
        workers[i] = (worker){ .client = c };
        CU_ASSERT_EQUAL_FATAL(pthread_create(&workers[i].thread, NULL, hammer, &workers[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(workers[i].thread, NULL);
        CU_ASSERT_EQUAL(workers[i].ok, CALLS_PER_THREAD);
    }
    common_http_client_free(c);
}

void sbx_test_register(void)
{
    static const CU_TestInfo offline[] = {
        { "header_values_with_cr_or_lf_are_refused", test_header_values_with_cr_or_lf_are_refused },
        { "only_http_and_https_base_urls", test_only_http_and_https_base_urls },
        { "internal_hosts_bypass_proxies", test_internal_hosts_bypass_proxies },
        { "url_host_is_what_decides", test_url_host_is_what_decides },
        CU_TEST_INFO_NULL,
    };
    static const CU_TestInfo online[] = {
        { "proxy_variables_do_not_capture_loopback_traffic",
          test_proxy_variables_do_not_capture_loopback_traffic },
        { "headers_and_json_body_are_sent", test_headers_and_json_body_are_sent },
        { "error_statuses_are_returned_not_interpreted",
          test_error_statuses_are_returned_not_interpreted },
        { "a_body_over_the_bound_is_a_protocol_error", test_a_body_over_the_bound_is_a_protocol_error },
        { "a_slow_answer_times_out_as_transport", test_a_slow_answer_times_out_as_transport },
        { "unreachable_peer_is_transport_without_the_key",
          test_unreachable_peer_is_transport_without_the_key },
        { "many_threads_share_one_client", test_many_threads_share_one_client },
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("http client offline", NULL, NULL, offline);
    sbx_test_add_suite("http client against the emulator", start_emu, stop_emu, online);
}
