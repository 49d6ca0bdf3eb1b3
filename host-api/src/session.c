/* Sessions (<sbx/session.h>, docs/sessions.md): a shell process kept in a
 * sandbox, one command at a time written to its stdin, each command's
 * output and exit code read back from the process's streams up to its end
 * marker. */
#include <config.h>

#include "host-api/src/session_internal.h"
#include "host-api/src/session_marker.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Bytes asked of one process_read. */
#define SESSION_READ_BYTES ((size_t)256 * 1024)

/* During the grace, SIGINT is sent again this often: a command that had
 * not started its child when the first one came is interrupted too. */
#define SESSION_INTERRUPT_EVERY_MS INT64_C(500)

/* How long close and a restart wait for the old shell to end. */
#define SESSION_END_WAIT_MS INT64_C(5000)

/* Sent once to every shell, before any command: an interrupt between
 * commands does nothing (session_marker.h). */
static const char preamble[] = HOST_SESSION_TRAP;

struct sbx_session {
    pthread_mutex_t lock;          /* one command at a time */
    sbx_backend *backend;          /* borrowed */
    host_session_hooks hooks;
    char *sandbox_id;
    char process_id[SBX_PROCESS_ID_MAX + 1]; /* "" while there is no shell */
    sbx_process_cursor cursor;     /* where the next command's output starts */
    char *shell, *working_dir;
    sbx_env_var *env;              /* names and values owned */
    size_t env_count;
    size_t max_output;
    int64_t grace_ms;
};

static int64_t now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static sbx_status use_begin(sbx_session *s, void **token, sbx_error *err)
{
    *token = NULL;
    sbx_error_clear(err);
    return s->hooks.begin == NULL ? SBX_OK : s->hooks.begin(s->hooks.ctx, s->sandbox_id, token,
                                                             err);
}

static void use_end(sbx_session *s, void *token)
{
    if (s->hooks.end != NULL)
        s->hooks.end(s->hooks.ctx, token);
}

/* ---------------------------------------------------------------- the shell */

static sbx_status write_stdin(sbx_session *s, const void *data, size_t length, int close,
                              sbx_error *err)
{
    sbx_process_write_request w = SBX_PROCESS_WRITE_REQUEST_INIT;
    w.data = data;
    w.length = length;
    w.close_stdin = close;
    return sbx_backend_process_write(s->backend, s->sandbox_id, s->process_id, &w, err);
}

static sbx_status start_shell(sbx_session *s, sbx_error *err)
{
    const char *argv[] = {s->shell, NULL};
    sbx_process_request req = SBX_PROCESS_REQUEST_INIT;
    req.argv = argv;
    req.env = s->env;
    req.env_count = s->env_count;
    req.working_dir = s->working_dir;
    req.stdin_open = 1;
    sbx_process_info *info = NULL;
    sbx_status st = sbx_backend_process_start(s->backend, s->sandbox_id, &req, &info, err);
    if (st != SBX_OK)
        return st;
    snprintf(s->process_id, sizeof s->process_id, "%s", info->process_id);
    sbx_backend_free_processes(s->backend, info);
    s->cursor = (sbx_process_cursor){0, 0};
    return write_stdin(s, preamble, sizeof preamble - 1, 0, err);
}

/* Wait up to `wait_ms` for the shell to end: 1 when it has (or is gone). */
static int shell_ended(sbx_session *s, int64_t wait_ms)
{
    sbx_process_info *info = NULL;
    sbx_error err;
    int64_t until = now_ms() + wait_ms;
    for (;;) {
        int64_t left = until - now_ms();
        left = left < 0 ? 0 : left > SBX_PROCESS_WAIT_MAX_MS ? SBX_PROCESS_WAIT_MAX_MS : left;
        sbx_status st = sbx_backend_process_wait(s->backend, s->sandbox_id, s->process_id, left,
                                                 &info, &err);
        if (st != SBX_OK)
            return st == SBX_ERR_NO_SUCH_PROCESS;
        int ended = info->state == SBX_PROCESS_ENDED;
        sbx_backend_free_processes(s->backend, info);
        if (ended || left == 0)
            return ended;
    }
}

/* End the shell: SIGKILL to its group unless it ends within `wait_ms` by
 * itself, then forget it.  The first error that leaves it running. */
