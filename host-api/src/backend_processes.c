/* The live-process operations of ABI 1.4 as the host hands them out: a
 * module of an older minor, or one that lacks an operation, answers
 * "unsupported"; what a caller passes is checked before the module is
 * called (process ids, terminal sizes, signals, waits, request sizes), and
 * what a module answers is checked before the caller reads it. */
#include <config.h>

#include "host-api/src/host_internal.h"

#include <string.h>

/* A process id as <sbx/backend.h> defines it: 1 to SBX_PROCESS_ID_MAX
 * bytes of [A-Za-z0-9._-], the first a letter or digit. */
static int is_process_id(const char *id)
{
    static const char alnum[] = "abcdefghijklmnopqrstuvwxyz"
                                "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static const char allowed[] = "abcdefghijklmnopqrstuvwxyz"
                                  "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-";
    if (id[0] == '\0' || strchr(alnum, id[0]) == NULL)
        return 0;
    size_t n = strspn(id, allowed);
    return n <= SBX_PROCESS_ID_MAX && id[n] == '\0';
}

/* The sandbox and process a call is about. */
static sbx_status check_target(const char *op, const char *sandbox_id, const char *process_id,
                               sbx_error *err)
{
    if (sandbox_id == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "%s: a sandbox id is required", op);
    if (process_id == NULL || !is_process_id(process_id))
        return sbx_error_set(err, SBX_ERR_USAGE,
                             "%s: '%.80s' is not a process id (1 to %d bytes of "
                             "A-Z a-z 0-9 . _ -, the first a letter or digit)",
                             op, process_id == NULL ? "(null)" : process_id,
                             SBX_PROCESS_ID_MAX);
    return SBX_OK;
}

static sbx_status check_terminal_size(const char *op, unsigned rows, unsigned cols,
                                      sbx_error *err)
{
    if (rows >= 1 && rows <= SBX_PTY_SIZE_MAX && cols >= 1 && cols <= SBX_PTY_SIZE_MAX)
        return SBX_OK;
    return sbx_error_set(err, SBX_ERR_USAGE,
                         "%s: terminal size %u rows x %u columns is outside 1..%d",
                         op, rows, cols, SBX_PTY_SIZE_MAX);
}

static sbx_status check_wait(const char *op, int64_t wait_ms, sbx_error *err)
{
    if (wait_ms >= 0 && wait_ms <= SBX_PROCESS_WAIT_MAX_MS)
        return SBX_OK;
    return sbx_error_set(err, SBX_ERR_USAGE, "%s: wait of %lld ms is outside 0..%lld",
                         op, (long long)wait_ms, (long long)SBX_PROCESS_WAIT_MAX_MS);
}

/* What is wrong with a chain of process infos a backend answered (it must
 * hold `count` of them), or NULL. */
static const char *infos_problem(const sbx_process_info *p, size_t count)
{
    size_t seen = 0;
    for (; p != NULL; p = p->next, seen++) {
        if (p->struct_size < SBX_PROCESS_INFO_SIZE_1_4)
            return "a process info smaller than ABI 1.4's";
        if (p->process_id == NULL || !is_process_id(p->process_id))
            return "a process info without a valid process id";
        if (p->argv == NULL)
            return "a process info without its argv";
        if (p->state != SBX_PROCESS_RUNNING && p->state != SBX_PROCESS_ENDED)
            return "a process info in an unknown state";
    }
    if (seen != count)
        return "a chain of process infos whose length differs from its count";
    return NULL;
}

/* Hand a backend's chain of infos to the caller, or release it and fail
 * naming the backend and `op` when it is malformed. */
static sbx_status checked_infos(sbx_backend *b, sbx_status st, const char *op,
                                sbx_process_info **out, size_t count, sbx_error *err)
{
    st = host_checked(b, st, op, err);
    if (st != SBX_OK)
        return st;
    const char *problem = infos_problem(*out, count);
    if (problem == NULL)
        return SBX_OK;
    b->descriptor->free_processes(*out);
    *out = NULL;
    return host_malformed(b, op, problem, err);
}

/* Bytes of stream `stream` in an output's chunks, or UINT64_MAX when a
 * chunk is empty or of no known stream. */
static uint64_t stream_bytes(const sbx_process_output *o, sbx_stream stream)
{
    uint64_t n = 0;
    for (size_t i = 0; i < o->chunk_count; i++) {
        const sbx_output_chunk *c = &o->chunks[i];
        if (c->length == 0 ||
            (c->stream != SBX_STREAM_STDOUT && c->stream != SBX_STREAM_STDERR))
            return UINT64_MAX;
        if (c->stream == stream)
            n += c->length;
    }
    return n;
}

