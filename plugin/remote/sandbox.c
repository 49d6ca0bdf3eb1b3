/* Release of the records the remote backend hands out (see sandbox.h). */
#include "plugin/remote/sandbox.h"

#include <sbx/host.h>

#include <stdlib.h>
#include <string.h>

void sbx_remote_sandbox_clear(sbx_sandbox *sb)
{
    if (sb == NULL)
        return;
    free(sb->sandbox_id);
    free(sb->sandbox_url);
    free(sb->user_id);
    free(sb->thread_id);
    free(sb->status);
    memset(sb, 0, sizeof *sb);
    sb->mount_contract_version = SBX_CONTRACT_NONE;
}

void sbx_remote_free_sandboxes(sbx_sandbox *sandboxes, size_t count)
{
    if (sandboxes == NULL)
        return;
    for (size_t i = 0; i < count; i++)
        sbx_remote_sandbox_clear(&sandboxes[i]);
    free(sandboxes);
}

sbx_status sbx_remote_sandbox_box(sbx_sandbox *sb, sbx_sandbox **out, sbx_error *err)
{
    *out = malloc(sizeof **out);
    if (*out == NULL) {
        sbx_remote_sandbox_clear(sb);
        return sbx_error_set(err, SBX_ERR_INTERNAL, "out of memory");
    }
    **out = *sb;
    memset(sb, 0, sizeof *sb);
    sb->mount_contract_version = SBX_CONTRACT_NONE;
    return SBX_OK;
}

void sbx_remote_clear_reconciliation(sbx_reconciliation *result)
{
    if (result == NULL)
        return;
    sbx_remote_free_sandboxes(result->sandbox, result->sandbox != NULL ? 1 : 0);
    free(result->backend_namespace);
    free(result->incarnation_id);
    memset(result, 0, sizeof *result);
    result->status = SBX_RECONCILE_UNKNOWN;
}
