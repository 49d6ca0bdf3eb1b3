/* exec, cp and ls: the sandbox operations (ABI 1.3) from the command line,
 * on a sandbox of any backend, by its id. */
#include <config.h>

#include "tools/sbxctl/commands.h"

#include "common/dynbuf.h"
#include "tools/sbxctl/copy_fd.h"
#include "tools/sbxctl/exit_code.h"
#include "tools/sbxctl/write_all.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Bytes read from the sandbox per read_file call when copying out. */
#define COPY_CHUNK (4u << 20)

/* A usage or local-file error, printed as sbxctl prints every error. */
static int fail_with(const ctl_output *out, sbx_status kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail_with(const ctl_output *out, sbx_status kind, const char *fmt, ...)
{
    char message[SBX_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    sbx_error err;
    sbx_error_set(&err, kind, "%s", message);
    return ctl_fail(out, &err);
}

/* All of stdin when it is not a terminal (a pipe or a file: the command
 * reads it); nothing for a terminal, which would wait for typing. */
static int read_stdin(common_dynbuf *in)
{
    if (isatty(STDIN_FILENO))
        return 0;
    char chunk[65536];
    for (;;) {
        ssize_t n = read(STDIN_FILENO, chunk, sizeof chunk);
        if (n == 0)
            return 0;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EBADF)
            return 0; /* stdin closed: empty */
        if (n < 0 || common_dynbuf_add(in, chunk, (size_t)n) != COMMON_DYNBUF_OK)
            return -1;
    }
}

/* Where exec's streamed output goes: sbxctl's stdout and stderr, each
 * piece written as it arrives and nothing kept. */
typedef struct exec_stream {
    int failed;        /* a write failed: the rest is dropped, sbxctl fails */
    int saved_errno;
} exec_stream;

static void write_output(void *ctx, sbx_stream stream, const char *data, size_t length)
{
    exec_stream *sink = ctx;
    if (sink->failed)
        return;
    if (ctl_write_all(stream == SBX_STREAM_STDERR ? STDERR_FILENO : STDOUT_FILENO, data, length) != 0) {
        sink->failed = 1;
        sink->saved_errno = errno;
    }
}

/* Whether the backend calls on_output as output arrives (else the host
 * calls it once at the end with what the result holds). */
static int backend_streams(sbx_backend *backend)
{
    sbx_operations_info info = {.struct_size = sizeof info};
    sbx_error ignored;
    return sbx_backend_operations_info(backend, &info, &ignored) == SBX_OK &&
           (info.operations & SBX_OP_EXEC_STREAM) != 0;
}

/* The smallest result a streamed exec asks for: the bytes went to the
 * terminal already, so the result need not hold them. */
#define STREAMED_RESULT_BYTES 1

int ctl_cmd_exec(const ctl_args *args, sbx_backend *backend, const ctl_output *out)
{
    if (args->interactive || args->tty || args->detach)
        return ctl_cmd_exec_process(args, backend, out);
    common_dynbuf in;
    common_dynbuf_init(&in, 0);
    if (read_stdin(&in) != 0) {
        common_dynbuf_free(&in);
        return fail_with(out, SBX_ERR_USAGE, "exec: cannot read stdin (%s)", strerror(errno));
    }
    sbx_exec_request request = SBX_EXEC_REQUEST_INIT;
    request.argv = args->exec_argv;
    request.env = args->env;
    request.env_count = args->env_count;
    request.working_dir = args->workdir;
    request.timeout_ms = args->timeout_ms;
    request.stdin_data = in.len > 0 ? in.data : NULL;
    request.stdin_length = in.len;
    /* --json prints the result, so it keeps the result's bytes; otherwise
     * the bytes go out as they come, uncut, and memory stays flat. */
    exec_stream sink = {0, 0};
    int streamed = !out->json && backend_streams(backend);
    if (!out->json) {
        request.on_output = write_output;
        request.output_ctx = &sink;
    }
    if (streamed)
        request.max_output_bytes = STREAMED_RESULT_BYTES;
    sbx_error err;
    sbx_exec_result *result = NULL;
    sbx_status st = sbx_backend_exec(backend, args->operand, &request, &result, &err);
    common_dynbuf_free(&in);
    if (st != SBX_OK)
        return ctl_fail(out, &err);
    if (out->json) {
        ctl_print_exec_json(args->operand, result);
    } else {
        /* Unstreamed, the output came from the result: its cut is the
         * terminal's too, and said so. */
        if (!streamed)
            ctl_print_cut_notes(result->stdout_truncated ? result->stdout_length : 0,
                                result->stderr_truncated ? result->stderr_length : 0);
        ctl_print_ending_note(result->outcome, result->term_signal, result->duration_ms);
    }
    int code = ctl_command_exit_code(result->outcome, result->exit_code, result->term_signal);
    sbx_backend_free_exec_result(backend, result);
    if (sink.failed)
        return fail_with(out, SBX_ERR_INTERNAL, "exec: cannot write the command's output (%s)",
                         strerror(sink.saved_errno));
    return code;
}

/* "ID:PATH" names a sandbox path: an id (no '/') before the first ':'.
 * A local path holding ':' is written with a '/' before it (./a:b). */
static int split_sandbox_path(const char *operand, char **id, const char **path)
{
    const char *colon = strchr(operand, ':');
    if (colon == NULL || colon == operand || memchr(operand, '/', (size_t)(colon - operand)))
        return 0;
    *id = strndup(operand, (size_t)(colon - operand));
    *path = colon + 1;
    return 1;
}

/* Read a local file (or stdin for "-") whole. */
static int read_local(const char *name, common_dynbuf *bytes)
{
    int fd = strcmp(name, "-") == 0 ? STDIN_FILENO : open(name, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    char chunk[65536];
    int rc = 0;
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = n < 0 ? -1 : 0;
            break;
        }
        if (common_dynbuf_add(bytes, chunk, (size_t)n) != COMMON_DYNBUF_OK) {
            errno = ENOMEM;
            rc = -1;
            break;
        }
    }
    if (fd != STDIN_FILENO) {
        int saved = errno;
        close(fd);
        errno = saved;
    }
    return rc;
}

