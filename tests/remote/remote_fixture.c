/* The tests/remote fixture: an emulator, a remote backend on it, and helpers
 * to script the one and observe the wire of the other. */
#include <config.h>

#include "tests/remote/remote_fixture.h"

#include <CUnit/CUnit.h>
#include <CUnit/TestRun.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tests/provisiond/provd_process.h"
#include "tests/support/http_probe.h"
#include "tests/support/remote_helpers.h"
#include "tests/support/scratch_dir.h"

/* Which provisioner serves the fixture: the emulator, or sbx-provisiond
 * over the local or the docker backend (SBX_RT_PROVISIOND unset, any
 * other value, "docker"). */
typedef enum served_by { BY_EMULATOR, BY_LOCAL, BY_DOCKER } served_by;

/* The cases that also run against sbx-provisiond, a real provisioner at
 * contract 2, each over the backend it needs (extra mounts need the
 * docker backend: the local one mounts nothing).  Every other case
 * scripts a fault or an answer no real provisioner gives;
 * tests/remote/SEED_MAP.md says why, case by case. */
static const struct {
    const char *name;
    served_by backend;
} provisiond_cases[] = {
    {"list_running_delegates_to_provisioner_list", BY_LOCAL},
    {"list_sends_auth_header_when_api_key_set", BY_LOCAL},
    {"legacy_skills_forwarded_legacy_category", BY_LOCAL},
    {"legacy_skills_forwarded_legacy_string", BY_LOCAL},
    {"legacy_skills_not_forwarded_custom_category", BY_LOCAL},
    {"create_delegates_default_user", BY_LOCAL},
    {"create_delegates_named_user", BY_LOCAL},
    {"create_sends_exact_body_and_returns_sandbox", BY_LOCAL},
    {"create_forwards_supported_extra_mounts", BY_DOCKER},
    {"create_strips_runtime_mount_when_runtime_provisioned", BY_DOCKER},
    {"create_keeps_runtime_mount_without_runtime_provisioning", BY_DOCKER},
    {"create_accepts_anonymous_thread_id", BY_LOCAL},
    {"create_returns_verified_identity", BY_LOCAL},
    {"create_sends_frozen_contract", BY_LOCAL},
    {"destroy_delegates_to_provisioner", BY_LOCAL},
    {"destroy_sends_delete", BY_LOCAL},
    {"is_alive_delegates_to_provisioner", BY_LOCAL},
    {"is_alive_false_on_404", BY_LOCAL},
    {"discover_delegates_to_provisioner", BY_LOCAL},
    {"discover_not_found_on_404", BY_LOCAL},
    {"discover_returns_identity", BY_LOCAL},
    {"whole_lifecycle_at_contract_2", BY_LOCAL},
    {"authoritative_absence", BY_LOCAL},
    {"emulator_found_then_absent", BY_LOCAL},
};

/* The emulator arguments those cases use, and what the daemon is anyway
 * (its sandboxes run; it serves contract 2). */
static const char *const provisiond_given[] = {"--contract", "2", "--initial-status",
                                               "Running"};

/* The daemon's --mount-base under the fixture's directory over docker:
 * the cases' host paths are under /state. */
#define MOUNT_BASE "/state"

/* What the daemon's --verbose line of a request starts with. */
#define PROVD_REQUEST_LINE "sbx-provisiond: "

/* Bytes enough for any control path this fixture builds. */
#define SBX_RT_PATH_MAX 256

/* A request the fixture itself sends to the daemon waits at most this. */
#define SBX_RT_OWN_TIMEOUT_MS 60000

/* HTTP status of a control call that did what was asked. */
static int control_ok(int http_status)
{
    return http_status >= 200 && http_status < 300;
}

static served_by serving(void)
{
    const char *value = getenv("SBX_RT_PROVISIOND");
    if (value == NULL || value[0] == '\0')
        return BY_EMULATOR;
    return strcmp(value, "docker") == 0 ? BY_DOCKER : BY_LOCAL;
}

/* Whether the running case runs over the daemon's backend of this run. */
static int case_runs_against_provisiond(served_by backend, const char **name)
{
    CU_pTest test = CU_get_current_test();
    *name = test != NULL ? test->pName : "?";
    for (size_t i = 0; i < sizeof provisiond_cases / sizeof provisiond_cases[0]; i++) {
        if (strcmp(*name, provisiond_cases[i].name) == 0)
            return provisiond_cases[i].backend == backend;
    }
    return 0;
}

/* The daemon's arguments for `emu_args`: "--verbose" (its request lines
 * are the fixture's request log), "--api-key K" carries over (kept in
 * rt->api_key), the settings it has anyway are dropped, anything else
 * cannot be served.  Returns 1 with `args` filled (NULL-terminated, `cap`
 * entries, two left free). */
