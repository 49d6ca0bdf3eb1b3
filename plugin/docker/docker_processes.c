/* Live processes in a sandbox's container (see docker_processes.h). */
#include <config.h>

#include "plugin/docker/docker_processes.h"

#include "common/exec_request.h"
#include "common/op_results.h"
#include "plugin/docker/docker_exec.h"
#include "plugin/docker/docker_pty_helper.h"
#include "plugin/docker/docker_proc_answers.h"
#include "plugin/docker/docker_proc_script.h"
#include "plugin/docker/docker_proc_server.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

/* The script's waits are counted in naps of about this many ms. */
#define NAP_MS 10
/* Bytes of a read answer beyond its data: the header and runs lines (at
 * most 256 runs). */
#define READ_HEADER_MAX 4096
/* Bytes of an answer that carries no data. */
#define SMALL_ANSWER 4096
/* Bytes of a wait or list answer: records of up to max_processes
 * running and as many ended processes, argv and all. */
#define LIST_ANSWER ((size_t)16 << 20)

/* One exec of the script. */
typedef struct proc_call {
    const char *op;                /* the descriptor's call, for messages */
    const char *const *args;       /* the script's OP and arguments, NULL-terminated */
    const void *input;             /* bytes for its stdin, or NULL */
    size_t input_length;
    const char *working_dir;       /* the request's, or NULL */
    int64_t wait_ms;               /* how long the script itself may wait */
    size_t max_output;             /* bytes kept of each of its streams */
} proc_call;

/* Run `c` in the sandbox's container.  SBX_OK with *out (free with
 * common_exec_result_free) when the script ran to its end with status 0;
 * `what` (DOCKER_WHAT_MAX bytes) names the call for the caller's
 * messages. */
static sbx_status proc_run(sbx_backend_instance *inst, const char *sandbox_id,
                           const proc_call *c, char *what, sbx_exec_result **out,
                           sbx_error *err)
{
    *out = NULL;
    snprintf(what, DOCKER_WHAT_MAX, "%s in sandbox '%s'", c->op, sandbox_id);
    size_t n = 0;
    while (c->args[n] != NULL)
        n++;
    const char **argv = calloc(n + 5, sizeof *argv);
    if (argv == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    argv[0] = "/bin/sh";
    argv[1] = "-c";
    argv[2] = docker_proc_script();
    argv[3] = "sbx-proc";
    memcpy(argv + 4, c->args, n * sizeof *argv);
    docker_target t;
    char dir[DOCKER_PATH_MAX];
    docker_exec_spec spec = {
        .argv = argv,
        .working_dir = c->working_dir != NULL ? dir : NULL,
        .stdin_data = c->input,
        .stdin_length = c->input_length,
        .timeout_ms = c->wait_ms + inst->options.timeout_ms,
        .max_output_bytes = c->max_output,
    };
    sbx_status st = SBX_OK;
    /* A kept container that is gone is forgotten and the sandbox looked up
     * again, as exec does. */
    for (int attempt = 0; attempt < 3; attempt++) {
        st = docker_target_find_kept(inst, sandbox_id, c->op, &t, err);
        if (st == SBX_OK && c->working_dir != NULL)
            st = docker_target_path(&t, c->working_dir, dir, err);
        if (st == SBX_OK)
            st = docker_proc_exec_run(inst, &t, &spec, out, err);
        if (st != SBX_ERR_NOT_FOUND || !t.kept)
            break;
        docker_target_forget(inst, &t);
    }
    free(argv);
    if (st != SBX_OK)
        return st;
    const sbx_exec_result *r = *out;
    if (r->outcome == SBX_EXEC_EXITED && r->exit_code == 0)
        return SBX_OK;
    if (r->outcome == SBX_EXEC_EXITED && r->exit_code == 127 && r->stdout_length == 0)
        st = sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED,
                                   "docker: %s: the image has no /bin/sh, which processes need",
                                   what);
    else if (r->outcome == SBX_EXEC_TIMED_OUT)
        st = sbx_backend_error_set(err, SBX_ERR_TRANSPORT,
                                   "docker: %s: the container did not answer within %lld ms",
                                   what, (long long)spec.timeout_ms);
    else
        st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                   "docker: %s: the process script failed (exit %d): %.200s",
                                   what, r->exit_code, r->stderr_data);
    common_exec_result_free(*out);
    *out = NULL;
    return st;
}

