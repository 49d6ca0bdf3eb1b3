/* The sandbox operations of ABI 1.3 (exec and the file calls) as the host
 * hands them out, with what 1.4 added to them (exec's output callback,
 * the file calls taking requests): a module of an older minor, or one that
 * lacks an operation, answers "unsupported"; what a backend returns is
 * checked before a caller reads it, as records are. */
#include <config.h>

#include "host-api/src/host_internal.h"

#include <string.h>

/* The operation bits a descriptor can honour: a backend cannot claim an
 * operation whose slot it left empty. */
static unsigned operations_present(const sbx_backend_descriptor *d)
{
    unsigned ops = 0;
    if (HOST_HAS_OP(d, exec))
        ops |= SBX_OP_EXEC | SBX_OP_EXEC_SHELL | SBX_OP_EXEC_STDIN;
    if (HOST_HAS_OP(d, read_file) || HOST_HAS_OP(d, read_file_req))
        ops |= SBX_OP_READ_FILE;
    if (HOST_HAS_OP(d, write_file) || HOST_HAS_OP(d, write_file_req))
        ops |= SBX_OP_WRITE_FILE;
    if (HOST_HAS_OP(d, list_dir) || HOST_HAS_OP(d, list_dir_req))
        ops |= SBX_OP_LIST_DIR;
    if (HOST_HAS_OP(d, remove_path) || HOST_HAS_OP(d, remove_path_req))
        ops |= SBX_OP_REMOVE_PATH;
    /* Only a module built with the 1.4 request can see on_output. */
    if (HOST_HAS_OP(d, exec) && d->struct_size >= SBX_DESCRIPTOR_SIZE_1_4)
        ops |= SBX_OP_EXEC_STREAM;
    if (HOST_HAS_OP(d, process_start))
        ops |= SBX_OP_PROCESS;
    if (HOST_HAS_OP(d, process_start) && HOST_HAS_OP(d, process_resize))
        ops |= SBX_OP_PROCESS_PTY;
    if (HOST_HAS_OP(d, process_start) && HOST_HAS_OP(d, process_signal))
        ops |= SBX_OP_PROCESS_SIGNALS;
    if (HOST_HAS_OP(d, process_start) && HOST_HAS_OP(d, process_write))
        ops |= SBX_OP_PROCESS_STDIN_CLOSE;
    return ops;
}

sbx_status sbx_backend_operations_info(sbx_backend *b, sbx_operations_info *out, sbx_error *err)
{
    sbx_error_clear(err);
    size_t size = out->struct_size;
    if (size < sizeof(size_t))
        return sbx_error_set(err, SBX_ERR_USAGE,
                             "operations_info: struct_size %zu is too small", size);
    /* Limits the backend does not write are "none", operations "none". */
    memset((char *)out + sizeof(size_t), 0, size - sizeof(size_t));
    const sbx_backend_descriptor *d = b->descriptor;
    if (!HOST_HAS_OP(d, operations_info))
        return SBX_OK;
    sbx_status st = host_checked(b, d->operations_info(b->instance, out, err),
                                 "operations_info", err);
    out->struct_size = size;
    if (st == SBX_OK && size >= offsetof(sbx_operations_info, operations) + sizeof(unsigned))
        out->operations &= operations_present(d);
    return st;
}

/* The output callback of a request, or NULL (a request older than 1.4
 * has none). */
static sbx_output_fn output_callback(const sbx_exec_request *request)
{
    return request->struct_size >= SBX_EXEC_REQUEST_SIZE_1_4 ? request->on_output : NULL;
}

/* A backend that does not stream exec output (older than 1.4, or not
 * claiming SBX_OP_EXEC_STREAM) still honours on_output: the host calls it
 * once per stream, from the result, so a caller writes one code path.
 * Asked only when a caller set a callback, so plain execs cost nothing. */