static int provisiond_args(sbx_rt *rt, const char *const *emu_args, const char **args,
                           size_t cap)
{
    size_t n = 0;
    args[n++] = "--verbose";
    for (size_t i = 0; emu_args != NULL && emu_args[i] != NULL; i += 2) {
        const char *value = emu_args[i + 1];
        int given = 0;
        for (size_t g = 0; g + 1 < sizeof provisiond_given / sizeof provisiond_given[0]; g += 2)
            given |= value != NULL && strcmp(emu_args[i], provisiond_given[g]) == 0 &&
                     strcmp(value, provisiond_given[g + 1]) == 0;
        if (value != NULL && strcmp(emu_args[i], "--api-key") == 0 && n + 4 < cap) {
            args[n++] = emu_args[i];
            args[n++] = value;
            rt->api_key = value;
        } else if (!given) {
            fprintf(stderr, "sbx-provisiond cannot be started as the emulator with %s\n",
                    emu_args[i]);
            return 0;
        }
    }
    args[n] = NULL;
    return 1;
}

/* Start the daemon over the docker backend on the engine the suite's
 * runner started (SBX_DOCKER_SOCKET, SBX_DOCKER_IMAGE), with its mount
 * base in a private directory of the fixture (sbx_rt_mounts maps the
 * cases' host paths there): `args` has room for two more. */
static int start_docker_provisiond(sbx_rt *rt, const char **args, size_t n)
{
    const char *socket = getenv("SBX_DOCKER_SOCKET");
    const char *image = getenv("SBX_DOCKER_IMAGE");
    if (socket == NULL || image == NULL) {
        CU_FAIL("SBX_RT_PROVISIOND=docker needs SBX_DOCKER_SOCKET and SBX_DOCKER_IMAGE");
        return 0;
    }
    if (sbx_test_scratch_dir(rt->mount_dir, sizeof rt->mount_dir, "rt-mounts") != 0) {
        CU_FAIL("cannot make a temporary directory");
        rt->mount_dir[0] = '\0';
        return 0;
    }
    char base[sizeof rt->mount_dir + 16];
    snprintf(base, sizeof base, "%s" MOUNT_BASE, rt->mount_dir);
    args[n++] = "--mount-base";
    args[n++] = base;
    args[n] = NULL;
    return provd_docker_start(rt->provd, socket, image, args);
}

/* sbx_rt_start_emulator in place of the emulator: the daemon over this
 * run's backend in a private directory, or a skipped case. */
static int start_provisiond(sbx_rt *rt, served_by backend, const char *const *emu_args)
{
    const char *name = NULL;
    if (!case_runs_against_provisiond(backend, &name)) {
        printf("(skipped against sbx-provisiond over %s: see tests/remote/SEED_MAP.md) ",
               backend == BY_DOCKER ? "docker" : "local");
        return 0;
    }
    printf("(against sbx-provisiond over %s) ", backend == BY_DOCKER ? "docker" : "local");
    const char *args[16];
    if (!provisiond_args(rt, emu_args, args, sizeof args / sizeof args[0])) {
        CU_FAIL("emulator arguments sbx-provisiond cannot serve");
        return 0;
    }
    rt->provd = calloc(1, sizeof *rt->provd);
    CU_ASSERT_PTR_NOT_NULL(rt->provd);
    if (rt->provd == NULL)
        return 0;
    size_t n = 0;
    while (args[n] != NULL)
        n++;
    /* provisiond_args leaves room for start_docker_provisiond's two */
    int started = backend == BY_DOCKER ? start_docker_provisiond(rt, args, n)
                                       : provd_local_start(rt->provd, 1, args);
    if (!started) {
        free(rt->provd);
        rt->provd = NULL;
    }
    return started;
}