static sbx_status end_shell(sbx_session *s, int64_t wait_ms, sbx_error *err)
{
    sbx_status st = SBX_OK;
    if (!shell_ended(s, wait_ms)) {
        st = sbx_backend_process_signal(s->backend, s->sandbox_id, s->process_id, SIGKILL, err);
        if (st == SBX_OK && !shell_ended(s, SESSION_END_WAIT_MS))
            st = sbx_error_set(err, SBX_ERR_TRANSPORT, "session: shell %s did not end within %lld "
                               "ms of SIGKILL", s->process_id, (long long)SESSION_END_WAIT_MS);
    }
    sbx_error ignored;
    if (st == SBX_OK)
        sbx_backend_process_forget(s->backend, s->sandbox_id, s->process_id, &ignored);
    s->process_id[0] = '\0';
    return st;
}

static sbx_status restart_shell(sbx_session *s, sbx_error *err)
{
    sbx_error ignored;
    if (s->process_id[0] != '\0')
        end_shell(s, 0, &ignored); /* a shell that cannot be ended is left behind */
    return start_shell(s, err);
}

/* The current end of both streams of the shell (an attach's start). */
static sbx_status find_end(sbx_session *s, sbx_error *err)
{
    sbx_process_read_request r = SBX_PROCESS_READ_REQUEST_INIT;
    r.max_bytes = SESSION_READ_BYTES;
    for (;;) {
        sbx_process_output *o = NULL;
        sbx_status st = sbx_backend_process_read(s->backend, s->sandbox_id, s->process_id, &r,
                                                 &o, err);
        if (st != SBX_OK)
            return st;
        r.cursor = o->next;
        int done = o->length == 0, ended = o->ended;
        sbx_backend_free_process_output(s->backend, o);
        if (ended)
            return sbx_error_set(err, SBX_ERR_USAGE, "session: process %s has ended",
                                 s->process_id);
        if (done)
            break;
    }
    s->cursor = r.cursor;
    return SBX_OK;
}

/* ---------------------------------------------------------------- one command */

/* A command on its way. */
typedef struct run_state {
    host_marker_scan out, err;
    sbx_process_cursor read_at;    /* the next read (past a done stream's marker) */
    int64_t deadline;              /* 0: none; once interrupted, the grace's end */
    int interrupted;
    int64_t interrupt_at;          /* interrupted: when the next SIGINT is due */
    int shell_gone;                /* the shell ended: exit code below */
    int shell_exit;
    int64_t lone_until;            /* one marker seen: until when the other may come */
    int lone_over;                 /* it did not: the command is over with one */
} run_state;

/* Feed one read's chunks to the scanners. */
static void feed_output(run_state *r, const sbx_process_output *o)
{
    host_marker_skip(&r->out, o->stdout_dropped);
    host_marker_skip(&r->err, o->stderr_dropped);
    const char *p = o->data;
    for (size_t i = 0; i < o->chunk_count; i++) {
        const sbx_output_chunk *c = &o->chunks[i];
        host_marker_feed(c->stream == SBX_STREAM_STDOUT ? &r->out : &r->err, p, c->length);
        p += c->length;
    }
    r->read_at = o->next;
    if (o->ended) {
        r->shell_gone = 1;
        r->shell_exit = o->outcome == SBX_EXEC_EXITED ? o->exit_code : -1;
    }
}

static int marker_seen(const run_state *r)
{
    return r->out.state == HOST_MARKER_DONE && r->err.state == HOST_MARKER_DONE;
}

/* The command is over: both markers, or one and the other not within the
 * grace (the command redirected one of the shell's own streams away, as
 * `exec 2>/dev/null` does). */
static int command_over(const run_state *r)
{
    return marker_seen(r) || r->lone_over;
}

/* Within the wait `wait`, how long to wait for a second marker after the
 * first; sets lone_over when that has passed. */
static int64_t lone_wait(const sbx_session *s, run_state *r, int64_t now, int64_t wait)
{
    if (r->out.state != HOST_MARKER_DONE && r->err.state != HOST_MARKER_DONE)
        return wait;
    if (r->lone_until == 0)
        r->lone_until = now + s->grace_ms;
    int64_t left = r->lone_until - now;
    r->lone_over = left <= 0;
    return left < wait ? left : wait;
}

/* Read until both markers, the shell's end, or the deadline and grace;
 * interrupts the command at its deadline.  SBX_OK also when the command
 * did not come back (then neither command_over nor shell_gone). */