/* The words after "sbx-OP " on the answer's first line when it is one of
 * OP's, else NULL. */
static const char *answer_of(const sbx_exec_result *r, const char *op)
{
    size_t n = strlen(op);
    if (r->stdout_length < n + 6 || strncmp(r->stdout_data, "sbx-", 4) != 0 ||
        strncmp(r->stdout_data + 4, op, n) != 0 || r->stdout_data[4 + n] != ' ')
        return NULL;
    return r->stdout_data + 5 + n;
}

/* 1 when the answer's words begin with `word` and end there or at a
 * space or newline. */
static int says(const char *words, const char *word)
{
    size_t n = strlen(word);
    return words != NULL && strncmp(words, word, n) == 0 &&
           (words[n] == '\0' || words[n] == ' ' || words[n] == '\n');
}

/* The errors every call on one process shares: the script's "none", or
 * an answer that is none of OP's.  SBX_OK when `words` is something
 * else of OP's. */
static sbx_status shared_answer(const char *words, const char *what, const char *process_id,
                                sbx_error *err)
{
    if (words == NULL)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "docker: %s: the process script gave no answer", what);
    if (says(words, "none"))
        return sbx_backend_error_set(err, SBX_ERR_NO_SUCH_PROCESS,
                                     "docker: %s: no process '%s' (never started there, or "
                                     "forgotten)",
                                     what, process_id);
    return SBX_OK;
}

/* A new process id: "p", the start in ms (13 hex digits) and 8 random
 * hex digits, so that the script's glob lists processes oldest first and
 * an id is never reused. */
static void new_process_id(int64_t started_ms, char out[32])
{
    uint32_t noise = 0;
    if (getrandom(&noise, sizeof noise, 0) != (ssize_t)sizeof noise)
        noise = (uint32_t)clock();
    snprintf(out, 32, "p%013" PRIx64 "%08" PRIx32, (uint64_t)started_ms, noise);
}

