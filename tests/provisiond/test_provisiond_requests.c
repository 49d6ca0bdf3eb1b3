/* sbx-provisiond over the local backend, through raw HTTP: the bad-request
 * table (status, detail, and nothing reaches the backend), the answers of
 * every route, ownership (idempotent create, 409 for another owner, kept
 * across a restart with --state-dir), backend errors and an unreachable
 * engine as 5xx, and the options it refuses to start with. */
#include <config.h>

#include <CUnit/CUnit.h>
#include <json-c/json.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "common/create_request.h"
#include "tests/provisiond/provd_process.h"
#include "tests/support/clock.h"
#include "tests/support/cunit_main.h"
#include "tests/support/hostile_json.h"
#include "tests/support/http_probe.h"
#include "tests/support/subprocess.h"

#define KEY "k3y-for-tests"
#define TIMEOUT_MS 20000

static const char *const with_key[] = {"Content-Type: application/json",
                                       "X-API-Key: " KEY, NULL};

/* One call; the answer parsed into *json (NULL when not JSON; put it).
 * Returns the status (-1: no answer). */
static long call(const provd_local *d, const char *const *headers, provd_send send,
                 json_object **json, sbx_test_http_result *raw)
{
    char url[8192];
    snprintf(url, sizeof url, "%s%s", provd_url(d->proc), send.path);
    sbx_test_http_result r;
    int sent = sbx_test_http(send.method, url, headers, send.body, TIMEOUT_MS, &r);
    long status = sent == 0 ? r.status : -1;
    if (json != NULL)
        *json = sent == 0 && r.body != NULL ? json_tokener_parse(r.body) : NULL;
    if (raw != NULL)
        *raw = r;
    else
        sbx_test_http_result_clear(&r);
    return status;
}

static const char *string_at(json_object *obj, const char *key)
{
    json_object *v = NULL;
    if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, json_type_string))
        return NULL;
    return json_object_get_string(v);
}

/* The text of a {"detail": "..."} answer, or of the first pydantic error's
 * "type" for a list detail; "" otherwise. */
static const char *detail_of(json_object *answer)
{
    json_object *detail = NULL;
    if (!json_object_object_get_ex(answer, "detail", &detail))
        return "";
    if (json_object_is_type(detail, json_type_string))
        return json_object_get_string(detail);
    if (json_object_is_type(detail, json_type_array) && json_object_array_length(detail) > 0) {
        const char *type = string_at(json_object_array_get_idx(detail, 0), "type");
        return type != NULL ? type : "";
    }
    return "";
}

static int contains(const char *haystack, const char *needle)
{
    return haystack != NULL && strstr(haystack, needle) != NULL;
}

/* The ids the local backend holds now, as "a,b" ("" when none). */
static int ids_are(const provd_local *d, const char *expected)
{
    char *ids = provd_local_ids(d);
    int same = ids != NULL && strcmp(ids, expected) == 0;
    if (!same)
        fprintf(stderr, "local backend holds '%s', expected '%s'\n", ids ? ids : "(error)",
                expected);
    free(ids);
    return same;
}

