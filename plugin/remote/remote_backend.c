/* The remote backend's descriptor and entry point: the module's only
 * exported symbol (every other function is hidden or static). */
#include <config.h>

#include "plugin/remote/remote_backend.h"

#include "common/sandbox_records.h"
#include "plugin/remote/remote_create.h"
#include "plugin/remote/remote_instance.h"
#include "plugin/remote/remote_ops.h"

static const sbx_backend_descriptor remote_descriptor = {
    .abi_major = SBX_BACKEND_ABI_MAJOR,
    .abi_minor = SBX_BACKEND_ABI_MINOR,
    .struct_size = sizeof(sbx_backend_descriptor),
    .name = SBX_REMOTE_NAME,
    .version = PACKAGE_VERSION,
    .open = sbx_remote_open,
    .close = sbx_remote_close,
    .create = sbx_remote_create,
    .destroy = sbx_remote_destroy,
    .is_alive = sbx_remote_is_alive,
    .discover = sbx_remote_discover,
    .list_running = sbx_remote_list_running,
    .free_sandboxes = sbx_sandbox_records_free,
    .capabilities = sbx_remote_capabilities,
    .reconcile = sbx_remote_reconcile,
    .clear_reconciliation = sbx_reconciliation_clear,
};

const sbx_backend_descriptor *sbx_backend_entry(void)
{
    return &remote_descriptor;
}
