/* Live processes over the AIO bash routes (see remote_process.h). */
#include <config.h>

#include "plugin/remote/remote_process.h"

#include "common/exec_request.h"
#include "common/json_fields.h"
#include "common/sandbox_ids.h"
#include "common/utf8.h"
#include "plugin/remote/remote_aio_decode.h"
#include "plugin/remote/remote_aio_text.h"
#include "plugin/remote/remote_decode.h"
#include "plugin/remote/remote_endpoint.h"
#include "plugin/remote/remote_exec.h"
#include "plugin/remote/remote_process_answer.h"
#include "plugin/remote/remote_process_ids.h"

#include <sbx/backend_support.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Time a call's answer may take beyond what the call waits for. */
#define ANSWER_GRACE_MS 30000

/* A process's AIO ids, split from its process id. */
typedef struct wire_ids {
    char session[SBX_PROCESS_ID_MAX + 1];
    char command[SBX_PROCESS_ID_MAX + 1];
} wire_ids;

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The kind of a refused process call: the sandbox's 404 names the
 * session or command it does not know (no such process), or the sandbox
 * (gone), or is a route it lacks (an AIO older than the bash routes); a
 * 400 is a call that does not fit the process. */
static sbx_status refused_kind(const common_http_response *resp, sbx_status fallback)
{
    char detail[64];
    remote_detail_text(resp->body, resp->body_len, detail, sizeof detail);
    if (resp->status == 400)
        return SBX_ERR_USAGE;
    if (resp->status != 404)
        return fallback;
    if (strncmp(detail, "Session ", 8) == 0 || strncmp(detail, "Command ", 8) == 0)
        return SBX_ERR_NO_SUCH_PROCESS;
    return strncmp(detail, "Sandbox not found", 17) == 0 ? SBX_ERR_NOT_FOUND
                                                        : SBX_ERR_UNSUPPORTED;
}

/* One call of the AIO wire. */
typedef struct wire_request {
    const char *method;
    const char *path;
    json_object *body;          /* taken (freed by send); NULL for a GET, else
                                 * memory ran out */
    int64_t wait_ms;            /* how long the server may hold the answer */
} wire_request;

/* Send `rq`, bounded by its wait plus a grace, and read the answer's
 * envelope into *answer (root put by the caller). */
static sbx_status send(remote_endpoint *ep, const wire_request *rq, remote_aio_answer *answer,
                       sbx_error *err)
{
    const char *method = rq->method, *path = rq->path;
    json_object *body = rq->body;
    int64_t wait_ms = rq->wait_ms;
    answer->root = NULL;
    const char *text = body != NULL ? json_object_to_json_string_ext(
                                          body, JSON_C_TO_STRING_PLAIN |
                                                    JSON_C_TO_STRING_NOSLASHESCAPE)
                                    : NULL;
    if (text == NULL && strcmp(method, "GET") != 0) {
        json_object_put(body);
        return remote_endpoint_no_memory(ep, err);
    }
    common_http_response resp;
    common_http_call call = {.method = method, .path = path, .json_body = text,
                             .timeout_ms = (long)(wait_ms + ANSWER_GRACE_MS)};
    sbx_status st = common_http_perform(ep->http, &call, &resp, err);
    json_object_put(body);
    if (st != SBX_OK)
        return remote_endpoint_fail(ep, err);
    if (resp.status != 200) {
        st = remote_endpoint_answer_error(ep, &resp, err);
        err->kind = st = refused_kind(&resp, st);
    } else {
        st = remote_aio_envelope(resp.body, resp.body_len, path, SBX_ERR_PROVISIONER, answer,
                                 err);
        if (st != SBX_OK)
            remote_endpoint_fail(ep, err);
    }
    common_http_response_clear(&resp);
    return st;
}

/* send() of a POST. */
static sbx_status post(remote_endpoint *ep, const char *path, json_object *body,
                       int64_t wait_ms, remote_aio_answer *answer, sbx_error *err)
{
    const wire_request rq = { "POST", path, body, wait_ms };
    return send(ep, &rq, answer, err);
}

/* A new body with the process's session_id and (with_command) command_id:
 * not when it is the session id, so that a server whose sessions are not
 * named after their commands reads the session's command. */