static sbx_status await_marker(sbx_session *s, run_state *r, sbx_error *err)
{
    sbx_process_read_request req = SBX_PROCESS_READ_REQUEST_INIT;
    req.max_bytes = SESSION_READ_BYTES;
    while (!command_over(r) && !r->shell_gone) {
        int64_t wait = SBX_PROCESS_WAIT_MAX_MS, now = now_ms();
        if (r->deadline != 0) {
            if (r->deadline - now <= 0) {
                if (r->interrupted)
                    return SBX_OK;
                r->interrupted = 1;
                r->interrupt_at = now;
                r->deadline = now + s->grace_ms;
            }
            if (r->interrupted && r->interrupt_at - now <= 0) {
                r->interrupt_at = now + SESSION_INTERRUPT_EVERY_MS;
                sbx_status st = sbx_backend_process_signal(s->backend, s->sandbox_id,
                                                           s->process_id, SIGINT, err);
                if (st != SBX_OK && st != SBX_ERR_NO_SUCH_PROCESS)
                    return st;
            }
            int64_t left = (r->interrupted && r->interrupt_at < r->deadline ? r->interrupt_at
                                                                            : r->deadline) - now;
            wait = left < 1 ? 1 : left < wait ? left : wait;
        }
        wait = lone_wait(s, r, now, wait);
        if (r->lone_over)
            return SBX_OK;
        req.cursor = r->read_at;
        req.wait_ms = wait;
        sbx_process_output *o = NULL;
        sbx_status st = sbx_backend_process_read(s->backend, s->sandbox_id, s->process_id, &req,
                                                 &o, err);
        if (st == SBX_ERR_NO_SUCH_PROCESS) {
            r->shell_gone = 1;
            r->shell_exit = -1;
            return SBX_OK;
        }
        if (st != SBX_OK)
            return st;
        feed_output(r, o);
        sbx_backend_free_process_output(s->backend, o);
    }
    return SBX_OK;
}

/* The kept bytes of a scan as a result's buffer (never NULL). */
static char *take_output(host_marker_scan *scan, size_t *length)
{
    char *data = common_dynbuf_take(&scan->output, length);
    if (data == NULL) {
        *length = 0;
        data = calloc(1, 1);
    }
    return data;
}

static sbx_status build_result(run_state *r, int restarted, sbx_session_result **out,
                               sbx_error *err)
{
    sbx_session_result *res = calloc(1, sizeof *res);
    if (res == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "session: out of memory");
    res->struct_size = sizeof *res;
    res->timed_out = r->interrupted;
    res->restarted = restarted;
    res->exit_code = r->out.state == HOST_MARKER_DONE ? host_marker_exit_code(&r->out)
                     : r->err.state == HOST_MARKER_DONE ? host_marker_exit_code(&r->err)
                     : r->shell_gone ? r->shell_exit : -1;
    res->stdout_data = take_output(&r->out, &res->stdout_length);
    res->stderr_data = take_output(&r->err, &res->stderr_length);
    res->stdout_truncated = r->out.truncated;
    res->stderr_truncated = r->err.truncated;
    res->dropped_bytes = r->out.dropped + r->err.dropped;
    if (res->stdout_data == NULL || res->stderr_data == NULL) {
        sbx_session_result_free(res);
        return sbx_error_set(err, SBX_ERR_INTERNAL, "session: out of memory");
    }
    *out = res;
    return SBX_OK;
}

/* Write the command's script, starting a shell first when there is none
 * and once more when the shell turns out to be gone.  *restarted is set
 * when a shell was started. */
static sbx_status send_script(sbx_session *s, const common_dynbuf *script, int *restarted,
                              sbx_error *err)
{
    for (int attempt = 0;; attempt++) {
        sbx_status st = SBX_OK;
        if (s->process_id[0] == '\0') {
            *restarted = 1;
            st = start_shell(s, err);
        }
        if (st == SBX_OK)
            st = write_stdin(s, script->data, script->len, 0, err);
        if (st == SBX_OK || attempt == 1 ||
            (st != SBX_ERR_NO_SUCH_PROCESS && st != SBX_ERR_USAGE))
            return st;
        sbx_error ignored;
        end_shell(s, 0, &ignored);
    }
}

