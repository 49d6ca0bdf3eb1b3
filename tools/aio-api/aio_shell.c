/* The AIO shell session routes (aio_routes.h) over the server's session
 * table (aio_shell_table.h).  A command of /v1/shell/exec runs in the
 * session's shell itself (sbx_session_run), so `cd` and `export` carry
 * over; its stdout and stderr come back as one output, in the order they
 * were written.  An async_mode command runs as a process of its own
 * (stdin open for /v1/shell/write) started in the session's directory
 * with its exported variables: what it changes does not carry back.
 * Errors: an unknown session is 404 {"detail":"Session '<id>' not found"}
 * as on the bash routes, a sandbox gone 404, what the session cannot do
 * (busy, too many sessions, a missing exec_dir with strict) the failure
 * envelope (success false). */
#include <config.h>

#include "common/dynbuf.h"
#include "common/shell_quote.h"

#include "tools/aio-api/aio_answers.h"
#include "tools/aio-api/aio_body.h"
#include "tools/aio-api/aio_routes.h"
#include "tools/aio-api/aio_shell_table.h"
#include "tools/aio-api/aio_text.h"
#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisioner-common/prov_json.h"

#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* What truncate keeps of an output (the AIO schema's figure). */
#define TRUNCATE_CHARS 30000
/* Output kept of each command (and read of a background one). */
#define OUTPUT_BYTES ((size_t)1 << 20)
/* /v1/shell/wait without seconds waits at most this long. */
#define WAIT_DEFAULT_MS INT64_C(30000)
/* How often a wait looks whether its client went away. */
#define WAIT_SLICE_MS INT64_C(500)
/* How long a kill waits for a background command to end. */
#define KILL_WAIT_MS INT64_C(2000)

/* ShellExecRequest.  timeout (the answer's wait) and no_change_timeout are
 * accepted and change nothing: the answer waits for the command's end or
 * hard_timeout; preserve_symlinks neither ($PWD is the shell's). */
