/* Commands in a sandbox's container (see docker_exec.h). */
#include <config.h>

#include "plugin/docker/docker_exec.h"

#include "common/exec_request.h"
#include "common/json_fields.h"
#include "common/op_results.h"
#include "common/sandbox_ids.h"
#include "plugin/docker/docker_conn.h"
#include "plugin/docker/docker_container.h"
#include "plugin/docker/docker_frames.h"
#include "plugin/docker/docker_oom.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

/* The wrapper every command starts under: $1 the working directory ("":
 * the container's), $2 the exec's token, the rest the command.  Its first
 * line on stderr says its pid, which is its process group (each exec is a
 * session leader), and the container's count of OOM kills so far (nothing
 * when unknown: docker_oom.h), or that the directory is missing.  The
 * command is exec'd in a subshell (a fork, no program start) so that the
 * wrapper can end stderr with "sbx-exec TOKEN: exit CODE" on a line of its
 * own: the exec inspect after the stream is then not needed.  The token,
 * new for each exec, keeps a command's own words from passing for that
 * line.  printf, not echo: bash's echo (an image's /bin/sh may be bash)
 * prints "\n" as it stands. */
#define WRAPPER                                                                          \
    "if [ -n \"$1\" ]; then cd \"$1\" 2>/dev/null || { echo 'sbx-exec: nodir' >&2; "       \
    "exit 127; }; fi; t=$2; " DOCKER_OOM_COUNT_SH "; echo \"sbx-exec: pid $$ oom $o\" >&2; " \
    "shift 2; ( exec \"$@\" ); c=$?; printf '\\nsbx-exec %s: exit %s\\n' \"$t\" \"$c\" >&2; " \
    "exit $c"
#define PREAMBLE_PID "sbx-exec: pid "
#define PREAMBLE_OOM " oom "
#define PREAMBLE_NODIR "sbx-exec: nodir"
#define PREAMBLE_MAX 64
/* The token's hex digits. */
#define TOKEN_LEN 16
/* "\nsbx-exec TOKEN: exit ", the trailer's start. */
#define MARK_LEN (sizeof "\nsbx-exec : exit " - 1 + TOKEN_LEN)
/* The most stderr bytes held back as the trailer's start: the mark and
 * three digits. */
#define TRAILER_HOLD (MARK_LEN + 3)

/* How long the kill of a timed-out command, and its stream's end after
 * it, may take. */
#define KILL_TIMEOUT_MS INT64_C(10000)

/* One exec of a command: where it runs, what, and the engine's exec. */
typedef struct exec_call {
    sbx_backend_instance *inst;
    const docker_target *t;
    const docker_exec_spec *spec;
    char token[TOKEN_LEN + 1];             /* marks the wrapper's trailer */
    char id[DOCKER_CONTAINER_ID_MAX];      /* the engine's, once created */
    int64_t start;                         /* when its create was sent */
    int cancel_fd;                         /* a hang-up ends it as its timeout
                                            * does; SBX_EXEC_NO_CANCEL: none */
} exec_call;

/* The exec's state while its stream is read. */
typedef struct exec_stream {
    common_output out, errs;
    char preamble[PREAMBLE_MAX + 1];
    size_t preamble_len;
    int preamble_done;    /* the first stderr line was read (or never will be) */
    long pgid;            /* from the preamble, 0 when unknown */
    long oom_before;      /* from the preamble, DOCKER_OOM_UNKNOWN when not said */
    int nodir;
    char mark[MARK_LEN + 1];  /* "\nsbx-exec TOKEN: exit " */
    char held[TRAILER_HOLD];  /* stderr's bytes that may begin the trailer */
    size_t held_len;
    int have_code, code;      /* the trailer's exit code, once read */
    sbx_output_fn on_output;  /* the caller's, or NULL */
    void *output_ctx;
    sbx_error *err;
} exec_stream;

/* The command's bytes of `stream` into its kept output, and to the
 * caller's callback as they arrive (ABI 1.4 exec streams).  0, or 1 with
 * s->err filled. */
static int emit(exec_stream *s, sbx_stream stream, const char *bytes, size_t n)
{
    if (n == 0)
        return 0;
    if (s->on_output != NULL)
        s->on_output(s->output_ctx, stream, bytes, n);
    common_output *o = stream == SBX_STREAM_STDOUT ? &s->out : &s->errs;
    return common_output_add(o, bytes, n, s->err) != SBX_OK;
}