static char *repeat(char c, size_t n)
{
    char *s = malloc(n + 1);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

typedef struct bad_request {
    const char *what;
    const char *method;
    const char *path;
    const char *body;           /* "@big": a body over --max-body-bytes */
    const char *const *headers;
    long status;
    const char *detail;         /* in detail_of(answer), or the raw body for 401 */
} bad_request;

static const char *const no_key[] = {"Content-Type: application/json", NULL};
static const char *const wrong_key[] = {"Content-Type: application/json",
                                        "X-API-Key: k3y-for-tests-not", NULL};
static const char *const as_text[] = {"Content-Type: text/plain", "X-API-Key: " KEY, NULL};

static const bad_request table[] = {
    {"body over the limit", "POST", "/api/sandboxes", "@big", with_key, 413,
     "request body too large"},
    {"no body", "POST", "/api/sandboxes", "", with_key, 422, "missing"},
    {"invalid JSON", "POST", "/api/sandboxes", "{\"sandbox_id\":", with_key, 422, "json_invalid"},
    {"not an object", "POST", "/api/sandboxes", "[1]", with_key, 422, "model_attributes_type"},
    {"not sent as JSON", "POST", "/api/sandboxes", "{\"sandbox_id\":\"a1\"}", as_text, 422,
     "model_attributes_type"},
    {"id of the wrong type", "POST", "/api/sandboxes", "{\"sandbox_id\":5}", with_key, 422,
     "string_type"},
    {"thread of the wrong type", "POST", "/api/sandboxes",
     "{\"sandbox_id\":\"a1\",\"thread_id\":7}", with_key, 422, "string_type"},
    {"contract of the wrong type", "POST", "/api/sandboxes",
     "{\"sandbox_id\":\"a1\",\"required_mount_contract_version\":\"2\"}", with_key, 422,
     "int_type"},
    {"flag of the wrong type", "POST", "/api/sandboxes",
     "{\"sandbox_id\":\"a1\",\"include_legacy_skills\":\"yes\"}", with_key, 422, "bool_type"},
    {"mounts not a list", "POST", "/api/sandboxes",
     "{\"sandbox_id\":\"a1\",\"extra_mounts\":{}}", with_key, 422, "list_type"},
    {"mount without container path", "POST", "/api/sandboxes",
     "{\"sandbox_id\":\"a1\",\"extra_mounts\":[{\"host_path\":\"/.deer-flow/x\"}]}", with_key,
     422, "missing"},
    {"invalid sandbox id", "POST", "/api/sandboxes", "{\"sandbox_id\":\"Bad_ID\"}", with_key,
     422, "string_pattern_mismatch"},
    {"sandbox id of 52 characters", "POST", "/api/sandboxes",
     "{\"sandbox_id\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}", with_key, 422,
     "string_pattern_mismatch"},
    {"invalid user id", "POST", "/api/sandboxes", "{\"sandbox_id\":\"a1\",\"user_id\":\"a/b\"}",
     with_key, 422, "string_pattern_mismatch"},
    {"invalid thread id", "POST", "/api/sandboxes",
     "{\"sandbox_id\":\"a1\",\"thread_id\":\"../x\"}", with_key, 422, "string_pattern_mismatch"},
    {"invalid id in a get", "GET", "/api/sandboxes/Bad_ID", NULL, with_key, 422,
     "string_pattern_mismatch"},
    {"invalid id in a delete", "DELETE", "/api/sandboxes/x.y", NULL, with_key, 422,
     "string_pattern_mismatch"},
    {"invalid id in a reconciliation", "GET", "/api/reconciliation/sandboxes/-a", NULL,
     with_key, 422, "string_pattern_mismatch"},
    {"precondition of another contract", "POST", "/api/sandboxes",
     "{\"sandbox_id\":\"a1\",\"required_mount_contract_version\":1}", with_key, 409, ""},
    {"mount outside the mount base", "POST", "/api/sandboxes",
     "{\"sandbox_id\":\"a1\",\"extra_mounts\":[{\"host_path\":\"/etc\","
     "\"container_path\":\"/mnt/acp-workspace\"}]}",
     with_key, 400, "Extra mount host path is outside DeerFlow state: /etc"},
    {"unknown mount path", "POST", "/api/sandboxes",
     "{\"sandbox_id\":\"a1\",\"extra_mounts\":[{\"host_path\":\"/.deer-flow/x\","
     "\"container_path\":\"/root\"}]}",
     with_key, 400, "Unsupported extra mount path: /root"},
    {"a mount the local backend cannot make", "POST", "/api/sandboxes",
     "{\"sandbox_id\":\"a1\",\"extra_mounts\":[{\"host_path\":\"/.deer-flow/x\","
     "\"container_path\":\"/mnt/acp-workspace\"}]}",
     with_key, 400, "extra mounts are not supported locally"},
    {"no key", "POST", "/api/sandboxes", "{\"sandbox_id\":\"a1\"}", no_key, 401, "Unauthorized"},
    {"a wrong key", "GET", "/api/sandboxes", NULL, wrong_key, 401, "Unauthorized"},
    {"a wrong key on an unknown path", "GET", "/api/nothing", NULL, wrong_key, 401,
     "Unauthorized"},
    {"a method the route lacks", "PUT", "/api/sandboxes", "{}", with_key, 405,
     "Method Not Allowed"},
    {"no such route", "GET", "/api/sandboxes/a1/reconciliation", NULL, with_key, 404,
     "Not Found"},
};

/* Every row of the table: its status and detail, and afterwards the
 * backend holds nothing and no ownership record was written. */
static void test_bad_requests_reach_nothing(void)
{
    static const char *const args[] = {"--api-key", KEY, "--max-body-bytes", "4096", NULL};
    provd_local d;
    if (!provd_local_start(&d, 1, args))
        return;
    char *big = repeat(' ', 5000);
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        const bad_request *row = &table[i];
        json_object *answer = NULL;
        sbx_test_http_result raw;
        const char *body = row->body != NULL && strcmp(row->body, "@big") == 0 ? big : row->body;
        long status =
            call(&d, row->headers, (provd_send){row->method, row->path, body}, &answer, &raw);
        const char *detail = row->status == 401 ? raw.body : detail_of(answer);
        if (status != row->status || !contains(detail, row->detail)) {
            fprintf(stderr, "row '%s': %ld %s\n", row->what, status, raw.body ? raw.body : "");
            CU_FAIL("a bad request got another answer");
        }
        sbx_test_http_result_clear(&raw);
        json_object_put(answer);
    }
    free(big);
    CU_ASSERT(ids_are(&d, ""));
    char owners_listing[64] = "";
    char command[600];
    snprintf(command, sizeof command, "ls -A %s | head -c 60", d.owners_dir);
    FILE *ls = popen(command, "r");
    if (ls != NULL) {
        size_t got = fread(owners_listing, 1, sizeof owners_listing - 1, ls);
        owners_listing[got] = '\0';
        pclose(ls);
    }
    CU_ASSERT_STRING_EQUAL(owners_listing, "");
    CU_ASSERT_EQUAL(provd_local_stop(&d, 0), 0);
}