static sbx_status run_locked(sbx_session *s, const char *command, int64_t timeout_ms,
                             sbx_session_result **out, sbx_error *err)
{
    char nonce[HOST_SESSION_NONCE_HEX + 1];
    sbx_status st = host_session_nonce(nonce, err);
    if (st != SBX_OK)
        return st;
    common_dynbuf script;
    common_dynbuf_init(&script, 0);
    if (host_session_script(&script, command, nonce) != COMMON_DYNBUF_OK) {
        common_dynbuf_free(&script);
        return sbx_error_set(err, SBX_ERR_INTERNAL, "session: out of memory");
    }
    int restarted = 0;
    st = send_script(s, &script, &restarted, err);
    common_dynbuf_free(&script);
    if (st != SBX_OK)
        return st;
    run_state r = {.read_at = s->cursor};
    host_marker_scan_init(&r.out, nonce, s->cursor.stdout_offset, s->max_output);
    host_marker_scan_init(&r.err, nonce, s->cursor.stderr_offset, s->max_output);
    r.deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
    st = await_marker(s, &r, err);
    if (st == SBX_OK) {
        if (command_over(&r)) {
            s->cursor = (sbx_process_cursor){
                r.out.state == HOST_MARKER_DONE ? r.out.end_offset : r.read_at.stdout_offset,
                r.err.state == HOST_MARKER_DONE ? r.err.end_offset : r.read_at.stderr_offset};
        } else {
            /* The shell is gone or did not come back from the interrupt. */
            restarted = 1;
            st = restart_shell(s, err);
        }
    }
    if (st == SBX_OK)
        st = build_result(&r, restarted, out, err);
    host_marker_scan_free(&r.out);
    host_marker_scan_free(&r.err);
    return st;
}

sbx_status sbx_session_run(sbx_session *s, const char *command, int64_t timeout_ms,
                           sbx_session_result **out, sbx_error *err)
{
    if (out != NULL)
        *out = NULL;
    sbx_error_clear(err);
    if (s == NULL || out == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "session run: a session and a result "
                             "pointer are required");
    if (command == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "session run: a command is required");
    if (timeout_ms < 0)
        return sbx_error_set(err, SBX_ERR_USAGE, "session run: timeout of %lld ms is negative",
                             (long long)timeout_ms);
    void *token;
    sbx_status st = use_begin(s, &token, err);
    if (st != SBX_OK)
        return st;
    pthread_mutex_lock(&s->lock);
    st = run_locked(s, command, timeout_ms, out, err);
    pthread_mutex_unlock(&s->lock);
    use_end(s, token);
    return st;
}

/* ---------------------------------------------------------------- life */

static void session_free(sbx_session *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->env_count; i++) {
        free((char *)s->env[i].name);
        free((char *)s->env[i].value);
    }
    free(s->env);
    free(s->shell);
    free(s->working_dir);
    free(s->sandbox_id);
    pthread_mutex_destroy(&s->lock);
    free(s);
}

static sbx_status check_options(const sbx_session_options *o, sbx_error *err)
{
    if (o->struct_size < offsetof(sbx_session_options, interrupt_grace_ms) + sizeof(int64_t))
        return sbx_error_set(err, SBX_ERR_USAGE, "session: options not made with "
                             "SBX_SESSION_OPTIONS_INIT (struct_size %zu)", o->struct_size);
    if (o->shell != NULL && o->shell[0] != '/')
        return sbx_error_set(err, SBX_ERR_USAGE, "session: shell '%.200s' is not an absolute "
                             "path", o->shell);
    if (o->env_count > 0 && o->env == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "session: %zu environment variables but no "
                             "array", o->env_count);
    if (o->max_output_bytes > SBX_SESSION_MAX_OUTPUT_BYTES)
        return sbx_error_set(err, SBX_ERR_USAGE, "session: max_output_bytes %zu is above %zu",
                             o->max_output_bytes, SBX_SESSION_MAX_OUTPUT_BYTES);
    if (o->interrupt_grace_ms < 0 || o->interrupt_grace_ms > SBX_PROCESS_WAIT_MAX_MS)
        return sbx_error_set(err, SBX_ERR_USAGE, "session: interrupt_grace_ms %lld is outside "
                             "0..%lld", (long long)o->interrupt_grace_ms,
                             (long long)SBX_PROCESS_WAIT_MAX_MS);
    return SBX_OK;
}

static char *copy_or_null(const char *text, int *failed)
{
    char *copy = text != NULL ? strdup(text) : NULL;
    *failed |= text != NULL && copy == NULL;
    return copy;
}

/* A session holding copies of what `o` says (no shell yet). */
static sbx_session *session_new(const sbx_session_options *o, const char *sandbox_id)
{
    sbx_session *s = calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    pthread_mutex_init(&s->lock, NULL);
    int failed = 0;
    s->sandbox_id = copy_or_null(sandbox_id, &failed);
    s->shell = copy_or_null(o->shell != NULL ? o->shell : "/bin/sh", &failed);
    s->working_dir = copy_or_null(o->working_dir, &failed);
    if (o->env_count > 0 && (s->env = calloc(o->env_count, sizeof *s->env)) == NULL)
        failed = 1;
    for (size_t i = 0; !failed && i < o->env_count; i++, s->env_count++) {
        s->env[i].name = copy_or_null(o->env[i].name, &failed);
        s->env[i].value = copy_or_null(o->env[i].value, &failed);
    }
    s->max_output = o->max_output_bytes != 0 ? o->max_output_bytes
                                              : SBX_SESSION_DEFAULT_OUTPUT_BYTES;
    s->grace_ms = o->interrupt_grace_ms != 0 ? o->interrupt_grace_ms
                                              : SBX_SESSION_DEFAULT_GRACE_MS;
    if (failed) {
        session_free(s);
        return NULL;
    }
    return s;
}