static json_object *ids_body(const wire_ids *ids, int with_command)
{
    json_object *body = json_object_new_object();
    with_command = with_command && strcmp(ids->session, ids->command) != 0;
    if (body != NULL &&
        (json_object_object_add(body, "session_id", json_object_new_string(ids->session)) ||
         (with_command && json_object_object_add(body, "command_id",
                                                 json_object_new_string(ids->command))))) {
        json_object_put(body);
        return NULL;
    }
    return body;
}

/* Add `value` (taken) to `body` as `key`; when either is NULL, put body
 * and return NULL. */
static json_object *with(json_object *body, const char *key, json_object *value)
{
    if (body == NULL || value == NULL || json_object_object_add(body, key, value) != 0) {
        json_object_put(body);
        json_object_put(value);
        return NULL;
    }
    return body;
}

/* The process a call is about, and the call's name for messages. */
typedef struct process_target {
    const char *sandbox_id;
    const char *process_id;
    const char *op;
} process_target;

/* Check the sandbox and process ids of `t` and open the way to the
 * sandbox. */
static sbx_status open_process(sbx_backend_instance *inst, const process_target *t,
                               wire_ids *ids, remote_endpoint *ep, sbx_error *err)
{
    const char *sandbox_id = t->sandbox_id, *process_id = t->process_id, *op = t->op;
    memset(ep, 0, sizeof *ep);
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st != SBX_OK)
        return st;
    if (!remote_process_id_split(process_id, ids->session, ids->command))
        return sbx_backend_error_set(err, SBX_ERR_NO_SUCH_PROCESS,
                                     "%s in sandbox '%s': no process '%s' (not an id this "
                                     "backend made)", op, sandbox_id, process_id);
    return remote_endpoint_open(inst, sandbox_id, op, ep, err);
}

/* A request about one process whose answer is only success: its ids
 * (command_id with `with_command`) and one more member. */
typedef struct process_post {
    const char *op;             /* names the call in messages */
    const char *path;
    int with_command;
    const char *member;
    json_object *value;         /* taken (NULL: memory ran out) */
} process_post;

/* Send `p` about process `process_id` of sandbox `sandbox_id`. */
static sbx_status post_about(sbx_backend_instance *inst, const char *sandbox_id,
                             const char *process_id, const process_post *p, sbx_error *err)
{
    wire_ids ids;
    remote_endpoint ep;
    const process_target target = { sandbox_id, process_id, p->op };
    sbx_status st = open_process(inst, &target, &ids, &ep, err);
    remote_aio_answer answer = {NULL, NULL};
    if (st == SBX_OK)
        st = post(&ep, p->path, with(ids_body(&ids, p->with_command), p->member, p->value), 0,
                  &answer, err);
    else
        json_object_put(p->value);
    json_object_put(answer.root);
    remote_endpoint_close(&ep);
    return st;
}

/* The /v1/bash/exec body of an async start. */
static json_object *start_body(const sbx_process_request *rq, const char *command,
                               const char *dir)
{
    json_object *body = with(json_object_new_object(), "command",
                             json_object_new_string(command));
    if (dir != NULL)
        body = with(body, "exec_dir", json_object_new_string(dir));
    if (rq->env_count > 0) {
        json_object *env = json_object_new_object();
        for (size_t i = 0; env != NULL && i < rq->env_count; i++)
            env = with(env, rq->env[i].name, json_object_new_string(rq->env[i].value));
        body = with(body, "env", env);
    }
    if (rq->timeout_ms > 0)
        body = with(body, "hard_timeout", json_object_new_double((double)rq->timeout_ms / 1000));
    return with(body, "async_mode", json_object_new_boolean(1));
}