/* The precondition 409 has the structured detail clients honour. */
static void test_contract_precondition_is_structured(void)
{
    provd_local d;
    if (!provd_local_start(&d, 0, NULL))
        return;
    json_object *answer = NULL;
    CU_ASSERT_EQUAL(
        call(&d, no_key,
             (provd_send){"POST", "/api/sandboxes",
                          "{\"sandbox_id\":\"a1\",\"required_mount_contract_version\":3}"},
             &answer, NULL),
        409);
    CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(answer, JSON_C_TO_STRING_PLAIN),
                           "{\"detail\":{\"code\":\"mount_contract_changed\",\"expected\":3,"
                           "\"actual\":2}}");
    json_object_put(answer);
    CU_ASSERT(ids_are(&d, ""));
    provd_local_stop(&d, 0);
}

/* An unknown member is ignored, as the real provisioner's model does: the
 * protocol forbids none. */
static void test_unknown_members_are_ignored(void)
{
    provd_local d;
    if (!provd_local_start(&d, 0, NULL))
        return;
    CU_ASSERT_EQUAL(
        call(&d, no_key,
             (provd_send){"POST", "/api/sandboxes", "{\"sandbox_id\":\"a1\",\"colour\":\"blue\"}"},
             NULL, NULL),
        200);
    CU_ASSERT(ids_are(&d, "a1"));
    provd_local_stop(&d, 0);
}

/* Every hostile body is a 422 json_invalid that reaches nothing: no
 * sandbox is made, own1 is neither handed over nor changed (a reader that
 * cut "alice\u0000mallory" to alice answered with own1); strict JSON of
 * every form still creates. */
static void test_hostile_bodies_reach_nothing(void)
{
    provd_local d;
    if (!provd_local_start(&d, 1, NULL))
        return;
    CU_ASSERT_EQUAL(call(&d, no_key,
                         (provd_send){"POST", "/api/sandboxes", SBX_TEST_HOSTILE_SETUP_BODY}, NULL,
                         NULL),
                    200);
    for (size_t i = 0; i < sbx_test_hostile_body_count; i++)
        CU_ASSERT(sbx_test_hostile_body_refused(provd_url(d.proc), no_key,
                                                &sbx_test_hostile_bodies[i]));
    CU_ASSERT(ids_are(&d, "own1"));
    json_object *answer = NULL;
    CU_ASSERT_EQUAL(
        call(&d, no_key, (provd_send){"GET", "/api/sandboxes/own1", NULL}, &answer, NULL), 200);
    CU_ASSERT_STRING_EQUAL(string_at(answer, "user_id"), "alice");
    CU_ASSERT_STRING_EQUAL(string_at(answer, "thread_id"), "t1");
    json_object_put(answer);
    CU_ASSERT_EQUAL(call(&d, no_key, (provd_send){"POST", "/api/sandboxes", SBX_TEST_STRICT_BODY},
                         &answer, NULL),
                    200);
    CU_ASSERT_STRING_EQUAL(string_at(answer, "user_id"), "alice");
    json_object_put(answer);
    CU_ASSERT(ids_are(&d, "ok1,own1"));
    provd_local_stop(&d, 0);
}

/* A path id holding %00 (libmicrohttpd's own unescaping cut own1%00zzz to
 * own1) or longer than the router once took (256) is a 422 for get,
 * delete and reconciliation, as the docs say, and reaches nothing. */
static void test_nul_and_long_path_ids_are_422(void)
{
    provd_local d;
    if (!provd_local_start(&d, 0, NULL))
        return;
    CU_ASSERT_EQUAL(call(&d, no_key,
                         (provd_send){"POST", "/api/sandboxes", SBX_TEST_HOSTILE_SETUP_BODY}, NULL,
                         NULL),
                    200);
    char *id257 = repeat('a', 257), *id4000 = repeat('b', 4000);
    const char *const ids[] = {"own1%00zzz", "own1%00", "%00own1", "own1%2500", id257, id4000};
    static const char *const prefixes[] = {"/api/sandboxes/", "/api/reconciliation/sandboxes/"};
    static const char *const methods[] = {"GET", "DELETE"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        for (size_t p = 0; p < 2; p++) {
            for (size_t m = 0; m < (p == 0 ? 2u : 1u); m++) {
                char path[4200];
                snprintf(path, sizeof path, "%s%s", prefixes[p], ids[i]);
                json_object *answer = NULL;
                sbx_test_http_result raw;
                long status = call(&d, no_key, (provd_send){methods[m], path, NULL}, &answer, &raw);
                if (status != 422 || strcmp(detail_of(answer), "string_pattern_mismatch") != 0) {
                    fprintf(stderr, "%s %.80s: %ld %.200s\n", methods[m], path, status,
                            raw.body ? raw.body : "");
                    CU_FAIL("a bad path id got another answer");
                }
                sbx_test_http_result_clear(&raw);
                json_object_put(answer);
            }
        }
    }
    /* the 422 shows the id as written, never the sandbox it was cut to */
    json_object *answer = NULL;
    CU_ASSERT_EQUAL(
        call(&d, no_key, (provd_send){"DELETE", "/api/sandboxes/own1%00zzz", NULL}, &answer, NULL),
        422);
    json_object *detail = NULL;
    CU_ASSERT(json_object_object_get_ex(answer, "detail", &detail));
    CU_ASSERT_STRING_EQUAL(string_at(json_object_array_get_idx(detail, 0), "input"),
                           "own1%00zzz");
    json_object_put(answer);
    free(id257);
    free(id4000);
    CU_ASSERT(ids_are(&d, "own1"));
    CU_ASSERT_EQUAL(call(&d, no_key, (provd_send){"GET", "/api/sandboxes/own1", NULL}, NULL, NULL),
                    200);
    provd_local_stop(&d, 0);
}

