/* POST /v1/bash/exec as one synchronous backend exec (async_mode starts a
 * process instead: aio_process.h): the command runs by /bin/sh -c in the
 * sandbox in the request's exec_dir, killed at hard_timeout; its output
 * becomes text (U+FFFD for bytes that are not UTF-8) cut in the middle to
 * max_output_length characters per stream.  /v1/shell/exec runs in a
 * session instead (aio_shell.c). */
#include <config.h>

#include "tools/aio-api/aio_answers.h"
#include "tools/aio-api/aio_bash_session.h"
#include "tools/aio-api/aio_body.h"
#include "tools/aio-api/aio_process.h"
#include "tools/aio-api/aio_routes.h"
#include "tools/aio-api/aio_text.h"
#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisioner-common/prov_json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

/* The AIO default of max_output_length. */
#define DEFAULT_MAX_OUTPUT_CHARS 50000

static const aio_field exec_fields[] = {
    {"session_id", AIO_FIELD_STRING, 0, 1, NULL},
    {"command", AIO_FIELD_STRING, 1, 0, NULL},
    {"exec_dir", AIO_FIELD_STRING, 0, 1, NULL},
    {"env", AIO_FIELD_STRING_MAP, 0, 1, NULL},
    {"async_mode", AIO_FIELD_BOOLEAN, 0, 0, NULL},
    {"timeout", AIO_FIELD_NUMBER, 0, 1, NULL},
    {"hard_timeout", AIO_FIELD_NUMBER, 0, 1, NULL},
    {"max_output_length", AIO_FIELD_INTEGER, 0, 0, NULL},
};

void aio_random_id(const char *prefix, char *out, size_t size)
{
    unsigned char b[16] = {0};
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
        static _Atomic unsigned long counter;
        unsigned long n = ++counter;
        memcpy(b, &n, sizeof n < sizeof b ? sizeof n : sizeof b);
    }
    size_t at = (size_t)snprintf(out, size, "%s", prefix);
    for (size_t i = 0; i < sizeof b && at + 2 < size; i++)
        at += (size_t)snprintf(out + at, size - at, "%02x", b[i]);
}

/* The timeout of the backend call: hard_timeout seconds rounded up to
 * milliseconds, none (<= 0 or null) meaning the server's exec timeout,
 * and never beyond the backend's longest. */
static int64_t timeout_ms(json_object *body, int64_t fallback, const sbx_operations_info *info)
{
    json_object *hard = aio_member(body, "hard_timeout");
    double seconds = hard != NULL ? json_object_get_double(hard) : 0.0;
    int64_t longest = info->max_timeout_ms > 0 ? info->max_timeout_ms : INT64_MAX / 2;
    double ms = seconds > 0.0 ? seconds * 1000.0 : (double)fallback;
    if (ms >= (double)longest)
        return longest;
    int64_t whole = (int64_t)ms;
    return (double)whole < ms ? whole + 1 : whole;
}

/* The request's env as an array (NULL when none; *failed when memory ran
 * out).  The strings are the body's. */
static sbx_env_var *env_of(json_object *body, size_t *count, int *failed)
{
    json_object *env = aio_member(body, "env");
    *count = 0;
    *failed = 0;
    size_t n = env != NULL ? (size_t)json_object_object_length(env) : 0;
    if (n == 0)
        return NULL;
    sbx_env_var *vars = prov_malloc(n * sizeof *vars);
    if (vars == NULL) {
        *failed = 1;
        return NULL;
    }
    json_object_object_foreach(env, name, value) {
        vars[*count].name = name;
        vars[*count].value = json_object_get_string(value);
        (*count)++;
    }
    return vars;
}

/* An output stream as the answer's text, cut to `max` characters (0: not
 * cut); NULL when memory ran out. */
static json_object *output_text(const char *bytes, size_t len, size_t max)
{
    size_t cut_len = 0;
    char *cut = aio_text_of_output(bytes, len, max, &cut_len);
    json_object *value = cut != NULL ? json_object_new_string_len(cut, (int)cut_len) : NULL;
    free(cut);
    return value;
}

/* The BashExecResult of `result`; NULL when memory ran out. */
static json_object *exec_result(json_object *body, const sbx_exec_result *result)
{
    char session[48], command_id[48];
    const char *given = aio_string(body, "session_id", "");
    if (given[0] == '\0')
        aio_random_id("emu-", session, sizeof session);
    aio_random_id("", command_id, sizeof command_id);
    json_object *max_member = aio_member(body, "max_output_length");
    int64_t max = max_member != NULL ? json_object_get_int64(max_member)
                                     : DEFAULT_MAX_OUTPUT_CHARS;
    size_t max_chars = max > 0 ? (size_t)max : 0;
    const char *status = result->outcome == SBX_EXEC_EXITED      ? "completed"
                         : result->outcome == SBX_EXEC_TIMED_OUT ? "timed_out"
                                                                 : "killed";
    json_object *data = json_object_new_object();
    int built =
        data != NULL &&
        prov_json_add_string(data, "session_id", given[0] != '\0' ? given : session) &&
        prov_json_add_string(data, "command_id", command_id) &&
        prov_json_add_string(data, "command", aio_string(body, "command", "")) &&
        prov_json_add_string(data, "status", status) &&
        prov_json_add(data, "stdout",
                      output_text(result->stdout_data, result->stdout_length, max_chars)) &&
        prov_json_add(data, "stderr",
                      output_text(result->stderr_data, result->stderr_length, max_chars));
    /* A command a signal ended reports it as Python's returncode does. */
    if (built && result->outcome == SBX_EXEC_EXITED)
        built = prov_json_add(data, "exit_code", json_object_new_int(result->exit_code));
    else if (built && result->outcome == SBX_EXEC_SIGNALED && result->term_signal > 0)
        built = prov_json_add(data, "exit_code", json_object_new_int(-result->term_signal));
    else if (built)
        built = json_object_object_add(data, "exit_code", NULL) == 0;
    built = built &&
            prov_json_add(data, "offset", json_object_new_int64((int64_t)result->stdout_length)) &&
            prov_json_add(data, "stderr_offset",
                          json_object_new_int64((int64_t)result->stderr_length));
    return prov_json_built(data, built);
}

