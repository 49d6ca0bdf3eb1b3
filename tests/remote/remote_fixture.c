/* The tests/remote fixture: an emulator, a remote backend on it, and helpers
 * to script the one and observe the wire of the other. */
#include <config.h>

#include "tests/remote/remote_fixture.h"

#include <CUnit/CUnit.h>
#include <CUnit/TestRun.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/provisiond/provd_process.h"
#include "tests/support/remote_helpers.h"

/* The seed cases that need no emulator control, which therefore also run
 * against sbx-provisiond: a real provisioner at contract 2. */
static const char *const provisiond_cases[] = {
    "whole_lifecycle_at_contract_2",
    "is_alive_false_on_404",
    "discover_not_found_on_404",
};

/* The emulator arguments those cases use, and what the daemon over the
 * local backend is anyway (its sandboxes run; it serves contract 2). */
static const char *const provisiond_given[] = {"--contract", "2", "--initial-status",
                                               "Running"};

/* Bytes enough for any control path this fixture builds. */
#define SBX_RT_PATH_MAX 256

/* HTTP status of a control call that did what was asked. */
static int control_ok(int http_status)
{
    return http_status >= 200 && http_status < 300;
}

static int against_provisiond(void)
{
    const char *value = getenv("SBX_RT_PROVISIOND");
    return value != NULL && value[0] != '\0';
}

/* Whether the running case is one of provisiond_cases. */
static int case_runs_against_provisiond(const char **name)
{
    CU_pTest test = CU_get_current_test();
    *name = test != NULL ? test->pName : "?";
    for (size_t i = 0; i < sizeof provisiond_cases / sizeof provisiond_cases[0]; i++) {
        if (strcmp(*name, provisiond_cases[i]) == 0)
            return 1;
    }
    return 0;
}

/* The daemon's arguments for `emu_args`: "--api-key K" carries over, the
 * settings it has anyway are dropped, anything else cannot be served.
 * Returns 1 with `args` filled (NULL-terminated, `cap` entries). */
static int provisiond_args(const char *const *emu_args, const char **args, size_t cap)
{
    size_t n = 0;
    for (size_t i = 0; emu_args != NULL && emu_args[i] != NULL; i += 2) {
        const char *value = emu_args[i + 1];
        int given = 0;
        for (size_t g = 0; g + 1 < sizeof provisiond_given / sizeof provisiond_given[0]; g += 2)
            given |= value != NULL && strcmp(emu_args[i], provisiond_given[g]) == 0 &&
                     strcmp(value, provisiond_given[g + 1]) == 0;
        if (value != NULL && strcmp(emu_args[i], "--api-key") == 0 && n + 2 < cap) {
            args[n++] = emu_args[i];
            args[n++] = value;
        } else if (!given) {
            fprintf(stderr, "sbx-provisiond cannot be started as the emulator with %s\n",
                    emu_args[i]);
            return 0;
        }
    }
    args[n] = NULL;
    return 1;
}

/* sbx_rt_start_emulator in place of the emulator: the daemon over the
 * local backend in a private directory, or a skipped case. */
static int start_provisiond(sbx_rt *rt, const char *const *emu_args)
{
    const char *name = NULL;
    if (!case_runs_against_provisiond(&name)) {
        printf("(skipped against sbx-provisiond: %s scripts the emulator) ", name);
        return 0;
    }
    printf("(against sbx-provisiond) ");
    const char *args[16];
    if (!provisiond_args(emu_args, args, sizeof args / sizeof args[0])) {
        CU_FAIL("emulator arguments sbx-provisiond cannot serve");
        return 0;
    }
    rt->provd = calloc(1, sizeof *rt->provd);
    CU_ASSERT_PTR_NOT_NULL(rt->provd);
    if (rt->provd == NULL || !provd_local_start(rt->provd, 1, args)) {
        free(rt->provd);
        rt->provd = NULL;
        return 0;
    }
    return 1;
}

int sbx_rt_start_emulator(sbx_rt *rt, const char *const *emu_args)
{
    memset(rt, 0, sizeof(*rt));
    if (against_provisiond()) {
        if (!start_provisiond(rt, emu_args))
            return 0;
    } else {
        rt->emu = sbx_test_emu_start(emu_args);
        CU_ASSERT_PTR_NOT_NULL(rt->emu);
        if (rt->emu == NULL)
            return 0;
    }
    rt->log = sbx_test_log_capture_new();
    CU_ASSERT_PTR_NOT_NULL(rt->log);
    if (rt->log == NULL) {
        sbx_rt_stop(rt);
        return 0;
    }
    return 1;
}

sbx_status sbx_rt_open(sbx_rt *rt, const char *api_key, const sbx_option *extra,
                       size_t n_extra, sbx_error *err)
{
    sbx_error_clear(err);
    if (rt->host == NULL)
        rt->host = sbx_test_host_new(rt->log);
    if (rt->host == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "no host");
    const char *url = rt->provd != NULL ? provd_url(rt->provd->proc) : sbx_test_emu_url(rt->emu);
    rt->backend = sbx_test_open_remote(&rt->host, url, api_key,
                                       extra, n_extra, err);
    if (rt->backend != NULL)
        return SBX_OK;
    /* an open that fails must say why; INTERNAL marks one that did not */
    return err->kind != SBX_OK ? err->kind : SBX_ERR_INTERNAL;
}

