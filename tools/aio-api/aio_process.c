/* The AIO bash routes of live commands over the host API's process calls
 * (aio_process.h).  Errors: an unknown session or command is 404
 * {"detail":"Session '<id>' not found"} (a sandbox gone is 404 "Sandbox
 * not found", as on every route); what does not fit the command (a cursor
 * past its output, stdin closed) is 400 with the backend's message;
 * anything else is the failure envelope (success false). */
#include <config.h>

#include "tools/aio-api/aio_process.h"

#include "common/utf8.h"

#include "tools/aio-api/aio_answers.h"
#include "tools/aio-api/aio_bash_session.h"
#include "tools/aio-api/aio_body.h"
#include "tools/aio-api/aio_text.h"
#include "tools/provisioner-common/prov_alloc.h"
#include "tools/provisioner-common/prov_json.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The most bytes one /v1/bash/output answers of both streams together (a
 * reader asks again from the offsets it got). */
#define OUTPUT_ANSWER_BYTES ((size_t)1 << 20)

static const aio_field output_fields[] = {
    {"session_id", AIO_FIELD_STRING, 1, 0, NULL},
    {"command_id", AIO_FIELD_STRING, 0, 1, NULL},
    {"offset", AIO_FIELD_INTEGER, 0, 0, NULL},
    {"stderr_offset", AIO_FIELD_INTEGER, 0, 0, NULL},
    {"wait", AIO_FIELD_BOOLEAN, 0, 0, NULL},
    {"wait_timeout", AIO_FIELD_NUMBER, 0, 0, NULL},
};

static const aio_field write_fields[] = {
    {"session_id", AIO_FIELD_STRING, 1, 0, NULL},
    {"command_id", AIO_FIELD_STRING, 0, 1, NULL},
    {"input", AIO_FIELD_STRING, 1, 0, NULL},
};

static const char *const signal_names[] = {"SIGTERM", "SIGKILL", "SIGINT", NULL};
static const aio_field kill_fields[] = {
    {"session_id", AIO_FIELD_STRING, 1, 0, NULL},
    {"signal", AIO_FIELD_STRING, 0, 0, signal_names},
};

/* The process a request names: a command of a created session
 * (aio_bash_session.h), else its command_id, else its session_id (an
 * async command's session holds that one command).  NULL after answering
 * 404 when it names none. */
static const char *process_of(const aio_call *call, json_object *body,
                              char pid[SBX_PROCESS_ID_MAX + 1], prov_reply *reply)
{
    const char *session = aio_string(body, "session_id", "");
    const char *command = aio_string(body, "command_id", NULL);
    int in_created = aio_bash_session_command(call, session, command, pid, reply);
    if (in_created >= 0)
        return in_created > 0 ? pid : NULL;
    if (command == NULL || strcmp(command, session) == 0)
        return session;
    char detail[320];
    snprintf(detail, sizeof detail, "Command '%.128s' not found in session '%.128s'", command,
             session);
    prov_reply_detail(reply, 404, detail);
    return NULL;
}

const char *aio_process_command_text(const sbx_process_info *info)
{
    char *const *argv = info->argv;
    if (argv[0] != NULL && argv[1] != NULL && argv[2] != NULL &&
        strcmp(argv[1], "-c") == 0)
        return argv[2];
    return argv[0] != NULL ? argv[0] : "";
}

/* The status word and exit_code (NULL: null) of an ended process, as the
 * sync exec answers them: a signal's exit_code is -N, Python's way. */
static const char *ended_status(sbx_exec_outcome outcome, int exit_code, int term_signal,
                                json_object **code)
{
    *code = NULL;
    if (outcome == SBX_EXEC_EXITED) {
        *code = json_object_new_int(exit_code);
        return "completed";
    }
    if (outcome == SBX_EXEC_TIMED_OUT)
        return "timed_out";
    if (term_signal > 0)
        *code = json_object_new_int(-term_signal);
    return "killed";
}