static int64_t wall_ms(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

/* The words a start hands the script, and the strings it made for them. */
typedef struct start_args {
    const char **args;
    char **owned;           /* the numbers and env pairs, each malloc'd */
    size_t owned_count;
} start_args;

static void start_args_free(start_args *a)
{
    for (size_t i = 0; i < a->owned_count; i++)
        free(a->owned[i]);
    free(a->owned);
    free(a->args);
}

/* Keep a formatted string as the next argument; 0, or -1 out of memory. */
static int add_owned(start_args *a, size_t *at, const char *text)
{
    char *copy = strdup(text);
    if (copy == NULL)
        return -1;
    a->owned[a->owned_count++] = copy;
    a->args[(*at)++] = copy;
    return 0;
}

/* What a start decided beside its request: the argv it runs, its id,
 * start time and buffer, and the sandbox's process limit. */
typedef struct start_plan {
    const char *const *argv;
    const char *id;
    int64_t t0;
    size_t buffer;
    long max;
} start_plan;

/* "start ID T0 BUF STDIN TIMEOUT MAX NENV PTY ENV... ARGV...", PTY "-" or
 * "ROWS,COLS". */
static int build_start_args(const sbx_process_request *r, const start_plan *p, start_args *a)
{
    const char *const *argv = p->argv;
    size_t argc = 0;
    while (argv[argc] != NULL)
        argc++;
    memset(a, 0, sizeof *a);
    a->args = calloc(10 + r->env_count + argc, sizeof *a->args);
    a->owned = calloc(7 + r->env_count, sizeof *a->owned);
    if (a->args == NULL || a->owned == NULL)
        return -1;
    size_t at = 0;
    char num[32];
    a->args[at++] = "start";
    a->args[at++] = p->id;
    long long numbers[] = { (long long)p->t0, (long long)p->buffer, r->stdin_open ? 1 : 0,
                            (long long)r->timeout_ms, p->max, (long long)r->env_count };
    for (size_t i = 0; i < sizeof numbers / sizeof *numbers; i++) {
        snprintf(num, sizeof num, "%lld", numbers[i]);
        if (add_owned(a, &at, num) != 0)
            return -1;
    }
    char size[32] = "-";
    if (r->pty)
        snprintf(size, sizeof size, "%u,%u", r->rows, r->cols);
    if (add_owned(a, &at, size) != 0)
        return -1;
    for (size_t i = 0; i < r->env_count; i++) {
        size_t len = strlen(r->env[i].name) + strlen(r->env[i].value) + 2;
        char *pair = malloc(len);
        if (pair == NULL)
            return -1;
        snprintf(pair, len, "%s=%s", r->env[i].name, r->env[i].value);
        a->owned[a->owned_count++] = pair;
        a->args[at++] = pair;
    }
    for (size_t i = 0; i < argc; i++)
        a->args[at++] = argv[i];
    return 0;
}

/* The info a start answers: the request's argv, RUNNING. */
static sbx_status started_info(const char *id, const char *const *argv, int64_t t0, int pty,
                               sbx_process_info **out, sbx_error *err)
{
    size_t argc = 0;
    while (argv[argc] != NULL)
        argc++;
    sbx_process_info *info = docker_proc_info_new(id, argc);
    if (info != NULL)
        info->pty = pty;
    for (size_t i = 0; info != NULL && i < argc; i++) {
        info->argv[i] = strdup(argv[i]);
        if (info->argv[i] == NULL) {
            docker_proc_free_infos(info);
            info = NULL;
        }
    }
    if (info == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    info->started_at = t0;
    *out = info;
    return SBX_OK;
}

/* The request checked as exec checks its own, and its buffer's size. */
static sbx_status check_start(const sbx_backend_instance *inst, const char *sandbox_id,
                              const sbx_process_request *r, size_t *buffer, sbx_error *err)
{
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st != SBX_OK)
        return st;
    if (r->pty && (r->rows < 1 || r->rows > SBX_PTY_SIZE_MAX || r->cols < 1 ||
                   r->cols > SBX_PTY_SIZE_MAX))
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "docker: process_start in sandbox '%s': a terminal of %u "
                                     "rows and %u columns (each must be 1 to %d)",
                                     sandbox_id, r->rows, r->cols, SBX_PTY_SIZE_MAX);
    const sbx_exec_request as_exec = {
        .struct_size = sizeof as_exec, .argv = r->argv, .shell_command = r->shell_command,
        .env = r->env, .env_count = r->env_count, .working_dir = r->working_dir,
        .timeout_ms = r->timeout_ms, .cancel_fd = SBX_EXEC_NO_CANCEL };
    st = common_exec_request_check(&as_exec, sandbox_id, DOCKER_EXEC_MAX_TIMEOUT_MS, 0, err);
    if (st != SBX_OK)
        return st;
    size_t most = (size_t)inst->options.max_process_buffer_bytes;
    if (r->buffer_bytes > most)
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "docker: process_start in sandbox '%s': buffer_bytes %zu "
                                     "is above this backend's largest, %zu "
                                     "(option max_process_buffer_bytes)",
                                     sandbox_id, r->buffer_bytes, most);
    size_t fallback = (size_t)inst->options.process_buffer_bytes;
    *buffer = r->buffer_bytes != SBX_PROCESS_DEFAULT ? r->buffer_bytes
              : fallback < most                      ? fallback
                                                     : most;
    return SBX_OK;
}