int sbx_rt_start_emulator(sbx_rt *rt, const char *const *emu_args)
{
    memset(rt, 0, sizeof(*rt));
    served_by by = serving();
    if (by != BY_EMULATOR) {
        if (!start_provisiond(rt, by, emu_args))
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

/* A request of the fixture's own to the daemon (with the key of its
 * --api-key, if any): the HTTP status, or -1 when none came.  The answer's
 * body is kept in *body when `body` is not NULL (the caller frees). */
static long own_request(sbx_rt *rt, const char *method, const char *path, const char *json,
                        char **body)
{
    char url[SBX_RT_PATH_MAX + 64], key_header[SBX_RT_PATH_MAX];
    snprintf(url, sizeof url, "%s%s", provd_url(rt->provd->proc), path);
    snprintf(key_header, sizeof key_header, "X-API-Key: %s",
             rt->api_key != NULL ? rt->api_key : "");
    const char *const headers[] = {key_header, NULL};
    sbx_test_http_result result;
    long status = sbx_test_http(method, url, rt->api_key != NULL ? headers : NULL, json,
                                SBX_RT_OWN_TIMEOUT_MS, &result) == 0 ? result.status : -1;
    if (body != NULL) {
        *body = result.body;
        result.body = NULL;
    }
    sbx_test_http_result_clear(&result);
    return status;
}

/* Containers outlive the daemon: remove every sandbox it lists, so that
 * the next case's daemon (which has no record of them) finds none. */
static void destroy_every_sandbox(sbx_rt *rt)
{
    char *text = NULL;
    CU_ASSERT_EQUAL(own_request(rt, "GET", "/api/sandboxes", NULL, &text), 200);
    json_object *list = text != NULL ? json_tokener_parse(text) : NULL;
    free(text);
    json_object *sandboxes = NULL;
    json_object_object_get_ex(list, "sandboxes", &sandboxes);
    for (size_t i = 0; i < json_object_array_length(sandboxes); i++) {
        json_object *id = NULL;
        json_object_object_get_ex(json_object_array_get_idx(sandboxes, i), "sandbox_id", &id);
        char path[SBX_RT_PATH_MAX];
        snprintf(path, sizeof path, "/api/sandboxes/%s", json_object_get_string(id));
        CU_ASSERT_EQUAL(own_request(rt, "DELETE", path, NULL, NULL), 200);
    }
    json_object_put(list);
}

static void free_mounts(sbx_rt *rt)
{
    for (size_t i = 0; i < rt->mount_count; i++)
        free((char *)rt->mounts[i].host_path);
    free(rt->mounts);
    rt->mounts = NULL;
    rt->mount_count = 0;
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
        if (rt->mount_dir[0] != '\0')
            destroy_every_sandbox(rt);
        CU_ASSERT_EQUAL(provd_local_stop(rt->provd, 0), 0);
        free(rt->provd);
        rt->provd = NULL;
    }
    if (rt->mount_dir[0] != '\0') {
        sbx_test_remove_tree(rt->mount_dir);
        rt->mount_dir[0] = '\0';
    }
    free(rt->url);
    rt->url = NULL;
    free_mounts(rt);
    sbx_test_log_capture_free(rt->log);
    rt->log = NULL;
}

/* Whether the emulator serves the fixture, as a scripting call needs;
 * a CUnit failure when a case that scripts it runs against the daemon. */
static int scripted(sbx_rt *rt)
{
    if (rt->emu == NULL)
        CU_FAIL("a case that scripts the emulator runs against sbx-provisiond");
    return rt->emu != NULL;
}

/* POST /_emu/faults with `fault` (consumed). */
static int post_fault(sbx_rt *rt, json_object *fault)
{
    if (!scripted(rt)) {
        json_object_put(fault);
        return 0;
    }
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
    if (!scripted(rt))
        return 0;
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

/* sbx_rt_put_sandbox against the daemon: a create of its own, at the
 * served contract, for the user and thread that `sandbox_json` names. */
static int provisiond_holds(sbx_rt *rt, const char *sandbox_id, const char *sandbox_json)
{
    json_object *given = json_tokener_parse(sandbox_json);
    json_object *request = json_object_new_object();
    json_object_object_add(request, "sandbox_id", json_object_new_string(sandbox_id));
    static const char *const copied[] = {"user_id", "thread_id"};
    for (size_t i = 0; i < sizeof copied / sizeof copied[0]; i++) {
        json_object *value = NULL;
        if (json_object_object_get_ex(given, copied[i], &value))
            json_object_object_add(request, copied[i], json_object_get(value));
    }
    json_object_object_add(request, "required_mount_contract_version", json_object_new_int(2));
    long status = own_request(rt, "POST", "/api/sandboxes",
                              json_object_to_json_string(request), NULL);
    json_object_put(request);
    json_object_put(given);
    CU_ASSERT_EQUAL(status, 200);
    rt->own_creates += status >= 0;
    return status == 200;
}

int sbx_rt_put_sandbox(sbx_rt *rt, const char *sandbox_id, const char *sandbox_json)
{
    if (rt->provd != NULL)
        return provisiond_holds(rt, sandbox_id, sandbox_json);
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

/* The requests the daemon logged (its --verbose lines "METHOD PATH ->
 * STATUS") with `method` and `path` (NULL: any), the fixture's own
 * creates not counted. */
static int provisiond_count(sbx_rt *rt, const char *method, const char *path)
{
    FILE *f = fopen(rt->provd->stderr_path, "r");
    CU_ASSERT_PTR_NOT_NULL(f);
    if (f == NULL)
        return -1;
    int count = 0, own = 0;
    char line[4096], got_method[16], got_path[2048];
    unsigned status = 0;
    size_t prefix = strlen(PROVD_REQUEST_LINE);
    while (fgets(line, sizeof line, f) != NULL) {
        if (strncmp(line, PROVD_REQUEST_LINE, prefix) != 0 ||
            sscanf(line + prefix, "%15s %2047s -> %u", got_method, got_path, &status) != 3 ||
            got_path[0] != '/')
            continue;
        if ((method == NULL || strcmp(got_method, method) == 0) &&
            (path == NULL || strcmp(got_path, path) == 0))
            count++;
        own += strcmp(got_method, "POST") == 0 && strcmp(got_path, "/api/sandboxes") == 0;
    }
    fclose(f);
    /* The fixture's creates are the daemon's first POSTs of the case. */
    int matches_own = (method == NULL || strcmp(method, "POST") == 0) &&
                      (path == NULL || strcmp(path, "/api/sandboxes") == 0);
    if (matches_own)
        count -= rt->own_creates < own ? rt->own_creates : own;
    /* sbx_rt_url's lookups are logged before it has its answer. */
    if ((method == NULL || strcmp(method, "GET") == 0) &&
        (path == NULL || strcmp(path, rt->own_lookup_path) == 0))
        count -= rt->own_lookups;
    return count;
}

int sbx_rt_count_requests(sbx_rt *rt, const char *method, const char *path)
{
    if (rt->provd != NULL)
        return provisiond_count(rt, method, path);
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
    if (!scripted(rt))
        return NULL;
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

/* Capability probes the provisioner has received. */
static int probes_received(sbx_rt *rt)
{
    return rt->provd != NULL ? provisiond_count(rt, "GET", "/api/capabilities")
                             : sbx_test_emu_received(rt->emu, "capabilities");
}

int sbx_rt_capabilities_call_probes(sbx_rt *rt)
{
    int before = probes_received(rt);
    (void)sbx_rt_contract(rt);
    return probes_received(rt) > before;
}

int sbx_rt_is_emulator(const sbx_rt *rt)
{
    return rt->emu != NULL;
}

const char *sbx_rt_url(sbx_rt *rt, const char *sandbox_id, const char *scripted_url)
{
    if (rt->provd == NULL)
        return scripted_url;
    free(rt->url);
    rt->url = NULL;
    /* Asked of the daemon by a client of our own, not the backend under
     * test: the backend must hand on what the daemon serves unchanged. */
    char path[sizeof rt->own_lookup_path], *text = NULL;
    snprintf(path, sizeof path, "/api/sandboxes/%s", sandbox_id);
    if (strcmp(path, rt->own_lookup_path) != 0) {
        snprintf(rt->own_lookup_path, sizeof rt->own_lookup_path, "%s", path);
        rt->own_lookups = 0;
    }
    long status = own_request(rt, "GET", path, NULL, &text);
    CU_ASSERT_EQUAL(status, 200);
    rt->own_lookups += status >= 0;
    json_object *answer = text != NULL ? json_tokener_parse(text) : NULL;
    free(text);
    const char *url = string_field(answer, "sandbox_url");
    /* The daemon serves each sandbox's API itself, at BASE/s/TOKEN. */
    char base[SBX_RT_PATH_MAX];
    snprintf(base, sizeof base, "%s/s/", provd_url(rt->provd->proc));
    CU_ASSERT(url != NULL && strncmp(url, base, strlen(base)) == 0);
    rt->url = url != NULL ? strdup(url) : NULL;
    json_object_put(answer);
    CU_ASSERT_PTR_NOT_NULL(rt->url);
    return rt->url;
}

const sbx_mount *sbx_rt_mounts(sbx_rt *rt, const sbx_mount *mounts, size_t count)
{
    if (rt->mount_dir[0] == '\0')
        return mounts;
    free_mounts(rt);
    rt->mounts = calloc(count, sizeof *rt->mounts);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rt->mounts);
    for (size_t i = 0; i < count; i++) {
        size_t size = strlen(rt->mount_dir) + strlen(mounts[i].host_path) + 1;
        char *host = malloc(size);
        CU_ASSERT_PTR_NOT_NULL_FATAL(host);
        snprintf(host, size, "%s%s", rt->mount_dir, mounts[i].host_path);
        rt->mounts[i] = mounts[i];
        rt->mounts[i].host_path = host;
        rt->mount_count = i + 1;
        /* the engine binds only what exists */
        for (char *slash = strchr(host + 1, '/'); slash != NULL; slash = strchr(slash + 1, '/')) {
            *slash = '\0';
            mkdir(host, 0755);
            *slash = '/';
        }
        CU_ASSERT(mkdir(host, 0755) == 0);
    }
    return rt->mounts;
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