/* What is wrong with an output a backend answered for `request`, or NULL.
 * The next cursor must follow from the request's: a reader that trusted a
 * cursor that skips or repeats bytes would lose or duplicate output. */
static const char *output_problem(const sbx_process_output *o,
                                  const sbx_process_read_request *request)
{
    if (o == NULL)
        return "no output";
    if (o->struct_size < SBX_PROCESS_OUTPUT_SIZE_1_4)
        return "an output smaller than ABI 1.4's";
    if (o->data == NULL || (o->chunk_count > 0 && o->chunks == NULL))
        return "an output without its buffers";
    uint64_t out_bytes = stream_bytes(o, SBX_STREAM_STDOUT);
    uint64_t err_bytes = stream_bytes(o, SBX_STREAM_STDERR);
    if (out_bytes == UINT64_MAX || out_bytes + err_bytes != o->length)
        return "chunks that are empty, of no known stream, or do not add up to its length";
    if (request->max_bytes != SBX_PROCESS_DEFAULT && o->length > request->max_bytes)
        return "more bytes than asked";
    const sbx_process_cursor *from = &request->cursor;
    if (o->next.stdout_offset != from->stdout_offset + o->stdout_dropped + out_bytes ||
        o->next.stderr_offset != from->stderr_offset + o->stderr_dropped + err_bytes)
        return "a next cursor that does not follow from the request's";
    return NULL;
}

sbx_status sbx_backend_process_start(sbx_backend *b, const char *sandbox_id,
                                     const sbx_process_request *request,
                                     sbx_process_info **out, sbx_error *err)
{
    *out = NULL;
    sbx_error_clear(err);
    const sbx_backend_descriptor *d = b->descriptor;
    if (!HOST_HAS_OP(d, process_start))
        return host_unsupported(b, "process_start", err);
    if (sandbox_id == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "process_start: a sandbox id is required");
    sbx_status st = HOST_CHECK_REQUEST("process_start", SBX_PROCESS_REQUEST, request, err);
    if (st == SBX_OK && request->pty)
        st = check_terminal_size("process_start", request->rows, request->cols, err);
    if (st == SBX_OK && request->timeout_ms < 0)
        st = sbx_error_set(err, SBX_ERR_USAGE, "process_start: timeout of %lld ms is negative",
                           (long long)request->timeout_ms);
    if (st == SBX_OK && request->pty && !HOST_HAS_OP(d, process_resize))
        st = host_unsupported(b, "process_start with a terminal", err);
    if (st != SBX_OK)
        return st;
    st = d->process_start(b->instance, sandbox_id, request, out, err);
    return checked_infos(b, st, "process_start", out, 1, err);
}

sbx_status sbx_backend_process_read(sbx_backend *b, const char *sandbox_id,
                                    const char *process_id,
                                    const sbx_process_read_request *request,
                                    sbx_process_output **out, sbx_error *err)
{
    *out = NULL;
    sbx_error_clear(err);
    const sbx_backend_descriptor *d = b->descriptor;
    if (!HOST_HAS_OP(d, process_read))
        return host_unsupported(b, "process_read", err);
    sbx_status st = check_target("process_read", sandbox_id, process_id, err);
    if (st == SBX_OK)
        st = HOST_CHECK_REQUEST("process_read", SBX_PROCESS_READ_REQUEST, request, err);
    if (st == SBX_OK)
        st = check_wait("process_read", request->wait_ms, err);
    if (st != SBX_OK)
        return st;
    st = host_checked(b, d->process_read(b->instance, sandbox_id, process_id, request, out, err),
                      "process_read", err);
    if (st != SBX_OK)
        return st;
    const char *problem = output_problem(*out, request);
    if (problem == NULL)
        return SBX_OK;
    d->free_process_output(*out);
    *out = NULL;
    return host_malformed(b, "process_read", problem, err);
}

sbx_status sbx_backend_process_write(sbx_backend *b, const char *sandbox_id,
                                     const char *process_id,
                                     const sbx_process_write_request *request, sbx_error *err)
{
    sbx_error_clear(err);
    const sbx_backend_descriptor *d = b->descriptor;
    if (!HOST_HAS_OP(d, process_write))
        return host_unsupported(b, "process_write", err);
    sbx_status st = check_target("process_write", sandbox_id, process_id, err);
    if (st == SBX_OK)
        st = HOST_CHECK_REQUEST("process_write", SBX_PROCESS_WRITE_REQUEST, request, err);
    if (st == SBX_OK && request->data == NULL && request->length > 0)
        st = sbx_error_set(err, SBX_ERR_USAGE, "process_write: %zu bytes but no data",
                           request->length);
    if (st != SBX_OK)
        return st;
    return host_checked(b, d->process_write(b->instance, sandbox_id, process_id, request, err),
                        "process_write", err);
}