static void deliver_unstreamed(sbx_backend *b, const sbx_exec_request *request,
                               const sbx_exec_result *r)
{
    sbx_output_fn on_output = output_callback(request);
    if (on_output == NULL)
        return;
    sbx_operations_info info = { .struct_size = sizeof info };
    sbx_error ignored;
    if (sbx_backend_operations_info(b, &info, &ignored) == SBX_OK &&
        (info.operations & SBX_OP_EXEC_STREAM) != 0)
        return;
    if (r->stdout_length > 0)
        on_output(request->output_ctx, SBX_STREAM_STDOUT, r->stdout_data, r->stdout_length);
    if (r->stderr_length > 0)
        on_output(request->output_ctx, SBX_STREAM_STDERR, r->stderr_data, r->stderr_length);
}

sbx_status sbx_backend_exec(sbx_backend *b, const char *sandbox_id,
                            const sbx_exec_request *request, sbx_exec_result **out,
                            sbx_error *err)
{
    *out = NULL;
    sbx_error_clear(err);
    const sbx_backend_descriptor *d = b->descriptor;
    if (!HOST_HAS_OP(d, exec))
        return host_unsupported(b, "exec", err);
    if (sandbox_id == NULL || request == NULL ||
        request->struct_size < SBX_EXEC_REQUEST_SIZE_1_3)
        return sbx_error_set(err, SBX_ERR_USAGE,
                             "exec: a sandbox id and a request made with "
                             "SBX_EXEC_REQUEST_INIT are required");
    sbx_status st = host_checked(b, d->exec(b->instance, sandbox_id, request, out, err),
                                 "exec", err);
    if (st != SBX_OK)
        return st;
    const sbx_exec_result *r = *out;
    const char *problem = NULL;
    if (r == NULL)
        problem = "no result";
    else if (r->struct_size < SBX_EXEC_RESULT_SIZE_1_3)
        problem = "a result smaller than ABI 1.3's";
    else if (r->stdout_data == NULL || r->stderr_data == NULL)
        problem = "a result without its output buffers";
    if (problem == NULL) {
        deliver_unstreamed(b, request, r);
        return SBX_OK;
    }
    d->free_exec_result(*out);
    *out = NULL;
    return host_malformed(b, "exec", problem, err);
}

void sbx_backend_free_exec_result(sbx_backend *b, sbx_exec_result *result)
{
    if (result != NULL)
        b->descriptor->free_exec_result(result);
}

/* What every file request `r` (may be NULL) of `type` needs: a sandbox id,
 * at least 1.4's members, and a path. */
#define CHECK_FILE_REQUEST(op, type, sandbox_id, r, err)                              \
    ((sandbox_id) == NULL                                                             \
         ? sbx_error_set(err, SBX_ERR_USAGE, "%s: a sandbox id is required", op)      \
     : HOST_CHECK_REQUEST(op, type, r, err) != SBX_OK ? SBX_ERR_USAGE                 \
     : (r)->path == NULL ? sbx_error_set(err, SBX_ERR_USAGE, "%s: a path is required", op) \
                         : SBX_OK)

sbx_status sbx_backend_read_file_req(sbx_backend *b, const char *sandbox_id,
                                     const sbx_read_file_request *request,
                                     sbx_file_content **out, sbx_error *err)
{
    *out = NULL;
    sbx_error_clear(err);
    const sbx_backend_descriptor *d = b->descriptor;
    if (!HOST_HAS_OP(d, read_file_req) && !HOST_HAS_OP(d, read_file))
        return host_unsupported(b, "read_file", err);
    sbx_status st =
        CHECK_FILE_REQUEST("read_file", SBX_READ_FILE_REQUEST, sandbox_id, request, err);
    if (st == SBX_OK && request->max_bytes == 0)
        st = sbx_error_set(err, SBX_ERR_USAGE, "read_file: max_bytes must be at least 1");
    if (st != SBX_OK)
        return st;
    if (HOST_HAS_OP(d, read_file_req))
        st = d->read_file_req(b->instance, sandbox_id, request, out, err);
    else
        st = d->read_file(b->instance, sandbox_id, request->path, request->offset,
                          request->max_bytes, out, err);
    st = host_checked(b, st, "read_file", err);
    if (st != SBX_OK)
        return st;
    const sbx_file_content *c = *out;
    const char *problem = NULL;
    if (c == NULL)
        problem = "no content";
    else if (c->struct_size < SBX_FILE_CONTENT_SIZE_1_3)
        problem = "content smaller than ABI 1.3's";
    else if (c->data == NULL || c->length > request->max_bytes)
        problem = "content without its buffer or longer than asked";
    if (problem == NULL)
        return SBX_OK;
    d->free_file_content(*out);
    *out = NULL;
    return host_malformed(b, "read_file", problem, err);
}

