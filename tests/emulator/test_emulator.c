/* The provisioner emulator checked against the reference provisioner's
 * recorded answers (notes/reference-provisioner.md) and its documented
 * control API, with raw HTTP over real sockets: what any client sees. */
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/emulator.h"
#include "tests/support/http_probe.h"

#include <curl/curl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY "emu-test-key"
#define KEY_HEADER "X-API-Key: " KEY
#define TIMEOUT_MS 10000L

/* The suite's shared emulator: --api-key KEY, contract 0; reset by each test. */
static sbx_test_emu *shared;

static int start_shared(void)
{
    static const char *const args[] = {"--api-key", KEY, NULL};
    shared = sbx_test_emu_start(args);
    return shared == NULL ? 1 : 0;
}

static int stop_shared(void)
{
    sbx_test_emu_stop(shared);
    shared = NULL;
    return 0;
}

static void reset_shared(void)
{
    CU_ASSERT_EQUAL_FATAL(sbx_test_emu_control(shared, "POST", "/_emu/reset", NULL, NULL), 200);
}

/* Reset the shared emulator, then queue `fault_json` (POST /_emu/faults). */
static void reset_with_fault(const char *fault_json)
{
    reset_shared();
    CU_ASSERT_EQUAL(sbx_test_emu_fault(shared, fault_json), 200);
}

/* One request to `emu` with the key (when `with_key`); the answer in *r. */
static int request(sbx_test_emu *emu, const char *method, const char *path, const char *body,
                   int with_key, sbx_test_http_result *r)
{
    char url[512];
    snprintf(url, sizeof url, "%s%s", sbx_test_emu_url(emu), path);
    const char *const headers[] = {KEY_HEADER, NULL};
    return sbx_test_http(method, url, with_key ? headers : NULL, body, TIMEOUT_MS, r);
}

/* A keyed request expected to answer JSON: returns it (caller puts) and
 * the status in *status; NULL when the body is not JSON. */
static json_object *call(sbx_test_emu *emu, const char *method, const char *path,
                         const char *body, long *status)
{
    sbx_test_http_result r;
    request(emu, method, path, body, 1, &r);
    *status = r.status;
    json_object *answer = r.status != 0 ? json_tokener_parse(r.body) : NULL;
    sbx_test_http_result_clear(&r);
    return answer;
}

/* POST `body` to /api/sandboxes on `emu`; the answer must have status
 * `want`.  Returns the JSON answer (caller puts; NULL when not JSON). */
static json_object *create_expecting(sbx_test_emu *emu, const char *body, long want)
{
    long status = 0;
    json_object *a = call(emu, "POST", "/api/sandboxes", body, &status);
    CU_ASSERT_EQUAL(status, want);
    return a;
}

static const char *str_member(json_object *obj, const char *key)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_string))
        return "";
    return json_object_get_string(v);
}

static int has_member(json_object *obj, const char *key)
{
    return json_object_object_get_ex(obj, key, NULL);
}

static int int_member(json_object *obj, const char *key)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_int))
        return -999;
    return json_object_get_int(v);
}

/* The first entry of a 422 answer's detail list (borrowed from `answer`). */
static json_object *first_error(json_object *answer)
{
    json_object *detail = NULL;
    if (!json_object_object_get_ex(answer, "detail", &detail) ||
        !json_object_is_type(detail, json_type_array) ||
        json_object_array_length(detail) == 0)
        return NULL;
    return json_object_array_get_idx(detail, 0);
}

static const char *loc_field(json_object *error)
{
    json_object *loc = NULL;
    if (!json_object_object_get_ex(error, "loc", &loc) ||
        json_object_array_length(loc) < 2)
        return "";
    json_object *field = json_object_array_get_idx(loc, 1);
    return json_object_is_type(field, json_type_string) ? json_object_get_string(field) : "";
}

static sbx_test_emu *start_with(const char *a, const char *b, const char *c)
{
    const char *const args[] = {a, b, c, NULL};
    sbx_test_emu *emu = sbx_test_emu_start(args);
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    return emu;
}

/* ------------------------------------------------------------ auth, health */

static void test_health_needs_no_key(void)
{
    reset_shared();
    sbx_test_http_result r;
    CU_ASSERT_EQUAL(request(shared, "GET", "/health", NULL, 0, &r), 0);
    CU_ASSERT_EQUAL(r.status, 200);
    CU_ASSERT_STRING_EQUAL(r.body, "{\"status\":\"ok\"}");
    sbx_test_http_result_clear(&r);
}