sbx_status sbx_backend_process_signal(sbx_backend *b, const char *sandbox_id,
                                      const char *process_id, int signal, sbx_error *err)
{
    sbx_error_clear(err);
    const sbx_backend_descriptor *d = b->descriptor;
    if (!HOST_HAS_OP(d, process_signal))
        return host_unsupported(b, "process_signal", err);
    sbx_status st = check_target("process_signal", sandbox_id, process_id, err);
    if (st == SBX_OK && (signal < 1 || signal > SBX_SIGNAL_MAX))
        st = sbx_error_set(err, SBX_ERR_USAGE, "process_signal: signal %d is outside 1..%d",
                           signal, SBX_SIGNAL_MAX);
    if (st != SBX_OK)
        return st;
    return host_checked(b, d->process_signal(b->instance, sandbox_id, process_id, signal, err),
                        "process_signal", err);
}

sbx_status sbx_backend_process_resize(sbx_backend *b, const char *sandbox_id,
                                      const char *process_id, unsigned rows, unsigned cols,
                                      sbx_error *err)
{
    sbx_error_clear(err);
    const sbx_backend_descriptor *d = b->descriptor;
    if (!HOST_HAS_OP(d, process_resize))
        return host_unsupported(b, "process_resize", err);
    sbx_status st = check_target("process_resize", sandbox_id, process_id, err);
    if (st == SBX_OK)
        st = check_terminal_size("process_resize", rows, cols, err);
    if (st != SBX_OK)
        return st;
    return host_checked(b, d->process_resize(b->instance, sandbox_id, process_id, rows, cols,
                                             err),
                        "process_resize", err);
}

sbx_status sbx_backend_process_wait(sbx_backend *b, const char *sandbox_id,
                                    const char *process_id, int64_t wait_ms,
                                    sbx_process_info **out, sbx_error *err)
{
    *out = NULL;
    sbx_error_clear(err);
    const sbx_backend_descriptor *d = b->descriptor;
    if (!HOST_HAS_OP(d, process_wait))
        return host_unsupported(b, "process_wait", err);
    sbx_status st = check_target("process_wait", sandbox_id, process_id, err);
    if (st == SBX_OK)
        st = check_wait("process_wait", wait_ms, err);
    if (st != SBX_OK)
        return st;
    st = d->process_wait(b->instance, sandbox_id, process_id, wait_ms, out, err);
    return checked_infos(b, st, "process_wait", out, 1, err);
}

sbx_status sbx_backend_process_list(sbx_backend *b, const char *sandbox_id,
                                    sbx_process_info **out, size_t *count, sbx_error *err)
{
    *out = NULL;
    *count = 0;
    sbx_error_clear(err);
    const sbx_backend_descriptor *d = b->descriptor;
    if (!HOST_HAS_OP(d, process_list))
        return host_unsupported(b, "process_list", err);
    if (sandbox_id == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "process_list: a sandbox id is required");
    sbx_status st = d->process_list(b->instance, sandbox_id, out, count, err);
    st = checked_infos(b, st, "process_list", out, *count, err);
    if (st != SBX_OK)
        *count = 0;
    return st;
}

sbx_status sbx_backend_process_forget(sbx_backend *b, const char *sandbox_id,
                                      const char *process_id, sbx_error *err)
{
    sbx_error_clear(err);
    const sbx_backend_descriptor *d = b->descriptor;
    if (!HOST_HAS_OP(d, process_forget))
        return host_unsupported(b, "process_forget", err);
    sbx_status st = check_target("process_forget", sandbox_id, process_id, err);
    if (st != SBX_OK)
        return st;
    return host_checked(b, d->process_forget(b->instance, sandbox_id, process_id, err),
                        "process_forget", err);
}

void sbx_backend_free_processes(sbx_backend *b, sbx_process_info *processes)
{
    if (processes != NULL)
        b->descriptor->free_processes(processes);
}

void sbx_backend_free_process_output(sbx_backend *b, sbx_process_output *output)
{
    if (output != NULL)
        b->descriptor->free_process_output(output);
}