static int copy_in(const ctl_args *args, sbx_backend *backend, const ctl_output *out,
                   const char *id, const char *path)
{
    common_dynbuf bytes;
    common_dynbuf_init(&bytes, 0);
    if (read_local(args->operand, &bytes) != 0) {
        common_dynbuf_free(&bytes);
        return fail_with(out, SBX_ERR_USAGE, "cp: cannot read '%s' (%s)", args->operand,
                         strerror(errno));
    }
    struct stat st;
    uint32_t mode = 0;
    if (strcmp(args->operand, "-") != 0 && stat(args->operand, &st) == 0)
        mode = st.st_mode & 0777;
    sbx_error err;
    sbx_status status = sbx_backend_write_file(backend, id, path, bytes.data, bytes.len, 0,
                                               mode, &err);
    size_t copied = bytes.len;
    common_dynbuf_free(&bytes);
    if (status != SBX_OK)
        return ctl_fail(out, &err);
    ctl_print_copied(out, args->operand, args->operand2, copied);
    return CTL_EXIT_OK;
}

/* Where a copy out goes: stdout, a special file or link written in place,
 * or a new file beside a regular destination renamed over it at the end,
 * so that a failed copy leaves no partial file and memory stays one piece
 * whatever the file's size. */
typedef struct copy_sink {
    const char *name;  /* the destination as given */
    int fd;            /* -1 until the first piece */
    char *temp;        /* the new file's path, or NULL when written in place */
} copy_sink;

/* Open the destination, the new file made with the destination's mode
 * (and owner, where this process may give it) or 0644 less the umask.
 * 0, or -1 with errno. */
