/* POST /v1/bash/exec and POST /v1/shell/exec, each as one synchronous
 * backend exec (bash's async_mode starts a process instead: aio_process.h): the command runs by /bin/sh -c in the sandbox in the
 * request's exec_dir, killed at hard_timeout; its output becomes text
 * (U+FFFD for bytes that are not UTF-8) cut in the middle, bash's to
 * max_output_length characters per stream, shell's (stdout and stderr in
 * one, as a terminal shows them) to 30000 when truncate. */
#include <config.h>

#include "common/utf8.h"

#include "tools/aio-api/aio_answers.h"
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
/* What the shell route's truncate keeps (the AIO schema's figure). */
#define SHELL_TRUNCATE_CHARS 30000

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

/* ShellExecRequest.  no_change_timeout and timeout are accepted and
 * change nothing: the answer waits for the command's end or hard_timeout;
 * preserve_symlinks neither (the backend's working directory is kept). */
static const aio_field shell_fields[] = {
    {"id", AIO_FIELD_STRING, 0, 1, NULL},
    {"exec_dir", AIO_FIELD_STRING, 0, 1, NULL},
    {"command", AIO_FIELD_STRING, 1, 0, NULL},
    {"async_mode", AIO_FIELD_BOOLEAN, 0, 0, NULL},
    {"timeout", AIO_FIELD_NUMBER, 0, 1, NULL},
    {"strict", AIO_FIELD_BOOLEAN, 0, 1, NULL},
    {"no_change_timeout", AIO_FIELD_INTEGER, 0, 1, NULL},
    {"hard_timeout", AIO_FIELD_NUMBER, 0, 1, NULL},
    {"preserve_symlinks", AIO_FIELD_BOOLEAN, 0, 1, NULL},
    {"truncate", AIO_FIELD_BOOLEAN, 0, 0, NULL},
};

/* A fresh random id: "PREFIX" then 32 hex digits, in `out` (`size` bytes). */
static void random_id(const char *prefix, char *out, size_t size)
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
    size_t text_len = 0, chars = 0, cut_len = 0;
    char *text = common_utf8_repair(bytes, len, &text_len, &chars);
    char *cut = text != NULL ? aio_text_middle_cut(text, text_len, chars, max, &cut_len) : NULL;
    free(text);
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
        random_id("emu-", session, sizeof session);
    random_id("", command_id, sizeof command_id);
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

/* Parse a route's body; NULL after answering (422, or async_mode when
 * `async_refused`: the shell route's belongs to its sessions, to come). */
static json_object *read_command_body(const aio_call *call, const aio_field *fields,
                                      size_t count, int async_refused, prov_reply *reply)
{
    json_object *body = aio_body_read(call->req->body, call->req->body_len, fields, count, reply);
    if (body != NULL && async_refused && aio_boolean(body, "async_mode", 0)) {
        aio_answer_failed(reply, "async_mode is not supported here: commands run synchronously");
        json_object_put(body);
        return NULL;
    }
    return body;
}

void aio_route_exec(const aio_call *call, prov_reply *reply)
{
    json_object *body = read_command_body(call, exec_fields,
                                          sizeof exec_fields / sizeof exec_fields[0], 0, reply);
    if (body == NULL)
        return;
    sbx_error err;
    sbx_error_clear(&err);
    int failed = 0;
    size_t env_count = 0;
    sbx_env_var *env = env_of(body, &env_count, &failed);
    sbx_exec_request request = SBX_EXEC_REQUEST_INIT;
    request.shell_command = aio_string(body, "command", "");
    request.working_dir = aio_string(body, "exec_dir", NULL);
    request.env = env;
    request.env_count = env_count;
    if (!failed && aio_boolean(body, "async_mode", 0)) {
        aio_process_start(call, body, process_request(call, body, &request), reply);
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

/* The ShellCommandResult of `result`; NULL when memory ran out.  Statuses
 * are the shell's words (BashCommandStatus): a command the timeout
 * stopped is hard_timeout, one a signal ended terminated; exit_code only
 * when completed. */
static json_object *shell_result(json_object *body, const sbx_exec_result *result)
{
    char session[48];
    const char *given = aio_string(body, "id", "");
    if (given[0] == '\0')
        random_id("emu-", session, sizeof session);
    const char *status = result->outcome == SBX_EXEC_EXITED      ? "completed"
                         : result->outcome == SBX_EXEC_TIMED_OUT ? "hard_timeout"
                                                                 : "terminated";
    size_t max_chars = aio_boolean(body, "truncate", 1) ? SHELL_TRUNCATE_CHARS : 0;
    json_object *data = json_object_new_object();
    int built =
        data != NULL &&
        prov_json_add_string(data, "session_id", given[0] != '\0' ? given : session) &&
        prov_json_add_string(data, "command", aio_string(body, "command", "")) &&
        prov_json_add_string(data, "status", status) &&
        prov_json_add(data, "output",
                      output_text(result->stdout_data, result->stdout_length, max_chars));
    if (built && result->outcome == SBX_EXEC_EXITED)
        built = prov_json_add(data, "exit_code", json_object_new_int(result->exit_code));
    return prov_json_built(data, built);
}

void aio_route_shell_exec(const aio_call *call, prov_reply *reply)
{
    json_object *body = read_command_body(call, shell_fields,
                                          sizeof shell_fields / sizeof shell_fields[0], 1, reply);
    if (body == NULL)
        return;
    /* One output, in the order it was written, as a terminal shows it:
     * the command's own text stays on its first line (the shell's line
     * numbers in messages stay right). */
    const char *command = aio_string(body, "command", "");
    size_t len = strlen(command);
    char *merged = prov_malloc(len + sizeof "{ \n} 2>&1");
    sbx_error err;
    sbx_error_clear(&err);
    sbx_exec_result *result = NULL;
    const char *dir = aio_string(body, "exec_dir", NULL);
    sbx_status st = SBX_ERR_INTERNAL;
    if (merged != NULL) {
        memcpy(merged, "{ ", 2);
        memcpy(merged + 2, command, len);
        memcpy(merged + 2 + len, "\n} 2>&1", sizeof "\n} 2>&1");
        sbx_exec_request request = SBX_EXEC_REQUEST_INIT;
        request.shell_command = merged;
        request.working_dir = dir;
        st = run(call, body, request, &result, &err);
        /* Not strict: a working directory that is not there falls back to
         * the session's (the sandbox's), as the shell route documents. */
        if ((st == SBX_ERR_NO_SUCH_PATH || st == SBX_ERR_NOT_A_DIRECTORY) && dir != NULL &&
            !aio_boolean(body, "strict", 0)) {
            request.working_dir = NULL;
            st = run(call, body, request, &result, &err);
        }
    }
    if (merged == NULL)
        prov_reply_out_of_memory(reply);
    else if (st != SBX_OK)
        answer_not_run(st, &err, reply);
    else
        aio_answer_data(reply, shell_result(body, result));
    sbx_backend_free_exec_result(call->backend, result);
    free(merged);
    json_object_put(body);
}