/* The wrapper's line is not the command's: stderr starts after it.  When
 * the first line is not the wrapper's (the wrapper never ran), it is
 * kept as output. */
static int take_preamble(exec_stream *s, const char *bytes, size_t n, size_t *used)
{
    *used = 0;
    while (*used < n && !s->preamble_done) {
        char c = bytes[(*used)++];
        if (c != '\n' && s->preamble_len < PREAMBLE_MAX) {
            s->preamble[s->preamble_len++] = c;
            continue;
        }
        s->preamble_done = 1;
        s->preamble[s->preamble_len] = '\0';
        const char *pid = s->preamble;
        if (c == '\n' && strncmp(pid, PREAMBLE_PID, strlen(PREAMBLE_PID)) == 0) {
            char *end = NULL;
            s->pgid = strtol(pid + strlen(PREAMBLE_PID), &end, 10);
            const char *count = strncmp(end, PREAMBLE_OOM, strlen(PREAMBLE_OOM)) == 0
                                    ? end + strlen(PREAMBLE_OOM) : "";
            if (*count >= '0' && *count <= '9')
                s->oom_before = strtol(count, NULL, 10);
            return 0;
        }
        if (c == '\n' && strcmp(pid, PREAMBLE_NODIR) == 0) {
            s->nodir = 1;
            return 0;
        }
        /* Not ours: give it back to stderr, with the byte that ended it. */
        if (emit(s, SBX_STREAM_STDERR, s->preamble, s->preamble_len) ||
            emit(s, SBX_STREAM_STDERR, &c, 1))
            return 1;
    }
    return 0;
}

/* Stderr's bytes into its output, but for the wrapper's trailer: the
 * bytes that may begin it are held until they prove not to, and once
 * complete it gives the exit code and is dropped.  Its token makes it
 * unique, so it is found wherever it stands (a process the command left
 * behind may write after it). */
static int scan_stderr(exec_stream *s, const char *bytes, size_t n)
{
    while (n > 0) {
        if (s->held_len == 0) {
            const char *nl = s->have_code ? NULL : memchr(bytes, '\n', n);
            size_t plain = nl != NULL ? (size_t)(nl - bytes) : n;
            if (emit(s, SBX_STREAM_STDERR, bytes, plain))
                return 1;
            bytes += plain;
            n -= plain;
            if (n > 0) {
                s->held[s->held_len++] = *bytes++;
                n--;
            }
            continue;
        }
        char c = *bytes;
        size_t at = s->held_len;
        int digit = c >= '0' && c <= '9';
        if (at < MARK_LEN ? c != s->mark[at]
                          : !(digit && at < MARK_LEN + 3) && !(c == '\n' && at > MARK_LEN)) {
            /* Not the trailer: the held bytes are the command's, and c is
             * looked at again (it may begin the trailer). */
            if (emit(s, SBX_STREAM_STDERR, s->held, s->held_len))
                return 1;
            s->held_len = 0;
            continue;
        }
        bytes++;
        n--;
        if (at >= MARK_LEN && c == '\n') {
            s->code = 0;
            for (size_t i = MARK_LEN; i < at; i++)
                s->code = s->code * 10 + (s->held[i] - '0');
            s->have_code = 1;
            s->held_len = 0;
        } else {
            s->held[s->held_len++] = c;
        }
    }
    return 0;
}

/* docker_frames_fn: the command's bytes into its streams. */
static int exec_stream_take(void *ctx, int stream, const char *bytes, size_t n)
{
    exec_stream *s = ctx;
    if (stream == DOCKER_STREAM_STDOUT)
        return emit(s, SBX_STREAM_STDOUT, bytes, n);
    size_t used = 0;
    if (stream != DOCKER_STREAM_STDERR) {
        /* The engine's own words, after the command's held ones. */
        int failed = emit(s, SBX_STREAM_STDERR, s->held, s->held_len);
        s->held_len = 0;
        return failed || emit(s, SBX_STREAM_STDERR, bytes, n);
    }
    if (take_preamble(s, bytes, n, &used) != 0)
        return 1;
    return scan_stderr(s, bytes + used, n - used);
}

/* A new token for an exec (TOKEN_LEN hex digits and a NUL): from
 * getrandom, or the clock and a counter when it fails (the token guards
 * against a command's words by chance, not against an attacker). */