/* Add status and exit_code of `info` to `data`; 0 when memory ran out. */
static int add_info_status(json_object *data, const sbx_process_info *info)
{
    json_object *code = NULL;
    const char *status = info->state == SBX_PROCESS_RUNNING
                             ? "running"
                             : ended_status(info->outcome, info->exit_code, info->term_signal,
                                            &code);
    if (!prov_json_add_string(data, "status", status)) {
        json_object_put(code);
        return 0;
    }
    return json_object_object_add(data, "exit_code", code) == 0;
}

void aio_process_start(const aio_call *call, json_object *body, sbx_process_request request,
                       const char *session, prov_reply *reply)
{
    sbx_error err;
    sbx_error_clear(&err);
    /* stdin stays open: /v1/bash/write is how a command gets input. */
    request.stdin_open = 1;
    const char *argv[] = {"/bin/sh", "-c", request.shell_command, AIO_BASH_SESSION_MARK,
                          session, NULL};
    if (session != NULL) {
        request.argv = argv;
        request.shell_command = NULL;
    }
    sbx_process_info *info = NULL;
    sbx_status st = sbx_backend_process_start(call->backend, call->sandbox_id, &request, &info,
                                              &err);
    if (st != SBX_OK) {
        aio_answer_session_failure(st, &err, "", reply);
        return;
    }
    json_object *data = json_object_new_object();
    int built = data != NULL &&
                prov_json_add_string(data, "session_id",
                                     session != NULL ? session : info->process_id) &&
                prov_json_add_string(data, "command_id", info->process_id) &&
                prov_json_add_string(data, "command", aio_string(body, "command", "")) &&
                add_info_status(data, info) && prov_json_add_string(data, "stdout", "") &&
                prov_json_add_string(data, "stderr", "") &&
                prov_json_add(data, "offset", json_object_new_int64(0)) &&
                prov_json_add(data, "stderr_offset", json_object_new_int64(0));
    aio_answer_data(reply, prov_json_built(data, built));
    sbx_backend_free_processes(call->backend, info);
}

/* What one /v1/bash/output gathered: each stream's bytes, the cursor
 * after them, and the last read's end. */
typedef struct gathered {
    char *bytes[2];
    size_t len[2];
    sbx_process_cursor next;
    int ended;
    sbx_exec_outcome outcome;
    int exit_code, term_signal;
    int out_of_memory;
} gathered;

/* Append `output`'s chunks to `g` and take its cursor and end. */
static void gather(gathered *g, const sbx_process_output *output)
{
    size_t at = 0;
    for (size_t i = 0; i < output->chunk_count && !g->out_of_memory; i++) {
        int s = output->chunks[i].stream == SBX_STREAM_STDERR ? 1 : 0;
        size_t n = output->chunks[i].length;
        char *grown = realloc(g->bytes[s], g->len[s] + n + 1);
        if (grown == NULL) {
            g->out_of_memory = 1;
            break;
        }
        memcpy(grown + g->len[s], output->data + at, n);
        g->bytes[s] = grown;
        g->len[s] += n;
        at += n;
    }
    g->next = output->next;
    g->ended = output->ended;
    g->outcome = output->outcome;
    g->exit_code = output->exit_code;
    g->term_signal = output->term_signal;
}

/* How many bytes at the end of `bytes` begin a character the stream has
 * not finished yet (0 to 3): a well-formed start cut by the read. */
static size_t unfinished_tail(const char *bytes, size_t len)
{
    size_t start = len;
    while (start > 0 && len - start < 3 && ((unsigned char)bytes[start - 1] & 0xC0) == 0x80)
        start--;
    if (start == 0 || (unsigned char)bytes[start - 1] < 0xC0)
        return 0;
    start--;
    size_t bad = 0;
    if (common_utf8_char(bytes + start, len - start, &bad) == 0 && bad == len - start)
        return len - start;
    return 0;
}