sbx_status sbx_backend_read_file(sbx_backend *b, const char *sandbox_id, const char *path,
                                 uint64_t offset, uint64_t max_bytes, sbx_file_content **out,
                                 sbx_error *err)
{
    sbx_read_file_request request = SBX_READ_FILE_REQUEST_INIT;
    request.path = path;
    request.offset = offset;
    request.max_bytes = max_bytes;
    return sbx_backend_read_file_req(b, sandbox_id, &request, out, err);
}

void sbx_backend_free_file_content(sbx_backend *b, sbx_file_content *content)
{
    if (content != NULL)
        b->descriptor->free_file_content(content);
}

sbx_status sbx_backend_write_file_req(sbx_backend *b, const char *sandbox_id,
                                      const sbx_write_file_request *request, sbx_error *err)
{
    sbx_error_clear(err);
    const sbx_backend_descriptor *d = b->descriptor;
    if (!HOST_HAS_OP(d, write_file_req) && !HOST_HAS_OP(d, write_file))
        return host_unsupported(b, "write_file", err);
    sbx_status st =
        CHECK_FILE_REQUEST("write_file", SBX_WRITE_FILE_REQUEST, sandbox_id, request, err);
    if (st != SBX_OK)
        return st;
    unsigned flags = request->flags;
    if (request->data == NULL && request->length > 0)
        return sbx_error_set(err, SBX_ERR_USAGE, "write_file: %zu bytes but no data",
                             request->length);
    const unsigned known = SBX_WRITE_APPEND | SBX_WRITE_EXCLUSIVE | SBX_WRITE_MKDIRS;
    if ((flags & ~known) != 0 || (flags & SBX_WRITE_APPEND && flags & SBX_WRITE_EXCLUSIVE))
        return sbx_error_set(err, SBX_ERR_USAGE,
                             "write_file: flags 0x%x (APPEND and EXCLUSIVE exclude each other)",
                             flags);
    if (request->mode > 07777)
        return sbx_error_set(err, SBX_ERR_USAGE, "write_file: mode %o is not permission bits",
                             (unsigned)request->mode);
    if (HOST_HAS_OP(d, write_file_req))
        st = d->write_file_req(b->instance, sandbox_id, request, err);
    else
        st = d->write_file(b->instance, sandbox_id, request->path, request->data,
                           request->length, flags, request->mode, err);
    return host_checked(b, st, "write_file", err);
}

sbx_status sbx_backend_write_file(sbx_backend *b, const char *sandbox_id, const char *path,
                                  const void *data, size_t length, unsigned flags,
                                  uint32_t mode, sbx_error *err)
{
    sbx_write_file_request request = SBX_WRITE_FILE_REQUEST_INIT;
    request.path = path;
    request.data = data;
    request.length = length;
    request.flags = flags;
    request.mode = mode;
    return sbx_backend_write_file_req(b, sandbox_id, &request, err);
}

/* A listing must hold `count` entries of at least ABI 1.3's size, each
 * with its path. */
static const char *listing_problem(const sbx_dir_listing *l, size_t max_entries)
{
    if (l == NULL)
        return "no listing";
    if (l->struct_size < SBX_DIR_LISTING_SIZE_1_3)
        return "a listing smaller than ABI 1.3's";
    size_t seen = 0;
    for (const sbx_dir_entry *e = l->entries; e != NULL; e = e->next, seen++) {
        if (e->struct_size < SBX_DIR_ENTRY_SIZE_1_3 || e->path == NULL)
            return "an entry smaller than ABI 1.3's or without its path";
    }
    if (seen != l->count || seen > max_entries)
        return "a chain whose length differs from its count or passes max_entries";
    return NULL;
}

