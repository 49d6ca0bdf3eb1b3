/* The live-process calls (ABI 1.4) and sessions on a managed sandbox: each
 * call is a sandbox operation (manager_operations.h), so it needs the
 * sandbox ACTIVE here and counts as use while it runs; a session's every
 * call likewise.  A process left running between calls is use too: the
 * idle reaper asks the backend (manager_reaper.c). */
#include <config.h>

#include "host-api/src/manager/manager_internal.h"
#include "host-api/src/manager/manager_operations.h"
#include "host-api/src/session_internal.h"

sbx_status sbx_manager_process_start(sbx_manager *m, const char *sandbox_id,
                                     const sbx_process_request *request,
                                     sbx_process_info **out, sbx_error *err)
{
    *out = NULL;
    mgr_entry *e = mgr_operation_begin(m, "process_start", sandbox_id, err);
    if (e == NULL)
        return err->kind;
    sbx_status st = sbx_backend_process_start(m->backend, sandbox_id, request, out, err);
    mgr_operation_end(m, e);
    return st;
}

sbx_status sbx_manager_process_read(sbx_manager *m, const char *sandbox_id,
                                    const char *process_id,
                                    const sbx_process_read_request *request,
                                    sbx_process_output **out, sbx_error *err)
{
    *out = NULL;
    mgr_entry *e = mgr_operation_begin(m, "process_read", sandbox_id, err);
    if (e == NULL)
        return err->kind;
    sbx_status st = sbx_backend_process_read(m->backend, sandbox_id, process_id, request, out,
                                             err);
    mgr_operation_end(m, e);
    return st;
}

sbx_status sbx_manager_process_write(sbx_manager *m, const char *sandbox_id,
                                     const char *process_id,
                                     const sbx_process_write_request *request, sbx_error *err)
{
    mgr_entry *e = mgr_operation_begin(m, "process_write", sandbox_id, err);
    if (e == NULL)
        return err->kind;
    sbx_status st = sbx_backend_process_write(m->backend, sandbox_id, process_id, request, err);
    mgr_operation_end(m, e);
    return st;
}

sbx_status sbx_manager_process_signal(sbx_manager *m, const char *sandbox_id,
                                      const char *process_id, int signal, sbx_error *err)
{
    mgr_entry *e = mgr_operation_begin(m, "process_signal", sandbox_id, err);
    if (e == NULL)
        return err->kind;
    sbx_status st = sbx_backend_process_signal(m->backend, sandbox_id, process_id, signal, err);
    mgr_operation_end(m, e);
    return st;
}

sbx_status sbx_manager_process_resize(sbx_manager *m, const char *sandbox_id,
                                      const char *process_id, unsigned rows, unsigned cols,
                                      sbx_error *err)
{
    mgr_entry *e = mgr_operation_begin(m, "process_resize", sandbox_id, err);
    if (e == NULL)
        return err->kind;
    sbx_status st = sbx_backend_process_resize(m->backend, sandbox_id, process_id, rows, cols,
                                               err);
    mgr_operation_end(m, e);
    return st;
}

sbx_status sbx_manager_process_wait(sbx_manager *m, const char *sandbox_id,
                                    const char *process_id, int64_t wait_ms,
                                    sbx_process_info **out, sbx_error *err)
{
    *out = NULL;
    mgr_entry *e = mgr_operation_begin(m, "process_wait", sandbox_id, err);
    if (e == NULL)
        return err->kind;
    sbx_status st = sbx_backend_process_wait(m->backend, sandbox_id, process_id, wait_ms, out,
                                             err);
    mgr_operation_end(m, e);
    return st;
}

sbx_status sbx_manager_process_list(sbx_manager *m, const char *sandbox_id,
                                    sbx_process_info **out, size_t *count, sbx_error *err)
{
    *out = NULL;
    *count = 0;
    mgr_entry *e = mgr_operation_begin(m, "process_list", sandbox_id, err);
    if (e == NULL)
        return err->kind;
    sbx_status st = sbx_backend_process_list(m->backend, sandbox_id, out, count, err);
    mgr_operation_end(m, e);
    return st;
}

sbx_status sbx_manager_process_forget(sbx_manager *m, const char *sandbox_id,
                                      const char *process_id, sbx_error *err)
{
    mgr_entry *e = mgr_operation_begin(m, "process_forget", sandbox_id, err);
    if (e == NULL)
        return err->kind;
    sbx_status st = sbx_backend_process_forget(m->backend, sandbox_id, process_id, err);
    mgr_operation_end(m, e);
    return st;
}

/* ---------------------------------------------------------------- sessions */

static sbx_status session_begin(void *ctx, const char *sandbox_id, void **token, sbx_error *err)
{
    *token = mgr_operation_begin(ctx, "session", sandbox_id, err);
    return *token != NULL ? SBX_OK : err->kind;
}

static void session_end(void *ctx, void *token)
{
    mgr_operation_end(ctx, token);
}

/* The hooks that make a session's calls operations on the sandbox; NULL
 * with `err` filled for a NULL manager. */
static const host_session_hooks *session_hooks(sbx_manager *m, host_session_hooks *hooks,
                                               sbx_session **out, sbx_error *err)
{
    if (m != NULL) {
        *hooks = (host_session_hooks){m, session_begin, session_end};
        return hooks;
    }
    if (out != NULL)
        *out = NULL;
    sbx_error_set(err, SBX_ERR_USAGE, "manager: a session needs a manager");
    return NULL;
}

sbx_status sbx_manager_session_open(sbx_manager *m, const char *sandbox_id,
                                    const sbx_session_options *options, sbx_session **out,
                                    sbx_error *err)
{
    host_session_hooks hooks;
    if (session_hooks(m, &hooks, out, err) == NULL)
        return err->kind;
    const host_session_place at = { m->backend, &hooks, sandbox_id, NULL };
    return host_session_new(&at, options, out, err);
}

sbx_status sbx_manager_session_attach(sbx_manager *m, const char *sandbox_id,
                                      const char *process_id,
                                      const sbx_session_options *options, sbx_session **out,
                                      sbx_error *err)
{
    host_session_hooks hooks;
    if (session_hooks(m, &hooks, out, err) == NULL)
        return err->kind;
    const host_session_place at = { m->backend, &hooks, sandbox_id, process_id };
    return host_session_attach(&at, options, out, err);
}