static void test_missing_or_wrong_key_is_plain_401(void)
{
    reset_shared();
    static const char *const paths[] = {"/api/capabilities", "/api/sandboxes", "/api/nope"};
    for (size_t i = 0; i < 3; i++) {
        sbx_test_http_result r;
        request(shared, "GET", paths[i], NULL, 0, &r);
        CU_ASSERT_EQUAL(r.status, 401);
        CU_ASSERT_STRING_EQUAL(r.body, "Unauthorized");
        CU_ASSERT_PTR_NULL(r.content_type);
        sbx_test_http_result_clear(&r);
    }
    char url[512];
    snprintf(url, sizeof url, "%s/api/capabilities", sbx_test_emu_url(shared));
    const char *const wrong[] = {"X-API-Key: not-the-key", NULL};
    sbx_test_http_result r;
    sbx_test_http("GET", url, wrong, NULL, TIMEOUT_MS, &r);
    CU_ASSERT_EQUAL(r.status, 401);
    CU_ASSERT_STRING_EQUAL(r.body, "Unauthorized");
    sbx_test_http_result_clear(&r);
}

static void test_unknown_route_is_404_once_authenticated(void)
{
    reset_shared();
    long status = 0;
    json_object *a = call(shared, "GET", "/api/nope", NULL, &status);
    CU_ASSERT_EQUAL(status, 404);
    CU_ASSERT_STRING_EQUAL(str_member(a, "detail"), "Not Found");
    json_object_put(a);
}