sbx_status docker_process_start(sbx_backend_instance *inst, const char *sandbox_id,
                                const sbx_process_request *request, sbx_process_info **out,
                                sbx_error *err)
{
    *out = NULL;
    static const sbx_process_request defaults = SBX_PROCESS_REQUEST_INIT;
    sbx_process_request r = defaults;
    memcpy(&r, request, request->struct_size < sizeof r ? request->struct_size : sizeof r);
    size_t buffer = 0;
    sbx_status st = check_start(inst, sandbox_id, &r, &buffer, err);
    if (st != SBX_OK)
        return st;
    const char *shell[] = { "/bin/sh", "-c", r.shell_command, NULL };
    const char *const *argv = r.argv != NULL ? r.argv : shell;
    int64_t t0 = wall_ms();
    char id[32];
    new_process_id(t0, id);
    start_args a;
    const start_plan plan = { argv, id, t0, buffer, inst->options.max_processes };
    if (build_start_args(&r, &plan, &a) != 0) {
        start_args_free(&a);
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    char what[DOCKER_WHAT_MAX];
    sbx_exec_result *res = NULL;
    const proc_call call = { .op = "process_start", .args = a.args,
                             .working_dir = r.working_dir, .max_output = SMALL_ANSWER };
    st = proc_run(inst, sandbox_id, &call, what, &res, err);
    const char *words = st == SBX_OK ? answer_of(res, "start") : NULL;
    /* The container's first process: the helper goes in, the start again. */
    if (says(words, "nohelper")) {
        common_exec_result_free(res);
        res = NULL;
        st = docker_pty_helper_install(inst, sandbox_id, err);
        if (st == SBX_OK)
            st = proc_run(inst, sandbox_id, &call, what, &res, err);
        words = st == SBX_OK ? answer_of(res, "start") : NULL;
    }
    start_args_free(&a);
    if (st != SBX_OK)
        return st;
    if (says(words, "ok"))
        st = started_info(id, argv, t0, r.pty, out, err);
    else if (says(words, "limit"))
        st = sbx_backend_error_set(err, SBX_ERR_REFUSED,
                                   "docker: %s: %ld processes run there already, the limit "
                                   "(option max_processes)",
                                   what, inst->options.max_processes);
    else if (says(words, "missing"))
        st = sbx_backend_error_set(err, SBX_ERR_UNSUPPORTED,
                                   "docker: %s: the image has no '%.40s', which processes need",
                                   what, words + 8);
    else if (says(words, "failed"))
        st = sbx_backend_error_set(err, SBX_ERR_PERMISSION,
                                   "docker: %s: cannot make the process's directory under "
                                   DOCKER_PROC_ROOT, what);
    else
        st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                   "docker: %s: the process script gave no answer", what);
    common_exec_result_free(res);
    return st;
}

/* Naps of the script for a wait of `wait_ms`. */
static void naps_of(int64_t wait_ms, char out[32])
{
    snprintf(out, 32, "%lld", (long long)((wait_ms + NAP_MS - 1) / NAP_MS));
}

/* A read answer into *out. */
static sbx_status read_answer(const sbx_exec_result *res, const char *words, const char *what,
                              const sbx_process_cursor *cursor, sbx_process_output **out,
                              sbx_error *err)
{
    if (says(words, "past"))
        return sbx_backend_error_set(
            err, SBX_ERR_USAGE,
            "docker: %s: the cursor (stdout %" PRIu64 ", stderr %" PRIu64 ") is past the end "
            "of the output (stdout and stderr: %.60s)",
            what, cursor->stdout_offset, cursor->stderr_offset, words + 5);
    docker_proc_read_header h;
    const char *nl = memchr(res->stdout_data, '\n', res->stdout_length);
    const char *runs = nl != NULL ? nl + 1 : NULL;
    const char *end = res->stdout_data + res->stdout_length;
    const char *runs_end = runs != NULL ? memchr(runs, '\n', (size_t)(end - runs)) : NULL;
    if (runs_end == NULL || docker_proc_parse_read_header(res->stdout_data, &h) != 0 ||
        strncmp(runs, "sbx-runs", 8) != 0 || h.out_from < cursor->stdout_offset ||
        h.err_from < cursor->stderr_offset || res->stdout_truncated || res->stderr_truncated)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "docker: %s: the process script's answer is not a read",
                                     what);
    docker_proc_read_bytes bytes = {
        .runs = runs + 8,
        .out = runs_end + 1,
        .out_len = (size_t)(end - (runs_end + 1)),
        .err = res->stderr_data,
        .err_len = res->stderr_length,
    };
    /* Fewer bytes than promised: a segment went while they were read;
     * the next read counts them as dropped. */
    int rc = docker_proc_output_new(cursor, &h, &bytes, out);
    if (rc == -2)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    if (rc != 0)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "docker: %s: the process script's runs do not match the "
                                     "bytes it promised", what);
    return SBX_OK;
}

