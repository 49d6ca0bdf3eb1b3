/* GET /v1/sandbox: the SandboxResponse (the envelope plus home_dir,
 * workspace, version and detail).  home_dir is the directory the
 * sandbox's commands start in (what `pwd` prints there), and that
 * relative file paths start from: read from the sandbox's record when it
 * names one, else asked of `pwd` once per sandbox incarnation. */
#include <config.h>

#include "tools/aio-api/aio_answers.h"
#include "tools/aio-api/aio_home_cache.h"
#include "tools/aio-api/aio_routes.h"
#include "tools/provisioner-common/prov_json.h"

#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

/* The directory the sandbox's record names on this machine, when the
 * sandbox runs in no container: a local sandbox, whose commands start in
 * that directory (docs/local.md).  Else the one kept for the record's
 * incarnation (a container's working directory is fixed at its creation).
 * 0 when neither is known; *incarnation then the record's (malloc'd, NULL
 * when it names none), to keep what `pwd` prints for. */
static int known_directory(const aio_call *call, char *dir, size_t size, char **incarnation)
{
    *incarnation = NULL;
    sbx_sandbox_record *record = NULL;
    sbx_error err;
    sbx_error_clear(&err);
    if (sbx_backend_discover_record(call->backend, call->sandbox_id, &record, &err) != SBX_OK)
        return 0;
    int known = record != NULL && record->directory != NULL && record->directory[0] == '/' &&
                record->container_id == NULL && strlen(record->directory) < size;
    if (known)
        strcpy(dir, record->directory);
    else if (record != NULL && record->incarnation_id != NULL &&
             !(known = aio_home_cache_find(call->backend, call->sandbox_id,
                                           record->incarnation_id, dir, size)))
        *incarnation = strdup(record->incarnation_id); /* NULL: not kept, asked again */
    sbx_backend_free_records(call->backend, record);
    return known;
}

/* What `pwd` prints in the sandbox, without its newline. */
static sbx_status printed_directory(const aio_call *call, char *dir, size_t size, sbx_error *err)
{
    sbx_exec_request request = SBX_EXEC_REQUEST_INIT;
    request.shell_command = "pwd";
    sbx_exec_result *result = NULL;
    sbx_status st = sbx_backend_exec(call->backend, call->sandbox_id, &request, &result, err);
    if (st != SBX_OK)
        return st;
    size_t n = strcspn(result->stdout_data, "\n");
    int ok = result->outcome == SBX_EXEC_EXITED && result->exit_code == 0 && n > 0 && n < size;
    if (ok) {
        memcpy(dir, result->stdout_data, n);
        dir[n] = '\0';
    }
    sbx_backend_free_exec_result(call->backend, result);
    return ok ? SBX_OK
              : sbx_error_set(err, SBX_ERR_INTERNAL, "'pwd' did not print the sandbox's directory");
}

sbx_status aio_sandbox_working_dir(const aio_call *call, char *dir, size_t size, sbx_error *err)
{
    /* The record is a file read (local) where `pwd` is a process started
     * in the sandbox: 40 times the cost of a small file call. */
    char *incarnation = NULL;
    if (known_directory(call, dir, size, &incarnation))
        return SBX_OK;
    sbx_status st = printed_directory(call, dir, size, err);
    if (st == SBX_OK && incarnation != NULL)
        aio_home_cache_keep(call->backend, call->sandbox_id, incarnation, dir);
    free(incarnation);
    return st;
}

/* SystemEnv: this machine's, as the sandbox's commands run on it. */
static json_object *system_env(const char *home)
{
    struct utsname u;
    if (uname(&u) != 0)
        memset(&u, 0, sizeof u);
    json_object *system = json_object_new_object();
    int built = system != NULL && prov_json_add_string(system, "os", "linux") &&
                prov_json_add_string(system, "os_version", u.release) &&
                prov_json_add_string(system, "arch", u.machine) &&
                prov_json_add_string(system, "user", "sandbox") &&
                prov_json_add_string(system, "home_dir", home) &&
                prov_json_add_string(system, "workspace", home) &&
                prov_json_add_string(system, "timezone", "UTC") &&
                prov_json_add(system, "occupied_ports", json_object_new_array());
    return prov_json_built(system, built);
}

/* SandboxDetail: the system, and no runtimes or tools listed. */
static json_object *detail(const char *home)
{
    json_object *detail = json_object_new_object();
    json_object *runtime = json_object_new_object();
    int built = runtime != NULL && prov_json_add(runtime, "python", json_object_new_array()) &&
                prov_json_add(runtime, "nodejs", json_object_new_array());
    runtime = prov_json_built(runtime, built);
    if (detail == NULL) {
        json_object_put(runtime);
        return NULL;
    }
    /* prov_json_add takes "runtime" whether or not it is added */
    built = prov_json_add(detail, "runtime", runtime) &&
            prov_json_add(detail, "system", system_env(home)) &&
            prov_json_add(detail, "utils", json_object_new_array());
    return prov_json_built(detail, built);
}

void aio_route_sandbox(const aio_call *call, prov_reply *reply)
{
    char home[4096];
    sbx_error err;
    sbx_error_clear(&err);
    if (aio_sandbox_working_dir(call, home, sizeof home, &err) != SBX_OK) {
        prov_reply_detail(reply, err.kind == SBX_ERR_NOT_FOUND ? 404 : 500, err.message);
        return;
    }
    json_object *answer = json_object_new_object();
    int built = answer != NULL && prov_json_add(answer, "success", json_object_new_boolean(1)) &&
                prov_json_add_string(answer, "message", "Operation successful") &&
                json_object_object_add(answer, "data", NULL) == 0 &&
                json_object_object_add(answer, "hint", NULL) == 0 &&
                prov_json_add_string(answer, "home_dir", home) &&
                prov_json_add_string(answer, "workspace", home) &&
                prov_json_add_string(answer, "version", call->version) &&
                prov_json_add(answer, "detail", detail(home));
    prov_reply_json(reply, 200, prov_json_built(answer, built));
}