/* The capabilities the daemon over `d`'s local backend answers: the
 * reference provisioner's members, then create_fields naming what the
 * backend honours and expires_at (the daemon's own), in the request's
 * order, and its extend route.  Static storage. */
static const char *capabilities_of(const provd_local *d)
{
    static char text[512];
    unsigned fields = provd_local_create_fields(d) | SBX_CREATE_EXPIRY;
    size_t n = (size_t)snprintf(text, sizeof text,
                                "{\"lark_cli_init_image\":false,\"lark_cli_broker_image\":false,"
                                "\"mount_contract_version\":2,\"create_fields\":[");
    const char *comma = "";
    /* Nine names of at most 14 bytes fit the text. */
    for (unsigned bit = 1; bit <= SBX_CREATE_EXPIRY; bit <<= 1) {
        if (!(fields & bit))
            continue;
        n += (size_t)snprintf(text + n, sizeof text - n, "%s\"%s\"", comma,
                              common_create_field_name(bit));
        comma = ",";
    }
    snprintf(text + n, sizeof text - n, "],\"extend\":true}");
    return text;
}

static void expect_answer(const provd_local *d, const char *method, const char *path,
                          const char *body, long status, const char *expected)
{
    sbx_test_http_result raw;
    long got = call(d, no_key, (provd_send){method, path, body}, NULL, &raw);
    CU_ASSERT_EQUAL(got, status);
    if (raw.body == NULL || strcmp(raw.body, expected) != 0) {
        fprintf(stderr, "%s %s: %ld %s\n  expected %s\n", method, path, got,
                raw.body ? raw.body : "(none)", expected);
        CU_FAIL("unexpected answer body");
    }
    sbx_test_http_result_clear(&raw);
}

/* Create, the idempotent repeat, every refusal of another owner, get,
 * list, delete and the absent cases, answer for answer. */