sbx_status host_session_new(const host_session_place *at, const sbx_session_options *options,
                            sbx_session **out, sbx_error *err)
{
    static const sbx_session_options defaults = SBX_SESSION_OPTIONS_INIT;
    sbx_backend *backend = at->backend;
    const char *sandbox_id = at->sandbox_id, *process_id = at->process_id;
    const char *op = process_id == NULL ? "session open" : "session attach";
    if (out != NULL)
        *out = NULL;
    sbx_error_clear(err);
    if (backend == NULL || sandbox_id == NULL || out == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "%s: a backend, a sandbox id and a session "
                             "pointer are required", op);
    if (options == NULL)
        options = &defaults;
    sbx_status st = check_options(options, err);
    if (st == SBX_OK && process_id != NULL && strlen(process_id) > SBX_PROCESS_ID_MAX)
        st = sbx_error_set(err, SBX_ERR_USAGE, "%s: process id of %zu bytes is longer than %d",
                           op, strlen(process_id), SBX_PROCESS_ID_MAX);
    if (st != SBX_OK)
        return st;
    sbx_session *s = session_new(options, sandbox_id);
    if (s == NULL)
        return sbx_error_set(err, SBX_ERR_INTERNAL, "%s: out of memory", op);
    s->backend = backend;
    if (at->hooks != NULL)
        s->hooks = *at->hooks;
    void *token;
    st = use_begin(s, &token, err);
    if (st == SBX_OK) {
        if (process_id == NULL) {
            st = start_shell(s, err);
            sbx_error ignored;
            if (st != SBX_OK && s->process_id[0] != '\0')
                end_shell(s, 0, &ignored);
        } else {
            snprintf(s->process_id, sizeof s->process_id, "%s", process_id);
            st = find_end(s, err);
        }
        use_end(s, token);
    }
    if (st != SBX_OK) {
        session_free(s);
        return st;
    }
    *out = s;
    return SBX_OK;
}

sbx_status sbx_session_open(sbx_backend *backend, const char *sandbox_id,
                            const sbx_session_options *options, sbx_session **out,
                            sbx_error *err)
{
    const host_session_place at = { backend, NULL, sandbox_id, NULL };
    return host_session_new(&at, options, out, err);
}

sbx_status host_session_attach(const host_session_place *at,
                               const sbx_session_options *options, sbx_session **out,
                               sbx_error *err)
{
    if (at->process_id == NULL) {
        if (out != NULL)
            *out = NULL;
        return sbx_error_set(err, SBX_ERR_USAGE, "session attach: a process id is required");
    }
    return host_session_new(at, options, out, err);
}

sbx_status sbx_session_attach(sbx_backend *backend, const char *sandbox_id,
                              const char *process_id, const sbx_session_options *options,
                              sbx_session **out, sbx_error *err)
{
    const host_session_place at = { backend, NULL, sandbox_id, process_id };
    return host_session_attach(&at, options, out, err);
}

const char *sbx_session_process_id(const sbx_session *s)
{
    return s == NULL ? NULL : s->process_id;
}

sbx_status sbx_session_close(sbx_session *s, sbx_error *err)
{
    sbx_error_clear(err);
    if (s == NULL)
        return SBX_OK;
    void *token;
    sbx_status st = SBX_OK;
    if (s->process_id[0] != '\0' && (st = use_begin(s, &token, err)) == SBX_OK) {
        sbx_error ignored;
        /* A shell that reads end of file exits; one that is gone is fine. */
        write_stdin(s, NULL, 0, 1, &ignored);
        st = end_shell(s, s->grace_ms, err);
        use_end(s, token);
    }
    session_free(s);
    return st;
}

void sbx_session_detach(sbx_session *s)
{
    session_free(s);
}

void sbx_session_result_free(sbx_session_result *r)
{
    if (r == NULL)
        return;
    free(r->stdout_data);
    free(r->stderr_data);
    free(r);
}