/* Run `request` (its command, working directory and environment set by
 * the route) with the limits the request `body` asks (hard_timeout).
 * Returns the backend's status, *result set on SBX_OK. */
static sbx_status run(const aio_call *call, json_object *body, sbx_exec_request request,
                      sbx_exec_result **result, sbx_error *err)
{
    sbx_operations_info info = {.struct_size = sizeof info};
    sbx_backend_operations_info(call->backend, &info, err);
    request.timeout_ms = timeout_ms(body, call->exec_timeout_ms, &info);
    /* A client that goes away ends its command (and frees its worker). */
    request.cancel_fd = call->req->client_fd;
    /* The backend's default cap per stream: the middle cut then keeps
     * the last characters of what the backend kept. */
    request.max_output_bytes = SBX_EXEC_DEFAULT;
    sbx_error_clear(err);
    return sbx_backend_exec(call->backend, call->sandbox_id, &request, result, err);
}

/* The process request of an async exec: `exec`'s command, directory and
 * environment, killed at hard_timeout (none: it runs until it ends or is
 * killed, as AIO's async commands do). */
static sbx_process_request process_request(const aio_call *call, json_object *body,
                                           const sbx_exec_request *exec)
{
    sbx_process_request request = SBX_PROCESS_REQUEST_INIT;
    request.shell_command = exec->shell_command;
    request.working_dir = exec->working_dir;
    request.env = exec->env;
    request.env_count = exec->env_count;
    json_object *hard = aio_member(body, "hard_timeout");
    if (hard != NULL && json_object_get_double(hard) > 0.0) {
        sbx_operations_info info = {.struct_size = sizeof info};
        sbx_error err;
        sbx_backend_operations_info(call->backend, &info, &err);
        request.timeout_ms = timeout_ms(body, call->exec_timeout_ms, &info);
    }
    return request;
}

/* The answer to a run that did not give a result: 404 when the sandbox is
 * gone, else a failure envelope with the reason. */
static void answer_not_run(sbx_status st, const sbx_error *err, prov_reply *reply)
{
    if (st == SBX_ERR_NOT_FOUND)
        prov_reply_detail(reply, 404, err->message);
    else
        aio_answer_failed(reply, err->message);
}

void aio_route_exec(const aio_call *call, prov_reply *reply)
{
    json_object *body = aio_body_read(call->req->body, call->req->body_len, exec_fields,
                                      sizeof exec_fields / sizeof exec_fields[0], reply);
    if (body == NULL)
        return;
    sbx_error err;
    sbx_error_clear(&err);
    int failed = 0;
    size_t env_count = 0;
    sbx_env_var *env = env_of(body, &env_count, &failed);
    /* A created session: its working directory, its mark on the command. */
    aio_bash_session session;
    int in_session = aio_bash_exec_session(call, body, &session);
    sbx_exec_request request = SBX_EXEC_REQUEST_INIT;
    request.shell_command = aio_string(body, "command", "");
    request.working_dir = in_session ? session.working_dir : aio_string(body, "exec_dir", NULL);
    request.env = env;
    request.env_count = env_count;
    if (!failed && aio_boolean(body, "async_mode", 0)) {
        aio_process_start(call, body, process_request(call, body, &request),
                          in_session ? session.id : NULL, reply);
        free(env);
        json_object_put(body);
        return;
    }
    sbx_exec_result *result = NULL;
    sbx_status st = failed ? SBX_ERR_INTERNAL : run(call, body, request, &result, &err);
    if (failed) {
        prov_reply_out_of_memory(reply);
    } else if (st == SBX_ERR_USAGE && env_count > 0 &&
               strstr(err.message, "environment") != NULL) {
        /* The one request problem the schema cannot state: a name the
         * environment cannot hold. */
        aio_problems problems = {NULL, 0};
        aio_problem(&problems, "value_error", (aio_loc){"body", "env", NULL}, err.message,
                    aio_member(body, "env"));
        aio_problems_answer(&problems, reply);
    } else if (st != SBX_OK) {
        answer_not_run(st, &err, reply);
    } else {
        aio_answer_data(reply, exec_result(body, result));
    }
    sbx_backend_free_exec_result(call->backend, result);
    free(env);
    json_object_put(body);
}

int64_t aio_hard_timeout_ms(const aio_call *call, json_object *body)
{
    sbx_operations_info info = {.struct_size = sizeof info};
    sbx_error err;
    sbx_backend_operations_info(call->backend, &info, &err);
    return timeout_ms(body, call->exec_timeout_ms, &info);
}