static void new_token(char *token)
{
    static atomic_ulong counter;
    uint64_t v = 0;
    if (getrandom(&v, sizeof v, GRND_NONBLOCK) != (ssize_t)sizeof v)
        v = (uint64_t)docker_now_ms() * 1000003u ^ atomic_fetch_add(&counter, 1);
    snprintf(token, TOKEN_LEN + 1, "%016llx", (unsigned long long)v);
}

/* The body of the exec create: the wrapper and the command. */
static char *create_body(const docker_exec_spec *spec, const char *token)
{
    json_object *o = json_object_new_object(), *cmd = json_object_new_array(),
                *env = json_object_new_array();
    if (o == NULL || cmd == NULL || env == NULL) {
        json_object_put(o);
        json_object_put(cmd);
        json_object_put(env);
        return NULL;
    }
    json_object_object_add(o, "AttachStdin", json_object_new_boolean(spec->stdin_data != NULL));
    json_object_object_add(o, "AttachStdout", json_object_new_boolean(1));
    json_object_object_add(o, "AttachStderr", json_object_new_boolean(1));
    json_object_object_add(o, "Tty", json_object_new_boolean(0));
    json_object_array_add(cmd, json_object_new_string("/bin/sh"));
    json_object_array_add(cmd, json_object_new_string("-c"));
    json_object_array_add(cmd, json_object_new_string(WRAPPER));
    json_object_array_add(cmd, json_object_new_string("sbx-exec"));
    json_object_array_add(cmd, json_object_new_string(spec->working_dir ? spec->working_dir : ""));
    json_object_array_add(cmd, json_object_new_string(token));
    for (size_t i = 0; spec->argv[i] != NULL; i++)
        json_object_array_add(cmd, json_object_new_string(spec->argv[i]));
    json_object_object_add(o, "Cmd", cmd);
    for (size_t i = 0; i < spec->env_count; i++) {
        size_t len = strlen(spec->env[i].name) + strlen(spec->env[i].value) + 2;
        char *pair = malloc(len);
        if (pair == NULL)
            continue;
        snprintf(pair, len, "%s=%s", spec->env[i].name, spec->env[i].value);
        json_object_array_add(env, json_object_new_string(pair));
        free(pair);
    }
    json_object_object_add(o, "Env", env);
    char *body = NULL;
    const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    if (text != NULL && json_object_array_length(env) == spec->env_count)
        body = strdup(text);
    json_object_put(o);
    return body;
}

/* An engine's "the container is not running" (dockerd 409, podman 500
 * "container state improper") or "no such container" (404). */
static int container_gone(const common_http_response *resp, const char *body)
{
    return resp->status == 404 || resp->status == 409 ||
           (resp->status == 500 && body != NULL && strstr(body, "state improper") != NULL);
}

/* POST /containers/ID/exec: the exec's Id into x->id. */
static sbx_status exec_create(exec_call *x, sbx_error *err)
{
    const docker_target *t = x->t;
    char *body = create_body(x->spec, x->token);
    if (body == NULL)
        return sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    char path[DOCKER_CONTAINER_ID_MAX + 32];
    snprintf(path, sizeof path, "/containers/%s/exec", t->container_id);
    common_http_response resp;
    sbx_status st = docker_engine_call(
        &x->inst->engine, &(common_http_call){.method = "POST", .path = path, .json_body = body},
        t->what, &resp, err);
    free(body);
    if (st != SBX_OK)
        return st;
    if (resp.status != 201 && resp.status != 200) {
        st = container_gone(&resp, resp.body) ? docker_target_gone(t, err)
                                              : docker_engine_error(&resp, t->what,
                                                                    SBX_ERR_NOT_FOUND, err);
        common_http_response_clear(&resp);
        return st;
    }
    json_object *o = docker_engine_parse(&resp, json_type_object, t->what, err);
    common_http_response_clear(&resp);
    const char *id = NULL;
    if (o == NULL)
        return SBX_ERR_PROTOCOL;
    if (common_json_get_string(o, "Id", &id) != COMMON_JSON_OK ||
        docker_container_id_checked(id) == NULL)
        st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                   "docker: %s: the exec create answer has no valid Id", t->what);
    else
        snprintf(x->id, sizeof x->id, "%s", id);
    json_object_put(o);
    return st;
}

/* GET /exec/ID/json until it no longer runs: its exit code.  An engine
 * may still say "running" a moment after the stream ended, so it is
 * asked again (bounded). */