int sbx_rt_start(sbx_rt *rt, const char *const *emu_args, const char *api_key,
                 const sbx_option *extra, size_t n_extra)
{
    if (!sbx_rt_start_emulator(rt, emu_args))
        return 0;
    sbx_error err;
    if (sbx_rt_open(rt, api_key, extra, n_extra, &err) != SBX_OK) {
        CU_FAIL("the remote backend did not open on the emulator");
        fprintf(stderr, "open remote: %s: %s\n", sbx_status_name(err.kind), err.message);
        sbx_rt_stop(rt);
        return 0;
    }
    return 1;
}

void sbx_rt_stop(sbx_rt *rt)
{
    sbx_backend_close(rt->backend);
    rt->backend = NULL;
    sbx_host_free(rt->host);
    rt->host = NULL;
    sbx_test_emu_stop(rt->emu);
    rt->emu = NULL;
    if (rt->provd != NULL) {
        CU_ASSERT_EQUAL(provd_local_stop(rt->provd, 0), 0);
        free(rt->provd);
        rt->provd = NULL;
    }
    sbx_test_log_capture_free(rt->log);
    rt->log = NULL;
}

/* POST /_emu/faults with `fault` (consumed). */
static int post_fault(sbx_rt *rt, json_object *fault)
{
    int ok = control_ok(sbx_test_emu_fault(rt->emu, json_object_to_json_string(fault)));
    json_object_put(fault);
    CU_ASSERT(ok);
    return ok;
}

int sbx_rt_respond(sbx_rt *rt, const char *route, int status, const char *body,
                   const char *content_type, int times)
{
    json_object *fault = json_object_new_object();
    json_object_object_add(fault, "route", json_object_new_string(route));
    json_object_object_add(fault, "action", json_object_new_string("respond"));
    json_object_object_add(fault, "status", json_object_new_int(status));
    json_object_object_add(fault, "body", json_object_new_string(body));
    if (content_type != NULL)
        json_object_object_add(fault, "content_type", json_object_new_string(content_type));
    json_object_object_add(fault, "times", json_object_new_int(times));
    return post_fault(rt, fault);
}

int sbx_rt_fault(sbx_rt *rt, const char *route, const char *action, int times)
{
    json_object *fault = json_object_new_object();
    json_object_object_add(fault, "route", json_object_new_string(route));
    json_object_object_add(fault, "action", json_object_new_string(action));
    json_object_object_add(fault, "times", json_object_new_int(times));
    return post_fault(rt, fault);
}

/* A control call whose answer body is not needed. */
static int control(sbx_rt *rt, const char *method, const char *path, const char *body)
{
    int ok = control_ok(sbx_test_emu_control(rt->emu, method, path, body, NULL));
    CU_ASSERT(ok);
    return ok;
}

int sbx_rt_set_contract(sbx_rt *rt, int version)
{
    char body[64];
    snprintf(body, sizeof(body), "{\"version\":%d}", version);
    return control(rt, "PUT", "/_emu/contract", body);
}

int sbx_rt_put_sandbox(sbx_rt *rt, const char *sandbox_id, const char *sandbox_json)
{
    char path[SBX_RT_PATH_MAX];
    snprintf(path, sizeof(path), "/_emu/sandboxes/%s", sandbox_id);
    return control(rt, "PUT", path, sandbox_json);
}

int sbx_rt_release(sbx_rt *rt, const char *route)
{
    char body[96];
    snprintf(body, sizeof(body), "{\"route\":\"%s\"}", route);
    return control(rt, "POST", "/_emu/release", body);
}

/* The array of logged requests inside `log` (borrowed from it), or NULL. */
static json_object *request_array(json_object *log)
{
    json_object *requests = NULL;
    if (log == NULL || !json_object_object_get_ex(log, "requests", &requests) ||
        !json_object_is_type(requests, json_type_array))
        return NULL;
    return requests;
}

/* The string field `key` of `obj`, or NULL when absent or not a string. */
static const char *string_field(json_object *obj, const char *key)
{
    json_object *value = NULL;
    if (!json_object_object_get_ex(obj, key, &value) ||
        !json_object_is_type(value, json_type_string))
        return NULL;
    return json_object_get_string(value);
}

/* Whether logged request `req` has `method` (NULL: any) and `path`. */
static int request_matches(json_object *req, const char *method, const char *path)
{
    if (method != NULL && !sbx_rt_str_eq(string_field(req, "method"), method))
        return 0;
    return path == NULL || sbx_rt_str_eq(string_field(req, "path"), path);
}

int sbx_rt_count_requests(sbx_rt *rt, const char *method, const char *path)
{
    json_object *log = sbx_test_emu_requests(rt->emu);
    json_object *requests = request_array(log);
    CU_ASSERT_PTR_NOT_NULL(requests);
    int count = 0;
    size_t n = requests != NULL ? json_object_array_length(requests) : 0;
    for (size_t i = 0; i < n; i++)
        count += request_matches(json_object_array_get_idx(requests, i), method, path);
    json_object_put(log);
    return count;
}

