/* The sandbox operations (ABI 1.3) on a managed sandbox: the tool-call path
 * of an agent.  Each call finds the ACTIVE entry as get does (no store I/O),
 * keeps it pinned and marked in use while the backend works, so that the
 * idle reaper never takes a sandbox a command is running in, and counts as
 * use when it ends. */
#include <config.h>

#include "host-api/src/manager/manager_operations.h"

#include "host-api/src/manager/manager_events.h"
#include "host-api/src/manager/manager_internal.h"

mgr_entry *mgr_operation_begin(sbx_manager *m, const char *op, const char *id,
                                  sbx_error *err)
{
    sbx_error_clear(err);
    if (m == NULL || id == NULL) {
        sbx_error_set(err, SBX_ERR_USAGE, "manager: %s needs a manager and a sandbox id", op);
        return NULL;
    }
    mgr_read_lock(&m->lock);
    mgr_entry *e = mgr_find(m, id);
    if (e != NULL && e->state == MGR_ACTIVE && !e->teardown) {
        atomic_fetch_add(&e->pins, 1);
        atomic_fetch_add(&e->operating, 1);
        atomic_store_explicit(&e->last_used, mgr_now(m), memory_order_relaxed);
    } else {
        e = NULL;
    }
    mgr_read_unlock(&m->lock);
    if (e == NULL)
        sbx_error_set(err, SBX_ERR_NOT_FOUND, "manager: %s: sandbox %s is not active here", op,
                      id);
    return e;
}

void mgr_operation_end(sbx_manager *m, mgr_entry *e)
{
    atomic_store_explicit(&e->last_used, mgr_now(m), memory_order_relaxed);
    atomic_fetch_sub(&e->operating, 1);
    mgr_entry_unpin(m, e);
}

sbx_status sbx_manager_exec(sbx_manager *m, const char *sandbox_id,
                            const sbx_exec_request *request, sbx_exec_result **out,
                            sbx_error *err)
{
    *out = NULL;
    mgr_entry *e = mgr_operation_begin(m, "exec", sandbox_id, err);
    if (e == NULL)
        return err->kind;
    sbx_status st = sbx_backend_exec(m->backend, sandbox_id, request, out, err);
    mgr_operation_end(m, e);
    return st;
}

sbx_status sbx_manager_read_file(sbx_manager *m, const char *sandbox_id, const char *path,
                                 uint64_t offset, uint64_t max_bytes, sbx_file_content **out,
                                 sbx_error *err)
{
    *out = NULL;
    mgr_entry *e = mgr_operation_begin(m, "read_file", sandbox_id, err);
    if (e == NULL)
        return err->kind;
    sbx_status st = sbx_backend_read_file(m->backend, sandbox_id, path, offset, max_bytes, out,
                                          err);
    mgr_operation_end(m, e);
    return st;
}

sbx_status sbx_manager_open_file(sbx_manager *m, const char *sandbox_id, const char *path,
                                 int *fd, uint64_t *size, sbx_error *err)
{
    *fd = -1;
    *size = 0;
    mgr_entry *e = mgr_operation_begin(m, "open_file", sandbox_id, err);
    if (e == NULL)
        return err->kind;
    sbx_status st = sbx_backend_open_file(m->backend, sandbox_id, path, fd, size, err);
    mgr_operation_end(m, e);
    return st;
}

sbx_status sbx_manager_write_file(sbx_manager *m, const char *sandbox_id, const char *path,
                                  const void *data, size_t length, unsigned flags,
                                  uint32_t mode, sbx_error *err)
{
    mgr_entry *e = mgr_operation_begin(m, "write_file", sandbox_id, err);
    if (e == NULL)
        return err->kind;
    sbx_status st = sbx_backend_write_file(m->backend, sandbox_id, path, data, length, flags,
                                           mode, err);
    mgr_operation_end(m, e);
    return st;
}

sbx_status sbx_manager_list_dir(sbx_manager *m, const char *sandbox_id, const char *path,
                                unsigned max_depth, size_t max_entries, sbx_dir_listing **out,
                                sbx_error *err)
{
    *out = NULL;
    mgr_entry *e = mgr_operation_begin(m, "list_dir", sandbox_id, err);
    if (e == NULL)
        return err->kind;
    sbx_status st = sbx_backend_list_dir(m->backend, sandbox_id, path, max_depth, max_entries,
                                         out, err);
    mgr_operation_end(m, e);
    return st;
}

sbx_status sbx_manager_remove_path(sbx_manager *m, const char *sandbox_id, const char *path,
                                   unsigned flags, sbx_error *err)
{
    mgr_entry *e = mgr_operation_begin(m, "remove_path", sandbox_id, err);
    if (e == NULL)
        return err->kind;
    sbx_status st = sbx_backend_remove_path(m->backend, sandbox_id, path, flags, err);
    mgr_operation_end(m, e);
    return st;
}