/* What the wire cannot do of a start request. */
static sbx_status check_start(const sbx_process_request *rq, const char *sandbox_id,
                              sbx_error *err)
{
    sbx_exec_request as_exec = SBX_EXEC_REQUEST_INIT;
    as_exec.argv = rq->argv;
    as_exec.shell_command = rq->shell_command;
    as_exec.env = rq->env;
    as_exec.env_count = rq->env_count;
    as_exec.timeout_ms = rq->timeout_ms;
    sbx_status st = common_exec_request_check(&as_exec, sandbox_id, REMOTE_EXEC_MAX_TIMEOUT_MS,
                                              0, err);
    if (st == SBX_OK && rq->pty)
        st = sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED,
                                   "process start in sandbox '%s': the AIO API carries no "
                                   "terminal (no /v1/bash or /v1/shell request has a pty, "
                                   "rows, columns or resize)", sandbox_id);
    if (st == SBX_OK && rq->buffer_bytes != SBX_PROCESS_DEFAULT)
        st = sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED,
                                   "process start in sandbox '%s': the AIO sandbox keeps its "
                                   "own output buffer (buffer_bytes cannot be set)",
                                   sandbox_id);
    if (st == SBX_OK)
        st = remote_check_command_text(rq->argv, rq->shell_command, rq->env, rq->env_count,
                                       sandbox_id, err);
    return st;
}

/* The info of an async exec's answer `data`. */
static sbx_status started_info(json_object *data, sbx_process_info **out, sbx_error *err)
{
    const char *session = NULL, *command = NULL;
    if (common_json_get_string(data, "session_id", &session) != COMMON_JSON_OK ||
        common_json_get_string(data, "command_id", &command) != COMMON_JSON_OK)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "exec answer: session_id or command_id is missing");
    char id[SBX_PROCESS_ID_MAX + 1];
    sbx_status st = remote_process_id_make(session, command, id, err);
    remote_command_state state = remote_command_state_of(data);
    return st == SBX_OK ? remote_process_info_new(id, &state, out, err) : st;
}

sbx_status remote_process_start(sbx_backend_instance *inst, const char *sandbox_id,
                                const sbx_process_request *request, sbx_process_info **out,
                                sbx_error *err)
{
    *out = NULL;
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st == SBX_OK)
        st = check_start(request, sandbox_id, err);
    if (st != SBX_OK)
        return st;
    remote_endpoint ep;
    st = remote_endpoint_open(inst, sandbox_id, "process start", &ep, err);
    if (st != SBX_OK)
        return st;
    char *dir = NULL, *command = NULL, *text = NULL;
    st = remote_endpoint_path(&ep, request->working_dir, 1, &dir, err);
    if (st == SBX_OK) {
        command = remote_command_text(request->argv, request->shell_command);
        size_t len = command != NULL ? strlen(command) : 0;
        text = command != NULL ? malloc(len + sizeof REMOTE_STDIN_CLOSED) : NULL;
        if (text == NULL)
            st = remote_endpoint_no_memory(&ep, err);
        else
            snprintf(text, len + sizeof REMOTE_STDIN_CLOSED, "%s%s", command,
                     request->stdin_open ? "" : REMOTE_STDIN_CLOSED);
    }
    remote_aio_answer answer = {NULL, NULL};
    if (st == SBX_OK)
        st = post(&ep, "/v1/bash/exec", start_body(request, text, dir), 0, &answer, err);
    if (st == SBX_OK && (st = started_info(answer.data, out, err)) != SBX_OK)
        remote_endpoint_fail(&ep, err);
    json_object_put(answer.root);
    free(dir);
    free(command);
    free(text);
    remote_endpoint_close(&ep);
    return st;
}

/* POST /v1/bash/output from `from`, long-polling up to wait_ms. */
static sbx_status output_call(remote_endpoint *ep, const wire_ids *ids, sbx_process_cursor from,
                              int64_t wait_ms, remote_aio_answer *answer, sbx_error *err)
{
    json_object *body = ids_body(ids, 1);
    body = with(body, "offset", json_object_new_int64((int64_t)from.stdout_offset));
    body = with(body, "stderr_offset", json_object_new_int64((int64_t)from.stderr_offset));
    body = with(body, "wait", json_object_new_boolean(wait_ms > 0));
    if (wait_ms > 0)
        body = with(body, "wait_timeout", json_object_new_double((double)wait_ms / 1000));
    return post(ep, "/v1/bash/output", body, wait_ms, answer, err);
}