int sbx_rt_total_requests(sbx_rt *rt)
{
    return sbx_rt_count_requests(rt, NULL, NULL);
}

json_object *sbx_rt_last_request(sbx_rt *rt, const char *method, const char *path)
{
    json_object *log = sbx_test_emu_requests(rt->emu);
    json_object *requests = request_array(log);
    CU_ASSERT_PTR_NOT_NULL(requests);
    json_object *found = NULL;
    for (size_t i = requests != NULL ? json_object_array_length(requests) : 0; i > 0; i--) {
        json_object *req = json_object_array_get_idx(requests, i - 1);
        if (request_matches(req, method, path)) {
            found = json_object_get(req);
            break;
        }
    }
    json_object_put(log);
    return found;
}

json_object *sbx_rt_last_create_body(sbx_rt *rt)
{
    json_object *req = sbx_rt_last_request(rt, "POST", "/api/sandboxes");
    if (req == NULL)
        return NULL;
    const char *text = string_field(req, "body");
    json_object *body = text != NULL ? json_tokener_parse(text) : NULL;
    json_object_put(req);
    return body;
}

int sbx_rt_contract(sbx_rt *rt)
{
    sbx_capabilities caps = { SBX_CONTRACT_NONE, 0 };
    sbx_error err;
    if (sbx_backend_capabilities(rt->backend, &caps, &err) != SBX_OK)
        return -3;
    return caps.known ? caps.mount_contract_version : -2;
}

int sbx_rt_capabilities_call_probes(sbx_rt *rt)
{
    int before = sbx_test_emu_received(rt->emu, "capabilities");
    (void)sbx_rt_contract(rt);
    return sbx_test_emu_received(rt->emu, "capabilities") > before;
}

void sbx_rt_expect_reprobe_after_create(sbx_rt *rt, int frozen, int now)
{
    json_object *body = sbx_rt_last_create_body(rt);
    CU_ASSERT(sbx_rt_json_int_is(body, "required_mount_contract_version", frozen));
    json_object_put(body);
    CU_ASSERT(sbx_rt_capabilities_call_probes(rt));
    CU_ASSERT_EQUAL(sbx_rt_contract(rt), now);
}

sbx_create_request sbx_rt_create_request(const char *sandbox_id, const char *thread_id,
                                         const char *user_id)
{
    sbx_create_request request = SBX_CREATE_REQUEST_INIT;
    request.sandbox_id = sandbox_id;
    request.thread_id = thread_id;
    request.user_id = user_id;
    return request;
}

sbx_sandbox *sbx_rt_create_ok(sbx_rt *rt, const sbx_create_request *request, sbx_error *err)
{
    sbx_sandbox *sandbox = NULL;
    CU_ASSERT_EQUAL(sbx_backend_create(rt->backend, request, &sandbox, err), SBX_OK);
    CU_ASSERT_PTR_NOT_NULL(sandbox);
    return sandbox;
}

sbx_status sbx_rt_create_discarding(sbx_rt *rt, const sbx_create_request *request,
                                    sbx_error *err)
{
    sbx_sandbox *sandbox = NULL;
    sbx_status status = sbx_backend_create(rt->backend, request, &sandbox, err);
    if (status == SBX_OK)
        sbx_backend_free_sandboxes(rt->backend, sandbox, 1);
    return status;
}

int sbx_rt_str_eq(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return a == b;
    return strcmp(a, b) == 0;
}

int sbx_rt_contains(const char *haystack, const char *needle)
{
    return haystack != NULL && strstr(haystack, needle) != NULL;
}

int sbx_rt_json_string_is(json_object *obj, const char *key, const char *expected)
{
    json_object *value = NULL;
    if (obj == NULL || !json_object_object_get_ex(obj, key, &value))
        return 0;
    if (expected == NULL)
        return value == NULL;       /* json-c represents JSON null as NULL */
    return json_object_is_type(value, json_type_string) &&
           strcmp(json_object_get_string(value), expected) == 0;
}

int sbx_rt_json_bool_is(json_object *obj, const char *key, int expected)
{
    json_object *value = NULL;
    if (obj == NULL || !json_object_object_get_ex(obj, key, &value) ||
        !json_object_is_type(value, json_type_boolean))
        return 0;
    return !json_object_get_boolean(value) == !expected;
}

int sbx_rt_json_int_is(json_object *obj, const char *key, int expected)
{
    json_object *value = NULL;
    if (obj == NULL || !json_object_object_get_ex(obj, key, &value) ||
        !json_object_is_type(value, json_type_int))
        return 0;
    return json_object_get_int64(value) == expected;
}

int sbx_rt_json_has(json_object *obj, const char *key)
{
    return obj != NULL && json_object_object_get_ex(obj, key, NULL);
}

int sbx_rt_json_field_count(json_object *obj)
{
    return obj != NULL && json_object_is_type(obj, json_type_object)
               ? json_object_object_length(obj) : -1;
}