static const aio_field exec_fields[] = {
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
static const aio_field id_fields[] = {{"id", AIO_FIELD_STRING, 1, 0, NULL}};
static const aio_field wait_fields[] = {
    {"id", AIO_FIELD_STRING, 1, 0, NULL},
    {"seconds", AIO_FIELD_INTEGER, 0, 1, NULL},
    {"max_wait_seconds", AIO_FIELD_INTEGER, 0, 1, NULL},
};
static const aio_field write_fields[] = {
    {"id", AIO_FIELD_STRING, 1, 0, NULL},
    {"input", AIO_FIELD_STRING, 1, 0, NULL},
    {"press_enter", AIO_FIELD_BOOLEAN, 1, 0, NULL},
};
static const aio_field create_fields[] = {
    {"id", AIO_FIELD_STRING, 0, 0, NULL},
    {"exec_dir", AIO_FIELD_STRING, 0, 1, NULL},
    {"no_change_timeout", AIO_FIELD_INTEGER, 0, 1, NULL},
    {"preserve_symlinks", AIO_FIELD_BOOLEAN, 0, 1, NULL},
};

/* Append a string literal to a dynbuf. */
#define ADD(b, literal) common_dynbuf_add(b, literal, sizeof literal - 1)

#define BODY(call, fields, reply) \
    aio_body_read((call)->req->body, (call)->req->body_len, fields, \
                  sizeof fields / sizeof fields[0], reply)

/* A session id the request gives: at most AIO_SHELL_ID_MAX bytes, not
 * empty.  Else NULL after answering 422. */
static const char *checked_id(json_object *body, const char *id, prov_reply *reply)
{
    size_t len = strlen(id);
    if (len > 0 && len <= AIO_SHELL_ID_MAX)
        return id;
    aio_problems problems = {NULL, 0};
    aio_problem(&problems, len == 0 ? "string_too_short" : "string_too_long",
                (aio_loc){"body", "id", NULL},
                len == 0 ? "String should have at least 1 character"
                         : "String should have at most 128 characters",
                aio_member(body, "id"));
    aio_problems_answer(&problems, reply);
    return NULL;
}

/* Hold session `id` of the call's sandbox; NULL after answering. */
static aio_shell *hold(const aio_call *call, const char *id, aio_shell_find how,
                       const char *dir, int *created, prov_reply *reply)
{
    aio_shell *shell = NULL;
    int made = 0;
    sbx_error err;
    sbx_error_clear(&err);
    sbx_status st = aio_shell_acquire(call->shells, call->sandbox_id, id, how, dir, &shell,
                                      &made, &err);
    if (created != NULL)
        *created = made;
    if (st != SBX_OK)
        aio_answer_session_failure(st, &err, id, reply);
    return shell;
}


/* Read a body of `count` `fields` whose "id" names an existing session,
 * and hold it: NULL after answering (*body then put and NULL). */
static aio_shell *hold_named(const aio_call *call, const aio_field *fields, size_t count,
                             json_object **body, prov_reply *reply)
{
    *body = aio_body_read(call->req->body, call->req->body_len, fields, count, reply);
    aio_shell *shell = *body != NULL ? hold(call, aio_string(*body, "id", ""),
                                            AIO_SHELL_EXISTING, NULL, NULL, reply)
                                     : NULL;
    if (shell == NULL) {
        json_object_put(*body);
        *body = NULL;
    }
    return shell;
}

/* What one run in the shell gave. */
typedef struct shell_run {
    sbx_session_result *result;
    int no_dir;                 /* strict: exec_dir was not there */
} shell_run;

/* Marks the shell prints on stderr after the command: its directory
 * follows AT_DIR; NO_DIR alone says a strict exec_dir was missing. */
#define AT_DIR "\001"
#define NO_DIR "\002"

/* The script of `command` run in `dir` (NULL: where the shell is): a
 * missing `dir` refused when `strict`, else ignored; `dir` holds for
 * this command only, unless the command itself changes directory; stdout
 * and stderr as one output; the shell's directory printed afterwards.
 * COMMON_DYNBUF_OK or the buffer's error. */
static int script_of(common_dynbuf *b, const char *command, const char *dir, int strict)
{
    if (dir != NULL) {
        ADD(b, "__sbx_aio_back=$PWD __sbx_aio_in=\ncd -- ");
        common_shell_quote(b, dir);
        ADD(b, " 2>/dev/null && __sbx_aio_in=$PWD");
        if (strict)
            common_dynbuf_addf(b, " || { printf '%s' >&2; return 1; }", NO_DIR);
        ADD(b, "\n");
    }
    /* The command's own text is evaluated inside the redirection, so that
     * even its syntax errors are in its output. */
    ADD(b, "__sbx_aio_cmd=");
    common_shell_quote(b, command);
    /* A command that ends the shell (exit) still ends its output with a
     * newline the session then drops, as it drops the one before its end
     * marker: a last line without one comes back exact. */
    ADD(b, "\ntrap 'echo' EXIT\n{ eval \"$__sbx_aio_cmd\"\n} 2>&1\n__sbx_aio_rc=$?\n"
           "trap - EXIT\n");
    if (dir != NULL)
        ADD(b, "[ \"$PWD\" != \"$__sbx_aio_in\" ] || cd -- \"$__sbx_aio_back\"\n");
    return common_dynbuf_addf(b, "printf '%s%%s' \"$PWD\" >&2\nreturn $__sbx_aio_rc", AT_DIR);
}

/* Run `command` in the held `shell` (script_of) within `timeout_ms`; the
 * shell's directory afterwards becomes its working_dir.  A shell the
 * library had to restart is replaced by a marked one. */
static sbx_status run_in(const aio_call *call, aio_shell *shell, const char *command,
                         const char *dir, int strict, int64_t timeout_ms, shell_run *out,
                         sbx_error *err)
{
    common_dynbuf b;
    common_dynbuf_init(&b, 0);
    memset(out, 0, sizeof *out);
    sbx_status st;
    if (script_of(&b, command, dir, strict) != COMMON_DYNBUF_OK) {
        st = sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    } else if (shell->session == NULL &&
               (st = aio_shell_renew(call->shells, shell, err)) != SBX_OK) {
        /* answered below */
    } else {
        st = sbx_session_run(shell->session, b.data, timeout_ms, &out->result, err);
    }
    common_dynbuf_free(&b);
    if (st != SBX_OK)
        return st;
    const char *marks = out->result->stderr_data;
    const char *at = strstr(marks, AT_DIR);
    if (at != NULL)
        snprintf(shell->working_dir, sizeof shell->working_dir, "%s", at + 1);
    out->no_dir = strcmp(marks, NO_DIR) == 0;
    shell->used_at = aio_shell_epoch_ms();
    if (out->result->restarted) {
        sbx_error ignored;
        aio_shell_renew(call->shells, shell, &ignored);
    }
    return SBX_OK;
}

/* Keep `command` and `output` as the session's last (they are taken). */
static void remember(aio_shell *shell, char *command, char *output, const char *status,
                     int exit_code)
{
    free(shell->command);
    free(shell->output);
    shell->command = command;
    shell->output = output;
    shell->status = status;
    shell->exit_code = exit_code;
}

/* A ShellCommandResult-like object: session_id, command, status, output
 * (JSON null when NULL), exit_code (only when `status` is completed: the
 * schema's "only has value when status is completed"). */
static json_object *command_result(const char *id, const char *command, const char *status,
                                   const char *output, int exit_code)
{
    json_object *data = json_object_new_object();
    int built = data != NULL && prov_json_add_string(data, "session_id", id) &&
                prov_json_add_string(data, "command", command != NULL ? command : "") &&
                prov_json_add_string(data, "status", status);
    if (built)
        built = output != NULL ? prov_json_add_string(data, "output", output)
                               : json_object_object_add(data, "output", NULL) == 0;
    if (built && strcmp(status, "completed") == 0)
        built = prov_json_add(data, "exit_code", json_object_new_int(exit_code));
    return prov_json_built(data, built);
}

/* The state a background command's process is in, as BashCommandStatus,
 * and its exit code (-1 when none). */
static const char *process_status(const sbx_process_info *info, int *exit_code)
{
    *exit_code = -1;
    if (info->state == SBX_PROCESS_RUNNING)
        return "running";
    if (info->outcome == SBX_EXEC_EXITED) {
        *exit_code = info->exit_code;
        return "completed";
    }
    return info->outcome == SBX_EXEC_TIMED_OUT ? "hard_timeout" : "terminated";
}

/* The background command `pid`: its process, after a wait of up to
 * `wait_ms`.  NULL when the backend no longer has it. */
static sbx_process_info *background_info(const aio_call *call, const char *pid, int64_t wait_ms)
{
    sbx_process_info *info = NULL;
    sbx_error err;
    if (pid[0] == '\0' ||
        sbx_backend_process_wait(call->backend, call->sandbox_id, pid, wait_ms, &info, &err) !=
            SBX_OK)
        return NULL;
    return info;
}

/* Start `command` in the background for the held `shell`: a process of
 * its own in the shell's directory with its exported variables. */
static void start_background(const aio_call *call, aio_shell *shell, json_object *body,
                             prov_reply *reply)
{
    const char *command = aio_string(body, "command", "");
    sbx_process_info *running = background_info(call, shell->background, 0);
    int busy = running != NULL && running->state == SBX_PROCESS_RUNNING;
    sbx_backend_free_processes(call->backend, running);
    if (busy) {
        aio_answer_failed(reply, "a command is running in this session: wait for it "
                                 "(/v1/shell/wait) or kill it (/v1/shell/kill) first");
        return;
    }
    sbx_error err;
    sbx_error_clear(&err);
    shell_run state;
    sbx_status st = run_in(call, shell, "export -p", NULL, 0, call->exec_timeout_ms, &state,
                           &err);
    const char *dir = aio_string(body, "exec_dir", NULL);
    common_dynbuf script;
    common_dynbuf_init(&script, 0);
    if (st == SBX_OK) {
        common_dynbuf_add(&script, state.result->stdout_data, state.result->stdout_length);
        ADD(&script, "\n__sbx_aio_cmd=");
        common_shell_quote(&script, command);
        ADD(&script, "\n{ cd -- ");
        common_shell_quote(&script, shell->working_dir);
        ADD(&script, " 2>/dev/null\n");
        if (dir != NULL) {
            /* Not strict: a missing exec_dir leaves the session's. */
            ADD(&script, "cd -- ");
            common_shell_quote(&script, dir);
            if (aio_boolean(body, "strict", 0))
                ADD(&script, " || exit 1");
            ADD(&script, "\n");
        }
        ADD(&script, "eval \"$__sbx_aio_cmd\"\n} 2>&1");
    }
    sbx_process_info *info = NULL;
    if (st == SBX_OK && script.failed == COMMON_DYNBUF_OK) {
        const char *argv[] = {"/bin/sh", "-c", script.data, AIO_SHELL_COMMAND_MARK, shell->id,
                              NULL};
        sbx_process_request req = SBX_PROCESS_REQUEST_INIT;
        req.argv = argv;
        req.stdin_open = 1;
        json_object *hard = aio_member(body, "hard_timeout");
        if (hard != NULL && json_object_get_double(hard) > 0.0)
            req.timeout_ms = aio_hard_timeout_ms(call, body);
        if (shell->background[0] != '\0') {
            sbx_error ignored;
            sbx_backend_process_forget(call->backend, call->sandbox_id, shell->background,
                                       &ignored);
        }
        shell->background[0] = '\0';
        st = sbx_backend_process_start(call->backend, call->sandbox_id, &req, &info, &err);
    }
    if (st != SBX_OK) {
        aio_answer_session_failure(st, &err, shell->id, reply);
    } else if (info == NULL) {
        prov_reply_out_of_memory(reply);
    } else {
        snprintf(shell->background, sizeof shell->background, "%s", info->process_id);
        remember(shell, prov_strdup(command), NULL, "running", -1);
        aio_answer_data(reply, command_result(shell->id, command, "running", NULL, -1));
    }
    sbx_backend_free_processes(call->backend, info);
    sbx_session_result_free(state.result);
    common_dynbuf_free(&script);
}

/* Run the request's command in the held `shell` and answer its result. */
static void run_command(const aio_call *call, aio_shell *shell, json_object *body,
                        prov_reply *reply)
{
    const char *command = aio_string(body, "command", "");
    char *kept = prov_strdup(command);
    remember(shell, kept, NULL, "running", -1);
    aio_shell_set_running(call->shells, shell, command);
    sbx_error err;
    sbx_error_clear(&err);
    shell_run done;
    sbx_status st = run_in(call, shell, command, aio_string(body, "exec_dir", NULL),
                           aio_boolean(body, "strict", 0), aio_hard_timeout_ms(call, body),
                           &done, &err);
    aio_shell_set_running(call->shells, shell, NULL);
    if (st != SBX_OK) {
        remember(shell, kept != NULL ? prov_strdup(kept) : NULL, NULL, "terminated", -1);
        aio_answer_session_failure(st, &err, shell->id, reply);
        return;
    }
    const sbx_session_result *r = done.result;
    /* A shell that ended (exit N, or killed) is the command's end. */
    const char *status = r->timed_out ? "hard_timeout"
                         : r->exit_code < 0 ? "terminated" : "completed";
    size_t len = 0;
    char *output = aio_text_of_output(r->stdout_data, r->stdout_length,
                                      aio_boolean(body, "truncate", 1) ? TRUNCATE_CHARS : 0,
                                      &len);
    if (done.no_dir)
        aio_answer_failed(reply, "exec_dir does not exist or is not a directory");
    else if (output == NULL || kept == NULL)
        prov_reply_out_of_memory(reply);
    else
        aio_answer_data(reply, command_result(shell->id, command, status, output,
                                              r->exit_code));
    remember(shell, kept != NULL ? prov_strdup(kept) : NULL, output, status, r->exit_code);
    sbx_session_result_free(done.result);
}

void aio_route_shell_exec(const aio_call *call, prov_reply *reply)
{
    json_object *body = BODY(call, exec_fields, reply);
    const char *id = body != NULL ? aio_string(body, "id", AIO_SHELL_DEFAULT_ID) : NULL;
    if (id != NULL && id[0] == '\0')
        id = AIO_SHELL_DEFAULT_ID;
    if (id != NULL)
        id = checked_id(body, id, reply);
    /* A session named by the request is one it created; the default one
     * comes by itself, as the AIO server's. */
    aio_shell *shell = id == NULL ? NULL
                       : hold(call, id,
                              strcmp(id, AIO_SHELL_DEFAULT_ID) == 0 ? AIO_SHELL_CREATE
                                                                    : AIO_SHELL_EXISTING,
                              NULL, NULL, reply);
    if (shell != NULL) {
        if (aio_boolean(body, "async_mode", 0))
            start_background(call, shell, body, reply);
        else
            run_command(call, shell, body, reply);
        aio_shell_release(call->shells, shell);
    }
    json_object_put(body);
}

/* The output of background command `pid` so far (at most OUTPUT_BYTES,
 * cut to TRUNCATE_CHARS); NULL when memory ran out. */
static char *background_output(const aio_call *call, const char *pid)
{
    common_dynbuf b;
    common_dynbuf_init(&b, OUTPUT_BYTES);
    ADD(&b, "");
    sbx_process_read_request rq = SBX_PROCESS_READ_REQUEST_INIT;
    for (;;) {
        sbx_process_output *out = NULL;
        sbx_error err;
        rq.max_bytes = OUTPUT_BYTES - b.len;
        if (rq.max_bytes == 0 ||
            sbx_backend_process_read(call->backend, call->sandbox_id, pid, &rq, &out, &err) !=
                SBX_OK)
            break;
        size_t at = 0;
        for (size_t i = 0; i < out->chunk_count; i++) {
            if (out->chunks[i].stream == SBX_STREAM_STDOUT)
                common_dynbuf_add(&b, out->data + at, out->chunks[i].length);
            at += out->chunks[i].length;
        }
        int more = out->length > 0;
        rq.cursor = out->next;
        sbx_backend_free_process_output(call->backend, out);
        if (!more)
            break;
    }
    size_t len = 0;
    char *text = b.failed == COMMON_DYNBUF_NO_MEMORY
                     ? NULL : aio_text_of_output(b.data, b.len, TRUNCATE_CHARS, &len);
    common_dynbuf_free(&b);
    return text;
}

/* The session's last command as the answer shows it: its status and exit
 * code, its output (a background command's read now); the strings are
 * new.  0 when memory ran out. */
typedef struct last_command {
    char *command, *output;
    const char *status;
    int exit_code;
    char background[SBX_PROCESS_ID_MAX + 1];
} last_command;

static int last_of(const aio_call *call, aio_shell *shell, last_command *last)
{
    memset(last, 0, sizeof *last);
    snprintf(last->background, sizeof last->background, "%s", shell->background);
    last->status = shell->status;
    last->exit_code = shell->exit_code;
    last->command = shell->command != NULL ? prov_strdup(shell->command) : NULL;
    sbx_process_info *info = background_info(call, shell->background, 0);
    if (info != NULL) {
        last->status = process_status(info, &last->exit_code);
        if (last->command == NULL && info->argv[2] != NULL)
            last->command = prov_strdup(info->argv[2]);
        sbx_backend_free_processes(call->backend, info);
        last->output = background_output(call, shell->background);
        return last->output != NULL;
    }
    last->output = prov_strdup(shell->output != NULL ? shell->output : "");
    return last->output != NULL;
}

void aio_route_shell_view(const aio_call *call, prov_reply *reply)
{
    json_object *body = NULL;
    aio_shell *shell = hold_named(call, id_fields, 1, &body, reply);
    if (shell != NULL) {
        last_command last;
        int have = last_of(call, shell, &last);
        aio_shell_release(call->shells, shell);
        json_object *data = have ? command_result(aio_string(body, "id", ""), last.command,
                                                  last.status, last.output, last.exit_code)
                                 : NULL;
        aio_answer_data(reply, data);
        free(last.command);
        free(last.output);
    }
    json_object_put(body);
}

/* Whether the client of `call` has gone away (its socket hung up). */
static int client_gone(const aio_call *call)
{
    if (call->req->client_fd < 0)
        return 0;
    struct pollfd p = {call->req->client_fd, POLLRDHUP, 0};
    return poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

/* An answer {"status": status}. */
static void answer_status(prov_reply *reply, const char *status)
{
    json_object *data = json_object_new_object();
    int built = data != NULL && prov_json_add_string(data, "status", status);
    aio_answer_data(reply, prov_json_built(data, built));
}

void aio_route_shell_wait(const aio_call *call, prov_reply *reply)
{
    json_object *body = NULL;
    aio_shell *shell = hold_named(call, wait_fields, 3, &body, reply);
    if (shell == NULL)
        return;
    char pid[SBX_PROCESS_ID_MAX + 1];
    snprintf(pid, sizeof pid, "%s", shell->background);
    const char *status = shell->status;
    aio_shell_release(call->shells, shell);
    json_object *given = aio_member(body, "seconds");
    if (given == NULL)
        given = aio_member(body, "max_wait_seconds");
    int64_t wait_ms = given != NULL ? json_object_get_int64(given) * 1000 : WAIT_DEFAULT_MS;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t start = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000, waited = 0;
    /* In slices: a client that goes away frees its worker within one. */
    for (int first = 1; pid[0] != '\0'; first = 0) {
        int64_t left = wait_ms - waited;
        sbx_process_info *info = background_info(call, pid, first || left <= 0 ? 0
                                                 : left < WAIT_SLICE_MS ? left : WAIT_SLICE_MS);
        int exit_code;
        status = info != NULL ? process_status(info, &exit_code) : "completed";
        sbx_backend_free_processes(call->backend, info);
        clock_gettime(CLOCK_MONOTONIC, &ts);
        waited = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 - start;
        if (strcmp(status, "running") != 0 || waited >= wait_ms || client_gone(call))
            break;
    }
    answer_status(reply, status);
    json_object_put(body);
}

void aio_route_shell_write(const aio_call *call, prov_reply *reply)
{
    json_object *body = NULL;
    aio_shell *shell = hold_named(call, write_fields, 3, &body, reply);
    if (shell == NULL)
        return;
    sbx_process_info *info = background_info(call, shell->background, 0);
    int exit_code;
    const char *status = info != NULL ? process_status(info, &exit_code) : NULL;
    sbx_backend_free_processes(call->backend, info);
    if (status == NULL || strcmp(status, "running") != 0) {
        aio_answer_failed(reply, "no command is running in this session to write to "
                                 "(start one with async_mode)");
    } else {
        json_object *input = aio_member(body, "input");
        common_dynbuf b;
        common_dynbuf_init(&b, 0);
        common_dynbuf_add(&b, json_object_get_string(input),
                          (size_t)json_object_get_string_len(input));
        if (aio_boolean(body, "press_enter", 0))
            ADD(&b, "\n");
        sbx_process_write_request rq = SBX_PROCESS_WRITE_REQUEST_INIT;
        rq.data = b.data;
        rq.length = b.len;
        sbx_error err;
        sbx_error_clear(&err);
        sbx_status st = b.failed != COMMON_DYNBUF_OK
                            ? sbx_error_set(&err, SBX_ERR_INTERNAL, "out of memory")
                            : sbx_backend_process_write(call->backend, call->sandbox_id,
                                                        shell->background, &rq, &err);
        if (st == SBX_OK)
            answer_status(reply, "running");
        else
            aio_answer_session_failure(st, &err, shell->id, reply);
        common_dynbuf_free(&b);
    }
    aio_shell_release(call->shells, shell);
    json_object_put(body);
}

/* {"status", "exit_code", "returncode"} of a kill. */
static void answer_killed(prov_reply *reply, const char *status, int exit_code)
{
    json_object *data = json_object_new_object();
    int built = data != NULL && prov_json_add_string(data, "status", status);
    for (int i = 0; built && i < 2; i++) {
        const char *name = i == 0 ? "exit_code" : "returncode";
        built = exit_code >= 0 ? prov_json_add(data, name, json_object_new_int(exit_code))
                               : json_object_object_add(data, name, NULL) == 0;
    }
    aio_answer_data(reply, prov_json_built(data, built));
}

void aio_route_shell_kill(const aio_call *call, prov_reply *reply)
{
    json_object *body = BODY(call, id_fields, reply);
    if (body == NULL)
        return;
    const char *id = aio_string(body, "id", "");
    /* A command running in the shell itself is interrupted as Ctrl-C
     * would: the shell stays, its state too. */
    int interrupted = aio_shell_interrupt(call->shells, call->sandbox_id, id);
    aio_shell *shell = hold(call, id, AIO_SHELL_EXISTING, NULL, NULL, reply);
    if (shell != NULL) {
        sbx_process_info *info = background_info(call, shell->background, 0);
        int exit_code = shell->exit_code;
        const char *status = info != NULL ? process_status(info, &exit_code) : shell->status;
        if (info != NULL && info->state == SBX_PROCESS_RUNNING) {
            sbx_error ignored;
            sbx_backend_free_processes(call->backend, info);
            sbx_backend_process_signal(call->backend, call->sandbox_id, shell->background,
                                       SIGKILL, &ignored);
            info = background_info(call, shell->background, KILL_WAIT_MS);
            status = "terminated";
            exit_code = -1;
        } else if (interrupted) {
            status = "terminated";
            exit_code = -1;
        }
        sbx_backend_free_processes(call->backend, info);
        aio_shell_release(call->shells, shell);
        answer_killed(reply, status, exit_code);
    }
    json_object_put(body);
}

/* A ShellCreateSessionResponse-like {session_id, working_dir}. */
static json_object *created_session(const aio_shell *shell)
{
    json_object *data = json_object_new_object();
    int built = data != NULL && prov_json_add_string(data, "session_id", shell->id) &&
                prov_json_add_string(data, "working_dir", shell->working_dir);
    return prov_json_built(data, built);
}

void aio_route_shell_create(const aio_call *call, prov_reply *reply)
{
    json_object *body = BODY(call, create_fields, reply);
    if (body == NULL)
        return;
    char fresh[48];
    aio_random_id("", fresh, sizeof fresh);
    const char *id = checked_id(body, aio_string(body, "id", fresh), reply);
    int created = 0;
    aio_shell *shell = id != NULL ? hold(call, id, AIO_SHELL_CREATE,
                                         aio_string(body, "exec_dir", NULL), &created, reply)
                                  : NULL;
    if (shell != NULL) {
        shell_run state = {NULL, 0};
        sbx_error err;
        sbx_error_clear(&err);
        /* Its directory, as the shell sees it (a re-attached one's too). */
        sbx_status st = shell->working_dir[0] != '\0'
                            ? SBX_OK
                            : run_in(call, shell, ":", NULL, 0, call->exec_timeout_ms, &state, &err);
        if (st == SBX_OK)
            aio_answer_data(reply, created_session(shell));
        else
            aio_answer_session_failure(st, &err, id, reply);
        sbx_session_result_free(state.result);
        aio_shell_release(call->shells, shell);
    }
    json_object_put(body);
}

/* The ShellSessionInfo of session `id`: NULL when it ended meanwhile
 * (*skip set) or memory ran out. */
static json_object *session_info(const aio_call *call, const char *id, int *skip)
{
    aio_shell_info info;
    sbx_error err;
    *skip = aio_shell_describe(call->shells, call->sandbox_id, id, &info, &err) != SBX_OK;
    if (*skip)
        return NULL;
    char made[32], used[32];
    aio_text_iso_time(info.created_at, made);
    aio_text_iso_time(info.used_at, used);
    json_object *s = json_object_new_object();
    int built = s != NULL && prov_json_add_string(s, "working_dir", info.working_dir) &&
                prov_json_add_string(s, "created_at", made) &&
                prov_json_add_string(s, "last_used_at", used) &&
                prov_json_add(s, "age_seconds",
                              json_object_new_int64((aio_shell_epoch_ms() - info.created_at) / 1000)) &&
                prov_json_add_string(s, "status", info.current_command != NULL ? "running"
                                                                              : "ready");
    if (built)
        built = info.current_command != NULL
                    ? prov_json_add_string(s, "current_command", info.current_command)
                    : json_object_object_add(s, "current_command", NULL) == 0;
    free(info.current_command);
    return prov_json_built(s, built);
}

void aio_route_shell_sessions(const aio_call *call, prov_reply *reply)
{
    size_t count = 0;
    sbx_error err;
    sbx_error_clear(&err);
    char **ids = aio_shell_ids(call->shells, call->sandbox_id, &count, &err);
    if (ids == NULL) {
        aio_answer_session_failure(err.kind, &err, "", reply);
        return;
    }
    json_object *sessions = json_object_new_object();
    int built = sessions != NULL;
    for (size_t i = 0; built && i < count; i++) {
        int skip = 0;
        json_object *one = session_info(call, ids[i], &skip);
        built = skip || prov_json_add(sessions, ids[i], one);
    }
    json_object *data = built ? json_object_new_object() : NULL;
    built = data != NULL && prov_json_add(data, "sessions", sessions);
    if (!built && data == NULL)
        json_object_put(sessions);
    aio_answer_data(reply, prov_json_built(data, built));
    aio_shell_ids_free(ids);
}

void aio_route_shell_end(const aio_call *call, prov_reply *reply)
{
    sbx_error err;
    sbx_error_clear(&err);
    sbx_status st = aio_shell_end(call->shells, call->sandbox_id, call->path_id, &err);
    if (st == SBX_OK)
        aio_answer_ok(reply, NULL);
    else
        aio_answer_session_failure(st, &err, call->path_id, reply);
}

void aio_route_shell_end_all(const aio_call *call, prov_reply *reply)
{
    size_t count = 0;
    sbx_error err;
    sbx_error_clear(&err);
    char **ids = aio_shell_ids(call->shells, call->sandbox_id, &count, &err);
    sbx_status st = ids != NULL ? SBX_OK : err.kind;
    for (size_t i = 0; st == SBX_OK && i < count; i++) {
        st = aio_shell_end(call->shells, call->sandbox_id, ids[i], &err);
        if (st == SBX_ERR_NO_SUCH_PROCESS)  /* ended meanwhile */
            st = SBX_OK;
    }
    if (st == SBX_OK)
        aio_answer_ok(reply, NULL);
    else
        aio_answer_session_failure(st, &err, "", reply);
    aio_shell_ids_free(ids);
}
