/* The sandbox operations of ABI 1.3 (exec and the file calls) as the host
 * hands them out: a module of an older minor, or one that lacks an
 * operation, answers "unsupported"; what a backend returns is checked
 * before a caller reads it, as records are. */
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
    if (HOST_HAS_OP(d, read_file))
        ops |= SBX_OP_READ_FILE;
    if (HOST_HAS_OP(d, write_file))
        ops |= SBX_OP_WRITE_FILE;
    if (HOST_HAS_OP(d, list_dir))
        ops |= SBX_OP_LIST_DIR;
    if (HOST_HAS_OP(d, remove_path))
        ops |= SBX_OP_REMOVE_PATH;
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

/* A result a backend handed over too small to read, or without its
 * buffers: released, and the call fails naming the backend. */
static sbx_status malformed(const sbx_backend *b, const char *op, const char *what,
                            sbx_error *err)
{
    return sbx_error_set(err, SBX_ERR_INTERNAL, "backend '%s': %s returned %s",
                         b->descriptor->name, op, what);
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
    if (problem == NULL)
        return SBX_OK;
    d->free_exec_result(*out);
    *out = NULL;
    return malformed(b, "exec", problem, err);
}

void sbx_backend_free_exec_result(sbx_backend *b, sbx_exec_result *result)
{
    if (result != NULL)
        b->descriptor->free_exec_result(result);
}

/* The path every file call needs. */
static sbx_status check_path(const char *op, const char *sandbox_id, const char *path,
                             sbx_error *err)
{
    if (sandbox_id == NULL || path == NULL)
        return sbx_error_set(err, SBX_ERR_USAGE, "%s: a sandbox id and a path are required", op);
    return SBX_OK;
}

sbx_status sbx_backend_read_file(sbx_backend *b, const char *sandbox_id, const char *path,
                                 uint64_t offset, uint64_t max_bytes, sbx_file_content **out,
                                 sbx_error *err)
{
    *out = NULL;
    sbx_error_clear(err);
    const sbx_backend_descriptor *d = b->descriptor;
    if (!HOST_HAS_OP(d, read_file))
        return host_unsupported(b, "read_file", err);
    sbx_status st = check_path("read_file", sandbox_id, path, err);
    if (st == SBX_OK && max_bytes == 0)
        st = sbx_error_set(err, SBX_ERR_USAGE, "read_file: max_bytes must be at least 1");
    if (st != SBX_OK)
        return st;
    st = host_checked(b, d->read_file(b->instance, sandbox_id, path, offset, max_bytes, out, err),
                      "read_file", err);
    if (st != SBX_OK)
        return st;
    const sbx_file_content *c = *out;
    const char *problem = NULL;
    if (c == NULL)
        problem = "no content";
    else if (c->struct_size < SBX_FILE_CONTENT_SIZE_1_3)
        problem = "content smaller than ABI 1.3's";
    else if (c->data == NULL || c->length > max_bytes)
        problem = "content without its buffer or longer than asked";
    if (problem == NULL)
        return SBX_OK;
    d->free_file_content(*out);
    *out = NULL;
    return malformed(b, "read_file", problem, err);
}

void sbx_backend_free_file_content(sbx_backend *b, sbx_file_content *content)
{
    if (content != NULL)
        b->descriptor->free_file_content(content);
}

sbx_status sbx_backend_write_file(sbx_backend *b, const char *sandbox_id, const char *path,
                                  const void *data, size_t length, unsigned flags,
                                  uint32_t mode, sbx_error *err)
{
    sbx_error_clear(err);
    const sbx_backend_descriptor *d = b->descriptor;
    if (!HOST_HAS_OP(d, write_file))
        return host_unsupported(b, "write_file", err);
    sbx_status st = check_path("write_file", sandbox_id, path, err);
    if (st != SBX_OK)
        return st;
    if (data == NULL && length > 0)
        return sbx_error_set(err, SBX_ERR_USAGE, "write_file: %zu bytes but no data", length);
    const unsigned known = SBX_WRITE_APPEND | SBX_WRITE_EXCLUSIVE | SBX_WRITE_MKDIRS;
    if ((flags & ~known) != 0 || (flags & SBX_WRITE_APPEND && flags & SBX_WRITE_EXCLUSIVE))
        return sbx_error_set(err, SBX_ERR_USAGE,
                             "write_file: flags 0x%x (APPEND and EXCLUSIVE exclude each other)",
                             flags);
    if (mode > 07777)
        return sbx_error_set(err, SBX_ERR_USAGE, "write_file: mode %o is not permission bits",
                             (unsigned)mode);
    return host_checked(b, d->write_file(b->instance, sandbox_id, path, data, length, flags,
                                         mode, err),
                        "write_file", err);
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

sbx_status sbx_backend_list_dir(sbx_backend *b, const char *sandbox_id, const char *path,
                                unsigned max_depth, size_t max_entries, sbx_dir_listing **out,
                                sbx_error *err)
{
    *out = NULL;
    sbx_error_clear(err);
    const sbx_backend_descriptor *d = b->descriptor;
    if (!HOST_HAS_OP(d, list_dir))
        return host_unsupported(b, "list_dir", err);
    sbx_status st = check_path("list_dir", sandbox_id, path, err);
    if (st == SBX_OK && (max_depth == 0 || max_entries == 0))
        st = sbx_error_set(err, SBX_ERR_USAGE,
                           "list_dir: max_depth and max_entries must be at least 1");
    if (st != SBX_OK)
        return st;
    st = host_checked(b, d->list_dir(b->instance, sandbox_id, path, max_depth, max_entries, out,
                                     err),
                      "list_dir", err);
    if (st != SBX_OK)
        return st;
    const char *problem = listing_problem(*out, max_entries);
    if (problem == NULL)
        return SBX_OK;
    d->free_listing(*out);
    *out = NULL;
    return malformed(b, "list_dir", problem, err);
}

void sbx_backend_free_listing(sbx_backend *b, sbx_dir_listing *listing)
{
    if (listing != NULL)
        b->descriptor->free_listing(listing);
}

sbx_status sbx_backend_remove_path(sbx_backend *b, const char *sandbox_id, const char *path,
                                   unsigned flags, sbx_error *err)
{
    sbx_error_clear(err);
    const sbx_backend_descriptor *d = b->descriptor;
    if (!HOST_HAS_OP(d, remove_path))
        return host_unsupported(b, "remove_path", err);
    sbx_status st = check_path("remove_path", sandbox_id, path, err);
    if (st == SBX_OK && (flags & ~SBX_REMOVE_RECURSIVE) != 0)
        st = sbx_error_set(err, SBX_ERR_USAGE, "remove_path: unknown flags 0x%x", flags);
    if (st != SBX_OK)
        return st;
    return host_checked(b, d->remove_path(b->instance, sandbox_id, path, flags, err),
                        "remove_path", err);
}