static void test_routes_answer_as_the_protocol_says(void)
{
    provd_local d;
    if (!provd_local_start(&d, 0, NULL))
        return;
    char url[400], created[800];
    const char *alice = "{\"sandbox_id\":\"a1\",\"user_id\":\"alice\",\"thread_id\":\"t1\"}";
    /* Its URL is the daemon's sandbox API: the address, then /s/ and a
     * token nobody can guess, the same in every answer after. */
    json_object *first = NULL;
    CU_ASSERT_EQUAL(call(&d, no_key, (provd_send){"POST", "/api/sandboxes", alice}, &first, NULL),
                    200);
    const char *first_url = string_at(first, "sandbox_url");
    snprintf(url, sizeof url, "%s", first_url != NULL ? first_url : "");
    json_object_put(first);
    size_t base_len = strlen(provd_url(d.proc));
    CU_ASSERT(strncmp(url, provd_url(d.proc), base_len) == 0 &&
              strncmp(url + base_len, "/s/", 3) == 0 && strlen(url + base_len + 3) == 64);
    snprintf(created, sizeof created,
             "{\"sandbox_id\":\"a1\",\"sandbox_url\":\"%s\",\"status\":\"Running\","
             "\"user_id\":\"alice\",\"thread_id\":\"t1\",\"mount_contract_version\":2}", url);
    expect_answer(&d, "GET", "/health", NULL, 200, "{\"status\":\"ok\"}");
    expect_answer(&d, "GET", "/api/capabilities", NULL, 200, capabilities_of(&d));
    expect_answer(&d, "POST", "/api/sandboxes", alice, 200, created);
    expect_answer(&d, "POST", "/api/sandboxes", alice, 200, created);
    expect_answer(&d, "POST", "/api/sandboxes",
                  "{\"sandbox_id\":\"a1\",\"user_id\":\"bob\",\"thread_id\":\"t1\"}", 409,
                  "{\"detail\":\"Existing sandbox 'a1' belongs to another user\"}");
    expect_answer(&d, "POST", "/api/sandboxes",
                  "{\"sandbox_id\":\"a1\",\"user_id\":\"alice\",\"thread_id\":\"t2\"}", 409,
                  "{\"detail\":\"Existing sandbox 'a1' belongs to another thread\"}");
    expect_answer(&d, "POST", "/api/sandboxes",
                  "{\"sandbox_id\":\"a1\",\"user_id\":\"alice\",\"thread_id\":\"t1\","
                  "\"extra_mounts\":[{\"host_path\":\"/.deer-flow/w\","
                  "\"container_path\":\"/mnt/acp-workspace\"}]}",
                  409, "{\"detail\":\"Existing sandbox 'a1' does not match the requested "
                       "mount contract\"}");
    /* a client of contract 0 sends no precondition and checks no echo:
     * still refused */
    expect_answer(&d, "POST", "/api/sandboxes", "{\"sandbox_id\":\"a1\"}", 409,
                  "{\"detail\":\"Existing sandbox 'a1' belongs to another user\"}");
    /* GET adds the incarnation the URL serves (docs/provisiond.md): one
     * id, the same on every GET of this sandbox. */
    json_object *got = NULL;
    CU_ASSERT_EQUAL(call(&d, no_key, (provd_send){"GET", "/api/sandboxes/a1", NULL}, &got, NULL),
                    200);
    const char *incarnation = string_at(got, "incarnation_id");
    CU_ASSERT(incarnation != NULL && incarnation[0] != '\0');
    char fetched[900];
    snprintf(fetched, sizeof fetched, "%.*s,\"incarnation_id\":\"%s\"}",
             (int)strlen(created) - 1, created, incarnation != NULL ? incarnation : "");
    json_object_put(got);
    expect_answer(&d, "GET", "/api/sandboxes/a1", NULL, 200, fetched);
    char listed[800];
    snprintf(listed, sizeof listed,
             "{\"sandboxes\":[{\"sandbox_id\":\"a1\",\"sandbox_url\":\"%s\",\"status\":"
             "\"Running\",\"user_id\":null,\"thread_id\":null,\"mount_contract_version\":null}],"
             "\"count\":1}", url);
    expect_answer(&d, "GET", "/api/sandboxes", NULL, 200, listed);
    /* anonymous: the thread is the sandbox id, as the real one echoes */
    json_object *answer = NULL;
    CU_ASSERT_EQUAL(call(&d, no_key,
                         (provd_send){"POST", "/api/sandboxes", "{\"sandbox_id\":\"a2\"}"}, &answer,
                         NULL),
                    200);
    CU_ASSERT_STRING_EQUAL(string_at(answer, "thread_id"), "a2");
    CU_ASSERT_STRING_EQUAL(string_at(answer, "user_id"), "default");
    json_object_put(answer);
    CU_ASSERT(ids_are(&d, "a1,a2"));
    expect_answer(&d, "DELETE", "/api/sandboxes/a1", NULL, 200,
                  "{\"ok\":true,\"sandbox_id\":\"a1\"}");
    expect_answer(&d, "DELETE", "/api/sandboxes/a1", NULL, 200,
                  "{\"ok\":true,\"sandbox_id\":\"a1\"}");
    expect_answer(&d, "GET", "/api/sandboxes/a1", NULL, 404,
                  "{\"detail\":\"Sandbox 'a1' not found\"}");
    CU_ASSERT(ids_are(&d, "a2"));
    /* a deleted id is free for anyone */
    CU_ASSERT_EQUAL(
        call(&d, no_key,
             (provd_send){"POST", "/api/sandboxes",
                          "{\"sandbox_id\":\"a1\",\"user_id\":\"bob\",\"thread_id\":\"t1\"}"},
             &answer, NULL),
        200);
    CU_ASSERT_STRING_EQUAL(string_at(answer, "user_id"), "bob");
    json_object_put(answer);
    provd_local_stop(&d, 0);
}

/* The reconciliation answer of `id`, parsed (put it). */
static json_object *reconcile(const provd_local *d, const char *id, long *status)
{
    char path[128];
    snprintf(path, sizeof path, "/api/reconciliation/sandboxes/%s", id);
    json_object *answer = NULL;
    *status = call(d, no_key, (provd_send){"GET", path, NULL}, &answer, NULL);
    return answer;
}

/* found with the backend's namespace and incarnation and the owner; absent
 * in the same namespace; a new creation is a new incarnation. */
