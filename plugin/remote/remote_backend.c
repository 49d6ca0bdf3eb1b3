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
    .name = REMOTE_NAME,
    .version = PACKAGE_VERSION,
    .open = remote_open,
    .close = remote_close,
    .create = remote_create,
    .destroy = remote_destroy,
    .is_alive = remote_is_alive,
    .discover = remote_discover,
    .list_running = remote_list_running,
    .free_sandboxes = common_sandbox_records_free,
    .capabilities = remote_capabilities,
    .reconcile = remote_reconcile,
    .clear_reconciliation = common_reconciliation_clear,
};

const sbx_backend_descriptor *sbx_backend_entry(void)
{
    return &remote_descriptor;
}
