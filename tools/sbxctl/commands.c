/* The commands: each is one backend call, then printing.  A failed call
 * prints its error and exits with the code of its kind. */
#include <config.h>

#include "tools/sbxctl/commands.h"

#include "common/expiry.h"
#include "tools/sbxctl/exit_code.h"
#include "tools/sbxctl/sandbox_id.h"

int ctl_cmd_backends(ctl_session *session, const ctl_output *out)
{
    sbx_error err;
    const sbx_backend_info *entries = NULL;
    size_t count = 0;
    if (sbx_host_list_backends(session->host, &entries, &count, &err) != SBX_OK)
        return ctl_fail(out, &err);
    ctl_print_backends(out, entries, count);
    return CTL_EXIT_OK;
}

int ctl_cmd_create(const ctl_args *args, sbx_backend *backend,
                       const ctl_output *out)
{
    char derived_id[CTL_DERIVED_ID_SIZE];
    sbx_error err;
    sbx_create_request request = ctl_args_create_request(args);
    request.sandbox_id = args->sandbox_id;
    if (request.sandbox_id == NULL) {
        if (ctl_derive_sandbox_id(args->user_id, args->thread_id, derived_id, &err) != SBX_OK)
            return ctl_fail(out, &err);
        request.sandbox_id = derived_id;
    }

    sbx_sandbox_record *record = NULL;
    if (sbx_backend_create_record(backend, &request, &record, &err) != SBX_OK)
        return ctl_fail(out, &err);
    ctl_print_record(out, record);
    sbx_backend_free_records(backend, record);
    return CTL_EXIT_OK;
}

int ctl_cmd_destroy(const ctl_args *args, sbx_backend *backend,
                        const ctl_output *out)
{
    sbx_error err;
    if (sbx_backend_destroy(backend, args->operand, &err) != SBX_OK)
        return ctl_fail(out, &err);
    ctl_print_destroyed(out, args->operand);
    return CTL_EXIT_OK;
}

int ctl_cmd_extend(const ctl_args *args, sbx_backend *backend, const ctl_output *out)
{
    sbx_error err;
    int64_t expires_at = common_epoch_now_ms() + args->duration_ms;
    if (sbx_backend_extend(backend, args->operand, expires_at, &err) != SBX_OK)
        return ctl_fail(out, &err);
    ctl_print_extended(out, args->operand, expires_at);
    return CTL_EXIT_OK;
}

int ctl_cmd_alive(const ctl_args *args, sbx_backend *backend,
                      const ctl_output *out)
{
    sbx_error err;
    int alive = 0;
    if (sbx_backend_is_alive(backend, args->operand, &alive, &err) != SBX_OK)
        return ctl_fail(out, &err);
    ctl_print_alive(out, args->operand, alive);
    return alive ? CTL_EXIT_OK : CTL_EXIT_NEGATIVE;
}

int ctl_cmd_discover(const ctl_args *args, sbx_backend *backend,
                         const ctl_output *out)
{
    sbx_error err;
    sbx_sandbox_record *record = NULL;
    if (sbx_backend_discover_record(backend, args->operand, &record, &err) != SBX_OK)
        return ctl_fail(out, &err);
    ctl_print_record(out, record);
    sbx_backend_free_records(backend, record);
    return CTL_EXIT_OK;
}

int ctl_cmd_list(const ctl_args *args, sbx_backend *backend,
                     const ctl_output *out)
{
    sbx_error err;
    sbx_sandbox_record *records = NULL;
    size_t count = 0;
    if (sbx_backend_list_records_labelled(backend, args->labels, args->label_count, &records,
                                          &count, &err) != SBX_OK)
        return ctl_fail(out, &err);
    ctl_print_records(out, records, count);
    sbx_backend_free_records(backend, records);
    return CTL_EXIT_OK;
}

int ctl_cmd_capabilities(const ctl_args *args, sbx_backend *backend,
                             const ctl_output *out)
{
    (void)args;
    sbx_error err;
    sbx_capabilities caps = {SBX_CONTRACT_NONE, 0};
    if (sbx_backend_capabilities(backend, &caps, &err) != SBX_OK)
        return ctl_fail(out, &err);
    ctl_print_capabilities(out, &caps);
    return CTL_EXIT_OK;
}

int ctl_cmd_reconcile(const ctl_args *args, sbx_backend *backend,
                          const ctl_output *out)
{
    sbx_error err;
    sbx_reconciliation result = {SBX_RECONCILE_UNKNOWN, NULL, NULL, NULL};
    if (sbx_backend_reconcile(backend, args->operand, &result, &err) != SBX_OK)
        return ctl_fail(out, &err);
    ctl_print_reconciliation(out, args->operand, &result);
    int found = result.status == SBX_RECONCILE_FOUND;
    sbx_backend_clear_reconciliation(backend, &result);
    return found ? CTL_EXIT_OK : CTL_EXIT_NEGATIVE;
}