sbx_status sbx_backend_list_dir_req(sbx_backend *b, const char *sandbox_id,
                                    const sbx_list_dir_request *request,
                                    sbx_dir_listing **out, sbx_error *err)
{
    *out = NULL;
    sbx_error_clear(err);
    const sbx_backend_descriptor *d = b->descriptor;
    if (!HOST_HAS_OP(d, list_dir_req) && !HOST_HAS_OP(d, list_dir))
        return host_unsupported(b, "list_dir", err);
    sbx_status st = CHECK_FILE_REQUEST("list_dir", SBX_LIST_DIR_REQUEST, sandbox_id, request, err);
    if (st == SBX_OK && (request->max_depth == 0 || request->max_entries == 0))
        st = sbx_error_set(err, SBX_ERR_USAGE,
                           "list_dir: max_depth and max_entries must be at least 1");
    if (st != SBX_OK)
        return st;
    if (HOST_HAS_OP(d, list_dir_req))
        st = d->list_dir_req(b->instance, sandbox_id, request, out, err);
    else
        st = d->list_dir(b->instance, sandbox_id, request->path, request->max_depth,
                         request->max_entries, out, err);
    st = host_checked(b, st, "list_dir", err);
    if (st != SBX_OK)
        return st;
    const char *problem = listing_problem(*out, request->max_entries);
    if (problem == NULL)
        return SBX_OK;
    d->free_listing(*out);
    *out = NULL;
    return host_malformed(b, "list_dir", problem, err);
}

sbx_status sbx_backend_list_dir(sbx_backend *b, const char *sandbox_id, const char *path,
                                unsigned max_depth, size_t max_entries, sbx_dir_listing **out,
                                sbx_error *err)
{
    sbx_list_dir_request request = SBX_LIST_DIR_REQUEST_INIT;
    request.path = path;
    request.max_depth = max_depth;
    request.max_entries = max_entries;
    return sbx_backend_list_dir_req(b, sandbox_id, &request, out, err);
}

void sbx_backend_free_listing(sbx_backend *b, sbx_dir_listing *listing)
{
    if (listing != NULL)
        b->descriptor->free_listing(listing);
}

sbx_status sbx_backend_remove_path_req(sbx_backend *b, const char *sandbox_id,
                                       const sbx_remove_path_request *request, sbx_error *err)
{
    sbx_error_clear(err);
    const sbx_backend_descriptor *d = b->descriptor;
    if (!HOST_HAS_OP(d, remove_path_req) && !HOST_HAS_OP(d, remove_path))
        return host_unsupported(b, "remove_path", err);
    sbx_status st =
        CHECK_FILE_REQUEST("remove_path", SBX_REMOVE_PATH_REQUEST, sandbox_id, request, err);
    if (st == SBX_OK && (request->flags & ~SBX_REMOVE_RECURSIVE) != 0)
        st = sbx_error_set(err, SBX_ERR_USAGE, "remove_path: unknown flags 0x%x",
                           request->flags);
    if (st != SBX_OK)
        return st;
    if (HOST_HAS_OP(d, remove_path_req))
        st = d->remove_path_req(b->instance, sandbox_id, request, err);
    else
        st = d->remove_path(b->instance, sandbox_id, request->path, request->flags, err);
    return host_checked(b, st, "remove_path", err);
}

sbx_status sbx_backend_remove_path(sbx_backend *b, const char *sandbox_id, const char *path,
                                   unsigned flags, sbx_error *err)
{
    sbx_remove_path_request request = SBX_REMOVE_PATH_REQUEST_INIT;
    request.path = path;
    request.flags = flags;
    return sbx_backend_remove_path_req(b, sandbox_id, &request, err);
}