sbx_status docker_process_read(sbx_backend_instance *inst, const char *sandbox_id,
                               const char *process_id, const sbx_process_read_request *request,
                               sbx_process_output **out, sbx_error *err)
{
    *out = NULL;
    static const sbx_process_read_request defaults = SBX_PROCESS_READ_REQUEST_INIT;
    sbx_process_read_request r = defaults;
    memcpy(&r, request, request->struct_size < sizeof r ? request->struct_size : sizeof r);
    size_t max = r.max_bytes == SBX_PROCESS_DEFAULT ? DOCKER_PROC_READ_DEFAULT
                 : r.max_bytes < DOCKER_PROC_READ_MAX ? r.max_bytes
                                                      : DOCKER_PROC_READ_MAX;
    char co[32], ce[32], most[32], naps[32];
    snprintf(co, sizeof co, "%" PRIu64, r.cursor.stdout_offset);
    snprintf(ce, sizeof ce, "%" PRIu64, r.cursor.stderr_offset);
    snprintf(most, sizeof most, "%zu", max);
    naps_of(r.wait_ms, naps);
    const char *args[] = { "read", process_id, co, ce, most, naps, NULL };
    char what[DOCKER_WHAT_MAX];
    sbx_exec_result *res = NULL;
    sbx_status st = proc_run(inst, sandbox_id,
                             &(proc_call){ .op = "process_read", .args = args,
                                           .wait_ms = r.wait_ms,
                                           .max_output = max + READ_HEADER_MAX },
                             what, &res, err);
    if (st != SBX_OK)
        return st;
    const char *words = answer_of(res, "read");
    st = shared_answer(words, what, process_id, err);
    if (st == SBX_OK)
        st = read_answer(res, words, what, &r.cursor, out, err);
    common_exec_result_free(res);
    return st;
}

/* A call on one process whose answer is "ok" or an error: SBX_OK, or
 * `refusal` (SBX_ERR_USAGE) when the answer is `refused_word`. */
typedef struct simple_call {
    proc_call call;
    const char *answer_op;         /* the script's OP */
    const char *refused_word;      /* NULL: none */
    const char *refusal;           /* the message's end for it */
} simple_call;

static sbx_status run_simple(sbx_backend_instance *inst, const char *sandbox_id,
                             const char *process_id, const simple_call *c, sbx_error *err)
{
    char what[DOCKER_WHAT_MAX];
    sbx_exec_result *res = NULL;
    sbx_status st = proc_run(inst, sandbox_id, &c->call, what, &res, err);
    if (st != SBX_OK)
        return st;
    const char *words = answer_of(res, c->answer_op);
    st = shared_answer(words, what, process_id, err);
    if (st == SBX_OK && c->refused_word != NULL && says(words, c->refused_word))
        st = sbx_backend_error_set(err, SBX_ERR_USAGE, "docker: %s: process '%s' %s", what,
                                   process_id, c->refusal);
    else if (st == SBX_OK && !says(words, "ok"))
        st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                   "docker: %s: the process script could not do it: %.60s",
                                   what, words);
    common_exec_result_free(res);
    return st;
}

sbx_status docker_process_write(sbx_backend_instance *inst, const char *sandbox_id,
                                const char *process_id,
                                const sbx_process_write_request *request, sbx_error *err)
{
    static const sbx_process_write_request defaults = SBX_PROCESS_WRITE_REQUEST_INIT;
    sbx_process_write_request r = defaults;
    memcpy(&r, request, request->struct_size < sizeof r ? request->struct_size : sizeof r);
    int has_data = r.length > 0 && r.data != NULL;
    const char *args[] = { "write", process_id, has_data ? "1" : "0", r.close_stdin ? "1" : "0",
                           NULL };
    simple_call c = {
        .call = { .op = "process_write", .args = args, .input = has_data ? r.data : NULL,
                  .input_length = has_data ? r.length : 0, .max_output = SMALL_ANSWER },
        .answer_op = "write",
        .refused_word = "closed",
        .refusal = "has its stdin closed (closed by a write, never opened, or the process "
                   "ended)",
    };
    return run_simple(inst, sandbox_id, process_id, &c, err);
}