static void test_reconciliation_found_and_absent(void)
{
    provd_local d;
    if (!provd_local_start(&d, 0, NULL))
        return;
    const char *create = "{\"sandbox_id\":\"r1\",\"user_id\":\"alice\",\"thread_id\":\"t1\"}";
    CU_ASSERT_EQUAL(call(&d, no_key, (provd_send){"POST", "/api/sandboxes", create}, NULL, NULL),
                    200);
    long status = 0;
    json_object *found = reconcile(&d, "r1", &status);
    CU_ASSERT_EQUAL(status, 200);
    CU_ASSERT_STRING_EQUAL(string_at(found, "status"), "found");
    CU_ASSERT_STRING_EQUAL(string_at(found, "user_id"), "alice");
    CU_ASSERT_STRING_EQUAL(string_at(found, "thread_id"), "t1");
    CU_ASSERT(contains(string_at(found, "sandbox_url"), "/s/"));
    const char *ns = string_at(found, "backend_namespace");
    const char *incarnation = string_at(found, "incarnation_id");
    CU_ASSERT_PTR_NOT_NULL(ns);
    CU_ASSERT_PTR_NOT_NULL(incarnation);
    CU_ASSERT_EQUAL(call(&d, no_key, (provd_send){"DELETE", "/api/sandboxes/r1", NULL}, NULL, NULL),
                    200);
    json_object *absent = reconcile(&d, "r1", &status);
    CU_ASSERT_EQUAL(status, 200);
    char expected[400];
    snprintf(expected, sizeof expected,
             "{\"sandbox_id\":\"r1\",\"status\":\"absent\",\"backend_namespace\":\"%s\","
             "\"incarnation_id\":null,\"sandbox_url\":null,\"user_id\":null,\"thread_id\":null,"
             "\"mount_contract_version\":null}", ns != NULL ? ns : "");
    CU_ASSERT_STRING_EQUAL(json_object_to_json_string_ext(absent, JSON_C_TO_STRING_PLAIN |
                                                                      JSON_C_TO_STRING_NOSLASHESCAPE),
                           expected);
    json_object_put(absent);
    CU_ASSERT_EQUAL(call(&d, no_key, (provd_send){"POST", "/api/sandboxes", create}, NULL, NULL),
                    200);
    json_object *again = reconcile(&d, "r1", &status);
    CU_ASSERT_STRING_EQUAL(string_at(again, "backend_namespace"), ns);
    const char *new_incarnation = string_at(again, "incarnation_id");
    CU_ASSERT(incarnation != NULL && new_incarnation != NULL &&
              strcmp(new_incarnation, incarnation) != 0);
    json_object_put(again);
    json_object_put(found);
    provd_local_stop(&d, 0);
}

/* With --state-dir the owners survive a restart; without, a sandbox the
 * daemon has no record of is unverifiable (409), never handed over. */
static void test_ownership_across_restarts(void)
{
    provd_local d;
    if (!provd_local_start(&d, 1, NULL))
        return;
    const char *alice = "{\"sandbox_id\":\"o1\",\"user_id\":\"alice\",\"thread_id\":\"t1\"}";
    const char *bob = "{\"sandbox_id\":\"o1\",\"user_id\":\"bob\",\"thread_id\":\"t1\"}";
    CU_ASSERT_EQUAL(call(&d, no_key, (provd_send){"POST", "/api/sandboxes", alice}, NULL, NULL),
                    200);
    CU_ASSERT_EQUAL(provd_local_stop(&d, 1), 0);
    CU_ASSERT(ids_are(&d, "o1"));          /* sandboxes outlive the daemon */
    if (!provd_local_restart(&d, 1, NULL)) {
        provd_local_stop(&d, 0);
        return;
    }
    CU_ASSERT_EQUAL(call(&d, no_key, (provd_send){"POST", "/api/sandboxes", alice}, NULL, NULL),
                    200);
    expect_answer(&d, "POST", "/api/sandboxes", bob, 409,
                  "{\"detail\":\"Existing sandbox 'o1' belongs to another user\"}");
    CU_ASSERT_EQUAL(provd_local_stop(&d, 1), 0);
    if (!provd_local_restart(&d, 0, NULL)) {
        provd_local_stop(&d, 0);
        return;
    }
    const char *unverifiable = "{\"detail\":\"Existing sandbox 'o1' has no verifiable Pod "
                               "contract\"}";
    expect_answer(&d, "POST", "/api/sandboxes", alice, 409, unverifiable);
    expect_answer(&d, "GET", "/api/sandboxes/o1", NULL, 409, unverifiable);
    expect_answer(&d, "GET", "/api/reconciliation/sandboxes/o1", NULL, 409, unverifiable);
    CU_ASSERT(ids_are(&d, "o1"));
    provd_local_stop(&d, 0);
}

/* A docker backend whose engine cannot be reached: every route that needs
 * the engine answers a 5xx naming the cause, never a 404 (which would make
 * a client forget a live sandbox); reconciliation is unknown (503). */
static void test_unreachable_engine_is_5xx(void)
{
    provd_local d;
    if (!provd_local_start(&d, 0, NULL))
        return;
    provd_stop(d.proc);
    char socket_setting[400];
    snprintf(socket_setting, sizeof socket_setting, "socket=%s/no-engine.sock", d.dir);
    const char *args[] = {"--listen", "127.0.0.1:0", "--backend", "docker", "--set",
                          socket_setting, "--set", "image=busybox", NULL};
    d.proc = provd_start(args, d.stderr_path);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d.proc);
    static const struct { const char *method, *path, *body; long status; } rows[] = {
        {"GET", "/api/sandboxes/e1", NULL, 503},
        {"GET", "/api/sandboxes", NULL, 503},
        {"POST", "/api/sandboxes", "{\"sandbox_id\":\"e1\"}", 503},
        {"DELETE", "/api/sandboxes/e1", NULL, 503},
        {"GET", "/api/reconciliation/sandboxes/e1", NULL, 503},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        json_object *answer = NULL;
        long status = call(&d, no_key, (provd_send){rows[i].method, rows[i].path, rows[i].body},
                           &answer, NULL);
        if (status != rows[i].status || detail_of(answer)[0] == '\0') {
            fprintf(stderr, "%s %s: %ld %s\n", rows[i].method, rows[i].path, status,
                    json_object_to_json_string(answer));
            CU_FAIL("an unreachable engine must answer a 5xx with a detail");
        }
        if (i < 4)
            CU_ASSERT(contains(detail_of(answer), "transport"));
        json_object_put(answer);
    }
    provd_local_stop(&d, 0);
}