sbx_status remote_process_read(sbx_backend_instance *inst, const char *sandbox_id,
                               const char *process_id, const sbx_process_read_request *request,
                               sbx_process_output **out, sbx_error *err)
{
    *out = NULL;
    wire_ids ids;
    remote_endpoint ep;
    const process_target target = { sandbox_id, process_id, "process read" };
    sbx_status st = open_process(inst, &target, &ids, &ep, err);
    remote_aio_answer answer = {NULL, NULL};
    if (st == SBX_OK)
        st = output_call(&ep, &ids, request->cursor, request->wait_ms, &answer, err);
    size_t max = request->max_bytes != SBX_PROCESS_DEFAULT ? request->max_bytes
                                                           : REMOTE_PROCESS_READ_BYTES;
    if (st == SBX_OK &&
        (st = remote_process_output_decode(answer.data, request->cursor, max, out, err)) !=
            SBX_OK)
        remote_endpoint_fail(&ep, err);
    json_object_put(answer.root);
    remote_endpoint_close(&ep);
    return st;
}

sbx_status remote_process_write(sbx_backend_instance *inst, const char *sandbox_id,
                                const char *process_id,
                                const sbx_process_write_request *request, sbx_error *err)
{
    if (request->close_stdin)
        return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED,
                                     "process write in sandbox '%s': the AIO API cannot close "
                                     "stdin (/v1/bash/write and /v1/shell/write carry input "
                                     "text only)", sandbox_id);
    if (!common_utf8_is_valid(request->data, request->length))
        return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED,
                                     "process write in sandbox '%s': %zu bytes that are not "
                                     "UTF-8 text, which the AIO API cannot carry", sandbox_id,
                                     request->length);
    json_object *input = json_object_new_string_len(request->length > 0 ? request->data : "",
                                                    (int)request->length);
    const process_post post_input = {"process write", "/v1/bash/write", 1, "input", input};
    return post_about(inst, sandbox_id, process_id, &post_input, err);
}

sbx_status remote_process_signal(sbx_backend_instance *inst, const char *sandbox_id,
                                 const char *process_id, int signal, sbx_error *err)
{
    const char *name = signal == SIGTERM ? "SIGTERM" : signal == SIGKILL ? "SIGKILL"
                       : signal == SIGINT ? "SIGINT" : NULL;
    if (name == NULL)
        return sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED,
                                     "process signal in sandbox '%s': signal %d (the AIO "
                                     "/v1/bash/kill sends only SIGTERM, SIGKILL and SIGINT)",
                                     sandbox_id, signal);
    const process_post kill = {"process signal", "/v1/bash/kill", 0, "signal",
                               json_object_new_string(name)};
    return post_about(inst, sandbox_id, process_id, &kill, err);
}

/* The info of the process `ids` names after waiting up to wait_ms for its
 * end: reads its output from the start once, then long-polls from where
 * that ended until the command ends or the bound passes. */
static sbx_status wait_info(remote_endpoint *ep, const wire_ids *ids, const char *process_id,
                            int64_t wait_ms, sbx_process_info **out, sbx_error *err)
{
    int64_t deadline = now_ms() + wait_ms;
    sbx_process_cursor at = {0, 0};
    for (int first = 1;; first = 0) {
        int64_t left = deadline - now_ms();
        /* The first call only finds where the output ends. */
        int64_t wait = first || left < 0 ? 0 : left;
        remote_aio_answer answer = {NULL, NULL};
        sbx_status st = output_call(ep, ids, at, wait, &answer, err);
        sbx_process_output *output = NULL;
        if (st == SBX_OK)
            st = remote_process_output_decode(answer.data, at, SIZE_MAX, &output, err);
        json_object *command = NULL;
        if (st == SBX_OK)
            json_object_object_get_ex(answer.data, "command", &command);
        remote_command_state state = remote_command_state_of(command);
        int done = st != SBX_OK || output->ended || now_ms() >= deadline;
        if (st == SBX_OK && done) {
            /* A running command's text is its record's; none: still running. */
            if (state.status == NULL)
                state.status = "running";
            st = remote_process_info_new(process_id, &state, out, err);
        }
        if (output != NULL)
            at = output->next;
        remote_process_output_free(output);
        json_object_put(answer.root);
        if (done)
            return st;
    }
}