sbx_status docker_process_resize(sbx_backend_instance *inst, const char *sandbox_id,
                                 const char *process_id, unsigned rows, unsigned cols,
                                 sbx_error *err)
{
    if (rows < 1 || rows > SBX_PTY_SIZE_MAX || cols < 1 || cols > SBX_PTY_SIZE_MAX)
        return sbx_backend_error_set(err, SBX_ERR_USAGE,
                                     "docker: process_resize of '%s' in sandbox '%s': %u rows "
                                     "and %u columns (each must be 1 to %d)",
                                     process_id, sandbox_id, rows, cols, SBX_PTY_SIZE_MAX);
    char r[16], c[16];
    snprintf(r, sizeof r, "%u", rows);
    snprintf(c, sizeof c, "%u", cols);
    const char *args[] = { "resize", process_id, r, c, NULL };
    simple_call call = {
        .call = { .op = "process_resize", .args = args, .max_output = SMALL_ANSWER },
        .answer_op = "resize",
        .refused_word = "notty",
        .refusal = "has no terminal (it was started without pty)",
    };
    return run_simple(inst, sandbox_id, process_id, &call, err);
}

sbx_status docker_process_signal(sbx_backend_instance *inst, const char *sandbox_id,
                                 const char *process_id, int signal, sbx_error *err)
{
    char number[16];
    snprintf(number, sizeof number, "%d", signal);
    const char *args[] = { "signal", process_id, number, NULL };
    simple_call c = {
        .call = { .op = "process_signal", .args = args, .max_output = SMALL_ANSWER },
        .answer_op = "signal",
    };
    return run_simple(inst, sandbox_id, process_id, &c, err);
}

sbx_status docker_process_forget(sbx_backend_instance *inst, const char *sandbox_id,
                                 const char *process_id, sbx_error *err)
{
    const char *args[] = { "forget", process_id, NULL };
    simple_call c = {
        .call = { .op = "process_forget", .args = args, .max_output = SMALL_ANSWER },
        .answer_op = "forget",
        .refused_word = "running",
        .refusal = "still runs (only an ended process can be forgotten)",
    };
    return run_simple(inst, sandbox_id, process_id, &c, err);
}

/* The info records of a wait or list answer into *out and *count. */
static sbx_status infos_answer(const sbx_exec_result *res, const char *what,
                               sbx_process_info **out, size_t *count, sbx_error *err)
{
    if (res->stdout_truncated)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "docker: %s: the process records are larger than %zu "
                                     "bytes", what, LIST_ANSWER);
    int rc = docker_proc_parse_infos(res->stdout_data, res->stdout_length, out, count);
    if (rc == -2)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    if (rc != 0)
        return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                     "docker: %s: the process script's records are malformed",
                                     what);
    return SBX_OK;
}

sbx_status docker_process_wait(sbx_backend_instance *inst, const char *sandbox_id,
                               const char *process_id, int64_t wait_ms, sbx_process_info **out,
                               sbx_error *err)
{
    *out = NULL;
    char naps[32];
    naps_of(wait_ms, naps);
    const char *args[] = { "wait", process_id, naps, NULL };
    char what[DOCKER_WHAT_MAX];
    sbx_exec_result *res = NULL;
    sbx_status st = proc_run(inst, sandbox_id,
                             &(proc_call){ .op = "process_wait", .args = args,
                                           .wait_ms = wait_ms, .max_output = LIST_ANSWER },
                             what, &res, err);
    if (st != SBX_OK)
        return st;
    if (res->stdout_length > 0 && res->stdout_data[0] == 's')
        st = shared_answer(answer_of(res, "wait"), what, process_id, err);
    size_t count = 0;
    if (st == SBX_OK)
        st = infos_answer(res, what, out, &count, err);
    if (st == SBX_OK && count != 1) {
        docker_proc_free_infos(*out);
        *out = NULL;
        st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                   "docker: %s: the process script answered %zu records", what,
                                   count);
    }
    common_exec_result_free(res);
    return st;
}

sbx_status docker_process_list(sbx_backend_instance *inst, const char *sandbox_id,
                               sbx_process_info **out, size_t *count, sbx_error *err)
{
    *out = NULL;
    *count = 0;
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st != SBX_OK)
        return st;
    const char *args[] = { "list", NULL };
    char what[DOCKER_WHAT_MAX];
    sbx_exec_result *res = NULL;
    st = proc_run(inst, sandbox_id,
                  &(proc_call){ .op = "process_list", .args = args, .max_output = LIST_ANSWER },
                  what, &res, err);
    if (st != SBX_OK)
        return st;
    st = infos_answer(res, what, out, count, err);
    common_exec_result_free(res);
    return st;
}