/* Options it refuses to start with: exit 2 and a line saying why. */
static void test_refuses_bad_options(void)
{
    static const struct { const char *args[6]; const char *says; } rows[] = {
        {{"--listen", "0.0.0.0:0", NULL}, "needs an API key"},
        {{"--listen", "[::]:0", NULL}, "needs an API key"},
        {{"--listen", "localhost:8002", NULL}, "numeric IPv4 or IPv6"},
        {{"--listen", "127.0.0.1", NULL}, "ADDR:PORT"},
        {{"--listen", "127.0.0.1:70000", NULL}, "port"},
        {{"--tls-cert", "x.pem", NULL}, "go together"},
        {{"--threads", "0", NULL}, "--threads"},
        {{"--max-body-bytes", "12", NULL}, "--max-body-bytes"},
        {{"--mount-base", "relative", NULL}, "absolute"},
        {{"--set", "novalue", NULL}, "KEY=VALUE"},
        {{"stray", NULL}, "unexpected argument"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char output[2048];
        int status = provd_run_refused(rows[i].args, output, sizeof output);
        if (status != 2 || !contains(output, rows[i].says)) {
            fprintf(stderr, "%s: exit %d: %s\n", rows[i].args[0], status, output);
            CU_FAIL("a bad option was not refused with exit 2 and a reason");
        }
    }
    /* a backend option the backend does not know: exit 1 naming it */
    char output[2048];
    const char *args[] = {"--backend", "local", "--set", "colour=blue", NULL};
    CU_ASSERT_EQUAL(provd_run_refused(args, output, sizeof output), 1);
    CU_ASSERT(contains(output, "colour"));
}

/* SIGTERM and SIGINT: exit 0, and the sandboxes keep running. */
static void expect_clean_stop(int signal_number)
{
    provd_local d;
    if (!provd_local_start(&d, 0, NULL))
        return;
    CU_ASSERT_EQUAL(call(&d, no_key,
                         (provd_send){"POST", "/api/sandboxes", "{\"sandbox_id\":\"s1\"}"}, NULL,
                         NULL),
                    200);
    CU_ASSERT_EQUAL(provd_stop_with(d.proc, signal_number), 0);
    d.proc = NULL;
    CU_ASSERT(ids_are(&d, "s1"));
    provd_local_stop(&d, 0);
}

static void test_sigterm_exits_0_leaving_sandboxes(void)
{
    expect_clean_stop(SIGTERM);
}

static void test_sigint_exits_0_leaving_sandboxes(void)
{
    expect_clean_stop(SIGINT);
}

/* A stand-in Docker engine on a unix socket: answers every request "no
 * such container", except that the first waits until the test releases
 * it, so that a request is in flight in the daemon at a moment the test
 * chooses. */
typedef struct held_engine {
    int listener;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    int first_arrived;
    int released;
} held_engine;

#define ENGINE_404 "{\"message\":\"No such container: sbx-h1\"}"

/* Read one request's head from `fd` into `request` (`size` bytes). */
static void engine_read(int fd, char *request, size_t size)
{
    size_t len = 0;
    request[0] = '\0';
    long deadline = sbx_test_now_ms() + TIMEOUT_MS;
    while (len + 1 < size && sbx_test_wait_readable(fd, deadline) == 1) {
        ssize_t got = read(fd, request + len, size - 1 - len);
        if (got <= 0)
            break;
        len += (size_t)got;
        request[len] = '\0';
        if (strstr(request, "\r\n\r\n") != NULL)
            break;
    }
}

static void engine_answer(int fd, const char *status, const char *body)
{
    char answer[256];
    int n = snprintf(answer, sizeof answer,
                     "HTTP/1.1 %s\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\nConnection: close\r\n\r\n%s",
                     status, strlen(body), body);
    if (write(fd, answer, (size_t)n) != n)
        fprintf(stderr, "engine: short write\n");
}

/* The engine: its version at once (a record names the engine), and the
 * first request about a container held until the test releases it. */
static void *engine_main(void *arg)
{
    held_engine *e = arg;
    for (;;) {
        int fd = accept(e->listener, NULL, NULL);
        if (fd < 0)
            return NULL;     /* the test shut the listener */
        char request[4096];
        engine_read(fd, request, sizeof request);
        if (strncmp(request, "GET /version", 12) == 0 || strstr(request, "/version ") != NULL) {
            engine_answer(fd, "200 OK", "{\"Version\":\"99.0\"}");
            close(fd);
            continue;
        }
        pthread_mutex_lock(&e->lock);
        int first = !e->first_arrived;
        e->first_arrived = 1;
        pthread_cond_broadcast(&e->changed);
        struct timespec until = sbx_test_deadline_in(TIMEOUT_MS);
        while (first && !e->released &&
               pthread_cond_timedwait(&e->changed, &e->lock, &until) == 0) {
        }
        pthread_mutex_unlock(&e->lock);
        engine_answer(fd, "404 Not Found", ENGINE_404);
        close(fd);
    }
}

typedef struct client_call {
    const provd_local *d;
    long status;
    json_object *answer;
} client_call;

static void *client_main(void *arg)
{
    client_call *c = arg;
    c->status =
        call(c->d, no_key, (provd_send){"GET", "/api/sandboxes/h1", NULL}, &c->answer, NULL);
    return NULL;
}

/* SIGTERM while a request waits on the engine: the daemon stops accepting,
 * answers that request when the engine does, then exits 0. */
static void test_sigterm_finishes_requests_in_flight(void)
{
    provd_local d;
    if (!provd_local_start(&d, 0, NULL))
        return;
    provd_stop(d.proc);
    held_engine e = {.listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)};
    pthread_mutex_init(&e.lock, NULL);
    pthread_condattr_t monotonic;   /* sbx_test_deadline_in's clock */
    pthread_condattr_init(&monotonic);
    pthread_condattr_setclock(&monotonic, CLOCK_MONOTONIC);
    pthread_cond_init(&e.changed, &monotonic);
    pthread_condattr_destroy(&monotonic);
    struct sockaddr_un addr = {.sun_family = AF_UNIX};
    int path_len = snprintf(addr.sun_path, sizeof addr.sun_path, "%s/engine.sock", d.dir);
    CU_ASSERT_FATAL(path_len > 0 && (size_t)path_len < sizeof addr.sun_path);
    CU_ASSERT_FATAL(bind(e.listener, (struct sockaddr *)&addr, sizeof addr) == 0 &&
                    listen(e.listener, 8) == 0);
    pthread_create(&e.thread, NULL, engine_main, &e);
    char socket_setting[400];
    snprintf(socket_setting, sizeof socket_setting, "socket=%s", addr.sun_path);
    const char *args[] = {"--listen", "127.0.0.1:0", "--backend", "docker", "--set",
                          socket_setting, NULL};
    d.proc = provd_start(args, d.stderr_path);
    CU_ASSERT_PTR_NOT_NULL(d.proc);
    client_call c = {&d, -1, NULL};
    pthread_t client;
    if (d.proc != NULL) {
        pthread_create(&client, NULL, client_main, &c);
        pthread_mutex_lock(&e.lock);
        struct timespec until = sbx_test_deadline_in(TIMEOUT_MS);
        while (!e.first_arrived &&
               pthread_cond_timedwait(&e.changed, &e.lock, &until) == 0) {
        }
        int held = e.first_arrived;
        pthread_mutex_unlock(&e.lock);
        CU_ASSERT(held);
        kill(provd_pid(d.proc), SIGTERM);
        CU_ASSERT(provd_local_stderr_says(&d, TIMEOUT_MS, "no new connections"));
        pthread_mutex_lock(&e.lock);
        e.released = 1;
        pthread_cond_broadcast(&e.changed);
        pthread_mutex_unlock(&e.lock);
        pthread_join(client, NULL);
        CU_ASSERT_EQUAL(c.status, 404);
        CU_ASSERT_STRING_EQUAL(detail_of(c.answer), "Sandbox 'h1' not found");
        json_object_put(c.answer);
        CU_ASSERT_EQUAL(provd_stop(d.proc), 0);
        d.proc = NULL;
    }
    shutdown(e.listener, SHUT_RDWR);
    close(e.listener);
    pthread_join(e.thread, NULL);
    pthread_cond_destroy(&e.changed);
    pthread_mutex_destroy(&e.lock);
    provd_local_stop(&d, 0);
}