static void test_key_from_environment(void)
{
    setenv("SBX_EMU_API_KEY", KEY, 1);
    sbx_test_emu *emu = sbx_test_emu_start(NULL);
    unsetenv("SBX_EMU_API_KEY");
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    sbx_test_http_result r;
    request(emu, "GET", "/api/sandboxes", NULL, 0, &r);
    CU_ASSERT_EQUAL(r.status, 401);
    sbx_test_http_result_clear(&r);
    request(emu, "GET", "/api/sandboxes", NULL, 1, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    sbx_test_http_result_clear(&r);
    sbx_test_emu_stop(emu);
}

/* ------------------------------------------------------------ capabilities */

static void test_capabilities_contract_0_omits_version(void)
{
    reset_shared();
    long status = 0;
    json_object *a = call(shared, "GET", "/api/capabilities", NULL, &status);
    CU_ASSERT_EQUAL(status, 200);
    CU_ASSERT_FALSE(has_member(a, "mount_contract_version"));
    CU_ASSERT_TRUE(has_member(a, "lark_cli_init_image"));
    CU_ASSERT_TRUE(has_member(a, "lark_cli_broker_image"));
    json_object_put(a);
}

static void test_capabilities_contract_2(void)
{
    sbx_test_emu *emu = start_with("--contract", "2", NULL);
    long status = 0;
    json_object *a = call(emu, "GET", "/api/capabilities", NULL, &status);
    CU_ASSERT_EQUAL(status, 200);
    CU_ASSERT_EQUAL(int_member(a, "mount_contract_version"), 2);
    json_object_put(a);
    sbx_test_emu_stop(emu);
}

/* An emulator started with `flag` answers GET `path` as a route it does
 * not have: 404 {"detail":"Not Found"}, like the real provisioner's. */
static void expect_route_disabled_by(const char *flag, const char *path)
{
    sbx_test_emu *emu = start_with(flag, NULL, NULL);
    long status = 0;
    json_object *a = call(emu, "GET", path, NULL, &status);
    CU_ASSERT_EQUAL(status, 404);
    CU_ASSERT_STRING_EQUAL(str_member(a, "detail"), "Not Found");
    json_object_put(a);
    sbx_test_emu_stop(emu);
}

static void test_no_capabilities_route(void)
{
    expect_route_disabled_by("--no-capabilities", "/api/capabilities");
}

static void test_contract_changed_at_run_time(void)
{
    reset_shared();
    CU_ASSERT_EQUAL(sbx_test_emu_control(shared, "PUT", "/_emu/contract",
                                         "{\"version\":3,\"capabilities_route\":true}", NULL),
                    200);
    long status = 0;
    json_object *a = call(shared, "GET", "/api/capabilities", NULL, &status);
    CU_ASSERT_EQUAL(int_member(a, "mount_contract_version"), 3);
    json_object_put(a);
    CU_ASSERT_EQUAL(sbx_test_emu_control(shared, "PUT", "/_emu/contract",
                                         "{\"capabilities_route\":false}", NULL),
                    200);
    a = call(shared, "GET", "/api/capabilities", NULL, &status);
    CU_ASSERT_EQUAL(status, 404);
    json_object_put(a);
}

/* ------------------------------------------------------------ sandboxes */

#define CREATE_ABC \
    "{\"sandbox_id\":\"abc\",\"thread_id\":\"thread-1\",\"user_id\":\"default\"," \
    "\"required_mount_contract_version\":0,\"include_legacy_skills\":false," \
    "\"provision_lark_cli_runtime\":false,\"provision_lark_cli_broker\":false}"

static void test_create_get_list_delete_shapes(void)
{
    reset_shared();
    long status = 0;
    json_object *a = call(shared, "POST", "/api/sandboxes", CREATE_ABC, &status);
    CU_ASSERT_EQUAL(status, 200);
    CU_ASSERT_STRING_EQUAL(str_member(a, "sandbox_id"), "abc");
    CU_ASSERT_STRING_EQUAL(str_member(a, "sandbox_url"), "http://127.0.0.1:30000");
    CU_ASSERT_STRING_EQUAL(str_member(a, "status"), "Running");
    /* A legacy (contract 0) provisioner answers no identity. */
    CU_ASSERT_FALSE(has_member(a, "user_id"));
    CU_ASSERT_FALSE(has_member(a, "mount_contract_version"));
    json_object_put(a);

    /* Idempotent: the repeat's fields are ignored, the sandbox kept. */
    a = call(shared, "POST", "/api/sandboxes",
             "{\"sandbox_id\":\"abc\",\"thread_id\":\"other\",\"user_id\":\"bob\"}", &status);
    CU_ASSERT_EQUAL(status, 200);
    CU_ASSERT_STRING_EQUAL(str_member(a, "sandbox_url"), "http://127.0.0.1:30000");
    json_object_put(a);

    /* Whitespace around the JSON is fine, as for any JSON parser. */
    a = call(shared, "POST", "/api/sandboxes",
             " {\"sandbox_id\":\"def\",\"thread_id\":null}\n", &status);
    CU_ASSERT_EQUAL(status, 200);
    CU_ASSERT_STRING_EQUAL(str_member(a, "sandbox_url"), "http://127.0.0.1:30001");
    json_object_put(a);

    a = call(shared, "GET", "/api/sandboxes/abc", NULL, &status);
    CU_ASSERT_EQUAL(status, 200);
    CU_ASSERT_STRING_EQUAL(str_member(a, "sandbox_id"), "abc");
    CU_ASSERT_STRING_EQUAL(str_member(a, "status"), "Running");
    json_object_put(a);

    a = call(shared, "GET", "/api/sandboxes", NULL, &status);
    CU_ASSERT_EQUAL(status, 200);
    CU_ASSERT_EQUAL(int_member(a, "count"), 2);
    json_object *list = NULL;
    CU_ASSERT_TRUE(json_object_object_get_ex(a, "sandboxes", &list));
    CU_ASSERT_EQUAL(json_object_array_length(list), 2);
    CU_ASSERT_STRING_EQUAL(str_member(json_object_array_get_idx(list, 0), "sandbox_id"), "abc");
    json_object_put(a);

    a = call(shared, "DELETE", "/api/sandboxes/abc", NULL, &status);
    CU_ASSERT_EQUAL(status, 200);
    CU_ASSERT_TRUE(json_object_get_boolean(json_object_object_get(a, "ok")));
    CU_ASSERT_STRING_EQUAL(str_member(a, "sandbox_id"), "abc");
    json_object_put(a);

    a = call(shared, "GET", "/api/sandboxes/abc", NULL, &status);
    CU_ASSERT_EQUAL(status, 404);
    CU_ASSERT_STRING_EQUAL(str_member(a, "detail"), "Sandbox 'abc' not found");
    json_object_put(a);

    /* Deleting what never existed still answers 200, as the reference. */
    a = call(shared, "DELETE", "/api/sandboxes/never", NULL, &status);
    CU_ASSERT_EQUAL(status, 200);
    CU_ASSERT_STRING_EQUAL(str_member(a, "sandbox_id"), "never");
    json_object_put(a);
}

static void test_initial_status_and_node_host(void)
{
    const char *const args[] = {"--initial-status", "Pending", "--node-host", "10.1.2.3", NULL};
    sbx_test_emu *emu = sbx_test_emu_start(args);
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    json_object *a = create_expecting(emu, CREATE_ABC, 200);
    CU_ASSERT_STRING_EQUAL(str_member(a, "status"), "Pending");
    CU_ASSERT_STRING_EQUAL(str_member(a, "sandbox_url"), "http://10.1.2.3:30000");
    json_object_put(a);
    sbx_test_emu_stop(emu);
}

static void expect_422(const char *body, const char *type, const char *field)
{
    json_object *a = create_expecting(shared, body, 422);
    json_object *e = first_error(a);
    CU_ASSERT_PTR_NOT_NULL(e);
    CU_ASSERT_STRING_EQUAL(str_member(e, "type"), type);
    if (field != NULL)
        CU_ASSERT_STRING_EQUAL(loc_field(e), field);
    json_object_put(a);
}

static void test_validation_errors_are_422_lists(void)
{
    reset_shared();
    expect_422("{\"sandbox_id\":\"abc\",\"thread_id\":\"../x\"}", "string_pattern_mismatch",
               "thread_id");
    expect_422("{\"sandbox_id\":\"abc\",\"thread_id\":\"t\",\"user_id\":\"a/b\"}",
               "string_pattern_mismatch", "user_id");
    expect_422("{\"thread_id\":\"t\"}", "missing", "sandbox_id");
    expect_422("{\"sandbox_id\":\"abc\",", "json_invalid", NULL);

    long status = 0;
    json_object *a = call(shared, "POST", "/api/sandboxes",
                          "{\"sandbox_id\":\"abc\",\"thread_id\":\"../x\"}", &status);
    json_object *e = first_error(a);
    CU_ASSERT_STRING_EQUAL(str_member(e, "msg"),
                           "String should match pattern '^[A-Za-z0-9_-]{1,64}$'");
    CU_ASSERT_STRING_EQUAL(str_member(e, "input"), "../x");
    json_object_put(a);

    /* Nothing invalid was created. */
    a = call(shared, "GET", "/api/sandboxes", NULL, &status);
    CU_ASSERT_EQUAL(int_member(a, "count"), 0);
    json_object_put(a);
}

static void expect_400(const char *mounts, const char *detail)
{
    char body[4096];
    snprintf(body, sizeof body, "{\"sandbox_id\":\"m\",\"thread_id\":\"t\",\"extra_mounts\":[%s]}",
             mounts);
    json_object *a = create_expecting(shared, body, 400);
    CU_ASSERT_STRING_EQUAL(str_member(a, "detail"), detail);
    json_object_put(a);
}

#define MOUNT(host, container) \
    "{\"host_path\":\"" host "\",\"container_path\":\"" container "\",\"read_only\":false}"

static void test_extra_mount_errors_are_400_strings(void)
{
    reset_shared();
    expect_400(MOUNT("/data/x", "/etc"), "Unsupported extra mount path: /etc");
    expect_400(MOUNT("data/x", "/mnt/acp-workspace"),
               "Extra mount host path must be absolute: data/x");
    expect_400(MOUNT("/data/../../etc", "/mnt/acp-workspace"),
               "Extra mount host path is outside DeerFlow state: /data/../../etc");
    expect_400(MOUNT("/data/a", "/mnt/acp-workspace") "," MOUNT("/data/b", "/mnt/acp-workspace"),
               "Duplicate extra mount path: /mnt/acp-workspace");
    char many[4096] = "";
    for (int i = 0; i < 11; i++) {
        strcat(many, i ? "," : "");
        strcat(many, MOUNT("/data/x", "/mnt/acp-workspace"));
    }
    expect_400(many, "Too many extra mounts; max is 10");

    json_object_put(create_expecting(shared,
                                     "{\"sandbox_id\":\"m\",\"thread_id\":\"t\",\"extra_mounts\":["
                                     MOUNT("/data/x", "/mnt/skills/custom") "]}",
                                     200));
}

static void test_contract_precondition_409(void)
{
    sbx_test_emu *emu = start_with("--contract", "2", NULL);
    json_object *a = create_expecting(emu,
                                      "{\"sandbox_id\":\"abc\",\"thread_id\":\"t\","
                                      "\"user_id\":\"alice\",\"required_mount_contract_version\":1}",
                                      409);
    json_object *detail = json_object_object_get(a, "detail");
    CU_ASSERT_STRING_EQUAL(str_member(detail, "code"), "mount_contract_changed");
    CU_ASSERT_EQUAL(int_member(detail, "expected"), 1);
    CU_ASSERT_EQUAL(int_member(detail, "actual"), 2);
    json_object_put(a);

    long status = 0;
    a = call(emu, "GET", "/api/sandboxes/abc", NULL, &status);
    CU_ASSERT_EQUAL(status, 404);
    json_object_put(a);
    sbx_test_emu_stop(emu);
}

static void test_identity_echo_with_contract(void)
{
    sbx_test_emu *emu = start_with("--contract", "2", NULL);
    json_object *a = create_expecting(emu,
                                      "{\"sandbox_id\":\"anon\",\"thread_id\":null,"
                                      "\"user_id\":\"alice\",\"required_mount_contract_version\":2}",
                                      200);
    CU_ASSERT_STRING_EQUAL(str_member(a, "user_id"), "alice");
    CU_ASSERT_TRUE(has_member(a, "thread_id"));
    CU_ASSERT_PTR_NULL(json_object_object_get(a, "thread_id"));
    CU_ASSERT_EQUAL(int_member(a, "mount_contract_version"), 2);
    json_object_put(a);

    long status = 0;
    a = call(emu, "GET", "/api/sandboxes/anon", NULL, &status);
    CU_ASSERT_STRING_EQUAL(str_member(a, "user_id"), "alice");
    CU_ASSERT_EQUAL(int_member(a, "mount_contract_version"), 2);
    json_object_put(a);

    a = call(emu, "POST", "/api/sandboxes",
             "{\"sandbox_id\":\"t1\",\"thread_id\":\"thread-9\",\"user_id\":\"bob\"}", &status);
    CU_ASSERT_STRING_EQUAL(str_member(a, "thread_id"), "thread-9");
    CU_ASSERT_STRING_EQUAL(str_member(a, "user_id"), "bob");
    json_object_put(a);
    sbx_test_emu_stop(emu);
}

static void test_reconciliation_found_and_absent(void)
{
    reset_shared();
    long status = 0;
    json_object_put(call(shared, "POST", "/api/sandboxes", CREATE_ABC, &status));
    json_object *found = call(shared, "GET", "/api/sandboxes/abc/reconciliation", NULL, &status);
    CU_ASSERT_EQUAL(status, 200);
    CU_ASSERT_STRING_EQUAL(str_member(found, "status"), "found");
    CU_ASSERT_STRING_EQUAL(str_member(found, "sandbox_id"), "abc");
    CU_ASSERT_STRING_EQUAL(str_member(found, "sandbox_url"), "http://127.0.0.1:30000");
    CU_ASSERT_STRING_EQUAL(str_member(found, "user_id"), "default");
    CU_ASSERT_STRING_EQUAL(str_member(found, "thread_id"), "thread-1");
    CU_ASSERT_EQUAL(int_member(found, "mount_contract_version"), 0);
    CU_ASSERT_EQUAL(strlen(str_member(found, "backend_namespace")), 36);
    CU_ASSERT_EQUAL(strlen(str_member(found, "incarnation_id")), 36);

    json_object *absent = call(shared, "GET", "/api/sandboxes/gone/reconciliation", NULL, &status);
    CU_ASSERT_EQUAL(status, 200);
    CU_ASSERT_STRING_EQUAL(str_member(absent, "status"), "absent");
    CU_ASSERT_FALSE(has_member(absent, "incarnation_id"));
    CU_ASSERT_STRING_EQUAL(str_member(absent, "backend_namespace"),
                           str_member(found, "backend_namespace"));
    json_object_put(absent);

    /* A new sandbox of the same id is a new incarnation. */
    json_object_put(call(shared, "DELETE", "/api/sandboxes/abc", NULL, &status));
    json_object_put(call(shared, "POST", "/api/sandboxes", CREATE_ABC, &status));
    json_object *again = call(shared, "GET", "/api/sandboxes/abc/reconciliation", NULL, &status);
    CU_ASSERT_STRING_NOT_EQUAL(str_member(again, "incarnation_id"),
                               str_member(found, "incarnation_id"));
    json_object_put(again);
    json_object_put(found);
}

static void test_reconciliation_disabled(void)
{
    expect_route_disabled_by("--no-reconciliation", "/api/sandboxes/abc/reconciliation");
}

static void test_stored_sandbox_is_answered_verbatim(void)
{
    reset_shared();
    CU_ASSERT_EQUAL(sbx_test_emu_control(shared, "PUT", "/_emu/sandboxes/odd",
                                         "{\"sandbox_id\":\"odd\",\"sandbox_url\":\"http://x:1\","
                                         "\"status\":\"Failed\",\"mount_contract_version\":\"2\"}",
                                         NULL),
                    200);
    long status = 0;
    json_object *a = call(shared, "GET", "/api/sandboxes/odd", NULL, &status);
    CU_ASSERT_EQUAL(status, 200);
    CU_ASSERT_STRING_EQUAL(str_member(a, "status"), "Failed");
    CU_ASSERT_STRING_EQUAL(str_member(a, "mount_contract_version"), "2");
    json_object_put(a);
    a = call(shared, "GET", "/api/sandboxes", NULL, &status);
    CU_ASSERT_EQUAL(int_member(a, "count"), 1);
    json_object_put(a);
}

/* ------------------------------------------------------------ faults */

static void test_fault_respond(void)
{
    reset_with_fault("{\"route\":\"list\",\"action\":\"respond\","
                     "\"status\":503,\"body\":\"unavailable\","
                     "\"content_type\":\"text/plain\",\"times\":2}");
    for (int i = 0; i < 3; i++) {
        sbx_test_http_result r;
        request(shared, "GET", "/api/sandboxes", NULL, 1, &r);
        if (i < 2) {
            CU_ASSERT_EQUAL(r.status, 503);
            CU_ASSERT_STRING_EQUAL(r.body, "unavailable");
            CU_ASSERT_STRING_EQUAL(r.content_type != NULL ? r.content_type : "", "text/plain");
        } else {
            CU_ASSERT_EQUAL(r.status, 200);
        }
        sbx_test_http_result_clear(&r);
    }
}

static void test_fault_respond_with_location(void)
{
    reset_with_fault("{\"route\":\"get\",\"action\":\"respond\",\"status\":302,"
                     "\"location\":\"http://127.0.0.1:9/elsewhere\"}");
    sbx_test_http_result r;
    request(shared, "GET", "/api/sandboxes/abc", NULL, 1, &r);
    CU_ASSERT_EQUAL(r.status, 302);
    CU_ASSERT_STRING_EQUAL(r.redirect_url != NULL ? r.redirect_url : "",
                           "http://127.0.0.1:9/elsewhere");
    sbx_test_http_result_clear(&r);
}

static void test_fault_every_request_until_reset(void)
{
    reset_with_fault("{\"route\":\"health\",\"action\":\"respond\",\"status\":500,"
                     "\"body\":\"{\\\"detail\\\":\\\"boom\\\"}\",\"times\":-1}");
    for (int i = 0; i < 4; i++) {
        sbx_test_http_result r;
        request(shared, "GET", "/health", NULL, 0, &r);
        CU_ASSERT_EQUAL(r.status, 500);
        CU_ASSERT_STRING_EQUAL(r.body, "{\"detail\":\"boom\"}");
        CU_ASSERT_STRING_EQUAL(r.content_type != NULL ? r.content_type : "", "application/json");
        sbx_test_http_result_clear(&r);
    }
    reset_shared();
    sbx_test_http_result r;
    request(shared, "GET", "/health", NULL, 0, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    sbx_test_http_result_clear(&r);
}

static void test_fault_garbage(void)
{
    reset_with_fault("{\"route\":\"capabilities\",\"action\":\"garbage\"}");
    sbx_test_http_result r;
    request(shared, "GET", "/api/capabilities", NULL, 1, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    json_object *parsed = json_tokener_parse(r.body);
    CU_ASSERT_PTR_NULL(parsed);
    json_object_put(parsed);
    sbx_test_http_result_clear(&r);
}

static void test_fault_truncate_breaks_the_transfer(void)
{
    reset_with_fault("{\"route\":\"get\",\"action\":\"truncate\"}");
    sbx_test_http_result r;
    CU_ASSERT_EQUAL(request(shared, "GET", "/api/sandboxes/abc", NULL, 1, &r), -1);
    CU_ASSERT_EQUAL(r.curl_code, CURLE_PARTIAL_FILE);
    sbx_test_http_result_clear(&r);
    /* The next request is served normally on a new connection. */
    request(shared, "GET", "/api/sandboxes/abc", NULL, 1, &r);
    CU_ASSERT_EQUAL(r.status, 404);
    sbx_test_http_result_clear(&r);
}

static void test_fault_drop_closes_without_answer(void)
{
    reset_with_fault("{\"route\":\"create\",\"action\":\"drop\"}");
    sbx_test_http_result r;
    CU_ASSERT_EQUAL(request(shared, "POST", "/api/sandboxes", CREATE_ABC, 1, &r), -1);
    CU_ASSERT_NOT_EQUAL(r.curl_code, CURLE_OK);
    CU_ASSERT_EQUAL(r.status, 0);
    sbx_test_http_result_clear(&r);
    CU_ASSERT_EQUAL(sbx_test_emu_received(shared, "create"), 1);
}

/* A GET made from another thread, to be held by the emulator. */
typedef struct held_call {
    const char *path;
    long status;
    int count;      /* the answer's "count" member (-999 when none) */
} held_call;

static void *get_in_thread(void *arg)
{
    held_call *c = arg;
    json_object *a = call(shared, "GET", c->path, NULL, &c->status);
    c->count = int_member(a, "count");
    json_object_put(a);
    return NULL;
}

static void test_fault_hold_until_release(void)
{
    reset_with_fault("{\"route\":\"list\",\"action\":\"hold\"}");
    held_call c = {"/api/sandboxes", 0, -1};
    pthread_t thread;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&thread, NULL, get_in_thread, &c), 0);
    CU_ASSERT_EQUAL(sbx_test_emu_wait(shared, "list", 1, 1, 10000), 1);

    /* While one request is held, others are served (and change state). */
    long status = 0;
    json_object_put(call(shared, "POST", "/api/sandboxes", CREATE_ABC, &status));
    CU_ASSERT_EQUAL(status, 200);
    json_object *stats = NULL;
    CU_ASSERT_EQUAL(sbx_test_emu_control(shared, "GET", "/_emu/stats", NULL, &stats), 200);
    CU_ASSERT_EQUAL(int_member(json_object_object_get(stats, "held"), "list"), 1);
    json_object_put(stats);

    CU_ASSERT_EQUAL(sbx_test_emu_control(shared, "POST", "/_emu/release",
                                         "{\"route\":\"list\"}", NULL),
                    200);
    pthread_join(thread, NULL);
    CU_ASSERT_EQUAL(c.status, 200);
    /* Answered from the state at release time. */
    CU_ASSERT_EQUAL(c.count, 1);
}

static void test_fault_delay(void)
{
    reset_with_fault("{\"route\":\"health\",\"action\":\"delay\",\"delay_ms\":300}");
    long start = sbx_test_now_ms();
    sbx_test_http_result r;
    request(shared, "GET", "/health", NULL, 0, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    CU_ASSERT_TRUE(sbx_test_now_ms() - start >= 300);
    sbx_test_http_result_clear(&r);
}

static void test_wait_times_out_with_408(void)
{
    reset_shared();
    long start = sbx_test_now_ms();
    CU_ASSERT_EQUAL(sbx_test_emu_wait(shared, "reconcile", 1, -1, 200), 0);
    CU_ASSERT_TRUE(sbx_test_now_ms() - start >= 200);
    json_object *a = NULL;
    CU_ASSERT_EQUAL(sbx_test_emu_control(shared, "GET",
                                         "/_emu/wait?route=reconcile&received=1&timeout_ms=50",
                                         NULL, &a),
                    408);
    CU_ASSERT_TRUE(has_member(a, "routes"));
    json_object_put(a);
}

static void test_bad_fault_is_refused(void)
{
    reset_shared();
    CU_ASSERT_EQUAL(sbx_test_emu_fault(shared, "{\"route\":\"nope\",\"action\":\"drop\"}"), 400);
    CU_ASSERT_EQUAL(sbx_test_emu_fault(shared, "{\"route\":\"get\",\"action\":\"explode\"}"), 400);
    CU_ASSERT_EQUAL(sbx_test_emu_fault(shared, "not json"), 400);
}

/* ------------------------------------------------------------ log, reset */

static void test_request_log_records_key_and_body(void)
{
    reset_shared();
    long status = 0;
    json_object_put(call(shared, "POST", "/api/sandboxes", CREATE_ABC, &status));
    sbx_test_http_result r;
    request(shared, "GET", "/health", NULL, 0, &r);
    sbx_test_http_result_clear(&r);
    sbx_test_emu_control(shared, "GET", "/_emu/stats", NULL, NULL);

    json_object *log = sbx_test_emu_requests(shared);
    CU_ASSERT_PTR_NOT_NULL_FATAL(log);
    CU_ASSERT_EQUAL(int_member(log, "count"), 2);
    json_object *requests = json_object_object_get(log, "requests");
    json_object *create = json_object_array_get_idx(requests, 0);
    CU_ASSERT_STRING_EQUAL(str_member(create, "method"), "POST");
    CU_ASSERT_STRING_EQUAL(str_member(create, "path"), "/api/sandboxes");
    CU_ASSERT_STRING_EQUAL(str_member(create, "api_key"), KEY);
    CU_ASSERT_STRING_EQUAL(str_member(create, "content_type"), "application/json");
    CU_ASSERT_STRING_EQUAL(str_member(create, "body"), CREATE_ABC);
    json_object *health = json_object_array_get_idx(requests, 1);
    CU_ASSERT_PTR_NULL(json_object_object_get(health, "api_key"));
    CU_ASSERT_PTR_NULL(json_object_object_get(health, "body"));
    json_object_put(log);

    CU_ASSERT_EQUAL(sbx_test_emu_control(shared, "DELETE", "/_emu/requests", NULL, NULL), 200);
    log = sbx_test_emu_requests(shared);
    CU_ASSERT_EQUAL(int_member(log, "count"), 0);
    json_object_put(log);
}

static void test_reset_clears_everything(void)
{
    reset_shared();
    long status = 0;
    json_object_put(call(shared, "POST", "/api/sandboxes", CREATE_ABC, &status));
    sbx_test_emu_fault(shared, "{\"route\":\"get\",\"action\":\"drop\"}");
    sbx_test_emu_control(shared, "PUT", "/_emu/contract", "{\"version\":2}", NULL);
    reset_shared();

    CU_ASSERT_EQUAL(sbx_test_emu_received(shared, "create"), 0);
    json_object *a = call(shared, "GET", "/api/sandboxes/abc", NULL, &status);
    CU_ASSERT_EQUAL(status, 404);     /* answered: the drop fault is gone too */
    json_object_put(a);
    a = call(shared, "GET", "/api/capabilities", NULL, &status);
    CU_ASSERT_FALSE(has_member(a, "mount_contract_version"));
    json_object_put(a);
    json_object *log = sbx_test_emu_requests(shared);
    CU_ASSERT_EQUAL(int_member(log, "count"), 2);
    json_object_put(log);
}

/* ------------------------------------------------------------ concurrency */

#define CLIENTS 16
#define REQUESTS_PER_CLIENT 20

typedef struct client_run {
    int index;
    int ok;            /* requests answered as expected */
    long connects;     /* connections opened: keep-alive keeps this at 1 */
} client_run;

static size_t discard(char *data, size_t size, size_t nmemb, void *userdata)
{
    (void)data;
    (void)userdata;
    return size * nmemb;
}

static void *client_thread(void *arg)
{
    client_run *run = arg;
    CURL *curl = curl_easy_init();
    if (curl == NULL)
        return NULL;
    struct curl_slist *headers = curl_slist_append(NULL, KEY_HEADER);
    headers = curl_slist_append(headers, "Content-Type: application/json");
    char url[512], body[256];
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_PROXY, "");
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, TIMEOUT_MS);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard);
    for (int i = 0; i < REQUESTS_PER_CLIENT; i++) {
        if (i % 2 == 0) {
            snprintf(url, sizeof url, "%s/api/sandboxes", sbx_test_emu_url(shared));
            snprintf(body, sizeof body, "{\"sandbox_id\":\"c%d-%d\",\"thread_id\":\"t%d\"}",
                     run->index, i, run->index);
            curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
        } else {
            snprintf(url, sizeof url, "%s/api/sandboxes/c%d-%d", sbx_test_emu_url(shared),
                     run->index, i - 1);
            curl_easy_setopt(curl, CURLOPT_HTTPGET, 1L);
        }
        curl_easy_setopt(curl, CURLOPT_URL, url);
        long status = 0, connects = 0;
        if (curl_easy_perform(curl) == CURLE_OK &&
            curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status) == CURLE_OK &&
            status == 200)
            run->ok++;
        curl_easy_getinfo(curl, CURLINFO_NUM_CONNECTS, &connects);
        run->connects += connects;
    }
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    return NULL;
}