static sbx_status exec_exit_code(const exec_call *x, int *code, sbx_error *err)
{
    const docker_target *t = x->t;
    char path[DOCKER_CONTAINER_ID_MAX + 32];
    snprintf(path, sizeof path, "/exec/%s/json", x->id);
    for (int attempt = 0; attempt < 200; attempt++) {
        common_http_response resp;
        sbx_status st = docker_engine_call(
            &x->inst->engine, &(common_http_call){.method = "GET", .path = path}, t->what, &resp,
            err);
        if (st != SBX_OK)
            return st;
        if (resp.status != 200) {
            st = container_gone(&resp, resp.body)
                     ? docker_target_gone(t, err)
                     : docker_engine_error(&resp, t->what, SBX_ERR_NOT_FOUND, err);
            common_http_response_clear(&resp);
            return st;
        }
        json_object *o = docker_engine_parse(&resp, json_type_object, t->what, err);
        common_http_response_clear(&resp);
        if (o == NULL)
            return SBX_ERR_PROTOCOL;
        int running = 1, got = common_json_get_int(o, "ExitCode", code) == COMMON_JSON_OK;
        common_json_get_bool(o, "Running", &running);
        json_object_put(o);
        if (!running && got)
            return SBX_OK;
        nanosleep(&(struct timespec){ 0, 25 * 1000 * 1000 }, NULL);
    }
    return sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                 "docker: %s: the engine still says the command runs after "
                                 "its output ended", t->what);
}

/* Kill the process group of a timed-out command from inside the
 * container.  Failures are logged: the result says TIMED_OUT whatever. */
static void kill_group(sbx_backend_instance *inst, const docker_target *t, long pgid)
{
    char group[32];
    snprintf(group, sizeof group, "%ld", pgid);
    const char *argv[] = { "/bin/sh", "-c", "kill -KILL -\"$1\"", "sh", group, NULL };
    docker_exec_spec kill = { .argv = argv, .timeout_ms = KILL_TIMEOUT_MS,
                              .max_output_bytes = 4096 };
    sbx_exec_result *r = NULL;
    sbx_error err;
    sbx_status st = pgid > 1 ? docker_exec_run(inst, t, &kill, &r, &err) : SBX_OK;
    if (pgid <= 1)
        DOCKER_LOG(inst, SBX_LOG_WARN, "%s: timed out before it said its process group", t->what);
    else if (st != SBX_OK)
        DOCKER_LOG(inst, SBX_LOG_WARN, "%s: killing the timed-out command failed: %s", t->what,
                   err.message);
    else if (r->outcome != SBX_EXEC_EXITED || r->exit_code != 0)
        DOCKER_LOG(inst, SBX_LOG_WARN, "%s: killing the timed-out command failed: %.200s",
                   t->what, r->stderr_data);
    common_exec_result_free(r);
}

/* Start the exec on a hijacked connection and read its stream to the
 * end; *timed_out when the timeout, or a hang-up on x->cancel_fd, ended
 * it. */