static int sink_open(copy_sink *sink)
{
    if (strcmp(sink->name, "-") == 0) {
        sink->fd = STDOUT_FILENO;
        return 0;
    }
    struct stat st;
    int exists = lstat(sink->name, &st) == 0;
    if (exists && !S_ISREG(st.st_mode)) {
        sink->fd = open(sink->name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        return sink->fd < 0 ? -1 : 0;
    }
    const char *slash = strrchr(sink->name, '/');
    int dir_len = slash != NULL ? (int)(slash - sink->name + 1) : 0;
    size_t size = strlen(sink->name) + sizeof ".sbx-cp-XXXXXX" + 1;
    if ((sink->temp = malloc(size)) == NULL)
        return -1;
    snprintf(sink->temp, size, "%.*s.%s.sbx-cp-XXXXXX", dir_len, sink->name,
             sink->name + dir_len);
    sink->fd = mkostemp(sink->temp, O_CLOEXEC);
    if (sink->fd < 0) {
        free(sink->temp);
        sink->temp = NULL;
        return -1;
    }
    mode_t mask = umask(0);
    umask(mask);
    mode_t mode = exists ? st.st_mode & 07777 : 0644 & ~mask;
    if (exists && fchown(sink->fd, st.st_uid, st.st_gid) != 0 && errno != EPERM)
        return -1;
    return fchmod(sink->fd, mode);
}

/* Close the destination; a new file takes its name.  0, or -1 with errno. */
static int sink_finish(copy_sink *sink)
{
    if (sink->fd == STDOUT_FILENO)
        return 0;
    int rc = close(sink->fd);
    sink->fd = -1;
    if (rc == 0 && sink->temp != NULL)
        rc = rename(sink->temp, sink->name);
    return rc;
}

/* Release the sink; a new file that did not take its name is removed. */
static void sink_drop(copy_sink *sink)
{
    if (sink->fd > STDOUT_FILENO)
        close(sink->fd);
    if (sink->temp != NULL) {
        unlink(sink->temp);
        free(sink->temp);
    }
}

/* Copy the sandbox file by read_file calls of a piece each, each piece
 * going out as it arrives while the engine goes on sending the next
 * (holding the whole file first made a copy twice as slow, and took its
 * size in memory).  The backend's status; *rc -1 and *saved its errno when
 * the destination failed. */
static sbx_status copy_by_pieces(sbx_backend *backend, const char *id, const char *path,
                                 copy_sink *sink, uint64_t *copied, int *rc, int *saved,
                                 sbx_error *err)
{
    sbx_status status = SBX_OK;
    for (int more = 1; more && status == SBX_OK && *rc == 0;) {
        sbx_file_content *content = NULL;
        status = sbx_backend_read_file(backend, id, path, *copied, COPY_CHUNK, &content, err);
        if (status != SBX_OK)
            break;
        *copied += content->length;
        *rc = sink->fd < 0 ? sink_open(sink) : 0;
        if (*rc == 0)
            *rc = ctl_write_all(sink->fd, content->data, content->length);
        *saved = errno;
        more = content->truncated && content->length > 0;
        sbx_backend_free_file_content(backend, content);
    }
    return status;
}

static int copy_out(const ctl_args *args, sbx_backend *backend, const ctl_output *out,
                    const char *id, const char *path)
{
    const char *name = args->operand2;
    if (strcmp(name, "-") == 0 && out->json)
        return fail_with(out, SBX_ERR_USAGE, "cp: '%s' (stdout) cannot be used with --json",
                         name);
    copy_sink sink = {name, -1, NULL};
    sbx_error err;
    sbx_status status = SBX_OK;
    uint64_t copied = 0, size = 0;
    int rc = 0, saved = 0, from = -1;
    /* A file the backend opens (local, ABI 1.6) is copied from that one
     * descriptor, in the kernel where it can: the bytes of one version of
     * it, even when it is replaced meanwhile.  Any refusal (another
     * backend, a file larger than a read answers, an error) leaves the copy
     * to read_file, whose errors are the command's. */
    int opened = sbx_backend_open_file(backend, id, path, &from, &size, &err) == SBX_OK;
    if (opened) {
        rc = sink_open(&sink);
        if (rc == 0)
            rc = ctl_copy_fd(from, sink.fd, &copied);
        saved = errno;
        close(from);
    } else {
        status = copy_by_pieces(backend, id, path, &sink, &copied, &rc, &saved, &err);
    }
    if (status == SBX_OK && rc == 0) {
        rc = sink_finish(&sink);
        saved = errno;
    }
    sink_drop(&sink);
    if (status != SBX_OK)
        return ctl_fail(out, &err);
    if (rc != 0 && opened)
        return fail_with(out, SBX_ERR_USAGE, "cp: cannot copy '%s' to '%s' (%s)",
                         args->operand, name, strerror(saved));
    if (rc != 0)
        return fail_with(out, SBX_ERR_USAGE, "cp: cannot write '%s' (%s)", name,
                         strerror(saved));
    ctl_print_copied(out, args->operand, name, copied);
    return CTL_EXIT_OK;
}

int ctl_cmd_cp(const ctl_args *args, sbx_backend *backend, const ctl_output *out)
{
    char *from_id = NULL, *to_id = NULL;
    const char *from_path = NULL, *to_path = NULL;
    int from_sandbox = split_sandbox_path(args->operand, &from_id, &from_path);
    int to_sandbox = split_sandbox_path(args->operand2, &to_id, &to_path);
    int code;
    if ((from_sandbox && from_id == NULL) || (to_sandbox && to_id == NULL))
        code = fail_with(out, SBX_ERR_INTERNAL, "cp: out of memory");
    else if (from_sandbox == to_sandbox)
        code = fail_with(out, SBX_ERR_USAGE,
                         "cp: exactly one of SOURCE and DESTINATION must be ID:PATH");
    else if (to_sandbox)
        code = copy_in(args, backend, out, to_id, to_path);
    else
        code = copy_out(args, backend, out, from_id, from_path);
    free(from_id);
    free(to_id);
    return code;
}

/* Entries ls shows at most, and how deep it goes. */
#define LS_MAX_ENTRIES 100000
#define LS_DEPTH 1

int ctl_cmd_ls(const ctl_args *args, sbx_backend *backend, const ctl_output *out)
{
    const char *path = args->operand2 != NULL ? args->operand2 : ".";
    sbx_error err;
    sbx_dir_listing *listing = NULL;
    if (sbx_backend_list_dir(backend, args->operand, path, LS_DEPTH, LS_MAX_ENTRIES, &listing,
                             &err) != SBX_OK)
        return ctl_fail(out, &err);
    ctl_print_listing(out, args->operand, path, listing);
    sbx_backend_free_listing(backend, listing);
    return CTL_EXIT_OK;
}