sbx_status remote_process_wait(sbx_backend_instance *inst, const char *sandbox_id,
                               const char *process_id, int64_t wait_ms, sbx_process_info **out,
                               sbx_error *err)
{
    *out = NULL;
    wire_ids ids;
    remote_endpoint ep;
    const process_target target = { sandbox_id, process_id, "process wait" };
    sbx_status st = open_process(inst, &target, &ids, &ep, err);
    if (st == SBX_OK)
        st = wait_info(&ep, &ids, process_id, wait_ms, out, err);
    remote_endpoint_close(&ep);
    return st;
}

sbx_status remote_process_forget(sbx_backend_instance *inst, const char *sandbox_id,
                                 const char *process_id, sbx_error *err)
{
    wire_ids ids;
    remote_endpoint ep;
    const process_target target = { sandbox_id, process_id, "process forget" };
    sbx_status st = open_process(inst, &target, &ids, &ep, err);
    sbx_process_info *info = NULL;
    if (st == SBX_OK)
        st = wait_info(&ep, &ids, process_id, 0, &info, err);
    if (st == SBX_OK && info->state == SBX_PROCESS_RUNNING)
        st = sbx_backend_error_set(err, SBX_ERR_USAGE,
                                   "process forget in sandbox '%s': process '%s' is running "
                                   "(only an ended one is forgotten)", sandbox_id, process_id);
    remote_process_infos_free(info);
    remote_aio_answer answer = {NULL, NULL};
    if (st == SBX_OK) {
        /* The session id is of [A-Za-z0-9._-]: a path segment as it is. */
        char path[sizeof "/v1/bash/sessions//close" + SBX_PROCESS_ID_MAX];
        snprintf(path, sizeof path, "/v1/bash/sessions/%s/close", ids.session);
        st = post(&ep, path, json_object_new_object(), 0, &answer, err);
    }
    json_object_put(answer.root);
    remote_endpoint_close(&ep);
    return st;
}

/* The info of the session `entry` of a GET /v1/bash/sessions answer
 * (appended at *tail), its command read as process_wait reads it. */
static sbx_status listed_info(remote_endpoint *ep, json_object *entry,
                              sbx_process_info ***tail, sbx_error *err)
{
    wire_ids ids;
    const char *session = NULL;
    if (common_json_get_string(entry, "session_id", &session) != COMMON_JSON_OK)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "sessions answer: an entry without a session_id");
    char id[SBX_PROCESS_ID_MAX + 1];
    sbx_status st = remote_process_id_make(session, session, id, err);
    if (st == SBX_OK && !remote_process_id_split(id, ids.session, ids.command))
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "process id '%s' does not split", id);
    if (st == SBX_OK)
        st = wait_info(ep, &ids, id, 0, *tail, err);
    /* Closed meanwhile: not listed. */
    if (st == SBX_ERR_NO_SUCH_PROCESS)
        return SBX_OK;
    if (st == SBX_OK)
        *tail = &(**tail)->next;
    return st;
}

sbx_status remote_process_list(sbx_backend_instance *inst, const char *sandbox_id,
                               sbx_process_info **out, size_t *count, sbx_error *err)
{
    *out = NULL;
    *count = 0;
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st != SBX_OK)
        return st;
    remote_endpoint ep;
    st = remote_endpoint_open(inst, sandbox_id, "process list", &ep, err);
    if (st != SBX_OK)
        return st;
    remote_aio_answer answer = {NULL, NULL};
    static const wire_request list = { "GET", "/v1/bash/sessions", NULL, 0 };
    st = send(&ep, &list, &answer, err);
    if (st == SBX_OK && !json_object_is_type(answer.data, json_type_array)) {
        sbx_backend_error_set(err, SBX_ERR_PROTOCOL, "sessions answer: data is not a list");
        st = remote_endpoint_fail(&ep, err);
    }
    sbx_process_info **tail = out;
    size_t n = st == SBX_OK ? json_object_array_length(answer.data) : 0;
    for (size_t i = 0; st == SBX_OK && i < n; i++)
        st = listed_info(&ep, json_object_array_get_idx(answer.data, i), &tail, err);
    json_object_put(answer.root);
    remote_endpoint_close(&ep);
    if (st != SBX_OK) {
        remote_process_infos_free(*out);
        *out = NULL;
        return st;
    }
    for (sbx_process_info *p = *out; p != NULL; p = p->next)
        (*count)++;
    return SBX_OK;
}