static sbx_status exec_stream_run(const exec_call *x, exec_stream *s, int *timed_out,
                                  sbx_error *err)
{
    sbx_backend_instance *inst = x->inst;
    const docker_target *t = x->t;
    const docker_exec_spec *spec = x->spec;
    int64_t start = docker_now_ms();
    int64_t limit = start + spec->timeout_ms;
    docker_conn c;
    sbx_status st = docker_conn_open(&c, &inst->engine, t->what,
                                     limit + KILL_TIMEOUT_MS * 2 + inst->engine.timeout_ms, err);
    char path[DOCKER_CONTAINER_ID_MAX + 32];
    snprintf(path, sizeof path, "/exec/%s/start", x->id);
    static const char body[] = "{\"Detach\":false,\"Tty\":false}";
    docker_conn_request start_request = {
        .method = "POST", .path = path,
        .extra_headers = "Content-Type: application/json\r\nConnection: Upgrade\r\n"
                         "Upgrade: tcp\r\n",
        .body = body, .body_len = sizeof body - 1 };
    if (st == SBX_OK)
        st = docker_conn_send(&c, &inst->engine, &start_request, err);
    if (st == SBX_OK)
        st = docker_conn_read_head(&c, err);
    if (st == SBX_OK && c.status != 101 && c.status != 200) {
        char text[1024];
        common_http_response resp;
        docker_conn_error_body(&c, text, sizeof text, &resp);
        st = container_gone(&resp, text) ? docker_target_gone(t, err)
                                         : docker_engine_error(&resp, t->what, SBX_ERR_NOT_FOUND,
                                                               err);
    }
    /* Watched from the stream on: the caller's client going away ends the
     * command as its timeout does. */
    c.cancel_fd = x->cancel_fd;
    docker_conn_outgoing stdin_out = { spec->stdin_data, spec->stdin_length, 0, 0 };
    docker_frames frames;
    docker_frames_init(&frames, exec_stream_take, s);
    *timed_out = 0;
    int killed = 0;
    char buf[65536];
    while (st == SBX_OK) {
        docker_conn_read in = { .buf = buf, .size = sizeof buf, .until_ms = limit };
        st = docker_conn_pump(&c, spec->stdin_data != NULL ? &stdin_out : NULL, &in, err);
        if (st != SBX_OK)
            break;
        if (in.timed_out && killed)
            break; /* the group is dead but something keeps the stream open */
        if (in.timed_out) {
            *timed_out = killed = 1;
            kill_group(inst, t, s->pgid);
            limit = docker_now_ms() + KILL_TIMEOUT_MS;
            continue;
        }
        if (in.got == 0)
            break;
        int rc = docker_frames_feed(&frames, buf, in.got);
        if (rc < 0)
            st = sbx_backend_error_set(err, SBX_ERR_PROTOCOL,
                                       "docker: %s: the exec stream is not multiplexed frames",
                                       t->what);
        else if (rc > 0)
            st = SBX_ERR_INTERNAL; /* common_output_add filled err */
    }
    docker_conn_close(&c);
    return st;
}

/* Start the created exec x, read it to its end and make its result; the
 * duration runs from x->start. */
static sbx_status exec_created_run(const exec_call *x, sbx_exec_result **out, sbx_error *err)
{
    const docker_target *t = x->t;
    exec_stream s;
    memset(&s, 0, sizeof s);
    s.oom_before = DOCKER_OOM_UNKNOWN;
    s.err = err;
    s.on_output = x->spec->on_output;
    s.output_ctx = x->spec->output_ctx;
    snprintf(s.mark, sizeof s.mark, "\nsbx-exec %s: exit ", x->token);
    common_output_init(&s.out, x->spec->max_output_bytes);
    common_output_init(&s.errs, x->spec->max_output_bytes);
    int timed_out = 0, code = 0;
    sbx_status st = exec_stream_run(x, &s, &timed_out, err);
    int64_t duration = docker_now_ms() - x->start;
    /* Held bytes the stream ended in are the command's. */
    if (st == SBX_OK && emit(&s, SBX_STREAM_STDERR, s.held, s.held_len))
        st = SBX_ERR_INTERNAL;
    if (st == SBX_OK && s.have_code)
        code = s.code;
    else if (st == SBX_OK && !timed_out)
        st = exec_exit_code(x, &code, err);
    if (st == SBX_OK && s.nodir)
        st = sbx_backend_error_set(err, SBX_ERR_NO_SUCH_PATH,
                                   "docker: %s: the working directory does not exist", t->what);
    sbx_exec_result *r = st == SBX_OK ? common_exec_result_new(&s.out, &s.errs) : NULL;
    if (st == SBX_OK && r == NULL)
        st = sbx_backend_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    common_output_free(&s.out);
    common_output_free(&s.errs);
    if (st != SBX_OK)
        return st;
    r->duration_ms = duration;
    if (timed_out) {
        r->outcome = SBX_EXEC_TIMED_OUT;
        r->exit_code = -1;
    } else if (s.pgid == 0) {
        /* The wrapper never ran (no /bin/sh): the program is missing, as
         * dockerd's 126 and podman's 127 both mean here. */
        r->exit_code = 127;
    } else if (code > 128 && code <= 128 + 64) {
        /* The engines report a command a signal ended as 128+N. */
        r->outcome = SBX_EXEC_SIGNALED;
        r->exit_code = -1;
        r->term_signal = code - 128;
    } else {
        r->exit_code = code & 255;
    }
    docker_oom_note(x->inst, t, s.oom_before, r);
    *out = r;
    return SBX_OK;
}

sbx_status docker_exec_run(sbx_backend_instance *inst, const docker_target *t,
                           const docker_exec_spec *spec, sbx_exec_result **out, sbx_error *err)
{
    *out = NULL;
    exec_call x = { .inst = inst, .t = t, .spec = spec, .start = docker_now_ms(),
                    .cancel_fd = SBX_EXEC_NO_CANCEL };
    new_token(x.token);
    sbx_status st = exec_create(&x, err);
    return st == SBX_OK ? exec_created_run(&x, out, err) : st;
}