static void test_sixteen_concurrent_keep_alive_clients(void)
{
    reset_shared();
    /* A held request must not keep the others waiting. */
    sbx_test_emu_fault(shared, "{\"route\":\"health\",\"action\":\"hold\"}");
    held_call blocked = {"/health", 0, 0};
    pthread_t holder;
    CU_ASSERT_EQUAL_FATAL(pthread_create(&holder, NULL, get_in_thread, &blocked), 0);
    CU_ASSERT_EQUAL(sbx_test_emu_wait(shared, "health", 1, 1, 10000), 1);

    client_run runs[CLIENTS];
    pthread_t threads[CLIENTS];
    for (int i = 0; i < CLIENTS; i++) {
        runs[i] = (client_run){.index = i};
        CU_ASSERT_EQUAL_FATAL(pthread_create(&threads[i], NULL, client_thread, &runs[i]), 0);
    }
    for (int i = 0; i < CLIENTS; i++) {
        pthread_join(threads[i], NULL);
        CU_ASSERT_EQUAL(runs[i].ok, REQUESTS_PER_CLIENT);
        CU_ASSERT_EQUAL(runs[i].connects, 1);
    }
    long status = 0;
    json_object *a = call(shared, "GET", "/api/sandboxes", NULL, &status);
    CU_ASSERT_EQUAL(int_member(a, "count"), CLIENTS * REQUESTS_PER_CLIENT / 2);
    json_object_put(a);
    CU_ASSERT_EQUAL(sbx_test_emu_received(shared, "create"), CLIENTS * REQUESTS_PER_CLIENT / 2);
    CU_ASSERT_EQUAL(blocked.status, 0);   /* still held while all that ran */
    sbx_test_emu_control(shared, "POST", "/_emu/release", "{\"route\":\"health\"}", NULL);
    pthread_join(holder, NULL);
    CU_ASSERT_EQUAL(blocked.status, 200);
}

