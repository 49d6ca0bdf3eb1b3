/* The provisioner emulator checked against the real DeerFlow provisioner's
 * answers (recorded side by side: the same requests to both, byte for byte
 * where the contract-2 suite says so) and its documented control API, with
 * raw HTTP over real sockets: what any client sees. */
#include <config.h>

#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/emulator.h"
#include "tests/support/hostile_json.h"
#include "tests/support/http_probe.h"
#include "tests/support/subprocess.h"

#include <curl/curl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEY "emu-test-key"
#define KEY_HEADER "X-API-Key: " KEY
#define TIMEOUT_MS 10000L

static size_t discard(char *data, size_t size, size_t nmemb, void *userdata)
{
    (void)data;
    (void)userdata;
    return size * nmemb;
}

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

/* A keyed `method` `path` on `emu` must answer 404 {"detail":"Not Found"}. */
static void a_not_found(sbx_test_emu *emu, const char *method, const char *path)
{
    long status = 0;
    json_object *a = call(emu, method, path, NULL, &status);
    CU_ASSERT_EQUAL(status, 404);
    CU_ASSERT_STRING_EQUAL(str_member(a, "detail"), "Not Found");
    json_object_put(a);
}

/* Replace every uid (8-4-4-4-12 lower-case hex) in `text` by "UID", in place. */
static void mask_uids(char *text)
{
    static const int groups[] = {8, 4, 4, 4, 12};
    char *out = text;
    for (const char *p = text; *p != '\0';) {
        const char *q = p;
        int ok = 1;
        for (int g = 0; g < 5 && ok; g++) {
            for (int i = 0; i < groups[g] && ok; i++, q++)
                ok = (*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'f');
            if (ok && g < 4)
                ok = *q++ == '-';
        }
        if (ok) {
            memcpy(out, "UID", 3);
            out += 3;
            p = q;
        } else {
            *out++ = *p++;
        }
    }
    *out = '\0';
}

/* A keyed request to `emu` must answer `status` with exactly the body
 * `text` (uids masked as "UID"): the real provisioner's bytes, member order
 * and nulls included. */