sbx_status docker_exec(sbx_backend_instance *inst, const char *sandbox_id,
                       const sbx_exec_request *request, sbx_exec_result **out, sbx_error *err)
{
    *out = NULL;
    sbx_exec_request r;
    common_exec_request_read(request, &r);
    sbx_status st = common_check_sandbox_id(sandbox_id, err);
    if (st == SBX_OK)
        st = common_exec_request_check(&r, sandbox_id, DOCKER_EXEC_MAX_TIMEOUT_MS,
                                       DOCKER_EXEC_MAX_OUTPUT, err);
    if (st != SBX_OK)
        return st;
    docker_target t;
    char dir[DOCKER_PATH_MAX];
    const char *shell[] = { "/bin/sh", "-c", r.shell_command, NULL };
    docker_exec_spec spec = {
        .argv = r.argv != NULL ? r.argv : shell,
        .env = r.env,
        .env_count = r.env_count,
        .working_dir = r.working_dir != NULL ? dir : NULL,
        .stdin_data = r.stdin_data != NULL && r.stdin_length > 0 ? r.stdin_data : NULL,
        .stdin_length = r.stdin_length,
        .timeout_ms = r.timeout_ms > 0 ? r.timeout_ms : DOCKER_EXEC_DEFAULT_TIMEOUT_MS,
        .max_output_bytes = r.max_output_bytes > 0 ? r.max_output_bytes
                                                   : DOCKER_EXEC_DEFAULT_OUTPUT,
        .on_output = r.on_output,
        .output_ctx = r.output_ctx,
    };
    exec_call x = { .inst = inst, .t = &t, .spec = &spec, .cancel_fd = r.cancel_fd };
    new_token(x.token);
    /* A kept container that is gone is forgotten and the sandbox looked up
     * again: nothing ran in it (its create failed), so the command still
     * runs at most once.  Bounded: other threads may keep gone ones too. */
    for (int attempt = 0; attempt < 3; attempt++) {
        st = docker_target_find_kept(inst, sandbox_id, "exec", &t, err);
        if (st == SBX_OK && r.working_dir != NULL)
            st = docker_target_path(&t, r.working_dir, dir, err);
        if (st == SBX_OK) {
            x.start = docker_now_ms();
            st = exec_create(&x, err);
        }
        if (st != SBX_ERR_NOT_FOUND || !t.kept)
            break;
        docker_target_forget(inst, &t);
    }
    if (st != SBX_OK)
        return st;
    return exec_created_run(&x, out, err);
}

sbx_status docker_operations_info(sbx_backend_instance *inst, sbx_operations_info *out,
                                  sbx_error *err)
{
    (void)err;
    size_t most = (size_t)inst->options.max_process_buffer_bytes;
    size_t fallback = (size_t)inst->options.process_buffer_bytes;
    sbx_operations_info info = {
        .struct_size = out->struct_size,
        .operations = SBX_OP_EXEC | SBX_OP_EXEC_SHELL | SBX_OP_EXEC_STDIN | SBX_OP_READ_FILE |
                      SBX_OP_WRITE_FILE | SBX_OP_LIST_DIR | SBX_OP_REMOVE_PATH |
                      SBX_OP_EXEC_STREAM | SBX_OP_PROCESS | SBX_OP_PROCESS_SIGNALS |
                      SBX_OP_PROCESS_STDIN_CLOSE | SBX_OP_PROCESS_PTY,
        .default_timeout_ms = DOCKER_EXEC_DEFAULT_TIMEOUT_MS,
        .max_timeout_ms = DOCKER_EXEC_MAX_TIMEOUT_MS,
        .default_output_bytes = DOCKER_EXEC_DEFAULT_OUTPUT,
        .max_output_bytes = DOCKER_EXEC_MAX_OUTPUT,
        .max_file_bytes = DOCKER_MAX_FILE_BYTES,
        .max_processes = (size_t)inst->options.max_processes,
        .default_buffer_bytes = fallback < most ? fallback : most,
        .max_buffer_bytes = most,
        .create_fields = DOCKER_CREATE_FIELDS,
    };
    size_t n = out->struct_size < sizeof info ? out->struct_size : sizeof info;
    memcpy(out, &info, n);
    return SBX_OK;
}