/* Whether all `g` holds is unfinished characters (and something). */
static int only_unfinished(const gathered *g)
{
    size_t held = (g->bytes[0] != NULL ? unfinished_tail(g->bytes[0], g->len[0]) : 0) +
                  (g->bytes[1] != NULL ? unfinished_tail(g->bytes[1], g->len[1]) : 0);
    return held > 0 && held == g->len[0] + g->len[1];
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Read from `cursor`, waiting up to `wait_ms` for the first bytes, then
 * on without waiting while more is there (so that an answer saying the
 * command ended holds all of its output), up to OUTPUT_ANSWER_BYTES.
 * Bytes that only begin a character do not end the wait: it goes on for
 * the rest of it. */
static sbx_status read_output(const aio_call *call, const char *pid, sbx_process_cursor cursor,
                              int64_t wait_ms, gathered *g, sbx_error *err)
{
    sbx_process_read_request rq = SBX_PROCESS_READ_REQUEST_INIT;
    rq.cursor = cursor;
    rq.wait_ms = wait_ms;
    g->next = cursor;
    int64_t deadline = now_ms() + wait_ms;
    for (;;) {
        size_t have = g->len[0] + g->len[1];
        rq.max_bytes = OUTPUT_ANSWER_BYTES - have;
        sbx_process_output *output = NULL;
        sbx_status st = sbx_backend_process_read(call->backend, call->sandbox_id, pid, &rq,
                                                 &output, err);
        if (st != SBX_OK)
            return st;
        gather(g, output);
        int more = output->length > 0 && !output->ended && !g->out_of_memory &&
                   g->len[0] + g->len[1] < OUTPUT_ANSWER_BYTES;
        sbx_backend_free_process_output(call->backend, output);
        int64_t left = deadline - now_ms();
        if (!more && (g->ended || g->out_of_memory || left <= 0 || !only_unfinished(g)))
            return SBX_OK;
        rq.cursor = g->next;
        rq.wait_ms = more ? 0 : left;
    }
}

/* Leave the unfinished character at the end of each stream for the next
 * read (its bytes become one character then, not U+FFFD now), unless the
 * process ended (nothing more will come) or the answer would be left
 * empty (read_output waited for the rest in vain: a long poll would
 * otherwise answer at once, again and again). */
static void hold_unfinished(gathered *g)
{
    if (g->ended)
        return;
    size_t out = g->bytes[0] != NULL ? unfinished_tail(g->bytes[0], g->len[0]) : 0;
    size_t err = g->bytes[1] != NULL ? unfinished_tail(g->bytes[1], g->len[1]) : 0;
    if (out + err == g->len[0] + g->len[1])
        return;     /* the wait passed with only that: answer it as it is */
    g->len[0] -= out;
    g->next.stdout_offset -= out;
    g->len[1] -= err;
    g->next.stderr_offset -= err;
}

/* A stream's bytes as the answer's text (bytes that are not UTF-8 become
 * U+FFFD); NULL when memory ran out. */
static json_object *stream_text(const char *bytes, size_t len)
{
    size_t text_len = 0, chars = 0;
    char *text = common_utf8_repair(bytes != NULL ? bytes : "", len, &text_len, &chars);
    json_object *value = text != NULL ? json_object_new_string_len(text, (int)text_len) : NULL;
    free(text);
    return value;
}

/* The BashCommandInfo of process `pid` as gathered in `g`: its status is
 * the read's (running until a reader has reached the end of an ended
 * command's output), its text the backend's record. */
static json_object *command_info(const aio_call *call, const char *pid, const gathered *g)
{
    sbx_error err;
    sbx_error_clear(&err);
    sbx_process_info *info = NULL;
    if (sbx_backend_process_wait(call->backend, call->sandbox_id, pid, 0, &info, &err) != SBX_OK)
        return json_object_new_null();
    json_object *code = NULL;
    const char *status = g->ended ? ended_status(g->outcome, g->exit_code, g->term_signal,
                                                 &code)
                                  : "running";
    json_object *cmd = json_object_new_object();
    int built = cmd != NULL && prov_json_add_string(cmd, "command_id", pid) &&
                prov_json_add_string(cmd, "command", aio_process_command_text(info)) &&
                prov_json_add_string(cmd, "status", status);
    if (built)
        built = json_object_object_add(cmd, "exit_code", code) == 0;
    else
        json_object_put(code);
    sbx_backend_free_processes(call->backend, info);
    return prov_json_built(cmd, built);
}

/* A checked non-negative integer member (0 when absent); -1 when negative. */
static int64_t offset_member(json_object *body, const char *name)
{
    json_object *value = aio_member(body, name);
    return value != NULL ? json_object_get_int64(value) : 0;
}

void aio_route_bash_output(const aio_call *call, prov_reply *reply)
{
    json_object *body = aio_body_read(call->req->body, call->req->body_len, output_fields,
                                      sizeof output_fields / sizeof output_fields[0], reply);
    char found[SBX_PROCESS_ID_MAX + 1];
    const char *pid = body != NULL ? process_of(call, body, found, reply) : NULL;
    if (pid == NULL) {
        json_object_put(body);
        return;
    }
    int64_t out_at = offset_member(body, "offset"), err_at = offset_member(body, "stderr_offset");
    if (out_at < 0 || err_at < 0) {
        aio_problems problems = {NULL, 0};
        const char *field = out_at < 0 ? "offset" : "stderr_offset";
        aio_problem(&problems, "greater_than_equal", (aio_loc){"body", field, NULL},
                    "Input should be greater than or equal to 0", aio_member(body, field));
        aio_problems_answer(&problems, reply);
        json_object_put(body);
        return;
    }
    json_object *timeout = aio_member(body, "wait_timeout");
    double seconds = timeout != NULL ? json_object_get_double(timeout) : 30.0;
    double wait_ms = seconds * 1000.0;
    if (!aio_boolean(body, "wait", 0) || wait_ms < 0.0)
        wait_ms = 0.0;
    if (wait_ms > (double)SBX_PROCESS_WAIT_MAX_MS)
        wait_ms = (double)SBX_PROCESS_WAIT_MAX_MS;
    gathered g;
    memset(&g, 0, sizeof g);
    sbx_error err;
    sbx_error_clear(&err);
    sbx_status st = read_output(call, pid, (sbx_process_cursor){(uint64_t)out_at,
                                                                (uint64_t)err_at},
                                (int64_t)wait_ms, &g, &err);
    hold_unfinished(&g);
    if (st != SBX_OK) {
        aio_answer_session_failure(st, &err, pid, reply);
    } else if (g.out_of_memory) {
        prov_reply_out_of_memory(reply);
    } else {
        json_object *data = json_object_new_object();
        int built = data != NULL &&
                    prov_json_add_string(data, "session_id",
                                         aio_string(body, "session_id", "")) &&
                    prov_json_add(data, "stdout", stream_text(g.bytes[0], g.len[0])) &&
                    prov_json_add(data, "stderr", stream_text(g.bytes[1], g.len[1])) &&
                    prov_json_add(data, "offset",
                                  json_object_new_int64((int64_t)g.next.stdout_offset)) &&
                    prov_json_add(data, "stderr_offset",
                                  json_object_new_int64((int64_t)g.next.stderr_offset)) &&
                    prov_json_add(data, "command", command_info(call, pid, &g));
        aio_answer_data(reply, prov_json_built(data, built));
    }
    free(g.bytes[0]);
    free(g.bytes[1]);
    json_object_put(body);
}

void aio_route_bash_write(const aio_call *call, prov_reply *reply)
{
    json_object *body = aio_body_read(call->req->body, call->req->body_len, write_fields,
                                      sizeof write_fields / sizeof write_fields[0], reply);
    char found[SBX_PROCESS_ID_MAX + 1];
    const char *pid = body != NULL ? process_of(call, body, found, reply) : NULL;
    if (pid != NULL) {
        json_object *input = aio_member(body, "input");
        sbx_process_write_request rq = SBX_PROCESS_WRITE_REQUEST_INIT;
        rq.data = json_object_get_string(input);
        rq.length = (size_t)json_object_get_string_len(input);
        sbx_error err;
        sbx_error_clear(&err);
        sbx_status st = sbx_backend_process_write(call->backend, call->sandbox_id, pid, &rq,
                                                  &err);
        if (st == SBX_OK)
            aio_answer_ok(reply, NULL);
        else
            aio_answer_session_failure(st, &err, pid, reply);
    }
    json_object_put(body);
}

void aio_route_bash_kill(const aio_call *call, prov_reply *reply)
{
    json_object *body = aio_body_read(call->req->body, call->req->body_len, kill_fields,
                                      sizeof kill_fields / sizeof kill_fields[0], reply);
    char found[SBX_PROCESS_ID_MAX + 1];
    const char *pid = body != NULL ? process_of(call, body, found, reply) : NULL;
    if (pid == NULL) {
        json_object_put(body);
        return;
    }
    const char *name = aio_string(body, "signal", "SIGTERM");
    int sig = strcmp(name, "SIGKILL") == 0 ? SIGKILL : strcmp(name, "SIGINT") == 0 ? SIGINT
                                                                                : SIGTERM;
    sbx_error err;
    sbx_error_clear(&err);
    sbx_status st = sbx_backend_process_signal(call->backend, call->sandbox_id, pid, sig, &err);
    if (st == SBX_OK)
        aio_answer_ok(reply, NULL);
    else
        aio_answer_session_failure(st, &err, pid, reply);
    json_object_put(body);
}

/* A close kills a running command and waits for its end up to
 * CLOSE_TRIES times CLOSE_WAIT_MS, the kill sent again each time: a
 * signal that found no process group yet (a command that was only
 * starting) is not lost for good. */
#define CLOSE_WAIT_MS INT64_C(1000)
#define CLOSE_TRIES 10

sbx_status aio_process_end(const aio_call *call, const char *pid, sbx_error *err)
{
    sbx_process_info *info = NULL;
    sbx_status st = sbx_backend_process_wait(call->backend, call->sandbox_id, pid, 0, &info,
                                             err);
    for (int i = 0; i < CLOSE_TRIES && st == SBX_OK && info->state == SBX_PROCESS_RUNNING; i++) {
        sbx_backend_free_processes(call->backend, info);
        info = NULL;
        st = sbx_backend_process_signal(call->backend, call->sandbox_id, pid, SIGKILL, err);
        if (st == SBX_OK)
            st = sbx_backend_process_wait(call->backend, call->sandbox_id, pid, CLOSE_WAIT_MS,
                                          &info, err);
    }
    sbx_backend_free_processes(call->backend, info);
    if (st == SBX_OK)
        st = sbx_backend_process_forget(call->backend, call->sandbox_id, pid, err);
    return st;
}

void aio_route_bash_session_close(const aio_call *call, prov_reply *reply)
{
    const char *pid = call->path_id;
    if (aio_bash_session_close(call, pid, reply))
        return;
    sbx_error err;
    sbx_error_clear(&err);
    /* A session's command is ended first: closing a session ends what
     * runs in it, as the AIO server's cleanup does. */
    sbx_status st = aio_process_end(call, pid, &err);
    if (st == SBX_OK)
        aio_answer_ok(reply, NULL);
    else
        aio_answer_session_failure(st, &err, pid, reply);
}

json_object *aio_process_session_json(const sbx_process_info *info, const char *dir)
{
    int64_t used = info->state == SBX_PROCESS_ENDED && info->ended_at != SBX_TIME_UNKNOWN
                       ? info->ended_at : info->started_at;
    return aio_bash_session_json(info->process_id, dir, info->started_at, used, 1,
                                 info->state == SBX_PROCESS_RUNNING
                                     ? aio_process_command_text(info) : NULL);
}