void sbx_test_register(void)
{
    static const CU_TestInfo tests[] = {
        {"bad_requests_reach_nothing", test_bad_requests_reach_nothing},
        {"contract_precondition_is_structured", test_contract_precondition_is_structured},
        {"unknown_members_are_ignored", test_unknown_members_are_ignored},
        {"hostile_bodies_reach_nothing", test_hostile_bodies_reach_nothing},
        {"nul_and_long_path_ids_are_422", test_nul_and_long_path_ids_are_422},
        {"routes_answer_as_the_protocol_says", test_routes_answer_as_the_protocol_says},
        {"reconciliation_found_and_absent", test_reconciliation_found_and_absent},
        {"ownership_across_restarts", test_ownership_across_restarts},
        {"unreachable_engine_is_5xx", test_unreachable_engine_is_5xx},
        {"refuses_bad_options", test_refuses_bad_options},
        {"sigterm_exits_0_leaving_sandboxes", test_sigterm_exits_0_leaving_sandboxes},
        {"sigint_exits_0_leaving_sandboxes", test_sigint_exits_0_leaving_sandboxes},
        {"sigterm_finishes_requests_in_flight", test_sigterm_finishes_requests_in_flight},
        CU_TEST_INFO_NULL,
    };
    sbx_test_add_suite("provisiond_requests", NULL, NULL, tests);
}