static void expect_text(sbx_test_emu *emu, const char *method, const char *path,
                        const char *body, long status, const char *text)
{
    sbx_test_http_result r;
    request(emu, method, path, body, 1, &r);
    CU_ASSERT_EQUAL(r.status, status);
    mask_uids(r.body);
    CU_ASSERT_STRING_EQUAL(r.body, text);
    if (strcmp(r.body, text) != 0)
        fprintf(stderr, "%s %s answered %ld %s\n", method, path, r.status, r.body);
    sbx_test_http_result_clear(&r);
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

/* `emu` answers /api/ only with KEY: 401 without it, 200 with it. */
static void expect_key_required(sbx_test_emu *emu)
{
    sbx_test_http_result r;
    request(emu, "GET", "/api/sandboxes", NULL, 0, &r);
    CU_ASSERT_EQUAL(r.status, 401);
    sbx_test_http_result_clear(&r);
    request(emu, "GET", "/api/sandboxes", NULL, 1, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    sbx_test_http_result_clear(&r);
}

static void test_key_from_environment(void)
{
    setenv("EMU_API_KEY", KEY, 1);
    sbx_test_emu *emu = sbx_test_emu_start(NULL);
    unsetenv("EMU_API_KEY");
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    expect_key_required(emu);
    sbx_test_emu_stop(emu);
}

/* A key file `name` holding KEY with `mode` in a fresh directory of
 * `dir` (64 bytes); its path into `path` (128 bytes). */
static void key_file(char *dir, const char *name, mode_t mode, char *path)
{
    snprintf(dir, 64, "/tmp/sbx-emu-key-XXXXXX");
    CU_ASSERT_PTR_NOT_NULL_FATAL(mkdtemp(dir));
    snprintf(path, 128, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(KEY "\n", f);
    fclose(f);
    CU_ASSERT_EQUAL(chmod(path, mode), 0);
}

/* --api-key-file: the key of a file only its owner may open; one open to
 * others stops the start, naming the file and the fix, not the key. */
static void test_key_from_a_file(void)
{
    char dir[64], path[128];
    key_file(dir, "api.key", 0600, path);
    const char *const args[] = {"--api-key-file", path, NULL};
    sbx_test_emu *emu = sbx_test_emu_start(args);
    CU_ASSERT_PTR_NOT_NULL(emu);
    if (emu != NULL) {
        expect_key_required(emu);
        sbx_test_emu_stop(emu);
    }
    CU_ASSERT_EQUAL(chmod(path, 0644), 0);
    const char *const refused[] = {getenv("EMU_BIN"), "--aio-api-key-file", path, NULL};
    char output[1024];
    CU_ASSERT_EQUAL(sbx_test_run_program(refused, TIMEOUT_MS, output, sizeof output), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(output, path));
    CU_ASSERT_PTR_NOT_NULL(strstr(output, "(mode 0644): run chmod 600 on it"));
    CU_ASSERT_PTR_NULL(strstr(output, KEY));
    unlink(path);
    rmdir(dir);
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

/* What the shared emulator answers for an id it holds nothing for: get
 * 404 "Sandbox 'ID' not found", and delete still 200 naming it, as the
 * reference. */
static void expect_nothing_held(const char *id)
{
    char path[128], detail[160];
    snprintf(path, sizeof path, "/api/sandboxes/%s", id);
    snprintf(detail, sizeof detail, "Sandbox '%s' not found", id);
    long status = 0;
    json_object *a = call(shared, "GET", path, NULL, &status);
    CU_ASSERT_EQUAL(status, 404);
    CU_ASSERT_STRING_EQUAL(str_member(a, "detail"), detail);
    json_object_put(a);
    a = call(shared, "DELETE", path, NULL, &status);
    CU_ASSERT_EQUAL(status, 200);
    CU_ASSERT_STRING_EQUAL(str_member(a, "sandbox_id"), id);
    json_object_put(a);
}

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

    expect_nothing_held("abc");
    expect_nothing_held("never");
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

/* Every hostile body (tests/support/hostile_json.h) is a 422 json_invalid
 * and creates nothing: no h1, own1 not answered to a cut id or user.  The
 * real provisioner refuses the same bodies with 422s of its own (its JSON
 * decoder, its patterns) except the few Python reads (duplicate names,
 * NaN, lone surrogates, big numbers): docs/emulator.md. */
static void test_hostile_bodies_create_nothing(void)
{
    reset_shared();
    json_object_put(create_expecting(shared, SBX_TEST_HOSTILE_SETUP_BODY, 200));
    const char *const headers[] = {KEY_HEADER, NULL};
    for (size_t i = 0; i < sbx_test_hostile_body_count; i++)
        CU_ASSERT(sbx_test_hostile_body_refused(sbx_test_emu_url(shared), headers,
                                                &sbx_test_hostile_bodies[i]));
    long status = 0;
    json_object *a = call(shared, "GET", "/api/sandboxes", NULL, &status);
    CU_ASSERT_EQUAL(int_member(a, "count"), 1);
    json_object_put(a);
    a = create_expecting(shared, SBX_TEST_STRICT_BODY, 200);
    CU_ASSERT_STRING_EQUAL(str_member(a, "sandbox_id"), "ok1");
    json_object_put(a);
}

/* %00 in a path id stays as written (libmicrohttpd's own unescaping cut
 * own1%00zzz to own1): get and delete answer for that id and leave own1;
 * an id over 256 characters is no route's path, as before. */
static void test_nul_in_path_ids_touches_nothing(void)
{
    reset_shared();
    json_object_put(create_expecting(shared, SBX_TEST_HOSTILE_SETUP_BODY, 200));
    expect_nothing_held("own1%00zzz");
    expect_nothing_held("%00own1");
    char path[300];
    snprintf(path, sizeof path, "/api/sandboxes/%0257d", 1);
    a_not_found(shared, "GET", path);
    a_not_found(shared, "DELETE", path);
    long status = 0;
    json_object *a = call(shared, "GET", "/api/sandboxes/own1", NULL, &status);
    CU_ASSERT_EQUAL(status, 200);
    json_object_put(a);
}

/* pydantic 2's words for what the real model refuses, as FastAPI lists them. */
static void test_validation_error_shapes(void)
{
    reset_shared();
    expect_text(shared, "POST", "/api/sandboxes",
                "{\"sandbox_id\":\"a\",\"required_mount_contract_version\":-1}", 422,
                "{\"detail\":[{\"type\":\"greater_than_equal\",\"loc\":[\"body\","
                "\"required_mount_contract_version\"],\"msg\":\"Input should be greater than or "
                "equal to 0\",\"input\":-1,\"ctx\":{\"ge\":0}}]}");
    expect_text(shared, "POST", "/api/sandboxes", "{\"sandbox_id\":\"a\",\"extra_mounts\":null}", 422,
                "{\"detail\":[{\"type\":\"list_type\",\"loc\":[\"body\",\"extra_mounts\"],"
                "\"msg\":\"Input should be a valid list\",\"input\":null}]}");
    /* All errors, in the model's field order. */
    expect_text(shared, "POST", "/api/sandboxes",
                "{\"include_legacy_skills\":null,\"extra_mounts\":[1,{\"host_path\":2}],"
                "\"user_id\":\"a/b\",\"thread_id\":5}",
                422,
                "{\"detail\":[{\"type\":\"missing\",\"loc\":[\"body\",\"sandbox_id\"],\"msg\":"
                "\"Field required\",\"input\":{\"include_legacy_skills\":null,\"extra_mounts\":[1,"
                "{\"host_path\":2}],\"user_id\":\"a/b\",\"thread_id\":5}},"
                "{\"type\":\"string_type\",\"loc\":[\"body\",\"thread_id\"],\"msg\":\"Input "
                "should be a valid string\",\"input\":5},"
                "{\"type\":\"string_pattern_mismatch\",\"loc\":[\"body\",\"user_id\"],\"msg\":"
                "\"String should match pattern '^[A-Za-z0-9_\\\\-]+$'\",\"input\":\"a/b\",\"ctx\":"
                "{\"pattern\":\"^[A-Za-z0-9_\\\\-]+$\"}},"
                "{\"type\":\"model_attributes_type\",\"loc\":[\"body\",\"extra_mounts\",0],"
                "\"msg\":\"Input should be a valid dictionary or object to extract fields from\","
                "\"input\":1},"
                "{\"type\":\"string_type\",\"loc\":[\"body\",\"extra_mounts\",1,\"host_path\"],"
                "\"msg\":\"Input should be a valid string\",\"input\":2},"
                "{\"type\":\"missing\",\"loc\":[\"body\",\"extra_mounts\",1,\"container_path\"],"
                "\"msg\":\"Field required\",\"input\":{\"host_path\":2}},"
                "{\"type\":\"bool_type\",\"loc\":[\"body\",\"include_legacy_skills\"],\"msg\":"
                "\"Input should be a valid boolean\",\"input\":null}]}");
    /* No body, or JSON null: the body is missing. */
    static const char missing_body[] =
        "{\"detail\":[{\"type\":\"missing\",\"loc\":[\"body\"],\"msg\":\"Field required\","
        "\"input\":null}]}";
    expect_text(shared, "POST", "/api/sandboxes", "", 422, missing_body);
    expect_text(shared, "POST", "/api/sandboxes", "null", 422, missing_body);
    expect_text(shared, "POST", "/api/sandboxes", "[1]", 422,
                "{\"detail\":[{\"type\":\"model_attributes_type\",\"loc\":[\"body\"],\"msg\":"
                "\"Input should be a valid dictionary or object to extract fields from\","
                "\"input\":[1]}]}");
    /* A body that is not sent as JSON reaches the model as text. */
    char url[512];
    snprintf(url, sizeof url, "%s/api/sandboxes", sbx_test_emu_url(shared));
    const char *const text_headers[] = {KEY_HEADER, "Content-Type: text/plain", NULL};
    sbx_test_http_result r;
    sbx_test_http("POST", url, text_headers, "{\"sandbox_id\":\"a\"}", TIMEOUT_MS, &r);
    CU_ASSERT_EQUAL(r.status, 422);
    CU_ASSERT_STRING_EQUAL(r.body,
                           "{\"detail\":[{\"type\":\"model_attributes_type\",\"loc\":[\"body\"],"
                           "\"msg\":\"Input should be a valid dictionary or object to extract "
                           "fields from\",\"input\":\"{\\\"sandbox_id\\\":\\\"a\\\"}\"}]}");
    sbx_test_http_result_clear(&r);
    /* application/...+json with parameters is JSON. */
    const char *const json_headers[] = {KEY_HEADER,
                                        "Content-Type: application/vnd.x+json; charset=utf-8", NULL};
    sbx_test_http("POST", url, json_headers, "{\"sandbox_id\":\"a\"}", TIMEOUT_MS, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    sbx_test_http_result_clear(&r);
    /* thread_id is optional. */
    json_object_put(create_expecting(shared, "{\"sandbox_id\":\"b\"}", 200));
}

/* POST a create for sandbox `id` of user `user` on thread `thread` (NULL:
 * none) with `mounts` (the JSON array's members) to `emu`, expecting `want`;
 * returns the answer (caller puts). */
static json_object *create_with_mounts(sbx_test_emu *emu, const char *id, const char *user,
                                       const char *thread, const char *mounts, long want)
{
    char body[8192], thread_member[128] = "";
    if (thread != NULL)
        snprintf(thread_member, sizeof thread_member, ",\"thread_id\":\"%s\"", thread);
    snprintf(body, sizeof body,
             "{\"sandbox_id\":\"%s\",\"user_id\":\"%s\"%s,\"extra_mounts\":[%s]}", id, user,
             thread_member, mounts);
    return create_expecting(emu, body, want);
}

static void expect_400(const char *mounts, const char *detail)
{
    json_object *a = create_with_mounts(shared, "m", "default", "t", mounts, 400);
    CU_ASSERT_STRING_EQUAL(str_member(a, "detail"), detail);
    json_object_put(a);
}

#define STATE "/.deer-flow"
#define MOUNT_RW(host, container) \
    "{\"host_path\":\"" host "\",\"container_path\":\"" container "\",\"read_only\":false}"
#define MOUNT_RO(host, container) \
    "{\"host_path\":\"" host "\",\"container_path\":\"" container "\",\"read_only\":true}"
#define MOUNT(host, container) MOUNT_RW(host, container)
#define OVERLAY "/mnt/user-data/.upload-conversions"

static void test_extra_mount_errors_are_400_strings(void)
{
    reset_shared();
    expect_400(MOUNT(STATE "/x", "/etc"), "Unsupported extra mount path: /etc");
    /* The real provisioner refuses the lark-cli locks folder. */
    expect_400(MOUNT(STATE "/x", "/mnt/integrations/lark-cli/config/locks"),
               "Unsupported extra mount path: /mnt/integrations/lark-cli/config/locks");
    expect_400(MOUNT(STATE "/x", "mnt/acp-workspace"),
               "Extra mount path must be absolute: mnt/acp-workspace");
    expect_400(MOUNT("data/x", "/mnt/acp-workspace"),
               "Extra mount host path must be absolute: data/x");
    /* Host paths must lie in the state directory once normalised. */
    expect_400(MOUNT("/data/x", "/mnt/acp-workspace"),
               "Extra mount host path is outside DeerFlow state: /data/x");
    expect_400(MOUNT(STATE "/../etc", "/mnt/acp-workspace"),
               "Extra mount host path is outside DeerFlow state: " STATE "/../etc");
    expect_400(MOUNT(STATE "-other/x", "/mnt/acp-workspace"),
               "Extra mount host path is outside DeerFlow state: " STATE "-other/x");
    /* The host path is checked before the container path. */
    expect_400(MOUNT("/data/x", "/etc"), "Extra mount host path is outside DeerFlow state: /data/x");
    /* Duplicates are found after normalising the container path. */
    expect_400(MOUNT(STATE "/a", "/mnt/acp-workspace") "," MOUNT(STATE "/b", "/mnt/./acp-workspace/"),
               "Duplicate extra mount path: /mnt/acp-workspace");
    char many[4096] = "";
    for (int i = 0; i < 10; i++) {
        strcat(many, i ? "," : "");
        strcat(many, MOUNT(STATE "/x", "/mnt/acp-workspace"));
    }
    expect_400(many, "Too many extra mounts; max is 9");

    /* Accepted: a normalised spelling of an allowed path, and skills/custom. */
    json_object_put(create_with_mounts(shared, "m", "default", "t",
                                       MOUNT(STATE "//x/./y/", "/mnt/skills/custom/"), 200));
    json_object_put(create_with_mounts(shared, "m2", "default", "t", MOUNT(STATE, "/mnt/acp-workspace"),
                                       200));
}

static void test_upload_conversions_overlay_rules(void)
{
    reset_shared();
    expect_400(MOUNT_RW(STATE "/users/default/threads/t/user-data/.upload-conversions", OVERLAY),
               "Upload conversion mount must be read-only");
    expect_400(MOUNT_RO(STATE "/users/bob/threads/t/user-data/.upload-conversions", OVERLAY),
               "Upload conversion mount must match the requested user and thread");
    expect_400(MOUNT_RO(STATE "/users/default/threads/other/user-data/.upload-conversions", OVERLAY),
               "Upload conversion mount must match the requested user and thread");
    json_object_put(create_with_mounts(
        shared, "ov1", "alice", "t1",
        MOUNT_RO(STATE "/users/alice/threads/t1/user-data/.upload-conversions/", OVERLAY), 200));
    /* Without a thread the sandbox id is the thread. */
    json_object_put(create_with_mounts(
        shared, "ov2", "alice", NULL,
        MOUNT_RO(STATE "/users/alice/threads/ov2/user-data/.upload-conversions", OVERLAY), 200));
}

static void test_state_dir_option(void)
{
    sbx_test_emu *emu = start_with("--state-dir", "/srv/df", NULL);
    json_object *a = create_with_mounts(emu, "s1", "default", "t", MOUNT(STATE "/x", "/mnt/acp-workspace"),
                                        400);
    CU_ASSERT_STRING_EQUAL(str_member(a, "detail"),
                           "Extra mount host path is outside DeerFlow state: " STATE "/x");
    json_object_put(a);
    json_object_put(create_with_mounts(emu, "s1", "default", "t",
                                       MOUNT("/srv/df/x", "/mnt/acp-workspace"), 200));
    sbx_test_emu_stop(emu);
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
    /* As the real provisioner: a sandbox without a thread is its own thread. */
    CU_ASSERT_STRING_EQUAL(str_member(a, "thread_id"), "anon");
    CU_ASSERT_EQUAL(int_member(a, "mount_contract_version"), 2);
    json_object_put(a);

    long status = 0;
    a = call(emu, "GET", "/api/sandboxes/anon", NULL, &status);
    CU_ASSERT_STRING_EQUAL(str_member(a, "user_id"), "alice");
    CU_ASSERT_STRING_EQUAL(str_member(a, "thread_id"), "anon");
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
    json_object *found = call(shared, "GET", "/api/reconciliation/sandboxes/abc", NULL, &status);
    CU_ASSERT_EQUAL(status, 200);
    CU_ASSERT_STRING_EQUAL(str_member(found, "status"), "found");
    CU_ASSERT_STRING_EQUAL(str_member(found, "sandbox_id"), "abc");
    CU_ASSERT_STRING_EQUAL(str_member(found, "sandbox_url"), "http://127.0.0.1:30000");
    CU_ASSERT_STRING_EQUAL(str_member(found, "user_id"), "default");
    CU_ASSERT_STRING_EQUAL(str_member(found, "thread_id"), "thread-1");
    CU_ASSERT_EQUAL(int_member(found, "mount_contract_version"), 0);
    CU_ASSERT_EQUAL(strlen(str_member(found, "backend_namespace")), 36);
    CU_ASSERT_EQUAL(strlen(str_member(found, "incarnation_id")), 36);

    json_object *absent = call(shared, "GET", "/api/reconciliation/sandboxes/gone", NULL, &status);
    CU_ASSERT_EQUAL(status, 200);
    CU_ASSERT_STRING_EQUAL(str_member(absent, "status"), "absent");
    /* Every member of the real answer model is there, null when it does not apply. */
    static const char *const nulls[] = {"incarnation_id", "sandbox_url", "user_id", "thread_id",
                                        "mount_contract_version"};
    for (size_t i = 0; i < 5; i++) {
        CU_ASSERT_TRUE(has_member(absent, nulls[i]));
        CU_ASSERT_PTR_NULL(json_object_object_get(absent, nulls[i]));
    }
    CU_ASSERT_STRING_EQUAL(str_member(absent, "backend_namespace"),
                           str_member(found, "backend_namespace"));
    json_object_put(absent);

    /* A new sandbox of the same id is a new incarnation. */
    json_object_put(call(shared, "DELETE", "/api/sandboxes/abc", NULL, &status));
    json_object_put(call(shared, "POST", "/api/sandboxes", CREATE_ABC, &status));
    json_object *again = call(shared, "GET", "/api/reconciliation/sandboxes/abc", NULL, &status);
    CU_ASSERT_STRING_NOT_EQUAL(str_member(again, "incarnation_id"),
                               str_member(found, "incarnation_id"));
    json_object_put(again);
    json_object_put(found);

    /* The route the real provisioner never had is not there. */
    a_not_found(shared, "GET", "/api/sandboxes/abc/reconciliation");
}

static void test_reconciliation_disabled(void)
{
    expect_route_disabled_by("--no-reconciliation", "/api/reconciliation/sandboxes/abc");
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

/* ------------------------------------------------------------ the real wire (contract 2) */

/* The contract-2 suite's emulator: what the real provisioner serves. */
static sbx_test_emu *real;

static int start_real(void)
{
    static const char *const args[] = {"--api-key", KEY, "--contract", "2", NULL};
    real = sbx_test_emu_start(args);
    return real == NULL ? 1 : 0;
}

static int stop_real(void)
{
    sbx_test_emu_stop(real);
    real = NULL;
    return 0;
}

static void reset_real(void)
{
    CU_ASSERT_EQUAL_FATAL(sbx_test_emu_control(real, "POST", "/_emu/reset", NULL, NULL), 200);
}

/* Queue a Kubernetes failure on the contract-2 emulator. */
static void kube_fault(const char *json)
{
    CU_ASSERT_EQUAL(sbx_test_emu_control(real, "POST", "/_emu/kube-faults", json, NULL), 200);
}

#define CREATE_ALICE "{\"sandbox_id\":\"sb1\",\"user_id\":\"alice\",\"thread_id\":\"t1\"}"
#define ALICE_SB1 \
    "{\"sandbox_id\":\"sb1\",\"sandbox_url\":\"http://127.0.0.1:30000\",\"status\":\"Running\"," \
    "\"user_id\":\"alice\",\"thread_id\":\"t1\",\"mount_contract_version\":2}"
#define NO_IDENTITY "\"user_id\":null,\"thread_id\":null,\"mount_contract_version\":null"

/* The answers byte for byte as the real provisioner sends them. */
static void test_real_wire_texts(void)
{
    reset_real();
    expect_text(real, "GET", "/api/capabilities", NULL, 200,
                "{\"lark_cli_init_image\":false,\"lark_cli_broker_image\":false,"
                "\"mount_contract_version\":2}");
    expect_text(real, "POST", "/api/sandboxes", CREATE_ALICE, 200, ALICE_SB1);
    /* No thread: the sandbox id is echoed as the thread, the user defaults. */
    expect_text(real, "POST", "/api/sandboxes", "{\"sandbox_id\":\"sb2\"}", 200,
                "{\"sandbox_id\":\"sb2\",\"sandbox_url\":\"http://127.0.0.1:30001\","
                "\"status\":\"Running\",\"user_id\":\"default\",\"thread_id\":\"sb2\","
                "\"mount_contract_version\":2}");
    expect_text(real, "GET", "/api/sandboxes/sb1", NULL, 200, ALICE_SB1);
    /* The real list reads no identity: null, not absent. */
    expect_text(real, "GET", "/api/sandboxes", NULL, 200,
                "{\"sandboxes\":[{\"sandbox_id\":\"sb1\",\"sandbox_url\":\"http://127.0.0.1:30000\","
                "\"status\":\"Running\"," NO_IDENTITY "},{\"sandbox_id\":\"sb2\","
                "\"sandbox_url\":\"http://127.0.0.1:30001\",\"status\":\"Running\"," NO_IDENTITY
                "}],\"count\":2}");
    expect_text(real, "GET", "/api/reconciliation/sandboxes/sb1", NULL, 200,
                "{\"sandbox_id\":\"sb1\",\"status\":\"found\",\"backend_namespace\":\"UID\","
                "\"incarnation_id\":\"UID\",\"sandbox_url\":\"http://127.0.0.1:30000\","
                "\"user_id\":\"alice\",\"thread_id\":\"t1\",\"mount_contract_version\":2}");
    expect_text(real, "GET", "/api/reconciliation/sandboxes/nope", NULL, 200,
                "{\"sandbox_id\":\"nope\",\"status\":\"absent\",\"backend_namespace\":\"UID\","
                "\"incarnation_id\":null,\"sandbox_url\":null," NO_IDENTITY "}");
    expect_text(real, "GET", "/api/sandboxes/nope", NULL, 404,
                "{\"detail\":\"Sandbox 'nope' not found\"}");
    expect_text(real, "DELETE", "/api/sandboxes/sb2", NULL, 200,
                "{\"ok\":true,\"sandbox_id\":\"sb2\"}");
    a_not_found(real, "GET", "/api/sandboxes/sb1/reconciliation");
}

#define EXISTING(what) "{\"detail\":\"Existing sandbox 'sb1' " what "\"}"

static void test_idempotent_create_checks_the_existing_sandbox(void)
{
    reset_real();
    expect_text(real, "POST", "/api/sandboxes", CREATE_ALICE, 200, ALICE_SB1);
    /* The same request, and one whose flags change nothing mounted: the same sandbox. */
    expect_text(real, "POST", "/api/sandboxes", CREATE_ALICE, 200, ALICE_SB1);
    expect_text(real, "POST", "/api/sandboxes",
                "{\"sandbox_id\":\"sb1\",\"user_id\":\"alice\",\"thread_id\":\"t1\","
                "\"include_legacy_skills\":true,\"required_mount_contract_version\":2}",
                200, ALICE_SB1);
    expect_text(real, "POST", "/api/sandboxes",
                "{\"sandbox_id\":\"sb1\",\"user_id\":\"bob\",\"thread_id\":\"t1\"}", 409,
                EXISTING("belongs to another user"));
    expect_text(real, "POST", "/api/sandboxes",
                "{\"sandbox_id\":\"sb1\",\"user_id\":\"alice\",\"thread_id\":\"t2\"}", 409,
                EXISTING("belongs to another thread"));
    expect_text(real, "POST", "/api/sandboxes", "{\"sandbox_id\":\"sb1\",\"user_id\":\"alice\"}",
                409, EXISTING("belongs to another thread"));
    expect_text(real, "POST", "/api/sandboxes",
                "{\"sandbox_id\":\"sb1\",\"user_id\":\"alice\",\"thread_id\":\"t1\",\"extra_mounts\":["
                MOUNT(STATE "/x", "/mnt/acp-workspace") "]}",
                409, EXISTING("does not match the requested mount contract"));
    /* Contract 2 refuses any other required version, 0 included, before anything else. */
    expect_text(real, "POST", "/api/sandboxes",
                "{\"sandbox_id\":\"sb1\",\"user_id\":\"bob\",\"required_mount_contract_version\":0}",
                409, "{\"detail\":{\"code\":\"mount_contract_changed\",\"expected\":0,\"actual\":2}}");
    /* Nothing changed hands. */
    expect_text(real, "GET", "/api/sandboxes/sb1", NULL, 200, ALICE_SB1);
}

static void test_moved_contract_makes_old_sandboxes_unverifiable(void)
{
    reset_real();
    expect_text(real, "POST", "/api/sandboxes", CREATE_ALICE, 200, ALICE_SB1);
    CU_ASSERT_EQUAL(sbx_test_emu_control(real, "PUT", "/_emu/contract", "{\"version\":3}", NULL),
                    200);
    const char *unverifiable = EXISTING("uses an incompatible or unverifiable mount contract; "
                                        "destroy it before retrying");
    expect_text(real, "GET", "/api/sandboxes/sb1", NULL, 409, unverifiable);
    expect_text(real, "GET", "/api/reconciliation/sandboxes/sb1", NULL, 409, unverifiable);
    expect_text(real, "POST", "/api/sandboxes", CREATE_ALICE, 409, unverifiable);
    /* Listing reads no contract; deleting always works. */
    expect_text(real, "GET", "/api/sandboxes", NULL, 200,
                "{\"sandboxes\":[{\"sandbox_id\":\"sb1\",\"sandbox_url\":\"http://127.0.0.1:30000\","
                "\"status\":\"Running\"," NO_IDENTITY "}],\"count\":1}");
    expect_text(real, "DELETE", "/api/sandboxes/sb1", NULL, 200, "{\"ok\":true,\"sandbox_id\":\"sb1\"}");
}

/* The incarnation (pod uid) reconciliation reports for `id`, or "". */
static const char *incarnation_of(const char *id, char *out, size_t len)
{
    char path[128];
    snprintf(path, sizeof path, "/api/reconciliation/sandboxes/%s", id);
    long status = 0;
    json_object *a = call(real, "GET", path, NULL, &status);
    snprintf(out, len, "%s", str_member(a, "incarnation_id"));
    json_object_put(a);
    return out;
}

/* A Pod whose Service is gone: found without a URL, invisible elsewhere,
 * and a create brings a new Service for the same Pod. */
static void test_half_deleted_sandbox(void)
{
    reset_real();
    expect_text(real, "POST", "/api/sandboxes", CREATE_ALICE, 200, ALICE_SB1);
    char before[64], after[64];
    incarnation_of("sb1", before, sizeof before);
    CU_ASSERT_EQUAL(sbx_test_emu_control(real, "DELETE", "/_emu/sandboxes/sb1/service", NULL, NULL),
                    200);
    expect_text(real, "GET", "/api/reconciliation/sandboxes/sb1", NULL, 200,
                "{\"sandbox_id\":\"sb1\",\"status\":\"found\",\"backend_namespace\":\"UID\","
                "\"incarnation_id\":\"UID\",\"sandbox_url\":null,\"user_id\":\"alice\","
                "\"thread_id\":\"t1\",\"mount_contract_version\":2}");
    expect_text(real, "GET", "/api/sandboxes/sb1", NULL, 404,
                "{\"detail\":\"Sandbox 'sb1' not found\"}");
    expect_text(real, "GET", "/api/sandboxes", NULL, 200, "{\"sandboxes\":[],\"count\":0}");
    /* Another user cannot take it over through the missing Service. */
    expect_text(real, "POST", "/api/sandboxes",
                "{\"sandbox_id\":\"sb1\",\"user_id\":\"bob\",\"thread_id\":\"t1\"}", 409,
                EXISTING("belongs to another user"));
    expect_text(real, "POST", "/api/sandboxes", CREATE_ALICE, 200,
                "{\"sandbox_id\":\"sb1\",\"sandbox_url\":\"http://127.0.0.1:30001\","
                "\"status\":\"Running\",\"user_id\":\"alice\",\"thread_id\":\"t1\","
                "\"mount_contract_version\":2}");
    CU_ASSERT_STRING_EQUAL(incarnation_of("sb1", after, sizeof after), before);

    /* A Service without its Pod: listed as NotFound, not verifiable, absent. */
    CU_ASSERT_EQUAL(sbx_test_emu_control(real, "DELETE", "/_emu/sandboxes/sb1/pod", NULL, NULL), 200);
    expect_text(real, "GET", "/api/sandboxes", NULL, 200,
                "{\"sandboxes\":[{\"sandbox_id\":\"sb1\",\"sandbox_url\":\"http://127.0.0.1:30001\","
                "\"status\":\"NotFound\"," NO_IDENTITY "}],\"count\":1}");
    expect_text(real, "GET", "/api/sandboxes/sb1", NULL, 409,
                EXISTING("has no verifiable Pod contract"));
    json_object *a = NULL;
    long status = 0;
    a = call(real, "GET", "/api/reconciliation/sandboxes/sb1", NULL, &status);
    CU_ASSERT_STRING_EQUAL(str_member(a, "status"), "absent");
    json_object_put(a);
    CU_ASSERT_EQUAL(sbx_test_emu_control(real, "DELETE", "/_emu/sandboxes/sb1/pod", NULL, NULL), 404);
    CU_ASSERT_EQUAL(sbx_test_emu_control(real, "DELETE", "/_emu/sandboxes/zz/service", NULL, NULL),
                    404);
}

static void test_kubernetes_failures(void)
{
    reset_real();
    expect_text(real, "POST", "/api/sandboxes", CREATE_ALICE, 200, ALICE_SB1);

    kube_fault("{\"op\":\"read_namespace\",\"status\":500}");
    expect_text(real, "GET", "/api/reconciliation/sandboxes/sb1", NULL, 503,
                "{\"detail\":\"Could not verify sandbox backend namespace: Internal Server Error\"}");
    kube_fault("{\"op\":\"read_pod\",\"status\":500,\"reason\":\"etcd timeout\"}");
    expect_text(real, "GET", "/api/reconciliation/sandboxes/sb1", NULL, 503,
                "{\"detail\":\"Could not verify sandbox Pod: etcd timeout\"}");
    kube_fault("{\"op\":\"read_pod\",\"status\":500}");
    expect_text(real, "GET", "/api/sandboxes/sb1", NULL, 409, EXISTING("has no verifiable Pod contract"));
    /* An uncaught Kubernetes error: the server's plain-text 500. */
    kube_fault("{\"op\":\"read_service\",\"status\":500}");
    sbx_test_http_result r;
    request(real, "GET", "/api/sandboxes/sb1", NULL, 1, &r);
    CU_ASSERT_EQUAL(r.status, 500);
    CU_ASSERT_STRING_EQUAL(r.body, "Internal Server Error");
    CU_ASSERT_STRING_EQUAL(r.content_type != NULL ? r.content_type : "", "text/plain; charset=utf-8");
    sbx_test_http_result_clear(&r);
    /* A reconciliation tolerates a failed Service read: found, without a URL. */
    kube_fault("{\"op\":\"read_service\",\"status\":500}");
    json_object *a = NULL;
    long status = 0;
    a = call(real, "GET", "/api/reconciliation/sandboxes/sb1", NULL, &status);
    CU_ASSERT_STRING_EQUAL(str_member(a, "status"), "found");
    CU_ASSERT_PTR_NULL(json_object_object_get(a, "sandbox_url"));
    json_object_put(a);
    kube_fault("{\"op\":\"list_services\",\"status\":500}");
    expect_text(real, "GET", "/api/sandboxes", NULL, 500,
                "{\"detail\":\"Failed to list services: Internal Server Error\"}");

    kube_fault("{\"op\":\"create_pod\",\"status\":422,\"reason\":\"Unprocessable Entity\"}");
    expect_text(real, "POST", "/api/sandboxes", "{\"sandbox_id\":\"sb2\"}", 500,
                "{\"detail\":\"Pod creation failed: Unprocessable Entity\"}");
    /* A failed Service rolls its Pod back. */
    kube_fault("{\"op\":\"create_service\",\"status\":503}");
    expect_text(real, "POST", "/api/sandboxes", "{\"sandbox_id\":\"sb2\"}", 500,
                "{\"detail\":\"Service creation failed: Service Unavailable\"}");
    a = call(real, "GET", "/api/reconciliation/sandboxes/sb2", NULL, &status);
    CU_ASSERT_STRING_EQUAL(str_member(a, "status"), "absent");
    json_object_put(a);
    /* The Service never answers: no URL in time. */
    kube_fault("{\"op\":\"read_service\",\"status\":500,\"times\":-1}");
    expect_text(real, "POST", "/api/sandboxes", "{\"sandbox_id\":\"sb2\"}", 500,
                "{\"detail\":\"Service access URL was not available in time\"}");
    kube_fault("{\"op\":\"read_service\",\"status\":500,\"times\":0}");
    /* ...leaving the Pod and its Service (the first that got a port) in place. */

    /* A failure for another sandbox does not touch this one; each is used once. */
    kube_fault("{\"op\":\"delete_pod\",\"status\":500,\"sandbox_id\":\"other\"}");
    kube_fault("{\"op\":\"delete_service\",\"status\":500,\"reason\":\"boom\"}");
    expect_text(real, "DELETE", "/api/sandboxes/sb1", NULL, 500,
                "{\"detail\":\"Partial cleanup: service: boom\"}");
    a = call(real, "GET", "/api/reconciliation/sandboxes/sb1", NULL, &status);
    CU_ASSERT_STRING_EQUAL(str_member(a, "status"), "absent");
    json_object_put(a);
    expect_text(real, "DELETE", "/api/sandboxes/sb1", NULL, 200, "{\"ok\":true,\"sandbox_id\":\"sb1\"}");
    expect_text(real, "GET", "/api/sandboxes", NULL, 200,
                "{\"sandboxes\":[{\"sandbox_id\":\"sb2\",\"sandbox_url\":\"http://127.0.0.1:30001\","
                "\"status\":\"Running\"," NO_IDENTITY "}],\"count\":1}");
}

static void test_bad_kube_fault_is_refused(void)
{
    reset_real();
    static const char *const bad[] = {
        "{\"op\":\"nope\",\"status\":500}", "{\"op\":\"read_pod\",\"status\":200}",
        "{\"op\":\"read_pod\",\"status\":500,\"times\":-2}",
        "{\"op\":\"read_pod\",\"status\":500,\"reason\":5}", "[]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CU_ASSERT_EQUAL(sbx_test_emu_control(real, "POST", "/_emu/kube-faults", bad[i], NULL), 400);
}

/* The Allow header of a keyed `method` request to `path` on `emu` (static
 * buffer; "" when none), and its status in *status. */
static const char *allow_of(sbx_test_emu *emu, const char *method, const char *path,
                            long *status)
{
    static char allow[64];
    allow[0] = '\0';
    CURL *curl = curl_easy_init();
    if (curl == NULL)
        return allow;
    char url[512];
    snprintf(url, sizeof url, "%s%s", sbx_test_emu_url(emu), path);
    struct curl_slist *headers = curl_slist_append(NULL, KEY_HEADER);
    curl_easy_setopt(curl, CURLOPT_URL, url);
    curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(curl, CURLOPT_NOPROXY, "*");
    curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, TIMEOUT_MS);
    curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard);
    if (strcmp(method, "HEAD") == 0)
        curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
    else
        curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
    *status = 0;
    if (curl_easy_perform(curl) == CURLE_OK) {
        curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, status);
        struct curl_header *h = NULL;
        if (curl_easy_header(curl, "Allow", 0, CURLH_HEADER, -1, &h) == CURLHE_OK)
            snprintf(allow, sizeof allow, "%s", h->value);
    }
    curl_slist_free_all(headers);
    curl_easy_cleanup(curl);
    return allow;
}

static void test_wrong_method_is_405_naming_the_route(void)
{
    reset_real();
    static const struct { const char *method, *path, *allow; } cases[] = {
        {"PUT", "/api/sandboxes", "POST"},     /* create is declared before list */
        {"DELETE", "/api/sandboxes", "POST"},
        {"POST", "/api/sandboxes/sb1", "DELETE"},   /* delete before get */
        {"PUT", "/api/sandboxes/sb1", "DELETE"},
        {"POST", "/health", "GET"},
        {"HEAD", "/health", "GET"},
        {"POST", "/api/capabilities", "GET"},
        {"DELETE", "/api/reconciliation/sandboxes/sb1", "GET"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        long status = 0;
        CU_ASSERT_STRING_EQUAL(allow_of(real, cases[i].method, cases[i].path, &status),
                               cases[i].allow);
        CU_ASSERT_EQUAL(status, 405);
    }
    expect_text(real, "PUT", "/api/sandboxes", NULL, 405, "{\"detail\":\"Method Not Allowed\"}");
    /* Not a route for any method: 404. */
    a_not_found(real, "DELETE", "/api/sandboxes/sb1/reconciliation");
    a_not_found(real, "GET", "/api/reconciliation/sandboxes");
}

static void test_trailing_slash_redirects(void)
{
    reset_real();
    static const char *const paths[][2] = {
        {"/api/sandboxes/", "/api/sandboxes"},
        {"/api/sandboxes/sb1//", "/api/sandboxes/sb1"},
        {"/health/", "/health"},
    };
    for (size_t i = 0; i < 3; i++) {
        sbx_test_http_result r;
        request(real, "GET", paths[i][0], NULL, 1, &r);
        CU_ASSERT_EQUAL(r.status, 307);
        char want[512];
        snprintf(want, sizeof want, "%s%s", sbx_test_emu_url(real), paths[i][1]);
        CU_ASSERT_STRING_EQUAL(r.redirect_url != NULL ? r.redirect_url : "", want);
        CU_ASSERT_STRING_EQUAL(r.body, "");
        sbx_test_http_result_clear(&r);
    }
    a_not_found(real, "GET", "/nope/");
}

/* The key guards the /api/ prefix only, before routing and before faults. */
static void test_key_checked_before_routing_and_faults(void)
{
    reset_real();
    sbx_test_http_result r;
    request(real, "GET", "/api", NULL, 0, &r);
    CU_ASSERT_EQUAL(r.status, 404);
    sbx_test_http_result_clear(&r);
    request(real, "GET", "/api/sandboxes/", NULL, 0, &r);
    CU_ASSERT_EQUAL(r.status, 401);
    sbx_test_http_result_clear(&r);
    request(real, "PUT", "/api/sandboxes", NULL, 0, &r);
    CU_ASSERT_EQUAL(r.status, 401);
    sbx_test_http_result_clear(&r);

    CU_ASSERT_EQUAL(sbx_test_emu_fault(real, "{\"route\":\"list\",\"action\":\"respond\",\"status\":503}"),
                    200);
    request(real, "GET", "/api/sandboxes", NULL, 0, &r);
    CU_ASSERT_EQUAL(r.status, 401);
    CU_ASSERT_STRING_EQUAL(r.body, "Unauthorized");
    sbx_test_http_result_clear(&r);
    CU_ASSERT_EQUAL(sbx_test_emu_received(real, "list"), 0);
    /* The fault waited for a request that passed the key. */
    request(real, "GET", "/api/sandboxes", NULL, 1, &r);
    CU_ASSERT_EQUAL(r.status, 503);
    sbx_test_http_result_clear(&r);
}

static void test_fail_closed_without_key(void)
{
    sbx_test_emu *emu = start_with("--fail-closed", NULL, NULL);
    sbx_test_http_result r;
    static const char *const paths[] = {"/api/sandboxes", "/api/capabilities", "/api/nope"};
    for (size_t i = 0; i < 3; i++) {
        request(emu, "GET", paths[i], NULL, 1, &r);
        CU_ASSERT_EQUAL(r.status, 401);
        CU_ASSERT_STRING_EQUAL(r.body, "Unauthorized");
        sbx_test_http_result_clear(&r);
        request(emu, "GET", paths[i], NULL, 0, &r);
        CU_ASSERT_EQUAL(r.status, 401);
        sbx_test_http_result_clear(&r);
    }
    request(emu, "GET", "/health", NULL, 0, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    sbx_test_http_result_clear(&r);
    sbx_test_emu_stop(emu);

    /* Without it, an emulator without a key checks none. */
    emu = start_with(NULL, NULL, NULL);
    request(emu, "GET", "/api/sandboxes", NULL, 0, &r);
    CU_ASSERT_EQUAL(r.status, 200);
    sbx_test_http_result_clear(&r);
    sbx_test_emu_stop(emu);
}

/* GET sandbox `id` on `emu` until its status is `phase` or a minute
 * passes (a bound no loaded machine reaches). */
static int reaches_phase(sbx_test_emu *emu, const char *id, const char *phase)
{
    char path[128];
    snprintf(path, sizeof path, "/api/sandboxes/%s", id);
    long deadline = sbx_test_now_ms() + 60000;
    do {
        long status = 0;
        json_object *a = call(emu, "GET", path, NULL, &status);
        int reached = strcmp(str_member(a, "status"), phase) == 0;
        json_object_put(a);
        if (reached)
            return 1;
    } while (sbx_test_now_ms() < deadline);
    return 0;
}

static void test_pod_phases(void)
{
    const char *const args[] = {"--contract", "2", "--pending-ms", "300", NULL};
    sbx_test_emu *emu = sbx_test_emu_start(args);
    CU_ASSERT_PTR_NOT_NULL_FATAL(emu);
    long start = sbx_test_now_ms();
    json_object *a = create_expecting(emu, "{\"sandbox_id\":\"p1\"}", 200);
    CU_ASSERT_STRING_EQUAL(str_member(a, "status"), "Pending");
    json_object_put(a);
    CU_ASSERT_TRUE(reaches_phase(emu, "p1", "Running"));
    CU_ASSERT_TRUE(sbx_test_now_ms() - start >= 300);

    CU_ASSERT_EQUAL(sbx_test_emu_control(emu, "PUT", "/_emu/sandboxes/p1/phase",
                                         "{\"phase\":\"Failed\"}", NULL),
                    200);
    CU_ASSERT_TRUE(reaches_phase(emu, "p1", "Failed"));
    CU_ASSERT_EQUAL(sbx_test_emu_control(emu, "PUT", "/_emu/sandboxes/nope/phase",
                                         "{\"phase\":\"Failed\"}", NULL),
                    404);
    CU_ASSERT_EQUAL(sbx_test_emu_control(emu, "PUT", "/_emu/sandboxes/p1/phase", "{\"phase\":1}",
                                         NULL),
                    400);
    sbx_test_emu_stop(emu);
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
        {"validation error shapes (pydantic 2)", test_validation_error_shapes},
        {"hostile bodies create nothing", test_hostile_bodies_create_nothing},
        {"NUL in path ids touches nothing", test_nul_in_path_ids_touches_nothing},
        {"extra mount errors are 400 strings", test_extra_mount_errors_are_400_strings},
        {"upload-conversions overlay rules", test_upload_conversions_overlay_rules},
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
        {"key from EMU_API_KEY", test_key_from_environment},
        {"key from --api-key-file", test_key_from_a_file},
        {"--contract 2 capabilities", test_capabilities_contract_2},
        {"--no-capabilities", test_no_capabilities_route},
        {"--initial-status and --node-host", test_initial_status_and_node_host},
        {"409 contract precondition", test_contract_precondition_409},
        {"identity echo with a contract", test_identity_echo_with_contract},
        {"--no-reconciliation", test_reconciliation_disabled},
        {"--state-dir", test_state_dir_option},
        {"--fail-closed", test_fail_closed_without_key},
        {"--pending-ms and phases", test_pod_phases},
        CU_TEST_INFO_NULL,
    };
    static const CU_TestInfo real_tests[] = {
        {"the real wire, byte for byte", test_real_wire_texts},
        {"idempotent create checks the existing sandbox", test_idempotent_create_checks_the_existing_sandbox},
        {"a moved contract makes old sandboxes unverifiable", test_moved_contract_makes_old_sandboxes_unverifiable},
        {"half-deleted sandbox", test_half_deleted_sandbox},
        {"Kubernetes failures", test_kubernetes_failures},
        {"bad Kubernetes failure is refused", test_bad_kube_fault_is_refused},
        {"wrong method is 405 naming the route", test_wrong_method_is_405_naming_the_route},
        {"trailing slashes redirect", test_trailing_slash_redirects},
        {"key checked before routing and faults", test_key_checked_before_routing_and_faults},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("emulator", start_shared, stop_shared, shared_tests);
    sbx_test_add_suite("emulator options", NULL, NULL, option_tests);
    sbx_test_add_suite("emulator as the real provisioner (contract 2)", start_real, stop_real,
                       real_tests);
}