void sbx_test_register(void)
{
    static const CU_TestInfo shared_tests[] = {
        {"health needs no key", test_health_needs_no_key},
        {"missing or wrong key is a plain 401", test_missing_or_wrong_key_is_plain_401},
        {"unknown route is 404 once authenticated", test_unknown_route_is_404_once_authenticated},
        {"capabilities of contract 0 omit the version", test_capabilities_contract_0_omits_version},
        {"contract changed at run time", test_contract_changed_at_run_time},
        {"create/get/list/delete shapes", test_create_get_list_delete_shapes},
        {"validation errors are 422 lists", test_validation_errors_are_422_lists},
        {"extra mount errors are 400 strings", test_extra_mount_errors_are_400_strings},
        {"reconciliation found and absent", test_reconciliation_found_and_absent},
        {"stored sandbox answered verbatim", test_stored_sandbox_is_answered_verbatim},
        {"fault respond", test_fault_respond},
        {"fault respond with a Location", test_fault_respond_with_location},
        {"fault on every request until reset", test_fault_every_request_until_reset},
        {"fault garbage", test_fault_garbage},
        {"fault truncate breaks the transfer", test_fault_truncate_breaks_the_transfer},
        {"fault drop closes without answer", test_fault_drop_closes_without_answer},
        {"fault hold until release", test_fault_hold_until_release},
        {"fault delay", test_fault_delay},
        {"wait times out with 408", test_wait_times_out_with_408},
        {"bad fault is refused", test_bad_fault_is_refused},
        {"request log records key and body", test_request_log_records_key_and_body},
        {"reset clears everything", test_reset_clears_everything},
        {"16 concurrent keep-alive clients", test_sixteen_concurrent_keep_alive_clients},
        CU_TEST_INFO_NULL,
    };
    static const CU_TestInfo option_tests[] = {
        {"key from SBX_EMU_API_KEY", test_key_from_environment},
        {"--contract 2 capabilities", test_capabilities_contract_2},
        {"--no-capabilities", test_no_capabilities_route},
        {"--initial-status and --node-host", test_initial_status_and_node_host},
        {"409 contract precondition", test_contract_precondition_409},
        {"identity echo with a contract", test_identity_echo_with_contract},
        {"--no-reconciliation", test_reconciliation_disabled},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("emulator", start_shared, stop_shared, shared_tests);
    sbx_test_add_suite("emulator options", NULL, NULL, option_tests);
}
